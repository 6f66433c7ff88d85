//! Windowing on an idle path: slow start, congestion avoidance, cwnd/rwnd limits, goodput,
//! ACK policy.

mod harness;
use dcnsim_engine::{Rate, MS, US};
use dcnsim_transport::{CcKind, TcpConfig};
use harness::{Harness, PathCfg, Verdict};

const MSS: u64 = 1460;

/// Slow start with IW segments and one ACK per segment doubles the window each round:
/// after R rounds IW·(2^R − 1) segments have been sent, so a flow of N segments needs
/// R = min{R : IW·(2^R − 1) >= N} round trips. With instantaneous serialization the sender
/// sees the last ACK at exactly R·RTT.
#[test]
fn small_flow_finishes_in_slow_start_rounds() {
    let d = 10 * US;
    for iw in [1u64, 2, 10] {
        for n in [1u64, 2, 5, 10, 11, 29, 30, 31, 70, 100, 500] {
            for short_tail in [0u64, 700] {
                let cfg = TcpConfig {
                    init_cwnd_pkts: iw as u32,
                    rwnd_bytes: 100_000_000,
                    ..Default::default()
                };
                let flow = n * MSS - short_tail;
                let mut h = Harness::new(cfg, flow, PathCfg::new(d, None));
                assert!(h.run(10 * MS));
                let mut rounds = 0u32;
                while iw * ((1u64 << rounds) - 1) < n {
                    rounds += 1;
                }
                assert_eq!(h.done_at, Some(rounds as u64 * 2 * d), "iw={iw} n={n}");
                assert_eq!(h.s.stats().data_pkts, n);
            }
        }
    }
}

/// The first flight is exactly IW full-sized segments; all segments are MSS-sized except
/// the flow's last (the harness checks every segment, this pins the tail).
#[test]
fn initial_window_and_segment_sizes() {
    let cfg = TcpConfig::default();
    let flow = 25 * MSS + 123;
    let mut h = Harness::new(cfg, flow, PathCfg::new(10 * US, Some(Rate::gbps(10))));
    assert!(h.run(10 * MS));
    let first: Vec<_> = h.sent.iter().filter(|(t, _)| *t == 0).collect();
    assert_eq!(first.len(), 10);
    assert!(first.iter().all(|(_, g)| g.len as u64 == MSS));
    let last = h.sent.last().unwrap().1;
    assert_eq!((last.seq, last.len), (25 * MSS, 123));
    assert_eq!(h.sent.len(), 26);
}

/// A long flow on an idle path reaches ≥ 99 % of the line rate in payload terms once out
/// of slow start, with and without header overhead on the wire.
#[test]
fn long_flow_goodput_reaches_line_rate() {
    for (hdr, cc) in [(0u32, CcKind::Cubic), (40, CcKind::NewReno)] {
        let cfg = TcpConfig {
            cc,
            ..Default::default()
        };
        let rate = Rate::gbps(10);
        let mut path = PathCfg::new(5 * US, Some(rate));
        path.hdr_bytes = hdr;
        let flow = 20_000_000;
        let mut h = Harness::new(cfg, flow, path);
        assert!(h.run(SEC_LIMIT));
        let payload_rate = rate.bps() as f64 * MSS as f64 / (MSS + hdr as u64) as f64;
        let g = h.goodput_after(MS);
        assert!(
            g >= 0.99 * payload_rate,
            "goodput {g} < 99% of {payload_rate}"
        );
        assert_eq!(h.s.stats().retx_pkts, 0);
    }
}
const SEC_LIMIT: u64 = 1_000 * MS;

/// rwnd bounds bytes in flight: goodput = rwnd / RTT on a long, fast path.
#[test]
fn rwnd_limits_bytes_in_flight() {
    let rwnd = 5 * MSS;
    let cfg = TcpConfig {
        rwnd_bytes: rwnd,
        ..Default::default()
    };
    let d = 50 * US;
    let mut h = Harness::new(cfg, 2_000 * MSS, PathCfg::new(d, Some(Rate::gbps(100))));
    assert!(h.run(SEC_LIMIT));
    let max_out = h.acks.iter().map(|a| a.nxt - a.una).max().unwrap();
    assert_eq!(max_out, rwnd);
    assert!(h.acks.iter().all(|a| a.in_flight <= rwnd));
    let rtt = 2 * d + Rate::gbps(100).tx_time(MSS);
    let want = rwnd as f64 * 8.0 / dcnsim_engine::to_secs(rtt);
    let g = h.goodput_after(MS);
    assert!(
        (g / want - 1.0).abs() < 0.03,
        "goodput {g} vs rwnd/RTT {want}"
    );
    // cwnd stops growing when rwnd, not cwnd, limits (cwnd validation).
    assert!(
        h.s.stats().max_cwnd <= 20 * MSS,
        "max_cwnd {}",
        h.s.stats().max_cwnd
    );
}

/// cwnd bounds bytes in flight: right after an ACK, what is outstanding never exceeds cwnd
/// (no loss, so no recovery allowances).
#[test]
fn cwnd_limits_bytes_in_flight() {
    let cfg = TcpConfig {
        cc: CcKind::NewReno,
        ..Default::default()
    };
    let mut h = Harness::new(
        cfg,
        3_000 * MSS,
        PathCfg::new(20 * US, Some(Rate::gbps(10))),
    );
    assert!(h.run(SEC_LIMIT));
    assert!(h
        .acks
        .iter()
        .all(|a| a.in_flight <= a.cwnd && a.nxt - a.una <= a.cwnd));
    // And the window is actually used: at some point in flight == cwnd.
    assert!(h
        .acks
        .iter()
        .any(|a| a.in_flight == a.cwnd && a.cwnd > 10 * MSS));
}

