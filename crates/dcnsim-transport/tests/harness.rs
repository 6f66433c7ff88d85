//! Virtual-clock harness: one sender, one receiver, a path with fixed one-way delay and
//! optional serialization at a given rate, and scripts deciding, per data transmission
//! (by segment and transmission index), whether it passes, is dropped, delayed or
//! CE-marked, and per ACK whether it is dropped (or how it is rewritten).
//!
//! The harness owns time: it keeps an event heap ordered by (time, insertion order) for
//! packet arrivals and polls the endpoints' deadlines for timers. Network events at a time
//! run before timers due at the same time. After every sender call it checks the sender's
//! invariants against what was just emitted.
//!
//! Included by the other test files with `mod harness;` (this file holds no tests).
#![allow(dead_code)]

use dcnsim_engine::{Rate, Time, TxClock};
use dcnsim_transport::{
    Ack, RetxCause, RxSegment, Segment, TcpConfig, TcpReceiver, TcpSender, TltMark,
};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// What happens to one data transmission.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Verdict {
    Pass,
    Drop,
    Mark,
    /// Extra delay (reordering).
    Delay(Time),
    MarkDelay(Time),
}

#[derive(Clone, Copy, Debug)]
pub struct PathCfg {
    /// One-way propagation delay (both directions).
    pub delay: Time,
    /// Data-direction serialization rate (`None` = instantaneous).
    pub rate: Option<Rate>,
    /// Header bytes added to each data segment on the wire.
    pub hdr_bytes: u32,
}

impl PathCfg {
    pub fn new(delay: Time, rate: Option<Rate>) -> Self {
        PathCfg {
            delay,
            rate,
            hdr_bytes: 0,
        }
    }
}

/// Sender state after each ACK.
#[derive(Clone, Copy, Debug)]
pub struct AckSample {
    pub t: Time,
    pub ack: u64,
    pub ece: bool,
    pub cwnd: u64,
    pub ssthresh: u64,
    pub alpha: Option<f64>,
    pub in_flight: u64,
    pub una: u64,
    pub nxt: u64,
    pub rto: Time,
    pub deadline: Option<Time>,
    pub srtt: Option<Time>,
    pub in_fr: bool,
    pub ecn_cuts: u64,
    /// TLT echo mark of this ACK.
    pub mark: TltMark,
}

enum Ev {
    Data(RxSegment, Time),
    Ack(Ack),
}

pub type DataRule = Box<dyn FnMut(&Segment, u32, Time) -> Verdict>;
pub type AckRule = Box<dyn FnMut(&Ack, Time) -> bool>;
pub type AckEdit = Box<dyn FnMut(&mut Ack)>;

pub struct Harness {
    pub cfg: TcpConfig,
    pub flow: u64,
    pub s: TcpSender,
    pub r: TcpReceiver,
    pub now: Time,
    pub path: PathCfg,
    clock: Option<TxClock>,
    link_free: Time,
    heap: BinaryHeap<Reverse<(Time, u64, usize)>>,
    slab: Vec<Option<Ev>>,
    free: Vec<usize>,
    n: u64,
    tx_count: Vec<u32>,
    /// Decides each data transmission's fate: (segment, transmission index of that
    /// segment, send time).
    pub data_rule: DataRule,
    /// Returns true to drop an ACK.
    pub ack_rule: AckRule,
    /// Rewrites each ACK the receiver emits (before `ack_rule`).
    pub ack_edit: AckEdit,
    pub sent: Vec<(Time, Segment)>,
    pub acks: Vec<AckSample>,
    pub n_acks_sent: u64,
    pub rto_fires: Vec<Time>,
    pub rx_log: Vec<(Time, u64)>,
    pub done_at: Option<Time>,
    pub complete_at: Option<Time>,
    pub check_invariants: bool,
    pub keep_traces: bool,
    started: bool,
    seg_buf: Vec<Segment>,
    ack_buf: Vec<Ack>,
    pub drops: u64,
    probes_seen: std::cell::Cell<u64>,
}

