//! The optional mechanisms of real stacks, as methods of [`TcpSender`] kept apart from the
//! RFC core in `sender.rs` and `sender/{ack,timeout,recovery,send}.rs`: undo of spurious
//! reductions (RFC 3522, RFC 3708, RFC 4015), F-RTO (RFC 5682), RACK (RFC 8985 §6, with
//! `tcp/rack.rs`), the tail-loss probe (RFC 8985 §7), PRR (RFC 6937) and the HyStart hook
//! (`tcp/hystart.rs`). Each is reached only when its key is on (see `TcpSender::on_ack`'s
//! `X` instance, in `sender/ack.rs`).

use super::{Phase, TcpSender};
use crate::cc::{CongestionControl, Window};
use crate::tcp::hystart::{self, HyStart};
use crate::tcp::{Ack, RetxCause, Segment};
use dcnsim_engine::Time;

/// State to restore if the current loss episode proves spurious (Linux `undo_marker`,
/// `prior_cwnd`, `prior_ssthresh`, `retrans_stamp`, `undo_retrans`).
#[derive(Clone, Copy, Debug)]
pub(super) struct Undo {
    pub(super) prior_cwnd: u64,
    pub(super) prior_ssthresh: u64,
    /// Time of the episode's first retransmission: an ACK echoing an older TSval was
    /// triggered by an original transmission (RFC 3522 Eifel detection).
    pub(super) retrans_stamp: Time,
    /// Segments retransmitted in the episode not yet reported by a D-SACK (RFC 3708).
    pub(super) retrans: u64,
    /// Whether the episode retransmitted anything at all.
    pub(super) any_retrans: bool,
    /// The episode began with a timeout (else a fast retransmit).
    pub(super) timeout: bool,
}

impl Undo {
    /// The state before the reductions of an episode starting at `now`.
    pub(super) fn new(win: &Window, now: Time, timeout: bool) -> Self {
        Undo {
            prior_cwnd: win.cwnd,
            prior_ssthresh: win.ssthresh,
            retrans_stamp: now,
            retrans: 0,
            any_retrans: false,
            timeout,
        }
    }
}

impl TcpSender {
    /// Linux `tcp_may_undo`: the episode's retransmissions were all D-SACKed (RFC 3708),
    /// or this ACK advancing snd_una echoes a TSval sent before the first retransmission
    /// (RFC 3522 Eifel detection, Linux `tcp_packet_delayed`).
    #[inline(never)]
    pub(super) fn may_undo(&self, ack: &Ack, advanced: bool) -> bool {
        let Some(u) = self.undo.filter(|_| self.undo_on) else {
            return false;
        };
        // After the recovery has ended only D-SACKs can still prove it spurious (Linux
        // clears retrans_stamp in the Open state).
        (u.any_retrans && u.retrans == 0)
            || (self.phase != Phase::Open
                && advanced
                && self.timestamps
                && ack.tsecr != 0
                && ack.tsecr < u.retrans_stamp)
    }

    /// RFC 4015 response (Linux `tcp_undo_cwnd_reduction`): restore the window the episode
    /// took away and leave recovery.
    pub(super) fn do_undo(&mut self) {
        let Some(u) = self.undo.take() else { return };
        if let Some(r) = &mut self.rack {
            r.clear_relost();
        }
        if let Some(t) = &mut self.tlt {
            t.on_undo(self.snd_una);
        }
        // CC `undo_cwnd` (tcp_reno_undo_cwnd): max(cwnd, prior_cwnd).
        self.win.cwnd = self.win.cwnd.max(u.prior_cwnd);
        if u.prior_ssthresh > self.win.ssthresh {
            self.win.ssthresh = u.prior_ssthresh;
        }
        if u.timeout {
            self.stats.undo_rto += 1;
        } else {
            self.stats.undo_fast += 1;
        }
        if self.phase == Phase::Open {
            // A late D-SACK undo after the recovery ended (Linux tcp_try_undo_dsack in
            // the Open state): only the window comes back.
            return;
        }
        self.phase = Phase::Open;
        self.frto = false;
        self.prr = None;
        self.inflation = 0;
        self.dupacks = 0;
        // The data below is no longer deemed lost; a real loss found later starts a new
        // recovery at once.
        self.recover = self.snd_una;
        self.rack_lost = self.snd_una;
    }

