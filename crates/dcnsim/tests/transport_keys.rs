//! `[transports.NAME]` keys: profiles, explicit overrides, keyed errors, round trips.

use dcnsim::scenario::transport::{TransportConfig, TRANSPORT_KEYS};
use dcnsim::scenario::{from_json, to_json, ConfigError, Scenario};
use dcnsim_transport::{CcKind, Profile, RtoMode, SlowStartIncrease, TcpConfig};
use serde_json::{json, Value};

const MSS: u32 = 1460;

fn scenario(transports: Value) -> Scenario {
    let j = json!({ "transports": transports }).to_string();
    from_json(&j).unwrap_or_else(|e| panic!("{e}"))
}

fn tcp_of(t: Value) -> TcpConfig {
    let sc = scenario(json!({ "t": t }));
    sc.transports["t"].tcp(MSS, true, "transports.t").unwrap()
}

fn err_of(t: Value) -> ConfigError {
    let j = json!({ "transports": { "mytcp": t } }).to_string();
    match from_json(&j) {
        Err(e) => e,
        Ok(sc) => sc.transports["mytcp"]
            .tcp(MSS, false, "transports.mytcp")
            .expect_err("expected an error"),
    }
}

/// What `TcpConfig::profile` means once the scenario resolves "None = another key" fields
/// (and with the scenario's `rto_init = rto_min` rule under rfc).
fn expected(p: Profile, cc: CcKind) -> TcpConfig {
    let mut c = TcpConfig::profile(p, cc);
    c.mss = MSS;
    c.timestamps = true;
    if p == Profile::Rfc {
        c.rto_init = c.rto_min;
    }
    c.tlp_max_ack_delay = Some(c.tlp_max_ack_delay.unwrap_or(c.rto_min));
    c.quickack_idle = Some(c.quickack_idle.unwrap_or(c.rto_min));
    c.syn_rto = Some(c.syn_rto.unwrap_or(c.rto_init));
    c
}

const PROFILES: [(&str, Profile); 3] = [
    ("rfc", Profile::Rfc),
    ("linux", Profile::Linux),
    ("ns3", Profile::Ns3),
];
const CCS: [(&str, CcKind); 5] = [
    ("newreno", CcKind::NewReno),
    ("cubic", CcKind::Cubic),
    ("dctcp", CcKind::Dctcp),
    ("ledbat", CcKind::Ledbat),
    ("tcp_lp", CcKind::TcpLp),
];

#[test]
fn unset_keys_take_the_profile_values_for_the_cc() {
    for (pn, p) in PROFILES {
        for (ccn, cc) in CCS {
            let got = tcp_of(json!({ "profile": pn, "cc": ccn }));
            assert_eq!(
                format!("{got:?}"),
                format!("{:?}", expected(p, cc)),
                "profile {pn}, cc {ccn}"
            );
        }
    }
    // No profile = rfc = what dcnsim always ran: TcpConfig::default() with rto_init = rto_min.
    let mut old = TcpConfig::default();
    old.mss = MSS;
    old.timestamps = true;
    old.rto_init = old.rto_min;
    old.quickack_idle = Some(old.rto_min);
    old.syn_rto = Some(old.rto_min);
    assert_eq!(format!("{:?}", tcp_of(json!({}))), format!("{old:?}"));
}

#[test]
fn builtins_keep_their_values_and_take_a_profile() {
    let sc = scenario(json!({}));
    for (name, cc) in CCS {
        let t = sc.transport(name).unwrap();
        let got = t.tcp(MSS, true, name).unwrap();
        assert_eq!(
            format!("{got:?}"),
            format!("{:?}", expected(Profile::Rfc, cc))
        );
    }
    // A table named after a built-in starts from the built-in's cc.
    let sc = scenario(json!({ "dctcp": { "profile": "linux" }, "newreno": { "rto_min": "5ms" } }));
    let d = sc.transports["dctcp"].tcp(MSS, true, "x").unwrap();
    assert_eq!(
        format!("{d:?}"),
        format!("{:?}", expected(Profile::Linux, CcKind::Dctcp))
    );
    let n = sc.transports["newreno"].tcp(MSS, true, "x").unwrap();
    assert_eq!((n.cc, n.rto_min), (CcKind::NewReno, 5 * dcnsim_engine::MS));
}

