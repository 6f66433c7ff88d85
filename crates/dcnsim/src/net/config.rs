//! Port, scheduler, buffer and ECN configuration (the `[switch]` and `[host]` tables of a
//! scenario). These structs are both the scenario schema and the build input: their
//! `Default` impls are the one place defaults live.

use crate::units::{Amount, Bytes, Dur};
use serde::{Deserialize, Serialize};

pub const MAX_QUEUES: usize = 8;

/// One value for every queue, or a list with one value per queue.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum PerQueue<T> {
    One(T),
    Many(Vec<T>),
}

/// A list is one value per queue, anything else one value for all (no `T` is itself a
/// list). Unlike serde's untagged enums, which report only that neither form matched, an
/// error keeps its key inside the value (`switch.ecn.at`, `switch.ecn[1].pmax`), passed up
/// in NUL markers (`crate::tagged::split_path`).
impl<'de, T: serde::de::DeserializeOwned> Deserialize<'de> for PerQueue<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let one = |v: &serde_json::Value, at: String| {
            crate::strict::from_value::<T>(v)
                .map_err(|(path, msg)| D::Error::custom(format!("{at}\0{path}\0{msg}")))
        };
        match serde_json::Value::deserialize(d)? {
            serde_json::Value::Array(items) => items
                .iter()
                .enumerate()
                .map(|(i, v)| one(v, format!("\0[{i}]\0")))
                .collect::<Result<Vec<T>, D::Error>>()
                .map(PerQueue::Many),
            v => one(&v, String::new()).map(PerQueue::One),
        }
    }
}

impl<T: Clone> PerQueue<T> {
    /// Value for queue `i` (callers validate the list length first).
    pub fn get(&self, i: usize) -> T {
        match self {
            PerQueue::One(v) => v.clone(),
            PerQueue::Many(v) => v[i.min(v.len().saturating_sub(1))].clone(),
        }
    }
    /// The key the user wrote for queue `i`'s value: `name` for one value shared by every
    /// queue, `name[i]` for a per-queue list (so an error names the list entry).
    pub fn key(&self, name: &str, i: usize) -> String {
        match self {
            PerQueue::One(_) => name.to_string(),
            PerQueue::Many(_) => format!("{name}[{i}]"),
        }
    }
    pub fn len_ok(&self, n: usize) -> Result<(), String> {
        match self {
            PerQueue::One(_) => Ok(()),
            PerQueue::Many(v) if v.len() == n => Ok(()),
            PerQueue::Many(v) => Err(format!(
                "expected {n} values (one per queue), got {}",
                v.len()
            )),
        }
    }
}

/// Egress scheduler. See `net::sched`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SchedConfig {
    /// One queue, first come first served (every class maps to queue 0).
    Fifo,
    /// Non-preemptive strict priority: queue 0 first, then 1, ...
    Strict,
    /// Deficit round robin with weights (a WFQ approximation). quantum_i = w_i / min(w) × quantum.
    Drr(DrrSched),
    /// Queues `0..strict` in strict priority, the rest DRR with `weights` (one per remaining queue).
    Mixed(MixedSched),
}

crate::kind_enum!(SchedConfig { "fifo" => Fifo, "strict" => Strict, "drr" => Drr(DrrSched), "mixed" => Mixed(MixedSched) });

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DrrSched {
    pub weights: Vec<f64>,
    #[serde(default = "default_quantum")]
    pub quantum: Bytes,
    /// An operator's weight change that the switch applies only after a configuration delay.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reconfigure: Option<Reconfigure>,
}

/// A DRR (WFQ) weight reconfiguration: requested at `at`, in force from `at + delay`.
/// C3 §2 (Fig 3c, spec experiments C3-Fig3c): reconfiguring a switch's WFQ weights "takes at
/// least tens of milliseconds", and until the new weights apply the old ones keep serving.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reconfigure {
    /// When the new weights are requested.
    pub at: Dur,
    /// The new weights, one per queue (like `weights`).
    pub weights: Vec<f64>,
    /// The switch's configuration delay: the new weights serve from `at + delay`.
    #[serde(default = "zero_dur")]
    pub delay: Dur,
}

fn zero_dur() -> Dur {
    Dur(0)
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MixedSched {
    pub strict: u8,
    pub weights: Vec<f64>,
    #[serde(default = "default_quantum")]
    pub quantum: Bytes,
}

fn default_quantum() -> Bytes {
    Bytes(1538)
}

/// Where ECN thresholds measure occupancy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Occupancy {
    /// The packet's own queue.
    #[default]
    Queue,
    /// All queues of the egress port (PIAS per-port marking).
    Port,
}

