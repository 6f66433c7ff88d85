//! Near-Opt: the oracle transport of the low-priority-flows study (LPF §3; mechanisms §4.12).
//!
//! An RCP-style, rate-based transport with global knowledge, "only used for comparison and
//! may not be practically realizable":
//!
//! - **Rate information.** Every period T (the link delay by default: "We choose T as the link
//!   delay instead of RTT to minimize this error"), for each link ℓ and priority class i
//!
//!   r_i^ℓ = ( R − Σ_{c<i} B_c/T − Σ_{c<i} Q_c/T − own_i/T ) / |F_i^ℓ|
//!
//!   with R the link rate, B_c the bytes of class c the link sent in the previous round, Q_c
//!   the current queue of class c and |F_i^ℓ| the active Near-Opt flows of class i on ℓ. A
//!   flow sends at the minimum over its path (clamped at `min_rate`, 0 by default: a flow with
//!   no rate pauses). Rates are in wire bytes per second.
//!
//!   The class's own queue term `own_i` is where the paper's printed equation (Σ_{c≤i} Q_c)
//!   and its prose ("discounts the high priority load", only higher classes) disagree. The
//!   printed form is not work-conserving: with T = 25 µs at 10 Gb/s, 31 KB of own queue
//!   zeroes the rate while the link could still send, and paced flows alone on a link used
//!   82–95% of it. An upper-bound baseline must not leave the link idle, so the default
//!   (`OwnQueue::Excess`) counts only the own queue beyond one period's worth of the link
//!   (R·T): that much keeps the link busy through the next round, and only the excess is
//!   drained. `OwnQueue::Full` is the printed equation, `OwnQueue::Ignore` the prose alone.
//! - **Pacing.** A packet sent at a small rate sets the next send far ahead; every rate update
//!   re-paces from the last send at the new rate, so a rate raised from ~0 to R takes effect
//!   within one period instead of after the stale gap.
//! - **Loss information.** On a retransmission timeout the sender consults the simulator's
//!   record of what really happened: it retransmits only segments that were truly lost (no
//!   copy in flight, not received) and otherwise re-arms the timer, so it never retransmits
//!   spuriously. No congestion back-off: the rate is set by the oracle.
//!
//! The receiver is the ordinary TCP receiver (one ACK per segment).

use super::Sim;
use crate::net::config::MAX_QUEUES;
use dcnsim_engine::{Time, SEC};
use dcnsim_transport::{Ack, RetxCause, RtoEstimator, Segment, TcpConfig};
use std::collections::VecDeque;

/// Sender state of one Near-Opt flow.
pub struct NearOptSender {
    size: u64,
    mss: u64,
    /// Wire bytes added to each segment's payload (pacing is in wire bytes).
    overhead: u64,
    snd_una: u64,
    snd_nxt: u64,
    /// Current sending rate (wire bytes per second) set by the oracle.
    pub rate: f64,
    /// Earliest time the next segment may leave.
    next_tx: Time,
    /// Time and wire bytes of the last segment sent (re-pacing on a rate update).
    last_tx: Option<(Time, u64)>,
    /// Segments found truly lost, waiting to be resent.
    retx: VecDeque<u64>,
    rto: RtoEstimator,
    timer: Option<Time>,
    pub data_pkts: u64,
    pub rto_count: u64,
}

impl NearOptSender {
    pub fn new(cfg: &TcpConfig, size: u64, overhead: u32) -> Self {
        NearOptSender {
            size,
            mss: cfg.mss as u64,
            overhead: overhead as u64,
            snd_una: 0,
            snd_nxt: 0,
            rate: 0.0,
            next_tx: 0,
            last_tx: None,
            retx: VecDeque::new(),
            rto: RtoEstimator::new(cfg),
            timer: None,
            data_pkts: 0,
            rto_count: 0,
        }
    }

    pub fn done(&self) -> bool {
        self.snd_una >= self.size
    }
    pub fn snd_una(&self) -> u64 {
        self.snd_una
    }
    pub fn inflight(&self) -> u64 {
        self.snd_nxt - self.snd_una
    }
    pub fn srtt(&self) -> Option<Time> {
        self.rto.srtt()
    }
    pub fn rto(&self) -> Time {
        self.rto.rto()
    }
    pub fn rto_deadline(&self) -> Option<Time> {
        self.timer
    }

    /// Sets the oracle's rate and re-paces: the next segment may leave one wire-packet time
    /// at the new rate after the last one (mechanisms §4.12 RI; without this a packet sent at
    /// a tiny rate would hold the flow back long after the rate recovered).
    pub fn set_rate(&mut self, rate: f64) {
        self.rate = rate;
        if rate > 0.0 {
            if let Some((t, wire)) = self.last_tx {
                self.next_tx = t + Self::gap(wire, rate);
            }
        }
    }

