//! Empirical flow-size CDFs: parsing, validation, means and inverse-CDF sampling, plus the
//! built-in datacenter CDFs (copied with their provenance into `data/`, see
//! `data/README.md`).
//!
//! # File format
//! The `shared/workloads` format: one point `size_bytes cumulative_probability` per line,
//! separated by spaces or tabs; `#` starts a comment (whole line or rest of line); blank
//! lines are ignored. Invariants, all checked (an error names the line):
//! * at least two points; both columns are finite numbers;
//! * sizes are non-negative, non-decreasing, and not all zero;
//! * probabilities are non-decreasing; the first is exactly 0 and the last exactly 1
//!   (both within 1e-9, then snapped to 0 and 1);
//! * a size may repeat (`70 0` then `70 0.01`): a point mass, i.e. a jump of the CDF.
//!
//! Three-column lines are rejected. ns-2's `loadCDF` format is `value weight cdf` and its
//! values are usually *packets*, so silently taking the last column would hide a unit
//! error; convert such a file (drop the weight column, multiply by the payload size) as
//! was done for `websearch_pias.cdf`.
//!
//! # Sampling
//! Inverse CDF with `u` uniform in [0, 1): find the segment `p[i-1] <= u < p[i]`, then
//! * [`Interp::Linear`] returns `x[i-1] + (x[i] - x[i-1]) (u - p[i-1]) / (p[i] - p[i-1])`
//!   (HPCC `traffic_gen.py`, ns-2 `Empirical` with interpolation, snkas/networkload); its
//!   mean is [`Cdf::mean_lin`];
//! * [`Interp::Step`] returns `x[i]`, the smallest listed size whose cdf exceeds `u`
//!   (Homa's OMNeT++ simulator); its mean is [`Cdf::mean_step`].
//!
//! The value is rounded to the nearest byte, and a result of 0 becomes 1 byte, because a
//! flow must carry payload. This shifts the mean by less than one byte in practice (e.g.
//! `websearch.cdf` draws below 0.5 B with probability 7.5e-6).

use dcnsim_engine::Rng;
use serde::{Deserialize, Serialize};

use crate::error::{err, WorkloadError};

/// How to sample between the points of a CDF.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Interp {
    /// Linear interpolation between points (the default; mean = [`Cdf::mean_lin`]).
    #[default]
    Linear,
    /// The right endpoint of the segment, i.e. only listed sizes (mean = [`Cdf::mean_step`]).
    Step,
}

/// A validated empirical CDF of flow sizes in bytes.
#[derive(Clone, Debug, PartialEq)]
pub struct Cdf {
    sizes: Vec<f64>,
    probs: Vec<f64>,
}

/// Tolerance for the first probability being 0 and the last being 1.
const PROB_TOL: f64 = 1e-9;

