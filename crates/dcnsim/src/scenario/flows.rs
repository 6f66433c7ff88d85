//! A class's workload to its flows: size distributions, the generators and explicit flow
//! lists ([`ClassFlows`]), the memory budget they are charged to, the renaming of a
//! generator's error keys to the user's, and [`FlowMaker`], which turns each generated
//! flow into the simulator's [`FlowDesc`].

use super::build::FileReader;
use super::classes::*;
use super::path::{base_rtt, ideal_fct, PathInfo};
use super::reflex::check_flex;
use super::resources::{self, Budget};
use super::Scenario;
use crate::sim::Sim;
use crate::transport::FlowDesc;
use dcnsim_engine::{rng::mix64, Time};
use dcnsim_workload as wl;
use std::sync::Arc;

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

/// [`rename`], where a generator's `stop` the user did not write (`unset`) is the end of the
/// run (`run.duration`): a complaint about it names the start (where `rules` send `stop`)
/// and the run's end, not a key the scenario does not have.
fn rename_stop(
    e: wl::WorkloadError,
    rules: &[(String, String)],
    unset: bool,
    start: u64,
    dur: u64,
) -> wl::WorkloadError {
    let e = if unset && e.path == "stop" {
        let msg = format!(
            "expected a start before the end of the run (run.duration = {dur} ps), got {start} ps"
        );
        wl::WorkloadError::new(e.path, msg)
    } else {
        e
    };
    rename(e, rules)
}

fn rename(mut e: wl::WorkloadError, rules: &[(String, String)]) -> wl::WorkloadError {
    let r: Vec<(&str, &str)> = rules
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    e.path = user_key(&e.path, &r);
    e
}

/// A CDF's `scale` keeps its sizes in the range a size may take: its largest size at most
/// [`MAX_BYTES`](crate::units::MAX_BYTES) (never clamped, as a written size), and its mean at
/// least one byte (below, every flow rounds up to 1 byte while the arrival rate, computed
/// from the scaled mean, would multiply the flow count by up to 10³⁰⁰).
fn check_scaled_cdf(
    cdf: &wl::Cdf,
    interp: wl::Interp,
    scale: f64,
    key: &str,
) -> Result<(), wl::WorkloadError> {
    if !(scale.is_finite() && scale > 0.0) {
        return Ok(()); // SizeDist::validate names it
    }
    let max = cdf.max() * scale;
    if !(max <= crate::units::MAX_BYTES as f64) {
        return Err(wl::WorkloadError::new(
            format!("{key}.scale"),
            format!(
                "expected a scale that keeps the largest size at most {} B, got {scale:e} \
                 (the CDF's largest size {} B becomes {max:e} B; values are never clamped)",
                crate::units::MAX_BYTES,
                cdf.max()
            ),
        ));
    }
    let mean = cdf.mean(interp) * scale;
    if !(mean >= 1.0) {
        return Err(wl::WorkloadError::new(
            format!("{key}.scale"),
            format!(
                "expected a scale that keeps the mean size at least 1 byte, got {scale:e} \
                 (the mean size becomes {mean:e} B)"
            ),
        ));
    }
    Ok(())
}

impl Scenario {
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
            check_scaled_cdf(&cdf, s.interp, scale, key)?;
            wl::SizeDist::Cdf {
                cdf: Arc::new(cdf),
                interp: s.interp,
                scale,
            }
        };
        d.validate(key).map_err(|e| rename(e, &size_rules(key)))?;
        Ok(d)
    }

    pub(super) fn workload_flows(
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
                let g = wl::poisson_stream(&spec, hosts, seed, idx)
                    .map_err(|e| rename_stop(e, &rules, stop.is_none(), spec.start, dur))?;
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
                // The bound every receiver shares, before the estimate it drives (a fan-in
                // of millions was reported as memory, not as too many senders); the exact,
                // per-receiver bound is `wl::incast`'s.
                if *fan_in >= hosts.n.max(1) {
                    return Err(wl::WorkloadError::new(
                        "fan_in",
                        format!(
                            "expected at most {} senders (all hosts, without the receiver), \
                             got {fan_in}",
                            hosts.n.saturating_sub(1)
                        ),
                    ));
                }
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
                // Under a period (or one round) the count is rounds × fan_in × flows per
                // sender: a flows_per_sender larger than the other factors names itself.
                let per = (*flows_per_sender).max(1) as f64;
                let key = if key != "load" && per > rounds.max(*fan_in as f64) {
                    "flows_per_sender"
                } else {
                    key
                };
                charge_flows(budget, key, rounds * fan)?;
                let mut rules = size_rules("bytes_per_sender").to_vec();
                if stop.is_none() {
                    rules.push(("stop".into(), "start".into()));
                }
                wl::incast(&spec, hosts, seed, idx)
                    .map_err(|e| rename_stop(e, &rules, stop.is_none(), spec.start, dur))?
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
                wl::das(&spec, hosts, seed, idx)
                    .map_err(|e| rename_stop(e, &rules, d.stop.is_none(), spec.start, dur))?
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

/// One class's flows: a list, or (streaming) a generator drawing them as the run goes.
pub(super) enum ClassFlows {
    List(Vec<wl::FlowSpec>),
    Stream(Box<wl::PoissonStream>),
}

impl ClassFlows {
    /// The number of flows, or the expected number for a generator.
    pub(super) fn expected(&self) -> f64 {
        match self {
            ClassFlows::List(v) => v.len() as f64,
            ClassFlows::Stream(g) => g.expected,
        }
    }
    pub(super) fn into_iter(self) -> Box<dyn Iterator<Item = wl::FlowSpec>> {
        match self {
            ClassFlows::List(v) => Box::new(v.into_iter()),
            ClassFlows::Stream(g) => g,
        }
    }
}

/// Turns a generated flow into the simulator's description: priorities, window membership,
/// ECMP entropy (from the flow id), ideal FCT and base RTT over its path.
pub(super) struct FlowMaker {
    pub(super) seed: u64,
    pub(super) window: (Time, Time),
    pub(super) das: Vec<bool>,
    pub(super) classes: Vec<ClassConfig>,
}

impl FlowMaker {
    pub(super) fn make(
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
