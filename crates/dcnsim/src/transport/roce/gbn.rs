//! Go-back-N loss recovery of a RoCEv2 reliable-connection QP (the vanilla NIC's; mechanisms
//! §4.9): the receiver accepts packets only in PSN order and NACKs the first gap; the sender
//! resends everything from the NACKed PSN, or from the oldest unacknowledged PSN when its
//! static retransmission timer expires.
//!
//! Kept apart from the rate control ([`super::dcqcn`]) so that a selective-repeat recovery
//! (IRN: NACK + SACK, a BDP window) can replace it without touching the rate machine.
//! PSNs are packet indices from 0 within the message.

use dcnsim_engine::Time;

/// Sender side.
#[derive(Clone, Debug)]
pub struct GoBackN {
    /// Packets in the message.
    pub n: u64,
    /// Oldest unacknowledged PSN, next PSN to send, one past the highest PSN ever sent.
    pub una: u64,
    pub nxt: u64,
    pub high: u64,
    /// The static RTO and when it expires (None: nothing outstanding).
    rto: Time,
    rto_at: Option<Time>,
    /// A rewind happened and its round's first packet has not left yet (TLT §5.2).
    round_start: bool,
}

/// What a go-back-N event did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rewind {
    /// Nothing (a stale NACK or a timer not due).
    None,
    /// The sender went back to this PSN.
    To(u64),
}

impl GoBackN {
    pub fn new(n: u64, rto: Time) -> Self {
        GoBackN {
            n,
            una: 0,
            nxt: 0,
            high: 0,
            rto,
            rto_at: None,
            round_start: false,
        }
    }
    /// After [`Self::take`] of a retransmission: (first, last) packet of its round of
    /// retransmission (TLT §5.2, Fig. 4): the first since the rewind, and the one after which
    /// only new packets follow.
    #[inline]
    pub fn round_edges(&mut self, retx: bool) -> (bool, bool) {
        let first = std::mem::take(&mut self.round_start);
        (retx && first, retx && self.nxt >= self.high)
    }
    /// Whether a packet is waiting to be sent.
    #[inline]
    pub fn has_next(&self) -> bool {
        self.nxt < self.n
    }
    /// Takes the next PSN to send; true if it is a retransmission.
    #[inline]
    pub fn take(&mut self, now: Time) -> (u64, bool) {
        let psn = self.nxt;
        let retx = psn < self.high;
        self.nxt += 1;
        self.high = self.high.max(self.nxt);
        self.restart(now);
        (psn, retx)
    }
    /// A cumulative ACK: every PSN below `psn` arrived. Returns true if it is new.
    pub fn on_ack(&mut self, now: Time, psn: u64) -> bool {
        let new = psn > self.una;
        if new {
            self.una = psn.min(self.n);
            // A NACK-less rewind may have put `nxt` below what is now acknowledged.
            self.nxt = self.nxt.max(self.una);
        }
        self.restart(now);
        new
    }
    /// The requester's transport timer (InfiniBand Architecture Specification Vol. 1,
    /// o9-85, as the HPCC and TLT RoCE simulators implement it): it restarts whenever a
    /// packet is sent and whenever an acknowledge packet (ACK or NACK, new or not) arrives
    /// while responses are expected, and stops when nothing is outstanding. It detects the
    /// persistent absence of responses, not the loss of a particular packet.
    #[inline]
    fn restart(&mut self, now: Time) {
        self.rto_at = (self.una < self.high).then_some(now.saturating_add(self.rto));
    }
    /// A NACK for `psn` (the receiver's expected PSN): everything below arrived, resend
    /// from `psn` (go-back-N).
    pub fn on_nack(&mut self, now: Time, psn: u64) -> Rewind {
        self.on_ack(now, psn);
        if psn < self.una || psn >= self.nxt {
            // Already rewound past it (or nothing after it sent): stale.
            return Rewind::None;
        }
        self.nxt = psn;
        self.rto_at = Some(now.saturating_add(self.rto));
        self.round_start = true;
        Rewind::To(psn)
    }
    /// The retransmission timer's deadline.
    #[inline]
    pub fn deadline(&self) -> Option<Time> {
        self.rto_at
    }
    /// The timer fired: if due, go back to the oldest unacknowledged PSN.
    pub fn on_timer(&mut self, now: Time) -> Rewind {
        match self.rto_at {
            Some(t) if now >= t && self.una < self.high => {
                self.nxt = self.una;
                self.rto_at = Some(now.saturating_add(self.rto));
                self.round_start = true;
                Rewind::To(self.una)
            }
            _ => Rewind::None,
        }
    }
    pub fn done(&self) -> bool {
        self.una >= self.n
    }
}

/// Receiver side: the expected PSN and NACK suppression.
#[derive(Clone, Copy, Debug, Default)]
pub struct InOrder {
    /// Next PSN expected (every PSN below it arrived).
    pub epsn: u64,
    /// The expected PSN a NACK was last sent for, and when.
    nacked: Option<u64>,
    nacked_at: Time,
    /// In-order packets since the last ACK (ACK coalescing).
    unacked: u32,
}

/// What the receiver answers a data packet with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RxAction {
    /// Accepted in order, no response yet (coalescing).
    Accept,
    /// Accepted in order; ACK the expected PSN now.
    AcceptAck,
    /// A duplicate (below the expected PSN): re-ACK so a sender whose ACK was lost moves on.
    DupAck,
    /// Out of order: discarded; NACK the expected PSN.
    Nack,
    /// Out of order, this gap NACKed less than the NACK interval ago: discarded silently.
    Discard,
}

