//! Property tests with `dcnsim_engine::Rng` (no external crates): random configurations,
//! random paths (drops, CE marks, reordering, ACK loss, early timer pokes), and raw garbage
//! fed straight into the endpoints.
//!
//! Properties: no panic; cwnd >= 1 MSS; bytes in flight <= cwnd + recovery allowance after
//! any window-checked transmission and <= rwnd; snd_una <= snd_nxt <= flow and
//! snd_nxt − snd_una <= rwnd (checked by the harness after every sender call); the flow
//! completes once the path stops misbehaving.

mod harness;
use dcnsim_engine::{Rate, Rng, Time, MS, SEC, US};
use dcnsim_transport::{
    Ack, CcKind, HyStartMode, RtoMode, RxSegment, Segment, SlowStartIncrease, SsthreshBasis,
    TcpConfig, TcpReceiver, TcpSender, TltClocking, TltMark,
};
use harness::{Harness, PathCfg, Verdict};

fn random_cfg(rng: &mut Rng) -> TcpConfig {
    let mss = [100u32, 536, 1460][rng.below(3) as usize];
    let cc = [
        CcKind::NewReno,
        CcKind::Cubic,
        CcKind::Dctcp,
        CcKind::Ledbat,
        CcKind::TcpLp,
    ][rng.below(5) as usize];
    let cfg = TcpConfig {
        mss,
        init_cwnd_pkts: 1 + rng.below(10) as u32,
        rwnd_bytes: mss as u64 * (1 + rng.below(60)),
        sack: rng.chance(0.5),
        dupack_thresh: 1 + rng.below(4) as u32,
        cc,
        ecn: cc == CcKind::Dctcp || rng.chance(0.5),
        dctcp_g: [1.0 / 16.0, 1.0 / 256.0, 1.0][rng.below(3) as usize],
        dctcp_alpha_init: rng.f64(),
        cubic_c: 0.1 + rng.f64(),
        cubic_beta: 0.3 + 0.6 * rng.f64(),
        cubic_fast_convergence: rng.chance(0.5),
        cubic_tcp_friendly: rng.chance(0.5),
        rto_mode: match rng.below(3) {
            0 => RtoMode::Rfc6298,
            1 => RtoMode::Linux,
            _ => RtoMode::Static((50 + rng.below(2000)) * US),
        },
        rto_min: (20 + rng.below(1000)) * US,
        rto_max: 20 * MS,
        rto_init: (100 + rng.below(5000)) * US,
        clock_granularity: rng.below(10) * US,
        delayed_ack: rng.chance(0.5),
        delack_count: 1 + rng.below(3) as u32,
        delack_timeout: (10 + rng.below(1000)) * US,
        timestamps: rng.chance(0.7),
        ledbat_target: (1 + rng.below(3000)) * US,
        ledbat_gain: 0.05 + 0.95 * rng.f64(),
        ledbat_base_window: rng.chance(0.5).then(|| (1 + rng.below(20)) * MS),
        tcplp_delta: 0.01 + 0.9 * rng.f64(),
        tcplp_gamma: [1.0 / 8.0, 1.0 / 64.0, 1.0][rng.below(3) as usize],
        tcplp_itt_rtts: 1.0 + 5.0 * rng.f64(),
        tcplp_gate: rng.chance(0.5),
        ..TcpConfig::default()
    };
    // The optional mechanisms of real stacks, in random combinations.
    let mut cfg = cfg;
    cfg.ss_increase = [
        SlowStartIncrease::Abc { l: 0 },
        SlowStartIncrease::Abc { l: 1 },
        SlowStartIncrease::Abc { l: 2 },
        SlowStartIncrease::PerAck,
    ][rng.below(4) as usize];
    cfg.ssthresh_basis = [
        SsthreshBasis::FlightSize,
        SsthreshBasis::Pipe,
        SsthreshBasis::Cwnd,
    ][rng.below(3) as usize];
    cfg.hystart =
        [HyStartMode::Off, HyStartMode::Linux, HyStartMode::Rfc9406][rng.below(3) as usize];
    cfg.hystart_low_window = 1 + rng.below(20) as u32;
    cfg.hystart_delay_min = rng.below(100) * US;
    cfg.hystart_delay_max = cfg.hystart_delay_min + rng.below(100) * US;
    cfg.init_ssthresh = rng.chance(0.3).then(|| mss as u64 * (2 + rng.below(30)));
    cfg.prr = rng.chance(0.5);
    cfg.rack = cfg.sack && rng.chance(0.5);
    cfg.tlp = cfg.sack && rng.chance(0.5);
    cfg.pto_min = (1 + rng.below(500)) * US;
    cfg.tlp_max_ack_delay = rng.chance(0.5).then(|| rng.below(1000) * US);
    cfg.frto = rng.chance(0.5);
    cfg.undo = rng.chance(0.5);
    cfg.dsack = rng.chance(0.5);
    cfg.quickack = rng.chance(0.5);
    cfg.timer_tick = if rng.chance(0.3) {
        (1 + rng.below(500)) * US
    } else {
        0
    };
    cfg.validate().unwrap();
    cfg
}

