//! The mechanisms real stacks run (issue "faithful TCP"), each in the sans-IO harness with
//! the mechanism on and off: PRR, the tail-loss probe, F-RTO and undo, quick-ACK, timer
//! ticks, and the slow-start variants.

mod harness;
use dcnsim_engine::{Rate, Time, MS, US};
use dcnsim_transport::{
    CcKind, RetxCause, RxSegment, SlowStartIncrease, SsthreshBasis, TcpConfig, TcpReceiver,
};
use harness::{Harness, PathCfg, Verdict};

const MSS: u64 = 1460;
const LIMIT: Time = 10_000 * MS;

fn path() -> PathCfg {
    PathCfg::new(10 * US, Some(Rate::gbps(10)))
}

/// Segments emitted per sender call (the harness stamps each call's output with one time).
fn largest_burst(h: &Harness, from: Time, to: Time) -> usize {
    let mut best = 0;
    let mut i = 0;
    let s = &h.sent;
    while i < s.len() {
        let t = s[i].0;
        let n = s[i..].iter().take_while(|(u, _)| *u == t).count();
        if (from..=to).contains(&t) {
            best = best.max(n);
        }
        i += n;
    }
    best
}

/// RFC 6937: with PRR the recovery spreads its sends over the ACKs (at most DeliveredData
/// plus one MSS per ACK under the slow-start bound) and ends with the flight at ssthresh,
/// so nothing bursts when recovery ends; without PRR, RFC 6675 holds every send until pipe
/// falls below the halved cwnd.
#[test]
fn prr_spreads_the_reduction_and_ends_at_ssthresh() {
    let run = |prr: bool| {
        let cfg = TcpConfig {
            cc: CcKind::NewReno,
            prr,
            init_ssthresh: Some(60 * MSS),
            ..Default::default()
        };
        // Four consecutive segments lost inside a 60-segment window.
        let mut h = Harness::new(cfg, 400 * MSS, path()).drop_list(&[
            (100, 0),
            (101, 0),
            (102, 0),
            (103, 0),
        ]);
        assert!(h.run(LIMIT));
        h
    };
    let on = run(true);
    let off = run(false);
    for h in [&on, &off] {
        assert_eq!(h.s.stats().rto_count, 0);
        assert_eq!(h.s.stats().fast_retx, 1);
    }
    // Recovery window: from the fast retransmit to the ACK that ends recovery.
    let window = |h: &Harness| {
        let start = h.acks.iter().position(|a| a.in_fr).unwrap();
        let end = start + h.acks[start..].iter().position(|a| !a.in_fr).unwrap();
        (start, end)
    };
    let (s, e) = window(&on);
    let _ = &off;
    let exit = on.acks[e];
    // cwnd = ssthresh at the end of recovery, and the flight is already there.
    assert_eq!(exit.cwnd, exit.ssthresh);
    assert!(
        exit.in_flight + 2 * MSS >= exit.ssthresh && exit.in_flight <= exit.ssthresh,
        "flight {} vs ssthresh {}",
        exit.in_flight,
        exit.ssthresh
    );
    // During recovery PRR sends about one segment per two delivered: never a burst.
    let (t0, t1) = (on.acks[s].t, on.acks[e].t + 50 * US);
    assert!(largest_burst(&on, t0, t1) <= 2, "PRR burst");
    // Sends were spread over the recovery: new data went out before it ended.
    let sent_in_recovery = on
        .sent
        .iter()
        .filter(|(t, g)| (t0..on.acks[e].t).contains(t) && g.retx.is_none())
        .count();
    assert!(sent_in_recovery > 10, "PRR sent only {sent_in_recovery}");
    // RFC 6675 alone sends nothing new until pipe has fallen below the halved window;
    // PRR starts at once, in proportion to what is delivered.
    let first_new = |h: &Harness| {
        let (s, _) = window(h);
        let t0 = h.acks[s].t;
        h.sent
            .iter()
            .find(|(t, g)| *t >= t0 && g.retx.is_none())
            .unwrap()
            .0
            - t0
    };
    assert!(
        first_new(&on) < first_new(&off),
        "PRR first send after {} ps, RFC 6675 after {} ps",
        first_new(&on),
        first_new(&off)
    );
}

