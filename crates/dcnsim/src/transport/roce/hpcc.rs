//! HPCC (Li et al., "HPCC: High Precision Congestion Control", SIGCOMM 2019; mechanisms
//! §4.11): the sending NIC's window and rate from the in-network telemetry (INT) that every
//! switch egress pushes onto a data packet and the receiver echoes in its ACK (mechanisms
//! §2.7; the stamping is `Sim::int_stamp`, the records [`IntHop`]).
//!
//! Per ACK the sender estimates each hop's normalized inflight bytes from the change of its
//! INT since the previous ACK (queue plus transmit rate over the link's BDP), takes the most
//! loaded hop, smooths it over one base RTT T, and sets the window W against the reference
//! window W_c: multiplicative towards the target utilization η, or additive by W_AI; W_c
//! moves only once per RTT (the ACK of a packet sent after the last update). The pacing
//! rate is W / T (HPCC simulator `VAR_WIN 1`: the window in flight is that same W).
//! Comments cite the lines of HPCC's Algorithm 1 (§3.2, "HPCC's sender algorithm").
//!
//! Modelled as the HPCC simulator does with `FAST_REACT 1` (every ACK adjusts W, only the
//! per-RTT one moves W_c) and one U for the whole path (the paper's Algorithm 1; the
//! simulator's `MULTI_RATE` per-hop rates are not modelled). Sans-IO: no timer, no I/O.

use crate::packet::{IntHop, MAX_INT_HOPS};
use dcnsim_engine::{to_secs, Time};

/// HPCC's constants (mechanisms §4.11: HPCC simulator defaults / TLT RoCE reference config).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HpccParams {
    /// η: target utilization (`U_TARGET 0.95`).
    pub eta: f64,
    /// maxStage: additive steps before a multiplicative one (`MI_THRESH 5`).
    pub max_stage: u32,
    /// W_AI as a rate (`RATE_AI`, bits/s): each step adds W_AI = w_ai · T / 8 bytes.
    pub w_ai: f64,
    /// Floor of the rate (`MIN_RATE`, bits/s); the window's floor is min_rate · T / 8.
    pub min_rate: f64,
    /// Switch egress ports that push INT onto a data packet (HPCC simulator
    /// `IntHeader::maxHop` 5); later hops push nothing.
    pub int_hops: u8,
    /// T for every QP (the HPCC simulator uses one network-wide base RTT); `None`: each
    /// QP's own base RTT over its path.
    pub base_rtt: Option<Time>,
}

impl Default for HpccParams {
    fn default() -> Self {
        HpccParams {
            eta: 0.95,
            max_stage: 5,
            w_ai: 50e6,
            min_rate: 100e6,
            int_hops: 5,
            base_rtt: None,
        }
    }
}

/// One QP's HPCC state (Algorithm 1's variables).
#[derive(Clone, Debug)]
pub struct Hpcc {
    p: HpccParams,
    /// T (ps) and its seconds.
    t: Time,
    t_s: f64,
    /// Line rate (bits/s).
    line: f64,
    /// W_init = B_NIC · T (bytes; HPCC §3.2), the window's ceiling; the floor; W_AI (bytes).
    w_init: f64,
    w_min: f64,
    w_ai: f64,
    /// W_c (reference) and W (current), bytes.
    wc: f64,
    w: f64,
    /// U, smoothed normalized inflight (the HPCC simulator starts it at 1).
    u: f64,
    inc_stage: u32,
    /// lastUpdateSeq: the PSN after which an ACK opens the next per-RTT update.
    last_update: u64,
    /// L: the INT of the previous ACK, per hop (`None`: no ACK yet).
    l: [IntHop; MAX_INT_HOPS],
    nl: Option<usize>,
    /// Per-RTT updates (W_c moved) and fast reactions (W only), for tests and traces.
    pub rtt_updates: u64,
    pub fast_updates: u64,
}

