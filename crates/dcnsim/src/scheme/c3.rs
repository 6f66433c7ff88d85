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
//! The coordinator (C3 §3 "embarrassingly-centralized coordinator", spec §5.3.5) runs in
//! the shim too (`sim::shim`, it needs the routes); its arithmetic is here:
//! [`scale_factors`] (the network-wide per-objective scale factors) and the admission
//! order ([`demote_first`]).
//!
//! Not modelled here: the switch reconfiguration delay and the two-queue variant.

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

impl Objective {
    /// The scenario's spelling (`"ts"` …).
    pub fn name(self) -> &'static str {
        match self {
            Objective::Ts => "ts",
            Objective::Ls => "ls",
            Objective::Ds => "ds",
            Objective::Ps => "ps",
            Objective::Be => "be",
        }
    }
}

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

/// A pipe's initial weighted rate R_w when it starts, i.e. when a flow joins it while it is
/// idle (no active flow, empty queue): a pipe's creation, or its return after an idle
/// stretch (spec §5.3.3 ambiguity: "initial R_w (suggest R_G or line-rate/num pipes)").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum C3Start {
    /// A created pipe starts at R_w = R_G; a pipe returning from idle resumes from the R_w
    /// it had when it went idle (floored at its new R_G).
    #[default]
    Guarantee,
    /// Every start (creation or return from idle) sets R_w = line / n, with line the source
    /// host's link rate and n the host's busy pipes counting this one (busy: an active flow
    /// or queued packets), then R_w ≥ R_G. The host's other pipes keep their R_w.
    Share,
}

/// How the receiver shim's per-interval marked fraction reaches the sender (spec §5.3.2:
/// "delivers this information back to the sender").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum C3Feedback {
    /// Out of band, at the tick itself, never lost (a simplification).
    #[default]
    Instant,
    /// A report packet from the receiving host to the sending host at every tick, through
    /// the fabric (it queues, can be dropped); the rate law runs when it arrives.
    Packet,
}

/// Per-objective weight policy (C3 §3: "the coordinator determines a scale factor for each
/// performance objective"). With the coordinator these are the policy shares π_o from which
/// it computes the factors network-wide ([`scale_factors`]); without it, static factors.
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
    /// A starting pipe's R_w: `guarantee` (R_G) or `share` (line / busy pipes).
    pub start: C3Start,
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
    /// Run the coordinator (spec §5.3.5): admission control and network-wide scale factors.
    /// Off: each shim splits its host's weight by the static `scale` factors.
    pub coordinator: bool,
    /// Coordinator period: it collects every pipe's R_G and raw weight, demotes, and sends
    /// back the scale factors (spec §5.3.5 CHOICE 5–10 ms: 5 ms, one control interval).
    /// A multiple of `interval`.
    pub coordinator_interval: Dur,
    /// `instant` or `packet` (a report packet per pipe per interval, `report_bytes` on the
    /// wire).
    pub feedback: C3Feedback,
    /// Wire size of a report packet (CHOICE: 64 B, a minimum Ethernet frame holding the
    /// outer IP/UDP header, the pipe id and two counters).
    pub report_bytes: Bytes,
    /// Admission control: demote flows to the BE pipe while a link's Σ R_G exceeds its
    /// capacity (spec §5.3.5). Needs `coordinator`; unset = on with the coordinator.
    pub admission: Option<bool>,
}

impl Default for C3Config {
    fn default() -> Self {
        C3Config {
            interval: Dur(5 * MS),
            variant: C3Variant::Paper,
            start: C3Start::Guarantee,
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
            coordinator: true,
            coordinator_interval: Dur(5 * MS),
            admission: None,
            feedback: C3Feedback::Instant,
            report_bytes: Bytes(64),
        }
    }
}

impl C3Config {
    /// Whether the coordinator's admission control runs.
    pub fn admits(&self) -> bool {
        self.coordinator && self.admission.unwrap_or(true)
    }

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
        if self.coordinator_interval.0 == 0
            || !self.coordinator_interval.0.is_multiple_of(self.interval.0)
        {
            // Name the key the user changed: with the coordinator's interval at its default
            // (5 ms, one control interval), that is `interval`.
            let key = if self.coordinator_interval == C3Config::default().coordinator_interval
                && self.interval != C3Config::default().interval
            {
                "interval"
            } else {
                "coordinator_interval"
            };
            return Err((
                key.into(),
                format!(
                    "expected a positive multiple of interval ({} ms), got {} ms (the \
                     coordinator runs at control ticks)",
                    self.interval.secs() * 1e3,
                    self.coordinator_interval.secs() * 1e3
                ),
            ));
        }
        if self.report_bytes.0 < 64 || self.report_bytes.0 > 9000 {
            return Err((
                "report_bytes".into(),
                format!(
                    "expected 64..=9000 bytes (a frame), got {}",
                    self.report_bytes.0
                ),
            ));
        }
        if self.admission == Some(true) && !self.coordinator {
            return Err((
                "admission".into(),
                "admission control is the coordinator's: set coordinator = true, or \
                 admission = false"
                    .into(),
            ));
        }
        if self.variant == C3Variant::Fujiz && self.fujiz_min.0 == 0 {
            return Err(("fujiz_min".into(), "expected a rate > 0".into()));
        }
        super::elasticswitch::check_queue(self.mark_k, self.queue_limit, self.bucket)
    }
}

