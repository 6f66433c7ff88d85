//! The TCP-family endpoint: a sans-IO sender half (TCP, or Near-Opt's paced oracle sender)
//! and the TCP receiver, on the TCP wire format (SYN / SYN-ACK / FIN when handshakes are
//! modelled, TCP+ probes when `cqcn` is on).
//!
//! Timer slots: [`Timer::Sender`] is the sender's RTO (tail-loss probe and RACK included) or,
//! before the SYN-ACK, the SYN retry; [`Timer::Receiver`] the delayed ACK; [`Timer::Pace`]
//! the next paced segment (Near-Opt only); [`Timer::Aux`] the next TCP+ probe and, for a
//! REFLEX flexible flow, the next control-interval boundary.
//!
//! REFLEX (spec §5.2): a flexible flow's sender counts the bytes newly acknowledged per
//! interval, runs UPDATE at every boundary ([`crate::scheme::reflex`]) before it counts an
//! ACK or sends, and sends its data at the flow's priority (HIGH) or the scheme's
//! `low_priority` (LOW) as decided; with r < 1 it finishes when UPDATE says so, discarding
//! the unsent tail (partial delivery, spec §5.2.6).
//!
//! Because the simulator sees every copy of every segment, it classifies retransmissions
//! exactly: a retransmission is *spurious* if the receiver already had the bytes or an
//! earlier copy was still in flight (not dropped) when it was sent; an RTO is spurious if
//! the first segment it retransmits was not actually lost.

use super::record::{DeliveryWin, Fate};
use super::wire::{ack_of, ack_packet, control_packet, data_packet, rx_segment_of};
use super::{Cx, Endpoint, FlowDesc, FlowRecord, Timer, TraceRow, TransportRt, NEVER};
use crate::packet::{flags, Packet, PktKind};
use crate::scheme::reflex::{Cycle, Reflex, ReflexClock};
use dcnsim_engine::Time;
use dcnsim_transport::{Ack, RetxCause, Segment, TcpReceiver, TcpSender};

/// The sender half of a TCP-family endpoint.
pub trait SegSender {
    /// The rate controller paces this sender (Near-Opt): at establishment it joins the
    /// controller instead of starting a window.
    const CONTROLLED: bool;
    fn start(&mut self, now: Time, out: &mut Vec<Segment>);
    fn on_ack(&mut self, now: Time, ack: &Ack, out: &mut Vec<Segment>);
    /// The retransmission timer fired; `lost(seq)` is the simulator's knowledge of whether
    /// the segment at `seq` was really lost (only oracle senders may use it).
    fn on_timeout(&mut self, now: Time, lost: impl Fn(u64) -> bool, out: &mut Vec<Segment>);
    fn rto_deadline(&self) -> Option<Time>;
    fn done(&self) -> bool;
    fn snd_una(&self) -> u64;
    /// Congestion window (or bytes in flight for a sender without one).
    fn cwnd(&self) -> u64;
    fn rto_count(&self) -> u64;
    /// Paced senders: emit what the pacer allows now.
    fn poll(&mut self, _now: Time, _out: &mut Vec<Segment>) {}
    /// Paced senders: when the next segment may leave.
    fn next_send(&self) -> Option<Time> {
        None
    }
    fn set_rate(&mut self, _rate: f64) {}
    /// Immediate loss information: resend `seq` at the next pacing slot.
    fn requeue(&mut self, _seq: u64) {}
    /// TCP+ (LPF §5): stop transmitting and freeze congestion control while halted.
    fn set_halted(&mut self, _now: Time, _halted: bool, _out: &mut Vec<Segment>) {}
    /// The handshake's RTT sample.
    fn seed_rtt(&mut self, _rtt: Time) {}
    /// Counters read only at the end (see [`Endpoint::fold`]).
    fn fold(&self, _rec: &mut FlowRecord) {}
    /// The sender finished: final counters.
    fn on_done(&self, _rec: &mut FlowRecord) {}
    fn trace(&self, _now: Time, _flow: u32) -> Option<TraceRow> {
        None
    }
}