impl Hpcc {
    /// A QP at `line` bits/s with base RTT `t`: it starts at W_init = line · T (HPCC §3.2),
    /// that is at line rate.
    pub fn new(p: HpccParams, line: f64, t: Time) -> Self {
        let t = t.max(1);
        let t_s = to_secs(t);
        let bytes = |bps: f64| bps * t_s / 8.0;
        let w_init = bytes(line);
        Hpcc {
            p,
            t,
            t_s,
            line,
            w_init,
            w_min: bytes(p.min_rate).min(w_init),
            w_ai: bytes(p.w_ai),
            wc: w_init,
            w: w_init,
            u: 1.0,
            inc_stage: 0,
            last_update: 0,
            l: [IntHop::default(); MAX_INT_HOPS],
            nl: None,
            rtt_updates: 0,
            fast_updates: 0,
        }
    }
    /// The pacing rate R = W / T (bits/s; Algorithm 1 line 27).
    #[inline]
    pub fn rate(&self) -> f64 {
        if self.w >= self.w_init {
            // Exactly the line rate (no float round-off in the pacer's serialization time).
            return self.line;
        }
        (self.w * 8.0 / self.t_s).min(self.line)
    }
    /// W (bytes).
    #[inline]
    pub fn window(&self) -> f64 {
        self.w
    }
    /// W in packets of `payload` bytes: a new packet may leave while fewer are outstanding
    /// (the HPCC simulator's window test: bytes in flight < W).
    #[inline]
    pub fn window_pkts(&self, payload: u32) -> u64 {
        ((self.w / payload.max(1) as f64).ceil() as u64).max(1)
    }
    pub fn reference_window(&self) -> f64 {
        self.wc
    }
    pub fn utilization(&self) -> f64 {
        self.u
    }
    pub fn inc_stage(&self) -> u32 {
        self.inc_stage
    }
    /// T (ps).
    pub fn base_rtt(&self) -> Time {
        self.t
    }
    pub fn params(&self) -> &HpccParams {
        &self.p
    }
    /// L: the INT the sender holds from the last ACK that carried new records.
    pub fn int(&self) -> &[IntHop] {
        &self.l[..self.nl.unwrap_or(0)]
    }

    /// Algorithm 1, procedure NewAck: an ACK (or NACK) whose cumulative PSN is `ack_psn`
    /// arrived with the INT records `int`, while the next new PSN is `snd_nxt`. Returns
    /// true if W changed.
    pub fn on_ack(&mut self, ack_psn: u64, snd_nxt: u64, int: &[IntHop]) -> bool {
        if int.is_empty() {
            return false;
        }
        let n = int.len().min(MAX_INT_HOPS);
        if self.nl != Some(n) {
            // The first ACK (or a path of another length): nothing to difference against
            // yet; keep L and open the first per-RTT update after what is in flight (the
            // HPCC simulator's first RTT).
            self.l[..n].copy_from_slice(&int[..n]);
            if self.nl.is_none() {
                self.last_update = snd_nxt;
            }
            self.nl = Some(n);
            return false;
        }
        // Lines 22-26: a per-RTT update (W_c moves) once the ACK is for a packet sent after
        // the last one; otherwise only W reacts.
        let update_wc = ack_psn > self.last_update;
        let changed = match self.measure_inflight(&int[..n]) {
            Some(u) => {
                self.compute_wind(u, update_wc);
                true
            }
            None => false,
        };
        if update_wc {
            // Line 24: lastUpdateSeq = snd_nxt.
            self.last_update = snd_nxt;
        }
        changed
    }

    /// Algorithm 1, function MeasureInflight (lines 1-10). `None` if no hop's record is
    /// newer than L's (an ACK echoing INT already used: nothing to measure).
    fn measure_inflight(&mut self, int: &[IntHop]) -> Option<f64> {
        let mut u = 0.0;
        let mut tau: Option<Time> = None;
        for (i, h) in int.iter().enumerate() {
            let prev = self.l[i];
            if h.ts <= prev.ts || h.rate == 0 {
                continue;
            }
            let dt = h.ts - prev.ts;
            let b = h.rate as f64;
            // Line 4: txRate = (ack.L[i].txBytes − L[i].txBytes) / (ack.L[i].ts − L[i].ts).
            let tx_rate = h.tx_bytes.saturating_sub(prev.tx_bytes) as f64 * 8.0 / to_secs(dt);
            // Line 5: u' = min(ack.L[i].qlen, L[i].qlen) / (ack.L[i].B · T) + txRate / B.
            let u1 = h.qlen.min(prev.qlen) as f64 * 8.0 / (b * self.t_s) + tx_rate / b;
            // Lines 6-7: the most loaded hop, and its τ.
            if tau.is_none() || u1 > u {
                u = u1;
                tau = Some(dt);
            }
            // Line 28 (L = ack.L), for the hops that reported something new.
            self.l[i] = *h;
        }
        // Line 8: τ = min(τ, T); line 9: U = (1 − τ/T)·U + τ/T·u.
        let tau = tau?.min(self.t);
        let f = tau as f64 / self.t as f64;
        self.u = (1.0 - f) * self.u + f * u;
        Some(self.u)
    }

