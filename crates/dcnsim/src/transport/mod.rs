//! Transport endpoints: one sans-IO shape for every transport family.
//!
//! A flow is one [`Endpoint`] value holding both of its ends (the sender at `desc.src`, the
//! receiver at `desc.dst`); the ends talk only through packets. The simulator calls the
//! endpoint with the current time and one thing that happened, through a [`Cx`]:
//!
//! - [`Endpoint::on_start`]: the flow's start time came;
//! - [`Endpoint::on_packet`]: one of the flow's packets reached one of its hosts (`p.dst`
//!   says which end);
//! - [`Endpoint::on_timer`]: one of the flow's timer slots ([`Timer`]) is due;
//! - [`Endpoint::on_drop`]: one of its packets was dropped in the fabric (the simulator's
//!   loss oracle: ordinary transports only use it for bookkeeping);
//! - [`Endpoint::set_rate`]: the rate controller (the Near-Opt oracle) assigned a rate.
//!
//! The endpoint answers through the same `Cx`: packets to transmit ([`Cx::send`], in
//! order, each from its `src` host), timer slots whose deadline may have moved earlier
//! ([`Cx::rearm`]; the simulator re-reads [`Endpoint::deadline`]), the receiver has every
//! byte ([`Cx::complete`]), the sender is finished ([`Cx::close`]: the endpoint is dropped
//! after the call) and its per-flow record ([`Cx::rec`], a [`FlowRecord`]: one row of the
//! results table, the same columns for every transport).
//!
//! **Timers.** Every flow has [`N_TIMERS`] lazy timer slots. The simulator keeps at most one
//! pending event per slot, at the earliest deadline it was told about; when it fires, the
//! endpoint re-checks its own deadline, so a deadline that moves later costs no heap
//! operation (TCP restarts its RTO on every ACK). What a slot means is the transport's
//! business; the names say what the built-in transports use them for. [`Timer::Pace`] is
//! the NIC pacer: a rate-based sender (Near-Opt, RoCE's per-QP rate limiter) reports the
//! time its next packet may leave as the slot's deadline and emits it from `on_timer`; a
//! window-based sender (TCP) never uses it and sends from `on_packet` (ACK clocking).
//!
//! **Dispatch.** Built-in endpoints are variants of [`AnyEndpoint`], dispatched by `match`
//! (no trait objects on the per-packet path). Adding a transport: see docs/extending.md.
//!
//! Layering: this module knows packets (`crate::packet`) and the sans-IO TCP machines of
//! `dcnsim-transport`; it never sees a port, a queue or the event loop.

pub mod nearopt;
pub mod rate;
pub mod record;
pub mod roce;
pub mod tcp;
mod wire;

use crate::packet::{Arena, IntHop, Packet, PktId, NIL};
use dcnsim_engine::{Rate, Time};
use dcnsim_transport::{TcpConfig, TcpSender};
pub use record::{delivery_bin, delivery_edges, FlowRecord, TraceRow, DELIVERY_BINS};

/// "No deadline".
pub const NEVER: Time = Time::MAX;

/// A flow's timer slots (see the module doc). The order is the order in which the simulator
/// re-arms slots after a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Timer {
    /// When the sender's next packet may leave (rate-based sending).
    Pace = 0,
    /// The sender's loss-recovery timer (RTO, tail-loss probe, RACK, SYN retry).
    Sender = 1,
    /// The receiver's timer (delayed ACK; ACK coalescing, CNP pacing).
    Receiver = 2,
    /// Anything else periodic (TCP+ probes; a rate-increase timer).
    Aux = 3,
}

pub const N_TIMERS: usize = 4;

impl Timer {
    pub const ALL: [Timer; N_TIMERS] = [Timer::Pace, Timer::Sender, Timer::Receiver, Timer::Aux];
    #[inline]
    pub fn from_index(i: u32) -> Timer {
        match i & (N_TIMERS as u32 - 1) {
            0 => Timer::Pace,
            1 => Timer::Sender,
            2 => Timer::Receiver,
            _ => Timer::Aux,
        }
    }
}

/// Which endpoint a transport uses.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TransportKind {
    Tcp,
    /// The Near-Opt oracle (see [`nearopt`]).
    NearOpt,
    /// Test-only: a NIC-paced constant-rate sender with per-packet ACKs (see [`rate`]).
    ConstRate(Rate),
    /// A RoCEv2 queue pair (see [`roce`]); its parameters are [`Family::Roce`].
    Roce,
}

/// The parameters of a transport family: a TCP-family transport (TCP, Near-Opt) has a
/// [`TcpConfig`], a RoCE transport its [`roce::RoceParams`]; neither carries the other's.
/// One per transport at build time, never on the packet path: the size difference between
/// the variants costs nothing, so the TCP config is not boxed.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub enum Family {
    Tcp(TcpConfig),
    Roce(roce::RoceParams),
}