/// When a marker looks at the queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum MarkAt {
    #[default]
    Enqueue,
    Dequeue,
}

/// ECN marking of ECN-capable packets. See `net::mark`.
#[derive(Clone, Debug, PartialEq, Serialize, Default)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum EcnConfig {
    #[default]
    None,
    /// DCTCP step marking: CE iff occupancy ≥ k.
    Step(StepEcn),
    /// RED on instantaneous occupancy: p = 0 below kmin, pmax·(q−kmin)/(kmax−kmin) up to kmax, 1 above.
    Red(RedEcn),
}

crate::kind_enum!(EcnConfig { "none" => None, "step" => Step(StepEcn), "red" => Red(RedEcn) });

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StepEcn {
    pub k: Amount,
    #[serde(default)]
    pub at: MarkAt,
    #[serde(default)]
    pub occupancy: Occupancy,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RedEcn {
    pub kmin: Amount,
    pub kmax: Amount,
    pub pmax: f64,
    /// Enqueue (the default) or dequeue; HPCC's ns-3 simulator, on which the TLT and HPCC
    /// papers ran DCQCN, marks at dequeue (`SwitchNode::SwitchNotifyDequeue`).
    #[serde(default)]
    pub at: MarkAt,
    #[serde(default)]
    pub occupancy: Occupancy,
}

/// What colour-aware dropping compares with its threshold (mechanisms §2.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum ColourMode {
    /// Red bytes queued at the egress port (in its colour-aware queues): a red packet is
    /// dropped when red bytes + its size ≥ K. The TLT reference code's accounting; green
    /// packets queued beyond K do not push red ones out.
    #[default]
    RedOnly,
    /// The queue's total occupancy: a red packet is dropped when the queue holds ≥ K bytes
    /// (the paper's wording, "the queue build-up ... limited to the threshold").
    TotalQueue,
}

/// Colour-aware dropping (TLT §4, mechanisms §2.5): red (unimportant) packets are dropped
/// at threshold K, green ones are admitted beyond it up to the shared-buffer limit.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ColourConfig {
    /// K (TLT §7.1: 400 kB for TCP/DCTCP = BDP, 200 kB for RoCE transports).
    pub threshold: Bytes,
    #[serde(default)]
    pub mode: ColourMode,
    /// The colour-aware queues; unset = every queue. Traffic without TLT is red and belongs
    /// in another queue (TLT §6).
    #[serde(default)]
    pub queues: Option<Vec<u8>>,
}

/// Priority-based flow control (IEEE 802.1Qbb; mechanisms §2.6) at every switch.
///
/// Each switch counts, per ingress port and lossless queue, the bytes it buffers that
/// arrived there. Above XOFF it sends a PAUSE for that priority to the upstream egress (a
/// switch port or a host NIC), which stops at the next packet boundary; at XON (the count
/// back ≤ XOFF − `xon_offset`, or empty) it sends a RESUME (a PAUSE of 0 quanta). PAUSE
/// frames wait for the frame being serialized on the reverse link, then take its
/// serialization and propagation delay. A pause lasts `quanta` × 512 bit times unless
/// refreshed: the switch re-sends it every half of that while still over XON.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PfcConfig {
    pub enabled: bool,
    /// Lossless queues (priorities); unset = every queue. Other queues stay lossy.
    pub queues: Option<Vec<u8>>,
    /// Dynamic XOFF: α_ingress × the free shared buffer (headroom excluded). Default 1/16
    /// (TLT RoCE reference config `BROADCOM_INGRESS_ALPHA 0.0625`).
    pub alpha: f64,
    /// Static XOFF in bytes per (ingress port, queue); set = replaces the dynamic threshold.
    pub xoff: Option<Bytes>,
    /// Hysteresis: RESUME once the count is ≤ XOFF − this (or zero). Default 2 × 1538 B
    /// (TLT reference: 2 MTU).
    pub xon_offset: Bytes,
    /// Headroom reserved per (ingress port, lossless queue) out of `shared_buffer`; unset =
    /// 2 × link rate × delay + 2 × MTU frame + one PAUSE frame (what can arrive after the
    /// PAUSE is decided; TLT reference: 103,000 B at 40 Gb/s, 10 µs).
    pub headroom: Option<Bytes>,
    /// Pause time of one PAUSE frame in quanta of 512 bit times (802.1Qbb: 0–65535).
    pub quanta: u32,
    /// Wire bytes of a PAUSE frame (64 B MAC control frame + preamble and gap).
    pub frame: Bytes,
    /// A queue paused without a break this long while holding packets is a deadlock: the
    /// run stops and reports it. 0 = never.
    pub watchdog: Dur,
}

