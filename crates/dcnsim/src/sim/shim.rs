//! The sender-side rate-limiter shim (spec §3 "rate limiters / token buckets", "shim
//! layer"; C3 §3.2 / spec §5.3.2): between the TCP-family transports and the NIC of every
//! host. ElasticSwitch (`scheme::elasticswitch`) and C3 (`scheme::c3`) both run on it; they
//! differ in how flows map to pipes and in the per-interval control law.
//!
//! A **pipe** is one unidirectional rate-limited ingress queue at the sending host:
//! ElasticSwitch has one per (source host, destination host) VM pair, C3 one per (source
//! host, destination host, objective). What the shim does:
//!
//! * **Sender** (`shim_take`, from `host_send`): a data packet of a pipe's flow is
//!   encapsulated — `encap` bytes of outer header on the wire, the inner ECN bits saved in
//!   `Packet::tunnel`, ECT set on the outer header (C3 §5.3.8: "ECT set on every outer
//!   header") — and queued in the pipe. The inner header is CE-marked at enqueue when the
//!   pipe holds ≥ `mark_k` packets ("the inner IP headers are marked only at the shim layer
//!   queues"); beyond `queue_limit` packets the shim drops (counted as a scheme drop on the
//!   host's NIC port). A token bucket of `bucket` MTUs releases packets into the NIC at the
//!   pipe's rate (`Event::Shim(pipe)` wakes it; no per-packet allocation).
//! * **Switches** mark the outer header as they mark any ECT packet (nothing changes there).
//! * **Receiver** (`shim_receive`, from `host_receive`): decapsulates — the outer CE is
//!   counted for the pipe, the inner ECN bits are restored — before the transport sees the
//!   packet.
//! * **Control** (`Event::Shim(TICK)` every `interval`, 5 ms by default): each pipe's marked
//!   fraction of the interval is fed back to its sender — by default out of band and
//!   without delay or loss [simplification]; with C3's `feedback = "packet"` as a report
//!   packet from the receiving host through the fabric, the law running on its arrival —
//!   and the scheme's law sets the new rate (ES: weighted AIMD with
//!   R ≥ G; C3: Eq. 1/2, `fujiz` or `additive`, R_w ≥ R_G). Guarantees and weights are
//!   re-derived from the pipes' active flows.
//! * **Start** (C3 `start`; spec §5.3.3 "initial R_w"): a pipe starts when a flow joins it
//!   while it is idle. `guarantee`: a created pipe at R_G, a returning one from its last R_w;
//!   `share`: at the host's line rate over its busy pipes (`start_pipe`).
//!
//! * **Coordinator** (C3 only, `coordinator = true`; spec §5.3.5): every
//!   `coordinator_interval` (a multiple of the control interval, at a control tick, before
//!   the rate law) it collects every pipe's R_G and raw weight and, knowing each pipe's path
//!   (the routes of the fabric), (1) demotes flows to their (src, dst) BE pipe while a link's
//!   Σ R_G exceeds its rate — most recently arrived flow first (spec §5.3.5 CHOICE) — and
//!   (2) computes the per-objective scale factors network-wide (`c3::scale_factors`) that the
//!   shims multiply their pipes' raw weights by. Decisions apply at once (no message delay).
//!
//! Choices: only data segments enter pipes; pure ACKs and control packets (SYN, FIN) of
//! shim flows go to the NIC directly, unencapsulated (the pipes carry data; the paper's
//! receiver-to-sender direction would otherwise be rate-limited by the reverse pipe). The
//! token bucket counts wire bytes including the outer header. RoCE flows bypass the shim.
//! With no shim configured none of this runs: `host_send`/`host_receive` test one `Option`.

use super::{Ecmp, Event, Sim, MAX_EVENT_INDEX};
use crate::net::buffer::DropReason;
use crate::packet::Packet;
use crate::packet::{flags, tunnel, PktId, PktKind, PktList, NIL};
use crate::scheme::c3::{self, C3Config, C3Feedback, C3Start, C3Variant, Objective, N_OBJECTIVES};
use crate::scheme::elasticswitch::{self, ElasticSwitchConfig};
use crate::transport::NEVER;
use dcnsim_engine::{Time, SEC};
use std::collections::BTreeMap;

/// The `Event::Shim` index of the control-interval tick (pipes use 0..).
pub const TICK: u32 = MAX_EVENT_INDEX;

/// The per-interval control law.
#[derive(Clone, Debug)]
pub enum Law {
    Es(ElasticSwitchConfig),
    C3(C3Config),
}

/// What a traffic class does under the shim.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClassShim {
    /// The class's flows enter pipes (TCP family, and under ES a class with a guarantee).
    pub enters: bool,
    pub objective: Objective,
    /// Per-flow guarantee, bits/s (TS and ES).
    pub guarantee: f64,
}

#[derive(Clone, Copy, Debug)]
struct FlowShim {
    pipe: u32,
    /// Highest payload byte handed to the pipe.
    sent: u64,
    /// Payload bytes of the flow waiting in its pipe's queue (not yet released to the
    /// NIC). The pipe still has to carry them, so a flow's remaining bytes for the DS
    /// guarantee and the PS order are size − sent + queued.
    queued: u64,
    active: bool,
    /// The coordinator moved the flow to its BE pipe (spec §5.3.5).
    demoted: bool,
}

/// One pipe: its queue, its limiter and its control state.
#[derive(Clone, Debug)]
pub struct Pipe {
    pub src: u32,
    pub dst: u32,
    pub objective: Objective,
    /// Two weighted sub-queues (C3 §3.3 / spec §5.3.6): 0 = high, 1 = low.
    q: [PktList; 2],
    deficit: [f64; 2],
    cur: usize,
    /// The flow whose packets go to the high sub-queue (DS: earliest deadline; PS:
    /// smallest remaining size); NIL = all in sub-queue 0 (FIFO).
    high: u32,
    /// Weighted rate R_w (bits/s); the limiter runs at R_w ≥ R_G.
    pub r_w: f64,
    /// Guarantee R_G (bits/s).
    pub r_g: f64,
    /// Normalised weight of the last interval.
    pub weight: f64,
    /// Congestion level α (EWMA of the marked fraction; C3).
    pub alpha: f64,
    /// Token bucket: bytes of debt at `t_last`; a packet may leave when debt ≤ slack.
    debt: f64,
    t_last: Time,
    slack: f64,
    /// Pending wake-up (NEVER = none).
    wake: Time,
    /// Receiver-side counters of the current interval.
    rx_pkts: u64,
    rx_marked: u64,
    /// Wire bytes released in the current interval, and as a rate over the last one.
    tx_bytes: u64,
    last_sent_bps: f64,
    /// Active flows (insertion order).
    pub flows: Vec<u32>,
    pub stats: PipeStats,
    /// Raw weight of the objective's rule (spec §5.3.4), before normalisation.
    pub raw: f64,
    /// ECMP entropy of the outer header (C3 §3.2: "the five-tuples in the outer IP/UDP
    /// header can uniquely identify a pipe", so the fabric hashes a pipe to one path).
    entropy: u32,
    /// Egress ports the pipe crosses (the coordinator's view; empty until it looks).
    pub path: Vec<u32>,
}

