//! Loss detection and recovery: fast retransmit, NewReno partial ACKs, SACK recovery, RTO
//! timing and backoff.

mod harness;
use dcnsim_engine::{Rate, Time, MS, US};
use dcnsim_transport::{Ack, CcKind, RetxCause, RtoMode, Segment, TcpConfig, TcpSender};
use harness::{Harness, PathCfg};

const MSS: u64 = 1460;
const LIMIT: Time = 10_000 * MS;

fn causes(h: &Harness) -> Vec<(u64, RetxCause)> {
    h.retx()
        .iter()
        .map(|(_, g)| (g.seq / MSS, g.retx.unwrap()))
        .collect()
}

/// One drop in the middle of a flow ⇒ exactly one fast retransmit and no timeout, for
/// every combination of SACK, dupack threshold (3 and 1) and CC.
#[test]
fn single_drop_one_fast_retransmit_no_rto() {
    for sack in [true, false] {
        for dt in [3, 1] {
            for cc in [CcKind::NewReno, CcKind::Cubic, CcKind::Dctcp] {
                let cfg = TcpConfig {
                    sack,
                    dupack_thresh: dt,
                    cc,
                    ecn: cc == CcKind::Dctcp,
                    ..Default::default()
                };
                let mut h =
                    Harness::new(cfg, 300 * MSS, PathCfg::new(10 * US, Some(Rate::gbps(10))))
                        .drop_list(&[(50, 0)]);
                assert!(h.run(LIMIT), "sack={sack} dt={dt} {cc:?}");
                let st = h.s.stats();
                assert_eq!(
                    (st.fast_retx, st.rto_count, st.retx_pkts),
                    (1, 0, 1),
                    "sack={sack} dt={dt} {cc:?}"
                );
                assert_eq!(causes(&h), vec![(50, RetxCause::Fast)]);
            }
        }
    }
}

/// On entering fast recovery NewReno and DCTCP set ssthresh = max(FlightSize/2, 2·MSS)
/// (RFC 5681 eq. 4); CUBIC sets β·cwnd (RFC 9438 §4.6).
#[test]
fn reduction_on_fast_retransmit() {
    for cc in [CcKind::NewReno, CcKind::Dctcp, CcKind::Cubic] {
        let cfg = TcpConfig {
            cc,
            ecn: cc == CcKind::Dctcp,
            ..Default::default()
        };
        let mut h = Harness::new(cfg, 300 * MSS, PathCfg::new(10 * US, Some(Rate::gbps(10))))
            .drop_list(&[(50, 0)]);
        assert!(h.run(LIMIT));
        let i = h.acks.iter().position(|a| a.in_fr).unwrap();
        let (prev, at) = (h.acks[i - 1], h.acks[i]);
        let want = match cc {
            CcKind::Cubic => (prev.cwnd as f64 * 0.7) as u64,
            _ => ((prev.nxt - at.una) / 2).max(2 * MSS),
        };
        assert_eq!(at.ssthresh, want, "{cc:?}");
        assert_eq!(at.cwnd, want);
    }
}

/// Dropping the second-to-last segment leaves a single duplicate ACK: with DupThresh 1
/// (TLT) that is a fast retransmit, with DupThresh 3 only the RTO can recover it.
#[test]
fn dupack_threshold_one() {
    for sack in [true, false] {
        for (dt, fr, rto) in [(1, 1, 0), (3, 0, 1)] {
            let cfg = TcpConfig {
                sack,
                dupack_thresh: dt,
                ..Default::default()
            };
            let mut h = Harness::new(cfg, 30 * MSS, PathCfg::new(10 * US, Some(Rate::gbps(10))))
                .drop_list(&[(28, 0)]);
            assert!(h.run(LIMIT));
            let st = h.s.stats();
            assert_eq!(
                (st.fast_retx, st.rto_count),
                (fr, rto),
                "sack={sack} dt={dt}"
            );
        }
    }
}

