//! TLT for window-based TCP (Lim et al., "TLT: Timeout-Less Transport", EuroSys 2021,
//! §5.1, Fig. 3, Alg. 1, Appendix A), as methods of [`TcpSender`] and the state in [`Tlt`].
//!
//! Model. One important packet is in flight per flow: the last segment of the initial
//! window is Important Data (§5.1); the receiver echoes an important segment at once with
//! an Important Echo; the echo sets `sendState = Important` (Alg. 1 l.9–12) and the next
//! segment sent — whatever the recovery order puts first, so lost data before new data
//! (l.18–25) — is the next Important Data.
//!
//! Loss detection (§5.1 "Guaranteed fast loss detection", Fig. 3a, l.8/l.18). Paths are
//! FIFO (ECMP), so when the echo of important packet I arrives, every segment sent before I
//! and still neither cumulatively ACKed nor SACKed is lost. Instead of a queue of
//! unimportant segments (uimpQ) the sender keeps, per important packet, B = `snd_nxt` when
//! I left (every first transmission below B left before I) and the ranges retransmitted
//! between the previous important packet and I (few per RTT). At I's echo:
//! - un-SACKed bytes in `[snd_una, B)` are lost: B raises `lost`, a boundary that feeds
//!   `lost_end()` beside the RFC 6675 DupThresh rule and RACK (retransmissions below HighRxt
//!   keep their own accounting there);
//! - retransmitted ranges sent before I, still un-SACKed and not retransmitted again after I,
//!   are lost again: they go to `relost`, leave the pipe and are retransmitted first (as
//!   RACK's `relost` in `rack.rs`; a segment is flagged by at most one of the two).
//!
//! A loss found outside recovery starts fast recovery (as RACK's verdict does).
//! Without SACK only the segment at `snd_una` is known lost (the bytes above it may have
//! arrived) [choice]: it starts fast recovery, and a NewReno retransmission of it found
//! lost again is resent at once, as a partial ACK would. (Without SACK an Important Echo
//! of a duplicate segment is a duplicate ACK to NewReno; Alg. 1 filters only clock
//! echoes.)
//!
//! Important ACK-clocking (§5.1, Fig. 3b, l.15–16 and l.36–41, with the spec's erratum
//! to l.15): if after an ACK's normal send attempt `sendState` is still Important and data
//! is outstanding, one segment is sent regardless of cwnd and rwnd, marked Important Clock
//! Data: `Adaptive` sends one MSS of the lowest lost data if a loss is known, else the
//! first unacknowledged byte; `Mtu` always one MSS; `Byte` always one byte. A loss is
//! known if the echo just judged "indicates any loss" (§5.1) — data sent before its
//! important packet is unacknowledged, so the lost data starts at `snd_una`, even if it was
//! retransmitted after that packet (Fig. 3b: that retransmission may be lost too) — or if
//! a deemed-lost byte awaits its (re)transmission. A clock segment is a retransmission
//! (lost data: a recovery retransmission; otherwise a 1-byte or one-MSS copy from
//! `snd_una`), so `snd_una` may end up inside a segment and later retransmissions start
//! there (never crossing an MSS boundary).
//!
//! Appendix A: an Important Clock Echo whose ACK number is no larger than `snd_una` is
//! dropped at the TLT layer (the printed l.13 says `<`; the appendix text "no larger than"
//! gives `<=`, which we use): TCP never sees it — no duplicate ACK, no SACK or D-SACK
//! processing, no reaction to it — and only TLT's detection runs, against the scoreboard
//! as it stands (on a FIFO path every earlier ACK has arrived). [choice] Alg. 1 l.13
//! returns before l.15; we still (a) start fast recovery if the echo revealed a loss
//! outside recovery (a reaction to that loss, as to RACK's verdict) and (b) run important
//! ACK-clocking: otherwise, when that echo is the last ACK to come (the rest of the window
//! lost), the flow waits for the RTO.
//!
//! [not in the paper] After an RTO the important packet in flight is presumed lost:
//! `sendState = Important`, so the first retransmission is Important Data, and the rounds
//! are reset — otherwise a lost important packet would end TLT for the flow. An echo is
//! attributed to the important packet in flight only if (with SACK) it shows that packet
//! delivered; others (stale echoes) set `sendState` but judge nothing, and an unjudged
//! round is merged into the next.