impl SegSender for TcpSender {
    const CONTROLLED: bool = false;
    #[inline]
    fn start(&mut self, now: Time, out: &mut Vec<Segment>) {
        TcpSender::start(self, now, out)
    }
    #[inline]
    fn on_ack(&mut self, now: Time, ack: &Ack, out: &mut Vec<Segment>) {
        TcpSender::on_ack(self, now, ack, out)
    }
    fn on_timeout(&mut self, now: Time, _lost: impl Fn(u64) -> bool, out: &mut Vec<Segment>) {
        TcpSender::on_timeout(self, now, out)
    }
    #[inline]
    fn rto_deadline(&self) -> Option<Time> {
        TcpSender::rto_deadline(self)
    }
    #[inline]
    fn done(&self) -> bool {
        TcpSender::done(self)
    }
    #[inline]
    fn snd_una(&self) -> u64 {
        TcpSender::snd_una(self)
    }
    #[inline]
    fn cwnd(&self) -> u64 {
        TcpSender::cwnd(self)
    }
    #[inline]
    fn rto_count(&self) -> u64 {
        self.stats().rto_count
    }
    fn set_halted(&mut self, now: Time, halted: bool, out: &mut Vec<Segment>) {
        TcpSender::set_halted(self, now, halted, out)
    }
    fn seed_rtt(&mut self, rtt: Time) {
        TcpSender::seed_rtt(self, rtt)
    }
    fn fold(&self, rec: &mut FlowRecord) {
        let s = self.stats();
        rec.tlp_probes = s.tlp_probes;
        rec.tlp_recoveries = s.tlp_recoveries;
        rec.undo_rto = s.undo_rto;
        rec.undo_fast = s.undo_fast;
        rec.important_pkts = s.important_pkts;
        rec.important_bytes = s.important_bytes;
        rec.clock_bytes = s.clock_bytes;
        rec.tlt_lost_segs = s.tlt_lost_segs;
        rec.srtt = self.srtt();
        rec.rto = Some(self.rto());
    }
    fn on_done(&self, rec: &mut FlowRecord) {
        rec.max_cwnd = rec.max_cwnd.max(self.stats().max_cwnd);
        SegSender::fold(self, rec);
    }
    fn trace(&self, now: Time, flow: u32) -> Option<TraceRow> {
        Some(TraceRow {
            t: now,
            flow,
            cwnd: self.cwnd(),
            ssthresh: self.ssthresh(),
            srtt: self.srtt(),
            rto: self.rto(),
            snd_una: TcpSender::snd_una(self),
            inflight: self.bytes_in_flight(),
            alpha: self.dctcp_alpha(),
            r_fair: None,
            low: false,
        })
    }
}

/// One TCP-family flow: sender half `S`, the TCP receiver, and the simulator's bookkeeping.
pub struct TcpFlow<S> {
    pub tx: S,
    rx: TcpReceiver,
    /// TCP+: the sender is halted by a marked probe echo.
    halted: bool,
    /// Handshake modelled and the SYN-ACK not yet received.
    syn_pending: bool,
    syn_tries: u32,
    /// When the SYN is retried (while `syn_pending`).
    syn_at: Time,
    /// TCP+: when the next probe leaves (NEVER without TCP+).
    next_probe: Time,
    fate: Fate,
    mss: u64,
    /// Set by an RTO until its first retransmission is classified.
    rto_pending: bool,
    /// With `output.segment_delivery`: first-transmission times of undelivered segments.
    delivery: Option<Box<DeliveryWin>>,
    segs: Vec<Segment>,
    acks: Vec<Ack>,
    /// REFLEX controller of a flexible flow (None for regular flows).
    reflex: Option<Box<ReflexClock>>,
    /// Queue of the data in a LOW interval.
    low_class: u8,
}

