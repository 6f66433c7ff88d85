//! The wire types every layer shares: the packet, its flags, and the arena that owns them.
//!
//! Packets live in one [`Arena`] and move through the simulator as a [`PktId`] (a `u32`).
//! A packet is in at most one place at a time (a queue, a wire, or being processed), so the
//! intrusive `next` link is all the list structure that queues and links need: no per-packet
//! allocation in steady state.

use dcnsim_engine::Time;

/// Index of a packet in the [`Arena`].
pub type PktId = u32;
/// The null link.
pub const NIL: u32 = u32::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum PktKind {
    /// Transport data segment.
    Data,
    /// Transport acknowledgement.
    Ack,
    /// Open-loop test traffic (counted at the receiver, no transport).
    Raw,
    /// Small control/probe packet (schemes, TCP+ probes).
    Probe,
    /// Connection set-up (SYN) and its reply (SYN-ACK), when handshakes are modelled.
    Syn,
    SynAck,
    /// Connection tear-down, sent once the sender has everything acknowledged.
    Fin,
    /// RoCEv2 negative acknowledgement (AETH NAK, PSN sequence error): `seq` is the PSN the
    /// receiver expects (go-back-N resends from it).
    Nack,
    /// RoCEv2 congestion notification packet (DCQCN §3.2), receiver to sender.
    Cnp,
}

/// Per-packet flag bits.
pub mod flags {
    /// ECN-capable transport (RFC 3168 ECT).
    pub const ECT: u8 = 1 << 0;
    /// Congestion experienced, set by a switch.
    pub const CE: u8 = 1 << 1;
    /// ECN echo on an ACK.
    pub const ECE: u8 = 1 << 2;
    /// The segment is a retransmission.
    pub const RETX: u8 = 1 << 3;
    /// Marked important by a scheme (e.g. TLT).
    pub const IMPORTANT: u8 = 1 << 4;
    /// The retransmission was triggered by a retransmission timeout (with `RETX`).
    pub const RTO_RETX: u8 = 1 << 5;
    /// An ACK whose first SACK block is a D-SACK (RFC 2883).
    pub const DSACK: u8 = 1 << 6;
    /// With `IMPORTANT`: TLT Important Clock Data / Important Clock Echo (Appendix A).
    pub const CLOCK: u8 = 1 << 7;
}

/// Tunnel bits (C3 §3.2 encapsulation, spec §5.3.2): while encapsulated, `flags::ECT`/`CE`
/// are the *outer* header's (switches mark it); the inner header's ECN bits wait here.
pub mod tunnel {
    /// The packet carries an outer header (the shim encapsulated it).
    pub const ENCAP: u8 = 1 << 0;
    /// The inner header is ECN-capable.
    pub const INNER_ECT: u8 = 1 << 1;
    /// The inner header was CE-marked (only ever at the sender shim's pipe queue).
    pub const INNER_CE: u8 = 1 << 2;
}

/// Packet colour for colour-aware dropping (TLT §4; three colours on commodity chips).
/// A switch maps DSCP to colour by ACL; only TLT's important DSCP maps to green, so every
/// packet is red unless a TLT endpoint marks it important (§4, §6: "non-TLT packets ...
/// classified as unimportant").
pub mod colour {
    pub const GREEN: u8 = 0;
    pub const YELLOW: u8 = 1;
    pub const RED: u8 = 2;
}

