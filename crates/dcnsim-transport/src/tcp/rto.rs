//! Retransmission-timeout estimation (RFC 6298, a Linux-like variant, or a static value).
//!
//! Integer picoseconds throughout. Invariants: `rto()` is always within
//! `[min(rto_min, static), rto_max]` for the adaptive modes, the backoff exponent only grows
//! on timeouts and is cleared by a valid RTT sample (Linux `tcp_ack_update_rtt`; RFC 6298
//! §5 leaves the reset to the next valid measurement, which Karn's rule (§3) delays until a
//! never-retransmitted segment is acknowledged when timestamps are off).

use super::{RtoMode, TcpConfig};
use dcnsim_engine::Time;

/// SRTT/RTTVAR estimator with exponential backoff.
#[derive(Clone, Debug)]
pub struct RtoEstimator {
    mode: RtoMode,
    rto_min: Time,
    rto_max: Time,
    rto_init: Time,
    g: Time,
    srtt: Option<Time>,
    /// RTTVAR (RFC 6298) or mdev (Linux mode).
    rttvar: Time,
    backoff: u32,
    /// `rto()`, recomputed whenever an input changes (a sample, a timeout): the sender
    /// restarts its timer on every ACK and reads it there.
    cur: Time,
}

impl RtoEstimator {
    pub fn new(cfg: &TcpConfig) -> Self {
        let mut e = RtoEstimator {
            mode: cfg.rto_mode,
            rto_min: cfg.rto_min,
            rto_max: cfg.rto_max.max(cfg.rto_min),
            rto_init: cfg.rto_init,
            g: cfg.clock_granularity,
            srtt: None,
            rttvar: 0,
            backoff: 0,
            cur: 0,
        };
        e.cur = e.compute_rto();
        e
    }

    pub fn srtt(&self) -> Option<Time> {
        self.srtt
    }

    /// RTTVAR (RFC 6298 mode) or mdev (Linux mode).
    pub fn rttvar(&self) -> Time {
        self.rttvar
    }

    /// Number of consecutive backoffs currently applied.
    pub fn backoff(&self) -> u32 {
        self.backoff
    }

    /// Feeds one RTT measurement `r` and clears the backoff.
    pub fn on_sample(&mut self, r: Time) {
        match (self.mode, self.srtt) {
            (RtoMode::Linux, Some(srtt)) => {
                // Linux tcp_rtt_estimator (unscaled): SRTT ← 7/8 SRTT + 1/8 R. mdev moves
                // 1/4 of the way to |err|, except when the RTT *fell* by more than mdev,
                // where Linux damps the update to 1/32 so a sudden RTT drop does not
                // inflate the RTO. (Linux's per-RTT mdev_max peak tracking is not modelled.)
                let err = r as i128 - srtt as i128;
                self.srtt = Some((srtt as i128 + err / 8) as Time);
                let abs = err.unsigned_abs() as Time;
                let m = self.rttvar;
                self.rttvar = if err < 0 && abs > m {
                    m + (abs - m) / 32
                } else {
                    ((3 * m as u128 + abs as u128) / 4) as Time
                };
            }
            (_, Some(srtt)) => {
                // RFC 6298 (2.3): RTTVAR first, using the old SRTT; β = 1/4, α = 1/8.
                let abs = srtt.abs_diff(r);
                self.rttvar = ((3 * self.rttvar as u128 + abs as u128) / 4) as Time;
                self.srtt = Some(((7 * srtt as u128 + r as u128) / 8) as Time);
            }
            (_, None) => {
                // RFC 6298 (2.2): SRTT = R, RTTVAR = R/2 (Linux: mdev = R/2 likewise).
                self.srtt = Some(r);
                self.rttvar = r / 2;
            }
        }
        self.backoff = 0;
        self.cur = self.compute_rto();
    }

    /// The RTO before backoff.
    pub fn base_rto(&self) -> Time {
        match self.mode {
            RtoMode::Static(t) => t,
            RtoMode::Rfc6298 => match self.srtt {
                None => self.rto_init.clamp(self.rto_min, self.rto_max), // RFC 6298 (2.1)
                // RFC 6298 (2.2)/(2.3) with K = 4, then (2.4) floor and (2.5) ceiling.
                Some(s) => s
                    .saturating_add(self.g.max(self.rttvar.saturating_mul(4)))
                    .clamp(self.rto_min, self.rto_max),
            },
            RtoMode::Linux => match self.srtt {
                None => self.rto_init.clamp(self.rto_min, self.rto_max),
                // Linux: RTO = SRTT + rttvar with rttvar = max(4·mdev, rto_min).
                Some(s) => s
                    .saturating_add(self.rttvar.saturating_mul(4).max(self.rto_min))
                    .min(self.rto_max),
            },
        }
    }

    /// The current RTO including backoff (RFC 6298 (5.5)), capped at `rto_max`.
    #[inline]
    pub fn rto(&self) -> Time {
        debug_assert_eq!(self.cur, self.compute_rto());
        self.cur
    }

    fn compute_rto(&self) -> Time {
        let b = self.base_rto();
        match self.mode {
            RtoMode::Static(_) => b,
            _ => {
                if self.backoff >= 63 {
                    self.rto_max
                } else {
                    b.saturating_mul(1u64 << self.backoff).min(self.rto_max)
                }
            }
        }
    }