/// Cumulative per-pipe counters.
#[derive(Clone, Copy, Debug, Default)]
pub struct PipeStats {
    pub tx_pkts: u64,
    pub tx_bytes: u64,
    pub inner_marks: u64,
    pub drops: u64,
    pub rx_pkts: u64,
    pub rx_marked: u64,
    /// Flows that entered the pipe; flows the coordinator demoted out of it.
    pub flows: u64,
    pub demoted: u64,
    /// Feedback report packets that reached the sender (`feedback = "packet"`).
    pub reports: u64,
    /// Control intervals the pipe was busy (flows or backlog), and over them the sums of
    /// R_G and of the released wire rate (means in the pipe table), and the largest R_G.
    pub busy_ticks: u64,
    pub sum_r_g: f64,
    pub sum_sent_bps: f64,
    pub max_r_g: f64,
}

/// The coordinator's state (spec §5.3.5).
#[derive(Clone, Debug)]
pub struct Coord {
    pub interval: Time,
    pub admission: bool,
    /// Time of the next round (a control tick).
    next: Time,
    /// Scale factors s_o of the last round (`c3::scale_factors`); None before the first.
    pub scale: Option<[f64; N_OBJECTIVES]>,
    pub rounds: u64,
    /// Flows demoted so far.
    pub demoted: u64,
}

/// One pipe at one control tick (after the update).
#[derive(Clone, Copy, Debug)]
pub struct PipeSample {
    pub t: Time,
    pub pipe: u32,
    /// Limiter rate R_w and guarantee R_G after the update (bits/s).
    pub rate: f64,
    pub r_g: f64,
    pub weight: f64,
    /// Marked fraction the receiver reported for the interval that ended.
    pub frac: f64,
    /// Wire bits/s the pipe released in the interval that ended.
    pub sent_bps: f64,
    /// Packets queued in the pipe at the tick.
    pub backlog: u32,
}

pub struct Shim {
    pub law: Law,
    pub interval: Time,
    encap: u32,
    mark_k: u32,
    limit: u32,
    bucket: u32,
    mtu: u32,
    /// Wire bytes per payload byte of a full segment ((MTU frame + outer header) / MSS):
    /// guarantees derived from payload (DS) are charged on the wire.
    wire_per_payload: f64,
    classes: Vec<ClassShim>,
    flows: Vec<FlowShim>,
    pub pipes: Vec<Pipe>,
    index: BTreeMap<(u32, u32, u8), u32>,
    host_pipes: Vec<Vec<u32>>,
    /// Host link rate (bits/s): R_w's ceiling.
    line: Vec<f64>,
    ticking: bool,
    pub samples: Vec<PipeSample>,
    pub max_samples: usize,
    /// C3's coordinator (None: off, or ElasticSwitch).
    pub coord: Option<Coord>,
}

impl Shim {
    pub fn new(law: Law, classes: Vec<ClassShim>, line: Vec<f64>, mtu: u32, mss: u32) -> Shim {
        let (interval, encap, mark_k, limit, bucket) = match &law {
            Law::Es(c) => (c.interval.0, c.encap.0, c.mark_k, c.queue_limit, c.bucket),
            Law::C3(c) => (c.interval.0, c.encap.0, c.mark_k, c.queue_limit, c.bucket),
        };
        Shim {
            interval,
            encap: encap as u32,
            mark_k,
            limit,
            bucket,
            mtu,
            wire_per_payload: (mtu + encap as u32) as f64 / mss.max(1) as f64,
            classes,
            flows: Vec::new(),
            pipes: Vec::new(),
            index: BTreeMap::new(),
            host_pipes: vec![Vec::new(); line.len()],
            line,
            ticking: false,
            samples: Vec::new(),
            max_samples: 1 << 22,
            coord: match &law {
                Law::C3(c) if c.coordinator => Some(Coord {
                    interval: c.coordinator_interval.0,
                    admission: c.admits(),
                    next: 0,
                    scale: None,
                    rounds: 0,
                    demoted: 0,
                }),
                _ => None,
            },
            law,
        }
    }

    /// The pipe a flow was put in, if any.
    pub fn pipe_of(&self, flow: u32) -> Option<u32> {
        self.flows
            .get(flow as usize)
            .map(|f| f.pipe)
            .filter(|&p| p != NIL)
    }

    /// The pipe of (src, dst, objective), if it was created.
    pub fn find(&self, src: u32, dst: u32, o: Objective) -> Option<u32> {
        let key = match self.law {
            Law::Es(_) => (src, dst, 0),
            Law::C3(_) => (src, dst, o as u8),
        };
        self.index.get(&key).copied()
    }

