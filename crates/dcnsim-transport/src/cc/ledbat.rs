//! LEDBAT, Low Extra Delay Background Transport (RFC 6817).
//!
//! A delay-based scavenger: it measures one-way delay ([`crate::Ack::owd`], the simulator's
//! perfect clock), estimates the queuing delay it adds as `current − base`, and steers it
//! towards TARGET with a linear controller (RFC 6817 §2.4.2):
//!
//! ```text
//! off_target = (TARGET − queuing_delay) / TARGET
//! cwnd      += GAIN · off_target · bytes_newly_acked · MSS / cwnd     (per ACK)
//! cwnd       = min(cwnd, flightsize + ALLOWED_INCREASE · MSS)
//! cwnd       = max(cwnd, MIN_CWND · MSS)
//! ```
//!
//! so it gains at most GAIN·MSS per RTT (never faster than Reno) and backs off as soon as
//! queuing delay exceeds TARGET — long before a loss-based flow sharing the queue would.
//!
//! Filters: current delay = MIN of the last CURRENT_FILTER = 4 samples (RFC 6817 §3.4.2,
//! "FILTER() ... MIN"); base delay = minimum over a window. The RFC keeps BASE_HISTORY = 10
//! one-minute buckets; a datacenter flow lives milliseconds, so by default the base is the
//! flow-lifetime minimum (`ledbat_base_window = None`); with `Some(w)` the RFC's bucketed
//! history is kept with 10 buckets of w/10.
//!
//! Where the window law runs: in [`CongestionControl::on_owd`], on every acceptable ACK
//! outside fast recovery, not gated on the sender being cwnd-limited (the ALLOWED_INCREASE
//! cap against FlightSize is RFC 6817's own guard against growing an unused window, and a
//! decrease must never wait for the sender to fill the window). `on_ack` only runs slow
//! start after a timeout (see below).
//!
//! Losses: cwnd = max(cwnd/2, MIN_CWND·MSS), at most once per RTT (RFC 6817 §2.4.2 "on
//! data loss"). Timeout: cwnd = 1 MSS (RFC 6817 §2.4.2 / RFC 5681 loss window). RFC 6817
//! defines no slow start; after a timeout we slow-start (RFC 5681, RFC 3465 L = 2) back to
//! ssthresh while queuing delay stays below TARGET — as ns-3's `TcpLedbat` does once cwnd
//! has fallen to 1 MSS — so one timeout does not cost BDP/MSS round trips of linear growth.
//! A flow starts at the initial window and grows linearly (no initial slow start).
//!
//! Invariants: `cwnd >= MIN_CWND·MSS` after every window-law update and loss reaction;
//! `cwnd >= MSS` always; `ssthresh >= 2·MSS` after a reduction.

use super::{reno_ssthresh, slow_start, CcCtx, CongestionControl, OwdSample, Window};
use crate::tcp::TcpConfig;
use dcnsim_engine::Time;

/// RFC 6817 §2.4.2: CURRENT_FILTER samples feed FILTER() = MIN (§3.4.2 suggests 4).
pub const CURRENT_FILTER: usize = 4;
/// RFC 6817 §2.4.2: BASE_HISTORY buckets of base-delay minima (RFC: 10 one-minute buckets).
pub const BASE_HISTORY: usize = 10;
/// RFC 6817 §2.4.2: ALLOWED_INCREASE (in MSS) above FlightSize; "SHOULD be 1".
pub const ALLOWED_INCREASE: u64 = 1;
/// RFC 6817 §2.4.2: MIN_CWND (in MSS); "SHOULD be 2".
pub const MIN_CWND: u64 = 2;

const NONE: Time = Time::MAX;

