//! TCP sender: windowing, loss detection and recovery, retransmission timer.
//!
//! Phases:
//! - `Open`: new data under `cwnd` (+ RFC 3042 limited transmit without SACK).
//! - `Fast`: fast recovery entered on `dupack_thresh` duplicate ACKs (or, with SACK, when
//!   RFC 6675 IsLost(HighACK+1) holds). Without SACK: RFC 6582 NewReno with cwnd inflation
//!   and one retransmission per partial ACK. With SACK: RFC 6675 NextSeg/pipe.
//! - `Rto`: after a timeout, go-back-N from `snd_una` over `[snd_una, recover)`, skipping
//!   SACKed bytes, in slow start from cwnd = 1 MSS.
//!
//! Bytes in flight are RFC 6675's `pipe` in every phase, computed from three boundaries
//! over the SACK scoreboard: un-SACKed bytes below `lost_end` are deemed lost (not in
//! flight), un-SACKed bytes below `rxt` (HighRxt) have been retransmitted (in flight once
//! more). Without SACK the scoreboard is empty and, outside `Rto`, `lost_end = rxt =
//! snd_una`, so pipe = FlightSize = `snd_nxt − snd_una` as RFC 6582 expects.
//!
//! Invariants: `snd_una <= snd_nxt <= flow_bytes`; `snd_nxt − snd_una <= rwnd`; SACK
//! scoreboard ⊂ `(snd_una, snd_nxt]`; `cwnd >= mss`; a segment not mandated by the RFCs
//! (fast retransmit, RTO retransmission, NewReno partial-ACK retransmission) or by TLT
//! (important ACK-clocking: one segment of at most one MSS per echo, `tlt.rs`) is sent only
//! if `pipe + len <= cwnd + allowance` and `pipe + len <= rwnd`. Segments never cross an
//! MSS boundary; they start on one unless TLT's 1-byte clocking moved `snd_una` inside a
//! segment.
//! No input from the network can make the sender panic: ACKs beyond `snd_nxt` or below
//! `snd_una` are ignored, SACK blocks are clamped to `(snd_una, snd_nxt]`.
//!
//! Optional mechanisms of real stacks (each a `TcpConfig` key, off in the `rfc` profile;
//! docs/tcp.md): HyStart/HyStart++ (`hystart.rs`), PRR (RFC 6937) for the reduction in
//! fast recovery, RACK loss detection (`rack.rs`) and the tail-loss probe (RFC 8985 §7),
//! F-RTO (RFC 5682) and undo of spurious reductions (RFC 3522 timestamps, RFC 3708 D-SACK,
//! RFC 4015 response), and timers quantized to a tick. All sender timers (RTO, probe,
//! RACK reordering) are exposed as one deadline, [`TcpSender::rto_deadline`]. TLT
//! (Lim et al., EuroSys 2021) lives in `sender/tlt.rs`.
//!
//! Layout: the state and `new` here; ACK processing in `sender/ack.rs`, the timer expiry
//! and RTT samples in `sender/timeout.rs`, fast-recovery entry and the deemed-lost boundary
//! in `sender/recovery.rs`, segment selection and sending in `sender/send.rs`, read-only
//! views in `sender/accessors.rs`, the optional mechanisms in `sender/mechanisms.rs`.

mod accessors;
mod ack;
mod mechanisms;
mod recovery;
mod send;
mod timeout;
mod tlt;

use super::hystart::HyStart;
use super::rack::Rack;
use super::rto::RtoEstimator;
use super::sack::RangeSet;
use super::{HyStartMode, Segment, SsthreshBasis, TcpConfig};
use crate::cc::{AnyCc, CcCtx, CongestionControl, Window};
use dcnsim_engine::Time;
use mechanisms::Undo;
use tlt::Tlt;