use super::{Phase, TcpSender};
use crate::tcp::sack::RangeSet;
use crate::tcp::{Ack, RetxCause, Segment, TltClocking, TltMark};
use dcnsim_engine::Time;

/// TLT sender state (Alg. 1 sendState and the loss-detection rounds).
#[derive(Clone, Debug)]
pub(in crate::tcp) struct Tlt {
    clocking: TltClocking,
    /// Alg. 1 sendState == Important.
    send_important: bool,
    /// The next segment emitted is important ACK-clocking (Important Clock Data).
    clock_next: bool,
    /// An important packet is in flight and its echo has not been judged.
    pending: bool,
    /// `snd_nxt` when the important packet in flight left, and its range.
    b: u64,
    i_seq: u64,
    i_end: u64,
    /// Ranges retransmitted (unimportant) before the important packet in flight, since the
    /// one before it.
    round_retx: RangeSet,
    /// Ranges retransmitted since the important packet in flight left.
    cur_retx: RangeSet,
    /// First transmissions below this are lost (un-SACKed ones).
    pub(in crate::tcp) lost: u64,
    /// Retransmissions lost again, not yet resent (un-SACKed parts count).
    pub(in crate::tcp) relost: RangeSet,
    /// The last judged echo indicated a loss (data sent before its important packet not
    /// acknowledged) with `snd_una` at this value; reset once an important packet leaves.
    indicated: Option<u64>,
    scratch: Vec<(u64, u64)>,
    scratch2: Vec<(u64, u64)>,
}

impl Tlt {
    pub(in crate::tcp) fn new(clocking: TltClocking) -> Self {
        Tlt {
            clocking,
            send_important: false,
            clock_next: false,
            pending: false,
            b: 0,
            i_seq: 0,
            i_end: 0,
            round_retx: RangeSet::with_capacity(4),
            cur_retx: RangeSet::with_capacity(4),
            lost: 0,
            relost: RangeSet::with_capacity(4),
            indicated: None,
            scratch: Vec::new(),
            scratch2: Vec::new(),
        }
    }

    /// The mark of a segment about to leave, and the round bookkeeping (Alg. 1 SENDDATA).
    /// `snd_nxt` is its value before the segment.
    #[inline]
    pub(in crate::tcp) fn on_emit(
        &mut self,
        seq: u64,
        len: u64,
        cause: Option<RetxCause>,
        snd_nxt: u64,
    ) -> TltMark {
        let end = seq + len;
        if cause.is_some() && !self.relost.is_empty() {
            // Resent: back in the pipe.
            self.relost.remove(seq, end);
        }
        let mark = if self.clock_next {
            TltMark::ImportantClock // TLT Alg. 1 l.40
        } else if self.send_important {
            TltMark::Important // TLT Alg. 1 l.23–24
        } else {
            if cause.is_some_and(|c| c != RetxCause::Probe) {
                // TLT Alg. 1 l.26 (uimpQ.push), for retransmissions only: first
                // transmissions are summarized by B.
                self.cur_retx.insert(seq, end);
            }
            return TltMark::None;
        };
        self.clock_next = false;
        self.send_important = false; // TLT Alg. 1 l.25
        self.indicated = None;
        if self.pending {
            // The previous important packet was never judged (echo lost or not
            // attributable): its retransmissions are judged with this one's.
            for &(s, e) in self.cur_retx.ranges() {
                self.round_retx.insert(s, e);
            }
        } else {
            std::mem::swap(&mut self.round_retx, &mut self.cur_retx);
        }
        self.cur_retx.clear();
        self.pending = true;
        self.b = snd_nxt;
        self.i_seq = seq;
        self.i_end = end;
        mark
    }

