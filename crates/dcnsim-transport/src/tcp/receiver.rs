//! TCP receiver: reassembly, ACK generation (immediate or delayed), SACK blocks, ECN echo,
//! timestamp echo.
//!
//! ACK policy (RFC 1122 §4.2.3.2, RFC 5681 §4.2):
//! - out-of-order, duplicate, out-of-window and zero-length segments → immediate ACK;
//! - a segment that fills all or part of a gap → immediate ACK;
//! - the segment completing the flow → immediate ACK (in a real stack it carries FIN, which
//!   Linux ACKs at once; without this a short flow's FCT would include `delack_timeout`);
//! - otherwise, with delayed ACKs, every `delack_count`-th in-order segment or when the
//!   `delack_timeout` timer expires; without delayed ACKs, every segment.
//!
//! ECN (RFC 8257 §3.2): a two-state machine remembers the CE bit of the last data segment.
//! When it changes while a delayed ACK is pending, the pending segments are ACKed at once
//! with the *old* ECE value, so the ECE bits tile the byte stream exactly even with delayed
//! ACKs. In that single case `on_segment` may push two ACKs (the flip ACK, then the ACK the
//! new segment itself requires); otherwise it pushes at most one.
//!
//! Timestamps (RFC 7323 §4.3): TS.Recent is taken from a segment only if it covers
//! `Last.ACK.sent` (so delayed ACKs echo the earliest unacknowledged segment, out-of-order
//! segments do not update it, and a gap-filling segment does), and only if TSval does not
//! go backwards.
//!
//! Optional (Linux): D-SACK (RFC 2883: a duplicate segment is reported in the first SACK
//! block), quick-ACK mode (`tcp_enter_quickack_mode`: the first `quickack_segs` segments,
//! those after an idle gap, and those after a duplicate are ACKed at once even with delayed
//! ACKs), and a delayed-ACK timer on tick boundaries.
//!
//! TLT (Lim et al., EuroSys 2021, §5.1, Alg. 1 RECEIVEDATA/SENDACK): a segment marked
//! Important (Clock) Data is ACKed at once, even with delayed ACKs, and that ACK — the one
//! the segment itself triggers, not an RFC 8257 flip ACK for earlier segments — carries
//! the Important (Clock) Echo mark.
//!
//! Invariants: out-of-order store ⊂ `(rcv_nxt, rcv_nxt + rwnd]`, `rcv_nxt <= flow_bytes`,
//! a pending delayed ACK implies a deadline.

use super::sack::RangeSet;
use super::{Ack, RxSegment, TcpConfig, TltMark};
use dcnsim_engine::Time;

const RECENT: usize = 4;

/// A TCP receiver for one flow of known size.
#[derive(Clone, Debug)]
pub struct TcpReceiver {
    flow: u64,
    rwnd: u64,
    sack: bool,
    ecn: bool,
    timestamps: bool,
    delayed_ack: bool,
    delack_count: u32,
    delack_timeout: Time,

    rcv_nxt: u64,
    ooo: RangeSet,
    /// Start sequence numbers of the most recently received out-of-order segments, most
    /// recent first (RFC 2018 §4 block ordering).
    recent: [u64; RECENT],
    n_recent: usize,
    pending: u32,
    delack_deadline: Option<Time>,
    ce_state: bool,
    ts_recent: Time,
    last_ack_sent: u64,
    last_owd: Time,
    dsack_on: bool,
    /// D-SACK block for the next ACK (RFC 2883 §4).
    dsack: Option<(u64, u64)>,
    quickack_on: bool,
    quickack_max: u32,
    quickack_idle: Time,
    /// ACKs still to send at once (Linux `icsk_ack.quick`).
    quick: u32,
    last_rx: Option<Time>,
    tick: Time,
    /// TLT on (`TcpConfig::tlt`).
    tlt_on: bool,
    /// TLT Alg. 1 recvState: the echo mark for the next ACK.
    echo: TltMark,
}

