//! Port-level mechanisms driven directly: ECN markers, and randomized enqueue/dequeue
//! sequences on every scheduler and buffer policy.

use dcnsim::net::buffer::SharedPool;
use dcnsim::net::config::*;
use dcnsim::net::mark::red_prob;
use dcnsim::net::{PerQueue, Port, Profile};
use dcnsim::packet::{flags, Arena, Packet, PktKind};
use dcnsim::units::{Amount, Bytes};
use dcnsim_engine::{Rate, Rng, TxClock};

fn port() -> Port {
    Port::new(0, 1, 0, 0, TxClock::new(Rate::gbps(10)), 0)
}

fn pkt(arena: &mut Arena, wire: u32, ect: bool) -> u32 {
    let mut p = Packet::new(PktKind::Raw, 0, 0, 1, 0, wire);
    if ect {
        p.flags |= flags::ECT;
    }
    arena.alloc(p)
}

#[test]
fn step_marks_iff_occupancy_at_least_k_at_enqueue() {
    for k in [Amount::Pkts(5), Amount::Bytes(6000)] {
        let cfg = PortConfig {
            queues: 1,
            scheduler: SchedConfig::Fifo,
            ecn: PerQueue::One(EcnConfig::Step(StepEcn {
                k,
                at: MarkAt::Enqueue,
                occupancy: Occupancy::Queue,
            })),
            ..PortConfig::default()
        };
        let prof = Profile::compile(&cfg, 0);
        let (mut a, mut pool, mut rng) = (Arena::new(), SharedPool::default(), Rng::new(1));
        let mut p = port();
        let mut expected_marks = 0;
        for i in 0..10u64 {
            let before = p.q[0].pkts as u64;
            let id = pkt(&mut a, 1500, true);
            p.enqueue(&prof, 0, id, &mut a, &mut pool, &mut rng)
                .unwrap();
            let marked = a.get(id).flags & flags::CE != 0;
            let expect = match k {
                Amount::Pkts(n) => before >= n,
                Amount::Bytes(b) => before * 1500 >= b,
            };
            assert_eq!(
                marked, expect,
                "packet {i} found {before} queued, K = {k:?}"
            );
            expected_marks += expect as u64;
        }
        // a non-ECT packet is never marked
        let id = pkt(&mut a, 1500, false);
        p.enqueue(&prof, 0, id, &mut a, &mut pool, &mut rng)
            .unwrap();
        assert_eq!(a.get(id).flags & flags::CE, 0);
        assert_eq!(p.q[0].ecn_marks, expected_marks);
    }
}

#[test]
fn dequeue_marking_and_per_port_occupancy() {
    let cfg = PortConfig {
        queues: 2,
        ecn: PerQueue::One(EcnConfig::Step(StepEcn {
            k: Amount::Pkts(2),
            at: MarkAt::Dequeue,
            occupancy: Occupancy::Port,
        })),
        ..PortConfig::default()
    };
    let prof = Profile::compile(&cfg, 0);
    let (mut a, mut pool, mut rng) = (Arena::new(), SharedPool::default(), Rng::new(1));
    let mut p = port();
    // 2 packets in queue 1 then 2 in queue 0: none is marked at enqueue.
    let ids: Vec<u32> = [1, 1, 0, 0]
        .iter()
        .map(|&q| {
            let id = pkt(&mut a, 1000, true);
            p.enqueue(&prof, q, id, &mut a, &mut pool, &mut rng)
                .unwrap();
            id
        })
        .collect();
    assert!(ids.iter().all(|&id| a.get(id).flags & flags::CE == 0));
    // strict: queue 0 first; the first departure leaves 3 in the port (≥ 2) → marked, etc.
    let sent: Vec<u32> = (0..4)
        .map(|_| p.next_to_send(&prof, &mut a, &mut pool, &mut rng).unwrap())
        .collect();
    let out: Vec<bool> = sent
        .iter()
        .map(|&id| a.get(id).flags & flags::CE != 0)
        .collect();
    assert_eq!(out, vec![true, true, false, false]);
}

