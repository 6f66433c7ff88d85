//! Incast: `fan_in` senders start a flow each to one receiver at the same instant, once
//! or in repeated rounds (periodic on-off incast, e.g. parameter-server gradient updates,
//! LPF §5.1.3: "8 workers → 1 parameter server ... updates are synchronized").
//!
//! # Rounds
//! * `period = None, load = None`: one round at `start` (`stop` is not used).
//! * `period = Some(P)`: rounds at `start + k·P` for every `k >= 0` with the round start
//!   `< stop`.
//! * `load = Some(l)`: Poisson rounds in `(start, stop)` with mean gap
//!   `fan_in × E[bytes_per_sender] × 8 / (l × R)`, where `R` is the receiver's link rate
//!   (for a random receiver, the mean host link rate), so the receiver's link carries `l`
//!   on average.
//!
//! For a fixed period the LPF definition is `load = aggregate bytes × 8 / P / link rate`;
//! [`IncastSpec::on_off_at_load`] turns a load into that period.
//!
//! # Each round
//! The receiver is `receiver`, or uniform over all hosts per round. The senders are
//! `fan_in` distinct hosts drawn uniformly from the eligible ones: the `senders` list (or
//! every host), minus the receiver, minus the receiver's rack if `exclude_receiver_rack`.
//! If exactly `fan_in` hosts are eligible they all send. Senders are listed in ascending
//! order; each draws its own size from `bytes_per_sender` and starts at the round start
//! plus a uniform offset in `[0, jitter)` ps (0 = synchronized). With `flows_per_sender =
//! m > 1` each sender opens `m` flows (separate connections) to the receiver per round, each
//! with its own size draw and start offset (TLT §7.1: "95 senders ... Each sender creates 8
//! flows of 8 kB"). Every flow carries `tag = round number`, counted from 1 (tag 0 stays
//! "no group").

use dcnsim_engine::{Rng, Time, SEC};

use crate::arrivals::check_load;
use crate::error::{err, WorkloadError};
use crate::pattern::{check_host_list, rack_groups};
use crate::{rng_purpose, FlowSpec, Hosts, SizeDist, MAX_FLOWS};

/// An incast or periodic on-off incast workload (see the module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct IncastSpec {
    /// The receiver; `None` = uniform over all hosts, drawn per round.
    pub receiver: Option<u32>,
    /// The candidate senders; `None` = every host.
    pub senders: Option<Vec<u32>>,
    /// Senders per round (>= 1).
    pub fan_in: u32,
    /// Bytes each flow of a sender carries per round (one flow per sender unless
    /// `flows_per_sender > 1`).
    pub bytes_per_sender: SizeDist,
    /// Flows (connections) each sender opens per round (>= 1).
    pub flows_per_sender: u32,
    /// First round (one-shot and periodic) or start of the Poisson round process.
    pub start: Time,
    /// Rounds every `period` until `stop`; `None` = one round (unless `load` is set).
    pub period: Option<Time>,
    /// Poisson rounds at this fraction of the receiver's link (alternative to `period`).
    pub load: Option<f64>,
    /// No round starts at or after `stop` (periodic and Poisson rounds).
    pub stop: Time,
    /// Each sender starts uniformly in `[round start, round start + jitter)`.
    pub jitter: Time,
    pub class: u16,
    /// Exclude the receiver's rack mates from the senders.
    pub exclude_receiver_rack: bool,
}

impl IncastSpec {
    /// A single `fan_in → 1` incast to `receiver` at `start`, senders drawn from all hosts.
    pub fn one_shot(receiver: u32, fan_in: u32, bytes_per_sender: u64, start: Time) -> Self {
        IncastSpec {
            receiver: Some(receiver),
            senders: None,
            fan_in,
            bytes_per_sender: SizeDist::Fixed(bytes_per_sender),
            flows_per_sender: 1,
            start,
            period: None,
            load: None,
            stop: start,
            jitter: 0,
            class: 0,
            exclude_receiver_rack: false,
        }
    }