/// Field order is fixed (`repr(C)`) so that everything a switch hop reads or writes (link,
/// sizes, destination, entropy, class, flags) sits in the first cache line;
/// the 64-byte alignment makes that line a line of the cache (the arena's slots start on
/// line boundaries instead of wherever the allocator put the buffer).
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
pub struct Packet {
    /// Intrusive list link while in a queue; while on a wire, the host it goes to or, toward
    /// a switch, that switch's egress port for it with the top bit set (its `Arrive` event
    /// carries the packet: see `Sim::launch`).
    pub next: PktId,
    /// Bytes on the wire, all overheads included: what serialization is computed from.
    pub wire: u32,
    /// Source and destination host indices.
    pub src: u32,
    pub dst: u32,
    /// ECMP entropy (per-flow hash by default, per-packet when spraying).
    pub entropy: u32,
    pub flow: u32,
    pub kind: PktKind,
    /// Traffic class = queue index on every hop (0 = highest priority).
    pub class: u8,
    pub colour: u8,
    pub flags: u8,
    /// Links crossed so far.
    pub hops: u8,
    pub n_sack: u8,
    /// INT (HPCC, mechanisms §2.7): 0 = the packet collects no INT; otherwise
    /// `limit << 4 | n`: at most `limit` switch egress ports push a record, `n` have. The
    /// records live in the [`Arena`]'s side table at the packet's slot (see [`IntHop`]);
    /// this byte sits in what was padding, so `Packet` does not grow.
    pub int: u8,
    /// Tunnel state while a shim (`sim::shim`, C3 / ElasticSwitch) carries the packet: bits
    /// of [`tunnel`]; 0 outside a tunnel. Sits in what was padding: `Packet` did not grow.
    pub tunnel: u8,
    /// Transport payload bytes.
    pub payload: u32,
    /// At a switch under PFC: the switch's port the packet arrived on (its ingress for
    /// IEEE 802.1Qbb accounting), set when the packet starts on the wire toward it; `NIL`
    /// while at the sending host.
    pub ingress: u32,
    /// When the packet was created (one-way delay accounting).
    pub created: Time,
    /// Data: first payload byte (RoCE: the PSN). Ack: cumulative ACK number (RoCE: the
    /// expected PSN; also a Nack's).
    pub seq: u64,
    /// Sender timestamp (TSval) for data; for ACKs the echoed TSval.
    pub ts: Time,
    /// One-way delay echoed by an ACK (perfect clock).
    pub owd: Time,
    /// SACK blocks carried by an ACK, [start, end).
    pub sack: [(u64, u64); 3],
}

impl Packet {
    pub fn new(kind: PktKind, flow: u32, src: u32, dst: u32, payload: u32, wire: u32) -> Self {
        Packet {
            next: NIL,
            flow,
            src,
            dst,
            wire,
            payload,
            ingress: NIL,
            entropy: 0,
            kind,
            class: 0,
            colour: colour::RED,
            flags: 0,
            hops: 0,
            n_sack: 0,
            int: 0,
            tunnel: 0,
            seq: 0,
            ts: 0,
            owd: 0,
            created: 0,
            sack: [(0, 0); 3],
        }
    }
    #[inline]
    pub fn has(&self, f: u8) -> bool {
        self.flags & f != 0
    }
    /// INT records this packet carries (0 when it collects none).
    #[inline]
    pub fn int_hops(&self) -> usize {
        (self.int & 0xf) as usize
    }
    /// Makes the packet collect INT at up to `limit` switch egress ports (1..=8).
    #[inline]
    pub fn collect_int(&mut self, limit: u8) {
        debug_assert!((1..=MAX_INT_HOPS as u8).contains(&limit));
        self.int = limit.clamp(1, MAX_INT_HOPS as u8) << 4;
    }
}

/// One INT record (HPCC §3.1, mechanisms §2.7): what a switch egress port reports when a
/// data packet of an HPCC flow starts leaving it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IntHop {
    /// Bytes waiting in the port's queues after the packet left them (qLen).
    pub qlen: u64,
    /// Wire bytes the port has sent, cumulative, this packet included (txBytes).
    pub tx_bytes: u64,
    /// When the packet started leaving the port (ts).
    pub ts: Time,
    /// The port's link rate, bits per second (B).
    pub rate: u64,
}

/// The most INT records a packet can carry (the `int_hops` key's upper bound; the HPCC
/// simulator's `IntHeader::maxHop` is 5).
pub const MAX_INT_HOPS: usize = 8;

/// The INT side table: the records of the packet in each arena slot. Empty until the first
/// INT packet is stamped, so a run without HPCC never allocates or touches it.
#[derive(Default)]
struct IntTable {
    stacks: Vec<[IntHop; MAX_INT_HOPS]>,
}

/// Most packets alive at once: a packet's id must fit an event (`sim::MAX_EVENT_INDEX`: an
/// `Arrive` event carries the packet). A run stops before (`run.memory_limit` is capped
/// below it, `scenario::build`); reaching it anyway is a bug, reported by a panic (which
/// the Python binding turns into an error) rather than a wrong event.
pub const MAX_PACKETS: usize = 1 << 26;

#[cold]
#[inline(never)]
fn too_many_packets() -> ! {
    panic!("more than {MAX_PACKETS} packets alive at once: the simulator's limit")
}

