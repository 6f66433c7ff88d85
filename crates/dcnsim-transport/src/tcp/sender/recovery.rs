//! Entry into fast recovery (RFC 6582 / RFC 6675 §5 step 4, with PRR, undo and HyStart
//! hooks) and the deemed-lost boundary `lost_end` that every loss detector (DupThresh,
//! RACK, TLT, go-back-N) feeds.

use super::mechanisms::Undo;
use super::{Phase, TcpSender};
use crate::cc::CongestionControl;
use crate::tcp::{RetxCause, Segment};
use dcnsim_engine::Time;

impl TcpSender {
    pub(super) fn enter_fast_recovery(&mut self, now: Time, out: &mut Vec<Segment>) {
        self.stats.fast_retx += 1;
        if self.tlp_end.take().is_some() {
            // RFC 8985 §7.4: the probe's ACK exposed the loss; recovery starts without a
            // timeout.
            self.stats.tlp_recoveries += 1;
        }
        self.pto_deadline = None;
        if self.undo_on {
            self.undo = Some(Undo::new(&self.win, now, false));
        }
        if let Some(h) = &mut self.hystart {
            h.on_congestion();
        }
        if self.prr_on {
            // RFC 6937: prr_delivered = prr_out = 0, RecoverFS = snd.nxt − snd.una.
            self.prr = Some((0, 0, self.snd_nxt - self.snd_una));
        }
        let ctx = self.loss_ctx(now);
        // RFC 6582 §3.2 step 2 / RFC 6675 §5 step 4.2: ssthresh and cwnd from the CC.
        self.cc.on_loss(&mut self.win, &ctx);
        self.win.cwnd = self.win.cwnd.max(self.mss);
        self.phase = Phase::Fast;
        // RFC 6582 §3.2 step 2 / RFC 6675 §5 step 4.1: recover = RecoveryPoint = HighData.
        self.recover = self.snd_nxt;
        // RFC 3168 §6.1.2: a loss reduction also counts as this window's ECN reaction.
        self.cwr_end = self.cwr_end.max(self.snd_nxt);
        self.partial_seen = false;
        let (seq, len) = self.chunk(self.snd_una, self.snd_nxt);
        if self.sack {
            // RFC 6675 §5 step 4.3: retransmit HighACK+1, HighRxt = its last byte.
            self.rxt = seq + len;
            self.fr_lost_floor = seq + len;
        } else {
            // RFC 6582 §3.2 step 3: cwnd = ssthresh + 3·SMSS (DupThresh·SMSS in general).
            self.rxt = self.snd_una;
            self.inflation = self.dupacks.max(1) as u64 * self.mss;
        }
        if len > 0 {
            // (Nothing to resend when every byte above snd_una has been SACKed since.)
            self.emit(now, seq, len, Some(RetxCause::Fast), out);
        }
    }

    /// End (exclusive) of the deemed-lost region.
    pub(super) fn lost_end(&self) -> u64 {
        let mut l = self.snd_una;
        match self.phase {
            Phase::Rto => l = l.max(self.recover),
            Phase::Fast if self.sack => l = l.max(self.fr_lost_floor),
            _ => {}
        }
        if self.rack.is_some() {
            // RFC 8985: RACK's time-based verdict replaces the DupThresh rule.
            if self.phase != Phase::Rto {
                l = l.max(self.rack_lost);
            }
        } else if self.sack {
            if let Some(b) = self.sb.lost_boundary(self.dupthresh, self.mss) {
                l = l.max(b);
            }
        }
        if let Some(t) = &self.tlt {
            // TLT §5.1: first transmissions an Important Echo showed lost (with SACK; as
            // RACK, not during go-back-N, whose boundary is `recover`).
            if self.sack && self.phase != Phase::Rto {
                l = l.max(t.lost);
            }
        }
        l.min(self.snd_nxt)
    }
}
