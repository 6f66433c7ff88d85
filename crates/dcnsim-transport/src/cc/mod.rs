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
//! - `on_flow`: once at flow start (and again if the caller sets a deadline): the flow's
//!   size and absolute deadline, for D2TCP's deadline imminence.
//! - `on_owd`: every ACK's one-way-delay echo ([`crate::Ack::owd`]), for the delay-based
//!   scavengers (LEDBAT, TCP-LP). Called on every acceptable ACK, before growth, so the
//!   delay filters see dupACKs and recovery ACKs too; `open` says whether the CC may change
//!   the window on this ACK (not in fast recovery, no other reduction on this ACK, not an
//!   ECE ACK that RFC 3168 forbids growing on). Returns true if it reduced the window (the
//!   sender then skips `on_ack` growth for this ACK). Unlike `on_ack` it is not gated on
//!   the sender being cwnd-limited: LEDBAT must be able to shrink at any time and bounds
//!   its own growth by FlightSize (RFC 6817 §2.4.2 ALLOWED_INCREASE).
//!
//! Invariants every CC keeps: `cwnd >= mss` after every call (the sender additionally
//! clamps), `ssthresh >= 2·mss` after a reduction. Floats are used only inside CC maths.

pub mod cubic;
pub mod d2tcp;
pub mod dctcp;
pub mod l2dct;
pub mod ledbat;
pub mod newreno;
pub mod tcp_lp;

pub use cubic::Cubic;
pub use d2tcp::D2tcp;
pub use dctcp::Dctcp;
pub use l2dct::L2dct;
pub use ledbat::Ledbat;
pub use newreno::NewReno;
pub use tcp_lp::TcpLp;

use crate::tcp::{CcKind, SlowStartIncrease, TcpConfig};
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
    /// In loss reactions (`on_loss`, `on_rto`, classic `on_ecn`) it is the value the
    /// sender's `ssthresh_basis` selects instead: FlightSize, RFC 6675 pipe, or cwnd.
    pub flight_size: u64,
    pub srtt: Option<Time>,
}

/// What one ACK tells a delay-based CC (see [`CongestionControl::on_owd`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OwdSample {
    /// One-way delay of the segment that triggered the ACK ([`crate::Ack::owd`]); 0 = none.
    pub owd: Time,
    /// Bytes newly cumulatively acknowledged by this ACK.
    pub acked: u64,
    /// `snd_una` after this ACK.
    pub snd_una: u64,
    /// `snd_nxt` when this ACK arrived.
    pub snd_nxt: u64,
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
    /// The flow's size (bytes) and absolute deadline, if any.
    fn on_flow(&mut self, _flow_bytes: u64, _deadline: Option<Time>) {}
    fn on_delivered(&mut self, _delivered: u64, _ece: bool, _snd_una: u64, _snd_nxt: u64) {}
    /// One ACK's delay sample; see the module docs for `open` and the return value.
    fn on_owd(&mut self, _w: &mut Window, _s: &OwdSample, _ctx: &CcCtx, _open: bool) -> bool {
        false
    }
    fn alpha(&self) -> Option<f64> {
        None
    }
}

/// RFC 5681 eq. (4): ssthresh = max(FlightSize / 2, 2·SMSS).
#[inline]
pub fn reno_ssthresh(flight_size: u64, mss: u64) -> u64 {
    (flight_size / 2).max(2 * mss)
}