/// TLT on (any clocking rule) for about two thirds of the draws.
fn random_tlt(rng: &mut Rng, cfg: &mut TcpConfig) {
    cfg.tlt = match rng.below(6) {
        0 | 1 => None,
        2 | 3 => Some(TltClocking::Adaptive),
        4 => Some(TltClocking::Mtu),
        _ => Some(TltClocking::Byte),
    };
    if cfg.tlt.is_some() && rng.chance(0.5) {
        cfg.dupack_thresh = 1; // TLT §5
    }
}

/// ≥ 2000 random flows over random misbehaving paths; the harness checks the sender's
/// invariants after every call; after `t_stop` the path is clean and the flow must finish.
#[test]
fn random_paths_keep_invariants_and_complete() {
    let (drops, rtos, frs, cuts) = random_paths(0x05EE_D7C9, 2500, false);
    // The random paths must actually exercise every recovery path.
    assert!(drops > 10_000 && rtos > 1_000 && frs > 1_000 && cuts > 1_000);
}

/// The same with TLT in random combinations with every other mechanism (important packets
/// are dropped, delayed and reordered like any other: the sender must stay sound).
#[test]
fn random_paths_with_tlt_keep_invariants_and_complete() {
    let (drops, rtos, frs, _) = random_paths(0x7171_0005, 2500, true);
    assert!(drops > 10_000 && rtos > 500 && frs > 1_000);
}

/// Runs `cases` random flows; returns (drops, RTOs, fast retransmits, ECN cuts).
fn random_paths(seed: u64, cases: u64, tlt: bool) -> (u64, u64, u64, u64) {
    let mut master = Rng::new(seed);
    let (mut drops, mut rtos, mut frs, mut cuts, mut pkts) = (0, 0, 0, 0, 0);
    let (mut clocks, mut tlt_lost, mut dropped_echoes) = (0, 0, 0);
    for case in 0..cases {
        let mut rng = Rng::new(master.next_u64());
        #[allow(unused_mut)]
        let mut cfg = random_cfg(&mut rng);
        if tlt {
            random_tlt(&mut rng, &mut cfg);
        }
        let mss = cfg.mss as u64;
        let nseg = 1 + rng.below(120);
        let flow = nseg * mss - rng.below(mss);
        let delay = (1 + rng.below(50)) * US;
        let rate = [
            None,
            Some(Rate::gbps(1)),
            Some(Rate::gbps(10)),
            Some(Rate::gbps(100)),
        ][rng.below(4) as usize];
        let p_drop = rng.f64() * 0.3;
        let p_reorder = rng.f64() * 0.2;
        let p_mark = rng.f64() * 0.5;
        let p_ack_drop = rng.f64() * 0.2;
        let t_stop: Time = rng.below(5 * MS);
        let mut r1 = Rng::new(rng.next_u64());
        let mut r2 = Rng::new(rng.next_u64());
        let mut h = Harness::new(cfg.clone(), flow, PathCfg::new(delay, rate)).with_rule(
            move |_, _, now| {
                if now >= t_stop {
                    return Verdict::Pass;
                }
                let x = r1.f64();
                let mark = r1.chance(p_mark);
                if x < p_drop {
                    Verdict::Drop
                } else if x < p_drop + p_reorder {
                    let extra = r1.below(3 * delay + 1);
                    if mark {
                        Verdict::MarkDelay(extra)
                    } else {
                        Verdict::Delay(extra)
                    }
                } else if mark {
                    Verdict::Mark
                } else {
                    Verdict::Pass
                }
            },
        );
        h.ack_rule = Box::new(move |_: &Ack, now| now < t_stop && r2.chance(p_ack_drop));
        h.start();
        let deadline = t_stop + 5 * SEC;
        while !h.s.done() {
            assert!(
                h.now <= deadline,
                "case {case}: flow did not complete: {cfg:?} flow={flow} una {} nxt {} dl {:?} fr {} rto {} cwnd {} inflight {} now {} last sent {:?}",
                h.s.snd_una(), h.s.snd_nxt(), h.s.rto_deadline(), h.s.in_fast_recovery(), h.s.in_rto_recovery(), h.s.cwnd(), h.s.bytes_in_flight(), h.now, &h.sent[h.sent.len().saturating_sub(6)..]
            );
            if rng.chance(0.05) {
                h.poke_timers_early();
            }
            if !h.step() {
                break;
            }
        }
        assert!(
            h.s.done(),
            "case {case}: stalled with nothing scheduled: {cfg:?}"
        );
        assert!(h.r.complete());
        assert_eq!(h.s.snd_una(), flow);
        assert!(h.s.rto_deadline().is_none());
        assert!(h.s.stats().bytes_acked == flow);
        let st = h.s.stats();
        drops += h.drops;
        rtos += st.rto_count;
        frs += st.fast_retx;
        cuts += st.ecn_cuts;
        pkts += st.data_pkts;
        clocks += st.clock_pkts;
        tlt_lost += st.tlt_lost_segs;
        dropped_echoes += st.clock_echoes_dropped;
        if cfg.tlt.is_none() {
            assert_eq!(st.important_pkts + st.clock_pkts + st.tlt_lost_segs, 0);
        }
    }
    eprintln!("{cases} flows: {pkts} data packets, {drops} drops, {frs} fast retransmits, {rtos} RTOs, {cuts} ECN cuts");
    if tlt {
        eprintln!("TLT: {clocks} clock packets, {tlt_lost} segments found lost, {dropped_echoes} clock echoes dropped");
        assert!(clocks > 1_000 && tlt_lost > 1_000 && dropped_echoes > 100);
    }
    (drops, rtos, frs, cuts)
}