impl Default for PfcConfig {
    fn default() -> Self {
        PfcConfig {
            enabled: true,
            queues: None,
            alpha: 0.0625,
            xoff: None,
            xon_offset: Bytes(2 * 1538),
            headroom: None,
            quanta: 65_535,
            frame: Bytes(84),
            watchdog: Dur::ms(10),
        }
    }
}

impl PfcConfig {
    /// Checks the settings, returning (key under `switch.pfc`, message).
    pub fn check(&self, nq: u8) -> Result<(), (String, String)> {
        if !(self.alpha.is_finite() && self.alpha > 0.0) {
            return Err((
                "alpha".into(),
                format!("expected α > 0, got {}", self.alpha),
            ));
        }
        if self.xoff.is_some_and(|x| x.0 == 0) {
            return Err(("xoff".into(), "expected a threshold > 0 bytes".into()));
        }
        if self.quanta == 0 || self.quanta > 65_535 {
            return Err((
                "quanta".into(),
                format!("expected 1 to 65535 quanta (802.1Qbb), got {}", self.quanta),
            ));
        }
        if self.frame.0 < 64 || self.frame.0 > 1538 {
            return Err((
                "frame".into(),
                format!(
                    "expected 64 to 1538 bytes on the wire, got {}",
                    self.frame.0
                ),
            ));
        }
        check_queue_list(&self.queues, nq, "queues")
    }
}

/// Every listed queue exists and none repeats.
fn check_queue_list(q: &Option<Vec<u8>>, nq: u8, key: &str) -> Result<(), (String, String)> {
    if let Some(v) = q {
        if v.is_empty() {
            return Err((
                key.into(),
                "expected at least one queue (or remove the key for all)".into(),
            ));
        }
        let mut seen = 0u8;
        for &x in v {
            if x >= nq {
                return Err((
                    key.into(),
                    format!("queue {x} does not exist: expected 0..{}", nq - 1),
                ));
            }
            if seen & (1 << x) != 0 {
                return Err((key.into(), format!("queue {x} is listed twice")));
            }
            seen |= 1 << x;
        }
    }
    Ok(())
}

/// Bit mask of the listed queues (all `nq` when unset).
pub fn queue_mask(q: &Option<Vec<u8>>, nq: u8) -> u8 {
    match q {
        Some(v) => v.iter().fold(0u8, |m, &x| m | (1 << x)),
        None => ((1u16 << nq) - 1) as u8,
    }
}

impl ColourConfig {
    /// Checks the settings, returning (key under `switch.colour`, message).
    pub fn check(&self, nq: u8) -> Result<(), (String, String)> {
        if self.threshold.0 == 0 {
            return Err(("threshold".into(), "expected K > 0 bytes".into()));
        }
        check_queue_list(&self.queues, nq, "queues")
    }
}

/// Egress port configuration shared by every port of a kind (the build-time form of
/// [`SwitchConfig`] and [`HostConfig`]).
#[derive(Clone, Debug, PartialEq)]
pub struct PortConfig {
    /// Number of queues (1–8). Packets of class c use queue c (queue 0 when there is one queue).
    pub queues: u8,
    pub scheduler: SchedConfig,
    /// Static per-queue limit; none = unlimited (bounded only by port/shared limits).
    pub queue_limit: Option<PerQueue<Amount>>,
    /// Static per-port limit on non-reserved bytes.
    pub port_limit: Option<Amount>,
    /// Bytes dedicated to a queue that no other queue may use (ResQueue §3).
    pub reserved: PerQueue<Bytes>,
    /// ECN marking per queue.
    pub ecn: PerQueue<EcnConfig>,
    /// Dynamic-threshold α per queue for the node's shared buffer (Choudhury–Hahne).
    pub alpha: PerQueue<f64>,
    /// Colour-aware dropping (switches only).
    pub colour: Option<ColourConfig>,
    /// Lossless queues under PFC (bit mask; switches only). Their packets skip the static,
    /// port and dynamic-threshold limits: PFC keeps them within the buffer.
    pub lossless: u8,
}