impl<S: SegSender> TcpFlow<S> {
    pub fn new(tx: S, rt: &TransportRt, d: &FlowDesc, record_delivery: bool) -> Self {
        TcpFlow {
            tx,
            rx: TcpReceiver::new(rt.tcp(), d.size),
            halted: false,
            syn_pending: rt.handshake,
            syn_tries: 0,
            syn_at: NEVER,
            next_probe: NEVER,
            fate: Fate::default(),
            mss: rt.tcp().mss as u64,
            rto_pending: false,
            delivery: record_delivery.then(Box::default),
            segs: Vec::new(),
            acks: Vec::new(),
            reflex: d.flex.map(|x| {
                let cycle = Cycle {
                    warmup: x.warmup,
                    measure: x.measure,
                    exploit: x.exploit,
                    t_int: x.interval as f64 / 1e12,
                };
                let alg = Reflex::new(x.alpha, x.reliability, d.size, cycle);
                Box::new(ReflexClock::new(alg, x.interval, d.start))
            }),
            low_class: d.flex.map_or(0, |x| x.low_class),
        }
    }

    /// REFLEX: runs UPDATE at every interval boundary up to now (spec §5.2.3: "invoked at
    /// each interval boundary"); true if the flow finished early (and was closed).
    #[inline]
    fn reflex_tick(&mut self, cx: &mut Cx) -> bool {
        let Some(r) = self.reflex.as_mut() else {
            return false;
        };
        if !r.advance(cx.now) {
            return false;
        }
        // Spec §5.2.6: S_sent ≥ F; the unsent tail is discarded and the flow ends now. The
        // delivered part is what was acknowledged (≥ r·F by Alg. 1).
        cx.rec.acked = self.tx.snd_una();
        self.fold_reflex(cx.rec);
        self.tx.on_done(cx.rec);
        cx.complete();
        cx.close();
        true
    }

    fn fold_reflex(&self, rec: &mut FlowRecord) {
        if let Some(r) = &self.reflex {
            rec.reflex_intervals = r.intervals;
            rec.reflex_low = r.low_intervals;
            rec.reflex_r_fair = r.alg.r_fair;
            rec.reflex_b_alpha = r.alg.b_alpha;
            rec.reflex_b_r = r.alg.b_r;
        }
    }

    /// Sends the SYN and arms its retry timer (RFC 6298 §2.1: the initial RTO, doubled per
    /// retry; the SYN's own timer `syn_rto`, as Linux/ns-3 separate it from the data RTO).
    fn send_syn(&mut self, cx: &mut Cx) {
        let rto = cx.rt.tcp().syn_rto.unwrap_or(cx.rt.tcp().rto_init);
        self.syn_at = cx.now + (rto << self.syn_tries.min(20));
        self.syn_tries += 1;
        cx.rearm(Timer::Sender);
        let mut p = control_packet(cx, PktKind::Syn);
        p.ts = cx.now;
        cx.send(p);
    }

    /// Starts the data transfer.
    fn establish(&mut self, cx: &mut Cx) {
        let now = cx.now;
        cx.rec.established = Some(now);
        if cx.rt.cqcn.is_some() {
            self.next_probe = now;
            cx.rearm(Timer::Aux);
        }
        if self.reflex.is_some() {
            cx.rearm(Timer::Aux);
        }
        if S::CONTROLLED {
            cx.join_controller();
            return;
        }
        let mut segs = std::mem::take(&mut self.segs);
        segs.clear();
        self.tx.start(now, &mut segs);
        self.emit_segments(cx, &segs);
        self.segs = segs;
        cx.rearm(Timer::Sender);
    }

    /// A SYN-ACK reached the sender: the connection is established.
    fn on_syn_ack(&mut self, cx: &mut Cx, p: &Packet) {
        if !self.syn_pending {
            return; // a duplicate SYN-ACK
        }
        self.syn_pending = false;
        cx.cancel(Timer::Sender);
        let tries = self.syn_tries;
        // RFC 6298 §3 (Karn): a retried SYN's round trip is ambiguous.
        if cx.rt.tcp().syn_rtt_sample && tries == 1 {
            self.tx.seed_rtt(cx.now.saturating_sub(p.ts));
        }
        cx.rec.syn_retx = tries.saturating_sub(1);
        self.establish(cx);
    }

