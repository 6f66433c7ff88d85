//! The per-packet path: a host hands a packet to its NIC (`host_send`) or takes one off
//! the wire (`host_receive`); a switch hop runs the scheme hook, admits, marks and enqueues
//! at the egress port chosen by ECMP when the packet started toward the switch (`forward`;
//! `port_enqueue`; at an idle, empty port the packet passes straight to the wire); a port
//! serializes (`start_tx`, `launch`, which routes the packet at the next switch with
//! `pick_port`, and HPCC's INT stamp). A packet leaves this path delivered or dropped, freed
//! either way.

use super::{Ecmp, Event, Sim};
use crate::net::buffer::DropReason;
use crate::net::config::MAX_QUEUES;
use crate::packet::{flags, PktId, PktKind, NIL};
use crate::scheme::{EnqCtx, Scheme, TxCtx, Verdict};
use crate::topo::NodeKind;
use dcnsim_engine::Time;

/// A packet's `next` while it is on a wire toward a switch: this bit, over the switch's
/// egress port for it (chosen when the packet started on the wire: `Sim::launch`). Toward a
/// host, `next` is the host. Port and host indices stay below 2³¹ (`Arena` and `Graph`
/// bound them far lower).
const ROUTED: u32 = 1 << 31;

impl Sim {
    // ---------------------------------------------------------------- hosts

    /// A host hands a packet to its NIC: scheme tagging, then the NIC's class queues.
    pub fn host_send(&mut self, host: u32, id: PktId) {
        let now = self.now();
        if !self.scheme.is_none() {
            let ctx = TxCtx { now, host };
            self.scheme.on_host_tx(self.arena.get_mut(id), &ctx);
        }
        {
            let p = self.arena.get_mut(id);
            p.created = now;
            if self.ecmp == Ecmp::PerPacket {
                p.entropy = self.spray_rng.next_u64() as u32;
            }
        }
        if self.shim.is_some() && self.shim_take(host, id) {
            return;
        }
        let port = self.host_port(host);
        self.port_enqueue(port, id, false);
    }

    fn host_receive(&mut self, host: u32, id: PktId) {
        let now = self.now();
        if !self.scheme.is_none() {
            self.scheme.on_receive(self.arena.get(id), host, now);
        }
        self.counters.delivered += 1;
        if self.shim.is_some() && self.shim_receive(id) {
            // A shim feedback report (`sim::shim`): consumed by the shim.
            self.arena.free(id);
            return;
        }
        if self.pcap.is_some() {
            self.pcap_on_receive(id);
        }
        let p = self.arena.get(id);
        if p.kind == PktKind::Raw {
            self.sources.on_receive(self.arena.get(id), now);
        } else {
            if p.kind == PktKind::Data {
                self.count_delivered(p.flow, p.payload as u64, now);
            }
            self.on_flow_packet(id);
        }
        self.arena.free(id);
    }

    // ---------------------------------------------------------------- fabric

    /// Enqueues at `port` (switch egress when `switch` is true, host NIC otherwise).
    /// Returns false if the packet was dropped (and freed).
    pub(super) fn port_enqueue(&mut self, port: u32, id: PktId, switch: bool) -> bool {
        let pi = port as usize;
        let prof_i = self.ports[pi].profile as usize;
        let mut qi = self.profiles[prof_i].queue_of(self.arena.get(id).class);
        let node = self.ports[pi].node as usize;
        if switch && !self.scheme.is_none() {
            let p = &self.ports[pi];
            let pool = &self.nodes[node].pool;
            let ctx = EnqCtx {
                now: self.ev.now(),
                node: node as u32,
                port,
                queue: qi,
                q_bytes: p.q[qi].bytes,
                q_pkts: p.q[qi].pkts as u64,
                port_bytes: p.bytes,
                pool_free: (pool.total > 0).then(|| pool.total.saturating_sub(pool.used)),
            };
            match self.scheme.on_enqueue(self.arena.get_mut(id), &ctx) {
                Verdict::Accept => {}
                Verdict::Drop => {
                    self.drop_packet(port, qi, id, DropReason::Scheme);
                    return false;
                }
                Verdict::Mark => {
                    let pk = self.arena.get_mut(id);
                    if pk.flags & flags::ECT != 0 && pk.flags & flags::CE == 0 {
                        pk.flags |= flags::CE;
                        self.ports[pi].q[qi].ecn_marks += 1;
                    }
                }
                Verdict::Reclass(c) => {
                    self.arena.get_mut(id).class = c;
                    qi = self.profiles[prof_i].queue_of(c);
                }
            }
        }
        let prof = &self.profiles[prof_i];
        let n = &mut self.nodes[node];
        let now = self.ev.now();
        let p = &mut self.ports[pi];
        // An idle, empty port: the packet would be queued and taken out again at once by the
        // start of transmission; it passes to the wire directly instead, with the same
        // admission, marking and counters (`Port::pass_through`).
        let pass = p.can_pass(prof, qi, now);
        let res = if pass {
            p.pass_through(prof, qi, id, &mut self.arena, &mut n.pool, &mut n.mark_rng)
        } else {
            p.enqueue(prof, qi, id, &mut self.arena, &mut n.pool, &mut n.mark_rng)
        };
        if let Err(why) = res {
            self.drop_packet(port, qi, id, why);
            return false;
        }
        if self.pfc.is_some() {
            // (Counts only lossless queues, which never pass: they are `special`.)
            self.pfc_on_enqueue(qi, id);
        }
        if self.paranoid {
            self.ports[pi].check_invariants(&self.profiles[prof_i], &self.arena);
        }
        if pass {
            self.launch(port, id, now);
        } else {
            self.start_tx(port);
        }
        true
    }

