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

/// Lossy incast where plain DCTCP times out: 48 senders × 2 flows of 40 kB into one 10G
/// port through a shared buffer of `buffer` (DT α = 1: one congested port gets half).
fn timeout_incast(buffer: &str, extra_switch: &str, extra_transport: &str) -> RunOutput {
    run(&incast(
        48,
        2,
        "40kB",
        buffer,
        extra_switch,
        extra_transport,
    ))
}

const COLOUR_100K: &str = r#", "colour": {"threshold": "100kB"}"#;
const TLT: &str = r#", "tlt": "adaptive""#;

#[test]
fn tlt_incast_completes_without_timeouts_where_dctcp_times_out() {
    // 1 MB buffer: a congested port gets 500 kB; red stops at K = 100 kB, leaving 400 kB
    // for green — more than the 96 flows' one important packet each (TLT §4.2).
    let base = timeout_incast("1MB", "", "");
    assert_eq!(base.meta.flows_completed, 96);
    let base_rtos = sum(&base.flows.rto_count);
    assert!(base_rtos >= 20, "plain DCTCP times out: {base_rtos} RTOs");
    assert_eq!(sum(&base.flows.important_pkts), 0);

    let tlt = timeout_incast("1MB", COLOUR_100K, TLT);
    assert_eq!(tlt.meta.flows_completed, 96);
    assert_eq!(sum(&tlt.flows.rto_count), 0, "TLT: no timeout");
    // Unimportant packets were dropped at K instead, and important ones were not.
    assert!(sum(&tlt.queues.drops_colour) > 0);
    assert_eq!(sum(&tlt.queues.green_drops), 0);
    assert_eq!(sum(&tlt.flows.important_drops), 0);
    assert!(sum(&tlt.flows.tlt_lost_segs) > 0 && sum(&tlt.flows.clock_bytes) > 0);
    let imp = sum(&tlt.flows.important_pkts);
    assert!(imp > 96 && imp < sum(&tlt.flows.data_pkts) / 2, "{imp}");
    let fct = |o: &RunOutput| o.flows.fct_s.iter().cloned().fold(0.0, f64::max);
    assert!(
        fct(&tlt) < 0.7 * fct(&base),
        "{} vs {}",
        fct(&tlt),
        fct(&base)
    );

    // Marks without colour-aware dropping give no protection (a warning says so), and
    // colour-aware dropping without TLT makes every packet red.
    let marks_only = timeout_incast("1MB", "", TLT);
    assert!(marks_only
        .meta
        .warnings
        .iter()
        .any(|w| w.contains("transports.t.tlt") && w.contains("no colour-aware dropping")));
    assert!(sum(&marks_only.flows.rto_count) > 0);
    let colour_only = timeout_incast("1MB", COLOUR_100K, "");
    assert!(colour_only
        .meta
        .warnings
        .iter()
        .any(|w| w.starts_with("switch.colour:")));
    assert_eq!(sum(&colour_only.queues.green_drops), 0);
    assert!(sum(&colour_only.queues.red_drops) > 0);
}

#[test]
fn too_little_room_above_k_loses_important_packets() {
    // TLT §4.2: with a 400 kB buffer a congested port gets 200 kB; K = 100 kB leaves
    // 100 kB for green, less than 96 flows × one 1.5 kB important packet: some important
    // packets are dropped and those flows time out — where the 1 MB buffer lost none.
    let o = timeout_incast("400kB", COLOUR_100K, TLT);
    assert!(sum(&o.flows.important_drops) > 0);
    assert!(sum(&o.queues.green_drops) > 0);
    assert!(sum(&o.flows.rto_count) > 0);
    assert_eq!(o.meta.flows_completed, 96);
}
