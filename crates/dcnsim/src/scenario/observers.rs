//! What a run records beyond its flows: per-class goodput counters, the measurement
//! window, and the packet capture (`output.pcap*`), checked against the built fabric.

use super::{ConfigError, Scenario};
use crate::sim::Sim;
use crate::transport::TransportKind;
use dcnsim_engine::Time;

impl Scenario {
    /// Goodput counters per class, the measurement window, and the packet capture.
    pub(super) fn build_observers(&self, sim: &mut Sim) -> Result<(), ConfigError> {
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
        // Opened when the run starts; check the directory now for an early, clear error (a
        // run into an unwritable one went to its end and only then warned).
        let dir = std::path::Path::new(path)
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(std::path::Path::new("."));
        let why = if dir.is_file() {
            Some(format!("{dir:?} is a file, not a directory"))
        } else if !dir.is_dir() {
            Some(format!("directory {dir:?} does not exist"))
        } else {
            // Permissions do not tell for root or a read-only mount: try (the capture's own
            // files are written beside their names the same way).
            let probe = dir.join(format!(".dcnsim-pcap-probe-{}", std::process::id()));
            match std::fs::File::create(&probe) {
                Ok(_) => {
                    let _ = std::fs::remove_file(&probe);
                    None
                }
                Err(e) => Some(format!("directory {dir:?} is not writable ({e})")),
            }
        };
        if let Some(why) = why {
            return Err(ConfigError::new(
                "output.pcap",
                format!("cannot write {path:?}: {why}"),
            ));
        }
        let cap = crate::sim::pcap::Capture::new(path, pcap_flows, ports, from, until, max);
        sim.pcap = Some(Box::new(cap));
        Ok(())
    }
}
