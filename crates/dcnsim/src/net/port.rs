//! Egress ports: the queues, scheduler state and counters of one direction of a link.
//!
//! Switch egress ports and host NICs are the same structure. A port holds up to eight class
//! queues, an optional FIFO driver queue below them (hosts; LPF §3), the packet currently
//! being serialized. A packet on the wire is not held by the port: its `Arrive` event
//! carries it (see `Sim::start_tx`).
//!
//! Invariants (checked in debug builds): each queue's `bytes`/`pkts` equal the sums over
//! its packets; `unres_bytes` = Σ_q max(0, bytes_q − reserved_q); bit q of `nonempty` is set
//! iff queue q is non-empty.

use crate::net::buffer::{
    admit, admit_lossless, DropReason, Occ, QueueLimits, SharedPool, N_DROP_REASONS,
};
use crate::net::config::{ColourMode, HostConfig, PortConfig, SwitchConfig, MAX_QUEUES};
use crate::net::mark::Marker;
use crate::net::sched::drr::DrrState;
use crate::net::sched::Sched;
use crate::packet::{colour, flags, Arena, PktId, PktList, NIL};
use crate::units::Amount;
use dcnsim_engine::{Rng, Time, TxClock};

/// Compiled per-kind port configuration, shared by many ports.
#[derive(Clone, Debug)]
pub struct Profile {
    pub nq: u8,
    pub sched: Sched,
    pub limits: [QueueLimits; MAX_QUEUES],
    pub markers: [Marker; MAX_QUEUES],
    pub any_dequeue_marking: bool,
    /// Driver queue capacity in packets (0 = none).
    pub driver: u32,
    /// Colour-aware dropping (TLT §4): threshold K in bytes, what it measures, and the
    /// queues it applies to (bit mask; 0 = off).
    pub colour_k: u64,
    pub colour_mode: ColourMode,
    pub colour_queues: u8,
    /// Queues with colour-aware dropping or PFC (lossless): their enqueue takes the
    /// out-of-line path, so other queues pay one test.
    pub special: u8,
    /// Queues whose packet may pass an idle, empty port without entering its FIFO
    /// (`Port::pass_through`): served by strict priority, not special, and no dequeue
    /// marking, so the dequeue that would follow the enqueue at once (through the empty
    /// driver queue, if any) changes nothing but the counters.
    pub pass: u8,
}

impl Profile {
    pub fn compile(cfg: &PortConfig, driver: u32) -> Profile {
        let nq = cfg.queues.clamp(1, MAX_QUEUES as u8);
        let mut limits = [QueueLimits {
            queue_limit: None,
            port_limit: None,
            reserved: 0,
            alpha: 1.0,
            lossless: false,
        }; MAX_QUEUES];
        let mut markers = [Marker::None; MAX_QUEUES];
        for q in 0..nq as usize {
            limits[q] = QueueLimits {
                queue_limit: cfg.queue_limit.as_ref().map(|l| l.get(q)),
                port_limit: cfg.port_limit,
                reserved: cfg.reserved.get(q).0,
                alpha: cfg.alpha.get(q),
                lossless: cfg.lossless & (1 << q) != 0,
            };
            markers[q] = Marker::compile(&cfg.ecn.get(q));
        }
        let any_dequeue_marking = markers.iter().any(Marker::dequeues);
        Profile {
            nq,
            sched: Sched::compile(&cfg.scheduler, nq),
            limits,
            markers,
            any_dequeue_marking,
            driver,
            colour_k: cfg.colour.as_ref().map_or(0, |c| c.threshold.0),
            colour_mode: cfg.colour.as_ref().map_or(ColourMode::RedOnly, |c| c.mode),
            colour_queues: cfg
                .colour
                .as_ref()
                .map_or(0, |c| crate::net::config::queue_mask(&c.queues, nq)),
            special: 0,
            pass: 0,
        }
        .with_special()
    }

