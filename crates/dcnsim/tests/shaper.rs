//! The token-bucket link model (`shaper = "token_bucket"`): what Linux HTB does to a packet
//! (`htb_class_mode`: a class may send while its tokens are ≥ 0; `htb_charge_class` takes
//! the packet's length). No serialization delay; a backlog drains at the rate in bursts of
//! at most `burst` bytes. Each test fails if the shaper is removed or falls back to a wire.

use dcnsim::net::config::*;
use dcnsim::run::{run_json, Progress};
use dcnsim::scenario::build::FsReader;
use dcnsim::sim::source::SourceSpec;
use dcnsim::sim::{Ecmp, Sim};
use dcnsim::topo::builders::star;
use dcnsim::topo::Graph;
use dcnsim_engine::{Rate, Time, US};

const G10: Rate = Rate::gbps(10);
/// Wire size of the test frames, and their time at 10 Gb/s (1.2 µs).
const FRAME: u64 = 1500;

fn burst_source(n: u64) -> SourceSpec {
    SourceSpec {
        src: 0,
        dst: 1,
        class: 0,
        wire: FRAME as u32,
        rate: G10,
        start: 0,
        stop: 1,
        burst: n as u32,
        max_pkts: n,
        ect: false,
        entropy: 1,
    }
}

/// h0 — switch — h1 at 10 Gb/s, 1 µs; every link a token bucket holding `depth` bytes of
/// tokens (None: the store-and-forward wire).
fn two_hosts(depth: Option<u64>) -> Sim {
    let mut g: Graph = star(2, G10, US);
    for l in &mut g.links {
        l.tb_depth = depth;
    }
    let sw = SwitchConfig {
        port_limit: None,
        ..SwitchConfig::default()
    };
    Sim::with_configs(&g, &sw, &HostConfig::default(), 1, Ecmp::PerFlow)
}

#[test]
fn an_isolated_packet_has_no_serialization_delay() {
    let mut sim = two_hosts(Some(FRAME));
    sim.add_source(burst_source(1));
    sim.run(Time::MAX, u64::MAX);
    let st = sim.sources.stats[0];
    assert_eq!(st.rx_pkts, 1);
    // Two hops of propagation only; the wire would add 2 × 1.2 µs.
    assert_eq!(st.owd_min, 2 * US);
    let mut wire = two_hosts(None);
    wire.add_source(burst_source(1));
    wire.run(Time::MAX, u64::MAX);
    assert_eq!(
        wire.sources.stats[0].owd_min,
        2 * US + 2 * G10.tx_time(FRAME)
    );
}

#[test]
fn a_backlog_drains_at_the_rate_after_a_burst_of_two_frames() {
    // Hand-computed: 10 frames queued at h0's NIC at t = 0, bucket depth one frame (burst
    // two frames). Frames 1 and 2 leave at 0 (tokens 1 frame → 0 → −1 frame), frame k ≥ 3
    // leaves at (k − 2) × 1.2 µs. The switch's bucket is full when they arrive, so it adds
    // nothing: frame k reaches h1 at 2 µs + max(0, k − 2) × 1.2 µs.
    let mut sim = two_hosts(Some(FRAME));
    sim.add_source(burst_source(10));
    sim.run(Time::MAX, u64::MAX);
    let st = sim.sources.stats[0];
    let f = G10.tx_time(FRAME);
    assert_eq!(f, 1_200_000);
    assert_eq!(st.rx_pkts, 10);
    assert_eq!(st.first_rx, 2 * US);
    assert_eq!(st.last_rx, 2 * US + 8 * f);
    assert_eq!(st.owd_min, 2 * US);
    assert_eq!(st.owd_max, 2 * US + 8 * f);
    assert_eq!(sim.counters.dropped, 0);
}

#[test]
fn the_burst_bounds_the_back_to_back_bytes() {
    // Depth three frames (burst four): frames 1–4 leave together, then one per frame time;
    // 20 frames take (20 − 4) frame times: the long-run rate is the link's.
    let f = G10.tx_time(FRAME);
    for (depth_frames, together) in [(0u64, 1u64), (1, 2), (3, 4)] {
        let mut sim = two_hosts(Some(depth_frames * FRAME));
        sim.add_source(burst_source(20));
        sim.run(Time::MAX, u64::MAX);
        let st = sim.sources.stats[0];
        assert_eq!(st.rx_pkts, 20);
        assert_eq!(
            st.last_rx - st.first_rx,
            (20 - together) * f,
            "depth {depth_frames} frames"
        );
    }
}