    /// [not in the paper] A retransmission timeout: the important packet in flight is
    /// presumed lost — otherwise a lost important packet would end TLT for the flow — so
    /// the next segment is Important Data and the rounds start afresh.
    pub(in crate::tcp) fn on_rto(&mut self, snd_una: u64) {
        self.send_important = true;
        self.clock_next = false;
        self.pending = false;
        self.round_retx.clear();
        self.cur_retx.clear();
        self.relost.clear();
        self.lost = snd_una;
        self.indicated = None;
    }

    /// A spurious reduction was undone: nothing below is deemed lost any more.
    pub(in crate::tcp) fn on_undo(&mut self, snd_una: u64) {
        self.relost.clear();
        self.lost = snd_una;
    }

    /// Un-SACKed re-lost bytes in `[una, r)` (those the pipe counts as retransmitted).
    #[inline]
    pub(in crate::tcp) fn relost_in_pipe(&self, una: u64, r: u64, sb: &RangeSet) -> u64 {
        if self.relost.is_empty() || r <= una {
            return 0;
        }
        let mut n = 0;
        for &(s, e) in self.relost.ranges() {
            let (s, e) = (s.max(una), e.min(r));
            if s < e {
                n += (e - s) - sb.covered_in(s, e);
            }
        }
        n
    }
}

/// Appends to `out` the parts of `[s, e)` not covered by `set`.
fn minus(set: &RangeSet, s: u64, e: u64, out: &mut Vec<(u64, u64)>) {
    let mut p = s;
    while p < e {
        let (u, next) = set.next_uncovered(p);
        if u >= e {
            break;
        }
        let ge = next.min(e);
        out.push((u, ge));
        p = ge;
    }
}

impl TcpSender {
    /// Marks the last segment of the initial window Important Data (TLT §5.1). `from` is
    /// where `start` began writing into `out`.
    pub(super) fn tlt_mark_iw(&mut self, from: usize, out: &mut [Segment]) {
        let Some(t) = &mut self.tlt else { return };
        match out[from..].last_mut() {
            Some(g) => {
                // A first transmission: B = its own start.
                t.send_important = true;
                let mark = t.on_emit(g.seq, g.len as u64, None, g.seq);
                g.mark = mark;
                self.stats.important_pkts += 1;
                self.stats.important_bytes += g.len as u64;
            }
            // Nothing left (halted): the first segment sent will be important.
            None => t.send_important = true,
        }
    }

    /// An ACK carrying an echo mark, before TCP sees it (TLT Alg. 1 l.9–13). Returns true
    /// if the ACK is dropped at the TLT layer (Appendix A).
    #[inline(never)]
    pub(super) fn tlt_on_echo(&mut self, now: Time, ack: &Ack, out: &mut Vec<Segment>) -> bool {
        if ack.ack > self.snd_nxt {
            return false; // bogus; TCP ignores it
        }
        let Some(t) = &mut self.tlt else { return false };
        // TLT Alg. 1 l.10 / l.12.
        t.send_important = true;
        // TLT Appendix A ("no larger than the last unacked sequence number"); the printed
        // Alg. 1 l.13 has `<`.
        if ack.mark != TltMark::ImportantClock || ack.ack > self.snd_una {
            return false;
        }
        self.stats.clock_echoes_dropped += 1;
        if ack.ack == self.snd_una {
            // TLT Alg. 1 l.8 only: the scoreboard already holds what a FIFO path reported
            // before this echo; its own SACK blocks are not fed to TCP.
            self.tlt_judge();
        }
        if self.halted {
            return true;
        }
        if self.phase == Phase::Open && self.snd_una >= self.recover && self.tlt_una_lost() {
            // A loss TLT found starts recovery (like RACK's verdict), dupACK or not.
            self.enter_fast_recovery(now, out);
        }
        // [choice] TLT Alg. 1 l.15–16 although l.13 returned: keeps the ACK clock alive
        // when this echo is the last ACK to come.
        self.tlt_maybe_clock(now, out);
        true
    }