    fn with_special(mut self) -> Profile {
        let lossless = (0..self.nq as usize)
            .filter(|&q| self.limits[q].lossless)
            .fold(0u8, |m, q| m | (1 << q));
        self.special = self.colour_queues | lossless;
        self.pass = if !self.any_dequeue_marking {
            self.sched.strict_mask & !self.special
        } else {
            0
        };
        self
    }
    pub fn switch(cfg: &SwitchConfig) -> Profile {
        Profile::compile(&cfg.port(), cfg.driver_queue)
    }
    pub fn host(cfg: &HostConfig) -> Profile {
        Profile::compile(&cfg.port(), cfg.driver_queue)
    }
    /// Queue used by a packet of `class` (class 0 = highest priority).
    #[inline]
    pub fn queue_of(&self, class: u8) -> usize {
        if self.nq == 1 {
            0
        } else {
            (class as usize).min(self.nq as usize - 1)
        }
    }
}

/// A class queue: its FIFO and the counters an enqueue or a dequeue updates, in one cache
/// line, so a packet's hop touches no other line for its queue (issue 17: at 1,000+ hosts
/// a separate counters line was one more miss per hop). Packets and bytes in are not
/// counted: they are those out plus those queued (`pkts_in`, `bytes_in`), since a packet
/// leaves the FIFO only through the scheduler's dequeue.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C, align(64))]
pub struct ClassQueue {
    pub list: PktList,
    pub pkts_out: u64,
    pub bytes_out: u64,
    /// The most bytes and packets the queue has held.
    pub max_bytes: u64,
    pub max_pkts: u64,
    pub ecn_marks: u64,
}

impl std::ops::Deref for ClassQueue {
    type Target = PktList;
    #[inline(always)]
    fn deref(&self) -> &PktList {
        &self.list
    }
}

impl std::ops::DerefMut for ClassQueue {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut PktList {
        &mut self.list
    }
}

impl ClassQueue {
    /// Packets admitted to the queue so far.
    pub fn pkts_in(&self) -> u64 {
        self.pkts_out + self.list.pkts as u64
    }
    /// Bytes admitted to the queue so far.
    pub fn bytes_in(&self) -> u64 {
        self.bytes_out + self.list.bytes
    }
}

/// Per-queue drop counters (only a drop updates them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct QueueStats {
    /// Drops by colour (any reason).
    pub green_drops: u64,
    pub red_drops: u64,
    pub drops: [u64; N_DROP_REASONS],
}

/// Field order is fixed (`repr(C)`, 64-byte aligned) so that a packet's hop touches few
/// lines of its port: line 0 holds what starting a transmission reads (the clock, the
/// shaper, the peer, the profile and the small flags), line 1 the port's occupancy and
/// transmit counters and the driver queue, then one line per class queue (its FIFO and
/// counters, from line 2); the colour and token-bucket state, DRR state and drop counters
/// follow. At 1,000+ hosts the ports no longer fit in the cache and each extra line a hop
/// touches is a miss (issue 17).
#[repr(C, align(64))]
pub struct Port {
    // ---- line 0
    /// The next packet may leave at this time: the end of the current serialization (a
    /// wire), or when the token bucket is out of debt (a shaper).
    pub busy_until: Time,
    pub delay: Time,
    pub clock: TxClock,
    /// Token-bucket shaper: the bucket depth as the time its tokens take to accumulate at
    /// the rate (burst − one full frame); `None` = a store-and-forward wire.
    pub tb_depth: Option<Time>,
    /// Owning node and the peer at the other end of the link.
    pub node: u32,
    pub peer: u32,
    /// This port's index among its node's ports.
    pub local: u16,
    pub profile: u16,
    pub nonempty: u8,
    /// Bit q set = queue q paused (PFC); a paused queue is skipped by the scheduler.
    pub paused: u8,
    /// A `TxDone` wake-up is scheduled at `busy_until` (only when packets are waiting).
    pub wake_pending: bool,
    // ---- line 1
    /// Σ bytes over queues (excluding driver queue and the packet in transmission).
    pub bytes: u64,
    pub pkts: u64,
    /// Σ_q unreserved bytes (what the port limit and shared pool are charged).
    pub unres_bytes: u64,
    pub busy_time: Time,
    pub pkts_sent: u64,
    /// The driver queue (hosts with `host.driver_queue`); every transmission start reads
    /// its bytes (`backlog`).
    pub driver: PktList,
    // ---- lines 2..: one per class queue
    pub q: [ClassQueue; MAX_QUEUES],
    /// Red bytes queued in colour-aware queues (colour mode `red_only`).
    pub red_bytes: u64,
    /// Token bucket: the time the bucket is full again if nothing else is sent.
    pub tb_full: Time,
    pub drr: DrrState,
    pub stats: [QueueStats; MAX_QUEUES],
}