impl Cdf {
    /// Parses the `shared/workloads` text format (see the module docs). `path` is the
    /// config key the text came from; it becomes the error's path, the message names the
    /// line.
    pub fn parse(text: &str, path: &str) -> Result<Cdf, WorkloadError> {
        let mut points = Vec::new();
        let mut lines = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line_no = i + 1;
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let cols: Vec<&str> = line.split_whitespace().collect();
            if cols.len() == 3 {
                return err(
                    path,
                    format!(
                        "line {line_no}: expected 2 columns 'size_bytes cumulative_probability', \
                         got 3; the ns-2 format 'value weight cdf' (often in packets) is not \
                         accepted: drop the weight column and convert the values to bytes"
                    ),
                );
            }
            if cols.len() != 2 {
                return err(
                    path,
                    format!(
                        "line {line_no}: expected 2 columns 'size_bytes cumulative_probability', \
                         got {} in '{line}'",
                        cols.len()
                    ),
                );
            }
            let num = |s: &str, what: &str| -> Result<f64, WorkloadError> {
                match s.parse::<f64>() {
                    Ok(v) if v.is_finite() => Ok(v),
                    _ => err(
                        path,
                        format!(
                            "line {line_no}: expected a finite number for the {what}, got '{s}'"
                        ),
                    ),
                }
            };
            let x = num(cols[0], "size in bytes")?;
            let p = num(cols[1], "cumulative probability")?;
            points.push((x, p));
            lines.push(line_no);
        }
        Cdf::build(&points, path, |k| format!("line {}", lines[k]))
    }

    /// Builds a CDF from `(size_bytes, cumulative_probability)` points with the same rules
    /// as [`Cdf::parse`]; the message names the point index.
    pub fn from_points(points: &[(f64, f64)], path: &str) -> Result<Cdf, WorkloadError> {
        Cdf::build(points, path, |k| format!("point {k}"))
    }

    fn build(
        points: &[(f64, f64)],
        path: &str,
        at: impl Fn(usize) -> String,
    ) -> Result<Cdf, WorkloadError> {
        if points.len() < 2 {
            return err(
                path,
                format!(
                    "expected at least 2 points 'size_bytes cumulative_probability' \
                     (first with probability 0, last with 1), got {}",
                    points.len()
                ),
            );
        }
        let mut sizes = Vec::with_capacity(points.len());
        let mut probs = Vec::with_capacity(points.len());
        for (k, &(x, p)) in points.iter().enumerate() {
            if !x.is_finite() || !p.is_finite() {
                return err(
                    path,
                    format!("{}: expected finite numbers, got ({x}, {p})", at(k)),
                );
            }
            if x < 0.0 {
                return err(
                    path,
                    format!("{}: expected a size >= 0 bytes, got {x}", at(k)),
                );
            }
            if !(0.0..=1.0 + PROB_TOL).contains(&p) {
                return err(
                    path,
                    format!("{}: expected a probability in [0, 1], got {p}", at(k)),
                );
            }
            if k > 0 {
                if x < sizes[k - 1] {
                    return err(
                        path,
                        format!(
                            "{}: sizes must be non-decreasing, got {x} after {}",
                            at(k),
                            sizes[k - 1]
                        ),
                    );
                }
                if p < probs[k - 1] {
                    return err(
                        path,
                        format!(
                            "{}: probabilities must be non-decreasing, got {p} after {}",
                            at(k),
                            probs[k - 1]
                        ),
                    );
                }
            }
            sizes.push(x);
            probs.push(p);
        }
        if probs[0].abs() > PROB_TOL {
            return err(
                path,
                format!(
                    "{}: the first point must have probability 0 (write e.g. '{} 0' before it \
                     for a point mass at the smallest size), got {}",
                    at(0),
                    sizes[0],
                    probs[0]
                ),
            );
        }
        let last = probs.len() - 1;
        if (probs[last] - 1.0).abs() > PROB_TOL {
            return err(
                path,
                format!(
                    "{}: the last point must have probability 1, got {}",
                    at(last),
                    probs[last]
                ),
            );
        }
        if sizes.iter().all(|&x| x == 0.0) {
            return err(
                path,
                "all sizes are 0 bytes; expected at least one positive size",
            );
        }
        probs[0] = 0.0;
        probs[last] = 1.0;
        Ok(Cdf { sizes, probs })
    }

    /// The points `(size_bytes, cumulative_probability)`.
    pub fn points(&self) -> impl Iterator<Item = (f64, f64)> + '_ {
        self.sizes.iter().copied().zip(self.probs.iter().copied())
    }

    /// Number of points.
    pub fn len(&self) -> usize {
        self.sizes.len()
    }

    /// Always false: a valid CDF has at least two points.
    pub fn is_empty(&self) -> bool {
        self.sizes.is_empty()
    }

    /// Largest size in bytes.
    pub fn max(&self) -> f64 {
        self.sizes.last().copied().unwrap_or(0.0)
    }

    /// Mean under linear interpolation (trapezoid rule):
    /// `Σ (x[i-1] + x[i]) / 2 · (p[i] − p[i-1])`.
    pub fn mean_lin(&self) -> f64 {
        (1..self.sizes.len())
            .map(|i| {
                0.5 * (self.sizes[i - 1] + self.sizes[i]) * (self.probs[i] - self.probs[i - 1])
            })
            .sum()
    }

    /// Mean under step (right-endpoint) sampling: `Σ x[i] · (p[i] − p[i-1])`.
    pub fn mean_step(&self) -> f64 {
        (1..self.sizes.len())
            .map(|i| self.sizes[i] * (self.probs[i] - self.probs[i - 1]))
            .sum()
    }

    /// The mean matching `interp`.
    pub fn mean(&self, interp: Interp) -> f64 {
        match interp {
            Interp::Linear => self.mean_lin(),
            Interp::Step => self.mean_step(),
        }
    }

    /// The inverse CDF at `u` (clamped to [0, 1)), unrounded, in bytes.
    pub fn quantile(&self, u: f64, interp: Interp) -> f64 {
        let u = if u.is_nan() { 0.0 } else { u.clamp(0.0, 1.0) };
        // First index with p > u; p[0] = 0 and p[last] = 1 keep it in 1..=last for u < 1.
        let i = self
            .probs
            .partition_point(|&p| p <= u)
            .clamp(1, self.probs.len() - 1);
        let (x0, x1) = (self.sizes[i - 1], self.sizes[i]);
        match interp {
            Interp::Step => x1,
            Interp::Linear => {
                let (p0, p1) = (self.probs[i - 1], self.probs[i]);
                if p1 > p0 {
                    x0 + (x1 - x0) * ((u - p0) / (p1 - p0)).clamp(0.0, 1.0)
                } else {
                    x1
                }
            }
        }
    }

    /// Draws one size in bytes (rounded to the nearest byte, at least 1; see module docs).
    pub fn sample(&self, rng: &mut Rng, interp: Interp) -> u64 {
        to_bytes(self.quantile(rng.f64(), interp))
    }
}

