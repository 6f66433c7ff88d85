//! ECN: DCTCP's α estimator and window law (RFC 8257), the receiver's CE state machine
//! under delayed ACKs, and classic RFC 3168 reaction for NewReno/CUBIC.

mod harness;
use dcnsim_engine::{Rate, Time, MS, US};
use dcnsim_transport::{CcKind, TcpConfig};
use harness::{AckSample, Harness, PathCfg, Verdict};

const MSS: u64 = 1460;
const LIMIT: Time = 10_000 * MS;

fn dctcp(alpha0: f64, delayed_ack: bool) -> TcpConfig {
    TcpConfig {
        cc: CcKind::Dctcp,
        ecn: true,
        dctcp_alpha_init: alpha0,
        delayed_ack,
        ..Default::default()
    }
}

/// α0 followed by the distinct successive α values (α changes only at window ends).
fn alphas(alpha0: f64, acks: &[AckSample]) -> Vec<f64> {
    let mut v: Vec<f64> = vec![alpha0];
    for a in acks {
        let x = a.alpha.unwrap();
        if v.last() != Some(&x) {
            v.push(x);
        }
    }
    v
}

/// No marks: α decays as (1 − g)^n, one step per window of data.
#[test]
fn dctcp_alpha_decays_without_marks() {
    // A small rwnd keeps windows short so there are many of them.
    let cfg = TcpConfig {
        rwnd_bytes: 20 * MSS,
        ..dctcp(1.0, false)
    };
    let mut h = Harness::new(
        cfg,
        5_000 * MSS,
        PathCfg::new(10 * US, Some(Rate::gbps(10))),
    );
    assert!(h.run(LIMIT));
    let a = alphas(1.0, &h.acks);
    let g: f64 = 1.0 / 16.0;
    assert!(a.len() > 30, "only {} windows", a.len());
    for (n, x) in a.iter().enumerate().take(30) {
        assert!(
            (x - (1.0 - g).powi(n as i32)).abs() < 1e-12,
            "window {n}: α = {x}"
        );
    }
    // Updates happen once per window of data: each update's window ends only when every
    // byte outstanding at the previous update has been acknowledged.
    // (WindowEnd = snd_nxt before the updating ACK's own transmissions = the previous
    // sample's nxt.)
    let updates: Vec<(AckSample, AckSample)> = h
        .acks
        .windows(2)
        .filter(|w| w[1].alpha != w[0].alpha)
        .map(|w| (w[0], w[1]))
        .collect();
    assert!(updates.len() > 30);
    for w in updates.windows(2) {
        assert!(w[1].1.una >= w[0].0.nxt);
    }
    assert_eq!(h.s.stats().ecn_cuts, 0);
}

/// Every packet marked: α → 1 as 1 − (1 − g)^n from α0 = 0, and (with α0 = 1) the window
/// is cut by exactly α/2 = half, once per window of data.
#[test]
fn dctcp_all_marked_alpha_to_one_and_halving_per_window() {
    let mut h = Harness::new(
        dctcp(0.0, false),
        3_000 * MSS,
        PathCfg::new(10 * US, Some(Rate::gbps(10))),
    )
    .with_rule(|_, _, _| Verdict::Mark);
    assert!(h.run(LIMIT));
    let a = alphas(0.0, &h.acks);
    let g: f64 = 1.0 / 16.0;
    for (n, x) in a.iter().enumerate().take(60) {
        assert!((x - (1.0 - (1.0 - g).powi(n as i32))).abs() < 1e-12);
    }
    assert!(*a.last().unwrap() > 0.99);

    // α0 = 1: let the window grow unmarked, then mark everything.
    let start_marking = 400 * MSS;
    let mut h = Harness::new(
        dctcp(1.0, false),
        3_000 * MSS,
        PathCfg::new(10 * US, Some(Rate::gbps(10))),
    )
    .with_rule(move |s, _, _| {
        if s.seq >= start_marking {
            Verdict::Mark
        } else {
            Verdict::Pass
        }
    });
    assert!(h.run(LIMIT));
    let cuts: Vec<(AckSample, AckSample)> = h
        .acks
        .windows(2)
        .filter(|w| w[1].ecn_cuts > w[0].ecn_cuts)
        .map(|w| (w[0], w[1]))
        .collect();
    assert!(cuts.len() >= 5);
    for (b, a) in &cuts {
        let alpha = a.alpha.unwrap();
        let want = (b.cwnd - (b.cwnd as f64 * alpha / 2.0) as u64).max(2 * MSS);
        assert_eq!(a.cwnd, want);
        assert_eq!(a.ssthresh, want);
    }
    // α climbs back towards 1 while everything is marked.
    assert!(cuts[2..]
        .windows(2)
        .all(|w| w[1].1.alpha.unwrap() >= w[0].1.alpha.unwrap()));
    assert!(cuts.last().unwrap().1.alpha.unwrap() > 0.99);
    // The first cut hits a large window; between cuts cwnd grows by one MSS per cwnd of
    // bytes acked (the window right after a cut holds up to ~2 cwnd of data, hence ≤ 2
    // MSS), so with α ≈ 1 it halves window after window until the 2-MSS floor.
    assert!(cuts[0].0.cwnd > 40 * MSS);
    for w in cuts.windows(2) {
        assert!(
            w[1].0.cwnd <= w[0].1.cwnd + 2 * MSS,
            "{:?} -> {:?}",
            w[0],
            w[1]
        );
    }
    // Once per window: the next cut only after everything outstanding at the previous
    // cut has been acknowledged.
    for w in cuts.windows(2) {
        assert!(w[1].1.una >= w[0].0.nxt, "cut before a window had passed");
    }
    assert_eq!(h.s.stats().retx_pkts, 0);
}

