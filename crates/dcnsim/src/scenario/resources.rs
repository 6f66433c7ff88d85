//! The resource estimate: how much memory a scenario will take, computed from its keys
//! before anything big is allocated, and checked against a limit.
//!
//! Linux overcommits memory, so a huge allocation does not fail: the process grows until the
//! kernel kills it (a notebook kernel or a sweep worker dies with no error). The only
//! dependable defence is to refuse, with a keyed error, a scenario whose estimate exceeds the
//! limit. The estimate counts what grows with the input — nodes, ports, route tables, flows,
//! queue samples and flow traces, each with its Rust and its Python (result tables) cost — and
//! is deliberately on the high side. The limit is `run.memory_limit` when given; otherwise
//! half of the memory this process may use (the smallest of physical memory, the cgroup limit
//! and the address-space rlimit minus what is already mapped).
//!
//! Every count is computed in checked `u64` arithmetic: a product that does not fit is itself
//! an estimate above any limit.

use super::{ConfigError, Scenario};
use crate::topo::NodeKind;
use crate::units::Bytes;

use super::topology::{
    DumbbellTopo, ExplicitTopo, FatTreeTopo, LeafSpineTopo, StarTopo, TopologyConfig,
};

/// Ports per node are numbered with a u16.
pub const MAX_PORTS_PER_NODE: u64 = u16::MAX as u64;

/// Bytes per node (graph entry, name, node state).
const NODE_BYTES: u64 = 160;
/// Bytes per flow: its spec, description, record and event in Rust, its row in the result
/// tables in Rust, in Python lists and in the pandas frame.
pub const FLOW_BYTES: u64 = 2_000;
/// Bytes per queue-occupancy sample (Rust row, Python lists, frame).
pub const SAMPLE_BYTES: u64 = 200;
/// Bytes per flow-trace row.
pub const TRACE_BYTES: u64 = 400;
/// Bytes per packet held (its arena slot, a queue entry, a free-list entry), for the run-time
/// packet cap: host NIC queues have no limit (issue 13: DCQCN senders held by PFC pauses
/// queued 13.5 GB there before RoCE NICs pulled from their QPs, `sim::flow::NicPull`).
pub const PACKET_BYTES: u64 = std::mem::size_of::<crate::packet::Packet>() as u64 + 16;
/// The run-time packet cap never exceeds this many packets, whatever the memory limit: ids
/// must fit an event (`packet::MAX_PACKETS`), and the cap is checked once per chunk of
/// events (`run::CHUNK`), so a quarter of the id space is left for what one chunk can add.
pub const MAX_PACKET_CAP: u64 = crate::packet::MAX_PACKETS as u64 / 4 * 3;

/// Sizes of a topology, computed from its keys without building it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TopoCounts {
    pub hosts: u64,
    pub switches: u64,
    pub links: u64,
    /// ECMP candidate ports summed over (switch, destination host) — an upper bound for
    /// explicit graphs.
    pub route_entries: u64,
    /// Most ports on one node, and the key that sets it.
    pub max_degree: u64,
}

fn mul(a: u64, b: u64) -> u64 {
    a.saturating_mul(b)
}
fn add(a: u64, b: u64) -> u64 {
    a.saturating_add(b)
}