    fn pipe_for(&mut self, src: u32, dst: u32, o: Objective) -> u32 {
        let key = match self.law {
            Law::Es(_) => (src, dst, 0),
            Law::C3(_) => (src, dst, o as u8),
        };
        if let Some(&p) = self.index.get(&key) {
            return p;
        }
        let p = self.pipes.len() as u32;
        assert!(p < TICK, "too many shim pipes");
        let bucket = match (&self.law, o) {
            (Law::C3(c), Objective::Ls) => c.ls_bucket,
            _ => self.bucket,
        };
        self.index.insert(key, p);
        self.host_pipes[src as usize].push(p);
        self.pipes.push(Pipe {
            src,
            dst,
            objective: o,
            q: [PktList::default(); 2],
            deficit: [0.0; 2],
            cur: 0,
            high: NIL,
            // Initial R_w (spec §5.3.3 CHOICE between R_G and line / pipes): `start =
            // "guarantee"` (default) leaves 0 here, so `derive` raises it to R_G when the
            // first flow joins; the pipe then grows by Eq. 1 only while the path is
            // uncongested, instead of flooding it for a control interval (line / pipes let
            // a PS burst drop packets of an established DS pipe for the 5 ms before the
            // first feedback). `start = "share"`: `start_pipe` sets line / busy pipes.
            r_w: 0.0,
            r_g: 0.0,
            weight: 0.0,
            alpha: 1.0,
            debt: 0.0,
            t_last: 0,
            slack: (bucket.saturating_sub(1) as f64) * self.mtu as f64,
            wake: NEVER,
            rx_pkts: 0,
            rx_marked: 0,
            tx_bytes: 0,
            last_sent_bps: 0.0,
            flows: Vec::new(),
            stats: PipeStats::default(),
            raw: 0.0,
            entropy: dcnsim_engine::rng::mix64(&[0xC3, src as u64, dst as u64, o as u64]) as u32,
            path: Vec::new(),
        });
        p
    }

    /// Whether pipe `p` is busy: an active flow, or packets in its queue.
    fn busy(&self, p: u32) -> bool {
        let pp = &self.pipes[p as usize];
        !(pp.flows.is_empty() && pp.q[0].is_empty() && pp.q[1].is_empty())
    }

    /// A flow is about to join pipe `p` (an arrival, or a demotion to BE). If the pipe is
    /// idle this is its start (a creation or a return from idle), and with C3's `start =
    /// "share"` its R_w becomes the source host's line rate over the host's busy pipes,
    /// this one included (spec §5.3.3 CHOICE "line-rate/num pipes"; `c3::share_start`).
    /// The host's other pipes keep their R_w [CHOICE: the spec's rule sets only the
    /// initial rate; Eq. 2 cuts them at the next marked interval if the sum overloads the
    /// path]; α keeps its value. `derive` then floors R_w at the new R_G (LS: R_w = R_G).
    /// With `start = "guarantee"` nothing happens here: a created pipe starts at R_G, a
    /// returning one from the R_w it had.
    fn start_pipe(&mut self, p: u32, now: Time) {
        if !matches!(&self.law, Law::C3(c) if c.start == C3Start::Share) || self.busy(p) {
            return;
        }
        let src = self.pipes[p as usize].src as usize;
        let others = self.host_pipes[src]
            .iter()
            .filter(|&&q| q != p && self.busy(q))
            .count();
        // The bucket's debt is settled at the old rate before the rate changes.
        self.settle(p as usize, now);
        let pp = &mut self.pipes[p as usize];
        pp.r_w = c3::share_start(self.line[src], others + 1, 0.0);
    }

    /// The time the pipe's head may leave (≤ now: at once).
    fn ready_at(&self, p: usize, now: Time) -> Time {
        let pp = &self.pipes[p];
        let rate = pp.r_w.max(pp.r_g).max(1.0) / 8.0; // bytes/s
        let debt = (pp.debt - rate * (now - pp.t_last) as f64 / SEC as f64).max(0.0);
        if debt <= pp.slack {
            return now;
        }
        now + (((debt - pp.slack) / rate) * SEC as f64).ceil() as Time
    }

    /// Charges `wire` bytes to the pipe's bucket at `now`.
    fn charge(&mut self, p: usize, now: Time, wire: u32) {
        let pp = &mut self.pipes[p];
        let rate = pp.r_w.max(pp.r_g).max(1.0) / 8.0;
        let debt = (pp.debt - rate * (now - pp.t_last) as f64 / SEC as f64).max(0.0);
        pp.debt = debt + wire as f64;
        pp.t_last = now;
        pp.tx_bytes += wire as u64;
        pp.stats.tx_bytes += wire as u64;
        pp.stats.tx_pkts += 1;
    }

    /// Settles the bucket at the old rate before the rate changes.
    fn settle(&mut self, p: usize, now: Time) {
        let pp = &mut self.pipes[p];
        let rate = pp.r_w.max(pp.r_g).max(1.0) / 8.0;
        pp.debt = (pp.debt - rate * (now - pp.t_last) as f64 / SEC as f64).max(0.0);
        pp.t_last = now;
    }

    /// DRR between the two sub-queues (95 : 5 by default): the sub-queue to serve next.
    fn pick(&mut self, p: usize, arena: &crate::packet::Arena) -> Option<usize> {
        let high_share = match &self.law {
            Law::C3(c) => c.high_share,
            Law::Es(_) => 1.0,
        };
        let pp = &mut self.pipes[p];
        match (pp.q[0].is_empty(), pp.q[1].is_empty()) {
            (true, true) => None,
            (false, true) => Some(0),
            (true, false) => Some(1),
            (false, false) => {
                // Quanta in the ratio high : low over a round of 20 MTUs.
                let round = 20.0 * self.mtu as f64;
                let quantum = [high_share * round, (1.0 - high_share) * round];
                loop {
                    let i = pp.cur;
                    let head = arena.get(pp.q[i].head).wire as f64;
                    if pp.deficit[i] >= head {
                        return Some(i);
                    }
                    pp.cur ^= 1;
                    let j = pp.cur;
                    pp.deficit[j] += quantum[j];
                }
            }
        }
    }

