//! TLT for window-based TCP (Lim et al., EuroSys 2021, §5.1, Fig. 3, Alg. 1, Appendix A) in
//! the sans-IO harness, on and off. Drop rules spare important packets unless a test says
//! otherwise: colour-aware dropping never drops them (§4), which is what TLT relies on.

mod harness;
use dcnsim_engine::{Rate, Time, MS, US};
use dcnsim_transport::{
    CcKind, RetxCause, RxSegment, TcpConfig, TcpReceiver, TcpSender, TltClocking, TltMark,
};
use harness::{Harness, PathCfg, Verdict};

const LIMIT: Time = 10_000 * MS;
const RTO: Time = 10 * MS;

fn cfg(tlt: Option<TltClocking>) -> TcpConfig {
    TcpConfig {
        cc: CcKind::NewReno,
        tlt,
        rto_min: RTO,
        rto_init: RTO,
        ..Default::default()
    }
}

/// Drops the listed (segment index, transmission index) pairs, never an important packet.
fn drop_unimportant(h: Harness, mss: u64, list: &[(u64, u32)]) -> Harness {
    let list = list.to_vec();
    h.with_rule(move |g, k, _| {
        if g.mark == TltMark::None && list.contains(&(g.seq / mss, k)) {
            Verdict::Drop
        } else {
            Verdict::Pass
        }
    })
}

/// TLT §5.1: "the sender marks the last packet in the initial window as Important Data".
#[test]
fn last_segment_of_the_initial_window_is_important() {
    let mss = 1460;
    for (flow_segs, iw, last) in [(100u64, 10usize, 9usize), (3, 10, 2), (100, 1, 0)] {
        let c = TcpConfig {
            init_cwnd_pkts: iw as u32,
            ..cfg(Some(TltClocking::Adaptive))
        };
        let mut s = TcpSender::new(&c, flow_segs * mss);
        let mut out = vec![];
        s.start(0, &mut out);
        assert_eq!(out.len(), last + 1);
        for (i, g) in out.iter().enumerate() {
            let want = if i == last {
                TltMark::Important
            } else {
                TltMark::None
            };
            assert_eq!(g.mark, want, "segment {i} of IW {iw}");
        }
        assert_eq!(s.stats().important_pkts, 1);
        assert_eq!(s.stats().important_bytes, mss);
    }
    // Off: nothing is marked.
    let mut s = TcpSender::new(&cfg(None), 100 * mss);
    let mut out = vec![];
    s.start(0, &mut out);
    assert!(out.iter().all(|g| g.mark == TltMark::None));
    assert_eq!(s.stats().important_pkts, 0);
}

