//! C3 (paper 002, "coexistence of congestion control"; mechanisms spec §5.3): flows are
//! grouped by performance objective into virtual elastic pipes, one per (source host,
//! destination host, objective); each pipe has a rate-limited ingress queue at the sending
//! host's shim, a minimum guarantee R_G and a weighted work-conserving rate R_w ≥ R_G
//! driven by the receiver's per-pipe ECN feedback.
//!
//! This file holds the configuration and the pipe-level algorithms as plain numbers: the
//! weighted control (Eq. 1/2 and the `fujiz` variant), the guarantee and weight of each
//! objective (§5.3.4) and the EDF-feasibility search of DS pipes. The shim (`sim::shim`)
//! owns queues, token buckets, feedback counters and the control clock.
//!
//! Not modelled here (yet): the coordinator (admission control, per-objective scale
//! factors computed network-wide — `scale` is a static per-objective factor instead), the
//! switch reconfiguration delay and the two-queue variant.

use crate::units::{Bw, Bytes, Dur};
use dcnsim_engine::{MS, US};
use serde::{Deserialize, Serialize};

/// A flow's performance objective (C3 §3.1, Table 1; spec §5.3.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Objective {
    /// Throughput-sensitive: a bandwidth guarantee (ElasticSwitch in the paper).
    Ts = 0,
    /// Latency-sensitive: small flows, a low queue (SILO-like guarantee + token bucket).
    Ls = 1,
    /// Deadline-sensitive (D2TCP).
    Ds = 2,
    /// Priority-sensitive: size as priority (L2DCT).
    Ps = 3,
    /// Best effort.
    Be = 4,
}

pub const N_OBJECTIVES: usize = 5;

/// Pipe-level control law (spec §5.3.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum C3Variant {
    /// Eq. 1 / Eq. 2 as the spec reads them.
    #[default]
    Paper,
    /// The third-party ns-3 reading (FujiZ/ns-3 `c3-tunnel.cc`, spec §5.3.3).
    Fujiz,
    /// The text's reading of Eq. 1, "a weighted additive increase" (C3 §3.3, spec §5.3.3
    /// ambiguity): R_w ← R_w + w·`fujiz_step`; Eq. 2 unchanged.
    Additive,
}

/// Per-objective weight scale factors (C3 §3.4 network-wide policy; static here).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ObjectiveScale {
    pub ts: f64,
    pub ls: f64,
    pub ds: f64,
    pub ps: f64,
    pub be: f64,
}

impl Default for ObjectiveScale {
    fn default() -> Self {
        ObjectiveScale {
            ts: 1.0,
            ls: 1.0,
            ds: 1.0,
            ps: 1.0,
            be: 1.0,
        }
    }
}

impl ObjectiveScale {
    pub fn of(&self, o: Objective) -> f64 {
        match o {
            Objective::Ts => self.ts,
            Objective::Ls => self.ls,
            Objective::Ds => self.ds,
            Objective::Ps => self.ps,
            Objective::Be => self.be,
        }
    }
}

/// `[scheme] kind = "c3"`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct C3Config {
    /// Control interval: the receiver shim reports each pipe's marked fraction (§5.3.2: 5 ms).
    pub interval: Dur,
    /// `paper` (Eq. 1/2), `fujiz` or `additive`.
    pub variant: C3Variant,
    /// EWMA gain of the congestion level α ← (1 − g)·α + g·F (spec §5.3.3 CHOICE: 1/16).
    pub g: f64,
    /// Outer IP/UDP header bytes per data packet (§5.3.2; 20 B IPv4 + 8 B UDP).
    pub encap: Bytes,
    /// Inner ECN marking threshold at the pipe queue, packets (spec CHOICE: 20, the
    /// switches' K at 1 Gb/s).
    pub mark_k: u32,
    /// Pipe queue capacity, packets.
    pub queue_limit: u32,
    /// Token-bucket depth of non-LS pipes, in MTU-sized packets (1 = a plain pacer).
    pub bucket: u32,
    /// Token-bucket depth of LS pipes (§5.3.4: SILO's 5 packets).
    pub ls_bucket: u32,
    /// RTT assumed for LS and PS guarantees (C3-MOTIV: 300 µs).
    pub rtt: Dur,
    /// DS headroom h: LB = (1 + h)·S_e/TD_e and the search tests G·(1 − h) (spec §5.3.4: 5%).
    pub ds_headroom: f64,
    /// BE pipe guarantee (§5.3.4: 1 Mb/s).
    pub be_guarantee: Bw,
    /// Share of the high sub-queue in the pipe's DRR (§5.3.6: 95 : 5).
    pub high_share: f64,
    /// Per-objective weight scale factors.
    pub scale: ObjectiveScale,
    /// `fujiz`: below this rate increase multiplicatively, above it additively.
    pub fujiz_threshold: Bw,
    /// `fujiz` (above the threshold) and `additive`: additive step (× weight) per interval.
    pub fujiz_step: Bw,
    /// `fujiz`: rate floor.
    pub fujiz_min: Bw,
}