// The layout the comment above describes (a change that breaks it costs cache misses at
// scale, not correctness).
const _: () = {
    assert!(std::mem::offset_of!(Port, bytes) == 64);
    assert!(std::mem::offset_of!(Port, wake_pending) < 64);
    assert!(std::mem::offset_of!(Port, driver) + std::mem::size_of::<PktList>() <= 128);
    assert!(std::mem::offset_of!(Port, q) == 128);
    assert!(std::mem::size_of::<ClassQueue>() == 64);
};

impl Port {
    pub fn new(
        node: u32,
        peer: u32,
        local: u16,
        profile: u16,
        clock: TxClock,
        delay: Time,
    ) -> Port {
        Port {
            node,
            peer,
            local,
            profile,
            clock,
            delay,
            q: [ClassQueue::default(); MAX_QUEUES],
            nonempty: 0,
            bytes: 0,
            pkts: 0,
            unres_bytes: 0,
            driver: PktList::default(),
            drr: DrrState::default(),
            busy_until: 0,
            tb_depth: None,
            tb_full: 0,
            wake_pending: false,
            paused: 0,
            red_bytes: 0,
            stats: [QueueStats::default(); MAX_QUEUES],
            busy_time: 0,
            pkts_sent: 0,
        }
    }

    /// Makes this port a token-bucket shaper whose bucket holds `depth` bytes of tokens
    /// (a link's burst minus one full frame: the bucket may go one packet into debt, so a
    /// backlog leaves at most depth + one frame back to back).
    pub fn set_token_bucket(&mut self, depth: u64) {
        self.tb_depth = Some(self.clock.tx_time(depth));
    }

    /// Token bucket (HTB's rule, `htb_class_mode` / `htb_charge_class`): the packet about
    /// to leave at `now` (allowed: `now ≥ busy_until`, the bucket is not in debt) takes
    /// `dt` worth of tokens. Tokens are kept as the time the bucket is full again; the next
    /// packet may leave once tokens are back to ≥ 0, i.e. `depth` before that.
    #[inline]
    pub fn charge_token_bucket(&mut self, now: Time, dt: Time, depth: Time) -> Time {
        self.tb_full = self.tb_full.max(now) + dt;
        self.tb_full.saturating_sub(depth)
    }

    #[inline]
    pub fn is_busy(&self, now: Time) -> bool {
        now < self.busy_until
    }

    /// Occupancy view for queue `qi`.
    #[inline]
    pub fn occ(&self, qi: usize) -> Occ {
        Occ {
            q_bytes: self.q[qi].bytes,
            q_pkts: self.q[qi].pkts as u64,
            port_unres_bytes: self.unres_bytes,
            port_pkts: self.pkts,
        }
    }

    /// Admission + ECN marking + enqueue of packet `id` into queue `qi`.
    /// On drop the packet is NOT freed (the caller records and frees it).
    #[inline]
    pub fn enqueue(
        &mut self,
        prof: &Profile,
        qi: usize,
        id: PktId,
        arena: &mut Arena,
        pool: &mut SharedPool,
        rng: &mut Rng,
    ) -> Result<(), DropReason> {
        if prof.special & (1 << qi) != 0 {
            return self.enqueue_special(prof, qi, id, arena, pool, rng);
        }
        let extra = admit(
            &prof.limits[qi],
            self.occ(qi),
            arena.get(id).wire as u64,
            pool,
        )?;
        self.enqueue_inner(prof, qi, id, arena, pool, rng, extra);
        Ok(())
    }

