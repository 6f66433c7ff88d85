//! The event queue: FIFO lanes for fixed-delay events over a binary min-heap, all keyed on
//! `(time, seq)`.
//!
//! `seq` is a global insertion counter, so events scheduled for the same picosecond pop in
//! the order they were pushed: the run is a pure function of its inputs and seed.
//!
//! Most events in a network simulation are scheduled a *fixed* delay after the moment they
//! are pushed: a serialization ends `tx(size)` after it starts, a packet arrives
//! `tx(size) + propagation` after it starts, a constant-rate source fires every gap. Since
//! time never goes back, the events pushed with one delay arrive in key order, so a FIFO per
//! delay (a *lane*) is already sorted: push and pop are O(1), and the minimum is found among
//! the lane heads (at most 16, contiguous) and the heap top. Delays seen for the first time
//! take a free or idle lane; everything else (timers, flow starts) goes to the heap.
//! Measured on the repository's benchmarks against the plain binary heap: 0.70× the time on
//! the open-loop leaf–spine, 0.72× on the open-loop fat tree, 0.87× on the DCTCP fat tree
//! (whole-process pairs; a radix heap was 1.37×, a 4-ary heap 1.00×).
//!
//! Each entry is `(time, seq << 30 | event)` in one `u128`: the event is packed into 30 bits
//! (see [`Packable`]). `seq` has 34 bits: FIFO order among equal-time events holds for the
//! first 17 billion pushes of a run and stays deterministic after that. Cancelled timers are
//! not removed but ignored on pop by their owner (generation counters).

use crate::time::Time;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// An event that packs into 30 bits.
pub trait Packable: Copy {
    fn pack(self) -> u32;
    fn unpack(bits: u32) -> Self;
}

pub const PACK_BITS: u32 = 30;
const PACK_MASK: u64 = (1 << PACK_BITS) - 1;

/// `time << 64 | seq << 30 | event`: one integer compare orders by (time, seq), branch-free.
type Entry = u128;

/// Number of FIFO lanes (events scheduled a fixed delay after "now").
const LANES: usize = 16;

/// A FIFO of events all scheduled the same delay after the moment they were pushed. Because
/// time never goes back, such events arrive in key order, so the lane stays sorted.
struct Lane {
    delay: Time,
    q: VecDeque<Entry>,
}

pub struct EventQueue<E> {
    /// Front key of each lane (u128::MAX when empty), kept contiguous for the minimum scan.
    heads: [Entry; LANES],
    lanes: Vec<Lane>,
    /// Everything else.
    heap: BinaryHeap<Reverse<Entry>>,
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
        EventQueue {
            heads: [Entry::MAX; LANES],
            lanes: Vec::with_capacity(LANES),
            heap: BinaryHeap::with_capacity(1024),
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
        // A lane for this delay keeps its events sorted for free (see `Lane`).
        if let Some(i) = self.lanes.iter().position(|l| l.delay == delay) {
            let l = &mut self.lanes[i];
            if l.q.is_empty() {
                self.heads[i] = e;
            }
            l.q.push_back(e);
            return;
        }
        if delay > 0 {
            // A new lane, or an idle one taken over (delays in use change over a run).
            let i = if self.lanes.len() < LANES {
                self.lanes.push(Lane {
                    delay,
                    q: VecDeque::with_capacity(64),
                });
                Some(self.lanes.len() - 1)
            } else {
                self.heads.iter().position(|&h| h == Entry::MAX)
            };
            if let Some(i) = i {
                let l = &mut self.lanes[i];
                l.delay = delay;
                l.q.push_back(e);
                self.heads[i] = e;
                return;
            }
        }
        self.heap.push(Reverse(e));
    }

    /// Pops the earliest event if its time is ≤ `until`, advancing `now` to it.
    #[inline]
    pub fn pop_until(&mut self, until: Time) -> Option<(Time, E)> {
        // minimum over the lane heads and the heap top
        let mut best = Entry::MAX;
        let mut lane = usize::MAX;
        for (i, &h) in self.heads[..self.lanes.len()].iter().enumerate() {
            if h < best {
                best = h;
                lane = i;
            }
        }
        if let Some(Reverse(top)) = self.heap.peek() {
            if *top < best {
                best = *top;
                lane = usize::MAX;
            }
        }
        if best == Entry::MAX {
            return None;
        }
        let t = (best >> 64) as Time;
        if t > until {
            return None;
        }
        if lane == usize::MAX {
            self.heap.pop();
        } else {
            let q = &mut self.lanes[lane].q;
            q.pop_front();
            self.heads[lane] = q.front().copied().unwrap_or(Entry::MAX);
        }
        self.len -= 1;
        debug_assert!(t >= self.now, "time went backwards");
        self.now = t;
        self.popped += 1;
        Some((t, E::unpack((best as u64 & PACK_MASK) as u32)))
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

    /// Time of the next event, if any.
    #[inline]
    pub fn peek_time(&self) -> Option<Time> {
        let lanes = self.heads.iter().copied().min().unwrap_or(Entry::MAX);
        let heap = self.heap.peek().map(|r| r.0).unwrap_or(Entry::MAX);
        let m = lanes.min(heap);
        (m != Entry::MAX).then_some((m >> 64) as Time)
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
        self.heads = [Entry::MAX; LANES];
        for l in &mut self.lanes {
            l.q.clear();
        }
        self.heap.clear();
        self.len = 0;
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

    #[test]
    fn lanes_keep_order_with_few_fixed_delays_and_lane_takeover() {
        // 20 fixed delays (more than the 16 lanes, so lanes are reassigned when idle; the set
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
