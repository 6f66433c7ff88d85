//! The sender's timer expiry (`on_timeout`: tail-loss probe, RACK reordering timer or
//! RFC 6298 retransmission timeout with go-back-N) and the RTT samples that feed the RTO
//! estimator (RFC 7323 timestamps or Karn's rule).

use super::mechanisms::Undo;
use super::{Phase, TcpSender};
use crate::cc::CongestionControl;
use crate::tcp::{Ack, Segment};
use dcnsim_engine::Time;

impl TcpSender {
    /// The sender's timer fired (retransmission timeout, tail-loss probe or RACK
    /// reordering timer, whichever is due). Does nothing if called before the deadline.
    pub fn on_timeout(&mut self, now: Time, out: &mut Vec<Segment>) {
        if self.done() {
            self.rto_deadline = None;
            self.pto_deadline = None;
            self.rack_deadline = None;
            return;
        }
        if self.halted {
            return;
        }
        // The probe is scheduled no later than the RTO and goes first (RFC 8985 §7.2).
        if self.pto_deadline.is_some_and(|d| now >= d) {
            self.pto_deadline = None;
            self.send_probe(now, out);
            return;
        }
        let rto_due = self.rto_deadline.is_some_and(|d| now >= d);
        if !rto_due {
            if self.rack_deadline.is_some_and(|d| now >= d) {
                // RFC 8985 §6.3: the reordering window of a segment has passed.
                self.rack_deadline = None;
                self.rack_update(now);
                if self.phase == Phase::Open
                    && self.rack_lost > self.snd_una
                    && self.snd_una >= self.recover
                {
                    self.enter_fast_recovery(now, out);
                }
                let nxt_before = self.snd_nxt;
                self.try_send(now, out);
                if self.tlp && self.snd_nxt > nxt_before {
                    self.schedule_pto(now);
                }
                return;
            }
            return;
        }
        self.stats.rto_count += 1;
        self.pto_deadline = None;
        self.rack_deadline = None;
        self.tlp_end = None;
        let first = self.consecutive_rtos == 0;
        // RFC 5682 §3 (Linux tcp_enter_loss): F-RTO unless the timeout interrupts a fast
        // recovery on its first expiry.
        self.frto = self.frto_on && self.sack && (self.phase != Phase::Fast || !first);
        if (self.undo_on || self.frto) && (self.undo.is_none() || self.phase == Phase::Open) {
            // Linux tcp_enter_loss → tcp_init_undo: a timeout during a recovery keeps the
            // undo state of that recovery.
            self.undo = Some(Undo::new(&self.win, now, true));
        }
        let ctx = self.loss_ctx(now);
        // RFC 5681 §3.1: ssthresh = max(FlightSize/2, 2·SMSS) (once per episode),
        // cwnd = LW = 1 SMSS. CUBIC: RFC 9438 §4.8.
        self.cc.on_rto(&mut self.win, &ctx, first);
        self.win.cwnd = self.win.cwnd.max(self.mss);
        if let Some(h) = &mut self.hystart {
            h.on_rto();
        }
        if self.consecutive_rtos >= 2 {
            // RFC 2018 §8: the receiver may have reneged (or the SACK info was bogus); after
            // repeated timeouts stop trusting the scoreboard so progress is guaranteed.
            self.sb.clear();
        }
        self.consecutive_rtos = self.consecutive_rtos.saturating_add(1);
        // RFC 6582 §4 / RFC 6675 §5.1: RecoveryPoint = HighData, leave fast recovery.
        self.phase = Phase::Rto;
        self.prr = None;
        if let Some(r) = &mut self.rack {
            r.clear_relost(); // go-back-N resends everything outstanding
        }
        if let Some(t) = &mut self.tlt {
            // [not in the paper] the important packet in flight is presumed lost; the first
            // retransmission is Important Data (see `sender/tlt.rs`).
            t.on_rto(self.snd_una);
        }
        self.recover = self.snd_nxt;
        self.rxt = self.snd_una;
        self.inflation = 0;
        self.dupacks = 0;
        self.cwr_end = self.snd_nxt;
        self.timed = None; // Karn (RFC 6298 §3)
        self.rto.on_timeout(); // RFC 6298 (5.5)
        self.rto_deadline = Some(self.timer_at(now, self.rto.rto())); // RFC 6298 (5.6)
                                                                      // RFC 6298 (5.4): retransmit the earliest unacknowledged segment (cwnd = 1 MSS
                                                                      // and nothing is counted in flight, so exactly that one goes out).
        self.try_send(now, out);
    }

    pub(super) fn sample_rtt(&mut self, now: Time, ack: &Ack) -> Option<Time> {
        let sample = if self.timestamps {
            // RFC 7323 §4.1/§4: RTT = now − TSecr on ACKs that advance snd_una; valid even
            // for retransmissions because TSecr identifies the transmission.
            (ack.tsecr <= now).then(|| now - ack.tsecr)
        } else {
            // RFC 6298 §3 (Karn): only a segment never retransmitted is timed.
            match self.timed {
                Some((end, t)) if self.snd_una >= end => {
                    self.timed = None;
                    Some(now.saturating_sub(t))
                }
                _ => None,
            }
        };
        if let Some(r) = sample {
            self.rto.on_sample(r);
        }
        sample
    }

    /// Seeds the RTT estimator with a measurement taken outside the data transfer (the
    /// SYN / SYN-ACK round trip; the caller applies Karn's rule).
    pub fn seed_rtt(&mut self, r: Time) {
        self.rto.on_sample(r);
    }
}
