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
//!
//! This file is the oracle: the run's rate controller (`Event::Controller`), which reads the
//! fabric and sets the rate of every flow that joined it ([`crate::transport::Cx::join_controller`]).
//! The sender is `transport::nearopt`.

use super::Sim;
use crate::net::config::MAX_QUEUES;
use crate::transport::Timer;
use dcnsim_engine::{Time, SEC};

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

/// How the oracle divides a link's available rate among the class's flows (see the module doc).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Share {
    /// ÷ |F_i^ℓ|, the paper's equation: every flow on the link counts for one share, even
    /// one that another link of its path holds lower, so that share goes unused.
    #[default]
    Equal,
    /// Max-min: flows held below the link's share by another link keep their rate; the rest
    /// divide what they leave (one step of the distributed max-min iteration per period).
    MaxMin,
}

/// Per-link state of the rate oracle.
#[derive(Clone, Copy, Default)]
struct LinkState {
    last_out: [u64; MAX_QUEUES],
    nflows: [u32; MAX_QUEUES],
    /// Rate per class for the current round (wire bytes/s); valid when nflows > 0.
    rate: [f64; MAX_QUEUES],
    /// Max-min only: available rate this round, and the sum and count of flows held lower
    /// elsewhere / the count of flows not held lower elsewhere.
    avail: [f64; MAX_QUEUES],
    held_sum: [f64; MAX_QUEUES],
    held_max: [f64; MAX_QUEUES],
    free: [u32; MAX_QUEUES],
    active: bool,
}

/// The Near-Opt rate oracle.
#[derive(Default)]
pub struct NearOptOracle {
    pub period: Time,
    pub min_rate: f64,
    pub own_queue: OwnQueue,
    pub share: Share,
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
            let max_min = self.nearopt.share == Share::MaxMin;
            let mut higher = 0.0; // Σ_{c<i} (B_c + Q_c) / T: the higher-priority load
            for c in 0..nq {
                let out = port.q[c].bytes_out;
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
                let avail = (link_bps - higher - own).max(0.0);
                if max_min {
                    // Divided below, once every flow's path is known (the previous round's
                    // share `l.rate[c]` decides which flows another link holds lower).
                    l.avail[c] = avail;
                    l.held_sum[c] = 0.0;
                    l.held_max[c] = 0.0;
                    l.free[c] = 0;
                } else {
                    l.rate[c] = if n > 0 { avail / n as f64 } else { 0.0 };
                }
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
        if self.nearopt.share == Share::MaxMin {
            self.nearopt_max_min(&flows);
        }
        for &f in &flows {
            let (q, path) = self.flows.controlled(f);
            let mut r = path
                .iter()
                .map(|&p| self.nearopt.rate(p, q))
                .fold(f64::INFINITY, f64::min);
            if !r.is_finite() {
                r = 0.0;
            }
            let r = r.max(self.nearopt.min_rate);
            self.flows.set_rate(f, r);
            self.sync_timer(f, Timer::Pace);
        }
        self.nearopt.flows = flows;
        if !self.nearopt.flows.is_empty() {
            self.ev
                .push(now + self.nearopt.period.max(1), super::Event::Controller);
        } else {
            self.nearopt.ticking = false;
        }
    }

    /// One step of the distributed max-min iteration (Charny-style): on each link, a flow
    /// whose current rate is below the link's previous share is held lower by another link
    /// of its path and keeps that rate; the link's share is what those flows leave, divided
    /// among the others. Repeated every period, the shares converge to the max-min fair
    /// rates of the active flows, so a link's share is not reserved for flows that cannot
    /// use it (LPF §3 prose: Near-Opt knows "the fair-share rate of a low-priority flow").
    fn nearopt_max_min(&mut self, flows: &[u32]) {
        const TOL: f64 = 1e-9;
        for &f in flows {
            let (q, path) = self.flows.controlled(f);
            let r = self.flows.nearopt_rate_of(f).unwrap_or(0.0);
            for &p in path {
                let l = &mut self.nearopt.links[p as usize];
                if r < l.rate[q] * (1.0 - TOL) {
                    l.held_sum[q] += r;
                    l.held_max[q] = l.held_max[q].max(r);
                } else {
                    l.free[q] += 1;
                }
            }
        }
        for &p in &self.nearopt.ports {
            let l = &mut self.nearopt.links[p as usize];
            for c in 0..MAX_QUEUES {
                if l.nflows[c] == 0 {
                    l.rate[c] = 0.0;
                    continue;
                }
                let left = (l.avail[c] - l.held_sum[c]).max(0.0);
                l.rate[c] = if l.free[c] > 0 {
                    left / l.free[c] as f64
                } else {
                    // Every flow is held lower elsewhere: the share is the level at which the
                    // fastest of them would start to count here.
                    left + l.held_max[c]
                };
            }
        }
    }
}
