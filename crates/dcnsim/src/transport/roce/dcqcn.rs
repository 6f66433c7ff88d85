//! DCQCN (Zhu et al., "Congestion Control for Large-Scale RDMA Deployments", SIGCOMM 2015):
//! the reaction point (RP, the sending NIC's per-QP rate machine) and the notification
//! point's (NP, the receiving NIC's) CNP pacing. The congestion point (CP) is the switch's
//! RED marker (`net::mark`, mechanisms §2.4).
//!
//! Sans-IO and time-explicit: every call takes `now`; the machine owns no timer event, it
//! reports the deadline of its rate-increase timer ([`Dcqcn::deadline`]) and is called back
//! ([`Dcqcn::on_timer`]). The α decay timer ("α ← (1 − g)·α every K without a CNP") is
//! evaluated in closed form when α is read, so it costs no event (with the TLT reference
//! config's K = 1 µs a timer would fire a million times per second per flow).
//!
//! Rates are bits per second (`f64`).

use dcnsim_engine::Time;

/// RP and NP constants (mechanisms §4.9). Presets: [`DcqcnParams::tlt`] (the TLT RoCE
/// reference config, HPCC-simulator semantics) and [`DcqcnParams::paper`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DcqcnParams {
    /// NP: at most one CNP per flow per this interval (DCQCN §3.2, N = 50 µs).
    pub cnp_interval: Time,
    /// α EWMA gain g (DCQCN §3.3 Eq. 1; TLT config `EWMA_GAIN 0.00390625`).
    pub g: f64,
    /// α at the QP's start (DCQCN §3.3: 1).
    pub alpha_init: f64,
    /// K: α decays once per K without a CNP (DCQCN §3.3 Eq. 2; `ALPHA_RESUME_INTERVAL`).
    pub alpha_interval: Time,
    /// At most one rate decrease per this interval (`RATE_DECREASE_INTERVAL`; 0: every CNP).
    pub rate_decrease_interval: Time,
    /// T: the rate-increase timer period (DCQCN §3.3; `RP_TIMER`).
    pub timer: Time,
    /// B: bytes sent per byte-counter increase event (DCQCN §3.3).
    pub byte_counter: u64,
    /// F: increase events of fast recovery (DCQCN §3.3; `FAST_RECOVERY_TIMES`).
    pub fast_recovery: u32,
    /// R_AI, R_HAI (bits/s): additive and hyper increase steps of the target rate.
    pub rate_ai: f64,
    pub rate_hai: f64,
    /// Floor of the current rate (`MIN_RATE`).
    pub min_rate: f64,
    /// Always R_T ← R_C on a decrease (the paper); false: only if an increase event happened
    /// since the last decrease (HPCC simulator `CLAMP_TARGET_RATE 0`).
    pub clamp_target_rate: bool,
}

const US: Time = dcnsim_engine::US;

impl DcqcnParams {
    /// The TLT RoCE reference config (`kaist-ina/ns3-tlt-rdma-public/config/config.txt`,
    /// mechanisms §4.9), with the HPCC simulator's semantics: its NP echoes every CE mark
    /// (no NP interval: CNP interval 0) and the RP cuts at most once per
    /// `RATE_DECREASE_INTERVAL`. Not in that config: the byte counter (the DCQCN paper's
    /// 10 MB).
    pub fn tlt() -> Self {
        DcqcnParams {
            cnp_interval: 0,
            g: 1.0 / 256.0,
            alpha_init: 1.0,
            alpha_interval: US,
            rate_decrease_interval: 4 * US,
            timer: 900 * US,
            byte_counter: 10_000_000,
            fast_recovery: 1,
            rate_ai: 50e6,
            rate_hai: 100e6,
            min_rate: 100e6,
            clamp_target_rate: false,
        }
    }
    /// The DCQCN paper's constants (Zhu et al. 2015 §3.2–§3.3, §5: N = 50 µs, K = 55 µs,
    /// T = 55 µs, B = 10 MB, F = 5, g = 1/256, R_AI = 40 Mb/s); R_HAI (200 Mb/s) from the
    /// authors' ns3-rdma config (mechanisms §4.9).
    pub fn paper() -> Self {
        DcqcnParams {
            cnp_interval: 50 * US,
            g: 1.0 / 256.0,
            alpha_init: 1.0,
            alpha_interval: 55 * US,
            rate_decrease_interval: 0,
            timer: 55 * US,
            byte_counter: 10_000_000,
            fast_recovery: 5,
            rate_ai: 40e6,
            rate_hai: 200e6,
            min_rate: 100e6,
            clamp_target_rate: true,
        }
    }
}