impl Default for C3Config {
    fn default() -> Self {
        C3Config {
            interval: Dur(5 * MS),
            variant: C3Variant::Paper,
            g: 1.0 / 16.0,
            encap: Bytes(28),
            mark_k: 20,
            queue_limit: 1000,
            bucket: 1,
            ls_bucket: 5,
            rtt: Dur(300 * US),
            ds_headroom: 0.05,
            be_guarantee: Bw(1_000_000),
            high_share: 0.95,
            scale: ObjectiveScale::default(),
            fujiz_threshold: Bw(500_000_000),
            fujiz_step: Bw(10_000_000),
            fujiz_min: Bw(1_000_000),
        }
    }
}

impl C3Config {
    /// Errors are (key under `scheme`, message).
    pub fn check(&self) -> Result<(), (String, String)> {
        if self.interval.0 == 0 {
            return Err(("interval".into(), "expected a duration > 0".into()));
        }
        if !(self.g > 0.0 && self.g <= 1.0) {
            return Err(("g".into(), format!("expected 0 < g <= 1, got {}", self.g)));
        }
        if self.rtt.0 == 0 {
            return Err(("rtt".into(), "expected a duration > 0".into()));
        }
        if !(0.0..0.5).contains(&self.ds_headroom) {
            return Err((
                "ds_headroom".into(),
                format!("expected 0 <= h < 0.5, got {}", self.ds_headroom),
            ));
        }
        if !(self.high_share > 0.0 && self.high_share < 1.0) {
            return Err((
                "high_share".into(),
                format!("expected a fraction in (0, 1), got {}", self.high_share),
            ));
        }
        if self.be_guarantee.0 == 0 {
            return Err(("be_guarantee".into(), "expected a rate > 0".into()));
        }
        if self.ls_bucket == 0 {
            return Err(("ls_bucket".into(), "expected at least 1 packet".into()));
        }
        let s = &self.scale;
        for (k, v) in [
            ("ts", s.ts),
            ("ls", s.ls),
            ("ds", s.ds),
            ("ps", s.ps),
            ("be", s.be),
        ] {
            if !(v.is_finite() && v > 0.0) {
                return Err((
                    format!("scale.{k}"),
                    format!("expected a factor > 0, got {v}"),
                ));
            }
        }
        if self.variant == C3Variant::Fujiz && self.fujiz_min.0 == 0 {
            return Err(("fujiz_min".into(), "expected a rate > 0".into()));
        }
        super::elasticswitch::check_queue(self.mark_k, self.queue_limit, self.bucket)
    }
}

/// One interval of the pipe-level weighted control (spec §5.3.3), `paper` variant.
/// `alpha` is the EWMA congestion level already updated with this interval's fraction,
/// `marked` whether any packet of the interval was marked, `w` the normalised weight
/// (0 < w ≤ 1). Rates in bits/s; the result is clamped to [R_G, line].
pub fn eq12(r_w: f64, r_g: f64, alpha: f64, w: f64, marked: bool, line: f64) -> f64 {
    let r = if marked {
        // Eq. 2: R_w ← (1 − α·w)·R_w (α·w < 1 since α ≤ 1 and w ≤ 1, with w = 1 only
        // when the pipe is the host's only one).
        (1.0 - alpha * w) * r_w
    } else {
        // Eq. 1: R_w ← (1 + w)·R_w. The paper calls it a weighted additive increase; as
        // printed it is multiplicative, and the spec follows the print.
        (1.0 + w) * r_w
    };
    r.min(line).max(r_g)
}

