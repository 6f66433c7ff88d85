//! Path metrics of a route: [`PathInfo`] (propagation, per-hop rates, token-bucket depths,
//! from [`Sim::path_info`]) and what a flow's results are measured against over it, the
//! unloaded [`base_rtt`] and the [`ideal_fct`].

use crate::sim::Sim;
use dcnsim_engine::{Rate, Time};

/// Hops of the route from `src` to `dst` (first ECMP candidate; equal-cost paths have the
/// same hop count and, in the built-in topologies, the same rates).
#[derive(Clone, Debug)]
pub struct PathInfo {
    pub prop: Time,
    pub rates: Vec<Rate>,
    /// Per hop: a token-bucket shaper's depth (the time its tokens take to accumulate),
    /// `None` for a store-and-forward wire.
    pub tb_depth: Vec<Option<Time>>,
}

impl Sim {
    pub fn path_info(&self, src: u32, dst: u32) -> PathInfo {
        let mut port = self.host_port(src);
        let mut prop = 0;
        let mut rates = Vec::new();
        let mut tb_depth = Vec::new();
        loop {
            let p = &self.ports[port as usize];
            prop += p.delay;
            rates.push(p.clock.rate());
            tb_depth.push(p.tb_depth);
            if p.peer == dst {
                break;
            }
            port = self.routes.candidates(p.peer, dst)[0];
        }
        PathInfo {
            prop,
            rates,
            tb_depth,
        }
    }
}

/// The unloaded round trip of a `data`-byte packet out and an `ack`-byte packet back over
/// `path` (links are symmetric): both propagation delays and both serializations per hop.
pub fn base_rtt(data: u64, ack: u64, path: &PathInfo) -> Time {
    2 * path.prop
        + path
            .rates
            .iter()
            .map(|r| r.tx_time(data) + r.tx_time(ack))
            .sum::<Time>()
}

/// Ideal FCT of a lone flow with an unlimited window, measured like the real FCT (until the
/// last byte is received): the first segment's store-and-forward latency over every hop,
/// plus the remaining wire bytes serialized at the bottleneck.
///
/// `ideal = Σ prop + Σ_hops tx_hop(w₁) + (W − w₁) / bottleneck`, where w₁ is the first
/// segment's wire size and W the wire bytes of the whole flow (payload + per-segment headers).
/// Exact for one-segment flows; for longer flows it assumes the bottleneck never idles.
/// On token-bucket hops (`shaper = "token_bucket"`) the first segment finds a full bucket
/// and is not serialized, and the rest gains the smallest bucket depth on the path (the
/// bytes a full bucket lets through ahead of the rate), so a lone flow stays at slowdown ≥ 1.
pub fn ideal_fct(size: u64, mss: u64, overhead: u64, path: &PathInfo) -> Time {
    let segs = size.div_ceil(mss).max(1);
    let w1 = size.min(mss) + overhead;
    let total = size + segs * overhead;
    let bottleneck = path.rates.iter().min().copied().unwrap_or(Rate(1));
    let depth = |i: usize| path.tb_depth.get(i).copied().flatten();
    let first: Time = (0..path.rates.len())
        .map(|i| match depth(i) {
            Some(_) => 0,
            None => path.rates[i].tx_time(w1),
        })
        .sum();
    let head_start = (0..path.rates.len())
        .map(|i| depth(i).unwrap_or(0))
        .min()
        .unwrap_or(0);
    path.prop + first + bottleneck.tx_time(total - w1).saturating_sub(head_start)
}
