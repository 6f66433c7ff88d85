//! Guarantees and weights: a host's pipes' R_G, normalised weights and in-pipe high flow,
//! re-derived from their active flows (ES §4.1 with the hose partition; C3 per objective,
//! spec §5.3.4, scaled statically or by the coordinator's factors).

use super::{Law, Shim};
use crate::packet::NIL;
use crate::scheme::c3::{self, C3Config, Objective, N_OBJECTIVES};
use dcnsim_engine::{Time, SEC};

impl Shim {
    /// Re-derives every pipe's guarantee, weight and in-pipe high flow of host `h`
    /// (spec §5.3.4; ES §4.1).
    pub(super) fn derive(&mut self, h: u32, now: Time, desc: &[crate::transport::FlowDesc]) {
        let pipes = std::mem::take(&mut self.host_pipes[h as usize]);
        match &self.law {
            Law::Es(c) => {
                for &p in &pipes {
                    let pp = &self.pipes[p as usize];
                    let mut g: f64 = pp
                        .flows
                        .iter()
                        .map(|&f| self.classes[desc[f as usize].traffic_class as usize].guarantee)
                        .sum();
                    if let Some(hose) = c.hose {
                        if !pp.flows.is_empty() {
                            // Equal-share hose partition over the active pairs at both ends.
                            let n_out = self.host_pipes_active(pp.src, &pipes);
                            let n_in = self.pairs_into(pp.dst);
                            g += (hose.0 as f64 / n_out.max(1) as f64)
                                .min(hose.0 as f64 / n_in.max(1) as f64);
                        }
                    }
                    self.pipes[p as usize].r_g = g;
                    self.pipes[p as usize].weight = 1.0;
                }
            }
            Law::C3(c) => {
                let mut raw = vec![0.0; pipes.len()];
                for (k, &p) in pipes.iter().enumerate() {
                    let (g, w, high) = self.c3_params(c, p, now, desc);
                    let pp = &mut self.pipes[p as usize];
                    pp.r_g = g;
                    pp.high = high;
                    pp.raw = w;
                    raw[k] = w;
                }
                let scale = self.coord.as_ref().and_then(|k| k.scale);
                if let Some(s) = scale {
                    // With the coordinator (C3 §3: "the derived weight value of each pipe is
                    // multiplied by this scaling factor in the shim layer"): u = s_o·raw, then
                    // normalised over the host's pipes (spec §5.3.3 CHOICE: Σ w ≤ 1, so
                    // α·w < 1).
                    let u: Vec<f64> = pipes
                        .iter()
                        .zip(&raw)
                        .map(|(&p, &r)| s[self.pipes[p as usize].objective as usize] * r)
                        .collect();
                    let total: f64 = u.iter().sum();
                    for (k, &p) in pipes.iter().enumerate() {
                        self.pipes[p as usize].weight =
                            if total > 0.0 { u[k] / total } else { 0.0 };
                    }
                } else {
                    // Without it (static `scale`; spec §5.3.3 CHOICE): an objective present
                    // at the host gets scale_o / Σ scale of the present objectives; its pipes
                    // split that in proportion to their raw weights. Σ w ≤ 1 at every host,
                    // so α·w < 1.
                    let mut sum_o = [0.0f64; N_OBJECTIVES];
                    for (k, &p) in pipes.iter().enumerate() {
                        sum_o[self.pipes[p as usize].objective as usize] += raw[k];
                    }
                    let total: f64 = c3::ALL
                        .iter()
                        .filter(|&&o| sum_o[o as usize] > 0.0)
                        .map(|&o| c.scale.of(o))
                        .sum();
                    for (k, &p) in pipes.iter().enumerate() {
                        let o = self.pipes[p as usize].objective;
                        let w = if raw[k] > 0.0 && total > 0.0 {
                            c.scale.of(o) / total * raw[k] / sum_o[o as usize]
                        } else {
                            0.0
                        };
                        self.pipes[p as usize].weight = w;
                    }
                }
            }
        }
        self.host_pipes[h as usize] = pipes;
        let floor = match &self.law {
            Law::Es(c) => c.min_rate.0 as f64,
            Law::C3(_) => 0.0,
        };
        for &p in &self.host_pipes[h as usize] {
            let pp = &mut self.pipes[p as usize];
            if pp.objective == Objective::Ls && matches!(self.law, Law::C3(_)) {
                // "There is no need to set weight for LS flows": R_w = R_G.
                pp.r_w = pp.r_g;
            }
            pp.r_w = pp.r_w.max(pp.r_g).max(floor);
        }
    }