/// Rounds a drawn size to whole bytes; a flow carries at least one byte.
pub(crate) fn to_bytes(x: f64) -> u64 {
    // `as` saturates (NaN -> 0), so no input can panic here.
    (x.round() as u64).max(1)
}

macro_rules! builtins {
    ($($name:literal),* $(,)?) => {
        const BUILTIN: &[(&str, &str)] = &[
            $(($name, include_str!(concat!("../data/", $name, ".cdf")))),*
        ];
        const BUILTIN_NAMES: &[&str] = &[$($name),*];
    };
}

builtins!(
    "websearch",
    "websearch_pias",
    "websearch_tlt",
    "websearch_networkload",
    "datamining_vl2",
    "datamining_networkload",
    "datamining_pias",
    "datamining_tlt",
    "alistorage2019",
    "fb_hadoop",
    "fb_hadoop_homa",
    "fb_webserver",
    "fb_webserver_homa",
    "fb_cachefollower",
    "fb_cachefollower_homa",
    "google_rpc2008",
    "google_searchrpc_homa",
);

/// The provenance notes for the built-in CDFs (`data/README.md`: sources, commits, unit
/// conversions, which paper uses which file, and a table of means).
pub const BUILTIN_README: &str = include_str!("../data/README.md");

/// Names of the built-in CDFs (file names without `.cdf`), in README order.
pub fn builtin_cdf_names() -> &'static [&'static str] {
    BUILTIN_NAMES
}

/// The text of a built-in CDF (`"websearch"` or `"websearch.cdf"`), or `None`.
pub fn builtin_cdf(name: &str) -> Option<&'static str> {
    let name = name.strip_suffix(".cdf").unwrap_or(name);
    BUILTIN
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, text)| *text)
}

impl Cdf {
    /// Parses a built-in CDF; an unknown name is an error at `path` listing the known ones.
    pub fn builtin(name: &str, path: &str) -> Result<Cdf, WorkloadError> {
        match builtin_cdf(name) {
            Some(text) => Cdf::parse(text, path),
            None => err(
                path,
                format!(
                    "unknown built-in CDF '{name}'; expected one of: {}",
                    BUILTIN_NAMES.join(", ")
                ),
            ),
        }
    }
}
