//! Fabric physics with open-loop traffic: delays, line rate, schedulers, buffers, ECN,
//! ECMP, conservation and determinism. Each test fails if its mechanism is removed.

use dcnsim::net::config::*;
use dcnsim::net::PerQueue;
use dcnsim::sim::source::SourceSpec;
use dcnsim::sim::{Ecmp, Sim};
use dcnsim::topo::builders::*;
use dcnsim::units::{Amount, Bytes};
use dcnsim_engine::{Rate, Time, MS, US};

const G10: Rate = Rate::gbps(10);

fn src(src: u32, dst: u32, class: u8, rate: Rate, stop: Time) -> SourceSpec {
    SourceSpec {
        src,
        dst,
        class,
        wire: 1500,
        rate,
        start: 0,
        stop,
        burst: 1,
        max_pkts: 0,
        ect: false,
        entropy: src * 7919 + dst,
    }
}

fn unlimited_switch(sched: SchedConfig, queues: u8) -> SwitchConfig {
    SwitchConfig {
        queues,
        scheduler: sched,
        port_limit: None,
        ..SwitchConfig::default()
    }
}

fn host() -> HostConfig {
    HostConfig::default()
}

#[test]
fn one_packet_delay_is_sum_of_serialization_and_propagation() {
    // h0 → leaf0 → spine → leaf1 → h2: host links 10G/1us, fabric 40G/2us.
    let g = leaf_spine(2, 1, 2, (G10, US), (Rate::gbps(40), 2 * US));
    let mut sim = Sim::with_configs(&g, &SwitchConfig::default(), &host(), 1, Ecmp::PerFlow);
    let mut s = src(0, 2, 0, G10, 1);
    s.max_pkts = 1;
    sim.add_source(s);
    sim.run(Time::MAX, u64::MAX);
    let st = sim.sources.stats[0];
    assert_eq!(st.rx_pkts, 1);
    let expect = 2 * G10.tx_time(1500) + 2 * Rate::gbps(40).tx_time(1500) + 2 * US + 2 * 2 * US;
    assert_eq!(st.owd_min, expect);
    assert_eq!(st.max_hops, 4);
    assert_eq!(sim.counters.packet_hops, 4);
}

#[test]
fn constant_rate_at_line_rate_is_received_at_line_rate() {
    let g = star(2, G10, US);
    let mut sim = Sim::with_configs(&g, &SwitchConfig::default(), &host(), 1, Ecmp::PerFlow);
    sim.add_source(src(0, 1, 0, G10, MS));
    sim.run(Time::MAX, u64::MAX);
    let st = sim.sources.stats[0];
    assert_eq!(st.rx_pkts, st.tx_pkts);
    // n packets arrive back to back: (n-1) packet times between first and last arrival.
    let span = st.last_rx - st.first_rx;
    assert_eq!(span, (st.rx_pkts - 1) * G10.tx_time(1500));
    let rate = (st.rx_wire_bytes - 1500) as f64 * 8.0 / (span as f64 * 1e-12);
    assert!((rate / 1e10 - 1.0).abs() < 1e-9, "{rate}");
    assert_eq!(st.owd_max, st.owd_min, "no queueing at exactly line rate");
    assert_eq!(sim.counters.dropped, 0);
}

/// Two sources per class to h3 so every class queue at the switch egress stays backlogged.
fn contend(sched: SchedConfig, classes: &[u8], dur: Time) -> Sim {
    let n = classes.len() as u32 * 2;
    let g = star(n + 1, G10, US);
    let sw = unlimited_switch(sched, 8.max(classes.len() as u8));
    let mut sim = Sim::with_configs(&g, &sw, &host(), 1, Ecmp::PerFlow);
    for (i, &c) in classes.iter().enumerate() {
        for k in 0..2 {
            sim.add_source(src(i as u32 * 2 + k, n, c, G10, dur));
        }
    }
    sim.run(dur, u64::MAX);
    sim
}

fn bytes_out(sim: &Sim, port: usize, q: usize) -> u64 {
    sim.ports[port].q[q].bytes_out
}

