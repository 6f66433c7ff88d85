//! Byte-range sets: the sender's SACK scoreboard (RFC 6675 §3) and the receiver's
//! out-of-order store (RFC 2018 §4).
//!
//! A [`RangeSet`] is a sorted `Vec` of disjoint, non-touching `[start, end)` ranges plus a
//! running byte total. It is sized by the window, not the flow: the owner removes everything
//! below its left edge (`snd_una` / `rcv_nxt`) as that edge advances, and keeps the `Vec`'s
//! capacity, so steady-state operation does not allocate. Operations are O(log n) search +
//! O(n) memmove where n is the number of holes in the window (a handful in practice).
//!
//! Invariants (checked in debug builds): ranges sorted by start, `ranges[i].1 <
//! ranges[i+1].0` (never touching, so each range is maximal), no empty range, and
//! `total == Σ (end − start)`.

/// A set of byte ranges.
#[derive(Clone, Debug, Default)]
pub struct RangeSet {
    ranges: Vec<(u64, u64)>,
    total: u64,
}

impl RangeSet {
    pub fn with_capacity(n: usize) -> Self {
        RangeSet {
            ranges: Vec::with_capacity(n),
            total: 0,
        }
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// Total bytes covered.
    #[inline]
    pub fn total(&self) -> u64 {
        self.total
    }

    #[inline]
    pub fn ranges(&self) -> &[(u64, u64)] {
        &self.ranges
    }

    pub fn clear(&mut self) {
        self.ranges.clear();
        self.total = 0;
    }

    /// Adds `[start, end)`; returns how many bytes were not already covered.
    pub fn insert(&mut self, start: u64, end: u64) -> u64 {
        if start >= end {
            return 0;
        }
        // Ranges i..j overlap or touch [start, end].
        let i = self.ranges.partition_point(|r| r.1 < start);
        let j = self.ranges.partition_point(|r| r.0 <= end);
        let added;
        if i == j {
            self.ranges.insert(i, (start, end));
            added = end - start;
        } else {
            let covered: u64 = self.ranges[i..j].iter().map(|r| r.1 - r.0).sum();
            let ns = start.min(self.ranges[i].0);
            let ne = end.max(self.ranges[j - 1].1);
            self.ranges[i] = (ns, ne);
            self.ranges.drain(i + 1..j);
            added = (ne - ns) - covered;
        }
        self.total += added;
        self.debug_check();
        added
    }

    /// Removes everything below `edge`.
    pub fn remove_below(&mut self, edge: u64) {
        let k = self.ranges.partition_point(|r| r.1 <= edge);
        if k > 0 {
            let gone: u64 = self.ranges[..k].iter().map(|r| r.1 - r.0).sum();
            self.total -= gone;
            self.ranges.drain(..k);
        }
        if let Some(first) = self.ranges.first_mut() {
            if first.0 < edge {
                self.total -= edge - first.0;
                first.0 = edge;
            }
        }
        self.debug_check();
    }

    /// Removes `[start, end)`; returns how many bytes were covered.
    pub fn remove(&mut self, start: u64, end: u64) -> u64 {
        if start >= end {
            return 0;
        }
        // Ranges i..j overlap [start, end).
        let i = self.ranges.partition_point(|r| r.1 <= start);
        let j = self.ranges.partition_point(|r| r.0 < end);
        if i >= j {
            return 0;
        }
        let (first, last) = (self.ranges[i], self.ranges[j - 1]);
        let covered: u64 = self.ranges[i..j]
            .iter()
            .map(|r| r.1.min(end) - r.0.max(start))
            .sum();
        let mut keep = [(0, 0); 2];
        let mut n = 0;
        if first.0 < start {
            keep[n] = (first.0, start);
            n += 1;
        }
        if last.1 > end {
            keep[n] = (end, last.1);
            n += 1;
        }
        self.ranges.splice(i..j, keep[..n].iter().copied());
        self.total -= covered;
        self.debug_check();
        covered
    }

    /// Bytes covered inside `[start, end)`.
    pub fn covered_in(&self, start: u64, end: u64) -> u64 {
        if start >= end {
            return 0;
        }
        self.covered_below(end) - self.covered_below(start)
    }

    /// If the lowest range starts at or below `edge`, removes it and returns its end
    /// (the receiver uses this to advance `rcv_nxt` over buffered data).
    pub fn pop_front_if_reaches(&mut self, edge: u64) -> Option<u64> {
        match self.ranges.first() {
            Some(&(s, e)) if s <= edge => {
                self.ranges.remove(0);
                self.total -= e - s;
                Some(e)
            }
            _ => None,
        }
    }

    /// Whether byte `x` is covered.
    #[inline]
    pub fn contains(&self, x: u64) -> bool {
        let i = self.ranges.partition_point(|r| r.1 <= x);
        i < self.ranges.len() && self.ranges[i].0 <= x
    }

    /// The range containing byte `x`, if any.
    #[inline]
    pub fn range_containing(&self, x: u64) -> Option<(u64, u64)> {
        let i = self.ranges.partition_point(|r| r.1 <= x);
        self.ranges.get(i).copied().filter(|r| r.0 <= x)
    }

    /// Bytes covered below `x`.
    pub fn covered_below(&self, x: u64) -> u64 {
        // Ranges are few; a linear sum over those starting below x is cheapest.
        let mut s = 0;
        for &(a, b) in &self.ranges {
            if a >= x {
                break;
            }
            s += b.min(x) - a;
        }
        s
    }

    /// The first uncovered byte at or above `p`, and the start of the next covered range
    /// above it (`u64::MAX` if none).
    #[inline]
    pub fn next_uncovered(&self, p: u64) -> (u64, u64) {
        let i = self.ranges.partition_point(|r| r.1 <= p);
        match self.ranges.get(i) {
            Some(&(a, b)) if a <= p => (b, self.ranges.get(i + 1).map_or(u64::MAX, |r| r.0)),
            Some(&(a, _)) => (p, a),
            None => (p, u64::MAX),
        }
    }

    /// RFC 6675 §4 IsLost as a boundary: every uncovered byte below the returned sequence
    /// number has either `dupthresh` discontiguous SACKed ranges or more than
    /// `(dupthresh − 1)·mss` SACKed bytes above it, i.e. is deemed lost. Because "SACKed
    /// above" only shrinks as the sequence number grows, the lost bytes are always a prefix
    /// of the un-SACKed ones. `None` if nothing is lost.
    pub fn lost_boundary(&self, dupthresh: u32, mss: u64) -> Option<u64> {
        let byte_limit = (dupthresh as u64 - 1) * mss;
        let mut count = 0u32;
        let mut bytes = 0u64;
        for &(a, b) in self.ranges.iter().rev() {
            count += 1;
            bytes += b - a;
            if count >= dupthresh || bytes > byte_limit {
                return Some(a);
            }
        }
        None
    }

    #[inline]
    fn debug_check(&self) {
        #[cfg(debug_assertions)]
        {
            let mut t = 0;
            for w in self.ranges.windows(2) {
                debug_assert!(w[0].1 < w[1].0, "ranges must be sorted and non-touching");
            }
            for r in &self.ranges {
                debug_assert!(r.0 < r.1);
                t += r.1 - r.0;
            }
            debug_assert_eq!(t, self.total);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_merges_and_counts_new_bytes() {
        let mut s = RangeSet::default();
        assert_eq!(s.insert(10, 20), 10);
        assert_eq!(s.insert(30, 40), 10);
        assert_eq!(s.insert(15, 35), 10); // fills 20..30 only
        assert_eq!(s.ranges(), &[(10, 40)]);
        assert_eq!(s.insert(40, 50), 10); // touching merges
        assert_eq!(s.ranges(), &[(10, 50)]);
        assert_eq!(s.insert(12, 13), 0);
        assert_eq!(s.insert(5, 5), 0);
        assert_eq!(s.total(), 40);
        s.insert(60, 70);
        assert_eq!(s.covered_below(65), 45);
        assert_eq!(s.next_uncovered(10), (50, 60));
        assert_eq!(s.next_uncovered(55), (55, 60));
        assert_eq!(s.next_uncovered(70), (70, u64::MAX));
        s.remove_below(20);
        assert_eq!(s.ranges(), &[(20, 50), (60, 70)]);
        assert_eq!(s.total(), 40);
        assert!(s.contains(20) && !s.contains(50) && s.contains(69));
        assert_eq!(s.pop_front_if_reaches(19), None);
        assert_eq!(s.pop_front_if_reaches(20), Some(50));
        assert_eq!(s.total(), 10);
    }

    #[test]
    fn remove_splits_and_counts() {
        let mut s = RangeSet::default();
        s.insert(10, 20);
        s.insert(30, 40);
        s.insert(50, 60);
        assert_eq!(s.remove(15, 35), 10); // 15..20 and 30..35
        assert_eq!(s.ranges(), &[(10, 15), (35, 40), (50, 60)]);
        assert_eq!(s.remove(52, 55), 3); // splits one range in two
        assert_eq!(s.ranges(), &[(10, 15), (35, 40), (50, 52), (55, 60)]);
        assert_eq!(s.remove(0, 5), 0);
        assert_eq!(s.remove(40, 50), 0);
        assert_eq!(s.covered_in(12, 56), 3 + 5 + 2 + 1);
        assert_eq!(s.remove(0, 100), 17);
        assert!(s.is_empty() && s.total() == 0);
    }

    #[test]
    fn is_lost_boundary_rfc6675() {
        let mss = 100;
        let mut s = RangeSet::default();
        // Hole at 0..100, SACKed 100..200: with DupThresh 3 nothing is lost yet.
        s.insert(100, 200);
        assert_eq!(s.lost_boundary(3, mss), None);
        assert_eq!(s.lost_boundary(1, mss), Some(100)); // DupThresh 1: any SACK above
        s.insert(200, 300);
        assert_eq!(s.lost_boundary(3, mss), None); // exactly 2*SMSS is not "more than"
        s.insert(300, 301);
        assert_eq!(s.lost_boundary(3, mss), Some(100));
        // Three discontiguous ranges also qualify even if small.
        let mut t = RangeSet::default();
        t.insert(10, 11);
        t.insert(20, 21);
        assert_eq!(t.lost_boundary(3, mss), None);
        t.insert(30, 31);
        assert_eq!(t.lost_boundary(3, mss), Some(10));
    }
}
