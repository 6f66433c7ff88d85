//! Leaving slow start before the first loss: Linux CUBIC's HyStart and RFC 9406 HyStart++.
//!
//! Both watch the ACKs of one *round* (the data sent up to `end_seq` when the round began)
//! while cwnd < ssthresh and cwnd ≥ `hystart_low_window` segments:
//!
//! - **Linux** (`tcp_cubic.c`, `hystart_update`): an *ACK train* — ACKs spaced at most
//!   `hystart_ack_delta` apart — that has lasted longer than half of (delay_min +
//!   `hystart_ack_delay`) says the pipe is full; or the minimum RTT of the round's first
//!   `hystart_min_samples` ACKs exceeds delay_min + clamp(delay_min/8, delay_min_thresh,
//!   delay_max_thresh). Either sets ssthresh = cwnd (`found`); reset only by a timeout
//!   (`cubictcp_state` → `bictcp_reset`).
//! - **RFC 9406**: per round the minimum RTT of at least N_RTT_SAMPLE ACKs; when it rises
//!   by RttThresh = clamp(lastRoundMinRTT/8, MIN_RTT_THRESH, MAX_RTT_THRESH) over the
//!   previous round's, Conservative Slow Start (CSS) begins: growth divided by
//!   CSS_GROWTH_DIVISOR = 4, for CSS_ROUNDS = 5 rounds, then ssthresh = cwnd; a round
//!   whose minimum RTT falls below the CSS baseline returns to slow start (§4.2). Used
//!   only in the initial slow start (§4.3: after a timeout ssthresh is known).
//!
//! The sender owns the window; this module only answers "how much of this ACK's slow-start
//! growth to apply" and "set ssthresh to cwnd now".

use super::{HyStartMode, TcpConfig};
use dcnsim_engine::{Time, MS, SEC};

/// Linux `GSO_LEGACY_MAX_SIZE`: the largest TSO/GSO burst a socket may emit.
const GSO_MAX_SIZE: u64 = 65_536;
/// RFC 9406 §4.2 CSS_GROWTH_DIVISOR and CSS_ROUNDS.
const CSS_GROWTH_DIVISOR: u64 = 4;
const CSS_ROUNDS: u32 = 5;

/// What the sender must do after feeding an ACK.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Keep slow-starting at full speed.
    Continue,
    /// Grow by 1/`CSS_GROWTH_DIVISOR` of the slow-start increase (RFC 9406 CSS).
    Conservative,
    /// Leave slow start: ssthresh = cwnd.
    Exit,
}

#[derive(Clone, Debug)]
pub struct HyStart {
    mode: HyStartMode,
    low_window: u64,
    ack_delta: Time,
    delay_lo: Time,
    delay_hi: Time,
    min_samples: u32,
    /// Linux `found` / HyStart++ finished: inactive until a timeout re-arms it (Linux).
    done: bool,
    /// End (exclusive sequence) of the current round; a new round starts when `snd_una`
    /// passes it (Linux `after(snd_una, end_seq)`, RFC 9406 `windowEnd`).
    end_seq: u64,
    round_start: Time,
    last_ack: Time,
    /// Minimum RTT of this round's samples and their count.
    curr_rtt: Time,
    samples: u32,
    /// Minimum RTT ever seen (Linux `delay_min`).
    delay_min: Time,
    /// RFC 9406 `lastRoundMinRTT`.
    last_round_min: Time,
    /// RFC 9406 CSS: baseline RTT and rounds spent in CSS (`None` = not in CSS).
    css: Option<(Time, u32)>,
    started: bool,
}

impl HyStart {
    pub fn new(cfg: &TcpConfig) -> Self {
        HyStart {
            mode: cfg.hystart,
            low_window: cfg.hystart_low_window as u64 * cfg.mss as u64,
            ack_delta: cfg.hystart_ack_delta,
            delay_lo: cfg.hystart_delay_min,
            delay_hi: cfg.hystart_delay_max,
            min_samples: cfg.hystart_min_samples,
            done: cfg.hystart == HyStartMode::Off,
            end_seq: 0,
            round_start: 0,
            last_ack: 0,
            curr_rtt: Time::MAX,
            samples: 0,
            delay_min: 0,
            last_round_min: Time::MAX,
            css: None,
            started: false,
        }
    }

