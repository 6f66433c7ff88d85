//! D2TCP sender (Vamanan, Hasan, Vijaykumar, "Deadline-Aware Datacenter TCP", SIGCOMM 2012,
//! §3; spec §4.3).
//!
//! DCTCP's marking, echo and α (RFC 8257 §3.3, [`Dctcp`]) unchanged; only the size of the
//! cut on a marked window changes. At the cut the sender computes the deadline imminence
//! factor d = T_c / D (D2TCP §3.1.2): T_c = time still needed at the current rate ≈
//! B / (¾·W) RTTs for B bytes left and window W (the ¾ is the sawtooth's average window),
//! D = time left until the flow's deadline; d is clamped to [`d_min`, `d_max`] = [0.5, 2]
//! (§3.1.2). Penalty p = α^d (§3.1.1 eq. 1) and cwnd ← cwnd·(1 − p/2) (eq. 2). Since α ≤ 1,
//! a near-deadline flow (d > 1) gets p < α and backs off less, a far-deadline one (d < 1)
//! more. A flow without a deadline uses d = 1 and is DCTCP exactly (§3.1.2: "for flows
//! without deadlines, d = 1").
//!
//! Window growth and the loss / timeout reaction are DCTCP's (NewReno's).
//!
//! [`d_min`]: crate::TcpConfig::d2tcp_d_min
//! [`d_max`]: crate::TcpConfig::d2tcp_d_max

use super::{CcCtx, CongestionControl, Dctcp, Window};
use crate::tcp::TcpConfig;
use dcnsim_engine::Time;

#[derive(Clone, Debug)]
pub struct D2tcp {
    dctcp: Dctcp,
    d_min: f64,
    d_max: f64,
    /// Flow size (bytes) and absolute deadline, set at flow start ([`CongestionControl::on_flow`]).
    flow: u64,
    deadline: Option<Time>,
    /// `snd_una` as of the last ACK (from `on_delivered`): B = flow − snd_una.
    snd_una: u64,
    /// d used at the last cut (tests and traces); 1 before any cut.
    last_d: f64,
}

impl D2tcp {
    pub fn new(cfg: &TcpConfig) -> Self {
        D2tcp {
            dctcp: Dctcp::new(cfg),
            d_min: cfg.d2tcp_d_min,
            d_max: cfg.d2tcp_d_max,
            flow: 0,
            deadline: None,
            snd_una: 0,
            last_d: 1.0,
        }
    }

    /// Deadline imminence factor d (D2TCP §3.1.2) at `now` for window `cwnd` (bytes) and
    /// smoothed RTT `srtt`, clamped to [d_min, d_max].
    pub fn imminence(&self, now: Time, cwnd: u64, srtt: Option<Time>) -> f64 {
        let Some(dl) = self.deadline else {
            return 1.0; // §3.1.2: non-deadline flows behave as DCTCP.
        };
        let left = self.flow.saturating_sub(self.snd_una);
        if dl <= now {
            // Deadline already passed: the most imminent case (T_c / D → ∞), clamped.
            return self.d_max;
        }
        let Some(rtt) = srtt.filter(|&r| r > 0) else {
            // No RTT sample yet: T_c cannot be expressed in time. CHOICE: d = 1 (DCTCP).
            return 1.0;
        };
        // T_c = B / (¾·W) RTTs (spec §4.3), in time units; D = deadline − now.
        let tc = left as f64 / (0.75 * cwnd.max(1) as f64) * rtt as f64;
        let d = tc / (dl - now) as f64;
        d.clamp(self.d_min, self.d_max)
    }

    pub fn alpha_value(&self) -> f64 {
        self.dctcp.alpha_value()
    }
    pub fn set_alpha(&mut self, a: f64) {
        self.dctcp.set_alpha(a);
    }
    /// d of the last window cut (1.0 before the first).
    pub fn last_d(&self) -> f64 {
        self.last_d
    }
}

impl CongestionControl for D2tcp {
    fn on_flow(&mut self, flow_bytes: u64, deadline: Option<Time>) {
        self.flow = flow_bytes;
        self.deadline = deadline;
    }
    fn on_ack(&mut self, w: &mut Window, acked: u64, ctx: &CcCtx) {
        // Spec §4.3: no marks → W ← W + 1 per RTT (DCTCP/NewReno growth).
        self.dctcp.on_ack(w, acked, ctx);
    }
    fn on_loss(&mut self, w: &mut Window, ctx: &CcCtx) {
        self.dctcp.on_loss(w, ctx);
    }
    fn on_ecn(&mut self, w: &mut Window, ctx: &CcCtx) {
        // D2TCP §3.1.1: p = α^d (eq. 1); W ← W·(1 − p/2) (eq. 2).
        let d = self.imminence(ctx.now, w.cwnd, ctx.srtt);
        self.last_d = d;
        let p = self.dctcp.alpha_value().powf(d);
        self.dctcp.reduce(w, p);
    }
    fn on_rto(&mut self, w: &mut Window, ctx: &CcCtx, first: bool) {
        self.dctcp.on_rto(w, ctx, first);
    }
    fn on_delivered(&mut self, delivered: u64, ece: bool, snd_una: u64, snd_nxt: u64) {
        self.snd_una = snd_una;
        self.dctcp.on_delivered(delivered, ece, snd_una, snd_nxt);
    }
    fn alpha(&self) -> Option<f64> {
        self.dctcp.alpha()
    }
}
