//! From a validated [`Scenario`] to a ready-to-run [`Sim`]: topology, profiles, routes,
//! transports, workloads (explicit flow lists) and open-loop sources.

use super::classes::*;
use super::resources::{self, Budget};
use super::{ConfigError, EcmpMode, SamplePorts, Scenario, TransportConfig};
use crate::sim::nearopt::{OwnQueue, Share};
use crate::sim::source::SourceSpec;
use crate::sim::{Ecmp, Event, Sim};
use crate::topo::NodeKind;
use crate::transport::{CqcnRt, Family, FlowDesc, TransportKind, TransportRt};
use crate::units::Dur;
use dcnsim_engine::{rng::mix64, Rate, Time};
use dcnsim_workload as wl;
use std::sync::Arc;

/// A built run: the simulator plus what the driver needs to stop and report.
pub struct Built {
    pub sim: Sim,
    pub class_names: Vec<String>,
    pub duration: Time,
    pub horizon: Time,
    pub max_events: u64,
    /// Packets the run may hold at once (the memory limit's share; `run::run_built_with`
    /// stops a run that reaches it): the estimate cannot bound a queue without a limit.
    pub max_packets: u64,
    pub warnings: Vec<String>,
}

/// Reads a file named in a scenario (CDFs, CSV flow lists).
pub trait FileReader {
    fn read(&self, path: &str) -> std::io::Result<String>;
    /// The size of the file in bytes, if known (checked against the memory limit before
    /// reading).
    fn size(&self, _path: &str) -> Option<u64> {
        None
    }
}

/// Reads from the filesystem, paths as given.
pub struct FsReader;
impl FileReader for FsReader {
    fn read(&self, path: &str) -> std::io::Result<String> {
        std::fs::read_to_string(path)
    }
    fn size(&self, path: &str) -> Option<u64> {
        std::fs::metadata(path).ok().map(|m| m.len())
    }
}

/// Reads a scenario file after charging its size to the budget (the text and what is parsed
/// from it).
fn read_file(
    files: &dyn FileReader,
    path: &str,
    key: &str,
    budget: &mut Budget,
) -> Result<String, wl::WorkloadError> {
    if let Some(n) = files.size(path) {
        budget
            .charge(key, format!("file {path:?}"), n.saturating_mul(4))
            .map_err(|e| wl::WorkloadError::new(key, e.msg))?;
    }
    files
        .read(path)
        .map_err(|e| wl::WorkloadError::new(key, format!("cannot read {path:?}: {e}")))
}

/// Renames a key path from a generator's vocabulary to the user's: `pairs.src` is the
/// `senders` key, `sizes.lo` the first entry of `sizes.uniform`. `rules` are (generator
/// prefix, user prefix); a prefix matches whole segments only.
fn user_key(path: &str, rules: &[(&str, &str)]) -> String {
    for (from, to) in rules {
        if let Some(rest) = path.strip_prefix(from) {
            if rest.is_empty() || rest.starts_with('.') || rest.starts_with('[') {
                return format!("{to}{rest}");
            }
        }
    }
    path.to_string()
}

/// `sizes.lo` → `sizes.uniform[0]` for a size table under `key`.
fn size_rules(key: &str) -> [(String, String); 2] {
    [
        (format!("{key}.lo"), format!("{key}.uniform[0]")),
        (format!("{key}.hi"), format!("{key}.uniform[1]")),
    ]
}

fn rename(mut e: wl::WorkloadError, rules: &[(String, String)]) -> wl::WorkloadError {
    let r: Vec<(&str, &str)> = rules
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    e.path = user_key(&e.path, &r);
    e
}

fn port_err(prefix: &str) -> impl Fn((String, String)) -> ConfigError + '_ {
    move |(k, m)| ConfigError::new(format!("{prefix}.{k}"), m)
}

impl Scenario {
    /// Checks everything that can be checked without building.
    pub fn check(&self) -> Result<(), ConfigError> {
        let r = &self.run;
        if r.duration.0 == 0 {
            return Err(ConfigError::new(
                "run.duration",
                "expected a duration > 0 (e.g. \"10ms\")",
            ));
        }
        // Picosecond time in a u64 spans 213 days; keep every run far from wrapping.
        let max = Dur(1_000_000 * dcnsim_engine::SEC);
        for (key, d) in [("run.duration", r.duration), ("run.horizon", r.horizon())] {
            if d > max {
                return Err(ConfigError::new(
                    key,
                    "expected at most 1000000 s (time is integer picoseconds)",
                ));
            }
        }
        if r.warmup.0.saturating_add(r.cooldown.0) >= r.duration.0 {
            return Err(ConfigError::new(
                "run.warmup",
                "expected warmup + cooldown < duration (the measurement window would be empty)",
            ));
        }
        if r.horizon().0 < r.duration.0 {
            return Err(ConfigError::new(
                "run.horizon",
                "expected horizon ≥ duration",
            ));
        }
        let p = &self.packet;
        if p.mtu <= p.ip_header + p.tcp_hdr() || p.mtu > 65_535 {
            return Err(ConfigError::new(
                "packet.mtu",
                format!(
                    "expected an MTU larger than the IP + TCP headers ({}) and ≤ 65535",
                    p.ip_header + p.tcp_hdr()
                ),
            ));
        }
        self.switch.port().check().map_err(port_err("switch"))?;
        self.host.port().check().map_err(port_err("host"))?;
        self.scheme
            .check(self.switch.queues, self.host.queues)
            .map_err(port_err("scheme"))?;
        self.check_shim_classes()?;
        if self.switch.shared_buffer.is_some_and(|b| b.0 == 0) {
            return Err(ConfigError::new(
                "switch.shared_buffer",
                "expected a size > 0, or remove the key for no shared buffer",
            ));
        }
        let nq = self.switch.queues;
        if let Some(c) = &self.switch.colour {
            c.check(nq).map_err(port_err("switch.colour"))?;
        }
        if let Some(pfc) = &self.switch.pfc {
            pfc.check(nq).map_err(port_err("switch.pfc"))?;
            if pfc.enabled && self.switch.shared_buffer.is_none() {
                return Err(ConfigError::new(
                    "switch.pfc",
                    "PFC needs switch.shared_buffer: its thresholds and headroom are parts \
                     of the switch buffer",
                ));
            }
        }
        for (name, t) in &self.transports {
            let key = format!("transports.{name}");
            if let Some(r) = t
                .roce
                .as_ref()
                .filter(|_| t.kind == TransportKindName::Roce)
            {
                // The host link rate is known only when the topology is built: any rate
                // checks the other keys here.
                r.params(
                    p,
                    Some(dcnsim_engine::Rate::gbps(1)),
                    &format!("{key}.roce"),
                )?;
                continue;
            }
            t.tcp(p.mss(), p.tcp_timestamps, &key)
                .map_err(|e| written_side(t, e, &key))?;
        }
        for (key, d) in [
            (
                "output.queue_sample_interval",
                self.output.queue_sample_interval,
            ),
            ("output.trace_interval", self.output.trace_interval),
        ] {
            if d.is_some_and(|d| d.0 == 0) {
                return Err(ConfigError::new(
                    key,
                    "expected a duration > 0 (e.g. \"10us\")",
                ));
            }
        }
        let sq = self.switch.queues;
        let hq = self.host.queues;
        let check_prio = |prio: u8, key: String| -> Result<(), ConfigError> {
            if (sq > 1 && prio >= sq) || (hq > 1 && prio >= hq) {
                return Err(ConfigError::new(key, format!("queue {prio} does not exist: expected 0..{} ([switch] has {sq} queues, [host] has {hq})", sq.min(hq).max(1) - 1)));
            }
            Ok(())
        };
        let mut names = std::collections::BTreeSet::new();
        for (i, c) in self.classes.iter().enumerate() {
            if !names.insert(c.name.as_str()) {
                return Err(ConfigError::new(
                    format!("classes[{i}].name"),
                    format!("expected a unique class name, {:?} is used twice", c.name),
                ));
            }
            check_prio(c.priority, format!("classes[{i}].priority"))?;
            check_flex(c.alpha, c.reliability, &format!("classes[{i}]"))?;
            if let Some(a) = c.ack_priority {
                check_prio(a, format!("classes[{i}].ack_priority"))?;
            }
            // LPF use cases: SJF size split and DAS duplicates (spec §5.1.1–5.1.2).
            if let Some(l) = &c.large {
                if l.threshold.0 == 0 {
                    return Err(ConfigError::new(
                        format!("classes[{i}].large.threshold"),
                        "expected a size > 0 (flows of at least this size get large.priority)",
                    ));
                }
                check_prio(l.priority, format!("classes[{i}].large.priority"))?;
                if let Some(a) = l.ack_priority {
                    check_prio(a, format!("classes[{i}].large.ack_priority"))?;
                }
            }
            if let WorkloadConfig::Das(d) = &c.workload {
                let key = format!("classes[{i}].workload");
                check_prio(d.duplicate_priority, format!("{key}.duplicate_priority"))?;
                if let Some(a) = d.duplicate_ack_priority {
                    check_prio(a, format!("{key}.duplicate_ack_priority"))?;
                }
                if d.purge {
                    return Err(ConfigError::new(
                        format!("{key}.purge"),
                        "purge = true is not implemented (the simulator cannot cancel a running \
                         flow); expected false — both copies run to completion, as in LPF §3.1",
                    ));
                }
            }
            if let Some(t) = self.transport(&c.transport) {
                if t.cqcn {
                    check_prio(
                        t.cqcn_priority,
                        format!("transports.{}.cqcn_priority", c.transport),
                    )?;
                }
                self.check_irn_without_pfc(i, c, &t)?;
            }
            if !self.transports.contains_key(&c.transport)
                && TransportConfig::builtin(&c.transport).is_none()
            {
                let mut known: Vec<String> = self.transports.keys().cloned().collect();
                known.extend(super::transport::BUILTINS.map(|b| b.0.to_string()));
                known.push(super::transport::ROCE_BUILTIN.to_string());
                known.push(super::transport::HPCC_BUILTIN.to_string());
                return Err(ConfigError::new(
                    format!("classes[{i}].transport"),
                    format!(
                        "unknown transport {:?}; expected one of {}",
                        c.transport,
                        known.join(", ")
                    ),
                ));
            }
        }
        for (i, s) in self.sources.iter().enumerate() {
            check_prio(s.priority, format!("sources[{i}].priority"))?;
            if s.rate.0 == 0 {
                return Err(ConfigError::new(
                    format!("sources[{i}].rate"),
                    "expected a rate > 0",
                ));
            }
            if s.packet.0 < 64 || s.packet.0 > 65_535 {
                return Err(ConfigError::new(
                    format!("sources[{i}].packet"),
                    "expected a wire size from 64 to 65535 bytes",
                ));
            }
            if s.burst == 0 {
                return Err(ConfigError::new(
                    format!("sources[{i}].burst"),
                    "expected at least 1",
                ));
            }
        }
        Ok(())
    }