#[derive(Clone, Debug)]
pub struct Ledbat {
    target: Time,
    gain: f64,
    /// `None`: flow-lifetime minimum (only `base[0]` is used). `Some(b)`: bucket length.
    bucket: Option<Time>,
    /// RFC 6817 `base_delays`, a ring; `base_tail` is the current (newest) bucket.
    base: [Time; BASE_HISTORY],
    base_tail: usize,
    /// RFC 6817 `last_rollover`: start of the current bucket.
    last_rollover: Time,
    /// RFC 6817 `current_delays`, a ring of the last CURRENT_FILTER samples.
    cur: [Time; CURRENT_FILTER],
    cur_next: usize,
    /// Sub-byte remainder of the window law (cwnd is whole bytes).
    frac: f64,
    /// Time of the last loss reaction (once per RTT).
    last_loss: Option<Time>,
    /// Slow start allowed (only after a timeout).
    ss: bool,
    /// Queuing delay used by the last window update, for traces and tests.
    last_qd: Option<Time>,
    ss_increase: crate::tcp::SlowStartIncrease,
}

impl Ledbat {
    pub fn new(cfg: &TcpConfig) -> Self {
        Ledbat {
            target: cfg.ledbat_target.max(1),
            gain: cfg.ledbat_gain,
            bucket: cfg
                .ledbat_base_window
                .map(|w| (w / BASE_HISTORY as Time).max(1)),
            // RFC 6817 §2.4.2 "on initialization": all delays +infinity.
            base: [NONE; BASE_HISTORY],
            base_tail: 0,
            last_rollover: 0,
            cur: [NONE; CURRENT_FILTER],
            cur_next: 0,
            frac: 0.0,
            last_loss: None,
            ss: false,
            last_qd: None,
            ss_increase: cfg.ss_increase,
        }
    }

    /// MIN(base_delays), or `None` before the first sample.
    pub fn base_delay(&self) -> Option<Time> {
        let m = self.base.iter().copied().min().unwrap_or(NONE);
        (m != NONE).then_some(m)
    }

    /// FILTER(current_delays) = MIN of the last CURRENT_FILTER samples.
    pub fn current_delay(&self) -> Option<Time> {
        let m = self.cur.iter().copied().min().unwrap_or(NONE);
        (m != NONE).then_some(m)
    }

    /// current − base (0 before the first sample).
    pub fn queuing_delay(&self) -> Time {
        match (self.current_delay(), self.base_delay()) {
            (Some(c), Some(b)) => c.saturating_sub(b),
            _ => 0,
        }
    }

    /// The queuing delay the last window update used.
    pub fn last_queuing_delay(&self) -> Option<Time> {
        self.last_qd
    }

    pub fn target(&self) -> Time {
        self.target
    }

    /// RFC 6817 §2.4.2 `update_base_delay`.
    fn update_base_delay(&mut self, now: Time, delay: Time) {
        match self.bucket {
            None => self.base[0] = self.base[0].min(delay),
            Some(b) => {
                // "if round_to_minute(now) != round_to_minute(last_rollover)": a new bucket
                // replaces the oldest one; otherwise the tail bucket keeps its minimum.
                if self.base[self.base_tail] == NONE {
                    self.base[self.base_tail] = delay;
                    self.last_rollover = now;
                } else if now / b != self.last_rollover / b {
                    self.last_rollover = now;
                    self.base_tail = (self.base_tail + 1) % BASE_HISTORY;
                    self.base[self.base_tail] = delay;
                } else {
                    let t = &mut self.base[self.base_tail];
                    *t = (*t).min(delay);
                }
            }
        }
    }

    /// RFC 6817 §2.4.2 `update_current_delay`: keep the last CURRENT_FILTER samples.
    fn update_current_delay(&mut self, delay: Time) {
        self.cur[self.cur_next] = delay;
        self.cur_next = (self.cur_next + 1) % CURRENT_FILTER;
    }
}

impl CongestionControl for Ledbat {
    fn on_ack(&mut self, w: &mut Window, acked: u64, _ctx: &CcCtx) {
        // Only post-timeout slow start lives here; the LEDBAT law runs in `on_owd`, which
        // the sender calls first on the same ACK.
        if self.ss && w.cwnd < w.ssthresh && self.queuing_delay() < self.target {
            slow_start(w, acked, self.ss_increase);
        }
        if w.cwnd >= w.ssthresh {
            self.ss = false;
        }
    }

