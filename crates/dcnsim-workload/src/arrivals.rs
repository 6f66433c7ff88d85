//! Poisson flow arrivals at a target load.
//!
//! # Load
//! Flows arrive as one aggregate Poisson process of rate
//!
//! ```text
//! λ = load × C / (8 × E[size])          flows per second
//! mean gap = 1 / λ = 8 × E[size] / (load × C)
//! ```
//!
//! where `E[size]` is [`SizeDist::mean`] in bytes and `C` (bits per second) depends on
//! [`LoadBasis`]:
//! * `HostLinks` (default): `C = Σ` host link rates over all hosts. With all-to-all pairs
//!   and equal link rates each host then sends, and receives, `load ×` its link rate on
//!   average, which is how HPCC's `traffic_gen.py` and the PIAS/pFabric scripts define
//!   load. (Sources are uniform over hosts, so with unequal rates each host sends
//!   `load ×` the *mean* rate.)
//! * `Bisection { bps }`: `C = bps`, the bisection bandwidth of the fabric.
//! * `SenderHosts`: `C = Σ` link rates of the hosts that can be sources: the `src` list of
//!   `Pairs::Fixed`, hosts with a rack mate for `IntraRack`, every host otherwise.
//!
//! The offered load of a run, `Σ 8 × size / (C × (stop − start))`, then has expectation
//! `load` (before `max_flows` truncation).
//!
//! # Streams
//! Gap `k` is `mean gap ×` the `k`-th unit exponential of the `ARRIVAL` stream; size `k`,
//! pair `k` and deadline `k` come from the `SIZE`, `PAIR` and `DEADLINE` streams. A size
//! distribution with the same mean gives identical start times and pairs.

use dcnsim_engine::{Rng, Time, SEC};
use serde::{Deserialize, Serialize};

use crate::error::{err, WorkloadError};
use crate::pattern::PairPicker;
use crate::{rng_purpose, FlowSpec, Hosts, Pairs, SizeDist, MAX_FLOWS};

/// What capacity `load` is a fraction of (see the module docs for the formula).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LoadBasis {
    /// `C = Σ` host link rates (all hosts).
    #[default]
    HostLinks,
    /// `C = bps`, the fabric's bisection bandwidth.
    Bisection { bps: u64 },
    /// `C = Σ` link rates of the hosts that can be sources under `pairs`.
    SenderHosts,
}

/// A flow's deadline budget, relative to its start; `FlowSpec::deadline = start + drawn`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DeadlineDist {
    /// Every flow gets this budget (> 0).
    Fixed(Time),
    /// Uniform integer picoseconds in `[lo, hi]` (`0 < lo <= hi`).
    Uniform { lo: Time, hi: Time },
    /// `max(min, X)` with `X` exponential of mean `mean` (> 0): exponential deadlines
    /// clamped below at `min` (pFabric/D3 style, e.g. `min` = a multiple of the ideal
    /// FCT). The resulting mean is `min + mean · e^(−min/mean)`.
    Exp { mean: Time, min: Time },
}

impl DeadlineDist {
    /// Checks the parameters; `path` is the key of this value.
    pub fn validate(&self, path: &str) -> Result<(), WorkloadError> {
        match *self {
            DeadlineDist::Fixed(0) => err(path, "expected a deadline budget > 0 ps, got 0"),
            DeadlineDist::Uniform { lo: 0, .. } => {
                err(format!("{path}.lo"), "expected lo > 0 ps, got 0")
            }
            DeadlineDist::Uniform { lo, hi } if hi < lo => err(
                format!("{path}.hi"),
                format!("expected hi >= lo = {lo} ps, got {hi}"),
            ),
            DeadlineDist::Exp { mean: 0, .. } => {
                err(format!("{path}.mean"), "expected a mean > 0 ps, got 0")
            }
            _ => Ok(()),
        }
    }

    /// Draws one budget in picoseconds (one draw of `rng` for `Uniform`/`Exp`).
    pub fn sample(&self, rng: &mut Rng) -> Time {
        match *self {
            DeadlineDist::Fixed(t) => t,
            DeadlineDist::Uniform { lo, hi } => {
                if hi <= lo {
                    lo
                } else {
                    lo + rng.below((hi - lo).saturating_add(1).max(1))
                }
            }
            DeadlineDist::Exp { mean, min } => {
                let x = rng.exp(mean as f64).round() as Time;
                x.max(min)
            }
        }
    }
}

/// An open-loop Poisson workload.
#[derive(Clone, Debug, PartialEq)]
pub struct PoissonSpec {
    pub sizes: SizeDist,
    /// Fraction of capacity `C` in (0, 1] (see the module docs).
    pub load: f64,
    pub load_basis: LoadBasis,
    pub pairs: Pairs,
    /// Arrivals in `[start, stop)`; the first arrives one random gap after `start`.
    pub start: Time,
    pub stop: Time,
    /// Stop after this many flows, even before `stop`.
    pub max_flows: Option<u64>,
    pub class: u16,
    pub deadline: Option<DeadlineDist>,
}

