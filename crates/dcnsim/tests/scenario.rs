//! Scenarios end to end: JSON in, validation errors with key paths, runs with TCP flows.

use dcnsim::run::{run_json, Progress};
use dcnsim::scenario::build::FsReader;
use dcnsim::scenario::{from_json, to_json, Scenario};

fn run(json: &str) -> dcnsim::run::RunOutput {
    run_json(json, &FsReader, &mut |_: &Progress| true).unwrap_or_else(|e| panic!("{e}"))
}

fn err(json: &str) -> (String, String) {
    match run_json(json, &FsReader, &mut |_: &Progress| true) {
        Ok(_) => panic!("expected an error for {json}"),
        Err(e) => (e.path, e.msg),
    }
}

#[test]
fn default_scenario_roundtrips_through_normalized_json() {
    let d = Scenario::default();
    let j = to_json(&d);
    let back = from_json(&j).unwrap();
    assert_eq!(back, d);
    assert_eq!(to_json(&back), j);
}

#[test]
fn one_tcp_flow_completes_with_slowdown_near_one() {
    let out = run(r#"{
        "topology": {"kind": "star", "hosts": 2, "link": {"rate": "10Gbps", "delay": "1us"}},
        "classes": [{"name": "a", "transport": "dctcp",
                     "workload": {"kind": "flows", "list": [{"src": 0, "dst": 1, "size": "1MB", "start": 0}]}}],
        "run": {"duration": "1ms"}
    }"#);
    assert_eq!(out.meta.flows_completed, 1);
    let sd = out.flows.slowdown[0];
    assert!((1.0..3.0).contains(&sd), "slowdown {sd}");
    assert_eq!(out.flows.retx_pkts[0], 0);
    assert_eq!(out.meta.end, "complete");
}

#[test]
fn errors_name_the_key() {
    let cases = [
        (
            r#"{"topology": {"kind": "star", "hosts": 2, "link": {"rate": "10Gbps", "delay": "1us"}}, "bogus": 1}"#,
            "bogus",
            "unknown field `bogus`",
        ),
        (
            r#"{"topology": {"kind": "star", "hosts": 2, "link": {"rate": "-10Gbps", "delay": "1us"}}}"#,
            "topology.link.rate",
            "non-negative",
        ),
        (
            r#"{"topology": {"kind": "star", "hosts": 2, "link": {"rate": "0Gbps", "delay": "1us"}}}"#,
            "topology.link.rate",
            "> 0",
        ),
        (
            r#"{"topology": {"kind": "ring"}}"#,
            "topology.kind",
            "unknown kind \"ring\", expected one of `star`",
        ),
        (
            r#"{"switch": {"queues": 2}, "classes": [{"name": "a", "priority": 5, "workload": {"kind": "permutation", "size": "1MB"}}]}"#,
            "classes[0].priority",
            "does not exist",
        ),
        (
            r#"{"classes": [{"name": "a", "transport": "quic", "workload": {"kind": "permutation", "size": "1MB"}}]}"#,
            "classes[0].transport",
            "unknown transport",
        ),
        (
            r#"{"classes": [{"name": "a", "workload": {"kind": "poisson", "load": 0.5, "sizes": {"cdf": "nope"}}}]}"#,
            "classes[0].workload.sizes.cdf",
            "",
        ),
        (
            r#"{"classes": [{"name": "a", "workload": {"kind": "poisson", "load": 0.5, "sizes": {"cdf_file": "/nonexistent.cdf"}}}]}"#,
            "classes[0].workload.sizes.cdf_file",
            "cannot read",
        ),
        (
            r#"{"classes": [{"name": "a", "workload": {"kind": "poisson", "load": -1, "sizes": {"fixed": "1KB"}}}]}"#,
            "classes[0].workload.load",
            "",
        ),
        (r#"{"switch": {"alpha": 0}}"#, "switch.alpha", "α > 0"),
        (
            r#"{"switch": {"scheduler": {"kind": "drr", "weights": [1]}}}"#,
            "switch.scheduler.weights",
            "expected 8 weights",
        ),
        (
            r#"{"run": {"duration": "1ms", "warmup": "2ms"}}"#,
            "run.warmup",
            "empty",
        ),
        (
            r#"{"topology": {"kind": "explicit", "hosts": 2, "switches": 2, "links": [{"a": "h0", "b": "s0", "rate": "1Gbps", "delay": 0}, {"a": "h1", "b": "s1", "rate": "1Gbps", "delay": 0}]}}"#,
            "topology",
            "not connected",
        ),
        (
            r#"{"topology": {"kind": "fat_tree", "k": 3, "link": {"rate": "10Gbps", "delay": "1us"}}}"#,
            "topology.k",
            "even",
        ),
    ];
    for (json, path, needle) in cases {
        let (p, m) = err(json);
        assert_eq!(p, path, "{json}: got {p}: {m}");
        assert!(m.contains(needle), "{json}: message {m:?} lacks {needle:?}");
    }
}