/// Linux `tcp_incr_quickack` (net/ipv4/tcp_input.c): the quick-ACK budget is rcv_wnd /
/// (2·rcv_mss), 2 when that is 0, at most TCP_MAX_QUICKACKS (`quickack_segs`, ≥ 1). (A
/// clamp to [2, quickack_segs] gave 2 where Linux gives 1, and panicked for
/// `quickack_segs = 1`.)
fn quickack_budget(cfg: &TcpConfig) -> u32 {
    let q = cfg.rwnd_bytes / (2 * cfg.mss.max(1) as u64);
    let q = if q == 0 { 2 } else { q };
    q.min(cfg.quickack_segs.max(1) as u64) as u32
}

impl TcpReceiver {
    pub fn new(cfg: &TcpConfig, flow_bytes: u64) -> Self {
        TcpReceiver {
            flow: flow_bytes,
            rwnd: cfg.rwnd_bytes.max(cfg.mss as u64).max(1),
            sack: cfg.sack,
            ecn: cfg.ecn,
            timestamps: cfg.timestamps,
            delayed_ack: cfg.delayed_ack && cfg.delack_count > 1,
            delack_count: cfg.delack_count.max(1),
            delack_timeout: cfg.delack_timeout,
            rcv_nxt: 0,
            ooo: RangeSet::with_capacity(16),
            recent: [0; RECENT],
            n_recent: 0,
            pending: 0,
            delack_deadline: None,
            ce_state: false,
            ts_recent: 0,
            last_ack_sent: 0,
            last_owd: 0,
            dsack_on: cfg.dsack && cfg.sack,
            dsack: None,
            quickack_on: cfg.quickack,
            quickack_max: quickack_budget(cfg),
            quickack_idle: cfg.quickack_idle.unwrap_or(cfg.rto_min),
            quick: 0,
            last_rx: None,
            tick: cfg.timer_tick,
            tlt_on: cfg.tlt.is_some(),
            echo: TltMark::None,
        }
    }