/// Global id of the switch port facing the destination host (the last host).
fn egress_to_last(sim: &Sim) -> usize {
    let n = sim.n_hosts;
    (0..sim.ports.len())
        .find(|&p| sim.ports[p].peer == n - 1 && sim.ports[p].node == n)
        .unwrap()
}

#[test]
fn strict_priority_starves_low_queue() {
    let sim = contend(SchedConfig::Strict, &[0, 1], 2 * MS);
    let e = egress_to_last(&sim);
    assert!(bytes_out(&sim, e, 0) > 2_000_000);
    assert_eq!(
        bytes_out(&sim, e, 1),
        0,
        "low queue must get nothing while high is saturated"
    );
}

fn share_check(weights: &[f64], dur: Time) {
    let classes: Vec<u8> = (0..weights.len() as u8).collect();
    let sim = contend(
        SchedConfig::Drr(DrrSched {
            weights: weights.to_vec(),
            quantum: Bytes(1500),
            reconfigure: None,
        }),
        &classes,
        dur,
    );
    let e = egress_to_last(&sim);
    let out: Vec<u64> = (0..weights.len()).map(|q| bytes_out(&sim, e, q)).collect();
    let total: u64 = out.iter().sum();
    let wsum: f64 = weights.iter().sum();
    for (q, w) in weights.iter().enumerate() {
        let share = out[q] as f64 / total as f64;
        let want = w / wsum;
        assert!(
            (share - want).abs() <= 0.01 * want.max(0.01),
            "queue {q}: share {share} want {want} ({out:?})"
        );
    }
}

#[test]
fn weighted_shares_9_to_1() {
    share_check(&[9.0, 1.0], 5 * MS);
}

#[test]
fn weighted_shares_99_to_1() {
    share_check(&[99.0, 1.0], 20 * MS);
}

#[test]
fn weighted_shares_three_classes() {
    share_check(&[5.0, 3.0, 2.0], 5 * MS);
}

#[test]
fn mixed_strict_over_weighted() {
    // queue 0 strict (one source at 50% load), queues 1,2 share the rest 3:1.
    let g = star(6, G10, US);
    let sched = SchedConfig::Mixed(MixedSched {
        strict: 1,
        weights: vec![3.0, 1.0],
        quantum: Bytes(1500),
    });
    let mut sim = Sim::with_configs(&g, &unlimited_switch(sched, 3), &host(), 1, Ecmp::PerFlow);
    sim.add_source(src(0, 5, 0, Rate::gbps(5), 5 * MS));
    for (h, c) in [(1, 1), (2, 1), (3, 2), (4, 2)] {
        sim.add_source(src(h, 5, c, G10, 5 * MS));
    }
    sim.run(5 * MS, u64::MAX);
    let e = egress_to_last(&sim);
    let (b0, b1, b2) = (
        bytes_out(&sim, e, 0),
        bytes_out(&sim, e, 1),
        bytes_out(&sim, e, 2),
    );
    let tot = (b0 + b1 + b2) as f64;
    assert!(
        (b0 as f64 / tot - 0.5).abs() < 0.01,
        "strict queue gets its full demand"
    );
    assert!((b1 as f64 / (b1 + b2) as f64 - 0.75).abs() < 0.01);
}

#[test]
fn static_limits_never_exceeded() {
    let g = star(5, G10, US);
    let sw = SwitchConfig {
        queues: 2,
        scheduler: SchedConfig::Drr(DrrSched {
            weights: vec![1.0, 1.0],
            quantum: Bytes(1500),
            reconfigure: None,
        }),
        queue_limit: Some(PerQueue::Many(vec![Amount::Bytes(30_000), Amount::Pkts(7)])),
        shared_buffer: None,
        port_limit: None,
        ..SwitchConfig::default()
    };
    let mut sim = Sim::with_configs(&g, &sw, &host(), 1, Ecmp::PerFlow);
    sim.paranoid = true;
    for (h, c) in [(0, 0), (1, 0), (2, 1), (3, 1)] {
        sim.add_source(src(h, 4, c, G10, MS));
    }
    sim.run(Time::MAX, u64::MAX);
    let e = egress_to_last(&sim);
    let (q, s) = (&sim.ports[e].q, &sim.ports[e].stats);
    assert!(
        q[0].max_bytes <= 30_000 && q[0].max_bytes >= 28_500,
        "{}",
        q[0].max_bytes
    );
    assert_eq!(q[1].max_pkts, 7);
    assert!(s[0].drops[0] > 0 && s[1].drops[0] > 0);
}