/// The `share` start of a pipe (spec §5.3.3 ambiguity, its "line-rate/num pipes"): the
/// source host's line rate `line` (bits/s) split equally over its `busy` pipes, this one
/// included (`busy` ≥ 1), floored at R_G.
pub fn share_start(line: f64, busy: usize, r_g: f64) -> f64 {
    (line / busy.max(1) as f64).max(r_g)
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

/// The coordinator's per-objective scale factors (C3 §3: "the coordinator determines a
/// scale factor for each performance objective. The derived weight value of each pipe is
/// multiplied by this scaling factor in the shim layer"; the paper gives no formula).
///
/// CHOICE: the factors make the objectives' network-wide weights follow the policy shares
/// π_o (`scale`): with W_o = Σ of the raw weights of every active pipe of objective o in the
/// network, s_o = (π_o / Σ_{o' : W_o' > 0} π_o') / W_o, so Σ_{p of o} s_o·raw_p is objective
/// o's policy share and Σ_o s_o·W_o = 1. Raw weights are in each objective's own unit (TS and
/// DS: bits/s of guarantee, PS: Σ 1/size, BE: flows), which only such a factor can make
/// comparable. An objective with W_o = 0 (absent, or LS, which has no weight) gets 0.
pub fn scale_factors(policy: &ObjectiveScale, totals: &[f64; N_OBJECTIVES]) -> [f64; N_OBJECTIVES] {
    let present: f64 = ALL
        .iter()
        .filter(|&&o| totals[o as usize] > 0.0)
        .map(|&o| policy.of(o))
        .sum();
    let mut s = [0.0; N_OBJECTIVES];
    for o in ALL {
        let w = totals[o as usize];
        if w > 0.0 {
            s[o as usize] = policy.of(o) / present / w;
        }
    }
    s
}

/// All objectives, in their index order.
pub const ALL: [Objective; N_OBJECTIVES] = [
    Objective::Ts,
    Objective::Ls,
    Objective::Ds,
    Objective::Ps,
    Objective::Be,
];

/// Admission order (spec §5.3.5 CHOICE "most recently arrived first"): of the guaranteed
/// flows crossing an oversubscribed link, given as (start time, flow id), the one to demote
/// first — the latest start, ties to the higher flow id (the later one created).
pub fn demote_first(candidates: impl Iterator<Item = (u64, u32)>) -> Option<u32> {
    candidates.max().map(|(_, f)| f)
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
    fn share_start_splits_the_line_over_busy_pipes_above_the_guarantee() {
        assert_eq!(share_start(1e9, 1, 20e6), 1e9);
        assert_eq!(share_start(1e9, 4, 20e6), 250e6);
        // Never below R_G (a TS pipe whose guarantee exceeds its share).
        assert_eq!(share_start(1e9, 4, 300e6), 300e6);
        assert_eq!(share_start(1e9, 0, 0.0), 1e9);
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
    fn scale_factors_share_the_weight_by_policy() {
        // Two TS pipes (R_G 300 and 100 Mb/s), one PS pipe (Σ 1/size = 1e-5) and two BE
        // pipes of 1 and 3 flows; policy TS 2, the rest 1. Present: TS, PS, BE → Σπ = 4.
        let mut t = [0.0; N_OBJECTIVES];
        t[Objective::Ts as usize] = 400e6;
        t[Objective::Ps as usize] = 1e-5;
        t[Objective::Be as usize] = 4.0;
        let p = ObjectiveScale {
            ts: 2.0,
            ..ObjectiveScale::default()
        };
        let s = scale_factors(&p, &t);
        assert!((s[0] - 0.5 / 400e6).abs() < 1e-20, "{s:?}");
        assert_eq!(s[Objective::Ls as usize], 0.0);
        assert_eq!(s[Objective::Ds as usize], 0.0);
        assert!((s[3] - 0.25 / 1e-5).abs() < 1e-6, "{s:?}");
        assert!((s[4] - 0.0625).abs() < 1e-15, "{s:?}");
        // The 300 Mb/s TS pipe holds 3/8 of the network's weight, the 3-flow BE pipe 3/16.
        assert!((s[0] * 300e6 - 0.375).abs() < 1e-12);
        assert!((s[4] * 3.0 - 0.1875).abs() < 1e-12);
        assert_eq!(
            demote_first([(5, 1), (9, 0), (9, 4), (2, 7)].into_iter()),
            Some(4)
        );
        assert_eq!(demote_first(std::iter::empty()), None);
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