    /// Whether TLT deems `snd_una` lost and not yet retransmitted.
    #[inline]
    pub(super) fn tlt_una_lost(&self) -> bool {
        let floor = if self.sack {
            self.snd_una.max(self.rxt)
        } else {
            self.snd_una
        };
        self.tlt.as_ref().is_some_and(|t| t.lost > floor)
    }

    /// TLT loss detection at an Important (Clock) Echo (§5.1, Fig. 3a, Alg. 1 l.8), after
    /// the ACK's cumulative and SACK information has been applied.
    pub(super) fn tlt_judge(&mut self) {
        let Some(mut t) = self.tlt.take() else { return };
        let una = self.snd_una;
        // Attribute the echo to the important packet in flight: with SACK it must show
        // that packet delivered (a stale echo judges nothing).
        let attributed = t.pending && (!self.sack || una >= t.i_end || self.sb.contains(t.i_seq));
        t.indicated = None;
        if attributed {
            t.pending = false;
            // Without SACK only the first unacknowledged segment is known lost [choice].
            let known_end = if self.sack {
                t.b
            } else {
                t.b.min(self.seg_end(una))
            };
            let mut newly = 0;
            // First transmissions sent before I, un-SACKed: lost (TLT §5.1, Fig. 3a).
            if una < known_end {
                // The echo "indicates loss" (§5.1): the lowest lost byte is snd_una, even if
                // it was retransmitted after I (Fig. 3b: that retransmission may be lost too).
                t.indicated = Some(una);
                if self.sack {
                    let known = self.lost_end().max(t.lost).max(self.rxt).max(una);
                    newly += self.count_unsacked_segs(known, known_end);
                } else if self.phase == Phase::Open && t.lost <= una {
                    newly += 1;
                }
                t.lost = t.lost.max(known_end);
            }
            // Retransmissions sent before I (since the previous important packet), still
            // un-SACKed and not resent after I: lost again.
            let hi = if self.sack || self.phase == Phase::Rto {
                self.rxt.min(known_end)
            } else {
                known_end
            };
            let mut a = std::mem::take(&mut t.scratch);
            let mut b = std::mem::take(&mut t.scratch2);
            a.clear();
            for &(s, e) in t.round_retx.ranges() {
                let (s, e) = (s.max(una), e.min(hi));
                if s >= e {
                    continue;
                }
                if self.sack {
                    minus(&self.sb, s, e, &mut a);
                } else {
                    a.push((s, e));
                }
            }
            for set in [&t.cur_retx, &t.relost] {
                b.clear();
                for &(s, e) in &a {
                    minus(set, s, e, &mut b);
                }
                std::mem::swap(&mut a, &mut b);
            }
            for &(s, e) in &a {
                // Per MSS-aligned segment, leaving those RACK already flagged.
                let mut p = s;
                while p < e {
                    let pe = self.seg_end(p).min(e);
                    if !self.rack.as_ref().is_some_and(|r| r.is_relost(p)) {
                        t.relost.insert(p, pe);
                        newly += 1;
                    }
                    p = pe;
                }
            }
            t.round_retx.clear();
            t.scratch = a;
            t.scratch2 = b;
            self.stats.tlt_lost_segs += newly;
        }
        if !t.relost.is_empty() {
            t.relost.remove_below(una);
        }
        if !t.cur_retx.is_empty() {
            t.cur_retx.remove_below(una);
        }
        self.tlt = Some(t);
    }

    /// Un-SACKed chunks (at most one MSS-aligned segment each) in `[from, to)`.
    fn count_unsacked_segs(&self, from: u64, to: u64) -> u64 {
        let (mut p, mut n) = (from, 0);
        while p < to {
            let (s, len) = self.chunk(p, to);
            if len == 0 {
                break;
            }
            n += 1;
            p = s + len;
        }
        n
    }

