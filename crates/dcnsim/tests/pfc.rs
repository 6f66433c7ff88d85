//! Colour-aware dropping (TLT §4, mechanisms §2.5) and PFC (IEEE 802.1Qbb, mechanisms
//! §2.6) in the fabric, with open-loop traffic so that every number can be computed by
//! hand. Each test fails if its mechanism is removed.

use dcnsim::net::buffer::{DropReason, SharedPool};
use dcnsim::net::config::*;
use dcnsim::net::{Port, Profile};
use dcnsim::packet::{colour, Arena, Packet, PktKind};
use dcnsim::sim::source::SourceSpec;
use dcnsim::sim::{Ecmp, Sim};
use dcnsim::topo::{Graph, NodeKind};
use dcnsim::units::{Bytes, Dur};
use dcnsim_engine::{Rate, Rng, Time, TxClock, MS, NS, US};

const G10: Rate = Rate::gbps(10);
const G40: Rate = Rate::gbps(40);

// ------------------------------------------------------------------ colour-aware dropping

fn colour_port(mode: ColourMode, k: u64) -> Profile {
    let cfg = PortConfig {
        queues: 2,
        scheduler: SchedConfig::Strict,
        colour: Some(ColourConfig {
            threshold: Bytes(k),
            mode,
            queues: Some(vec![1]),
        }),
        ..PortConfig::default()
    };
    Profile::compile(&cfg, 0)
}

fn coloured(a: &mut Arena, c: u8) -> u32 {
    let mut p = Packet::new(PktKind::Data, 0, 0, 1, 1000, 1000);
    p.colour = c;
    p.class = 1;
    a.alloc(p)
}

#[test]
fn red_is_never_admitted_at_k_and_green_is() {
    for mode in [ColourMode::RedOnly, ColourMode::TotalQueue] {
        let k = 10_000;
        let prof = colour_port(mode, k);
        let (mut a, mut pool, mut rng) = (Arena::new(), SharedPool::default(), Rng::new(1));
        let mut p = Port::new(0, 1, 0, 0, TxClock::new(G10), 0);
        // Fill with red up to the threshold: admitted while the occupancy allows it.
        let mut red_in = 0;
        for _ in 0..30 {
            let id = coloured(&mut a, colour::RED);
            let before = p.q[1].bytes;
            let red_before = p.red_bytes;
            match p.enqueue(&prof, 1, id, &mut a, &mut pool, &mut rng) {
                Ok(()) => {
                    red_in += 1;
                    match mode {
                        ColourMode::RedOnly => assert!(red_before + 1000 < k),
                        ColourMode::TotalQueue => assert!(before < k),
                    }
                }
                Err(why) => {
                    assert_eq!(why, DropReason::Colour);
                    match mode {
                        ColourMode::RedOnly => assert!(red_before + 1000 >= k),
                        ColourMode::TotalQueue => assert!(before >= k),
                    }
                }
            }
        }
        assert!(red_in > 0 && red_in <= 10, "{mode:?}: {red_in}");
        // Green goes beyond K.
        for _ in 0..20 {
            let id = coloured(&mut a, colour::GREEN);
            p.enqueue(&prof, 1, id, &mut a, &mut pool, &mut rng)
                .expect("green is admitted beyond K");
        }
        assert!(p.q[1].bytes >= 2 * k);
        // A red packet still finds the queue at K: dropped.
        let id = coloured(&mut a, colour::RED);
        assert_eq!(
            p.enqueue(&prof, 1, id, &mut a, &mut pool, &mut rng),
            Err(DropReason::Colour)
        );
        // Queue 0 is not colour-aware: red goes in whatever the occupancy.
        for _ in 0..30 {
            let id = coloured(&mut a, colour::RED);
            p.enqueue(&prof, 0, id, &mut a, &mut pool, &mut rng)
                .expect("queue 0 has no colour-aware dropping");
        }
        p.check_invariants(&prof, &a);
    }
}

