//! Transport flows: where the sans-IO TCP endpoints meet the fabric.
//!
//! Each flow has a sender at `src` and a receiver at `dst`. The sim turns the segments and
//! ACKs the endpoints emit into packets, and their timer deadlines into events. Timers are
//! lazy: a flow keeps at most one pending `Rto` (and one `DelAck`) event at the earliest
//! deadline seen; when it fires the endpoint's current deadline is re-read, so restarting
//! the RTO on every ACK costs no heap operation.
//!
//! Because the simulator sees every copy of every segment, it classifies retransmissions
//! exactly: a retransmission is *spurious* if the receiver already had the bytes or an
//! earlier copy was still in flight (not dropped) when it was sent; an RTO is spurious if
//! the first segment it retransmits was not actually lost.

use super::nearopt::NearOptSender;
use super::{Event, Sim};
use crate::packet::{colour, flags, Packet, PktId, PktKind};
use dcnsim_engine::Time;
use dcnsim_transport::{
    Ack, RetxCause, RxSegment, Segment, TcpConfig, TcpReceiver, TcpSender, TltMark,
};
use std::collections::{HashMap, VecDeque};

pub const NEVER: Time = Time::MAX;

/// The TLT mark a packet carries (flags `IMPORTANT`, `CLOCK`).
#[inline]
fn mark_of(p: &Packet) -> TltMark {
    match (p.flags & flags::IMPORTANT != 0, p.flags & flags::CLOCK != 0) {
        (false, _) => TltMark::None,
        (true, false) => TltMark::Important,
        (true, true) => TltMark::ImportantClock,
    }
}

/// Which sender a transport uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TransportKind {
    Tcp,
    /// The Near-Opt oracle (see `sim::nearopt`).
    NearOpt,
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

/// Per-transport wire parameters.
#[derive(Clone, Debug)]
pub struct TransportRt {
    pub kind: TransportKind,
    /// Model the SYN / SYN-ACK exchange before data (and a FIN after it).
    pub handshake: bool,
    /// Near-Opt learns of drops when they happen instead of at its timeout.
    pub nearopt_immediate: bool,
    pub cqcn: Option<CqcnRt>,
    pub tcp: TcpConfig,
    /// Header bytes added to every data segment's payload on the wire.
    pub data_overhead: u32,
    /// Wire bytes of a pure ACK.
    pub ack_wire: u32,
    /// TLT runs on this transport: control packets and important data are green, the
    /// other data red (TLT §4, §5.1). Without TLT every packet is red.
    pub tlt: bool,
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
}

/// Per-flow outcome.
#[derive(Clone, Debug, Default)]
pub struct FlowRecord {
    pub finish: Option<Time>,
    pub sender_done: Option<Time>,
    pub data_pkts: u64,
    pub retx_pkts: u64,
    pub fast_retx: u64,
    pub rto_count: u64,
    pub spurious_rto: u64,
    pub spurious_retx: u64,
    pub ecn_marks: u64,
    pub max_cwnd: u64,
    pub max_pkt_drops: u32,
    pub drops: u64,
    /// TCP+: times a marked probe echo halted the sender.
    pub cqcn_halts: u64,
    /// When data could first flow (the SYN-ACK's arrival with a handshake, else the start).
    pub established: Option<Time>,
    /// SYN retransmissions.
    pub syn_retx: u32,
    /// Tail-loss probes sent and losses they recovered (RFC 8985 §7).
    pub tlp_probes: u64,
    pub tlp_recoveries: u64,
    /// Timeouts and fast recoveries undone as spurious (F-RTO, timestamps, D-SACK).
    pub undo_rto: u64,
    pub undo_fast: u64,
    /// TLT: important data segments sent (Important Data and Important Clock Data), their
    /// payload bytes, the important ones dropped in the fabric, the bytes sent by important
    /// ACK-clocking, and segments an Important Echo revealed as lost.
    pub important_pkts: u64,
    pub important_bytes: u64,
    pub important_drops: u64,
    pub clock_bytes: u64,
    pub tlt_lost_segs: u64,
    /// Sender state when it finished (or at the end of the run): smoothed RTT and RTO.
    pub srtt: Option<Time>,
    pub rto: Option<Time>,
}

impl FlowRecord {
    /// Copies the sender's counters that are only read at the end.
    fn fold(&mut self, t: &TcpSender) {
        let s = t.stats();
        self.tlp_probes = s.tlp_probes;
        self.tlp_recoveries = s.tlp_recoveries;
        self.undo_rto = s.undo_rto;
        self.undo_fast = s.undo_fast;
        self.important_pkts = s.important_pkts;
        self.important_bytes = s.important_bytes;
        self.clock_bytes = s.clock_bytes;
        self.tlt_lost_segs = s.tlt_lost_segs;
        self.srtt = t.srtt();
        self.rto = Some(t.rto());
    }
}