    /// Processes one data segment; `owd` is its one-way delay (echoed in the ACK it
    /// triggers). Pushes 0 or 1 ACK (2 only on an RFC 8257 CE flip, see module docs).
    pub fn on_segment(&mut self, now: Time, seg: &RxSegment, owd: Time, out: &mut Vec<Ack>) {
        let end = seg.seq.saturating_add(seg.len as u64).min(self.flow);
        let seq = seg.seq.min(end);

        // RFC 8257 §3.2: CE state change with a delayed ACK pending → ACK now, old ECE.
        let ce = self.ecn && seg.ce;
        if ce != self.ce_state {
            if self.pending > 0 {
                self.send_ack(out);
            }
            self.ce_state = ce;
        }
        // TLT Alg. 1 l.2–5: recvState from the segment's mark (after the flip ACK above,
        // which acknowledges earlier segments and stays unmarked).
        let important = self.tlt_on && seg.mark != TltMark::None;
        if important {
            self.echo = seg.mark;
        }
        // RFC 7323 §4.3 (2)/(3): TS.Recent from the segment covering Last.ACK.sent.
        if seq <= self.last_ack_sent && self.last_ack_sent < end && seg.tsval >= self.ts_recent {
            self.ts_recent = seg.tsval;
        }
        self.last_owd = owd;
        if self.quickack_on {
            // tcp_event_data_recv: the first data, or data after a gap longer than the RTO,
            // (re)enters quick-ACK mode.
            if self
                .last_rx
                .is_none_or(|t| now.saturating_sub(t) > self.quickack_idle)
            {
                self.quick = self.quick.max(self.quickack_max);
            }
            self.last_rx = Some(now);
        }

        if end <= self.rcv_nxt || seq == end {
            // Duplicate (or empty): RFC 5681 §4.2 / RFC 9293 — ACK immediately.
            if self.dsack_on && seq < end {
                self.dsack = Some((seq, end)); // RFC 2883 §4 (1)
            }
            if self.quickack_on && seq < end {
                // tcp_data_queue: "A retransmit ... Force an immediate ack"
                // (tcp_enter_quickack_mode).
                self.quick = self.quick.max(self.quickack_max);
            }
            self.send_ack(out);
        } else if seq > self.rcv_nxt {
            // Out of order: RFC 5681 §4.2 immediate (duplicate) ACK with SACK info.
            // RFC 9293 §3.10.7.4: bytes beyond the receive window are not accepted.
            let wnd_end = self.rcv_nxt.saturating_add(self.rwnd);
            if self.dsack_on && self.ooo.range_containing(seq).is_some_and(|r| r.1 >= end) {
                self.dsack = Some((seq, end)); // RFC 2883 §4 (2): duplicate above rcv_nxt
            }
            if seq < wnd_end {
                self.ooo.insert(seq, end.min(wnd_end));
                self.note_recent(seq);
            }
            self.send_ack(out);
        } else {
            // In order (possibly overlapping old data): advance and absorb buffered data.
            let had_gap = !self.ooo.is_empty();
            self.rcv_nxt = end;
            while let Some(e) = self.ooo.pop_front_if_reaches(self.rcv_nxt) {
                self.rcv_nxt = self.rcv_nxt.max(e);
            }
            self.ooo.remove_below(self.rcv_nxt);
            if had_gap || !self.delayed_ack || self.complete() || self.quick > 0 || important {
                // RFC 5681 §4.2: a segment filling (part of) a gap is ACKed immediately.
                // TLT §5.1: so is Important Data ("sends an ACK (or SACK) immediately").
                self.send_ack(out);
            } else {
                self.pending += 1;
                if self.pending >= self.delack_count {
                    // RFC 5681 §4.2: at least every second full-sized segment.
                    self.send_ack(out);
                } else if self.delack_deadline.is_none() {
                    // RFC 1122 §4.2.3.2: the delay must be bounded.
                    // On a tick boundary, as the sender's timers.
                    self.delack_deadline =
                        Some(super::timer_deadline(now, self.delack_timeout, self.tick));
                }
            }
        }
    }

    /// The delayed-ACK timer fired. Does nothing if called early or with nothing pending.
    pub fn on_delack_timeout(&mut self, now: Time, out: &mut Vec<Ack>) {
        match self.delack_deadline {
            Some(d) if now >= d && self.pending > 0 => self.send_ack(out),
            Some(d) if now >= d => self.delack_deadline = None,
            _ => {}
        }
    }

    pub fn delack_deadline(&self) -> Option<Time> {
        self.delack_deadline
    }

    pub fn rcv_nxt(&self) -> u64 {
        self.rcv_nxt
    }

    /// Every byte of the flow received in order.
    pub fn complete(&self) -> bool {
        self.rcv_nxt >= self.flow
    }

    /// Whether byte `seq` has been received (in order or out of order).
    pub fn has(&self, seq: u64) -> bool {
        seq < self.rcv_nxt || self.ooo.contains(seq)
    }

    /// Bytes held out of order.
    pub fn ooo_bytes(&self) -> u64 {
        self.ooo.total()
    }

    fn note_recent(&mut self, seq: u64) {
        // Move-to-front list of recent out-of-order arrivals.
        let n = self.n_recent.min(RECENT - 1);
        self.recent.copy_within(0..n, 1);
        self.recent[0] = seq;
        self.n_recent = (self.n_recent + 1).min(RECENT);
    }

    #[inline]
    fn send_ack(&mut self, out: &mut Vec<Ack>) {
        // Two instances: with D-SACK, quick-ACK and TLT off their bookkeeping compiles away.
        if self.dsack_on || self.quickack_on || self.tlt_on {
            self.send_ack_impl::<true>(out)
        } else {
            self.send_ack_impl::<false>(out)
        }
    }

