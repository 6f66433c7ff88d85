//! The event loop: where hosts, transports and the fabric meet.
//!
//! One `match` over a small `Copy` [`Event`]. A switch hop (route → scheme hook → buffer
//! admission → marking → enqueue) is a synchronous call chain; the events are a packet
//! reaching the far end of its wire (`Arrive`, scheduled when its serialization starts, a
//! fixed delay ahead), a busy port freeing up while packets wait (`TxDone`, at most one per
//! port), and flow starts and flow timer slots (`Timer`: retransmission, delayed ACK, NIC
//! pacing, ... — the same event for every transport, see `crate::transport`). Fixed-delay events cost O(1) in the event
//! queue's lanes (see `dcnsim_engine::queue`).
//!
//! Layout: the event types, `Sim`, its constructors and the event loop here; the host ends
//! and the switch hop (`host_send` … `route_of`) in `fabric.rs`; queue sampling in
//! `sample.rs`; the unit tests in `tests.rs`.

pub mod flow;
pub mod nearopt;
pub mod pcap;
pub mod pfc;
pub mod results;
pub mod shim;
pub mod source;

mod fabric;
mod sample;
#[cfg(test)]
mod tests;

use crate::net::{HostConfig, Port, Profile, SharedPool, SwitchConfig};
use crate::packet::{Arena, Packet, PktId};
use crate::scheme::AnyScheme;
use crate::topo::routes::Routes;
use crate::topo::{Graph, NodeKind};
use crate::transport::{Timer, N_TIMERS};
use dcnsim_engine::{EventQueue, Packable, Rng, Time, TxClock};
use flow::Flows;
use source::Sources;

/// Everything that happens at a point in time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    // The declaration order is the packed kind (`pack`), so packing is a shift.
    /// A busy port finished its current serialization and packets wait: start the next.
    TxDone(u32),
    /// A packet reaches the far end of the wire it is on (the packet's id; while on a wire
    /// its `next` link holds the port it left).
    Arrive(u32),
    FlowStart(u32),
    /// An open-loop source emits.
    Source(u32),
    /// Periodic queue sampling.
    Sample,
    /// Periodic sampling of traced flows' sender state.
    Trace,
    /// A round of the rate controller (the Near-Opt oracle, `sim::nearopt`).
    Controller,
    /// PFC: a PAUSE / RESUME frame arrives, a pause expires, or a switch refreshes its
    /// PAUSE (`sim::pfc` encodes port, kind and queue).
    Pfc(u32),
    /// A flow's timer slot is due (the endpoint re-checks its deadline; see `sim::flow`).
    Timer(FlowTimer),
    /// The sender shim (`sim::shim`): a pipe's token bucket allows its next packet, or
    /// (`shim::TICK`) the control interval ends.
    Shim(u32),
    /// A port profile's delayed DRR weight reconfiguration takes effect (the index is the
    /// profile; C3 §2, Fig 3c).
    Reconfigure(u32),
}

/// A flow's timer slot and the flow, packed as `slot << 26 | flow` so that an event packs
/// with one add whatever its kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowTimer(u32);

impl FlowTimer {
    #[inline]
    pub fn new(t: Timer, flow: u32) -> Self {
        debug_assert!(flow <= MAX_EVENT_INDEX);
        FlowTimer((t as u32) << 26 | flow)
    }
    #[inline]
    pub fn slot(self) -> Timer {
        Timer::from_index(self.0 >> 26)
    }
    #[inline]
    pub fn flow(self) -> u32 {
        self.0 & MAX_EVENT_INDEX
    }
}

const _: () = assert!(std::mem::size_of::<Event>() <= 8);

/// Largest index an event can carry (26 bits: 4 bits go to the kind).
pub const MAX_EVENT_INDEX: u32 = (1 << 26) - 1;
const _: () = assert!(crate::packet::MAX_PACKETS - 1 <= MAX_EVENT_INDEX as usize);

// The packed kinds (`Event::pack`): `unpack`, `Sim::dispatch_packed` and `prefetch_next`
// decode with the same names.
const TXDONE_TAG: u32 = 0;
const ARRIVE_TAG: u32 = 1;
const FLOWSTART_TAG: u32 = 2;
const SOURCE_TAG: u32 = 3;
const SAMPLE_TAG: u32 = 4;
const TRACE_TAG: u32 = 5;
const CONTROLLER_TAG: u32 = 6;
const PFC_TAG: u32 = 7;
/// The first of the kinds that carry a timer slot (one kind per slot).
const TIMER_TAG: u32 = 8;
/// The kind after the timer slots.
const SHIM_TAG: u32 = TIMER_TAG + N_TIMERS as u32;
/// The kind of `Event::Reconfigure`.
const RECONF_TAG: u32 = SHIM_TAG + 1;
const _: () = assert!(RECONF_TAG < 16);