/// One sample of a traced flow's sender state.
#[derive(Clone, Copy, Debug)]
pub struct TraceRow {
    pub t: Time,
    pub flow: u32,
    pub cwnd: u64,
    pub ssthresh: u64,
    pub srtt: Option<Time>,
    pub rto: Time,
    /// Bytes cumulatively acknowledged.
    pub snd_una: u64,
    pub inflight: u64,
    pub alpha: Option<f64>,
}

/// In-flight copies per segment index, as a window sliding with the lowest segment still
/// of interest (so memory follows the window, not the flow size).
#[derive(Default)]
struct Fate {
    base: u64,
    copies: VecDeque<u16>,
}

impl Fate {
    #[inline]
    fn get(&self, idx: u64) -> u16 {
        if idx < self.base {
            return 0;
        }
        self.copies
            .get((idx - self.base) as usize)
            .copied()
            .unwrap_or(0)
    }
    #[inline]
    fn inc(&mut self, idx: u64) {
        if idx < self.base {
            return; // older than anything tracked: cannot matter any more
        }
        let off = (idx - self.base) as usize;
        if off >= self.copies.len() {
            self.copies.resize(off + 1, 0);
        }
        self.copies[off] += 1;
    }
    #[inline]
    fn dec(&mut self, idx: u64) {
        if idx >= self.base {
            if let Some(c) = self.copies.get_mut((idx - self.base) as usize) {
                *c = c.saturating_sub(1);
            }
        }
    }
    /// Forgets segments below `idx` with no copy in flight.
    #[inline]
    fn trim(&mut self, idx: u64) {
        while self.base < idx && self.copies.front() == Some(&0) {
            self.copies.pop_front();
            self.base += 1;
        }
        if self.copies.is_empty() && self.base < idx {
            self.base = idx;
        }
    }
}

/// Segment delivery time (TLT Fig. 16; opt-in `output.segment_delivery`): per MSS-aligned
/// segment, from its first transmission to the first ACK that covers it whole, cumulatively
/// or by SACK, retransmissions included. A window of first-transmission times slides with the
/// lowest segment not yet delivered.
#[derive(Default)]
struct DeliveryWin {
    base: u64,
    first: VecDeque<Time>,
}

const UNSENT: Time = Time::MAX;
const DELIVERED: Time = Time::MAX - 1;

/// Histogram of delivery times: bin 0 below 100 ns, then 50 bins per decade (4.7% wide, fine
/// enough for percentile ratios such as Fig. 16's 22.8%) up to 10 s, then one bin above.
pub const DELIVERY_BINS: usize = 8 * 50 + 2;
/// Lower edge of bin 1 (seconds) and bins per decade.
const DELIVERY_LO_EXP: f64 = -7.0;
const DELIVERY_PER_DECADE: f64 = 50.0;

/// The histogram bin of a delivery time of `t` picoseconds.
#[inline]
pub fn delivery_bin(t: Time) -> usize {
    let s = dcnsim_engine::to_secs(t);
    if s <= 0.0 {
        return 0;
    }
    let x = ((s.log10() - DELIVERY_LO_EXP) * DELIVERY_PER_DECADE).floor() + 1.0;
    x.clamp(0.0, (DELIVERY_BINS - 1) as f64) as usize
}

/// Bin edges in seconds (`DELIVERY_BINS - 1` of them: bin i spans edges[i-1]..edges[i]).
pub fn delivery_edges() -> Vec<f64> {
    (0..DELIVERY_BINS - 1)
        .map(|i| 10f64.powf(DELIVERY_LO_EXP + i as f64 / DELIVERY_PER_DECADE))
        .collect()
}

impl DeliveryWin {
    fn sent(&mut self, idx: u64, now: Time) {
        if idx < self.base {
            return;
        }
        let off = (idx - self.base) as usize;
        if off >= self.first.len() {
            self.first.resize(off + 1, UNSENT);
        }
        if self.first[off] == UNSENT {
            self.first[off] = now;
        }
    }
    /// Segments `lo..hi` are acknowledged at `now`: record the first time for each.
    fn covered(&mut self, lo: u64, hi: u64, now: Time, hist: &mut [u64; DELIVERY_BINS]) {
        for idx in lo.max(self.base)..hi {
            let off = (idx - self.base) as usize;
            let Some(t) = self.first.get_mut(off) else {
                break;
            };
            if *t < DELIVERED {
                hist[delivery_bin(now - *t)] += 1;
                *t = DELIVERED;
            }
        }
        while self.first.front() == Some(&DELIVERED) {
            self.first.pop_front();
            self.base += 1;
        }
    }
}