    /// Whether an exit has happened (or HyStart is off / spent).
    pub fn done(&self) -> bool {
        self.done
    }

    /// In RFC 9406 Conservative Slow Start.
    pub fn in_css(&self) -> bool {
        self.css.is_some()
    }

    /// A retransmission timeout: Linux re-arms HyStart (`bictcp_reset` +
    /// `bictcp_hystart_reset` in `cubictcp_state(TCP_CA_Loss)`); RFC 9406 §4.3 runs
    /// standard slow start after a timeout.
    pub fn on_rto(&mut self) {
        self.css = None;
        match self.mode {
            HyStartMode::Linux => {
                self.done = false;
                self.started = false;
            }
            _ => self.done = true,
        }
    }

    /// Any loss or ECN reduction ends slow start anyway; HyStart++ stops (RFC 9406 §4.2).
    pub fn on_congestion(&mut self) {
        self.css = None;
        if self.mode == HyStartMode::Rfc9406 {
            self.done = true;
        }
    }

    fn new_round(&mut self, now: Time, snd_nxt: u64) {
        self.round_start = now;
        self.last_ack = now;
        self.end_seq = snd_nxt;
        if self.curr_rtt != Time::MAX {
            self.last_round_min = self.curr_rtt;
        }
        self.curr_rtt = Time::MAX;
        self.samples = 0;
    }

    /// One ACK that advanced `snd_una` while cwnd < ssthresh; `rtt` is its RTT sample.
    pub fn on_ack(
        &mut self,
        now: Time,
        rtt: Option<Time>,
        snd_una: u64,
        snd_nxt: u64,
        cwnd: u64,
        srtt: Option<Time>,
    ) -> Verdict {
        if self.done {
            return Verdict::Continue;
        }
        if !self.started {
            // cubictcp_init → bictcp_hystart_reset: the first round ends with what is
            // already in flight.
            self.started = true;
            self.new_round(now, snd_nxt);
        } else if snd_una > self.end_seq {
            // Linux hystart_update: `after(tp->snd_una, ca->end_seq)`; RFC 9406 windowEnd.
            if let Some((base, rounds)) = self.css {
                // RFC 9406 §4.2: after CSS_ROUNDS rounds in CSS, enter congestion avoidance.
                if rounds + 1 >= CSS_ROUNDS {
                    self.css = None;
                    self.done = true;
                    return Verdict::Exit;
                }
                self.css = Some((base, rounds + 1));
            }
            self.new_round(now, snd_nxt);
        }
        // Linux samples the RTT of every ACK from its skb send times; without TCP
        // timestamps this sender times one segment per RTT (RFC 6298 §3), so some ACKs
        // carry no sample: they still extend the ACK train, only the delay tests skip them.
        let delay = rtt.map(|r| r.max(1));
        if let Some(d) = delay {
            // cubictcp_acked: "first time call or link delay decreases".
            if self.delay_min == 0 || d < self.delay_min {
                self.delay_min = d;
            }
        }
        if cwnd < self.low_window || self.delay_min == 0 {
            return self.css_verdict();
        }
        match (self.mode, delay) {
            (HyStartMode::Linux, _) => self.linux(now, delay, cwnd, srtt),
            (HyStartMode::Rfc9406, Some(d)) => self.rfc9406(d),
            _ => self.css_verdict(),
        }
    }

    fn css_verdict(&self) -> Verdict {
        if self.css.is_some() {
            Verdict::Conservative
        } else {
            Verdict::Continue
        }
    }