#[test]
fn red_only_counts_red_bytes_and_frees_them_at_dequeue() {
    let k = 5_000;
    let prof = colour_port(ColourMode::RedOnly, k);
    let (mut a, mut pool, mut rng) = (Arena::new(), SharedPool::default(), Rng::new(1));
    let mut p = Port::new(0, 1, 0, 0, TxClock::new(G10), 0);
    for _ in 0..20 {
        let id = coloured(&mut a, colour::GREEN);
        p.enqueue(&prof, 1, id, &mut a, &mut pool, &mut rng)
            .unwrap();
    }
    // 20 kB of green: in red_only mode red is still admitted up to K (the TLT reference
    // code's per-port red counter), unlike total_queue mode.
    for i in 0..4 {
        let id = coloured(&mut a, colour::RED);
        p.enqueue(&prof, 1, id, &mut a, &mut pool, &mut rng)
            .unwrap_or_else(|e| panic!("red {i}: {e:?}"));
    }
    assert_eq!(p.red_bytes, 4000);
    let id = coloured(&mut a, colour::RED);
    assert!(p
        .enqueue(&prof, 1, id, &mut a, &mut pool, &mut rng)
        .is_err());
    let total = colour_port(ColourMode::TotalQueue, k);
    let id = coloured(&mut a, colour::RED);
    let mut q = Port::new(0, 1, 0, 0, TxClock::new(G10), 0);
    for _ in 0..5 {
        let x = coloured(&mut a, colour::GREEN);
        q.enqueue(&total, 1, x, &mut a, &mut pool, &mut rng)
            .unwrap();
    }
    assert!(q
        .enqueue(&total, 1, id, &mut a, &mut pool, &mut rng)
        .is_err());
    // Draining frees the red bytes.
    while p.next_to_send(&prof, &mut a, &mut pool, &mut rng).is_some() {}
    assert_eq!(p.red_bytes, 0);
}

// ------------------------------------------------------------------ PFC

fn src(src: u32, dst: u32, class: u8, rate: Rate, max_pkts: u64) -> SourceSpec {
    SourceSpec {
        src,
        dst,
        class,
        wire: 1500,
        rate,
        start: 0,
        stop: Time::MAX,
        burst: 1,
        max_pkts,
        ect: false,
        entropy: src * 7919 + dst,
    }
}

fn pfc_switch(
    queues: u8,
    lossless: Option<Vec<u8>>,
    xoff: Option<u64>,
    buffer: u64,
) -> SwitchConfig {
    SwitchConfig {
        queues,
        scheduler: if queues == 1 {
            SchedConfig::Fifo
        } else {
            SchedConfig::Strict
        },
        port_limit: None,
        shared_buffer: Some(Bytes(buffer)),
        pfc: Some(PfcConfig {
            queues: lossless,
            xoff: xoff.map(Bytes),
            ..PfcConfig::default()
        }),
        ..SwitchConfig::default()
    }
}

fn host(queues: u8) -> HostConfig {
    HostConfig {
        queues,
        scheduler: if queues == 1 {
            SchedConfig::Fifo
        } else {
            SchedConfig::Strict
        },
        ..HostConfig::default()
    }
}

fn with_pfc(g: &Graph, sw: &SwitchConfig, h: &HostConfig, on: bool) -> Sim {
    let mut sw = sw.clone();
    if !on {
        sw.pfc = None;
    }
    let mut sim = Sim::with_configs(g, &sw, h, 1, Ecmp::PerFlow);
    if on {
        let p = sw.pfc.as_ref().unwrap();
        let mask = queue_mask(&p.queues, sw.queues);
        sim.enable_pfc(p, mask, 1538).unwrap();
    }
    sim
}

/// The egress port of `node` toward `peer`.
fn port_of(sim: &Sim, node: u32, peer: u32) -> usize {
    sim.ports
        .iter()
        .position(|p| p.node == node && p.peer == peer)
        .expect("link exists")
}