/// Owner of every live packet. Freed slots are reused (LIFO) so steady state allocates nothing.
pub struct Arena {
    pkts: Vec<Packet>,
    free: Vec<PktId>,
    live: u64,
    created: u64,
    int: IntTable,
    /// The run's packet cap (`Built::max_packets`): slots double up to it, not past it in
    /// one step, so a run that stays under its cap never reserves twice its share; past it
    /// they double again (the run stops at its next check, `run::run_built_with`).
    cap: usize,
}

impl Default for Arena {
    fn default() -> Self {
        Self::new()
    }
}

impl Arena {
    pub fn new() -> Self {
        Arena {
            pkts: Vec::with_capacity(4096),
            free: Vec::new(),
            live: 0,
            created: 0,
            int: IntTable::default(),
            cap: MAX_PACKETS,
        }
    }
    /// Sets the packet cap growth respects (at most [`MAX_PACKETS`]).
    pub fn set_cap(&mut self, cap: usize) {
        self.cap = cap.clamp(1, MAX_PACKETS);
    }
    #[inline]
    pub fn alloc(&mut self, p: Packet) -> PktId {
        self.live += 1;
        self.created += 1;
        if let Some(id) = self.free.pop() {
            self.pkts[id as usize] = p;
            id
        } else {
            if self.pkts.len() >= self.pkts.capacity().min(MAX_PACKETS) {
                self.grow();
            }
            self.pkts.push(p);
            (self.pkts.len() - 1) as PktId
        }
    }
    /// Doubles the slots (a step that would pass the cap stops at it; never past
    /// [`MAX_PACKETS`]) and asks for huge pages over the new ones before they are written
    /// (`advise_huge_pages`; the 1,024-host DCTCP fat tree of `scale_fattree16` grows to
    /// 65,536 slots, 8 MiB).
    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        let len = self.pkts.len();
        if len >= MAX_PACKETS {
            too_many_packets();
        }
        let doubled = (self.pkts.capacity() * 2).max(4096);
        let want = if len < self.cap {
            doubled.min(self.cap.max(4096))
        } else {
            doubled
        }
        .min(MAX_PACKETS);
        self.pkts.reserve_exact(want - self.pkts.len());
        let spare = self.pkts.spare_capacity_mut();
        dcnsim_engine::advise_huge_pages(spare.as_ptr(), spare.len());
    }
    #[inline]
    pub fn free(&mut self, id: PktId) {
        debug_assert!(self.live > 0);
        self.live -= 1;
        self.free.push(id);
    }
    #[inline]
    pub fn get(&self, id: PktId) -> &Packet {
        &self.pkts[id as usize]
    }
    /// Where slot `id` is (or would be): for prefetching, never dereferenced.
    #[inline(always)]
    pub fn slot_ptr(&self, id: PktId) -> *const Packet {
        self.pkts.as_ptr().wrapping_add(id as usize)
    }
    #[inline]
    pub fn get_mut(&mut self, id: PktId) -> &mut Packet {
        &mut self.pkts[id as usize]
    }
    /// Marks `live[f - base]` for every flow `f >= base` named by a live transport packet
    /// (flows beyond `live` are ignored). O(slots).
    pub fn mark_live_flows(&self, base: u32, live: &mut [bool]) {
        let mut dead = vec![false; self.pkts.len()];
        for &i in &self.free {
            dead[i as usize] = true;
        }
        for (p, &d) in self.pkts.iter().zip(&dead) {
            if !d && p.kind != PktKind::Raw {
                if let Some(l) = live.get_mut(p.flow.wrapping_sub(base) as usize) {
                    *l = true;
                }
            }
        }
    }

    /// Packets currently alive (in queues, on wires, or being processed).
    pub fn live(&self) -> u64 {
        self.live
    }
    /// Packets ever created.
    pub fn created(&self) -> u64 {
        self.created
    }
    /// Pushes an INT record onto packet `id`'s stack if it collects INT and its limit is
    /// not reached (HPCC §3.1: each hop appends; mechanisms §2.7).
    #[inline(never)]
    pub fn push_int(&mut self, id: PktId, hop: IntHop) {
        let p = &mut self.pkts[id as usize];
        let (limit, n) = ((p.int >> 4) as usize, (p.int & 0xf) as usize);
        if n >= limit {
            return;
        }
        p.int += 1;
        let t = &mut self.int.stacks;
        if t.len() <= id as usize {
            t.resize(
                self.pkts.len().max(id as usize + 1),
                [IntHop::default(); MAX_INT_HOPS],
            );
        }
        t[id as usize][n] = hop;
    }
    /// The INT records of packet `id` (empty if it carries none).
    #[inline]
    pub fn int_of(&self, id: PktId) -> &[IntHop] {
        let n = self.pkts[id as usize].int_hops();
        match self.int.stacks.get(id as usize) {
            Some(s) => &s[..n],
            None => &[],
        }
    }
    /// Copies packet `from`'s INT stack (records and count) into packet `to`: the receiver
    /// echoes the INT of a data packet in its ACK (mechanisms §2.7).
    pub fn copy_int(&mut self, from: PktId, to: PktId) {
        let n = self.pkts[from as usize].int & 0xf;
        // The echo carries the records but collects none (limit = records carried): the
        // switches on the way back push nothing onto an ACK (HPCC §3.1).
        self.pkts[to as usize].int = n << 4 | n;
        if n == 0 {
            return;
        }
        let t = &mut self.int.stacks;
        if t.len() <= to as usize {
            t.resize(
                self.pkts.len().max(to as usize + 1),
                [IntHop::default(); MAX_INT_HOPS],
            );
        }
        t[to as usize] = t[from as usize];
    }
    /// Slots ever allocated (peak live packets).
    pub fn capacity_used(&self) -> usize {
        self.pkts.len()
    }
}