/// The sending side of a flow.
// Lives inside the boxed per-flow state, so the size difference costs nothing per packet.
#[allow(clippy::large_enum_variant)]
pub enum Tx {
    Tcp(TcpSender),
    NearOpt(NearOptSender),
}

impl Tx {
    pub fn rto_deadline(&self) -> Option<Time> {
        match self {
            Tx::Tcp(t) => t.rto_deadline(),
            Tx::NearOpt(t) => t.rto_deadline(),
        }
    }
    pub fn done(&self) -> bool {
        match self {
            Tx::Tcp(t) => t.done(),
            Tx::NearOpt(t) => t.done(),
        }
    }
    pub fn snd_una(&self) -> u64 {
        match self {
            Tx::Tcp(t) => t.snd_una(),
            Tx::NearOpt(t) => t.snd_una(),
        }
    }
    /// Congestion window (TCP) or bytes in flight (Near-Opt, which has no window).
    pub fn cwnd(&self) -> u64 {
        match self {
            Tx::Tcp(t) => t.cwnd(),
            Tx::NearOpt(t) => t.inflight(),
        }
    }
    pub fn rto_count(&self) -> u64 {
        match self {
            Tx::Tcp(t) => t.stats().rto_count,
            Tx::NearOpt(t) => t.rto_count,
        }
    }
    pub fn tcp(&self) -> Option<&TcpSender> {
        match self {
            Tx::Tcp(t) => Some(t),
            Tx::NearOpt(_) => None,
        }
    }
}

struct FlowState {
    tx: Tx,
    rx: TcpReceiver,
    /// Scheduled pacing event (Near-Opt), or NEVER.
    pace_at: Time,
    /// Near-Opt: the ports on the flow's path and its queue class.
    path: Vec<u32>,
    queue: usize,
    /// TCP+: the sender is halted by a marked probe echo.
    halted: bool,
    /// Handshake modelled and the SYN-ACK not yet received.
    syn_pending: bool,
    syn_tries: u32,
    rto_at: Time,
    delack_at: Time,
    fate: Fate,
    mss: u64,
    /// Set by an RTO until its first retransmission is classified.
    rto_pending: bool,
    /// With `output.segment_delivery`: first-transmission times of undelivered segments.
    delivery: Option<Box<DeliveryWin>>,
}

#[derive(Default)]
pub struct Flows {
    pub transports: Vec<TransportRt>,
    pub desc: Vec<FlowDesc>,
    pub rec: Vec<FlowRecord>,
    state: Vec<Option<Box<FlowState>>>,
    drop_count: HashMap<(u32, u64), u32>,
    segs: Vec<Segment>,
    acks: Vec<Ack>,
    /// Flows not yet done (not started, or started and the sender not finished).
    active: u32,
    /// In-window flows whose last byte has not been received.
    pub window_pending: u32,
    /// With `output.segment_delivery`: a delivery-time histogram per traffic class.
    pub delivery: Option<Vec<[u64; DELIVERY_BINS]>>,
    pub completed: u32,
}

impl Flows {
    pub fn active(&self) -> u32 {
        self.active
    }
    pub fn len(&self) -> usize {
        self.desc.len()
    }
    pub fn is_empty(&self) -> bool {
        self.desc.is_empty()
    }
    pub(super) fn nearopt_class(&self, f: u32) -> usize {
        self.state[f as usize]
            .as_ref()
            .map(|s| s.queue)
            .unwrap_or(0)
    }
    pub(super) fn path(&self, f: u32) -> &[u32] {
        self.state[f as usize]
            .as_ref()
            .map(|s| s.path.as_slice())
            .unwrap_or(&[])
    }
    pub(super) fn set_nearopt_rate(&mut self, f: u32, r: f64) {
        if let Some(Tx::NearOpt(t)) = self.state[f as usize].as_mut().map(|s| &mut s.tx) {
            t.set_rate(r);
        }
    }
}

impl Sim {
    /// Registers a flow; it starts at `d.start`.
    pub fn add_flow(&mut self, d: FlowDesc) -> u32 {
        let f = self.flows.desc.len() as u32;
        self.ev.push(d.start.max(self.now()), Event::FlowStart(f));
        if d.in_window {
            self.flows.window_pending += 1;
        }
        self.flows.desc.push(d);
        self.flows.rec.push(FlowRecord::default());
        self.flows.state.push(None);
        self.flows.active += 1;
        f
    }