    /// RFC 5682 §3 F-RTO, SACK-enhanced, as Linux `tcp_process_loss` runs it, on an ACK
    /// after a timeout.
    pub(super) fn frto_step(&mut self, advanced: bool, orig_acked: bool, dup_or_sack: bool) {
        if orig_acked {
            // Step 3b: never-retransmitted data was (S)ACKed: the timeout was spurious.
            if self.undo.is_none() {
                self.undo = Some(Undo::new(&self.win, 0, true));
            }
            self.do_undo();
            return;
        }
        if self.snd_nxt > self.recover {
            // Step 3a: new data went out after the timeout and the reply is a duplicate
            // ACK or a SACK: the loss was real.
            if dup_or_sack {
                self.frto = false;
            }
        } else if advanced && self.snd_una < self.recover {
            // Step 2b: send new data instead of retransmitting, if there is any.
            if self.snd_nxt < self.flow && self.snd_nxt + self.mss - self.snd_una <= self.rwnd {
                self.frto_new = true;
            } else {
                self.frto = false;
            }
        }
    }

    /// A D-SACK (RFC 2883): one retransmission fewer to account for (RFC 3708), and RACK's
    /// reordering window widens (RFC 8985 §6.2 step 4).
    #[cold]
    #[inline(never)]
    pub(super) fn on_dsack(&mut self, (ds, de): (u64, u64)) {
        self.stats.dsacks += 1;
        if let Some(u) = &mut self.undo {
            u.retrans = u
                .retrans
                .saturating_sub(de.saturating_sub(ds).div_ceil(self.mss));
        }
        if let Some(r) = &mut self.rack {
            r.on_dsack(self.snd_nxt);
        }
    }

    /// Feeds RACK the parts of `[s, e)` not yet SACKed (newly delivered bytes).
    #[inline(never)]
    pub(super) fn rack_delivered(&mut self, s: u64, e: u64, now: Time, tsecr: Time) {
        let Some(r) = &mut self.rack else { return };
        let mut p = s;
        while p < e {
            let (u, covered) = self.sb.next_uncovered(p);
            if u >= e {
                break;
            }
            let ge = covered.min(e);
            r.on_delivered(u, ge, now, tsecr);
            p = ge;
        }
    }

    /// RFC 8985 §7.4: what this ACK says about the outstanding probe. Returns whether the
    /// window was reduced (a probe retransmission repaired a lost tail).
    #[inline(never)]
    pub(super) fn tlp_outcome(&mut self, now: Time, dsack: Option<(u64, u64)>) -> bool {
        let Some((end, retrans)) = self.tlp_end else {
            return false;
        };
        if retrans && dsack.is_some_and(|(_, de)| de >= end) {
            // The probe was a duplicate: the original arrived, nothing was lost.
            self.tlp_end = None;
        } else if self.snd_una >= end {
            self.tlp_end = None;
            if retrans && self.phase == Phase::Open {
                // §7.4.2: the probe repaired a lost tail; respond as to a loss.
                self.stats.tlp_recoveries += 1;
                let ctx = self.loss_ctx(now);
                self.cc.on_loss(&mut self.win, &ctx);
                self.win.cwnd = self.win.cwnd.max(self.mss);
                self.cwr_end = self.snd_nxt;
                return true;
            }
        }
        false
    }

    /// Slow-start exit (Linux HyStart / RFC 9406 HyStart++) on an ACK: returns the bytes
    /// slow start may grow by.
    #[inline(never)]
    pub(super) fn hystart_step(&mut self, now: Time, acked: u64, rtt: Option<Time>) -> u64 {
        let Some(h) = &mut self.hystart else {
            return acked;
        };
        if acked == 0 || self.phase != Phase::Open || self.win.cwnd >= self.win.ssthresh {
            return acked;
        }
        let v = h.on_ack(
            now,
            rtt,
            self.snd_una,
            self.snd_nxt,
            self.win.cwnd,
            self.rto.srtt(),
        );
        match v {
            hystart::Verdict::Continue => acked,
            hystart::Verdict::Conservative => HyStart::css_share(acked),
            hystart::Verdict::Exit => {
                // Linux hystart_update: snd_ssthresh = snd_cwnd; RFC 9406: enter
                // congestion avoidance.
                self.win.ssthresh = self.win.cwnd.max(2 * self.mss);
                self.stats.hystart_exits += 1;
                acked
            }
        }
    }

    /// Runs RACK loss detection (RFC 8985 §6.2 step 5) and arms its reordering timer.
    #[inline(never)]
    pub(super) fn rack_update(&mut self, now: Time) {
        let Some(r) = &self.rack else { return };
        if self.phase == Phase::Rto {
            self.rack_deadline = None;
            return;
        }
        let from = self.rxt.max(self.snd_una).max(self.rack_lost);
        let srtt = self.rto.srtt().unwrap_or(Time::MAX);
        let reo = r.reo_wnd(
            self.phase == Phase::Fast,
            self.sb.total() / self.mss,
            self.dupthresh,
            srtt,
        );
        let (lost, mut timer) = r.detect_loss(now, from, self.snd_nxt, &self.sb, reo);
        self.rack_lost = lost.max(self.snd_una);
        if self.phase == Phase::Fast && self.rxt > self.snd_una {
            // Retransmissions of this recovery that were lost again (RFC 8985 §6.2 step 5
            // covers every segment, retransmitted or not).
            let (una, rxt) = (self.snd_una, self.rxt);
            let r = self.rack.as_mut().unwrap();
            let skip = self.tlt.as_deref().map(|t| &t.relost);
            if let Some(t2) = r.detect_lost_retransmissions(now, una, rxt, &self.sb, reo, skip) {
                timer = Some(timer.map_or(t2, |t| t.min(t2)));
            }
        }
        self.rack_deadline = timer.map(|t| self.timer_at(now, t - now));
    }

