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
//! - **TLT loss detection** ([`Selective::tlt_judge`]): with TLT the sender stamps every
//!   transmission with a per-flow send count (for the outstanding PSNs only), so that the
//!   echo of an important packet marks lost exactly the packets whose latest transmission
//!   left before it and that are still missing (TLT §5.1: paths are FIFO).
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

/// The send count of each outstanding PSN's latest transmission (`[base, base + v.len())`;
/// 0 = before tracking began). Only TLT senders keep it: its loss detection needs to know
/// which transmissions left before an important packet.
#[derive(Clone, Debug, Default)]
struct Stamps {
    base: u64,
    v: std::collections::VecDeque<u64>,
}

impl Stamps {
    #[inline]
    fn get(&self, psn: u64) -> u64 {
        psn.checked_sub(self.base)
            .and_then(|i| self.v.get(i as usize))
            .copied()
            .unwrap_or(0)
    }
    fn set(&mut self, psn: u64, stamp: u64) {
        let Some(i) = psn.checked_sub(self.base) else {
            return;
        };
        let i = i as usize;
        if i >= self.v.len() {
            self.v.resize(i + 1, 0);
        }
        self.v[i] = stamp;
    }
    /// Forgets the PSNs below `una` (cumulatively acknowledged).
    fn trim(&mut self, una: u64) {
        while self.base < una {
            if self.v.pop_front().is_none() {
                self.base = una;
                break;
            }
            self.base += 1;
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
    /// TLT loss detection (`tlt_judge`): packets found lost at an important packet's echo,
    /// `[re, re_end)` (the un-SACKed ones whose latest transmission is stamped before
    /// `re_stamp`), resent before the `retx` range.
    re: u64,
    re_end: u64,
    re_stamp: u64,
    /// TLT only: the latest transmission of each outstanding PSN ([`Stamps`]), the number of
    /// transmissions so far, and that number when the recovery episode started (the `retx`
    /// range skips what this episode already resent).
    stamps: Option<Box<Stamps>>,
    sends: u64,
    ep_stamp: u64,
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
            re_stamp: 0,
            stamps: None,
            sends: 0,
            ep_stamp: 0,
            round_start: false,
            max_outstanding: 0,
            iw: n,
        }
    }
    /// Keeps a send stamp per outstanding PSN, for TLT's loss detection (call before the
    /// first packet leaves).
    pub fn with_stamps(mut self) -> Self {
        self.stamps = Some(Box::default());
        self
    }
    #[inline]
    fn stamp(&self, psn: u64) -> u64 {
        self.stamps.as_ref().map_or(0, |s| s.get(psn))
    }
    /// Records a transmission of `psn` (its stamp).
    #[inline]
    fn sent(&mut self, psn: u64) {
        self.sends += 1;
        if let Some(s) = &mut self.stamps {
            s.set(psn, self.sends);
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
    /// With stamps (TLT), `retx` also skips packets this episode already resent, and `re`
    /// the ones sent since the important packet that found them lost.
    fn seek(&mut self) {
        self.retx = self.retx.max(self.una);
        while self.retx < self.lost_below
            && (self.sacked.get(self.retx) || self.stamp(self.retx) > self.ep_stamp)
        {
            self.retx += 1;
        }
        self.re = self.re.max(self.una);
        while self.re < self.re_end
            && (self.sacked.get(self.re) || self.stamp(self.re) >= self.re_stamp)
        {
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
            (p, true)
        } else if self.lost_pending() {
            let p = self.retx;
            self.retx += 1;
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
        self.sent(psn);
        if retx {
            // (After the stamp: the other pass's cursor may stand on the packet just resent.)
            self.seek();
        }
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
        if let Some(s) = &mut self.stamps {
            s.trim(psn);
        }
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
        self.ep_stamp = self.sends;
        self.round_start = true;
    }
    /// After [`Self::take`] of a retransmission: (first, last) packet of its round (TLT
    /// §5.2): the first of the episode, and one after which no retransmission is pending.
    #[inline]
    pub fn round_edges(&mut self, retx: bool) -> (bool, bool) {
        let first = retx && std::mem::take(&mut self.round_start);
        (first, retx && !self.lost_pending())
    }
    /// TLT: what to record when an important packet leaves (after its [`Self::take`]): the
    /// next new PSN and the packet's own send stamp.
    #[inline]
    pub fn tlt_snapshot(&self, psn: u64) -> super::tlt::Imp {
        super::tlt::Imp {
            psn,
            b: self.nxt,
            stamp: self.sends,
        }
    }
    /// TLT loss detection (TLT §5.1 "Guaranteed fast loss detection", Fig. 3a; mechanisms
    /// §5.5.2; rate-based TLT with selective repeat uses it as well): the Important Echo of
    /// the important packet `i` arrived. Paths are FIFO, so every packet below `i.b` whose
    /// latest transmission left before `i` (its stamp is older) and that is still neither
    /// acknowledged nor SACKed is lost: all of them are resent, before the `retx` range,
    /// whichever pass (first transmission, NACK-driven retransmission or an earlier
    /// judgement) sent them. A packet resent after `i` is not judged: its copy is in flight.
    /// Returns the number of packets found lost (0: none; no episode is started).
    pub fn tlt_judge(&mut self, i: super::tlt::Imp) -> u64 {
        let b = i.b.min(self.n);
        let lost = (self.una..b)
            .filter(|&p| !self.sacked.get(p) && self.stamp(p) < i.stamp)
            .count() as u64;
        if lost == 0 {
            return 0;
        }
        if !self.recovery {
            self.start_episode();
        }
        // (An echo is judged only for the latest important packet, so `b` never falls.)
        self.re = self.una;
        self.re_end = self.re_end.max(b);
        self.re_stamp = i.stamp;
        self.seek();
        lost
    }
    /// Whether [`Self::take_clock`] has a packet: a lost one, or one outstanding that is
    /// neither acknowledged nor SACKed.
    pub fn can_clock(&self) -> bool {
        self.lost_pending() || (self.una..self.nxt).any(|p| !self.sacked.get(p))
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
        self.sent(p);
        self.seek();
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

    /// TLT §5.1 (FIFO paths): at the echo of important packet `i`, a packet is lost if its
    /// latest transmission left before `i` and it is still missing, whichever pass sent it;
    /// one resent after `i` is in flight. (A trace of a lossy IRN + TLT incast: PSN 6, resent
    /// by the NACK pass and lost again, was missed while the second pass was under way, and
    /// the flow waited for its timeout.)
    #[test]
    fn tlt_judges_by_what_left_before_the_important_packet() {
        let mut s = Selective::new(8, Rto::fixed(1_000_000), Some(19)).with_stamps();
        for _ in 0..8 {
            s.take(0);
        }
        let i7 = s.tlt_snapshot(7);
        // 0, 4 and the important 7 arrive (1, 2, 3, 5, 6 lost): ACK 1, NACK SACKing 4.
        s.on_ack(1, 1);
        s.on_nack(1, 1, 4);
        let t: Vec<_> = (0..3).map(|_| s.take(2)).collect();
        assert_eq!(t, vec![(1, true), (2, true), (3, true)]);
        // The echo of 7 (a NACK SACKing it): 5 and 6, sent before 7, are lost; 1–3 were resent
        // after it.
        s.on_nack(3, 1, 7);
        assert_eq!(s.tlt_judge(i7), 2);
        assert_eq!(s.take(4), (5, true));
        let i5 = s.tlt_snapshot(5);
        assert_eq!(s.take(4), (6, true));
        // 2 arrives; 1, 3 and the resent 6 are lost again; the echo of 5: 1 and 3 (resent
        // before 5) are lost, 6 (resent after 5) is in flight.
        s.on_nack(5, 1, 2);
        s.on_nack(6, 1, 5);
        assert_eq!(s.tlt_judge(i5), 2);
        assert_eq!(s.take(7), (1, true));
        let i1 = s.tlt_snapshot(1);
        assert_eq!(s.take(7), (3, true));
        assert!(!s.has_next());
        // 1 and 3 arrive: the echo of 1 (ACK 3) finds 6 lost (resent before 1), not 3 (resent
        // after 1, in flight).
        s.on_ack(8, 3);
        assert_eq!(s.tlt_judge(i1), 1);
        assert_eq!(s.take(8), (6, true));
        // A judgement with nothing lost starts no episode and resends nothing.
        let mut u = Selective::new(4, Rto::fixed(1_000_000), None).with_stamps();
        for _ in 0..4 {
            u.take(0);
        }
        let i = u.tlt_snapshot(3);
        u.on_ack(1, 4);
        assert_eq!(u.tlt_judge(i), 0);
        assert!(!u.recovery && !u.has_next());
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