fn check_sender(s: &TcpSender, cfg: &TcpConfig, flow: u64, out: &[Segment], nxt_before: u64) {
    let mss = cfg.mss as u64;
    assert!(s.cwnd() >= mss);
    assert!(s.snd_una() <= s.snd_nxt() && s.snd_nxt() <= flow);
    assert!(s.snd_nxt() - s.snd_una() <= cfg.rwnd_bytes);
    if cfg.tlt.is_none() {
        assert!(s.bytes_in_flight() <= cfg.rwnd_bytes);
    } else {
        // Garbage echoes may trigger a clock segment on every ACK (on a real path it is
        // one per important packet) and undo the losses TLT found: only the structural
        // bound (each outstanding byte counted at most twice) holds.
        assert!(s.bytes_in_flight() <= 2 * (s.snd_nxt() - s.snd_una()));
    }
    for g in out {
        assert!(g.len > 0 && g.len as u64 <= mss, "{g:?} mss {mss}");
        if cfg.tlt.is_none() {
            assert_eq!(g.mark, TltMark::None);
        }
        assert!(g.seq + g.len as u64 <= flow);
        if g.retx.is_some() {
            assert!(g.seq < nxt_before);
        }
    }
    if let Some(a) = s.dctcp_alpha() {
        assert!((0.0..=1.0).contains(&a));
    }
}

/// Arbitrary ACKs (any cumulative number, any SACK blocks, ECE, TSecr) and timer calls at
/// arbitrary times: the sender never panics and its invariants hold.
#[test]
fn sender_survives_garbage_acks() {
    garbage_acks(0x0BAD_0AC5, false);
}

/// The same with TLT on and random echo marks on the ACKs.
#[test]
fn sender_with_tlt_survives_garbage_acks() {
    garbage_acks(0x7171_0BAD, true);
}

