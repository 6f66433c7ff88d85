//! Standard topologies. Hosts are numbered first (h0, h1, ...), then switches.

use super::{Graph, NodeKind};
use dcnsim_engine::{Rate, Time};

/// N hosts on one switch.
pub fn star(hosts: u32, rate: Rate, delay: Time) -> Graph {
    let mut g = Graph::default();
    for i in 0..hosts {
        g.add_node(NodeKind::Host, format!("h{i}"));
    }
    let s = g.add_node(NodeKind::Switch, "sw0".into());
    for i in 0..hosts {
        g.link(i, s, rate, delay);
    }
    g
}

/// `left` hosts on switch A, `right` hosts on switch B, one A–B link.
pub fn dumbbell(left: u32, right: u32, host: (Rate, Time), core: (Rate, Time)) -> Graph {
    let mut g = Graph::default();
    for i in 0..left + right {
        g.add_node(NodeKind::Host, format!("h{i}"));
    }
    let a = g.add_node(NodeKind::Switch, "swA".into());
    let b = g.add_node(NodeKind::Switch, "swB".into());
    for i in 0..left {
        g.link(i, a, host.0, host.1);
    }
    for i in left..left + right {
        g.link(i, b, host.0, host.1);
    }
    g.link(a, b, core.0, core.1);
    g
}

/// Two-tier leaf–spine: every leaf connects to every spine. Oversubscription at a leaf is
/// (hosts_per_leaf × host rate) / (spines × fabric rate).
pub fn leaf_spine(
    leaves: u32,
    spines: u32,
    hosts_per_leaf: u32,
    host: (Rate, Time),
    fabric: (Rate, Time),
) -> Graph {
    let mut g = Graph::default();
    let nh = leaves * hosts_per_leaf;
    for i in 0..nh {
        g.add_node(NodeKind::Host, format!("h{i}"));
    }
    let leaf0 = nh;
    for l in 0..leaves {
        g.add_node(NodeKind::Switch, format!("leaf{l}"));
    }
    let spine0 = leaf0 + leaves;
    for s in 0..spines {
        g.add_node(NodeKind::Switch, format!("spine{s}"));
    }
    for i in 0..nh {
        g.link(i, leaf0 + i / hosts_per_leaf, host.0, host.1);
    }
    for l in 0..leaves {
        for s in 0..spines {
            g.link(leaf0 + l, spine0 + s, fabric.0, fabric.1);
        }
    }
    g
}

/// Three-tier fat tree of even arity k (Al-Fares et al., SIGCOMM 2008): k pods of k/2 edge
/// and k/2 aggregation switches, (k/2)² cores, k³/4 hosts, full bisection bandwidth.
pub fn fat_tree(k: u32, rate: Rate, delay: Time) -> Graph {
    let mut g = Graph::default();
    let half = k / 2;
    let nh = k * k * k / 4;
    for i in 0..nh {
        g.add_node(NodeKind::Host, format!("h{i}"));
    }
    let edge0 = nh;
    for p in 0..k {
        for e in 0..half {
            g.add_node(NodeKind::Switch, format!("edge{p}_{e}"));
        }
    }
    let agg0 = edge0 + k * half;
    for p in 0..k {
        for a in 0..half {
            g.add_node(NodeKind::Switch, format!("agg{p}_{a}"));
        }
    }
    let core0 = agg0 + k * half;
    for c in 0..half * half {
        g.add_node(NodeKind::Switch, format!("core{c}"));
    }
    for i in 0..nh {
        g.link(i, edge0 + i / half, rate, delay);
    }
    for p in 0..k {
        for e in 0..half {
            for a in 0..half {
                g.link(edge0 + p * half + e, agg0 + p * half + a, rate, delay);
            }
        }
        for a in 0..half {
            for j in 0..half {
                g.link(agg0 + p * half + a, core0 + a * half + j, rate, delay);
            }
        }
    }
    g
}

#[cfg(test)]
mod tests {
    use super::*;
    use dcnsim_engine::US;
    #[test]
    fn shapes() {
        let r = Rate::gbps(10);
        let g = fat_tree(8, r, US);
        assert_eq!(g.n_hosts(), 128);
        assert_eq!(g.nodes.len(), 128 + 32 + 32 + 16);
        assert_eq!(g.links.len(), 128 * 3);
        g.check().unwrap();
        let g = leaf_spine(20, 10, 20, (r, US), (r, US));
        assert_eq!(g.n_hosts(), 400);
        assert_eq!(g.links.len(), 400 + 200);
        g.check().unwrap();
        star(4, r, US).check().unwrap();
        dumbbell(3, 2, (r, US), (r, US)).check().unwrap();
    }
}