    /// A retransmission timer expired: RFC 6298 (5.5) "back off the timer" (doubling).
    /// `Static` mode never backs off (a fixed timer, as in TLT Fig. 2).
    pub fn on_timeout(&mut self) {
        if !matches!(self.mode, RtoMode::Static(_)) && self.rto() < self.rto_max {
            self.backoff += 1;
            self.cur = self.compute_rto();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dcnsim_engine::{MS, SEC, US};

    fn est(mode: RtoMode) -> RtoEstimator {
        let cfg = TcpConfig {
            rto_mode: mode,
            rto_min: MS,
            rto_max: 60 * SEC,
            ..Default::default()
        };
        RtoEstimator::new(&cfg)
    }

    #[test]
    fn rfc6298_first_and_later_samples() {
        let mut e = est(RtoMode::Rfc6298);
        assert_eq!(e.rto(), SEC); // (2.1) initial 1 s
        e.on_sample(100 * US);
        // (2.2): SRTT = R, RTTVAR = R/2, RTO = R + 4*R/2 = 3R = 300 us -> floored at 1 ms.
        assert_eq!(e.srtt(), Some(100 * US));
        assert_eq!(e.rttvar(), 50 * US);
        assert_eq!(e.rto(), MS);
        e.on_sample(200 * US);
        // (2.3): RTTVAR = 3/4*50 + 1/4*|100-200| = 62.5 us; SRTT = 7/8*100 + 1/8*200 = 112.5 us
        assert_eq!(e.rttvar(), 62_500_000);
        assert_eq!(e.srtt(), Some(112_500_000));
        // Large RTTs escape the floor: SRTT + 4*RTTVAR.
        let mut e = est(RtoMode::Rfc6298);
        e.on_sample(10 * MS);
        assert_eq!(e.rto(), 30 * MS);
        e.on_sample(10 * MS);
        // RTTVAR = 3/4*5 ms = 3.75 ms; SRTT = 10 ms; RTO = 10 + 15 = 25 ms
        assert_eq!(e.rto(), 25 * MS);
    }

    #[test]
    fn rfc6298_granularity_term() {
        // Constant RTT drives RTTVAR to ~0; then G dominates 4*RTTVAR.
        let cfg = TcpConfig {
            rto_min: 1,
            clock_granularity: 7 * US,
            ..Default::default()
        };
        let mut e = RtoEstimator::new(&cfg);
        for _ in 0..200 {
            e.on_sample(50 * US);
        }
        assert!(e.rttvar() * 4 < 7 * US);
        assert_eq!(e.rto(), 50 * US + 7 * US);
    }

    #[test]
    fn backoff_doubles_and_caps_and_clears_on_sample() {
        let cfg = TcpConfig {
            rto_min: MS,
            rto_max: 5 * MS,
            ..Default::default()
        };
        let mut e = RtoEstimator::new(&cfg);
        e.on_sample(100 * US);
        assert_eq!(e.rto(), MS);
        e.on_timeout();
        assert_eq!(e.rto(), 2 * MS);
        e.on_timeout();
        assert_eq!(e.rto(), 4 * MS);
        e.on_timeout();
        assert_eq!(e.rto(), 5 * MS); // capped
        e.on_timeout();
        assert_eq!(e.rto(), 5 * MS);
        e.on_sample(100 * US);
        assert_eq!(e.rto(), MS);
    }

    #[test]
    fn static_never_backs_off() {
        let mut e = est(RtoMode::Static(160 * US));
        assert_eq!(e.rto(), 160 * US);
        e.on_timeout();
        e.on_timeout();
        assert_eq!(e.rto(), 160 * US);
        e.on_sample(5 * MS);
        assert_eq!(e.rto(), 160 * US);
    }

    #[test]
    fn linux_mode_formula() {
        let mut e = est(RtoMode::Linux);
        e.on_sample(100 * US);
        // SRTT + max(4*mdev, rto_min) = 100 us + max(200 us, 1 ms)
        assert_eq!(e.rto(), 100 * US + MS);
        let mut e = est(RtoMode::Linux);
        e.on_sample(10 * MS); // mdev 5 ms -> RTO = 10 + 20 = 30 ms
        assert_eq!(e.rto(), 30 * MS);
        // A sudden drop moves mdev by only 1/32 of the excess (Linux), not 1/4.
        e.on_sample(2 * MS); // err = -8 ms, |err| 8 > mdev 5 -> mdev = 5 + 3/32 ms
        assert_eq!(e.rttvar(), 5 * MS + 3 * MS / 32);
        assert_eq!(e.srtt(), Some(9 * MS));
    }

    #[test]
    fn cached_rto_follows_samples_and_backoff() {
        // The stored RTO must equal the formula after every input change, in every mode
        // (release builds skip the debug assertion in `rto`).
        for mode in [RtoMode::Rfc6298, RtoMode::Linux, RtoMode::Static(3 * MS)] {
            let mut e = est(mode);
            assert_eq!(e.rto(), e.compute_rto());
            for (i, r) in [100 * US, 5 * MS, 40 * US, 2 * SEC, 900 * US]
                .iter()
                .enumerate()
            {
                e.on_sample(*r);
                assert_eq!(e.rto(), e.compute_rto(), "{mode:?} sample {i}");
                for k in 0..=i {
                    e.on_timeout();
                    assert_eq!(e.rto(), e.compute_rto(), "{mode:?} sample {i} backoff {k}");
                }
            }
            for _ in 0..70 {
                e.on_timeout();
            }
            assert_eq!(e.rto(), e.compute_rto());
        }
    }
}