    /// Settings that are valid but cannot have an effect: each warning names the key.
    pub fn warnings(&self) -> Vec<String> {
        let mut w = Vec::new();
        let sw = &self.switch;
        let pfc_on = sw.pfc.as_ref().is_some_and(|p| p.enabled);
        if let (Some(b), false) = (sw.shared_buffer, pfc_on) {
            // Dynamic threshold: a queue is admitted while it is below α·(B − used). With P
            // ports on a switch, each holding at most C bytes by the static limits, used ≤
            // P·C; if every queue's static limit is below α·(B − P·C), the pool never decides
            // anything (the README's 4 MB pool behind 100-packet ports).
            let mtu = self.packet.mtu_wire() as u64;
            let nq = sw.queues.max(1) as usize;
            let ql: Vec<Option<u64>> = (0..nq)
                .map(|q| sw.queue_limit.as_ref().map(|l| l.get(q).as_bytes(mtu)))
                .collect();
            let port = sw.port_limit.map(|a| a.as_bytes(mtu));
            let sum_q = ql
                .iter()
                .try_fold(0u64, |a, q| q.map(|q| a.saturating_add(q)));
            let per_port = match (port, sum_q) {
                (Some(a), Some(c)) => Some(a.min(c)),
                (a, c) => a.or(c),
            };
            let ports = resources::TopoCounts::of(&self.topology)
                .map(|c| c.max_degree)
                .unwrap_or(u64::MAX);
            let shadowed = per_port.is_some_and(|c| {
                let used = ports.saturating_mul(c);
                used < b.0
                    && (0..nq).all(|q| {
                        let stat = match (port, ql[q]) {
                            (Some(a), Some(c)) => a.min(c),
                            (a, c) => a.or(c).unwrap_or(u64::MAX),
                        };
                        let a = sw.alpha.get(q);
                        a.is_finite() && (stat as f64) < a * (b.0 - used) as f64
                    })
            });
            if shadowed {
                let lim = if sw.port_limit.is_some() {
                    "switch.port_limit"
                } else {
                    "switch.queue_limit"
                };
                w.push(format!(
                    "switch.shared_buffer: the {} B shared buffer cannot take effect: {lim} \
                     stops every queue before the pool's dynamic threshold could, even with \
                     every port full; raise {lim} for the shared buffer to matter",
                    b.0
                ));
            }
        }
        let cqcn_scheme = matches!(self.scheme, crate::scheme::SchemeConfig::Cqcn(_));
        let mut cqcn_used = false;
        for (i, c) in self.classes.iter().enumerate() {
            let Some(t) = self.transport(&c.transport) else {
                continue;
            };
            if t.cqcn {
                cqcn_used = true;
                let key = if self.transports.contains_key(&c.transport) {
                    format!("transports.{}.cqcn", c.transport)
                } else {
                    format!("classes[{i}].transport")
                };
                let msg = if t.kind != TransportKindName::Tcp {
                    format!(
                        "{key}: cqcn = true has no effect on a {:?} transport",
                        t.kind
                    )
                } else if !cqcn_scheme {
                    format!(
                        "{key}: cqcn = true has no effect without [scheme] kind = \"cqcn\" \
                         (no switch marks the probes)"
                    )
                } else {
                    continue;
                };
                if !w.contains(&msg) {
                    w.push(msg);
                }
            }
        }
        // TLT: colour-aware queues and the transports that mark packets (TLT §4, §6).
        let nq = sw.queues.clamp(1, 8);
        let colour_q = sw
            .colour
            .as_ref()
            .map_or(0, |c| crate::net::config::queue_mask(&c.queues, nq));
        for (i, c) in self.classes.iter().enumerate() {
            let Some(t) = self.transport(&c.transport) else {
                continue;
            };
            let roce_tlt = t
                .roce
                .as_ref()
                .is_some_and(|r| r.tlt != super::roce::RoceTltName::Off);
            let tlt = t.tlt != super::transport::TltName::Off || roce_tlt;
            let q = c.priority.min(nq - 1);
            let msg = if colour_q & (1 << q) != 0 && !tlt {
                format!(
                    "switch.colour: class {:?} (transport {:?}, tlt = \"off\") uses \
                     colour-aware queue {q}: all its packets are red and dropped at the \
                     threshold; TLT §6 puts traffic without TLT in another queue",
                    c.name, c.transport
                )
            } else if tlt && colour_q & (1 << q) == 0 {
                let key = if self.transports.contains_key(&c.transport) {
                    let roce = if roce_tlt { ".roce" } else { "" };
                    format!("transports.{}{roce}.tlt", c.transport)
                } else {
                    format!("classes[{i}].transport")
                };
                format!(
                    "{key}: queue {q} of class {:?} has no colour-aware dropping \
                     (switch.colour), so its important packets get no preference in the \
                     switches; TLT then only marks and clocks",
                    c.name
                )
            } else {
                continue;
            };
            if !w.contains(&msg) {
                w.push(msg);
            }
        }
        // REFLEX acts only through flexible flows (finite alpha or reliability < 1).
        if matches!(self.scheme, crate::scheme::SchemeConfig::Reflex(_)) {
            let flexible = |a: Option<f64>, r: Option<f64>| {
                a.is_some_and(f64::is_finite) || r.is_some_and(|r| r < 1.0)
            };
            let any = self.classes.iter().any(|c| {
                flexible(c.alpha, c.reliability)
                    || match &c.workload {
                        WorkloadConfig::Flows(f) => {
                            f.csv.is_some()
                                || f.list.iter().any(|r| flexible(r.alpha, r.reliability))
                        }
                        _ => false,
                    }
            });
            if !any {
                w.push(
                    "scheme: kind = \"reflex\" has no effect: no class or flow is flexible \
                     (set alpha or reliability < 1)"
                        .into(),
                );
            }
        }
        if cqcn_scheme && !cqcn_used {
            w.push(
                "scheme: kind = \"cqcn\" has no effect: no class uses a transport with \
                 cqcn = true"
                    .into(),
            );
        }
        // A class priority on a 1-queue port is folded onto queue 0.
        let (sq, hq) = (self.switch.queues, self.host.queues);
        if sq <= 1 || hq <= 1 {
            let mut prios: Vec<(String, u8)> = Vec::new();
            for (i, c) in self.classes.iter().enumerate() {
                prios.push((format!("classes[{i}].priority"), c.priority));
                if let Some(a) = c.ack_priority {
                    prios.push((format!("classes[{i}].ack_priority"), a));
                }
                if let Some(l) = &c.large {
                    prios.push((format!("classes[{i}].large.priority"), l.priority));
                }
            }
            for (i, s) in self.sources.iter().enumerate() {
                prios.push((format!("sources[{i}].priority"), s.priority));
            }
            for (key, p) in prios.into_iter().filter(|(_, p)| *p > 0) {
                let which = if sq <= 1 && hq <= 1 {
                    "[switch] and [host] have"
                } else if sq <= 1 {
                    "[switch] has"
                } else {
                    "[host] has"
                };
                w.push(format!(
                    "{key}: priority {p} is folded onto queue 0 ({which} 1 queue)"
                ));
            }
        }
        w
    }