impl TopoCounts {
    /// Counts of `t`, or a keyed error when a node would have more ports than a u16 numbers.
    pub fn of(t: &TopologyConfig) -> Result<TopoCounts, ConfigError> {
        let c = match t {
            TopologyConfig::Star(StarTopo { hosts, .. }) => {
                let h = *hosts as u64;
                degree(h, "topology.hosts", "the switch")?;
                TopoCounts {
                    hosts: h,
                    switches: 1,
                    links: h,
                    route_entries: h,
                    max_degree: h,
                }
            }
            TopologyConfig::Dumbbell(DumbbellTopo { left, right, .. }) => {
                let (l, r) = (*left as u64, *right as u64);
                degree(l + 1, "topology.left", "the left switch")?;
                degree(r + 1, "topology.right", "the right switch")?;
                let h = l + r;
                TopoCounts {
                    hosts: h,
                    switches: 2,
                    links: h + 1,
                    route_entries: 2 * h,
                    max_degree: l.max(r) + 1,
                }
            }
            TopologyConfig::LeafSpine(LeafSpineTopo {
                leaves,
                spines,
                hosts_per_leaf,
                ..
            }) => {
                let (l, s, hpl) = (*leaves as u64, *spines as u64, *hosts_per_leaf as u64);
                degree(
                    hpl + s,
                    // the larger term names the key (the one most likely written too big)
                    if s > hpl {
                        "topology.spines"
                    } else {
                        "topology.hosts_per_leaf"
                    },
                    "a leaf (hosts_per_leaf + spines)",
                )?;
                if s > 0 {
                    degree(l, "topology.leaves", "a spine (one port per leaf)")?;
                }
                let h = mul(l, hpl);
                let leaf_routes = add(hpl, mul(h.saturating_sub(hpl), s.max(1)));
                TopoCounts {
                    hosts: h,
                    switches: l + s,
                    links: add(h, mul(l, s)),
                    route_entries: add(mul(l, leaf_routes), mul(s, h)),
                    max_degree: (hpl + s).max(l),
                }
            }
            TopologyConfig::FatTree(FatTreeTopo { k, .. }) => {
                let k = *k as u64;
                let half = k / 2;
                let h = k * k * k / 4;
                let pods = k * half; // edge (and aggregation) switches
                let edge = add(half, mul(h.saturating_sub(half), half));
                let agg = add(half * half, mul(h.saturating_sub(half * half), half));
                TopoCounts {
                    hosts: h,
                    switches: 2 * pods + half * half,
                    links: 3 * h,
                    route_entries: add(add(mul(pods, edge), mul(pods, agg)), mul(half * half, h)),
                    max_degree: k,
                }
            }
            TopologyConfig::Explicit(ExplicitTopo {
                hosts,
                switches,
                links,
            }) => {
                let (h, s, l) = (*hosts as u64, *switches as u64, links.len() as u64);
                TopoCounts {
                    hosts: h,
                    switches: s,
                    links: l,
                    // every switch port may be a candidate toward every host
                    route_entries: mul(mul(2, l), h),
                    max_degree: l,
                }
            }
        };
        Ok(c)
    }

    pub fn nodes(&self) -> u64 {
        add(self.hosts, self.switches)
    }
    pub fn ports(&self) -> u64 {
        mul(2, self.links)
    }
}

fn degree(ports: u64, key: &str, what: &str) -> Result<(), ConfigError> {
    if ports > MAX_PORTS_PER_NODE {
        return Err(ConfigError::new(
            key,
            format!(
                "{what} would have {ports} ports; expected at most {MAX_PORTS_PER_NODE} ports on \
                 one switch"
            ),
        ));
    }
    Ok(())
}

/// One line of an estimate: the key that drives it, what it is, and its bytes.
#[derive(Clone, Debug)]
pub struct Item {
    pub key: String,
    pub what: String,
    pub bytes: u64,
}

/// A running estimate checked against a limit.
#[derive(Clone, Debug)]
pub struct Budget {
    pub limit: u64,
    /// Where the limit comes from (for the message).
    pub source: String,
    pub items: Vec<Item>,
}

/// "1.50 GB".
pub fn human(b: u64) -> String {
    let b = b as f64;
    if b >= 1e12 {
        format!("{:.2} TB", b / 1e12)
    } else if b >= 1e9 {
        format!("{:.2} GB", b / 1e9)
    } else if b >= 1e6 {
        format!("{:.1} MB", b / 1e6)
    } else {
        format!("{:.0} KB", b / 1e3)
    }
}

impl Budget {
    pub fn new(limit: Option<Bytes>) -> Budget {
        match limit {
            Some(b) => Budget {
                limit: b.0,
                source: "run.memory_limit".into(),
                items: Vec::new(),
            },
            None => {
                let (limit, source) = auto_limit();
                Budget {
                    limit,
                    source,
                    items: Vec::new(),
                }
            }
        }
    }

    pub fn total(&self) -> u64 {
        self.items.iter().fold(0, |a, i| add(a, i.bytes))
    }

    /// Bytes still free under the limit.
    pub fn left(&self) -> u64 {
        self.limit.saturating_sub(self.total())
    }

    /// Asks the allocator for the whole estimate at once and gives it back: an allocation the
    /// system refuses (overcommit disabled, a `ulimit -v`, a 32-bit address space) becomes a
    /// keyed error here, where Rust would otherwise abort the process (and the Python
    /// interpreter with it) in the middle of building. Under Linux overcommit this touches no
    /// page, so it costs nothing.
    pub fn probe(&self, key: &str) -> Result<(), ConfigError> {
        let total = self.total();
        let mut v: Vec<u8> = Vec::new();
        let ok = usize::try_from(total)
            .ok()
            .is_some_and(|n| v.try_reserve_exact(n).is_ok());
        drop(v);
        if ok {
            return Ok(());
        }
        Err(ConfigError::new(
            key,
            format!(
                "the run would need about {} of memory, which this system refuses to allocate \
                 (the limit {} is above what it can give); make the scenario smaller",
                human(total),
                human(self.limit)
            ),
        ))
    }

