//! Shortest-path routes with ECMP candidate sets.
//!
//! For every destination host d a BFS (hosts never forward) gives each node its hop
//! distance to d; a switch's candidate egress ports toward d are the ports whose peer is one
//! hop closer. Candidates are stored flat, in port order, so route choice is deterministic.

use super::{Graph, NodeKind};

pub struct Routes {
    n_hosts: u32,
    /// (offset, len) into `ports` for (switch - n_hosts) * n_hosts + dst.
    index: Vec<(u32, u32)>,
    ports: Vec<u32>,
}

impl Routes {
    /// `port_of[(node, peer)]` is given as, per node, its ports' peers in local order and the
    /// global id of its first port (ports of a node are contiguous).
    pub fn build(g: &Graph, node_ports: &[(u32, Vec<u32>)]) -> Routes {
        let h = g.n_hosts();
        let n = g.nodes.len() as u32;
        let n_sw = n - h;
        let mut index = vec![(0u32, 0u32); (n_sw * h) as usize];
        let mut ports = Vec::new();
        let adj = g.adjacency();
        let mut dist = vec![u32::MAX; n as usize];
        let mut queue = std::collections::VecDeque::new();
        for d in 0..h {
            dist.iter_mut().for_each(|x| *x = u32::MAX);
            dist[d as usize] = 0;
            queue.clear();
            queue.push_back(d);
            while let Some(u) = queue.pop_front() {
                if u != d && g.nodes[u as usize].kind == NodeKind::Host {
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
                let off = ports.len() as u32;
                let ds = dist[s as usize];
                if ds != u32::MAX {
                    for (i, &p) in peers.iter().enumerate() {
                        if dist[p as usize] != u32::MAX && dist[p as usize] + 1 == ds {
                            ports.push(first + i as u32);
                        }
                    }
                }
                index[((s - h) * h + d) as usize] = (off, ports.len() as u32 - off);
            }
        }
        Routes {
            n_hosts: h,
            index,
            ports,
        }
    }

    /// Candidate egress ports at switch `node` toward host `dst`.
    #[inline]
    pub fn candidates(&self, node: u32, dst: u32) -> &[u32] {
        let (off, len) = self.index[((node - self.n_hosts) * self.n_hosts + dst) as usize];
        &self.ports[off as usize..(off + len) as usize]
    }
}
