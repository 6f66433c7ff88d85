//! The Near-Opt sender (LPF §3; mechanisms §4.12): paced at the rate the oracle
//! (`sim::nearopt`) assigns, retransmitting only segments the simulator knows were lost.
//! It is the sender half of a TCP-family endpoint ([`super::tcp::TcpFlow`]): the receiver is
//! the ordinary TCP receiver (one ACK per segment). See `sim::nearopt` for the oracle.

use super::tcp::SegSender;
use dcnsim_engine::{Time, SEC};
use dcnsim_transport::{Ack, RetxCause, RtoEstimator, Segment, TcpConfig};
use std::collections::VecDeque;

/// Sender state of one Near-Opt flow.
pub struct NearOptSender {
    size: u64,
    mss: u64,
    /// Wire bytes added to each segment's payload (pacing is in wire bytes).
    overhead: u64,
    snd_una: u64,
    snd_nxt: u64,
    /// The receiver's window (bytes): new data never goes beyond `snd_una + rwnd`.
    rwnd: u64,
    /// Current sending rate (wire bytes per second) set by the oracle.
    pub rate: f64,
    /// Earliest time the next segment may leave.
    next_tx: Time,
    /// Time and wire bytes of the last segment sent (re-pacing on a rate update).
    last_tx: Option<(Time, u64)>,
    /// Segments found truly lost, waiting to be resent.
    retx: VecDeque<u64>,
    rto: RtoEstimator,
    timer: Option<Time>,
    pub data_pkts: u64,
    pub rto_count: u64,
}

impl NearOptSender {
    pub fn new(cfg: &TcpConfig, size: u64, overhead: u32) -> Self {
        NearOptSender {
            size,
            mss: cfg.mss as u64,
            overhead: overhead as u64,
            snd_una: 0,
            snd_nxt: 0,
            // As the receiver sizes its window (LPF §3: 1 MB socket buffers).
            rwnd: cfg.rwnd_bytes.max(cfg.mss as u64),
            rate: 0.0,
            next_tx: 0,
            last_tx: None,
            retx: VecDeque::new(),
            rto: RtoEstimator::new(cfg),
            timer: None,
            data_pkts: 0,
            rto_count: 0,
        }
    }

    pub fn done(&self) -> bool {
        self.snd_una >= self.size
    }
    pub fn snd_una(&self) -> u64 {
        self.snd_una
    }
    pub fn inflight(&self) -> u64 {
        self.snd_nxt - self.snd_una
    }
    pub fn srtt(&self) -> Option<Time> {
        self.rto.srtt()
    }
    pub fn rto(&self) -> Time {
        self.rto.rto()
    }
    pub fn rto_deadline(&self) -> Option<Time> {
        self.timer
    }

    /// Sets the oracle's rate and re-paces: the next segment may leave one wire-packet time
    /// at the new rate after the last one (mechanisms §4.12 RI; without this a packet sent at
    /// a tiny rate would hold the flow back long after the rate recovered).
    pub fn set_rate(&mut self, rate: f64) {
        self.rate = rate;
        if rate > 0.0 {
            if let Some((t, wire)) = self.last_tx {
                self.next_tx = t + Self::gap(wire, rate);
            }
        }
    }

    fn gap(wire: u64, rate: f64) -> Time {
        ((wire as f64 * SEC as f64) / rate).ceil() as Time
    }

    /// Whether the sender has something to send (rate permitting).
    fn has_data(&self) -> bool {
        !self.retx.is_empty() || self.new_data_allowed()
    }

    /// Flow control (RFC 9293 §3.8.6 / §3.10.7.4): new data only inside the receiver's
    /// window, `snd_una + rwnd`. The receiver discards bytes beyond it, so a rate-based
    /// sender that ignored it would spend its oracle rate on data that must be sent again
    /// (while one segment's loss waits for the timeout, a 10 Gb/s flow outruns a 1 MB window
    /// in under a millisecond). The oracle knows the receiver's buffer as well as the network.
    fn new_data_allowed(&self) -> bool {
        self.snd_nxt < self.size
            && self.snd_nxt + self.mss.min(self.size - self.snd_nxt) <= self.snd_una + self.rwnd
    }