    /// The transport named `name` (scenario first, then built-ins).
    pub fn transport(&self, name: &str) -> Option<TransportConfig> {
        self.transports
            .get(name)
            .cloned()
            .or_else(|| TransportConfig::builtin(name))
    }

    /// PFC at every switch (mechanisms §2.6); the errors name the key to change.
    fn build_pfc(&self, sim: &mut Sim, pfc: &crate::net::PfcConfig) -> Result<(), ConfigError> {
        let nq = self.switch.queues.clamp(1, 8);
        let lossless = crate::net::config::queue_mask(&pfc.queues, nq);
        sim.enable_pfc(pfc, lossless, self.packet.mtu_wire() as u64)
            .map_err(|m| {
                let key = if m.starts_with("the fabric") {
                    "switch.pfc"
                } else if pfc.headroom.is_some() {
                    "switch.pfc.headroom"
                } else {
                    "switch.shared_buffer"
                };
                ConfigError::new(key, m)
            })
    }

    /// Builds the run. Where nothing needs every flow before the run starts (see
    /// [`Scenario::build_with`]), Poisson classes generate their flows as the run reaches
    /// them and finished flows are retired (`sim::flow`, streaming): the same flows, ids
    /// and results as building every flow first, in memory that does not grow with the
    /// run's length.
    pub fn build(&self, files: &dyn FileReader) -> Result<Built, ConfigError> {
        self.build_with(files, true)
    }

    /// [`Scenario::build`]; `stream = false` adds every flow before the run (the results
    /// are the same: tests compare the two). Streaming is used only when a class has a
    /// Poisson workload and the scenario names no flow ids before the run (`output.trace_flows`, `output.pcap`), runs no
    /// sender shim (ElasticSwitch, C3), has no flexible (REFLEX) flows, and expects at
    /// most half the flow-id space.
    pub fn build_with(&self, files: &dyn FileReader, stream: bool) -> Result<Built, ConfigError> {
        self.check()?;
        let stream = stream
            && self.output.trace_flows.is_empty()
            && self.output.pcap.is_none()
            && self
                .classes
                .iter()
                .all(|c| c.alpha.is_none() && c.reliability.is_none());
        // Estimate before allocating: a topology or workload too big for the memory limit
        // is a keyed error here, not an abort (or the OOM killer) later.
        let mut budget = Budget::new(self.run.memory_limit);
        let counts = resources::charge_topology(self, &mut budget)?;
        let g = self.topology.build(self.packet.mtu_wire() as u64)?;
        if self.switch.pfc.as_ref().is_some_and(|p| p.enabled)
            && g.links.iter().any(|l| l.tb_depth.is_some())
        {
            return Err(ConfigError::new(
                "switch.pfc",
                "PFC is not modelled on token-bucket links (shaper = \"token_bucket\"): \
                 PAUSE frames need a serializing wire",
            ));
        }
        let ecmp = match self.routing.ecmp {
            EcmpMode::PerFlow => Ecmp::PerFlow,
            EcmpMode::PerPacket => Ecmp::PerPacket,
        };
        let mut sim = Sim::with_configs(&g, &self.switch, &self.host, self.seed, ecmp);
        if self.output.segment_delivery {
            sim.flows.delivery = Some(vec![
                [0; crate::transport::DELIVERY_BINS];
                self.classes.len().max(1)
            ]);
        }
        if let Some(pfc) = self.switch.pfc.as_ref().filter(|p| p.enabled) {
            self.build_pfc(&mut sim, pfc)?;
        }
        // The scenario's `[scheme]` (its hooks run only when it is not `none`).
        sim.scheme = crate::scheme::AnyScheme::build(&self.scheme);
        let n_hosts = g.n_hosts();
        let host_bps: Vec<u64> = (0..n_hosts)
            .map(|h| sim.ports[sim.host_port(h) as usize].clock.rate().0)
            .collect();
        let hosts = wl::Hosts {
            n: n_hosts,
            rack_of: g.racks(),
            link_bps: host_bps.clone(),
        };

        // Transports: one runtime entry per class (classes may share a name; cheap).
        let p = &self.packet;
        // One rate for every host link (a RoCE QP's default line rate), if they agree.
        let host_rate = host_bps
            .first()
            .filter(|&&r| host_bps.iter().all(|&x| x == r))
            .map(|&r| dcnsim_engine::Rate(r));
        let mut lists = Vec::new();
        for (i, c) in self.classes.iter().enumerate() {
            let key = format!("classes[{i}]");
            let t = self.transport(&c.transport).expect("checked");
            if t.kind == TransportKindName::Roce {
                let tkey = if self.transports.contains_key(&c.transport) {
                    format!("transports.{}.roce", c.transport)
                } else {
                    format!("{key}.transport")
                };
                let rp = t
                    .roce
                    .clone()
                    .unwrap_or_default()
                    .params(p, host_rate, &tkey)?;
                sim.flows.transports.push(TransportRt {
                    kind: TransportKind::Roce,
                    handshake: false,
                    nearopt_immediate: false,
                    cqcn: None,
                    tlt: rp.tlt != crate::transport::roce::tlt::RoceTlt::Off,
                    payload: rp.payload,
                    data_overhead: rp.data_overhead,
                    ack_wire: rp.ack_wire,
                    family: Family::Roce(rp),
                });
                let flows = self
                    .workload_flows(&c.workload, i, &hosts, files, &mut budget, stream)
                    .map_err(|e| e.at(&format!("{key}.workload")))?;
                lists.push(flows);
                continue;
            }
            let tcp = t.tcp(p.mss(), p.tcp_timestamps, &format!("{key}.transport"))?;
            if t.kind == TransportKindName::Nearopt {
                // One oracle for the run: its period is the first Near-Opt transport's
                // setting, else the sender's host link delay (LPF §3: T = link delay).
                if sim.nearopt.period == 0 {
                    let d = sim.ports[sim.host_port(0) as usize].delay;
                    sim.nearopt.period = t
                        .nearopt_period
                        .map(|d| d.0)
                        .unwrap_or(d)
                        .max(dcnsim_engine::NS);
                    sim.nearopt.min_rate = t.nearopt_min_rate.0 as f64 / 8.0;
                    sim.nearopt.own_queue = match t.nearopt_own_queue {
                        NearOptOwnQueue::Excess => OwnQueue::Excess,
                        NearOptOwnQueue::Full => OwnQueue::Full,
                        NearOptOwnQueue::Ignore => OwnQueue::Ignore,
                    };
                    sim.nearopt.share = match t.nearopt_share {
                        NearOptShare::Equal => Share::Equal,
                        NearOptShare::MaxMin => Share::MaxMin,
                    };
                }
            }
            if t.cqcn && t.cqcn_probe.0 < 64 {
                return Err(ConfigError::new(
                    format!("{key}.transport"),
                    "cqcn_probe: expected at least 64 bytes on the wire",
                ));
            }
            sim.flows.transports.push(TransportRt {
                handshake: t.handshake,
                nearopt_immediate: t.nearopt_loss == NearOptLoss::Immediate,
                kind: if t.kind == TransportKindName::Nearopt {
                    TransportKind::NearOpt
                } else {
                    TransportKind::Tcp
                },
                cqcn: (t.cqcn && t.kind == TransportKindName::Tcp).then(|| CqcnRt {
                    interval: t.cqcn_interval.0.max(1),
                    wire: t.cqcn_probe.0 as u32,
                    priority: t.cqcn_priority,
                }),
                tlt: tcp.tlt.is_some(),
                payload: tcp.mss,
                family: Family::Tcp(tcp),
                data_overhead: p.data_overhead(),
                ack_wire: p.ack_wire(),
            });
            let flows = self
                .workload_flows(&c.workload, i, &hosts, files, &mut budget, stream)
                .map_err(|e| e.at(&format!("{key}.workload")))?;
            lists.push(flows);
        }
        self.build_shim(&mut sim);
        // Streaming needs a generated (Poisson) class, no flow naming a REFLEX factor, no
        // shim, and room in the id space (otherwise every flow is generated now and checked
        // below).
        let expected: f64 = lists.iter().map(|l| l.expected()).sum();
        let streaming = stream
            && lists.iter().any(|l| matches!(l, ClassFlows::Stream(_)))
            && sim.shim.is_none()
            && expected <= crate::sim::MAX_EVENT_INDEX as f64 / 2.0
            && lists.iter().all(|l| match l {
                ClassFlows::List(v) => v
                    .iter()
                    .all(|f| f.alpha.is_none() && f.reliability.is_none()),
                ClassFlows::Stream(_) => true,
            });
        let (w0, w1) = (self.run.warmup.0, self.run.duration.0 - self.run.cooldown.0);
        let maker = FlowMaker {
            seed: self.seed,
            window: (w0, w1),
            das: self
                .classes
                .iter()
                .map(|c| matches!(c.workload, WorkloadConfig::Das(_)))
                .collect(),
            classes: self.classes.clone(),
        };
        if streaming {
            let mut warnings = self.warnings();
            let feed = crate::sim::flow::FlowFeed::new(
                lists.into_iter().map(|l| l.into_iter()).collect(),
                Box::new(move |sim: &Sim, id: u32, f: &wl::FlowSpec| {
                    let path = sim.path_info(f.src, f.dst);
                    maker.make(sim, id, f, &path, None)
                }),
            );
            for i in 0..self.classes.len() {
                if feed.list_empty(i) {
                    warnings.push(format!(
                        "classes[{i}].workload: generated no flows (check load, start/stop and \
                         the run duration)"
                    ));
                }
            }
            sim.next_start = feed.next_start();
            sim.feed = Some(Box::new(feed));
            sim.flows.streaming = true;
            return self.build_rest(sim, budget, counts, n_hosts, warnings);
        }
        let lists: Vec<Vec<wl::FlowSpec>> =
            lists.into_iter().map(|l| l.into_iter().collect()).collect();
        // Events carry a 26-bit index (flows, ports, sources).
        let cap = crate::sim::MAX_EVENT_INDEX as usize;
        let total: usize = lists.iter().map(|l| l.len()).sum();
        if total > cap {
            let (big, _) = lists
                .iter()
                .enumerate()
                .max_by_key(|(_, l)| l.len())
                .expect("flows exist");
            return Err(ConfigError::new(
                format!("classes[{big}].workload"),
                format!("the run would have {total} flows; expected at most {cap} per run (shorten the run or lower the load)"),
            ));
        }
        if self.sources.len() > cap {
            return Err(ConfigError::new(
                "sources",
                format!("expected at most {cap} sources, got {}", self.sources.len()),
            ));
        }
        let mut warnings = self.warnings();
        for (i, l) in lists.iter().enumerate() {
            if l.is_empty() {
                warnings.push(format!(
                    "classes[{i}].workload: generated no flows (check load, start/stop and \
                     the run duration)"
                ));
            }
        }
        let flows = wl::merge_sorted(lists);
        let mut paths = std::collections::HashMap::new();
        for f in flows {
            let path = paths
                .entry((f.src, f.dst))
                .or_insert_with(|| sim.path_info(f.src, f.dst))
                .clone();
            let flex = self.flow_flex(f.class as usize, f.alpha, f.reliability)?;
            // REFLEX runs in the TCP-family sender (transport/tcp.rs); any other endpoint
            // would silently ignore the flow's budgets.
            if flex.is_some()
                && !matches!(
                    sim.flows.transports[f.class as usize].kind,
                    TransportKind::Tcp | TransportKind::NearOpt
                )
            {
                let k = if f.alpha.is_some() || f.reliability.is_some() {
                    format!("classes[{}].workload (a flow's alpha)", f.class)
                } else {
                    format!("classes[{}].alpha", f.class)
                };
                return Err(ConfigError::new(
                    k,
                    "a flexible flow needs a TCP-family transport (REFLEX runs in the TCP \
                     sender); this class's transport is not one",
                ));
            }
            let d = maker.make(&sim, sim.flows.len() as u32, &f, &path, flex);
            sim.add_flow(d);
        }
        self.build_rest(sim, budget, counts, n_hosts, warnings)
    }