    /// Algorithm 1, function ComputeWind (lines 11-20), with the window kept between the
    /// rate floor and W_init (the HPCC simulator clamps the rate to [MIN_RATE, line]).
    fn compute_wind(&mut self, u: f64, update_wc: bool) {
        let eta = self.p.eta;
        let (w, stage) = if u >= eta || self.inc_stage >= self.p.max_stage {
            // Line 13: W = W_c / (U/η) + W_AI; line 15: incStage = 0.
            (self.wc / (u / eta) + self.w_ai, 0)
        } else {
            // Line 17: W = W_c + W_AI; line 19: incStage++.
            (self.wc + self.w_ai, self.inc_stage + 1)
        };
        let w = if w.is_nan() { self.w_init } else { w };
        self.w = w.clamp(self.w_min, self.w_init);
        if update_wc {
            // Lines 14-15 / 18-19: W_c = W once per RTT.
            self.wc = self.w;
            self.inc_stage = stage;
            self.rtt_updates += 1;
        } else {
            self.fast_updates += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dcnsim_engine::US;

    /// 8 Gb/s = 1 byte/ns and T = 10 µs: W_init = 10 000 B; w_ai = 80 Mb/s gives W_AI =
    /// 100 B.
    fn hp() -> Hpcc {
        let p = HpccParams {
            w_ai: 80e6,
            min_rate: 8e6,
            ..HpccParams::default()
        };
        Hpcc::new(p, 8e9, 10 * US)
    }

    fn hop(qlen: u64, tx_bytes: u64, ts: Time) -> IntHop {
        IntHop {
            qlen,
            tx_bytes,
            ts,
            rate: 8_000_000_000,
        }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-6 * b.abs().max(1.0)
    }

    #[test]
    fn window_update_follows_a_hand_computed_trace() {
        let mut h = hp();
        assert!(close(h.window(), 10_000.0));
        assert!(close(h.rate(), 8e9));
        // First ACK: L only, no update; the per-RTT update opens after PSN 10.
        assert!(!h.on_ack(1, 10, &[hop(0, 0, 0)]));
        assert!(close(h.window(), 10_000.0));

        // ACK for PSN 5 (≤ 10: fast reaction, W_c stays). 10 000 B in 10 µs = 8 Gb/s:
        // txRate/B = 1; min(qlen) = min(5000, 0) = 0; τ = 10 µs = T so U = u = 1.0 ≥ η:
        // W = 10 000 / (1.0 / 0.95) + 100 = 9600.
        assert!(h.on_ack(5, 12, &[hop(5000, 10_000, 10 * US)]));
        assert!(close(h.utilization(), 1.0));
        assert!(close(h.window(), 9600.0));
        assert!(close(h.reference_window(), 10_000.0));
        assert!(close(h.rate(), 9600.0 * 8.0 / 10e-6));
        assert_eq!(h.inc_stage(), 0);

        // ACK for PSN 12 > 10: per-RTT update. 5000 B in 5 µs = 8 Gb/s → 1.0; queue term
        // min(2000, 5000) · 8 / (8e9 · 10 µs) = 0.2: u = 1.2; τ = 5 µs: U = 0.5·1 + 0.5·1.2
        // = 1.1. W = W_c = 10 000 · 0.95 / 1.1 + 100.
        assert!(h.on_ack(12, 20, &[hop(2000, 15_000, 15 * US)]));
        assert!(close(h.utilization(), 1.1));
        let mut wc = 10_000.0 * 0.95 / 1.1 + 100.0;
        assert!(close(h.window(), wc));
        assert!(close(h.reference_window(), wc));
        assert_eq!(h.inc_stage(), 0);

        // Idle queue, half the link for 5 µs each: u = 0.5, U halves towards it; U < η:
        // additive increase W_c + W_AI, incStage 1..=5 (one per RTT: each ACK is past the
        // last update's snd_nxt).
        let (mut tx, mut ts, mut u, mut nxt) = (15_000u64, 15 * US, 1.1f64, 20u64);
        for stage in 1..=5 {
            tx += 2500;
            ts += 5 * US;
            u = 0.5 * u + 0.5 * 0.5;
            assert!(h.on_ack(nxt + 1, nxt + 10, &[hop(0, tx, ts)]));
            nxt += 10;
            assert!(u < 0.95);
            wc += 100.0;
            assert!(close(h.utilization(), u), "stage {stage}");
            assert!(close(h.window(), wc), "stage {stage}");
            assert_eq!(h.inc_stage(), stage);
        }
        // incStage = maxStage = 5: the next update is multiplicative although U < η
        // (W = W_c / (U/η) + W_AI grows the window by η/U) and resets the stage.
        tx += 2500;
        ts += 5 * US;
        u = 0.5 * u + 0.5 * 0.5;
        assert!(h.on_ack(nxt + 1, nxt + 10, &[hop(0, tx, ts)]));
        // Here η/U ≈ 1.8 would pass W_init: the window stops at W_init (line rate).
        let mi = wc / (u / 0.95) + 100.0;
        assert!(mi > 10_000.0);
        assert!(close(h.window(), 10_000.0));
        assert!(close(h.reference_window(), 10_000.0));
        assert_eq!(h.inc_stage(), 0);
        assert_eq!(h.rtt_updates, 7);
        assert_eq!(h.fast_updates, 1);
    }

    #[test]
    fn the_most_loaded_hop_and_its_tau_set_u() {
        let mut h = hp();
        h.on_ack(1, 10, &[hop(0, 0, 0), hop(0, 0, 0)]);
        // Hop 0: 2000 B in 4 µs (0.5); hop 1: 4000 B in 4 µs (1.0) plus queue min(8000,
        // 8000)... L's qlen was 0, so the queue term is 0 on both: u = 1.0 from hop 1.
        // τ = 4 µs: U = 0.6·1 + 0.4·1.0 = 1.0.
        h.on_ack(11, 20, &[hop(0, 2000, 4 * US), hop(8000, 4000, 4 * US)]);
        assert!(close(h.utilization(), 1.0));
        // Next: hop 1's queue term min(8000, 8000)·8/(8e9·10µs) = 0.8 plus 1.0 = 1.8 over
        // τ = 2 µs (hop 0 idle: 0.0): U = 0.8·1.0 + 0.2·1.8 = 1.16.
        h.on_ack(21, 30, &[hop(0, 2000, 6 * US), hop(8000, 6000, 6 * US)]);
        assert!(close(h.utilization(), 1.16));
        assert_eq!(h.int()[1], hop(8000, 6000, 6 * US));
    }

    #[test]
    fn a_stale_echo_changes_nothing_and_the_window_stays_in_bounds() {
        let p = HpccParams {
            w_ai: 80e6,
            min_rate: 800e6,
            ..HpccParams::default()
        };
        let mut h = Hpcc::new(p, 8e9, 10 * US);
        h.on_ack(1, 10, &[hop(0, 0, 0)]);
        let w = h.window();
        // Same timestamp as L: nothing new to measure.
        assert!(!h.on_ack(2, 10, &[hop(0, 0, 0)]));
        assert_eq!(h.window(), w);
        // A huge queue drives W towards W_AI, here below the floor min_rate · T = 1000 B:
        // W stops at the floor.
        for i in 1..50u64 {
            h.on_ack(
                10 * i + 1,
                10 * i + 10,
                &[hop(1 << 30, 10_000 * i, i * 10 * US)],
            );
        }
        assert!(close(h.window(), 800e6 * 10e-6 / 8.0));
        assert!(h.window_pkts(1000) >= 1);
    }
}