impl PoissonSpec {
    /// All-to-all at `load` of the host links, class 0, no deadline, no flow cap.
    pub fn new(sizes: SizeDist, load: f64, start: Time, stop: Time) -> PoissonSpec {
        PoissonSpec {
            sizes,
            load,
            load_basis: LoadBasis::HostLinks,
            pairs: Pairs::AllToAll,
            start,
            stop,
            max_flows: None,
            class: 0,
            deadline: None,
        }
    }

    /// The capacity `C` in bits per second that `load` refers to (validated `hosts`).
    fn capacity_bps(&self, hosts: &Hosts, picker: &PairPicker) -> f64 {
        match self.load_basis {
            LoadBasis::HostLinks => hosts.total_bps(),
            LoadBasis::Bisection { bps } => bps as f64,
            LoadBasis::SenderHosts => picker
                .sources(hosts)
                .iter()
                .map(|&h| hosts.link_bps[h as usize] as f64)
                .sum(),
        }
    }
}

/// Checks a load fraction in (0, 1].
/// The checks every load-driven generator starts with: hosts, sizes, load in (0, 1] and a
/// non-empty [start, stop) interval.
pub(crate) fn check_open_loop(
    hosts: &Hosts,
    sizes: &SizeDist,
    load: f64,
    start: Time,
    stop: Time,
) -> Result<(), WorkloadError> {
    hosts.validate()?;
    sizes.validate("sizes")?;
    check_load(load, "load")?;
    if stop <= start {
        return err(
            "stop",
            format!("expected stop > start = {start} ps, got {stop}"),
        );
    }
    Ok(())
}

pub(crate) fn check_load(load: f64, path: &str) -> Result<(), WorkloadError> {
    if load.is_finite() && load > 0.0 && load <= 1.0 {
        Ok(())
    } else {
        err(
            path,
            format!("expected a load fraction in (0, 1], got {load}"),
        )
    }
}

/// Generates the flows of `spec`, sorted by start: a Poisson process of rate
/// `λ = load × C / (8 × E[size])` flows per second in `[start, stop)` (see the module
/// docs for `C`), each flow with an independent size, pair and deadline.
///
/// Errors name keys relative to the spec
/// (`"load"`, `"sizes.scale"`, `"pairs.src[1]"`, `"hosts.n"`); prefix them with
/// [`WorkloadError::at`]. `stream_index` selects this workload's random streams (use one
/// per class). The same flows one at a time: [`poisson_stream`].
pub fn poisson(
    spec: &PoissonSpec,
    hosts: &Hosts,
    rng_master: u64,
    stream_index: u64,
) -> Result<Vec<FlowSpec>, WorkloadError> {
    let g = poisson_stream(spec, hosts, rng_master, stream_index)?;
    // Reserve for the expected count, but let a huge explicit max_flows grow on demand.
    let mut flows =
        Vec::with_capacity((g.expected * 1.01 + 16.0).min(g.limit as f64).min(1e6) as usize);
    flows.extend(g);
    Ok(flows)
}

/// The flows of [`poisson`], generated lazily in start order (a simulator draws the next
/// one when the run reaches its start, so memory does not grow with the run's length).
/// Validates everything up front: the iterator itself cannot fail.
pub fn poisson_stream(
    spec: &PoissonSpec,
    hosts: &Hosts,
    rng_master: u64,
    stream_index: u64,
) -> Result<PoissonStream, WorkloadError> {
    check_open_loop(hosts, &spec.sizes, spec.load, spec.start, spec.stop)?;
    if let Some(d) = &spec.deadline {
        d.validate("deadline")?;
    }
    if let LoadBasis::Bisection { bps: 0 } = spec.load_basis {
        return err(
            "load_basis.bps",
            "expected a bisection bandwidth > 0 bits per second, got 0",
        );
    }
    let picker = PairPicker::new(&spec.pairs, hosts, rng_master, stream_index, "pairs")?;
    let cap = spec.capacity_bps(hosts, &picker);
    let mean_size = spec.sizes.mean();
    // mean gap in ps = 8 E[size] / (load C) seconds × 1e12.
    let mean_gap = 8.0 * mean_size * SEC as f64 / (spec.load * cap);
    if !(mean_gap.is_finite() && mean_gap > 0.0) {
        return err(
            "load",
            format!("the arrival rate is not finite (mean gap {mean_gap} ps)"),
        );
    }
    let duration = (spec.stop - spec.start) as f64;
    let limit = spec.max_flows.unwrap_or(u64::MAX).min(MAX_FLOWS);
    let expected = duration / mean_gap;
    if spec.max_flows.is_none_or(|m| m > MAX_FLOWS) && expected > MAX_FLOWS as f64 {
        return err(
            "stop",
            format!(
                "expected at most {MAX_FLOWS} flows, but load and duration give about {expected:.3e}; \
                 shorten the run or set max_flows"
            ),
        );
    }
    Ok(PoissonStream {
        arr: Rng::stream(rng_master, rng_purpose::ARRIVAL, stream_index),
        size_rng: Rng::stream(rng_master, rng_purpose::SIZE, stream_index),
        pair_rng: Rng::stream(rng_master, rng_purpose::PAIR, stream_index),
        dl_rng: Rng::stream(rng_master, rng_purpose::DEADLINE, stream_index),
        picker,
        sizes: spec.sizes.clone(),
        deadline: spec.deadline.clone(),
        class: spec.class,
        stop: spec.stop,
        mean_gap,
        // Accumulate in f64 picoseconds (exact to well below 1 ps for hours) and round
        // each start, so per-gap rounding does not bias the rate.
        t: spec.start as f64,
        n: 0,
        limit,
        expected,
        done: false,
    })
}

