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
//!
//! Layout: the types and `Shim::new` here; a pipe's creation, start, token bucket and DRR
//! in `pipe.rs`; the rate law in `law.rs`; guarantees and weights in `derive.rs`; C3's
//! coordinator in `coordinator.rs`; the `Sim` side (flows, enqueue, release, receive,
//! control tick) in `glue.rs`.

use super::{Sim, MAX_EVENT_INDEX};
use crate::packet::{PktList, NIL};
use crate::scheme::c3::{C3Config, Objective, N_OBJECTIVES};
use crate::scheme::elasticswitch::ElasticSwitchConfig;
use dcnsim_engine::Time;
use std::collections::BTreeMap;

mod coordinator;
mod derive;
mod glue;
mod law;
mod pipe;
#[cfg(test)]
mod tests;

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
