//! TCP-LP, TCP Low Priority (A. Kuzmanovic, E. W. Knightly, "TCP-LP: A Distributed
//! Algorithm for Low Priority Data Transfer", IEEE INFOCOM 2003). Behaviour cross-checked
//! against the description of Linux `net/ipv4/tcp_lp.c`; the code here is written from the
//! paper's algorithm.
//!
//! Delay signal (paper §III-B): the smoothed one-way delay
//! `sowd ← (1 − γ)·sowd + γ·owd` (γ = 1/8) over every ACK's [`crate::Ack::owd`], and the
//! minimum and maximum one-way delays `d_min`, `d_max` seen over the flow's lifetime. An
//! *early congestion indication* (ECI) is raised when
//!
//! ```text
//! sowd > d_min + δ·(d_max − d_min)        (δ = 0.15)
//! ```
//!
//! Reaction (paper §III-C): on an ECI, cwnd ← cwnd/2 and an *inference timeout* itt starts;
//! during itt the window does not grow. Another ECI before itt expires means cross traffic
//! is present: cwnd ← 1 MSS. Once itt expires without an ECI, Reno congestion avoidance
//! resumes. Losses and timeouts get the standard Reno reaction (RFC 5681).
//!
//! What is implemented where the paper leaves room (documented choices):
//! - itt = `tcplp_itt_rtts` (default 3) × the sender's smoothed RTT at the ECI (the paper's
//!   "3 RTT"; Linux uses 3 × its latest inference delay). Before the first RTT sample the
//!   RTT is approximated by 2 × sowd.
//! - At most one ECI reaction per window, and delay samples of data sent before a reaction
//!   are not fed to sowd: until an ACK covers the data outstanding at the reaction
//!   (`snd_una > snd_nxt at the reaction`, the RFC 3168 §6.1.2 once-per-window rule),
//!   the samples describe the window before the cut, and the EWMA would carry them into
//!   a spurious "second ECI" (a lone flow would collapse to 1 MSS after every halving).
//!   At the first sample of post-reaction data sowd restarts from that sample (without
//!   this the EWMA's memory of the old backlog alone would raise the second ECI). So the
//!   "second ECI inside itt" is judged on delays the halved window produced — the
//!   paper's inference that cross traffic, not our own backlog, keeps the delay high. d_min
//!   and d_max still see every sample. (Linux gets a similar effect by re-seeding
//!   d_min/d_max around sowd after each ECI; we keep the paper's lifetime d_min/d_max.)
//!   `tcplp_gate = false` turns this gate off (every ECI sample reacts, the rule of §III-C
//!   read literally); LPF-Fig10's reproduction notes measure what that changes.
//! - ECI halving sets ssthresh = the halved window, so growth after itt is additive (paper:
//!   "additive-increase"; Linux leaves ssthresh alone, so it may slow-start again). The
//!   collapse to 1 MSS leaves ssthresh at that halved window (slow start back to it, then
//!   additive increase, like a TCP timeout). d_min/d_max use raw samples; `sowd` is
//!   seeded by the first sample.
//! - ECIs are evaluated on every ACK with a sample; reactions only when the sender allows a
//!   window change (`open`: not in fast recovery).
//!
//! Invariants: `cwnd >= mss`; `ssthresh >= 2·mss` after any reduction.

use super::{CcCtx, CongestionControl, NewReno, OwdSample, Window};
use crate::tcp::TcpConfig;
use dcnsim_engine::Time;

#[derive(Clone, Debug)]
pub struct TcpLp {
    delta: f64,
    gamma: f64,
    itt_rtts: f64,
    /// The once-per-window gate and sowd restart (module docs); `tcplp_gate`.
    gate: bool,
    /// Smoothed one-way delay (ps, as f64 for the EWMA); `None` before the first sample.
    sowd: Option<f64>,
    d_min: Time,
    d_max: Time,
    /// `snd_nxt` at the last ECI reaction: ACKs up to it carry pre-reaction delays.
    react_end: Option<u64>,
    /// Restart sowd at the next fresh sample.
    reseed: bool,
    /// End of the current inference timeout (no growth before it; ECI before it → 1 MSS).
    itt_end: Time,
    /// Growth and loss reactions are TCP's (TCP-LP §III).
    reno: NewReno,
    /// ECI reactions that halved the window / collapsed it to 1 MSS.
    pub halvings: u64,
    pub collapses: u64,
}