    /// The part of [`Scenario::build`] after the flows: sources, samples, traces, observers.
    fn build_rest(
        &self,
        mut sim: Sim,
        mut budget: Budget,
        counts: resources::TopoCounts,
        n_hosts: u32,
        mut warnings: Vec<String>,
    ) -> Result<Built, ConfigError> {
        for (i, s) in self.sources.iter().enumerate() {
            let key = format!("sources[{i}]");
            if s.src >= n_hosts || s.dst >= n_hosts || s.src == s.dst {
                return Err(ConfigError::new(
                    format!("{key}.dst"),
                    format!(
                        "expected distinct hosts below {n_hosts}, got src {} dst {}",
                        s.src, s.dst
                    ),
                ));
            }
            sim.add_source(SourceSpec {
                src: s.src,
                dst: s.dst,
                class: s.priority,
                wire: s.packet.0 as u32,
                rate: s.rate.rate(),
                start: s.start.0,
                stop: s.stop.map(|d| d.0).unwrap_or(self.run.duration.0),
                burst: s.burst,
                max_pkts: s.count,
                ect: s.ecn,
                entropy: mix64(&[self.seed, 0x50c, i as u64]) as u32,
            });
        }
        // Samples and traces grow with the run: charge what the run's duration gives, and
        // cap them at run time at what the limit leaves (a run going on to the horizon).
        let dur = self.run.duration.0 as f64;
        let mut est_samples = 0u64;
        if let Some(iv) = self.output.queue_sample_interval {
            let ports = match self.output.sample_ports {
                SamplePorts::Switch => counts.ports().saturating_sub(counts.hosts),
                SamplePorts::All => counts.ports(),
            };
            let q = self.switch.queues.max(self.host.queues).max(1) as f64;
            let rows = (dur / iv.0 as f64).ceil() * ports as f64 * q;
            est_samples = rows.min(u64::MAX as f64 / 1e3) as u64;
            budget.charge(
                "output.queue_sample_interval",
                format!("{rows:.3e} queue samples"),
                est_samples.saturating_mul(resources::SAMPLE_BYTES),
            )?;
        }
        let mut est_traces = 0u64;
        if !self.output.trace_flows.is_empty() {
            let iv = self
                .output
                .trace_interval
                .map(|d| d.0)
                .unwrap_or(10 * dcnsim_engine::US) as f64;
            let rows = (dur / iv).ceil() * self.output.trace_flows.len() as f64;
            est_traces = rows.min(u64::MAX as f64 / 1e3) as u64;
            let key = if self.output.trace_interval.is_some() {
                "output.trace_interval"
            } else {
                "output.trace_flows"
            };
            budget.charge(
                key,
                format!("{rows:.3e} trace rows"),
                est_traces.saturating_mul(resources::TRACE_BYTES),
            )?;
        }
        budget.probe("run.memory_limit")?;
        let left = budget.left() / 2;
        sim.max_samples = est_samples.saturating_add(left / resources::SAMPLE_BYTES) as usize;
        sim.max_trace_rows = est_traces.saturating_add(left / resources::TRACE_BYTES) as usize;
        let max_packets = (left / resources::PACKET_BYTES).min(resources::MAX_PACKET_CAP);
        if let Some(iv) = self.output.queue_sample_interval {
            sim.sample_every = iv.0;
            sim.sample_ports = (0..sim.ports.len() as u32)
                .filter(|&p| {
                    self.output.sample_ports == SamplePorts::All
                        || sim.nodes[sim.ports[p as usize].node as usize].kind == NodeKind::Switch
                })
                .collect();
            sim.ev.push(0, Event::Sample);
        }
        if !self.output.trace_flows.is_empty() {
            let n = sim.flows.len() as u32;
            if let Some(bad) = self.output.trace_flows.iter().find(|&&f| f >= n) {
                return Err(ConfigError::new(
                    "output.trace_flows",
                    format!("flow {bad} does not exist: expected flow ids below {n}"),
                ));
            }
            sim.trace_flows = self.output.trace_flows.clone();
            sim.trace_every = self
                .output
                .trace_interval
                .map(|d| d.0)
                .unwrap_or(10 * dcnsim_engine::US)
                .max(1);
            sim.ev.push(0, Event::Trace);
        }
        self.build_observers(&mut sim)?;
        sim.stop_min = self.run.duration.0;
        sim.drain = self.run.drain;
        if self.classes.is_empty() && self.sources.is_empty() {
            warnings.push("the scenario has no traffic: add [[classes]] or [[sources]]".into());
        }
        Ok(Built {
            sim,
            class_names: self.classes.iter().map(|c| c.name.clone()).collect(),
            duration: self.run.duration.0,
            horizon: self.run.horizon().0,
            max_events: self.run.max_events,
            max_packets,
            warnings,
        })
    }

