//! D2TCP (Vamanan et al. 2012 §3.1; spec §4.3) and L2DCT (Munir et al. 2013; spec §4.4 with
//! PIAS-NS2's constants) at the congestion-control interface: exact windows from the
//! formulas, with α fixed so only the mechanism under test differs.
//!
//! Each assertion fails if the mechanism is removed: D2TCP without the α^d penalty cuts by
//! α/2 whatever the deadline; L2DCT without weights grows by one segment and cuts by α/2
//! whatever the flow has sent.

use dcnsim_engine::{MS, US};
use dcnsim_transport::cc::{CcCtx, CongestionControl, D2tcp, Dctcp, L2dct, Window};
use dcnsim_transport::{CcKind, TcpConfig, TcpSender};

const MSS: u64 = 1460;

fn cfg(cc: CcKind) -> TcpConfig {
    TcpConfig {
        cc,
        ecn: true,
        mss: MSS as u32,
        ..TcpConfig::default()
    }
}

fn win(pkts: u64) -> Window {
    Window {
        cwnd: pkts * MSS,
        ssthresh: pkts * MSS, // congestion avoidance
        mss: MSS,
    }
}

fn ctx(now: u64, srtt: u64) -> CcCtx {
    CcCtx {
        now,
        flight_size: 0,
        srtt: Some(srtt),
    }
}

/// A D2TCP sender state for a 10 MB flow with `deadline` (absolute), nothing acked yet,
/// α = 0.25.
fn d2tcp(deadline: Option<u64>) -> D2tcp {
    let mut d = D2tcp::new(&cfg(CcKind::D2tcp));
    d.on_flow(10_000_000, deadline);
    d.on_delivered(MSS, false, 0, 100 * MSS);
    d.set_alpha(0.25);
    d
}

#[test]
fn d2tcp_near_deadline_backs_off_less_than_far_deadline() {
    let now = 10 * MS;
    let srtt = 100 * US;
    // cwnd 100 segments = 146,000 B; B = 10 MB: T_c = 10e6 / (0.75·146,000) RTTs ≈ 91.3
    // RTTs ≈ 9.13 ms. Deadline 1 ms away: d ≈ 9.1 → clamped to 2 (D2TCP §3.1.2).
    let mut near = d2tcp(Some(now + MS));
    let mut w = win(100);
    near.on_ecn(&mut w, &ctx(now, srtt));
    assert_eq!(near.last_d(), 2.0);
    // p = 0.25² = 0.0625; cwnd·(1 − p/2) = 146,000 − 4,562 = 141,438.
    assert_eq!(w.cwnd, 141_438);
    let near_cwnd = w.cwnd;

    // Deadline 1 s away: d ≈ 0.009 → clamped to 0.5; p = 0.25^0.5 = 0.5;
    // cwnd·(1 − 0.25) = 109,500.
    let mut far = d2tcp(Some(now + 1000 * MS));
    let mut w = win(100);
    far.on_ecn(&mut w, &ctx(now, srtt));
    assert_eq!(far.last_d(), 0.5);
    assert_eq!(w.cwnd, 109_500);
    assert!(near_cwnd > w.cwnd);
}

#[test]
fn d2tcp_unclamped_imminence_follows_the_formula() {
    let now = 10 * MS;
    let srtt = 100 * US;
    // T_c = 10e6 / (0.75·146,000)·100 µs = 9.1324 ms; D = 7 ms → d = 1.3046.
    let mut d = d2tcp(Some(now + 7 * MS));
    let mut w = win(100);
    d.on_ecn(&mut w, &ctx(now, srtt));
    let tc = 10_000_000.0 / (0.75 * 146_000.0) * 100e3; // ns
    let want_d = tc / 7e6;
    assert!((d.last_d() - want_d).abs() < 1e-12, "d = {}", d.last_d());
    assert!(want_d > 1.0 && want_d < 2.0);
    let p = 0.25f64.powf(want_d);
    let want = 146_000 - (146_000.0 * p / 2.0) as u64;
    assert_eq!(w.cwnd, want);
    // Bytes acknowledged shrink B and hence d: with 9 MB acked d drops to 0.5 (clamp).
    d.on_delivered(MSS, false, 9_000_000, 9_100_000);
    d.set_alpha(0.25);
    assert_eq!(d.imminence(now, 146_000, Some(srtt)), 0.5);
    // A passed deadline is the most imminent case.
    assert_eq!(d.imminence(now + 8 * MS, 146_000, Some(srtt)), 2.0);
}

#[test]
fn d2tcp_without_deadline_is_dctcp_exactly() {
    let mut d = d2tcp(None);
    let mut dc = Dctcp::new(&cfg(CcKind::Dctcp));
    dc.set_alpha(0.25);
    for pkts in [3u64, 10, 37, 100, 1000] {
        let (mut a, mut b) = (win(pkts), win(pkts));
        d.on_ecn(&mut a, &ctx(MS, 100 * US));
        dc.on_ecn(&mut b, &ctx(MS, 100 * US));
        assert_eq!(a, b, "{pkts} segments");
        assert_eq!(d.last_d(), 1.0);
    }
    // 100 segments, α = 0.25: 146,000·(1 − 0.125) = 127,750.
    let mut a = win(100);
    d.on_ecn(&mut a, &ctx(MS, 100 * US));
    assert_eq!(a.cwnd, 127_750);
}

