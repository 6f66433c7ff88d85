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

mod mechanisms;
mod tlt;

use super::hystart::HyStart;
use super::rack::Rack;
use super::rto::RtoEstimator;
use super::sack::RangeSet;
use super::{Ack, HyStartMode, RetxCause, Segment, SsthreshBasis, TcpConfig, TltMark};
use crate::cc::{AnyCc, CcCtx, CongestionControl, OwdSample, Window};
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

    /// Processes one ACK and emits whatever the window now allows.
    pub fn on_ack(&mut self, now: Time, ack: &Ack, out: &mut Vec<Segment>) {
        // One instance per setting of the optional mechanisms, so that with all of them
        // off their tests compile away and the common path costs what it did without them.
        if self.extras {
            self.ack_impl::<true>(now, ack, out);
        } else {
            self.ack_impl::<false>(now, ack, out);
        }
    }

    #[inline(always)]
    fn ack_impl<const X: bool>(&mut self, now: Time, ack: &Ack, out: &mut Vec<Segment>) {
        if !self.started || self.done() {
            return;
        }
        // TLT Alg. 1 l.9–13: echo marks; Appendix A drops a duplicate Important Clock Echo.
        if X && ack.mark != TltMark::None && self.tlt.is_some() && self.tlt_on_echo(now, ack, out) {
            return;
        }
        // RFC 9293 §3.10.7.4: an ACK for data not yet sent is ignored; an ACK below
        // snd_una is stale (reordered) and carries nothing we can trust.
        if ack.ack > self.snd_nxt || ack.ack < self.snd_una {
            return;
        }
        if ack.ece {
            self.stats.ecn_echoes += 1;
        }
        let mss = self.mss;
        let old_una = self.snd_una;
        let sacked_before = self.sb.total();

        // RFC 2883 / RFC 3708: a D-SACK reports a segment received twice.
        let dsack = if X && ack.dsack && self.sack {
            ack.dsack_block()
        } else {
            None
        };
        if let Some(d) = dsack {
            self.on_dsack(d);
        }

        // RFC 6675 §5 / RFC 2018 §4: update the scoreboard from the SACK blocks.
        let mut newly_sacked = 0;
        let mut orig_sacked = false;
        if self.sack {
            let blocks = if dsack.is_some() {
                ack.sack_ranges()
            } else {
                ack.sack_blocks()
            };
            for &(s, e) in blocks {
                let s = s.max(ack.ack);
                let e = e.min(self.snd_nxt);
                if s >= e {
                    continue;
                }
                if X && self.rack.is_some() {
                    // RACK needs the newly SACKed ranges themselves, not just their size.
                    self.rack_delivered(s, e, now, ack.tsecr);
                }
                let n = self.sb.insert(s, e);
                // F-RTO's FLAG_ORIG_SACK_ACKED: newly SACKed data above the retransmissions.
                orig_sacked |= n > 0 && e > self.rxt;
                newly_sacked += n;
            }
        }
        let acked = ack.ack - old_una;
        let mut restart_timer = acked > 0;
        let mut rtt = None;
        if acked > 0 {
            if X && self.rack.is_some() {
                // Cumulatively acknowledged bytes not SACKed before.
                self.rack_delivered(old_una, ack.ack, now, ack.tsecr);
            }
            self.snd_una = ack.ack;
            self.sb.remove_below(self.snd_una);
            self.stats.bytes_acked += acked;
            self.consecutive_rtos = 0;
            rtt = self.sample_rtt(now, ack);
        }
        if X && ack.mark != TltMark::None && self.tlt.is_some() {
            // TLT §5.1 / Alg. 1 l.8: loss detection at an Important (Clock) Echo.
            self.tlt_judge();
        }
        if self.halted {
            // LPF §5 (TCP+): while halted, ACKs still advance snd_una and the scoreboard, but
            // congestion control is frozen (no recovery, no growth, no back-off) and the
            // retransmission timer stays paused; nothing is sent. New data acknowledged
            // restarts the paused timer (RFC 6298 (5.3)) for when the sender resumes.
            if acked > 0 {
                self.rto_left = (self.snd_una < self.snd_nxt).then(|| self.rto.rto());
            }
            return;
        }
        let delivered = (acked + self.sb.total()).saturating_sub(sacked_before);
        // RFC 5681 §2 / RFC 6675 §2: a duplicate ACK acknowledges nothing new while data is
        // outstanding; with SACK it must also SACK new data.
        let is_dup = acked == 0 && self.snd_una < self.snd_nxt && (!self.sack || newly_sacked > 0);
        let ece = self.ecn && ack.ece;
        if self.ecn {
            self.cc
                .on_delivered(delivered, ece, self.snd_una, self.snd_nxt);
        }

        // ---- tail-loss probe outcome (RFC 8985 §7.4) ----
        let mut reduced = X && self.tlp_end.is_some() && self.tlp_outcome(now, dsack);

        // ---- undo of a spurious reduction (RFC 3522 / RFC 3708 / RFC 5682) ----
        if X && self.undo.is_some() && self.may_undo(ack, acked > 0) {
            self.do_undo();
        }

        // ---- loss recovery state machine ----
        let mut recovery_ended = false;
        match self.phase {
            Phase::Fast => {
                if self.snd_una >= self.recover {
                    // RFC 6582 §3.2 step 3 (full ACK; option 2: cwnd = ssthresh) and
                    // RFC 6675 §5 step (A): recovery ends when HighACK >= RecoveryPoint;
                    // RFC 6937: cwnd = ssthresh at the end of recovery.
                    self.phase = Phase::Open;
                    self.win.cwnd = self.win.ssthresh.max(mss);
                    self.inflation = 0;
                    self.dupacks = 0;
                    self.prr = None;
                    reduced = true;
                    recovery_ended = true;
                } else if !self.sack {
                    if acked > 0 {
                        // RFC 6582 §3.2 step 5: partial ACK — retransmit the first
                        // unacknowledged segment, deflate by the amount acked, add back one
                        // SMSS if at least one SMSS was acked.
                        let (seq, len) = self.chunk(self.snd_una, self.snd_nxt);
                        self.emit(now, seq, len, Some(RetxCause::Recovery), out);
                        self.inflation = self.inflation.saturating_sub(acked);
                        if acked >= mss {
                            self.inflation += mss;
                        }
                        // "Impatient" variant (RFC 6582 §3.2 step 5, §4): reset the
                        // retransmit timer only for the first partial ACK.
                        restart_timer = !self.partial_seen;
                        self.partial_seen = true;
                    } else if is_dup {
                        // RFC 6582 §3.2 step 4: inflate by one SMSS per further dupack.
                        self.inflation += mss;
                    }
                }
                // With SACK, the send loop below is RFC 6675 §5 step (C).
            }
            Phase::Rto => {
                if X && self.frto {
                    // Acknowledged (cumulatively or by SACK) data never retransmitted.
                    let orig_acked = orig_sacked || self.snd_una > self.rxt.max(old_una);
                    self.frto_step(acked > 0, orig_acked, is_dup || newly_sacked > 0);
                }
                if self.phase == Phase::Rto && self.snd_una >= self.recover {
                    self.phase = Phase::Open;
                    self.frto = false;
                    recovery_ended = true;
                }
                self.dupacks = 0;
            }
            Phase::Open => {}
        }
        if X && !self.sack && self.phase == Phase::Fast {
            // TLT Alg. 1 l.18–22 without SACK: a retransmission of snd_una found lost again
            // is resent at once (mandated, as a NewReno partial-ACK retransmission).
            if let Some((seq, len)) = self.tlt_first_relost() {
                self.emit(now, seq, len, Some(RetxCause::Recovery), out);
            }
        }
        if let (true, Some(r)) = (X, &mut self.rack) {
            r.on_ack(self.snd_una, recovery_ended);
            self.rack_update(now);
        }
        if self.phase == Phase::Open && !reduced {
            if acked > 0 {
                self.dupacks = 0;
            }
            if is_dup {
                self.dupacks = self.dupacks.saturating_add(1);
            }
            // RFC 6582 §3.2 step 1 / RFC 6675 §5.1: no new recovery until snd_una has
            // passed `recover` (set by the previous recovery or RTO). With RACK, a loss
            // it detected starts recovery and the DupThresh count does not (RFC 8985 §6.2;
            // Linux `tcp_time_to_recover`).
            let una_lost = if X && self.rack.is_some() {
                self.rack_lost > self.snd_una
            } else {
                self.sack
                    && self
                        .sb
                        .lost_boundary(self.dupthresh, mss)
                        .is_some_and(|l| l > self.snd_una)
            };
            // TLT §5.1: a loss an Important Echo revealed starts recovery too.
            let una_lost = una_lost || (X && self.tlt_una_lost());
            let dup_trigger = !(X && self.rack.is_some()) && self.dupacks >= self.dupthresh;
            if self.snd_una >= self.recover
                && self.snd_una < self.snd_nxt
                && (dup_trigger || una_lost)
            {
                // RFC 5681 §3.2 / RFC 6675 §5 step 4: DupAcks >= DupThresh or
                // IsLost(HighACK + 1).
                self.enter_fast_recovery(now, out);
                reduced = true;
            }
        }

        // ---- ECN reaction: RFC 3168 §6.1.2 / RFC 8257 §3.3, at most once per window ----
        if ece && !reduced && self.phase != Phase::Fast && self.snd_una >= self.cwr_end {
            let ctx = self.loss_ctx(now);
            self.cc.on_ecn(&mut self.win, &ctx);
            self.cwr_end = self.snd_nxt;
            self.stats.ecn_cuts += 1;
            if let (true, Some(h)) = (X, &mut self.hystart) {
                h.on_congestion();
            }
            reduced = true;
        }

        // RFC 3168 §6.1.2: do not increase cwnd on an ECE ACK (classic ECN only; DCTCP
        // keeps growing, RFC 8257 §3.3 only scales the reduction).
        let ece_blocks_growth = ece && !self.dctcp;

        // ---- delay signal: every ACK's one-way delay (LEDBAT, TCP-LP; no-op otherwise) ----
        let open = !reduced && self.phase != Phase::Fast && !ece_blocks_growth;
        let ctx = self.ctx(now);
        let sample = OwdSample {
            owd: ack.owd,
            acked,
            snd_una: self.snd_una,
            snd_nxt: self.snd_nxt,
        };
        if self.cc.on_owd(&mut self.win, &sample, &ctx, open) {
            reduced = true;
        }

        // ---- slow-start exit (Linux HyStart / RFC 9406 HyStart++) ----
        let grow = if X && self.hystart.is_some() {
            self.hystart_step(now, acked, rtt)
        } else {
            acked
        };

        // ---- window growth ----
        if grow > 0
            && !reduced
            && self.phase != Phase::Fast
            && self.cwnd_limited
            && !ece_blocks_growth
        {
            let ctx = self.ctx(now);
            self.cc.on_ack(&mut self.win, grow, &ctx);
        }
        self.win.cwnd = self.win.cwnd.max(mss);

        // ---- RFC 6937 PRR: the send quota of this ACK during fast recovery ----
        if X && self.prr_on && self.phase == Phase::Fast {
            let dd = if self.sack || acked > 0 {
                delivered
            } else if is_dup {
                mss // RFC 6937 §3: without SACK a duplicate ACK delivered one SMSS
            } else {
                0
            };
            self.prr_quota(dd);
        }
        self.stats.max_cwnd = self.stats.max_cwnd.max(self.win.cwnd);

        // ---- RFC 6298 (5.2)/(5.3) timer management ----
        if self.snd_una >= self.snd_nxt {
            self.rto_deadline = None;
        } else if restart_timer {
            self.rto_deadline = Some(self.timer_at(now, self.rto.rto()));
        }

        let nxt_before = self.snd_nxt;
        self.try_send(now, out);
        if X && self.frto {
            self.frto_new = false;
        }
        // RFC 8985 §7.1: (re)arm the probe timer on an ACK that advances snd_una or after
        // sending new data (never merely because a probe's ACK came back).
        if X && self.tlp && (acked > 0 || self.snd_nxt > nxt_before) {
            self.schedule_pto(now);
        }
        if X {
            // TLT Alg. 1 l.15–16 (erratum: sendState): important ACK-clocking.
            self.tlt_maybe_clock(now, out);
        }
    }

    /// The sender's timer fired (retransmission timeout, tail-loss probe or RACK
    /// reordering timer, whichever is due). Does nothing if called before the deadline.
    pub fn on_timeout(&mut self, now: Time, out: &mut Vec<Segment>) {
        if self.done() {
            self.rto_deadline = None;
            self.pto_deadline = None;
            self.rack_deadline = None;
            return;
        }
        if self.halted {
            return;
        }
        // The probe is scheduled no later than the RTO and goes first (RFC 8985 §7.2).
        if self.pto_deadline.is_some_and(|d| now >= d) {
            self.pto_deadline = None;
            self.send_probe(now, out);
            return;
        }
        let rto_due = self.rto_deadline.is_some_and(|d| now >= d);
        if !rto_due {
            if self.rack_deadline.is_some_and(|d| now >= d) {
                // RFC 8985 §6.3: the reordering window of a segment has passed.
                self.rack_deadline = None;
                self.rack_update(now);
                if self.phase == Phase::Open
                    && self.rack_lost > self.snd_una
                    && self.snd_una >= self.recover
                {
                    self.enter_fast_recovery(now, out);
                }
                let nxt_before = self.snd_nxt;
                self.try_send(now, out);
                if self.tlp && self.snd_nxt > nxt_before {
                    self.schedule_pto(now);
                }
                return;
            }
            return;
        }
        self.stats.rto_count += 1;
        self.pto_deadline = None;
        self.rack_deadline = None;
        self.tlp_end = None;
        let first = self.consecutive_rtos == 0;
        // RFC 5682 §3 (Linux tcp_enter_loss): F-RTO unless the timeout interrupts a fast
        // recovery on its first expiry.
        self.frto = self.frto_on && self.sack && (self.phase != Phase::Fast || !first);
        if (self.undo_on || self.frto) && (self.undo.is_none() || self.phase == Phase::Open) {
            // Linux tcp_enter_loss → tcp_init_undo: a timeout during a recovery keeps the
            // undo state of that recovery.
            self.undo = Some(Undo::new(&self.win, now, true));
        }
        let ctx = self.loss_ctx(now);
        // RFC 5681 §3.1: ssthresh = max(FlightSize/2, 2·SMSS) (once per episode),
        // cwnd = LW = 1 SMSS. CUBIC: RFC 9438 §4.8.
        self.cc.on_rto(&mut self.win, &ctx, first);
        self.win.cwnd = self.win.cwnd.max(self.mss);
        if let Some(h) = &mut self.hystart {
            h.on_rto();
        }
        if self.consecutive_rtos >= 2 {
            // RFC 2018 §8: the receiver may have reneged (or the SACK info was bogus); after
            // repeated timeouts stop trusting the scoreboard so progress is guaranteed.
            self.sb.clear();
        }
        self.consecutive_rtos = self.consecutive_rtos.saturating_add(1);
        // RFC 6582 §4 / RFC 6675 §5.1: RecoveryPoint = HighData, leave fast recovery.
        self.phase = Phase::Rto;
        self.prr = None;
        if let Some(r) = &mut self.rack {
            r.clear_relost(); // go-back-N resends everything outstanding
        }
        if let Some(t) = &mut self.tlt {
            // [not in the paper] the important packet in flight is presumed lost; the first
            // retransmission is Important Data (see `sender/tlt.rs`).
            t.on_rto(self.snd_una);
        }
        self.recover = self.snd_nxt;
        self.rxt = self.snd_una;
        self.inflation = 0;
        self.dupacks = 0;
        self.cwr_end = self.snd_nxt;
        self.timed = None; // Karn (RFC 6298 §3)
        self.rto.on_timeout(); // RFC 6298 (5.5)
        self.rto_deadline = Some(self.timer_at(now, self.rto.rto())); // RFC 6298 (5.6)
                                                                      // RFC 6298 (5.4): retransmit the earliest unacknowledged segment (cwnd = 1 MSS
                                                                      // and nothing is counted in flight, so exactly that one goes out).
        self.try_send(now, out);
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

    pub fn is_halted(&self) -> bool {
        self.halted
    }

    /// When the simulator must call [`Self::on_timeout`] (the earliest of the retransmission,
    /// probe and RACK reordering timers); `None` when nothing is outstanding.
    #[inline]
    pub fn rto_deadline(&self) -> Option<Time> {
        match (self.pto_deadline, self.rack_deadline) {
            (None, None) => self.rto_deadline,
            (p, r) => [self.rto_deadline, p, r].into_iter().flatten().min(),
        }
    }

    /// Every byte cumulatively acknowledged.
    pub fn done(&self) -> bool {
        self.snd_una >= self.flow
    }

    pub fn stats(&self) -> &SenderStats {
        &self.stats
    }

    pub fn cwnd(&self) -> u64 {
        self.win.cwnd
    }
    pub fn ssthresh(&self) -> u64 {
        self.win.ssthresh
    }
    pub fn srtt(&self) -> Option<Time> {
        self.rto.srtt()
    }
    /// The current RTO including backoff.
    pub fn rto(&self) -> Time {
        self.rto.rto()
    }
    pub fn snd_una(&self) -> u64 {
        self.snd_una
    }
    /// One past the highest byte sent so far.
    pub fn snd_nxt(&self) -> u64 {
        self.snd_nxt
    }
    pub fn flow_bytes(&self) -> u64 {
        self.flow
    }
    /// RFC 6675 `pipe` (= FlightSize without SACK outside RTO recovery).
    #[inline]
    pub fn bytes_in_flight(&self) -> u64 {
        let una = self.snd_una;
        let nxt = self.snd_nxt;
        if self.phase == Phase::Open
            && self.sb.is_empty()
            && self.rack.is_none()
            && self.tlt.is_none()
        {
            // The common case, the general formula below with nothing SACKed, nothing deemed
            // lost (`lost_end` is `snd_una` in the open phase with an empty scoreboard)
            // and no RACK/TLT re-loss: FlightSize plus the retransmissions above snd_una.
            let r = if self.sack {
                self.rxt.clamp(una, nxt)
            } else {
                una
            };
            let pipe = (nxt - una) + (r - una);
            debug_assert_eq!(pipe, self.pipe_general());
            return pipe;
        }
        self.pipe_general()
    }

    /// RFC 6675 `pipe` in general (see [`Self::bytes_in_flight`]).
    fn pipe_general(&self) -> u64 {
        let una = self.snd_una;
        let nxt = self.snd_nxt;
        let l = self.lost_end().clamp(una, nxt);
        let r = if self.sack || self.phase == Phase::Rto {
            self.rxt.clamp(una, nxt)
        } else {
            una
        };
        let unsacked = |x: u64| (x - una) - self.sb.covered_below(x);
        // RACK, TLT: retransmissions lost again are no longer in the network.
        let mut relost = match &self.rack {
            Some(k) if self.extras => k.relost_in_pipe(una, r, &self.sb),
            _ => 0,
        };
        if let Some(t) = &self.tlt {
            relost += t.relost_in_pipe(una, r, &self.sb);
        }
        (unsacked(nxt) - unsacked(l) + unsacked(r)).saturating_sub(relost)
    }
    pub fn dctcp_alpha(&self) -> Option<f64> {
        if self.dctcp {
            self.cc.alpha()
        } else {
            None
        }
    }

    // ---- extra read-only views ----

    /// Window allowance above cwnd: RFC 6582 inflation in NewReno fast recovery, RFC 3042
    /// limited transmit (up to 2 SMSS on the first dupacks) without SACK, else 0.
    pub fn recovery_inflation(&self) -> u64 {
        if self.sack {
            return 0;
        }
        match self.phase {
            Phase::Fast => self.inflation,
            Phase::Open if self.dupacks < self.dupthresh => self.dupacks.min(2) as u64 * self.mss,
            _ => 0,
        }
    }
    /// In fast recovery (RFC 6582 / RFC 6675).
    pub fn in_fast_recovery(&self) -> bool {
        self.phase == Phase::Fast
    }
    /// Go-back-N retransmission after a timeout is under way.
    pub fn in_rto_recovery(&self) -> bool {
        self.phase == Phase::Rto
    }
    /// Bytes currently SACKed above `snd_una`.
    pub fn sacked_bytes(&self) -> u64 {
        self.sb.total()
    }
    pub fn cc(&self) -> &AnyCc {
        &self.cc
    }
    pub fn rto_estimator(&self) -> &RtoEstimator {
        &self.rto
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

    fn sample_rtt(&mut self, now: Time, ack: &Ack) -> Option<Time> {
        let sample = if self.timestamps {
            // RFC 7323 §4.1/§4: RTT = now − TSecr on ACKs that advance snd_una; valid even
            // for retransmissions because TSecr identifies the transmission.
            (ack.tsecr <= now).then(|| now - ack.tsecr)
        } else {
            // RFC 6298 §3 (Karn): only a segment never retransmitted is timed.
            match self.timed {
                Some((end, t)) if self.snd_una >= end => {
                    self.timed = None;
                    Some(now.saturating_sub(t))
                }
                _ => None,
            }
        };
        if let Some(r) = sample {
            self.rto.on_sample(r);
        }
        sample
    }

    /// Seeds the RTT estimator with a measurement taken outside the data transfer (the
    /// SYN / SYN-ACK round trip; the caller applies Karn's rule).
    pub fn seed_rtt(&mut self, r: Time) {
        self.rto.on_sample(r);
    }

    fn enter_fast_recovery(&mut self, now: Time, out: &mut Vec<Segment>) {
        self.stats.fast_retx += 1;
        if self.tlp_end.take().is_some() {
            // RFC 8985 §7.4: the probe's ACK exposed the loss; recovery starts without a
            // timeout.
            self.stats.tlp_recoveries += 1;
        }
        self.pto_deadline = None;
        if self.undo_on {
            self.undo = Some(Undo::new(&self.win, now, false));
        }
        if let Some(h) = &mut self.hystart {
            h.on_congestion();
        }
        if self.prr_on {
            // RFC 6937: prr_delivered = prr_out = 0, RecoverFS = snd.nxt − snd.una.
            self.prr = Some((0, 0, self.snd_nxt - self.snd_una));
        }
        let ctx = self.loss_ctx(now);
        // RFC 6582 §3.2 step 2 / RFC 6675 §5 step 4.2: ssthresh and cwnd from the CC.
        self.cc.on_loss(&mut self.win, &ctx);
        self.win.cwnd = self.win.cwnd.max(self.mss);
        self.phase = Phase::Fast;
        // RFC 6582 §3.2 step 2 / RFC 6675 §5 step 4.1: recover = RecoveryPoint = HighData.
        self.recover = self.snd_nxt;
        // RFC 3168 §6.1.2: a loss reduction also counts as this window's ECN reaction.
        self.cwr_end = self.cwr_end.max(self.snd_nxt);
        self.partial_seen = false;
        let (seq, len) = self.chunk(self.snd_una, self.snd_nxt);
        if self.sack {
            // RFC 6675 §5 step 4.3: retransmit HighACK+1, HighRxt = its last byte.
            self.rxt = seq + len;
            self.fr_lost_floor = seq + len;
        } else {
            // RFC 6582 §3.2 step 3: cwnd = ssthresh + 3·SMSS (DupThresh·SMSS in general).
            self.rxt = self.snd_una;
            self.inflation = self.dupacks.max(1) as u64 * self.mss;
        }
        if len > 0 {
            // (Nothing to resend when every byte above snd_una has been SACKed since.)
            self.emit(now, seq, len, Some(RetxCause::Fast), out);
        }
    }

    /// End (exclusive) of the deemed-lost region.
    fn lost_end(&self) -> u64 {
        let mut l = self.snd_una;
        match self.phase {
            Phase::Rto => l = l.max(self.recover),
            Phase::Fast if self.sack => l = l.max(self.fr_lost_floor),
            _ => {}
        }
        if self.rack.is_some() {
            // RFC 8985: RACK's time-based verdict replaces the DupThresh rule.
            if self.phase != Phase::Rto {
                l = l.max(self.rack_lost);
            }
        } else if self.sack {
            if let Some(b) = self.sb.lost_boundary(self.dupthresh, self.mss) {
                l = l.max(b);
            }
        }
        if let Some(t) = &self.tlt {
            // TLT §5.1: first transmissions an Important Echo showed lost (with SACK; as
            // RACK, not during go-back-N, whose boundary is `recover`).
            if self.sack && self.phase != Phase::Rto {
                l = l.max(t.lost);
            }
        }
        l.min(self.snd_nxt)
    }

    /// End of the MSS-aligned segment containing `p`.
    #[inline]
    fn seg_end(&self, p: u64) -> u64 {
        ((p / self.mss + 1) * self.mss).min(self.flow)
    }

    /// The first un-SACKed chunk at or after `p`, below `limit`: (start, len). `len == 0`
    /// if there is none.
    fn chunk(&self, p: u64, limit: u64) -> (u64, u64) {
        let (s, next_sacked) = if self.sack {
            self.sb.next_uncovered(p)
        } else {
            (p, u64::MAX)
        };
        if s >= limit {
            return (s, 0);
        }
        let e = self.seg_end(s).min(next_sacked).min(limit);
        (s, e - s)
    }

    fn new_data(&self) -> Option<(u64, u64, Option<RetxCause>)> {
        (self.snd_nxt < self.flow).then(|| {
            let s = self.snd_nxt;
            (s, self.seg_end(s) - s, None)
        })
    }

    /// What to send next (RFC 6675 §4 NextSeg in SACK recovery; go-back-N after RTO).
    fn next_seg(&self) -> Option<(u64, u64, Option<RetxCause>)> {
        match self.phase {
            Phase::Rto => {
                if self.frto_new {
                    // RFC 5682 §3 step 2b: probe with new data instead.
                    if let Some(x) = self.new_data() {
                        return Some(x);
                    }
                }
                // TLT: a go-back-N retransmission an Important Echo showed lost again.
                if let Some((p, len)) = self.tlt_first_relost() {
                    return Some((p, len, Some(RetxCause::Rto)));
                }
                let (p, len) = self.chunk(self.rxt.max(self.snd_una), self.recover);
                if len > 0 {
                    return Some((p, len, Some(RetxCause::Rto)));
                }
                self.new_data()
            }
            Phase::Fast if self.sack => {
                // RACK, TLT: a retransmission lost again goes first (the lower of the two;
                // they never flag the same segment).
                // (Only its un-SACKed bytes: a SACK block may cover part of a segment.)
                let relost = self
                    .rack
                    .as_ref()
                    .and_then(|r| r.first_relost(self.snd_una))
                    .map(|(p, len)| self.chunk(p, p + len))
                    .filter(|&(_, len)| len > 0);
                let relost = match (relost, self.tlt_first_relost()) {
                    (Some(a), Some(b)) => Some(if b.0 < a.0 { b } else { a }),
                    (a, b) => a.or(b),
                };
                if let Some((p, len)) = relost {
                    return Some((p, len, Some(RetxCause::Recovery)));
                }
                let (p, len) = self.chunk(self.rxt.max(self.snd_una), self.snd_nxt);
                // Rule 1: the lowest un-SACKed byte above HighRxt that IsLost.
                if len > 0 && p < self.lost_end() {
                    return Some((p, len, Some(RetxCause::Recovery)));
                }
                // Rule 2: new data.
                if let Some(x) = self.new_data() {
                    return Some(x);
                }
                // Rule 3: un-SACKed, not yet lost, but below the highest SACKed byte.
                // (Rule 4, the rescue retransmission, is not implemented: the RTO covers
                // a lost tail.)
                let high_sacked = self.sb.ranges().last().map_or(0, |r| r.1);
                if len > 0 && p < high_sacked {
                    return Some((p, len, Some(RetxCause::Recovery)));
                }
                None
            }
            _ => self.new_data(),
        }
    }

    fn send_limit(&self) -> u64 {
        self.win.cwnd + self.recovery_inflation()
    }

    /// Sends as much as cwnd (pipe), rwnd and the data allow.
    fn try_send(&mut self, now: Time, out: &mut Vec<Segment>) {
        if self.halted {
            return;
        }
        let mut in_flight = self.bytes_in_flight();
        let limit = self.send_limit();
        loop {
            let Some((seq, len, cause)) = self.next_seg() else {
                self.cwnd_limited = false;
                break;
            };
            // Flow control: never beyond the receiver's right window edge.
            if cause.is_none() && seq + len - self.snd_una > self.rwnd {
                self.cwnd_limited = false;
                break;
            }
            // RFC 5681 §3.1 / RFC 6675 §5 step (C): only while cwnd − pipe allows it.
            if in_flight + len > limit {
                self.cwnd_limited = true;
                break;
            }
            if in_flight + len > self.rwnd {
                self.cwnd_limited = false;
                break;
            }
            self.emit(now, seq, len, cause, out);
            in_flight += len;
        }
        debug_assert_eq!(in_flight, self.bytes_in_flight());
        debug_assert!(self.snd_una <= self.snd_nxt && self.snd_nxt <= self.flow);
        debug_assert!(self.snd_nxt - self.snd_una <= self.rwnd);
    }

    fn emit(
        &mut self,
        now: Time,
        seq: u64,
        len: u64,
        cause: Option<RetxCause>,
        out: &mut Vec<Segment>,
    ) {
        debug_assert!(len > 0 && len <= self.mss);
        // RFC 3168 §6.1.5: retransmissions are not ECT — except for DCTCP, whose control
        // law needs a mark rather than a drop on every packet (Linux tcp_ca_needs_ecn).
        let ect = self.ecn && (cause.is_none() || self.dctcp);
        let mark = match &mut self.tlt {
            None => TltMark::None,
            Some(t) => t.on_emit(seq, len, cause, self.snd_nxt),
        };
        out.push(Segment {
            seq,
            len: len as u32,
            retx: cause,
            ect,
            tsval: now,
            mark,
        });
        self.stats.data_pkts += 1;
        if mark != TltMark::None {
            self.stats.important_pkts += 1;
            self.stats.important_bytes += len;
        }
        match cause {
            None => {
                self.snd_nxt = seq + len;
                if !self.timestamps && self.timed.is_none() {
                    self.timed = Some((seq + len, now));
                }
            }
            Some(c) => {
                self.stats.retx_pkts += 1;
                // A probe re-sends the tail without making it a recovery retransmission.
                if (self.sack || c == RetxCause::Rto) && c != RetxCause::Probe {
                    self.rxt = self.rxt.max(seq + len);
                }
                if let Some(u) = &mut self.undo {
                    u.retrans += 1;
                    u.any_retrans = true;
                }
                // Karn: a retransmission makes the timed segment's ACK ambiguous.
                if matches!(self.timed, Some((end, _)) if seq < end) {
                    self.timed = None;
                }
            }
        }
        if let Some(r) = &mut self.rack {
            r.on_send(seq, len, now, cause.is_some());
        }
        if let Some(p) = &mut self.prr {
            p.1 += len; // RFC 6937: prr_out
        }
        // RFC 6298 (5.1): start the timer if it is not running.
        if self.rto_deadline.is_none() {
            self.rto_deadline = Some(self.timer_at(now, self.rto.rto()));
        }
    }
}
