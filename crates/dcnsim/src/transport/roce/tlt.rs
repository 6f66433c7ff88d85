//! TLT on a RoCEv2 sender (Lim et al., "Towards Timeout-less Transport in Commodity
//! Datacenter Networks", EuroSys 2021; mechanisms §5.5): which data packets are important
//! (green: colour-aware dropping in the switches admits them past the red threshold, §4).
//!
//! The marking is a hook of the RoCE sender, independent of its rate control and loss
//! recovery: the sender reports each data packet it is about to send as a [`Sent`] (PSN,
//! retransmission, first / last of a retransmission round, the first-window boundary) and
//! gets back its mark; it reports echoes and timeouts. Any RoCE congestion control (DCQCN,
//! or a window-based one such as HPCC) uses the same hook.
//!
//! - **Rate-based** ([`RoceTlt::Rate`], TLT §5.2, mechanisms §5.5.3; vanilla DCQCN and
//!   DCQCN+SACK): the message's last packet is important; optionally one in every `every`
//!   transmitted packets; when a round of retransmission starts, its first and last packets
//!   are important (Fig. 4). With selective repeat the echo of an important packet also
//!   drives the loss detection below (a go-back-N receiver does it by NACKing the new gap):
//!   otherwise a retransmission lost again inside a round waits for the timeout.
//! - **Window-based** ([`RoceTlt::Window`], TLT §5.1, mechanisms §5.5.2; IRN, HPCC): one
//!   important packet in flight. The last packet of the first window is Important Data; the
//!   responder answers important data at once with an Important Echo; an echo makes the next
//!   packet sent Important Data, and when nothing may be sent (window closed, or every packet
//!   sent) one Important Clock packet goes regardless of the window (important ACK-clocking).
//!   Loss detection at an echo is done by the selective-repeat sender
//!   ([`super::irn::Selective::tlt_judge`]) with what [`Imp`] recorded.
//!
//! Control packets (ACK, NACK, CNP) of a TLT transport are important (§5: "ACK, NACK, and CNP
//! in RoCE"); the NIC model colours them ([`super::RoceFlow`]).

/// TLT on a RoCE transport.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RoceTlt {
    Off,
    /// Rate-based marking; `every` = N of the periodic marking (0: none).
    Rate {
        every: u32,
    },
    /// Window-based marking (needs selective repeat).
    Window,
}

/// One data packet about to leave, as the loss recovery reports it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sent {
    pub psn: u64,
    pub retx: bool,
    /// The first packet of a retransmission round (after a NACK or a timeout).
    pub round_first: bool,
    /// The last packet of the round: no further retransmission is pending after it.
    pub round_last: bool,
    /// The message's last PSN.
    pub msg_last: bool,
    /// A first transmission that ends the first window (window-based TLT's initial mark).
    pub iw_last: bool,
    /// Sent by important ACK-clocking regardless of the window (window-based TLT, §5.1).
    pub clock: bool,
}

/// The mark of a data packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    None,
    /// Important Data.
    Important,
    /// Important Clock Data (sent by important ACK-clocking, TLT §5.1).
    Clock,
}

/// What the sender recorded when an important packet left: `b` = the next new PSN then
/// (every first transmission below it left before it) and the packet's send stamp (every
/// transmission with an older stamp left before it; [`super::irn::Selective::tlt_judge`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Imp {
    /// The important packet's PSN (an echo is matched to it).
    pub psn: u64,
    pub b: u64,
    pub stamp: u64,
}

/// The sender's TLT state.
#[derive(Clone, Debug)]
pub struct TltTx {
    pub mode: RoceTlt,
    /// Data packets sent (for the every-N marking).
    sent: u64,
    /// Window-based: the next packet is Important Data (Alg. 1 sendState).
    pub send_important: bool,
    /// Window-based: the important packet in flight, not yet echoed.
    pub pending: Option<Imp>,
}

