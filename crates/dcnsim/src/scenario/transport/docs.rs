//! The Markdown tables generated from the key table: the `[transports.NAME]` keys of
//! docs/scenario.md and the profile table of docs/tcp.md (`tests/docs.rs` fails when the
//! docs drift from them).

use super::{CcName, ProfileName, TransportConfig, TransportSpec, BUILTINS, TRANSPORT_KEYS};

/// One value as a scenario writes it (`"1ms"`, `true`, `10`; `none` when unset).
fn md_value(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::Null => "none".into(),
        v => format!("`{v}`"),
    }
}

fn resolved_json(profile: ProfileName, cc: CcName) -> serde_json::Map<String, serde_json::Value> {
    let spec = TransportSpec {
        profile: Some(profile),
        ..TransportSpec::default()
    };
    match serde_json::to_value(TransportConfig::resolve(&spec, cc)) {
        Ok(serde_json::Value::Object(m)) => m,
        _ => unreachable!("TransportConfig serializes to a map"),
    }
}

/// The `[transports.NAME]` key table of docs/scenario.md (defaults of the `rfc` profile with
/// `cc = "cubic"`).
pub fn transport_keys_md() -> String {
    let d = resolved_json(ProfileName::Rfc, CcName::Cubic);
    let mut s = String::from("| key | type | default | range | meaning |\n|---|---|---|---|---|\n");
    for k in TRANSPORT_KEYS {
        s += &format!(
            "| `{}` | {} | {} | {} | {} |\n",
            k.name,
            k.unit,
            md_value(&d[k.name]),
            k.range,
            k.doc.trim()
        );
    }
    s
}

/// The profile table of docs/tcp.md: every TCP behaviour key (a key with sources) under
/// `rfc`, `linux` and `ns3`. A value that depends on `cc` is given as
/// "newreno's value; cc: value" for the other congestion controls that differ.
pub fn tcp_profiles_md() -> String {
    let profiles = [ProfileName::Rfc, ProfileName::Linux, ProfileName::Ns3];
    // Every congestion control is a built-in; newreno's values are the base.
    let mut ccs = BUILTINS.to_vec();
    ccs.sort_by_key(|&(_, cc)| cc != CcName::NewReno);
    let vals: Vec<Vec<_>> = profiles
        .iter()
        .map(|&p| ccs.iter().map(|&(_, cc)| resolved_json(p, cc)).collect())
        .collect();
    let mut s = String::from("| key | rfc | linux | ns3 | sources |\n|---|---|---|---|---|\n");
    for k in TRANSPORT_KEYS.iter().filter(|k| !k.source.is_empty()) {
        s += &format!("| `{}` |", k.name);
        for per_cc in &vals {
            let base = &per_cc[0][k.name];
            let mut cell = md_value(base);
            for (m, (cc, _)) in per_cc.iter().zip(&ccs).skip(1) {
                if &m[k.name] != base {
                    cell += &format!("; {cc}: {}", md_value(&m[k.name]));
                }
            }
            s += &format!(" {cell} |");
        }
        s += &format!(" {} |\n", k.source);
    }
    s
}
