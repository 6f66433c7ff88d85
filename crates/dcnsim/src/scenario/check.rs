//! Validation of a [`Scenario`] before anything is built: [`Scenario::check`] (every key
//! that can be checked without building; errors name the key path), [`Scenario::warnings`]
//! (valid settings that cannot have an effect) and the transport lookup by name.

use super::classes::*;
use super::reflex::check_flex;
use super::resources;
use super::{ConfigError, Scenario, TransportConfig};
use crate::scheme::reflex::ReflexConfig;
use crate::scheme::SchemeConfig;
use crate::units::Dur;

/// Longest class name `check` accepts (characters): a label for tables and plots.
pub const MAX_CLASS_NAME: usize = 64;

fn port_err(prefix: &str) -> impl Fn((String, String)) -> ConfigError + '_ {
    move |(k, m)| ConfigError::new(format!("{prefix}.{k}"), m)
}

impl Scenario {
    /// A scheme's error (key under `scheme`, message) as the user's key. REFLEX's LOW queue
    /// (`low_priority`, default 1) beyond a queue count the user lowered names that count:
    /// the user wrote `switch.queues = 1`, not the default `low_priority` (as
    /// [`written_side`] does for a transport's pair of keys).
    fn scheme_error(&self, (k, m): (String, String)) -> ConfigError {
        if let SchemeConfig::Reflex(c) = &self.scheme {
            if k == "low_priority" && c.low_priority == ReflexConfig::default().low_priority {
                let (key, n) = if self.switch.queues <= self.host.queues {
                    ("switch.queues", self.switch.queues)
                } else {
                    ("host.queues", self.host.queues)
                };
                return ConfigError::new(
                    key,
                    format!(
                        "expected at least {} queues: scheme kind = \"reflex\" sends a \
                         flexible flow's LOW intervals in queue {} (scheme.low_priority), got \
                         {n}; or set scheme.low_priority below {n}",
                        c.low_priority as u32 + 1,
                        c.low_priority
                    ),
                );
            }
        }
        port_err("scheme")((k, m))
    }
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
            // The key the user wrote: a warmup left at its default (0) is not it. (Both at 0
            // cannot reach here: a zero duration is rejected above.)
            let key = if r.warmup.0 == 0 {
                "run.cooldown"
            } else {
                "run.warmup"
            };
            return Err(ConfigError::new(
                key,
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
        // Each size fits an IP packet's 16-bit length, so their sums (u32) cannot wrap: a
        // header of 4294967290 bytes wrapped to a small one and ran.
        for (key, v) in [
            ("eth_overhead", p.eth_overhead),
            ("ip_header", p.ip_header),
            ("tcp_header", p.tcp_header),
            ("min_wire", p.min_wire),
        ] {
            if v > 65_535 {
                return Err(ConfigError::new(
                    format!("packet.{key}"),
                    format!("expected at most 65535 bytes, got {v}"),
                ));
            }
        }
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
            .map_err(|e| self.scheme_error(e))?;
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
            // A class's name labels every row of its flows and samples in the results.
            if c.name.chars().count() > MAX_CLASS_NAME {
                return Err(ConfigError::new(
                    format!("classes[{i}].name"),
                    format!(
                        "expected a name of at most {MAX_CLASS_NAME} characters (this one has {})",
                        c.name.chars().count()
                    ),
                ));
            }
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