    /// Goodput accounting per traffic class (the class samples and the carried load).
    #[inline]
    fn count_delivered(&mut self, flow: u32, payload: u64, now: Time) {
        let tc = self.flows.desc_of(flow).traffic_class as usize;
        if let Some(c) = self.class_rx.get_mut(tc) {
            *c += payload;
            // One unsigned comparison: now in [w0, w1).
            if now.wrapping_sub(self.window.0) < self.window.1 - self.window.0 {
                self.class_rx_win[tc] += payload;
            }
        }
    }

    pub(super) fn drop_packet(&mut self, port: u32, qi: usize, id: PktId, why: DropReason) {
        if self.pcap.is_some() {
            self.pcap_on_drop(port, qi, id, why);
        }
        let c = self.arena.get(id).colour;
        self.ports[port as usize].count_drop(qi, why, c);
        self.counters.dropped += 1;
        self.counters.drops_by_reason[why as usize] += 1;
        if self.arena.get(id).kind != PktKind::Raw {
            self.on_flow_drop(id);
        }
        self.arena.free(id);
    }

    /// Starts serializing the next packet if the port is idle and has one; if it is busy,
    /// makes sure a wake-up is scheduled for when it frees up.
    ///
    /// A packet goes onto the wire when its serialization *starts*, with its arrival time
    /// (start + serialization + propagation) already known, and its `Arrive` event carries
    /// it there. So a port needs a `TxDone` event only when something is waiting behind the
    /// current packet: a lightly loaded port costs one event per hop.
    ///
    /// Inlined into its three callers (enqueue, the `TxDone` wake-up, a PFC resume): as a
    /// call, its register saves and restores alone were 2.3% of the k = 8 fat tree's
    /// instructions (docs/performance-log.md, "Two calls per hop inlined").
    #[inline(always)]
    pub(super) fn start_tx(&mut self, port: u32) {
        let pi = port as usize;
        let now = self.ev.now();
        let p = &mut self.ports[pi];
        if p.wake_pending {
            return;
        }
        if now < p.busy_until {
            p.wake_pending = true;
            self.ev.push(p.busy_until, Event::TxDone(port));
            return;
        }
        let node = p.node as usize;
        let prof = &self.profiles[p.profile as usize];
        let n = &mut self.nodes[node];
        let Some(id) = p.next_to_send(prof, &mut self.arena, &mut n.pool, &mut n.mark_rng) else {
            return;
        };
        self.launch(port, id, now);
    }

    /// Puts packet `id`, just taken from idle port `port`'s queues (or passed through them),
    /// on the wire: its arrival at the far end, the port's busy time and, if packets wait,
    /// the wake-up at the end of its serialization.
    #[inline(always)]
    fn launch(&mut self, port: u32, id: PktId, now: Time) {
        let pi = port as usize;
        let p = &mut self.ports[pi];
        let node = p.node as usize;
        let pk = self.arena.get_mut(id);
        let dt = p.clock.tx_time(pk.wire as u64);
        // The one branch of the shaper: a wire serializes (the packet arrives after dt +
        // propagation, the next starts after dt); a token bucket lets the packet go at once
        // (propagation only) and the next when the tokens allow.
        let (arrive, next) = match p.tb_depth {
            None => (now + dt + p.delay, now + dt),
            Some(depth) => (now + p.delay, p.charge_token_bucket(now, dt, depth)),
        };
        // On the wire the packet is in no list: its link names the host it goes to, or the
        // next switch's egress port for it (below), which the arrival reads (no per-wire
        // FIFO, no write to the previous packet's line, and no read of this port's line when
        // it arrives: at 1,000+ hosts that line has left the cache by then;
        // docs/performance-log.md, "The arrival reads no port").
        let peer = p.peer;
        pk.next = peer;
        let (dst, entropy) = (pk.dst, pk.entropy);
        pk.hops = pk.hops.saturating_add(1);
        p.busy_until = next;
        p.busy_time += dt;
        p.pkts_sent += 1;
        self.counters.packet_hops += 1;
        // One Arrive per packet, a fixed delay after now (serialization + propagation):
        // the event queue keeps such events in O(1) lanes. The event carries the packet
        // (the arena bounds ids to what an event holds: `Arena::alloc`).
        self.ev.push(arrive, Event::Arrive(id));
        if p.backlog() > 0 {
            p.wake_pending = true;
            // (A token bucket with tokens left lets the next packet go at once, `next` ≤
            // now: the wake-up still runs as an event, after this packet's bookkeeping.)
            self.ev.push(next.max(now), Event::TxDone(port));
        }
        if peer >= self.n_hosts {
            // Route at the next switch now, while the packet's line and the tables are in
            // the cache, rather than when it arrives, where the lookup's chain of loads
            // stood between the packet and its egress port (ECMP is a function of the
            // switch, the destination and the entropy: the same port either way; 0.96× the
            // k = 8 fat tree's time, docs/performance-log.md).
            let out = self.pick_port(peer, dst, entropy);
            self.arena.get_mut(id).next = ROUTED | out;
        }
        if !self.scheme.is_none() {
            self.scheme
                .on_dequeue(self.arena.get(id), node as u32, port, now);
        }
        if self.pfc.is_some() {
            // The packet has left this switch: its ingress count drops (IEEE 802.1Qbb).
            self.pfc_on_leave(port, id);
            if peer >= self.n_hosts {
                // ... and the next switch will account it to the port it comes in on (set
                // here, where this port's index is at hand; nothing reads it on the wire).
                self.arena.get_mut(id).ingress = self.rev[pi];
            }
        }
        if self.pcap.is_some() {
            self.pcap_on_tx(port, id);
        }
        // INT (HPCC): one byte test on the packet's (cached) line; the rest is out of line.
        if self.arena.get(id).int != 0 {
            self.int_stamp(port, id, now);
        }
        if self.nic.on && (node as u32) < self.n_hosts {
            // A RoCE NIC's queue of a priority drained: the next waiting QP's turn (last:
            // the QP's packet may start at once, a nested `start_tx`).
            self.nic_on_tx(port, node, id);
        }
    }