/// TLT §5.1 / Alg. 1 RECEIVEDATA, SENDACK: Important (Clock) Data is ACKed at once even with
/// delayed ACKs, and that ACK — not an RFC 8257 flip ACK for earlier segments — carries the
/// echo mark. With TLT off the marks are ignored.
#[test]
fn receiver_echoes_important_segments_at_once() {
    let mss = 1000u32;
    let seg = |i: u64, mark: TltMark, ce: bool| RxSegment {
        seq: i * mss as u64,
        len: mss,
        ce,
        tsval: 0,
        mark,
    };
    let rcfg = |tlt| TcpConfig {
        mss,
        delayed_ack: true,
        delack_count: 4,
        ecn: true,
        tlt,
        ..Default::default()
    };
    let mut r = TcpReceiver::new(&rcfg(Some(TltClocking::Adaptive)), 100 * mss as u64);
    let mut out = vec![];
    r.on_segment(0, &seg(0, TltMark::None, false), 0, &mut out);
    assert!(out.is_empty()); // delayed
    r.on_segment(1, &seg(1, TltMark::Important, false), 0, &mut out);
    assert_eq!(out.len(), 1);
    assert_eq!((out[0].ack, out[0].mark), (2000, TltMark::Important));
    assert!(r.delack_deadline().is_none());
    r.on_segment(2, &seg(2, TltMark::None, false), 0, &mut out);
    assert_eq!(out.len(), 1); // delayed again: the echo state was consumed
    r.on_segment(3, &seg(3, TltMark::ImportantClock, false), 0, &mut out);
    assert_eq!((out[1].ack, out[1].mark), (4000, TltMark::ImportantClock));
    // A CE flip with a delayed ACK pending: the flip ACK (old ECE, earlier segment) is
    // unmarked, the important segment's own ACK carries the echo.
    r.on_segment(4, &seg(4, TltMark::None, false), 0, &mut out);
    r.on_segment(5, &seg(5, TltMark::Important, true), 0, &mut out);
    assert_eq!(out.len(), 4);
    assert_eq!(
        (out[2].ack, out[2].ece, out[2].mark),
        (5000, false, TltMark::None)
    );
    assert_eq!(
        (out[3].ack, out[3].ece, out[3].mark),
        (6000, true, TltMark::Important)
    );
    // Out of order and duplicate important segments are echoed too.
    r.on_segment(6, &seg(8, TltMark::Important, false), 0, &mut out);
    assert_eq!((out[4].ack, out[4].mark), (6000, TltMark::Important));
    r.on_segment(7, &seg(1, TltMark::ImportantClock, false), 0, &mut out);
    assert_eq!((out[5].ack, out[5].mark), (6000, TltMark::ImportantClock));

    // TLT off: an important-marked segment is an ordinary one.
    let mut r = TcpReceiver::new(&rcfg(None), 100 * mss as u64);
    let mut out = vec![];
    r.on_segment(0, &seg(0, TltMark::None, false), 0, &mut out);
    r.on_segment(1, &seg(1, TltMark::Important, false), 0, &mut out);
    assert!(out.is_empty());
}

/// Counts important data segments in flight (sent, echo not yet received) over a run, from
/// time `from` on. Returns the maximum and whether exactly one was in flight whenever data
/// was outstanding.
fn important_in_flight(h: &Harness, from: Time) -> (i64, bool) {
    // (time, order, delta): at equal times ACKs (echoes) are processed before the sends
    // they trigger.
    let mut ev: Vec<(Time, u8, i64, Option<bool>)> = vec![];
    for (t, g) in h.sent.iter().filter(|(t, _)| *t >= from) {
        ev.push((*t, 1, (g.mark != TltMark::None) as i64, None));
    }
    for a in h.acks.iter().filter(|a| a.t >= from) {
        let outstanding = a.una < h.flow;
        ev.push((
            a.t,
            0,
            -((a.mark != TltMark::None) as i64),
            Some(outstanding),
        ));
    }
    ev.sort_by_key(|e| (e.0, e.1));
    let (mut n, mut max, mut exactly_one) = (0i64, 0i64, true);
    let mut i = 0;
    while i < ev.len() {
        let t = ev[i].0;
        let mut outstanding = None;
        while i < ev.len() && ev[i].0 == t {
            n += ev[i].2;
            outstanding = ev[i].3.or(outstanding);
            i += 1;
        }
        assert!(n >= 0, "more echoes than important packets");
        max = max.max(n);
        if outstanding == Some(true) && n != 1 {
            exactly_one = false;
        }
    }
    (max, exactly_one)
}

/// TLT §5.1: "This ensures there is always one in-flight important packet" — exactly one,
/// on a lossless run with and without delayed ACKs; the important fraction stays small;
/// nothing is retransmitted but the clock segments and nothing is found lost.
#[test]
fn exactly_one_important_packet_in_flight_on_a_lossless_run() {
    for delayed_ack in [false, true] {
        let c = TcpConfig {
            delayed_ack,
            ..cfg(Some(TltClocking::Adaptive))
        };
        let path = PathCfg::new(10 * US, Some(Rate::gbps(10)));
        let mut h = Harness::new(c, 3000 * 1460, path);
        assert!(h.run(LIMIT));
        let st = h.s.stats().clone();
        let (max, exactly_one) = important_in_flight(&h, 0);
        assert_eq!(max, 1);
        assert!(exactly_one, "delayed_ack {delayed_ack}");
        let marked = h.sent.iter().filter(|(_, g)| g.mark != TltMark::None);
        assert_eq!(marked.count() as u64, st.important_pkts);
        let clocks = h
            .sent
            .iter()
            .filter(|(_, g)| g.mark == TltMark::ImportantClock);
        assert_eq!(clocks.count() as u64, st.clock_pkts);
        assert_eq!(st.retx_pkts, st.clock_pkts);
        assert_eq!((st.rto_count, st.fast_retx, st.tlt_lost_segs), (0, 0, 0));
        let frac = st.important_pkts as f64 / st.data_pkts as f64;
        eprintln!(
            "delayed_ack {delayed_ack}: {} of {} segments important ({:.2}%), {} clock",
            st.important_pkts,
            st.data_pkts,
            100.0 * frac,
            st.clock_pkts
        );
        assert!(frac < 0.02, "important fraction {frac}");
    }
}