    /// When the next segment may be sent, if any is pending and the rate is positive.
    pub fn next_send(&self) -> Option<Time> {
        (self.has_data() && self.rate > 0.0).then_some(self.next_tx)
    }

    /// Emits at most one segment if its time has come; returns whether it did.
    pub fn poll(&mut self, now: Time, out: &mut Vec<Segment>) -> bool {
        if self.rate <= 0.0 || now < self.next_tx {
            return false;
        }
        let (seq, retx) = if let Some(s) = self.retx.pop_front() {
            (s, Some(RetxCause::Rto))
        } else if self.new_data_allowed() {
            let s = self.snd_nxt;
            self.snd_nxt = (s + self.mss).min(self.size);
            (s, None)
        } else {
            return false;
        };
        let len = self.mss.min(self.size - seq) as u32;
        out.push(Segment {
            seq,
            len,
            retx,
            ect: false,
            tsval: now,
            mark: dcnsim_transport::TltMark::None,
        });
        self.data_pkts += 1;
        let wire = len as u64 + self.overhead;
        self.next_tx = now + Self::gap(wire, self.rate);
        self.last_tx = Some((now, wire));
        if self.timer.is_none() {
            self.timer = Some(now + self.rto.rto());
        }
        true
    }

    /// Queues `seq` for retransmission (immediate loss information); no-op if queued already.
    /// It goes out at the next pacing slot.
    pub fn requeue(&mut self, seq: u64) {
        if seq >= self.snd_una && seq < self.snd_nxt && !self.retx.contains(&seq) {
            self.retx.push_back(seq);
        }
    }

    /// Cumulative ACK processing: RTT sample from the echoed timestamp, timer restart.
    pub fn on_ack(&mut self, now: Time, ack: &Ack) {
        if ack.ack > self.snd_una && ack.ack <= self.snd_nxt {
            self.snd_una = ack.ack;
            if ack.tsecr > 0 && ack.tsecr <= now {
                self.rto.on_sample(now - ack.tsecr);
            }
            self.retx.retain(|&s| s >= ack.ack);
            self.timer = (self.snd_una < self.snd_nxt).then(|| now + self.rto.rto());
        }
    }

    /// The retransmission timer fired: consult the oracle `lost(seq)` for every outstanding
    /// segment and queue only the truly lost ones (LPF §3, "loss information").
    pub fn on_timeout(&mut self, now: Time, lost: impl Fn(u64) -> bool) {
        self.rto_count += 1;
        let mut s = self.snd_una;
        while s < self.snd_nxt {
            if lost(s) && !self.retx.contains(&s) {
                self.retx.push_back(s);
            }
            s += self.mss;
        }
        if !self.retx.is_empty() {
            self.next_tx = self.next_tx.min(now);
        }
        self.timer = (self.snd_una < self.snd_nxt).then(|| now + self.rto.rto());
    }
}