    /// Colour-aware and lossless queues. A red packet in a colour-aware queue (TLT §4,
    /// mechanisms §2.5) is dropped at the threshold K; green packets pass K and meet only
    /// the buffer limits. A lossless queue (PFC) is limited by the whole buffer only.
    #[inline(never)]
    fn enqueue_special(
        &mut self,
        prof: &Profile,
        qi: usize,
        id: PktId,
        arena: &mut Arena,
        pool: &mut SharedPool,
        rng: &mut Rng,
    ) -> Result<(), DropReason> {
        let size = arena.get(id).wire as u64;
        let red = prof.colour_queues & (1 << qi) != 0 && arena.get(id).colour == colour::RED;
        if red {
            let over = match prof.colour_mode {
                // TLT reference code: per-port red bytes, drop if red + size ≥ K.
                ColourMode::RedOnly => self.red_bytes + size >= prof.colour_k,
                // The paper's wording: the queue's occupancy ≥ K.
                ColourMode::TotalQueue => self.q[qi].bytes >= prof.colour_k,
            };
            if over {
                return Err(DropReason::Colour);
            }
        }
        let lim = &prof.limits[qi];
        let extra = if lim.lossless {
            admit_lossless(lim, self.occ(qi), size, pool)?
        } else {
            admit(lim, self.occ(qi), size, pool)?
        };
        self.enqueue_inner(prof, qi, id, arena, pool, rng, extra);
        if red {
            self.red_bytes += size;
        }
        Ok(())
    }

    /// ECN marking and the enqueue itself of an admitted packet (`extra` unreserved bytes).
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn enqueue_inner(
        &mut self,
        prof: &Profile,
        qi: usize,
        id: PktId,
        arena: &mut Arena,
        pool: &mut SharedPool,
        rng: &mut Rng,
        extra: u64,
    ) {
        let size = arena.get(id).wire as u64;
        self.mark_at_enqueue(prof, qi, id, arena, rng);
        self.unres_bytes += extra;
        pool.used += extra;
        if pool.used > pool.max_used {
            pool.max_used = pool.used;
        }
        let ql = &mut self.q[qi];
        ql.list.push_back(arena, id);
        ql.max_bytes = ql.max_bytes.max(ql.list.bytes);
        ql.max_pkts = ql.max_pkts.max(ql.list.pkts as u64);
        self.nonempty |= 1 << qi;
        self.bytes += size;
        self.pkts += 1;
    }

    /// ECN marking of packet `id` as it enters queue `qi` (the occupancy it finds).
    #[inline(always)]
    fn mark_at_enqueue(
        &mut self,
        prof: &Profile,
        qi: usize,
        id: PktId,
        arena: &mut Arena,
        rng: &mut Rng,
    ) {
        let marker = &prof.markers[qi];
        if !matches!(marker, Marker::None) {
            let (b, p) = if marker.per_port() {
                (self.bytes, self.pkts)
            } else {
                (self.q[qi].bytes, self.q[qi].pkts as u64)
            };
            let pkt = arena.get_mut(id);
            if pkt.flags & flags::ECT != 0 && marker.at_enqueue(b, p, rng) {
                if pkt.flags & flags::CE == 0 {
                    self.q[qi].ecn_marks += 1;
                }
                pkt.flags |= flags::CE;
            }
        }
    }

    /// Whether a packet for queue `qi` may take [`Port::pass_through`] now: the queue allows
    /// it, and the port sends nothing, holds nothing (its driver queue neither) and has
    /// nothing paused.
    #[inline(always)]
    pub fn can_pass(&self, prof: &Profile, qi: usize, now: Time) -> bool {
        prof.pass & (1 << qi) != 0
            && self.nonempty == 0
            && self.driver.head == NIL
            && self.paused == 0
            && !self.wake_pending
            && now >= self.busy_until
    }