fn garbage_acks(seed: u64, tlt: bool) {
    let mut master = Rng::new(seed);
    for _ in 0..2000 {
        let mut rng = Rng::new(master.next_u64());
        #[allow(unused_mut)]
        let mut cfg = random_cfg(&mut rng);
        if tlt {
            random_tlt(&mut rng, &mut cfg);
        }
        let mss = cfg.mss as u64;
        let flow = 1 + rng.below(200 * mss);
        let mut s = TcpSender::new(&cfg, flow);
        let mut out = vec![];
        let mut now: Time = 0;
        s.start(now, &mut out);
        check_sender(&s, &cfg, flow, &out, 0);
        for _ in 0..200 {
            now += rng.below(200 * US);
            out.clear();
            let nxt = s.snd_nxt();
            if rng.chance(0.1) {
                let t = if rng.chance(0.5) {
                    s.rto_deadline().unwrap_or(now).max(now)
                } else {
                    now
                };
                now = t;
                s.on_timeout(now, &mut out);
            } else {
                let span = nxt + 3 * mss;
                let base = s.snd_una().saturating_sub(2 * mss);
                let mut a = Ack {
                    ack: base + rng.below(span - base + 1),
                    ece: rng.chance(0.3),
                    tsecr: rng.below(now + 2),
                    owd: rng.below(MS),
                    n_sack: rng.below(5) as u8,
                    ..Default::default()
                };
                for b in a.sack.iter_mut() {
                    let x = rng.below(span + 1);
                    *b = (x, x + rng.below(4 * mss));
                }
                if rng.chance(0.05) {
                    a.ack = u64::MAX - rng.below(10);
                    a.sack[0] = (u64::MAX - 5, u64::MAX);
                }
                if tlt {
                    a.mark = [TltMark::None, TltMark::Important, TltMark::ImportantClock]
                        [rng.below(3) as usize];
                }
                s.on_ack(now, &a, &mut out);
            }
            check_sender(&s, &cfg, flow, &out, nxt);
        }
    }
}

/// Arbitrary segments (any offset, length, CE, TSval) into the receiver: no panic,
/// monotone `rcv_nxt`, at most two ACKs per call, sane SACK blocks, bounded buffering.
#[test]
fn receiver_survives_garbage_segments() {
    garbage_segments(0x05E9_05E9, false);
}

/// The same with TLT on and random marks: every marked segment is ACKed at once with the
/// matching echo.
#[test]
fn receiver_with_tlt_survives_garbage_segments() {
    garbage_segments(0x7171_05E9, true);
}

fn garbage_segments(seed: u64, tlt: bool) {
    let mut master = Rng::new(seed);
    for _ in 0..2000 {
        let mut rng = Rng::new(master.next_u64());
        #[allow(unused_mut)]
        let mut cfg = random_cfg(&mut rng);
        if tlt {
            random_tlt(&mut rng, &mut cfg);
        }
        let mss = cfg.mss as u64;
        let flow = 1 + rng.below(100 * mss);
        let mut r = TcpReceiver::new(&cfg, flow);
        let mut out = vec![];
        let mut now: Time = 0;
        let mut last = 0;
        for _ in 0..300 {
            now += rng.below(100 * US);
            out.clear();
            if rng.chance(0.1) {
                let t = r.delack_deadline().unwrap_or(now).max(now);
                now = if rng.chance(0.5) { t } else { now };
                r.on_delack_timeout(now, &mut out);
            } else {
                let seq = if rng.chance(0.7) {
                    (r.rcv_nxt() / mss + rng.below(8)).saturating_sub(2) * mss
                } else {
                    rng.next_u64() >> rng.below(64)
                };
                let len = if rng.chance(0.8) {
                    mss as u32
                } else {
                    rng.below(3 * mss) as u32
                };
                let mut seg = RxSegment {
                    seq,
                    len,
                    ce: rng.chance(0.3),
                    tsval: rng.below(now + 1),
                    ..Default::default()
                };
                if tlt {
                    seg.mark = [TltMark::None, TltMark::Important, TltMark::ImportantClock]
                        [rng.below(3) as usize];
                }
                r.on_segment(now, &seg, rng.below(MS), &mut out);
                if cfg.tlt.is_some() && seg.mark != TltMark::None {
                    // TLT Alg. 1 SENDACK: the segment's own ACK, at once, with the echo.
                    let a = out.last().expect("important segment ACKed at once");
                    assert_eq!(a.mark, seg.mark);
                    assert!(out[..out.len() - 1].iter().all(|a| a.mark == TltMark::None));
                    assert!(r.delack_deadline().is_none());
                } else {
                    assert!(out.iter().all(|a| a.mark == TltMark::None));
                }
            }
            assert!(out.len() <= 2);
            assert!(r.rcv_nxt() >= last && r.rcv_nxt() <= flow);
            last = r.rcv_nxt();
            assert!(r.ooo_bytes() <= cfg.rwnd_bytes);
            // The last ACK is up to date unless a delayed ACK is pending (an RFC 8257 flip
            // ACK may precede a segment that is itself held back).
            if let (Some(a), None) = (out.last(), r.delack_deadline()) {
                assert_eq!(a.ack, r.rcv_nxt());
            }
            for a in &out {
                assert!(a.ack <= r.rcv_nxt());
                assert!(a.n_sack <= 3);
                if let Some((s, e)) = a.dsack_block() {
                    // RFC 2883: a duplicate, below the cumulative ACK or inside SACKed data.
                    assert!(s < e && e <= flow && (e <= a.ack || (r.has(s) && r.has(e - 1))));
                }
                for &(s, e) in a.sack_ranges() {
                    assert!(
                        s > a.ack && s < e && e <= flow,
                        "block {s}..{e} ack {}",
                        a.ack
                    );
                    assert!(r.has(s) && r.has(e - 1));
                }
            }
            if r.rcv_nxt() > 0 {
                assert!(r.has(r.rcv_nxt() - 1));
            }
            assert!(!r.has(r.rcv_nxt()) || r.rcv_nxt() == flow || r.ooo_bytes() > 0);
        }
    }
}

