//! REFLEX (Kassing et al., "New primitives for bounded degradation in network service";
//! mechanisms spec §5.2): flexible flows that accept a bounded share of their max-min fair
//! rate (aggressiveness α) and a bounded loss of their data (reliability r).
//!
//! The sender of a flexible flow runs a control loop on a global synchronized clock
//! (spec §3: a perfect clock; the clock error of the spec's register is 0 here): time is
//! cut into intervals of `t_int`; intervals form cycles of `warmup : measure : exploit`
//! intervals (1:1:3). At every interval boundary the sender calls UPDATE (Algorithm 2) with
//! the bytes newly acknowledged during the interval that ended; UPDATE adjusts the budgets
//! (Algorithm 1), estimates the fair share in measure intervals and decides whether the
//! flow's packets go at HIGH or LOW priority for the coming interval, or that the flow may
//! finish early (partial delivery, §5.2.6).
//!
//! This file holds only the algorithm: [`Reflex`] (Algorithms 1 and 2, plain numbers) and
//! [`ReflexClock`] (interval boundaries on the simulator's clock, bytes acknowledged per
//! interval). Neither knows packets, ports or the event loop; the TCP-family endpoint
//! (`transport/tcp.rs`) drives a [`ReflexClock`] through its `Aux` timer slot and its ACK
//! path, and tags its data packets with the decision. The scheme itself acts on no switch:
//! `[scheme] kind = "reflex"` carries the cycle parameters; flows opt in per class or per
//! flow with `alpha` / `reliability`.

use super::Scheme;
use crate::units::Dur;
use dcnsim_engine::{Time, MS};
use serde::{Deserialize, Serialize};

/// `[scheme] kind = "reflex"` (REFLEX §3.2 / spec §5.2.3).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ReflexConfig {
    /// Control interval T_int (spec §5.2.3: 5 ms).
    pub interval: Dur,
    /// Intervals per cycle in each phase (spec §5.2.3: 1 : 1 : 3).
    pub warmup: u32,
    pub measure: u32,
    pub exploit: u32,
    /// Queue of a flexible flow's data packets in a LOW interval (HIGH is the flow's own
    /// class priority).
    pub low_priority: u8,
}

impl Default for ReflexConfig {
    fn default() -> Self {
        ReflexConfig {
            interval: Dur(5 * MS),
            warmup: 1,
            measure: 1,
            exploit: 3,
            low_priority: 1,
        }
    }
}

impl ReflexConfig {
    /// Errors are (key under `scheme`, message).
    pub fn check(&self, host_queues: u8, switch_queues: u8) -> Result<(), (String, String)> {
        if self.interval.0 == 0 {
            return Err(("interval".into(), "expected a duration > 0".into()));
        }
        if self.measure == 0 {
            return Err((
                "measure".into(),
                "expected at least 1 interval (the fair share is measured there)".into(),
            ));
        }
        let total = self.warmup as u64 + self.measure as u64 + self.exploit as u64;
        if total > 1_000_000 {
            // The largest term names the key (the one most likely written too big).
            let (key, _) = [
                ("warmup", self.warmup),
                ("measure", self.measure),
                ("exploit", self.exploit),
            ]
            .into_iter()
            .fold(("exploit", 0), |a, b| if b.1 > a.1 { b } else { a });
            return Err((
                key.into(),
                format!("expected warmup + measure + exploit <= 1000000, got {total}"),
            ));
        }
        let nq = host_queues.min(switch_queues).max(1);
        if self.low_priority >= nq {
            return Err((
                "low_priority".into(),
                format!(
                    "expected a queue index below {nq} (host.queues = {host_queues}, \
                     switch.queues = {switch_queues}), got {}",
                    self.low_priority
                ),
            ));
        }
        Ok(())
    }
}

/// The scheme value: REFLEX acts in the senders (see the module doc), not in switches.
pub struct ReflexScheme;

impl Scheme for ReflexScheme {}

/// Phase of an interval (spec §5.2.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Warmup,
    Measure,
    Exploit,
}

/// The cycle: phase lengths in intervals and the interval length in seconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cycle {
    pub warmup: u32,
    pub measure: u32,
    pub exploit: u32,
    /// T_int in seconds.
    pub t_int: f64,
}