#[test]
fn lossless_incast_drops_nothing_with_auto_headroom() {
    // 4 senders at 10G into one 10G receiver through a 200 kB switch: without PFC the
    // shared buffer overflows; with PFC nothing is lost and the senders are paused.
    let mut g = Graph::default();
    for i in 0..5 {
        g.add_node(NodeKind::Host, format!("h{i}"));
    }
    let s = g.add_node(NodeKind::Switch, "sw".into());
    for i in 0..5 {
        g.link(i, s, G10, US);
    }
    let sw = pfc_switch(1, None, None, 200_000);
    for on in [false, true] {
        let mut sim = with_pfc(&g, &sw, &host(1), on);
        for i in 0..4 {
            sim.add_source(src(i, 4, 0, G10, 2000));
        }
        sim.paranoid = true;
        for t in [300 * US, 700 * US, 1100 * US] {
            sim.run(t, u64::MAX);
            sim.check_pfc_accounting();
        }
        sim.run(Time::MAX, u64::MAX);
        let rx: u64 = sim.sources.stats.iter().map(|s| s.rx_pkts).sum();
        if on {
            assert_eq!(
                sim.counters.dropped, 0,
                "PFC with auto headroom loses nothing"
            );
            assert_eq!(rx, 8000);
            let pfc = sim.pfc.as_ref().unwrap();
            let sent: u64 = pfc.ing.iter().map(|i| i.pause_sent[0]).sum();
            assert!(
                sent >= 4,
                "each sender's ingress paused: {sent} PAUSE frames"
            );
            for h in 0..4u32 {
                let hp = sim.host_port(h) as usize;
                assert!(sim.pfc_paused_time(hp, 0) > 100 * US, "h{h} was paused");
            }
            // The buffer never held more than it has.
            assert!(sim.nodes[s as usize].pool.max_used <= 200_000);
        } else {
            assert!(sim.counters.dropped > 1000, "{}", sim.counters.dropped);
        }
    }
}

/// h0 —40G— s0 —40G— s1 —10G— h1, with h2 —40G— s1 (all links 1 µs). Queue 0 is lossy
/// and strict-priority; queue 1 lossless with a static XOFF of 14,999 B (10 packets of
/// 1,500 B exceed it) and the default XON offset (2 × 1,538 B).
fn two_switch(victim: bool) -> (Graph, [u32; 2]) {
    let mut g = Graph::default();
    let n_hosts = if victim { 4 } else { 3 };
    for i in 0..n_hosts {
        g.add_node(NodeKind::Host, format!("h{i}"));
    }
    let s0 = g.add_node(NodeKind::Switch, "s0".into());
    let s1 = g.add_node(NodeKind::Switch, "s1".into());
    g.link(0, s0, G40, US);
    g.link(s0, s1, G40, US);
    g.link(s1, 1, G10, US);
    g.link(2, s1, G40, US);
    if victim {
        g.link(3, s1, G40, US);
    }
    (g, [s0, s1])
}

