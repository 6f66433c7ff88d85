//! The event queue: FIFO lanes for fixed-delay events over a binary min-heap, all keyed on
//! `(time, seq)`.
//!
//! `seq` is a global insertion counter, so events scheduled for the same picosecond pop in
//! the order they were pushed: the run is a pure function of its inputs and seed. Every key
//! is unique, so *where* an event waits (which lane, or the heap) never changes the order in
//! which events pop: only the cost does.
//!
//! Most events in a network simulation are scheduled a *fixed* delay after the moment they
//! are pushed: a serialization ends `tx(size)` after it starts, a packet arrives
//! `tx(size) + propagation` after it starts, a constant-rate source fires every gap. Since
//! time never goes back, the events pushed with one delay arrive in key order, so a FIFO per
//! delay (a *lane*) is already sorted and push and pop are O(1):
//!
//! - **push** finds the lane of a delay in a small direct-mapped cache (delay → lane), with
//!   no search; a delay gets a lane the second time it is seen while the cache remembers it
//!   (so one-off delays, e.g. a timer's or a busy port's remaining serialization, do not
//!   hold lanes), and the lane of an idle delay is handed over when all are taken;
//!   everything else (timers, flow starts, one-off delays) goes to the heap.
//! - **pop** reads the minimum of the lane heads at the root of a winner tree over the
//!   lanes (a tournament: each inner node keeps the smaller key of its two children), and
//!   compares it with the heap's minimum (cached). A lane whose head changes replays its
//!   path to the root: log₂ 8 = 3 compares, no scan.
//!
//! Measured on the repository's benchmarks against the plain binary heap (the first lanes,
//! which searched the lanes by delay on push and scanned all lane heads on pop): 0.70× the
//! time on the open-loop leaf–spine, 0.72× on the open-loop fat tree, 0.87× on the DCTCP fat
//! tree (whole-process pairs; a radix heap was 1.37×, a 4-ary heap 1.00×). The cache and the
//! tree: see docs/performance-log.md.
//!
//! Each entry is `(time, seq << 30 | event)` in one `u128`: the event is packed into 30 bits
//! (see [`Packable`]). `seq` has 34 bits: FIFO order among equal-time events holds for the
//! first 17 billion pushes of a run and stays deterministic after that. Cancelled timers are
//! not removed but ignored on pop by their owner (generation counters).

use crate::time::Time;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// An event that packs into 30 bits.
pub trait Packable: Copy {
    fn pack(self) -> u32;
    fn unpack(bits: u32) -> Self;
}

pub const PACK_BITS: u32 = 30;
const PACK_MASK: u64 = (1 << PACK_BITS) - 1;

/// `time << 64 | seq << 30 | event`: one integer compare orders by (time, seq), branch-free.
type Entry = u128;
/// An empty lane's head (and an empty heap's top): larger than every real entry.
const EMPTY: Entry = Entry::MAX;

/// Number of FIFO lanes (events scheduled a fixed delay after "now"); a power of two (the
/// winner tree is complete). Eight, not sixteen: a level less in every replay saves more
/// than the busier lane takeovers and heap cost (1.9–3.3% of the instructions of every
/// benchmark; docs/performance-log.md, "An idle port passes the packet; eight lanes");
/// four lost on the REFLEX workload.
const LANES: usize = 8;
const _: () = assert!(LANES.is_power_of_two() && LANES <= 128);

/// Slots of the direct-mapped delay → lane cache (a power of two). A port that sends pushes
/// two delays per packet, its serialization `dt` (the next transmission) and `dt` plus the
/// link's propagation (the arrival). Under the multiplicative hash below, delays `d` and
/// `d + 1 µs` land 0.72 slot apart with 64 slots, so 28% of packet sizes put both in one slot
/// and every such push evicts the other and searches the lanes (the REFLEX workload runs:
/// 1,434-byte segments at 10 Gb/s over 1 µs links, 7.5% of all instructions); with 128 slots
/// they are 1.44 slots apart, never in one slot (any whole number of µs up to 88 µs likewise).
const CACHE: usize = 128;
/// A cache slot's delay was seen, but has no lane.
const NO_LANE: u8 = u8::MAX;

