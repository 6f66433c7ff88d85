//! Flows: where the transport endpoints (`crate::transport`) meet the fabric.
//!
//! This glue is the same for every transport. It creates a flow's endpoint at its start,
//! hands it the flow's packets, drops and due timers, sends the packets it emits from their
//! source hosts, keeps its timer slots scheduled, and counts completion. Timers are lazy: a
//! flow keeps at most one pending `Event::Timer` per slot, at the earliest deadline the
//! endpoint reported; when it fires the endpoint re-checks its own deadline, so restarting
//! an RTO on every ACK costs no heap operation. A stale event (the slot was re-armed earlier
//! or cancelled) is recognised by its time and ignored.
//!
//! Streaming (`Flows::streaming`, see [`FlowFeed`]): a run's flows need not all exist before
//! it starts. The feed hands the simulator the next flow when the run reaches its start, and
//! finished flows whose packets have all left the fabric are *retired*: their result row is
//! written and their description, record and slot are freed for a later flow, so the flows
//! held in memory are the running ones (and those finished since the last retirement pass),
//! not every flow of the run. A flow is retired as soon as it is done, whatever the state of
//! the flows started before it: under heavy-tailed sizes the oldest running flow gets older
//! as a run gets longer, and retiring in id order would hold every flow started after it.
//! Flow ids stay global: flow `f`'s slot in the held vectors is `pos[f - base]`, where `base`
//! is the oldest flow not yet retired; without streaming, the slot of flow `f` is `f`.

use super::{Event, FlowTimer, Sim};
use crate::net::config::MAX_QUEUES;
use crate::packet::{flags, PktId, PktKind, NIL};
use crate::transport::{AnyEndpoint, Cx, Effects, Endpoint, Timer, N_TIMERS};
use dcnsim_engine::Time;
use dcnsim_transport::TcpSender;
use std::collections::{BTreeMap, VecDeque};

pub use crate::transport::{
    delivery_bin, delivery_edges, CqcnRt, FlowDesc, FlowRecord, TraceRow, TransportKind,
    TransportRt, DELIVERY_BINS, NEVER,
};

/// The live state of a running flow.
struct FlowSlot {
    ep: AnyEndpoint,
    /// The pending event of each timer slot (NEVER = none).
    pending: [Time; N_TIMERS],
    /// Flows under the rate controller: their queue class and path (egress ports).
    ctrl: Option<Box<(usize, Vec<u32>)>>,
    /// NIC-pulled (a RoCE QP, [`NicPull`]): 0 = no, [`PULLED`], [`WAITING`] (in its queue's
    /// waiting list); its host port and queue there.
    nic: u8,
    nic_q: u8,
    nic_port: u32,
}

/// `Flows::pos` of a retired flow.
const RETIRED: u32 = u32::MAX;

const PULLED: u8 = 1;
const WAITING: u8 = 2;

/// How a RoCE NIC feeds its port: it *pulls* the next packet from a QP that may send when
/// the port can take one, and a QP whose priority is PFC-paused is not served. (The HPCC /
/// TLT reference NIC, `QbbNetDevice::DequeueAndTransmit` with
/// `RdmaEgressQueue::GetNextQindex`, builds a QP's next packet only when the link is free,
/// round robin over the QPs whose priority is not paused and whose rate limiter allows one.)
/// A host NIC that took every paced packet would queue without bound while PFC pauses it:
/// the QP's rate limiter keeps running and nothing marks a host queue.
///
/// Modelled with a one-packet look-ahead: a QP's pacing timer (`Timer::Pace`) sends only
/// while its priority's queue at the host port is empty and not paused; otherwise the QP
/// joins that queue's waiting list (FIFO, so the QPs of a host take turns). When the queue
/// hands a packet to the wire, or PFC resumes it, the first waiting QP gets the turn; a QP
/// that has nothing to send (its rate limiter not yet due) passes it on. So the host queue
/// holds at most one data packet of a priority (plus control packets), the next one to
/// go when the current serialization ends.
#[derive(Default)]
pub struct NicPull {
    /// A RoCE flow has started (the hooks in the port's transmit path and PFC's resume
    /// cost one test otherwise).
    pub on: bool,
    /// Per host (node id; made when one of its QPs first waits), per queue of its port: the
    /// waiting QPs in arrival order.
    lists: Vec<Option<Box<[VecDeque<u32>; MAX_QUEUES]>>>,
}