/// RFC 5681 congestion avoidance with byte counting: after a loss, each cwnd increase of
/// one MSS comes after (about) one cwnd of bytes acknowledged.
#[test]
fn congestion_avoidance_one_mss_per_window() {
    let cfg = TcpConfig {
        cc: CcKind::NewReno,
        rwnd_bytes: 100_000_000,
        ..Default::default()
    };
    let mut h = Harness::new(
        cfg,
        6_000 * MSS,
        PathCfg::new(20 * US, Some(Rate::gbps(10))),
    )
    .drop_list(&[(100, 0)]);
    assert!(h.run(SEC_LIMIT));
    assert_eq!(h.s.stats().fast_retx, 1);
    let exit = h.acks.iter().position(|a| a.in_fr).unwrap();
    let exit = exit + h.acks[exit..].iter().position(|a| !a.in_fr).unwrap();
    let ca = &h.acks[exit..];
    assert!(ca[0].cwnd < ca[0].ssthresh + MSS && ca[0].cwnd >= ca[0].ssthresh);
    let mut incs = vec![];
    for w in ca.windows(2) {
        assert!(w[1].cwnd >= w[0].cwnd);
        if w[1].cwnd > w[0].cwnd {
            assert_eq!(w[1].cwnd - w[0].cwnd, MSS, "CA grows by exactly one MSS");
            incs.push((w[1].una, w[0].cwnd));
        }
    }
    assert!(incs.len() > 20);
    for p in incs.windows(2) {
        let acked = p[1].0 - p[0].0;
        let cwnd = p[1].1;
        assert!(
            acked.abs_diff(cwnd) <= MSS,
            "acked {acked} between increments, cwnd {cwnd}"
        );
    }
}

/// Without delayed ACKs every segment is ACKed; with them (count 2) about half as many
/// ACKs are sent, and the flow still completes at line rate.
#[test]
fn ack_every_segment_or_every_second() {
    let n = 1000u64;
    let mut h = Harness::new(
        TcpConfig::default(),
        n * MSS,
        PathCfg::new(10 * US, Some(Rate::gbps(10))),
    );
    assert!(h.run(SEC_LIMIT));
    assert_eq!(h.n_acks_sent, n);
    let cfg = TcpConfig {
        delayed_ack: true,
        ..Default::default()
    };
    let mut h = Harness::new(cfg, n * MSS, PathCfg::new(10 * US, Some(Rate::gbps(10))));
    assert!(h.run(SEC_LIMIT));
    assert!(
        h.n_acks_sent >= n / 2 && h.n_acks_sent <= n / 2 + 20,
        "{} acks",
        h.n_acks_sent
    );
}

/// The delayed-ACK timer bounds the delay of a lone segment: IW = 1 and a 2-segment flow
/// means the first segment waits for the timer (1 ms) before it is ACKed.
#[test]
fn delayed_ack_timer_fires_for_lone_segment() {
    let cfg = TcpConfig {
        delayed_ack: true,
        init_cwnd_pkts: 1,
        ..Default::default()
    };
    let d = 10 * US;
    let mut h = Harness::new(cfg, 2 * MSS, PathCfg::new(d, None));
    assert!(h.run(SEC_LIMIT));
    assert_eq!(h.acks[0].t, d + MS + d);
    // The second (last) segment is ACKed at once.
    assert_eq!(h.done_at, Some(d + MS + d + 2 * d));
}

/// Timestamps let a retransmitted segment's ACK produce an RTT sample; without them Karn's
/// rule forbids it.
#[test]
fn karn_rule_without_timestamps() {
    let d = 100 * US;
    for ts in [true, false] {
        let cfg = TcpConfig {
            timestamps: ts,
            rto_init: MS,
            ..Default::default()
        };
        let mut h = Harness::new(cfg, MSS, PathCfg::new(d, None)).drop_list(&[(0, 0)]);
        assert!(h.run(SEC_LIMIT));
        assert_eq!(h.s.stats().rto_count, 1);
        if ts {
            assert_eq!(h.s.srtt(), Some(2 * d));
        } else {
            assert_eq!(h.s.srtt(), None);
        }
    }
    // Without timestamps, a never-retransmitted segment is timed normally.
    let cfg = TcpConfig {
        timestamps: false,
        ..Default::default()
    };
    let mut h = Harness::new(cfg, 50 * MSS, PathCfg::new(d, None));
    assert!(h.run(SEC_LIMIT));
    assert_eq!(h.s.srtt(), Some(2 * d));
}

/// Reordering by less than the dupack threshold does not trigger a retransmission.
#[test]
fn mild_reordering_is_tolerated() {
    let cfg = TcpConfig::default();
    let d = 20 * US;
    let mut h =
        Harness::new(cfg, 300 * MSS, PathCfg::new(d, Some(Rate::gbps(10)))).with_rule(|s, _, _| {
            if s.seq == 40 * MSS {
                Verdict::Delay(2_500_000)
            } else {
                Verdict::Pass
            }
        });
    assert!(h.run(SEC_LIMIT));
    assert_eq!(h.s.stats().retx_pkts, 0);
}