#[inline]
fn cache_slot(delay: Time) -> usize {
    // Multiplicative hashing (Knuth): the top bits of delay × 2⁶⁴/φ.
    (delay.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - CACHE.trailing_zeros())) as usize
}

/// The entries of a lane behind its head, oldest first: a ring buffer whose capacity is a
/// power of two (grows by doubling, never shrinks).
struct Ring {
    buf: Vec<Entry>,
    /// Free-running indices (wrapping); `tail - head` entries are stored.
    head: u32,
    tail: u32,
}

impl Ring {
    fn new() -> Ring {
        Ring {
            buf: vec![EMPTY; 64],
            head: 0,
            tail: 0,
        }
    }

    #[inline]
    fn push_back(&mut self, e: Entry) {
        if self.tail.wrapping_sub(self.head) as usize == self.buf.len() {
            self.grow();
        }
        let m = self.buf.len() - 1;
        self.buf[self.tail as usize & m] = e;
        self.tail = self.tail.wrapping_add(1);
    }

    /// Removes and returns the oldest entry, or `EMPTY`.
    #[inline]
    fn pop_front(&mut self) -> Entry {
        if self.head == self.tail {
            return EMPTY;
        }
        let m = self.buf.len() - 1;
        let e = self.buf[self.head as usize & m];
        self.head = self.head.wrapping_add(1);
        e
    }

    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        let n = self.buf.len();
        let mut buf = vec![EMPTY; 2 * n];
        for (k, slot) in buf[..n].iter_mut().enumerate() {
            *slot = self.buf[(self.head as usize).wrapping_add(k) & (n - 1)];
        }
        self.buf = buf;
        self.head = 0;
        self.tail = n as u32;
    }

    fn clear(&mut self) {
        self.head = 0;
        self.tail = 0;
    }
}

pub struct EventQueue<E> {
    /// Winner tree over the lane heads: `tree[LANES + i]` is lane i's head (its earliest
    /// entry; `EMPTY` when the lane is empty), an inner node `n` holds the smaller of
    /// `tree[2n]` and `tree[2n + 1]`, and `win[n]` the lane it came from; the root `tree[1]`
    /// is the smallest head. (Keeping the keys in the inner nodes, rather than only the
    /// lanes, takes a dependent load off each level.)
    tree: [Entry; 2 * LANES],
    win: [u8; 2 * LANES],
    /// Each lane's entries behind its head.
    rings: Vec<Ring>,
    /// The delay each lane serves (lanes `..n_lanes` are assigned).
    lane_delay: [Time; LANES],
    n_lanes: usize,
    /// Direct-mapped delay → lane cache: slot `cache_slot(d)` remembers delay `d` and its
    /// lane (`NO_LANE`: seen, no lane yet).
    cache_delay: [Time; CACHE],
    cache_lane: [u8; CACHE],
    /// Everything else, and its minimum (`EMPTY` when empty).
    heap: BinaryHeap<Reverse<Entry>>,
    heap_top: Entry,
    len: usize,
    seq: u64,
    now: Time,
    popped: u64,
    _e: std::marker::PhantomData<E>,
}

impl<E: Packable> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E: Packable> EventQueue<E> {
    pub fn new() -> Self {
        let mut win = [0u8; 2 * LANES];
        for (i, w) in win[LANES..].iter_mut().enumerate() {
            *w = i as u8;
        }
        EventQueue {
            tree: [EMPTY; 2 * LANES],
            win,
            rings: (0..LANES).map(|_| Ring::new()).collect(),
            lane_delay: [0; LANES],
            n_lanes: 0,
            // (A delay of Time::MAX never occurs: it would need `now` = 0 and `at` = MAX.)
            cache_delay: [Time::MAX; CACHE],
            cache_lane: [NO_LANE; CACHE],
            heap: BinaryHeap::with_capacity(1024),
            heap_top: EMPTY,
            len: 0,
            seq: 0,
            now: 0,
            popped: 0,
            _e: std::marker::PhantomData,
        }
    }

