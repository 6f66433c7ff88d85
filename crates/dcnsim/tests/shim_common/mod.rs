//! Shared by the shim tests (`mod shim_common;` in `shim.rs`, `shim_c3.rs` and
//! `shim_c3_coordinator.rs`; no tests here). `scenario` is C3's motivation setup (experiments
//! C3-MOTIV-BASE): a dumbbell whose core link is the bottleneck, 1 Gb/s host links, 50 µs
//! per link (RTT 300 µs), one FIFO queue per switch port with DCTCP step marking at 20
//! packets and 250 packets of buffer; `run`, `build` and `build_until` run a scenario.
#![allow(dead_code)]

use dcnsim::run::{run_json, Progress, RunOutput};
use dcnsim::scenario::build::{Built, FsReader};
use dcnsim::scenario::from_json;

pub fn scenario(core: &str, scheme: &str, classes: &str, duration: &str, warmup: &str) -> String {
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

pub fn run(json: &str) -> RunOutput {
    run_json(json, &FsReader, &mut |_: &Progress| true).unwrap_or_else(|e| panic!("{e}"))
}

pub fn build(json: &str) -> Built {
    let h = from_json(json)
        .unwrap_or_else(|e| panic!("{e}"))
        .build(&FsReader)
        .unwrap()
        .horizon;
    build_until(json, h)
}

/// Builds and runs the simulation up to `until` (ps).
pub fn build_until(json: &str, until: u64) -> Built {
    let mut b = from_json(json)
        .unwrap_or_else(|e| panic!("{e}"))
        .build(&FsReader)
        .unwrap_or_else(|e| panic!("{e}"));
    b.sim.run(until, u64::MAX);
    b
}
