//! `[transports.*]`, `[[classes]]` (closed-loop traffic) and `[[sources]]` (open loop).

use crate::units::{Bw, Bytes, Dur};
use serde::{Deserialize, Serialize};

pub use super::transport::{
    CcName, NearOptLoss, NearOptOwnQueue, NearOptShare, RtoModeName, TransportConfig,
    TransportKindName,
};

/// Flow sizes: exactly one of `fixed`, `uniform`, `cdf` (a built-in name), `cdf_file`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
pub struct SizeConfig {
    pub fixed: Option<Bytes>,
    /// [lo, hi] bytes, uniform.
    pub uniform: Option<[Bytes; 2]>,
    /// A built-in CDF: websearch, datamining_pias, alistorage2019, fb_hadoop, ... (`dcnsim cdfs`).
    pub cdf: Option<String>,
    /// A CDF file in the same format (`size_bytes cumulative_probability` per line).
    pub cdf_file: Option<String>,
    /// "linear" (default) or "step" sampling between CDF points.
    pub interp: dcnsim_workload::Interp,
    /// Multiply sampled CDF sizes by this factor.
    pub scale: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum DeadlineConfig {
    Fixed(FixedDeadline),
    Uniform(UniformDeadline),
    Exp(ExpDeadline),
}

crate::kind_enum!(DeadlineConfig { "fixed" => Fixed(FixedDeadline), "uniform" => Uniform(UniformDeadline), "exp" => Exp(ExpDeadline) });

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FixedDeadline {
    pub value: Dur,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UniformDeadline {
    pub lo: Dur,
    pub hi: Dur,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpDeadline {
    pub mean: Dur,
    pub min: Dur,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum PairsName {
    #[default]
    AllToAll,
    IntraRack,
    InterRack,
    Permutation,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum LoadBasisName {
    /// load × Σ host link rates (each host sends and receives `load` of its link on average).
    #[default]
    HostLinks,
    /// load × the fabric's bisection bandwidth (`bisection` must be given).
    Bisection,
    /// load × Σ link rates of the hosts that can send (`senders`).
    SenderHosts,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum WorkloadConfig {
    /// Poisson arrivals at a target load.
    Poisson(PoissonWl),
    /// Incast N → 1: one round, periodic rounds (`period`), or Poisson rounds (`load`).
    Incast(IncastWl),
    /// Every host sends one flow of `size` to a distinct host (random derangement).
    Permutation(PermutationWl),
    /// An explicit list: a CSV file (`src,dst,size,start[,deadline][,tag]`) or inline rows.
    Flows(FlowsWl),
    /// DAS request duplication (LPF §3.1): a primary and a lower-priority duplicate per request.
    Das(DasWl),
}

crate::kind_enum!(WorkloadConfig { "poisson" => Poisson(PoissonWl), "incast" => Incast(IncastWl), "permutation" => Permutation(PermutationWl), "flows" => Flows(FlowsWl), "das" => Das(DasWl) });

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PoissonWl {
    pub sizes: SizeConfig,
    pub load: f64,
    #[serde(default)]
    pub pairs: PairsName,
    /// Restrict sources / destinations to these hosts.
    #[serde(default)]
    pub senders: Option<Vec<u32>>,
    #[serde(default)]
    pub receivers: Option<Vec<u32>>,
    #[serde(default)]
    pub load_basis: LoadBasisName,
    #[serde(default)]
    pub bisection: Option<Bw>,
    #[serde(default)]
    pub deadline: Option<DeadlineConfig>,
    #[serde(default)]
    pub max_flows: Option<u64>,
    /// Arrivals in [start, stop); default [0, run.duration).
    #[serde(default)]
    pub start: Option<Dur>,
    #[serde(default)]
    pub stop: Option<Dur>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IncastWl {
    pub fan_in: u32,
    pub bytes_per_sender: SizeConfig,
    /// Flows (connections) each sender opens per round; each carries `bytes_per_sender`.
    #[serde(default = "one_flow")]
    pub flows_per_sender: u32,
    #[serde(default)]
    pub receiver: Option<u32>,
    #[serde(default)]
    pub senders: Option<Vec<u32>>,
    #[serde(default)]
    pub period: Option<Dur>,
    #[serde(default)]
    pub load: Option<f64>,
    #[serde(default)]
    pub jitter: Dur,
    #[serde(default)]
    pub start: Option<Dur>,
    #[serde(default)]
    pub stop: Option<Dur>,
    #[serde(default)]
    pub exclude_receiver_rack: bool,
}

fn one_flow() -> u32 {
    1
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PermutationWl {
    pub size: Bytes,
    #[serde(default)]
    pub start: Dur,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowsWl {
    #[serde(default)]
    pub csv: Option<String>,
    #[serde(default)]
    pub list: Vec<FlowRow>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowRow {
    pub src: u32,
    pub dst: u32,
    pub size: Bytes,
    pub start: Dur,
    #[serde(default)]
    pub deadline: Option<Dur>,
    #[serde(default)]
    pub tag: u32,
    /// REFLEX α and r of this flow (default: the class's).
    #[serde(default)]
    pub alpha: Option<f64>,
    #[serde(default)]
    pub reliability: Option<f64>,
}

/// DAS duplication (LPF §3.1, spec §5.1.2; generator in `dcnsim_workload::das`): Poisson
/// requests at `load` of the clients' links per class; each is answered by a primary server
/// at the class priority and by a distinct duplicate server at `duplicate_priority`, both to
/// the requesting client, both tagged with the request id.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DasWl {
    pub sizes: SizeConfig,
    pub load: f64,
    /// Queue of the duplicate copy (default 1; the primary uses the class priority).
    #[serde(default = "one_u8")]
    pub duplicate_priority: u8,
    /// Queue of the duplicate's ACKs (default: the class's `ack_priority`, else
    /// `duplicate_priority`).
    #[serde(default)]
    pub duplicate_ack_priority: Option<u8>,
    /// Hosts that issue requests / answer them (default: every host).
    #[serde(default)]
    pub clients: Option<Vec<u32>>,
    #[serde(default)]
    pub servers: Option<Vec<u32>>,
    /// Cancel the other copy when one completes (DAS). Not implemented (the simulator cannot
    /// cancel a running flow); LPF disables it too, so `true` is rejected.
    #[serde(default)]
    pub purge: bool,
    #[serde(default)]
    pub max_requests: Option<u64>,
    #[serde(default)]
    pub start: Option<Dur>,
    #[serde(default)]
    pub stop: Option<Dur>,
}

fn one_u8() -> u8 {
    1
}

/// Size-based priority split (`large = { threshold, priority }`): flows of the class with
/// size ≥ `threshold` use `priority` instead of the class priority — LPF §3.1 SJF: "we
/// classify all flows of size greater or equal to 1MB as long flows. We assign low-priority
/// to the long flows".
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LargeConfig {
    pub threshold: Bytes,
    pub priority: u8,
    /// Queue of the large flows' ACKs (default: the class's `ack_priority`, else `priority`).
    #[serde(default)]
    pub ack_priority: Option<u8>,
}

/// A traffic class: what it sends, with which transport, at which priority.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClassConfig {
    pub name: String,
    /// Queue index on every hop (0 = highest priority).
    #[serde(default)]
    pub priority: u8,
    /// Queue for this class's ACKs (default: the class's own priority).
    #[serde(default)]
    pub ack_priority: Option<u8>,
    /// Name of a transport in `[transports]` or a built-in (dctcp, d2tcp, l2dct, cubic,
    /// newreno, ledbat, tcp_lp).
    #[serde(default = "default_transport")]
    pub transport: String,
    pub workload: WorkloadConfig,
    /// Flows with size ≥ `large.threshold` get `large.priority` (SJF split, LPF §3.1).
    #[serde(default)]
    pub large: Option<LargeConfig>,
    /// REFLEX aggressiveness α ≥ 0 of the class's flows (default ∞: regular flows).
    #[serde(default)]
    pub alpha: Option<f64>,
    /// REFLEX reliability r in [0, 1] of the class's flows (default 1).
    #[serde(default)]
    pub reliability: Option<f64>,
    /// C3 performance objective of the class's flows (`[scheme] kind = "c3"`; default `be`).
    #[serde(default)]
    pub objective: Option<crate::scheme::c3::Objective>,
    /// Minimum bandwidth of each of the class's flows: C3 `ts` classes, and ElasticSwitch
    /// (a class with a guarantee, possibly 0, runs through the VM-pair limiter).
    #[serde(default)]
    pub guarantee: Option<Bw>,
}

impl ClassConfig {
    /// (data queue, ACK queue) of one flow of this class: a DAS duplicate uses the
    /// workload's `duplicate_priority`; otherwise a flow of `size` ≥ `large.threshold` uses
    /// `large.priority`; otherwise the class priority.
    pub fn flow_priority(&self, size: u64, das_duplicate: bool) -> (u8, u8) {
        if let (true, WorkloadConfig::Das(d)) = (das_duplicate, &self.workload) {
            let p = d.duplicate_priority;
            return (
                p,
                d.duplicate_ack_priority.or(self.ack_priority).unwrap_or(p),
            );
        }
        match &self.large {
            Some(l) if size >= l.threshold.0 => (
                l.priority,
                l.ack_priority.or(self.ack_priority).unwrap_or(l.priority),
            ),
            _ => (self.priority, self.ack_priority.unwrap_or(self.priority)),
        }
    }
}

fn default_transport() -> String {
    "dctcp".into()
}

/// An open-loop source (no transport): constant rate, or bursts at an average rate.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SourceConfig {
    pub src: u32,
    pub dst: u32,
    pub rate: Bw,
    #[serde(default)]
    pub priority: u8,
    /// Bytes on the wire per packet.
    #[serde(default = "default_pkt")]
    pub packet: Bytes,
    #[serde(default)]
    pub start: Dur,
    /// Default: run.duration.
    #[serde(default)]
    pub stop: Option<Dur>,
    #[serde(default = "one")]
    pub burst: u32,
    /// Stop after this many packets (0 = no limit).
    #[serde(default)]
    pub count: u64,
    #[serde(default)]
    pub ecn: bool,
}

fn default_pkt() -> Bytes {
    Bytes(1538)
}
fn one() -> u32 {
    1
}