/// Cross-queue congestion notification (LPF §5, "TCP+"): high-priority probes whose marks
/// halt a low-priority TCP sender while the high-priority queue is congested.
#[derive(Clone, Copy, Debug)]
pub struct CqcnRt {
    pub interval: Time,
    /// Wire bytes of a probe.
    pub wire: u32,
    pub priority: u8,
}

/// Per-transport parameters (one per class; flows refer to it by index).
#[derive(Clone, Debug)]
pub struct TransportRt {
    pub kind: TransportKind,
    /// Model the SYN / SYN-ACK exchange before data (and a FIN after it).
    pub handshake: bool,
    /// Near-Opt learns of drops when they happen instead of at its timeout.
    pub nearopt_immediate: bool,
    pub cqcn: Option<CqcnRt>,
    /// The family's parameters (see [`TransportRt::tcp`], [`TransportRt::roce`]).
    pub family: Family,
    /// Largest payload of a data packet (TCP: the MSS; RoCE: its `payload`).
    pub payload: u32,
    /// Header bytes added to every data segment's payload on the wire.
    pub data_overhead: u32,
    /// Wire bytes of a pure ACK.
    pub ack_wire: u32,
    /// TLT runs on this transport: control packets and important data are green, the
    /// other data red (TLT §4, §5.1). Without TLT every packet is red.
    pub tlt: bool,
}

impl TransportRt {
    /// The TCP parameters of a TCP-family transport. A RoCE transport has none; it gets the
    /// `TcpConfig` default (only code that ignores it can ask: TCP endpoints are built for
    /// TCP-family transports only).
    #[inline]
    pub fn tcp(&self) -> &TcpConfig {
        match &self.family {
            Family::Tcp(c) => c,
            Family::Roce(_) => {
                static NONE: std::sync::OnceLock<TcpConfig> = std::sync::OnceLock::new();
                NONE.get_or_init(TcpConfig::default)
            }
        }
    }
    /// The RoCE parameters of a RoCE transport.
    #[inline]
    pub fn roce(&self) -> Option<&roce::RoceParams> {
        match &self.family {
            Family::Roce(p) => Some(p),
            Family::Tcp(_) => None,
        }
    }
}

/// Static description of one flow.
#[derive(Clone, Debug)]
pub struct FlowDesc {
    pub src: u32,
    pub dst: u32,
    pub size: u64,
    pub start: Time,
    pub class: u8,
    pub ack_class: u8,
    pub transport: u16,
    pub traffic_class: u16,
    pub deadline: Option<Time>,
    pub tag: u32,
    pub in_window: bool,
    pub entropy: u32,
    pub ideal_fct: Time,
    /// The unloaded round trip over the flow's path: propagation both ways plus one
    /// full-size data packet and one ACK serialized on every hop (HPCC's T by default).
    pub base_rtt: Time,
    /// A REFLEX flexible flow (None: a regular flow, α = ∞, r = 1; it never runs REFLEX).
    pub flex: Option<FlexRt>,
}

/// A flexible flow's factors (REFLEX §3.1, spec §5.2.1) and the REFLEX cycle it runs
/// (`[scheme] kind = "reflex"`, spec §5.2.3).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FlexRt {
    /// Aggressiveness α ∈ [0, ∞): the fraction of its max-min fair share the flow keeps.
    pub alpha: f64,
    /// Reliability r ∈ [0, 1]: the fraction of its bytes that must be delivered.
    pub reliability: f64,
    /// T_int and the phase lengths in intervals.
    pub interval: Time,
    pub warmup: u32,
    pub measure: u32,
    pub exploit: u32,
    /// Queue of the flow's data in a LOW interval.
    pub low_class: u8,
}

/// What an endpoint asked of the simulator during one call (besides its packets).
#[derive(Clone, Copy, Debug, Default)]
pub struct Effects {
    /// Timer slots (bit per [`Timer`]) whose deadline may have moved earlier.
    pub rearm: u8,
    /// Timer slots whose pending event must be forgotten (it is ignored when it fires).
    pub cancel: u8,
    /// `COMPLETED`, `CLOSED`, `JOIN_CONTROLLER`.
    pub flags: u8,
}

impl Effects {
    /// The receiver got the last byte (first time).
    pub const COMPLETED: u8 = 1;
    /// The sender is finished: the endpoint is dropped after this call.
    pub const CLOSED: u8 = 2;
    /// The flow's rate is set by the rate controller from now on.
    pub const JOIN_CONTROLLER: u8 = 4;
}

