//! Selective-repeat loss recovery of a RoCEv2 QP: IRN (Mittal et al., SIGCOMM 2018;
//! mechanisms §4.10) and DCQCN+SACK (the same recovery without IRN's BDP window; TLT §6).
//!
//! - **Receiver**: keeps out-of-order packets (a bitmap over the message's PSNs) instead of
//!   discarding them. An in-order packet is ACKed with the cumulative PSN (the next one
//!   expected); every out-of-order packet is answered with a NACK that carries the cumulative
//!   PSN and the PSN of the packet that triggered it (the SACKed PSN), as IRN's NACK does
//!   (IRN §3.1).
//! - **Sender**: remembers which PSNs were SACKed. The first NACK puts it into recovery
//!   (IRN §3.1): a packet is lost if it is below the highest SACKed PSN and neither
//!   cumulatively acknowledged nor SACKed; lost packets are retransmitted, each once per
//!   recovery episode, before any new packet. Recovery ends when the cumulative PSN passes
//!   what had been sent when it started. A timeout treats every unacknowledged, un-SACKed
//!   packet as lost (recovery from the oldest one).
//! - **BDP-FC** (IRN §3.2): a new packet leaves only while fewer than `bdp` packets are
//!   outstanding (its PSN minus the cumulative PSN); retransmissions are not capped. `None`
//!   = no cap (DCQCN+SACK).
//! - **Two timeouts** (IRN §3.1): RTO_low when at most N packets are outstanding, RTO_high
//!   otherwise; chosen each time the timer is (re)started. DCQCN+SACK uses one static RTO
//!   (low = high).
//!
//! Bitmaps are per flow, allocated on the first out-of-order packet / NACK (not per packet).

use dcnsim_engine::Time;

/// A bit per PSN, grown on demand.
#[derive(Clone, Debug, Default)]
struct Bits(Vec<u64>);

impl Bits {
    #[inline]
    fn get(&self, i: u64) -> bool {
        self.0
            .get((i / 64) as usize)
            .is_some_and(|w| w >> (i % 64) & 1 == 1)
    }
    fn set(&mut self, i: u64, n: u64) {
        if self.0.is_empty() {
            self.0 = vec![0; n.div_ceil(64).max(1) as usize];
        }
        if let Some(w) = self.0.get_mut((i / 64) as usize) {
            *w |= 1 << (i % 64);
        }
    }
}

/// The timeouts of a selective-repeat sender.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rto {
    pub low: Time,
    pub high: Time,
    /// RTO_low applies while at most this many packets are outstanding (IRN: N = 3).
    pub low_pkts: u64,
}

impl Rto {
    /// One static timeout (DCQCN+SACK).
    pub fn fixed(t: Time) -> Self {
        Rto {
            low: t,
            high: t,
            low_pkts: 0,
        }
    }
    /// The timeout for `outstanding` packets in flight (IRN §3.1; mechanisms §4.10).
    #[inline]
    pub fn for_outstanding(&self, outstanding: u64) -> Time {
        if outstanding <= self.low_pkts {
            self.low
        } else {
            self.high
        }
    }
}

/// Sender side.
#[derive(Clone, Debug)]
pub struct Selective {
    /// Packets in the message.
    pub n: u64,
    /// Cumulative PSN (every PSN below arrived), next new PSN.
    pub una: u64,
    pub nxt: u64,
    /// BDP-FC: at most this many outstanding packets (None: no cap).
    pub bdp: Option<u64>,
    rto: Rto,
    rto_at: Option<Time>,
    sacked: Bits,
    /// In recovery: until `una` reaches `recover`; `lost_below` = one past the highest SACKed
    /// PSN (or `nxt` after a timeout); `retx` = the next candidate for retransmission (kept
    /// pointing at a lost packet, or at `lost_below`).
    recovery: bool,
    recover: u64,
    lost_below: u64,
    retx: u64,
    /// TLT window-based loss detection (`tlt_judge`): retransmissions found lost again,
    /// `[re, re_end)` (un-SACKed ones), resent before the `retx` range.
    re: u64,
    re_end: u64,
    /// Recovery episodes started (NACK or timeout).
    pub episode: u64,
    /// An episode started and its first retransmission has not left yet (TLT §5.2).
    round_start: bool,
    /// The most packets ever outstanding (`nxt − una` after a send).
    pub max_outstanding: u64,
    /// The first window in packets, fixed when PSN 0 leaves ([`Self::first_window`]).
    iw: u64,
}

