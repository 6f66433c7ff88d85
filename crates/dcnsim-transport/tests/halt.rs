//! TCP+ halting (LPF §5): a halted sender sends nothing, has no retransmission timer and
//! keeps its congestion state; resuming re-arms the timer and sends what the window allows.

use dcnsim_transport::{Ack, CcKind, TcpConfig, TcpSender};

#[test]
fn halted_sender_is_silent_frozen_and_timerless_until_resumed() {
    let cfg = TcpConfig {
        cc: CcKind::NewReno,
        init_cwnd_pkts: 4,
        ..TcpConfig::default()
    };
    let mss = cfg.mss as u64;
    let mut tx = TcpSender::new(&cfg, 100 * mss);
    let mut out = Vec::new();
    tx.start(0, &mut out);
    assert_eq!(out.len(), 4);
    assert!(tx.rto_deadline().is_some());
    out.clear();
    tx.set_halted(10, true, &mut out);
    assert!(out.is_empty());
    assert_eq!(tx.rto_deadline(), None, "no timeout while halted");
    let cwnd = tx.cwnd();
    // ACKs of everything in flight arrive while halted: no growth, nothing sent.
    let ack = Ack {
        ack: 4 * mss,
        tsecr: 0,
        ..Ack::default()
    };
    tx.on_ack(1_000_000, &ack, &mut out);
    assert!(out.is_empty());
    assert_eq!(tx.cwnd(), cwnd, "congestion state frozen");
    assert_eq!(tx.snd_una(), 4 * mss);
    // a timeout call does nothing
    tx.on_timeout(u64::MAX / 2, &mut out);
    assert!(out.is_empty());
    assert_eq!(tx.stats().rto_count, 0);
    // resume: the window's worth goes out and the timer runs again
    tx.set_halted(2_000_000, false, &mut out);
    assert_eq!(out.len() as u64, cwnd / mss);
    assert!(tx.rto_deadline().unwrap() > 2_000_000);
}

#[test]
fn a_halt_pauses_the_retransmission_countdown_instead_of_restarting_it() {
    let cfg = TcpConfig {
        cc: CcKind::NewReno,
        init_cwnd_pkts: 2,
        ..TcpConfig::default()
    };
    let mut tx = TcpSender::new(&cfg, 10 * cfg.mss as u64);
    let mut out = Vec::new();
    tx.start(0, &mut out);
    let d0 = tx.rto_deadline().unwrap();
    // Repeated halts shorter than the RTO, nothing acknowledged: the timer still expires
    // after one RTO of un-halted time in total.
    let (mut t, mut running) = (0u64, 0u64);
    let step = d0 / 4;
    while running + step < d0 {
        tx.set_halted(t + step, true, &mut out);
        running += step;
        t += step + 10 * step; // halted for 10 steps
        tx.set_halted(t, false, &mut out);
        assert_eq!(
            tx.rto_deadline(),
            Some(t + (d0 - running)),
            "the countdown resumes where it stopped"
        );
    }
    let d = tx.rto_deadline().unwrap();
    tx.on_timeout(d, &mut out);
    assert_eq!(
        tx.stats().rto_count,
        1,
        "a lost segment is recovered despite the on-off halts"
    );
}