impl NicPull {
    /// Whether a QP waits at queue `q` of host `host`.
    #[inline]
    fn any(&self, host: usize, q: usize) -> bool {
        matches!(self.lists.get(host), Some(Some(l)) if !l[q].is_empty())
    }
}

/// Where retired flows' result rows go when a run spills them (batches of [`FLOW_BATCH`]
/// rows in the order the flows were retired, which is deterministic but not flow-id order;
/// each row carries its `flow_id`).
pub type FlowSink = Box<dyn FnMut(super::results::FlowTable)>;

/// Rows per batch handed to a [`FlowSink`].
pub const FLOW_BATCH: usize = 512;

/// The flows of a streaming run not yet started: one lazily generated list per traffic
/// class, merged in `(start, list index, position)` order (what a stable sort of all the
/// lists by start gives, `dcnsim_workload::merge_sorted`), and the conversion of a flow to
/// its description (given the flow id it gets).
pub struct FlowFeed {
    lists: Vec<Box<dyn Iterator<Item = dcnsim_workload::FlowSpec>>>,
    heads: Vec<Option<dcnsim_workload::FlowSpec>>,
    make: MakeFlow,
}

/// Builds a flow's description from its spec and id.
pub type MakeFlow = Box<dyn Fn(&Sim, u32, &dcnsim_workload::FlowSpec) -> FlowDesc>;

impl FlowFeed {
    /// Each list must be sorted by start (as every generator's is).
    pub fn new(
        lists: Vec<Box<dyn Iterator<Item = dcnsim_workload::FlowSpec>>>,
        make: MakeFlow,
    ) -> FlowFeed {
        let mut lists = lists;
        let heads = lists.iter_mut().map(|l| l.next()).collect();
        FlowFeed { lists, heads, make }
    }
    /// Whether list `i` has no flow at all left.
    pub fn list_empty(&self, i: usize) -> bool {
        self.heads[i].is_none()
    }
    /// The list holding the next flow: the earliest start, the lowest list on a tie.
    fn next_list(&self) -> Option<usize> {
        let mut best: Option<(Time, usize)> = None;
        for (i, h) in self.heads.iter().enumerate() {
            if let Some(f) = h {
                if best.is_none_or(|(t, _)| f.start < t) {
                    best = Some((f.start, i));
                }
            }
        }
        best.map(|(_, i)| i)
    }
    /// The start of the next flow (`Time::MAX`: none left).
    pub fn next_start(&self) -> Time {
        self.next_list()
            .and_then(|i| self.heads[i].as_ref())
            .map_or(Time::MAX, |f| f.start)
    }
    fn pop(&mut self) -> Option<dcnsim_workload::FlowSpec> {
        let i = self.next_list()?;
        let f = self.heads[i].take();
        self.heads[i] = self.lists[i].next();
        f
    }
}

