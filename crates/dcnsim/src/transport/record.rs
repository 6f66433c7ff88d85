//! Per-flow records (one row of the results table, the same columns for every transport),
//! sender-state trace rows, and the simulator-only bookkeeping the TCP-family endpoints keep
//! beside the protocol: copies of each segment in flight (to classify retransmissions as
//! spurious exactly) and segment delivery times (TLT Fig. 16).

use dcnsim_engine::Time;
use std::collections::VecDeque;

/// Per-flow outcome.
#[derive(Clone, Debug, Default)]
pub struct FlowRecord {
    pub finish: Option<Time>,
    pub sender_done: Option<Time>,
    pub data_pkts: u64,
    pub retx_pkts: u64,
    pub fast_retx: u64,
    pub rto_count: u64,
    pub spurious_rto: u64,
    pub spurious_retx: u64,
    pub ecn_marks: u64,
    pub max_cwnd: u64,
    pub max_pkt_drops: u32,
    pub drops: u64,
    /// TCP+: times a marked probe echo halted the sender.
    pub cqcn_halts: u64,
    /// RoCE: congestion notification packets (CNPs, DCQCN §3.2) the sender received.
    pub cnps: u64,
    /// When data could first flow (the SYN-ACK's arrival with a handshake, else the start).
    pub established: Option<Time>,
    /// RoCE responder, the TLT RoCE reference's application-level timing
    /// (`transport/roce/seen.rs`): when the first copy of the first packet to reach the
    /// receiving host was sent, and when every packet had reached it at least once, in any
    /// order (a go-back-N NIC discards the out-of-order ones; this counts them).
    pub rx_first_sent: Option<Time>,
    pub rx_all: Option<Time>,
    /// SYN retransmissions.
    pub syn_retx: u32,
    /// Tail-loss probes sent and losses they recovered (RFC 8985 §7).
    pub tlp_probes: u64,
    pub tlp_recoveries: u64,
    /// Timeouts and fast recoveries undone as spurious (F-RTO, timestamps, D-SACK).
    pub undo_rto: u64,
    pub undo_fast: u64,
    /// TLT: important data segments sent (Important Data and Important Clock Data), their
    /// payload bytes, the important ones dropped in the fabric, the bytes sent by important
    /// ACK-clocking, and segments an Important Echo revealed as lost.
    pub important_pkts: u64,
    pub important_bytes: u64,
    pub important_drops: u64,
    pub clock_bytes: u64,
    pub tlt_lost_segs: u64,
    /// Sender state when it finished (or at the end of the run): smoothed RTT and RTO.
    pub srtt: Option<Time>,
    pub rto: Option<Time>,
    /// Bytes cumulatively acknowledged when the sender finished (or at the end of the run).
    pub acked: u64,
    /// REFLEX: intervals decided (UPDATE calls) and those spent at LOW priority; the last
    /// fair-share estimate (bytes/s) and the budgets B_α, B_r (bytes) at the end.
    pub reflex_intervals: u64,
    pub reflex_low: u64,
    pub reflex_r_fair: Option<f64>,
    pub reflex_b_alpha: f64,
    pub reflex_b_r: f64,
}

/// One sample of a traced flow's sender state.
#[derive(Clone, Copy, Debug)]
pub struct TraceRow {
    pub t: Time,
    pub flow: u32,
    pub cwnd: u64,
    pub ssthresh: u64,
    pub srtt: Option<Time>,
    pub rto: Time,
    /// Bytes cumulatively acknowledged.
    pub snd_una: u64,
    pub inflight: u64,
    pub alpha: Option<f64>,
    /// REFLEX flexible flows: the current fair-share estimate (bytes/s) and whether the
    /// current interval is LOW.
    pub r_fair: Option<f64>,
    pub low: bool,
}

/// In-flight copies per segment index, as a window sliding with the lowest segment still
/// of interest (so memory follows the window, not the flow size).
#[derive(Default)]
pub(crate) struct Fate {
    base: u64,
    copies: VecDeque<u16>,
}