    pub(super) fn on_flow_start(&mut self, f: u32) {
        let d = &self.flows.desc[f as usize];
        let t = &self.flows.transports[d.transport as usize];
        let (kind, handshake) = (t.kind, t.handshake);
        let tx = match kind {
            TransportKind::Tcp => Tx::Tcp(TcpSender::new(&t.tcp, d.size)),
            TransportKind::NearOpt => {
                Tx::NearOpt(NearOptSender::new(&t.tcp, d.size, t.data_overhead))
            }
        };
        let (path, queue) = if kind == TransportKind::NearOpt {
            let path = self.route_of(d.src, d.dst, d.entropy);
            let prof = &self.profiles[self.ports[path[0] as usize].profile as usize];
            (path, prof.queue_of(d.class))
        } else {
            (Vec::new(), 0)
        };
        let st = FlowState {
            tx,
            rx: TcpReceiver::new(&t.tcp, d.size),
            pace_at: NEVER,
            path,
            queue,
            halted: false,
            syn_pending: handshake,
            syn_tries: 0,
            rto_at: NEVER,
            delack_at: NEVER,
            fate: Fate::default(),
            mss: t.tcp.mss as u64,
            rto_pending: false,
            delivery: self.flows.delivery.is_some().then(Box::default),
        };
        self.flows.state[f as usize] = Some(Box::new(st));
        if handshake {
            self.send_syn(f);
            return;
        }
        self.establish(f);
    }

    /// Sends the SYN of flow `f` and arms its retry timer (RFC 6298 §2.1: the initial RTO,
    /// doubled per retry).
    fn send_syn(&mut self, f: u32) {
        let now = self.now();
        let d = &self.flows.desc[f as usize];
        let t = &self.flows.transports[d.transport as usize];
        let tlt = t.tlt;
        // The SYN's own timer (`syn_rto`, Linux/ns-3 separate it from the data RTO).
        let (src, dst, class, entropy, wire, rto) = (
            d.src,
            d.dst,
            d.class,
            d.entropy,
            t.ack_wire,
            t.tcp.syn_rto.unwrap_or(t.tcp.rto_init),
        );
        let st = self.flows.state[f as usize].as_mut().unwrap();
        let at = now + (rto << st.syn_tries.min(20));
        st.syn_tries += 1;
        st.rto_at = at;
        self.ev.push(at, Event::Rto(f));
        let mut p = Packet::new(PktKind::Syn, f, src, dst, 0, wire);
        if tlt {
            p.colour = colour::GREEN; // TLT §5.1: SYN, FIN and RST are important
        }
        p.class = class;
        p.entropy = entropy;
        p.ts = now;
        let id = self.new_packet(p);
        self.host_send(src, id);
    }

    /// A SYN reached the receiver (reply with a SYN-ACK) or a SYN-ACK reached the sender
    /// (the connection is established: data may flow).
    pub(super) fn on_handshake_rx(&mut self, id: PktId) {
        let p = *self.arena.get(id);
        let f = p.flow;
        let Some(d) = self.flows.desc.get(f as usize) else {
            return;
        };
        if p.kind == PktKind::Syn {
            let t = &self.flows.transports[d.transport as usize];
            let mut r = Packet::new(PktKind::SynAck, f, d.dst, d.src, 0, t.ack_wire);
            if t.tlt {
                r.colour = colour::GREEN;
            }
            r.class = d.ack_class;
            r.entropy = d.entropy;
            r.ts = p.ts;
            let src = d.dst;
            let rid = self.new_packet(r);
            self.host_send(src, rid);
            return;
        }
        let Some(st) = self.flows.state[f as usize].as_mut() else {
            return;
        };
        if !st.syn_pending {
            return; // a duplicate SYN-ACK
        }
        st.syn_pending = false;
        st.rto_at = NEVER;
        let tries = st.syn_tries;
        let seed = self.flows.transports[d.transport as usize]
            .tcp
            .syn_rtt_sample;
        // RFC 6298 §3 (Karn): a retried SYN's round trip is ambiguous.
        if let (true, 1, Tx::Tcp(tx)) = (seed, tries, &mut st.tx) {
            tx.seed_rtt(self.ev.now().saturating_sub(p.ts));
        }
        self.flows.rec[f as usize].syn_retx = tries.saturating_sub(1);
        self.establish(f);
    }