    #[inline]
    pub fn now(&self) -> Time {
        self.now
    }

    /// Schedules `ev` at absolute time `at` (never in the past).
    #[inline]
    pub fn push(&mut self, at: Time, ev: E) {
        debug_assert!(
            at >= self.now,
            "event scheduled in the past: {at} < {}",
            self.now
        );
        let bits = ev.pack() as u64;
        debug_assert!(bits <= PACK_MASK);
        let e: Entry = ((at as u128) << 64) | ((self.seq << PACK_BITS) | bits) as u128;
        self.seq += 1;
        self.len += 1;
        let delay = at - self.now;
        let s = cache_slot(delay);
        if self.cache_delay[s] == delay {
            let l = self.cache_lane[s];
            if l != NO_LANE {
                self.push_lane(l as usize, e);
                return;
            }
        }
        self.push_slow(s, delay, e);
    }

    /// Appends `e` to lane `i` (its events are in key order: see the module doc).
    #[inline]
    fn push_lane(&mut self, i: usize, e: Entry) {
        if self.tree[LANES + i] == EMPTY {
            self.tree[LANES + i] = e;
            self.replay(i);
        } else {
            self.rings[i].push_back(e);
        }
    }

    /// A delay the cache does not map to a lane: its lane if it has one (the cache slot was
    /// taken by another delay), a lane if this is the second time the cache sees it and a
    /// lane is free or idle, else the heap.
    #[inline(never)]
    fn push_slow(&mut self, s: usize, delay: Time, e: Entry) {
        if let Some(i) = self.lane_delay[..self.n_lanes]
            .iter()
            .position(|&d| d == delay)
        {
            self.cache_delay[s] = delay;
            self.cache_lane[s] = i as u8;
            self.push_lane(i, e);
            return;
        }
        if self.cache_delay[s] == delay {
            // Seen before: a delay in use. A lane never assigned, or an idle one taken over
            // (the delays in use change over a run).
            let i = if self.n_lanes < LANES {
                self.n_lanes += 1;
                Some(self.n_lanes - 1)
            } else {
                self.tree[LANES..].iter().position(|&h| h == EMPTY)
            };
            if let Some(i) = i {
                let old = self.lane_delay[i];
                let os = cache_slot(old);
                if self.cache_delay[os] == old && self.cache_lane[os] == i as u8 {
                    self.cache_lane[os] = NO_LANE;
                }
                self.lane_delay[i] = delay;
                self.cache_lane[s] = i as u8;
                self.push_lane(i, e);
                return;
            }
        } else {
            self.cache_delay[s] = delay;
            self.cache_lane[s] = NO_LANE;
        }
        self.heap.push(Reverse(e));
        self.heap_top = self.heap_top.min(e);
    }

    /// Lane `i`'s head changed: replays its matches up to the root (log₂ LANES levels,
    /// unrolled).
    #[inline(always)]
    fn replay(&mut self, i: usize) {
        const M: usize = 2 * LANES - 1;
        let mut n = LANES + (i & (LANES - 1));
        let mut k = self.tree[n];
        let mut w = i as u8;
        for _ in 0..LANES.trailing_zeros() {
            let s = n ^ 1;
            let ks = self.tree[s & M];
            // Keys are unique, except that empty lanes tie (either wins).
            if ks < k {
                k = ks;
                w = self.win[s & M];
            }
            n >>= 1;
            self.tree[n & M] = k;
            self.win[n & M] = w;
        }
    }

    /// Pops the earliest event if its time is ≤ `until`, advancing `now` to it.
    #[inline]
    pub fn pop_until(&mut self, until: Time) -> Option<(Time, E)> {
        self.pop_until_packed(until)
            .map(|(t, bits)| (t, E::unpack(bits)))
    }