/// Fig. 3a: a segment lost between two important packets is found lost when the later
/// Important Echo arrives — here a tail loss with only one SACKed segment above it, which
/// the DupThresh rule (3) cannot see — and fast recovery starts on that echo; without TLT
/// the same drop waits for the RTO. With and without SACK.
#[test]
fn fig3a_loss_between_important_packets_found_at_the_later_echo() {
    let mss = 1460;
    for sack in [true, false] {
        let run = |tlt| {
            let c = TcpConfig {
                init_cwnd_pkts: 4,
                sack,
                ..cfg(tlt)
            };
            let h = Harness::new(c, 12 * mss, PathCfg::new(10 * US, None));
            let mut h = drop_unimportant(h, mss, &[(9, 0)]);
            assert!(h.run(LIMIT));
            assert_eq!(h.drops, 1);
            h
        };
        let off = run(None);
        assert_eq!(off.s.stats().rto_count, 1, "sack {sack}");
        let on = run(Some(TltClocking::Adaptive));
        let st = on.s.stats();
        assert_eq!((st.rto_count, st.fast_retx, st.tlt_lost_segs), (0, 1, 1));
        // Recovery starts on the Important Echo whose cumulative ACK stops at the hole.
        let fr = on.acks.iter().find(|a| a.in_fr).unwrap();
        assert_eq!(
            (fr.mark, fr.ack),
            (TltMark::Important, 9 * mss),
            "sack {sack}"
        );
        // The important packet of that echo left after segment 9.
        let (i9, _) = on
            .sent
            .iter()
            .enumerate()
            .find(|(_, (_, g))| g.seq == 9 * mss)
            .unwrap();
        assert!(on.sent[i9 + 1..]
            .iter()
            .any(|(_, g)| g.mark == TltMark::Important && g.retx.is_none()));
        let retx: Vec<_> = on.retx().iter().map(|(_, g)| (g.seq, g.retx)).collect();
        assert_eq!(retx, vec![(9 * mss, Some(RetxCause::Fast))]);
        assert!(on.done_at.unwrap() < 100 * US);
    }
}

