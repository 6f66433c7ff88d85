//! Near-Opt: the oracle transport of the low-priority-flows study (LPF §3; mechanisms §4.12).
//!
//! An RCP-style, rate-based transport with global knowledge, "only used for comparison and
//! may not be practically realizable":
//!
//! - **Rate information.** Every period T (the link delay by default: "We choose T as the link
//!   delay instead of RTT to minimize this error"), for each link ℓ and priority class i
//!
//!   r_i^ℓ = ( R − Σ_{c<i} B_c/T − Σ_{c≤i} Q_c/T ) / |F_i^ℓ|
//!
//!   with R the link rate, B_c the bytes of class c the link sent in the previous round, Q_c
//!   the current queue of class c and |F_i^ℓ| the active Near-Opt flows of class i on ℓ. A
//!   flow sends at the minimum over its path (clamped at `min_rate`, 0 by default: a flow with
//!   no rate pauses). Rates are in wire bytes per second.
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
        });
        self.data_pkts += 1;
        let wire = len as u64 + self.overhead;
        self.next_tx = now + ((wire as f64 * SEC as f64) / self.rate).ceil() as Time;
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
            let mut higher_sent = 0.0; // Σ_{c<i} B_c / T
            let mut queued = 0.0; // Σ_{c≤i} Q_c / T
            for c in 0..nq {
                let out = port.stats[c].bytes_out;
                let b = (out - l.last_out[c]) as f64 / t;
                l.last_out[c] = out;
                queued += port.q[c].bytes as f64 / t;
                let n = l.nflows[c];
                // LPF §3: r_i = (R − Σ_{c<i} B_c/T − Σ_{c≤i} Q_c/T) / |F_i|, clamped at 0.
                l.rate[c] = if n > 0 {
                    ((link_bps - higher_sent - queued) / n as f64).max(0.0)
                } else {
                    0.0
                };
                higher_sent += b;
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
