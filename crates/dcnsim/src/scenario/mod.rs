//! The scenario: the one user-facing description of a run (TOML file or Python dict, both
//! arriving here as JSON), its defaults, validation, and the builder that turns it into a
//! [`Sim`](crate::sim::Sim).
//!
//! Every struct rejects unknown keys; every quantity takes units (see [`crate::units`]);
//! [`Scenario::default`] is the one place defaults live. Errors are [`ConfigError`]s that
//! name the key path (`classes[1].workload.load`) and say what was expected.

pub mod build;
pub mod classes;
pub mod resources;
pub mod roce;
pub mod topology;
pub mod transport;

mod check;
mod flows;
mod observers;
mod path;
mod reflex;
mod shim;

use crate::net::config::{HostConfig, SwitchConfig};
use crate::scheme::SchemeConfig;
use crate::units::{Bytes, Dur};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

pub use check::MAX_CLASS_NAME;
pub use classes::{ClassConfig, SizeConfig, SourceConfig, TransportConfig, WorkloadConfig};
pub use topology::{LinkConfig, TopologyConfig};

/// A configuration problem: where (key path) and what was expected.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{path}: {msg}")]
pub struct ConfigError {
    pub path: String,
    pub msg: String,
}

impl ConfigError {
    /// An error at `path`. A value the message (or the path) echoes is shortened when it is
    /// longer than [`LONG_WORD`] characters: an error names the key and shows what was
    /// written, not 100 kB of it.
    pub fn new(path: impl Into<String>, msg: impl Into<String>) -> Self {
        ConfigError {
            path: elide_long_words(path.into()),
            msg: elide_long_words(msg.into()),
        }
    }
}

/// Longest run of non-space characters an error shows whole (a file path fits).
pub const LONG_WORD: usize = 200;

/// Each run of more than [`LONG_WORD`] non-space characters becomes its first 100 and last
/// 20 characters around "…", with its length.
fn elide_long_words(s: String) -> String {
    let long = |w: &str| w.chars().count() > LONG_WORD;
    if !s.split(char::is_whitespace).any(long) {
        return s;
    }
    let mut out = String::with_capacity(LONG_WORD * 2);
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        if long(word) {
            let n = word.chars().count();
            let head: String = word.chars().take(100).collect();
            let tail: String = word.chars().skip(n - 20).collect();
            out.push_str(&format!("{head}…{tail} ({n} characters)"));
        } else {
            out.push_str(word);
        }
        word.clear();
    };
    for c in s.chars() {
        if c.is_whitespace() {
            flush(&mut word, &mut out);
            out.push(c);
        } else {
            word.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Scenario {
    /// Free-form name, carried into results.
    pub name: String,
    /// Master seed: every random stream (arrivals, sizes, pairs, ECMP salts, RED) derives from it.
    pub seed: u64,
    pub topology: TopologyConfig,
    pub routing: RoutingConfig,
    pub packet: PacketConfig,
    pub switch: SwitchConfig,
    pub host: HostConfig,
    /// Named transport settings; classes refer to them by name. The built-ins `dctcp`,
    /// `d2tcp`, `l2dct`, `cubic`, `newreno`, `ledbat` and `tcp_lp` are always available; a table named after
    /// one overrides it, starting from its `cc`.
    #[serde(
        deserialize_with = "transport::de_transports",
        serialize_with = "transport::ser_transports"
    )]
    pub transports: BTreeMap<String, TransportConfig>,
    /// Traffic classes (closed-loop transport flows).
    pub classes: Vec<ClassConfig>,
    /// Open-loop constant-rate/burst sources (no transport), for testing the fabric.
    pub sources: Vec<SourceConfig>,
    pub scheme: SchemeConfig,
    pub run: RunConfig,
    pub output: OutputConfig,
}