    /// Linux 6.x `hystart_update` (HYSTART_ACK_TRAIN | HYSTART_DELAY).
    fn linux(&mut self, now: Time, delay: Option<Time>, cwnd: u64, srtt: Option<Time>) -> Verdict {
        if now.saturating_sub(self.last_ack) <= self.ack_delta {
            self.last_ack = now;
            // threshold = delay_min + hystart_ack_delay(sk), halved without fq pacing
            // (SK_PACING_NONE). hystart_ack_delay = min(1 ms, 4·GSO_MAX_SIZE /
            // sk_pacing_rate), and tcp_update_pacing_rate sets the rate to 200 % of
            // cwnd/SRTT in slow start (tcp_pacing_ss_ratio).
            let ack_delay = match srtt {
                Some(s) if s > 0 => {
                    let rate_bps = 2.0 * cwnd as f64 / (s as f64 / SEC as f64);
                    let d = (4 * GSO_MAX_SIZE) as f64 / rate_bps * SEC as f64;
                    (d as Time).min(MS)
                }
                _ => 0,
            };
            let threshold = (self.delay_min + ack_delay) / 2;
            if now - self.round_start > threshold {
                self.done = true;
                return Verdict::Exit;
            }
        }
        let Some(delay) = delay else {
            return Verdict::Continue;
        };
        self.curr_rtt = self.curr_rtt.min(delay);
        if self.samples < self.min_samples {
            self.samples += 1;
        } else {
            // HYSTART_DELAY_THRESH(delay_min >> 3) = clamp(delay_min/8, 4 ms, 16 ms).
            let thresh = (self.delay_min / 8).clamp(self.delay_lo, self.delay_hi);
            if self.curr_rtt > self.delay_min + thresh {
                self.done = true;
                return Verdict::Exit;
            }
        }
        Verdict::Continue
    }

    /// RFC 9406 §4.2, per ACK in slow start or CSS.
    fn rfc9406(&mut self, delay: Time) -> Verdict {
        self.curr_rtt = self.curr_rtt.min(delay);
        self.samples = self.samples.saturating_add(1);
        if self.samples >= self.min_samples && self.curr_rtt != Time::MAX {
            match self.css {
                None if self.last_round_min != Time::MAX => {
                    let thresh = (self.last_round_min / 8).clamp(self.delay_lo, self.delay_hi);
                    if self.curr_rtt >= self.last_round_min + thresh {
                        // Enter CSS with cssBaselineMinRtt = currentRoundMinRTT.
                        self.css = Some((self.curr_rtt, 0));
                    }
                }
                Some((base, _)) if self.curr_rtt < base => {
                    // The RTT increase was spurious: resume slow start.
                    self.css = None;
                }
                _ => {}
            }
        }
        self.css_verdict()
    }