    /// [`EventQueue::pop_until`], returning the event as packed (for a caller that decodes
    /// and dispatches it in one `match`).
    #[inline]
    pub fn pop_until_packed(&mut self, until: Time) -> Option<(Time, u32)> {
        let lane_min = self.tree[1];
        let best = lane_min.min(self.heap_top);
        if best == EMPTY {
            return None;
        }
        let t = (best >> 64) as Time;
        if t > until {
            return None;
        }
        if lane_min < self.heap_top {
            let i = self.win[1] as usize & (LANES - 1);
            self.tree[LANES + i] = self.rings[i].pop_front();
            self.replay(i);
        } else {
            self.heap.pop();
            self.heap_top = self.heap.peek().map_or(EMPTY, |r| r.0);
        }
        self.len -= 1;
        debug_assert!(t >= self.now, "time went backwards");
        self.now = t;
        self.popped += 1;
        Some((t, (best as u64 & PACK_MASK) as u32))
    }

    /// Pops the earliest event and advances `now` to its time.
    #[inline]
    pub fn pop(&mut self) -> Option<(Time, E)> {
        self.pop_until(Time::MAX)
    }

    /// Moves `now` forward to `t` without popping: an event kept outside the queue (a
    /// streaming run's next flow start) happens at `t`, which must not pass the earliest
    /// pending event.
    #[inline]
    pub fn advance_to(&mut self, t: Time) {
        debug_assert!(t >= self.now, "time went backwards");
        debug_assert!(self.peek_time().is_none_or(|p| t <= p));
        self.now = t;
    }

    /// The packed bits of the earliest event waiting in a lane (all ones when the lanes are
    /// empty), without popping it: a hint for what to prefetch (the heap may hold an earlier
    /// event, and an event pushed before then may come first).
    #[inline(always)]
    pub fn peek_lane_bits(&self) -> u32 {
        (self.tree[1] as u64 & PACK_MASK) as u32
    }

    /// Time of the next event, if any.
    #[inline]
    pub fn peek_time(&self) -> Option<Time> {
        let m = self.tree[1].min(self.heap_top);
        (m != EMPTY).then_some((m >> 64) as Time)
    }