#[test]
fn the_bucket_refills_between_bursts() {
    // Two bursts of 4 frames 100 µs apart with depth one frame: each burst sees a full
    // bucket, so each drains in 2 frame times; the wire takes 3.
    let f = G10.tx_time(FRAME);
    let mut sim = two_hosts(Some(FRAME));
    let mut s = burst_source(8);
    s.burst = 4;
    // 4 frames per burst at an average rate whose period is 100 µs.
    s.rate = Rate(4 * FRAME * 8 * 10_000);
    s.stop = 150 * US;
    sim.add_source(s);
    sim.run(Time::MAX, u64::MAX);
    let st = sim.sources.stats[0];
    assert_eq!(st.rx_pkts, 8);
    assert_eq!(st.owd_max, 2 * US + 2 * f);
}

fn run_err(json: &str) -> (String, String) {
    match run_json(json, &FsReader, &mut |_: &Progress| true) {
        Ok(_) => panic!("expected an error for {json}"),
        Err(e) => (e.path, e.msg),
    }
}

#[test]
fn scenario_keys_are_validated_and_named() {
    let topo = |link: &str| {
        format!(
            r#"{{"topology": {{"kind": "leaf_spine", "leaves": 2, "spines": 1,
            "hosts_per_leaf": 2, "host_link": {link},
            "fabric_link": {{"rate": "10Gbps", "delay": "1us"}}}}}}"#
        )
    };
    let (k, m) = run_err(&topo(
        r#"{"rate": "10Gbps", "delay": "1us", "shaper": "token_bucket", "burst": "1000B"}"#,
    ));
    assert_eq!(k, "topology.host_link.burst");
    assert!(m.contains("one full frame (1538 B"), "{m}");
    let (k, m) = run_err(&topo(
        r#"{"rate": "10Gbps", "delay": "1us", "burst": "4KB"}"#,
    ));
    assert_eq!(k, "topology.host_link.burst");
    assert!(m.contains("token_bucket"), "{m}");
    let (k, _) = run_err(&topo(
        r#"{"rate": "10Gbps", "delay": "1us", "shaper": "leaky"}"#,
    ));
    assert!(k.starts_with("topology.host_link"), "{k}");
}

#[test]
fn a_tcp_flow_on_shaped_links_completes_near_its_ideal_time() {
    // One 1 MB flow over two token-bucket hops at 100 Mb/s: the bottleneck never idles
    // once the window is open, so the FCT is close to the ideal (which has no
    // store-and-forward term on shaped hops) and far below it plus a per-hop frame time
    // per segment.
    let j = r#"{
        "topology": {"kind": "star", "hosts": 2,
                     "link": {"rate": "100Mbps", "delay": "10us", "shaper": "token_bucket"}},
        "classes": [{"name": "a", "transport": "cubic",
                     "workload": {"kind": "flows", "list": [{"src": 0, "dst": 1, "size": "1MB", "start": 0}]}}],
        "run": {"duration": "100ms"}
    }"#;
    let out = run_json(j, &FsReader, &mut |_: &Progress| true).unwrap();
    assert_eq!(out.meta.flows_completed, 1);
    let fct = out.flows.fct_s[0];
    let ideal = out.flows.ideal_fct_s[0];
    // ideal: 20 µs propagation + (W − w₁ − one frame of bucket depth) at 100 Mb/s, no
    // first-segment serialization.
    let segs = 1_000_000f64 / 1460.0;
    let wire = 1_000_000.0 + segs.ceil() * 78.0;
    let expect = 20e-6 + (wire - 2.0 * 1538.0) * 8.0 / 1e8;
    assert!((ideal - expect).abs() < 1e-9, "ideal {ideal} vs {expect}");
    assert!(
        fct >= ideal * 0.999 && fct < ideal * 1.2,
        "fct {fct} ideal {ideal}"
    );
}