impl Default for Scenario {
    fn default() -> Self {
        Scenario {
            name: "unnamed".into(),
            seed: 1,
            topology: TopologyConfig::default(),
            routing: RoutingConfig::default(),
            packet: PacketConfig::default(),
            switch: SwitchConfig::default(),
            host: HostConfig::default(),
            transports: BTreeMap::new(),
            classes: Vec::new(),
            sources: Vec::new(),
            scheme: SchemeConfig::None,
            run: RunConfig::default(),
            output: OutputConfig::default(),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum EcmpMode {
    /// Per-flow hashing with a per-switch salt: a flow keeps one path (no reordering).
    #[default]
    PerFlow,
    /// Per-packet spraying.
    PerPacket,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
pub struct RoutingConfig {
    pub ecmp: EcmpMode,
}

/// Wire sizes. Serialization time is computed from the bytes on the wire, overheads included.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PacketConfig {
    /// Largest IP packet (bytes).
    pub mtu: u32,
    /// Per-frame Ethernet cost on the wire: header 14 + FCS 4 + preamble 8 + inter-frame gap 12.
    pub eth_overhead: u32,
    pub ip_header: u32,
    pub tcp_header: u32,
    /// RFC 7323 timestamp option on data and ACKs (+12 bytes each).
    pub tcp_timestamps: bool,
    /// Smallest frame on the wire including preamble and gap (64 + 20).
    pub min_wire: u32,
}

impl Default for PacketConfig {
    fn default() -> Self {
        PacketConfig {
            mtu: 1500,
            eth_overhead: 38,
            ip_header: 20,
            tcp_header: 20,
            tcp_timestamps: false,
            min_wire: 84,
        }
    }
}

impl PacketConfig {
    pub fn tcp_hdr(&self) -> u32 {
        self.tcp_header + if self.tcp_timestamps { 12 } else { 0 }
    }
    /// Largest TCP payload per segment.
    pub fn mss(&self) -> u32 {
        self.mtu.saturating_sub(self.ip_header + self.tcp_hdr())
    }
    /// Wire bytes added to a TCP payload.
    pub fn data_overhead(&self) -> u32 {
        self.ip_header + self.tcp_hdr() + self.eth_overhead
    }
    pub fn ack_wire(&self) -> u32 {
        self.data_overhead().max(self.min_wire)
    }
    /// Wire bytes of a full-size frame.
    pub fn mtu_wire(&self) -> u32 {
        self.mtu + self.eth_overhead
    }
}

/// Run control. Flows that start inside the measurement window `[warmup, duration − cooldown)`
/// are measured; arrivals are generated in `[0, duration)`; the run continues past
/// `duration` until every measured flow has finished or `horizon` passes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RunConfig {
    pub duration: Dur,
    pub warmup: Dur,
    pub cooldown: Dur,
    /// Hard stop; default 10 × duration.
    pub horizon: Option<Dur>,
    /// Stop after this many events (0 = no limit).
    pub max_events: u64,
    /// Keep running until every flow (not just measured ones) has finished or the horizon passes.
    pub drain: bool,
    /// Largest memory the run may take by the resource estimate (see `scenario::resources`);
    /// none = half of what this process may use. Not part of the config hash.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory_limit: Option<Bytes>,
}

impl Default for RunConfig {
    fn default() -> Self {
        RunConfig {
            duration: Dur::ms(10),
            warmup: Dur(0),
            cooldown: Dur(0),
            horizon: None,
            max_events: 0,
            drain: false,
            memory_limit: None,
        }
    }
}

impl RunConfig {
    pub fn horizon(&self) -> Dur {
        self.horizon
            .unwrap_or(Dur(self.duration.0.saturating_mul(10)))
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum SamplePorts {
    /// Every switch egress port.
    #[default]
    Switch,
    /// Switch ports and host NICs.
    All,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
pub struct OutputConfig {
    /// Sample every queue's occupancy at this interval (none = no samples).
    pub queue_sample_interval: Option<Dur>,
    pub sample_ports: SamplePorts,
    /// Flow ids (in start order, as in the flows table) whose sender state is sampled.
    pub trace_flows: Vec<u32>,
    /// Sampling interval of traced flows (default 10 µs).
    pub trace_interval: Option<Dur>,
    /// Record a histogram of segment delivery times per class (first transmission to the
    /// first ACK covering the segment; TLT Fig. 16) into `meta["segment_delivery"]`.
    pub segment_delivery: bool,
    /// Write a packet capture (libpcap, Ethernet/IPv4/TCP headers) to this path, and its
    /// drops to `<path>.drops.csv` (see `sim::pcap`).
    pub pcap: Option<String>,
    /// Flow ids to capture (empty = every flow).
    pub pcap_flows: Vec<u32>,
    /// Egress ports `"NODE/PORT"` (node name, port index on that node) to capture at;
    /// empty = capture packets where they reach their destination host.
    pub pcap_ports: Vec<String>,
    /// Capture window [start, stop) (default: the whole run).
    pub pcap_start: Option<Dur>,
    pub pcap_stop: Option<Dur>,
    /// Cap on captured packets (and on drop rows), default 10⁶.
    pub pcap_max_packets: Option<u64>,
}

/// Parses a scenario from JSON, reporting the key path of the first error.
pub fn from_json(text: &str) -> Result<Scenario, ConfigError> {
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| {
        let mut msg = e.to_string();
        // JSON positions mean nothing to someone who wrote TOML or a dict.
        if let Some(i) = msg.rfind(" at line ") {
            msg.truncate(i);
        }
        ConfigError::new("scenario", format!("not a valid scenario document: {msg}"))
    })?;
    if !value.is_object() {
        return Err(ConfigError::new(
            "scenario",
            format!(
                "expected a table of scenario keys, got {}",
                crate::strict::describe(&value)
            ),
        ));
    }
    crate::strict::from_value::<Scenario>(&value).map_err(|(path, msg)| {
        let (path, msg) = crate::tagged::split_path(path, msg);
        ConfigError::new(path, msg)
    })
}

/// Serializes a scenario (normalized: every key present, canonical units).
pub fn to_json(sc: &Scenario) -> String {
    serde_json::to_string_pretty(sc).expect("scenario serializes")
}

impl From<dcnsim_workload::WorkloadError> for ConfigError {
    fn from(e: dcnsim_workload::WorkloadError) -> Self {
        ConfigError::new(e.path, e.msg)
    }
}
