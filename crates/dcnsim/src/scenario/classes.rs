//! `[transports.*]`, `[[classes]]` (closed-loop traffic) and `[[sources]]` (open loop).

use crate::units::{Bw, Bytes, Dur};
use dcnsim_transport::{CcKind, RtoMode, TcpConfig};
use serde::{Deserialize, Serialize};

use super::ConfigError;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum CcName {
    #[serde(rename = "newreno")]
    NewReno,
    #[default]
    Cubic,
    Dctcp,
    /// RFC 6817 LEDBAT (delay-based scavenger).
    #[serde(rename = "ledbat")]
    Ledbat,
    /// TCP-LP (Kuzmanovic & Knightly 2003; delay-based scavenger).
    #[serde(rename = "tcp_lp")]
    TcpLp,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum RtoModeName {
    /// RFC 6298: RTO = max(rto_min, SRTT + max(G, 4·RTTVAR)).
    #[default]
    Rfc6298,
    /// Linux-style: the variance term is floored at rto_min.
    Linux,
    /// A fixed RTO of `rto_static` (TLT-Fig2).
    Static,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum TransportKindName {
    #[default]
    Tcp,
    Nearopt,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum NearOptLoss {
    #[default]
    Timeout,
    Immediate,
}

/// How Near-Opt counts a class's own queue (`sim::nearopt::OwnQueue`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum NearOptOwnQueue {
    #[default]
    Excess,
    Full,
    Ignore,
}

/// TCP-family settings (`[transports.<name>]`). MSS comes from `[packet]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TransportConfig {
    /// `tcp` (default) or `nearopt`, the LPF oracle (rate from global knowledge, no spurious
    /// retransmissions; `cc` and the window settings do not apply to it).
    pub kind: TransportKindName,
    pub cc: CcName,
    /// Initial window in segments.
    pub init_cwnd: u32,
    /// Receive window (bounds bytes in flight).
    pub rwnd: Bytes,
    pub sack: bool,
    pub dupack_thresh: u32,
    /// ECN-capable data; classic RFC 3168 reaction unless cc = dctcp (which always uses ECN).
    pub ecn: bool,
    pub rto_mode: RtoModeName,
    pub rto_min: Dur,
    pub rto_max: Dur,
    /// RTO before the first RTT sample. RFC 6298 §2.1 says 1 s, a value for the Internet;
    /// datacenter studies start near RTO_min, so the default (none) is `rto_min`.
    pub rto_init: Option<Dur>,
    /// Used when rto_mode = "static".
    pub rto_static: Dur,
    pub clock_granularity: Dur,
    pub delayed_ack: bool,
    pub delack_count: u32,
    pub delack_timeout: Dur,
    /// DCTCP gain g (RFC 8257).
    pub dctcp_g: f64,
    pub dctcp_alpha_init: f64,
    /// CUBIC constants (RFC 9438).
    pub cubic_c: f64,
    pub cubic_beta: f64,
    pub cubic_fast_convergence: bool,
    pub cubic_tcp_friendly: bool,
    /// Near-Opt rate-update period T (LPF §3: the link delay); none = the host link delay.
    pub nearopt_period: Option<Dur>,
    /// Near-Opt rate floor (0: a flow with no available rate pauses).
    pub nearopt_min_rate: Bw,
    /// When Near-Opt learns of a loss: `timeout` (the paper's description: at the sender's
    /// retransmission timeout the drop record is consulted) or `immediate` (at the drop).
    pub nearopt_loss: NearOptLoss,
    /// How the rate counts the class's own queue: `excess` (default; only beyond one period
    /// of the link, work-conserving), `full` (the paper's printed equation) or `ignore` (its
    /// prose: only higher-priority load is discounted).
    pub nearopt_own_queue: NearOptOwnQueue,
    /// Model the connection handshake: a SYN / SYN-ACK exchange (header-only packets) before
    /// the first data, and a FIN after the last ACK. Off by default: flows start sending at
    /// their start time. The FCT is always measured from the flow's start time.
    pub handshake: bool,
    /// TCP+ cross-queue congestion notification (LPF §5): send high-priority probes and halt
    /// while their echoes come back marked. Needs `[scheme] kind = "cqcn"` at the switches.
    pub cqcn: bool,
    /// Probe interval (one probe per interval per flow; LPF leaves it open: ≈ base RTT).
    pub cqcn_interval: Dur,
    /// Probe size on the wire.
    pub cqcn_probe: Bytes,
    /// Queue (class) of probes and their echoes: the high-priority queue.
    pub cqcn_priority: u8,
    /// LEDBAT TARGET queuing delay (RFC 6817; LPF Fig. 10 uses 3.2 ms).
    pub ledbat_target: Dur,
    /// LEDBAT GAIN, in (0, 1].
    pub ledbat_gain: f64,
    /// LEDBAT base-delay window; none = minimum over the flow's lifetime.
    pub ledbat_base_window: Option<Dur>,
    /// TCP-LP ECI threshold fraction δ of (d_max − d_min).
    pub tcplp_delta: f64,
    /// TCP-LP smoothed one-way-delay EWMA gain γ.
    pub tcplp_gamma: f64,
    /// TCP-LP inference timeout in smoothed RTTs.
    pub tcplp_itt_rtts: f64,
}

impl Default for TransportConfig {
    fn default() -> Self {
        let t = TcpConfig::default();
        TransportConfig {
            cc: CcName::Cubic,
            init_cwnd: t.init_cwnd_pkts,
            rwnd: Bytes(t.rwnd_bytes),
            sack: t.sack,
            dupack_thresh: t.dupack_thresh,
            ecn: false,
            rto_mode: RtoModeName::Rfc6298,
            rto_min: Dur(t.rto_min),
            rto_max: Dur(t.rto_max),
            rto_init: None,
            rto_static: Dur(t.rto_min),
            clock_granularity: Dur(t.clock_granularity),
            delayed_ack: t.delayed_ack,
            delack_count: t.delack_count,
            delack_timeout: Dur(t.delack_timeout),
            dctcp_g: t.dctcp_g,
            dctcp_alpha_init: t.dctcp_alpha_init,
            cubic_c: t.cubic_c,
            cubic_beta: t.cubic_beta,
            cubic_fast_convergence: t.cubic_fast_convergence,
            cubic_tcp_friendly: t.cubic_tcp_friendly,
            kind: TransportKindName::Tcp,
            handshake: false,
            nearopt_period: None,
            nearopt_min_rate: Bw(0),
            nearopt_loss: NearOptLoss::Timeout,
            nearopt_own_queue: NearOptOwnQueue::Excess,
            cqcn: false,
            cqcn_interval: Dur::us(100),
            cqcn_probe: Bytes(64),
            cqcn_priority: 0,
            ledbat_target: Dur(t.ledbat_target),
            ledbat_gain: t.ledbat_gain,
            ledbat_base_window: t.ledbat_base_window.map(Dur),
            tcplp_delta: t.tcplp_delta,
            tcplp_gamma: t.tcplp_gamma,
            tcplp_itt_rtts: t.tcplp_itt_rtts,
        }
    }
}

impl TransportConfig {
    /// The built-in transports every scenario can name.
    pub fn builtin(name: &str) -> Option<TransportConfig> {
        let base = TransportConfig::default();
        match name {
            "cubic" => Some(base),
            "newreno" => Some(TransportConfig {
                cc: CcName::NewReno,
                ..base
            }),
            "dctcp" => Some(TransportConfig {
                cc: CcName::Dctcp,
                ecn: true,
                ..base
            }),
            "ledbat" => Some(TransportConfig {
                cc: CcName::Ledbat,
                ..base
            }),
            "tcp_lp" => Some(TransportConfig {
                cc: CcName::TcpLp,
                ..base
            }),
            _ => None,
        }
    }

    pub fn tcp(&self, mss: u32, timestamps: bool, path: &str) -> Result<TcpConfig, ConfigError> {
        let cfg = TcpConfig {
            mss,
            init_cwnd_pkts: self.init_cwnd,
            rwnd_bytes: self.rwnd.0,
            sack: self.sack,
            dupack_thresh: self.dupack_thresh,
            cc: match self.cc {
                CcName::NewReno => CcKind::NewReno,
                CcName::Cubic => CcKind::Cubic,
                CcName::Dctcp => CcKind::Dctcp,
                CcName::Ledbat => CcKind::Ledbat,
                CcName::TcpLp => CcKind::TcpLp,
            },
            ecn: self.ecn || self.cc == CcName::Dctcp,
            dctcp_g: self.dctcp_g,
            dctcp_alpha_init: self.dctcp_alpha_init,
            cubic_c: self.cubic_c,
            cubic_beta: self.cubic_beta,
            cubic_fast_convergence: self.cubic_fast_convergence,
            cubic_tcp_friendly: self.cubic_tcp_friendly,
            rto_mode: match self.rto_mode {
                RtoModeName::Rfc6298 => RtoMode::Rfc6298,
                RtoModeName::Linux => RtoMode::Linux,
                RtoModeName::Static => RtoMode::Static(self.rto_static.0),
            },
            rto_min: self.rto_min.0,
            rto_max: self.rto_max.0,
            rto_init: self.rto_init.unwrap_or(self.rto_min).0,
            clock_granularity: self.clock_granularity.0,
            delayed_ack: self.delayed_ack,
            delack_count: self.delack_count,
            delack_timeout: self.delack_timeout.0,
            timestamps,
            ledbat_target: self.ledbat_target.0,
            ledbat_gain: self.ledbat_gain,
            ledbat_base_window: self.ledbat_base_window.map(|d| d.0),
            tcplp_delta: self.tcplp_delta,
            tcplp_gamma: self.tcplp_gamma,
            tcplp_itt_rtts: self.tcplp_itt_rtts,
        };
        cfg.validate().map_err(|m| {
            // TcpConfig messages start with the field name: "mss: must be > 0".
            let (field, msg) = m.split_once(": ").unwrap_or(("", &m));
            let key = match field {
                "init_cwnd_pkts" => "init_cwnd",
                "rwnd_bytes" => "rwnd",
                "mss" => "mss (from packet.mtu)",
                f => f,
            };
            ConfigError::new(
                if key.is_empty() {
                    path.to_string()
                } else {
                    format!("{path}.{key}")
                },
                msg.to_string(),
            )
        })?;
        Ok(cfg)
    }
}

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
    /// Name of a transport in `[transports]` or a built-in (dctcp, cubic, newreno, ledbat,
    /// tcp_lp).
    #[serde(default = "default_transport")]
    pub transport: String,
    pub workload: WorkloadConfig,
    /// Flows with size ≥ `large.threshold` get `large.priority` (SJF split, LPF §3.1).
    #[serde(default)]
    pub large: Option<LargeConfig>,
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
