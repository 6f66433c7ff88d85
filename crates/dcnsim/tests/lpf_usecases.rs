//! LPF use-case traffic (spec §5.1.1–5.1.2): the SJF size split (`large = { threshold,
//! priority }`) and the DAS duplication workload (`kind = "das"`), end to end through the
//! scenario layer: priorities per flow, request pairing in the results, and config errors
//! that name their keys.

use dcnsim::run::{run_json, Progress, RunOutput};
use dcnsim::scenario::build::FsReader;
use std::collections::BTreeMap;

fn run(json: &str) -> RunOutput {
    run_json(json, &FsReader, &mut |_: &Progress| true).unwrap_or_else(|e| panic!("{e}"))
}

fn err(json: &str) -> (String, String) {
    match run_json(json, &FsReader, &mut |_: &Progress| true) {
        Ok(_) => panic!("expected an error for {json}"),
        Err(e) => (e.path, e.msg),
    }
}

const FABRIC: &str = r#""topology": {"kind": "star", "hosts": 6, "link": {"rate": "10Gbps", "delay": "25us"}},
    "switch": {"queues": 2, "scheduler": {"kind": "strict"}, "queue_limit": ["128KB", "64KB"]},
    "host": {"queues": 2, "scheduler": {"kind": "strict"}}"#;

#[test]
fn sjf_split_puts_flows_at_or_above_threshold_in_the_low_queue() {
    // Exactly at the boundary: 999,999 B stays high, 1,000,000 B ("≥ 1MB", LPF §3.1) goes low.
    let out = run(&format!(
        r#"{{ {FABRIC},
        "classes": [{{"name": "sjf", "transport": "cubic", "priority": 0,
                     "large": {{"threshold": "1MB", "priority": 1}},
                     "workload": {{"kind": "flows", "list": [
                        {{"src": 0, "dst": 1, "size": 999999, "start": 0}},
                        {{"src": 2, "dst": 3, "size": 1000000, "start": 0}},
                        {{"src": 4, "dst": 5, "size": "3MB", "start": 0}}]}}}}],
        "run": {{"duration": "1ms"}} }}"#
    ));
    assert_eq!(out.flows.priority, vec![0, 1, 1]);
    assert_eq!(out.meta.flows_completed, 3);
}

#[test]
fn sjf_split_on_websearch_poisson_traffic() {
    let out = run(&format!(
        r#"{{ {FABRIC},
        "classes": [{{"name": "sjf", "transport": "cubic",
                     "large": {{"threshold": "1MB", "priority": 1}},
                     "workload": {{"kind": "poisson", "load": 0.3, "sizes": {{"cdf": "websearch"}}}}}}],
        "run": {{"duration": "60ms", "horizon": "600ms"}} }}"#
    ));
    let f = &out.flows;
    assert!(f.size.len() > 30, "{} flows", f.size.len());
    let (mut small, mut large) = (0, 0);
    for (i, &s) in f.size.iter().enumerate() {
        let want = if s >= 1_000_000 { 1 } else { 0 };
        assert_eq!(f.priority[i], want, "flow {i} of {s} B");
        if want == 1 {
            large += 1
        } else {
            small += 1
        }
    }
    assert!(small > 0 && large > 0, "{small} small, {large} large");
    // The large flows really used the low queue of the switch.
    let q = &out.queues;
    let low_bytes: u64 = (0..q.queue.len())
        .filter(|&i| q.queue[i] == 1 && !q.is_host[i])
        .map(|i| q.bytes_in[i])
        .sum();
    assert!(low_bytes > 1_000_000, "low-queue bytes {low_bytes}");
}

#[test]
fn das_pairs_a_high_primary_with_a_low_duplicate_per_request() {
    let out = run(&format!(
        r#"{{ {FABRIC},
        "classes": [{{"name": "das", "transport": "cubic", "priority": 0,
                     "workload": {{"kind": "das", "load": 0.3, "duplicate_priority": 1,
                                  "sizes": {{"uniform": ["1KB", "255KB"]}}}}}}],
        "run": {{"duration": "10ms", "horizon": "200ms"}} }}"#
    ));
    let f = &out.flows;
    let mut by_req: BTreeMap<u64, Vec<usize>> = BTreeMap::new();
    for i in 0..f.tag.len() {
        assert!(
            f.tag[i] >= 1 && f.tag[i] < 1 << 31,
            "bare request id in results"
        );
        by_req.entry(f.tag[i]).or_default().push(i);
    }
    assert!(by_req.len() > 20, "{} requests", by_req.len());
    for (req, ix) in &by_req {
        assert_eq!(ix.len(), 2, "request {req}: {ix:?}");
        let (a, b) = (ix[0], ix[1]);
        let mut prios = [f.priority[a], f.priority[b]];
        prios.sort();
        assert_eq!(prios, [0, 1], "request {req}: one primary, one duplicate");
        assert_eq!(f.dst[a], f.dst[b]);
        assert_ne!(f.src[a], f.src[b]);
        assert_eq!((f.size[a], f.start_s[a]), (f.size[b], f.start_s[b]));
    }
    assert_eq!(out.meta.end, "complete");
}

#[test]
fn config_errors_name_the_key() {
    let cls = |extra: &str, wl: &str| {
        format!(
            r#"{{ {FABRIC}, "classes": [{{"name": "c", "transport": "cubic" {extra}, "workload": {wl}}}]}}"#
        )
    };
    let poisson = r#"{"kind": "poisson", "load": 0.3, "sizes": {"fixed": "10KB"}}"#;
    let das =
        |k: &str| format!(r#"{{"kind": "das", "load": 0.3, "sizes": {{"fixed": "10KB"}} {k}}}"#);
    let cases = [
        (
            cls(r#", "large": {"threshold": "1MB", "priority": 2}"#, poisson),
            "classes[0].large.priority",
            "does not exist",
        ),
        (
            cls(r#", "large": {"threshold": 0, "priority": 1}"#, poisson),
            "classes[0].large.threshold",
            "size > 0",
        ),
        (
            cls(
                r#", "large": {"threshold": "1MB", "priority": 1, "ack_priority": 4}"#,
                poisson,
            ),
            "classes[0].large.ack_priority",
            "does not exist",
        ),
        (
            cls("", &das(r#", "duplicate_priority": 3"#)),
            "classes[0].workload.duplicate_priority",
            "does not exist",
        ),
        (
            cls("", &das(r#", "purge": true"#)),
            "classes[0].workload.purge",
            "not implemented",
        ),
        (
            cls("", &das(r#", "servers": [0, 1], "clients": [1]"#)),
            "classes[0].workload.servers",
            "at least two servers",
        ),
        (
            cls(
                "",
                &das(r#", "load": 0"#).replacen(r#""load": 0.3, "#, "", 1),
            ),
            "classes[0].workload.load",
            "(0, 1]",
        ),
    ];
    for (json, path, msg) in cases {
        let (p, m) = err(&json);
        assert!(p.contains(path), "{json}\n→ {p}: {m}");
        assert!(m.contains(msg), "{json}\n→ {p}: {m}");
    }
    // An unknown key inside large is rejected too.
    let (p, m) = err(&cls(
        r#", "large": {"threshold": "1MB", "priority": 1, "prio": 1}"#,
        poisson,
    ));
    assert!(
        m.contains("unknown field") && p.contains("large"),
        "{p}: {m}"
    );
}