/// Linux `tcp_schedule_loss_probe` arms the probe at 2·SRTT + TCP_TIMEOUT_MIN (two
/// jiffies) when more than one segment is in flight — added, not a floor (`pto_slack`).
/// With the last two segments lost, the probe goes exactly `pto_slack` later than under
/// RFC 8985; the Linux profile adds 8 ms (two 4 ms jiffies).
#[test]
fn linux_adds_two_jiffies_to_the_probe_timeout() {
    let run = |slack: Time| {
        let cfg = TcpConfig {
            tlp: true,
            pto_min: 10 * US,
            pto_slack: slack,
            tlp_max_ack_delay: Some(0),
            rto_min: 50 * MS,
            rto_init: 50 * MS,
            ..Default::default()
        };
        let mut h = Harness::new(cfg, 20 * MSS, path()).drop_list(&[(18, 0), (19, 0)]);
        assert!(h.run(LIMIT));
        h
    };
    let probe_at = |h: &Harness| {
        let p: Vec<_> = h.retx();
        assert_eq!(p[0].1.retx, Some(RetxCause::Probe));
        p[0].0
    };
    let (rfc, linux) = (run(0), run(3 * MS));
    assert_eq!(rfc.s.stats().tlp_probes, 1);
    assert_eq!(linux.s.stats().tlp_probes, 1);
    assert_eq!(probe_at(&linux) - probe_at(&rfc), 3 * MS);
    let lx = TcpConfig::profile(dcnsim_transport::Profile::Linux, CcKind::Cubic);
    assert_eq!(lx.pto_slack, 8 * MS);
    assert_eq!(lx.timer_tick, 4 * MS);
}

/// RFC 8985 §7: a lost last segment is recovered by a probe after ≈ 2·SRTT, not by the
/// retransmission timeout.
#[test]
fn lost_tail_is_recovered_by_a_probe_not_a_timeout() {
    let run = |tlp: bool| {
        let cfg = TcpConfig {
            tlp,
            pto_min: 10 * US,
            tlp_max_ack_delay: Some(0),
            rto_min: 4 * MS,
            rto_init: 4 * MS,
            ..Default::default()
        };
        let mut h = Harness::new(cfg, 20 * MSS, path()).drop_list(&[(19, 0)]);
        assert!(h.run(LIMIT));
        h
    };
    let with = run(true);
    let st = with.s.stats();
    assert_eq!((st.rto_count, st.tlp_probes, st.tlp_recoveries), (0, 1, 1));
    let probe: Vec<_> = with.retx();
    assert_eq!(probe.len(), 1);
    assert_eq!(probe[0].1.retx, Some(RetxCause::Probe));
    assert_eq!(probe[0].1.seq, 19 * MSS);
    let without = run(false);
    assert_eq!(without.s.stats().rto_count, 1);
    let (t_with, t_without) = (with.complete_at.unwrap(), without.complete_at.unwrap());
    assert!(
        t_with + 3 * MS < t_without,
        "probe {t_with} vs timeout {t_without}"
    );
}

/// A delay spike (nothing lost) longer than the RTO: the timeout is spurious. F-RTO (RFC
/// 5682, no timestamps) and the Eifel check (RFC 3522, timestamps) both detect it and
/// restore the window; without them the window restarts from one segment.
#[test]
fn spurious_timeout_from_a_delay_spike_is_undone() {
    let run = |frto: bool, undo: bool, timestamps: bool| {
        let cfg = TcpConfig {
            cc: CcKind::NewReno,
            frto,
            undo,
            dsack: true,
            timestamps,
            rto_min: MS,
            rto_init: MS,
            init_ssthresh: Some(40 * MSS),
            ..Default::default()
        };
        // Every first transmission sent in the 500 µs from segment 200's is held 3 ms in
        // the network: the ACK clock stops and the RTO fires with nothing lost.
        let mut spike: Option<Time> = None;
        let mut h = Harness::new(cfg, 4000 * MSS, path()).with_rule(move |g, k, now| {
            if k == 0 && g.seq == 200 * MSS {
                spike = Some(now);
            }
            match spike {
                Some(t0) if k == 0 && now < t0 + 500 * US => Verdict::Delay(3 * MS),
                _ => Verdict::Pass,
            }
        });
        assert!(h.run(LIMIT));
        assert_eq!(h.drops, 0);
        h
    };
    for (frto, undo, ts) in [
        (true, false, false),
        (false, true, true),
        (true, true, true),
    ] {
        let h = run(frto, undo, ts);
        let st = h.s.stats();
        assert!(st.rto_count >= 1, "the spike must cause a timeout");
        assert_eq!(st.undo_rto, 1, "frto={frto} undo={undo} ts={ts}");
        // The window before the timeout is restored.
        let before = h
            .acks
            .iter()
            .take_while(|a| a.t < h.rto_fires[0])
            .last()
            .unwrap();
        let after = h
            .acks
            .iter()
            .find(|a| a.t > h.rto_fires[0] && a.cwnd >= before.cwnd);
        assert!(
            after.is_some(),
            "cwnd {} not restored (frto={frto} undo={undo})",
            before.cwnd
        );
    }
    let plain = run(false, false, true);
    assert_eq!(plain.s.stats().undo_rto, 0);
    let before = plain
        .acks
        .iter()
        .take_while(|a| a.t < plain.rto_fires[0])
        .last()
        .unwrap()
        .cwnd;
    let soon = plain
        .acks
        .iter()
        .filter(|a| a.t > plain.rto_fires[0])
        .nth(3)
        .unwrap()
        .cwnd;
    assert!(
        soon < before / 4,
        "no undo: the window restarts ({soon} vs {before})"
    );
}