    /// LPF §5.1.3 on-off incast: every worker sends `ceil(aggregate_bytes / workers)`
    /// bytes to the parameter server `ps` every `period`, all at the same instant, from
    /// `start` until `stop`. "8:1, 4 MB aggregate" is
    /// `on_off(ps, workers_8, 4_000_000, period, start, stop)` (500 kB per worker).
    pub fn on_off(
        ps: u32,
        workers: Vec<u32>,
        aggregate_bytes: u64,
        period: Time,
        start: Time,
        stop: Time,
    ) -> Self {
        let n = workers.len() as u64;
        let per_worker = if n == 0 {
            aggregate_bytes
        } else {
            aggregate_bytes.div_ceil(n)
        };
        IncastSpec {
            receiver: Some(ps),
            fan_in: workers.len().min(u32::MAX as usize) as u32,
            senders: Some(workers),
            bytes_per_sender: SizeDist::Fixed(per_worker),
            flows_per_sender: 1,
            start,
            period: Some(period),
            load: None,
            stop,
            jitter: 0,
            class: 0,
            exclude_receiver_rack: false,
        }
    }

    /// [`IncastSpec::on_off`] with the period that gives `load` of the parameter server's
    /// link `ps_link_bps` (LPF: `load = aggregate × 8 / P / link rate`, with the aggregate
    /// actually sent, `workers × ceil(aggregate / workers)`). Errors name `load`,
    /// `aggregate_bytes` or `ps_link_bps`.
    pub fn on_off_at_load(
        ps: u32,
        workers: Vec<u32>,
        aggregate_bytes: u64,
        load: f64,
        ps_link_bps: u64,
        start: Time,
        stop: Time,
    ) -> Result<Self, WorkloadError> {
        let mut spec = IncastSpec::on_off(ps, workers, aggregate_bytes, 1, start, stop);
        let sent = spec.fan_in as u64 * spec.bytes_per_sender.mean() as u64;
        spec.period = Some(IncastSpec::period_for_load(sent, load, ps_link_bps)?);
        Ok(spec)
    }

    /// The period `P = aggregate_bytes × 8 / (load × link_bps)` in ps (rounded, >= 1).
    pub fn period_for_load(
        aggregate_bytes: u64,
        load: f64,
        link_bps: u64,
    ) -> Result<Time, WorkloadError> {
        check_load(load, "load")?;
        if aggregate_bytes == 0 {
            return err(
                "aggregate_bytes",
                "expected an update size >= 1 byte, got 0",
            );
        }
        if link_bps == 0 {
            return err(
                "ps_link_bps",
                "expected a link rate > 0 bits per second, got 0",
            );
        }
        let p = aggregate_bytes as f64 * 8.0 * SEC as f64 / (load * link_bps as f64);
        Ok((p.round() as Time).max(1))
    }
}