impl TcpLp {
    pub fn new(cfg: &TcpConfig) -> Self {
        TcpLp {
            delta: cfg.tcplp_delta,
            gamma: cfg.tcplp_gamma,
            itt_rtts: cfg.tcplp_itt_rtts,
            gate: cfg.tcplp_gate,
            sowd: None,
            d_min: Time::MAX,
            d_max: 0,
            react_end: None,
            reseed: false,
            itt_end: 0,
            reno: NewReno::new(cfg),
            halvings: 0,
            collapses: 0,
        }
    }

    /// Smoothed one-way delay.
    pub fn sowd(&self) -> Option<Time> {
        self.sowd.map(|s| s as Time)
    }
    /// (d_min, d_max) over the flow's lifetime, once a sample has been seen.
    pub fn delay_range(&self) -> Option<(Time, Time)> {
        (self.d_max > 0).then_some((self.d_min, self.d_max))
    }
    /// The ECI threshold d_min + δ·(d_max − d_min).
    pub fn threshold(&self) -> Option<f64> {
        self.delay_range()
            .map(|(lo, hi)| lo as f64 + self.delta * (hi - lo) as f64)
    }
    /// Whether the current smoothed delay is an early congestion indication.
    pub fn eci(&self) -> bool {
        matches!((self.sowd, self.threshold()), (Some(s), Some(t)) if s > t)
    }
    /// Whether `now` lies inside the inference timeout.
    pub fn in_inference(&self, now: Time) -> bool {
        now < self.itt_end
    }
}

impl CongestionControl for TcpLp {
    fn on_ack(&mut self, w: &mut Window, acked: u64, ctx: &CcCtx) {
        // TCP-LP §III-C: no window growth during the inference timeout.
        if self.in_inference(ctx.now) {
            return;
        }
        self.reno.on_ack(w, acked, ctx);
    }

    fn on_owd(&mut self, w: &mut Window, s: &OwdSample, ctx: &CcCtx, open: bool) -> bool {
        let owd = s.owd;
        if owd == 0 {
            return false;
        }
        // TCP-LP §III-B: d_min / d_max over the connection (every sample).
        self.d_min = self.d_min.min(owd);
        self.d_max = self.d_max.max(owd);
        // Samples of data sent before the last reaction describe the old window (module
        // docs); they neither feed sowd nor trigger a reaction.
        if self.react_end.is_some_and(|e| s.snd_una <= e) {
            return false;
        }
        // TCP-LP §III-B: sowd, an EWMA with gain γ — restarted at the first sample of
        // post-reaction data, so it judges the reduced window alone (module docs).
        let x = owd as f64;
        let sowd = match self.sowd {
            Some(v) if !self.reseed => v + self.gamma * (x - v),
            _ => x,
        };
        self.reseed = false;
        self.sowd = Some(sowd);
        // TCP-LP §III-B: ECI iff sowd > d_min + δ·(d_max − d_min).
        if !open || !self.eci() {
            return false;
        }
        let mss = w.mss;
        if self.in_inference(ctx.now) {
            // TCP-LP §III-C: a further ECI within itt → cwnd = 1 packet.
            w.cwnd = mss;
            self.collapses += 1;
        } else {
            // TCP-LP §III-C: first ECI → cwnd/2, start the inference timeout.
            w.cwnd = (w.cwnd / 2).max(mss);
            w.ssthresh = w.cwnd.max(2 * mss);
            self.halvings += 1;
        }
        // itt = tcplp_itt_rtts × RTT (TCP-LP §III-C: 3 RTT); 2·sowd before an RTT sample.
        let rtt = ctx.srtt.unwrap_or((2.0 * sowd) as Time).max(1);
        self.itt_end = ctx.now.saturating_add((self.itt_rtts * rtt as f64) as Time);
        if self.gate {
            // Module docs: samples of data sent before this reaction are not judged, and
            // sowd restarts at the first sample of post-reaction data.
            self.react_end = Some(s.snd_nxt);
            self.reseed = true;
        }
        self.reno.bytes_acc = 0;
        true
    }