    fn gap(wire: u64, rate: f64) -> Time {
        ((wire as f64 * SEC as f64) / rate).ceil() as Time
    }

    /// Whether the sender has something to send (rate permitting).
    fn has_data(&self) -> bool {
        !self.retx.is_empty() || self.snd_nxt < self.size
    }

    /// When the next segment may be sent, if any is pending and the rate is positive.
    pub fn next_send(&self) -> Option<Time> {
        (self.has_data() && self.rate > 0.0).then_some(self.next_tx)
    }

    /// Emits at most one segment if its time has come; returns whether it did.
    pub fn poll(&mut self, now: Time, out: &mut Vec<Segment>) -> bool {
        if self.rate <= 0.0 || now < self.next_tx {
            return false;
        }
        let (seq, retx) = if let Some(s) = self.retx.pop_front() {
            (s, Some(RetxCause::Rto))
        } else if self.snd_nxt < self.size {
            let s = self.snd_nxt;
            self.snd_nxt = (s + self.mss).min(self.size);
            (s, None)
        } else {
            return false;
        };
        let len = self.mss.min(self.size - seq) as u32;
        out.push(Segment {
            seq,
            len,
            retx,
            ect: false,
            tsval: now,
            mark: dcnsim_transport::TltMark::None,
        });
        self.data_pkts += 1;
        let wire = len as u64 + self.overhead;
        self.next_tx = now + Self::gap(wire, self.rate);
        self.last_tx = Some((now, wire));
        if self.timer.is_none() {
            self.timer = Some(now + self.rto.rto());
        }
        true
    }

    /// Queues `seq` for retransmission (immediate loss information); no-op if queued already.
    /// It goes out at the next pacing slot.
    pub fn requeue(&mut self, seq: u64) {
        if seq >= self.snd_una && seq < self.snd_nxt && !self.retx.contains(&seq) {
            self.retx.push_back(seq);
        }
    }

    /// Cumulative ACK processing: RTT sample from the echoed timestamp, timer restart.
    pub fn on_ack(&mut self, now: Time, ack: &Ack) {
        if ack.ack > self.snd_una && ack.ack <= self.snd_nxt {
            self.snd_una = ack.ack;
            if ack.tsecr > 0 && ack.tsecr <= now {
                self.rto.on_sample(now - ack.tsecr);
            }
            self.retx.retain(|&s| s >= ack.ack);
            self.timer = (self.snd_una < self.snd_nxt).then(|| now + self.rto.rto());
        }
    }

    /// The retransmission timer fired: consult the oracle `lost(seq)` for every outstanding
    /// segment and queue only the truly lost ones (LPF §3, "loss information").
    pub fn on_timeout(&mut self, now: Time, lost: impl Fn(u64) -> bool) {
        self.rto_count += 1;
        let mut s = self.snd_una;
        while s < self.snd_nxt {
            if lost(s) && !self.retx.contains(&s) {
                self.retx.push_back(s);
            }
            s += self.mss;
        }
        if !self.retx.is_empty() {
            self.next_tx = self.next_tx.min(now);
        }
        self.timer = (self.snd_una < self.snd_nxt).then(|| now + self.rto.rto());
    }
}

/// How the oracle counts a class's own queue (see the module doc).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OwnQueue {
    /// Only the own queue beyond R·T (one period of the link): work-conserving.
    #[default]
    Excess,
    /// The printed equation: all of it (Σ_{c≤i} Q_c/T).
    Full,
    /// The prose: none of it (only higher-priority load is discounted).
    Ignore,
}

/// Per-link state of the rate oracle.
#[derive(Clone, Copy, Default)]
struct LinkState {
    last_out: [u64; MAX_QUEUES],
    nflows: [u32; MAX_QUEUES],
    /// Rate per class for the current round (wire bytes/s); valid when nflows > 0.
    rate: [f64; MAX_QUEUES],
    active: bool,
}

/// The Near-Opt rate oracle.
#[derive(Default)]
pub struct NearOptOracle {
    pub period: Time,
    pub min_rate: f64,
    pub own_queue: OwnQueue,
    links: Vec<LinkState>,
    /// Ports with at least one active Near-Opt flow.
    ports: Vec<u32>,
    /// Active Near-Opt flows.
    pub flows: Vec<u32>,
    pub ticking: bool,
}