impl Fate {
    #[inline]
    pub(crate) fn get(&self, idx: u64) -> u16 {
        if idx < self.base {
            return 0;
        }
        self.copies
            .get((idx - self.base) as usize)
            .copied()
            .unwrap_or(0)
    }
    // Always: one call per segment sent, and an unrelated change elsewhere in the crate
    // (an error message) once moved it out of line, +1.1% of the incast's instructions.
    #[inline(always)]
    pub(crate) fn inc(&mut self, idx: u64) {
        if idx < self.base {
            return; // older than anything tracked: cannot matter any more
        }
        let off = (idx - self.base) as usize;
        if off == self.copies.len() {
            // The usual case: the next new segment.
            self.copies.push_back(1);
            return;
        }
        if off > self.copies.len() {
            self.copies.resize(off + 1, 0);
        }
        self.copies[off] += 1;
    }
    #[inline]
    pub(crate) fn dec(&mut self, idx: u64) {
        if idx >= self.base {
            if let Some(c) = self.copies.get_mut((idx - self.base) as usize) {
                *c = c.saturating_sub(1);
            }
        }
    }
    /// Forgets segments below `idx` with no copy in flight.
    #[inline]
    pub(crate) fn trim(&mut self, idx: u64) {
        while self.base < idx && self.copies.front() == Some(&0) {
            self.copies.pop_front();
            self.base += 1;
        }
        if self.copies.is_empty() && self.base < idx {
            self.base = idx;
        }
    }
}

/// Segment delivery time (TLT Fig. 16; opt-in `output.segment_delivery`): per MSS-aligned
/// segment, from its first transmission to the first ACK that covers it whole, cumulatively
/// or by SACK, retransmissions included. A window of first-transmission times slides with the
/// lowest segment not yet delivered.
#[derive(Default)]
pub(crate) struct DeliveryWin {
    base: u64,
    first: VecDeque<Time>,
}

const UNSENT: Time = Time::MAX;
const DELIVERED: Time = Time::MAX - 1;

/// Histogram of delivery times: bin 0 below 100 ns, then 50 bins per decade (4.7% wide, fine
/// enough for percentile ratios such as Fig. 16's 22.8%) up to 10 s, then one bin above.
pub const DELIVERY_BINS: usize = 8 * 50 + 2;
/// Lower edge of bin 1 (seconds) and bins per decade.
const DELIVERY_LO_EXP: f64 = -7.0;
const DELIVERY_PER_DECADE: f64 = 50.0;

/// The histogram bin of a delivery time of `t` picoseconds.
#[inline]
pub fn delivery_bin(t: Time) -> usize {
    let s = dcnsim_engine::to_secs(t);
    if s <= 0.0 {
        return 0;
    }
    let x = ((s.log10() - DELIVERY_LO_EXP) * DELIVERY_PER_DECADE).floor() + 1.0;
    x.clamp(0.0, (DELIVERY_BINS - 1) as f64) as usize
}

/// Bin edges in seconds (`DELIVERY_BINS - 1` of them: bin i spans edges[i-1]..edges[i]).
pub fn delivery_edges() -> Vec<f64> {
    (0..DELIVERY_BINS - 1)
        .map(|i| 10f64.powf(DELIVERY_LO_EXP + i as f64 / DELIVERY_PER_DECADE))
        .collect()
}

impl DeliveryWin {
    pub(crate) fn sent(&mut self, idx: u64, now: Time) {
        if idx < self.base {
            return;
        }
        let off = (idx - self.base) as usize;
        if off >= self.first.len() {
            self.first.resize(off + 1, UNSENT);
        }
        if self.first[off] == UNSENT {
            self.first[off] = now;
        }
    }
    /// Segments `lo..hi` are acknowledged at `now`: record the first time for each.
    pub(crate) fn covered(&mut self, lo: u64, hi: u64, now: Time, hist: &mut [u64; DELIVERY_BINS]) {
        for idx in lo.max(self.base)..hi {
            let off = (idx - self.base) as usize;
            let Some(t) = self.first.get_mut(off) else {
                break;
            };
            if *t < DELIVERED {
                hist[delivery_bin(now - *t)] += 1;
                *t = DELIVERED;
            }
        }
        while self.first.front() == Some(&DELIVERED) {
            self.first.pop_front();
            self.base += 1;
        }
    }
}
