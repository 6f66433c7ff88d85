//! From a validated [`Scenario`] to a ready-to-run [`Sim`]: topology, profiles, routes,
//! transports, workloads (explicit flow lists) and open-loop sources.
//!
//! This file owns the orchestration ([`Scenario::build`] and [`Built`]) and the
//! [`FileReader`] the build reads scenario files through; the parts live beside it:
//! `check` (validation, warnings), `flows` (workloads to flows), `path` (path metrics),
//! `reflex`, `shim` (sender shim) and `observers` (goodput window, packet capture).

use super::classes::*;
use super::flows::{ClassFlows, FlowMaker};
use super::resources::{self, Budget};
use super::{ConfigError, EcmpMode, SamplePorts, Scenario};
use crate::sim::nearopt::{OwnQueue, Share};
use crate::sim::source::SourceSpec;
use crate::sim::{Ecmp, Event, Sim};
use crate::topo::NodeKind;
use crate::transport::{CqcnRt, Family, TransportKind, TransportRt};
use dcnsim_engine::{rng::mix64, Time};
use dcnsim_workload as wl;

pub use super::path::{base_rtt, ideal_fct, PathInfo};

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

impl Scenario {
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
        if let crate::scheme::SchemeConfig::C3(c) = &self.scheme {
            // The fujiz law clamps a pipe's rate to [fujiz_min, its host's line rate].
            let slowest = host_bps.iter().copied().min().unwrap_or(u64::MAX);
            if c.variant == crate::scheme::c3::C3Variant::Fujiz && c.fujiz_min.0 > slowest {
                return Err(ConfigError::new(
                    "scheme.fujiz_min",
                    format!(
                        "expected at most the slowest host link's rate ({slowest} bps): a \
                         pipe's rate lies between fujiz_min and its host's line rate, got {} bps",
                        c.fujiz_min.0
                    ),
                ));
            }
        }
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
                return Err(ConfigError::new(
                    self.flex_key(f.class as usize, f.alpha, f.reliability),
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
            // A burst's packets enter the sender's NIC queue (no limit) in one event, before
            // the run's packet cap is next checked: they must fit the limit at once.
            budget.charge(
                format!("{key}.burst"),
                format!("a burst of {} packets", s.burst),
                (s.burst as u64).saturating_mul(resources::PACKET_BYTES),
            )?;
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
        sim.arena.set_cap(max_packets as usize);
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
}