#[test]
fn dynamic_threshold_settles_at_alpha_b_over_1_plus_m_alpha() {
    for (m, alpha) in [(1u32, 1.0f64), (2, 1.0), (4, 0.5), (3, 2.0)] {
        // M congested egress ports on one switch, each fed by two line-rate sources.
        let hosts = 3 * m;
        let g = star(hosts, G10, US);
        let total = 600_000u64;
        let sw = SwitchConfig {
            queues: 1,
            scheduler: SchedConfig::Fifo,
            alpha: PerQueue::One(alpha),
            shared_buffer: Some(Bytes(total)),
            port_limit: None,
            ..SwitchConfig::default()
        };
        let mut sim = Sim::with_configs(&g, &sw, &host(), 1, Ecmp::PerFlow);
        for i in 0..m {
            let dst = 3 * i + 2;
            sim.add_source(src(3 * i, dst, 0, G10, 3 * MS));
            sim.add_source(src(3 * i + 1, dst, 0, G10, 3 * MS));
        }
        let ports: Vec<u32> = (0..m)
            .map(|i| {
                (0..sim.ports.len() as u32)
                    .find(|&p| {
                        sim.ports[p as usize].peer == 3 * i + 2
                            && sim.ports[p as usize].node == hosts
                    })
                    .unwrap()
            })
            .collect();
        sim.sample_every = 10 * US;
        sim.sample_ports = ports.clone();
        sim.ev.push(MS, dcnsim::sim::Event::Sample);
        sim.run(3 * MS, u64::MAX);
        let want = alpha * total as f64 / (1.0 + m as f64 * alpha);
        let mut means = Vec::new();
        for &p in &ports {
            // time-average occupancy once settled
            let xs: Vec<f64> = sim
                .samples
                .iter()
                .filter(|s| s.port == p && s.t >= MS)
                .map(|s| s.bytes as f64)
                .collect();
            assert!(xs.len() > 100);
            means.push(xs.iter().sum::<f64>() / xs.len() as f64);
            assert!(
                sim.ports[p as usize].stats[0].drops[2] > 0,
                "the threshold, not the pool, limits the queue"
            );
        }
        // The M queues together settle within one MTU of M·α·B/(1+Mα) per queue. Individually,
        // lock-stepped CBR arrivals freeze a packet-granular split: one packet more in another
        // queue moves this queue's threshold by α·MTU, so each queue is within α·(M−1)+1 MTUs.
        let avg = means.iter().sum::<f64>() / m as f64;
        assert!(
            (avg - want).abs() <= 1500.0,
            "M={m} α={alpha}: mean queue {avg} vs {want}"
        );
        for q in &means {
            assert!(
                (q - want).abs() <= 1500.0 * (alpha * (m as f64 - 1.0) + 1.0),
                "M={m} α={alpha}: queue {q} vs {want}"
            );
        }
    }
}

