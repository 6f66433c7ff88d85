//! C3's coordinator (C3 §3, spec §5.3.5): each pipe's path through the fabric, admission
//! control that demotes flows to BE pipes while a link's Σ R_G exceeds its rate, and the
//! network-wide per-objective scale factors.

use super::Law;
use crate::scheme::c3::{self, Objective, N_OBJECTIVES};
use crate::sim::{Ecmp, Sim};
use dcnsim_engine::Time;

impl Sim {
    /// The egress ports a pipe's packets can cross: its one path under per-flow ECMP (the
    /// outer header's hash), every shortest-path port toward `dst` when spraying (the
    /// coordinator then charges the whole R_G to each: conservative).
    fn pipe_path(&self, src: u32, dst: u32, entropy: u32) -> Vec<u32> {
        if self.ecmp == Ecmp::PerFlow {
            return self.route_of(src, dst, entropy);
        }
        let mut seen = vec![false; self.ports.len()];
        let first = self.host_port(src);
        seen[first as usize] = true;
        let mut stack = vec![self.ports[first as usize].peer];
        while let Some(node) = stack.pop() {
            for &c in self.routes.candidates(node, dst) {
                if !std::mem::replace(&mut seen[c as usize], true) {
                    let peer = self.ports[c as usize].peer;
                    if peer != dst {
                        stack.push(peer);
                    }
                }
            }
        }
        (0..self.ports.len() as u32)
            .filter(|&p| seen[p as usize])
            .collect()
    }

    /// One round of C3's coordinator (C3 §3, spec §5.3.5), at a control tick before the
    /// rate law: collect every pipe's R_G and raw weight, admission control over the
    /// pipes' paths, then the network-wide scale factors. Its decisions reach the shims at
    /// once [simplification: no message delay or loss].
    #[inline(never)]
    pub(super) fn shim_coordinate(&mut self, now: Time) {
        let mut sh = self.shim.take().expect("shim");
        let desc = &self.flows.desc;
        // The shims' reports: fresh R_G and raw weights of every pipe.
        for h in 0..sh.host_pipes.len() as u32 {
            if !sh.host_pipes[h as usize].is_empty() {
                sh.derive(h, now, desc);
            }
        }
        for p in 0..sh.pipes.len() {
            if sh.pipes[p].path.is_empty() {
                let pp = &sh.pipes[p];
                sh.pipes[p].path = self.pipe_path(pp.src, pp.dst, pp.entropy);
            }
        }
        let k = sh.coord.as_mut().expect("coordinator");
        k.rounds += 1;
        k.next = now + k.interval;
        if k.admission {
            // Admission control (C3 §3: "if a link is oversubscribed according to all its
            // passing-through pipes' bandwidth guarantee, the coordinator indicates the
            // respective shim layers to perform admission control for specific pipes: ...
            // some of the flows are demoted to the best-effort pipe"). Links in port order;
            // on the first one whose Σ R_G exceeds its rate, the most recently arrived flow
            // of a non-BE pipe crossing it goes to the BE pipe of its (src, dst) (spec §5.3.5
            // CHOICE); repeat until no link is oversubscribed or only BE pipes remain on
            // those that are. A demotion lasts for the flow's life [CHOICE: no re-admission,
            // which would move flows back and forth]; packets already in the old pipe drain
            // from it.
            let cap: Vec<f64> = self.ports.iter().map(|p| p.clock.rate().0 as f64).collect();
            let mut load = vec![0.0f64; cap.len()];
            loop {
                load.iter_mut().for_each(|x| *x = 0.0);
                for pp in &sh.pipes {
                    if !pp.flows.is_empty() {
                        for &l in &pp.path {
                            load[l as usize] += pp.r_g;
                        }
                    }
                }
                let victim = (0..cap.len()).find_map(|l| {
                    // A tolerance for rounding: guarantees that exactly fill a link fit.
                    if load[l] <= cap[l] * (1.0 + 1e-9) {
                        return None;
                    }
                    c3::demote_first(
                        sh.pipes
                            .iter()
                            .filter(|pp| {
                                pp.objective != Objective::Be && pp.path.contains(&(l as u32))
                            })
                            .flat_map(|pp| pp.flows.iter().map(|&f| (desc[f as usize].start, f))),
                    )
                });
                let Some(f) = victim else {
                    break;
                };
                let from = sh.flows[f as usize].pipe;
                let (src, dst) = (sh.pipes[from as usize].src, sh.pipes[from as usize].dst);
                sh.pipes[from as usize].flows.retain(|&x| x != f);
                sh.pipes[from as usize].stats.demoted += 1;
                let to = sh.pipe_for(src, dst, Objective::Be);
                if sh.pipes[to as usize].path.is_empty() {
                    let e = sh.pipes[to as usize].entropy;
                    sh.pipes[to as usize].path = self.pipe_path(src, dst, e);
                }
                sh.start_pipe(to, now);
                sh.pipes[to as usize].flows.push(f);
                sh.pipes[to as usize].stats.flows += 1;
                let fs = &mut sh.flows[f as usize];
                fs.pipe = to;
                fs.demoted = true;
                sh.coord.as_mut().unwrap().demoted += 1;
                sh.derive(src, now, desc);
            }
        }
        // Network-wide scale factors (C3 §3; `c3::scale_factors`) from the pipes' raw
        // weights; the shims apply them from this tick's derivation on.
        let mut totals = [0.0f64; N_OBJECTIVES];
        for pp in &sh.pipes {
            if !pp.flows.is_empty() {
                totals[pp.objective as usize] += pp.raw;
            }
        }
        if let Law::C3(c) = &sh.law {
            let s = c3::scale_factors(&c.scale, &totals);
            sh.coord.as_mut().unwrap().scale = Some(s);
        }
        self.shim = Some(sh);
    }
}