/// One interval of the `additive` reading (spec §5.3.3 ambiguity): the paper's text calls
/// the increase "a weighted additive increase" (C3 §3.3), so R_w ← R_w + w·step when no
/// packet of the interval was marked; Eq. 2 as in [`eq12`] when one was. Clamped to
/// [R_G, line]. Unlike Eq. 1's (1 + w)·R_w, the increase does not scale with R_w, so pipes
/// with equal w approach equal rates above their guarantees (AIMD) instead of keeping the
/// ratio of their starting rates (MIMD).
pub fn additive(r_w: f64, r_g: f64, alpha: f64, w: f64, marked: bool, step: f64, line: f64) -> f64 {
    let r = if marked {
        (1.0 - alpha * w) * r_w
    } else {
        r_w + w * step
    };
    r.min(line).max(r_g)
}

/// One interval of the `fujiz` reading (spec §5.3.3): decrease from the *measured* rate of
/// the last interval by α/2 (the weight not used), increase multiplicatively below the
/// threshold and by w·step above it; clamp to [fujiz_min, line], then R_w ≥ R_G.
#[allow(clippy::too_many_arguments)]
pub fn fujiz(
    c: &C3Config,
    sent_bps: f64,
    r_w: f64,
    r_g: f64,
    alpha: f64,
    w: f64,
    marked: bool,
    line: f64,
) -> f64 {
    let prev = sent_bps;
    let r = if marked {
        (1.0 - alpha / 2.0) * prev
    } else if r_w < c.fujiz_threshold.0 as f64 {
        (1.0 + w) * prev.max(c.fujiz_min.0 as f64)
    } else {
        prev + w * c.fujiz_step.0 as f64
    };
    r.clamp(c.fujiz_min.0 as f64, line).max(r_g)
}