impl Selective {
    pub fn new(n: u64, rto: Rto, bdp: Option<u64>) -> Self {
        Selective {
            n,
            una: 0,
            nxt: 0,
            bdp: bdp.map(|b| b.max(1)),
            rto,
            rto_at: None,
            sacked: Bits::default(),
            recovery: false,
            recover: 0,
            lost_below: 0,
            retx: 0,
            re: 0,
            re_end: 0,
            episode: 0,
            round_start: false,
            max_outstanding: 0,
            iw: n,
        }
    }
    #[inline]
    fn outstanding(&self) -> u64 {
        self.nxt - self.una
    }
    #[inline]
    fn lost_pending(&self) -> bool {
        self.recovery && (self.re < self.re_end || self.retx < self.lost_below)
    }
    /// Moves `retx` to the next lost packet (skipping acknowledged and SACKed ones).
    fn seek(&mut self) {
        self.retx = self.retx.max(self.una);
        while self.retx < self.lost_below && self.sacked.get(self.retx) {
            self.retx += 1;
        }
        self.re = self.re.max(self.una);
        while self.re < self.re_end && self.sacked.get(self.re) {
            self.re += 1;
        }
    }
    /// Whether a new packet may leave: the message has one and BDP-FC allows it.
    #[inline]
    pub fn window_open(&self) -> bool {
        self.nxt < self.n && self.bdp.is_none_or(|b| self.outstanding() < b)
    }
    /// Packets of the first window: the BDP-FC cap when the first packet left (HPCC moves
    /// its cap on every ACK: the first window is the initial one, W_init), or the whole
    /// message without one.
    #[inline]
    pub fn first_window(&self) -> u64 {
        self.iw
    }
    /// Whether a packet may be sent now: a lost one, or a new one inside the BDP window.
    #[inline]
    pub fn has_next(&self) -> bool {
        self.lost_pending() || self.window_open()
    }
    /// Takes the next PSN to send (lost packets first); true if it is a retransmission.
    /// Call only when [`Self::has_next`].
    pub fn take(&mut self, now: Time) -> (u64, bool) {
        let (psn, retx) = if self.recovery && self.re < self.re_end {
            let p = self.re;
            self.re += 1;
            self.seek();
            (p, true)
        } else if self.lost_pending() {
            let p = self.retx;
            self.retx += 1;
            self.seek();
            (p, true)
        } else {
            let p = self.nxt;
            if p == 0 {
                // TLT §5.1 marks "the last packet of the initial window": the window as it
                // is when the flow starts (a later, smaller HPCC window must not move the
                // mark below a PSN already sent, or no packet is ever marked).
                self.iw = self.bdp.map_or(self.n, |b| b.min(self.n));
            }
            self.nxt += 1;
            (p, false)
        };
        self.max_outstanding = self.max_outstanding.max(self.outstanding());
        self.restart(now);
        (psn, retx)
    }
    /// A cumulative ACK for `psn`. Returns true if it is new.
    pub fn on_ack(&mut self, now: Time, psn: u64) -> bool {
        let psn = psn.min(self.n);
        if psn <= self.una {
            // Not new, but a response: the timer restarts all the same.
            self.restart(now);
            return false;
        }
        self.una = psn;
        if self.recovery && self.una >= self.recover {
            // IRN §3.1: recovery ends when the cumulative acknowledgement passes the
            // recovery sequence.
            self.recovery = false;
            self.re_end = 0;
        }
        self.seek();
        self.restart(now);
        true
    }
    /// The requester's transport timer (InfiniBand Architecture Specification Vol. 1,
    /// o9-85, as the HPCC and TLT RoCE simulators implement it): it restarts whenever a
    /// packet is sent and whenever an acknowledge packet (ACK or NACK, new or not) arrives
    /// while packets are outstanding, with its length chosen by what is outstanding now
    /// (IRN §3.1), and stops when nothing is.
    #[inline]
    fn restart(&mut self, now: Time) {
        self.rto_at = (self.una < self.nxt)
            .then(|| now.saturating_add(self.rto.for_outstanding(self.outstanding())));
    }
    /// A NACK: cumulative PSN `cum`, SACKed PSN `sacked`. Returns true if it started a
    /// recovery episode.
    pub fn on_nack(&mut self, now: Time, cum: u64, sacked: u64) -> bool {
        self.on_ack(now, cum);
        if sacked < self.una || sacked >= self.nxt {
            return false;
        }
        self.sacked.set(sacked, self.n);
        let started = !self.recovery;
        if started {
            // IRN §3.1: enter recovery; what was sent so far must be acknowledged to leave.
            self.start_episode();
        }
        // Everything below the highest SACKed PSN not yet received is lost.
        self.lost_below = self.lost_below.max(sacked + 1);
        self.seek();
        started
    }
    /// The retransmission timer's deadline.
    #[inline]
    pub fn deadline(&self) -> Option<Time> {
        self.rto_at
    }
    /// The timer fired: if due, every unacknowledged, un-SACKed packet is lost. True if it
    /// was a timeout.
    pub fn on_timer(&mut self, now: Time) -> bool {
        match self.rto_at {
            Some(t) if now >= t && self.una < self.nxt => {
                self.start_episode();
                self.re_end = 0;
                self.lost_below = self.nxt;
                self.seek();
                self.rto_at =
                    Some(now.saturating_add(self.rto.for_outstanding(self.outstanding())));
                true
            }
            _ => false,
        }
    }
    pub fn done(&self) -> bool {
        self.una >= self.n
    }
    fn start_episode(&mut self) {
        self.recovery = true;
        self.recover = self.nxt;
        self.retx = self.una;
        self.episode += 1;
        self.round_start = true;
    }
    /// After [`Self::take`] of a retransmission: (first, last) packet of its round (TLT
    /// §5.2): the first of the episode, and one after which no retransmission is pending.
    #[inline]
    pub fn round_edges(&mut self, retx: bool) -> (bool, bool) {
        let first = retx && std::mem::take(&mut self.round_start);
        (first, retx && !self.lost_pending())
    }
    /// TLT window-based: what to record when an important packet leaves (after its
    /// [`Self::take`]): the next new PSN, the lowest retransmission still pending, the
    /// episode.
    #[inline]
    pub fn tlt_snapshot(&self, psn: u64) -> super::tlt::Imp {
        let lo = if !self.recovery {
            self.una
        } else if self.re < self.re_end {
            self.re
        } else {
            self.retx.min(self.lost_below)
        };
        super::tlt::Imp {
            psn,
            b: self.nxt,
            lo,
            episode: self.episode,
        }
    }
    /// TLT window-based loss detection (TLT §5.1 "Guaranteed fast loss detection", Fig. 3a;
    /// mechanisms §5.5.2): the Important Echo of the important packet `i` arrived. Paths are
    /// FIFO, so every packet sent before it and still neither acknowledged nor SACKed is
    /// lost: first transmissions below `i.b`, and the retransmissions of the same episode
    /// below `i.lo` (those are resent once more, before the rest). Returns true if the echo
    /// indicates a loss (data sent before `i` unacknowledged).
    pub fn tlt_judge(&mut self, i: super::tlt::Imp) -> bool {
        let b = i.b.min(self.n);
        if self.una >= b {
            return false;
        }
        if !self.recovery {
            self.start_episode();
        } else if i.episode == self.episode {
            // Retransmitted before the important packet and still missing: lost again.
            self.re = self.una;
            self.re_end = self.re_end.max(i.lo.min(b));
        }
        self.lost_below = self.lost_below.max(b);
        self.seek();
        true
    }
    /// TLT important ACK-clocking (§5.1): the packet to send regardless of the window: the
    /// first lost one if any (a retransmission, as [`Self::take`]), else the first packet
    /// neither acknowledged nor SACKed, sent again. None if nothing is outstanding.
    pub fn take_clock(&mut self, now: Time) -> Option<(u64, bool)> {
        if self.lost_pending() {
            return Some(self.take(now));
        }
        let mut p = self.una;
        while p < self.nxt && self.sacked.get(p) {
            p += 1;
        }
        if p >= self.nxt {
            return None;
        }
        self.restart(now);
        Some((p, true))
    }
}