    /// Adds an item and fails (naming `key`) if the total exceeds the limit.
    pub fn charge(
        &mut self,
        key: impl Into<String>,
        what: impl Into<String>,
        bytes: u64,
    ) -> Result<(), ConfigError> {
        self.items.push(Item {
            key: key.into(),
            what: what.into(),
            bytes,
        });
        let total = self.total();
        if total <= self.limit {
            // A limit above what the system can give (run.memory_limit past a `ulimit -v`)
            // passes the sum; the allocator's answer decides before the item is built.
            return self.probe(&self.items.last().unwrap().key);
        }
        let it = self.items.last().unwrap();
        let parts: Vec<String> = self
            .items
            .iter()
            .filter(|i| i.bytes > 0)
            .map(|i| format!("{} {}", i.what, human(i.bytes)))
            .collect();
        Err(ConfigError::new(
            it.key.clone(),
            format!(
                "the run would need about {} of memory ({}), more than the limit of {} ({}); \
                 make the scenario smaller, or raise the limit with run.memory_limit \
                 (e.g. \"{}GB\") or `dcnsim run --memory-limit`",
                human(total),
                parts.join(", "),
                human(self.limit),
                self.source,
                (total as f64 / 1e9).ceil() as u64 + 1,
            ),
        ))
    }
}

/// Charges the topology of `sc`: graph, ports, route tables. Fails before anything is built.
pub fn charge_topology(sc: &Scenario, b: &mut Budget) -> Result<TopoCounts, ConfigError> {
    let c = TopoCounts::of(&sc.topology)?;
    let key = match &sc.topology {
        TopologyConfig::Star(_) => "topology.hosts",
        TopologyConfig::Dumbbell(_) => "topology.left",
        TopologyConfig::LeafSpine(_) => "topology.leaves",
        TopologyConfig::FatTree(_) => "topology.k",
        TopologyConfig::Explicit(_) => "topology.hosts",
    };
    let port = std::mem::size_of::<crate::net::port::Port>() as u64;
    // Per port: the port, its adjacency entry and link, its rows in the queue table
    // (one per queue, in Rust and Python).
    // + the reverse-port map (and its build-time index), + PFC's per-port state when on.
    let pfc = match &sc.switch.pfc {
        Some(p) if p.enabled => {
            (std::mem::size_of::<crate::sim::pfc::Ingress>()
                + std::mem::size_of::<crate::sim::pfc::Egress>()) as u64
        }
        _ => 0,
    };
    let port_bytes = port + 64 + 8 * 600 + 64 + pfc;
    b.charge(
        key,
        format!("{} nodes", c.nodes()),
        mul(c.nodes(), NODE_BYTES),
    )?;
    b.charge(
        key,
        format!("{} ports", c.ports()),
        mul(c.ports(), port_bytes),
    )?;
    let switches_x_hosts = mul(c.switches, c.hosts);
    // `topo::routes`: an index entry per (switch, destination group) — a group is a leaf
    // switch with its hosts, so there are at most min(hosts, switches) of them when hosts
    // hang off switches — a 12-byte record per host, and the distinct candidate lists
    // (bounded by the candidates summed over (switch, host)).
    b.charge(
        key,
        "route tables",
        add(
            add(
                mul(mul(c.switches, c.hosts.min(c.switches)), 4),
                mul(c.hosts, 12),
            ),
            mul(c.route_entries, 4),
        ),
    )?;
    // Route tables index (switch, host) pairs and candidate offsets with u32.
    if switches_x_hosts > u32::MAX as u64 || c.route_entries > u32::MAX as u64 {
        return Err(ConfigError::new(
            key,
            format!(
                "the route tables would have {} (switch, host) pairs and {} entries; expected at \
                 most {} of each",
                switches_x_hosts,
                c.route_entries,
                u32::MAX
            ),
        ));
    }
    b.probe(key)?;
    let cap = crate::sim::MAX_EVENT_INDEX as u64;
    if c.ports() > cap {
        return Err(ConfigError::new(
            key,
            format!(
                "the topology would have {} ports; expected at most {cap} (events index ports \
                 with 26 bits)",
                c.ports()
            ),
        ));
    }
    if c.nodes() > u32::MAX as u64 / 2 {
        return Err(ConfigError::new(
            key,
            format!(
                "the topology would have {} nodes; expected fewer",
                c.nodes()
            ),
        ));
    }
    Ok(c)
}