    /// Starts the data transfer of flow `f`.
    fn establish(&mut self, f: u32) {
        let now = self.now();
        self.flows.rec[f as usize].established = Some(now);
        let d = &self.flows.desc[f as usize];
        let t = &self.flows.transports[d.transport as usize];
        let (kind, cqcn) = (t.kind, t.cqcn);
        if cqcn.is_some() {
            self.ev.push(now, Event::Probe(f));
        }
        if kind == TransportKind::NearOpt {
            let st = self.flows.state[f as usize].as_ref().unwrap();
            let n_ports = self.ports.len();
            self.nearopt.add_flow(f, st.queue, &st.path, n_ports);
            if !self.nearopt.ticking {
                self.nearopt.ticking = true;
                self.ev.push(now, Event::NearOptTick);
            }
            return;
        }
        let mut segs = std::mem::take(&mut self.flows.segs);
        segs.clear();
        if let Tx::Tcp(tx) = &mut self.flows.state[f as usize].as_mut().unwrap().tx {
            tx.start(now, &mut segs);
        }
        self.emit_segments(f, &segs);
        self.flows.segs = segs;
        self.sync_rto(f);
    }

    /// Near-Opt pacing: sends the segment whose time has come and schedules the next.
    pub(super) fn on_pace(&mut self, f: u32) {
        let now = self.now();
        let Some(st) = self.flows.state[f as usize].as_mut() else {
            return;
        };
        if st.pace_at != now {
            return;
        }
        st.pace_at = NEVER;
        let mut segs = std::mem::take(&mut self.flows.segs);
        segs.clear();
        if let Tx::NearOpt(tx) = &mut st.tx {
            tx.poll(now, &mut segs);
        }
        self.emit_segments(f, &segs);
        self.flows.segs = segs;
        self.sync_pace(f);
        self.sync_rto(f);
    }

    /// Schedules the flow's next pacing event if it is earlier than the one pending.
    pub(super) fn sync_pace(&mut self, f: u32) {
        let now = self.ev.now();
        let Some(st) = self.flows.state[f as usize].as_mut() else {
            return;
        };
        let Tx::NearOpt(tx) = &st.tx else { return };
        if let Some(t) = tx.next_send() {
            let t = t.max(now);
            if t < st.pace_at {
                st.pace_at = t;
                self.ev.push(t, Event::Pace(f));
            }
        }
    }

    /// TCP+: emits one high-priority probe toward the receiver and schedules the next.
    pub(super) fn on_probe_tick(&mut self, f: u32) {
        let now = self.now();
        if self.flows.state[f as usize].is_none() {
            return; // flow finished: probing stops
        }
        let d = &self.flows.desc[f as usize];
        let Some(c) = self.flows.transports[d.transport as usize].cqcn else {
            return;
        };
        let mut p = Packet::new(PktKind::Probe, f, d.src, d.dst, 0, c.wire);
        p.class = c.priority;
        p.entropy = d.entropy;
        p.flags |= flags::ECT;
        let src = d.src;
        let id = self.new_packet(p);
        self.host_send(src, id);
        self.ev.push(now + c.interval, Event::Probe(f));
    }

    /// TCP+: a probe reached the receiver (echo it, carrying its mark as ECE) or its echo
    /// reached the sender (halt while marked, resume on an unmarked echo).
    pub(super) fn on_probe_rx(&mut self, id: PktId) {
        let now = self.now();
        let p = *self.arena.get(id);
        let f = p.flow;
        let Some(d) = self.flows.desc.get(f as usize) else {
            return;
        };
        let Some(c) = self.flows.transports[d.transport as usize].cqcn else {
            return;
        };
        if p.dst == d.dst {
            let mut e = Packet::new(PktKind::Probe, f, d.dst, d.src, 0, c.wire);
            e.class = c.priority;
            e.entropy = d.entropy;
            if p.flags & flags::CE != 0 {
                e.flags |= flags::ECE;
            }
            let src = d.dst;
            let eid = self.new_packet(e);
            self.host_send(src, eid);
            return;
        }
        let marked = p.flags & flags::ECE != 0;
        let Some(st) = self.flows.state[f as usize].as_mut() else {
            return;
        };
        if st.halted == marked {
            return;
        }
        st.halted = marked;
        let mut segs = std::mem::take(&mut self.flows.segs);
        segs.clear();
        if let Tx::Tcp(tx) = &mut st.tx {
            // LPF §5: stop transmitting and freeze congestion control while marked.
            tx.set_halted(now, marked, &mut segs);
        }
        if marked {
            self.flows.rec[f as usize].cqcn_halts += 1;
        }
        self.emit_segments(f, &segs);
        self.flows.segs = segs;
        self.after_sender_step(f);
    }