#[test]
fn red_marking_fraction_matches_formula() {
    // At enqueue each arrival finds `hold` packets in front of it; at dequeue each departure
    // leaves `hold` behind it (the arrival came first): the same occupancy, the same p.
    let (kmin, kmax, pmax) = (Amount::Bytes(5_000), Amount::Bytes(200_000), 0.4);
    for at in [MarkAt::Enqueue, MarkAt::Dequeue] {
        let cfg = PortConfig {
            queues: 1,
            scheduler: SchedConfig::Fifo,
            ecn: PerQueue::One(EcnConfig::Red(RedEcn {
                kmin,
                kmax,
                pmax,
                at,
                occupancy: Occupancy::Queue,
            })),
            ..PortConfig::default()
        };
        let prof = Profile::compile(&cfg, 0);
        for hold in [3u64, 50, 100, 140] {
            let (mut a, mut pool, mut rng) = (Arena::new(), SharedPool::default(), Rng::new(hold));
            let mut p = port();
            for _ in 0..hold {
                let id = pkt(&mut a, 1000, false);
                p.enqueue(&prof, 0, id, &mut a, &mut pool, &mut rng)
                    .unwrap();
            }
            let n = 40_000;
            let mut marks = 0;
            for _ in 0..n {
                let id = pkt(&mut a, 1000, true);
                p.enqueue(&prof, 0, id, &mut a, &mut pool, &mut rng)
                    .unwrap();
                let out = p.next_to_send(&prof, &mut a, &mut pool, &mut rng).unwrap();
                // (At dequeue the departing packet is an older, ECT one once the first
                // `hold` non-ECT packets have left.)
                let judged = if at == MarkAt::Enqueue { id } else { out };
                if a.get(judged).flags & flags::CE != 0 {
                    marks += 1;
                }
                a.free(out);
            }
            let want = red_prob(kmin, kmax, pmax, hold * 1000, hold);
            // the first `hold` departures at dequeue are the non-ECT fill
            let judged = if at == MarkAt::Enqueue {
                n
            } else {
                n - hold as usize
            };
            let got = marks as f64 / judged as f64;
            let sd = (want * (1.0 - want) / judged as f64).sqrt();
            assert!(
                (got - want).abs() <= 4.0 * sd + 1e-9,
                "{at:?}, hold {hold}: {got} vs {want}"
            );
        }
    }
}

#[test]
fn red_at_dequeue_judges_what_the_packet_leaves_behind() {
    // p = 1 from 2 packets on (kmin 1, kmax 2, pmax 1): deterministic.
    let cfg = PortConfig {
        queues: 1,
        scheduler: SchedConfig::Fifo,
        ecn: PerQueue::One(EcnConfig::Red(RedEcn {
            kmin: Amount::Pkts(1),
            kmax: Amount::Pkts(2),
            pmax: 1.0,
            at: MarkAt::Dequeue,
            occupancy: Occupancy::Queue,
        })),
        ..PortConfig::default()
    };
    let prof = Profile::compile(&cfg, 0);
    let (mut a, mut pool, mut rng) = (Arena::new(), SharedPool::default(), Rng::new(1));
    let mut p = port();
    // Enqueued 4 deep: at enqueue the 3rd and 4th would be marked; at dequeue none is.
    for _ in 0..4 {
        let id = pkt(&mut a, 1000, true);
        p.enqueue(&prof, 0, id, &mut a, &mut pool, &mut rng)
            .unwrap();
        assert_eq!(a.get(id).flags & flags::CE, 0);
    }
    // The 1st leaves 3 behind, the 2nd 2 (marked); the 3rd 1 and the 4th none (not).
    let out: Vec<bool> = (0..4)
        .map(|_| {
            let id = p.next_to_send(&prof, &mut a, &mut pool, &mut rng).unwrap();
            a.get(id).flags & flags::CE != 0
        })
        .collect();
    assert_eq!(out, vec![true, true, false, false]);
    assert_eq!(p.q[0].ecn_marks, 2);
}