    /// A data packet of an HPCC flow starts leaving switch port `port`: the port pushes its
    /// INT record (HPCC §3.1; mechanisms §2.7): the bytes still queued behind the packet,
    /// its cumulative transmitted bytes (this packet included), the time and the link rate.
    /// Only switches stamp (HPCC's INT-capable switches; the sending NIC paces the QP).
    #[inline(never)]
    fn int_stamp(&mut self, port: u32, id: PktId, now: Time) {
        let p = &self.ports[port as usize];
        if self.nodes[p.node as usize].kind != NodeKind::Switch {
            return;
        }
        let nq = self.profiles[p.profile as usize].nq as usize;
        let hop = crate::packet::IntHop {
            qlen: p.backlog(),
            tx_bytes: p.q[..nq].iter().map(|q| q.bytes_out).sum(),
            ts: now,
            rate: p.clock.rate().0,
        };
        self.arena.push_int(id, hop);
    }

    pub(super) fn on_tx_done(&mut self, port: u32) {
        self.ports[port as usize].wake_pending = false;
        self.start_tx(port);
    }

    pub(super) fn on_arrive(&mut self, id: PktId) {
        let pk = self.arena.get_mut(id);
        // The host at the far end of the wire, or the switch's egress port for the packet
        // (`launch`). Under PFC the packet already names its ingress port here.
        let next = pk.next;
        pk.next = NIL;
        if next & ROUTED == 0 {
            self.host_receive(next, id);
        } else {
            self.forward(next & !ROUTED, id);
        }
    }

    /// ECMP choice at switch `node` toward host `dst` for a packet with `entropy`.
    #[inline]
    fn pick_port(&self, node: u32, dst: u32, entropy: u32) -> u32 {
        let c = self.routes.candidates(node, dst);
        match c.len() {
            0 => unreachable!(
                "no route from {} to host {dst}: topology was checked connected",
                self.nodes[node as usize].name
            ),
            1 => c[0],
            n => {
                // Per-switch salted multiplicative hash of the flow's entropy (itself a
                // uniform hash of the flow): switches split the same flows independently,
                // and a flow always takes the same port.
                let salt = self.nodes[node as usize].salt;
                let h = ((entropy as u64) ^ salt).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32;
                c[((h * n as u64) >> 32) as usize]
            }
        }
    }

    /// Switch forwarding to egress port `out`, chosen by ECMP when the packet started toward
    /// this switch (`launch`).
    #[inline]
    fn forward(&mut self, out: u32, id: PktId) {
        let class = self.arena.get(id).class as usize;
        // The enqueue reads the port's line 0 first and only then, through the profile,
        // knows its queue: ask for the occupancy line and the (likely) queue's line now so
        // the three misses overlap (a hint; `Port`'s layout: queue q on line 2 + q).
        let p = self.ports.as_ptr().wrapping_add(out as usize) as *const u8;
        dcnsim_engine::prefetch(p.wrapping_add(64));
        dcnsim_engine::prefetch(p.wrapping_add(128 + 64 * class.min(MAX_QUEUES - 1)));
        self.port_enqueue(out, id, true);
    }

    /// The egress ports a packet with `entropy` crosses from `src` to `dst` (per-flow ECMP).
    pub fn route_of(&self, src: u32, dst: u32, entropy: u32) -> Vec<u32> {
        let mut path = vec![self.host_port(src)];
        loop {
            let peer = self.ports[*path.last().unwrap() as usize].peer;
            if peer == dst {
                return path;
            }
            path.push(self.pick_port(peer, dst, entropy));
        }
    }
}