/// DS pipe guarantee (spec §5.3.4): the smallest rate G at which EDF meets every active
/// flow's deadline, found by the paper's binary search over [LB, UB].
///
/// `flows` are (remaining bytes, seconds to deadline > 0), any order; rates in bytes/s.
/// LB = (1 + h)·S_e/TD_e of the earliest-deadline flow; UB = Σ S_f/TD_f / (1 − h). The
/// feasibility test serves the flows in deadline order at G·(1 − h) (the paper's
/// "systematically under-utilize the target guarantee in the future timeslot"): feasible iff
/// every flow's cumulative bytes ≤ G·(1 − h)·TD. Returns 0 for no flows.
pub fn ds_guarantee(flows: &mut [(f64, f64)], h: f64) -> f64 {
    if flows.is_empty() {
        return 0.0;
    }
    flows.sort_by(|a, b| a.1.total_cmp(&b.1));
    let feasible = |g: f64| {
        let mut cum = 0.0;
        flows.iter().all(|&(s, td)| {
            cum += s;
            cum <= g * (1.0 - h) * td * (1.0 + 1e-12)
        })
    };
    let lb = (1.0 + h) * flows[0].0 / flows[0].1;
    // UB: at Σ S_f/TD_f every prefix meets its deadline (S_j/TD_j·TD_i ≥ S_j for j ≤ i);
    // the (1 − h) of the test is compensated.
    let ub = flows.iter().map(|&(s, td)| s / td).sum::<f64>() / (1.0 - h);
    if feasible(lb) {
        return lb;
    }
    let (mut lo, mut hi) = (lb, ub.max(lb));
    // 50 halvings: far below any rate resolution that matters.
    for _ in 0..50 {
        let mid = 0.5 * (lo + hi);
        if feasible(mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    hi
}

/// LS pipe guarantee (spec §5.3.4): 2.2 × the average demand, the demand being 2 packets
/// per RTT per flow (IW 2, ≥ 1 ACK per RTT). Bytes/s.
pub fn ls_guarantee(n_flows: usize, mtu: f64, rtt_s: f64) -> f64 {
    2.2 * 2.0 * n_flows as f64 * mtu / rtt_s
}

/// PS pipe guarantee (spec §5.3.4: "minimal value (e.g., 1pkt/2RTT)"). Bytes/s.
pub fn ps_guarantee(mtu: f64, rtt_s: f64) -> f64 {
    mtu / (2.0 * rtt_s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eq1_grows_eq2_cuts_and_floor_is_rg() {
        assert_eq!(eq12(100e6, 10e6, 0.5, 0.5, false, 1e9), 150e6);
        assert_eq!(eq12(100e6, 10e6, 0.5, 0.5, true, 1e9), 75e6);
        // Never below R_G, never above the line.
        assert_eq!(eq12(20e6, 18e6, 1.0, 0.9, true, 1e9), 18e6);
        assert_eq!(eq12(900e6, 0.0, 0.0, 1.0, false, 1e9), 1e9);
    }

    #[test]
    fn additive_steps_by_weight_and_converges_where_eq1_keeps_the_ratio() {
        assert_eq!(additive(100e6, 10e6, 0.5, 0.5, false, 10e6, 1e9), 105e6);
        assert_eq!(additive(100e6, 10e6, 0.5, 0.5, true, 10e6, 1e9), 75e6);
        assert_eq!(additive(20e6, 18e6, 1.0, 0.9, true, 10e6, 1e9), 18e6);
        assert_eq!(additive(995e6, 0.0, 0.0, 1.0, false, 10e6, 1e9), 1e9);
        // Two pipes, w = 1 each, floors far below, on a shared 1 Gb/s: marked whenever the
        // sum exceeds it (α = 0.5). Eq. 1/2 keep their 10 : 1 start ratio; the additive
        // increase brings them together.
        let run = |f: &dyn Fn(f64, bool) -> f64| {
            let (mut a, mut b) = (500e6, 50e6);
            for _ in 0..2000 {
                let m = a + b > 1e9;
                (a, b) = (f(a, m), f(b, m));
            }
            a / b
        };
        let mimd = run(&|r, m| eq12(r, 1e6, 0.5, 1.0, m, 1e9));
        let aimd = run(&|r, m| additive(r, 1e6, 0.5, 1.0, m, 10e6, 1e9));
        assert!(mimd > 5.0, "Eq. 1/2 ratio {mimd}");
        assert!(aimd < 1.2, "additive ratio {aimd}");
    }

    #[test]
    fn fujiz_cuts_from_measured_rate_and_steps_above_threshold() {
        let c = C3Config::default();
        assert_eq!(fujiz(&c, 400e6, 600e6, 0.0, 0.5, 0.3, true, 1e9), 300e6);
        assert_eq!(fujiz(&c, 400e6, 300e6, 0.0, 0.5, 0.5, false, 1e9), 600e6);
        assert_eq!(fujiz(&c, 600e6, 600e6, 0.0, 0.5, 0.5, false, 1e9), 605e6);
        assert_eq!(fujiz(&c, 0.0, 0.0, 0.0, 1.0, 0.5, true, 1e9), 1e6);
    }

    #[test]
    fn ds_search_matches_the_edf_closed_form() {
        // Two flows: 92 KB due in 16 ms, 138 KB due in 20 ms. EDF at rate G·(1−h) meets
        // both iff G ≥ max(92K/16ms, 230K/20ms)/(1−h).
        let h = 0.05;
        let mut f = vec![(138e3, 0.020), (92e3, 0.016)];
        let g = ds_guarantee(&mut f, h);
        let want = (92e3_f64 / 0.016).max(230e3 / 0.020) / (1.0 - h);
        assert!((g - want).abs() < 1e-6 * want, "{g} vs {want}");
        // One flow: the lower bound already holds (1 + h ≥ 1/(1 − h) is false for h > 0,
        // so the search still runs and lands on S/TD/(1 − h)).
        let mut one = vec![(100e3, 0.01)];
        let g1 = ds_guarantee(&mut one, h);
        assert!((g1 - 1e7 / (1.0 - h)).abs() < 1e-3, "{g1}");
        assert_eq!(ds_guarantee(&mut [], h), 0.0);
    }
}