impl NearOptOracle {
    /// Registers a flow of queue class `q` on every port of `path`.
    pub fn add_flow(&mut self, f: u32, q: usize, path: &[u32], n_ports: usize) {
        if self.links.len() < n_ports {
            self.links.resize(n_ports, LinkState::default());
        }
        for &p in path {
            let l = &mut self.links[p as usize];
            l.nflows[q] += 1;
            if !l.active {
                l.active = true;
                self.ports.push(p);
            }
        }
        self.flows.push(f);
    }

    pub fn remove_flow(&mut self, f: u32, q: usize, path: &[u32]) {
        for &p in path {
            let l = &mut self.links[p as usize];
            l.nflows[q] = l.nflows[q].saturating_sub(1);
        }
        self.flows.retain(|&x| x != f);
    }

    /// The oracle's rate for class `q` on port `p` this round.
    fn rate(&self, p: u32, q: usize) -> f64 {
        self.links[p as usize].rate[q]
    }
}

impl Sim {
    /// One round of the oracle: recompute every active link's per-class rates, then every
    /// active flow's rate as the minimum over its path, and wake flows that may now send.
    pub(super) fn on_nearopt_tick(&mut self) {
        let now = self.now();
        let t = self.nearopt.period.max(1) as f64 / SEC as f64;
        let mut i = 0;
        while i < self.nearopt.ports.len() {
            let p = self.nearopt.ports[i];
            let port = &self.ports[p as usize];
            let nq = self.profiles[port.profile as usize].nq as usize;
            let link_bps = port.clock.rate().0 as f64 / 8.0;
            let l = &mut self.nearopt.links[p as usize];
            let own_queue = self.nearopt.own_queue;
            let mut higher = 0.0; // Σ_{c<i} (B_c + Q_c) / T: the higher-priority load
            for c in 0..nq {
                let out = port.stats[c].bytes_out;
                let b = (out - l.last_out[c]) as f64 / t;
                l.last_out[c] = out;
                let q = port.q[c].bytes as f64;
                let own = match own_queue {
                    OwnQueue::Excess => (q - link_bps * t).max(0.0),
                    OwnQueue::Full => q,
                    OwnQueue::Ignore => 0.0,
                } / t;
                let n = l.nflows[c];
                // LPF §3: r_i = (R − Σ_{c<i} (B_c + Q_c)/T − own_i/T) / |F_i|, clamped at 0.
                l.rate[c] = if n > 0 {
                    ((link_bps - higher - own) / n as f64).max(0.0)
                } else {
                    0.0
                };
                higher += b + q / t;
            }
            if l.nflows.iter().all(|&n| n == 0) {
                l.active = false;
                self.nearopt.ports.swap_remove(i);
                continue;
            }
            i += 1;
        }
        let flows = std::mem::take(&mut self.nearopt.flows);
        for &f in &flows {
            let q = self.flows.nearopt_class(f);
            let path = self.flows.path(f);
            let mut r = path
                .iter()
                .map(|&p| self.nearopt.rate(p, q))
                .fold(f64::INFINITY, f64::min);
            if !r.is_finite() {
                r = 0.0;
            }
            let r = r.max(self.nearopt.min_rate);
            self.flows.set_nearopt_rate(f, r);
            self.sync_pace(f);
        }
        self.nearopt.flows = flows;
        if !self.nearopt.flows.is_empty() {
            self.ev
                .push(now + self.nearopt.period.max(1), super::Event::NearOptTick);
        } else {
            self.nearopt.ticking = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dcnsim_engine::US;

    /// A rate raised from ~0 to R takes effect within one period: the packet sent at the tiny
    /// rate does not hold the flow back once the oracle raises it.
    #[test]
    fn a_raised_rate_takes_effect_within_one_period() {
        let cfg = TcpConfig::default();
        let mut s = NearOptSender::new(&cfg, 1_000_000, 78);
        let mut out = Vec::new();
        s.set_rate(1e3); // ~0: one packet per 1.5 s
        assert!(s.poll(0, &mut out));
        assert!(s.next_send().unwrap() > SEC);
        let period = 25 * US;
        let r = 10e9 / 8.0;
        s.set_rate(r);
        let next = s.next_send().unwrap();
        assert!(next <= period, "next send at {next} ps, period {period} ps");
        // and the flow then runs at R: 10 packets in 10 wire-packet times
        let mut now = next;
        for _ in 0..10 {
            now = now.max(s.next_send().unwrap());
            assert!(s.poll(now, &mut out));
        }
        let gap = NearOptSender::gap(cfg.mss as u64 + 78, r);
        assert!(now <= next + 9 * gap, "{now} vs {}", next + 9 * gap);
        // A lowered rate re-paces later, a zero rate pauses.
        s.set_rate(r / 100.0);
        assert!(s.next_send().unwrap() >= now + 99 * gap);
        s.set_rate(0.0);
        assert_eq!(s.next_send(), None);
    }
}
