//! dcnsim-transport: sans-IO TCP endpoints with pluggable congestion control.
//!
//! The sender ([`TcpSender`]) and receiver ([`TcpReceiver`]) are pure state machines: the
//! caller hands them the current time and an event (start, ACK, segment, timer expiry) and
//! gets back the packets to transmit in a caller-owned `Vec`. They never read a clock, never
//! schedule anything and never allocate per call in steady state; the simulator (or the
//! virtual-clock harness in `tests/`) owns time, links and timers. Timers are exposed as
//! deadlines ([`TcpSender::rto_deadline`], [`TcpReceiver::delack_deadline`]) that the caller
//! polls after every call.
//!
//! Layering: this crate depends only on `dcnsim-engine` (for [`Time`]). It knows nothing of
//! packets on the wire, headers, ports or switches.
//!
//! Modules:
//! - [`tcp`]: configuration, wire-level types, sender, receiver, RTO estimator, SACK scoreboard.
//! - [`cc`]: congestion-control algorithms (NewReno, CUBIC, DCTCP, D2TCP, L2DCT, and the delay-based
//!   scavengers LEDBAT and TCP-LP) behind one small trait and a closed enum [`cc::AnyCc`].

pub mod cc;
pub mod tcp;

pub use dcnsim_engine::Time;
pub use tcp::receiver::TcpReceiver;
pub use tcp::rto::RtoEstimator;
pub use tcp::sender::{SenderStats, TcpSender};
pub use tcp::{
    Ack, CcKind, HyStartMode, Profile, RetxCause, RtoMode, RxSegment, Segment, SlowStartIncrease,
    SsthreshBasis, TcpConfig, TltClocking, TltMark,
};