impl Packable for Event {
    #[inline]
    fn pack(self) -> u32 {
        let (tag, i) = match self {
            Event::TxDone(i) => (TXDONE_TAG, i),
            Event::Arrive(i) => (ARRIVE_TAG, i),
            Event::FlowStart(i) => (FLOWSTART_TAG, i),
            Event::Source(i) => (SOURCE_TAG, i),
            Event::Sample => (SAMPLE_TAG, 0),
            Event::Trace => (TRACE_TAG, 0),
            Event::Controller => (CONTROLLER_TAG, 0),
            Event::Pfc(i) => (PFC_TAG, i),
            Event::Shim(i) => (SHIM_TAG, i),
            Event::Reconfigure(i) => (RECONF_TAG, i),
            // The slot is already in bits 26.. of the payload: it adds to the kind.
            Event::Timer(x) => return (TIMER_TAG << 26) + x.0,
        };
        debug_assert!(i <= MAX_EVENT_INDEX);
        (tag << 26) | i
    }
    #[inline]
    fn unpack(b: u32) -> Self {
        let i = b & MAX_EVENT_INDEX;
        match b >> 26 {
            TXDONE_TAG => Event::TxDone(i),
            ARRIVE_TAG => Event::Arrive(i),
            FLOWSTART_TAG => Event::FlowStart(i),
            SOURCE_TAG => Event::Source(i),
            SAMPLE_TAG => Event::Sample,
            TRACE_TAG => Event::Trace,
            CONTROLLER_TAG => Event::Controller,
            PFC_TAG => Event::Pfc(i),
            SHIM_TAG => Event::Shim(i),
            RECONF_TAG => Event::Reconfigure(i),
            _ => Event::Timer(FlowTimer(b - (TIMER_TAG << 26))),
        }
    }
}

/// Field order is fixed (`repr(C)`, 64-byte aligned) so that what a hop reads of a switch
/// (its kind, ECMP salt and shared pool) is one cache line; the name and the marking
/// stream come after it.
#[repr(C, align(64))]
pub struct Node {
    pub kind: NodeKind,
    pub first_port: u32,
    pub n_ports: u32,
    /// Per-switch ECMP hash salt.
    pub salt: u64,
    pub pool: SharedPool,
    pub name: String,
    /// The node's RED marking stream (at enqueue or dequeue), beside its pool so that a
    /// hop that needs neither pays no index for it.
    pub mark_rng: Rng,
}

const _: () = assert!(std::mem::offset_of!(Node, name) <= 64);

/// Per-run fabric counters.
#[derive(Clone, Debug, Default)]
pub struct Counters {
    /// Link transmissions completed (packets × links crossed).
    pub packet_hops: u64,
    pub delivered: u64,
    pub dropped: u64,
    pub drops_by_reason: [u64; crate::net::buffer::N_DROP_REASONS],
}

/// ECMP mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ecmp {
    /// One path per flow: hash of the flow's entropy with a per-switch salt.
    PerFlow,
    /// Spray: each packet carries its own random entropy.
    PerPacket,
}

/// One queue sample: occupancy at `t`, and what the queue did since the previous sample
/// (`output.queue_sample_interval`).
#[derive(Clone, Copy, Debug)]
pub struct Sample {
    pub t: Time,
    pub port: u32,
    pub queue: u8,
    pub bytes: u64,
    /// Bytes dequeued for transmission, drops (any reason) and ECN marks in the interval
    /// ending at `t` (differences of the queue's cumulative counters).
    pub tx_bytes: u64,
    pub drops: u64,
    pub marks: u64,
    /// Time the port spent serializing in the interval (the same on each of its queues).
    pub busy: Time,
}

/// Payload bytes delivered to receivers of one traffic class in the interval ending at `t`.
#[derive(Clone, Copy, Debug)]
pub struct ClassSample {
    pub t: Time,
    pub class: u16,
    pub bytes: u64,
}