/// Fig. 3b: SACK, DupThresh 1, segment 1441–2880 (the second) lost and its fast
/// retransmission lost again. IW 4, not 3: with IW 3 the fast retransmission is triggered
/// by the Important Echo itself and is therefore Important Data, which colour-aware
/// dropping does not drop; with IW 4 an unimportant duplicate ACK triggers it first.
/// - TLT adaptive: the echo of the IW's important packet indicates the loss and finds no
///   window, so important ACK-clocking sends one MSS of lost data — the twice-lost segment
///   — and the flow completes without a timeout;
/// - `Mtu` does the same; `Byte` sends only its first byte, the rest follows one round
///   trip later (TLT's detection takes the lost retransmission out of the pipe, so the
///   window reopens: not the paper's 1440 round trips, where TCP keeps counting it);
/// - without TLT the same drops end in a retransmission timeout.
#[test]
fn fig3b_twice_lost_segment_recovered_by_adaptive_clocking() {
    let mss = 1440u64;
    let run_n = |tlt, iw, nseg| {
        let c = TcpConfig {
            mss: mss as u32,
            init_cwnd_pkts: iw,
            dupack_thresh: 1,
            sack: true,
            ..cfg(tlt)
        };
        let h = Harness::new(c, nseg * mss, PathCfg::new(10 * US, None));
        let mut h = drop_unimportant(h, mss, &[(1, 0), (1, 1)]);
        assert!(h.run(LIMIT));
        assert_eq!(h.drops, 2, "both transmissions of 1440..2880 dropped");
        h
    };
    let run = |tlt| run_n(tlt, 4, 6);
    let off = run(None);
    assert_eq!(off.s.stats().rto_count, 1);
    assert!(off.done_at.unwrap() > RTO);

    let rtt = 20 * US;
    let ad = run(Some(TltClocking::Adaptive));
    let st = ad.s.stats();
    assert_eq!((st.rto_count, st.fast_retx), (0, 1));
    assert_eq!((st.clock_pkts, st.clock_bytes), (1, mss));
    let clock: Vec<_> = ad
        .sent
        .iter()
        .filter(|(_, g)| g.mark == TltMark::ImportantClock)
        .map(|(_, g)| (g.seq, g.len as u64, g.retx))
        .collect();
    assert_eq!(clock, vec![(mss, mss, Some(RetxCause::Recovery))]);
    assert_eq!(ad.done_at, Some(2 * rtt));

    let mtu = run(Some(TltClocking::Mtu));
    assert_eq!(mtu.s.stats().clock_bytes, mss);
    assert_eq!((mtu.s.stats().rto_count, mtu.done_at), (0, Some(2 * rtt)));

    let byte = run(Some(TltClocking::Byte));
    let st = byte.s.stats();
    assert_eq!(st.rto_count, 0);
    assert!(st.clock_pkts >= 1 && st.clock_bytes == st.clock_pkts);
    assert!(byte
        .sent
        .iter()
        .filter(|(_, g)| g.mark == TltMark::ImportantClock)
        .all(|(_, g)| g.len == 1));
    // The 1-byte clock echo advances snd_una by one byte and is passed to TCP.
    assert!(byte
        .acks
        .iter()
        .any(|a| a.mark == TltMark::ImportantClock && a.ack == mss + 1 && a.una == mss + 1));
    assert!(byte.done_at.unwrap() > ad.done_at.unwrap());
    // The clock's echo shows the rest of the retransmission lost again (TLT §5.1); it
    // leaves the pipe and goes out as Important Data at once.
    assert_eq!(st.tlt_lost_segs, 1);
    assert_eq!(byte.done_at, Some(3 * rtt));
    // Window-limited (IW 5, more data): the rest still goes out with the window, not by
    // further 1-byte clocks, because the lost-again bytes have left the pipe.
    let byte = run_n(Some(TltClocking::Byte), 5, 20);
    assert_eq!(byte.s.stats().rto_count, 0);
    let rest = byte.sent.iter().find(|(_, g)| g.seq == mss + 1).unwrap().1;
    assert_eq!(
        (rest.len as u64, rest.retx, rest.mark),
        (mss - 1, Some(RetxCause::Recovery), TltMark::Important)
    );
}

/// TLT §5.1 loss detection for retransmissions: a fast retransmission sent before an
/// important packet and not (S)ACKed when that packet's echo arrives is lost again; it is
/// taken out of the pipe and retransmitted within the same recovery, as the next Important
/// Data (Alg. 1 l.18–22). IW 10, so the window is open when the echo arrives (no
/// clocking). Without TLT only the RTO repairs it.
#[test]
fn retransmission_lost_again_is_found_by_the_next_echo() {
    let mss = 1440u64;
    let run = |tlt| {
        let c = TcpConfig {
            mss: mss as u32,
            init_cwnd_pkts: 10,
            dupack_thresh: 1,
            ..cfg(tlt)
        };
        let h = Harness::new(c, 40 * mss, PathCfg::new(10 * US, None));
        let mut h = drop_unimportant(h, mss, &[(1, 0), (1, 1)]);
        assert!(h.run(LIMIT));
        assert_eq!(h.drops, 2);
        h
    };
    assert_eq!(run(None).s.stats().rto_count, 1);
    let on = run(Some(TltClocking::Adaptive));
    let st = on.s.stats();
    assert_eq!((st.rto_count, st.fast_retx, st.clock_pkts), (0, 1, 0));
    assert_eq!(st.tlt_lost_segs, 1);
    let retx: Vec<_> = on
        .retx()
        .iter()
        .map(|(_, g)| (g.seq, g.retx, g.mark))
        .collect();
    assert_eq!(
        retx,
        vec![
            (mss, Some(RetxCause::Fast), TltMark::None),
            (mss, Some(RetxCause::Recovery), TltMark::Important)
        ]
    );
}