impl Cycle {
    /// DETERMINE_PHASE (spec §5.2.3): m = k mod D; WARMUP if m < D_warmup, MEASURE if
    /// m < D_warmup + D_measure, else EXPLOIT.
    pub fn phase(&self, id_int: u64) -> Phase {
        let d = self.warmup as u64 + self.measure as u64 + self.exploit as u64;
        let m = id_int % d.max(1);
        if m < self.warmup as u64 {
            Phase::Warmup
        } else if m < self.warmup as u64 + self.measure as u64 {
            Phase::Measure
        } else {
            Phase::Exploit
        }
    }
}

/// UPDATE's answer for the coming interval.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    High,
    Low,
    /// S_sent ≥ F: the flow may finish (partial delivery); the rest is discarded.
    Finished,
}

/// Algorithms 1 and 2 of REFLEX for one flow (spec §5.2.4–5.2.5), in bytes and seconds.
#[derive(Clone, Debug)]
pub struct Reflex {
    pub alpha: f64,
    pub cycle: Cycle,
    /// Flow size F (∞ when r = 1: the flow ends by ordinary completion).
    pub f: f64,
    pub s_sent: f64,
    pub b_alpha: f64,
    pub b_r: f64,
    pub r_fair: Option<f64>,
    pub p_prev: Option<Phase>,
    pub sync: bool,
    pub d_probe: f64,
    pub t_probe: f64,
    pub exploit_low: bool,
}

impl Reflex {
    /// A flexible flow of `size` bytes with aggressiveness `alpha` (finite) and reliability
    /// `r` in [0, 1].
    pub fn new(alpha: f64, r: f64, size: u64, cycle: Cycle) -> Self {
        // Alg. 1 state: F known only when r < 1; B_r = (1 − r)·F.
        let f = if r < 1.0 { size as f64 } else { f64::INFINITY };
        let b_r = if r < 1.0 {
            (1.0 - r) * size as f64
        } else {
            0.0
        };
        Reflex {
            alpha,
            cycle,
            f,
            s_sent: 0.0,
            b_alpha: 0.0,
            b_r,
            r_fair: None,
            p_prev: None,
            sync: false,
            d_probe: 0.0,
            t_probe: 0.0,
            exploit_low: false,
        }
    }

    /// Algorithm 1, ADJUST_BUDGET (requires R_fair).
    pub fn adjust_budget(&mut self, ack_bytes: f64, t_elapsed: f64) {
        let r_fair = self
            .r_fair
            .expect("ADJUST_BUDGET runs once R_fair is known");
        // Alg. 1 l.2: R_actual = ACK_byte / T_elapsed.
        let r_actual = if t_elapsed > 0.0 {
            ack_bytes / t_elapsed
        } else {
            0.0
        };
        // Alg. 1 l.3: acknowledged bytes count as sent.
        self.s_sent += ack_bytes;
        // Alg. 1 l.4: B_α grows while the flow gets more than α·R_fair, shrinks otherwise.
        self.b_alpha -= t_elapsed * (self.alpha * r_fair - r_actual);
        // Alg. 1 l.5–11: a deficit in B_α is paid from B_r (B_α first, then B_r).
        if self.b_alpha < 0.0 {
            let b_r_before = self.b_r;
            self.b_r += self.b_alpha;
            if self.b_r >= 0.0 {
                self.b_alpha = 0.0;
            } else {
                // B_r exhausted: the rest of the deficit stays in B_α (it may be negative,
                // which keeps the flow HIGH until it has earned it back).
                self.b_alpha = self.b_r;
                self.b_r = 0.0;
            }
            // Alg. 1 l.12: drained reliability budget counts as sent (that data is dropped).
            self.s_sent += b_r_before - self.b_r;
        }
    }