    /// One C3 pipe's guarantee R_G (bits/s, wire), raw weight and high-sub-queue flow
    /// from its active flows (spec §5.3.4).
    fn c3_params(
        &self,
        c: &C3Config,
        p: u32,
        now: Time,
        desc: &[crate::transport::FlowDesc],
    ) -> (f64, f64, u32) {
        let mtu = self.mtu as f64;
        let rtt = c.rtt.secs();
        let pp = &self.pipes[p as usize];
        let n = pp.flows.len();
        // S_f, the flow's remaining bytes (spec §5.3.4 CHOICE), as the pipe sees them: not
        // yet handed to it, plus those still in its queue. The EDF test is on the pipe's
        // output rate, so queued bytes still need it (leaving them out let R_G fall below
        // what the backlog needed near a deadline; test
        // `c3_ds_guarantee_counts_bytes_queued_in_the_pipe`).
        let remaining = |f: u32| {
            let d = &desc[f as usize];
            let fs = &self.flows[f as usize];
            (d.size.saturating_sub(fs.sent) + fs.queued) as f64
        };
        // A flow's absolute deadline (FlowDesc::deadline is start + the relative deadline).
        let d_due = |f: u32| desc[f as usize].deadline;
        if n == 0 {
            (0.0, 0.0, NIL)
        } else {
            match pp.objective {
                // TS: R_G = Σ the flows' minimum bandwidth; weight ∝ R_G.
                Objective::Ts => {
                    let g: f64 = pp
                        .flows
                        .iter()
                        .map(|&f| self.classes[desc[f as usize].traffic_class as usize].guarantee)
                        .sum();
                    (g, g, NIL)
                }
                // LS: 2.2 × the average demand; no weight (R_w = R_G).
                Objective::Ls => (8.0 * c3::ls_guarantee(n, mtu, rtt), 0.0, NIL),
                // DS: the EDF-feasible rate with headroom; weight ∝ R_G; the
                // earliest-deadline flow in the high sub-queue.
                Objective::Ds => {
                    let mut v: Vec<(f64, f64)> = pp
                        .flows
                        .iter()
                        .filter_map(|&f| {
                            // `FlowDesc::deadline` is already absolute (start + the
                            // workload's deadline; scenario/flows.rs), so TD_f = due − now
                            // (spec §5.3.4). Adding the start again once made every flow
                            // that starts after t = 0 look `start` later due than it is,
                            // and its pipe's R_G too small.
                            let due = d_due(f)?;
                            (due > now).then(|| (remaining(f), (due - now) as f64 / SEC as f64))
                        })
                        .collect();
                    let g = 8.0 * self.wire_per_payload * c3::ds_guarantee(&mut v, c.ds_headroom);
                    let high = pp
                        .flows
                        .iter()
                        .copied()
                        .min_by_key(|&f| (d_due(f).unwrap_or(Time::MAX), f))
                        .unwrap_or(NIL);
                    (g, g, high)
                }
                // PS: a minimal guarantee; weight Σ 1/size; SJF in the pipe.
                Objective::Ps => {
                    let w: f64 = pp
                        .flows
                        .iter()
                        .map(|&f| 1.0 / desc[f as usize].size.max(1) as f64)
                        .sum();
                    let high = pp
                        .flows
                        .iter()
                        .copied()
                        .min_by_key(|&f| (remaining(f) as u64, f))
                        .unwrap_or(NIL);
                    (8.0 * c3::ps_guarantee(mtu, rtt), w, high)
                }
                // BE: a fixed minimum; weight ∝ the number of flows.
                Objective::Be => (c.be_guarantee.0 as f64, n as f64, NIL),
            }
        }
    }

    fn host_pipes_active(&self, _h: u32, pipes: &[u32]) -> usize {
        pipes
            .iter()
            .filter(|&&p| !self.pipes[p as usize].flows.is_empty())
            .count()
    }

    fn pairs_into(&self, dst: u32) -> usize {
        self.pipes
            .iter()
            .filter(|p| p.dst == dst && !p.flows.is_empty())
            .count()
    }
}