#[test]
fn pause_time_and_frames_match_a_hand_computed_two_switch_case() {
    let (g, [s0, s1]) = two_switch(false);
    let sw = pfc_switch(2, Some(vec![1]), Some(14_999), 10_000_000);
    let mut sim = with_pfc(&g, &sw, &host(2), true);
    // Class 0 (lossy, strict priority): 100 packets at 12 Gb/s from h2 keep s1 → h1 busy
    // from 1.3 µs to 121.3 µs (1.2 µs per packet at 10G); class 1 waits behind it.
    sim.add_source(src(2, 1, 0, Rate::gbps(12), 100));
    // Class 1 (lossless): 60 back-to-back packets from h0 (one per 0.3 µs at 40G).
    sim.add_source(src(0, 1, 1, G40, 60));
    let s1_in = port_of(&sim, s1, s0) as u32; // s1's port toward s0 (its ingress from s0)
    let s0_out = port_of(&sim, s0, s1); // s0's egress toward s1
    let s0_in = port_of(&sim, s0, 0) as u32;
    let h0 = sim.host_port(0) as usize;

    // s1 receives class-1 packet i at (i + 2)·0.3 + 2 µs; the 10th (i = 9, 5.3 µs) takes
    // its ingress count to 15,000 > 14,999: a PAUSE leaves at once (the reverse link is
    // idle) and reaches s0 after 16.8 ns (84 B at 40G) + 1 µs, at 6.3168 µs.
    let pause_at = 6_316_800; // ps
    sim.run(pause_at - 1, u64::MAX);
    assert_eq!(sim.ports[s0_out].paused, 0);
    assert_eq!(
        sim.pfc.as_ref().unwrap().ing[s1_in as usize].pause_sent[1],
        1
    );
    sim.run(pause_at, u64::MAX);
    assert_eq!(
        sim.ports[s0_out].paused,
        1 << 1,
        "queue 1 paused at 6.3168 µs"
    );

    // s0 had started packets 0..=16 (packet i starts at (i + 1)·0.3 + 1 µs < 6.3168):
    // 17 packets reach s1 (headroom used: 7 × 1,500 B). s0 then queues packets 17..;
    // its ingress from h0 passes 14,999 B with packet 26 (9.1 µs), whose PAUSE reaches h0
    // at 10.1168 µs: h0 had started packets 0..=33, and keeps 26 queued.
    sim.run(100 * US, u64::MAX);
    let pfc = sim.pfc.as_ref().unwrap();
    assert_eq!(pfc.ing[s1_in as usize].bytes[1], 17 * 1500);
    assert_eq!(pfc.ing[s0_in as usize].bytes[1], 17 * 1500);
    assert_eq!(pfc.ing[s0_in as usize].pause_sent[1], 1);
    assert_eq!(sim.ports[h0].q[1].pkts, 26);
    assert_eq!(sim.ports[h0].paused, 1 << 1);
    assert_eq!(sim.counters.dropped, 0);

    // Class 0 ends at 121.3 µs; s1 then starts a class-1 packet every 1.2 µs. After the
    // 10th (121.3 + 9 × 1.2 = 132.1 µs) 7 packets (10,500 B ≤ 14,999 − 3,076) remain: the
    // RESUME leaves at 132.1 µs and reaches s0 at 133.1168 µs. s0's queue 1 was paused
    // 133.1168 − 6.3168 = 126.8 µs.
    let resume_at = 133_116_800;
    sim.run(resume_at - 1, u64::MAX);
    assert_eq!(sim.ports[s0_out].paused, 1 << 1);
    assert_eq!(
        sim.pfc_paused_time(s0_out, 1),
        sim.now() - pause_at,
        "ongoing pause counted up to now"
    );
    sim.run(resume_at, u64::MAX);
    let pfc = sim.pfc.as_ref().unwrap();
    assert_eq!(pfc.ing[s1_in as usize].resume_sent[1], 1);
    assert_eq!(pfc.eg[s0_out].total[1], 126_800_000);
    assert_eq!(
        pfc.eg[s0_out].pauses_rx[1], 1,
        "no refresh within the 838.8 µs pause"
    );
    // Everything is delivered in the end, nothing lost.
    sim.run(Time::MAX, u64::MAX);
    assert_eq!(sim.counters.dropped, 0);
    assert_eq!(sim.sources.stats[1].rx_pkts, 60);
    assert_eq!(sim.sources.stats[0].rx_pkts, 100);
}