    /// `enqueue` followed at once by the dequeue of the same packet, which an idle, empty
    /// port's start of transmission would do (`can_pass` holds; with a driver queue, the
    /// packet would move into it and out again): the same admission, ECN marking and
    /// counters, without linking the packet into the queue and out again. The queue's and
    /// the pool's charge and release cancel (both are computed from the same occupancy);
    /// the peaks keep the packet, as they would have.
    #[inline(always)]
    pub fn pass_through(
        &mut self,
        prof: &Profile,
        qi: usize,
        id: PktId,
        arena: &mut Arena,
        pool: &mut SharedPool,
        rng: &mut Rng,
    ) -> Result<(), DropReason> {
        debug_assert!(self.nonempty == 0 && self.driver.head == NIL && prof.pass & (1 << qi) != 0);
        let size = arena.get(id).wire as u64;
        let extra = admit(&prof.limits[qi], self.occ(qi), size, pool)?;
        self.mark_at_enqueue(prof, qi, id, arena, rng);
        pool.max_used = pool.max_used.max(pool.used + extra);
        let q = &mut self.q[qi];
        q.max_bytes = q.max_bytes.max(q.list.bytes + size);
        q.max_pkts = q.max_pkts.max(q.list.pkts as u64 + 1);
        q.pkts_out += 1;
        q.bytes_out += size;
        Ok(())
    }

    /// Records a drop at queue `qi` of a packet of colour `c`.
    #[inline]
    pub fn count_drop(&mut self, qi: usize, why: DropReason, c: u8) {
        let s = &mut self.stats[qi];
        s.drops[why as usize] += 1;
        if c == colour::GREEN {
            s.green_drops += 1;
        } else if c == colour::RED {
            s.red_drops += 1;
        }
    }

    /// Removes the scheduler's next packet from the class queues (not the driver queue).
    #[inline(always)]
    fn dequeue_class(
        &mut self,
        prof: &Profile,
        arena: &mut Arena,
        pool: &mut SharedPool,
        rng: &mut Rng,
    ) -> Option<(PktId, usize)> {
        let ready = self.nonempty & !self.paused;
        if ready == 0 {
            return None;
        }
        let s = &prof.sched;
        let strict = ready & s.strict_mask;
        let qi = if strict != 0 {
            strict.trailing_zeros() as usize
        } else {
            let q = &self.q;
            self.drr.pick(ready & s.drr_mask, &s.quanta, |c| {
                arena.get(q[c].head).wire as u64
            })
        };
        let id = self.q[qi]
            .pop_front(arena)
            .expect("nonempty bit set on an empty queue");
        let size = arena.get(id).wire as u64;
        if prof.colour_queues & (1 << qi) != 0 && arena.get(id).colour == colour::RED {
            self.red_bytes -= size;
        }
        let reserved = prof.limits[qi].reserved;
        let before = self.q[qi].bytes + size;
        let freed = before.saturating_sub(reserved) - self.q[qi].bytes.saturating_sub(reserved);
        self.unres_bytes -= freed;
        pool.used -= freed;
        self.bytes -= size;
        self.pkts -= 1;
        if !self.q[qi].is_empty() {
            // The new head leaves next, at the end of this packet's serialization (a
            // `TxDone` about one packet time from now): start fetching its line, which has
            // usually left the cache since it was queued (a hint; issue 17).
            dcnsim_engine::prefetch(arena.slot_ptr(self.q[qi].head));
        } else {
            self.nonempty &= !(1 << qi);
            // Only DRR queues hold a deficit (a strict or FIFO queue's is never charged):
            // skipping the others keeps the DRR state's cold line out of a FIFO port's hop.
            if prof.sched.drr_mask & (1 << qi) != 0 {
                self.drr.on_empty(qi);
            }
        }
        let st = &mut self.q[qi];
        st.pkts_out += 1;
        st.bytes_out += size;
        if prof.any_dequeue_marking {
            let m = &prof.markers[qi];
            let (b, p) = if m.per_port() {
                (self.bytes, self.pkts)
            } else {
                (self.q[qi].bytes, self.q[qi].pkts as u64)
            };
            let pkt = arena.get_mut(id);
            if pkt.flags & flags::ECT != 0 && m.at_dequeue(b, p, rng) {
                if pkt.flags & flags::CE == 0 {
                    self.q[qi].ecn_marks += 1;
                }
                pkt.flags |= flags::CE;
            }
        }
        Some((id, qi))
    }