/// The I/O of one endpoint call: the flow's static description, its record, and where the
/// endpoint's packets and requests go.
pub struct Cx<'a> {
    pub now: Time,
    pub flow: u32,
    pub desc: &'a FlowDesc,
    pub rt: &'a TransportRt,
    pub rec: &'a mut FlowRecord,
    /// With `output.segment_delivery`: the delivery-time histograms per traffic class.
    delivery: &'a mut Option<Vec<[u64; DELIVERY_BINS]>>,
    /// Packets sent during the call are allocated in the arena and chained through their
    /// `next` links, `head` first (NIL: none); the simulator sends them after the call, in
    /// order. No buffer outside the arena: nested calls (a drop at the host NIC while the
    /// chain is being sent) keep their own chains.
    arena: &'a mut Arena,
    pub(crate) head: PktId,
    tail: PktId,
    /// In [`Endpoint::on_packet`]: the arena slot of the packet being delivered (its INT
    /// records are read from there); NIL otherwise.
    pub(crate) rx: PktId,
    pub fx: Effects,
}

impl<'a> Cx<'a> {
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub fn new(
        now: Time,
        flow: u32,
        desc: &'a FlowDesc,
        rt: &'a TransportRt,
        rec: &'a mut FlowRecord,
        delivery: &'a mut Option<Vec<[u64; DELIVERY_BINS]>>,
        arena: &'a mut Arena,
    ) -> Self {
        Cx {
            now,
            flow,
            desc,
            rt,
            rec,
            delivery,
            arena,
            head: NIL,
            tail: NIL,
            rx: NIL,
            fx: Effects::default(),
        }
    }
    /// With `output.segment_delivery`: the delivery-time histogram of the flow's class.
    #[inline]
    pub fn hist(&mut self) -> Option<&mut [u64; DELIVERY_BINS]> {
        let c = self.desc.traffic_class as usize;
        self.delivery.as_mut().map(|h| &mut h[c])
    }
    /// Transmits `p` from host `p.src` (after the call, in the order sent).
    #[inline]
    pub fn send(&mut self, p: Packet) {
        let id = self.arena.alloc(p);
        if self.tail == NIL {
            self.head = id;
        } else {
            self.arena.get_mut(self.tail).next = id;
        }
        self.tail = id;
    }
    /// In [`Endpoint::on_packet`]: the INT records of the packet being delivered (HPCC;
    /// empty for a packet that collects none).
    #[inline]
    pub fn rx_int(&self) -> &[IntHop] {
        if self.rx == NIL {
            return &[];
        }
        self.arena.int_of(self.rx)
    }
    /// Copies the INT stack of the packet being delivered into the last packet sent (the
    /// receiver's ACK echoes the data packet's INT; mechanisms §2.7).
    #[inline]
    pub fn echo_int(&mut self) {
        if self.rx != NIL && self.tail != NIL {
            self.arena.copy_int(self.rx, self.tail);
        }
    }
    /// The deadline of slot `t` may have moved earlier: the simulator re-reads it.
    #[inline]
    pub fn rearm(&mut self, t: Timer) {
        self.fx.rearm |= 1 << t as u8;
    }
    /// Forgets slot `t`'s pending event (it is ignored when it fires).
    #[inline]
    pub fn cancel(&mut self, t: Timer) {
        self.fx.cancel |= 1 << t as u8;
    }
    /// The receiver has every byte: the flow's finish time is now (first call only).
    #[inline]
    pub fn complete(&mut self) {
        if self.rec.finish.is_none() {
            self.rec.finish = Some(self.now);
            self.fx.flags |= Effects::COMPLETED;
        }
    }
    /// The sender is finished (everything acknowledged): the endpoint is dropped after
    /// this call; later packets of the flow go to [`AnyEndpoint::on_closed`].
    #[inline]
    pub fn close(&mut self) {
        self.rec.sender_done = Some(self.now);
        self.fx.flags |= Effects::CLOSED;
    }
    /// From now on the rate controller sets this flow's rate ([`Endpoint::set_rate`]).
    #[inline]
    pub fn join_controller(&mut self) {
        self.fx.flags |= Effects::JOIN_CONTROLLER;
    }
}

/// The sans-IO shape every transport implements (see the module doc).
pub trait Endpoint {
    /// The flow's start time came.
    fn on_start(&mut self, cx: &mut Cx);
    /// A packet of this flow reached host `p.dst`.
    fn on_packet(&mut self, cx: &mut Cx, p: &Packet);
    /// Slot `t`'s pending event fired (at the earliest deadline reported): act if due.
    fn on_timer(&mut self, cx: &mut Cx, t: Timer);
    /// The current deadline of slot `t`.
    fn deadline(&self, t: Timer) -> Option<Time>;
    /// A packet of this flow was dropped in the fabric (the simulator's knowledge).
    fn on_drop(&mut self, _cx: &mut Cx, _p: &Packet) {}
    /// The rate controller's rate (wire bytes per second); may move [`Timer::Pace`] only.
    fn set_rate(&mut self, _rate: f64) {}
    /// Folds counters kept inside the endpoint into `rec` (at the end of the run for a
    /// flow still running).
    fn fold(&self, _rec: &mut FlowRecord) {}
    /// A sample of the sender's state for `output.trace_flows` (window-based senders).
    fn trace(&self, _now: Time, _flow: u32) -> Option<TraceRow> {
        None
    }
}