fn policies() -> Vec<(String, PortConfig, u64)> {
    let scheds = vec![
        SchedConfig::Fifo,
        SchedConfig::Strict,
        SchedConfig::Drr(DrrSched {
            weights: vec![4.0, 2.0, 1.0, 1.0],
            quantum: Bytes(1500),
            reconfigure: None,
        }),
        SchedConfig::Mixed(MixedSched {
            strict: 2,
            weights: vec![3.0, 1.0],
            quantum: Bytes(1500),
        }),
    ];
    let mut out = Vec::new();
    for s in scheds {
        let nq = if s == SchedConfig::Fifo { 1 } else { 4 };
        let base = PortConfig {
            queues: nq,
            scheduler: s.clone(),
            ..PortConfig::default()
        };
        out.push((
            format!("{s:?}/static"),
            PortConfig {
                queue_limit: Some(PerQueue::One(Amount::Bytes(9_000))),
                ..base.clone()
            },
            0,
        ));
        out.push((
            format!("{s:?}/pkts+port"),
            PortConfig {
                queue_limit: Some(PerQueue::One(Amount::Pkts(6))),
                port_limit: Some(Amount::Bytes(20_000)),
                ..base.clone()
            },
            0,
        ));
        let reserved = if nq == 1 {
            PerQueue::One(Bytes(3_000))
        } else {
            PerQueue::Many(vec![Bytes(0), Bytes(3_000), Bytes(0), Bytes(0)])
        };
        out.push((
            format!("{s:?}/shared+reserved"),
            PortConfig {
                reserved,
                alpha: PerQueue::One(0.5),
                ..base.clone()
            },
            30_000,
        ));
    }
    out
}

#[test]
fn random_operation_sequences_keep_invariants() {
    for (name, cfg, pool_total) in policies() {
        cfg.check().unwrap();
        let prof = Profile::compile(&cfg, 0);
        let mut rng = Rng::new(99);
        for trial in 0..200 {
            let (mut a, mut mrng) = (Arena::new(), Rng::new(trial));
            let mut pool = SharedPool {
                total: pool_total,
                used: 0,
                max_used: 0,
                headroom: 0,
            };
            let mut p = port();
            let mut live = 0u64;
            // Per queue, counted here: packets and bytes admitted, the most bytes and
            // packets held (what the port derives or keeps in `ClassQueue`).
            let (mut adm, mut adm_b, mut most_b, mut most_p) =
                ([0u64; 8], [0u64; 8], [0u64; 8], [0u64; 8]);
            for _ in 0..300 {
                if rng.chance(0.6) {
                    let q = rng.below(prof.nq as u64) as usize;
                    let wire = 64 + rng.below(1437) as u32;
                    let id = pkt(&mut a, wire, true);
                    match p.enqueue(&prof, q, id, &mut a, &mut pool, &mut mrng) {
                        Ok(()) => {
                            live += 1;
                            adm[q] += 1;
                            adm_b[q] += wire as u64;
                            most_b[q] = most_b[q].max(p.q[q].bytes);
                            most_p[q] = most_p[q].max(p.q[q].pkts as u64);
                        }
                        Err(_) => a.free(id),
                    }
                } else if let Some(id) = p.next_to_send(&prof, &mut a, &mut pool, &mut rng) {
                    a.free(id);
                    live -= 1;
                }
                p.check_invariants(&prof, &a);
                assert_eq!(p.pkts, live, "{name}");
                for q in 0..prof.nq as usize {
                    let c = &p.q[q];
                    assert_eq!(
                        (c.pkts_in(), c.bytes_in()),
                        (adm[q], adm_b[q]),
                        "{name}: in"
                    );
                    assert_eq!((c.max_bytes, c.max_pkts), (most_b[q], most_p[q]), "{name}");
                }
                if pool_total > 0 {
                    assert!(pool.used <= pool_total, "{name}: pool overfilled");
                    assert_eq!(pool.used, p.unres_bytes, "{name}: pool accounting");
                }
                if let Some(Amount::Bytes(b)) = cfg.port_limit {
                    assert!(p.unres_bytes <= b, "{name}: port limit");
                }
            }
            // drain: work-conserving, returns everything
            while let Some(id) = p.next_to_send(&prof, &mut a, &mut pool, &mut rng) {
                a.free(id);
                live -= 1;
            }
            assert_eq!(live, 0, "{name}");
            assert_eq!(p.bytes, 0);
            assert_eq!(pool.used, 0);
        }
    }
}

