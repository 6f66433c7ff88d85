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

use super::{Event, Sim};
use crate::packet::{flags, Packet, PktId, PktKind};
use dcnsim_engine::Time;
use dcnsim_transport::{Ack, RetxCause, RxSegment, Segment, TcpConfig, TcpReceiver, TcpSender};
use std::collections::{HashMap, VecDeque};

pub const NEVER: Time = Time::MAX;

/// Per-transport wire parameters.
#[derive(Clone, Debug)]
pub struct TransportRt {
    pub tcp: TcpConfig,
    /// Header bytes added to every data segment's payload on the wire.
    pub data_overhead: u32,
    /// Wire bytes of a pure ACK.
    pub ack_wire: u32,
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

struct FlowState {
    tx: TcpSender,
    rx: TcpReceiver,
    rto_at: Time,
    delack_at: Time,
    fate: Fate,
    mss: u64,
    /// Set by an RTO until its first retransmission is classified.
    rto_pending: bool,
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
        let now = self.now();
        let d = &self.flows.desc[f as usize];
        let t = &self.flows.transports[d.transport as usize];
        let st = FlowState {
            tx: TcpSender::new(&t.tcp, d.size),
            rx: TcpReceiver::new(&t.tcp, d.size),
            rto_at: NEVER,
            delack_at: NEVER,
            fate: Fate::default(),
            mss: t.tcp.mss as u64,
            rto_pending: false,
        };
        self.flows.state[f as usize] = Some(Box::new(st));
        let mut segs = std::mem::take(&mut self.flows.segs);
        segs.clear();
        self.flows.state[f as usize]
            .as_mut()
            .unwrap()
            .tx
            .start(now, &mut segs);
        self.emit_segments(f, &segs);
        self.flows.segs = segs;
        self.sync_rto(f);
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
            let id = self.new_packet(p);
            self.host_send(src, id);
        }
    }

    fn emit_acks(&mut self, f: u32, acks: &[Ack]) {
        let d = &self.flows.desc[f as usize];
        let (src, dst, class, entropy) = (d.dst, d.src, d.ack_class, d.entropy);
        let wire = self.flows.transports[d.transport as usize].ack_wire;
        for a in acks {
            let mut p = Packet::new(PktKind::Ack, f, src, dst, 0, wire);
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
        };
        let mut segs = std::mem::take(&mut self.flows.segs);
        segs.clear();
        st.tx.on_ack(now, &ack, &mut segs);
        let una_idx = st.tx.snd_una() / st.mss;
        st.fate.trim(una_idx);
        self.emit_segments(f, &segs);
        self.flows.segs = segs;
        self.after_sender_step(f);
    }

    pub(super) fn on_data_dropped(&mut self, id: PktId) {
        let p = self.arena.get(id);
        let (f, seq) = (p.flow, p.seq);
        let rec = &mut self.flows.rec[f as usize];
        rec.drops += 1;
        let c = self.flows.drop_count.entry((f, seq)).or_insert(0);
        *c += 1;
        rec.max_pkt_drops = rec.max_pkt_drops.max(*c);
        if let Some(st) = self.flows.state[f as usize].as_mut() {
            st.fate.dec(seq / st.mss);
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
        if matches!(st.tx.rto_deadline(), Some(d) if d <= now) {
            let mut segs = std::mem::take(&mut self.flows.segs);
            segs.clear();
            st.rto_pending = true;
            st.tx.on_timeout(now, &mut segs);
            self.emit_segments(f, &segs);
            self.flows.segs = segs;
        }
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
            let s = st.tx.stats();
            rec.rto_count = s.rto_count;
            rec.max_cwnd = rec.max_cwnd.max(s.max_cwnd);
            // The receiver has everything; any stray copies still in flight are ignored.
            self.flows.state[f as usize] = None;
            self.flows.active -= 1;
            return;
        }
        rec.rto_count = st.tx.stats().rto_count;
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
        let mut any = false;
        for &f in &self.trace_flows {
            let Some(st) = self.flows.state.get(f as usize).and_then(|s| s.as_ref()) else {
                continue;
            };
            any = true;
            let tx = &st.tx;
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
        let _ = any;
        if self.trace_every > 0 && pending {
            self.ev.push(now + self.trace_every, Event::Trace);
        }
    }

    /// Live view of a running flow's sender (for traces and tests).
    pub fn flow_sender(&self, f: u32) -> Option<&TcpSender> {
        self.flows.state.get(f as usize)?.as_ref().map(|s| &s.tx)
    }
}