#[test]
fn reserved_bytes_are_never_used_by_another_queue() {
    let g = star(4, G10, US);
    let sw = SwitchConfig {
        queues: 2,
        port_limit: Some(Amount::Bytes(60_000)),
        reserved: PerQueue::Many(vec![Bytes(0), Bytes(20_000)]),
        shared_buffer: None,
        ..SwitchConfig::default()
    };
    let mut sim = Sim::with_configs(&g, &sw, &host(), 1, Ecmp::PerFlow);
    sim.paranoid = true;
    // queue 0 is overloaded all along; queue 1 gets a 13-packet burst at 1 ms.
    sim.add_source(src(0, 3, 0, G10, 2 * MS));
    sim.add_source(src(1, 3, 0, G10, 2 * MS));
    let mut b = src(2, 3, 1, Rate::gbps(1000), 2 * MS);
    b.start = MS;
    b.burst = 13;
    b.max_pkts = 13;
    sim.add_source(b);
    sim.run(Time::MAX, u64::MAX);
    let e = egress_to_last(&sim);
    let (q, s) = (&sim.ports[e].q, &sim.ports[e].stats);
    assert!(
        q[0].max_bytes <= 60_000,
        "queue 0 used reserved bytes: {}",
        q[0].max_bytes
    );
    assert!(s[0].drops[1] > 0, "queue 0 was limited by the port limit");
    assert_eq!(
        s[1].drops.iter().sum::<u64>(),
        0,
        "the reserved queue accepted its whole burst"
    );
    assert_eq!(sim.sources.stats[2].rx_pkts, 13);
}

#[test]
fn ecmp_spreads_flows_and_never_reorders() {
    // 2 leaves × 4 spines: 1000 sources from leaf0 hosts to leaf1 hosts.
    let g = leaf_spine(2, 4, 8, (G10, US), (G10, US));
    let mut sim = Sim::with_configs(
        &g,
        &SwitchConfig {
            port_limit: None,
            ..SwitchConfig::default()
        },
        &host(),
        7,
        Ecmp::PerFlow,
    );
    for i in 0..1000u32 {
        let mut s = src(i % 8, 8 + (i / 8) % 8, 0, Rate::mbps(50), 200 * US);
        s.entropy = dcnsim_engine::rng::mix64(&[i as u64]) as u32;
        s.start = (i as u64 % 97) * 100_000;
        sim.add_source(s);
    }
    sim.run(Time::MAX, u64::MAX);
    let leaf0 = 16u32;
    let up: Vec<u64> = (0..sim.ports.len())
        .filter(|&p| sim.ports[p].node == leaf0 && sim.ports[p].peer >= 18)
        .map(|p| sim.ports[p].pkts_sent)
        .collect();
    assert_eq!(up.len(), 4);
    let (mx, mn) = (
        *up.iter().max().unwrap() as f64,
        *up.iter().min().unwrap() as f64,
    );
    assert!(mn > 0.0 && mx / mn < 1.3, "uplink packet counts {up:?}");
    let reordered: u64 = sim.sources.stats.iter().map(|s| s.reordered).sum();
    assert_eq!(reordered, 0);
}

/// Every packet crosses exactly the egress ports `route_of` names for its source,
/// destination and entropy (a packet is routed at the next switch when it starts on the
/// wire toward it): per port, the packets sent are the sum over the sources whose path
/// crosses it. Sources send different numbers of packets, so a packet routed at the wrong
/// switch, or with another packet's entropy, changes some port's count.
#[test]
fn every_packet_follows_its_ecmp_path() {
    let g = fat_tree(4, G10, US);
    let mut sim = Sim::with_configs(&g, &SwitchConfig::default(), &host(), 3, Ecmp::PerFlow);
    let n = 16u32;
    let mut expect = vec![0u64; sim.ports.len()];
    for i in 0..60u32 {
        let (a, b) = (i % n, (i * 7 + 3) % n);
        if a == b {
            continue;
        }
        let mut s = src(a, b, 0, Rate::gbps(1), 100 * MS);
        s.entropy = dcnsim_engine::rng::mix64(&[i as u64, 11]) as u32;
        s.max_pkts = 1 + i as u64;
        s.start = i as u64 * 10 * US;
        for p in sim.route_of(a, b, s.entropy) {
            expect[p as usize] += s.max_pkts;
        }
        sim.add_source(s);
    }
    sim.run(Time::MAX, u64::MAX);
    assert_eq!(sim.counters.dropped, 0);
    let sent: Vec<u64> = sim.ports.iter().map(|p| p.pkts_sent).collect();
    assert_eq!(sent, expect);
    // the paths differ: several core ports carry packets
    assert!(sent.iter().filter(|&&c| c > 0).count() > 40, "{sent:?}");
}