/// Which queues may pass an idle, empty port (`Profile::pass`): those served by strict
/// priority (FIFO, strict, the strict part of a mixed scheduler), unless they are colour-aware
/// or lossless or the profile marks at dequeue.
#[test]
fn only_strict_plain_queues_may_pass_an_idle_port() {
    let mask = |cfg: PortConfig, driver: u32| Profile::compile(&cfg, driver).pass;
    let fifo = policies().remove(0).1;
    assert_eq!(mask(fifo.clone(), 0), 0b1);
    assert_eq!(mask(fifo, 3), 0b1, "a driver queue");
    for (name, cfg, _) in policies() {
        let want = match cfg.scheduler {
            SchedConfig::Fifo | SchedConfig::Strict => (1u8 << cfg.queues) - 1,
            SchedConfig::Drr(_) => 0,
            SchedConfig::Mixed(_) => 0b11,
        };
        assert_eq!(mask(cfg, 0), want, "{name}");
    }
    let strict4 = PortConfig {
        queues: 4,
        scheduler: SchedConfig::Strict,
        ..PortConfig::default()
    };
    let colour = PortConfig {
        colour: Some(ColourConfig {
            threshold: Bytes(20_000),
            mode: ColourMode::RedOnly,
            queues: Some(vec![1]),
        }),
        lossless: 0b100,
        ..strict4.clone()
    };
    assert_eq!(
        mask(colour, 0),
        0b1001,
        "colour-aware queue 1, lossless queue 2"
    );
    let deq = PortConfig {
        ecn: PerQueue::One(EcnConfig::Step(StepEcn {
            k: Amount::Pkts(2),
            at: MarkAt::Dequeue,
            occupancy: Occupancy::Queue,
        })),
        ..strict4
    };
    assert_eq!(mask(deq, 0), 0, "dequeue marking");
}