    /// Re-derives every pipe's guarantee, weight and in-pipe high flow of host `h`
    /// (spec §5.3.4; ES §4.1).
    fn derive(&mut self, h: u32, now: Time, desc: &[crate::transport::FlowDesc]) {
        let pipes = std::mem::take(&mut self.host_pipes[h as usize]);
        match &self.law {
            Law::Es(c) => {
                for &p in &pipes {
                    let pp = &self.pipes[p as usize];
                    let mut g: f64 = pp
                        .flows
                        .iter()
                        .map(|&f| self.classes[desc[f as usize].traffic_class as usize].guarantee)
                        .sum();
                    if let Some(hose) = c.hose {
                        if !pp.flows.is_empty() {
                            // Equal-share hose partition over the active pairs at both ends.
                            let n_out = self.host_pipes_active(pp.src, &pipes);
                            let n_in = self.pairs_into(pp.dst);
                            g += (hose.0 as f64 / n_out.max(1) as f64)
                                .min(hose.0 as f64 / n_in.max(1) as f64);
                        }
                    }
                    self.pipes[p as usize].r_g = g;
                    self.pipes[p as usize].weight = 1.0;
                }
            }
            Law::C3(c) => {
                let mut raw = vec![0.0; pipes.len()];
                for (k, &p) in pipes.iter().enumerate() {
                    let (g, w, high) = self.c3_params(c, p, now, desc);
                    let pp = &mut self.pipes[p as usize];
                    pp.r_g = g;
                    pp.high = high;
                    pp.raw = w;
                    raw[k] = w;
                }
                let scale = self.coord.as_ref().and_then(|k| k.scale);
                if let Some(s) = scale {
                    // With the coordinator (C3 §3: "the derived weight value of each pipe is
                    // multiplied by this scaling factor in the shim layer"): u = s_o·raw, then
                    // normalised over the host's pipes (spec §5.3.3 CHOICE: Σ w ≤ 1, so
                    // α·w < 1).
                    let u: Vec<f64> = pipes
                        .iter()
                        .zip(&raw)
                        .map(|(&p, &r)| s[self.pipes[p as usize].objective as usize] * r)
                        .collect();
                    let total: f64 = u.iter().sum();
                    for (k, &p) in pipes.iter().enumerate() {
                        self.pipes[p as usize].weight =
                            if total > 0.0 { u[k] / total } else { 0.0 };
                    }
                } else {
                    // Without it (static `scale`; spec §5.3.3 CHOICE): an objective present
                    // at the host gets scale_o / Σ scale of the present objectives; its pipes
                    // split that in proportion to their raw weights. Σ w ≤ 1 at every host,
                    // so α·w < 1.
                    let mut sum_o = [0.0f64; N_OBJECTIVES];
                    for (k, &p) in pipes.iter().enumerate() {
                        sum_o[self.pipes[p as usize].objective as usize] += raw[k];
                    }
                    let total: f64 = c3::ALL
                        .iter()
                        .filter(|&&o| sum_o[o as usize] > 0.0)
                        .map(|&o| c.scale.of(o))
                        .sum();
                    for (k, &p) in pipes.iter().enumerate() {
                        let o = self.pipes[p as usize].objective;
                        let w = if raw[k] > 0.0 && total > 0.0 {
                            c.scale.of(o) / total * raw[k] / sum_o[o as usize]
                        } else {
                            0.0
                        };
                        self.pipes[p as usize].weight = w;
                    }
                }
            }
        }
        self.host_pipes[h as usize] = pipes;
        let floor = match &self.law {
            Law::Es(c) => c.min_rate.0 as f64,
            Law::C3(_) => 0.0,
        };
        for &p in &self.host_pipes[h as usize] {
            let pp = &mut self.pipes[p as usize];
            if pp.objective == Objective::Ls && matches!(self.law, Law::C3(_)) {
                // "There is no need to set weight for LS flows": R_w = R_G.
                pp.r_w = pp.r_g;
            }
            pp.r_w = pp.r_w.max(pp.r_g).max(floor);
        }
    }

    /// One C3 pipe's guarantee R_G (bits/s, wire), raw weight and high-sub-queue flow
    /// from its active flows (spec §5.3.4).
    fn c3_params(
        &self,
        c: &C3Config,
        p: u32,
        now: Time,
        desc: &[crate::transport::FlowDesc],
    ) -> (f64, f64, u32) {
        let mtu = self.mtu as f64;
        let rtt = c.rtt.secs();
        let pp = &self.pipes[p as usize];
        let n = pp.flows.len();
        // S_f, the flow's remaining bytes (spec §5.3.4 CHOICE), as the pipe sees them: not
        // yet handed to it, plus those still in its queue. The EDF test is on the pipe's
        // output rate, so queued bytes still need it (leaving them out let R_G fall below
        // what the backlog needed near a deadline; test
        // `c3_ds_guarantee_counts_bytes_queued_in_the_pipe`).
        let remaining = |f: u32| {
            let d = &desc[f as usize];
            let fs = &self.flows[f as usize];
            (d.size.saturating_sub(fs.sent) + fs.queued) as f64
        };
        // A flow's absolute deadline (FlowDesc::deadline is start + the relative deadline).
        let d_due = |f: u32| desc[f as usize].deadline;
        if n == 0 {
            (0.0, 0.0, NIL)
        } else {
            match pp.objective {
                // TS: R_G = Σ the flows' minimum bandwidth; weight ∝ R_G.
                Objective::Ts => {
                    let g: f64 = pp
                        .flows
                        .iter()
                        .map(|&f| self.classes[desc[f as usize].traffic_class as usize].guarantee)
                        .sum();
                    (g, g, NIL)
                }
                // LS: 2.2 × the average demand; no weight (R_w = R_G).
                Objective::Ls => (8.0 * c3::ls_guarantee(n, mtu, rtt), 0.0, NIL),
                // DS: the EDF-feasible rate with headroom; weight ∝ R_G; the
                // earliest-deadline flow in the high sub-queue.
                Objective::Ds => {
                    let mut v: Vec<(f64, f64)> = pp
                        .flows
                        .iter()
                        .filter_map(|&f| {
                            // `FlowDesc::deadline` is already absolute (start + the
                            // workload's deadline; scenario/flows.rs), so TD_f = due − now
                            // (spec §5.3.4). Adding the start again once made every flow
                            // that starts after t = 0 look `start` later due than it is,
                            // and its pipe's R_G too small.
                            let due = d_due(f)?;
                            (due > now).then(|| (remaining(f), (due - now) as f64 / SEC as f64))
                        })
                        .collect();
                    let g = 8.0 * self.wire_per_payload * c3::ds_guarantee(&mut v, c.ds_headroom);
                    let high = pp
                        .flows
                        .iter()
                        .copied()
                        .min_by_key(|&f| (d_due(f).unwrap_or(Time::MAX), f))
                        .unwrap_or(NIL);
                    (g, g, high)
                }
                // PS: a minimal guarantee; weight Σ 1/size; SJF in the pipe.
                Objective::Ps => {
                    let w: f64 = pp
                        .flows
                        .iter()
                        .map(|&f| 1.0 / desc[f as usize].size.max(1) as f64)
                        .sum();
                    let high = pp
                        .flows
                        .iter()
                        .copied()
                        .min_by_key(|&f| (remaining(f) as u64, f))
                        .unwrap_or(NIL);
                    (8.0 * c3::ps_guarantee(mtu, rtt), w, high)
                }
                // BE: a fixed minimum; weight ∝ the number of flows.
                Objective::Be => (c.be_guarantee.0 as f64, n as f64, NIL),
            }
        }
    }