    /// The next packet to put on the wire, if any: from the driver queue (refilled from the
    /// class queues while it has room) or straight from the class queues.
    #[inline]
    pub fn next_to_send(
        &mut self,
        prof: &Profile,
        arena: &mut Arena,
        pool: &mut SharedPool,
        rng: &mut Rng,
    ) -> Option<PktId> {
        if prof.driver == 0 {
            return self.dequeue_class(prof, arena, pool, rng).map(|(id, _)| id);
        }
        self.next_from_driver(prof, arena, pool, rng)
    }

    /// `next_to_send` for a port with a driver queue (hosts with `host.driver_queue`), out
    /// of line: the class queues' dequeue is then inlined into the common path only.
    #[inline(never)]
    fn next_from_driver(
        &mut self,
        prof: &Profile,
        arena: &mut Arena,
        pool: &mut SharedPool,
        rng: &mut Rng,
    ) -> Option<PktId> {
        self.refill_driver(prof, arena, pool, rng);
        if self.paused != 0 && self.driver.head != NIL {
            // PFC pauses the NIC's queue of a priority: a paused packet at the head of the
            // driver FIFO blocks it (head-of-line) until the RESUME.
            let q = prof.queue_of(arena.get(self.driver.head).class);
            if self.paused & (1 << q) != 0 {
                return None;
            }
        }
        self.driver
            .pop_front(arena)
            .inspect(|_| self.refill_driver(prof, arena, pool, rng))
    }

    /// Moves packets from the class queues into the driver FIFO while it has room.
    #[inline]
    pub fn refill_driver(
        &mut self,
        prof: &Profile,
        arena: &mut Arena,
        pool: &mut SharedPool,
        rng: &mut Rng,
    ) {
        while self.driver.pkts < prof.driver {
            match self.dequeue_class(prof, arena, pool, rng) {
                Some((id, _)) => self.driver.push_back(arena, id),
                None => break,
            }
        }
    }

    /// Bytes waiting in front of the wire (class queues + driver queue).
    pub fn backlog(&self) -> u64 {
        self.bytes + self.driver.bytes
    }

    /// Debug check of the accounting invariants.
    pub fn check_invariants(&self, prof: &Profile, arena: &Arena) {
        let mut unres = 0;
        let mut tb = 0;
        for qi in 0..MAX_QUEUES {
            let l = &self.q[qi];
            let (mut b, mut n, mut id) = (0u64, 0u32, l.head);
            while id != NIL {
                b += arena.get(id).wire as u64;
                n += 1;
                id = arena.get(id).next;
            }
            assert_eq!((b, n), (l.bytes, l.pkts), "queue {qi} counts");
            assert_eq!(self.nonempty & (1 << qi) != 0, n > 0, "nonempty bit {qi}");
            unres += b.saturating_sub(prof.limits[qi].reserved);
            tb += b;
            if let Some(Amount::Bytes(lim)) = prof.limits[qi].queue_limit {
                assert!(
                    b <= lim.max(prof.limits[qi].reserved),
                    "queue {qi} over its static limit"
                );
            }
        }
        assert_eq!(unres, self.unres_bytes);
        assert_eq!(tb, self.bytes);
        let mut red = 0;
        for qi in 0..MAX_QUEUES {
            if prof.colour_queues & (1 << qi) == 0 {
                continue;
            }
            let mut id = self.q[qi].head;
            while id != NIL {
                let p = arena.get(id);
                if p.colour == colour::RED {
                    red += p.wire as u64;
                }
                id = p.next;
            }
        }
        assert_eq!(red, self.red_bytes, "red bytes in colour-aware queues");
    }
}