#[derive(Default)]
pub struct Flows {
    pub transports: Vec<TransportRt>,
    /// Held flows, by slot: flow `f` is in slot `pos[f - base]` (see the module docs; without
    /// streaming nothing is retired and the slot of flow `f` is `f`).
    pub desc: Vec<FlowDesc>,
    pub rec: Vec<FlowRecord>,
    state: Vec<Option<Box<FlowSlot>>>,
    /// Slot of each flow from `base` on ([`RETIRED`]: retired).
    pos: Vec<u32>,
    /// Slots of retired flows, reused by the next flows (last freed first).
    free: Vec<u32>,
    /// The oldest flow not yet retired (every flow before it is).
    pub base: u32,
    /// Streaming: flows come from the feed and finished ones are retired (see the module
    /// docs); off, every flow is added before the run and held to its end.
    pub streaming: bool,
    /// Result rows of retired flows not yet handed to the sink (all of them without one).
    pub retired: super::results::FlowTable,
    pub sink: Option<FlowSink>,
    /// The most flows held at once (a measure of the flow memory).
    pub held_peak: usize,
    /// Per traffic class: payload bytes of the flows starting in the measurement window
    /// (the offered load), and their number over all classes.
    pub offered_win: Vec<u64>,
    pub in_window: u64,
    /// Copies of each (flow, segment) dropped so far (a retired flow's entries are removed).
    drop_count: BTreeMap<(u32, u64), u32>,
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
    /// Flows so far (retired ones included): the next flow's id.
    pub fn len(&self) -> usize {
        self.base as usize + self.pos.len()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Flows held in memory now.
    pub fn held(&self) -> usize {
        self.desc.len() - self.free.len()
    }
    /// Slot of flow `f` in the held vectors (out of range if retired or unknown).
    #[inline]
    pub fn ix(&self, f: u32) -> usize {
        if !self.streaming {
            // Nothing is retired: slot = id (one predictable test instead of a look-up).
            return f as usize;
        }
        match self.pos.get(f.wrapping_sub(self.base) as usize) {
            Some(&s) => s as usize,
            None => usize::MAX,
        }
    }
    /// The held flows' ids and slots, in id order.
    pub fn held_slots(&self) -> impl Iterator<Item = (u32, usize)> + '_ {
        let base = self.base;
        self.pos
            .iter()
            .enumerate()
            .filter(|(_, &s)| s != RETIRED)
            .map(move |(k, &s)| (base + k as u32, s as usize))
    }
    /// A held flow's description.
    #[inline]
    pub fn desc_of(&self, f: u32) -> &FlowDesc {
        &self.desc[self.ix(f)]
    }
    /// A held flow's record (None: retired or not yet started).
    pub fn rec_of(&self, f: u32) -> Option<&FlowRecord> {
        self.rec.get(self.ix(f))
    }
    fn slot(&self, f: u32) -> Option<&FlowSlot> {
        self.state.get(self.ix(f))?.as_deref()
    }
    fn slot_mut(&mut self, f: u32) -> Option<&mut FlowSlot> {
        let i = self.ix(f);
        self.state.get_mut(i)?.as_deref_mut()
    }
    /// A controlled flow's queue class and path.
    pub(super) fn controlled(&self, f: u32) -> (usize, &[u32]) {
        match self.slot(f).and_then(|s| s.ctrl.as_ref()) {
            Some(c) => (c.0, c.1.as_slice()),
            None => (0, &[]),
        }
    }
    /// Appends a flow (not started): its id.
    fn push(&mut self, d: FlowDesc) -> u32 {
        let f = self.len() as u32;
        if d.in_window {
            self.window_pending += 1;
            self.in_window += 1;
            let tc = d.traffic_class as usize;
            if self.offered_win.len() <= tc {
                self.offered_win.resize(tc + 1, 0);
            }
            self.offered_win[tc] += d.size;
        }
        match self.free.pop() {
            Some(slot) => {
                let i = slot as usize;
                self.desc[i] = d;
                self.rec[i] = FlowRecord::default();
                self.state[i] = None;
                self.pos.push(slot);
            }
            None => {
                self.pos.push(self.desc.len() as u32);
                self.desc.push(d);
                self.rec.push(FlowRecord::default());
                self.state.push(None);
            }
        }
        self.held_peak = self.held_peak.max(self.held());
        self.active += 1;
        f
    }

    /// A running rate-controlled flow's current rate (wire bytes per second).
    pub(super) fn nearopt_rate_of(&self, f: u32) -> Option<f64> {
        self.slot(f)?.ep.nearopt_rate()
    }
    pub(super) fn set_rate(&mut self, f: u32, r: f64) {
        if let Some(s) = self.slot_mut(f) {
            s.ep.set_rate(r);
        }
    }
}