#[test]
fn d2tcp_deadline_reaches_the_cc_through_the_sender() {
    let s = TcpSender::new(&cfg(CcKind::D2tcp), 10_000_000).with_deadline(Some(MS));
    let d = s.cc().as_d2tcp().expect("d2tcp");
    // Deadline at 1 ms, asked at 2 ms: passed → d_max.
    assert_eq!(d.imminence(2 * MS, 146_000, Some(100 * US)), 2.0);
    let s = TcpSender::new(&cfg(CcKind::D2tcp), 10_000_000);
    let d = s.cc().as_d2tcp().expect("d2tcp");
    assert_eq!(d.imminence(2 * MS, 146_000, Some(100 * US)), 1.0);
}

#[test]
fn l2dct_weight_follows_the_thresholds() {
    let l = L2dct::new(&cfg(CcKind::L2dct));
    // Spec §4.4: w_max = 2.5 up to 200 KB, w_min = 0.125 from 1 MB, linear in between.
    assert_eq!(l.weight_for(0), 2.5);
    assert_eq!(l.weight_for(204_800), 2.5);
    assert_eq!(l.weight_for(1_048_576), 0.125);
    assert_eq!(l.weight_for(50_000_000), 0.125);
    // Midpoint 626,688 B: 2.5 − ½·2.375 = 1.3125.
    assert!((l.weight_for(626_688) - 1.3125).abs() < 1e-12);
    // Monotone non-increasing.
    let mut prev = f64::INFINITY;
    for s in (0..1_200_000).step_by(10_000) {
        let w = l.weight_for(s);
        assert!(w <= prev);
        prev = w;
    }
    // The sender's bytes sent drive it (snd_nxt from every ACK).
    let mut l = L2dct::new(&cfg(CcKind::L2dct));
    l.on_delivered(MSS, false, 0, 626_688);
    assert!((l.weight() - 1.3125).abs() < 1e-12);
    l.on_delivered(MSS, false, 0, 100); // s never decreases
    assert_eq!(l.sent(), 626_688);
}

fn l2dct(sent: u64) -> L2dct {
    let mut l = L2dct::new(&cfg(CcKind::L2dct));
    l.set_sent(sent);
    l.set_alpha(0.25);
    l
}

#[test]
fn l2dct_young_flow_grows_faster_than_old_flow() {
    // One window of ACKs in congestion avoidance: + k·MSS with k = w_c / w_max.
    let mut young = l2dct(100_000); // w = 2.5, k = 1
    let mut old = l2dct(2_000_000); // w = 0.125, k = 0.05
    let (mut a, mut b) = (win(10), win(10));
    young.on_ack(&mut a, 10 * MSS, &ctx(0, 100 * US));
    old.on_ack(&mut b, 10 * MSS, &ctx(0, 100 * US));
    assert_eq!(a.cwnd, 10 * MSS + MSS); // +1,460 B
    assert_eq!(b.cwnd, 10 * MSS + 73); // +0.05·1,460 = 73 B
                                       // Middle weight 1.3125: k = 0.525, +766.5 B: 766 now, the half byte carried.
    let mut mid = l2dct(626_688);
    let mut c = win(10);
    mid.on_ack(&mut c, 10 * MSS, &ctx(0, 100 * US));
    assert_eq!(c.cwnd, 10 * MSS + 766);
    let acked = c.cwnd;
    mid.on_ack(&mut c, acked, &ctx(0, 100 * US));
    assert_eq!(c.cwnd, 10 * MSS + 766 + 767);
    // Slow start is unchanged (spec §4.4): the old flow below ssthresh grows by the bytes acked.
    let mut ss = Window {
        cwnd: 2 * MSS,
        ssthresh: 100 * MSS,
        mss: MSS,
    };
    old.on_ack(&mut ss, 2 * MSS, &ctx(0, 100 * US));
    assert_eq!(ss.cwnd, 4 * MSS);
}

#[test]
fn l2dct_young_flow_backs_off_less_than_old_flow() {
    let mut young = l2dct(100_000); // b = 0.25^2.5 = 0.03125
    let mut old = l2dct(2_000_000); // b = 0.25^0.125 = 2^-0.25 ≈ 0.8409
    let (mut a, mut b) = (win(100), win(100));
    young.on_ecn(&mut a, &ctx(0, 100 * US));
    old.on_ecn(&mut b, &ctx(0, 100 * US));
    // 146,000·(1 − 0.015625) = 143,718.75 → cut 2,281 → 143,719.
    assert_eq!(a.cwnd, 143_719);
    // 146,000·2^-0.25/2 = 61,385.44 → 84,615.
    assert_eq!(b.cwnd, 84_615);
    // DCTCP with the same α: 127,750, between the two.
    let mut dc = Dctcp::new(&cfg(CcKind::Dctcp));
    dc.set_alpha(0.25);
    let mut c = win(100);
    dc.on_ecn(&mut c, &ctx(0, 100 * US));
    assert!(a.cwnd > c.cwnd && c.cwnd > b.cwnd);
}

#[test]
fn dctcp_family_requires_ecn_and_keeps_ect() {
    for cc in [CcKind::D2tcp, CcKind::L2dct] {
        assert!(cc.is_dctcp_family());
        let c = TcpConfig {
            ecn: false,
            ..cfg(cc)
        };
        assert!(c.validate().unwrap_err().starts_with("ecn:"));
        let s = TcpSender::new(&cfg(cc), 1_000_000);
        assert!(s.dctcp_alpha().is_some(), "{cc:?} tracks α");
    }
}
