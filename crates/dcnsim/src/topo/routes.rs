//! Shortest-path routes with ECMP candidate sets.
//!
//! For every destination host d a BFS (hosts never forward) gives each node its hop
//! distance to d; a switch's candidate egress ports toward d are the ports whose peer is one
//! hop closer. Candidates are stored in port order, so route choice is deterministic.
//!
//! The tables do not grow with hosts × switches: a host with one link to a switch (its
//! *leaf*) is reached only through that switch, so its distance from any other node is one
//! more than the leaf's, and every switch other than the leaf has the same candidates toward
//! all hosts of one leaf. The BFS runs once per destination *group* (a leaf with its hosts;
//! a host that is not on one switch is a group of its own), the index has one entry per
//! (switch, group), identical candidate lists are stored once, and at its leaf a host is
//! reached by the port to it. A k = 16 fat tree (1,024 hosts, 320 switches) has 128 groups
//! and a few hundred distinct lists: a 160 KiB index instead of ≈ 11 MiB of tables.

use super::{Graph, NodeKind};

/// Where a destination host is: its group and, for a host on a leaf, the leaf and the leaf's
/// port to it.
#[derive(Clone, Copy, Debug)]
struct Dest {
    group: u32,
    /// The leaf switch (`u32::MAX` for a group of its own).
    leaf: u32,
    /// The leaf's port to the host.
    down: u32,
}

pub struct Routes {
    n_hosts: u32,
    n_groups: u32,
    dest: Vec<Dest>,
    /// Candidate list id for (switch - n_hosts) * n_groups + group.
    index: Vec<u32>,
    /// (offset, len) into `ports` of each distinct candidate list.
    lists: Vec<(u32, u32)>,
    ports: Vec<u32>,
}

impl Routes {
    /// `port_of[(node, peer)]` is given as, per node, its ports' peers in local order and the
    /// global id of its first port (ports of a node are contiguous).
    pub fn build(g: &Graph, node_ports: &[(u32, Vec<u32>)]) -> Routes {
        let h = g.n_hosts();
        let n = g.nodes.len() as u32;
        let n_sw = n - h;
        let adj = g.adjacency();
        // Groups: a leaf's hosts share one (in order of first appearance), other hosts
        // have their own; the BFS of a group starts at its leaf, or at the host.
        let mut dest = Vec::with_capacity(h as usize);
        let mut starts: Vec<u32> = Vec::new();
        let mut group_of_leaf = vec![u32::MAX; n as usize];
        for d in 0..h {
            let a = &adj[d as usize];
            let single_leaf = a.len() == 1 && g.nodes[a[0].0 as usize].kind == NodeKind::Switch;
            if single_leaf {
                let leaf = a[0].0;
                if group_of_leaf[leaf as usize] == u32::MAX {
                    group_of_leaf[leaf as usize] = starts.len() as u32;
                    starts.push(leaf);
                }
                let (first, peers) = &node_ports[leaf as usize];
                let local = peers
                    .iter()
                    .position(|&p| p == d)
                    .expect("leaf links to host");
                dest.push(Dest {
                    group: group_of_leaf[leaf as usize],
                    leaf,
                    down: first + local as u32,
                });
            } else {
                dest.push(Dest {
                    group: starts.len() as u32,
                    leaf: u32::MAX,
                    down: u32::MAX,
                });
                starts.push(d);
            }
        }
        let n_groups = starts.len() as u32;
        let mut index = vec![0u32; (n_sw * n_groups) as usize];
        let mut lists: Vec<(u32, u32)> = Vec::new();
        let mut ports = Vec::new();
        // Build-time only: finds a list already stored (never iterated).
        let mut seen: std::collections::HashMap<Vec<u32>, u32> = Default::default();
        let mut cand = Vec::new();
        let mut dist = vec![u32::MAX; n as usize];
        let mut queue = std::collections::VecDeque::new();
        for (gi, &start) in starts.iter().enumerate() {
            dist.iter_mut().for_each(|x| *x = u32::MAX);
            dist[start as usize] = 0;
            queue.clear();
            queue.push_back(start);
            while let Some(u) = queue.pop_front() {
                if u != start && g.nodes[u as usize].kind == NodeKind::Host {
                    continue; // hosts do not forward
                }
                for &(v, _) in &adj[u as usize] {
                    if dist[v as usize] == u32::MAX {
                        dist[v as usize] = dist[u as usize] + 1;
                        queue.push_back(v);
                    }
                }
            }
            for s in h..n {
                let (first, peers) = &node_ports[s as usize];
                cand.clear();
                let ds = dist[s as usize];
                if ds != u32::MAX {
                    for (i, &p) in peers.iter().enumerate() {
                        if dist[p as usize] != u32::MAX && dist[p as usize] + 1 == ds {
                            cand.push(first + i as u32);
                        }
                    }
                }
                let id = *seen.entry(cand.clone()).or_insert_with(|| {
                    lists.push((ports.len() as u32, cand.len() as u32));
                    ports.extend_from_slice(&cand);
                    lists.len() as u32 - 1
                });
                index[((s - h) * n_groups + gi as u32) as usize] = id;
            }
        }
        Routes {
            n_hosts: h,
            n_groups,
            dest,
            index,
            lists,
            ports,
        }
    }

