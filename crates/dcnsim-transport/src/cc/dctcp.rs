//! DCTCP sender (RFC 8257 §3.3–§3.5).
//!
//! Once per window of data (the window ends when `snd_una` passes `WindowEnd`, which is
//! then set to `snd_nxt`), α ← (1 − g)·α + g·F with F = bytes delivered by ECE-carrying ACKs
//! / bytes delivered, both counted over that window. On ECE (the sender limits this to once
//! per window), cwnd ← cwnd·(1 − α/2). Growth and loss reaction are NewReno's (§3.5: "DCTCP
//! ... behaves as standard TCP on loss").
//!
//! Invariants: α ∈ [0, 1]; after a reduction `cwnd == ssthresh >= 2·mss` (Linux floor).

use super::{CcCtx, CongestionControl, NewReno, Window};
use crate::tcp::TcpConfig;

#[derive(Clone, Debug)]
pub struct Dctcp {
    g: f64,
    alpha: f64,
    window_end: u64,
    bytes_acked: u64,
    bytes_marked: u64,
    /// Window arithmetic outside ECN reactions is NewReno's (RFC 8257 §3.5).
    reno: NewReno,
    /// Floor of the window after an ECN cut (Linux 2 segments, ns-3 none).
    min_cwnd: u64,
}

impl Dctcp {
    pub fn new(cfg: &TcpConfig) -> Self {
        Dctcp {
            g: cfg.dctcp_g,
            alpha: cfg.dctcp_alpha_init.clamp(0.0, 1.0),
            window_end: 0,
            bytes_acked: 0,
            bytes_marked: 0,
            reno: NewReno::new(cfg),
            min_cwnd: cfg.dctcp_min_cwnd.max(1) as u64,
        }
    }
}

impl Dctcp {
    /// The DCTCP-family cut with penalty `p` ∈ [0, 1]: cwnd ← cwnd·(1 − p/2). DCTCP uses
    /// p = α (RFC 8257 §3.3), D2TCP p = α^d, L2DCT b = α^w (spec §4.3/§4.4). Linux
    /// `dctcp_ssthresh` floors at 2 segments, ns-3 `TcpDctcp::ReduceCwnd` does not
    /// (`dctcp_min_cwnd`).
    pub(crate) fn reduce(&mut self, w: &mut Window, p: f64) {
        let cut = (w.cwnd as f64 * p / 2.0) as u64;
        w.ssthresh = w.cwnd.saturating_sub(cut).max(self.min_cwnd * w.mss);
        w.cwnd = w.ssthresh;
        // Additive increase keeps running across ECN cuts (DCTCP's control law is +1 MSS
        // per RTT and −α/2 per marked window); zeroing the byte counter here would stop
        // growth entirely whenever every window carries a mark.
        self.reno.bytes_acc = self.reno.bytes_acc.min(w.cwnd);
    }

    /// The current α (RFC 8257 §3.3).
    pub fn alpha_value(&self) -> f64 {
        self.alpha
    }

    /// Sets α (tests and the D2TCP/L2DCT unit tests).
    pub fn set_alpha(&mut self, a: f64) {
        self.alpha = a.clamp(0.0, 1.0);
    }

    /// The congestion-avoidance byte counter (RFC 3465 §2.1), for L2DCT's weighted increase.
    pub(crate) fn bytes_acc_mut(&mut self) -> &mut u64 {
        &mut self.reno.bytes_acc
    }
}

impl CongestionControl for Dctcp {
    fn on_ack(&mut self, w: &mut Window, acked: u64, ctx: &CcCtx) {
        self.reno.on_ack(w, acked, ctx);
    }

    fn on_loss(&mut self, w: &mut Window, ctx: &CcCtx) {
        // RFC 8257 §3.5: on loss, standard halving (RFC 5681 eq. 4).
        self.reno.on_loss(w, ctx);
    }

    fn on_ecn(&mut self, w: &mut Window, _ctx: &CcCtx) {
        // RFC 8257 §3.3 (last step): cwnd = cwnd × (1 − α/2).
        self.reduce(w, self.alpha);
    }

    fn on_rto(&mut self, w: &mut Window, ctx: &CcCtx, first: bool) {
        self.reno.on_rto(w, ctx, first);
    }

    fn on_delivered(&mut self, delivered: u64, ece: bool, snd_una: u64, snd_nxt: u64) {
        // RFC 8257 §3.3: accumulate bytes acked and bytes acked with ECE ...
        self.bytes_acked += delivered;
        if ece {
            self.bytes_marked += delivered;
        }
        // ... and once SND.UNA passes WindowEnd, fold F into α and open a new window.
        if snd_una >= self.window_end && self.bytes_acked > 0 {
            let f = self.bytes_marked as f64 / self.bytes_acked as f64;
            self.alpha = ((1.0 - self.g) * self.alpha + self.g * f).clamp(0.0, 1.0);
            self.window_end = snd_nxt;
            self.bytes_acked = 0;
            self.bytes_marked = 0;
        }
    }

    fn alpha(&self) -> Option<f64> {
        Some(self.alpha)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alpha_ewma_per_window_and_cut() {
        let cfg = TcpConfig {
            dctcp_alpha_init: 0.0,
            ..Default::default()
        };
        let mut d = Dctcp::new(&cfg);
        // Window 1 ends at the first ACK (WindowEnd starts at 0): half the bytes marked.
        d.on_delivered(100, true, 100, 1000);
        assert!((d.alpha - 1.0 / 16.0).abs() < 1e-12);
        // Not yet past WindowEnd = 1000: no update.
        d.on_delivered(500, false, 600, 2000);
        assert!((d.alpha - 1.0 / 16.0).abs() < 1e-12);
        d.on_delivered(500, true, 1100, 3000); // F = 0.5
        let want = (15.0 / 16.0) * (1.0 / 16.0) + 0.5 / 16.0;
        assert!((d.alpha - want).abs() < 1e-12);
        let mut w = Window {
            cwnd: 100_000,
            ssthresh: u64::MAX,
            mss: 1000,
        };
        d.alpha = 0.5;
        d.on_ecn(
            &mut w,
            &CcCtx {
                now: 0,
                flight_size: 0,
                srtt: None,
            },
        );
        assert_eq!(w.cwnd, 75_000);
        d.alpha = 1.0;
        w.cwnd = 3000;
        d.on_ecn(
            &mut w,
            &CcCtx {
                now: 0,
                flight_size: 0,
                srtt: None,
            },
        );
        assert_eq!(w.cwnd, 2000);
    }
}
