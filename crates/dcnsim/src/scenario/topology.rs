//! `[topology]`: which graph to build.

use crate::topo::{builders, Graph, NodeKind};
use crate::units::{Bw, Bytes, Dur};
use serde::{Deserialize, Serialize};

use super::ConfigError;

/// How a link direction turns queued packets into arrivals at the far end.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Shaper {
    /// A store-and-forward wire: one packet at a time, each serialized at the rate, then
    /// the propagation delay.
    #[default]
    Wire,
    /// A token bucket as Linux HTB runs it (`htb_class_mode`, `htb_charge_class`): a packet
    /// leaves when the bucket is not in debt and takes its wire size in tokens; no
    /// serialization delay, only the propagation delay. An isolated packet leaves at once; a
    /// backlog drains at the rate in bursts of at most `burst` bytes.
    TokenBucket,
}

impl Shaper {
    fn is_wire(&self) -> bool {
        *self == Shaper::Wire
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkConfig {
    pub rate: Bw,
    pub delay: Dur,
    /// `wire` (default) or `token_bucket`; left out of the normalized scenario when `wire`,
    /// so scenarios without it keep their config hash.
    #[serde(default, skip_serializing_if = "Shaper::is_wire")]
    pub shaper: Shaper,
    /// Token bucket only: the largest back-to-back burst in wire bytes (bucket depth + one
    /// full frame, since tokens may go one frame into debt); unset = two full frames.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub burst: Option<Bytes>,
}

impl LinkConfig {
    pub fn new(gbps: u64, delay_us: u64) -> Self {
        LinkConfig {
            rate: Bw::gbps(gbps),
            delay: Dur::us(delay_us),
            shaper: Shaper::Wire,
            burst: None,
        }
    }

    /// The compiled shaper: `None` for a wire, else the bucket depth in wire bytes (the
    /// burst minus one full frame of `mtu_wire` bytes). Errors name `key`.
    pub fn shaping(&self, key: &str, mtu_wire: u64) -> Result<Option<u64>, ConfigError> {
        shaping(self.shaper, self.burst, key, mtu_wire)
    }
}

fn shaping(
    shaper: Shaper,
    burst: Option<Bytes>,
    key: &str,
    mtu_wire: u64,
) -> Result<Option<u64>, ConfigError> {
    match (shaper, burst) {
        (Shaper::Wire, None) => Ok(None),
        (Shaper::Wire, Some(_)) => Err(ConfigError::new(
            format!("{key}.burst"),
            "a burst applies only to shaper = \"token_bucket\"",
        )),
        (Shaper::TokenBucket, None) => Ok(Some(mtu_wire)),
        (Shaper::TokenBucket, Some(b)) if b.0 < mtu_wire => Err(ConfigError::new(
            format!("{key}.burst"),
            format!(
                "expected at least one full frame ({mtu_wire} B on the wire), got {} B",
                b.0
            ),
        )),
        (Shaper::TokenBucket, Some(b)) if b.0 > 1_000_000_000 => Err(ConfigError::new(
            format!("{key}.burst"),
            "expected at most 1GB",
        )),
        (Shaper::TokenBucket, Some(b)) => Ok(Some(b.0 - mtu_wire)),
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExplicitLink {
    /// Node names: `h<i>` for host i, `s<j>` for switch j.
    pub a: String,
    pub b: String,
    pub rate: Bw,
    pub delay: Dur,
    #[serde(default, skip_serializing_if = "Shaper::is_wire")]
    pub shaper: Shaper,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub burst: Option<Bytes>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TopologyConfig {
    /// `hosts` hosts on one switch.
    Star(StarTopo),
    /// `left` hosts on switch A, `right` on switch B, joined by `core_link`.
    Dumbbell(DumbbellTopo),
    /// Two-tier leaf–spine; oversubscription = hosts_per_leaf·host rate / (spines·fabric rate).
    LeafSpine(LeafSpineTopo),
    /// Three-tier fat tree of even arity k (k³/4 hosts).
    FatTree(FatTreeTopo),
    /// Any graph: hosts h0..h{hosts-1}, switches s0..s{switches-1}, each host with one link.
    Explicit(ExplicitTopo),
}

crate::kind_enum!(TopologyConfig { "star" => Star(StarTopo), "dumbbell" => Dumbbell(DumbbellTopo), "leaf_spine" => LeafSpine(LeafSpineTopo), "fat_tree" => FatTree(FatTreeTopo), "explicit" => Explicit(ExplicitTopo) });

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StarTopo {
    pub hosts: u32,
    pub link: LinkConfig,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DumbbellTopo {
    pub left: u32,
    pub right: u32,
    pub host_link: LinkConfig,
    pub core_link: LinkConfig,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LeafSpineTopo {
    pub leaves: u32,
    pub spines: u32,
    pub hosts_per_leaf: u32,
    pub host_link: LinkConfig,
    pub fabric_link: LinkConfig,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FatTreeTopo {
    pub k: u32,
    pub link: LinkConfig,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExplicitTopo {
    pub hosts: u32,
    pub switches: u32,
    pub links: Vec<ExplicitLink>,
}

impl Default for TopologyConfig {
    fn default() -> Self {
        TopologyConfig::LeafSpine(LeafSpineTopo {
            leaves: 4,
            spines: 2,
            hosts_per_leaf: 8,
            host_link: LinkConfig::new(10, 1),
            fabric_link: LinkConfig::new(40, 1),
        })
    }
}

fn pos(v: u32, key: &str, min: u32) -> Result<(), ConfigError> {
    if v < min {
        Err(ConfigError::new(
            format!("topology.{key}"),
            format!("expected an integer ≥ {min}, got {v}"),
        ))
    } else {
        Ok(())
    }
}

fn link(
    l: &LinkConfig,
    key: &str,
) -> Result<(dcnsim_engine::Rate, dcnsim_engine::Time), ConfigError> {
    if l.rate.0 == 0 {
        return Err(ConfigError::new(
            format!("topology.{key}.rate"),
            "expected a rate > 0 (e.g. \"10Gbps\")",
        ));
    }
    if l.delay.0 > dcnsim_engine::SEC {
        return Err(ConfigError::new(
            format!("topology.{key}.delay"),
            "expected a propagation delay of at most 1 s",
        ));
    }
    Ok((l.rate.rate(), l.delay.0))
}

impl TopologyConfig {
    /// Builds the graph; `mtu_wire` (a full frame's wire size) resolves token-bucket bursts.
    pub fn build(&self, mtu_wire: u64) -> Result<Graph, ConfigError> {
        let mut g = self.build_graph()?;
        self.apply_shapers(&mut g, mtu_wire)?;
        Ok(g)
    }

    /// Sets each link's shaper from the key it was built from. The builders add host links
    /// first with the host at end `a`, so a link whose `a` is a host is a host link.
    fn apply_shapers(&self, g: &mut Graph, mtu_wire: u64) -> Result<(), ConfigError> {
        let h = g.n_hosts();
        let (host, fabric) = match self {
            TopologyConfig::Star(t) => {
                let s = t.link.shaping("topology.link", mtu_wire)?;
                (s, s)
            }
            TopologyConfig::FatTree(t) => {
                let s = t.link.shaping("topology.link", mtu_wire)?;
                (s, s)
            }
            TopologyConfig::Dumbbell(t) => (
                t.host_link.shaping("topology.host_link", mtu_wire)?,
                t.core_link.shaping("topology.core_link", mtu_wire)?,
            ),
            TopologyConfig::LeafSpine(t) => (
                t.host_link.shaping("topology.host_link", mtu_wire)?,
                t.fabric_link.shaping("topology.fabric_link", mtu_wire)?,
            ),
            TopologyConfig::Explicit(t) => {
                for (i, (l, spec)) in t.links.iter().zip(g.links.iter_mut()).enumerate() {
                    spec.tb_depth =
                        shaping(l.shaper, l.burst, &format!("topology.links[{i}]"), mtu_wire)?;
                }
                return Ok(());
            }
        };
        for l in &mut g.links {
            l.tb_depth = if l.a < h { host } else { fabric };
        }
        Ok(())
    }

    fn build_graph(&self) -> Result<Graph, ConfigError> {
        let g = match self {
            TopologyConfig::Star(StarTopo { hosts, link: l }) => {
                pos(*hosts, "hosts", 2)?;
                let (r, d) = link(l, "link")?;
                builders::star(*hosts, r, d)
            }
            TopologyConfig::Dumbbell(DumbbellTopo {
                left,
                right,
                host_link,
                core_link,
            }) => {
                pos(*left, "left", 1)?;
                pos(*right, "right", 1)?;
                builders::dumbbell(
                    *left,
                    *right,
                    link(host_link, "host_link")?,
                    link(core_link, "core_link")?,
                )
            }
            TopologyConfig::LeafSpine(LeafSpineTopo {
                leaves,
                spines,
                hosts_per_leaf,
                host_link,
                fabric_link,
            }) => {
                pos(*leaves, "leaves", 1)?;
                pos(*spines, "spines", if *leaves > 1 { 1 } else { 0 })?;
                pos(*hosts_per_leaf, "hosts_per_leaf", 1)?;
                if (*leaves as u64) * (*hosts_per_leaf as u64) < 2 {
                    return Err(ConfigError::new(
                        "topology.hosts_per_leaf",
                        "expected at least 2 hosts in total",
                    ));
                }
                builders::leaf_spine(
                    *leaves,
                    *spines,
                    *hosts_per_leaf,
                    link(host_link, "host_link")?,
                    link(fabric_link, "fabric_link")?,
                )
            }
            TopologyConfig::FatTree(FatTreeTopo { k, link: l }) => {
                if *k < 2 || k % 2 == 1 || *k > 64 {
                    return Err(ConfigError::new(
                        "topology.k",
                        format!("expected an even arity from 2 to 64, got {k}"),
                    ));
                }
                let (r, d) = link(l, "link")?;
                builders::fat_tree(*k, r, d)
            }
            TopologyConfig::Explicit(ExplicitTopo {
                hosts,
                switches,
                links,
            }) => {
                pos(*hosts, "hosts", 2)?;
                let mut g = Graph::default();
                for i in 0..*hosts {
                    g.add_node(NodeKind::Host, format!("h{i}"));
                }
                for j in 0..*switches {
                    g.add_node(NodeKind::Switch, format!("s{j}"));
                }
                let resolve = |name: &str, key: String| -> Result<u32, ConfigError> {
                    let bad = || {
                        ConfigError::new(
                            key.clone(),
                            format!(
                                "expected a node name h0..h{} or s0..s{}, got {name:?}",
                                hosts - 1,
                                switches.saturating_sub(1)
                            ),
                        )
                    };
                    // The first character (any Unicode scalar, not a byte) is the kind.
                    let mut chars = name.chars();
                    let kind = chars.next().map(String::from).unwrap_or_default();
                    let num = chars.as_str();
                    if num.is_empty() || !num.bytes().all(|c| c.is_ascii_digit()) {
                        return Err(bad());
                    }
                    let n: u32 = num.parse().map_err(|_| bad())?;
                    match kind.as_str() {
                        "h" if n < *hosts => Ok(n),
                        "s" if n < *switches => Ok(hosts + n),
                        _ => Err(bad()),
                    }
                };
                for (i, l) in links.iter().enumerate() {
                    let a = resolve(&l.a, format!("topology.links[{i}].a"))?;
                    let b = resolve(&l.b, format!("topology.links[{i}].b"))?;
                    if l.rate.0 == 0 {
                        return Err(ConfigError::new(
                            format!("topology.links[{i}].rate"),
                            "expected a rate > 0",
                        ));
                    }
                    if l.delay.0 > dcnsim_engine::SEC {
                        return Err(ConfigError::new(
                            format!("topology.links[{i}].delay"),
                            "expected a propagation delay of at most 1 s",
                        ));
                    }
                    g.link(a, b, l.rate.rate(), l.delay.0);
                }
                super::resources::check_degrees(&g)?;
                g
            }
        };
        g.check().map_err(|m| ConfigError::new("topology", m))?;
        Ok(g)
    }
}