/// Which increase a rate-increase event applied (for tests and traces).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Increase {
    FastRecovery,
    Additive,
    Hyper,
}

/// The RP rate machine of one QP.
#[derive(Clone, Debug)]
pub struct Dcqcn {
    p: DcqcnParams,
    line: f64,
    /// Current rate R_C and target rate R_T.
    rc: f64,
    rt: f64,
    /// α as of `alpha_at` (decays lazily from there).
    alpha: f64,
    alpha_at: Time,
    /// Last rate decrease (None: none yet).
    last_decrease: Option<Time>,
    /// Increase events since the last decrease, by the timer and by the byte counter.
    t_stage: u32,
    bc_stage: u32,
    /// Bytes sent since the last byte-counter event.
    bytes: u64,
    /// The rate-increase timer's next expiry (None: off: at line rate, or no CNP yet).
    next_inc: Option<Time>,
}

impl Dcqcn {
    /// A QP starting at `line` bits/s (DCQCN §3.3: a flow starts at line rate).
    pub fn new(p: DcqcnParams, line: f64, now: Time) -> Self {
        Dcqcn {
            p,
            line,
            rc: line,
            rt: line,
            alpha: p.alpha_init,
            alpha_at: now,
            last_decrease: None,
            t_stage: 0,
            bc_stage: 0,
            bytes: 0,
            next_inc: None,
        }
    }
    /// R_C (bits/s): the rate the pacer uses.
    #[inline]
    pub fn rate(&self) -> f64 {
        self.rc
    }
    pub fn target(&self) -> f64 {
        self.rt
    }
    /// α at `now`: DCQCN §3.3 Eq. 2, α ← (1 − g)·α once per K elapsed without a CNP.
    pub fn alpha(&self, now: Time) -> f64 {
        let k = self.p.alpha_interval.max(1);
        // Capped: (1 − g)^(2^20) is 0 for any g the keys allow.
        let n = (now.saturating_sub(self.alpha_at) / k).min(1 << 20) as i32;
        self.alpha * (1.0 - self.p.g).powi(n)
    }

    /// A CNP arrived (DCQCN §3.3 Eq. 1).
    pub fn on_cnp(&mut self, now: Time) {
        // Eq. 2 up to now, then restart the α timer at this CNP.
        let a = self.alpha(now);
        let k = self.p.alpha_interval.max(1);
        let elapsed = now.saturating_sub(self.alpha_at) / k * k;
        self.alpha_at += elapsed;
        // RATE_DECREASE_INTERVAL: at most one decrease per interval (HPCC simulator).
        let may_cut = match self.last_decrease {
            Some(t) => now >= t.saturating_add(self.p.rate_decrease_interval),
            None => true,
        };
        if may_cut {
            // Eq. 1: R_T ← R_C (always in the paper; with CLAMP_TARGET_RATE 0 only after an
            // increase event), R_C ← R_C·(1 − α/2), floored at MIN_RATE.
            if self.p.clamp_target_rate
                || self.last_decrease.is_none()
                || self.t_stage > 0
                || self.bc_stage > 0
            {
                self.rt = self.rc;
            }
            self.rc = (self.rc * (1.0 - a / 2.0)).max(self.p.min_rate);
            self.last_decrease = Some(now);
            // §3.3: a decrease resets the timer and the byte counter (and their stages).
            self.t_stage = 0;
            self.bc_stage = 0;
            self.bytes = 0;
            self.next_inc = Some(now.saturating_add(self.p.timer));
        }
        // Eq. 1: α ← (1 − g)·α + g, and the α timer restarts.
        self.alpha = (1.0 - self.p.g) * a + self.p.g;
        self.alpha_at = now;
    }

