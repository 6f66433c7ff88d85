//! RACK time-based loss detection (RFC 8985 §6).
//!
//! Per outstanding segment the time of its latest transmission and whether it was ever
//! retransmitted, in a window that slides with `snd_una` (memory follows the window, not
//! the flow). RACK remembers the most recently *sent* segment that has been delivered
//! (`xmit_ts`, `end_seq`) and its RTT; a segment sent before it that is still
//! unacknowledged after RACK.rtt + reo_wnd is lost.
//!
//! The sender's loss model is a boundary: everything un-SACKed in
//! `[max(snd_una, HighRxt), lost_end)` is deemed lost. First transmissions leave in sequence
//! order, so the segments RACK declares lost among them always form such a prefix, and
//! [`Rack::detect_loss`] returns its end. Retransmissions below HighRxt are judged one by
//! one ([`Rack::detect_lost_retransmissions`]): a lost one is flagged *re-lost* — out of
//! the pipe and due for another retransmission — until it is resent or delivered.

use super::sack::RangeSet;
use dcnsim_engine::Time;
use std::collections::VecDeque;

#[derive(Clone, Copy, Debug, Default)]
struct SegTx {
    at: Time,
    retransmitted: bool,
    /// Bytes of this retransmitted segment deemed lost again, as the end of the re-lost
    /// bytes from the segment's start (0 = not re-lost) ...
    relost: u32,
    /// ... and their start from the segment's start (a retransmission that resent only the
    /// first part, up to a SACK block, leaves the rest re-lost).
    relost_from: u32,
}

#[derive(Clone, Debug)]
pub struct Rack {
    mss: u64,
    /// Segment index of `segs[0]`.
    base: u64,
    segs: VecDeque<SegTx>,
    /// RACK.xmit_ts / RACK.end_seq / RACK.rtt of the latest-sent delivered segment.
    xmit_ts: Time,
    end_seq: u64,
    rtt: Time,
    /// RACK.min_RTT: the minimum RTT seen (RFC 8985 §6.2 step 2 uses it to reject
    /// ambiguous samples of retransmitted segments).
    min_rtt: Time,
    /// RACK.fack: highest sequence delivered (cumulatively or by SACK).
    fack: u64,
    /// RFC 8985 §6.2 step 3: a never-retransmitted segment below fack was delivered late.
    pub reordering_seen: bool,
    reo_wnd_mult: u32,
    reo_wnd_persist: u32,
    dsack_round: Option<u64>,
    /// Segments flagged re-lost (not yet resent or delivered).
    relost: u32,
}

impl Rack {
    pub fn new(mss: u64) -> Self {
        Rack {
            mss,
            base: 0,
            segs: VecDeque::with_capacity(16),
            xmit_ts: 0,
            end_seq: 0,
            rtt: 0,
            min_rtt: Time::MAX,
            fack: 0,
            reordering_seen: false,
            reo_wnd_mult: 1,
            reo_wnd_persist: 0,
            dsack_round: None,
            relost: 0,
        }
    }

    /// A segment starting at `seq` (or its first `len` bytes: a retransmission up to a SACK
    /// block) left at `now`.
    pub fn on_send(&mut self, seq: u64, len: u64, now: Time, retransmission: bool) {
        let idx = seq / self.mss;
        if idx < self.base {
            return;
        }
        let off = (idx - self.base) as usize;
        if off >= self.segs.len() {
            self.segs.resize(off + 1, SegTx::default());
        }
        let s = &mut self.segs[off];
        s.at = now;
        s.retransmitted |= retransmission;
        if s.relost > 0 {
            // What the retransmission did not cover stays re-lost.
            let sent_end = (seq + len - idx * self.mss).min(u32::MAX as u64) as u32;
            if sent_end < s.relost {
                s.relost_from = s.relost_from.max(sent_end);
            } else {
                self.relost -= 1;
                s.relost = 0;
                s.relost_from = 0;
            }
        }
    }