#[test]
fn per_packet_spraying_uses_all_uplinks_for_one_source() {
    let g = leaf_spine(2, 4, 1, (G10, US), (G10, US));
    let mut sim = Sim::with_configs(&g, &SwitchConfig::default(), &host(), 7, Ecmp::PerPacket);
    sim.add_source(src(0, 1, 0, G10, 100 * US));
    sim.run(Time::MAX, u64::MAX);
    let used = (0..sim.ports.len())
        .filter(|&p| sim.ports[p].node == 2 && sim.ports[p].peer >= 4 && sim.ports[p].pkts_sent > 0)
        .count();
    assert_eq!(used, 4);
}

fn random_run(seed: u64) -> (u64, u64, u64, Vec<u64>) {
    let g = leaf_spine(3, 2, 4, (G10, US), (Rate::gbps(20), US));
    let sw = SwitchConfig {
        queues: 3,
        scheduler: SchedConfig::Mixed(MixedSched {
            strict: 1,
            weights: vec![2.0, 1.0],
            quantum: Bytes(1538),
        }),
        queue_limit: Some(PerQueue::One(Amount::Pkts(20))),
        ecn: PerQueue::One(EcnConfig::Red(RedEcn {
            kmin: Amount::Pkts(2),
            kmax: Amount::Pkts(10),
            pmax: 0.5,
            at: MarkAt::Enqueue,
            occupancy: Occupancy::Queue,
        })),
        shared_buffer: Some(Bytes(200_000)),
        port_limit: None,
        ..SwitchConfig::default()
    };
    let mut sim = Sim::with_configs(&g, &sw, &host(), seed, Ecmp::PerFlow);
    sim.paranoid = true;
    let mut r = dcnsim_engine::Rng::new(seed);
    for i in 0..60 {
        let s = r.below(12) as u32;
        let mut d = r.below(12) as u32;
        if d == s {
            d = (d + 1) % 12;
        }
        let mut sp = src(
            s,
            d,
            r.below(3) as u8,
            Rate::mbps(500 + r.below(9000)),
            (100 + r.below(400)) * US,
        );
        sp.start = r.below(200) * US;
        sp.burst = 1 + r.below(4) as u32;
        sp.ect = true;
        sp.entropy = i;
        sim.add_source(sp);
    }
    // stop midway to check conservation with packets in flight
    sim.run(150 * US, u64::MAX);
    let c = &sim.counters;
    let created = sim.arena.created();
    assert_eq!(
        created,
        c.delivered + c.dropped + sim.live_packets(),
        "conservation midway"
    );
    sim.run(Time::MAX, u64::MAX);
    let c = &sim.counters;
    assert_eq!(sim.live_packets(), 0);
    assert_eq!(sim.arena.created(), c.delivered + c.dropped);
    let per_port: Vec<u64> = sim
        .ports
        .iter()
        .map(|p| {
            p.stats
                .iter()
                .zip(&p.q)
                .map(|(s, q)| q.ecn_marks * 1000 + s.drops.iter().sum::<u64>())
                .sum()
        })
        .collect();
    (c.delivered, c.dropped, c.packet_hops, per_port)
}

#[test]
fn conservation_and_determinism() {
    let a = random_run(11);
    let b = random_run(11);
    assert_eq!(a, b, "same seed ⇒ identical counters");
    assert!(a.1 > 0, "the random run should see drops");
    let c = random_run(12);
    assert_ne!(a, c, "different seed ⇒ different run");
}