#[test]
fn a_long_pause_is_refreshed_before_it_expires() {
    // Same fabric, but class 0 keeps s1 → h1 busy for 2 ms: s1 refreshes its PAUSE every
    // half pause time (419.424 µs at 40G), so s0 stays paused throughout.
    let (g, [s0, s1]) = two_switch(false);
    let sw = pfc_switch(2, Some(vec![1]), Some(14_999), 10_000_000);
    let mut sim = with_pfc(&g, &sw, &host(2), true);
    sim.add_source(src(2, 1, 0, Rate::gbps(12), 2000));
    sim.add_source(src(0, 1, 1, G40, 60));
    let s1_in = port_of(&sim, s1, s0);
    let s0_out = port_of(&sim, s0, s1);
    sim.run(2 * MS, u64::MAX);
    let pfc = sim.pfc.as_ref().unwrap();
    // PAUSE at 5.3 µs, refreshes at + k × 419.424 µs (k = 1..4) before 2 ms.
    assert_eq!(pfc.ing[s1_in].pause_sent[1], 5);
    assert_eq!(pfc.eg[s0_out].pauses_rx[1], 5);
    assert_eq!(sim.ports[s0_out].paused, 1 << 1, "never expired");
    sim.run(Time::MAX, u64::MAX);
    assert_eq!(sim.counters.dropped, 0);
}

/// Drops of queue 1 (the lossless one) anywhere.
fn lossless_drops(sim: &Sim) -> u64 {
    sim.ports
        .iter()
        .map(|p| p.stats[1].drops.iter().sum::<u64>())
        .sum()
}

#[test]
fn pause_propagates_upstream_and_blocks_a_victim_flow() {
    // A victim h0 → h3 shares queue 1 of the s0 → s1 link with the congested h0 → h1 flow;
    // h3's link is idle. Under PFC the victim stalls while s0 is paused (head-of-line
    // blocking); without PFC it flows (and the congested flow loses packets instead).
    let (g, [s0, s1]) = two_switch(true);
    let sw = SwitchConfig {
        alpha: dcnsim::net::PerQueue::One(0.05),
        ..pfc_switch(2, Some(vec![1]), None, 1_000_000)
    };
    let mut rx = vec![];
    for on in [false, true] {
        let mut sim = with_pfc(&g, &sw, &host(2), on);
        sim.add_source(src(2, 1, 0, Rate::gbps(12), 800)); // keeps s1 → h1 busy ~1 ms
        sim.add_source(src(0, 1, 1, Rate::gbps(20), 3000)); // congested lossless flow
        sim.add_source(src(0, 3, 1, Rate::gbps(10), 3000)); // victim
        sim.run(600 * US, u64::MAX);
        sim.check_pfc_accounting();
        rx.push(sim.sources.stats[2].rx_pkts);
        if on {
            let s0_out = port_of(&sim, s0, s1);
            assert!(sim.pfc_paused_time(s0_out, 1) > 300 * US);
            let h0 = sim.host_port(0) as usize;
            assert!(
                sim.pfc_paused_time(h0, 1) > 300 * US,
                "PAUSE reached the host"
            );
            sim.run(Time::MAX, u64::MAX);
            assert_eq!(lossless_drops(&sim), 0);
        } else {
            sim.run(Time::MAX, u64::MAX);
            assert!(lossless_drops(&sim) > 0);
        }
    }
    // In 600 µs the victim can move ~500 packets at 10G: without PFC it does; with PFC
    // it is held back behind the paused queue.
    assert!(rx[0] > 450, "victim without PFC: {}", rx[0]);
    assert!(rx[1] < rx[0] / 2, "victim with PFC: {} vs {}", rx[1], rx[0]);
}