#[test]
fn explicit_keys_beat_the_profile() {
    let ms = dcnsim_engine::MS;
    let us = dcnsim_engine::US;
    let c = tcp_of(json!({
        "profile": "linux", "cc": "cubic", "rto_min": "5ms", "hystart": "rfc9406",
        "prr": false, "timer_tick": 0, "slow_start": "abc", "abc_l": 2, "init_ssthresh": "64KB",
        "ssthresh_basis": "pipe", "tlp_max_ack_delay": "300us", "quickack_segs": 4,
        "syn_rto": "3s", "delayed_ack": false, "rto_mode": "rfc6298"
    }));
    assert_eq!(c.rto_min, 5 * ms);
    assert_eq!(c.hystart, dcnsim_transport::HyStartMode::Rfc9406);
    assert!(!c.prr && !c.delayed_ack);
    assert_eq!(c.timer_tick, 0);
    assert_eq!(c.ss_increase, SlowStartIncrease::Abc { l: 2 });
    assert_eq!(c.init_ssthresh, Some(64_000));
    assert_eq!(c.ssthresh_basis, dcnsim_transport::SsthreshBasis::Pipe);
    assert_eq!(c.tlp_max_ack_delay, Some(300 * us));
    assert_eq!(c.quickack_segs, 4);
    assert_eq!(c.syn_rto, Some(3000 * ms));
    assert_eq!(c.rto_mode, RtoMode::Rfc6298);
    // the rest stays linux
    assert!(c.rack && c.tlp && c.frto && c.undo && c.dsack && c.quickack);
    assert_eq!((c.rto_init, c.delack_timeout), (1000 * ms, 40 * ms));
    // "unset = rto_min" keys follow the written rto_min
    assert_eq!(c.quickack_idle, Some(5 * ms));
    // rfc: rto_init follows rto_min unless written; rto_static too
    let c = tcp_of(json!({ "rto_min": "7ms", "rto_mode": "static" }));
    assert_eq!((c.rto_init, c.rto_mode), (7 * ms, RtoMode::Static(7 * ms)));
    let c = tcp_of(json!({ "profile": "ns3", "slow_start": "abc", "abc_l": 0 }));
    assert_eq!(c.ss_increase, SlowStartIncrease::Abc { l: 0 });
}

#[test]
fn errors_name_the_key_as_written() {
    let e = err_of(json!({ "profile": "bsd" }));
    assert_eq!(e.path, "transports.mytcp.profile");
    assert!(e.msg.contains("bsd") && e.msg.contains("ns3"), "{e}");
    let e = err_of(json!({ "hystrat": "off" }));
    assert_eq!(e.path, "transports.mytcp.hystrat");
    assert!(e.msg.contains("unknown field `hystrat`"), "{e}");
    let e = err_of(json!({ "hystart": "yes" }));
    assert_eq!(e.path, "transports.mytcp.hystart");
    let e = err_of(json!({ "pto_min": "fast" }));
    assert_eq!(e.path, "transports.mytcp.pto_min");
    let cases = [
        (
            json!({ "init_cwnd": 0 }),
            "transports.mytcp.init_cwnd: must be >= 1",
        ),
        (
            json!({ "rwnd": 100 }),
            "transports.mytcp.rwnd: must be >= mss (1460)",
        ),
        (
            json!({ "rack": true, "sack": false }),
            "transports.mytcp.rack: needs sack = true (RFC 8985 §2)",
        ),
        (
            json!({ "init_ssthresh": "1KB" }),
            "transports.mytcp.init_ssthresh: must be >= 2 segments",
        ),
        (
            json!({ "hystart_delay_min": "20ms" }),
            "transports.mytcp.hystart_delay_max: must be >= hystart_delay_min",
        ),
        (
            json!({ "profile": "linux", "quickack_segs": 0 }),
            "transports.mytcp.quickack_segs: must be >= 1",
        ),
        (
            json!({ "syn_rto": 0 }),
            "transports.mytcp.syn_rto: must be > 0",
        ),
        (
            json!({ "dctcp_min_cwnd": 0 }),
            "transports.mytcp.dctcp_min_cwnd: must be >= 1",
        ),
        (
            json!({ "rto_mode": "static", "rto_static": 0 }),
            "transports.mytcp.rto_mode: Static RTO must be > 0",
        ),
    ];
    for (t, want) in cases {
        assert_eq!(err_of(t).to_string(), want);
    }
}