impl Harness {
    pub fn new(cfg: TcpConfig, flow: u64, path: PathCfg) -> Self {
        cfg.validate().expect("valid config");
        let nseg = flow.div_ceil(cfg.mss as u64) as usize + 1;
        Harness {
            s: TcpSender::new(&cfg, flow),
            r: TcpReceiver::new(&cfg, flow),
            cfg,
            flow,
            now: 0,
            path,
            clock: path.rate.map(TxClock::new),
            link_free: 0,
            heap: BinaryHeap::new(),
            slab: Vec::new(),
            free: Vec::new(),
            n: 0,
            tx_count: vec![0; nseg],
            data_rule: Box::new(|_, _, _| Verdict::Pass),
            ack_rule: Box::new(|_, _| false),
            ack_edit: Box::new(|_| {}),
            sent: Vec::new(),
            acks: Vec::new(),
            n_acks_sent: 0,
            rto_fires: Vec::new(),
            rx_log: Vec::new(),
            done_at: None,
            complete_at: None,
            check_invariants: true,
            keep_traces: true,
            started: false,
            seg_buf: Vec::new(),
            ack_buf: Vec::new(),
            drops: 0,
            probes_seen: Default::default(),
        }
    }

    /// Drops the given (segment index, transmission index) pairs.
    pub fn drop_list(mut self, list: &[(u64, u32)]) -> Self {
        let mss = self.cfg.mss as u64;
        let list = list.to_vec();
        self.data_rule = Box::new(move |s, k, _| {
            if list.contains(&(s.seq / mss, k)) {
                Verdict::Drop
            } else {
                Verdict::Pass
            }
        });
        self
    }

    pub fn with_rule(mut self, f: impl FnMut(&Segment, u32, Time) -> Verdict + 'static) -> Self {
        self.data_rule = Box::new(f);
        self
    }

    fn push(&mut self, t: Time, ev: Ev) {
        let idx = match self.free.pop() {
            Some(i) => {
                self.slab[i] = Some(ev);
                i
            }
            None => {
                self.slab.push(Some(ev));
                self.slab.len() - 1
            }
        };
        self.n += 1;
        self.heap.push(Reverse((t, self.n, idx)));
    }

    /// Checks the sender's invariants after a call that emitted `self.seg_buf`.
    fn check(&self, nxt_before: u64) {
        if !self.check_invariants {
            return;
        }
        let s = &self.s;
        let mss = self.cfg.mss as u64;
        assert!(s.cwnd() >= mss, "cwnd {} < mss", s.cwnd());
        assert!(s.snd_una() <= s.snd_nxt() && s.snd_nxt() <= self.flow);
        assert!(
            s.snd_nxt() - s.snd_una() <= self.cfg.rwnd_bytes,
            "beyond rwnd"
        );
        let fl = s.bytes_in_flight();
        // A TLT clock segment (<= 1 MSS) may be counted on top of a full window.
        let tlt = self.cfg.tlt.is_some();
        let clock_allowance = if tlt { mss } else { 0 };
        assert!(
            fl <= self.cfg.rwnd_bytes + clock_allowance,
            "in flight {fl} > rwnd"
        );
        // Fast retransmits and NewReno partial-ACK retransmissions are mandated regardless
        // of the window and are emitted before the send loop; everything else is window-
        // checked, so if any such segment went out, the window held after it.
        // TLT important ACK-clocking sends one segment regardless of the window.
        let exempt = |g: &Segment| {
            g.retx == Some(RetxCause::Fast)
                || (!self.cfg.sack && g.retx == Some(RetxCause::Recovery))
                || g.mark == TltMark::ImportantClock
        };
        // A tail-loss probe goes out whatever cwnd says (RFC 8985 §7.3).
        let probed = s.stats().tlp_probes > self.probes_seen.replace(s.stats().tlp_probes);
        if !probed && self.seg_buf.iter().any(|g| !exempt(g)) {
            assert!(
                fl <= s.cwnd() + s.recovery_inflation(),
                "in flight {fl} > cwnd {} + allowance {}",
                s.cwnd(),
                s.recovery_inflation()
            );
        }
        for g in &self.seg_buf {
            assert!(g.len > 0);
            if tlt {
                // TLT's 1-byte clocking may move snd_una inside a segment: segments start
                // anywhere but never cross an MSS boundary.
                assert!(
                    g.seq / mss == (g.seq + g.len as u64 - 1) / mss,
                    "segment crosses an MSS boundary {g:?}"
                );
                assert!(g.seq + g.len as u64 <= self.flow);
            } else {
                assert!(g.seq % mss == 0, "unaligned segment {g:?}");
                assert!(
                    g.len as u64 == mss || g.seq + g.len as u64 == self.flow,
                    "short segment {g:?}"
                );
                assert_eq!(g.mark, TltMark::None);
            }
            if g.retx.is_some() {
                assert!(g.seq < nxt_before, "retransmission of unsent data {g:?}");
            }
            assert!(
                g.ect
                    == (self.cfg.ecn
                        && (g.retx.is_none() || self.cfg.cc == dcnsim_transport::CcKind::Dctcp))
            );
        }
    }