impl Sim {
    /// Registers a flow; it starts at `d.start`.
    pub fn add_flow(&mut self, d: FlowDesc) -> u32 {
        let start = d.start.max(self.now());
        let f = self.flows.push(d);
        self.ev.push(start, Event::FlowStart(f));
        f
    }

    /// Streaming: the next flow of the feed starts now (`next_start`). It runs exactly as
    /// its `FlowStart` event would have in a run with every flow added before it starts:
    /// those events were pushed before all others, so a flow start goes before every event
    /// of the same picosecond (see `Sim::run`).
    pub(super) fn start_next_flow(&mut self) {
        let mut feed = self.feed.take().expect("a feed with a next flow");
        self.ev.advance_to(self.next_start);
        let id = self.flows.len() as u32;
        let spec = feed.pop().expect("a next flow");
        let d = (feed.make)(self, id, &spec);
        self.next_start = feed.next_start();
        self.feed = Some(feed);
        let f = self.flows.push(d);
        self.on_flow_start(f);
    }

    /// After the run: the feed's flows that never started join the results (as unstarted
    /// flows, as they would have been with every flow added before the run).
    pub fn drain_feed(&mut self) {
        let Some(mut feed) = self.feed.take() else {
            return;
        };
        while let Some(spec) = feed.pop() {
            let id = self.flows.len() as u32;
            let d = (feed.make)(self, id, &spec);
            self.flows.push(d);
        }
        self.next_start = Time::MAX;
    }

    /// Streaming: retires every finished flow (its endpoint closed) of which no live packet
    /// is left in the fabric: its row goes to `retired` (and batches of rows to the sink),
    /// its slot is freed. A retired flow's record can no longer change: only its endpoint
    /// (gone when its sender finished) or its packets could change it. Flows are retired in
    /// id order within a pass, so the rows' order is deterministic. (Every held flow of a
    /// streaming run has started: the feed starts a flow as it adds it.)
    pub fn retire_flows(&mut self) {
        if !self.flows.streaming {
            return;
        }
        let fl = &mut self.flows;
        let mut live = vec![false; fl.pos.len()];
        self.arena.mark_live_flows(fl.base, &mut live);
        let mut any = false;
        for (k, is_live) in live.iter().enumerate() {
            let slot = fl.pos[k];
            if slot == RETIRED || *is_live || fl.state[slot as usize].is_some() {
                continue;
            }
            let i = slot as usize;
            fl.retired
                .push_row(fl.base as usize + k, &fl.desc[i], &fl.rec[i]);
            fl.pos[k] = RETIRED;
            fl.free.push(slot);
            any = true;
        }
        if !any {
            return;
        }
        let gone = fl.pos.iter().take_while(|&&s| s == RETIRED).count();
        fl.pos.drain(..gone);
        fl.base += gone as u32;
        let (base, pos) = (fl.base, &fl.pos);
        fl.drop_count.retain(|&(f, _), _| {
            pos.get(f.wrapping_sub(base) as usize)
                .is_some_and(|&s| s != RETIRED)
        });
        if fl.retired.len() >= FLOW_BATCH {
            if let Some(sink) = fl.sink.as_mut() {
                sink(std::mem::take(&mut fl.retired));
            }
        }
    }

    pub(super) fn on_flow_start(&mut self, f: u32) {
        let fl = &mut self.flows;
        let i = fl.ix(f);
        let d = &fl.desc[i];
        let rt = &fl.transports[d.transport as usize];
        let ep = AnyEndpoint::new(rt, d, fl.delivery.is_some());
        let nic = if rt.roce().is_some() { PULLED } else { 0 };
        let nic_port = self.nodes[d.src as usize].first_port;
        let prof = self.ports[nic_port as usize].profile as usize;
        fl.state[i] = Some(Box::new(FlowSlot {
            ep,
            pending: [NEVER; N_TIMERS],
            ctrl: None,
            nic,
            nic_q: self.profiles[prof].queue_of(d.class) as u8,
            nic_port,
        }));
        self.nic.on |= nic != 0;
        if self.shim.is_some() {
            self.shim_flow_start(f);
        }
        self.call(f, |ep, cx| ep.on_start(cx));
    }