/// A rate-based sender: the controller sets the rate, the NIC pacer ([`super::Timer::Pace`])
/// releases one segment per slot, and ACKs only move the cumulative point.
impl SegSender for NearOptSender {
    const CONTROLLED: bool = true;
    fn start(&mut self, _now: Time, _out: &mut Vec<Segment>) {}
    #[inline]
    fn on_ack(&mut self, now: Time, ack: &Ack, _out: &mut Vec<Segment>) {
        NearOptSender::on_ack(self, now, ack)
    }
    fn on_timeout(&mut self, now: Time, lost: impl Fn(u64) -> bool, _out: &mut Vec<Segment>) {
        NearOptSender::on_timeout(self, now, lost)
    }
    #[inline]
    fn rto_deadline(&self) -> Option<Time> {
        self.timer
    }
    #[inline]
    fn done(&self) -> bool {
        NearOptSender::done(self)
    }
    #[inline]
    fn snd_una(&self) -> u64 {
        self.snd_una
    }
    /// No window: bytes in flight.
    #[inline]
    fn cwnd(&self) -> u64 {
        self.inflight()
    }
    #[inline]
    fn rto_count(&self) -> u64 {
        self.rto_count
    }
    #[inline]
    fn poll(&mut self, now: Time, out: &mut Vec<Segment>) {
        NearOptSender::poll(self, now, out);
    }
    #[inline]
    fn next_send(&self) -> Option<Time> {
        NearOptSender::next_send(self)
    }
    fn set_rate(&mut self, rate: f64) {
        NearOptSender::set_rate(self, rate)
    }
    fn requeue(&mut self, seq: u64) {
        NearOptSender::requeue(self, seq)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dcnsim_engine::US;

    /// A rate raised from ~0 to R takes effect within one period: the packet sent at the tiny
    /// rate does not hold the flow back once the oracle raises it.
    #[test]
    fn a_raised_rate_takes_effect_within_one_period() {
        let cfg = TcpConfig::default();
        let mut s = NearOptSender::new(&cfg, 1_000_000, 78);
        let mut out = Vec::new();
        s.set_rate(1e3); // ~0: one packet per 1.5 s
        assert!(s.poll(0, &mut out));
        assert!(s.next_send().unwrap() > SEC);
        let period = 25 * US;
        let r = 10e9 / 8.0;
        s.set_rate(r);
        let next = s.next_send().unwrap();
        assert!(next <= period, "next send at {next} ps, period {period} ps");
        // and the flow then runs at R: 10 packets in 10 wire-packet times
        let mut now = next;
        for _ in 0..10 {
            now = now.max(s.next_send().unwrap());
            assert!(s.poll(now, &mut out));
        }
        let gap = NearOptSender::gap(cfg.mss as u64 + 78, r);
        assert!(now <= next + 9 * gap, "{now} vs {}", next + 9 * gap);
        // A lowered rate re-paces later, a zero rate pauses.
        s.set_rate(r / 100.0);
        assert!(s.next_send().unwrap() >= now + 99 * gap);
        s.set_rate(0.0);
        assert_eq!(s.next_send(), None);
    }

    /// Flow control: new data stays inside the receiver's window, however high the rate, and
    /// an ACK that opens the window lets it go on. Without it, a flow whose one lost segment
    /// waits for the timeout keeps sending bytes the receiver must discard (LPF-Fig3c's
    /// data-mining runs resent 10.4 M such packets for 2,416 drops).
    #[test]
    fn new_data_stays_inside_the_receive_window() {
        let cfg = TcpConfig {
            rwnd_bytes: 4 * 1460,
            mss: 1460,
            ..TcpConfig::default()
        };
        let mut s = NearOptSender::new(&cfg, 1_000_000, 78);
        s.set_rate(10e9 / 8.0);
        let mut out = Vec::new();
        let mut now = 0;
        while let Some(t) = s.next_send() {
            now = now.max(t);
            assert!(s.poll(now, &mut out));
            assert!(
                out.len() <= 4,
                "sent {} segments into a 4-segment window",
                out.len()
            );
        }
        assert_eq!(out.len(), 4);
        assert_eq!(s.inflight(), 4 * 1460);
        // A lost first segment found at the timeout still goes out (it is inside the window).
        s.on_timeout(now + SEC, |seq| seq == 0);
        assert!(s.poll(now + SEC, &mut out));
        assert_eq!(out.last().unwrap().seq, 0);
        assert!(s.next_send().is_none());
        // The cumulative ACK of all four opens the window by four segments.
        let ack = Ack {
            ack: 4 * 1460,
            ..Ack::default()
        };
        s.on_ack(now + SEC, &ack);
        let mut n = 0;
        while let Some(t) = s.next_send() {
            assert!(s.poll(t.max(now + SEC), &mut out));
            n += 1;
        }
        assert_eq!(n, 4);
    }
}