impl Default for PortConfig {
    fn default() -> Self {
        PortConfig {
            queues: 8,
            scheduler: SchedConfig::Strict,
            queue_limit: None,
            port_limit: None,
            reserved: PerQueue::One(Bytes(0)),
            ecn: PerQueue::One(EcnConfig::None),
            alpha: PerQueue::One(1.0),
            colour: None,
            lossless: 0,
        }
    }
}

/// Switch configuration (`[switch]`): every egress port of every switch, plus the
/// optional switch-wide shared buffer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SwitchConfig {
    /// Queues per egress port (1–8). A packet of class c uses queue c (queue 0 if there is one queue).
    pub queues: u8,
    pub scheduler: SchedConfig,
    /// Static per-queue limit (one for all queues or one per queue); none = unlimited.
    pub queue_limit: Option<PerQueue<Amount>>,
    /// Static per-port limit on non-reserved bytes; none = unlimited.
    pub port_limit: Option<Amount>,
    /// Bytes dedicated to a queue that no other queue may use (ResQueue §3).
    pub reserved: PerQueue<Bytes>,
    /// ECN marking (one for all queues or one per queue).
    pub ecn: PerQueue<EcnConfig>,
    /// Dynamic-threshold α per queue, used when `shared_buffer` is set.
    pub alpha: PerQueue<f64>,
    /// Switch-wide shared buffer with dynamic-threshold admission; none = no shared limit.
    pub shared_buffer: Option<Bytes>,
    /// Colour-aware dropping (TLT); none = off.
    pub colour: Option<ColourConfig>,
    /// PFC (IEEE 802.1Qbb); none = off.
    pub pfc: Option<PfcConfig>,
    /// Packets the FIFO driver (device) queue below each egress port's class queues holds,
    /// as in a simulator whose switch is a node with a qdisc above a device queue (ns-3's
    /// `TrafficControlLayer` over a `PointToPointNetDevice`'s `TxQueue`). Its packets are
    /// outside the port, queue, shared-buffer and colour limits (PFC's ingress counts still
    /// hold them until they leave). 0 = none (the default): the port serves its class
    /// queues directly. Left out of the normalized scenario when 0, so scenarios without
    /// it keep their config hash.
    #[serde(skip_serializing_if = "is_zero")]
    pub driver_queue: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl Default for SwitchConfig {
    fn default() -> Self {
        let p = PortConfig::default();
        SwitchConfig {
            queues: p.queues,
            scheduler: p.scheduler,
            queue_limit: None,
            // A finite default so no run silently has infinite buffers: 100 full frames per port.
            port_limit: Some(Amount::Pkts(100)),
            reserved: p.reserved,
            ecn: p.ecn,
            alpha: p.alpha,
            shared_buffer: None,
            colour: None,
            pfc: None,
            driver_queue: 0,
        }
    }
}

impl SwitchConfig {
    pub fn port(&self) -> PortConfig {
        PortConfig {
            queues: self.queues,
            scheduler: self.scheduler.clone(),
            queue_limit: self.queue_limit.clone(),
            port_limit: self.port_limit,
            reserved: self.reserved.clone(),
            ecn: self.ecn.clone(),
            alpha: self.alpha.clone(),
            colour: self.colour.clone(),
            lossless: match &self.pfc {
                Some(p) if p.enabled => queue_mask(&p.queues, self.queues.clamp(1, 8)),
                _ => 0,
            },
        }
    }
}

/// Host NIC configuration (`[host]`): class queues (a qdisc) above an optional FIFO driver queue.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HostConfig {
    /// Class queues at the NIC (1–8), served by `scheduler`.
    pub queues: u8,
    pub scheduler: SchedConfig,
    /// Static per-queue limit at the NIC; none = unlimited (transports' windows bound it).
    pub queue_limit: Option<PerQueue<Amount>>,
    /// Packets the FIFO driver queue below the class queues holds (LPF §3: 100; REFLEX: 20).
    /// 0 = no driver queue: the NIC serves the class queues directly.
    pub driver_queue: u32,
    /// ECN marking in the NIC's class queues (the qdisc), one for all queues or one per
    /// queue: REFLEX §5 runs RED (hard threshold 65 packets) in "each network device".
    pub ecn: PerQueue<EcnConfig>,
}