    fn on_owd(&mut self, w: &mut Window, s: &OwdSample, ctx: &CcCtx, open: bool) -> bool {
        let (owd, acked) = (s.owd, s.acked);
        // RFC 6817 §2.4.2 "on acknowledgement": update both filters with every sample.
        if owd > 0 {
            self.update_base_delay(ctx.now, owd);
            self.update_current_delay(owd);
        }
        if !open || acked == 0 {
            return false;
        }
        let qd = self.queuing_delay();
        self.last_qd = Some(qd);
        if self.ss {
            if qd < self.target && w.cwnd < w.ssthresh {
                return false; // `on_ack` slow-starts this ACK
            }
            self.ss = false;
        }
        let mss = w.mss;
        let old = w.cwnd;
        // RFC 6817 §2.4.2: off_target = (TARGET − queuing_delay) / TARGET.
        let off_target = (self.target as f64 - qd as f64) / self.target as f64;
        // RFC 6817 §2.4.2: cwnd += GAIN · off_target · bytes_newly_acked · MSS / cwnd.
        let delta =
            self.gain * off_target * acked as f64 * mss as f64 / old.max(1) as f64 + self.frac;
        let whole = delta.trunc();
        self.frac = delta - whole;
        let mut cwnd = (old as f64 + whole).max(0.0) as u64;
        // RFC 6817 §2.4.2: max_allowed_cwnd = flightsize + ALLOWED_INCREASE·MSS, where
        // flightsize is the data outstanding before this ACK arrived.
        let flight_before = ctx.flight_size + acked;
        cwnd = cwnd.min(flight_before + ALLOWED_INCREASE * mss);
        // RFC 6817 §2.4.2: cwnd = max(cwnd, MIN_CWND·MSS).
        cwnd = cwnd.max(MIN_CWND * mss);
        if cwnd != old {
            self.frac = 0.0;
        }
        w.cwnd = cwnd;
        // ssthresh tracks cwnd: LEDBAT has no slow start outside the post-timeout phase.
        w.ssthresh = cwnd.max(2 * mss);
        cwnd < old
    }

    fn on_loss(&mut self, w: &mut Window, ctx: &CcCtx) {
        // RFC 6817 §2.4.2 "on data loss": at most once per RTT.
        let once_per_rtt = match (self.last_loss, ctx.srtt) {
            (Some(t), Some(rtt)) => ctx.now >= t.saturating_add(rtt),
            _ => true,
        };
        if once_per_rtt {
            // RFC 6817 §2.4.2: cwnd = min(cwnd, max(cwnd/2, MIN_CWND·MSS)).
            w.cwnd = w.cwnd.min((w.cwnd / 2).max(MIN_CWND * w.mss));
            self.last_loss = Some(ctx.now);
        }
        // The sender restores cwnd = ssthresh when recovery ends.
        w.ssthresh = w.cwnd.max(2 * w.mss);
        self.frac = 0.0;
        self.ss = false;
    }