    /// Bytes of retransmissions deemed lost again (out of the pipe, to be resent): of each
    /// re-lost segment, the bytes in `[snd_una, r)` (r: HighRxt, what the pipe counts as
    /// retransmitted) that `sb` has not SACKed. Counted when asked (only while a segment is
    /// re-lost, in recovery) so that the sender's pipe, which counts un-SACKed bytes above
    /// snd_una, never takes a byte out twice — with snd_una inside a segment (TLT's 1-byte
    /// important ACK-clocking) or a SACK block inside one.
    pub fn relost_in_pipe(&self, snd_una: u64, r: u64, sb: &RangeSet) -> u64 {
        if self.relost == 0 {
            return 0;
        }
        let mut n = 0;
        for (i, s) in self.segs.iter().enumerate() {
            if s.relost == 0 {
                continue;
            }
            let start = (self.base + i as u64) * self.mss;
            let (a, b) = (
                (start + s.relost_from as u64).max(snd_una),
                (start + s.relost as u64).min(r),
            );
            if a < b {
                n += (b - a) - sb.covered_in(a, b);
            }
        }
        n
    }

    /// Forgets every re-lost mark (a timeout or an undo takes over).
    pub fn clear_relost(&mut self) {
        if self.relost > 0 {
            for s in &mut self.segs {
                s.relost = 0;
                s.relost_from = 0;
            }
            self.relost = 0;
        }
    }

    /// Whether the segment containing `seq` is flagged re-lost.
    pub fn is_relost(&self, seq: u64) -> bool {
        self.relost > 0 && self.seg(seq / self.mss).relost > 0
    }

    /// The lowest re-lost segment at or above `from`: (start, length). The start is
    /// clipped to `from` (`snd_una` falls inside a segment only after TLT's 1-byte
    /// important ACK-clocking; otherwise segments are MSS-aligned and nothing changes).
    pub fn first_relost(&self, from: u64) -> Option<(u64, u64)> {
        if self.relost == 0 {
            return None;
        }
        let first = (from / self.mss).max(self.base);
        let off = (first - self.base) as usize;
        self.segs
            .iter()
            .skip(off)
            .enumerate()
            .map(|(i, s)| {
                let start = (first + i as u64) * self.mss;
                (
                    (start + s.relost_from as u64).max(from),
                    start + s.relost as u64,
                )
            })
            .find(|&(start, end)| end > start)
            .map(|(start, end)| (start, end - start))
    }

    /// RFC 8985 §6.2 step 5 for retransmissions: every un-SACKed segment in `[from, to)`
    /// whose latest (re)transmission went out before RACK.xmit_ts and RACK.rtt + reo_wnd
    /// ago is lost again. Returns when the next one would be (the reordering timer).
    /// Segments holding bytes of `skip` (TLT's own re-lost set) are left to TLT, so that no
    /// byte is taken out of the pipe twice.
    pub fn detect_lost_retransmissions(
        &mut self,
        now: Time,
        from: u64,
        to: u64,
        sb: &RangeSet,
        reo_wnd: Time,
        skip: Option<&RangeSet>,
    ) -> Option<Time> {
        let mut timer: Option<Time> = None;
        let first = (from / self.mss).max(self.base);
        let last = to.div_ceil(self.mss);
        for idx in first..last {
            let Some(seg) = self.segs.get((idx - self.base) as usize).copied() else {
                break;
            };
            // `relost` counts from the segment's start; the retransmission starts at `from`
            // if snd_una fell inside the segment (only with TLT's 1-byte important
            // ACK-clocking); the pipe counts only the bytes above it (`relost_in_pipe`).
            let seg_start = idx * self.mss;
            let start = seg_start.max(from);
            let end = ((idx + 1) * self.mss).min(to);
            if start >= end || !seg.retransmitted || seg.relost > 0 || sb.contains(start) {
                continue;
            }
            if skip.is_some_and(|k| k.covered_in(start, end) > 0) {
                continue;
            }
            if seg.at > self.xmit_ts || (seg.at == self.xmit_ts && end >= self.end_seq) {
                continue;
            }
            let due = seg.at.saturating_add(self.rtt).saturating_add(reo_wnd);
            if due <= now {
                let s = &mut self.segs[(idx - self.base) as usize];
                s.relost = (end - seg_start) as u32;
                s.relost_from = 0;
                self.relost += 1;
            } else {
                timer = Some(timer.map_or(due, |t| t.min(due)));
            }
        }
        timer
    }

    fn seg(&self, idx: u64) -> SegTx {
        if idx < self.base {
            return SegTx::default();
        }
        self.segs
            .get((idx - self.base) as usize)
            .copied()
            .unwrap_or_default()
    }