/// Counters, always on.
#[derive(Clone, Debug, Default)]
pub struct SenderStats {
    /// Data segments sent, including retransmissions.
    pub data_pkts: u64,
    /// Retransmitted segments (any cause).
    pub retx_pkts: u64,
    /// Fast-recovery episodes entered (fast retransmits).
    pub fast_retx: u64,
    /// Retransmission timeouts.
    pub rto_count: u64,
    /// ACKs received with ECE set.
    pub ecn_echoes: u64,
    pub max_cwnd: u64,
    /// Bytes cumulatively acknowledged.
    pub bytes_acked: u64,
    /// Window reductions in response to ECE (DCTCP or classic).
    pub ecn_cuts: u64,
    /// Tail-loss probes sent (RFC 8985 §7.3).
    pub tlp_probes: u64,
    /// Losses a probe recovered without a timeout: a probe retransmission that repaired
    /// the tail, or a recovery its ACK started (RFC 8985 §7.4).
    pub tlp_recoveries: u64,
    /// Timeouts undone as spurious (F-RTO, timestamps or D-SACK).
    pub undo_rto: u64,
    /// Fast recoveries undone as spurious (timestamps or D-SACK).
    pub undo_fast: u64,
    /// Slow start ended by HyStart / HyStart++ before any loss.
    pub hystart_exits: u64,
    /// ACKs carrying a D-SACK block.
    pub dsacks: u64,
    /// TLT (Lim et al. §5.1): data segments sent marked important (Important Data and
    /// Important Clock Data) and their payload bytes.
    pub important_pkts: u64,
    pub important_bytes: u64,
    /// TLT important ACK-clocking: segments sent regardless of the window and their payload
    /// bytes (Fig. 17b).
    pub clock_pkts: u64,
    pub clock_bytes: u64,
    /// TLT: segments an Important Echo revealed as lost (unimportant segments sent before
    /// the echoed important one and not (S)ACKed by it).
    pub tlt_lost_segs: u64,
    /// TLT Appendix A: Important Clock Echoes dropped at the TLT layer (never counted as
    /// duplicate ACKs).
    pub clock_echoes_dropped: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Phase {
    Open,
    Fast,
    Rto,
}

/// A TCP sender for one flow of known size.
#[derive(Clone, Debug)]
pub struct TcpSender {
    mss: u64,
    flow: u64,
    rwnd: u64,
    sack: bool,
    dupthresh: u32,
    ecn: bool,
    dctcp: bool,
    timestamps: bool,

    snd_una: u64,
    /// One past the highest byte ever sent (RFC 6675 HighData + 1).
    snd_nxt: u64,
    win: Window,
    cc: AnyCc,
    rto: RtoEstimator,
    rto_deadline: Option<Time>,
    sb: RangeSet,

    phase: Phase,
    /// RFC 6582 `recover` / RFC 6675 RecoveryPoint (exclusive end): no new recovery until
    /// `snd_una >= recover`.
    recover: u64,
    dupacks: u32,
    /// RFC 6675 HighRxt (exclusive end of the highest retransmitted byte) / go-back-N point.
    rxt: u64,
    /// With SACK, the first retransmitted segment of a recovery counts as lost even before
    /// the scoreboard says so (RFC 6675 §5 step 4.3 retransmits it unconditionally).
    fr_lost_floor: u64,
    /// RFC 6582 cwnd inflation (bytes) during NewReno fast recovery.
    inflation: u64,
    partial_seen: bool,
    consecutive_rtos: u32,
    /// ECN: no further ECE reaction until `snd_una >= cwr_end` (once per window).
    cwr_end: u64,
    /// Whether the last send attempt stopped because of cwnd (gates cwnd growth).
    cwnd_limited: bool,
    /// Karn/RFC 6298 §3 RTT timing when timestamps are off: (end seq, send time).
    timed: Option<(u64, Time)>,
    started: bool,
    /// Halted by cross-queue congestion notification (LPF §5, TCP+): no transmissions, no
    /// retransmission timer, congestion state frozen.
    halted: bool,
    /// Time left on the retransmission timer when it was suspended by a halt.
    rto_left: Option<Time>,
    stats: SenderStats,