    /// Calls flow `f`'s endpoint with a fresh context, then carries out what it asked for.
    /// Returns false (and calls nothing) if the flow has no endpoint.
    ///
    /// The endpoint's packets are allocated in the arena as it sends them and chained
    /// through their `next` links (see [`Cx`]); each call sends only its own chain, so the
    /// calls nested in sending them (a drop at the host NIC calls `on_drop`) need no shared
    /// buffer.
    #[inline]
    fn call(&mut self, f: u32, g: impl FnOnce(&mut AnyEndpoint, &mut Cx)) -> bool {
        let now = self.ev.now();
        let fl = &mut self.flows;
        let i = fl.ix(f);
        let Some(slot) = fl.state[i].as_mut() else {
            return false;
        };
        let d = &fl.desc[i];
        let rt = &fl.transports[d.transport as usize];
        let rec = &mut fl.rec[i];
        let dl = &mut fl.delivery;
        let mut cx = Cx::new(now, f, d, rt, rec, dl, &mut self.arena);
        g(&mut slot.ep, &mut cx);
        let (fx, head) = (cx.fx, cx.head);
        self.apply(f, fx, head);
        true
    }

    /// Sends the packets an endpoint emitted (the chain from `head`, in order), then applies
    /// its requests: completion, joining the rate controller, closing, and timer slots.
    #[inline(always)]
    fn apply(&mut self, f: u32, fx: Effects, head: PktId) {
        let mut id = head;
        while id != NIL {
            let p = self.arena.get_mut(id);
            let next = p.next;
            p.next = NIL;
            let src = p.src;
            self.host_send(src, id);
            id = next;
        }
        if fx.flags | fx.cancel != 0 && !self.apply_rare(f, fx) {
            return;
        }
        if fx.rearm != 0 {
            self.rearm(f, fx.rearm);
        }
    }

    /// Completion, joining the controller, closing and cancelled timers. Returns false if
    /// the flow closed.
    #[inline(never)]
    fn apply_rare(&mut self, f: u32, fx: Effects) -> bool {
        if fx.flags & Effects::COMPLETED != 0 {
            self.flows.completed += 1;
            if self.flows.desc_of(f).in_window {
                self.flows.window_pending -= 1;
            }
        }
        if fx.flags & Effects::JOIN_CONTROLLER != 0 {
            self.controller_join(f);
        }
        if fx.flags & Effects::CLOSED != 0 {
            if self.shim.is_some() {
                self.shim_flow_end(f);
            }
            let i = self.flows.ix(f);
            if let Some(s) = self.flows.state[i].take() {
                if let Some(c) = s.ctrl {
                    self.nearopt.remove_flow(f, c.0, &c.1);
                }
            }
            self.flows.active -= 1;
            return false;
        }
        if fx.cancel != 0 {
            if let Some(s) = self.flows.slot_mut(f) {
                for (i, p) in s.pending.iter_mut().enumerate() {
                    if fx.cancel & (1 << i) != 0 {
                        *p = NEVER;
                    }
                }
            }
        }
        true
    }

    /// Re-reads the deadlines of the slots in mask `m` (in slot order) and schedules those
    /// earlier than their pending event: one look-up of the flow for all of them.
    #[inline]
    fn rearm(&mut self, f: u32, mut m: u8) {
        let now = self.ev.now();
        let Some(s) = self.flows.slot_mut(f) else {
            return;
        };
        while m != 0 {
            let t = Timer::from_index(m.trailing_zeros());
            m &= m - 1;
            if let Some(d) = s.ep.deadline(t) {
                let d = d.max(now);
                if d < s.pending[t as usize] {
                    s.pending[t as usize] = d;
                    self.ev.push(d, Event::Timer(FlowTimer::new(t, f)));
                }
            }
        }
    }