/// Tail drop: no later segment can produce a duplicate ACK, so the RTO fires exactly `rto`
/// after the last ACK restarted the timer (RFC 6298 (5.3)), with RTO = max(rto_min,
/// SRTT + max(G, 4·RTTVAR)); the retransmission recovers the flow.
#[test]
fn tail_drop_recovered_by_rto_at_rto() {
    for (rto_min, d) in [(MS, 10 * US), (100 * US, 200 * US)] {
        let cfg = TcpConfig {
            rto_min,
            ..Default::default()
        };
        let mut h = Harness::new(cfg, 40 * MSS, PathCfg::new(d, Some(Rate::gbps(10))))
            .drop_list(&[(39, 0)]);
        assert!(h.run(LIMIT));
        let st = h.s.stats();
        assert_eq!((st.rto_count, st.fast_retx, st.retx_pkts), (1, 0, 1));
        let last_ack = h
            .acks
            .iter()
            .rev()
            .find(|a| a.una < 40 * MSS && a.una > 0)
            .copied()
            .unwrap();
        let want = last_ack.rto;
        assert_eq!(h.rto_fires, vec![last_ack.t + want]);
        assert_eq!(last_ack.deadline, Some(last_ack.t + want));
        let (t_retx, g) = h.retx()[0];
        assert_eq!((t_retx, g.retx), (last_ack.t + want, Some(RetxCause::Rto)));
        if rto_min == MS {
            assert_eq!(want, MS); // SRTT + 4·RTTVAR is far below the 1 ms floor
        } else {
            let srtt = last_ack.srtt.unwrap();
            assert!(want > 2 * d && want >= srtt, "rto {want} vs srtt {srtt}");
        }
        assert!(h.done_at.unwrap() >= t_retx + 2 * d);
    }
}

/// Three drops in one window with SACK: one fast-recovery episode, three retransmissions,
/// all within about one RTT, recovery over within 2 RTTs, no timeout.
#[test]
fn three_drops_sack_recovers_within_two_rtts() {
    for cc in [CcKind::NewReno, CcKind::Cubic] {
        let d = 10 * US;
        let cfg = TcpConfig {
            cc,
            ..Default::default()
        };
        let mut h = Harness::new(cfg, 300 * MSS, PathCfg::new(d, None)).drop_list(&[
            (60, 0),
            (63, 0),
            (66, 0),
        ]);
        assert!(h.run(LIMIT));
        let st = h.s.stats();
        assert_eq!(
            (st.fast_retx, st.rto_count, st.retx_pkts),
            (1, 0, 3),
            "{cc:?}"
        );
        let r = h.retx();
        let segs: Vec<u64> = r.iter().map(|(_, g)| g.seq / MSS).collect();
        assert_eq!(segs, vec![60, 63, 66]);
        assert_eq!(r[0].1.retx, Some(RetxCause::Fast));
        assert!(r[1..]
            .iter()
            .all(|(_, g)| g.retx == Some(RetxCause::Recovery)));
        let rtt = 2 * d;
        assert!(
            r[2].0 - r[0].0 <= rtt,
            "retransmissions spread over {} ps",
            r[2].0 - r[0].0
        );
        let entry = h.acks.iter().position(|a| a.in_fr).unwrap();
        let exit = entry + h.acks[entry..].iter().position(|a| !a.in_fr).unwrap();
        assert!(h.acks[exit].t - h.acks[entry].t <= 2 * rtt);
    }
}