    /// Bytes `[s, e)` were newly delivered (cumulatively or by SACK); `tsecr` is the ACK's
    /// echoed timestamp (0 if none). RFC 8985 §6.2 steps 2–3 (RACK_update,
    /// RACK_detect_reordering).
    pub fn on_delivered(&mut self, s: u64, e: u64, now: Time, tsecr: Time) {
        if s >= e {
            return;
        }
        let mut idx = s / self.mss;
        let last = (e - 1) / self.mss;
        while idx <= last {
            let seg = self.seg(idx);
            let end = ((idx + 1) * self.mss).min(e);
            if seg.relost > 0 {
                // Delivered after all: no longer owed a retransmission.
                self.relost -= 1;
                let s = &mut self.segs[(idx - self.base) as usize];
                s.relost = 0;
                s.relost_from = 0;
            }
            let rtt = now.saturating_sub(seg.at);
            // Step 2: a retransmitted segment's RTT is ambiguous when it is shorter than
            // the minimum RTT (then an earlier copy was delivered). As Linux
            // `tcp_rack_advance`, the echoed TSval is not consulted: a receiver echoes
            // TS.Recent, which out-of-order arrivals (a SACKed probe) do not update.
            let _ = tsecr;
            let ambiguous = seg.retransmitted && rtt < self.min_rtt;
            if !ambiguous {
                self.min_rtt = self.min_rtt.min(rtt);
                if seg.at > self.xmit_ts || (seg.at == self.xmit_ts && end > self.end_seq) {
                    self.xmit_ts = seg.at;
                    self.end_seq = end;
                    self.rtt = rtt;
                }
            }
            // Step 3: delivered below fack and never retransmitted → reordering.
            if !seg.retransmitted && end < self.fack {
                self.reordering_seen = true;
            }
            self.fack = self.fack.max(end);
            idx += 1;
        }
    }

    /// A D-SACK arrived (RFC 8985 §6.2 step 4, RACK_update_reo_wnd).
    pub fn on_dsack(&mut self, snd_nxt: u64) {
        if self.dsack_round.is_none() {
            self.dsack_round = Some(snd_nxt);
            self.reo_wnd_mult = self.reo_wnd_mult.saturating_add(1);
            self.reo_wnd_persist = 16;
        }
    }

    /// Step 4 bookkeeping on every ACK; `recovery_ended` when a recovery just finished.
    pub fn on_ack(&mut self, snd_una: u64, recovery_ended: bool) {
        if self.dsack_round.is_some_and(|r| snd_una >= r) {
            self.dsack_round = None;
        }
        if recovery_ended && self.reo_wnd_persist > 0 {
            self.reo_wnd_persist -= 1;
            if self.reo_wnd_persist == 0 {
                self.reo_wnd_mult = 1;
            }
        }
        // Forget segments below snd_una.
        let una_idx = snd_una / self.mss;
        while self.base < una_idx && !self.segs.is_empty() {
            if let Some(s) = self.segs.pop_front() {
                self.relost -= (s.relost > 0) as u32;
            }
            self.base += 1;
        }
        if self.segs.is_empty() {
            self.base = self.base.max(una_idx);
        }
    }

    /// RACK.reo_wnd (RFC 8985 §6.2 step 4).
    pub fn reo_wnd(&self, in_recovery: bool, sacked_segs: u64, dupthresh: u32, srtt: Time) -> Time {
        if !self.reordering_seen && (in_recovery || sacked_segs >= dupthresh as u64) {
            return 0;
        }
        let w = if self.min_rtt == Time::MAX {
            0
        } else {
            self.reo_wnd_mult as Time * self.min_rtt / 4
        };
        w.min(srtt)
    }

