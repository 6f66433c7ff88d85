//! Congestion control: one algorithm per file behind [`CongestionControl`], dispatched
//! through the closed enum [`AnyCc`] (no trait objects on the hot path).
//!
//! The sender owns loss detection, recovery and timers; a CC only decides the window:
//! - `on_ack`: growth for newly cumulatively-acked bytes. Called only outside loss recovery,
//!   only when the sender was cwnd-limited (RFC 7661 spirit, Linux `tcp_is_cwnd_limited`),
//!   never on an ACK that itself reduced the window.
//! - `on_loss`: entering fast recovery (fast retransmit); sets `ssthresh` and `cwnd`.
//! - `on_ecn`: an ECE reaction the sender has already limited to once per window.
//! - `on_rto`: retransmission timeout; `first` is false for further timeouts of the same
//!   episode (RFC 5681 §3.1: ssthresh is not recomputed then).
//! - `on_delivered`: every ACK's newly delivered (cum-acked + newly SACKed) bytes and ECE
//!   flag, for DCTCP's α.
//!
//! Invariants every CC keeps: `cwnd >= mss` after every call (the sender additionally
//! clamps), `ssthresh >= 2·mss` after a reduction. Floats are used only inside CC maths.

pub mod cubic;
pub mod dctcp;
pub mod newreno;

pub use cubic::Cubic;
pub use dctcp::Dctcp;
pub use newreno::NewReno;

use crate::tcp::{CcKind, TcpConfig};
use dcnsim_engine::Time;

/// The window state a CC manipulates (bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    pub cwnd: u64,
    pub ssthresh: u64,
    pub mss: u64,
}

/// Context passed to CC callbacks.
#[derive(Clone, Copy, Debug)]
pub struct CcCtx {
    pub now: Time,
    /// RFC 5681 FlightSize: `snd_nxt − snd_una` (bytes sent and not cumulatively acked).
    pub flight_size: u64,
    pub srtt: Option<Time>,
}

/// The congestion-control interface.
pub trait CongestionControl {
    fn on_ack(&mut self, w: &mut Window, acked: u64, ctx: &CcCtx);
    fn on_loss(&mut self, w: &mut Window, ctx: &CcCtx);
    /// Classic ECN (RFC 3168 §6.1.2): "the same as for a dropped packet".
    fn on_ecn(&mut self, w: &mut Window, ctx: &CcCtx) {
        self.on_loss(w, ctx);
    }
    fn on_rto(&mut self, w: &mut Window, ctx: &CcCtx, first: bool);
    fn on_delivered(&mut self, _delivered: u64, _ece: bool, _snd_una: u64, _snd_nxt: u64) {}
    fn alpha(&self) -> Option<f64> {
        None
    }
}

/// RFC 5681 eq. (4): ssthresh = max(FlightSize / 2, 2·SMSS).
#[inline]
pub fn reno_ssthresh(flight_size: u64, mss: u64) -> u64 {
    (flight_size / 2).max(2 * mss)
}

/// RFC 5681 §3.1 slow start, eq. (2), with the RFC 3465 §2.2 limit L = 2·SMSS per ACK
/// (so delayed ACKs still roughly double cwnd per RTT, as Linux's per-packet counting does).
/// Stops at ssthresh and returns the acked bytes left over for congestion avoidance.
#[inline]
pub fn slow_start(w: &mut Window, acked: u64) -> u64 {
    debug_assert!(w.cwnd < w.ssthresh);
    let inc = acked.min(2 * w.mss);
    let room = w.ssthresh - w.cwnd;
    if inc < room {
        w.cwnd += inc;
        0
    } else {
        w.cwnd = w.ssthresh;
        acked - room.min(acked)
    }
}

/// RFC 5681 §3.1 congestion avoidance with byte counting (RFC 3465 §2.1): once a full
/// cwnd of bytes has been acknowledged, cwnd grows by one SMSS.
#[inline]
pub fn reno_avoidance(w: &mut Window, acked: u64, bytes_acc: &mut u64) {
    *bytes_acc += acked;
    if *bytes_acc >= w.cwnd {
        *bytes_acc -= w.cwnd;
        w.cwnd += w.mss;
        // A huge cumulative ACK may cover several windows; do not carry more than one.
        *bytes_acc = (*bytes_acc).min(w.cwnd);
    }
}

/// Runtime-selected built-in congestion controls.
#[derive(Clone, Debug)]
pub enum AnyCc {
    NewReno(NewReno),
    Cubic(Cubic),
    Dctcp(Dctcp),
}

impl AnyCc {
    pub fn new(cfg: &TcpConfig) -> Self {
        match cfg.cc {
            CcKind::NewReno => AnyCc::NewReno(NewReno::default()),
            CcKind::Cubic => AnyCc::Cubic(Cubic::new(cfg)),
            CcKind::Dctcp => AnyCc::Dctcp(Dctcp::new(cfg)),
        }
    }

    pub fn kind(&self) -> CcKind {
        match self {
            AnyCc::NewReno(_) => CcKind::NewReno,
            AnyCc::Cubic(_) => CcKind::Cubic,
            AnyCc::Dctcp(_) => CcKind::Dctcp,
        }
    }

    /// CUBIC state, for traces and tests.
    pub fn as_cubic(&self) -> Option<&Cubic> {
        match self {
            AnyCc::Cubic(c) => Some(c),
            _ => None,
        }
    }
}

macro_rules! dispatch {
    ($self:ident, $c:ident => $e:expr) => {
        match $self {
            AnyCc::NewReno($c) => $e,
            AnyCc::Cubic($c) => $e,
            AnyCc::Dctcp($c) => $e,
        }
    };
}

impl CongestionControl for AnyCc {
    #[inline]
    fn on_ack(&mut self, w: &mut Window, acked: u64, ctx: &CcCtx) {
        dispatch!(self, c => c.on_ack(w, acked, ctx))
    }
    #[inline]
    fn on_loss(&mut self, w: &mut Window, ctx: &CcCtx) {
        dispatch!(self, c => c.on_loss(w, ctx))
    }
    #[inline]
    fn on_ecn(&mut self, w: &mut Window, ctx: &CcCtx) {
        dispatch!(self, c => c.on_ecn(w, ctx))
    }
    #[inline]
    fn on_rto(&mut self, w: &mut Window, ctx: &CcCtx, first: bool) {
        dispatch!(self, c => c.on_rto(w, ctx, first))
    }
    #[inline]
    fn on_delivered(&mut self, delivered: u64, ece: bool, una: u64, nxt: u64) {
        dispatch!(self, c => c.on_delivered(delivered, ece, una, nxt))
    }
    #[inline]
    fn alpha(&self) -> Option<f64> {
        dispatch!(self, c => c.alpha())
    }
}