pub struct Sim {
    pub ev: EventQueue<Event>,
    pub arena: Arena,
    pub ports: Vec<Port>,
    pub profiles: Vec<Profile>,
    pub nodes: Vec<Node>,
    pub routes: Routes,
    pub n_hosts: u32,
    pub scheme: AnyScheme,
    pub ecmp: Ecmp,
    pub spray_rng: Rng,
    pub counters: Counters,
    pub sources: Sources,
    pub flows: Flows,
    pub sample_every: Time,
    pub sample_ports: Vec<u32>,
    pub samples: Vec<Sample>,
    /// The cumulative counters (bytes out, drops, marks) of each sampled (port, queue) at
    /// the previous sample, in sampling order.
    pub sample_prev: Vec<[u64; 4]>,
    pub class_samples: Vec<ClassSample>,
    /// Payload bytes of data segments delivered to receivers, per traffic class: in total
    /// (a retransmitted copy the receiver already had counts again) and inside the
    /// measurement window `window` = [warmup, duration − cooldown).
    pub class_rx: Vec<u64>,
    pub class_rx_win: Vec<u64>,
    pub class_rx_prev: Vec<u64>,
    pub window: (Time, Time),
    /// Packet capture (`output.pcap`); `None` = off.
    pub pcap: Option<Box<pcap::Capture>>,
    pub trace_every: Time,
    pub trace_flows: Vec<u32>,
    pub traces: Vec<flow::TraceRow>,
    /// Row caps of `samples` and `traces` (the memory limit's share); reaching one stops
    /// that recording and leaves a note.
    pub max_samples: usize,
    pub max_trace_rows: usize,
    /// Warnings raised during the run (recording stopped at a cap).
    pub notes: Vec<String>,
    pub nearopt: nearopt::NearOptOracle,
    /// The port at the other end of each port's link (the reverse direction).
    pub rev: Vec<u32>,
    /// PFC state; `None` = no PFC.
    pub pfc: Option<Box<pfc::Pfc>>,
    /// The sender shim of ElasticSwitch / C3 (`sim::shim`); `None` = off.
    pub shim: Option<Box<shim::Shim>>,
    /// RoCE NICs pull packets from their QPs ([`flow::NicPull`]).
    pub nic: flow::NicPull,
    /// Debug: verify port accounting after every operation (tests only; slow).
    pub paranoid: bool,
    /// `run` stops once time ≥ `stop_min` and every measured flow has finished
    /// (and, with `drain`, every flow); `u64::MAX` disables the check.
    pub stop_min: Time,
    pub drain: bool,
    /// Set when `run` stopped because the measured flows are done.
    pub finished: bool,
    /// Streaming: the flows not yet started, and the next one's start (`Time::MAX`: none).
    pub feed: Option<Box<flow::FlowFeed>>,
    pub next_start: Time,
}

/// Salt and stream purposes for the master seed.
pub mod rngs {
    pub const ECMP_SALT: u64 = 1;
    pub const MARK: u64 = 2;
    pub const SPRAY: u64 = 3;
}