/// Appendix A: data sent by important ACK-clocking may draw duplicate ACKs when nothing
/// was lost; an Important Clock Echo with an ACK number no larger than snd_una is dropped
/// at the TLT layer and never counts as a duplicate ACK. Lossless, no SACK, DupThresh 1,
/// classic ECN: an ECN cut leaves an Important Echo without a window, the 1-byte clock
/// segment duplicates snd_una, and its echo (ack == snd_una: the `<` of the printed l.13
/// would not drop it) must not start a fast recovery. The same ACKs stripped of their mark
/// do.
#[test]
fn appendix_a_duplicate_clock_echo_is_not_a_dupack() {
    let mss = 1460;
    let run = |strip: bool| {
        let c = TcpConfig {
            init_cwnd_pkts: 10,
            sack: false,
            dupack_thresh: 1,
            ecn: true,
            ..cfg(Some(TltClocking::Adaptive))
        };
        let path = PathCfg::new(10 * US, Some(Rate::gbps(10)));
        let mut h = Harness::new(c, 60 * mss, path).with_rule(move |g, _, _| {
            if (5..8).contains(&(g.seq / mss)) {
                Verdict::Mark
            } else {
                Verdict::Pass
            }
        });
        if strip {
            h.ack_edit = Box::new(|a| {
                if a.mark == TltMark::ImportantClock {
                    a.mark = TltMark::None;
                }
            });
        }
        assert!(h.run(LIMIT));
        assert_eq!(h.drops, 0);
        h
    };
    let on = run(false);
    let st = on.s.stats();
    assert!(st.clock_echoes_dropped > 0);
    assert_eq!((st.fast_retx, st.rto_count, st.tlt_lost_segs), (0, 0, 0));
    // Every clock segment was a 1-byte duplicate of snd_una.
    assert!(on
        .sent
        .iter()
        .filter(|(_, g)| g.mark == TltMark::ImportantClock)
        .all(|(_, g)| g.len == 1));
    let stripped = run(true);
    assert!(
        stripped.s.stats().fast_retx > 0,
        "the clock echoes were dupACKs"
    );
    assert_eq!(stripped.s.stats().clock_echoes_dropped, 0);
}

/// [choice] A duplicate clock echo is dropped before TCP, but a loss it reveals still
/// starts recovery and ACK-clocking still runs: here (SACK, DupThresh 3) the second-to-last
/// segment is lost, only one segment is SACKed above it, and the only ACK left to arrive is
/// the echo of a 1-byte clock sent at snd_una. Without TLT the loss waits for the RTO.
#[test]
fn loss_revealed_by_a_dropped_clock_echo_starts_recovery() {
    let mss = 1460;
    let run = |tlt| {
        let c = TcpConfig {
            init_cwnd_pkts: 10,
            ..cfg(tlt)
        };
        let h = Harness::new(c, 20 * mss, PathCfg::new(10 * US, None));
        let mut h = drop_unimportant(h, mss, &[(18, 0)]);
        assert!(h.run(LIMIT));
        assert_eq!(h.drops, 1);
        h
    };
    assert_eq!(run(None).s.stats().rto_count, 1);
    let on = run(Some(TltClocking::Adaptive));
    let st = on.s.stats();
    assert_eq!(
        (st.rto_count, st.fast_retx, st.clock_echoes_dropped),
        (0, 1, 1)
    );
    assert_eq!(st.tlt_lost_segs, 1);
    // Recovery started on the dropped clock echo (ack == snd_una == the hole).
    let fr = on.acks.iter().find(|a| a.in_fr).unwrap();
    assert_eq!((fr.mark, fr.ack), (TltMark::ImportantClock, 18 * mss));
    let retx = on.retx();
    let last = retx.last().unwrap().1;
    assert_eq!(
        (last.seq, last.retx, last.mark),
        (18 * mss, Some(RetxCause::Fast), TltMark::Important)
    );
}

