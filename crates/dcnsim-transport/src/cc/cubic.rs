//! CUBIC (RFC 9438).
//!
//! Window in segments, time in seconds, all in f64 inside this file only. A congestion
//! avoidance *epoch* starts at the first ACK in congestion avoidance after a reduction; from
//! then on the target window is `W_cubic(t) = C·(t − K)³ + W_max` (RFC 9438 §4.2, eq. 1).
//!
//! Choices (documented per RFC 9438 latitude):
//! - Multiplicative decrease uses `cwnd` (Linux), not FlightSize: ssthresh = max(β·cwnd,
//!   2·SMSS) (§4.6 allows either).
//! - Slow start is RFC 5681 slow start; HyStart / HyStart++ live in the sender
//!   (`tcp::hystart`), which ends slow start by setting ssthresh.
//! - Invariants: `cwnd >= mss`; `w_max >= 0`; `K >= 0`.

use super::{slow_start, CcCtx, CongestionControl, Window};
use crate::tcp::TcpConfig;
use dcnsim_engine::{to_secs, Time};

#[derive(Clone, Debug)]
pub struct Cubic {
    c: f64,
    beta: f64,
    fast_convergence: bool,
    tcp_friendly: bool,
    /// W_max in segments (window before the last reduction, possibly lowered by §4.7).
    w_max: f64,
    /// cwnd (segments) just before the last reduction (RFC 9438 `cwnd_prior`).
    cwnd_prior: f64,
    /// Start of the current congestion-avoidance epoch.
    epoch_start: Option<Time>,
    /// K in seconds for the current epoch.
    k: f64,
    /// Reno-friendly estimate W_est in segments (§4.3).
    w_est: f64,
    /// Fractional bytes of cwnd growth not yet applied.
    carry: f64,
    /// The next epoch follows a timeout: K = 0, W_max = cwnd at the epoch start (§4.8).
    after_rto: bool,
    ss: crate::tcp::SlowStartIncrease,
}

impl Cubic {
    pub fn new(cfg: &TcpConfig) -> Self {
        Cubic {
            c: cfg.cubic_c,
            beta: cfg.cubic_beta,
            fast_convergence: cfg.cubic_fast_convergence,
            tcp_friendly: cfg.cubic_tcp_friendly,
            w_max: 0.0,
            cwnd_prior: 0.0,
            epoch_start: None,
            k: 0.0,
            w_est: 0.0,
            carry: 0.0,
            after_rto: false,
            ss: cfg.ss_increase,
        }
    }

    /// W_max in segments.
    pub fn w_max(&self) -> f64 {
        self.w_max
    }
    /// K in seconds for the current epoch (0 before the first epoch).
    pub fn k(&self) -> f64 {
        self.k
    }
    /// Start time of the current congestion-avoidance epoch.
    pub fn epoch_start(&self) -> Option<Time> {
        self.epoch_start
    }
    /// W_est in segments.
    pub fn w_est(&self) -> f64 {
        self.w_est
    }
    /// RFC 9438 eq. (1): W_cubic(t) in segments, t seconds after the epoch start.
    pub fn w_cubic(&self, t: f64) -> f64 {
        self.c * (t - self.k).powi(3) + self.w_max
    }

    /// §4.6 + §4.7: reduce on a congestion event (loss or ECE).
    fn reduce(&mut self, w: &mut Window) {
        let mss = w.mss as f64;
        let cwnd = w.cwnd as f64 / mss;
        // §4.7 fast convergence: if this W_max is below the previous one, release
        // bandwidth by lowering W_max further.
        self.w_max = if self.fast_convergence && cwnd < self.w_max {
            cwnd * (1.0 + self.beta) / 2.0
        } else {
            cwnd
        };
        self.cwnd_prior = cwnd;
        // §4.6: ssthresh = cwnd·β_cubic, at least 2 segments.
        let ss = ((w.cwnd as f64 * self.beta) as u64).max(2 * w.mss);
        w.ssthresh = ss;
        w.cwnd = ss;
        self.epoch_start = None;
        self.carry = 0.0;
    }
}

impl CongestionControl for Cubic {
    fn on_ack(&mut self, w: &mut Window, acked: u64, ctx: &CcCtx) {
        let mut acked = acked;
        if w.cwnd < w.ssthresh {
            acked = slow_start(w, acked, self.ss);
            if acked == 0 {
                return;
            }
        }
        let mss = w.mss as f64;
        let cwnd = w.cwnd as f64 / mss;
        let epoch = match self.epoch_start {
            Some(e) => e,
            None => {
                // §4.2: a new congestion-avoidance stage begins.
                if self.after_rto {
                    // §4.8: after a timeout, K = 0 and W_max = cwnd at the start of CA.
                    self.after_rto = false;
                    self.w_max = cwnd;
                    self.k = 0.0;
                } else if cwnd < self.w_max {
                    // §4.2 eq. (2): K = cbrt((W_max − cwnd_epoch) / C).
                    self.k = ((self.w_max - cwnd) / self.c).cbrt();
                } else {
                    self.k = 0.0;
                    self.w_max = cwnd;
                }
                self.w_est = cwnd; // §4.3: W_est starts at cwnd_epoch
                self.epoch_start = Some(ctx.now);
                ctx.now
            }
        };
        let t = to_secs(ctx.now.saturating_sub(epoch));
        let rtt = ctx.srtt.map_or(0.0, to_secs);
        let segs = acked as f64 / mss;

        // §4.3 Reno-friendly region: W_est grows by α_cubic per RTT's worth of ACKs, with
        // α_cubic = 3(1−β)/(1+β) until W_est reaches cwnd_prior, then 1.
        let alpha = if self.w_est >= self.cwnd_prior {
            1.0
        } else {
            3.0 * (1.0 - self.beta) / (1.0 + self.beta)
        };
        self.w_est += alpha * segs / cwnd;

        let new_cwnd = if self.tcp_friendly && self.w_cubic(t) < self.w_est {
            // §4.3: cwnd SHOULD be set to W_est.
            self.w_est.max(cwnd)
        } else {
            // §4.4/§4.5: target = W_cubic(t + RTT) clamped to [cwnd, 1.5·cwnd];
            // cwnd += (target − cwnd)/cwnd per acked segment.
            let target = self.w_cubic(t + rtt).clamp(cwnd, 1.5 * cwnd);
            cwnd + (target - cwnd) / cwnd * segs
        };
        let inc = (new_cwnd - cwnd) * mss + self.carry;
        if inc > 0.0 {
            let whole = inc.floor();
            self.carry = inc - whole;
            w.cwnd = w.cwnd.saturating_add(whole as u64);
        }
    }