    /// The lowest un-SACKed re-lost chunk TLT holds (within one MSS-aligned segment).
    pub(super) fn tlt_first_relost(&self) -> Option<(u64, u64)> {
        let t = self.tlt.as_ref()?;
        for &(s, e) in t.relost.ranges() {
            let s = s.max(self.snd_una);
            if s >= e {
                continue;
            }
            let (p, len) = self.chunk(s, e);
            if len > 0 {
                return Some((p, len));
            }
        }
        None
    }

    /// The lost data important ACK-clocking starts from: the segment at `snd_una` if the
    /// echo just judged indicated a loss (TLT §5.1 adaptive clocking, Fig. 3b), else the
    /// lowest deemed-lost chunk not yet retransmitted (or lost again), if any.
    fn tlt_first_lost(&self) -> Option<(u64, u64)> {
        let una = self.snd_una;
        if self.tlt.as_ref().is_some_and(|t| t.indicated == Some(una)) {
            let (p, len) = self.chunk(una, self.snd_nxt);
            if len > 0 {
                return Some((p, len));
            }
        }
        let mut best = self.tlt_first_relost();
        let mut consider = |c: Option<(u64, u64)>| {
            if let Some(x) = c.filter(|x| x.1 > 0) {
                if best.is_none_or(|b| x.0 < b.0) {
                    best = Some(x);
                }
            }
        };
        match self.phase {
            Phase::Rto => consider(Some(self.chunk(self.rxt.max(una), self.recover))),
            _ if self.sack => {
                if self.phase == Phase::Fast {
                    consider(self.rack.as_ref().and_then(|r| r.first_relost(una)));
                }
                let (p, len) = self.chunk(self.rxt.max(una), self.snd_nxt);
                if p < self.lost_end() {
                    consider(Some((p, len)));
                }
            }
            // Without SACK the lost segment at snd_una is retransmitted by the recovery
            // itself (or is in `relost`).
            _ => {}
        }
        best
    }

    /// TLT Alg. 1 l.15–16: if `sendState` is still Important after the send attempt and
    /// data is outstanding, important ACK-clocking.
    #[inline]
    pub(super) fn tlt_maybe_clock(&mut self, now: Time, out: &mut Vec<Segment>) {
        let due = self.tlt.as_ref().is_some_and(|t| t.send_important);
        if due && !self.halted && self.snd_una < self.snd_nxt {
            self.tlt_clock(now, out);
        }
    }

    /// Important ACK-clocking (TLT §5.1, Fig. 3b, Alg. 1 l.36–41): one segment regardless
    /// of cwnd and rwnd, marked Important Clock Data.
    #[inline(never)]
    fn tlt_clock(&mut self, now: Time, out: &mut Vec<Segment>) {
        let Some(clocking) = self.tlt.as_ref().map(|t| t.clocking) else {
            return;
        };
        let una = self.snd_una;
        let lost = self.tlt_first_lost();
        let (seq, len) = match (clocking, lost) {
            // `Byte`: the first lost byte; `Adaptive`, `Mtu`: one MSS of lost data
            // (TLT Alg. 1 l.37–38).
            (TltClocking::Byte, Some((p, _))) => (p, 1),
            (_, Some(x)) => x,
            (TltClocking::Mtu, None) => match self.chunk(una, self.snd_nxt) {
                (p, l) if l > 0 => (p, l),
                _ => (una, 1),
            },
            // The first unacknowledged byte (TLT Alg. 1 l.39).
            (_, None) => (una, 1),
        };
        if let Some(t) = &mut self.tlt {
            t.clock_next = true;
        }
        // Lost data is a recovery retransmission (go-back-N after a timeout).
        let cause = if lost.is_some() && self.phase == Phase::Rto {
            RetxCause::Rto
        } else {
            RetxCause::Recovery
        };
        self.stats.clock_pkts += 1;
        self.stats.clock_bytes += len;
        self.emit(now, seq, len, Some(cause), out);
    }
}
