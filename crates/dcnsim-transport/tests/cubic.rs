//! CUBIC end to end (RFC 9438): after one loss the window follows
//! W(t) = C·(t − K)³ + W_max with K = ∛(W_max·(1 − β)/C).

mod harness;
use dcnsim_engine::{to_secs, Rate, MS, SEC};
use dcnsim_transport::{CcKind, TcpConfig};
use harness::{Harness, PathCfg};

const MSS: u64 = 1460;

/// A 100 ms RTT path (so the cubic curve, not the Reno-friendly estimate, governs) with one
/// early loss. cwnd is sampled on ACKs at several times after the epoch start.
#[test]
fn cwnd_follows_cubic_curve_after_loss() {
    // rto_min = 200 ms (Linux): on this WAN-like path the queue grows smoothly during slow
    // start, RTTVAR stays tiny, and with a 1 ms floor RFC 6298 would time out while the
    // fast retransmission waits behind that queue.
    let cfg = TcpConfig {
        cc: CcKind::Cubic,
        rwnd_bytes: 400_000_000,
        rto_min: 200 * MS,
        ..Default::default()
    };
    let c = cfg.cubic_c;
    let beta = cfg.cubic_beta;
    let rtt = 100 * MS;
    let mut h = Harness::new(
        cfg,
        200_000 * MSS,
        PathCfg::new(rtt / 2, Some(Rate::gbps(1))),
    )
    .drop_list(&[(300, 0)]);
    h.run(12 * SEC);
    assert_eq!(h.s.stats().fast_retx, 1);
    assert_eq!(h.s.stats().rto_count, 0);

    let i = h.acks.iter().position(|a| a.in_fr).unwrap();
    let w_max = h.acks[i - 1].cwnd as f64 / MSS as f64; // window at the loss (no fast convergence on the first loss)
    let cubic = h.s.cc().as_cubic().unwrap();
    assert!(
        (cubic.w_max() - w_max).abs() < 1e-9,
        "W_max {} vs {}",
        cubic.w_max(),
        w_max
    );
    // After the reduction cwnd = ssthresh = β·W_max; the epoch starts there, so
    // K = ∛((W_max − β·W_max)/C) = ∛(W_max (1 − β)/C).
    let ss = h.acks[i].ssthresh as f64 / MSS as f64;
    assert!((ss - beta * w_max).abs() < 1.0 / MSS as f64 + 1e-9);
    let k_formula = (w_max * (1.0 - beta) / c).cbrt();
    assert!(
        (cubic.k() - k_formula).abs() < 1e-3,
        "K {} vs {}",
        cubic.k(),
        k_formula
    );
    assert!(
        cubic.k() > 5.0,
        "K = {} s: the test should span the concave and convex regions",
        cubic.k()
    );

    let epoch = cubic.epoch_start().unwrap();
    let k = cubic.k();
    let w = |t: f64| c * (t - k).powi(3) + w_max;
    let mut checked = 0;
    for t in [0.5, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0] {
        let at = epoch + (t * SEC as f64) as u64;
        let Some(s) = h.acks.iter().find(|a| a.t >= at) else {
            continue;
        };
        let got = s.cwnd as f64 / MSS as f64;
        let ts = to_secs(s.t - epoch);
        let want = w(ts);
        // Tolerance: cwnd chases W(t + RTT) once per RTT, so allow one RTT of curve growth
        // plus 2 % and 2 segments.
        let tol = (w(ts + to_secs(rtt)) - want).abs() + 0.02 * want + 2.0;
        assert!(
            (got - want).abs() <= tol,
            "t={ts:.2}s cwnd={got:.1} W(t)={want:.1} tol={tol:.1}"
        );
        checked += 1;
    }
    assert!(checked >= 9);
    // The window passed the plateau: convex growth beyond W_max at the end.
    assert!(h.acks.last().unwrap().cwnd as f64 / MSS as f64 > w_max);
}
