//! The built-in transports (`cubic`, `dctcp`, ..., RoCE's `dcqcn` and `hpcc`), a table
//! named after one starting from its defaults, and `Scenario::transports` read and written
//! back (a RoCE transport takes only `kind` and its `roce` table).

use super::{CcName, TransportConfig, TransportKindName, TransportSpec};
use crate::scenario::roce::{RoceCcName, RoceConfig, RoceRecoveryName, RoceSpec};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::collections::BTreeMap;

/// The built-in transports: a name and its congestion control (the `rfc` profile).
pub const BUILTINS: [(&str, CcName); 7] = [
    ("cubic", CcName::Cubic),
    ("d2tcp", CcName::D2tcp),
    ("dctcp", CcName::Dctcp),
    ("l2dct", CcName::L2dct),
    ("ledbat", CcName::Ledbat),
    ("newreno", CcName::NewReno),
    ("tcp_lp", CcName::TcpLp),
];

fn builtin_cc(name: &str) -> Option<CcName> {
    BUILTINS.iter().find(|b| b.0 == name).map(|b| b.1)
}

/// The built-in RoCE transport: `kind = "roce"` with DCQCN and the `tlt` preset.
pub const ROCE_BUILTIN: &str = "dcqcn";
/// The built-in HPCC transport: `kind = "roce"` with `cc = "hpcc"` and `recovery = "sack"`
/// (HPCC with SACK, as TLT runs it; mechanisms §4.11).
pub const HPCC_BUILTIN: &str = "hpcc";

/// A table named after a built-in RoCE transport starts from its `roce` keys: the keys the
/// user wrote win.
fn roce_builtin(name: &str, s: &mut TransportSpec) {
    if name != ROCE_BUILTIN && name != HPCC_BUILTIN {
        return;
    }
    if s.kind.is_none() {
        s.kind = Some(TransportKindName::Roce);
    }
    if name == HPCC_BUILTIN && s.kind == Some(TransportKindName::Roce) {
        let r = s.roce.get_or_insert_with(RoceSpec::default);
        r.cc.get_or_insert(RoceCcName::Hpcc);
        r.recovery.get_or_insert(RoceRecoveryName::Sack);
    }
}

/// `Scenario::transports`: a table named after a built-in starts from its `cc` (or, for
/// `dcqcn`, from `kind = "roce"`). A RoCE transport takes only `kind` and `roce`; the `roce`
/// table only with `kind = "roce"`.
pub(in crate::scenario) fn de_transports<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<BTreeMap<String, TransportConfig>, D::Error> {
    use serde::de::Error;
    let specs = BTreeMap::<String, TransportSpec>::deserialize(d)?;
    let mut out = BTreeMap::new();
    for (name, mut s) in specs {
        roce_builtin(&name, &mut s);
        if s.kind == Some(TransportKindName::Roce) {
            if let Some(k) = s.tcp_keys_written().first() {
                // The path goes up in NUL markers (crate::tagged::split_path).
                return Err(D::Error::custom(format!(
                    "\0{name}.{k}\0is a TCP key: it has no effect on a kind = \"roce\" \
                     transport (RoCE keys go in its roce table; see docs/rdma.md)"
                )));
            }
        } else if s.roce.is_some() {
            return Err(D::Error::custom(format!(
                "\0{name}.roce\0the roce table needs kind = \"roce\""
            )));
        }
        let t = TransportConfig::resolve(&s, builtin_cc(&name).unwrap_or_default());
        out.insert(name, t);
    }
    Ok(out)
}

/// `Scenario::transports` as written back: a RoCE transport is `kind` and its `roce` table
/// only (it has no TCP key to print).
pub(in crate::scenario) fn ser_transports<S: Serializer>(
    m: &BTreeMap<String, TransportConfig>,
    s: S,
) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    #[derive(Serialize)]
    struct RoceOut<'a> {
        kind: TransportKindName,
        roce: &'a RoceConfig,
    }
    let mut map = s.serialize_map(Some(m.len()))?;
    for (name, t) in m {
        match (&t.kind, &t.roce) {
            (TransportKindName::Roce, Some(r)) => map.serialize_entry(
                name,
                &RoceOut {
                    kind: TransportKindName::Roce,
                    roce: r,
                },
            )?,
            _ => map.serialize_entry(name, t)?,
        }
    }
    map.end()
}

impl TransportConfig {
    /// The built-in transports every scenario can name (the `rfc` profile).
    pub fn builtin(name: &str) -> Option<TransportConfig> {
        if name == ROCE_BUILTIN || name == HPCC_BUILTIN {
            let mut spec = TransportSpec::default();
            roce_builtin(name, &mut spec);
            return Some(TransportConfig::resolve(&spec, CcName::default()));
        }
        builtin_cc(name).map(|cc| TransportConfig::resolve(&TransportSpec::default(), cc))
    }
}