/// A FIFO of packets threaded through their `next` links, with byte and packet counts.
#[derive(Clone, Copy, Debug)]
pub struct PktList {
    pub head: PktId,
    pub tail: PktId,
    pub pkts: u32,
    pub bytes: u64,
}

impl Default for PktList {
    fn default() -> Self {
        PktList {
            head: NIL,
            tail: NIL,
            pkts: 0,
            bytes: 0,
        }
    }
}

impl PktList {
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.head == NIL
    }
    #[inline]
    pub fn push_back(&mut self, arena: &mut Arena, id: PktId) {
        let p = arena.get_mut(id);
        p.next = NIL;
        let w = p.wire as u64;
        if self.tail == NIL {
            self.head = id;
        } else {
            arena.get_mut(self.tail).next = id;
        }
        self.tail = id;
        self.pkts += 1;
        self.bytes += w;
    }
    #[inline]
    pub fn pop_front(&mut self, arena: &mut Arena) -> Option<PktId> {
        if self.head == NIL {
            return None;
        }
        let id = self.head;
        let p = arena.get_mut(id);
        self.head = p.next;
        p.next = NIL;
        let w = p.wire as u64;
        if self.head == NIL {
            self.tail = NIL;
        }
        self.pkts -= 1;
        self.bytes -= w;
        Some(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    /// A doubling that would pass the run's packet cap stops at it: a run that stays under
    /// its cap never reserves (nor, with huge pages, touches) twice its share.
    #[test]
    fn arena_growth_stops_at_the_packet_cap() {
        let p = || Packet::new(PktKind::Raw, 0, 0, 1, 0, 1500);
        let mut a = Arena::new();
        a.set_cap(10_000);
        for _ in 0..10_000 {
            a.alloc(p());
        }
        assert_eq!(a.pkts.capacity(), 10_000);
        a.alloc(p()); // past the cap (the run stops at its next check): doubling again
        assert_eq!(a.pkts.capacity(), 20_000);
        let mut b = Arena::new(); // no cap
        for _ in 0..10_000 {
            b.alloc(p());
        }
        assert_eq!(b.pkts.capacity(), 16_384);
    }
    #[test]
    fn packet_is_compact() {
        // keeps the arena cache-friendly; grow deliberately
        assert!(
            std::mem::size_of::<Packet>() <= 128,
            "{}",
            std::mem::size_of::<Packet>()
        );
    }
    #[test]
    fn list_fifo_and_counts() {
        let mut a = Arena::new();
        let mut l = PktList::default();
        let ids: Vec<_> = (0..5)
            .map(|i| a.alloc(Packet::new(PktKind::Raw, i, 0, 1, 100, 100 + i)))
            .collect();
        for &id in &ids {
            l.push_back(&mut a, id);
        }
        assert_eq!(l.pkts, 5);
        assert_eq!(l.bytes, 500 + 10);
        let out: Vec<_> = std::iter::from_fn(|| l.pop_front(&mut a)).collect();
        assert_eq!(out, ids);
        assert_eq!(l.bytes, 0);
        assert!(l.is_empty());
    }
}