    #[inline(always)]
    fn send_ack_impl<const X: bool>(&mut self, out: &mut Vec<Ack>) {
        let mut a = Ack {
            ack: self.rcv_nxt,
            ece: self.ce_state,
            tsecr: if self.timestamps { self.ts_recent } else { 0 },
            owd: self.last_owd,
            ..Default::default()
        };
        let mut n = 0usize;
        if let (true, Some(d)) = (X, self.dsack.take()) {
            // RFC 2883 §4: the D-SACK block comes first, then the usual SACK blocks.
            a.sack[0] = d;
            a.dsack = true;
            n = 1;
        }
        if self.sack && !self.ooo.is_empty() {
            // RFC 2018 §4: the first block holds the most recently received segment; the
            // others repeat the most recently reported blocks; then fill with the highest
            // remaining ranges.
            for i in 0..self.n_recent {
                if n == 3 {
                    break;
                }
                if let Some(r) = self.ooo.range_containing(self.recent[i]) {
                    if !a.sack[a.dsack as usize..n].contains(&r) {
                        a.sack[n] = r;
                        n += 1;
                    }
                }
            }
            for &r in self.ooo.ranges().iter().rev() {
                if n == 3 {
                    break;
                }
                if !a.sack[a.dsack as usize..n].contains(&r) {
                    a.sack[n] = r;
                    n += 1;
                }
            }
        }
        a.n_sack = n as u8;
        if X {
            // TLT Alg. 1 l.29–34 (SENDACK): Important Echo / Important Clock Echo.
            a.mark = std::mem::take(&mut self.echo);
        }
        out.push(a);
        if X {
            // tcp_dec_quickack_mode: one quick ACK spent.
            self.quick = self.quick.saturating_sub(1);
        }
        self.last_ack_sent = self.rcv_nxt;
        self.pending = 0;
        self.delack_deadline = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dcnsim_engine::{MS, US};

    const MSS: u32 = 1000;

    fn seg(i: u64) -> RxSegment {
        RxSegment {
            seq: i * MSS as u64,
            len: MSS,
            ce: false,
            tsval: i * US,
            ..Default::default()
        }
    }

    fn rx(delayed: bool) -> TcpReceiver {
        let cfg = TcpConfig {
            mss: MSS,
            delayed_ack: delayed,
            ecn: true,
            ..Default::default()
        };
        TcpReceiver::new(&cfg, 100 * MSS as u64)
    }

    #[test]
    fn acks_every_segment_without_delack() {
        let mut r = rx(false);
        let mut out = vec![];
        for i in 0..5 {
            r.on_segment(i * US, &seg(i), 7, &mut out);
            assert_eq!(out.len(), (i + 1) as usize);
            assert_eq!(out[i as usize].ack, (i + 1) * MSS as u64);
            assert_eq!(out[i as usize].owd, 7);
        }
        assert!(r.delack_deadline().is_none());
    }

    #[test]
    fn delayed_ack_every_second_segment_and_timer() {
        let mut r = rx(true);
        let mut out = vec![];
        r.on_segment(0, &seg(0), 0, &mut out);
        assert!(out.is_empty());
        assert_eq!(r.delack_deadline(), Some(MS));
        r.on_segment(10, &seg(1), 0, &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].ack, 2 * MSS as u64);
        assert_eq!(out[0].tsecr, 0); // RFC 7323: echo the earliest unacked segment's TSval
        assert!(r.delack_deadline().is_none());
        r.on_segment(20, &seg(2), 0, &mut out);
        assert_eq!(out.len(), 1);
        r.on_delack_timeout(MS, &mut out); // early: nothing
        assert_eq!(out.len(), 1);
        r.on_delack_timeout(20 + MS, &mut out);
        assert_eq!(out.len(), 2);
        assert_eq!(out[1].ack, 3 * MSS as u64);
        assert_eq!(out[1].tsecr, 2 * US);
    }

