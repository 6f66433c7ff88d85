//! ACK processing (`on_ack`, one `ack_impl` instance per setting of the optional
//! mechanisms): the SACK scoreboard, cumulative advance and RTT sample, the recovery state
//! machine (RFC 6582 / RFC 6675), the ECN and delay reactions, window growth, the RFC 6298
//! timer restart, and the send that follows.

use super::{Phase, TcpSender};
use crate::cc::{CongestionControl, OwdSample};
use crate::tcp::{Ack, RetxCause, Segment, TltMark};
use dcnsim_engine::Time;

impl TcpSender {
    /// Processes one ACK and emits whatever the window now allows.
    pub fn on_ack(&mut self, now: Time, ack: &Ack, out: &mut Vec<Segment>) {
        // One instance per setting of the optional mechanisms, so that with all of them
        // off their tests compile away and the common path costs what it did without them.
        if self.extras {
            self.ack_impl::<true>(now, ack, out);
        } else {
            self.ack_impl::<false>(now, ack, out);
        }
    }

    #[inline(always)]
    fn ack_impl<const X: bool>(&mut self, now: Time, ack: &Ack, out: &mut Vec<Segment>) {
        if !self.started || self.done() {
            return;
        }
        // TLT Alg. 1 l.9–13: echo marks; Appendix A drops a duplicate Important Clock Echo.
        if X && ack.mark != TltMark::None && self.tlt.is_some() && self.tlt_on_echo(now, ack, out) {
            return;
        }
        // RFC 9293 §3.10.7.4: an ACK for data not yet sent is ignored; an ACK below
        // snd_una is stale (reordered) and carries nothing we can trust.
        if ack.ack > self.snd_nxt || ack.ack < self.snd_una {
            return;
        }
        if ack.ece {
            self.stats.ecn_echoes += 1;
        }
        let mss = self.mss;
        let old_una = self.snd_una;
        let sacked_before = self.sb.total();

        // RFC 2883 / RFC 3708: a D-SACK reports a segment received twice.
        let dsack = if X && ack.dsack && self.sack {
            ack.dsack_block()
        } else {
            None
        };
        if let Some(d) = dsack {
            self.on_dsack(d);
        }

        // RFC 6675 §5 / RFC 2018 §4: update the scoreboard from the SACK blocks.
        let mut newly_sacked = 0;
        let mut orig_sacked = false;
        if self.sack {
            let blocks = if dsack.is_some() {
                ack.sack_ranges()
            } else {
                ack.sack_blocks()
            };
            for &(s, e) in blocks {
                let s = s.max(ack.ack);
                let e = e.min(self.snd_nxt);
                if s >= e {
                    continue;
                }
                if X && self.rack.is_some() {
                    // RACK needs the newly SACKed ranges themselves, not just their size.
                    self.rack_delivered(s, e, now, ack.tsecr);
                }
                let n = self.sb.insert(s, e);
                // F-RTO's FLAG_ORIG_SACK_ACKED: newly SACKed data above the retransmissions.
                orig_sacked |= n > 0 && e > self.rxt;
                newly_sacked += n;
            }
        }
        let acked = ack.ack - old_una;
        let mut restart_timer = acked > 0;
        let mut rtt = None;
        if acked > 0 {
            if X && self.rack.is_some() {
                // Cumulatively acknowledged bytes not SACKed before.
                self.rack_delivered(old_una, ack.ack, now, ack.tsecr);
            }
            self.snd_una = ack.ack;
            self.sb.remove_below(self.snd_una);
            self.stats.bytes_acked += acked;
            self.consecutive_rtos = 0;
            rtt = self.sample_rtt(now, ack);
        }
        if X && ack.mark != TltMark::None && self.tlt.is_some() {
            // TLT §5.1 / Alg. 1 l.8: loss detection at an Important (Clock) Echo.
            self.tlt_judge();
        }
        if self.halted {
            // LPF §5 (TCP+): while halted, ACKs still advance snd_una and the scoreboard, but
            // congestion control is frozen (no recovery, no growth, no back-off) and the
            // retransmission timer stays paused; nothing is sent. New data acknowledged
            // restarts the paused timer (RFC 6298 (5.3)) for when the sender resumes.
            if acked > 0 {
                self.rto_left = (self.snd_una < self.snd_nxt).then(|| self.rto.rto());
            }
            return;
        }
        let delivered = (acked + self.sb.total()).saturating_sub(sacked_before);
        // RFC 5681 §2 / RFC 6675 §2: a duplicate ACK acknowledges nothing new while data is
        // outstanding; with SACK it must also SACK new data.
        let is_dup = acked == 0 && self.snd_una < self.snd_nxt && (!self.sack || newly_sacked > 0);
        let ece = self.ecn && ack.ece;
        if self.ecn {
            self.cc
                .on_delivered(delivered, ece, self.snd_una, self.snd_nxt);
        }

        // ---- tail-loss probe outcome (RFC 8985 §7.4) ----
        let mut reduced = X && self.tlp_end.is_some() && self.tlp_outcome(now, dsack);

        // ---- undo of a spurious reduction (RFC 3522 / RFC 3708 / RFC 5682) ----
        if X && self.undo.is_some() && self.may_undo(ack, acked > 0) {
            self.do_undo();
        }

        // ---- loss recovery state machine ----
        let mut recovery_ended = false;
        match self.phase {
            Phase::Fast => {
                if self.snd_una >= self.recover {
                    // RFC 6582 §3.2 step 3 (full ACK; option 2: cwnd = ssthresh) and
                    // RFC 6675 §5 step (A): recovery ends when HighACK >= RecoveryPoint;
                    // RFC 6937: cwnd = ssthresh at the end of recovery.
                    self.phase = Phase::Open;
                    self.win.cwnd = self.win.ssthresh.max(mss);
                    self.inflation = 0;
                    self.dupacks = 0;
                    self.prr = None;
                    reduced = true;
                    recovery_ended = true;
                } else if !self.sack {
                    if acked > 0 {
                        // RFC 6582 §3.2 step 5: partial ACK — retransmit the first
                        // unacknowledged segment, deflate by the amount acked, add back one
                        // SMSS if at least one SMSS was acked.
                        let (seq, len) = self.chunk(self.snd_una, self.snd_nxt);
                        self.emit(now, seq, len, Some(RetxCause::Recovery), out);
                        self.inflation = self.inflation.saturating_sub(acked);
                        if acked >= mss {
                            self.inflation += mss;
                        }
                        // "Impatient" variant (RFC 6582 §3.2 step 5, §4): reset the
                        // retransmit timer only for the first partial ACK.
                        restart_timer = !self.partial_seen;
                        self.partial_seen = true;
                    } else if is_dup {
                        // RFC 6582 §3.2 step 4: inflate by one SMSS per further dupack.
                        self.inflation += mss;
                    }
                }
                // With SACK, the send loop below is RFC 6675 §5 step (C).
            }
            Phase::Rto => {
                if X && self.frto {
                    // Acknowledged (cumulatively or by SACK) data never retransmitted.
                    let orig_acked = orig_sacked || self.snd_una > self.rxt.max(old_una);
                    self.frto_step(acked > 0, orig_acked, is_dup || newly_sacked > 0);
                }
                if self.phase == Phase::Rto && self.snd_una >= self.recover {
                    self.phase = Phase::Open;
                    self.frto = false;
                    recovery_ended = true;
                }
                self.dupacks = 0;
            }
            Phase::Open => {}
        }
        if X && !self.sack && self.phase == Phase::Fast {
            // TLT Alg. 1 l.18–22 without SACK: a retransmission of snd_una found lost again
            // is resent at once (mandated, as a NewReno partial-ACK retransmission).
            if let Some((seq, len)) = self.tlt_first_relost() {
                self.emit(now, seq, len, Some(RetxCause::Recovery), out);
            }
        }
        if let (true, Some(r)) = (X, &mut self.rack) {
            r.on_ack(self.snd_una, recovery_ended);
            self.rack_update(now);
        }
        if self.phase == Phase::Open && !reduced {
            if acked > 0 {
                self.dupacks = 0;
            }
            if is_dup {
                self.dupacks = self.dupacks.saturating_add(1);
            }
            // RFC 6582 §3.2 step 1 / RFC 6675 §5.1: no new recovery until snd_una has
            // passed `recover` (set by the previous recovery or RTO). With RACK, a loss
            // it detected starts recovery and the DupThresh count does not (RFC 8985 §6.2;
            // Linux `tcp_time_to_recover`).
            let una_lost = if X && self.rack.is_some() {
                self.rack_lost > self.snd_una
            } else {
                self.sack
                    && self
                        .sb
                        .lost_boundary(self.dupthresh, mss)
                        .is_some_and(|l| l > self.snd_una)
            };
            // TLT §5.1: a loss an Important Echo revealed starts recovery too.
            let una_lost = una_lost || (X && self.tlt_una_lost());
            let dup_trigger = !(X && self.rack.is_some()) && self.dupacks >= self.dupthresh;
            if self.snd_una >= self.recover
                && self.snd_una < self.snd_nxt
                && (dup_trigger || una_lost)
            {
                // RFC 5681 §3.2 / RFC 6675 §5 step 4: DupAcks >= DupThresh or
                // IsLost(HighACK + 1).
                self.enter_fast_recovery(now, out);
                reduced = true;
            }
        }

        // ---- ECN reaction: RFC 3168 §6.1.2 / RFC 8257 §3.3, at most once per window ----
        if ece && !reduced && self.phase != Phase::Fast && self.snd_una >= self.cwr_end {
            let ctx = self.loss_ctx(now);
            self.cc.on_ecn(&mut self.win, &ctx);
            self.cwr_end = self.snd_nxt;
            self.stats.ecn_cuts += 1;
            if let (true, Some(h)) = (X, &mut self.hystart) {
                h.on_congestion();
            }
            reduced = true;
        }

        // RFC 3168 §6.1.2: do not increase cwnd on an ECE ACK (classic ECN only; DCTCP
        // keeps growing, RFC 8257 §3.3 only scales the reduction).
        let ece_blocks_growth = ece && !self.dctcp;

        // ---- delay signal: every ACK's one-way delay (LEDBAT, TCP-LP; no-op otherwise) ----
        let open = !reduced && self.phase != Phase::Fast && !ece_blocks_growth;
        let ctx = self.ctx(now);
        let sample = OwdSample {
            owd: ack.owd,
            acked,
            snd_una: self.snd_una,
            snd_nxt: self.snd_nxt,
        };
        if self.cc.on_owd(&mut self.win, &sample, &ctx, open) {
            reduced = true;
        }

        // ---- slow-start exit (Linux HyStart / RFC 9406 HyStart++) ----
        let grow = if X && self.hystart.is_some() {
            self.hystart_step(now, acked, rtt)
        } else {
            acked
        };

        // ---- window growth ----
        if grow > 0
            && !reduced
            && self.phase != Phase::Fast
            && self.cwnd_limited
            && !ece_blocks_growth
        {
            let ctx = self.ctx(now);
            self.cc.on_ack(&mut self.win, grow, &ctx);
        }
        self.win.cwnd = self.win.cwnd.max(mss);

        // ---- RFC 6937 PRR: the send quota of this ACK during fast recovery ----
        if X && self.prr_on && self.phase == Phase::Fast {
            let dd = if self.sack || acked > 0 {
                delivered
            } else if is_dup {
                mss // RFC 6937 §3: without SACK a duplicate ACK delivered one SMSS
            } else {
                0
            };
            self.prr_quota(dd);
        }
        self.stats.max_cwnd = self.stats.max_cwnd.max(self.win.cwnd);

        // ---- RFC 6298 (5.2)/(5.3) timer management ----
        if self.snd_una >= self.snd_nxt {
            self.rto_deadline = None;
        } else if restart_timer {
            self.rto_deadline = Some(self.timer_at(now, self.rto.rto()));
        }

        let nxt_before = self.snd_nxt;
        self.try_send(now, out);
        if X && self.frto {
            self.frto_new = false;
        }
        // RFC 8985 §7.1: (re)arm the probe timer on an ACK that advances snd_una or after
        // sending new data (never merely because a probe's ACK came back).
        if X && self.tlp && (acked > 0 || self.snd_nxt > nxt_before) {
            self.schedule_pto(now);
        }
        if X {
            // TLT Alg. 1 l.15–16 (erratum: sendState): important ACK-clocking.
            self.tlt_maybe_clock(now, out);
        }
    }
}