#[test]
fn scheme_hooks_tag_decide_and_observe() {
    use dcnsim::scheme::test_scheme::TestSchemeConfig;
    use dcnsim::scheme::{AnyScheme, SchemeConfig};
    let g = star(4, G10, US);
    let sw = unlimited_switch(SchedConfig::Strict, 4);
    let mut sim = Sim::with_configs(&g, &sw, &host(), 1, Ecmp::PerFlow);
    sim.scheme = AnyScheme::build(&SchemeConfig::Test(TestSchemeConfig {
        red_threshold: Some(Bytes(15_000)),
        retx_class: None,
        mark_class: Some(2),
        ..TestSchemeConfig::default()
    }));
    // sources 0 (green) and 1 (red) overload h3; source 2 (green, class 2, ECT) is marked.
    sim.add_source(src(0, 3, 1, G10, MS));
    sim.add_source(src(1, 3, 1, G10, MS));
    let mut s2 = src(2, 3, 2, Rate::gbps(1), MS);
    s2.ect = true;
    sim.add_source(s2);
    sim.run(Time::MAX, u64::MAX);
    let AnyScheme::Test(t) = &sim.scheme else {
        unreachable!()
    };
    let st = &sim.sources.stats;
    assert_eq!(
        t.n.tagged, st[1].tx_pkts,
        "host hook coloured every packet of the odd source"
    );
    assert_eq!(
        st[0].rx_pkts, st[0].tx_pkts,
        "green packets are never dropped by the scheme"
    );
    assert_eq!(
        st[1].tx_pkts - st[1].rx_pkts,
        t.n.dropped,
        "only red packets were dropped"
    );
    assert!(t.n.dropped > 0);
    assert_eq!(st[2].ce, st[2].rx_pkts, "enqueue verdict Mark sets CE");
    assert_eq!(t.n.received, sim.counters.delivered);
    assert_eq!(t.n.dequeued, sim.counters.packet_hops);
    let e = egress_to_last(&sim);
    assert_eq!(
        sim.ports[e].stats[1].drops[3], t.n.dropped,
        "scheme drops are counted by reason"
    );
    assert!(sim.ports[e].q[1].max_bytes <= 15_000 + 2 * 1500);
}

/// C3 §2 (Fig 3c): a WFQ weight change requested at `at` serves only from `at + delay`.
/// Two saturated classes under DRR 9:1, reconfigured to 1:1 at 2 ms with a 3 ms delay: the
/// queue's share stays 90/10 between the request and 5 ms, and is 50/50 after.
#[test]
fn drr_reconfiguration_applies_after_the_delay() {
    let sched = SchedConfig::Drr(DrrSched {
        weights: vec![9.0, 1.0],
        quantum: Bytes(1500),
        reconfigure: Some(Reconfigure {
            at: dcnsim::units::Dur(2 * MS),
            weights: vec![1.0, 1.0],
            delay: dcnsim::units::Dur(3 * MS),
        }),
    });
    let g = star(5, G10, US);
    let mut sim = Sim::with_configs(&g, &unlimited_switch(sched, 2), &host(), 1, Ecmp::PerFlow);
    for (i, c) in [0u8, 0, 1, 1].into_iter().enumerate() {
        sim.add_source(src(i as u32, 4, c, G10, 10 * MS));
    }
    let at = |sim: &mut Sim, t: Time, e: usize| {
        sim.run(t, u64::MAX);
        [bytes_out(sim, e, 0), bytes_out(sim, e, 1)]
    };
    let e = egress_to_last(&sim);
    let share0 = |a: [u64; 2], b: [u64; 2]| {
        let d = [b[0] - a[0], b[1] - a[1]];
        d[0] as f64 / (d[0] + d[1]) as f64
    };
    let t1 = at(&mut sim, MS, e);
    let t2 = at(&mut sim, 2 * MS + 100 * US, e);
    let t3 = at(&mut sim, 4 * MS + 900 * US, e);
    let t4 = at(&mut sim, 5 * MS + 100 * US, e);
    let t5 = at(&mut sim, 9 * MS, e);
    let before = share0(t1, t2);
    let delayed = share0(t2, t3);
    let after = share0(t4, t5);
    assert!((before - 0.9).abs() < 0.01, "before the request: {before}");
    assert!(
        (delayed - 0.9).abs() < 0.01,
        "requested but within the delay: {delayed}"
    );
    assert!((after - 0.5).abs() < 0.01, "after at + delay: {after}");
}