    /// Sends out whatever the sender just emitted.
    fn transmit(&mut self) {
        let segs = std::mem::take(&mut self.seg_buf);
        for g in &segs {
            let i = (g.seq / self.cfg.mss as u64) as usize;
            let k = self.tx_count[i];
            self.tx_count[i] += 1;
            if self.keep_traces {
                self.sent.push((self.now, *g));
            }
            let verdict = (self.data_rule)(g, k, self.now);
            let depart = match &self.clock {
                Some(c) => {
                    let start = self.link_free.max(self.now);
                    let d = start + c.tx_time(g.len as u64 + self.path.hdr_bytes as u64);
                    self.link_free = d;
                    d
                }
                None => self.now,
            };
            let mut arrive = depart + self.path.delay;
            let mut ce = false;
            match verdict {
                Verdict::Pass => {}
                Verdict::Drop => {
                    self.drops += 1;
                    continue;
                }
                Verdict::Mark => ce = true,
                Verdict::Delay(x) => arrive += x,
                Verdict::MarkDelay(x) => {
                    ce = true;
                    arrive += x
                }
            }
            let rx = RxSegment {
                seq: g.seq,
                len: g.len,
                ce,
                tsval: g.tsval,
                mark: g.mark,
            };
            self.push(arrive, Ev::Data(rx, arrive - g.tsval));
        }
        self.seg_buf = segs;
        self.seg_buf.clear();
    }

    fn deliver_acks(&mut self) {
        let mut acks = std::mem::take(&mut self.ack_buf);
        for a in &mut acks {
            self.n_acks_sent += 1;
            (self.ack_edit)(a);
            if (self.ack_rule)(a, self.now) {
                continue;
            }
            self.push(self.now + self.path.delay, Ev::Ack(*a));
        }
        self.ack_buf = acks;
        self.ack_buf.clear();
    }

    pub fn start(&mut self) {
        if self.started {
            return;
        }
        self.started = true;
        let mut out = std::mem::take(&mut self.seg_buf);
        self.s.start(self.now, &mut out);
        self.seg_buf = out;
        self.check(0);
        self.transmit();
    }

    /// Next time anything happens.
    pub fn next_time(&self) -> Option<Time> {
        let te = self.heap.peek().map(|Reverse((t, _, _))| *t);
        [te, self.s.rto_deadline(), self.r.delack_deadline()]
            .into_iter()
            .flatten()
            .min()
    }