/// LEDBAT and TCP-LP driven directly with random operation sequences (ACKs with random
/// one-way delays including 0 = "no sample", losses, ECN echoes, timeouts, closed windows,
/// time jumps): no panic, cwnd >= 1 MSS, ssthresh >= 2 MSS after any reduction, and LEDBAT
/// never below MIN_CWND after a window-law update or loss.
#[test]
fn delay_based_ccs_random_operations_keep_bounds() {
    use dcnsim_transport::cc::{AnyCc, CcCtx, CongestionControl, OwdSample, Window};
    let mut master = Rng::new(0x001E_DBA7);
    for case in 0..3000 {
        let mut rng = Rng::new(master.next_u64());
        let mut cfg = random_cfg(&mut rng);
        cfg.cc = if case % 2 == 0 {
            CcKind::Ledbat
        } else {
            CcKind::TcpLp
        };
        let mss = cfg.mss as u64;
        let mut cc = AnyCc::new(&cfg);
        let mut w = Window {
            cwnd: mss * cfg.init_cwnd_pkts as u64,
            ssthresh: u64::MAX,
            mss,
        };
        let mut now: Time = 0;
        let mut srtt = None;
        let (mut una, mut nxt) = (0u64, 0u64);
        for _ in 0..400 {
            now += match rng.below(4) {
                0 => 0,
                1 => rng.below(10) * US,
                2 => rng.below(1000) * US,
                _ => rng.below(100) * MS,
            };
            if rng.chance(0.3) {
                srtt = Some((1 + rng.below(5000)) * US);
            }
            let ctx = CcCtx {
                now,
                flight_size: rng.below(w.cwnd * 2 + 1),
                srtt,
            };
            let op = rng.below(20);
            let mut reduced = false;
            match op {
                0 => {
                    cc.on_loss(&mut w, &ctx);
                    reduced = true;
                }
                1 => {
                    cc.on_ecn(&mut w, &ctx);
                    reduced = true;
                }
                2 => {
                    cc.on_rto(&mut w, &ctx, rng.chance(0.7));
                    reduced = true;
                }
                _ => {
                    let owd = match rng.below(5) {
                        0 => 0,
                        1 => rng.below(100) * US,
                        2 => u64::MAX / 2 + rng.below(1000),
                        _ => (1 + rng.below(5000)) * US,
                    };
                    let acked = rng.below(4) * mss;
                    let open = rng.chance(0.8);
                    let before = w;
                    una += rng.below(3) * mss;
                    nxt = nxt.max(una) + rng.below(3) * mss;
                    let smp = OwdSample {
                        owd,
                        acked,
                        snd_una: una,
                        snd_nxt: nxt,
                    };
                    if cc.on_owd(&mut w, &smp, &ctx, open) {
                        assert!(w.cwnd < before.cwnd || cfg.cc == CcKind::TcpLp);
                        reduced = true;
                    } else {
                        if !open {
                            assert_eq!(w, before, "closed window changed");
                        }
                        if open && acked > 0 {
                            cc.on_ack(&mut w, acked, &ctx);
                        }
                    }
                    if cfg.cc == CcKind::Ledbat
                        && open
                        && acked > 0
                        && w.cwnd != before.cwnd
                        && w.cwnd > mss
                    {
                        assert!(w.cwnd >= 2 * mss, "LEDBAT below MIN_CWND: {w:?}");
                    }
                }
            }
            assert!(w.cwnd >= mss, "case {case} op {op}: cwnd {} < mss", w.cwnd);
            if reduced {
                assert!(w.ssthresh >= 2 * mss, "case {case} op {op}: {w:?}");
            }
        }
    }
}