    /// Turns sender segments into packets at the source host.
    fn emit_segments(&mut self, f: u32, segs: &[Segment]) {
        if segs.is_empty() {
            return;
        }
        let d = &self.flows.desc[f as usize];
        let (src, dst, class, entropy) = (d.src, d.dst, d.class, d.entropy);
        let overhead = self.flows.transports[d.transport as usize].data_overhead;
        for s in segs {
            let st = self.flows.state[f as usize].as_mut().unwrap();
            let idx = s.seq / st.mss;
            let rec = &mut self.flows.rec[f as usize];
            rec.data_pkts += 1;
            if let Some(cause) = s.retx {
                rec.retx_pkts += 1;
                let lost = !(st.rx.has(s.seq) || st.fate.get(idx) > 0);
                if !lost {
                    rec.spurious_retx += 1;
                }
                if cause == RetxCause::Fast {
                    rec.fast_retx += 1;
                }
                if cause == RetxCause::Rto && st.rto_pending {
                    st.rto_pending = false;
                    if !lost {
                        rec.spurious_rto += 1;
                    }
                }
            }
            st.fate.inc(idx);
            if let Some(w) = &mut st.delivery {
                w.sent(idx, self.ev.now());
            }
            let mut p = Packet::new(PktKind::Data, f, src, dst, s.len, s.len + overhead);
            p.seq = s.seq;
            p.ts = s.tsval;
            p.class = class;
            p.entropy = entropy;
            if s.ect {
                p.flags |= flags::ECT;
            }
            match s.retx {
                Some(RetxCause::Rto) => p.flags |= flags::RETX | flags::RTO_RETX,
                Some(_) => p.flags |= flags::RETX,
                None => {}
            }
            // TLT §4: important data is green, everything else red.
            match s.mark {
                TltMark::None => {}
                TltMark::Important => {
                    p.flags |= flags::IMPORTANT;
                    p.colour = colour::GREEN;
                }
                TltMark::ImportantClock => {
                    p.flags |= flags::IMPORTANT | flags::CLOCK;
                    p.colour = colour::GREEN;
                }
            }
            let id = self.new_packet(p);
            self.host_send(src, id);
        }
    }

    fn emit_acks(&mut self, f: u32, acks: &[Ack]) {
        let d = &self.flows.desc[f as usize];
        let (src, dst, class, entropy) = (d.dst, d.src, d.ack_class, d.entropy);
        let t = &self.flows.transports[d.transport as usize];
        let (wire, sack_bytes, tlt) = (t.ack_wire, t.tcp.sack_option_bytes, t.tlt);
        for a in acks {
            let mut p = Packet::new(PktKind::Ack, f, src, dst, 0, wire);
            if tlt {
                // TLT §5.1: every control packet (pure ACKs included) is important.
                p.colour = colour::GREEN;
                match a.mark {
                    TltMark::None => {}
                    TltMark::Important => p.flags |= flags::IMPORTANT,
                    TltMark::ImportantClock => p.flags |= flags::IMPORTANT | flags::CLOCK,
                }
            }
            p.seq = a.ack;
            p.ts = a.tsecr;
            p.owd = a.owd;
            p.class = class;
            p.entropy = entropy;
            p.n_sack = a.n_sack;
            p.sack = a.sack;
            if a.ece {
                p.flags |= flags::ECE;
            }
            if a.dsack {
                p.flags |= flags::DSACK;
            }
            if sack_bytes && a.n_sack > 0 {
                // RFC 2018 §3: kind + length (2 bytes) and 8 per block, padded to 4 bytes.
                p.wire += (2 + 8 * a.n_sack as u32).next_multiple_of(4);
            }
            let id = self.new_packet(p);
            self.host_send(src, id);
        }
    }

    pub(super) fn on_data_rx(&mut self, id: PktId) {
        let now = self.now();
        let p = *self.arena.get(id);
        let f = p.flow;
        let Some(st) = self.flows.state[f as usize].as_mut() else {
            return;
        };
        st.fate.dec(p.seq / st.mss);
        let ce = p.flags & flags::CE != 0;
        if ce {
            self.flows.rec[f as usize].ecn_marks += 1;
        }
        let mut acks = std::mem::take(&mut self.flows.acks);
        acks.clear();
        let seg = RxSegment {
            seq: p.seq,
            len: p.payload,
            ce,
            tsval: p.ts,
            mark: mark_of(&p),
        };
        st.rx.on_segment(now, &seg, now - p.created, &mut acks);
        let complete = st.rx.complete();
        if complete && self.flows.rec[f as usize].finish.is_none() {
            self.flows.rec[f as usize].finish = Some(now);
            self.flows.completed += 1;
            if self.flows.desc[f as usize].in_window {
                self.flows.window_pending -= 1;
            }
        }
        self.emit_acks(f, &acks);
        self.flows.acks = acks;
        self.sync_delack(f);
    }