/// The same three drops without SACK: NewReno (RFC 6582) retransmits one hole per partial
/// ACK, i.e. one per RTT, in a single recovery episode, without a timeout.
#[test]
fn three_drops_newreno_partial_acks_one_per_rtt() {
    let d = 10 * US;
    let cfg = TcpConfig {
        sack: false,
        cc: CcKind::NewReno,
        ..Default::default()
    };
    let mut h =
        Harness::new(cfg, 300 * MSS, PathCfg::new(d, None)).drop_list(&[(60, 0), (63, 0), (66, 0)]);
    assert!(h.run(LIMIT));
    let st = h.s.stats();
    assert_eq!((st.fast_retx, st.rto_count, st.retx_pkts), (1, 0, 3));
    assert_eq!(
        causes(&h),
        vec![
            (60, RetxCause::Fast),
            (63, RetxCause::Recovery),
            (66, RetxCause::Recovery)
        ]
    );
    let r = h.retx();
    assert_eq!(r[1].0 - r[0].0, 2 * d);
    assert_eq!(r[2].0 - r[1].0, 2 * d);
    // RFC 6582: the window is inflated during recovery and new data keeps flowing.
    let during: Vec<_> = h
        .sent
        .iter()
        .filter(|(t, g)| *t > r[0].0 && *t < r[2].0 && g.retx.is_none())
        .collect();
    assert!(!during.is_empty());
}

/// Repeated loss of the same retransmission: RFC 6298 (5.5) doubles the RTO per
/// consecutive timeout, capped at rto_max; Static mode never backs off.
#[test]
fn repeated_loss_backs_off_exponentially() {
    for (mode, rto_max, mult) in [
        (RtoMode::Rfc6298, 60_000 * MS, [2, 4, 8, 16]),
        (RtoMode::Rfc6298, 5 * MS, [2, 4, 8, 16]),
        (RtoMode::Linux, 60_000 * MS, [2, 4, 8, 16]),
        (RtoMode::Static(MS), 60_000 * MS, [1, 1, 1, 1]),
    ] {
        for sack in [true, false] {
            let cfg = TcpConfig {
                rto_mode: mode,
                rto_max,
                sack,
                ..Default::default()
            };
            let drops: Vec<(u64, u32)> = (0..5).map(|k| (19, k)).collect();
            let mut h = Harness::new(cfg, 20 * MSS, PathCfg::new(10 * US, None)).drop_list(&drops);
            assert!(h.run(LIMIT));
            assert_eq!(h.s.stats().rto_count, 5);
            // Base RTO: the value in force when the last ACK restarted the timer.
            let last = h.acks.iter().rfind(|a| a.t < h.rto_fires[0]).unwrap();
            let base = last.rto;
            assert_eq!(h.rto_fires[0], last.t + base);
            match mode {
                RtoMode::Linux => assert_eq!(base, last.srtt.unwrap() + MS), // SRTT + max(4·mdev, rto_min)
                _ => assert_eq!(base, MS),
            }
            let gaps: Vec<Time> = h.rto_fires.windows(2).map(|w| w[1] - w[0]).collect();
            let want: Vec<Time> = mult.iter().map(|m| (m * base).min(rto_max)).collect();
            assert_eq!(gaps, want, "{mode:?} rto_max={rto_max}");
            // Only the lost segment is retransmitted (the rest was acknowledged).
            assert!(h.retx().iter().all(|(_, g)| g.seq == 19 * MSS));
        }
    }
}