impl Sim {
    /// Builds the fabric from a graph. `profile_of_node` gives the egress profile index for
    /// each node's ports; pools gives each node's shared-buffer size (0 = none).
    pub fn new(
        g: &Graph,
        profiles: Vec<Profile>,
        profile_of_node: &[u16],
        pools: &[u64],
        seed: u64,
        ecmp: Ecmp,
    ) -> Sim {
        let h = g.n_hosts();
        let adj = g.adjacency();
        // Sized once: `Port` and `Node` are over-aligned, and growing such a `Vec` copies it
        // (the allocator cannot resize an over-aligned block in place).
        let mut ports = Vec::with_capacity(adj.iter().map(|a| a.len()).sum());
        // Before the first write, so the first touch maps huge pages (1,000+ hosts: ~9 MB).
        dcnsim_engine::advise_huge_pages(ports.as_ptr(), ports.capacity());
        let mut nodes = Vec::with_capacity(g.nodes.len());
        let mut node_ports = Vec::new();
        for (i, info) in g.nodes.iter().enumerate() {
            let first = ports.len() as u32;
            let mut peers = Vec::new();
            for (local, &(peer, li)) in adj[i].iter().enumerate() {
                let l = &g.links[li as usize];
                ports.push(Port::new(
                    i as u32,
                    peer,
                    local as u16,
                    profile_of_node[i],
                    TxClock::new(l.rate),
                    l.delay,
                ));
                if let Some(depth) = l.tb_depth {
                    ports.last_mut().unwrap().set_token_bucket(depth);
                }
                peers.push(peer);
            }
            nodes.push(Node {
                kind: info.kind,
                name: info.name.clone(),
                first_port: first,
                n_ports: peers.len() as u32,
                pool: SharedPool {
                    total: pools[i],
                    used: 0,
                    max_used: 0,
                    headroom: 0,
                },
                salt: dcnsim_engine::rng::mix64(&[seed, rngs::ECMP_SALT, i as u64]),
                mark_rng: Rng::stream(seed, rngs::MARK, i as u64),
            });
            node_ports.push((first, peers));
        }
        // Reverse ports: the two ports of a link, matched by link index.
        let mut by_link: std::collections::HashMap<u32, Vec<u32>> = Default::default();
        for (i, a) in adj.iter().enumerate() {
            for (local, &(_, li)) in a.iter().enumerate() {
                by_link
                    .entry(li)
                    .or_default()
                    .push(nodes[i].first_port + local as u32);
            }
        }
        let mut rev = vec![u32::MAX; ports.len()];
        for v in by_link.values() {
            if let [a, b] = v[..] {
                rev[a as usize] = b;
                rev[b as usize] = a;
            }
        }
        let routes = Routes::build(g, &node_ports);
        let mut ev = EventQueue::new();
        for (i, p) in profiles.iter().enumerate() {
            if let Some((t, _)) = p.sched.reconf {
                ev.push(t, Event::Reconfigure(i as u32));
            }
        }
        Sim {
            ev,
            arena: Arena::new(),
            ports,
            profiles,
            nodes,
            routes,
            n_hosts: h,
            scheme: AnyScheme::None,
            ecmp,
            spray_rng: Rng::stream(seed, rngs::SPRAY, 0),
            counters: Counters::default(),
            sources: Sources::default(),
            flows: Flows::default(),
            sample_every: 0,
            sample_ports: Vec::new(),
            samples: Vec::new(),
            sample_prev: Vec::new(),
            class_samples: Vec::new(),
            class_rx: Vec::new(),
            class_rx_win: Vec::new(),
            class_rx_prev: Vec::new(),
            window: (0, Time::MAX),
            pcap: None,
            trace_every: 0,
            max_samples: usize::MAX,
            max_trace_rows: usize::MAX,
            notes: Vec::new(),
            trace_flows: Vec::new(),
            traces: Vec::new(),
            nearopt: nearopt::NearOptOracle::default(),
            rev,
            pfc: None,
            shim: None,
            nic: flow::NicPull::default(),
            paranoid: false,
            stop_min: Time::MAX,
            drain: false,
            finished: false,
            feed: None,
            next_start: Time::MAX,
        }
    }

    /// Builds a fabric where every host NIC uses `host` and every switch port uses `switch`.
    pub fn with_configs(
        g: &Graph,
        switch: &SwitchConfig,
        host: &HostConfig,
        seed: u64,
        ecmp: Ecmp,
    ) -> Sim {
        let profiles = vec![Profile::host(host), Profile::switch(switch)];
        let of_node: Vec<u16> = g
            .nodes
            .iter()
            .map(|n| if n.kind == NodeKind::Host { 0 } else { 1 })
            .collect();
        let pools: Vec<u64> = g
            .nodes
            .iter()
            .map(|n| {
                if n.kind == NodeKind::Switch {
                    switch.shared_buffer.map(|b| b.0).unwrap_or(0)
                } else {
                    0
                }
            })
            .collect();
        Sim::new(g, profiles, &of_node, &pools, seed, ecmp)
    }

    #[inline]
    pub fn now(&self) -> Time {
        self.ev.now()
    }

    /// The NIC port of host `h`.
    #[inline]
    pub fn host_port(&self, h: u32) -> u32 {
        self.nodes[h as usize].first_port
    }