    pub(super) fn on_ack_rx(&mut self, id: PktId) {
        let now = self.now();
        let p = *self.arena.get(id);
        let f = p.flow;
        let Some(st) = self.flows.state[f as usize].as_mut() else {
            return;
        };
        let ack = Ack {
            ack: p.seq,
            sack: p.sack,
            n_sack: p.n_sack,
            ece: p.flags & flags::ECE != 0,
            tsecr: p.ts,
            owd: p.owd,
            dsack: p.flags & flags::DSACK != 0,
            mark: mark_of(&p),
        };
        let mut segs = std::mem::take(&mut self.flows.segs);
        segs.clear();
        match &mut st.tx {
            Tx::Tcp(tx) => tx.on_ack(now, &ack, &mut segs),
            Tx::NearOpt(tx) => tx.on_ack(now, &ack),
        }
        let una_idx = st.tx.snd_una() / st.mss;
        st.fate.trim(una_idx);
        if let (Some(w), Some(h)) = (&mut st.delivery, &mut self.flows.delivery) {
            // Whole segments the ACK covers: below the cumulative ACK and inside SACK blocks
            // (a flow's last segment may be short).
            let (mss, size) = (st.mss, self.flows.desc[f as usize].size);
            let end_idx = |e: u64| if e >= size { e.div_ceil(mss) } else { e / mss };
            let hist = &mut h[self.flows.desc[f as usize].traffic_class as usize];
            w.covered(0, end_idx(st.tx.snd_una()), now, hist);
            for &(s, e) in ack.sack_blocks() {
                w.covered(s.div_ceil(mss), end_idx(e), now, hist);
            }
        }
        self.emit_segments(f, &segs);
        self.flows.segs = segs;
        self.after_sender_step(f);
    }

    pub(super) fn on_data_dropped(&mut self, id: PktId) {
        let p = self.arena.get(id);
        let (f, seq) = (p.flow, p.seq);
        let important = p.flags & flags::IMPORTANT != 0;
        let rec = &mut self.flows.rec[f as usize];
        rec.drops += 1;
        rec.important_drops += important as u64;
        let c = self.flows.drop_count.entry((f, seq)).or_insert(0);
        *c += 1;
        rec.max_pkt_drops = rec.max_pkt_drops.max(*c);
        let immediate =
            self.flows.transports[self.flows.desc[f as usize].transport as usize].nearopt_immediate;
        if let Some(st) = self.flows.state[f as usize].as_mut() {
            st.fate.dec(seq / st.mss);
            // Near-Opt with immediate loss information (mechanisms §4.12, CHOICE): the oracle
            // learns of the drop at once and the sender resends at its next pacing slot.
            if let (true, Tx::NearOpt(tx)) = (immediate, &mut st.tx) {
                if st.fate.get(seq / st.mss) == 0 && !st.rx.has(seq) {
                    tx.requeue(seq);
                }
            }
        }
        if immediate {
            self.sync_pace(f);
        }
    }

    pub(super) fn on_rto_event(&mut self, f: u32) {
        let now = self.now();
        let Some(st) = self.flows.state[f as usize].as_mut() else {
            return;
        };
        if st.rto_at != now {
            return; // superseded by an earlier check that rescheduled
        }
        st.rto_at = NEVER;
        if st.syn_pending {
            self.send_syn(f);
            return;
        }
        if matches!(st.tx.rto_deadline(), Some(d) if d <= now) {
            let mut segs = std::mem::take(&mut self.flows.segs);
            segs.clear();
            let rtos = st.tx.rto_count();
            match &mut st.tx {
                Tx::Tcp(tx) => tx.on_timeout(now, &mut segs),
                Tx::NearOpt(tx) => {
                    // LPF §3 loss information: only segments with no copy in flight that
                    // the receiver does not have were really lost.
                    let (rx, fate, mss) = (&st.rx, &st.fate, st.mss);
                    tx.on_timeout(now, |seq| !rx.has(seq) && fate.get(seq / mss) == 0);
                }
            }
            // The sender's timer may have been a probe or RACK's: only a timeout makes
            // its first retransmission the one that tells whether the RTO was spurious.
            if st.tx.rto_count() > rtos {
                st.rto_pending = true;
            }
            self.emit_segments(f, &segs);
            self.flows.segs = segs;
        }
        self.sync_pace(f);
        self.after_sender_step(f);
    }