    /// TCP+: a probe echo reached the sender (halt while marked, resume when unmarked).
    fn on_probe_echo(&mut self, cx: &mut Cx, p: &Packet) {
        let marked = p.flags & flags::ECE != 0;
        if self.halted == marked {
            return;
        }
        self.halted = marked;
        let mut segs = std::mem::take(&mut self.segs);
        segs.clear();
        // LPF §5: stop transmitting and freeze congestion control while marked.
        self.tx.set_halted(cx.now, marked, &mut segs);
        if marked {
            cx.rec.cqcn_halts += 1;
        }
        self.emit_segments(cx, &segs);
        self.segs = segs;
        self.after_sender_step(cx);
    }

    /// Turns sender segments into packets, classifying retransmissions.
    fn emit_segments(&mut self, cx: &mut Cx, segs: &[Segment]) {
        for s in segs {
            let idx = s.seq / self.mss;
            let rec = &mut *cx.rec;
            rec.data_pkts += 1;
            if let Some(cause) = s.retx {
                rec.retx_pkts += 1;
                let lost = !(self.rx.has(s.seq) || self.fate.get(idx) > 0);
                if !lost {
                    rec.spurious_retx += 1;
                }
                if cause == RetxCause::Fast {
                    rec.fast_retx += 1;
                }
                if cause == RetxCause::Rto && self.rto_pending {
                    self.rto_pending = false;
                    if !lost {
                        rec.spurious_rto += 1;
                    }
                }
            }
            self.fate.inc(idx);
            if let Some(w) = &mut self.delivery {
                w.sent(idx, cx.now);
            }
            let mut p = data_packet(cx, s);
            // REFLEX: every data packet of a LOW interval goes to the low queue.
            if self.reflex.as_ref().is_some_and(|r| r.low) {
                p.class = self.low_class;
            }
            cx.send(p);
        }
    }

    fn emit_acks(&mut self, cx: &mut Cx, acks: &[Ack]) {
        for a in acks {
            let p = ack_packet(cx, a);
            cx.send(p);
        }
    }

    fn on_data(&mut self, cx: &mut Cx, p: &Packet) {
        let now = cx.now;
        self.fate.dec(p.seq / self.mss);
        let seg = rx_segment_of(p);
        if seg.ce {
            cx.rec.ecn_marks += 1;
        }
        let mut acks = std::mem::take(&mut self.acks);
        acks.clear();
        self.rx.on_segment(now, &seg, now - p.created, &mut acks);
        if self.rx.complete() {
            cx.complete();
        }
        self.emit_acks(cx, &acks);
        self.acks = acks;
        // Only a pending delayed ACK can move the slot earlier (with no deadline the
        // simulator's re-read would schedule nothing): without delayed ACKs, or after this
        // segment was ACKed at once, there is nothing to re-read.
        if self.rx.delack_deadline().is_some() {
            cx.rearm(Timer::Receiver);
        }
    }

    fn on_ack(&mut self, cx: &mut Cx, p: &Packet) {
        let now = cx.now;
        // REFLEX: boundaries up to now first, so this ACK counts toward the new interval.
        if self.reflex_tick(cx) {
            return;
        }
        let ack = ack_of(p);
        let mut segs = std::mem::take(&mut self.segs);
        segs.clear();
        let una_before = self.tx.snd_una();
        self.tx.on_ack(now, &ack, &mut segs);
        let una = self.tx.snd_una();
        if let Some(r) = self.reflex.as_mut() {
            // Spec §5.2.3: ACK_byte = bytes newly acknowledged during the interval.
            r.on_acked(una - una_before);
        }
        self.fate.trim(una / self.mss);
        if let Some(w) = &mut self.delivery {
            // Whole segments the ACK covers: below the cumulative ACK and inside SACK blocks
            // (a flow's last segment may be short).
            let (mss, size) = (self.mss, cx.desc.size);
            let end_idx = |e: u64| if e >= size { e.div_ceil(mss) } else { e / mss };
            if let Some(hist) = cx.hist() {
                w.covered(0, end_idx(una), now, hist);
                for &(s, e) in ack.sack_blocks() {
                    w.covered(s.div_ceil(mss), end_idx(e), now, hist);
                }
            }
        }
        self.emit_segments(cx, &segs);
        self.segs = segs;
        if S::CONTROLLED {
            // A rate-based sender held back by the receiver's window may send again now.
            cx.rearm(Timer::Pace);
        }
        self.after_sender_step(cx);
    }

