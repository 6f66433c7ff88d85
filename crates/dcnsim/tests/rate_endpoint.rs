//! The endpoint interface carries rate-based sending: the test-only constant-rate endpoint
//! (`transport::rate`, NIC-paced, one ACK per packet) runs through the real fabric with no
//! change to the event loop or the results table.

use dcnsim::scenario::build::FsReader;
use dcnsim::scenario::from_json;
use dcnsim::transport::TransportKind;
use dcnsim_engine::{to_secs, Rate, MS};

/// `n` hosts on one switch, 10 Gb/s and 1 µs links, flows from hosts 1.. to host 0; the
/// class's transport is then switched to the constant-rate endpoint at `rate`.
fn paced(n_senders: u32, size: &str, rate: Rate) -> dcnsim::sim::Sim {
    let flows: Vec<String> = (1..=n_senders)
        .map(|h| format!(r#"{{"src": {h}, "dst": 0, "size": "{size}", "start": 0}}"#))
        .collect();
    let sc = from_json(&format!(
        r#"{{
        "topology": {{"kind": "star", "hosts": {}, "link": {{"rate": "10Gbps", "delay": "1us"}}}},
        "switch": {{"queues": 1, "scheduler": {{"kind": "fifo"}}, "port_limit": "1000pkt"}},
        "classes": [{{"name": "a", "transport": "dctcp", "workload": {{"kind": "flows", "list": [{}]}}}}],
        "run": {{"duration": "1ms", "horizon": "100ms"}}
    }}"#,
        n_senders + 1,
        flows.join(",")
    ))
    .unwrap();
    let mut b = sc.build(&FsReader).unwrap();
    for t in &mut b.sim.flows.transports {
        t.kind = TransportKind::ConstRate(rate);
    }
    b.sim.run(100 * MS, u64::MAX);
    b.sim
}

#[test]
fn a_paced_flow_sends_at_its_rate_with_no_queue() {
    // 1 MB at 2 Gb/s: full-sized packets 1538 wire bytes, 6.152 µs apart.
    let rate = Rate::gbps(2);
    let sim = paced(1, "1MB", rate);
    let f = sim.flow_table();
    assert!(f.completed[0]);
    let t = &sim.flows.transports[0];
    let (mss, overhead) = (t.payload as u64, t.data_overhead as u64);
    let size = f.size[0];
    let n = size.div_ceil(mss);
    assert_eq!(f.data_pkts[0], n);
    assert_eq!(f.drops[0], 0);
    // The last packet leaves (n-1) gaps after the first, then crosses two links
    // (serialization at 10 Gb/s and 1 µs each): the FCT is exact.
    let gap = rate.tx_time(mss + overhead);
    let last = size - (n - 1) * mss + overhead;
    let hop = Rate::gbps(10).tx_time(last) + 1_000_000;
    let want = to_secs((n - 1) * gap + 2 * hop);
    assert!(
        (f.fct_s[0] - want).abs() < 1e-9,
        "fct {} vs {want}",
        f.fct_s[0]
    );
    // Paced below line rate: no packet ever waits behind another at the switch.
    let q = sim.queue_table();
    let max_sw = (0..q.port.len())
        .filter(|&i| !q.is_host[i])
        .map(|i| q.max_pkts[i])
        .max()
        .unwrap();
    assert!(max_sw <= 1, "switch queue reached {max_sw} packets");
}

#[test]
fn paced_senders_over_the_bottleneck_build_a_queue_they_do_not_react_to() {
    // Two senders at 6 Gb/s into one 10 Gb/s port: no congestion control, so the queue
    // grows at 2 Gb/s for the whole transfer and both finish together.
    let sim = paced(2, "500KB", Rate::gbps(6));
    let f = sim.flow_table();
    assert!(f.completed[0] && f.completed[1]);
    assert!((f.fct_s[0] - f.fct_s[1]).abs() < 2e-6, "{:?}", f.fct_s);
    let q = sim.queue_table();
    let max_bytes = (0..q.port.len())
        .filter(|&i| !q.is_host[i])
        .map(|i| q.max_bytes[i])
        .max()
        .unwrap();
    // 2 × 500 KB sent in 500 KB / 6 Gb/s ≈ 0.68 ms; the queue gains 2/12 of the bytes.
    assert!(max_bytes > 100_000, "queue {max_bytes} B");
}