    fn size_dist(
        &self,
        s: &SizeConfig,
        files: &dyn FileReader,
        key: &str,
        budget: &mut Budget,
    ) -> Result<wl::SizeDist, wl::WorkloadError> {
        let set = [
            s.fixed.is_some(),
            s.uniform.is_some(),
            s.cdf.is_some(),
            s.cdf_file.is_some(),
        ]
        .iter()
        .filter(|x| **x)
        .count();
        if set != 1 {
            return Err(wl::WorkloadError::new(
                key,
                "expected exactly one of fixed, uniform, cdf, cdf_file",
            ));
        }
        let d = if let Some(b) = s.fixed {
            wl::SizeDist::Fixed(b.0)
        } else if let Some([lo, hi]) = s.uniform {
            wl::SizeDist::Uniform { lo: lo.0, hi: hi.0 }
        } else {
            let cdf = if let Some(name) = &s.cdf {
                wl::Cdf::builtin(name, &format!("{key}.cdf"))?
            } else {
                let path = s.cdf_file.as_ref().unwrap();
                let text = read_file(files, path, &format!("{key}.cdf_file"), budget)?;
                wl::Cdf::parse(&text, &format!("{key}.cdf_file"))?
            };
            let scale = if s.scale == 0.0 { 1.0 } else { s.scale };
            wl::SizeDist::Cdf {
                cdf: Arc::new(cdf),
                interp: s.interp,
                scale,
            }
        };
        d.validate(key).map_err(|e| rename(e, &size_rules(key)))?;
        Ok(d)
    }

    fn workload_flows(
        &self,
        w: &WorkloadConfig,
        class: usize,
        hosts: &wl::Hosts,
        files: &dyn FileReader,
        budget: &mut Budget,
        stream: bool,
    ) -> Result<ClassFlows, wl::WorkloadError> {
        let dur = self.run.duration.0;
        let seed = self.seed;
        let idx = class as u64;
        let mut flows = match w {
            WorkloadConfig::Poisson(PoissonWl {
                sizes,
                load,
                pairs,
                senders,
                receivers,
                load_basis,
                bisection,
                deadline,
                max_flows,
                start,
                stop,
            }) => {
                let sizes = self.size_dist(sizes, files, "sizes", budget)?;
                let pairs = match (senders, receivers) {
                    (None, None) => match pairs {
                        PairsName::AllToAll => wl::Pairs::AllToAll,
                        PairsName::IntraRack => wl::Pairs::IntraRack,
                        PairsName::InterRack => wl::Pairs::InterRack,
                        PairsName::Permutation => wl::Pairs::Permutation,
                    },
                    (s, r) => {
                        let all: Vec<u32> = (0..hosts.n).collect();
                        let dst = r.clone().unwrap_or_else(|| all.clone());
                        // An absent `senders` list is every host with another host to send
                        // to: all of them but the receiver when `receivers` names only one
                        // (that host could send to nobody but itself).
                        let alone = match dst[..] {
                            [d] => Some(d),
                            _ => None,
                        };
                        let src = s.clone().unwrap_or_else(|| {
                            all.iter().copied().filter(|&h| Some(h) != alone).collect()
                        });
                        wl::Pairs::Fixed { src, dst }
                    }
                };
                let load_basis = match load_basis {
                    LoadBasisName::HostLinks => wl::LoadBasis::HostLinks,
                    LoadBasisName::SenderHosts => wl::LoadBasis::SenderHosts,
                    LoadBasisName::Bisection => match bisection {
                        Some(b) if b.0 > 0 => wl::LoadBasis::Bisection { bps: b.0 },
                        Some(_) => {
                            return Err(wl::WorkloadError::new(
                                "bisection",
                                "expected a rate > 0 when load_basis = \"bisection\"",
                            ))
                        }
                        None => {
                            return Err(wl::WorkloadError::new(
                                "bisection",
                                "missing key `bisection`: expected a rate > 0 when \
                                 load_basis = \"bisection\"",
                            ))
                        }
                    },
                };
                let deadline = deadline.as_ref().map(|d| match d {
                    DeadlineConfig::Fixed(FixedDeadline { value }) => {
                        wl::DeadlineDist::Fixed(value.0)
                    }
                    DeadlineConfig::Uniform(UniformDeadline { lo, hi }) => {
                        wl::DeadlineDist::Uniform { lo: lo.0, hi: hi.0 }
                    }
                    DeadlineConfig::Exp(ExpDeadline { mean, min }) => wl::DeadlineDist::Exp {
                        mean: mean.0,
                        min: min.0,
                    },
                });
                let spec = wl::PoissonSpec {
                    sizes,
                    load: *load,
                    load_basis,
                    pairs,
                    start: start.map(|d| d.0).unwrap_or(0),
                    stop: stop.map(|d| d.0).unwrap_or(dur),
                    max_flows: *max_flows,
                    class: class as u16,
                    deadline,
                };
                if load.is_finite() && *load > 0.0 {
                    let cap = match spec.load_basis {
                        wl::LoadBasis::Bisection { bps } => bps as f64,
                        _ => hosts.total_bps(),
                    };
                    let secs = spec.stop.saturating_sub(spec.start) as f64 / 1e12;
                    let mut n = load * cap * secs / (8.0 * spec.sizes.mean().max(1.0));
                    if let Some(m) = max_flows {
                        n = n.min(*m as f64);
                    }
                    charge_flows(budget, "load", n)?;
                }
                // The generator names the lists `pairs.src`/`pairs.dst`; the user wrote
                // `senders`/`receivers` (an absent list defaults to every host).
                let src_key = if senders.is_some() {
                    "senders"
                } else {
                    "receivers"
                };
                let dst_key = if receivers.is_some() {
                    "receivers"
                } else {
                    "senders"
                };
                let mut rules = vec![
                    ("pairs.src".to_string(), src_key.to_string()),
                    ("pairs.dst".to_string(), dst_key.to_string()),
                    ("load_basis.bps".to_string(), "bisection".to_string()),
                ];
                if stop.is_none() {
                    rules.push((
                        "stop".into(),
                        if start.is_some() { "start" } else { "load" }.into(),
                    ));
                }
                rules.extend(size_rules("sizes"));
                let g =
                    wl::poisson_stream(&spec, hosts, seed, idx).map_err(|e| rename(e, &rules))?;
                if stream {
                    return Ok(ClassFlows::Stream(Box::new(g)));
                }
                g.collect()
            }
            WorkloadConfig::Incast(IncastWl {
                fan_in,
                bytes_per_sender,
                flows_per_sender,
                receiver,
                senders,
                period,
                load,
                jitter,
                start,
                stop,
                exclude_receiver_rack,
            }) => {
                let spec = wl::IncastSpec {
                    receiver: *receiver,
                    senders: senders.clone(),
                    fan_in: *fan_in,
                    bytes_per_sender: self.size_dist(
                        bytes_per_sender,
                        files,
                        "bytes_per_sender",
                        budget,
                    )?,
                    flows_per_sender: *flows_per_sender,
                    start: start.map(|d| d.0).unwrap_or(0),
                    period: period.map(|d| d.0),
                    load: *load,
                    stop: stop.map(|d| d.0).unwrap_or(dur),
                    jitter: jitter.0,
                    class: class as u16,
                    exclude_receiver_rack: *exclude_receiver_rack,
                };
                let fan = *fan_in as f64 * (*flows_per_sender).max(1) as f64;
                let span = spec.stop.saturating_sub(spec.start) as f64;
                let (rounds, key) = match (period, load) {
                    (Some(p), _) if p.0 > 0 => ((span / p.0 as f64).ceil(), "period"),
                    (None, Some(l)) if l.is_finite() && *l > 0.0 => {
                        let rate = match receiver {
                            Some(r) if *r < hosts.n => hosts.link_bps[*r as usize] as f64,
                            _ => hosts.total_bps() / hosts.n.max(1) as f64,
                        };
                        let bytes = fan * spec.bytes_per_sender.mean().max(1.0);
                        (span / 1e12 * l * rate / (8.0 * bytes), "load")
                    }
                    _ => (1.0, "fan_in"),
                };
                charge_flows(budget, key, rounds * fan)?;
                let mut rules = size_rules("bytes_per_sender").to_vec();
                if stop.is_none() {
                    rules.push(("stop".into(), "start".into()));
                }
                wl::incast(&spec, hosts, seed, idx).map_err(|e| rename(e, &rules))?
            }
            WorkloadConfig::Permutation(PermutationWl { size, start }) => {
                if size.0 == 0 {
                    return Err(wl::WorkloadError::new("size", "expected a size > 0"));
                }
                charge_flows(budget, "size", hosts.n as f64)?;
                wl::permutation_long_flows(hosts, size.0, start.0, class as u16, seed, idx)
            }
            WorkloadConfig::Das(d) => {
                let spec = wl::DasSpec {
                    sizes: self.size_dist(&d.sizes, files, "sizes", budget)?,
                    load: d.load,
                    clients: d.clients.clone(),
                    servers: d.servers.clone(),
                    start: d.start.map(|x| x.0).unwrap_or(0),
                    stop: d.stop.map(|x| x.0).unwrap_or(dur),
                    max_requests: d.max_requests,
                    class: class as u16,
                };
                if d.load.is_finite() && d.load > 0.0 {
                    let bps: f64 = match &d.clients {
                        Some(c) => c
                            .iter()
                            .filter(|&&h| h < hosts.n)
                            .map(|&h| hosts.link_bps[h as usize] as f64)
                            .sum(),
                        None => hosts.total_bps(),
                    };
                    let secs = spec.stop.saturating_sub(spec.start) as f64 / 1e12;
                    let mut n = 2.0 * d.load * bps * secs / (8.0 * spec.sizes.mean().max(1.0));
                    if let Some(m) = d.max_requests {
                        n = n.min(2.0 * m as f64);
                    }
                    charge_flows(budget, "load", n)?;
                }
                let mut rules = size_rules("sizes").to_vec();
                if d.stop.is_none() {
                    rules.push(("stop".into(), "start".into()));
                }
                wl::das(&spec, hosts, seed, idx).map_err(|e| rename(e, &rules))?
            }
            WorkloadConfig::Flows(FlowsWl { csv, list }) => {
                let mut out = Vec::new();
                if let Some(path) = csv {
                    let text = read_file(files, path, "csv", budget)?;
                    charge_flows(budget, "csv", text.lines().count() as f64)?;
                    // The `class` column names the sending class (index or name); the
                    // loading class is the default.
                    let names: Vec<String> = self.classes.iter().map(|c| c.name.clone()).collect();
                    out = wl::parse_flow_csv_in(&text, "csv", hosts.n, &names, class as u16)?;
                }
                charge_flows(budget, "list", list.len() as f64)?;
                for (i, r) in list.iter().enumerate() {
                    let key = format!("list[{i}]");
                    if r.src >= hosts.n || r.dst >= hosts.n || r.src == r.dst {
                        return Err(wl::WorkloadError::new(
                            key,
                            format!("expected distinct src and dst below {} hosts", hosts.n),
                        ));
                    }
                    if r.size.0 == 0 {
                        return Err(wl::WorkloadError::new(
                            format!("{key}.size"),
                            "expected a size > 0",
                        ));
                    }
                    check_flex(r.alpha, r.reliability, &key)
                        .map_err(|e| wl::WorkloadError::new(e.path, e.msg))?;
                    out.push(wl::FlowSpec {
                        src: r.src,
                        dst: r.dst,
                        size: r.size.0,
                        start: r.start.0,
                        class: class as u16,
                        deadline: r.deadline.map(|d| r.start.0 + d.0),
                        tag: r.tag,
                        alpha: r.alpha,
                        reliability: r.reliability,
                    });
                }
                out.sort_by_key(|f| f.start);
                return Ok(ClassFlows::List(out));
            }
        };
        for f in &mut flows {
            f.class = class as u16;
        }
        // Every generator's list is sorted by start (a streaming run merges them in order).
        flows.sort_by_key(|f| f.start);
        Ok(ClassFlows::List(flows))
    }
}