    /// Candidate egress ports at switch `node` toward host `dst`.
    #[inline]
    pub fn candidates(&self, node: u32, dst: u32) -> &[u32] {
        let d = &self.dest[dst as usize];
        if node == d.leaf {
            return std::slice::from_ref(&d.down);
        }
        let id = self.index[((node - self.n_hosts) * self.n_groups + d.group) as usize];
        let (off, len) = self.lists[id as usize];
        &self.ports[off as usize..(off + len) as usize]
    }

    /// Bytes held by the tables.
    pub fn table_bytes(&self) -> usize {
        self.dest.len() * std::mem::size_of::<Dest>()
            + self.index.len() * 4
            + self.lists.len() * 8
            + self.ports.len() * 4
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topo::builders;
    use dcnsim_engine::{Rate, US};

    /// The per-host BFS the grouped tables replace: candidates of every (switch, host).
    fn per_host(g: &Graph, node_ports: &[(u32, Vec<u32>)]) -> Vec<Vec<u32>> {
        let h = g.n_hosts();
        let n = g.nodes.len() as u32;
        let adj = g.adjacency();
        let mut out = Vec::new();
        for d in 0..h {
            let mut dist = vec![u32::MAX; n as usize];
            dist[d as usize] = 0;
            let mut q = std::collections::VecDeque::from([d]);
            while let Some(u) = q.pop_front() {
                if u != d && g.nodes[u as usize].kind == NodeKind::Host {
                    continue;
                }
                for &(v, _) in &adj[u as usize] {
                    if dist[v as usize] == u32::MAX {
                        dist[v as usize] = dist[u as usize] + 1;
                        q.push_back(v);
                    }
                }
            }
            for s in h..n {
                let (first, peers) = &node_ports[s as usize];
                let ds = dist[s as usize];
                let mut c = Vec::new();
                for (i, &p) in peers.iter().enumerate() {
                    if ds != u32::MAX && dist[p as usize] != u32::MAX && dist[p as usize] + 1 == ds
                    {
                        c.push(first + i as u32);
                    }
                }
                out.push(c);
            }
        }
        out
    }

    fn node_ports(g: &Graph) -> Vec<(u32, Vec<u32>)> {
        let mut first = 0;
        g.adjacency()
            .iter()
            .map(|a| {
                let r = (first, a.iter().map(|&(p, _)| p).collect());
                first += a.len() as u32;
                r
            })
            .collect()
    }

    /// The grouped tables give every (switch, host) exactly the per-host BFS's candidates,
    /// in the same order (so ECMP picks the same ports), and are much smaller.
    #[test]
    fn grouped_tables_equal_the_per_host_bfs() {
        let r = (Rate::gbps(10), US);
        // A host on two switches (its own group, routed by its own BFS).
        let mut two = Graph::default();
        for i in 0..3 {
            two.add_node(NodeKind::Host, format!("h{i}"));
        }
        for i in 0..2 {
            two.add_node(NodeKind::Switch, format!("s{i}"));
        }
        for (a, b) in [(0, 3), (0, 4), (1, 3), (2, 4), (3, 4)] {
            two.link(a, b, r.0, r.1);
        }
        let graphs = [
            builders::fat_tree(4, r.0, r.1),
            builders::fat_tree(8, r.0, r.1),
            builders::leaf_spine(3, 2, 4, r, r),
            builders::star(5, r.0, r.1),
            two,
        ];
        for (gi, g) in graphs.iter().enumerate() {
            let np = node_ports(g);
            let routes = Routes::build(g, &np);
            let want = per_host(g, &np);
            let h = g.n_hosts();
            let n = g.nodes.len() as u32;
            let mut k = 0;
            for d in 0..h {
                for s in h..n {
                    assert_eq!(
                        routes.candidates(s, d),
                        &want[k][..],
                        "switch {s} → host {d}"
                    );
                    k += 1;
                }
            }
            let full: usize = want.iter().map(|c| 8 + 4 * c.len()).sum();
            if gi < 2 {
                assert!(
                    routes.table_bytes() * 2 < full,
                    "{} vs {full}",
                    routes.table_bytes()
                );
            }
        }
    }
}