    /// The sender learns pipe `p`'s receiver counts of one interval (`rx` packets, `marked`
    /// with a CE outer header) and runs the rate law (ES §4.2; C3 Eq. 1/2 or `fujiz`).
    fn feedback(&mut self, p: usize, rx: u64, marked: u64, now: Time) {
        self.settle(p, now);
        let line = self.line[self.pipes[p].src as usize];
        let pp = &mut self.pipes[p];
        let frac = if rx > 0 {
            marked as f64 / rx as f64
        } else {
            0.0
        };
        let any = marked > 0;
        let sent_bps = pp.last_sent_bps;
        let busy = !(pp.flows.is_empty() && pp.q[0].is_empty() && pp.q[1].is_empty());
        match &self.law {
            Law::Es(c) => {
                pp.r_w = elasticswitch::es_update(c, pp.r_w, pp.r_g, any, line);
            }
            Law::C3(c) => {
                // α ← (1 − g)·α + g·F, "similar to DCTCP" (spec §5.3.3 CHOICE: EWMA).
                pp.alpha = (1.0 - c.g) * pp.alpha + c.g * frac;
                if pp.objective == Objective::Ls {
                    pp.r_w = pp.r_g;
                } else if busy {
                    pp.r_w = match c.variant {
                        C3Variant::Paper => {
                            c3::eq12(pp.r_w, pp.r_g, pp.alpha, pp.weight, any, line)
                        }
                        C3Variant::Fujiz => {
                            c3::fujiz(c, sent_bps, pp.r_w, pp.r_g, pp.alpha, pp.weight, any, line)
                        }
                        C3Variant::Additive => c3::additive(
                            pp.r_w,
                            pp.r_g,
                            pp.alpha,
                            pp.weight,
                            any,
                            c.fujiz_step.0 as f64,
                            line,
                        ),
                    };
                }
            }
        }
        if busy && self.samples.len() < self.max_samples {
            self.samples.push(PipeSample {
                t: now,
                pipe: p as u32,
                rate: pp.r_w.max(pp.r_g),
                r_g: pp.r_g,
                weight: pp.weight,
                frac,
                sent_bps,
                backlog: pp.q[0].pkts + pp.q[1].pkts,
            });
        }
    }

    fn host_pipes_active(&self, _h: u32, pipes: &[u32]) -> usize {
        pipes
            .iter()
            .filter(|&&p| !self.pipes[p as usize].flows.is_empty())
            .count()
    }

    fn pairs_into(&self, dst: u32) -> usize {
        self.pipes
            .iter()
            .filter(|p| p.dst == dst && !p.flows.is_empty())
            .count()
    }
}

impl Sim {
    /// A flow starts: put it in its pipe (before its first packet).
    #[inline(never)]
    pub(super) fn shim_flow_start(&mut self, f: u32) {
        let now = self.now();
        let d = &self.flows.desc[f as usize];
        let tcp = matches!(
            self.flows.transports[d.transport as usize].kind,
            crate::transport::TransportKind::Tcp
        );
        let (src, dst, tc) = (d.src, d.dst, d.traffic_class as usize);
        let sh = self.shim.as_mut().unwrap();
        if sh.flows.len() <= f as usize {
            sh.flows.resize(
                f as usize + 1,
                FlowShim {
                    pipe: NIL,
                    sent: 0,
                    queued: 0,
                    active: false,
                    demoted: false,
                },
            );
        }
        let Some(cl) = sh.classes.get(tc).copied() else {
            return;
        };
        if !tcp || !cl.enters {
            return;
        }
        let p = sh.pipe_for(src, dst, cl.objective);
        sh.start_pipe(p, now);
        sh.flows[f as usize] = FlowShim {
            pipe: p,
            sent: 0,
            queued: 0,
            active: true,
            demoted: false,
        };
        sh.pipes[p as usize].flows.push(f);
        sh.pipes[p as usize].stats.flows += 1;
        // DS guarantees are recomputed on arrival and departure (spec §5.3.4).
        sh.derive(src, now, &self.flows.desc);
        let ticking = std::mem::replace(&mut sh.ticking, true);
        if !ticking {
            let next = (now / sh.interval + 1) * sh.interval;
            self.ev.push(next, Event::Shim(TICK));
            if let Some(k) = sh.coord.as_mut() {
                // The coordinator's clock restarts with the control clock, at its next tick.
                k.next = k.next.max(next);
            }
        }
        self.shim_kick(p, now);
    }

    /// A flow's sender is done: it leaves its pipe.
    #[inline(never)]
    pub(super) fn shim_flow_end(&mut self, f: u32) {
        let now = self.now();
        let sh = self.shim.as_mut().unwrap();
        let Some(fs) = sh.flows.get_mut(f as usize) else {
            return;
        };
        if !fs.active {
            return;
        }
        fs.active = false;
        let p = fs.pipe as usize;
        sh.pipes[p].flows.retain(|&x| x != f);
        let src = sh.pipes[p].src;
        sh.derive(src, now, &self.flows.desc);
    }