/// Linux quick-ACK: with delayed ACKs on, the first segments are acknowledged one by one,
/// then every second segment; after an idle gap longer than `quickack_idle`, again.
#[test]
fn quickack_acknowledges_the_first_segments_at_once() {
    let cfg = TcpConfig {
        mss: MSS as u32,
        delayed_ack: true,
        quickack: true,
        quickack_segs: 16,
        quickack_idle: Some(MS),
        ..Default::default()
    };
    let mut r = TcpReceiver::new(&cfg, 1000 * MSS);
    let mut out = vec![];
    let seg = |i: u64| RxSegment {
        seq: i * MSS,
        len: MSS as u32,
        ce: false,
        tsval: 0,
        ..Default::default()
    };
    for i in 0..16 {
        r.on_segment(i * US, &seg(i), 0, &mut out);
        assert_eq!(out.len(), i as usize + 1, "segment {i} ACKed at once");
    }
    r.on_segment(16 * US, &seg(16), 0, &mut out);
    assert_eq!(out.len(), 16, "then delayed ACKs");
    r.on_segment(17 * US, &seg(17), 0, &mut out);
    assert_eq!(out.len(), 17);
    // Idle for 2 ms > quickack_idle: quick-ACK mode again.
    r.on_segment(3 * MS, &seg(18), 0, &mut out);
    assert_eq!(out.len(), 18);
    // Without quick-ACK the first segment waits.
    let mut plain = TcpReceiver::new(
        &TcpConfig {
            quickack: false,
            ..cfg
        },
        1000 * MSS,
    );
    let mut out = vec![];
    plain.on_segment(0, &seg(0), 0, &mut out);
    assert!(out.is_empty());
}

/// The quick-ACK budget is Linux's `tcp_incr_quickack`: rcv_wnd / (2·MSS) segments, 2 when
/// that is 0, at most `quickack_segs`; a budget of one segment is a valid setting (it
/// panicked: the receiver clamped to [2, quickack_segs]).
#[test]
fn quickack_budget_is_tcp_incr_quickack() {
    // (quickack_segs, rwnd in MSS, segments ACKed at once)
    for (segs, rwnd, quick) in [
        (1, 1000, 1),
        (16, 1000, 16),
        (3, 1000, 3),
        (16, 3, 1),
        (16, 1, 2),
    ] {
        let cfg = TcpConfig {
            mss: MSS as u32,
            rwnd_bytes: rwnd * MSS,
            delayed_ack: true,
            quickack: true,
            quickack_segs: segs,
            quickack_idle: Some(MS),
            ..Default::default()
        };
        let mut r = TcpReceiver::new(&cfg, 1000 * MSS);
        let mut out = vec![];
        for i in 0..=quick {
            let seg = RxSegment {
                seq: i * MSS,
                len: MSS as u32,
                ..Default::default()
            };
            r.on_segment(i * US, &seg, 0, &mut out);
        }
        assert_eq!(
            out.len() as u64,
            quick,
            "quickack_segs {segs}, rwnd {rwnd} MSS"
        );
    }
}