    /// Growth to apply in CSS (RFC 9406: `cwnd += min(N, L·SMSS) / CSS_GROWTH_DIVISOR`).
    pub fn css_share(acked: u64) -> u64 {
        acked / CSS_GROWTH_DIVISOR
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dcnsim_engine::US;

    fn cfg(mode: HyStartMode) -> TcpConfig {
        TcpConfig {
            mss: 1000,
            hystart: mode,
            ..Default::default()
        }
    }

    #[test]
    fn linux_ack_train_exits_after_half_the_min_delay() {
        let mut h = HyStart::new(&cfg(HyStartMode::Linux));
        // Round 1 at t = 0: 20 segments in flight, RTT 100 µs, ACKs every 3 µs.
        let cwnd = 20_000;
        let mut t = 0;
        assert_eq!(
            h.on_ack(t, Some(100 * US), 1000, 20_000, cwnd, None),
            Verdict::Continue
        );
        let mut exit_at = None;
        for i in 2..=20u64 {
            t += 3 * US;
            if h.on_ack(t, Some(100 * US), i * 1000, 20_000, cwnd, None) == Verdict::Exit {
                exit_at = Some(t);
                break;
            }
        }
        // Without an SRTT the pacing term is 0: threshold = 50 µs; the train passes it at
        // 51 µs.
        assert_eq!(exit_at, Some(51 * US));
        assert!(h.done());
        // Nothing more until a timeout re-arms it.
        assert_eq!(
            h.on_ack(t + 1, Some(100 * US), 21_000, 40_000, cwnd, None),
            Verdict::Continue
        );
        h.on_rto();
        assert!(!h.done());
    }

    #[test]
    fn linux_spaced_acks_do_not_form_a_train_and_low_window_gates() {
        let mut h = HyStart::new(&cfg(HyStartMode::Linux));
        // ACKs 3 ms apart (> hystart_ack_delta): no train, no exit.
        for i in 1..40u64 {
            let v = h.on_ack(i * 3 * MS, Some(100 * US), i * 1000, 100_000, 50_000, None);
            assert_eq!(v, Verdict::Continue);
        }
        // Below the low window nothing is judged either.
        let mut h = HyStart::new(&cfg(HyStartMode::Linux));
        for i in 1..200u64 {
            let v = h.on_ack(i * US, Some(100 * US), i * 10, 100_000, 15_000, None);
            assert_eq!(v, Verdict::Continue);
        }
    }

    #[test]
    fn linux_delay_increase_exit() {
        let mut h = HyStart::new(&cfg(HyStartMode::Linux));
        h.on_ack(0, Some(10 * MS), 1000, 50_000, 20_000, None);
        // Next round: RTT 10 ms + 5 ms > delay_min + max(10/8 ms, 4 ms) = 14 ms.
        // ACKs 3 ms apart so the train rule stays out of the way.
        let mut v = Verdict::Continue;
        for i in 0..10u64 {
            v = h.on_ack(
                (i + 1) * 3 * MS,
                Some(15 * MS),
                51_000 + i * 1000,
                100_000,
                20_000,
                None,
            );
            if v == Verdict::Exit {
                assert_eq!(i, 8, "after hystart_min_samples samples");
                break;
            }
        }
        assert_eq!(v, Verdict::Exit);
    }

    #[test]
    fn rfc9406_css_then_exit_after_five_rounds_and_spurious_return() {
        let mut h = HyStart::new(&cfg(HyStartMode::Rfc9406));
        let cwnd = 20_000;
        let mut una = 0;
        let mut nxt = 20_000;
        let mut t = 0;
        let round = |h: &mut HyStart, rtt: Time, t: &mut Time, una: &mut u64, nxt: &mut u64| {
            let mut last = Verdict::Continue;
            for _ in 0..10 {
                *t += 100 * US;
                *una += 1000;
                last = h.on_ack(*t, Some(rtt), *una, *nxt, cwnd, None);
                if last == Verdict::Exit {
                    return last;
                }
            }
            *una = *nxt;
            *nxt += 20_000;
            last
        };
        assert_eq!(
            round(&mut h, 10 * MS, &mut t, &mut una, &mut nxt),
            Verdict::Continue
        );
        // +5 ms ≥ max(10/8, 4) ms: CSS.
        assert_eq!(
            round(&mut h, 15 * MS, &mut t, &mut una, &mut nxt),
            Verdict::Conservative
        );
        assert!(h.in_css());
        // An RTT below the baseline: spurious, back to slow start.
        assert_eq!(
            round(&mut h, 12 * MS, &mut t, &mut una, &mut nxt),
            Verdict::Continue
        );
        assert!(!h.in_css());
        // Rise again (≥ 12 + 4 ms) and stay: five CSS rounds, then exit.
        let mut verdicts = vec![];
        for _ in 0..7 {
            let v = round(&mut h, 17 * MS, &mut t, &mut una, &mut nxt);
            verdicts.push(v);
            if v == Verdict::Exit {
                break;
            }
        }
        assert_eq!(verdicts.last(), Some(&Verdict::Exit));
        assert_eq!(verdicts.len(), 6, "{verdicts:?}");
        assert_eq!(HyStart::css_share(4000), 1000);
    }
}