    /// `host_send` of a shim flow's data packet: encapsulate and queue in its pipe.
    /// Returns false if the packet is not the shim's (it goes to the NIC as usual).
    #[inline(never)]
    pub(super) fn shim_take(&mut self, host: u32, id: PktId) -> bool {
        let sh = self.shim.as_mut().unwrap();
        let (kind, flow) = {
            let p = self.arena.get(id);
            (p.kind, p.flow)
        };
        if kind != PktKind::Data {
            return false;
        }
        let Some(fs) = sh.flows.get_mut(flow as usize) else {
            return false;
        };
        if fs.pipe == NIL {
            return false;
        }
        let pi = fs.pipe as usize;
        let pk = self.arena.get_mut(id);
        fs.sent = fs.sent.max(pk.seq + pk.payload as u64);
        let pipe = &mut sh.pipes[pi];
        let backlog = pipe.q[0].pkts + pipe.q[1].pkts;
        if backlog >= sh.limit {
            pipe.stats.drops += 1;
            let class = pk.class;
            let port = self.host_port(host);
            let qi = self.profiles[self.ports[port as usize].profile as usize].queue_of(class);
            self.drop_packet(port, qi, id, DropReason::Scheme);
            return true;
        }
        // Encapsulation (C3 §3.2): outer header bytes, inner ECN saved, outer ECT.
        let mut t = tunnel::ENCAP;
        if pk.flags & flags::ECT != 0 {
            t |= tunnel::INNER_ECT;
            // Inner marking only at the shim queue (spec §5.3.2), DCTCP-style at enqueue.
            if backlog >= sh.mark_k {
                t |= tunnel::INNER_CE;
                pipe.stats.inner_marks += 1;
            }
        }
        pk.tunnel = t;
        pk.flags = (pk.flags & !flags::CE) | flags::ECT;
        pk.wire += sh.encap;
        if matches!(sh.law, Law::C3(_)) && self.ecmp == Ecmp::PerFlow {
            // The fabric hashes the outer header: one path per pipe (C3 §3.2).
            pk.entropy = pipe.entropy;
        }
        fs.queued += pk.payload as u64;
        let sub = (pipe.high != NIL && pipe.high != flow) as usize;
        pipe.q[sub].push_back(&mut self.arena, id);
        if pipe.wake == NEVER {
            self.shim_pump(pi as u32);
        }
        true
    }

    /// Releases what the pipe's token bucket allows into the NIC, then schedules a wake-up
    /// for the next packet.
    fn shim_pump(&mut self, p: u32) {
        let now = self.now();
        loop {
            let sh = self.shim.as_mut().unwrap();
            let Some(sub) = sh.pick(p as usize, &self.arena) else {
                return;
            };
            let t = sh.ready_at(p as usize, now);
            if t > now {
                let pp = &mut sh.pipes[p as usize];
                if t < pp.wake {
                    pp.wake = t;
                    self.ev.push(t, Event::Shim(p));
                }
                return;
            }
            let pp = &mut sh.pipes[p as usize];
            let id = pp.q[sub].pop_front(&mut self.arena).expect("picked");
            let (wire, flow, payload) = {
                let pk = self.arena.get(id);
                (pk.wire, pk.flow, pk.payload as u64)
            };
            let both = !pp.q[sub ^ 1].is_empty();
            if both {
                pp.deficit[sub] -= wire as f64;
            }
            if pp.q[sub].is_empty() {
                pp.deficit[sub] = 0.0;
            }
            let src = pp.src;
            let fs = &mut sh.flows[flow as usize];
            fs.queued = fs.queued.saturating_sub(payload);
            sh.charge(p as usize, now, wire);
            let port = self.host_port(src);
            self.port_enqueue(port, id, false);
        }
    }

    /// Wakes a pipe whose rate may have risen (its next release may be earlier).
    fn shim_kick(&mut self, p: u32, now: Time) {
        let sh = self.shim.as_mut().unwrap();
        let pp = &sh.pipes[p as usize];
        if pp.q[0].is_empty() && pp.q[1].is_empty() {
            return;
        }
        let t = sh.ready_at(p as usize, now);
        if t <= now {
            sh.pipes[p as usize].wake = NEVER;
            self.shim_pump(p);
        } else if t < sh.pipes[p as usize].wake {
            sh.pipes[p as usize].wake = t;
            self.ev.push(t, Event::Shim(p));
        }
    }

    /// `Event::Shim`: a pipe's wake-up or the control tick.
    #[inline(never)]
    pub(super) fn on_shim(&mut self, i: u32) {
        let now = self.now();
        if i == TICK {
            return self.shim_tick();
        }
        let sh = self.shim.as_mut().unwrap();
        if sh.pipes[i as usize].wake != now {
            return; // superseded by an earlier wake-up
        }
        sh.pipes[i as usize].wake = NEVER;
        self.shim_pump(i);
    }

    /// A receiver shim's report of pipe `p`'s interval, from the pipe's destination host to
    /// its source (`feedback = "packet"`): a small `Raw` packet with no flow (`NIL`),
    /// carrying the pipe in `seq` and (packets, marked) in its first SACK slot.
    fn shim_send_report(&mut self, p: u32, rx: u64, marked: u64) {
        let sh = self.shim.as_ref().unwrap();
        let pp = &sh.pipes[p as usize];
        let wire = match &sh.law {
            Law::C3(c) => c.report_bytes.0 as u32,
            Law::Es(_) => 64,
        };
        let mut pk = Packet::new(PktKind::Raw, NIL, pp.dst, pp.src, 0, wire);
        pk.seq = p as u64;
        pk.sack[0] = (rx, marked);
        // The reverse direction's outer header hashes to its own path.
        pk.entropy = pp.entropy.rotate_left(16);
        let (from, id) = (pp.dst, self.arena.alloc(pk));
        self.host_send(from, id);
    }

    /// `host_receive`: decapsulate a shim packet and count its outer mark for its pipe; a
    /// feedback report runs its pipe's rate law. Returns true if the packet was a report
    /// (the shim consumed it).
    #[inline(never)]
    pub(super) fn shim_receive(&mut self, id: PktId) -> bool {
        let now = self.now();
        let sh = self.shim.as_mut().unwrap();
        let p = self.arena.get_mut(id);
        if p.kind == PktKind::Raw && p.flow == NIL {
            let (pipe, (rx, marked)) = (p.seq as usize, p.sack[0]);
            sh.pipes[pipe].stats.reports += 1;
            sh.feedback(pipe, rx, marked, now);
            self.shim_kick(pipe as u32, now);
            return true;
        }
        if p.tunnel & tunnel::ENCAP == 0 {
            return false;
        }
        let marked = p.flags & flags::CE != 0;
        if let Some(fs) = sh.flows.get(p.flow as usize) {
            if fs.pipe != NIL {
                let pp = &mut sh.pipes[fs.pipe as usize];
                pp.rx_pkts += 1;
                pp.rx_marked += marked as u64;
                pp.stats.rx_pkts += 1;
                pp.stats.rx_marked += marked as u64;
            }
        }
        let mut f = p.flags & !(flags::ECT | flags::CE);
        if p.tunnel & tunnel::INNER_ECT != 0 {
            f |= flags::ECT;
        }
        if p.tunnel & tunnel::INNER_CE != 0 {
            f |= flags::CE;
        }
        p.flags = f;
        p.wire -= sh.encap;
        p.tunnel = 0;
        false
    }