    fn on_loss(&mut self, w: &mut Window, _ctx: &CcCtx) {
        self.reduce(w);
    }

    fn on_rto(&mut self, w: &mut Window, _ctx: &CcCtx, first: bool) {
        // §4.8: standard RFC 5681 timeout (cwnd = 1 SMSS) but ssthresh set with β_cubic;
        // the next CA epoch starts with K = 0 and W_max = cwnd at its start.
        if first {
            let mss = w.mss as f64;
            self.cwnd_prior = w.cwnd as f64 / mss;
            w.ssthresh = ((w.cwnd as f64 * self.beta) as u64).max(2 * w.mss);
        }
        w.cwnd = w.mss;
        self.epoch_start = None;
        self.after_rto = true;
        self.carry = 0.0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dcnsim_engine::MS;

    /// Drives CUBIC through a synthetic congestion-avoidance epoch: every RTT, one ACK per
    /// segment of the current window, spread evenly. Checks cwnd against eq. (1).
    #[test]
    fn follows_cubic_curve_after_loss() {
        let cfg = TcpConfig {
            cubic_tcp_friendly: false,
            ..Default::default()
        };
        let mss = 1000u64;
        let mut c = Cubic::new(&cfg);
        let mut w = Window {
            cwnd: 100 * mss,
            ssthresh: u64::MAX,
            mss,
        };
        let rtt = 100 * MS;
        let f = w.cwnd;
        c.on_loss(
            &mut w,
            &CcCtx {
                now: 0,
                flight_size: f,
                srtt: Some(rtt),
            },
        );
        assert_eq!(w.cwnd, 70 * mss);
        assert_eq!(c.w_max(), 100.0);
        let mut now = 0;
        let mut checked = 0;
        while now < 8000 * MS {
            let n = (w.cwnd / mss).max(1);
            let step = rtt / n;
            for _ in 0..n {
                now += step;
                let f = w.cwnd;
                c.on_ack(
                    &mut w,
                    mss,
                    &CcCtx {
                        now,
                        flight_size: f,
                        srtt: Some(rtt),
                    },
                );
            }
            // K = cbrt(W_max (1 − β) / C) = cbrt(75) s
            assert!((c.k() - (100.0f64 * 0.3 / 0.4).cbrt()).abs() < 1e-9);
            let t = to_secs(now - c.epoch_start().unwrap());
            let want = c.w_cubic(t);
            let got = w.cwnd as f64 / mss as f64;
            // cwnd chases W_cubic(t + RTT) once per RTT, so it tracks W_cubic(t) within
            // the growth of one RTT plus 2 %.
            let slack = (c.w_cubic(t + to_secs(rtt)) - want).abs() + 0.02 * want;
            assert!((got - want).abs() <= slack, "t={t} got={got} want={want}");
            checked += 1;
        }
        assert!(checked > 50);
        assert!(w.cwnd > 100 * mss); // passed the plateau into the convex region
    }

    #[test]
    fn fast_convergence_and_rto() {
        let cfg = TcpConfig::default();
        let mss = 1000u64;
        let mut c = Cubic::new(&cfg);
        let mut w = Window {
            cwnd: 100 * mss,
            ssthresh: u64::MAX,
            mss,
        };
        let ctx = CcCtx {
            now: 0,
            flight_size: 0,
            srtt: None,
        };
        c.on_loss(&mut w, &ctx);
        assert_eq!(c.w_max(), 100.0);
        c.on_loss(&mut w, &ctx); // cwnd 70 < W_max 100: W_max = 70 * 1.7 / 2
        assert!((c.w_max() - 59.5).abs() < 1e-9);
        assert_eq!(w.cwnd, 49 * mss);
        c.on_rto(&mut w, &ctx, true);
        assert_eq!(w.cwnd, mss);
        assert_eq!(w.ssthresh, 34_300);
        // First CA ACK after the timeout: K = 0, W_max = cwnd there.
        w.cwnd = w.ssthresh;
        c.on_ack(
            &mut w,
            mss,
            &CcCtx {
                now: 5,
                flight_size: 0,
                srtt: None,
            },
        );
        assert_eq!(c.k(), 0.0);
        assert!((c.w_max() - 34.3).abs() < 1e-9);
    }
}