/// A constraint between two keys of a transport (`rto_max: must be >= rto_min`) names the
/// key the user changed: when the named key still has its default and the other one does not,
/// the error moves to the other one (a large `rto_min` is the mistake, not the default
/// `rto_max`).
fn written_side(t: &TransportConfig, e: ConfigError, prefix: &str) -> ConfigError {
    let Some(field) = e
        .path
        .strip_prefix(prefix)
        .and_then(|f| f.strip_prefix('.'))
    else {
        return e;
    };
    let Some(other) = e.msg.strip_prefix("must be >= ").map(str::trim) else {
        return e;
    };
    let (Ok(now), Ok(base)) = (
        serde_json::to_value(t),
        serde_json::to_value(TransportConfig::default()),
    ) else {
        return e;
    };
    let same = |k: &str| now.get(k).is_some() && now.get(k) == base.get(k);
    if same(field) && now.get(other).is_some() && !same(other) {
        let txt = |v: &serde_json::Value| v.as_str().map_or_else(|| v.to_string(), String::from);
        return ConfigError::new(
            format!("{prefix}.{other}"),
            format!(
                "expected {other} ≤ {field} ({}, its default), got {}",
                txt(&now[field]),
                txt(&now[other])
            ),
        );
    }
    e
}

/// One class's flows: a list, or (streaming) a generator drawing them as the run goes.
enum ClassFlows {
    List(Vec<wl::FlowSpec>),
    Stream(Box<wl::PoissonStream>),
}

impl ClassFlows {
    /// The number of flows, or the expected number for a generator.
    fn expected(&self) -> f64 {
        match self {
            ClassFlows::List(v) => v.len() as f64,
            ClassFlows::Stream(g) => g.expected,
        }
    }
    fn into_iter(self) -> Box<dyn Iterator<Item = wl::FlowSpec>> {
        match self {
            ClassFlows::List(v) => Box::new(v.into_iter()),
            ClassFlows::Stream(g) => g,
        }
    }
}

/// Turns a generated flow into the simulator's description: priorities, window membership,
/// ECMP entropy (from the flow id), ideal FCT and base RTT over its path.
struct FlowMaker {
    seed: u64,
    window: (Time, Time),
    das: Vec<bool>,
    classes: Vec<ClassConfig>,
}

impl FlowMaker {
    fn make(
        &self,
        sim: &Sim,
        id: u32,
        f: &wl::FlowSpec,
        path: &PathInfo,
        flex: Option<crate::transport::FlexRt>,
    ) -> FlowDesc {
        let c = &self.classes[f.class as usize];
        let t = &sim.flows.transports[f.class as usize];
        let ideal = ideal_fct(f.size, t.payload as u64, t.data_overhead as u64, path);
        let base_rtt = base_rtt(
            (t.payload + t.data_overhead) as u64,
            t.ack_wire as u64,
            path,
        );
        // DAS marks its duplicates in the tag; results carry the bare request id.
        let (tag, dup) = if self.das[f.class as usize] {
            wl::split_tag(f.tag)
        } else {
            (f.tag, false)
        };
        let (prio, ack_prio) = c.flow_priority(f.size, dup);
        let (w0, w1) = self.window;
        FlowDesc {
            src: f.src,
            dst: f.dst,
            size: f.size,
            start: f.start,
            class: prio,
            ack_class: ack_prio,
            transport: f.class,
            traffic_class: f.class,
            deadline: f.deadline,
            tag,
            in_window: f.start >= w0 && f.start < w1,
            entropy: mix64(&[self.seed, 0xf10, id as u64]) as u32,
            ideal_fct: ideal,
            base_rtt,
            flex,
        }
    }
}

/// Charges `expected` flows to the budget under `key` (relative to the workload).
fn charge_flows(budget: &mut Budget, key: &str, expected: f64) -> Result<(), wl::WorkloadError> {
    let n = if expected.is_finite() {
        expected.max(0.0).ceil()
    } else {
        f64::MAX
    };
    let bytes = (n * resources::FLOW_BYTES as f64).min(u64::MAX as f64) as u64;
    budget
        .charge(key, format!("{n:.3e} flows"), bytes)
        .map_err(|e| wl::WorkloadError::new(key, e.msg))
}