    /// RFC 8985 §6.2 step 5 (RACK_detect_loss) over the un-SACKed first transmissions from
    /// `from` up to `snd_nxt`: returns the end of the lost prefix (≥ `from`) and, if a
    /// segment sent before RACK.xmit_ts is not yet lost, when it will be (the reordering
    /// timer, RACK_detect_loss's `timeout`).
    pub fn detect_loss(
        &self,
        now: Time,
        from: u64,
        snd_nxt: u64,
        sb: &RangeSet,
        reo_wnd: Time,
    ) -> (u64, Option<Time>) {
        let mut p = from;
        let mut lost_end = from;
        while p < snd_nxt {
            let (s, next_sacked) = sb.next_uncovered(p);
            if s >= snd_nxt {
                break;
            }
            let idx = s / self.mss;
            let seg = self.seg(idx);
            let end = ((idx + 1) * self.mss).min(snd_nxt).min(next_sacked);
            // Only segments sent before the latest-sent delivered one can be judged.
            if seg.at > self.xmit_ts || (seg.at == self.xmit_ts && end >= self.end_seq) {
                return (lost_end, None);
            }
            let due = seg.at.saturating_add(self.rtt).saturating_add(reo_wnd);
            if due > now {
                return (lost_end, Some(due));
            }
            lost_end = end;
            p = end;
        }
        (lost_end, None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_segment_sent_before_a_delivered_one_is_lost_after_rtt_plus_reo_wnd() {
        let mss = 1000;
        let mut r = Rack::new(mss);
        for i in 0..4 {
            r.on_send(i * mss, mss, i * 10, false);
        }
        // Segment 2 SACKed at t = 120 (RTT 100); 0 and 1 are not delivered.
        let mut sb = RangeSet::with_capacity(4);
        sb.insert(2000, 3000);
        r.on_delivered(2000, 3000, 120, 0);
        let reo = r.reo_wnd(false, 1, 3, 100);
        assert_eq!(reo, 25); // min_RTT / 4
        let (lost, timer) = r.detect_loss(120, 0, 4000, &sb, reo);
        assert_eq!(lost, 0);
        assert_eq!(timer, Some(125)); // segment 0: 0 + 100 + 25
        let (lost, timer) = r.detect_loss(136, 0, 4000, &sb, reo);
        assert_eq!(lost, 2000); // 0 (due 125) and 1 (due 135) lost; 3 sent after 2
        assert_eq!(timer, None);
        // With DupThresh SACKed segments and no reordering seen, reo_wnd = 0.
        assert_eq!(r.reo_wnd(false, 3, 3, 100), 0);
        // A late first transmission below fack is reordering: the window stays open.
        r.on_delivered(0, 1000, 140, 0);
        assert!(r.reordering_seen);
        assert_eq!(r.reo_wnd(true, 3, 3, 100), 25);
        // Sliding with snd_una forgets old segments.
        r.on_ack(2000, false);
        assert_eq!(r.base, 2);
    }

    #[test]
    fn relost_bytes_in_the_pipe_exclude_acked_and_sacked_bytes_and_a_partial_resend_keeps_the_rest()
    {
        // Segments 0-2 retransmitted at t = 0..20, segment 3 sent at 30 and delivered at
        // 150: the retransmissions are lost again at 200 (RACK.rtt 120).
        let mss = 1000;
        let mut r = Rack::new(mss);
        for i in 0..4 {
            r.on_send(i * mss, mss, i * 10, i < 3);
        }
        let mut sb = RangeSet::with_capacity(4);
        sb.insert(3000, 4000);
        r.on_delivered(3000, 4000, 150, 0);
        r.detect_lost_retransmissions(200, 0, 4000, &sb, 0, None);
        assert_eq!(r.relost_in_pipe(0, 4000, &sb), 3000);
        // snd_una inside segment 0 (TLT's 1-byte ACK-clocking): those bytes are not owed.
        assert_eq!(r.relost_in_pipe(400, 4000, &sb), 2600);
        // A SACK block inside segment 1: its bytes are not in the pipe either way.
        sb.insert(1500, 1700);
        assert_eq!(r.relost_in_pipe(400, 4000, &sb), 2400);
        // Resending segment 1 up to the SACK block leaves [1500, 2000) re-lost (the sender
        // skips the SACKed [1500, 1700) when it resends).
        r.on_send(1000, 500, 210, true);
        assert_eq!(r.first_relost(1000), Some((1500, 500)));
        assert_eq!(r.relost_in_pipe(400, 4000, &sb), 600 + 300 + 1000);
        r.on_send(1700, 300, 220, true);
        assert_eq!(r.first_relost(1000), Some((2000, 1000)));
        assert_eq!(r.relost_in_pipe(400, 4000, &sb), 600 + 1000);
    }
}