    /// Algorithm 2, UPDATE: called at the start of interval `id_int` with the bytes newly
    /// acknowledged during the interval that just ended and its length (seconds).
    pub fn update(&mut self, id_int: u64, ack_bytes: f64, t_elapsed: f64) -> Decision {
        // Alg. 2 l.2: budgets move in every phase once R_fair is known.
        if self.r_fair.is_some() {
            self.adjust_budget(ack_bytes, t_elapsed);
        }
        // Alg. 2 l.3: early finish thanks to reduced reliability (F = ∞ when r = 1).
        if self.s_sent >= self.f {
            return Decision::Finished;
        }
        // Alg. 2 l.5–7: the interval that ended was a measure interval of a synced flow.
        if self.p_prev == Some(Phase::Measure) && self.sync {
            self.d_probe += ack_bytes;
            self.t_probe += t_elapsed;
        }
        // Alg. 2 l.8: DETERMINE_PHASE of the coming interval.
        let upcoming = self.cycle.phase(id_int);
        // Alg. 2 l.9–11: a cycle boundary; a new flow joins here (SYNC) and the exploit
        // decision of the last cycle ends.
        if self.p_prev == Some(Phase::Exploit) && upcoming == Phase::Warmup {
            self.sync = true;
            self.exploit_low = false;
        }
        let measure_to_exploit = self.p_prev == Some(Phase::Measure) && upcoming == Phase::Exploit;
        // Alg. 2 l.12–16: the fair share is what the flow got at HIGH in the measure phase.
        if measure_to_exploit && self.sync && self.t_probe > 0.0 {
            self.r_fair = Some(self.d_probe / self.t_probe);
            self.d_probe = 0.0;
            self.t_probe = 0.0;
        }
        // Alg. 2 l.17–20: go LOW for the exploit phase only if the budget covers the
        // potential loss of a whole LOW exploit phase, L = α·R_fair·D_exploit·T_int.
        if measure_to_exploit {
            if let Some(r_fair) = self.r_fair {
                let l_potential =
                    self.alpha * r_fair * self.cycle.exploit as f64 * self.cycle.t_int;
                // Alg. 2 l.23 (B_a ≡ B_α).
                self.exploit_low = self.b_alpha + self.b_r > l_potential;
            }
        }
        // Alg. 2 l.24–25.
        self.p_prev = Some(upcoming);
        if self.exploit_low {
            Decision::Low
        } else {
            Decision::High
        }
    }
}

/// [`Reflex`] on the simulator's clock: interval boundaries at multiples of `t_int` (the
/// global synchronized clock), bytes acknowledged since the last boundary, the current
/// decision. Boundaries are processed lazily (at the `Aux` timer and before every ACK is
/// counted), so an ACK arriving exactly at a boundary counts toward the next interval.
#[derive(Clone, Debug)]
pub struct ReflexClock {
    pub alg: Reflex,
    t_int: Time,
    /// The next interval boundary.
    next: Time,
    /// The previous UPDATE (or the flow's start).
    last: Time,
    /// Bytes newly acknowledged since `last`.
    acked: u64,
    /// The current interval goes at LOW priority.
    pub low: bool,
    pub finished: bool,
    /// Intervals the flow spent at LOW, and UPDATE calls.
    pub low_intervals: u64,
    pub intervals: u64,
}

impl ReflexClock {
    pub fn new(alg: Reflex, t_int: Time, start: Time) -> Self {
        let t_int = t_int.max(1);
        ReflexClock {
            alg,
            t_int,
            next: (start / t_int + 1) * t_int,
            last: start,
            acked: 0,
            low: false,
            finished: false,
            low_intervals: 0,
            intervals: 0,
        }
    }

    /// The next interval boundary (the `Aux` timer's deadline).
    #[inline]
    pub fn deadline(&self) -> Option<Time> {
        (!self.finished).then_some(self.next)
    }

    /// Runs UPDATE at every boundary up to `now`; true if the flow finished.
    pub fn advance(&mut self, now: Time) -> bool {
        while !self.finished && self.next <= now {
            let id_int = self.next / self.t_int;
            let elapsed = (self.next - self.last) as f64 / 1e12;
            let d = self.alg.update(id_int, self.acked as f64, elapsed);
            self.acked = 0;
            self.last = self.next;
            self.next += self.t_int;
            self.intervals += 1;
            match d {
                Decision::Finished => self.finished = true,
                Decision::Low => {
                    self.low = true;
                    self.low_intervals += 1;
                }
                Decision::High => self.low = false,
            }
        }
        self.finished
    }