    /// Schedules slot `t` of flow `f` if the endpoint's deadline is earlier than the pending
    /// event.
    #[inline]
    pub(super) fn sync_timer(&mut self, f: u32, t: Timer) {
        let now = self.ev.now();
        let Some(s) = self.flows.slot_mut(f) else {
            return;
        };
        if let Some(d) = s.ep.deadline(t) {
            let d = d.max(now);
            if d < s.pending[t as usize] {
                s.pending[t as usize] = d;
                self.ev.push(d, Event::Timer(FlowTimer::new(t, f)));
            }
        }
    }

    pub(super) fn on_flow_timer(&mut self, f: u32, t: Timer) {
        let now = self.now();
        // (A retired flow's stale timer finds no slot.)
        let Some(s) = self.flows.slot_mut(f) else {
            return;
        };
        if s.pending[t as usize] != now {
            return; // superseded by an earlier event that rescheduled, or cancelled
        }
        s.pending[t as usize] = NEVER;
        let pulled = t == Timer::Pace && s.nic != 0;
        let (port, q) = (s.nic_port, s.nic_q as usize);
        if pulled && self.nic_blocked(f, port, q) {
            return;
        }
        self.call(f, |ep, cx| ep.on_timer(cx, t));
        if pulled {
            // A QP with nothing to send yet passes the turn on.
            self.nic_wake(port, q);
        }
    }

    /// The NIC cannot take a packet of queue `q` now: it holds one or PFC paused it.
    #[inline]
    fn nic_busy(&self, port: u32, q: usize) -> bool {
        let p = &self.ports[port as usize];
        p.paused & (1 << q) != 0 || p.q[q].pkts > 0
    }

    /// A NIC-pulled flow's pacing timer fired: if its queue cannot take a packet, the flow
    /// waits for its turn ([`NicPull`]) instead of sending.
    #[inline]
    fn nic_blocked(&mut self, f: u32, port: u32, q: usize) -> bool {
        if !self.nic_busy(port, q) {
            return false;
        }
        let s = self
            .flows
            .slot_mut(f)
            .expect("a flow with a due timer has a slot");
        if s.nic != WAITING {
            s.nic = WAITING;
            let host = self.ports[port as usize].node as usize;
            let l = &mut self.nic.lists;
            if l.len() <= host {
                l.resize_with(host + 1, || None);
            }
            l[host].get_or_insert_with(Default::default)[q].push_back(f);
        }
        true
    }

    /// Host port `port` (of host `host`) put a packet on the wire: if a QP waits at the
    /// packet's queue, and the queue can take the next packet, the first one gets the turn.
    #[inline]
    pub(super) fn nic_on_tx(&mut self, port: u32, host: usize, id: PktId) {
        if self.nic.lists.get(host).is_none_or(|l| l.is_none()) {
            return;
        }
        let prof = self.ports[port as usize].profile as usize;
        let q = self.profiles[prof].queue_of(self.arena.get(id).class);
        if self.nic.any(host, q) {
            self.nic_serve(port, host, q);
        }
    }

    /// Gives the turn at (`port`, `q`) to its waiting flows (those still running) while the
    /// queue can take a packet: each one's pacing timer runs at once, so a waiting QP goes
    /// before one whose timer merely falls due at this instant, and one with nothing to send
    /// yet passes the turn on.
    #[inline]
    pub(super) fn nic_wake(&mut self, port: u32, q: usize) {
        let host = self.ports[port as usize].node as usize;
        if self.nic.any(host, q) {
            self.nic_serve(port, host, q);
        }
    }

    #[inline(never)]
    fn nic_serve(&mut self, port: u32, host: usize, q: usize) {
        while self.nic.any(host, q) && !self.nic_busy(port, q) {
            let Some(Some(l)) = self.nic.lists.get_mut(host) else {
                return;
            };
            let g = l[q].pop_front().expect("a waiting QP");
            let Some(s) = self.flows.slot_mut(g) else {
                continue; // finished while it waited
            };
            s.nic = PULLED;
            self.call(g, |ep, cx| ep.on_timer(cx, Timer::Pace));
        }
    }