/// Hops of the route from `src` to `dst` (first ECMP candidate; equal-cost paths have the
/// same hop count and, in the built-in topologies, the same rates).
#[derive(Clone, Debug)]
pub struct PathInfo {
    pub prop: Time,
    pub rates: Vec<Rate>,
    /// Per hop: a token-bucket shaper's depth (the time its tokens take to accumulate),
    /// `None` for a store-and-forward wire.
    pub tb_depth: Vec<Option<Time>>,
}

impl Sim {
    pub fn path_info(&self, src: u32, dst: u32) -> PathInfo {
        let mut port = self.host_port(src);
        let mut prop = 0;
        let mut rates = Vec::new();
        let mut tb_depth = Vec::new();
        loop {
            let p = &self.ports[port as usize];
            prop += p.delay;
            rates.push(p.clock.rate());
            tb_depth.push(p.tb_depth);
            if p.peer == dst {
                break;
            }
            port = self.routes.candidates(p.peer, dst)[0];
        }
        PathInfo {
            prop,
            rates,
            tb_depth,
        }
    }
}

/// The unloaded round trip of a `data`-byte packet out and an `ack`-byte packet back over
/// `path` (links are symmetric): both propagation delays and both serializations per hop.
pub fn base_rtt(data: u64, ack: u64, path: &PathInfo) -> Time {
    2 * path.prop
        + path
            .rates
            .iter()
            .map(|r| r.tx_time(data) + r.tx_time(ack))
            .sum::<Time>()
}

/// Ideal FCT of a lone flow with an unlimited window, measured like the real FCT (until the
/// last byte is received): the first segment's store-and-forward latency over every hop,
/// plus the remaining wire bytes serialized at the bottleneck.
///
/// `ideal = Σ prop + Σ_hops tx_hop(w₁) + (W − w₁) / bottleneck`, where w₁ is the first
/// segment's wire size and W the wire bytes of the whole flow (payload + per-segment headers).
/// Exact for one-segment flows; for longer flows it assumes the bottleneck never idles.
/// On token-bucket hops (`shaper = "token_bucket"`) the first segment finds a full bucket
/// and is not serialized, and the rest gains the smallest bucket depth on the path (the
/// bytes a full bucket lets through ahead of the rate), so a lone flow stays at slowdown ≥ 1.
pub fn ideal_fct(size: u64, mss: u64, overhead: u64, path: &PathInfo) -> Time {
    let segs = size.div_ceil(mss).max(1);
    let w1 = size.min(mss) + overhead;
    let total = size + segs * overhead;
    let bottleneck = path.rates.iter().min().copied().unwrap_or(Rate(1));
    let depth = |i: usize| path.tb_depth.get(i).copied().flatten();
    let first: Time = (0..path.rates.len())
        .map(|i| match depth(i) {
            Some(_) => 0,
            None => path.rates[i].tx_time(w1),
        })
        .sum();
    let head_start = (0..path.rates.len())
        .map(|i| depth(i).unwrap_or(0))
        .min()
        .unwrap_or(0);
    path.prop + first + bottleneck.tx_time(total - w1).saturating_sub(head_start)
}

/// REFLEX factors of a class or a flow (spec §5.2.1): α ≥ 0 (∞ allowed), r in [0, 1].
/// `key` is the class or flow-list row; the error names `key.alpha` / `key.reliability`.
fn check_flex(alpha: Option<f64>, r: Option<f64>, key: &str) -> Result<(), ConfigError> {
    if let Some(a) = alpha {
        if a.is_nan() || a < 0.0 {
            return Err(ConfigError::new(
                format!("{key}.alpha"),
                format!("expected a number >= 0 (or inf for a regular flow), got {a}"),
            ));
        }
    }
    if let Some(r) = r {
        if !(0.0..=1.0).contains(&r) {
            return Err(ConfigError::new(
                format!("{key}.reliability"),
                format!("expected a number in [0, 1], got {r}"),
            ));
        }
    }
    Ok(())
}

impl Scenario {
    /// The REFLEX parameters of one flow of class `class` (None: a regular flow, α = ∞ and
    /// r = 1, which never runs REFLEX; spec §5.2.4 note).
    fn flow_flex(
        &self,
        class: usize,
        alpha: Option<f64>,
        r: Option<f64>,
    ) -> Result<Option<crate::transport::FlexRt>, ConfigError> {
        let c = &self.classes[class];
        let a = alpha.or(c.alpha).unwrap_or(f64::INFINITY);
        let rel = r.or(c.reliability).unwrap_or(1.0);
        if a.is_infinite() && rel >= 1.0 {
            return Ok(None);
        }
        // Name the key the user wrote: the flow list's column if the flow set it.
        let key = |k: &str, own: bool| {
            if own {
                format!("classes[{class}].workload (a flow's {k})")
            } else {
                format!("classes[{class}].{k}")
            }
        };
        if a.is_infinite() {
            // Alg. 1 drains B_r only to cover a deficit against α·R_fair: with α = ∞ it
            // would be drained at once (spec §5.2.1: deprioritization first, loss after).
            return Err(ConfigError::new(
                key("alpha", alpha.is_some()),
                format!(
                    "reliability = {rel} < 1 needs a finite alpha (REFLEX drains the \
                     reliability budget only after the aggressiveness budget; alpha = 1 is \
                     TCP's share)"
                ),
            ));
        }
        let crate::scheme::SchemeConfig::Reflex(x) = &self.scheme else {
            return Err(ConfigError::new(
                key(
                    if alpha.is_some() || c.alpha.is_some() {
                        "alpha"
                    } else {
                        "reliability"
                    },
                    alpha.is_some() || r.is_some(),
                ),
                "a flexible flow (finite alpha or reliability < 1) needs [scheme] kind = \
                 \"reflex\"",
            ));
        };
        Ok(Some(crate::transport::FlexRt {
            alpha: a,
            reliability: rel,
            interval: x.interval.0,
            warmup: x.warmup,
            measure: x.measure,
            exploit: x.exploit,
            low_class: x.low_priority,
        }))
    }
}