    /// Runs events until the queue is empty, time would pass `until`, or `budget` events
    /// have been processed. Returns the number processed.
    ///
    /// A streaming run's next flow (`next_start`) starts before every queued event of its
    /// picosecond and counts as one event (as its `FlowStart` would: see
    /// `flow::start_next_flow`).
    pub fn run(&mut self, until: Time, budget: u64) -> u64 {
        let mut n = 0;
        while n < budget {
            let ns = self.next_start;
            // One call site, so the queue's pop stays inlined in this loop.
            let popped = if ns == 0 {
                None
            } else {
                let lim = if ns == Time::MAX {
                    until
                } else {
                    until.min(ns - 1)
                };
                self.ev.pop_until_packed(lim)
            };
            let t = match popped {
                Some((t, bits)) => {
                    self.prefetch_next();
                    self.dispatch_packed(bits);
                    t
                }
                None if ns <= until && ns != Time::MAX => {
                    self.start_next_flow();
                    ns
                }
                None => break,
            };
            n += 1;
            if t >= self.stop_min
                && self.flows.window_pending == 0
                && (!self.drain || self.flows.active() == 0 && self.next_start == Time::MAX)
                && self.sources.active() == 0
            {
                self.finished = true;
                break;
            }
        }
        n
    }

    /// Prefetches the first line the next event will read (its packet for an arrival, its
    /// port for a wake-up) while this one runs: at 1,000+ hosts ports and packets no longer
    /// fit in the cache, and the next event's first miss then overlaps this event's work
    /// (issue 17). Only a hint: results do not depend on it.
    #[inline(always)]
    fn prefetch_next(&self) {
        // The lanes' earliest event (arrivals and wake-ups wait in lanes), decoded as
        // `Event::pack` lays it out, without a bounds check: a hint needs none.
        let bits = self.ev.peek_lane_bits();
        let i = (bits & MAX_EVENT_INDEX) as usize;
        match bits >> 26 {
            TXDONE_TAG => {
                // A wake-up reads the port's first two lines and dequeues (usually) from
                // queue 0, the third (`Port`'s layout).
                let p = self.ports.as_ptr().wrapping_add(i) as *const u8;
                dcnsim_engine::prefetch(p);
                dcnsim_engine::prefetch(p.wrapping_add(64));
                dcnsim_engine::prefetch(p.wrapping_add(128));
            }
            ARRIVE_TAG => dcnsim_engine::prefetch(self.arena.slot_ptr(i as PktId)),
            _ => {}
        }
    }

    /// Decodes a packed event (as `Event::pack` lays it out) and runs it, in one `match` on
    /// its kind: decoding to an `Event` first and then matching that took two jump tables
    /// per event. Always inlined into `run`: an out-of-line dispatch costs a call frame per
    /// event.
    #[inline(always)]
    fn dispatch_packed(&mut self, bits: u32) {
        let i = bits & MAX_EVENT_INDEX;
        match bits >> 26 {
            TXDONE_TAG => self.on_tx_done(i),
            ARRIVE_TAG => self.on_arrive(i),
            FLOWSTART_TAG => self.on_flow_start(i),
            SOURCE_TAG => self.on_source(i),
            SAMPLE_TAG => self.on_sample(),
            TRACE_TAG => self.on_trace_capped(),
            CONTROLLER_TAG => self.on_nearopt_tick(),
            PFC_TAG => self.on_pfc(i),
            SHIM_TAG => self.on_shim(i),
            RECONF_TAG => self.on_reconfigure(i),
            _ => {
                let x = FlowTimer(bits - (TIMER_TAG << 26));
                self.on_flow_timer(x.flow(), x.slot())
            }
        }
    }

    /// A delayed DRR weight change takes effect on every port of profile `p` (C3 §2: the
    /// new WFQ weights serve only once the switch's configuration delay has passed). The
    /// ports' deficits carry over; the next rounds use the new quanta.
    fn on_reconfigure(&mut self, p: u32) {
        let s = &mut self.profiles[p as usize].sched;
        if let Some((_, q)) = s.reconf.take() {
            s.quanta = q;
        }
    }

    /// Whether anything other than sampling is still pending.
    pub fn has_work(&self) -> bool {
        self.arena.live() > 0
            || self.flows.active() > 0
            || self.next_start != Time::MAX
            || self.sources.active() > 0
            || self.ev.len() > 1
    }

    /// The time of the next event or flow start, if any.
    pub fn next_time(&self) -> Option<Time> {
        let q = self.ev.peek_time().unwrap_or(Time::MAX);
        let t = q.min(self.next_start);
        (t != Time::MAX).then_some(t)
    }

    /// Packets alive in the fabric: conservation is created = delivered + dropped + live.
    pub fn live_packets(&self) -> u64 {
        self.arena.live()
    }

    /// Allocates a packet (the only constructor path the sim uses).
    #[inline]
    pub fn new_packet(&mut self, p: Packet) -> PktId {
        self.arena.alloc(p)
    }
}
