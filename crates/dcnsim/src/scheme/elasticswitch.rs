//! ElasticSwitch (Popa et al., SIGCOMM '13; mechanisms spec §4.5): per VM-pair bandwidth
//! guarantees enforced by a rate limiter at the source that never goes below the pair's
//! guarantee, and that grows above it (work conservation) by a weighted AIMD on congestion
//! feedback.
//!
//! A host is a VM here. The limiter is a pipe of the sender shim (`sim::shim`): one per
//! (source host, destination host) pair carrying the flows of every class that has a
//! `guarantee` (classes without one bypass the shim). This file holds the configuration
//! and the control law only; the shim owns the queues, the token bucket and the feedback.
//!
//! Guarantee Partitioning (ES §4.1) — two ways to give a pair its guarantee G:
//! * per flow (the C3 experiments, spec §4.5 "the guarantee per flow/pair is given
//!   directly"): G = Σ `guarantee` of the pair's active flows;
//! * hose model (`hose`): every VM has a hose guarantee B for sending and for receiving; a
//!   pair X→Y gets min(B / Nₓ, B / N_Y) where Nₓ is the number of destinations X sends to and
//!   N_Y the number of sources sending to Y (active pairs). This is ES's partition with equal
//!   shares; ES's demand-aware max-min refinement (unused share moved to busy pairs) is not
//!   modelled [simplification]. The two add when both are given.
//!
//! Rate Allocation (ES §4.2; constants are the spec's CHOICEs, §4.5): every `interval`
//! (5 ms, the C3 control interval) the receiver reports whether any packet of the pair
//! arrived with a CE-marked (outer) header — ElasticSwitch reads ECN as a single bit (C3 §2:
//! it "assumes traditional single bit indication of congestion"):
//! * congestion: R_w ← R_w · (1 − `decrease`)            (multiplicative decrease, ½)
//! * otherwise:  R_w ← R_w + max(`increase` · G, `min_step`) (additive increase ∝ G)
//! * R_w ← clamp(R_w, max(G, `min_rate`), line rate); the limiter rate is R_w ≥ G.
//!
//! The additive step is proportional to the guarantee (ES: a pair's share of spare
//! bandwidth follows its guarantee); `min_step` lets a pair without a guarantee probe.

use crate::units::{Bw, Bytes, Dur};
use dcnsim_engine::MS;
use serde::{Deserialize, Serialize};

/// `[scheme] kind = "elasticswitch"`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ElasticSwitchConfig {
    /// Rate-allocation period: the receiver's feedback interval (spec §4.5 CHOICE: 5 ms).
    pub interval: Dur,
    /// Additive increase per uncongested period, as a fraction of the pair's guarantee
    /// (spec §4.5 CHOICE: δ = 0.05 G).
    pub increase: f64,
    /// Smallest additive step (so that pairs with a small or no guarantee still probe).
    pub min_step: Bw,
    /// Multiplicative decrease on a congested period (spec §4.5 CHOICE: ½).
    pub decrease: f64,
    /// Floor of R_w for a pair without guarantee.
    pub min_rate: Bw,
    /// Hose-model guarantee per VM (send and receive), partitioned among active pairs.
    pub hose: Option<Bw>,
    /// Outer header bytes added to every data packet on the wire (0: no encapsulation;
    /// ElasticSwitch rate-limits in the hypervisor without tunnelling).
    pub encap: Bytes,
    /// Inner ECN marking threshold of the limiter queue, in packets.
    pub mark_k: u32,
    /// Limiter queue capacity in packets (beyond it the shim drops).
    pub queue_limit: u32,
    /// Token-bucket depth of the limiter, in MTU-sized packets (1 = a plain pacer).
    pub bucket: u32,
}

impl Default for ElasticSwitchConfig {
    fn default() -> Self {
        ElasticSwitchConfig {
            interval: Dur(5 * MS),
            increase: 0.05,
            min_step: Bw(10_000_000),
            decrease: 0.5,
            min_rate: Bw(1_000_000),
            hose: None,
            encap: Bytes(0),
            mark_k: 20,
            queue_limit: 1000,
            bucket: 1,
        }
    }
}

impl ElasticSwitchConfig {
    /// Errors are (key under `scheme`, message).
    pub fn check(&self) -> Result<(), (String, String)> {
        if self.interval.0 == 0 {
            return Err(("interval".into(), "expected a duration > 0".into()));
        }
        if !(self.increase.is_finite() && self.increase >= 0.0) {
            return Err((
                "increase".into(),
                format!("expected a fraction >= 0, got {}", self.increase),
            ));
        }
        if !(self.decrease > 0.0 && self.decrease < 1.0) {
            return Err((
                "decrease".into(),
                format!("expected a fraction in (0, 1), got {}", self.decrease),
            ));
        }
        if self.min_rate.0 == 0 {
            return Err((
                "min_rate".into(),
                "expected a rate > 0 (a zero rate never sends again)".into(),
            ));
        }
        check_queue(self.mark_k, self.queue_limit, self.bucket)
    }
}

/// Shared checks of the shim's queue keys.
pub(crate) fn check_queue(mark_k: u32, limit: u32, bucket: u32) -> Result<(), (String, String)> {
    if limit == 0 {
        return Err(("queue_limit".into(), "expected at least 1 packet".into()));
    }
    if mark_k == 0 || mark_k > limit {
        return Err((
            "mark_k".into(),
            format!("expected 1..=queue_limit ({limit}) packets, got {mark_k}"),
        ));
    }
    if bucket == 0 {
        return Err(("bucket".into(), "expected at least 1 packet".into()));
    }
    Ok(())
}

/// One ElasticSwitch rate-allocation step (ES §4.2, constants spec §4.5 CHOICE).
/// `congested`: any CE-marked packet of the pair in the period. Rates in bits/s.
pub fn es_update(c: &ElasticSwitchConfig, r_w: f64, g: f64, congested: bool, line: f64) -> f64 {
    let r = if congested {
        r_w * (1.0 - c.decrease)
    } else {
        r_w + (c.increase * g).max(c.min_step.0 as f64)
    };
    // The limiter never goes below the guarantee (C3 §2: "never drops its rate lower than
    // 250 Mbps"); nor above the line.
    r.min(line).max(g.max(c.min_rate.0 as f64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn halves_on_congestion_never_below_guarantee() {
        let c = ElasticSwitchConfig::default();
        let g = 250e6;
        assert_eq!(es_update(&c, 800e6, g, true, 1e9), 400e6);
        assert_eq!(es_update(&c, 400e6, g, true, 1e9), g);
        // Increase ∝ G: +12.5 Mb/s per period for 250 Mb/s.
        assert_eq!(es_update(&c, 400e6, g, false, 1e9), 412.5e6);
        // No guarantee: the floor and the minimum step.
        assert_eq!(es_update(&c, 1.5e6, 0.0, true, 1e9), 1e6);
        assert_eq!(es_update(&c, 1e6, 0.0, false, 1e9), 11e6);
        assert_eq!(es_update(&c, 995e6, g, false, 1e9), 1e9);
    }
}