/// With a timer tick every timer fires on a tick boundary (Linux jiffies).
#[test]
fn timers_fire_only_on_tick_boundaries() {
    let tick = 4 * MS;
    let cfg = TcpConfig {
        timer_tick: tick,
        rto_min: MS,
        rto_init: MS,
        delayed_ack: true,
        delack_timeout: MS,
        ..Default::default()
    };
    // Segment 5's first two transmissions are lost: the tail waits for timeouts.
    let mut h = Harness::new(cfg.clone(), 6 * MSS, path()).drop_list(&[(5, 0), (5, 1)]);
    assert!(h.run(LIMIT));
    assert!(h.rto_fires.len() >= 2);
    for t in &h.rto_fires {
        assert_eq!(t % tick, 0, "RTO at {t}");
    }
    // The delayed-ACK timer too.
    let mut r = TcpReceiver::new(&cfg, 100 * MSS);
    let mut out = vec![];
    let seg = RxSegment {
        seq: 0,
        len: MSS as u32,
        ce: false,
        tsval: 0,
        ..Default::default()
    };
    r.on_segment(5 * MS + 7, &seg, 0, &mut out);
    // jiffies (1) + usecs_to_jiffies(1 ms) (1) = 8 ms.
    assert_eq!(r.delack_deadline(), Some(8 * MS));
    // Without a tick the same timer is exact.
    let mut r = TcpReceiver::new(
        &TcpConfig {
            timer_tick: 0,
            ..cfg
        },
        100 * MSS,
    );
    r.on_segment(5 * MS + 7, &seg, 0, &mut out);
    assert_eq!(r.delack_deadline(), Some(6 * MS + 7));
}

/// Slow start per ACK (ns-3) against byte counting with L = 2 (RFC 3465) under delayed
/// ACKs: per-ACK growth adds one segment per ACK, ABC two; and the loss basis decides what
/// a reduction halves.
#[test]
fn slow_start_increase_and_loss_basis() {
    let grow = |ss: SlowStartIncrease| {
        let cfg = TcpConfig {
            cc: CcKind::NewReno,
            delayed_ack: true,
            ss_increase: ss,
            init_cwnd_pkts: 2,
            ..Default::default()
        };
        let mut h = Harness::new(cfg, 60 * MSS, path());
        assert!(h.run(LIMIT));
        h.s.stats().max_cwnd
    };
    let per_ack = grow(SlowStartIncrease::PerAck);
    let abc2 = grow(SlowStartIncrease::Abc { l: 2 });
    assert!(per_ack < abc2, "per-ACK {per_ack} vs ABC {abc2}");
    let reduce = |basis: SsthreshBasis| -> (u64, u64) {
        let cfg = TcpConfig {
            cc: CcKind::NewReno,
            ssthresh_basis: basis,
            init_ssthresh: Some(40 * MSS),
            ..Default::default()
        };
        let mut h = Harness::new(cfg, 300 * MSS, path()).drop_list(&[(100, 0)]);
        assert!(h.run(LIMIT));
        let i = h.acks.iter().position(|a| a.in_fr).unwrap();
        (h.acks[i].ssthresh, h.acks[i - 1].cwnd)
    };
    // At the third duplicate ACK FlightSize is the window; pipe excludes the three SACKed
    // segments and the lost one (ns-3); cwnd grew one segment per window past 40 (Linux).
    let (flight, _) = reduce(SsthreshBasis::FlightSize);
    let (pipe, _) = reduce(SsthreshBasis::Pipe);
    let (cwnd, cwnd_before) = reduce(SsthreshBasis::Cwnd);
    assert!(pipe < flight, "pipe {pipe} vs flight {flight}");
    assert_eq!(flight - pipe, 2 * MSS, "(3 SACKed + 1 lost) / 2");
    assert_eq!(cwnd, cwnd_before / 2);
}

/// RFC 8985 §6: RACK judges retransmissions by time too. A segment lost twice is resent a
/// third time once something sent after its retransmission is delivered, without waiting
/// for the timeout that the DupThresh rules need.
#[test]
fn rack_recovers_a_lost_retransmission_without_a_timeout() {
    let run = |rack: bool| {
        let cfg = TcpConfig {
            rack,
            rto_min: 4 * MS,
            rto_init: 4 * MS,
            ..Default::default()
        };
        let mut h = Harness::new(cfg, 300 * MSS, path()).drop_list(&[(50, 0), (50, 1)]);
        assert!(h.run(LIMIT));
        h
    };
    let with = run(true);
    let st = with.s.stats();
    assert_eq!(st.rto_count, 0, "RACK found the lost retransmission");
    let resent: Vec<_> = with
        .retx()
        .iter()
        .filter(|(_, g)| g.seq == 50 * MSS)
        .map(|(_, g)| g.retx.unwrap())
        .collect();
    assert_eq!(resent, vec![RetxCause::Fast, RetxCause::Recovery]);
    assert_eq!(st.retx_pkts, 2, "nothing else retransmitted");
    let without = run(false);
    assert_eq!(without.s.stats().rto_count, 1);
    assert!(with.complete_at.unwrap() + 3 * MS < without.complete_at.unwrap());
}