    /// Records, timers and completion after the sender acted.
    fn after_sender_step(&mut self, cx: &mut Cx) {
        let rec = &mut *cx.rec;
        rec.max_cwnd = rec.max_cwnd.max(self.tx.cwnd());
        rec.rto_count = self.tx.rto_count();
        if self.tx.done() {
            rec.acked = self.tx.snd_una();
            self.fold_reflex(rec);
            self.tx.on_done(rec);
            if cx.rt.handshake {
                let p = control_packet(cx, PktKind::Fin);
                cx.send(p);
            }
            // The receiver has everything; any stray copies still in flight are ignored.
            cx.close();
            return;
        }
        cx.rearm(Timer::Sender);
    }

    fn on_sender_timer(&mut self, cx: &mut Cx) {
        let now = cx.now;
        if self.reflex_tick(cx) {
            return;
        }
        if self.syn_pending {
            self.send_syn(cx);
            return;
        }
        if matches!(self.tx.rto_deadline(), Some(d) if d <= now) {
            let mut segs = std::mem::take(&mut self.segs);
            segs.clear();
            if S::CONTROLLED && self.rx.rcv_nxt() > self.tx.snd_una() {
                // LPF §3 loss information covers ACKs too: bytes the receiver holds whose
                // ACKs were all lost count as acknowledged (no RTT sample). Otherwise a
                // sender that the receive window holds back sends nothing new, the receiver
                // sends no new ACK, and no segment is lost to retransmit: the flow would wait
                // forever.
                let ack = Ack {
                    ack: self.rx.rcv_nxt(),
                    ..Ack::default()
                };
                self.tx.on_ack(now, &ack, &mut segs);
                self.fate.trim(self.tx.snd_una() / self.mss);
            }
            let rtos = self.tx.rto_count();
            // LPF §3 loss information (oracle senders only): a segment with no copy in
            // flight that the receiver does not have was really lost.
            let (rx, fate, mss) = (&self.rx, &self.fate, self.mss);
            self.tx.on_timeout(
                now,
                |seq| !rx.has(seq) && fate.get(seq / mss) == 0,
                &mut segs,
            );
            // The sender's timer may have been a probe or RACK's: only a timeout makes
            // its first retransmission the one that tells whether the RTO was spurious.
            if self.tx.rto_count() > rtos {
                self.rto_pending = true;
            }
            self.emit_segments(cx, &segs);
            self.segs = segs;
        }
        cx.rearm(Timer::Pace);
        self.after_sender_step(cx);
    }
}

/// The receiver answers a SYN with a SYN-ACK, with or without live state.
fn reply_syn(cx: &mut Cx, syn: &Packet) {
    let mut r = control_packet(cx, PktKind::SynAck);
    r.ts = syn.ts;
    cx.send(r);
}

/// TCP+: the receiver echoes a probe, carrying its mark as ECE.
fn echo_probe(cx: &mut Cx, p: &Packet) {
    let Some(c) = cx.rt.cqcn else { return };
    let d = cx.desc;
    let mut e = Packet::new(PktKind::Probe, cx.flow, d.dst, d.src, 0, c.wire);
    e.class = c.priority;
    e.entropy = d.entropy;
    if p.flags & flags::CE != 0 {
        e.flags |= flags::ECE;
    }
    cx.send(e);
}

/// A packet of a TCP-family flow whose endpoint is gone (see `AnyEndpoint::on_closed`).
pub(super) fn on_closed(cx: &mut Cx, p: &Packet) {
    match p.kind {
        PktKind::Syn => reply_syn(cx, p),
        PktKind::Probe if p.dst == cx.desc.dst => echo_probe(cx, p),
        _ => {}
    }
}

impl<S: SegSender> Endpoint for TcpFlow<S> {
    fn on_start(&mut self, cx: &mut Cx) {
        if self.syn_pending {
            self.send_syn(cx);
        } else {
            self.establish(cx);
        }
    }

