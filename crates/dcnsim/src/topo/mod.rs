//! Topologies and routes.
//!
//! A [`Graph`] lists nodes (hosts first, so host i is node i) and full-duplex links. The
//! builders in [`builders`] make the standard datacenter shapes; [`Routes`] computes, for
//! every switch and destination host, the egress ports on shortest paths (ECMP candidates).

pub mod builders;
pub mod routes;

use dcnsim_engine::{Rate, Time};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    Host,
    Switch,
}

#[derive(Clone, Debug)]
pub struct NodeInfo {
    pub kind: NodeKind,
    pub name: String,
}

#[derive(Clone, Debug)]
pub struct LinkSpec {
    pub a: u32,
    pub b: u32,
    pub rate: Rate,
    pub delay: Time,
    /// `Some(depth)`: a token-bucket shaper in both directions whose bucket holds `depth`
    /// wire bytes of tokens (the burst minus one full frame); `None`: a store-and-forward
    /// wire.
    pub tb_depth: Option<u64>,
}

#[derive(Clone, Debug, Default)]
pub struct Graph {
    pub nodes: Vec<NodeInfo>,
    pub links: Vec<LinkSpec>,
}

impl Graph {
    pub fn n_hosts(&self) -> u32 {
        self.nodes
            .iter()
            .take_while(|n| n.kind == NodeKind::Host)
            .count() as u32
    }
    pub fn add_node(&mut self, kind: NodeKind, name: String) -> u32 {
        self.nodes.push(NodeInfo { kind, name });
        (self.nodes.len() - 1) as u32
    }
    pub fn link(&mut self, a: u32, b: u32, rate: Rate, delay: Time) {
        self.links.push(LinkSpec {
            a,
            b,
            rate,
            delay,
            tb_depth: None,
        });
    }

    /// Checks structural rules: hosts come first, each host has exactly one link, every
    /// rate is positive, no self-links, and every host can reach every other host.
    pub fn check(&self) -> Result<(), String> {
        let h = self.n_hosts() as usize;
        if h < 2 {
            return Err(format!("expected at least 2 hosts, got {h}"));
        }
        if self.nodes[h..].iter().any(|n| n.kind == NodeKind::Host) {
            return Err("hosts must be listed before switches".into());
        }
        let mut deg = vec![0u32; self.nodes.len()];
        for l in &self.links {
            if l.a as usize >= self.nodes.len() || l.b as usize >= self.nodes.len() {
                return Err("link endpoint does not exist".into());
            }
            if l.a == l.b {
                return Err(format!("self-link at {}", self.nodes[l.a as usize].name));
            }
            if l.rate.0 == 0 {
                return Err(format!(
                    "link {}–{} has rate 0; expected > 0",
                    self.nodes[l.a as usize].name, self.nodes[l.b as usize].name
                ));
            }
            deg[l.a as usize] += 1;
            deg[l.b as usize] += 1;
        }
        for (i, d) in deg.iter().enumerate().take(h) {
            if *d != 1 {
                return Err(format!(
                    "host {} has {d} links; a host has exactly one NIC link",
                    self.nodes[i].name
                ));
            }
        }
        // connectivity from host 0 (hosts do not forward)
        let adj = self.adjacency();
        let mut seen = vec![false; self.nodes.len()];
        let mut stack = vec![0u32];
        seen[0] = true;
        while let Some(n) = stack.pop() {
            if n != 0 && (n as usize) < h {
                continue;
            }
            for &(m, _) in &adj[n as usize] {
                if !seen[m as usize] {
                    seen[m as usize] = true;
                    stack.push(m);
                }
            }
        }
        if let Some(i) = (0..h).find(|&i| !seen[i]) {
            return Err(format!(
                "topology is not connected: {} cannot reach {}",
                self.nodes[0].name, self.nodes[i].name
            ));
        }
        Ok(())
    }

    /// Neighbours of each node as (peer, link index), in link order (deterministic).
    pub fn adjacency(&self) -> Vec<Vec<(u32, u32)>> {
        let mut adj = vec![Vec::new(); self.nodes.len()];
        for (i, l) in self.links.iter().enumerate() {
            adj[l.a as usize].push((l.b, i as u32));
            adj[l.b as usize].push((l.a, i as u32));
        }
        adj
    }

    /// Rack (index of the attached switch among switches) of each host.
    pub fn racks(&self) -> Vec<u32> {
        let h = self.n_hosts();
        let adj = self.adjacency();
        (0..h)
            .map(|i| {
                adj[i as usize]
                    .first()
                    .map(|&(p, _)| p.saturating_sub(h))
                    .unwrap_or(0)
            })
            .collect()
    }
}