/// RFC 5681 §3.1 slow start, eq. (2). Per ACK the window grows by the bytes it acknowledges
/// up to the RFC 3465 §2.2 limit L·SMSS (`Abc { l }`, `l = 0`: no limit, as Linux's
/// `tcp_slow_start` counts every segment), or by one SMSS whatever it acknowledges
/// (`PerAck`, ns-3 `TcpNewReno::SlowStart`). Stops at ssthresh and returns the acked bytes
/// left over for congestion avoidance.
#[inline]
pub fn slow_start(w: &mut Window, acked: u64, ss: SlowStartIncrease) -> u64 {
    debug_assert!(w.cwnd < w.ssthresh);
    let inc = match ss {
        SlowStartIncrease::Abc { l: 0 } => acked,
        SlowStartIncrease::Abc { l } => acked.min(l as u64 * w.mss),
        SlowStartIncrease::PerAck if acked > 0 => w.mss,
        SlowStartIncrease::PerAck => 0,
    };
    let room = w.ssthresh - w.cwnd;
    if inc < room {
        w.cwnd += inc;
        0
    } else {
        w.cwnd = w.ssthresh;
        acked.saturating_sub(room)
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
    D2tcp(D2tcp),
    L2dct(L2dct),
    Ledbat(Ledbat),
    TcpLp(TcpLp),
}

impl AnyCc {
    pub fn new(cfg: &TcpConfig) -> Self {
        match cfg.cc {
            CcKind::NewReno => AnyCc::NewReno(NewReno::new(cfg)),
            CcKind::Cubic => AnyCc::Cubic(Cubic::new(cfg)),
            CcKind::Dctcp => AnyCc::Dctcp(Dctcp::new(cfg)),
            CcKind::D2tcp => AnyCc::D2tcp(D2tcp::new(cfg)),
            CcKind::L2dct => AnyCc::L2dct(L2dct::new(cfg)),
            CcKind::Ledbat => AnyCc::Ledbat(Ledbat::new(cfg)),
            CcKind::TcpLp => AnyCc::TcpLp(TcpLp::new(cfg)),
        }
    }

    pub fn kind(&self) -> CcKind {
        match self {
            AnyCc::NewReno(_) => CcKind::NewReno,
            AnyCc::Cubic(_) => CcKind::Cubic,
            AnyCc::Dctcp(_) => CcKind::Dctcp,
            AnyCc::D2tcp(_) => CcKind::D2tcp,
            AnyCc::L2dct(_) => CcKind::L2dct,
            AnyCc::Ledbat(_) => CcKind::Ledbat,
            AnyCc::TcpLp(_) => CcKind::TcpLp,
        }
    }

    /// CUBIC state, for traces and tests.
    pub fn as_cubic(&self) -> Option<&Cubic> {
        match self {
            AnyCc::Cubic(c) => Some(c),
            _ => None,
        }
    }

    /// D2TCP state, for traces and tests.
    pub fn as_d2tcp(&self) -> Option<&D2tcp> {
        match self {
            AnyCc::D2tcp(c) => Some(c),
            _ => None,
        }
    }

    /// L2DCT state, for traces and tests.
    pub fn as_l2dct(&self) -> Option<&L2dct> {
        match self {
            AnyCc::L2dct(c) => Some(c),
            _ => None,
        }
    }

    /// LEDBAT state, for traces and tests.
    pub fn as_ledbat(&self) -> Option<&Ledbat> {
        match self {
            AnyCc::Ledbat(c) => Some(c),
            _ => None,
        }
    }

    /// TCP-LP state, for traces and tests.
    pub fn as_tcp_lp(&self) -> Option<&TcpLp> {
        match self {
            AnyCc::TcpLp(c) => Some(c),
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
            AnyCc::D2tcp($c) => $e,
            AnyCc::L2dct($c) => $e,
            AnyCc::Ledbat($c) => $e,
            AnyCc::TcpLp($c) => $e,
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
    fn on_flow(&mut self, flow_bytes: u64, deadline: Option<Time>) {
        dispatch!(self, c => c.on_flow(flow_bytes, deadline))
    }
    #[inline]
    fn on_delivered(&mut self, delivered: u64, ece: bool, una: u64, nxt: u64) {
        dispatch!(self, c => c.on_delivered(delivered, ece, una, nxt))
    }
    #[inline]
    fn on_owd(&mut self, w: &mut Window, s: &OwdSample, ctx: &CcCtx, open: bool) -> bool {
        dispatch!(self, c => c.on_owd(w, s, ctx, open))
    }
    #[inline]
    fn alpha(&self) -> Option<f64> {
        dispatch!(self, c => c.alpha())
    }
}