    /// A packet of a flow reached its destination host.
    pub(super) fn on_flow_packet(&mut self, id: PktId) {
        let p = *self.arena.get(id);
        let f = p.flow;
        let rx = |ep: &mut AnyEndpoint, cx: &mut Cx| {
            cx.rx = id;
            ep.on_packet(cx, &p)
        };
        if self.call(f, rx) {
            return;
        }
        self.on_closed_packet(f, &p);
    }

    /// A packet of a flow with no endpoint (finished at its sender): the transport may still
    /// answer.
    #[inline(never)]
    fn on_closed_packet(&mut self, f: u32, p: &crate::packet::Packet) {
        let now = self.ev.now();
        let fl = &mut self.flows;
        let i = fl.ix(f);
        let d = &fl.desc[i];
        let rt = &fl.transports[d.transport as usize];
        let rec = &mut fl.rec[i];
        let dl = &mut fl.delivery;
        let mut cx = Cx::new(now, f, d, rt, rec, dl, &mut self.arena);
        AnyEndpoint::on_closed(&mut cx, p);
        let (fx, head) = (cx.fx, cx.head);
        self.apply(f, fx, head);
    }

    /// A packet of a flow was dropped in the fabric.
    pub(super) fn on_flow_drop(&mut self, id: PktId) {
        let p = *self.arena.get(id);
        let f = p.flow;
        if p.kind == PktKind::Data {
            let i = self.flows.ix(f);
            let rec = &mut self.flows.rec[i];
            rec.drops += 1;
            rec.important_drops += (p.flags & flags::IMPORTANT != 0) as u64;
            let c = self.flows.drop_count.entry((f, p.seq)).or_insert(0);
            *c += 1;
            rec.max_pkt_drops = rec.max_pkt_drops.max(*c);
        }
        self.call(f, |ep, cx| ep.on_drop(cx, &p));
    }

    /// The flow's rate is set by the rate controller (the Near-Opt oracle) from now on.
    fn controller_join(&mut self, f: u32) {
        let now = self.now();
        let d = self.flows.desc_of(f);
        let path = self.route_of(d.src, d.dst, d.entropy);
        let prof = &self.profiles[self.ports[path[0] as usize].profile as usize];
        let q = prof.queue_of(d.class);
        let n_ports = self.ports.len();
        self.nearopt.add_flow(f, q, &path, n_ports);
        if let Some(s) = self.flows.slot_mut(f) {
            s.ctrl = Some(Box::new((q, path)));
        }
        if !self.nearopt.ticking {
            self.nearopt.ticking = true;
            self.ev.push(now, Event::Controller);
        }
    }

    pub(super) fn on_trace(&mut self) {
        let now = self.now();
        for &f in &self.trace_flows {
            let Some(s) = self.flows.slot(f) else {
                continue;
            };
            if let Some(row) = s.ep.trace(now, f) {
                self.traces.push(row);
            }
        }
        let pending = self
            .trace_flows
            .iter()
            .any(|&f| self.flows.rec_of(f).is_none_or(|r| r.sender_done.is_none()));
        if self.trace_every > 0 && pending {
            self.ev.push(now + self.trace_every, Event::Trace);
        }
    }

    /// A running Near-Opt flow's current rate (wire bytes per second).
    pub fn nearopt_rate(&self, f: u32) -> Option<f64> {
        self.flows.slot(f)?.ep.nearopt_rate()
    }

    /// A held flow's record (index `i` of the held ones) with the counters of an endpoint
    /// still running folded in.
    pub(super) fn flow_record(&self, i: usize) -> FlowRecord {
        let mut r = self.flows.rec[i].clone();
        if let Some(s) = self.flows.state[i].as_ref() {
            s.ep.fold(&mut r);
        }
        r
    }

    /// A running RoCE flow (its QP state, for tests).
    pub fn roce_flow(&self, f: u32) -> Option<&crate::transport::roce::RoceFlow> {
        self.flows.slot(f)?.ep.roce()
    }

    /// Live view of a running flow's TCP sender (for traces and tests).
    pub fn flow_sender(&self, f: u32) -> Option<&TcpSender> {
        self.flows.slot(f)?.ep.tcp_sender()
    }
}