    /// Processes one event; false if nothing is left to do.
    pub fn step(&mut self) -> bool {
        let Some(t) = self.next_time() else {
            return false;
        };
        assert!(t >= self.now, "time went backwards");
        self.now = t;
        let te = self.heap.peek().map(|Reverse((t, _, _))| *t);
        if te == Some(t) {
            let Reverse((_, _, idx)) = self.heap.pop().unwrap();
            let ev = self.slab[idx].take().unwrap();
            self.free.push(idx);
            match ev {
                Ev::Data(seg, owd) => {
                    let mut out = std::mem::take(&mut self.ack_buf);
                    self.r.on_segment(t, &seg, owd, &mut out);
                    self.ack_buf = out;
                    if self.keep_traces {
                        self.rx_log.push((t, self.r.rcv_nxt()));
                    }
                    if self.r.complete() && self.complete_at.is_none() {
                        self.complete_at = Some(t);
                    }
                    self.deliver_acks();
                }
                Ev::Ack(a) => {
                    let nxt = self.s.snd_nxt();
                    let mut out = std::mem::take(&mut self.seg_buf);
                    self.s.on_ack(t, &a, &mut out);
                    self.seg_buf = out;
                    self.check(nxt);
                    if self.keep_traces {
                        self.acks.push(self.sample(t, &a));
                    }
                    if self.s.done() && self.done_at.is_none() {
                        self.done_at = Some(t);
                    }
                    self.transmit();
                }
            }
        } else if self.s.rto_deadline() == Some(t) {
            self.rto_fires.push(t);
            let nxt = self.s.snd_nxt();
            let mut out = std::mem::take(&mut self.seg_buf);
            self.s.on_timeout(t, &mut out);
            self.seg_buf = out;
            self.check(nxt);
            self.transmit();
        } else {
            let mut out = std::mem::take(&mut self.ack_buf);
            self.r.on_delack_timeout(t, &mut out);
            self.ack_buf = out;
            self.deliver_acks();
        }
        true
    }

    /// Calls both timer handlers *before* their deadlines; they must do nothing.
    pub fn poke_timers_early(&mut self) {
        let mut out = std::mem::take(&mut self.seg_buf);
        if self.s.rto_deadline().is_none_or(|d| d > self.now) {
            self.s.on_timeout(self.now, &mut out);
            assert!(out.is_empty(), "early on_timeout emitted");
        }
        self.seg_buf = out;
        let mut acks = std::mem::take(&mut self.ack_buf);
        if self.r.delack_deadline().is_none_or(|d| d > self.now) {
            self.r.on_delack_timeout(self.now, &mut acks);
            assert!(acks.is_empty(), "early delack timeout emitted");
        }
        self.ack_buf = acks;
    }

    fn sample(&self, t: Time, a: &Ack) -> AckSample {
        let s = &self.s;
        AckSample {
            t,
            ack: a.ack,
            ece: a.ece,
            cwnd: s.cwnd(),
            ssthresh: s.ssthresh(),
            alpha: s.dctcp_alpha(),
            in_flight: s.bytes_in_flight(),
            una: s.snd_una(),
            nxt: s.snd_nxt(),
            rto: s.rto(),
            deadline: s.rto_deadline(),
            srtt: s.srtt(),
            in_fr: s.in_fast_recovery(),
            ecn_cuts: s.stats().ecn_cuts,
            mark: a.mark,
        }
    }

    /// Runs until the sender is done or `t_max` passes; returns whether it finished.
    pub fn run(&mut self, t_max: Time) -> bool {
        self.start();
        while !self.s.done() {
            match self.next_time() {
                Some(t) if t <= t_max => {
                    self.step();
                }
                _ => break,
            }
        }
        // Drain in-flight packets so the receiver sees everything that was sent.
        self.s.done()
    }

    /// Retransmissions as (time, segment).
    pub fn retx(&self) -> Vec<(Time, Segment)> {
        self.sent
            .iter()
            .filter(|(_, g)| g.retx.is_some())
            .copied()
            .collect()
    }

    /// Receiver goodput (payload bits/s) between `t0` and the receiver's completion.
    pub fn goodput_after(&self, t0: Time) -> f64 {
        let (t1, b1) = *self.rx_log.last().unwrap();
        let b0 = self
            .rx_log
            .iter()
            .take_while(|(t, _)| *t <= t0)
            .last()
            .map_or(0, |x| x.1);
        let t0 = self
            .rx_log
            .iter()
            .take_while(|(t, _)| *t <= t0)
            .last()
            .map_or(0, |x| x.0);
        (b1 - b0) as f64 * 8.0 / dcnsim_engine::to_secs(t1 - t0)
    }
}
