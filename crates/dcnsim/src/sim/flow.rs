//! Flows: where the transport endpoints (`crate::transport`) meet the fabric.
//!
//! This glue is the same for every transport. It creates a flow's endpoint at its start,
//! hands it the flow's packets, drops and due timers, sends the packets it emits from their
//! source hosts, keeps its timer slots scheduled, and counts completion. Timers are lazy: a
//! flow keeps at most one pending `Event::Timer` per slot, at the earliest deadline the
//! endpoint reported; when it fires the endpoint re-checks its own deadline, so restarting
//! an RTO on every ACK costs no heap operation. A stale event (the slot was re-armed earlier
//! or cancelled) is recognised by its time and ignored.

use super::{Event, FlowTimer, Sim};
use crate::packet::{flags, PktId, PktKind, NIL};
use crate::transport::{AnyEndpoint, Cx, Effects, Endpoint, Timer, N_TIMERS};
use dcnsim_engine::Time;
use dcnsim_transport::TcpSender;
use std::collections::HashMap;

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
}

#[derive(Default)]
pub struct Flows {
    pub transports: Vec<TransportRt>,
    pub desc: Vec<FlowDesc>,
    pub rec: Vec<FlowRecord>,
    state: Vec<Option<Box<FlowSlot>>>,
    drop_count: HashMap<(u32, u64), u32>,
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
    /// A controlled flow's queue class and path.
    pub(super) fn controlled(&self, f: u32) -> (usize, &[u32]) {
        match self.state[f as usize]
            .as_ref()
            .and_then(|s| s.ctrl.as_ref())
        {
            Some(c) => (c.0, c.1.as_slice()),
            None => (0, &[]),
        }
    }
    /// A running rate-controlled flow's current rate (wire bytes per second).
    pub(super) fn nearopt_rate_of(&self, f: u32) -> Option<f64> {
        self.state.get(f as usize)?.as_ref()?.ep.nearopt_rate()
    }
    pub(super) fn set_rate(&mut self, f: u32, r: f64) {
        if let Some(s) = self.state[f as usize].as_mut() {
            s.ep.set_rate(r);
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
        let fl = &mut self.flows;
        let d = &fl.desc[f as usize];
        let rt = &fl.transports[d.transport as usize];
        let ep = AnyEndpoint::new(rt, d, fl.delivery.is_some());
        fl.state[f as usize] = Some(Box::new(FlowSlot {
            ep,
            pending: [NEVER; N_TIMERS],
            ctrl: None,
        }));
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
        let Some(slot) = fl.state[f as usize].as_mut() else {
            return false;
        };
        let d = &fl.desc[f as usize];
        let rt = &fl.transports[d.transport as usize];
        let rec = &mut fl.rec[f as usize];
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
            if self.flows.desc[f as usize].in_window {
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
            if let Some(s) = self.flows.state[f as usize].take() {
                if let Some(c) = s.ctrl {
                    self.nearopt.remove_flow(f, c.0, &c.1);
                }
            }
            self.flows.active -= 1;
            return false;
        }
        if fx.cancel != 0 {
            if let Some(s) = self.flows.state[f as usize].as_mut() {
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
        let Some(s) = self.flows.state[f as usize].as_deref_mut() else {
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
        let Some(s) = self.flows.state[f as usize].as_mut() else {
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
        let Some(s) = self.flows.state[f as usize].as_mut() else {
            return;
        };
        if s.pending[t as usize] != now {
            return; // superseded by an earlier event that rescheduled, or cancelled
        }
        s.pending[t as usize] = NEVER;
        self.call(f, |ep, cx| ep.on_timer(cx, t));
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
        let d = &fl.desc[f as usize];
        let rt = &fl.transports[d.transport as usize];
        let rec = &mut fl.rec[f as usize];
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
            let rec = &mut self.flows.rec[f as usize];
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
        let d = &self.flows.desc[f as usize];
        let path = self.route_of(d.src, d.dst, d.entropy);
        let prof = &self.profiles[self.ports[path[0] as usize].profile as usize];
        let q = prof.queue_of(d.class);
        let n_ports = self.ports.len();
        self.nearopt.add_flow(f, q, &path, n_ports);
        if let Some(s) = self.flows.state[f as usize].as_mut() {
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
            let Some(s) = self.flows.state.get(f as usize).and_then(|s| s.as_ref()) else {
                continue;
            };
            if let Some(row) = s.ep.trace(now, f) {
                self.traces.push(row);
            }
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
        self.flows
            .state
            .get(f as usize)?
            .as_ref()?
            .ep
            .nearopt_rate()
    }

    /// A flow's record with the counters of an endpoint still running folded in.
    pub(super) fn flow_record(&self, f: usize) -> FlowRecord {
        let mut r = self.flows.rec[f].clone();
        if let Some(s) = self.flows.state[f].as_ref() {
            s.ep.fold(&mut r);
        }
        r
    }

    /// A running RoCE flow (its QP state, for tests).
    pub fn roce_flow(&self, f: u32) -> Option<&crate::transport::roce::RoceFlow> {
        self.flows.state.get(f as usize)?.as_ref()?.ep.roce()
    }

    /// Live view of a running flow's TCP sender (for traces and tests).
    pub fn flow_sender(&self, f: u32) -> Option<&TcpSender> {
        self.flows.state.get(f as usize)?.as_ref()?.ep.tcp_sender()
    }
}