    /// `bytes` were sent (the byte counter, DCQCN §3.3).
    #[inline]
    pub fn on_sent(&mut self, bytes: u64) -> Option<Increase> {
        if self.next_inc.is_none() || self.p.byte_counter == 0 {
            return None;
        }
        self.bytes += bytes;
        if self.bytes < self.p.byte_counter {
            return None;
        }
        self.bytes -= self.p.byte_counter;
        self.bc_stage += 1;
        Some(self.increase())
    }

    /// The rate-increase timer's deadline.
    #[inline]
    pub fn deadline(&self) -> Option<Time> {
        self.next_inc
    }

    /// The rate-increase timer fired (act only if due).
    pub fn on_timer(&mut self, now: Time) -> Option<Increase> {
        let t = self.next_inc?;
        if now < t {
            return None;
        }
        self.t_stage += 1;
        self.next_inc = Some(t.saturating_add(self.p.timer));
        Some(self.increase())
    }

    /// One increase event (DCQCN §3.3, Fig. 6): fast recovery while both counters are within
    /// their first F events, hyper increase once both are past F, additive otherwise.
    fn increase(&mut self) -> Increase {
        let f = self.p.fast_recovery;
        let kind = if self.t_stage.max(self.bc_stage) <= f {
            Increase::FastRecovery
        } else if self.t_stage.min(self.bc_stage) > f {
            Increase::Hyper
        } else {
            Increase::Additive
        };
        match kind {
            // Eq. 3: R_C ← (R_T + R_C)/2.
            Increase::FastRecovery => {}
            // Eq. 4: R_T ← R_T + R_AI.
            Increase::Additive => self.rt = (self.rt + self.p.rate_ai).min(self.line),
            // Hyper increase: R_T ← R_T + R_HAI (mechanisms §4.9).
            Increase::Hyper => self.rt = (self.rt + self.p.rate_hai).min(self.line),
        }
        self.rc = ((self.rt + self.rc) / 2.0).min(self.line);
        // Back at line rate: nothing left to recover; the timer stops until the next CNP.
        if self.rc >= self.line * (1.0 - 1e-9) {
            self.rc = self.line;
            self.rt = self.line;
            self.next_inc = None;
        }
        kind
    }
}

/// The NP side (DCQCN §3.2): a CE-marked packet triggers a CNP unless one was sent for the
/// flow within the last `cnp_interval`.
#[derive(Clone, Copy, Debug, Default)]
pub struct CnpPacer {
    last: Option<Time>,
}