/// A packet that passes an idle, empty port (`Port::pass_through`) leaves the port, its
/// shared pool, the packet's ECN bits and the marking stream exactly as queueing it and
/// sending it at once would: random sequences of arrivals and sends on two ports, one
/// passing whenever it may, the other always queueing; the ports are busy (serializing)
/// now and then, so packets build up and drain between passes.
#[test]
fn passing_an_idle_port_is_queueing_and_sending_at_once() {
    let mut cases: Vec<_> = policies()
        .into_iter()
        .map(|(n, c, t)| (n, c, t, 0))
        .collect();
    for (name, cfg, total) in policies() {
        if matches!(cfg.scheduler, SchedConfig::Fifo | SchedConfig::Strict) {
            cases.push((format!("{name}/driver 3"), cfg, total, 3));
        }
    }
    for k in [0, 3] {
        cases.push((
            format!("fifo/step K={k}"),
            PortConfig {
                queues: 1,
                scheduler: SchedConfig::Fifo,
                reserved: PerQueue::One(Bytes(1_000)),
                ecn: PerQueue::One(EcnConfig::Step(StepEcn {
                    k: Amount::Pkts(k),
                    at: MarkAt::Enqueue,
                    occupancy: Occupancy::Port,
                })),
                ..PortConfig::default()
            },
            12_000,
            0,
        ));
    }
    cases.push((
        "strict/red".into(),
        PortConfig {
            queues: 2,
            scheduler: SchedConfig::Strict,
            ecn: PerQueue::One(EcnConfig::Red(RedEcn {
                kmin: Amount::Bytes(0),
                kmax: Amount::Bytes(6_000),
                pmax: 0.5,
                at: MarkAt::Enqueue,
                occupancy: Occupancy::Queue,
            })),
            ..PortConfig::default()
        },
        0,
        0,
    ));
    let (mut passed, mut refused, mut queued_then_passed) = (0, 0, 0);
    for (name, cfg, pool_total, driver) in cases {
        cfg.check().unwrap();
        let prof = Profile::compile(&cfg, driver);
        let mut rng = Rng::new(7);
        for trial in 0..100 {
            let pool = SharedPool {
                total: pool_total,
                used: 0,
                max_used: 0,
                headroom: 0,
            };
            let (mut pa, mut pb) = (pool, pool);
            let (mut aa, mut ab) = (Arena::new(), Arena::new());
            let (mut ra, mut rb) = (Rng::new(trial), Rng::new(trial));
            let (mut a, mut b) = (port(), port());
            // Bytes other ports hold in the shared pool (the same in both), now and then
            // near all of it, so that admission to an empty port can fail.
            let mut foreign = 0;
            // Packets have waited in the port since its last pass.
            let mut backlog = false;
            for step in 0..200 {
                if pool_total > 0 && rng.chance(0.1) {
                    let f = pool_total - rng.below(3_000).min(pool_total);
                    let f = f.saturating_sub(pa.used - foreign);
                    pa.used = pa.used - foreign + f;
                    pb.used = pb.used - foreign + f;
                    foreign = f;
                }
                if rng.chance(0.15) {
                    // The port starts or ends a busy spell (a packet being serialized).
                    let busy = if a.busy_until == 0 { 1 } else { 0 };
                    (a.busy_until, b.busy_until) = (busy, busy);
                }
                if rng.chance(0.55) {
                    let q = rng.below(prof.nq as u64) as usize;
                    let (wire, ect) = (64 + rng.below(1437) as u32, rng.chance(0.8));
                    let (ia, ib) = (pkt(&mut aa, wire, ect), pkt(&mut ab, wire, ect));
                    if a.can_pass(&prof, q, 0) {
                        passed += 1;
                        queued_then_passed += backlog as u32;
                        backlog = false;
                        let got = a.pass_through(&prof, q, ia, &mut aa, &mut pa, &mut ra);
                        let want = b
                            .enqueue(&prof, q, ib, &mut ab, &mut pb, &mut rb)
                            .map(|()| b.next_to_send(&prof, &mut ab, &mut pb, &mut rb));
                        assert_eq!(got.is_ok(), want.is_ok(), "{name} step {step}");
                        refused += got.is_err() as u32;
                        if let Ok(sent) = want {
                            assert_eq!(sent, Some(ib), "{name}: the same packet leaves");
                        }
                    } else {
                        let ra_ = a.enqueue(&prof, q, ia, &mut aa, &mut pa, &mut ra);
                        let rb_ = b.enqueue(&prof, q, ib, &mut ab, &mut pb, &mut rb);
                        assert_eq!(ra_.is_ok(), rb_.is_ok(), "{name} step {step}");
                    }
                    assert_eq!(aa.get(ia).flags, ab.get(ib).flags, "{name}: ECN bits");
                } else {
                    let sa = a.next_to_send(&prof, &mut aa, &mut pa, &mut ra);
                    let sb = b.next_to_send(&prof, &mut ab, &mut pb, &mut rb);
                    assert_eq!(sa, sb, "{name} step {step}");
                }
                backlog |= a.pkts > 0 || a.driver.pkts > 0;
                assert_eq!(
                    (a.bytes, a.pkts, a.unres_bytes),
                    (b.bytes, b.pkts, b.unres_bytes)
                );
                assert_eq!(
                    (pa.used, pa.max_used),
                    (pb.used, pb.max_used),
                    "{name}: pool"
                );
                for q in 0..prof.nq as usize {
                    let (x, y) = (&a.q[q], &b.q[q]);
                    assert_eq!(
                        (
                            x.pkts_out,
                            x.bytes_out,
                            x.max_bytes,
                            x.max_pkts,
                            x.ecn_marks
                        ),
                        (
                            y.pkts_out,
                            y.bytes_out,
                            y.max_bytes,
                            y.max_pkts,
                            y.ecn_marks
                        ),
                        "{name} step {step}: queue {q}'s counters"
                    );
                }
            }
            assert_eq!(ra.next_u64(), rb.next_u64(), "{name}: the marking stream");
        }
    }
    assert!(passed > 1_000, "the pass-through was taken {passed} times");
    assert!(
        queued_then_passed > 100,
        "a pass after packets waited: {queued_then_passed} times"
    );
    assert!(
        refused > 50,
        "admission refused a passing packet {refused} times"
    );
}