impl InOrder {
    /// Data packet `psn` arrived at `now`; `last` = it is the message's last PSN; ACK every
    /// `ack_every` in-order packets (and the last). An out-of-order packet is NACKed unless
    /// the same expected PSN was NACKed less than `nack_interval` ago: the reference NIC's
    /// rule (HPCC simulator, `RdmaHw::ReceiverCheckSeq`: a NACK when the NACK timer has run
    /// out or the expected PSN changed; its "NACK Generation Interval" defaults to 500 µs),
    /// so a retransmission lost again is NACKed again once the interval has passed.
    #[inline]
    pub fn on_data(
        &mut self,
        now: Time,
        psn: u64,
        last: bool,
        ack_every: u32,
        nack_interval: Time,
    ) -> RxAction {
        if psn == self.epsn {
            self.epsn += 1;
            self.unacked += 1;
            if self.unacked >= ack_every || last {
                self.unacked = 0;
                RxAction::AcceptAck
            } else {
                RxAction::Accept
            }
        } else if psn < self.epsn {
            RxAction::DupAck
        } else if self.nacked == Some(self.epsn)
            && now < self.nacked_at.saturating_add(nack_interval)
        {
            RxAction::Discard
        } else {
            self.nacked = Some(self.epsn);
            self.nacked_at = now;
            self.unacked = 0;
            RxAction::Nack
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_nack_rewinds_the_sender_to_the_gap() {
        let mut s = GoBackN::new(10, 1000);
        for _ in 0..6 {
            s.take(0);
        }
        let mut r = InOrder::default();
        // PSN 2 lost: 0, 1 accepted, 3 NACKed, 4 and 5 discarded silently.
        assert_eq!(r.on_data(0, 0, false, 1, 500), RxAction::AcceptAck);
        assert_eq!(r.on_data(0, 1, false, 1, 500), RxAction::AcceptAck);
        assert_eq!(r.on_data(0, 3, false, 1, 500), RxAction::Nack);
        assert_eq!(r.on_data(0, 4, false, 1, 500), RxAction::Discard);
        assert_eq!(s.on_nack(5, r.epsn), Rewind::To(2));
        assert_eq!((s.una, s.nxt, s.high), (2, 2, 6));
        // 2..6 go again, counted as retransmissions; 6 is new.
        let sent: Vec<_> = (0..5).map(|_| s.take(6)).collect();
        assert_eq!(
            sent,
            vec![(2, true), (3, true), (4, true), (5, true), (6, false)]
        );
        // A NACK below what is acknowledged is stale.
        s.on_ack(8, 7);
        assert_eq!(s.on_nack(9, 3), Rewind::None);
    }

    #[test]
    fn the_same_gap_is_nacked_again_after_the_nack_interval() {
        // PSN 2 lost, NACKed at t = 10; the resent 2 is lost again: the resent 3 and 4 are
        // discarded until the interval (500) has passed since the NACK, then NACKed again.
        let mut r = InOrder::default();
        r.on_data(0, 0, false, 1, 500);
        r.on_data(0, 1, false, 1, 500);
        assert_eq!(r.on_data(10, 3, false, 1, 500), RxAction::Nack);
        assert_eq!(r.on_data(20, 4, false, 1, 500), RxAction::Discard);
        assert_eq!(r.on_data(300, 3, false, 1, 500), RxAction::Discard);
        assert_eq!(r.on_data(510, 4, false, 1, 500), RxAction::Nack);
        assert_eq!(r.on_data(520, 5, false, 1, 500), RxAction::Discard);
        // A new gap is NACKed at once; with interval 0 every out-of-order packet is.
        assert_eq!(r.on_data(530, 2, false, 1, 500), RxAction::AcceptAck);
        assert_eq!(r.on_data(531, 5, false, 1, 500), RxAction::Nack);
        assert_eq!(r.on_data(532, 6, false, 1, 0), RxAction::Nack);
    }

    #[test]
    fn coalesced_acks_and_the_static_rto() {
        let mut r = InOrder::default();
        let acts: Vec<_> = (0..5).map(|p| r.on_data(0, p, p == 4, 2, 500)).collect();
        use RxAction::*;
        assert_eq!(acts, vec![Accept, AcceptAck, Accept, AcceptAck, AcceptAck]);
        let mut s = GoBackN::new(3, 100);
        s.take(0);
        s.take(0);
        assert_eq!(s.deadline(), Some(100));
        assert_eq!(s.on_timer(99), Rewind::None);
        assert_eq!(s.on_timer(100), Rewind::To(0));
        assert_eq!(s.deadline(), Some(200));
        s.on_ack(150, 2);
        assert_eq!(s.deadline(), None);
    }

    #[test]
    fn the_rdma_timer_restarts_on_every_send_and_every_response() {
        // InfiniBand Vol. 1 o9-85 (the HPCC / TLT simulators' `PktSent` and `ReceiveAck`):
        // every packet sent and every ACK or NACK, new or not, restarts the timer.
        let mut s = GoBackN::new(10, 1000);
        s.take(0);
        s.take(300);
        assert_eq!(s.deadline(), Some(1300));
        // A duplicate ACK (nothing new) restarts it.
        assert!(!s.on_ack(500, 0));
        assert_eq!(s.deadline(), Some(1500));
        assert_eq!(s.on_timer(1300), Rewind::None);
        // A stale NACK too.
        s.on_ack(600, 1);
        assert_eq!(s.on_nack(700, 0), Rewind::None);
        assert_eq!(s.deadline(), Some(1700));
        // Everything acknowledged: stopped.
        assert!(s.on_ack(800, 2));
        assert_eq!(s.deadline(), None);
    }
}