#[test]
fn a_cyclic_buffer_dependency_is_reported_as_a_deadlock() {
    // A ring of four switches, one host each; every host sends to the host two switches
    // away, all clockwise (entropies chosen so ECMP picks that way): each ring link
    // carries two line-rate flows, and the four pauses wait on each other.
    let mut g = Graph::default();
    for i in 0..4 {
        g.add_node(NodeKind::Host, format!("h{i}"));
    }
    let s: Vec<u32> = (0..4)
        .map(|i| g.add_node(NodeKind::Switch, format!("s{i}")))
        .collect();
    for i in 0..4 {
        g.link(i as u32, s[i], G10, US);
        g.link(s[i], s[(i + 1) % 4], G10, US);
    }
    let mut sw = pfc_switch(1, None, None, 300_000);
    sw.pfc.as_mut().unwrap().watchdog = Dur(MS);
    let mut sim = with_pfc(&g, &sw, &host(1), true);
    for i in 0..4u32 {
        let dst = (i + 2) % 4;
        let next = s[((i + 1) % 4) as usize];
        let entropy = (0..10_000u32)
            .find(|&e| sim.route_of(i, dst, e)[1] == port_of(&sim, s[i as usize], next) as u32)
            .expect("some entropy goes clockwise");
        let mut spec = src(i, dst, 0, G10, u64::MAX);
        spec.entropy = entropy;
        spec.stop = 20 * MS;
        sim.add_source(spec);
    }
    sim.run(50 * MS, u64::MAX);
    let pfc = sim.pfc.as_ref().unwrap();
    let msg = pfc
        .deadlock
        .as_ref()
        .expect("the watchdog reports the deadlock");
    assert!(
        msg.contains("deadlock") && msg.contains("switch.pfc.watchdog"),
        "{msg}"
    );
    assert!(
        sim.now() < 20 * MS,
        "stopped early, at {} ns",
        sim.now() / NS
    );
    assert!(sim.ev.is_empty(), "the run stops");
}

// ------------------------------------------------------------------ scenario keys

mod keys {
    use dcnsim::run::{run_json, Progress};
    use dcnsim::scenario::build::FsReader;

    fn err(json: &str) -> (String, String) {
        match run_json(json, &FsReader, &mut |_: &Progress| true) {
            Ok(_) => panic!("expected an error for {json}"),
            Err(e) => (e.path, e.msg),
        }
    }

    const TOPO: &str =
        r#""topology": {"kind": "star", "hosts": 3, "link": {"rate": "10Gbps", "delay": "1us"}}"#;

    #[test]
    fn bad_colour_and_pfc_settings_name_their_key() {
        for (sw, key, words) in [
            (
                r#"{"pfc": {"enabled": true}}"#,
                "switch.pfc",
                "shared_buffer",
            ),
            (
                r#"{"shared_buffer": "1MB", "pfc": {"alpha": 0}}"#,
                "switch.pfc.alpha",
                "α > 0",
            ),
            (
                r#"{"shared_buffer": "1MB", "pfc": {"quanta": 70000}}"#,
                "switch.pfc.quanta",
                "65535",
            ),
            (
                r#"{"shared_buffer": "1MB", "queues": 2, "pfc": {"queues": [2]}}"#,
                "switch.pfc.queues",
                "does not exist",
            ),
            (
                r#"{"shared_buffer": "1MB", "pfc": {"headroom": "400kB"}}"#,
                "switch.pfc.headroom",
                "headroom",
            ),
            (
                r#"{"shared_buffer": "100kB", "pfc": {}}"#,
                "switch.shared_buffer",
                "headroom",
            ),
            (
                r#"{"shared_buffer": "1MB", "pfc": {"bogus": 1}}"#,
                "switch.pfc.bogus",
                "unknown field",
            ),
            (
                r#"{"colour": {"threshold": "0B"}}"#,
                "switch.colour.threshold",
                "K > 0",
            ),
            (
                r#"{"colour": {"threshold": "10kB", "mode": "green"}}"#,
                "switch.colour.mode",
                "red_only, total_queue",
            ),
            (
                r#"{"queues": 2, "colour": {"threshold": "10kB", "queues": [1, 1]}}"#,
                "switch.colour.queues",
                "twice",
            ),
        ] {
            let (k, m) = err(&format!(r#"{{{TOPO}, "switch": {sw}}}"#));
            assert_eq!(k, key, "{sw}: {m}");
            assert!(m.contains(words), "{sw}: {m}");
        }
        let (k, m) = err(&format!(
            r#"{{{TOPO}, "transports": {{"t": {{"cc": "dctcp", "tlt": "sometimes"}}}}}}"#
        ));
        assert_eq!(k, "transports.t.tlt", "{m}");
    }
}