/// Marking a fraction F of the packets drives α to F — also with delayed ACKs, thanks to
/// the receiver's RFC 8257 §3.2 state machine (a naive "ECE = CE of the last segment"
/// receiver would report 0.5 here, since every other ACK would cover a marked segment).
#[test]
fn dctcp_alpha_converges_to_marked_fraction() {
    for delayed in [false, true] {
        let mut n = 0u64;
        let mut h = Harness::new(
            dctcp(1.0, delayed),
            20_000 * MSS,
            PathCfg::new(10 * US, Some(Rate::gbps(10))),
        )
        .with_rule(move |s, _, _| {
            if s.retx.is_some() {
                return Verdict::Pass;
            }
            n += 1;
            if n.is_multiple_of(4) {
                Verdict::Mark
            } else {
                Verdict::Pass
            }
        });
        assert!(h.run(LIMIT));
        let a = alphas(1.0, &h.acks);
        let tail = &a[a.len() / 2..];
        let mean = tail.iter().sum::<f64>() / tail.len() as f64;
        assert!(
            (mean - 0.25).abs() < 0.03,
            "delayed={delayed}: mean α {mean}"
        );
        assert!(tail.iter().all(|x| (x - 0.25).abs() < 0.1));
    }
}

/// Classic ECN (NewReno/CUBIC with `ecn`): marks in one window cause one reduction as on
/// loss, no retransmission; marks in a later window cause another. ECE ACKs do not grow
/// cwnd. Without `ecn` the marks are ignored.
#[test]
fn classic_ecn_reduces_once_per_window() {
    for cc in [CcKind::NewReno, CcKind::Cubic] {
        let cfg = TcpConfig {
            cc,
            ecn: true,
            ..Default::default()
        };
        let mut h = Harness::new(
            cfg,
            2_000 * MSS,
            PathCfg::new(10 * US, Some(Rate::gbps(10))),
        )
        .with_rule(|s, _, _| {
            let i = s.seq / MSS;
            if (100..106).contains(&i) || (1500..1502).contains(&i) {
                Verdict::Mark
            } else {
                Verdict::Pass
            }
        });
        assert!(h.run(LIMIT));
        let st = h.s.stats();
        assert_eq!(
            (st.ecn_cuts, st.fast_retx, st.retx_pkts),
            (2, 0, 0),
            "{cc:?}"
        );
        assert!(st.ecn_echoes >= 8);
        let i = h
            .acks
            .windows(2)
            .position(|w| w[1].ecn_cuts > w[0].ecn_cuts)
            .unwrap();
        let (b, a) = (h.acks[i], h.acks[i + 1]);
        let want = match cc {
            CcKind::NewReno => ((b.nxt - a.una) / 2).max(2 * MSS),
            _ => (b.cwnd as f64 * 0.7) as u64,
        };
        assert_eq!(a.cwnd, want, "{cc:?}");
        // ECE ACKs in the same window: no further cut and no growth.
        for w in h.acks[i + 1..].windows(2).take_while(|w| w[1].ece) {
            assert_eq!(w[1].cwnd, w[0].cwnd);
        }
        assert!(h.sent.iter().all(|(_, g)| g.ect));

        let cfg = TcpConfig {
            cc,
            ecn: false,
            ..Default::default()
        };
        let mut h = Harness::new(
            cfg,
            2_000 * MSS,
            PathCfg::new(10 * US, Some(Rate::gbps(10))),
        )
        .with_rule(|_, _, _| Verdict::Mark);
        assert!(h.run(LIMIT));
        assert_eq!((h.s.stats().ecn_cuts, h.s.stats().ecn_echoes), (0, 0));
        assert!(h.sent.iter().all(|(_, g)| !g.ect));
    }
}