/// Checks the ports of an explicit graph once its links are resolved: no node with more
/// ports than a u16 numbers.
pub fn check_degrees(g: &crate::topo::Graph) -> Result<(), ConfigError> {
    let mut deg = vec![0u64; g.nodes.len()];
    for l in &g.links {
        deg[l.a as usize] += 1;
        deg[l.b as usize] += 1;
    }
    if let Some((i, d)) = deg
        .iter()
        .enumerate()
        .find(|(_, d)| **d > MAX_PORTS_PER_NODE)
    {
        let n = &g.nodes[i];
        let what = if n.kind == NodeKind::Host {
            "host"
        } else {
            "switch"
        };
        return Err(ConfigError::new(
            "topology.links",
            format!(
                "{what} {} has {d} links; expected at most {MAX_PORTS_PER_NODE}",
                n.name
            ),
        ));
    }
    Ok(())
}

fn read_u64_kb(text: &str, field: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with(field))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// The default limit: half of the memory this process may use, and where it comes from.
pub fn auto_limit() -> (u64, String) {
    let mut best: Option<(u64, &str)> = None;
    let mut consider = |v: Option<u64>, what: &'static str| {
        if let Some(v) = v {
            if best.is_none_or(|(b, _)| v < b) {
                best = Some((v, what));
            }
        }
    };
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    consider(read_u64_kb(&meminfo, "MemTotal:"), "this machine's memory");
    for p in [
        "/sys/fs/cgroup/memory.max",
        "/sys/fs/cgroup/memory/memory.limit_in_bytes",
    ] {
        let v = std::fs::read_to_string(p)
            .ok()
            .and_then(|s| s.trim().parse::<u64>().ok());
        consider(v, "the cgroup memory limit");
    }
    // RLIMIT_AS counts address space already mapped (libraries, Python, arenas).
    let limits = std::fs::read_to_string("/proc/self/limits").unwrap_or_default();
    let rlimit = limits
        .lines()
        .find(|l| l.starts_with("Max address space"))
        .and_then(|l| l.split_whitespace().nth(3))
        .and_then(|v| v.parse::<u64>().ok());
    if let Some(r) = rlimit {
        let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
        let used = read_u64_kb(&status, "VmSize:").unwrap_or(0);
        consider(
            Some(r.saturating_sub(used)),
            "the address-space limit (ulimit -v)",
        );
    }
    match best {
        Some((v, what)) => (v / 2, format!("half of {what}")),
        // Not Linux: no reliable figure; a fixed default.
        None => (
            8_000_000_000,
            "the default for systems without /proc".into(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topo::builders;
    use dcnsim_engine::{Rate, US};

    /// The analytic route counts match the route tables actually built.
    #[test]
    fn route_counts_match_built_tables() {
        let r = Rate::gbps(10);
        let cases: Vec<(TopologyConfig, crate::topo::Graph)> = vec![
            (
                serde_json::from_str(
                    r#"{"kind":"fat_tree","k":4,"link":{"rate":"10Gbps","delay":"1us"}}"#,
                )
                .unwrap(),
                builders::fat_tree(4, r, US),
            ),
            (
                serde_json::from_str(
                    r#"{"kind":"leaf_spine","leaves":3,"spines":2,"hosts_per_leaf":4,
                        "host_link":{"rate":"10Gbps","delay":"1us"},
                        "fabric_link":{"rate":"10Gbps","delay":"1us"}}"#,
                )
                .unwrap(),
                builders::leaf_spine(3, 2, 4, (r, US), (r, US)),
            ),
        ];
        for (cfg, g) in cases {
            let c = TopoCounts::of(&cfg).unwrap();
            assert_eq!(c.hosts, g.n_hosts() as u64);
            assert_eq!(c.nodes(), g.nodes.len() as u64);
            assert_eq!(c.links, g.links.len() as u64);
            let sim = crate::sim::Sim::with_configs(
                &g,
                &Default::default(),
                &Default::default(),
                1,
                crate::sim::Ecmp::PerFlow,
            );
            let mut n = 0;
            for s in g.n_hosts()..g.nodes.len() as u32 {
                for d in 0..g.n_hosts() {
                    n += sim.routes.candidates(s, d).len() as u64;
                }
            }
            assert_eq!(c.route_entries, n, "{cfg:?}");
        }
    }
}