    fn on_loss(&mut self, w: &mut Window, ctx: &CcCtx) {
        // TCP-LP §III: losses get TCP's reaction (RFC 5681 eq. 4).
        self.reno.on_loss(w, ctx);
    }

    fn on_rto(&mut self, w: &mut Window, ctx: &CcCtx, first: bool) {
        // RFC 5681 §3.1: loss window of one segment.
        self.reno.on_rto(w, ctx, first);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dcnsim_engine::US;

    const MSS: u64 = 1000;

    fn lp() -> TcpLp {
        TcpLp::new(&TcpConfig {
            cc: crate::CcKind::TcpLp,
            mss: MSS as u32,
            ..Default::default()
        })
    }
    fn ctx(now: Time) -> CcCtx {
        CcCtx {
            now,
            flight_size: 0,
            srtt: Some(100 * US),
        }
    }
    /// An ACK with delay `owd` that moved snd_una to `una`, with snd_nxt = `nxt`.
    fn smp(owd: Time, una: u64, nxt: u64) -> OwdSample {
        OwdSample {
            owd,
            acked: MSS,
            snd_una: una,
            snd_nxt: nxt,
        }
    }
    fn win(cwnd: u64) -> Window {
        Window {
            cwnd,
            ssthresh: u64::MAX,
            mss: MSS,
        }
    }

    #[test]
    fn eci_threshold_math() {
        let mut c = lp();
        let mut w = win(40 * MSS);
        // Samples spanning [100, 300] µs: threshold = 100 + 0.15·200 = 130 µs.
        c.on_owd(&mut w, &smp(100 * US, 1, 9), &ctx(0), false);
        c.on_owd(&mut w, &smp(300 * US, 2, 9), &ctx(0), false);
        assert_eq!(c.delay_range(), Some((100 * US, 300 * US)));
        assert!((c.threshold().unwrap() - 130e6).abs() < 1.0);
        // sowd = 100 + (300 − 100)/8 = 125 µs: below the threshold.
        assert!((c.sowd.unwrap() - 125e6).abs() < 1.0);
        assert!(!c.eci());
        // One more 300 µs sample: sowd = 125 + 175/8 = 146.875 µs > 130 µs.
        c.on_owd(&mut w, &smp(300 * US, 3, 9), &ctx(0), false);
        assert!((c.sowd.unwrap() - 146.875e6).abs() < 1.0);
        assert!(c.eci());
        // Not open (fast recovery): detected but no reaction.
        assert_eq!(w.cwnd, 40 * MSS);
        // Samples back at d_min pull sowd under the threshold again.
        for _ in 0..30 {
            c.on_owd(&mut w, &smp(100 * US, 4, 9), &ctx(0), false);
        }
        assert!(!c.eci());
        // Equal samples: d_max = d_min, no ECI.
        let mut c = lp();
        for i in 0..10 {
            assert!(!c.on_owd(&mut w, &smp(80 * US, i, 99), &ctx(0), true));
        }
        assert!(!c.eci());
    }

    #[test]
    fn without_the_gate_a_pre_reaction_sample_collapses_the_window() {
        // The first ECI halves; the next ACK still carries a delay of the window before the
        // cut. With the gate it is ignored; without it, it is a second ECI inside itt.
        for (gate, cwnd, collapses) in [(true, 20 * MSS, 0), (false, MSS, 1)] {
            let mut c = TcpLp::new(&TcpConfig {
                cc: crate::CcKind::TcpLp,
                mss: MSS as u32,
                tcplp_gate: gate,
                ..Default::default()
            });
            let mut w = win(40 * MSS);
            c.on_owd(&mut w, &smp(100 * US, 1, 100), &ctx(0), true);
            c.on_owd(&mut w, &smp(300 * US, 2, 100), &ctx(10), true);
            assert!(c.on_owd(&mut w, &smp(300 * US, 3, 100), &ctx(10), true));
            assert_eq!(w.cwnd, 20 * MSS);
            c.on_owd(&mut w, &smp(300 * US, 4, 120), &ctx(20), true);
            assert_eq!((w.cwnd, c.collapses), (cwnd, collapses), "gate {gate}");
        }
    }

    #[test]
    fn halve_then_collapse_within_itt_then_recover() {
        let rtt = 100 * US;
        let mut c = lp();
        let mut w = win(40 * MSS);
        c.on_owd(&mut w, &smp(100 * US, 1, 100), &ctx(0), true);
        // sowd 125 µs < threshold 130 µs: no ECI yet; the next sample raises one.
        assert!(!c.on_owd(&mut w, &smp(300 * US, 2, 100), &ctx(10), true));
        assert_eq!(w.cwnd, 40 * MSS);
        // First ECI: halve, start itt = 3 RTT; data up to 100 was in flight.
        assert!(c.on_owd(&mut w, &smp(300 * US, 3, 100), &ctx(10), true));
        assert_eq!((w.cwnd, w.ssthresh), (20 * MSS, 20 * MSS));
        assert_eq!(c.halvings, 1);
        assert!(c.in_inference(10 + 3 * rtt - 1));
        assert!(!c.in_inference(10 + 3 * rtt));
        // No growth during itt.
        c.on_ack(&mut w, 5 * MSS, &ctx(10 + rtt));
        assert_eq!(w.cwnd, 20 * MSS);
        // ACKs for data sent before the halving carry the old window's delays: ignored,
        // however many (they do not even move sowd).
        let s0 = c.sowd;
        for una in 4..=100 {
            assert!(!c.on_owd(&mut w, &smp(300 * US, una, 120), &ctx(10 + rtt), true));
        }
        assert_eq!((w.cwnd, c.sowd), (20 * MSS, s0));
        // A delay sample of post-halving data still above the threshold, inside itt:
        // cross traffic → collapse to 1 MSS.
        assert!(c.on_owd(&mut w, &smp(300 * US, 101, 120), &ctx(10 + rtt + 1), true));
        assert_eq!(w.cwnd, MSS);
        assert_eq!(c.collapses, 1);
        // Post-collapse data sees the delay fall back; after itt the window grows again
        // (slow start to the halved ssthresh, then additive increase).
        let t_c = 10 + rtt + 1;
        for una in 121..160 {
            c.on_owd(&mut w, &smp(100 * US, una, 160), &ctx(t_c + rtt), true);
        }
        assert!(!c.eci());
        assert_eq!(c.collapses, 1);
        let t_end = t_c + 3 * rtt;
        c.on_ack(&mut w, MSS, &ctx(t_end - 1));
        assert_eq!(w.cwnd, MSS, "grew inside itt");
        c.on_ack(&mut w, MSS, &ctx(t_end));
        assert_eq!(w.cwnd, 2 * MSS);
        for _ in 0..40 {
            c.on_ack(&mut w, MSS, &ctx(t_end));
        }
        assert_eq!(w.cwnd, 20 * MSS + MSS); // slow start to 20, then +1 MSS per window
                                            // A later ECI outside itt halves again (not a collapse).
        for una in 160..163 {
            c.on_owd(
                &mut w,
                &smp(300 * US, una, 200),
                &ctx(t_end + 10 * rtt),
                true,
            );
        }
        assert_eq!((c.halvings, c.collapses), (2, 1));
        assert_eq!(w.cwnd, (21 * MSS) / 2);
    }

    #[test]
    fn loss_and_timeout_are_reno() {
        let mut c = lp();
        let mut w = win(40 * MSS);
        let cx = CcCtx {
            now: 0,
            flight_size: 30 * MSS,
            srtt: None,
        };
        c.on_loss(&mut w, &cx);
        assert_eq!((w.cwnd, w.ssthresh), (15 * MSS, 15 * MSS));
        c.on_rto(&mut w, &cx, true);
        assert_eq!((w.cwnd, w.ssthresh), (MSS, 15 * MSS));
    }
}