    #[test]
    fn out_of_order_hole_fill_and_duplicates_are_immediate_with_sack() {
        let mut r = rx(true);
        let mut out = vec![];
        r.on_segment(0, &seg(0), 0, &mut out);
        r.on_segment(0, &seg(1), 0, &mut out); // ACK 2000
        out.clear();
        r.on_segment(0, &seg(3), 0, &mut out); // hole at 2
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].ack, 2000);
        assert_eq!(out[0].sack_blocks(), &[(3000, 4000)]);
        assert_eq!(out[0].tsecr, 0); // OOO segment does not update TS.Recent
        r.on_segment(0, &seg(5), 0, &mut out);
        r.on_segment(0, &seg(7), 0, &mut out);
        r.on_segment(0, &seg(4), 0, &mut out); // joins [3000,4000) and [5000,6000)
        let a = out.last().unwrap();
        // Most recent first: the block containing seg 4, then 7; seg 5's block merged.
        assert_eq!(a.sack_blocks(), &[(3000, 6000), (7000, 8000)]);
        assert!(r.has(4500) && !r.has(6500) && r.has(1500));
        out.clear();
        r.on_segment(0, &seg(2), 0, &mut out); // fills the hole: immediate
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].ack, 6000);
        assert_eq!(out[0].tsecr, 2 * US); // RFC 7323 §4.3 (3): the gap-filling segment
        assert_eq!(out[0].sack_blocks(), &[(7000, 8000)]);
        r.on_segment(0, &seg(1), 0, &mut out); // duplicate: immediate
        assert_eq!(out.len(), 2);
        assert_eq!(out[1].ack, 6000);
    }

    #[test]
    fn three_most_recent_blocks() {
        let mut r = rx(false);
        let mut out = vec![];
        for i in [2, 4, 6, 8] {
            r.on_segment(0, &seg(i), 0, &mut out);
        }
        let a = out.last().unwrap();
        assert_eq!(a.n_sack, 3);
        assert_eq!(a.sack_blocks(), &[(8000, 9000), (6000, 7000), (4000, 5000)]);
    }

    #[test]
    fn dctcp_ce_flip_acks_pending_with_old_state() {
        let mut r = rx(true);
        let mut out = vec![];
        r.on_segment(0, &seg(0), 0, &mut out); // pending 1, CE=0
        let mut s = seg(1);
        s.ce = true;
        r.on_segment(0, &s, 0, &mut out); // flip: ACK 1000 with ECE=0, then pending
        assert_eq!(out.len(), 1);
        assert_eq!((out[0].ack, out[0].ece), (1000, false));
        let mut s = seg(2);
        s.ce = true;
        r.on_segment(0, &s, 0, &mut out); // second CE segment: normal delayed ACK
        assert_eq!(out.len(), 2);
        assert_eq!((out[1].ack, out[1].ece), (3000, true));
        r.on_segment(0, &seg(3), 0, &mut out); // flip back, nothing pending: no ACK
        assert_eq!(out.len(), 2);
        r.on_segment(0, &seg(4), 0, &mut out);
        assert_eq!((out[2].ack, out[2].ece), (5000, false));
    }

    #[test]
    fn last_segment_acked_immediately_and_out_of_window_ignored() {
        let cfg = TcpConfig {
            mss: MSS,
            delayed_ack: true,
            rwnd_bytes: 4000,
            ..Default::default()
        };
        let mut r = TcpReceiver::new(&cfg, 2500);
        let mut out = vec![];
        r.on_segment(0, &seg(0), 0, &mut out);
        assert!(out.is_empty());
        r.on_segment(
            0,
            &RxSegment {
                seq: 9000,
                len: 1000,
                ce: false,
                tsval: 0,
                ..Default::default()
            },
            0,
            &mut out,
        );
        assert_eq!(out.len(), 1); // beyond flow/window: ACKed, not stored
        assert_eq!(r.ooo_bytes(), 0);
        r.on_segment(
            0,
            &RxSegment {
                seq: 2000,
                len: 500,
                ce: false,
                tsval: 0,
                ..Default::default()
            },
            0,
            &mut out,
        );
        r.on_segment(0, &seg(1), 0, &mut out);
        assert!(r.complete());
        assert_eq!(out.last().unwrap().ack, 2500);
    }
}