    pub fn len(&self) -> usize {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Number of events popped so far.
    pub fn popped(&self) -> u64 {
        self.popped
    }

    /// Drops every pending event (a run that must stop, e.g. a detected PFC deadlock);
    /// `now` stays where it is.
    pub fn clear(&mut self) {
        self.tree = [EMPTY; 2 * LANES];
        for r in &mut self.rings {
            r.clear();
        }
        self.heap.clear();
        self.heap_top = EMPTY;
        self.len = 0;
    }

    /// Events waiting in the heap rather than in a lane (tests: lane use).
    #[cfg(test)]
    fn in_heap(&self) -> usize {
        self.heap.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Rng;

    impl Packable for u32 {
        fn pack(self) -> u32 {
            self
        }
        fn unpack(b: u32) -> u32 {
            b
        }
    }

    #[test]
    fn orders_by_time_then_insertion() {
        let mut q = EventQueue::new();
        q.push(5, 1u32);
        q.push(3, 2);
        q.push(5, 3);
        q.push(3, 4);
        let out: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(out, vec![(3, 2), (3, 4), (5, 1), (5, 3)]);
        assert_eq!(q.now(), 5);
        assert_eq!(q.popped(), 4);
    }

    /// Random pushes (delays from `delay(round, rng)`) and pops, each pop checked against a
    /// sorted reference of (time, push order).
    fn check_against_reference(
        seed: u64,
        rounds: u32,
        p_push: f64,
        delay: impl Fn(u32, &mut Rng) -> u64,
    ) {
        let mut r = Rng::new(seed);
        let mut q = EventQueue::new();
        let mut reference: Vec<(u64, u32)> = Vec::new();
        let mut seq = 0u32;
        for round in 0..rounds {
            if r.chance(p_push) || reference.is_empty() {
                let at = q.now() + delay(round, &mut r);
                q.push(at, seq);
                reference.push((at, seq));
                seq += 1;
            } else {
                let (i, _) = reference
                    .iter()
                    .enumerate()
                    .min_by_key(|(_, k)| **k)
                    .unwrap();
                let want = reference.swap_remove(i);
                assert_eq!(q.peek_time(), Some(want.0));
                assert_eq!(q.pop(), Some(want));
            }
            assert_eq!(q.len(), reference.len());
        }
    }

    #[test]
    fn matches_a_sorted_reference_under_random_interleaving() {
        check_against_reference(5, 50_000, 0.55, |_, r| {
            let bits = r.below(40) + 1;
            if r.chance(0.2) {
                0
            } else {
                r.below(1 << bits)
            }
        });
    }

    /// Events due at the same picosecond pop in the order they were pushed, whichever lane
    /// (each pushed with its own delay, from a different `now`) or the heap holds them: an
    /// order by time alone, or lanes before the heap, fails.
    #[test]
    fn equal_times_pop_in_push_order_across_lanes_and_heap() {
        let mut q = EventQueue::new();
        // now = 0: delay 1000 seen first (heap), then again (its lane)
        q.push(1000, 0u32);
        q.push(1000, 1);
        q.push(300, 100);
        assert_eq!(q.pop(), Some((300, 100)));
        // now = 300: delay 700 (heap, then its lane twice)
        q.push(1000, 2);
        q.push(1000, 3);
        q.push(1000, 4);
        q.push(600, 101);
        assert_eq!(q.pop(), Some((600, 101)));
        // now = 600: delay 400 (heap, then its lane); delay 1000 (its lane, later)
        q.push(1000, 5);
        q.push(1000, 6);
        q.push(1600, 7);
        assert_eq!(q.in_heap(), 3, "first sightings wait in the heap");
        assert_eq!(q.len(), 8);
        let out: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        let want: Vec<_> = (0..7).map(|i| (1000, i)).chain([(1600, 7)]).collect();
        assert_eq!(out, want);
    }

    /// Recurring delays use lanes (nothing in the heap once they are known); one-off delays
    /// wait in the heap.
    #[test]
    fn recurring_delays_take_lanes_one_offs_the_heap() {
        let mut q = EventQueue::new();
        let delays = [1230, 2230, 67, 1067];
        for _ in 0..2000 {
            for (k, d) in delays.iter().enumerate() {
                q.push(q.now() + d, k as u32);
            }
            q.pop();
        }
        // (the first sightings, due within 2230 ps of the start, have long popped)
        assert_eq!(q.in_heap(), 0, "known delays go to their lanes");
        assert!(q.len() > 4000);
        let before = q.in_heap();
        // one-off delays: first sightings
        for k in 0..10 {
            q.push(q.now() + 1_000_003 + 7919 * k, 5);
        }
        assert_eq!(q.in_heap(), before + 10);
    }

    /// All times on a coarse grid (many events due at the same picosecond, from lanes and
    /// the heap alike), with more recurring delays than lanes and cache collisions.
    #[test]
    fn matches_the_reference_with_many_equal_times() {
        check_against_reference(11, 80_000, 0.5, |round, r| {
            if r.chance(0.1) {
                return r.below(200) * 100 * 37;
            }
            // 40 recurring delays, the set in use drifting over the run
            let base = (round / 8_000) as u64 * 3;
            100 * (base + r.below(12))
        });
    }

    #[test]
    fn lanes_keep_order_with_few_fixed_delays_and_lane_takeover() {
        // 20 fixed delays (more than the 8 lanes, so lanes are reassigned when idle; the set
        // in use shifts halfway) mixed with random and zero delays.
        let delays: Vec<u64> = (0..20).map(|i| 1000 + 997 * i).collect();
        check_against_reference(9, 60_000, 0.52, |round, r| {
            let phase = if round % 20_000 < 10_000 {
                &delays[..12]
            } else {
                &delays[8..]
            };
            match r.below(10) {
                0 => 0,
                1 => r.below(50_000),
                _ => phase[r.below(phase.len() as u64) as usize],
            }
        });
    }
}