/// Receiver side: the cumulative PSN and the out-of-order packets kept.
#[derive(Clone, Debug, Default)]
pub struct SackRx {
    /// Next PSN expected (every PSN below it arrived).
    pub epsn: u64,
    got: Bits,
    /// In-order packets since the last ACK (ACK coalescing).
    unacked: u32,
}

/// What the receiver answers a data packet with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SackAction {
    /// In order, no response yet (coalescing).
    Accept,
    /// ACK the cumulative PSN now.
    Ack,
    /// NACK: the cumulative PSN and this (out-of-order) PSN.
    Nack,
}

impl SackRx {
    /// Data packet `psn` of an `n`-packet message arrived; ACK every `ack_every` in-order
    /// packets and the message's last.
    pub fn on_data(&mut self, psn: u64, n: u64, ack_every: u32) -> SackAction {
        if psn < self.epsn {
            // A duplicate: re-ACK so a sender whose ACK was lost moves on.
            return SackAction::Ack;
        }
        if psn > self.epsn {
            // IRN §3.1: keep it and NACK with the SACK information.
            self.got.set(psn, n);
            self.unacked = 0;
            return SackAction::Nack;
        }
        self.epsn += 1;
        let filled = self.got.get(self.epsn);
        while self.got.get(self.epsn) {
            self.epsn += 1;
        }
        self.unacked += 1;
        if filled || self.unacked >= ack_every || self.epsn >= n {
            self.unacked = 0;
            SackAction::Ack
        } else {
            SackAction::Accept
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_window_is_the_cap_when_the_first_packet_leaves() {
        // HPCC moves the cap on every ACK; TLT's initial-window mark stays at W_init's last
        // packet (PSN 22 of a 23-packet window) even after the cap shrank to 21.
        let mut s = Selective::new(1000, Rto::fixed(1000), Some(23));
        assert_eq!(s.take(0), (0, false));
        s.bdp = Some(21);
        assert_eq!(s.first_window(), 23);
        // Without a cap: the whole message; a cap above the message: the message.
        let mut s = Selective::new(5, Rto::fixed(1000), None);
        s.take(0);
        assert_eq!(s.first_window(), 5);
        let mut s = Selective::new(5, Rto::fixed(1000), Some(23));
        s.take(0);
        assert_eq!(s.first_window(), 5);
    }

    #[test]
    fn one_loss_costs_one_retransmission() {
        let mut s = Selective::new(10, Rto::fixed(1000), None);
        for _ in 0..6 {
            s.take(0);
        }
        let mut r = SackRx::default();
        // PSN 2 lost: 3, 4, 5 are kept and each NACKed with cum = 2.
        assert_eq!(r.on_data(0, 10, 1), SackAction::Ack);
        assert_eq!(r.on_data(1, 10, 1), SackAction::Ack);
        for p in 3..6 {
            assert_eq!(r.on_data(p, 10, 1), SackAction::Nack);
            s.on_nack(5, r.epsn, p);
        }
        // Only 2 goes again, then new packets.
        assert!(s.has_next());
        let sent: Vec<_> = (0..3).map(|_| s.take(6)).collect();
        assert_eq!(sent, vec![(2, true), (6, false), (7, false)]);
        // The retransmission fills the gap: the cumulative PSN jumps past the kept packets.
        assert_eq!(r.on_data(2, 10, 1), SackAction::Ack);
        assert_eq!(r.epsn, 6);
        s.on_ack(7, 6);
        assert!(
            !s.recovery,
            "recovery ends once cum passes the recovery point"
        );
    }

    #[test]
    fn bdp_fc_caps_outstanding_packets() {
        let mut s = Selective::new(100, Rto::fixed(1000), Some(4));
        while s.has_next() {
            s.take(0);
        }
        assert_eq!((s.nxt, s.max_outstanding), (4, 4));
        s.on_ack(1, 2);
        assert!(s.has_next());
        s.take(1);
        s.take(1);
        assert!(!s.has_next());
        assert_eq!(s.max_outstanding, 4);
        // Without the cap everything goes.
        let mut u = Selective::new(100, Rto::fixed(1000), None);
        while u.has_next() {
            u.take(0);
        }
        assert_eq!(u.max_outstanding, 100);
    }

    #[test]
    fn rto_low_with_few_packets_outstanding_rto_high_otherwise() {
        let rto = Rto {
            low: 454,
            high: 1930,
            low_pkts: 3,
        };
        assert_eq!(rto.for_outstanding(1), 454);
        assert_eq!(rto.for_outstanding(3), 454);
        assert_eq!(rto.for_outstanding(4), 1930);
        // Through the sender: the first packet arms RTO_low; after 10 are out and one is
        // ACKed (9 outstanding) the restarted timer is RTO_high; with 2 left, RTO_low.
        let mut s = Selective::new(20, rto, None);
        s.take(0);
        assert_eq!(s.deadline(), Some(454));
        for _ in 0..9 {
            s.take(0);
        }
        s.on_ack(100, 1);
        assert_eq!(s.deadline(), Some(100 + 1930));
        s.on_ack(200, 8);
        assert_eq!(s.deadline(), Some(200 + 454));
        // The timeout: every unacknowledged, un-SACKed packet is retransmitted.
        assert!(s.on_timer(654));
        let sent: Vec<_> = (0..2).map(|_| s.take(654)).collect();
        assert_eq!(sent, vec![(8, true), (9, true)]);
        assert_eq!(s.take(654), (10, false));
    }

    #[test]
    fn the_rdma_timer_restarts_on_every_send_and_every_response() {
        // InfiniBand Vol. 1 o9-85 (the HPCC / TLT simulators' `PktSent` and `ReceiveAck`):
        // every packet sent and every ACK or NACK, new or not, restarts the timer, its
        // length by what is outstanding then.
        let rto = Rto {
            low: 454,
            high: 1930,
            low_pkts: 3,
        };
        let mut s = Selective::new(10, rto, None);
        s.take(0);
        s.take(300);
        assert_eq!(s.deadline(), Some(300 + 454));
        // A NACK that moves nothing cumulative (0 missing, 1 SACKed) restarts it.
        s.on_nack(500, 0, 1);
        assert_eq!(s.deadline(), Some(500 + 454));
        assert!(!s.on_timer(754));
        // A duplicate ACK too.
        assert!(!s.on_ack(800, 0));
        assert_eq!(s.deadline(), Some(800 + 454));
        // The retransmission of 0 and four new packets: six outstanding, RTO_high.
        assert_eq!(s.take(900), (0, true));
        for _ in 0..4 {
            s.take(900);
        }
        assert_eq!(s.deadline(), Some(900 + 1930));
        // TLT's important ACK-clocking resends a packet: a send like any other.
        s.on_ack(1000, 2);
        assert_eq!(s.take_clock(1100), Some((2, true)));
        assert_eq!(s.deadline(), Some(1100 + 1930));
        // Everything acknowledged: stopped.
        assert!(s.on_ack(1200, 6));
        assert_eq!(s.deadline(), None);
    }

    #[test]
    fn only_unsacked_packets_below_the_highest_sack_are_lost() {
        let mut s = Selective::new(20, Rto::fixed(1000), None);
        for _ in 0..10 {
            s.take(0);
        }
        // 2 and 5 lost; NACKs SACK 3, 4 (cum 2), then 6 (cum 2).
        s.on_nack(1, 2, 3);
        s.on_nack(1, 2, 4);
        // Only 2 is known lost so far.
        assert_eq!(s.take(2), (2, true));
        assert_eq!(s.take(2), (10, false));
        s.on_nack(3, 2, 6);
        assert_eq!(s.take(4), (5, true));
        assert_eq!(s.take(4), (11, false));
    }
}