/// After an RTO, go-back-N retransmits from snd_una but, with SACK, skips SACKed data.
#[test]
fn rto_go_back_n_skips_sacked() {
    // Segments 0 and 3 of a 10-segment flow are lost, and so are their fast-recovery
    // retransmissions: only the timer can recover. With SACK the sender knows 1, 2 and
    // 4..9 arrived and resends only 0 and 3. Without SACK, after the RTO retransmission of
    // 0 the cumulative ACK jumps to 3 (cwnd 1 → 3 MSS: slow start with L = 2·SMSS) and
    // go-back-N blindly resends 3, 4 and 5.
    for (sack, drops, want) in [
        (true, vec![(0, 0), (0, 1), (3, 0), (3, 1)], vec![0, 3]),
        (false, vec![(0, 0), (0, 1), (3, 0)], vec![0, 3, 4, 5]),
    ] {
        let cfg = TcpConfig {
            sack,
            rto_init: MS,
            ..Default::default()
        };
        let mut h = Harness::new(cfg, 10 * MSS, PathCfg::new(10 * US, None)).drop_list(&drops);
        assert!(h.run(LIMIT));
        assert_eq!(h.s.stats().rto_count, 1, "sack={sack}");
        assert_eq!(h.s.stats().fast_retx, 1, "sack={sack}");
        let rto_retx: Vec<u64> = h
            .retx()
            .iter()
            .filter(|(_, g)| g.retx == Some(RetxCause::Rto))
            .map(|(_, g)| g.seq / MSS)
            .collect();
        assert_eq!(rto_retx, want, "sack={sack}");
        let first = h
            .retx()
            .iter()
            .find(|(_, g)| g.retx == Some(RetxCause::Rto))
            .unwrap()
            .0;
        assert_eq!(h.rto_fires[0], first);
    }
}

/// The timeout resets cwnd to one segment and ssthresh per eq. (4), and exits recovery.
#[test]
fn timeout_window_reset() {
    let cfg = TcpConfig {
        cc: CcKind::NewReno,
        rto_init: MS,
        ..Default::default()
    };
    let mut s = TcpSender::new(&cfg, 100 * MSS);
    let mut out: Vec<Segment> = vec![];
    s.start(0, &mut out);
    assert_eq!(out.len(), 10);
    out.clear();
    let d = s.rto_deadline().unwrap();
    s.on_timeout(d - 1, &mut out); // early: nothing
    assert!(out.is_empty());
    s.on_timeout(d, &mut out);
    assert_eq!(s.cwnd(), MSS);
    assert_eq!(s.ssthresh(), 5 * MSS);
    assert_eq!(out.len(), 1);
    assert_eq!((out[0].seq, out[0].retx), (0, Some(RetxCause::Rto)));
    assert_eq!(s.rto_deadline(), Some(d + 2 * MS));
    assert_eq!(s.stats().rto_count, 1);
}

/// ACKs the sender must ignore: beyond snd_nxt, below snd_una; SACK blocks are clamped.
#[test]
fn bogus_acks_are_ignored() {
    let cfg = TcpConfig::default();
    let mut s = TcpSender::new(&cfg, 100 * MSS);
    let mut out = vec![];
    s.start(0, &mut out);
    let before = (s.snd_una(), s.cwnd(), s.bytes_in_flight());
    out.clear();
    s.on_ack(
        10,
        &Ack {
            ack: 11 * MSS,
            ..Default::default()
        },
        &mut out,
    );
    assert_eq!((s.snd_una(), s.cwnd(), s.bytes_in_flight()), before);
    assert!(out.is_empty());
    s.on_ack(
        10,
        &Ack {
            ack: 2 * MSS,
            ..Default::default()
        },
        &mut out,
    );
    assert_eq!(s.snd_una(), 2 * MSS);
    out.clear();
    s.on_ack(
        11,
        &Ack {
            ack: MSS,
            ..Default::default()
        },
        &mut out,
    ); // old
    assert_eq!(s.snd_una(), 2 * MSS);
    assert!(out.is_empty());
    let mut a = Ack {
        ack: 2 * MSS,
        n_sack: 3,
        ..Default::default()
    };
    a.sack = [
        (0, 3 * MSS),
        (5 * MSS, 1_000_000 * MSS),
        (u64::MAX - 5, u64::MAX),
    ];
    s.on_ack(12, &a, &mut out);
    assert!(s.sacked_bytes() <= s.snd_nxt() - s.snd_una());
    let mut a = Ack {
        ack: 2 * MSS,
        n_sack: 200,
        ..Default::default()
    };
    a.sack = [(7, 3), (0, 0), (1, 2)];
    s.on_ack(13, &a, &mut out);
    assert!(s.snd_una() <= s.snd_nxt());
}
