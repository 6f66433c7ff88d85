//! The sender shim (`sim::shim`) through the real fabric: ElasticSwitch VM-pair limiters
//! (spec §4.5) and C3 pipes (spec §5.3). Topology: C3's motivation setup (experiments
//! C3-MOTIV-BASE): a dumbbell whose core link is the bottleneck, 1 Gb/s host links, 50 µs
//! per link (RTT 300 µs), one FIFO queue per switch port with DCTCP step marking at 20
//! packets and 250 packets of buffer.

use dcnsim::run::{run_json, Progress, RunOutput};
use dcnsim::scenario::build::{Built, FsReader};
use dcnsim::scenario::from_json;
use dcnsim::scheme::c3::Objective;

fn scenario(core: &str, scheme: &str, classes: &str, duration: &str, warmup: &str) -> String {
    format!(
        r#"{{
        "topology": {{"kind": "dumbbell", "left": 3, "right": 3,
                      "host_link": {{"rate": "1Gbps", "delay": "50us"}},
                      "core_link": {{"rate": "{core}", "delay": "50us"}}}},
        "switch": {{"queues": 1, "scheduler": {{"kind": "fifo"}}, "port_limit": "250pkt",
                    "ecn": {{"kind": "step", "k": "20pkt"}}}},
        "host": {{"queues": 1, "scheduler": {{"kind": "fifo"}}}},
        "transports": {{"t": {{"cc": "dctcp", "init_cwnd": 2, "rto_min": "1ms"}},
                        "ds": {{"cc": "d2tcp", "init_cwnd": 2, "rto_min": "1ms"}},
                        "ps": {{"cc": "l2dct", "init_cwnd": 2, "rto_min": "1ms"}}}},
        "scheme": {scheme},
        "classes": [{classes}],
        "run": {{"duration": "{duration}", "warmup": "{warmup}", "horizon": "2s"}}
    }}"#
    )
}

fn run(json: &str) -> RunOutput {
    run_json(json, &FsReader, &mut |_: &Progress| true).unwrap_or_else(|e| panic!("{e}"))
}

fn build(json: &str) -> Built {
    let mut b = from_json(json)
        .unwrap_or_else(|e| panic!("{e}"))
        .build(&FsReader)
        .unwrap_or_else(|e| panic!("{e}"));
    let h = b.horizon;
    b.sim.run(h, u64::MAX);
    b
}

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

fn fig2b_json() -> String {
    fig2b_json_es(true)
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