impl TltTx {
    pub fn new(mode: RoceTlt) -> Self {
        TltTx {
            mode,
            sent: 0,
            send_important: false,
            pending: None,
        }
    }

    #[inline]
    pub fn on(&self) -> bool {
        self.mode != RoceTlt::Off
    }

    /// The mark of packet `s` (call once per data packet sent).
    #[inline]
    pub fn mark(&mut self, s: &Sent) -> Mark {
        self.sent += 1;
        match self.mode {
            RoceTlt::Off => Mark::None,
            RoceTlt::Rate { every } => {
                // TLT §5.2 "Timely loss detection": the last packet of the flow; optionally
                // one in every N transmitted packets (footnote 2; N = 96 in §7.1).
                let periodic = every > 0 && self.sent.is_multiple_of(every as u64);
                // TLT §5.2 "Timely loss recovery" (Fig. 4): the first and the last packet of
                // each round of retransmission.
                let round = s.retx && (s.round_first || s.round_last);
                if s.msg_last || periodic || round {
                    Mark::Important
                } else {
                    Mark::None
                }
            }
            RoceTlt::Window => {
                if s.clock {
                    // TLT §5.1 important ACK-clocking (Alg. 1 l.36–41).
                    self.send_important = false;
                    Mark::Clock
                } else if std::mem::take(&mut self.send_important) {
                    // TLT §5.1: an Important Echo makes the next packet Important Data
                    // (Alg. 1 l.23–25).
                    Mark::Important
                } else if s.iw_last && !s.retx && self.pending.is_none() {
                    // TLT §5.1: the last packet of the initial window.
                    Mark::Important
                } else {
                    Mark::None
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn new(psn: u64) -> Sent {
        Sent {
            psn,
            ..Sent::default()
        }
    }

    #[test]
    fn rate_based_marks_last_periodic_and_round_edges() {
        let mut t = TltTx::new(RoceTlt::Rate { every: 4 });
        let marks: Vec<_> = (0..9)
            .map(|p| {
                let mut s = new(p);
                s.msg_last = p == 8;
                t.mark(&s) == Mark::Important
            })
            .collect();
        // The 4th and 8th packets sent (PSN 3, 7) and the message's last (PSN 8).
        assert_eq!(
            marks,
            vec![false, false, false, true, false, false, false, true, true]
        );
        // A round of retransmission: its first and last packets.
        let mut t = TltTx::new(RoceTlt::Rate { every: 0 });
        let round = [(2, true, false), (3, false, false), (4, false, true)];
        let m: Vec<_> = round
            .iter()
            .map(|&(psn, first, last)| {
                t.mark(&Sent {
                    psn,
                    retx: true,
                    round_first: first,
                    round_last: last,
                    ..Sent::default()
                })
            })
            .collect();
        assert_eq!(m, vec![Mark::Important, Mark::None, Mark::Important]);
        // Off marks nothing.
        let mut t = TltTx::new(RoceTlt::Off);
        let mut s = new(0);
        s.msg_last = true;
        assert_eq!(t.mark(&s), Mark::None);
    }

    #[test]
    fn window_based_marks_iw_end_then_after_each_echo() {
        let mut t = TltTx::new(RoceTlt::Window);
        let mut s = new(0);
        assert_eq!(t.mark(&s), Mark::None);
        s.iw_last = true;
        assert_eq!(t.mark(&s), Mark::Important);
        t.pending = Some(Imp {
            psn: 1,
            b: 2,
            stamp: 2,
        });
        assert_eq!(t.mark(&new(2)), Mark::None);
        // An echo: the next packet is important, once.
        t.pending = None;
        t.send_important = true;
        assert_eq!(t.mark(&new(3)), Mark::Important);
        assert_eq!(t.mark(&new(4)), Mark::None);
        t.send_important = true;
        let mut c = new(1);
        c.clock = true;
        assert_eq!(t.mark(&c), Mark::Clock);
        assert!(!t.send_important);
    }
}