    pub(super) fn on_delack_event(&mut self, f: u32) {
        let now = self.now();
        let Some(st) = self.flows.state[f as usize].as_mut() else {
            return;
        };
        if st.delack_at != now {
            return;
        }
        st.delack_at = NEVER;
        if matches!(st.rx.delack_deadline(), Some(d) if d <= now) {
            let mut acks = std::mem::take(&mut self.flows.acks);
            acks.clear();
            st.rx.on_delack_timeout(now, &mut acks);
            self.emit_acks(f, &acks);
            self.flows.acks = acks;
        }
        self.sync_delack(f);
    }

    /// Updates records, timers and completion after the sender acted.
    fn after_sender_step(&mut self, f: u32) {
        let now = self.now();
        let st = self.flows.state[f as usize].as_mut().unwrap();
        let rec = &mut self.flows.rec[f as usize];
        rec.max_cwnd = rec.max_cwnd.max(st.tx.cwnd());
        if st.tx.done() && rec.sender_done.is_none() {
            rec.sender_done = Some(now);
            rec.rto_count = st.tx.rto_count();
            if let Tx::Tcp(t) = &st.tx {
                rec.max_cwnd = rec.max_cwnd.max(t.stats().max_cwnd);
                rec.fold(t);
            }
            if matches!(st.tx, Tx::NearOpt(_)) {
                let (q, path) = (st.queue, std::mem::take(&mut st.path));
                self.nearopt.remove_flow(f, q, &path);
            }
            let d = &self.flows.desc[f as usize];
            let t = &self.flows.transports[d.transport as usize];
            if t.handshake {
                let mut p = Packet::new(PktKind::Fin, f, d.src, d.dst, 0, t.ack_wire);
                if t.tlt {
                    p.colour = colour::GREEN;
                }
                p.class = d.class;
                p.entropy = d.entropy;
                let src = d.src;
                let id = self.new_packet(p);
                self.host_send(src, id);
            }
            // The receiver has everything; any stray copies still in flight are ignored.
            self.flows.state[f as usize] = None;
            self.flows.active -= 1;
            return;
        }
        rec.rto_count = st.tx.rto_count();
        self.sync_rto(f);
    }

    fn sync_rto(&mut self, f: u32) {
        let Some(st) = self.flows.state[f as usize].as_mut() else {
            return;
        };
        if let Some(d) = st.tx.rto_deadline() {
            let d = d.max(self.ev.now());
            if d < st.rto_at {
                st.rto_at = d;
                self.ev.push(d, Event::Rto(f));
            }
        }
    }

    fn sync_delack(&mut self, f: u32) {
        let Some(st) = self.flows.state[f as usize].as_mut() else {
            return;
        };
        if let Some(d) = st.rx.delack_deadline() {
            let d = d.max(self.ev.now());
            if d < st.delack_at {
                st.delack_at = d;
                self.ev.push(d, Event::DelAck(f));
            }
        }
    }

    pub(super) fn on_trace(&mut self) {
        let now = self.now();
        for &f in &self.trace_flows {
            let Some(st) = self.flows.state.get(f as usize).and_then(|s| s.as_ref()) else {
                continue;
            };
            let Tx::Tcp(tx) = &st.tx else {
                continue;
            };
            self.traces.push(TraceRow {
                t: now,
                flow: f,
                cwnd: tx.cwnd(),
                ssthresh: tx.ssthresh(),
                srtt: tx.srtt(),
                rto: tx.rto(),
                snd_una: tx.snd_una(),
                inflight: tx.bytes_in_flight(),
                alpha: tx.dctcp_alpha(),
            });
        }
        let pending = self
            .trace_flows
            .iter()
            .any(|&f| self.flows.rec[f as usize].sender_done.is_none());
        if self.trace_every > 0 && pending {
            self.ev.push(now + self.trace_every, Event::Trace);
        }
    }

    /// A running Near-Opt flow's current rate (wire bytes per second).
    pub fn nearopt_rate(&self, f: u32) -> Option<f64> {
        match &self.flows.state.get(f as usize)?.as_ref()?.tx {
            Tx::NearOpt(t) => Some(t.rate),
            Tx::Tcp(_) => None,
        }
    }

    /// A flow's record with the counters of a sender still running folded in.
    pub(super) fn flow_record(&self, f: usize) -> FlowRecord {
        let mut r = self.flows.rec[f].clone();
        if let Some(Tx::Tcp(t)) = self.flows.state[f].as_ref().map(|s| &s.tx) {
            r.fold(t);
        }
        r
    }

    /// Live view of a running flow's sender (for traces and tests).
    pub fn flow_sender(&self, f: u32) -> Option<&TcpSender> {
        self.flows
            .state
            .get(f as usize)?
            .as_ref()
            .and_then(|s| s.tx.tcp())
    }
}