/// Generates the incast flows of `spec`, sorted by start (ties in round then sender
/// order). Errors name keys relative to the spec (`"fan_in"`, `"receiver"`,
/// `"senders[2]"`, `"period"`, ...).
pub fn incast(
    spec: &IncastSpec,
    hosts: &Hosts,
    rng_master: u64,
    stream_index: u64,
) -> Result<Vec<FlowSpec>, WorkloadError> {
    hosts.validate()?;
    spec.bytes_per_sender.validate("bytes_per_sender")?;
    if let Some(r) = spec.receiver {
        if r >= hosts.n {
            return err(
                "receiver",
                format!("expected a host index < {}, got {r}", hosts.n),
            );
        }
    }
    if let Some(s) = &spec.senders {
        check_host_list(s, hosts.n, "senders")?;
    }
    if spec.fan_in == 0 {
        return err("fan_in", "expected at least 1 sender, got 0");
    }
    if spec.flows_per_sender == 0 {
        return err(
            "flows_per_sender",
            "expected at least 1 flow per sender, got 0",
        );
    }
    if spec.period.is_some() && spec.load.is_some() {
        return err("load", "expected at most one of period and load, got both");
    }
    if spec.period == Some(0) {
        return err("period", "expected a period > 0 ps, got 0");
    }
    if let Some(l) = spec.load {
        check_load(l, "load")?;
    }
    let repeated = spec.period.is_some() || spec.load.is_some();
    if repeated && spec.stop <= spec.start {
        return err(
            "stop",
            format!(
                "expected stop > start = {} ps, got {}",
                spec.start, spec.stop
            ),
        );
    }

    // Eligible senders per receiver: pool − receiver (− receiver's rack).
    let n = hosts.n as usize;
    let pool: Vec<u32> = spec
        .senders
        .clone()
        .unwrap_or_else(|| (0..hosts.n).collect());
    let (_, off, group_of) = rack_groups(hosts);
    let mut in_pool = vec![false; n];
    let mut pool_in_group = vec![0usize; off.len() - 1];
    for &h in &pool {
        in_pool[h as usize] = true;
        pool_in_group[group_of[h as usize]] += 1;
    }
    let eligible_count = |r: u32| {
        if spec.exclude_receiver_rack {
            pool.len() - pool_in_group[group_of[r as usize]]
        } else {
            pool.len() - in_pool[r as usize] as usize
        }
    };
    let receivers: Vec<u32> = match spec.receiver {
        Some(r) => vec![r],
        None => (0..hosts.n).collect(),
    };
    if let Some(&worst) = receivers.iter().min_by_key(|&&r| eligible_count(r)) {
        let avail = eligible_count(worst);
        if (spec.fan_in as usize) > avail {
            let what = match (spec.senders.is_some(), spec.exclude_receiver_rack) {
                (false, false) => "all hosts",
                (true, false) => "the senders list",
                (false, true) => "all hosts outside the receiver's rack",
                (true, true) => "the senders list outside the receiver's rack",
            };
            let who = if spec.receiver.is_some() {
                ""
            } else {
                " (the worst case of a random receiver)"
            };
            return err(
                "fan_in",
                format!(
                    "expected at most {avail} senders ({what}, without the receiver, for \
                     receiver {worst}{who}), got {}",
                    spec.fan_in
                ),
            );
        }
    }

    // Round start times.
    let per = spec.flows_per_sender as u64;
    // Flows per round: what the flow-count cap is checked against.
    let fan_in = spec.fan_in as u64 * per;
    let round_bytes = fan_in as f64 * spec.bytes_per_sender.mean();
    let rounds: Vec<Time> = if let Some(p) = spec.period {
        let count = (spec.stop - spec.start).div_ceil(p);
        check_count(count as f64, fan_in)?;
        (0..count).map(|k| spec.start + k * p).collect()
    } else if let Some(load) = spec.load {
        let rate = match spec.receiver {
            Some(r) => hosts.link_bps[r as usize] as f64,
            None => hosts.total_bps() / n as f64,
        };
        let mean_gap = round_bytes * 8.0 * SEC as f64 / (load * rate);
        let expected = (spec.stop - spec.start) as f64 / mean_gap;
        check_count(expected, fan_in)?;
        let mut rng = Rng::stream(rng_master, rng_purpose::INCAST_ROUNDS, stream_index);
        let mut v = Vec::with_capacity((expected * 1.01 + 16.0).min(1e6) as usize);
        let mut t = spec.start as f64;
        loop {
            t += mean_gap * rng.exp(1.0);
            let s = t.round() as Time;
            if s >= spec.stop || (v.len() as u64 + 1) * fan_in > MAX_FLOWS {
                break;
            }
            v.push(s);
        }
        v
    } else {
        vec![spec.start]
    };

    let mut recv_rng = Rng::stream(rng_master, rng_purpose::INCAST_RECEIVER, stream_index);
    let mut send_rng = Rng::stream(rng_master, rng_purpose::INCAST_SENDERS, stream_index);
    let mut size_rng = Rng::stream(rng_master, rng_purpose::INCAST_SIZE, stream_index);
    let mut jit_rng = Rng::stream(rng_master, rng_purpose::INCAST_JITTER, stream_index);
    let eligible_for = |r: u32| -> Vec<u32> {
        pool.iter()
            .copied()
            .filter(|&h| {
                h != r
                    && !(spec.exclude_receiver_rack
                        && hosts.rack_of[h as usize] == hosts.rack_of[r as usize])
            })
            .collect()
    };
    let mut fixed_eligible = spec.receiver.map(eligible_for);
    let mut flows = Vec::with_capacity(rounds.len() * fan_in as usize);
    let mut chosen = Vec::with_capacity(spec.fan_in as usize);
    for (k, &t0) in rounds.iter().enumerate() {
        let (recv, mut own);
        let elig: &mut Vec<u32> = match (&mut fixed_eligible, spec.receiver) {
            (Some(e), Some(r)) => {
                recv = r;
                e
            }
            _ => {
                recv = recv_rng.below(hosts.n as u64) as u32;
                own = eligible_for(recv);
                &mut own
            }
        };
        // Partial Fisher–Yates: a uniform subset of size fan_in, then ascending order.
        let m = elig.len();
        if m > spec.fan_in as usize {
            for i in 0..spec.fan_in as usize {
                let j = i + send_rng.below((m - i) as u64) as usize;
                elig.swap(i, j);
            }
        }
        chosen.clear();
        chosen.extend_from_slice(&elig[..(spec.fan_in as usize).min(m)]);
        chosen.sort_unstable();
        for (&s, _) in chosen.iter().flat_map(|s| std::iter::repeat(s).zip(0..per)) {
            let size = spec.bytes_per_sender.sample(&mut size_rng);
            let off = if spec.jitter > 0 {
                jit_rng.below(spec.jitter)
            } else {
                0
            };
            flows.push(FlowSpec {
                src: s,
                dst: recv,
                size,
                start: t0.saturating_add(off),
                class: spec.class,
                deadline: None,
                tag: (k + 1).min(u32::MAX as usize) as u32,
                alpha: None,
                reliability: None,
            });
        }
    }
    // Jitter can reorder flows across senders and (if jitter > period) rounds.
    flows.sort_by_key(|f| f.start);
    Ok(flows)
}