/// The built-in endpoints.
// Lives inside the boxed per-flow state, so the size difference costs nothing per packet.
#[allow(clippy::large_enum_variant)]
pub enum AnyEndpoint {
    Tcp(tcp::TcpFlow<TcpSender>),
    NearOpt(tcp::TcpFlow<nearopt::NearOptSender>),
    ConstRate(rate::ConstRateFlow),
    Roce(roce::RoceFlow),
}

macro_rules! each {
    ($s:expr, $e:ident => $body:expr) => {
        match $s {
            AnyEndpoint::Tcp($e) => $body,
            AnyEndpoint::NearOpt($e) => $body,
            AnyEndpoint::ConstRate($e) => $body,
            AnyEndpoint::Roce($e) => $body,
        }
    };
}

impl AnyEndpoint {
    /// The endpoint of a flow of transport `rt` (created at the flow's start).
    pub fn new(rt: &TransportRt, d: &FlowDesc, record_delivery: bool) -> AnyEndpoint {
        match rt.kind {
            TransportKind::Tcp => AnyEndpoint::Tcp(tcp::TcpFlow::new(
                // The flow's absolute deadline reaches the CC (D2TCP, spec §4.3).
                TcpSender::new(rt.tcp(), d.size).with_deadline(d.deadline),
                rt,
                d,
                record_delivery,
            )),
            TransportKind::NearOpt => AnyEndpoint::NearOpt(tcp::TcpFlow::new(
                nearopt::NearOptSender::new(rt.tcp(), d.size, rt.data_overhead),
                rt,
                d,
                record_delivery,
            )),
            TransportKind::ConstRate(r) => {
                AnyEndpoint::ConstRate(rate::ConstRateFlow::new(r, rt, d))
            }
            TransportKind::Roce => AnyEndpoint::Roce(roce::RoceFlow::new(
                &rt.roce().copied().unwrap_or_default(),
                d,
            )),
        }
    }

    /// A packet of a flow with no endpoint (finished at the sender): the transport may still
    /// answer (TCP answers a SYN and echoes a TCP+ probe); everything else is ignored.
    pub fn on_closed(cx: &mut Cx, p: &Packet) {
        match cx.rt.kind {
            TransportKind::Tcp | TransportKind::NearOpt => tcp::on_closed(cx, p),
            // RoCE: the responder completed before the requester closed; late packets need
            // no answer.
            TransportKind::ConstRate(_) | TransportKind::Roce => {}
        }
    }

    /// The live TCP sender (traces and tests).
    pub fn tcp_sender(&self) -> Option<&TcpSender> {
        match self {
            AnyEndpoint::Tcp(t) => Some(&t.tx),
            _ => None,
        }
    }

    /// A RoCE QP (tests and traces).
    pub fn roce(&self) -> Option<&roce::RoceFlow> {
        match self {
            AnyEndpoint::Roce(r) => Some(r),
            _ => None,
        }
    }

    /// The Near-Opt sender's current rate (wire bytes per second).
    pub fn nearopt_rate(&self) -> Option<f64> {
        match self {
            AnyEndpoint::NearOpt(t) => Some(t.tx.rate),
            _ => None,
        }
    }
}

impl Endpoint for AnyEndpoint {
    #[inline]
    fn on_start(&mut self, cx: &mut Cx) {
        each!(self, e => e.on_start(cx))
    }
    #[inline]
    fn on_packet(&mut self, cx: &mut Cx, p: &Packet) {
        each!(self, e => e.on_packet(cx, p))
    }
    #[inline]
    fn on_timer(&mut self, cx: &mut Cx, t: Timer) {
        each!(self, e => e.on_timer(cx, t))
    }
    #[inline]
    fn deadline(&self, t: Timer) -> Option<Time> {
        each!(self, e => e.deadline(t))
    }
    #[inline]
    fn on_drop(&mut self, cx: &mut Cx, p: &Packet) {
        each!(self, e => e.on_drop(cx, p))
    }
    #[inline]
    fn set_rate(&mut self, rate: f64) {
        each!(self, e => e.set_rate(rate))
    }
    fn fold(&self, rec: &mut FlowRecord) {
        each!(self, e => e.fold(rec))
    }
    fn trace(&self, now: Time, flow: u32) -> Option<TraceRow> {
        each!(self, e => e.trace(now, flow))
    }
}