impl Scenario {
    /// Goodput counters per class, the measurement window, and the packet capture.
    fn build_observers(&self, sim: &mut Sim) -> Result<(), ConfigError> {
        let n_classes = self.classes.len().max(1);
        sim.class_rx = vec![0; n_classes];
        sim.class_rx_win = vec![0; n_classes];
        sim.window = (self.run.warmup.0, self.run.duration.0 - self.run.cooldown.0);
        let o = &self.output;
        let Some(path) = &o.pcap else {
            for (key, set) in [
                ("output.pcap_flows", !o.pcap_flows.is_empty()),
                ("output.pcap_ports", !o.pcap_ports.is_empty()),
                ("output.pcap_start", o.pcap_start.is_some()),
                ("output.pcap_stop", o.pcap_stop.is_some()),
                ("output.pcap_max_packets", o.pcap_max_packets.is_some()),
            ] {
                if set {
                    return Err(ConfigError::new(
                        key,
                        "has no effect without output.pcap (the capture file's path)",
                    ));
                }
            }
            return Ok(());
        };
        if path.is_empty() {
            return Err(ConfigError::new(
                "output.pcap",
                "expected a file path, got an empty string",
            ));
        }
        let n = sim.flows.len() as u32;
        if let Some(bad) = o.pcap_flows.iter().find(|&&f| f >= n) {
            return Err(ConfigError::new(
                "output.pcap_flows",
                format!("flow {bad} does not exist: expected flow ids below {n}"),
            ));
        }
        // The capture frames packets as TCP segments: a RoCE flow's packets (PSNs, not byte
        // offsets) would be mislabelled, so only TCP-family flows are captured.
        let is_tcp = |f: u32| {
            let t = sim.flows.desc[f as usize].transport as usize;
            matches!(
                sim.flows.transports[t].kind,
                TransportKind::Tcp | TransportKind::NearOpt
            )
        };
        if let Some(bad) = o.pcap_flows.iter().find(|&&f| !is_tcp(f)) {
            return Err(ConfigError::new(
                "output.pcap_flows",
                format!("flow {bad} is not a TCP-family flow: the capture writes TCP segments"),
            ));
        }
        let mut pcap_flows = o.pcap_flows.clone();
        if pcap_flows.is_empty() && (0..n).any(|f| !is_tcp(f)) {
            pcap_flows = (0..n).filter(|&f| is_tcp(f)).collect();
            if pcap_flows.is_empty() {
                return Err(ConfigError::new(
                    "output.pcap",
                    "no TCP-family flow to capture (the capture writes TCP segments; RoCE \
                     flows are not captured)",
                ));
            }
        }
        let from = o.pcap_start.map(|d| d.0).unwrap_or(0);
        let until = o.pcap_stop.map(|d| d.0).unwrap_or(Time::MAX);
        if until <= from {
            return Err(ConfigError::new(
                "output.pcap_stop",
                format!(
                    "expected pcap_stop > pcap_start (the capture window [{}, {}) s is empty)",
                    dcnsim_engine::to_secs(from),
                    dcnsim_engine::to_secs(until)
                ),
            ));
        }
        let max = o
            .pcap_max_packets
            .unwrap_or(crate::sim::pcap::DEFAULT_MAX_PACKETS);
        if max == 0 {
            return Err(ConfigError::new(
                "output.pcap_max_packets",
                "expected at least 1 packet",
            ));
        }
        let ports = if o.pcap_ports.is_empty() {
            None
        } else {
            let mut sel = vec![false; sim.ports.len()];
            for (i, spec) in o.pcap_ports.iter().enumerate() {
                let key = format!("output.pcap_ports[{i}]");
                let (node, port) = spec.rsplit_once('/').ok_or_else(|| {
                    ConfigError::new(
                        &key,
                        format!("expected \"NODE/PORT\" (e.g. \"s0/2\"), got {spec:?}"),
                    )
                })?;
                let Some(ni) = sim.nodes.iter().position(|x| x.name == node) else {
                    return Err(ConfigError::new(&key, format!("no node named {node:?}")));
                };
                let nd = &sim.nodes[ni];
                let local: u32 = port.parse().map_err(|_| {
                    ConfigError::new(
                        &key,
                        format!("expected a port index after '/', got {port:?}"),
                    )
                })?;
                if local >= nd.n_ports {
                    return Err(ConfigError::new(
                        &key,
                        format!(
                            "node {node:?} has {} ports (0..{}), not {local}",
                            nd.n_ports,
                            nd.n_ports.saturating_sub(1)
                        ),
                    ));
                }
                sel[(nd.first_port + local) as usize] = true;
            }
            Some(sel)
        };
        // Opened when the run starts; check the directory now for an early, clear error.
        let dir = std::path::Path::new(path)
            .parent()
            .filter(|d| !d.as_os_str().is_empty());
        if let Some(d) = dir {
            if !d.is_dir() {
                return Err(ConfigError::new(
                    "output.pcap",
                    format!("cannot write {path:?}: directory {d:?} does not exist"),
                ));
            }
        }
        let cap = crate::sim::pcap::Capture::new(path, pcap_flows, ports, from, until, max);
        sim.pcap = Some(Box::new(cap));
        Ok(())
    }
}

/// The sender shim of ElasticSwitch and C3 (`sim::shim`).
impl Scenario {
    /// `objective` / `guarantee` of each class against the scheme.
    /// IRN runs without PFC (mechanisms §4.10; TLT §7.1: "Except for IRN, we evaluate it
    /// with and without PFC"): a class whose transport recovers with IRN may not send data
    /// or ACKs in a queue that `switch.pfc` makes lossless.
    fn check_irn_without_pfc(
        &self,
        i: usize,
        c: &super::classes::ClassConfig,
        t: &TransportConfig,
    ) -> Result<(), ConfigError> {
        let Some(pfc) = self.switch.pfc.as_ref().filter(|p| p.enabled) else {
            return Ok(());
        };
        let irn = t.kind == TransportKindName::Roce
            && t.roce
                .as_ref()
                .is_some_and(|r| r.recovery == super::roce::RoceRecoveryName::Irn);
        if !irn {
            return Ok(());
        }
        let nq = self.switch.queues;
        let lossless = crate::net::config::queue_mask(&pfc.queues, nq);
        // A priority on a 1-queue switch is folded onto queue 0.
        let queue = |p: u8| if nq <= 1 { 0 } else { p };
        let mut used = vec![(format!("classes[{i}].priority"), c.priority)];
        if let Some(a) = c.ack_priority {
            used.push((format!("classes[{i}].ack_priority"), a));
        }
        if let Some(l) = &c.large {
            used.push((format!("classes[{i}].large.priority"), l.priority));
        }
        for (key, p) in used {
            let q = queue(p);
            if lossless >> q & 1 == 1 {
                return Err(ConfigError::new(
                    format!("transports.{}.roce.recovery", c.transport),
                    format!(
                        "recovery = \"irn\" runs without PFC (mechanisms §4.10), but class \
                         {:?} ({key} = {p}) uses switch queue {q}, which switch.pfc makes \
                         lossless; leave queue {q} out of switch.pfc.queues, turn PFC off, or \
                         use recovery = \"sack\" (selective repeat without BDP-FC)",
                        c.name
                    ),
                ));
            }
        }
        Ok(())
    }

    fn check_shim_classes(&self) -> Result<(), ConfigError> {
        use crate::scheme::c3::Objective;
        use crate::scheme::SchemeConfig;
        let (es, c3) = match &self.scheme {
            SchemeConfig::Elasticswitch(_) => (true, false),
            SchemeConfig::C3(_) => (false, true),
            _ => (false, false),
        };
        for (i, c) in self.classes.iter().enumerate() {
            let key = format!("classes[{i}]");
            if c.objective.is_some() && !c3 {
                return Err(ConfigError::new(
                    format!("{key}.objective"),
                    "an objective needs [scheme] kind = \"c3\" (the pipes that serve it)",
                ));
            }
            if c.guarantee.is_some() && !(c3 || es) {
                return Err(ConfigError::new(
                    format!("{key}.guarantee"),
                    "a guarantee needs [scheme] kind = \"elasticswitch\" or \"c3\" (the \
                     rate limiter that enforces it)",
                ));
            }
            let roce = self
                .transport(&c.transport)
                .is_some_and(|t| t.kind != TransportKindName::Tcp);
            if c3 {
                let o = c.objective.unwrap_or(Objective::Be);
                if o == Objective::Ts && c.guarantee.is_none() {
                    return Err(ConfigError::new(
                        format!("{key}.guarantee"),
                        "missing key `guarantee`: objective = \"ts\" needs a guarantee per \
                         flow (e.g. \"250Mbps\"): the pipe's R_G is their sum",
                    ));
                }
                if o != Objective::Ts && c.guarantee.is_some() {
                    return Err(ConfigError::new(
                        format!("{key}.guarantee"),
                        "only objective = \"ts\" takes a guarantee (the other objectives \
                         derive theirs, C3 §3.4)",
                    ));
                }
                if roce && c.objective.is_some() {
                    return Err(ConfigError::new(
                        format!("{key}.objective"),
                        "C3 pipes carry TCP-family flows; this class's transport is not one",
                    ));
                }
            }
            if es && roce && c.guarantee.is_some() {
                return Err(ConfigError::new(
                    format!("{key}.guarantee"),
                    "the ElasticSwitch limiter carries TCP-family flows; this class's \
                     transport is not one",
                ));
            }
        }
        if es && self.classes.iter().all(|c| c.guarantee.is_none()) && !self.classes.is_empty() {
            return Err(ConfigError::new(
                "scheme",
                "kind = \"elasticswitch\" has no effect: no class has a guarantee (give the \
                 guaranteed classes `guarantee`, and 0 to the others that should share the \
                 limiters)",
            ));
        }
        Ok(())
    }

    fn build_shim(&self, sim: &mut Sim) {
        use crate::scheme::c3::Objective;
        use crate::scheme::SchemeConfig;
        use crate::sim::shim::{ClassShim, Law, Shim};
        let law = match &self.scheme {
            SchemeConfig::Elasticswitch(c) => Law::Es(c.clone()),
            SchemeConfig::C3(c) => Law::C3(c.clone()),
            _ => return,
        };
        let es = matches!(law, Law::Es(_));
        let classes = self
            .classes
            .iter()
            .map(|c| ClassShim {
                enters: if es { c.guarantee.is_some() } else { true },
                objective: c.objective.unwrap_or(Objective::Be),
                guarantee: c.guarantee.map_or(0.0, |g| g.0 as f64),
            })
            .collect();
        let line = (0..sim.n_hosts)
            .map(|h| sim.ports[sim.host_port(h) as usize].clock.rate().0 as f64)
            .collect();
        sim.shim = Some(Box::new(Shim::new(
            law,
            classes,
            line,
            self.packet.mtu_wire(),
            self.packet.mss(),
        )));
    }
}
