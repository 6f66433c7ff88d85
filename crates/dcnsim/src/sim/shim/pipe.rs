//! A pipe's mechanics: its creation and its start (C3 `start`, spec §5.3.3), the token
//! bucket that paces its releases at max(R_w, R_G), and the DRR between its two weighted
//! sub-queues (C3 §3.3 / spec §5.3.6).

use super::{Law, Pipe, PipeStats, Shim, TICK};
use crate::packet::{PktList, NIL};
use crate::scheme::c3::{self, C3Start, Objective};
use crate::transport::NEVER;
use dcnsim_engine::{Time, SEC};

impl Shim {
    pub(super) fn pipe_for(&mut self, src: u32, dst: u32, o: Objective) -> u32 {
        let key = match self.law {
            Law::Es(_) => (src, dst, 0),
            Law::C3(_) => (src, dst, o as u8),
        };
        if let Some(&p) = self.index.get(&key) {
            return p;
        }
        let p = self.pipes.len() as u32;
        assert!(p < TICK, "too many shim pipes");
        let bucket = match (&self.law, o) {
            (Law::C3(c), Objective::Ls) => c.ls_bucket,
            _ => self.bucket,
        };
        self.index.insert(key, p);
        self.host_pipes[src as usize].push(p);
        self.pipes.push(Pipe {
            src,
            dst,
            objective: o,
            q: [PktList::default(); 2],
            deficit: [0.0; 2],
            cur: 0,
            high: NIL,
            // Initial R_w (spec §5.3.3 CHOICE between R_G and line / pipes): `start =
            // "guarantee"` (default) leaves 0 here, so `derive` raises it to R_G when the
            // first flow joins; the pipe then grows by Eq. 1 only while the path is
            // uncongested, instead of flooding it for a control interval (line / pipes let
            // a PS burst drop packets of an established DS pipe for the 5 ms before the
            // first feedback). `start = "share"`: `start_pipe` sets line / busy pipes.
            r_w: 0.0,
            r_g: 0.0,
            weight: 0.0,
            alpha: 1.0,
            debt: 0.0,
            t_last: 0,
            slack: (bucket.saturating_sub(1) as f64) * self.mtu as f64,
            wake: NEVER,
            rx_pkts: 0,
            rx_marked: 0,
            tx_bytes: 0,
            last_sent_bps: 0.0,
            flows: Vec::new(),
            stats: PipeStats::default(),
            raw: 0.0,
            entropy: dcnsim_engine::rng::mix64(&[0xC3, src as u64, dst as u64, o as u64]) as u32,
            path: Vec::new(),
        });
        p
    }

    /// Whether pipe `p` is busy: an active flow, or packets in its queue.
    fn busy(&self, p: u32) -> bool {
        let pp = &self.pipes[p as usize];
        !(pp.flows.is_empty() && pp.q[0].is_empty() && pp.q[1].is_empty())
    }

    /// A flow is about to join pipe `p` (an arrival, or a demotion to BE). If the pipe is
    /// idle this is its start (a creation or a return from idle), and with C3's `start =
    /// "share"` its R_w becomes the source host's line rate over the host's busy pipes,
    /// this one included (spec §5.3.3 CHOICE "line-rate/num pipes"; `c3::share_start`).
    /// The host's other pipes keep their R_w [CHOICE: the spec's rule sets only the
    /// initial rate; Eq. 2 cuts them at the next marked interval if the sum overloads the
    /// path]; α keeps its value. `derive` then floors R_w at the new R_G (LS: R_w = R_G).
    /// With `start = "guarantee"` nothing happens here: a created pipe starts at R_G, a
    /// returning one from the R_w it had.
    pub(super) fn start_pipe(&mut self, p: u32, now: Time) {
        if !matches!(&self.law, Law::C3(c) if c.start == C3Start::Share) || self.busy(p) {
            return;
        }
        let src = self.pipes[p as usize].src as usize;
        let others = self.host_pipes[src]
            .iter()
            .filter(|&&q| q != p && self.busy(q))
            .count();
        // The bucket's debt is settled at the old rate before the rate changes.
        self.settle(p as usize, now);
        let pp = &mut self.pipes[p as usize];
        pp.r_w = c3::share_start(self.line[src], others + 1, 0.0);
    }

    /// The time the pipe's head may leave (≤ now: at once).
    pub(super) fn ready_at(&self, p: usize, now: Time) -> Time {
        let pp = &self.pipes[p];
        let rate = pp.r_w.max(pp.r_g).max(1.0) / 8.0; // bytes/s
        let debt = (pp.debt - rate * (now - pp.t_last) as f64 / SEC as f64).max(0.0);
        if debt <= pp.slack {
            return now;
        }
        now + (((debt - pp.slack) / rate) * SEC as f64).ceil() as Time
    }

    /// Charges `wire` bytes to the pipe's bucket at `now`.
    pub(super) fn charge(&mut self, p: usize, now: Time, wire: u32) {
        let pp = &mut self.pipes[p];
        let rate = pp.r_w.max(pp.r_g).max(1.0) / 8.0;
        let debt = (pp.debt - rate * (now - pp.t_last) as f64 / SEC as f64).max(0.0);
        pp.debt = debt + wire as f64;
        pp.t_last = now;
        pp.tx_bytes += wire as u64;
        pp.stats.tx_bytes += wire as u64;
        pp.stats.tx_pkts += 1;
    }

    /// Settles the bucket at the old rate before the rate changes.
    pub(super) fn settle(&mut self, p: usize, now: Time) {
        let pp = &mut self.pipes[p];
        let rate = pp.r_w.max(pp.r_g).max(1.0) / 8.0;
        pp.debt = (pp.debt - rate * (now - pp.t_last) as f64 / SEC as f64).max(0.0);
        pp.t_last = now;
    }

    /// DRR between the two sub-queues (95 : 5 by default): the sub-queue to serve next.
    pub(super) fn pick(&mut self, p: usize, arena: &crate::packet::Arena) -> Option<usize> {
        let high_share = match &self.law {
            Law::C3(c) => c.high_share,
            Law::Es(_) => 1.0,
        };
        let pp = &mut self.pipes[p];
        match (pp.q[0].is_empty(), pp.q[1].is_empty()) {
            (true, true) => None,
            (false, true) => Some(0),
            (true, false) => Some(1),
            (false, false) => {
                // Quanta in the ratio high : low over a round of 20 MTUs.
                let round = 20.0 * self.mtu as f64;
                let quantum = [high_share * round, (1.0 - high_share) * round];
                loop {
                    let i = pp.cur;
                    let head = arena.get(pp.q[i].head).wire as f64;
                    if pp.deficit[i] >= head {
                        return Some(i);
                    }
                    pp.cur ^= 1;
                    let j = pp.cur;
                    pp.deficit[j] += quantum[j];
                }
            }
        }
    }
}
