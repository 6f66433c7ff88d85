//! Segment selection and transmission: MSS-aligned chunks around the SACK scoreboard, what
//! goes next (new data, RFC 6675 NextSeg, go-back-N), the cwnd/rwnd send loop `try_send`
//! and `emit`, which records each segment (timers, Karn, HighRxt, RACK, PRR, TLT).

use super::{Phase, TcpSender};
use crate::tcp::{RetxCause, Segment, TltMark};
use dcnsim_engine::Time;

impl TcpSender {
    /// End of the MSS-aligned segment containing `p`.
    #[inline]
    pub(super) fn seg_end(&self, p: u64) -> u64 {
        ((p / self.mss + 1) * self.mss).min(self.flow)
    }

    /// The first un-SACKed chunk at or after `p`, below `limit`: (start, len). `len == 0`
    /// if there is none.
    pub(super) fn chunk(&self, p: u64, limit: u64) -> (u64, u64) {
        let (s, next_sacked) = if self.sack {
            self.sb.next_uncovered(p)
        } else {
            (p, u64::MAX)
        };
        if s >= limit {
            return (s, 0);
        }
        let e = self.seg_end(s).min(next_sacked).min(limit);
        (s, e - s)
    }

    pub(super) fn new_data(&self) -> Option<(u64, u64, Option<RetxCause>)> {
        (self.snd_nxt < self.flow).then(|| {
            let s = self.snd_nxt;
            (s, self.seg_end(s) - s, None)
        })
    }

    /// What to send next (RFC 6675 §4 NextSeg in SACK recovery; go-back-N after RTO).
    fn next_seg(&self) -> Option<(u64, u64, Option<RetxCause>)> {
        match self.phase {
            Phase::Rto => {
                if self.frto_new {
                    // RFC 5682 §3 step 2b: probe with new data instead.
                    if let Some(x) = self.new_data() {
                        return Some(x);
                    }
                }
                // TLT: a go-back-N retransmission an Important Echo showed lost again.
                if let Some((p, len)) = self.tlt_first_relost() {
                    return Some((p, len, Some(RetxCause::Rto)));
                }
                let (p, len) = self.chunk(self.rxt.max(self.snd_una), self.recover);
                if len > 0 {
                    return Some((p, len, Some(RetxCause::Rto)));
                }
                self.new_data()
            }
            Phase::Fast if self.sack => {
                // RACK, TLT: a retransmission lost again goes first (the lower of the two;
                // they never flag the same segment).
                // (Only its un-SACKed bytes: a SACK block may cover part of a segment.)
                let relost = self
                    .rack
                    .as_ref()
                    .and_then(|r| r.first_relost(self.snd_una))
                    .map(|(p, len)| self.chunk(p, p + len))
                    .filter(|&(_, len)| len > 0);
                let relost = match (relost, self.tlt_first_relost()) {
                    (Some(a), Some(b)) => Some(if b.0 < a.0 { b } else { a }),
                    (a, b) => a.or(b),
                };
                if let Some((p, len)) = relost {
                    return Some((p, len, Some(RetxCause::Recovery)));
                }
                let (p, len) = self.chunk(self.rxt.max(self.snd_una), self.snd_nxt);
                // Rule 1: the lowest un-SACKed byte above HighRxt that IsLost.
                if len > 0 && p < self.lost_end() {
                    return Some((p, len, Some(RetxCause::Recovery)));
                }
                // Rule 2: new data.
                if let Some(x) = self.new_data() {
                    return Some(x);
                }
                // Rule 3: un-SACKed, not yet lost, but below the highest SACKed byte.
                // (Rule 4, the rescue retransmission, is not implemented: the RTO covers
                // a lost tail.)
                let high_sacked = self.sb.ranges().last().map_or(0, |r| r.1);
                if len > 0 && p < high_sacked {
                    return Some((p, len, Some(RetxCause::Recovery)));
                }
                None
            }
            _ => self.new_data(),
        }
    }

    fn send_limit(&self) -> u64 {
        self.win.cwnd + self.recovery_inflation()
    }

    /// Sends as much as cwnd (pipe), rwnd and the data allow.
    pub(super) fn try_send(&mut self, now: Time, out: &mut Vec<Segment>) {
        if self.halted {
            return;
        }
        let mut in_flight = self.bytes_in_flight();
        let limit = self.send_limit();
        loop {
            let Some((seq, len, cause)) = self.next_seg() else {
                self.cwnd_limited = false;
                break;
            };
            // Flow control: never beyond the receiver's right window edge.
            if cause.is_none() && seq + len - self.snd_una > self.rwnd {
                self.cwnd_limited = false;
                break;
            }
            // RFC 5681 §3.1 / RFC 6675 §5 step (C): only while cwnd − pipe allows it.
            if in_flight + len > limit {
                self.cwnd_limited = true;
                break;
            }
            if in_flight + len > self.rwnd {
                self.cwnd_limited = false;
                break;
            }
            self.emit(now, seq, len, cause, out);
            in_flight += len;
        }
        debug_assert_eq!(in_flight, self.bytes_in_flight());
        debug_assert!(self.snd_una <= self.snd_nxt && self.snd_nxt <= self.flow);
        debug_assert!(self.snd_nxt - self.snd_una <= self.rwnd);
    }

    pub(super) fn emit(
        &mut self,
        now: Time,
        seq: u64,
        len: u64,
        cause: Option<RetxCause>,
        out: &mut Vec<Segment>,
    ) {
        debug_assert!(len > 0 && len <= self.mss);
        // RFC 3168 §6.1.5: retransmissions are not ECT — except for DCTCP, whose control
        // law needs a mark rather than a drop on every packet (Linux tcp_ca_needs_ecn).
        let ect = self.ecn && (cause.is_none() || self.dctcp);
        let mark = match &mut self.tlt {
            None => TltMark::None,
            Some(t) => t.on_emit(seq, len, cause, self.snd_nxt),
        };
        out.push(Segment {
            seq,
            len: len as u32,
            retx: cause,
            ect,
            tsval: now,
            mark,
        });
        self.stats.data_pkts += 1;
        if mark != TltMark::None {
            self.stats.important_pkts += 1;
            self.stats.important_bytes += len;
        }
        match cause {
            None => {
                self.snd_nxt = seq + len;
                if !self.timestamps && self.timed.is_none() {
                    self.timed = Some((seq + len, now));
                }
            }
            Some(c) => {
                self.stats.retx_pkts += 1;
                // A probe re-sends the tail without making it a recovery retransmission.
                if (self.sack || c == RetxCause::Rto) && c != RetxCause::Probe {
                    self.rxt = self.rxt.max(seq + len);
                }
                if let Some(u) = &mut self.undo {
                    u.retrans += 1;
                    u.any_retrans = true;
                }
                // Karn: a retransmission makes the timed segment's ACK ambiguous.
                if matches!(self.timed, Some((end, _)) if seq < end) {
                    self.timed = None;
                }
            }
        }
        if let Some(r) = &mut self.rack {
            r.on_send(seq, len, now, cause.is_some());
        }
        if let Some(p) = &mut self.prr {
            p.1 += len; // RFC 6937: prr_out
        }
        // RFC 6298 (5.1): start the timer if it is not running.
        if self.rto_deadline.is_none() {
            self.rto_deadline = Some(self.timer_at(now, self.rto.rto()));
        }
    }
}