    #[inline]
    fn on_packet(&mut self, cx: &mut Cx, p: &Packet) {
        match p.kind {
            PktKind::Data => self.on_data(cx, p),
            PktKind::Ack => self.on_ack(cx, p),
            PktKind::Syn => reply_syn(cx, p),
            PktKind::SynAck => self.on_syn_ack(cx, p),
            PktKind::Probe => {
                if cx.rt.cqcn.is_none() {
                    return;
                }
                if p.dst == cx.desc.dst {
                    echo_probe(cx, p);
                } else {
                    self.on_probe_echo(cx, p);
                }
            }
            PktKind::Fin | PktKind::Raw | PktKind::Nack | PktKind::Cnp => {}
        }
    }

    fn on_timer(&mut self, cx: &mut Cx, t: Timer) {
        let now = cx.now;
        match t {
            Timer::Sender => self.on_sender_timer(cx),
            Timer::Receiver => {
                if matches!(self.rx.delack_deadline(), Some(d) if d <= now) {
                    let mut acks = std::mem::take(&mut self.acks);
                    acks.clear();
                    self.rx.on_delack_timeout(now, &mut acks);
                    self.emit_acks(cx, &acks);
                    self.acks = acks;
                }
                cx.rearm(Timer::Receiver);
            }
            Timer::Pace => {
                // Paced senders (Near-Opt): the segment whose time has come.
                let mut segs = std::mem::take(&mut self.segs);
                segs.clear();
                self.tx.poll(now, &mut segs);
                self.emit_segments(cx, &segs);
                self.segs = segs;
                cx.rearm(Timer::Pace);
                cx.rearm(Timer::Sender);
            }
            Timer::Aux => {
                // REFLEX: the interval boundary (the slot's other user).
                if self.reflex_tick(cx) {
                    return;
                }
                cx.rearm(Timer::Aux);
                if self.next_probe > now {
                    return;
                }
                // TCP+: one high-priority probe toward the receiver, then the next.
                let Some(c) = cx.rt.cqcn else { return };
                let d = cx.desc;
                let mut p = Packet::new(PktKind::Probe, cx.flow, d.src, d.dst, 0, c.wire);
                p.class = c.priority;
                p.entropy = d.entropy;
                p.flags |= flags::ECT;
                cx.send(p);
                self.next_probe = now + c.interval;
                cx.rearm(Timer::Aux);
            }
        }
    }

    #[inline]
    fn deadline(&self, t: Timer) -> Option<Time> {
        match t {
            Timer::Sender if self.syn_pending => Some(self.syn_at),
            Timer::Sender => self.tx.rto_deadline(),
            Timer::Receiver => self.rx.delack_deadline(),
            Timer::Pace => self.tx.next_send(),
            Timer::Aux => {
                let r = self.reflex.as_ref().and_then(|r| r.deadline());
                let p = (self.next_probe != NEVER).then_some(self.next_probe);
                match (r, p) {
                    (Some(a), Some(b)) => Some(a.min(b)),
                    (a, b) => a.or(b),
                }
            }
        }
    }

    fn on_drop(&mut self, cx: &mut Cx, p: &Packet) {
        if p.kind != PktKind::Data {
            return;
        }
        let (seq, idx) = (p.seq, p.seq / self.mss);
        self.fate.dec(idx);
        // Near-Opt with immediate loss information (mechanisms §4.12, CHOICE): the oracle
        // learns of the drop at once and the sender resends at its next pacing slot.
        if cx.rt.nearopt_immediate {
            if S::CONTROLLED && self.fate.get(idx) == 0 && !self.rx.has(seq) {
                self.tx.requeue(seq);
            }
            cx.rearm(Timer::Pace);
        }
    }

    fn set_rate(&mut self, rate: f64) {
        self.tx.set_rate(rate);
    }

    fn fold(&self, rec: &mut FlowRecord) {
        self.tx.fold(rec);
        rec.acked = self.tx.snd_una();
        self.fold_reflex(rec);
    }

    fn trace(&self, now: Time, flow: u32) -> Option<TraceRow> {
        let mut row = self.tx.trace(now, flow)?;
        if let Some(r) = &self.reflex {
            row.r_fair = r.alg.r_fair;
            row.low = r.low;
        }
        Some(row)
    }
}
