//! The sender's read-only views: timers' deadline, progress, window and RTT state, RFC 6675
//! `pipe` (`bytes_in_flight`, with its general form over the scoreboard), recovery phase
//! and the congestion controller.

use super::{Phase, SenderStats, TcpSender};
use crate::cc::{AnyCc, CongestionControl};
use crate::tcp::rto::RtoEstimator;
use dcnsim_engine::Time;

impl TcpSender {
    pub fn is_halted(&self) -> bool {
        self.halted
    }

    /// When the simulator must call [`Self::on_timeout`] (the earliest of the retransmission,
    /// probe and RACK reordering timers); `None` when nothing is outstanding.
    #[inline]
    pub fn rto_deadline(&self) -> Option<Time> {
        match (self.pto_deadline, self.rack_deadline) {
            (None, None) => self.rto_deadline,
            (p, r) => [self.rto_deadline, p, r].into_iter().flatten().min(),
        }
    }

    /// Every byte cumulatively acknowledged.
    pub fn done(&self) -> bool {
        self.snd_una >= self.flow
    }

    pub fn stats(&self) -> &SenderStats {
        &self.stats
    }

    pub fn cwnd(&self) -> u64 {
        self.win.cwnd
    }
    pub fn ssthresh(&self) -> u64 {
        self.win.ssthresh
    }
    pub fn srtt(&self) -> Option<Time> {
        self.rto.srtt()
    }
    /// The current RTO including backoff.
    pub fn rto(&self) -> Time {
        self.rto.rto()
    }
    pub fn snd_una(&self) -> u64 {
        self.snd_una
    }
    /// One past the highest byte sent so far.
    pub fn snd_nxt(&self) -> u64 {
        self.snd_nxt
    }
    pub fn flow_bytes(&self) -> u64 {
        self.flow
    }
    /// RFC 6675 `pipe` (= FlightSize without SACK outside RTO recovery).
    #[inline]
    pub fn bytes_in_flight(&self) -> u64 {
        let una = self.snd_una;
        let nxt = self.snd_nxt;
        if self.phase == Phase::Open
            && self.sb.is_empty()
            && self.rack.is_none()
            && self.tlt.is_none()
        {
            // The common case, the general formula below with nothing SACKed, nothing deemed
            // lost (`lost_end` is `snd_una` in the open phase with an empty scoreboard)
            // and no RACK/TLT re-loss: FlightSize plus the retransmissions above snd_una.
            let r = if self.sack {
                self.rxt.clamp(una, nxt)
            } else {
                una
            };
            let pipe = (nxt - una) + (r - una);
            debug_assert_eq!(pipe, self.pipe_general());
            return pipe;
        }
        self.pipe_general()
    }

    /// RFC 6675 `pipe` in general (see [`Self::bytes_in_flight`]).
    fn pipe_general(&self) -> u64 {
        let una = self.snd_una;
        let nxt = self.snd_nxt;
        let l = self.lost_end().clamp(una, nxt);
        let r = if self.sack || self.phase == Phase::Rto {
            self.rxt.clamp(una, nxt)
        } else {
            una
        };
        let unsacked = |x: u64| (x - una) - self.sb.covered_below(x);
        // RACK, TLT: retransmissions lost again are no longer in the network.
        let mut relost = match &self.rack {
            Some(k) if self.extras => k.relost_in_pipe(una, r, &self.sb),
            _ => 0,
        };
        if let Some(t) = &self.tlt {
            relost += t.relost_in_pipe(una, r, &self.sb);
        }
        (unsacked(nxt) - unsacked(l) + unsacked(r)).saturating_sub(relost)
    }
    pub fn dctcp_alpha(&self) -> Option<f64> {
        if self.dctcp {
            self.cc.alpha()
        } else {
            None
        }
    }

    // ---- extra read-only views ----

    /// Window allowance above cwnd: RFC 6582 inflation in NewReno fast recovery, RFC 3042
    /// limited transmit (up to 2 SMSS on the first dupacks) without SACK, else 0.
    pub fn recovery_inflation(&self) -> u64 {
        if self.sack {
            return 0;
        }
        match self.phase {
            Phase::Fast => self.inflation,
            Phase::Open if self.dupacks < self.dupthresh => self.dupacks.min(2) as u64 * self.mss,
            _ => 0,
        }
    }
    /// In fast recovery (RFC 6582 / RFC 6675).
    pub fn in_fast_recovery(&self) -> bool {
        self.phase == Phase::Fast
    }
    /// Go-back-N retransmission after a timeout is under way.
    pub fn in_rto_recovery(&self) -> bool {
        self.phase == Phase::Rto
    }
    /// Bytes currently SACKed above `snd_una`.
    pub fn sacked_bytes(&self) -> u64 {
        self.sb.total()
    }
    pub fn cc(&self) -> &AnyCc {
        &self.cc
    }
    pub fn rto_estimator(&self) -> &RtoEstimator {
        &self.rto
    }
}