#[test]
fn bad_reconfigure_keys_name_the_key() {
    let err = |sched: &str| {
        let j = format!(
            r#"{{"topology": {{"kind": "star", "hosts": 2, "link": {{"rate": "1Gbps", "delay": "1us"}}}},
                "switch": {{"queues": 2, "scheduler": {sched}}}}}"#
        );
        match dcnsim::scenario::from_json(&j) {
            Err(e) => format!("{}: {}", e.path, e.msg),
            Ok(sc) => match sc.build(&dcnsim::scenario::build::FsReader) {
                Err(e) => format!("{}: {}", e.path, e.msg),
                Ok(_) => panic!("expected an error for {sched}"),
            },
        }
    };
    let cases = [
        (
            r#"{"kind": "drr", "weights": [1, 1], "reconfigure": {"at": "1ms", "weights": [1]}}"#,
            "switch.scheduler.reconfigure.weights",
        ),
        (
            r#"{"kind": "drr", "weights": [1, 1], "reconfigure": {"at": "1ms", "weights": [1, 0]}}"#,
            "switch.scheduler.reconfigure.weights",
        ),
        (
            r#"{"kind": "drr", "weights": [1, 1], "reconfigure": {"weights": [1, 2]}}"#,
            "switch.scheduler.reconfigure",
        ),
        (
            r#"{"kind": "drr", "weights": [1, 1], "reconfigure": {"at": "1ms", "weights": [1, 2], "delay": "soon"}}"#,
            "switch.scheduler.reconfigure.delay",
        ),
        (
            r#"{"kind": "drr", "weights": [1, 1], "reconfigure": {"at": "1ms", "weights": [1, 2], "dely": "1ms"}}"#,
            "switch.scheduler.reconfigure.dely",
        ),
    ];
    for (sched, key) in cases {
        let e = err(sched);
        assert!(
            e.starts_with(&format!("{key}:")),
            "{sched}: got `{e}`, want {key}"
        );
    }
}

/// Two low-priority line-rate streams into one 10G port (2× overload) and, halfway through,
/// one high-priority packet; the low queue holds 20 packets. Returns (the high packet's
/// one-way delay, low packets delivered, low packets dropped).
fn inversion_run(driver_queue: u32) -> (Time, u64, u64) {
    let g = star(4, G10, US);
    let sw = SwitchConfig {
        queues: 2,
        queue_limit: Some(PerQueue::One(Amount::Pkts(20))),
        port_limit: None,
        driver_queue,
        ..SwitchConfig::default()
    };
    let mut sim = Sim::with_configs(&g, &sw, &host(), 1, Ecmp::PerFlow);
    sim.add_source(src(0, 3, 1, G10, MS));
    sim.add_source(src(1, 3, 1, G10, MS));
    let mut hi = src(2, 3, 0, G10, MS);
    hi.start = MS / 2;
    hi.max_pkts = 1;
    sim.add_source(hi);
    sim.run(Time::MAX, u64::MAX);
    let s = &sim.sources.stats;
    assert_eq!(s[2].rx_pkts, 1);
    (
        s[2].owd_max,
        s[0].rx_pkts + s[1].rx_pkts,
        sim.counters.dropped,
    )
}

/// `switch.driver_queue`: a FIFO below the port's class queues that the scheduler fills while
/// it has room (ns-3's device queue under its traffic-control layer). A high-priority packet
/// then waits behind the low-priority packets already in it (priority inversion), and the
/// FIFO's packets are outside the queue limit, so that many more low packets get through.
#[test]
fn a_switch_driver_queue_inverts_priority_and_adds_its_packets_to_the_buffer() {
    let tx = G10.tx_time(1500);
    let base = 2 * tx + 2 * US;
    let (owd0, rx0, drop0) = inversion_run(0);
    let (owd10, rx10, drop10) = inversion_run(10);
    // Without a driver queue the high packet waits at most for the low packet on the wire.
    assert!(owd0 >= base && owd0 <= base + tx, "{owd0} vs {base}");
    // With ten packets in the FIFO it waits for them too (and at most one more on the wire).
    assert!(
        owd10 >= base + 10 * tx && owd10 <= base + 11 * tx,
        "{owd10} vs {base}"
    );
    assert!(drop0 > 0);
    assert_eq!(
        rx10,
        rx0 + 10,
        "the FIFO holds ten packets the queue limit would drop"
    );
    assert_eq!(drop10 + 10, drop0);
}
