//! L2DCT sender (Munir et al., "Minimizing Flow Completion Times in Data Centers",
//! INFOCOM 2013; spec §4.4 with the values of PIAS-NS2's `tcp.cc` implementation).
//!
//! Approximates least-attained-service scheduling with the window: a flow's weight w_c
//! falls with the bytes it has already sent s (spec §4.4): w_c = w_max for s ≤ 200 KB,
//! w_min for s ≥ 1 MB, linear in between; w_min = 0.125, w_max = 2.5.
//! - Congestion avoidance grows cwnd by k = w_c / w_max segments per RTT (k ∈ [0.05, 1]);
//!   slow start is unchanged (spec §4.4).
//! - On a window with ECN marks: b = α^{w_c} with DCTCP's α, cwnd ← cwnd·(1 − b/2)
//!   (spec §4.4). A young flow (large w_c) gets b < α and backs off less; an old one
//!   (w_c < 1) gets b > α and backs off more.
//! - Loss and timeout: DCTCP's (NewReno's).
//!
//! s is the highest byte sent (`snd_nxt`, retransmissions not counted again), updated on
//! every ACK. The C3 paper's "k ∈ 0.5, 1" conflicts with the original; the spec follows the
//! original (spec §4.4, experiments.md ambiguity 8).

use super::{slow_start, CcCtx, CongestionControl, Dctcp, Window};
use crate::tcp::{SlowStartIncrease, TcpConfig};

#[derive(Clone, Debug)]
pub struct L2dct {
    dctcp: Dctcp,
    ss: SlowStartIncrease,
    w_min: f64,
    w_max: f64,
    s_lo: u64,
    s_hi: u64,
    /// Bytes sent so far (highest `snd_nxt` seen).
    sent: u64,
    /// Fractional segments of increase carried between windows (bytes, as f64).
    frac: f64,
}

impl L2dct {
    pub fn new(cfg: &TcpConfig) -> Self {
        L2dct {
            dctcp: Dctcp::new(cfg),
            ss: cfg.ss_increase,
            w_min: cfg.l2dct_w_min,
            w_max: cfg.l2dct_w_max,
            s_lo: cfg.l2dct_size_lo,
            s_hi: cfg.l2dct_size_hi,
            sent: 0,
            frac: 0.0,
        }
    }

    /// w_c for `s` bytes sent (spec §4.4): w_max up to `s_lo`, w_min from `s_hi`, linear
    /// in between.
    pub fn weight_for(&self, s: u64) -> f64 {
        if s <= self.s_lo {
            self.w_max
        } else if s >= self.s_hi {
            self.w_min
        } else {
            let frac = (s - self.s_lo) as f64 / (self.s_hi - self.s_lo) as f64;
            self.w_max - frac * (self.w_max - self.w_min)
        }
    }
    /// The current weight w_c.
    pub fn weight(&self) -> f64 {
        self.weight_for(self.sent)
    }
    pub fn sent(&self) -> u64 {
        self.sent
    }
    pub fn alpha_value(&self) -> f64 {
        self.dctcp.alpha_value()
    }
    pub fn set_alpha(&mut self, a: f64) {
        self.dctcp.set_alpha(a);
    }
    /// Sets the bytes-sent counter (unit tests).
    pub fn set_sent(&mut self, s: u64) {
        self.sent = s;
    }
}

impl CongestionControl for L2dct {
    fn on_ack(&mut self, w: &mut Window, acked: u64, _ctx: &CcCtx) {
        let mut acked = acked;
        if w.cwnd < w.ssthresh {
            // Spec §4.4: slow start unchanged.
            acked = slow_start(w, acked, self.ss);
            if acked == 0 {
                return;
            }
        }
        // Spec §4.4: congestion avoidance adds k = w_c / w_max segments per window of
        // acknowledged bytes (RFC 3465 byte counting, as NewReno's one segment).
        let k = self.weight() / self.w_max;
        let acc = self.dctcp.bytes_acc_mut();
        *acc += acked;
        if *acc >= w.cwnd {
            *acc -= w.cwnd;
            let inc = k * w.mss as f64 + self.frac;
            let whole = inc.floor();
            self.frac = inc - whole;
            w.cwnd += whole as u64;
            *acc = (*acc).min(w.cwnd);
        }
    }
    fn on_loss(&mut self, w: &mut Window, ctx: &CcCtx) {
        self.dctcp.on_loss(w, ctx);
    }
    fn on_ecn(&mut self, w: &mut Window, _ctx: &CcCtx) {
        // Spec §4.4: b = α^{w_c}; cwnd ← cwnd·(1 − b/2).
        let b = self.dctcp.alpha_value().powf(self.weight());
        self.dctcp.reduce(w, b);
    }
    fn on_rto(&mut self, w: &mut Window, ctx: &CcCtx, first: bool) {
        self.dctcp.on_rto(w, ctx, first);
    }
    fn on_delivered(&mut self, delivered: u64, ece: bool, snd_una: u64, snd_nxt: u64) {
        self.sent = self.sent.max(snd_nxt);
        self.dctcp.on_delivered(delivered, ece, snd_una, snd_nxt);
    }
    fn alpha(&self) -> Option<f64> {
        self.dctcp.alpha()
    }
}