fn check_count(rounds: f64, fan_in: u64) -> Result<(), WorkloadError> {
    if rounds * fan_in as f64 > MAX_FLOWS as f64 {
        return err(
            "stop",
            format!(
                "expected at most {MAX_FLOWS} flows, but the rounds give about {:.3e}; shorten \
                 the run or lengthen the period",
                rounds * fan_in as f64
            ),
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use dcnsim_engine::{MS, US};

    #[test]
    fn on_off_constructor_matches_lpf() {
        let workers: Vec<u32> = (1..=8).collect();
        let s = IncastSpec::on_off(0, workers.clone(), 4_000_000, MS, 0, 10 * MS);
        assert_eq!(s.fan_in, 8);
        assert_eq!(s.bytes_per_sender, SizeDist::Fixed(500_000));
        // 4 MB × 8 bit / 10 Gb/s = 3.2 ms at load 1, 16 ms at load 0.2.
        let s =
            IncastSpec::on_off_at_load(0, workers, 4_000_000, 0.2, 10_000_000_000, 0, SEC).unwrap();
        assert_eq!(s.period, Some(16 * MS));
        assert_eq!(
            IncastSpec::period_for_load(4_000_000, 0.0, 1)
                .unwrap_err()
                .path,
            "load"
        );
        assert_eq!(
            IncastSpec::period_for_load(0, 0.5, 1).unwrap_err().path,
            "aggregate_bytes"
        );
        assert_eq!(
            IncastSpec::period_for_load(1, 0.5, 0).unwrap_err().path,
            "ps_link_bps"
        );
        let _ = US;
    }
}