impl Default for HostConfig {
    fn default() -> Self {
        HostConfig {
            queues: 8,
            scheduler: SchedConfig::Strict,
            queue_limit: None,
            driver_queue: 0,
            ecn: PerQueue::One(EcnConfig::None),
        }
    }
}

impl HostConfig {
    pub fn port(&self) -> PortConfig {
        PortConfig {
            queues: self.queues,
            scheduler: self.scheduler.clone(),
            queue_limit: self.queue_limit.clone(),
            ecn: self.ecn.clone(),
            ..PortConfig::default()
        }
    }
}

impl PortConfig {
    /// Checks the configuration, returning (key, message) for the first problem.
    pub fn check(&self) -> Result<(), (String, String)> {
        let n = self.queues as usize;
        if n == 0 || n > MAX_QUEUES {
            return Err((
                "queues".into(),
                format!("expected 1 to {MAX_QUEUES}, got {n}"),
            ));
        }
        match &self.scheduler {
            SchedConfig::Fifo if n != 1 => {
                return Err((
                    "scheduler".into(),
                    format!("fifo serves one queue: expected queues = 1, got {n}"),
                ))
            }
            SchedConfig::Drr(DrrSched {
                weights,
                quantum,
                reconfigure,
            }) => {
                check_weights(weights, n, quantum.0, "scheduler")?;
                if let Some(r) = reconfigure {
                    check_weights(&r.weights, n, quantum.0, "scheduler.reconfigure")?;
                }
            }
            SchedConfig::Mixed(MixedSched {
                strict,
                weights,
                quantum,
            }) => {
                let s = *strict as usize;
                if s > n {
                    return Err((
                        "scheduler.strict".into(),
                        format!("expected at most queues = {n}, got {s}"),
                    ));
                }
                if s < n {
                    check_weights(weights, n - s, quantum.0, "scheduler")?
                } else if !weights.is_empty() {
                    return Err((
                        "scheduler.weights".into(),
                        "all queues are strict: expected no weights".into(),
                    ));
                }
            }
            _ => {}
        }
        if let Some(q) = &self.queue_limit {
            q.len_ok(n).map_err(|m| ("queue_limit".into(), m))?;
        }
        self.reserved
            .len_ok(n)
            .map_err(|m| ("reserved".into(), m))?;
        self.ecn.len_ok(n).map_err(|m| ("ecn".into(), m))?;
        self.alpha.len_ok(n).map_err(|m| ("alpha".into(), m))?;
        for i in 0..n {
            let a = self.alpha.get(i);
            if !(a.is_finite() && a > 0.0) {
                return Err((
                    self.alpha.key("alpha", i),
                    format!("expected α > 0, got {a} for queue {i}"),
                ));
            }
            if let EcnConfig::Red(RedEcn {
                kmin, kmax, pmax, ..
            }) = self.ecn.get(i)
            {
                if !(0.0..=1.0).contains(&pmax) {
                    return Err((
                        format!("{}.pmax", self.ecn.key("ecn", i)),
                        format!("expected a probability in [0, 1], got {pmax}"),
                    ));
                }
                let same_unit = matches!(
                    (kmin, kmax),
                    (Amount::Bytes(_), Amount::Bytes(_)) | (Amount::Pkts(_), Amount::Pkts(_))
                );
                let (a, b) = (kmin.as_bytes(1), kmax.as_bytes(1));
                if !same_unit || a >= b {
                    return Err((
                        format!("{}.kmax", self.ecn.key("ecn", i)),
                        "expected kmin < kmax, both in bytes or both in packets".into(),
                    ));
                }
            }
        }
        Ok(())
    }
}

fn check_weights(w: &[f64], n: usize, quantum: u64, key: &str) -> Result<(), (String, String)> {
    if w.len() != n {
        return Err((
            format!("{key}.weights"),
            format!(
                "expected {n} weights (one per weighted queue), got {}",
                w.len()
            ),
        ));
    }
    if let Some(bad) = w.iter().find(|x| !(x.is_finite() && **x > 0.0)) {
        return Err((
            format!("{key}.weights"),
            format!("expected weights > 0, got {bad}"),
        ));
    }
    if quantum == 0 {
        return Err((
            format!("{key}.quantum"),
            "expected a quantum ≥ the largest packet (e.g. \"1538B\")".into(),
        ));
    }
    Ok(())
}