/// [not in the paper] After a timeout the important packet in flight is presumed lost: the
/// first retransmission is Important Data and TLT keeps going. Here the IW's important
/// packet and everything sent after it are lost (which TLT assumes never happens).
#[test]
fn after_a_timeout_the_first_retransmission_is_important() {
    let mss = 1460;
    let c = TcpConfig {
        init_cwnd_pkts: 4,
        ..cfg(Some(TltClocking::Adaptive))
    };
    let mut h = Harness::new(c, 30 * mss, PathCfg::new(10 * US, None)).with_rule(move |g, k, _| {
        if k == 0 && (3..=9).contains(&(g.seq / mss)) {
            Verdict::Drop
        } else {
            Verdict::Pass
        }
    });
    assert!(h.run(LIMIT));
    assert_eq!(h.s.stats().rto_count, 1);
    let t_rto = h.rto_fires[0];
    let after: Vec<_> = h.sent.iter().filter(|(t, _)| *t >= t_rto).collect();
    let first = after[0].1;
    assert_eq!(
        (first.seq, first.retx, first.mark),
        (3 * mss, Some(RetxCause::Rto), TltMark::Important)
    );
    // TLT goes on: more important packets follow, one echo at a time.
    assert!(
        after[1..]
            .iter()
            .filter(|(_, g)| g.mark != TltMark::None)
            .count()
            >= 3
    );
    let (max, exactly_one) = important_in_flight(&h, t_rto);
    assert_eq!(max, 1);
    assert!(exactly_one);
}

/// [choice] Important ACK-clocking still runs after a dropped clock echo (Alg. 1 l.13
/// returns before l.15). An ECN cut leaves an Important Echo without a window, so a 1-byte
/// clock goes out; every unimportant segment sent in the next 25 µs (until its echo
/// returns) is lost, so the dropped duplicate clock echo is the last ACK to arrive. The
/// clock sent on it finds the losses at its own echo: recovery without a timeout.
#[test]
fn clocking_continues_after_a_dropped_clock_echo() {
    let mss = 1460;
    let c = TcpConfig {
        init_cwnd_pkts: 10,
        dupack_thresh: 1,
        ecn: true,
        ..cfg(Some(TltClocking::Adaptive))
    };
    let path = PathCfg::new(10 * US, Some(Rate::gbps(10)));
    let mut first_clock: Option<Time> = None;
    let mut h = Harness::new(c, 60 * mss, path).with_rule(move |g, k, now| {
        if g.mark == TltMark::ImportantClock && first_clock.is_none() {
            first_clock = Some(now);
        }
        match first_clock {
            Some(t) if g.mark == TltMark::None && k == 0 && now > t && now < t + 25 * US => {
                Verdict::Drop
            }
            _ if (20..22).contains(&(g.seq / mss)) => Verdict::Mark,
            _ => Verdict::Pass,
        }
    });
    assert!(h.run(LIMIT));
    let st = h.s.stats();
    assert_eq!(h.drops, 10);
    assert_eq!(st.rto_count, 0);
    assert!(st.clock_echoes_dropped >= 1 && st.tlt_lost_segs >= 10);
    // A clock segment left on a dropped (duplicate) clock echo.
    let dropped: Vec<Time> = h
        .acks
        .iter()
        .filter(|a| a.mark == TltMark::ImportantClock && a.ack == a.una)
        .map(|a| a.t)
        .collect();
    assert!(h
        .sent
        .iter()
        .any(|(t, g)| g.mark == TltMark::ImportantClock && dropped.contains(t)));
    assert!(h.done_at.unwrap() < MS);
}
