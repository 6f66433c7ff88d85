//! TLT over TCP/DCTCP in the fabric (Lim et al., EuroSys 2021, §4–§5.1): colour-aware
//! dropping with important marking, PFC with TCP, and the segment delivery time metric
//! (Fig. 16). Scenarios are JSON so each test states its setup in one place.

use dcnsim::run::{run_json, Progress, RunOutput};
use dcnsim::scenario::build::FsReader;

fn run(json: &str) -> RunOutput {
    run_json(json, &FsReader, &mut |_: &Progress| true).unwrap_or_else(|e| panic!("{e}"))
}

/// `senders` hosts each start `per` flows of `size` to host 0 at t = 0 on one 10G switch
/// (1 µs links) with a shared buffer of `buffer` and DCTCP (K = 65 packets).
fn incast(
    senders: u32,
    per: u32,
    size: &str,
    buffer: &str,
    switch_extra: &str,
    transport_extra: &str,
) -> String {
    let mut flows = vec![];
    for s in 1..=senders {
        for _ in 0..per {
            flows.push(format!(
                r#"{{"src": {s}, "dst": 0, "size": "{size}", "start": 0}}"#
            ));
        }
    }
    format!(
        r#"{{"topology": {{"kind": "star", "hosts": {h}, "link": {{"rate": "10Gbps", "delay": "1us"}}}},
            "switch": {{"queues": 1, "scheduler": {{"kind": "fifo"}}, "port_limit": "1000000pkt",
                        "shared_buffer": "{buffer}", "ecn": {{"kind": "step", "k": "65pkt"}} {switch_extra}}},
            "host": {{"queues": 1, "scheduler": {{"kind": "fifo"}}}},
            "transports": {{"t": {{"cc": "dctcp", "sack": true, "dupack_thresh": 1, "rto_min": "4ms",
                                  "rto_init": "4ms", "rto_mode": "linux" {transport_extra}}}}},
            "classes": [{{"name": "incast", "transport": "t", "workload": {{"kind": "flows", "list": [{f}]}}}}],
            "run": {{"duration": "1ms", "horizon": "1s"}}}}"#,
        h = senders + 1,
        f = flows.join(","),
    )
}

fn sum(v: &[u64]) -> u64 {
    v.iter().sum()
}

#[test]
fn pfc_makes_a_tcp_incast_lossless() {
    // 40 × 2 flows of 64 kB into one port through a 600 kB switch: DCTCP's first window
    // alone (80 × 10 segments) overflows it.
    let lossy = run(&incast(40, 2, "64kB", "600kB", "", ""));
    assert!(lossy.meta.dropped > 100, "{}", lossy.meta.dropped);
    let pfc = run(&incast(40, 2, "64kB", "600kB", r#", "pfc": {}"#, ""));
    assert_eq!(pfc.meta.dropped, 0);
    assert_eq!(pfc.meta.flows_completed, 80);
    assert_eq!(sum(&pfc.flows.rto_count), 0);
    assert!(sum(&pfc.queues.pfc_pause_sent) > 0);
    let paused: f64 = pfc.queues.pfc_paused_s.iter().sum();
    assert!(paused > 0.0);
    // Host NICs are what got paused (the switch has one congested port and it is the
    // downstream of every sender).
    let host_paused: f64 = pfc
        .queues
        .pfc_paused_s
        .iter()
        .zip(&pfc.queues.is_host)
        .filter(|(_, h)| **h)
        .map(|(p, _)| p)
        .sum();
    assert!(host_paused > 0.9 * paused);
}

#[test]
fn segment_delivery_histogram_counts_every_segment_once() {
    let j = r#"{"topology": {"kind": "star", "hosts": 2, "link": {"rate": "10Gbps", "delay": "1us"}},
        "classes": [{"name": "a", "transport": "dctcp",
                     "workload": {"kind": "flows", "list": [{"src": 0, "dst": 1, "size": "14600B", "start": 0}]}}],
        "output": {"segment_delivery": true},
        "run": {"duration": "1ms"}}"#;
    let out = run(j);
    let (edges, counts) = out.meta.segment_delivery.expect("recorded");
    assert_eq!(counts.len(), 1);
    assert_eq!(edges.len(), dcnsim::sim::flow::DELIVERY_BINS - 1);
    assert_eq!(sum(&counts[0]), 10, "10 segments of 1460 B");
    // Idle path: a segment's delivery time is its RTT: 4 × 1 µs + serializations (the
    // initial window queues at the NIC: up to 10 × 1.23 µs), so between 5 µs and 20 µs.
    let lo = edges.iter().position(|&e| e >= 5e-6).unwrap();
    let hi = edges.iter().position(|&e| e >= 20e-6).unwrap();
    let inside: u64 = counts[0][lo..=hi].iter().sum();
    assert_eq!(inside, 10, "{:?}", &counts[0][lo - 2..hi + 2]);
    // Off by default.
    let j = j.replace(r#""output": {"segment_delivery": true},"#, "");
    assert!(run(&j).meta.segment_delivery.is_none());
}