    // ---- optional mechanisms (docs/tcp.md) ----
    basis: SsthreshBasis,
    /// Timer granularity (0 = exact).
    tick: Time,
    hystart: Option<HyStart>,
    /// RFC 6937 PRR: (prr_delivered, prr_out, RecoverFS) during fast recovery.
    prr: Option<(u64, u64, u64)>,
    prr_on: bool,
    rack: Option<Box<Rack>>,
    /// With RACK: end of the deemed-lost prefix above HighRxt.
    rack_lost: u64,
    rack_deadline: Option<Time>,
    tlp: bool,
    pto_min: Time,
    pto_slack: Time,
    tlp_max_ack_delay: Time,
    pto_deadline: Option<Time>,
    /// The outstanding probe: (TLP.end_seq, whether it was a retransmission).
    tlp_end: Option<(u64, bool)>,
    undo_on: bool,
    undo: Option<Undo>,
    frto_on: bool,
    /// F-RTO in progress after this timeout (RFC 5682 §3).
    frto: bool,
    /// F-RTO step 2b: this ACK sends new data instead of retransmitting.
    frto_new: bool,
    /// TLT (`sender/tlt.rs`).
    tlt: Option<Box<Tlt>>,
    /// Any optional mechanism on (selects the `ack_impl` instance).
    extras: bool,
}

impl TcpSender {
    /// A sender for `flow_bytes` bytes. The config should have passed
    /// [`TcpConfig::validate`]; out-of-range values are clamped rather than panicking.
    pub fn new(cfg: &TcpConfig, flow_bytes: u64) -> Self {
        let mss = (cfg.mss as u64).max(1);
        let cwnd = mss * (cfg.init_cwnd_pkts as u64).max(1); // RFC 6928 / RFC 5681 IW
        let tlp_max_ack_delay = cfg.tlp_max_ack_delay.unwrap_or(cfg.rto_min);
        TcpSender {
            mss,
            flow: flow_bytes,
            rwnd: cfg.rwnd_bytes.max(mss),
            sack: cfg.sack,
            dupthresh: cfg.dupack_thresh.max(1),
            ecn: cfg.ecn,
            dctcp: cfg.cc.is_dctcp_family(),
            timestamps: cfg.timestamps,
            snd_una: 0,
            snd_nxt: 0,
            // RFC 5681 §3.1: initial ssthresh "arbitrarily high" unless configured.
            win: Window {
                cwnd,
                ssthresh: cfg.init_ssthresh.unwrap_or(u64::MAX).max(2 * mss),
                mss,
            },
            cc: {
                let mut cc = AnyCc::new(cfg);
                cc.on_flow(flow_bytes, None);
                cc
            },
            rto: RtoEstimator::new(cfg),
            rto_deadline: None,
            sb: RangeSet::with_capacity(16),
            phase: Phase::Open,
            recover: 0,
            dupacks: 0,
            rxt: 0,
            fr_lost_floor: 0,
            inflation: 0,
            partial_seen: false,
            consecutive_rtos: 0,
            cwr_end: 0,
            cwnd_limited: false,
            timed: None,
            started: false,
            halted: false,
            rto_left: None,
            stats: SenderStats {
                max_cwnd: cwnd,
                ..Default::default()
            },
            basis: cfg.ssthresh_basis,
            tick: cfg.timer_tick,
            hystart: (cfg.hystart != HyStartMode::Off).then(|| HyStart::new(cfg)),
            prr: None,
            prr_on: cfg.prr,
            rack: (cfg.rack && cfg.sack).then(|| Box::new(Rack::new(mss))),
            rack_lost: 0,
            rack_deadline: None,
            tlp: cfg.tlp,
            pto_min: cfg.pto_min,
            pto_slack: cfg.pto_slack,
            tlp_max_ack_delay,
            pto_deadline: None,
            tlp_end: None,
            undo_on: cfg.undo,
            undo: None,
            frto_on: cfg.frto,
            frto: false,
            frto_new: false,
            tlt: cfg.tlt.map(|c| Box::new(Tlt::new(c))),
            extras: cfg.hystart != HyStartMode::Off
                || cfg.prr
                || cfg.rack
                || cfg.tlp
                || cfg.undo
                || cfg.frto
                || cfg.dsack
                || cfg.tlt.is_some(),
        }
    }