    /// `bytes` were newly acknowledged (call after [`ReflexClock::advance`]).
    #[inline]
    pub fn on_acked(&mut self, bytes: u64) {
        self.acked += bytes;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const C: Cycle = Cycle {
        warmup: 1,
        measure: 1,
        exploit: 3,
        t_int: 0.005,
    };
    /// 10 Gbit/s in bytes per second, and one interval's worth of bytes at that rate.
    const LINE: f64 = 1.25e9;

    /// Drives UPDATE from interval `from` for `n` intervals at `rate(k, low)` bytes/s.
    fn drive(
        x: &mut Reflex,
        from: u64,
        n: u64,
        mut rate: impl FnMut(u64, bool) -> f64,
    ) -> Vec<Decision> {
        let mut low = false;
        let mut out = Vec::new();
        for k in from..from + n {
            // Interval k - 1 just ended; UPDATE decides interval k.
            let acked = rate(k - 1, low) * C.t_int;
            let d = x.update(k, acked, C.t_int);
            low = d == Decision::Low;
            out.push(d);
        }
        out
    }

    #[test]
    fn a_cycle_too_long_names_its_largest_phase() {
        for (key, cfg) in [
            (
                "warmup",
                ReflexConfig {
                    warmup: 4_294_967_290,
                    ..Default::default()
                },
            ),
            (
                "measure",
                ReflexConfig {
                    measure: 2_000_000,
                    ..Default::default()
                },
            ),
            (
                "exploit",
                ReflexConfig {
                    exploit: 999_999,
                    ..Default::default()
                },
            ),
        ] {
            let (k, m) = cfg.check(2, 2).unwrap_err();
            assert_eq!(k, key, "{m}");
            assert!(
                m.starts_with("expected warmup + measure + exploit <= 1000000"),
                "{m}"
            );
        }
        assert!(ReflexConfig {
            exploit: 999_998,
            ..Default::default()
        }
        .check(2, 2)
        .is_ok());
    }

    #[test]
    fn phases_follow_the_cycle() {
        let p: Vec<Phase> = (0..6).map(|k| C.phase(k)).collect();
        use Phase::*;
        assert_eq!(p, [Warmup, Measure, Exploit, Exploit, Exploit, Warmup]);
    }

    #[test]
    fn new_flow_waits_for_the_next_cycle() {
        // Starting in the middle of a cycle (interval 2 = exploit): no sync, no R_fair and
        // no budget until the EXPLOIT→WARMUP boundary at interval 5 and the measure
        // interval 6 that follows.
        let mut x = Reflex::new(0.5, 1.0, 0, C);
        drive(&mut x, 3, 2, |_, _| LINE);
        assert!(!x.sync && x.r_fair.is_none() && x.b_alpha == 0.0);
        drive(&mut x, 5, 1, |_, _| LINE); // boundary into interval 5 (warmup): sync
        assert!(x.sync && x.r_fair.is_none());
        drive(&mut x, 6, 2, |_, _| LINE); // measure interval 6 ends at the start of 7
        assert_eq!(x.r_fair, Some(LINE));
        assert_eq!(x.b_alpha, 0.0, "no budget before the fair share is known");
    }

    #[test]
    fn budget_grows_at_one_minus_alpha_of_fair_share_at_high() {
        let alpha = 0.9;
        let mut x = Reflex::new(alpha, 1.0, 0, C);
        drive(&mut x, 1, 7, |_, _| LINE); // sync at 5, R_fair at 7
        let before = x.b_alpha;
        let ds = drive(&mut x, 8, 20, |_, _| LINE);
        let expect = (1.0 - alpha) * LINE * 20.0 * C.t_int;
        assert!((x.b_alpha - before - expect).abs() < 1e-6 * expect);
        // (1 − α)·R_fair per interval is far below L = α·R_fair·3·T_int: HIGH throughout.
        assert!(ds.iter().all(|d| *d == Decision::High));
    }

    #[test]
    fn low_only_in_exploit_and_only_with_enough_budget() {
        let alpha = 0.5;
        let mut x = Reflex::new(alpha, 1.0, 0, C);
        // At HIGH the flow gets LINE; at LOW a tenth of it.
        let rate = |_k: u64, low: bool| if low { LINE / 10.0 } else { LINE };
        let l = alpha * LINE * 3.0 * C.t_int;
        let mut low_seen = false;
        let mut low = false;
        for k in 1..400u64 {
            let decision_point = x.p_prev == Some(Phase::Measure) && C.phase(k) == Phase::Exploit;
            let acked = rate(k - 1, low) * C.t_int;
            let d = x.update(k, acked, C.t_int);
            low = d == Decision::Low;
            if low {
                low_seen = true;
                assert_eq!(C.phase(k), Phase::Exploit, "LOW outside exploit at {k}");
            }
            if decision_point && x.r_fair.is_some() {
                // The decision uses the budget after this interval's adjustment.
                assert_eq!(low, x.b_alpha + x.b_r > l, "decision at {k}");
            }
        }
        assert!(low_seen, "enough budget accumulates to go LOW");
    }

    #[test]
    fn reliability_budget_drains_only_after_alpha_budget() {
        let alpha = 1.0;
        let size = 1e9 as u64;
        let mut x = Reflex::new(alpha, 0.5, size, C);
        assert_eq!(x.b_r, 0.5e9);
        x.r_fair = Some(LINE);
        // Earn some B_α by getting more than α·R_fair... impossible at α = 1 and R = R_fair;
        // give it a head start instead.
        x.b_alpha = 1e6;
        // Get half the fair share for one interval: deficit = 0.5·LINE·T_int = 3.125 MB.
        x.adjust_budget(0.5 * LINE * C.t_int, C.t_int);
        let deficit = 0.5 * LINE * C.t_int;
        assert_eq!(x.b_alpha, 0.0, "B_α is exhausted first");
        assert!((x.b_r - (0.5e9 - (deficit - 1e6))).abs() < 1e-3);
        // S_sent counts the acknowledged bytes and the drained B_r.
        assert!((x.s_sent - (0.5 * LINE * C.t_int + deficit - 1e6)).abs() < 1e-3);
        // With B_α positive, B_r is untouched.
        let mut y = Reflex::new(alpha, 0.5, size, C);
        y.r_fair = Some(LINE);
        y.b_alpha = 1e8;
        y.adjust_budget(0.5 * LINE * C.t_int, C.t_int);
        assert_eq!(y.b_r, 0.5e9);
        assert!((y.b_alpha - (1e8 - deficit)).abs() < 1e-3);
    }

    #[test]
    fn reliability_exhausted_leaves_negative_alpha_and_finish_at_f() {
        let mut x = Reflex::new(1.0, 0.9, 10_000_000, C);
        x.r_fair = Some(LINE);
        // Nothing acknowledged for an interval: deficit 6.25 MB > B_r = 1 MB.
        x.adjust_budget(0.0, C.t_int);
        assert_eq!(x.b_r, 0.0);
        assert!((x.b_alpha - (1e6 - LINE * C.t_int)).abs() < 1e-3);
        assert!((x.s_sent - 1e6).abs() < 1e-6);
        // Acknowledging the other 9 MB reaches S_sent = F: FINISHED.
        let mut y = Reflex::new(1.0, 0.9, 10_000_000, C);
        y.r_fair = Some(LINE);
        y.s_sent = 9e6 - 1.0;
        y.b_alpha = 0.0;
        assert_eq!(
            y.update(1, 1.0 + LINE * C.t_int, C.t_int),
            Decision::Finished
        );
        // A reliable flow (r = 1) never finishes through REFLEX.
        let mut z = Reflex::new(1.0, 1.0, 10, C);
        z.r_fair = Some(LINE);
        assert_ne!(z.update(1, 1e12, C.t_int), Decision::Finished);
    }

    #[test]
    fn clock_processes_boundaries_lazily_and_exactly() {
        let t = 5 * MS;
        let alg = Reflex::new(0.5, 1.0, 0, C);
        let mut c = ReflexClock::new(alg, t, 2 * t + 1);
        assert_eq!(c.deadline(), Some(3 * t));
        c.on_acked(100);
        assert!(!c.advance(3 * t - 1));
        assert_eq!(c.intervals, 0);
        c.advance(10 * t);
        assert_eq!(c.intervals, 8, "boundaries 3t..=10t");
        assert_eq!(c.deadline(), Some(11 * t));
        assert!(c.alg.sync);
    }
}