    /// RFC 6937 PRR with the slow-start reduction bound (Linux `tcp_cwnd_reduction`): sets
    /// cwnd so that this ACK may send `sndcnt` bytes.
    #[inline(never)]
    pub(super) fn prr_quota(&mut self, delivered: u64) {
        let Some((mut prr_delivered, prr_out, recover_fs)) = self.prr else {
            return;
        };
        prr_delivered += delivered;
        self.prr = Some((prr_delivered, prr_out, recover_fs));
        // Without SACK the pipe estimate counts the duplicate ACKs as delivered segments.
        let pipe =
            self.bytes_in_flight()
                .saturating_sub(if self.sack { 0 } else { self.inflation });
        let ssthresh = self.win.ssthresh;
        let sndcnt = if pipe > ssthresh {
            // Proportional part: CEIL(prr_delivered · ssthresh / RecoverFS) − prr_out.
            ((prr_delivered as u128 * ssthresh as u128).div_ceil(recover_fs.max(1) as u128) as u64)
                .saturating_sub(prr_out)
        } else {
            // PRR-SSRB: MIN(ssthresh − pipe, MAX(prr_delivered − prr_out, DeliveredData)
            // + MSS).
            let limit = prr_delivered.saturating_sub(prr_out).max(delivered) + self.mss;
            (ssthresh - pipe).min(limit)
        };
        self.win.cwnd = (pipe + sndcnt).max(self.mss);
    }

    /// RFC 8985 §7.2: arm the probe timeout if a probe could help now.
    #[inline(never)]
    pub(super) fn schedule_pto(&mut self, now: Time) {
        self.pto_deadline = None;
        if !self.tlp
            || !self.sack
            || self.halted
            || self.phase != Phase::Open
            || self.tlp_end.is_some()
            || self.snd_una >= self.snd_nxt
        {
            return;
        }
        let mut pto = match self.rto.srtt() {
            Some(s) => (2 * s).max(self.pto_min),
            None => self.rto.rto(), // no RTT sample yet: the initial RTO
        };
        if self.snd_nxt - self.snd_una <= self.mss {
            // §7.2: one segment in flight — allow for the receiver's delayed ACK.
            pto = pto.saturating_add(self.tlp_max_ack_delay);
        } else {
            // Linux tcp_schedule_loss_probe: + TCP_TIMEOUT_MIN (two jiffies) when more
            // than one segment is in flight (`pto_slack`; 0 under RFC 8985).
            pto = pto.saturating_add(self.pto_slack);
        }
        let at = self.timer_at(now, pto);
        // §7.2: a PTO later than the pending RTO is sent at the RTO's time instead of the
        // timeout (Linux tcp_schedule_loss_probe: min(timeout, tcp_rto_delta_us)).
        self.pto_deadline = Some(self.rto_deadline.map_or(at, |r| at.min(r)));
    }

    /// RFC 8985 §7.3: send one probe — new data if the window allows it, else the last
    /// segment again — and re-arm the RTO.
    pub(super) fn send_probe(&mut self, now: Time, out: &mut Vec<Segment>) {
        if self.snd_una >= self.snd_nxt || self.phase != Phase::Open {
            return;
        }
        self.stats.tlp_probes += 1;
        if let Some((seq, len, _)) = self.new_data() {
            if seq + len - self.snd_una <= self.rwnd {
                self.emit(now, seq, len, None, out);
                self.tlp_end = Some((self.snd_nxt, false));
                self.rto_deadline = Some(self.timer_at(now, self.rto.rto()));
                return;
            }
        }
        let last = self.snd_nxt - 1;
        // (snd_una lies inside a segment only after TLT's 1-byte clocking or a bogus ACK.)
        let seq = ((last / self.mss) * self.mss).max(self.snd_una);
        let len = self.snd_nxt - seq;
        self.emit(now, seq, len, Some(RetxCause::Probe), out);
        self.tlp_end = Some((self.snd_nxt, true));
        self.rto_deadline = Some(self.timer_at(now, self.rto.rto()));
    }
}
