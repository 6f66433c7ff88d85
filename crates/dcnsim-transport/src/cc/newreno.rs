//! NewReno window arithmetic (RFC 5681 §3.1; recovery itself is in the sender, RFC 6582).
//!
//! Slow start below ssthresh, byte-counting congestion avoidance above it, halving on loss
//! (eq. 4), loss window of one segment on timeout. Invariant: `cwnd >= mss`.

use super::{reno_avoidance, reno_ssthresh, slow_start, CcCtx, CongestionControl, Window};
use crate::tcp::{SlowStartIncrease, TcpConfig};

#[derive(Clone, Debug)]
pub struct NewReno {
    /// RFC 3465 §2.1 bytes_acked accumulator for congestion avoidance.
    pub(crate) bytes_acc: u64,
    ss: SlowStartIncrease,
}

impl Default for NewReno {
    fn default() -> Self {
        NewReno::new(&TcpConfig::default())
    }
}

impl NewReno {
    pub fn new(cfg: &TcpConfig) -> Self {
        NewReno {
            bytes_acc: 0,
            ss: cfg.ss_increase,
        }
    }
}

impl CongestionControl for NewReno {
    fn on_ack(&mut self, w: &mut Window, acked: u64, _ctx: &CcCtx) {
        let mut acked = acked;
        if w.cwnd < w.ssthresh {
            acked = slow_start(w, acked, self.ss);
            if acked == 0 {
                return;
            }
        }
        reno_avoidance(w, acked, &mut self.bytes_acc);
    }

    fn on_loss(&mut self, w: &mut Window, ctx: &CcCtx) {
        // RFC 5681 §3.2 step 2 / RFC 6582 §3.2 step 2 / RFC 6675 §5 step 4.2.
        w.ssthresh = reno_ssthresh(ctx.flight_size, w.mss);
        w.cwnd = w.ssthresh;
        self.bytes_acc = 0;
    }

    fn on_rto(&mut self, w: &mut Window, ctx: &CcCtx, first: bool) {
        // RFC 5681 §3.1: ssthresh per eq. (4) (held constant on repeated timeouts of the
        // same data), cwnd = loss window = 1 SMSS.
        if first {
            w.ssthresh = reno_ssthresh(ctx.flight_size, w.mss);
        }
        w.cwnd = w.mss;
        self.bytes_acc = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx(flight: u64) -> CcCtx {
        CcCtx {
            now: 0,
            flight_size: flight,
            srtt: None,
        }
    }

    #[test]
    fn slow_start_then_one_mss_per_window() {
        let mss = 1000;
        let mut w = Window {
            cwnd: 2 * mss,
            ssthresh: 4 * mss,
            mss,
        };
        let mut c = NewReno::default();
        c.on_ack(&mut w, mss, &ctx(0));
        assert_eq!(w.cwnd, 3 * mss);
        c.on_ack(&mut w, 3 * mss, &ctx(0)); // limited to 2 SMSS, capped at ssthresh
        assert_eq!(w.cwnd, 4 * mss);
        // Congestion avoidance: 4 ACKs of one MSS each (= one cwnd) add one MSS.
        for _ in 0..3 {
            c.on_ack(&mut w, mss, &ctx(0));
        }
        assert_eq!(w.cwnd, 4 * mss + mss); // leftover 1 MSS from the capped ACK counted
        for _ in 0..5 {
            c.on_ack(&mut w, mss, &ctx(0));
        }
        assert_eq!(w.cwnd, 6 * mss);
    }

    #[test]
    fn loss_halves_flight_and_rto_collapses() {
        let mss = 1000;
        let mut w = Window {
            cwnd: 20 * mss,
            ssthresh: u64::MAX,
            mss,
        };
        let mut c = NewReno::default();
        c.on_loss(&mut w, &ctx(20 * mss));
        assert_eq!((w.cwnd, w.ssthresh), (10 * mss, 10 * mss));
        c.on_loss(&mut w, &ctx(mss));
        assert_eq!(w.ssthresh, 2 * mss);
        c.on_rto(&mut w, &ctx(30 * mss), true);
        assert_eq!((w.cwnd, w.ssthresh), (mss, 15 * mss));
        c.on_rto(&mut w, &ctx(mss), false);
        assert_eq!((w.cwnd, w.ssthresh), (mss, 15 * mss));
    }
}