    fn on_rto(&mut self, w: &mut Window, ctx: &CcCtx, first: bool) {
        // RFC 6817 §2.4.2: on a congestion timeout cwnd = 1 MSS (RFC 5681 loss window);
        // ssthresh per RFC 5681 eq. (4) for the post-timeout slow start.
        if first {
            w.ssthresh = reno_ssthresh(ctx.flight_size, w.mss);
        }
        w.cwnd = w.mss;
        self.frac = 0.0;
        self.ss = true;
        self.last_loss = Some(ctx.now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dcnsim_engine::{MS, US};

    const MSS: u64 = 1000;

    fn cfg(target: Time) -> TcpConfig {
        TcpConfig {
            cc: crate::CcKind::Ledbat,
            mss: MSS as u32,
            ledbat_target: target,
            ..Default::default()
        }
    }
    fn ctx(now: Time, flight: u64) -> CcCtx {
        CcCtx {
            now,
            flight_size: flight,
            srtt: Some(100 * US),
        }
    }
    fn smp(owd: Time, acked: u64) -> OwdSample {
        OwdSample {
            owd,
            acked,
            ..Default::default()
        }
    }
    fn win(cwnd: u64) -> Window {
        Window {
            cwnd,
            ssthresh: u64::MAX,
            mss: MSS,
        }
    }

    /// One window of per-MSS ACKs at a constant one-way delay; returns cwnd after it.
    fn one_rtt(l: &mut Ledbat, w: &mut Window, now: Time, owd: Time) {
        let n = w.cwnd / MSS;
        for _ in 0..n {
            let flight = w.cwnd; // cwnd-limited: a full window outstanding before the ACK
            l.on_owd(w, &smp(owd, MSS), &ctx(now, flight - MSS), true);
        }
    }

    #[test]
    fn filters_follow_rfc() {
        let mut l = Ledbat::new(&cfg(MS));
        for (i, d) in [50, 40, 60, 70, 80, 90, 100].iter().enumerate() {
            l.on_owd(
                &mut win(10 * MSS),
                &smp(d * US, 0),
                &ctx(i as Time, 0),
                true,
            );
        }
        assert_eq!(l.base_delay(), Some(40 * US));
        // MIN of the last 4 samples (70, 80, 90, 100).
        assert_eq!(l.current_delay(), Some(70 * US));
        assert_eq!(l.queuing_delay(), 30 * US);
    }

    #[test]
    fn sliding_base_window_forgets_old_minimum() {
        let c = TcpConfig {
            ledbat_base_window: Some(10 * MS),
            ..cfg(MS)
        };
        let mut l = Ledbat::new(&c);
        l.on_owd(&mut win(10 * MSS), &smp(10 * US, 0), &ctx(0, 0), true);
        // 11 buckets later the 10 µs minimum has been rolled out.
        for k in 1..=11 {
            l.on_owd(&mut win(10 * MSS), &smp(50 * US, 0), &ctx(k * MS, 0), true);
        }
        assert_eq!(l.base_delay(), Some(50 * US));
        // The flow-lifetime default never forgets.
        let mut l = Ledbat::new(&cfg(MS));
        l.on_owd(&mut win(10 * MSS), &smp(10 * US, 0), &ctx(0, 0), true);
        for k in 1..=11 {
            l.on_owd(&mut win(10 * MSS), &smp(50 * US, 0), &ctx(k * MS, 0), true);
        }
        assert_eq!(l.base_delay(), Some(10 * US));
    }

    #[test]
    fn grows_below_target_and_shrinks_above() {
        let target = MS;
        let mut l = Ledbat::new(&cfg(target));
        let mut w = win(20 * MSS);
        l.on_owd(&mut w, &smp(100 * US, 0), &ctx(0, 0), true); // base = 100 µs
                                                               // Queuing delay 0: off_target = 1, +GAIN·MSS per RTT (like Reno).
        one_rtt(&mut l, &mut w, 1, 100 * US);
        assert!((20 * MSS + 900..=21 * MSS).contains(&w.cwnd), "{}", w.cwnd);
        // Queuing delay = target/2: half the growth.
        let c0 = w.cwnd;
        for _ in 0..4 {
            l.on_owd(&mut w, &smp(100 * US + target / 2, 0), &ctx(2, 0), true);
        }
        one_rtt(&mut l, &mut w, 2, 100 * US + target / 2);
        let g = w.cwnd - c0;
        assert!((400..=550).contains(&g), "growth {g}");
        // Queuing delay = 2·target: off_target = −1, −1 MSS per RTT.
        let c0 = w.cwnd;
        for _ in 0..4 {
            l.on_owd(&mut w, &smp(100 * US + 2 * target, 0), &ctx(3, 0), true);
        }
        one_rtt(&mut l, &mut w, 3, 100 * US + 2 * target);
        assert!(w.cwnd < c0 && c0 - w.cwnd >= 900, "{c0} -> {}", w.cwnd);
        // Far above target: never below MIN_CWND.
        for _ in 0..200 {
            one_rtt(&mut l, &mut w, 4, 100 * US + 20 * target);
        }
        assert_eq!(w.cwnd, MIN_CWND * MSS);
    }

    #[test]
    fn increase_capped_by_flightsize() {
        let mut l = Ledbat::new(&cfg(MS));
        let mut w = win(50 * MSS);
        l.on_owd(&mut w, &smp(100 * US, 0), &ctx(0, 0), true);
        // Application-limited: only 5 MSS were outstanding before this ACK.
        l.on_owd(&mut w, &smp(100 * US, MSS), &ctx(1, 4 * MSS), true);
        assert_eq!(w.cwnd, (5 + ALLOWED_INCREASE) * MSS);
        // Not open (fast recovery): the filters update, the window does not.
        let mut w2 = win(50 * MSS);
        assert!(!l.on_owd(&mut w2, &smp(100 * US, MSS), &ctx(2, 0), false));
        assert_eq!(w2.cwnd, 50 * MSS);
    }

    /// A synthetic bottleneck: queuing delay = (cwnd − BDP)/rate. The controller must
    /// settle where queuing delay ≈ TARGET, i.e. cwnd ≈ BDP + rate·TARGET.
    #[test]
    fn settles_at_target_on_delay_that_rises_with_cwnd() {
        let target = 500 * US;
        let base = 50 * US;
        let bdp = 20 * MSS; // bytes in flight with an empty queue
        let rate_bytes_per_us = 80.0; // 80 B/µs = 640 Mb/s
        let qd_of = |cwnd: u64| -> Time {
            (cwnd.saturating_sub(bdp) as f64 / rate_bytes_per_us) as Time * US
        };
        let mut l = Ledbat::new(&cfg(target));
        let mut w = win(10 * MSS);
        let mut now = 0;
        let mut tail = Vec::new();
        for rtt in 0..3000 {
            let n = (w.cwnd / MSS).max(1);
            for _ in 0..n {
                now += US;
                let owd = base + qd_of(w.cwnd);
                let c = ctx(now, w.cwnd - MSS);
                l.on_owd(&mut w, &smp(owd, MSS), &c, true);
            }
            if rtt >= 2500 {
                tail.push(qd_of(w.cwnd));
            }
        }
        let avg = tail.iter().sum::<Time>() as f64 / tail.len() as f64;
        let err = (avg - target as f64).abs() / target as f64;
        assert!(err < 0.1, "queuing delay {avg} ps vs target {target} ps");
        let want = bdp as f64 + rate_bytes_per_us * 500.0;
        assert!(
            (w.cwnd as f64 - want).abs() < 4.0 * MSS as f64,
            "{}",
            w.cwnd
        );
    }

    #[test]
    fn loss_halves_once_per_rtt_with_floor() {
        let mut l = Ledbat::new(&cfg(MS));
        let mut w = win(40 * MSS);
        let rtt = 100 * US;
        l.on_loss(&mut w, &ctx(0, 40 * MSS));
        assert_eq!((w.cwnd, w.ssthresh), (20 * MSS, 20 * MSS));
        // A second loss within the same RTT does not cut again.
        l.on_loss(&mut w, &ctx(rtt / 2, 20 * MSS));
        assert_eq!(w.cwnd, 20 * MSS);
        l.on_loss(&mut w, &ctx(rtt, 20 * MSS));
        assert_eq!(w.cwnd, 10 * MSS);
        for k in 2..20 {
            l.on_loss(&mut w, &ctx(k * rtt, 0));
        }
        assert_eq!((w.cwnd, w.ssthresh), (MIN_CWND * MSS, 2 * MSS));
    }

    #[test]
    fn timeout_then_slow_start_until_ssthresh() {
        let mut l = Ledbat::new(&cfg(MS));
        let mut w = win(40 * MSS);
        l.on_owd(&mut w, &smp(100 * US, 0), &ctx(0, 0), true);
        l.on_rto(&mut w, &ctx(1, 40 * MSS), true);
        assert_eq!((w.cwnd, w.ssthresh), (MSS, 20 * MSS));
        for _ in 0..40 {
            let c = ctx(2, w.cwnd);
            if !l.on_owd(&mut w, &smp(100 * US, MSS), &c, true) {
                l.on_ack(&mut w, MSS, &c);
            }
        }
        // Slow start (1 MSS per ACK) to ssthresh, then linear growth.
        assert!(w.cwnd >= 20 * MSS && w.cwnd < 22 * MSS, "{}", w.cwnd);
        assert!(!l.ss);
    }
}
