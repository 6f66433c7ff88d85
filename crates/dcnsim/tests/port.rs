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