    /// The flow's absolute deadline (D2TCP, spec §4.3); other CCs ignore it.
    pub fn set_deadline(&mut self, deadline: Option<Time>) {
        self.cc.on_flow(self.flow, deadline);
    }

    /// Builder form of [`TcpSender::set_deadline`].
    pub fn with_deadline(mut self, deadline: Option<Time>) -> Self {
        self.set_deadline(deadline);
        self
    }

    /// Emits the initial window. Later calls do nothing.
    pub fn start(&mut self, now: Time, out: &mut Vec<Segment>) {
        if self.started {
            return;
        }
        self.started = true;
        let from = out.len();
        self.try_send(now, out);
        if self.tlt.is_some() {
            // TLT §5.1: the last packet of the initial window is Important Data.
            self.tlt_mark_iw(from, out);
        }
        if self.tlp {
            self.schedule_pto(now);
        }
    }

    /// Halts or resumes the sender (cross-queue congestion notification, LPF §5 "TCP+":
    /// "stop packet transmission and halt congestion control for low-priority flows upon
    /// experiencing priority-induced congestion"). Halting stops all transmissions and
    /// pauses the retransmission timer so queued packets are not declared lost; resuming
    /// continues its countdown where it stopped (or starts one if the halt acknowledged
    /// everything in flight and new data goes out) and sends what the (unchanged) window
    /// allows.
    pub fn set_halted(&mut self, now: Time, halted: bool, out: &mut Vec<Segment>) {
        if self.halted == halted {
            return;
        }
        self.halted = halted;
        if halted {
            // Pause the countdown: what is left resumes with the sender (restarting the full
            // RTO on every resume would let on-off halts shorter than the RTO postpone a real
            // loss's recovery forever).
            self.rto_left = self.rto_deadline.take().map(|d| d.saturating_sub(now));
            self.pto_deadline = None;
            self.rack_deadline = None;
            return;
        }
        if self.started && !self.done() {
            if self.snd_una < self.snd_nxt {
                let left = self.rto_left.unwrap_or_else(|| self.rto.rto());
                self.rto_deadline = Some(now.saturating_add(left));
            }
            self.try_send(now, out);
        }
        self.rto_left = None;
    }

    // ---- internals ----

    fn ctx(&self, now: Time) -> CcCtx {
        CcCtx {
            now,
            flight_size: self.snd_nxt - self.snd_una,
            srtt: self.rto.srtt(),
        }
    }

    /// The context of a loss reaction: `flight_size` is what `ssthresh_basis` halves.
    fn loss_ctx(&self, now: Time) -> CcCtx {
        let basis = match self.basis {
            SsthreshBasis::FlightSize => self.snd_nxt - self.snd_una, // RFC 5681 eq. (4)
            SsthreshBasis::Pipe => self.bytes_in_flight(),            // ns-3 BytesInFlight()
            SsthreshBasis::Cwnd => self.win.cwnd,                     // Linux tcp_reno_ssthresh
        };
        CcCtx {
            flight_size: basis,
            ..self.ctx(now)
        }
    }

    /// When a timer of duration `d` armed at `now` fires: exactly, or with a tick on the
    /// tick boundary `d` rounded up later (Linux jiffies: `jiffies + usecs_to_jiffies(d)`).
    #[inline]
    fn timer_at(&self, now: Time, d: Time) -> Time {
        super::timer_deadline(now, d, self.tick)
    }
}