    /// The egress ports a pipe's packets can cross: its one path under per-flow ECMP (the
    /// outer header's hash), every shortest-path port toward `dst` when spraying (the
    /// coordinator then charges the whole R_G to each: conservative).
    fn pipe_path(&self, src: u32, dst: u32, entropy: u32) -> Vec<u32> {
        if self.ecmp == Ecmp::PerFlow {
            return self.route_of(src, dst, entropy);
        }
        let mut seen = vec![false; self.ports.len()];
        let first = self.host_port(src);
        seen[first as usize] = true;
        let mut stack = vec![self.ports[first as usize].peer];
        while let Some(node) = stack.pop() {
            for &c in self.routes.candidates(node, dst) {
                if !std::mem::replace(&mut seen[c as usize], true) {
                    let peer = self.ports[c as usize].peer;
                    if peer != dst {
                        stack.push(peer);
                    }
                }
            }
        }
        (0..self.ports.len() as u32)
            .filter(|&p| seen[p as usize])
            .collect()
    }

    /// One round of C3's coordinator (C3 §3, spec §5.3.5), at a control tick before the
    /// rate law: collect every pipe's R_G and raw weight, admission control over the
    /// pipes' paths, then the network-wide scale factors. Its decisions reach the shims at
    /// once [simplification: no message delay or loss].
    #[inline(never)]
    fn shim_coordinate(&mut self, now: Time) {
        let mut sh = self.shim.take().expect("shim");
        let desc = &self.flows.desc;
        // The shims' reports: fresh R_G and raw weights of every pipe.
        for h in 0..sh.host_pipes.len() as u32 {
            if !sh.host_pipes[h as usize].is_empty() {
                sh.derive(h, now, desc);
            }
        }
        for p in 0..sh.pipes.len() {
            if sh.pipes[p].path.is_empty() {
                let pp = &sh.pipes[p];
                sh.pipes[p].path = self.pipe_path(pp.src, pp.dst, pp.entropy);
            }
        }
        let k = sh.coord.as_mut().expect("coordinator");
        k.rounds += 1;
        k.next = now + k.interval;
        if k.admission {
            // Admission control (C3 §3: "if a link is oversubscribed according to all its
            // passing-through pipes' bandwidth guarantee, the coordinator indicates the
            // respective shim layers to perform admission control for specific pipes: ...
            // some of the flows are demoted to the best-effort pipe"). Links in port order;
            // on the first one whose Σ R_G exceeds its rate, the most recently arrived flow
            // of a non-BE pipe crossing it goes to the BE pipe of its (src, dst) (spec §5.3.5
            // CHOICE); repeat until no link is oversubscribed or only BE pipes remain on
            // those that are. A demotion lasts for the flow's life [CHOICE: no re-admission,
            // which would move flows back and forth]; packets already in the old pipe drain
            // from it.
            let cap: Vec<f64> = self.ports.iter().map(|p| p.clock.rate().0 as f64).collect();
            let mut load = vec![0.0f64; cap.len()];
            loop {
                load.iter_mut().for_each(|x| *x = 0.0);
                for pp in &sh.pipes {
                    if !pp.flows.is_empty() {
                        for &l in &pp.path {
                            load[l as usize] += pp.r_g;
                        }
                    }
                }
                let victim = (0..cap.len()).find_map(|l| {
                    // A tolerance for rounding: guarantees that exactly fill a link fit.
                    if load[l] <= cap[l] * (1.0 + 1e-9) {
                        return None;
                    }
                    c3::demote_first(
                        sh.pipes
                            .iter()
                            .filter(|pp| {
                                pp.objective != Objective::Be && pp.path.contains(&(l as u32))
                            })
                            .flat_map(|pp| pp.flows.iter().map(|&f| (desc[f as usize].start, f))),
                    )
                });
                let Some(f) = victim else {
                    break;
                };
                let from = sh.flows[f as usize].pipe;
                let (src, dst) = (sh.pipes[from as usize].src, sh.pipes[from as usize].dst);
                sh.pipes[from as usize].flows.retain(|&x| x != f);
                sh.pipes[from as usize].stats.demoted += 1;
                let to = sh.pipe_for(src, dst, Objective::Be);
                if sh.pipes[to as usize].path.is_empty() {
                    let e = sh.pipes[to as usize].entropy;
                    sh.pipes[to as usize].path = self.pipe_path(src, dst, e);
                }
                sh.start_pipe(to, now);
                sh.pipes[to as usize].flows.push(f);
                sh.pipes[to as usize].stats.flows += 1;
                let fs = &mut sh.flows[f as usize];
                fs.pipe = to;
                fs.demoted = true;
                sh.coord.as_mut().unwrap().demoted += 1;
                sh.derive(src, now, desc);
            }
        }
        // Network-wide scale factors (C3 §3; `c3::scale_factors`) from the pipes' raw
        // weights; the shims apply them from this tick's derivation on.
        let mut totals = [0.0f64; N_OBJECTIVES];
        for pp in &sh.pipes {
            if !pp.flows.is_empty() {
                totals[pp.objective as usize] += pp.raw;
            }
        }
        if let Law::C3(c) = &sh.law {
            let s = c3::scale_factors(&c.scale, &totals);
            sh.coord.as_mut().unwrap().scale = Some(s);
        }
        self.shim = Some(sh);
    }

