//! The sender shim (`sim::shim`) through the real fabric: ElasticSwitch VM-pair limiters
//! (spec §4.5) and the errors of bad shim keys. C3 pipes (spec §5.3) are in `shim_c3.rs`,
//! C3's coordinator and a pipe's `start` in `shim_c3_coordinator.rs`; the topology (C3's
//! motivation setup) and the runners in `shim_common/`.

mod shim_common;

use dcnsim::scenario::build::FsReader;
use dcnsim::scenario::from_json;
use shim_common::{run, scenario};

/// Fig 2b (C3-Fig2b) under competition: two TS flows with 250 Mb/s guarantees each on a
/// 500 Mb/s bottleneck, against four non-guaranteed flows from a third host to the same
/// destination. The TS flows come from two source VMs (hosts 0 and 1), so each is its own
/// VM pair with its own limiter (ElasticSwitch guarantees are per pair: two flows of one
/// pair would share its limiter TCP-fairly). `es`: ElasticSwitch limiters (the TS pairs'
/// G = 250 Mb/s, the competitors' pair G = 0); otherwise plain DCTCP sharing.
fn fig2b_json_es(es: bool) -> String {
    let g = |v: &str| {
        if es {
            format!(r#", "guarantee": "{v}""#)
        } else {
            String::new()
        }
    };
    let ts = |i: u32| {
        format!(
            r#"{{"name": "ts{i}", "transport": "t"{}, "workload": {{"kind": "flows",
                "list": [{{"src": {}, "dst": 3, "size": "100MB", "start": 0}}]}}}}"#,
            g("250Mbps"),
            i - 1
        )
    };
    let bg = format!(
        r#"{{"name": "bg", "transport": "t"{}, "workload": {{"kind": "flows", "list": [
            {{"src": 2, "dst": 3, "size": "100MB", "start": 0}},
            {{"src": 2, "dst": 3, "size": "100MB", "start": 0}},
            {{"src": 2, "dst": 3, "size": "100MB", "start": 0}},
            {{"src": 2, "dst": 3, "size": "100MB", "start": 0}}]}}}}"#,
        g("0bps")
    );
    let scheme = if es {
        r#"{"kind": "elasticswitch"}"#
    } else {
        r#"{"kind": "none"}"#
    };
    let classes = format!("{}, {}, {bg}", ts(1), ts(2));
    scenario("500Mbps", scheme, &classes, "300ms", "100ms")
}

fn fig2b(es: bool) -> Vec<f64> {
    let out = run(&fig2b_json_es(es));
    out.meta.load.iter().map(|l| l.carried_bps).collect()
}

#[test]
fn elasticswitch_keeps_two_ts_guarantees_against_unguaranteed_load() {
    let with = fig2b(true);
    let without = fig2b(false);
    eprintln!("carried b/s (ts1, ts2, bg): ES {with:?}, plain DCTCP {without:?}");
    // The guarantee is on the limiter's wire bytes (1538 B frames); goodput carries
    // 1460 B of each: 250 Mb/s of frames = 237 Mb/s of payload. Allow 5% below that.
    let floor = 0.95 * 250e6 * 1460.0 / 1538.0;
    for (i, &r) in with[..2].iter().enumerate() {
        assert!(
            r >= floor,
            "ts{} got {r:.3e} b/s < {floor:.3e} under ES",
            i + 1
        );
    }
    // Control: without the limiter the six DCTCP flows share fairly and each TS flow
    // gets about a sixth of the link, far below its guarantee.
    for (i, &r) in without[..2].iter().enumerate() {
        assert!(r < 0.6 * floor, "ts{} got {r:.3e} b/s without ES", i + 1);
    }
}

/// The error a scenario gives (at parse or build), as "path: message".
fn error_of(scheme: &str, class_extra: &str) -> String {
    let json = format!(
        r#"{{"topology": {{"kind": "star", "hosts": 2, "link": {{"rate": "1Gbps", "delay": "1us"}}}}, "scheme": {scheme},
            "classes": [{{"name": "c", {class_extra} "workload": {{"kind": "flows",
                "list": [{{"src": 0, "dst": 1, "size": "10KB", "start": 0}}]}}}}]}}"#
    );
    match from_json(&json) {
        Err(e) => format!("{}: {}", e.path, e.msg),
        Ok(sc) => match sc.build(&FsReader) {
            Err(e) => format!("{}: {}", e.path, e.msg),
            Ok(_) => panic!("expected an error for {scheme} / {class_extra}"),
        },
    }
}

#[test]
fn bad_shim_keys_name_the_key() {
    let cases = [
        (r#"{"kind": "c3", "bogus": 1}"#, "", "scheme.bogus"),
        (r#"{"kind": "c3", "g": 0}"#, "", "scheme.g"),
        (
            r#"{"kind": "c3", "variant": "magic"}"#,
            "",
            "scheme.variant",
        ),
        (
            r#"{"kind": "c3", "high_share": 1.0}"#,
            "",
            "scheme.high_share",
        ),
        (
            r#"{"kind": "c3", "scale": {"ds": 0}}"#,
            "",
            "scheme.scale.ds",
        ),
        (r#"{"kind": "c3", "mark_k": 0}"#, "", "scheme.mark_k"),
        (
            r#"{"kind": "c3", "coordinator_interval": "7ms"}"#,
            "",
            "scheme.coordinator_interval",
        ),
        (
            r#"{"kind": "c3", "coordinator": false, "admission": true}"#,
            "",
            "scheme.admission",
        ),
        (
            r#"{"kind": "c3", "coordinator": "yes"}"#,
            "",
            "scheme.coordinator",
        ),
        (
            r#"{"kind": "c3", "feedback": "carrier-pigeon"}"#,
            "",
            "scheme.feedback",
        ),
        (r#"{"kind": "c3", "start": "line"}"#, "", "scheme.start"),
        // a floor above the 1 Gb/s host links (it panicked in the pipe law's clamp)
        (
            r#"{"kind": "c3", "variant": "fujiz", "fujiz_min": "2Gbps"}"#,
            "",
            "scheme.fujiz_min",
        ),
        (
            r#"{"kind": "c3", "report_bytes": "10B"}"#,
            "",
            "scheme.report_bytes",
        ),
        (
            r#"{"kind": "elasticswitch", "decrease": 1.5}"#,
            r#""guarantee": "1Mbps","#,
            "scheme.decrease",
        ),
        (r#"{"kind": "elasticswitch"}"#, "", "scheme"),
        (
            r#"{"kind": "c3"}"#,
            r#""objective": "fast","#,
            "classes[0].objective",
        ),
        (
            r#"{"kind": "c3"}"#,
            r#""objective": "ts","#,
            "classes[0].guarantee",
        ),
        (
            r#"{"kind": "c3"}"#,
            r#""objective": "ds", "guarantee": "1Mbps","#,
            "classes[0].guarantee",
        ),
        (
            r#"{"kind": "none"}"#,
            r#""objective": "ds","#,
            "classes[0].objective",
        ),
        (
            r#"{"kind": "none"}"#,
            r#""guarantee": "1Mbps","#,
            "classes[0].guarantee",
        ),
    ];
    for (scheme, extra, key) in cases {
        let e = error_of(scheme, extra);
        assert!(
            e.starts_with(&format!("{key}:")),
            "{scheme} / {extra}: got `{e}`, want {key}"
        );
    }
}
