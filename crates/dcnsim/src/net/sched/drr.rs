//! Deficit round robin (Shreedhar & Varghese, SIGCOMM 1995) as a WFQ approximation.
//!
//! Queue i receives quantum_i = w_i / min_j(w_j) × Q0 bytes of credit per round, with
//! Q0 ≥ MTU so every visit can send at least one packet (mechanisms §2.2). A queue's deficit
//! resets when it empties, so an idle queue cannot bank credit. Long-run shares converge
//! to w_i / Σw among backlogged queues; the scheduler is work-conserving.

use crate::net::config::MAX_QUEUES;

/// Fills `out[offset + i]` with the quantum of weighted queue `offset + i`.
pub fn quanta(weights: &[f64], q0: u64, offset: usize, out: &mut [u64; MAX_QUEUES]) {
    let wmin = weights.iter().cloned().fold(f64::INFINITY, f64::min);
    for (i, w) in weights.iter().enumerate() {
        if offset + i < MAX_QUEUES {
            out[offset + i] = ((w / wmin) * q0 as f64).round().max(1.0) as u64;
        }
    }
}

/// Per-port DRR state.
#[derive(Clone, Copy, Debug, Default)]
pub struct DrrState {
    pub deficit: [u64; MAX_QUEUES],
    pub cur: u8,
}

impl DrrState {
    /// Picks the queue to serve among `active` (non-empty DRR queues, non-zero), given the
    /// head-of-line size of each queue, charging its deficit.
    #[inline]
    pub fn pick(
        &mut self,
        active: u8,
        quanta: &[u64; MAX_QUEUES],
        head_size: impl Fn(usize) -> u64,
    ) -> usize {
        debug_assert!(active != 0);
        let mut c = self.cur as usize;
        if active & (1 << c) == 0 {
            c = next_active(active, c);
            self.cur = c as u8;
            self.deficit[c] += quanta[c];
        }
        loop {
            let sz = head_size(c);
            if self.deficit[c] >= sz {
                self.deficit[c] -= sz;
                return c;
            }
            c = next_active(active, c);
            self.cur = c as u8;
            self.deficit[c] += quanta[c];
        }
    }

    /// Called when queue `q` becomes empty: it forfeits its credit.
    #[inline]
    pub fn on_empty(&mut self, q: usize) {
        self.deficit[q] = 0;
    }
}

/// The next set bit of `mask` strictly after `c`, cyclically (may return `c` itself if it is the only one).
#[inline]
fn next_active(mask: u8, c: usize) -> usize {
    let rot = (mask as u16 | ((mask as u16) << 8)) >> (c + 1);
    (c + 1 + (rot as u8).trailing_zeros() as usize) % 8
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn next_active_cycles() {
        assert_eq!(next_active(0b0000_0101, 0), 2);
        assert_eq!(next_active(0b0000_0101, 2), 0);
        assert_eq!(next_active(0b0000_0001, 0), 0);
        assert_eq!(next_active(0b1000_0000, 3), 7);
        assert_eq!(next_active(0b1000_0001, 7), 0);
    }
    #[test]
    fn shares_follow_weights() {
        let mut q = [0u64; MAX_QUEUES];
        quanta(&[9.0, 1.0], 1500, 0, &mut q);
        assert_eq!(&q[..2], &[13500, 1500]);
        let mut s = DrrState::default();
        let mut sent = [0u64; 2];
        for _ in 0..100_000 {
            let c = s.pick(0b11, &q, |_| 1500);
            sent[c] += 1500;
        }
        let share = sent[0] as f64 / (sent[0] + sent[1]) as f64;
        assert!((share - 0.9).abs() < 0.001, "{share}");
    }
}