    /// The control interval: feedback, guarantees and weights, the rate law.
    fn shim_tick(&mut self) {
        let now = self.now();
        let active = self.flows.active();
        if self
            .shim
            .as_ref()
            .unwrap()
            .coord
            .as_ref()
            .is_some_and(|k| now >= k.next)
        {
            self.shim_coordinate(now);
        }
        let sh = self.shim.as_mut().unwrap();
        let secs = sh.interval as f64 / SEC as f64;
        for h in 0..sh.host_pipes.len() as u32 {
            if !sh.host_pipes[h as usize].is_empty() {
                sh.derive(h, now, &self.flows.desc);
            }
        }
        let by_packet = matches!(&sh.law, Law::C3(c) if c.feedback == C3Feedback::Packet);
        let mut reports = Vec::new();
        for p in 0..sh.pipes.len() {
            sh.settle(p, now);
            let pp = &mut sh.pipes[p];
            let sent_bps = pp.tx_bytes as f64 * 8.0 / secs;
            pp.last_sent_bps = sent_bps;
            let busy = !(pp.flows.is_empty() && pp.q[0].is_empty() && pp.q[1].is_empty());
            if busy {
                let st = &mut pp.stats;
                st.busy_ticks += 1;
                st.sum_r_g += pp.r_g;
                st.sum_sent_bps += sent_bps;
                st.max_r_g = st.max_r_g.max(pp.r_g);
            }
            let (rx, marked) = (pp.rx_pkts, pp.rx_marked);
            pp.rx_pkts = 0;
            pp.rx_marked = 0;
            pp.tx_bytes = 0;
            if !by_packet {
                // Out of band: the sender has the interval's fraction at once.
                sh.feedback(p, rx, marked, now);
            } else if busy || rx > 0 {
                // The receiver shim reports the interval (spec §5.3.2); the law runs when
                // the report reaches the sender (`shim_receive`).
                reports.push((p as u32, rx, marked));
            }
        }
        for (p, rx, marked) in reports {
            self.shim_send_report(p, rx, marked);
        }
        let sh = self.shim.as_mut().unwrap();
        let n = sh.pipes.len() as u32;
        let backlog = sh
            .pipes
            .iter()
            .any(|p| !(p.q[0].is_empty() && p.q[1].is_empty()));
        if active > 0 || backlog {
            self.ev.push(now + sh.interval, Event::Shim(TICK));
        } else {
            sh.ticking = false;
        }
        for p in 0..n {
            self.shim_kick(p, now);
        }
    }
}

impl Sim {
    /// The pipe table (`sim::results::PipeTable`); empty without a shim.
    pub fn pipe_table(&self) -> super::results::PipeTable {
        let mut t = super::results::PipeTable::default();
        let Some(sh) = self.shim.as_ref() else {
            return t;
        };
        let es = matches!(sh.law, Law::Es(_));
        for (i, p) in sh.pipes.iter().enumerate() {
            let st = &p.stats;
            let n = st.busy_ticks.max(1) as f64;
            t.pipe_id.push(i as u64);
            t.src.push(p.src as u64);
            t.dst.push(p.dst as u64);
            t.objective
                .push(if es { "pair" } else { p.objective.name() }.to_string());
            t.flows.push(st.flows);
            t.demoted_flows.push(st.demoted);
            t.demoted.push(st.demoted > 0);
            t.guarantee_bps.push(st.sum_r_g / n);
            t.max_guarantee_bps.push(st.max_r_g);
            t.mean_rate_bps.push(st.sum_sent_bps / n);
            t.final_rate_bps.push(p.r_w.max(p.r_g));
            t.weight.push(p.weight);
            t.raw_weight.push(p.raw);
            t.intervals.push(st.busy_ticks);
            t.tx_pkts.push(st.tx_pkts);
            t.tx_bytes.push(st.tx_bytes);
            t.rx_pkts.push(st.rx_pkts);
            t.marked_fraction.push(if st.rx_pkts > 0 {
                st.rx_marked as f64 / st.rx_pkts as f64
            } else {
                0.0
            });
            t.inner_marks.push(st.inner_marks);
            t.drops.push(st.drops);
            t.reports.push(st.reports);
        }
        t
    }

    /// The per-interval pipe samples (`sim::results::PipeSampleTable`).
    pub fn pipe_sample_table(&self) -> super::results::PipeSampleTable {
        let mut t = super::results::PipeSampleTable::default();
        let Some(sh) = self.shim.as_ref() else {
            return t;
        };
        for s in &sh.samples {
            t.t_s.push(dcnsim_engine::to_secs(s.t));
            t.pipe_id.push(s.pipe as u64);
            t.rate_bps.push(s.rate);
            t.guarantee_bps.push(s.r_g);
            t.weight.push(s.weight);
            t.marked_fraction.push(s.frac);
            t.sent_bps.push(s.sent_bps);
            t.backlog.push(s.backlog as u64);
        }
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{Arena, Packet};

    /// Two backlogged sub-queues are served 95 : 5 in bytes (spec §5.3.6), not strictly.
    #[test]
    fn sub_queues_share_95_to_5() {
        let mut sh = Shim::new(
            Law::C3(C3Config::default()),
            Vec::new(),
            vec![1e9, 1e9],
            1538,
            1460,
        );
        let p = sh.pipe_for(0, 1, Objective::Ds) as usize;
        let mut arena = Arena::new();
        for i in 0..4000 {
            let id = arena.alloc(Packet::new(PktKind::Data, 0, 0, 1, 1460, 1538));
            sh.pipes[p].q[i % 2].push_back(&mut arena, id);
        }
        let mut served = [0u64; 2];
        for _ in 0..1000 {
            let sub = sh.pick(p, &arena).unwrap();
            let pp = &mut sh.pipes[p];
            let id = pp.q[sub].pop_front(&mut arena).unwrap();
            pp.deficit[sub] -= arena.get(id).wire as f64;
            served[sub] += 1;
        }
        // 1000 packets: 950 high, 50 low (DRR rounds of 19 + 1 MTU).
        assert_eq!(served, [950, 50]);
    }

    /// The token bucket releases at the pipe's rate: 1538 B at 1 Gb/s every 12.304 µs.
    #[test]
    fn bucket_paces_at_the_pipe_rate() {
        let mut sh = Shim::new(
            Law::C3(C3Config::default()),
            Vec::new(),
            vec![1e9, 1e9],
            1538,
            1460,
        );
        let p = sh.pipe_for(0, 1, Objective::Be) as usize;
        sh.pipes[p].r_w = 1e9;
        assert_eq!(sh.ready_at(p, 0), 0);
        sh.charge(p, 0, 1538);
        assert_eq!(sh.ready_at(p, 0), 12_304_000);
        assert_eq!(sh.ready_at(p, 12_304_000), 12_304_000);
    }
}