impl CnpPacer {
    /// A CE-marked packet arrived at `now`: whether to send a CNP.
    #[inline]
    pub fn on_ce(&mut self, now: Time, interval: Time) -> bool {
        if self.last.is_some_and(|t| now < t.saturating_add(interval)) {
            return false;
        }
        self.last = Some(now);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINE: f64 = 40e9;

    fn params() -> DcqcnParams {
        DcqcnParams::paper()
    }

    #[test]
    fn one_cnp_cuts_by_alpha_half_then_fast_recovery_follows_the_textbook_trace() {
        let p = params();
        let mut d = Dcqcn::new(p, LINE, 0);
        // α = 1 at the start: the first CNP halves the rate, and R_T keeps the old rate.
        let t0 = 10 * US;
        let a0 = d.alpha(t0);
        assert_eq!(a0, 1.0);
        d.on_cnp(t0);
        let (mut rc, rt) = (LINE * (1.0 - a0 / 2.0), LINE);
        assert_eq!(d.rate(), rc);
        assert_eq!(d.target(), rt);
        assert_eq!(d.alpha(t0), (1.0 - p.g) * a0 + p.g);
        // Timer events every T: F fast-recovery steps R_C ← (R_T + R_C)/2 with R_T fixed.
        let mut t = t0;
        for i in 1..=p.fast_recovery {
            t += p.timer;
            assert_eq!(d.deadline(), Some(t));
            assert_eq!(d.on_timer(t), Some(Increase::FastRecovery), "event {i}");
            rc = (rt + rc) / 2.0;
            assert_eq!(d.rate(), rc, "event {i}");
            assert_eq!(d.target(), rt);
        }
        // After F = 5 halvings of the gap the rate is within 1/2^6 of the old rate.
        assert!((LINE - d.rate()) / LINE <= 1.0 / 64.0 + 1e-12);
        // Then additive increase (the byte counter has not reached F): R_T + R_AI (capped
        // at line rate), R_C halfway to it.
        t += p.timer;
        assert_eq!(d.on_timer(t), Some(Increase::Additive));
        let rt2 = (rt + p.rate_ai).min(LINE);
        assert_eq!(d.rate(), (rt2 + rc) / 2.0);
        // Not due yet: nothing happens.
        assert_eq!(d.on_timer(t + p.timer - 1), None);
    }

    #[test]
    fn the_cut_uses_the_decayed_alpha_and_alpha_decays_per_interval() {
        let mut p = params();
        p.alpha_init = 0.5;
        let mut d = Dcqcn::new(p, LINE, 0);
        // Three whole K intervals without a CNP: α ← (1 − g)^3 · α (Eq. 2).
        let now = 3 * p.alpha_interval + p.alpha_interval / 2;
        let a = 0.5 * (1.0 - p.g).powi(3);
        assert!((d.alpha(now) - a).abs() < 1e-15);
        d.on_cnp(now);
        assert!((d.rate() - LINE * (1.0 - a / 2.0)).abs() < 1e-3);
        assert!((d.alpha(now) - ((1.0 - p.g) * a + p.g)).abs() < 1e-15);
        // The α timer restarts at the CNP.
        let a1 = d.alpha(now);
        assert_eq!(d.alpha(now + p.alpha_interval - 1), a1);
        assert!((d.alpha(now + p.alpha_interval) - a1 * (1.0 - p.g)).abs() < 1e-15);
    }

    #[test]
    fn byte_counter_and_timer_together_reach_hyper_increase_and_line_rate() {
        let mut p = params();
        p.byte_counter = 1_000_000;
        let mut d = Dcqcn::new(p, LINE, 0);
        d.on_cnp(0);
        d.on_cnp(p.rate_decrease_interval + 1);
        let mut kinds = Vec::new();
        let mut t = d.deadline().unwrap();
        while d.deadline().is_some() {
            kinds.extend(d.on_timer(t));
            kinds.extend(d.on_sent(p.byte_counter));
            t += p.timer;
        }
        assert!(kinds.contains(&Increase::FastRecovery));
        assert!(kinds.contains(&Increase::Hyper));
        assert_eq!(d.rate(), LINE);
    }

    #[test]
    fn rate_decrease_interval_limits_cuts_and_min_rate_floors() {
        let mut p = DcqcnParams::tlt();
        p.min_rate = 1e9;
        let mut d = Dcqcn::new(p, LINE, 0);
        d.on_cnp(0);
        let r = d.rate();
        d.on_cnp(p.rate_decrease_interval - 1); // within the interval: α only
        assert_eq!(d.rate(), r);
        for i in 1..100 {
            d.on_cnp(i * p.rate_decrease_interval);
        }
        assert_eq!(d.rate(), 1e9);
    }

    #[test]
    fn np_sends_at_most_one_cnp_per_interval() {
        let mut c = CnpPacer::default();
        let n = 50 * US;
        assert!(c.on_ce(0, n));
        assert!(!c.on_ce(n - 1, n));
        assert!(c.on_ce(n, n));
    }
}
