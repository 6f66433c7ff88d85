//! Which packets of a message have reached the responder's host at least once, in any order.
//!
//! A go-back-N responder NIC discards every packet after a gap (`gbn::InOrder`), so the
//! flow completes only when its packets have arrived in order. The TLT RoCE reference
//! simulator (kaist-ina/ns3-tlt-rdma-public, on which the TLT paper ran its RoCE
//! experiments) times flows elsewhere: `QbbNetDevice::Receive` hands every data packet up to
//! the receiving application whatever `RdmaHw::ReceiveUdp` made of it, and
//! `UdpServer::HandleRead` records its byte range; a flow ends at an arrival of its last
//! packet once every byte has arrived at least once (with IRN, at any arrival then), and
//! starts at the send stamp (`RdmaHw::GetNxtPacket`) of the first copy of its first packet
//! to arrive. [`Seen`] keeps what that measurement needs, so a run reports both (the flow
//! table's `rx_first_sent_s` and `rx_all_s`, docs/rdma.md).

use std::collections::VecDeque;

/// The PSNs seen at least once. Memory follows the PSNs seen beyond the lowest one still
/// missing (at most the packets in flight past a gap), not the message's length.
#[derive(Clone, Debug, Default)]
pub struct Seen {
    /// Every PSN below `lo` has been seen.
    lo: u64,
    /// Bit k of `words[i]` stands for PSN `(lo rounded down to 64) + 64 i + k`.
    words: VecDeque<u64>,
}

impl Seen {
    /// Records that PSN `psn` arrived.
    #[inline]
    pub fn insert(&mut self, psn: u64) {
        if psn == self.lo && self.words.is_empty() {
            // In order with nothing seen beyond: no bitmap.
            self.lo += 1;
            return;
        }
        if psn < self.lo {
            return;
        }
        let base = self.lo & !63;
        let i = ((psn - base) >> 6) as usize;
        if self.words.len() <= i {
            self.words.resize(i + 1, 0);
        }
        self.words[i] |= 1 << ((psn - base) & 63);
        // Advance `lo` over the run of seen PSNs it now starts; a word seen in full from
        // `lo` to its end is dropped and the next one starts at bit 0.
        while let Some(&w) = self.words.front() {
            let k = (self.lo & 63) as u32;
            let run = (w >> k).trailing_ones();
            self.lo += run as u64;
            if k + run < 64 {
                break;
            }
            self.words.pop_front();
        }
    }

    /// Whether every PSN below `n` has been seen.
    pub fn all_below(&self, n: u64) -> bool {
        self.lo >= n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_out_of_order_arrivals_and_duplicates() {
        let mut s = Seen::default();
        for psn in [0, 1, 3, 4, 3, 5] {
            s.insert(psn);
        }
        assert!(s.all_below(2) && !s.all_below(3), "PSN 2 is missing");
        s.insert(2);
        assert!(s.all_below(6) && !s.all_below(7));
    }

    #[test]
    fn gaps_across_words_close_in_any_order() {
        // A message of 300 packets arriving in reverse, then one gap filled last.
        let mut s = Seen::default();
        for psn in (0..300).rev().filter(|&p| p != 130) {
            s.insert(psn);
        }
        assert!(s.all_below(130) && !s.all_below(131));
        assert!(s.words.len() <= 3, "only the words past the gap are kept");
        s.insert(130);
        assert!(s.all_below(300) && !s.all_below(301));
        assert!(s.words.len() <= 1);
    }

    #[test]
    fn in_order_arrivals_keep_no_bitmap() {
        let mut s = Seen::default();
        for psn in 0..10_000 {
            s.insert(psn);
            assert!(s.words.is_empty());
        }
        assert!(s.all_below(10_000));
        // A gap after an in-order run: the bitmap starts at the run's end.
        s.insert(10_070);
        s.insert(10_001);
        assert!(s.all_below(10_000) && !s.all_below(10_001));
        for psn in 10_000..10_070 {
            s.insert(psn);
        }
        assert!(s.all_below(10_071) && !s.all_below(10_072));
    }
}