/// Lazily generated Poisson flows (see [`poisson_stream`]): the same four random streams
/// drawn in the same order as [`poisson`], so the two give the same flows.
pub struct PoissonStream {
    arr: Rng,
    size_rng: Rng,
    pair_rng: Rng,
    dl_rng: Rng,
    picker: PairPicker,
    sizes: SizeDist,
    deadline: Option<DeadlineDist>,
    class: u16,
    stop: Time,
    mean_gap: f64,
    t: f64,
    n: u64,
    limit: u64,
    /// The expected number of flows (duration / mean gap), before `max_flows`.
    pub expected: f64,
    done: bool,
}

impl Iterator for PoissonStream {
    type Item = FlowSpec;

    fn next(&mut self) -> Option<FlowSpec> {
        if self.done || self.n >= self.limit {
            return None;
        }
        self.t += self.mean_gap * self.arr.exp(1.0);
        let start = self.t.round() as Time;
        if start >= self.stop {
            self.done = true;
            return None;
        }
        self.n += 1;
        let size = self.sizes.sample(&mut self.size_rng);
        let (src, dst) = self.picker.pick(&mut self.pair_rng);
        let deadline = self
            .deadline
            .as_ref()
            .map(|d| start.saturating_add(d.sample(&mut self.dl_rng)));
        Some(FlowSpec {
            src,
            dst,
            size,
            start,
            class: self.class,
            deadline,
            tag: 0,
            alpha: None,
            reliability: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dcnsim_engine::{MS, US};

    #[test]
    fn deadline_validation_and_sampling() {
        let e = DeadlineDist::Fixed(0).validate("deadline").unwrap_err();
        assert_eq!(e.path, "deadline");
        let e = DeadlineDist::Uniform { lo: 0, hi: 3 }
            .validate("deadline")
            .unwrap_err();
        assert_eq!(e.path, "deadline.lo");
        let e = DeadlineDist::Uniform { lo: 5, hi: 3 }
            .validate("deadline")
            .unwrap_err();
        assert_eq!(e.path, "deadline.hi");
        assert!(e.msg.contains("expected hi >= lo = 5 ps, got 3"), "{e}");
        let e = DeadlineDist::Exp { mean: 0, min: 3 }
            .validate("deadline")
            .unwrap_err();
        assert_eq!(e.path, "deadline.mean");
        let mut r = Rng::new(9);
        let d = DeadlineDist::Exp {
            mean: MS,
            min: 100 * US,
        };
        let n = 200_000;
        let xs: Vec<Time> = (0..n).map(|_| d.sample(&mut r)).collect();
        assert!(xs.iter().all(|&x| x >= 100 * US));
        let mean = xs.iter().map(|&x| x as f64).sum::<f64>() / n as f64;
        let want = 100e6 + 1e9 * (-0.1f64).exp();
        assert!((mean / want - 1.0).abs() < 0.01, "{mean} vs {want}");
        let u = DeadlineDist::Uniform { lo: 10, hi: 12 };
        assert!((0..1000).all(|_| (10..=12).contains(&u.sample(&mut r))));
    }

    #[test]
    fn deadlines_are_absolute() {
        let mut s = PoissonSpec::new(SizeDist::Fixed(1000), 0.5, MS, 2 * MS);
        s.deadline = Some(DeadlineDist::Fixed(7 * US));
        let f = poisson(&s, &Hosts::star(4, 10_000_000_000), 1, 0).unwrap();
        assert!(!f.is_empty());
        assert!(f
            .iter()
            .all(|x| x.deadline == Some(x.start + 7 * US) && x.start >= MS));
    }

    #[test]
    fn the_stream_gives_the_same_flows_as_the_list() {
        let sizes = SizeDist::cdf(crate::Cdf::builtin("websearch", "sizes.cdf").unwrap());
        let mut s = PoissonSpec::new(sizes, 0.7, 0, 20 * MS);
        s.deadline = Some(DeadlineDist::Exp {
            mean: MS,
            min: 10 * US,
        });
        s.pairs = Pairs::InterRack;
        let hosts = Hosts::racks(4, 4, 10_000_000_000);
        let list = poisson(&s, &hosts, 7, 3).unwrap();
        assert!(list.len() > 50, "{}", list.len());
        let lazy: Vec<FlowSpec> = poisson_stream(&s, &hosts, 7, 3).unwrap().collect();
        assert_eq!(list, lazy);
        s.max_flows = Some(10);
        let capped: Vec<FlowSpec> = poisson_stream(&s, &hosts, 7, 3).unwrap().collect();
        assert_eq!(capped, list[..10]);
    }
}