#[test]
fn driver_queue_holds_at_most_its_limit_and_feeds_fifo() {
    let cfg = HostConfig {
        queues: 2,
        driver_queue: 3,
        ..HostConfig::default()
    };
    let prof = Profile::host(&cfg);
    let (mut a, mut pool, mut rng) = (Arena::new(), SharedPool::default(), Rng::new(1));
    let mut p = port();
    // 5 low-priority packets, then 2 high-priority: the 3 low ones already in the driver
    // queue go first (priority inversion below the qdisc, LPF §3).
    let mut ids = Vec::new();
    for _ in 0..5 {
        let id = pkt(&mut a, 1000, false);
        p.enqueue(&prof, 1, id, &mut a, &mut pool, &mut rng)
            .unwrap();
        ids.push((id, 1));
    }
    p.refill_driver(&prof, &mut a, &mut pool, &mut rng);
    assert_eq!(p.driver.pkts, 3);
    for _ in 0..2 {
        let id = pkt(&mut a, 1000, false);
        p.enqueue(&prof, 0, id, &mut a, &mut pool, &mut rng)
            .unwrap();
        ids.push((id, 0));
    }
    let order: Vec<u32> =
        std::iter::from_fn(|| p.next_to_send(&prof, &mut a, &mut pool, &mut rng)).collect();
    let classes: Vec<usize> = order
        .iter()
        .map(|id| ids.iter().find(|x| x.0 == *id).unwrap().1)
        .collect();
    assert_eq!(classes, vec![1, 1, 1, 0, 0, 1, 1]);
}

#[test]
fn bad_port_configs_name_the_key() {
    let bad = [
        (
            PortConfig {
                queues: 0,
                ..PortConfig::default()
            },
            "queues",
        ),
        (
            PortConfig {
                queues: 9,
                ..PortConfig::default()
            },
            "queues",
        ),
        (
            PortConfig {
                queues: 2,
                scheduler: SchedConfig::Fifo,
                ..PortConfig::default()
            },
            "scheduler",
        ),
        (
            PortConfig {
                queues: 2,
                scheduler: SchedConfig::Drr(DrrSched {
                    weights: vec![1.0],
                    quantum: Bytes(1500),
                    reconfigure: None,
                }),
                ..PortConfig::default()
            },
            "scheduler.weights",
        ),
        (
            PortConfig {
                queues: 2,
                scheduler: SchedConfig::Drr(DrrSched {
                    weights: vec![1.0, 0.0],
                    quantum: Bytes(1500),
                    reconfigure: None,
                }),
                ..PortConfig::default()
            },
            "scheduler.weights",
        ),
        (
            PortConfig {
                alpha: PerQueue::One(0.0),
                ..PortConfig::default()
            },
            "alpha",
        ),
        (
            PortConfig {
                queues: 2,
                reserved: PerQueue::Many(vec![Bytes(1)]),
                ..PortConfig::default()
            },
            "reserved",
        ),
    ];
    for (cfg, key) in bad {
        let (k, msg) = cfg.check().unwrap_err();
        assert_eq!(k, key, "{msg}");
        assert!(msg.contains("expected"), "{msg}");
    }
}