/// The normalized scenario (what `validate --show` prints) has every key, re-reads to the
/// same scenario and gives the same TcpConfig.
fn assert_roundtrip(transports: Value) {
    let sc = scenario(transports);
    let j = to_json(&sc);
    let v: Value = serde_json::from_str(&j).unwrap();
    for (name, t) in v["transports"].as_object().unwrap() {
        for k in TRANSPORT_KEYS {
            let optional = ["init_ssthresh", "ledbat_base_window", "nearopt_period"];
            assert!(
                !t[k.name].is_null() || optional.contains(&k.name),
                "{name}.{} is not printed",
                k.name
            );
        }
        assert_eq!(t.as_object().unwrap().len(), TRANSPORT_KEYS.len());
    }
    let back = from_json(&j).unwrap();
    assert_eq!(back, sc);
    assert_eq!(to_json(&back), j);
    for (name, t) in &sc.transports {
        assert_eq!(
            format!("{:?}", t.tcp(MSS, false, name).unwrap()),
            format!("{:?}", back.transports[name].tcp(MSS, false, name).unwrap())
        );
    }
}

#[test]
fn every_key_roundtrips_through_the_normalized_scenario() {
    let mut all = serde_json::Map::new();
    for (pn, _) in PROFILES {
        for (ccn, _) in CCS {
            all.insert(format!("{pn}_{ccn}"), json!({ "profile": pn, "cc": ccn }));
        }
    }
    // Every key written with another profile's value (where they differ) over rfc.
    let rfc = serde_json::to_value(TransportConfig::default()).unwrap();
    for (pn, _) in PROFILES {
        let other = scenario(json!({ "x": { "profile": pn } }));
        let o = serde_json::to_value(&other.transports["x"]).unwrap();
        let mut t = serde_json::Map::new();
        for k in TRANSPORT_KEYS.iter().filter(|k| k.name != "profile") {
            if o[k.name] != rfc[k.name] && !o[k.name].is_null() {
                t.insert(k.name.into(), o[k.name].clone());
            }
        }
        let explicit = tcp_of(Value::Object(t.clone()));
        let mut want = expected(
            PROFILES.iter().find(|p| p.0 == pn).unwrap().1,
            CcKind::Cubic,
        );
        want.timestamps = true;
        assert_eq!(
            format!("{explicit:?}"),
            format!("{want:?}"),
            "{pn} written out"
        );
        all.insert(format!("explicit_{pn}"), Value::Object(t));
    }
    all.insert(
        "odd".into(),
        json!({ "init_ssthresh": "100KB", "ledbat_base_window": "1s", "nearopt_period": "2us",
                "kind": "nearopt", "nearopt_loss": "immediate", "cqcn": true, "abc_l": 0 }),
    );
    assert_roundtrip(Value::Object(all));
}

/// The range column of the key table agrees with `TcpConfig::validate`: a key documented as
/// "≥ 1" or "> 0" is rejected at 0, under its own name.
#[test]
fn documented_lower_bounds_are_enforced() {
    let mut checked = 0;
    for k in TRANSPORT_KEYS
        .iter()
        .filter(|k| k.range == "≥ 1" || k.range == "> 0")
    {
        let mut t = json!({ k.name: 0 });
        if k.name == "rto_static" {
            t["rto_mode"] = json!("static");
        }
        let e = err_of(t);
        let want = if k.name == "rto_static" {
            "rto_mode"
        } else {
            k.name
        };
        assert_eq!(
            e.path,
            format!("transports.mytcp.{want}"),
            "{}: {e}",
            k.name
        );
        checked += 1;
    }
    assert!(checked >= 15, "only {checked} keys checked");
}
