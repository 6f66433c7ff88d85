//! dcnsim-workload: turns a workload description into an explicit list of flows, sorted by
//! start time.
//!
//! It owns flow-size distributions ([`Cdf`], [`SizeDist`], and the built-in datacenter
//! CDFs with their provenance in `data/README.md`), arrival processes ([`poisson`]), the
//! choice of source/destination pairs ([`Pairs`], [`permutation_long_flows`]), incast and
//! periodic on-off incast ([`incast`]), and explicit flow lists ([`parse_flow_csv`]). It
//! knows nothing of the network beyond host indices, racks and host link rates
//! ([`Hosts`]).
//!
//! # Invariants
//! * Every [`FlowSpec`] has `src != dst`, both `< hosts.n`, and `size >= 1`.
//! * Every generator returns flows sorted by `start`; equal starts keep generation order.
//!   [`merge_sorted`] combines several lists by `(start, list index, position)`.
//! * Randomness comes only from [`Rng::stream`]`(master, purpose, stream_index)`, one
//!   stream per purpose (`rng_purpose`): arrival gaps, sizes, pairs, deadlines are
//!   independent streams, so changing the size distribution leaves the unit exponential
//!   gaps and the pair choices unchanged, and each class (its own `stream_index`) is
//!   unaffected by the parameters of every other class.
//!   Give every generator call (every class, every incast) its own `stream_index`.
//! * No input panics: every invalid value is a [`WorkloadError`] naming its key.
//!
//! # Example
//! ```
//! use dcnsim_workload::*;
//! // 16 hosts at 10 Gb/s, web search sizes at 50% load for 10 ms, plus an 8:1 incast.
//! let hosts = Hosts::star(16, 10_000_000_000);
//! let sizes = SizeDist::cdf(Cdf::builtin("websearch", "classes[0].workload.sizes.cdf")?);
//! let bg = poisson(&PoissonSpec::new(sizes, 0.5, 0, 10 * MS), &hosts, 42, 0)?;
//! let burst = incast(&IncastSpec::one_shot(0, 8, 64_000, 5 * MS), &hosts, 42, 1)?;
//! let flows = merge_sorted(vec![bg, burst]);
//! assert!(flows.windows(2).all(|w| w[0].start <= w[1].start));
//! # Ok::<(), WorkloadError>(())
//! ```

pub mod arrivals;
pub mod cdf;
pub mod csv;
pub mod das;
pub mod error;
pub mod incast;
pub mod pattern;
pub mod size;

pub use arrivals::{poisson, poisson_stream, DeadlineDist, LoadBasis, PoissonSpec, PoissonStream};
pub use cdf::{builtin_cdf, builtin_cdf_names, Cdf, Interp, BUILTIN_README};
pub use csv::{parse_flow_csv, parse_flow_csv_in};
pub use das::{das, split_tag, DasSpec, DUPLICATE_TAG_BIT};
pub use error::WorkloadError;
pub use incast::{incast, IncastSpec};
pub use pattern::{permutation_long_flows, Pairs};
pub use size::SizeDist;

pub use dcnsim_engine::{Rng, Time, MS, NS, SEC, US};
use serde::{Deserialize, Serialize};

use crate::error::err;

/// One flow to be started by the simulator.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FlowSpec {
    /// Sending host index.
    pub src: u32,
    /// Receiving host index (never `src`).
    pub dst: u32,
    /// Payload bytes (> 0).
    pub size: u64,
    /// Start time (picoseconds).
    pub start: Time,
    /// Traffic class.
    pub class: u16,
    /// Absolute deadline (picoseconds), if any.
    pub deadline: Option<Time>,
    /// Generator-defined group id: the incast round number (from 1), 0 otherwise.
    pub tag: u32,
    /// REFLEX aggressiveness α and reliability r of this flow (None: the class's value).
    #[serde(default)]
    pub alpha: Option<f64>,
    #[serde(default)]
    pub reliability: Option<f64>,
}

/// What the workload knows of the network: host count, racks and host link rates.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hosts {
    /// Number of hosts; host indices are `0..n`.
    pub n: u32,
    /// Rack index of each host (any `u32` labels; a star is all one rack).
    pub rack_of: Vec<u32>,
    /// Host link rate of each host, bits per second.
    pub link_bps: Vec<u64>,
}

impl Hosts {
    /// `n` hosts in one rack (a star), all at `link_bps`.
    pub fn star(n: u32, link_bps: u64) -> Hosts {
        Hosts {
            n,
            rack_of: vec![0; n as usize],
            link_bps: vec![link_bps; n as usize],
        }
    }

    /// `racks × per_rack` hosts, hosts `r*per_rack .. (r+1)*per_rack` in rack `r`.
    pub fn racks(racks: u32, per_rack: u32, link_bps: u64) -> Hosts {
        let n = racks.saturating_mul(per_rack);
        let rack_of = (0..n).map(|h| h / per_rack.max(1)).collect();
        Hosts {
            n,
            rack_of,
            link_bps: vec![link_bps; n as usize],
        }
    }

    /// Checks lengths, rates and that there are at least two hosts (errors at `hosts.*`).
    pub fn validate(&self) -> Result<(), WorkloadError> {
        if self.n < 2 {
            return err(
                "hosts.n",
                format!("expected at least 2 hosts, got {}", self.n),
            );
        }
        if self.rack_of.len() != self.n as usize {
            return err(
                "hosts.rack_of",
                format!(
                    "expected one rack per host ({}), got {}",
                    self.n,
                    self.rack_of.len()
                ),
            );
        }
        if self.link_bps.len() != self.n as usize {
            return err(
                "hosts.link_bps",
                format!(
                    "expected one rate per host ({}), got {}",
                    self.n,
                    self.link_bps.len()
                ),
            );
        }
        if let Some(i) = self.link_bps.iter().position(|&b| b == 0) {
            return err(
                format!("hosts.link_bps[{i}]"),
                "expected a rate > 0 bits per second, got 0",
            );
        }
        Ok(())
    }

    /// Σ host link rates in bits per second (as f64 so no sum can overflow).
    pub fn total_bps(&self) -> f64 {
        self.link_bps.iter().map(|&b| b as f64).sum()
    }
}

/// RNG purpose constants: `Rng::stream(master, purpose, stream_index)`. Distinct from
/// each other and, being large tagged values, from the small purposes of other crates.
pub mod rng_purpose {
    const BASE: u64 = 0x574B_4C44_0000_0000; // "WKLD"
    /// Poisson inter-arrival gaps.
    pub const ARRIVAL: u64 = BASE | 1;
    /// Flow sizes.
    pub const SIZE: u64 = BASE | 2;
    /// Source/destination choice.
    pub const PAIR: u64 = BASE | 3;
    /// Deadlines.
    pub const DEADLINE: u64 = BASE | 4;
    /// The fixed permutation of `Pairs::Permutation` and `permutation_long_flows`.
    pub const PERMUTATION: u64 = BASE | 5;
    /// Incast receiver per round.
    pub const INCAST_RECEIVER: u64 = BASE | 6;
    /// Incast senders per round.
    pub const INCAST_SENDERS: u64 = BASE | 7;
    /// Incast per-sender start jitter.
    pub const INCAST_JITTER: u64 = BASE | 8;
    /// Incast round times (Poisson rounds).
    pub const INCAST_ROUNDS: u64 = BASE | 9;
    /// Incast per-sender sizes.
    pub const INCAST_SIZE: u64 = BASE | 10;
    /// DAS request arrival gaps ([`crate::das`]).
    pub const DAS_ARRIVAL: u64 = BASE | 11;
    /// DAS response sizes.
    pub const DAS_SIZE: u64 = BASE | 12;
    /// DAS client per request.
    pub const DAS_CLIENT: u64 = BASE | 13;
    /// DAS primary and duplicate servers per request.
    pub const DAS_SERVERS: u64 = BASE | 14;
}

/// Upper bound on the number of flows (or incast rounds × fan-in) one generator call may
/// produce, so a mistyped load or stop time is an error rather than exhausted memory.
pub const MAX_FLOWS: u64 = 50_000_000;

/// Merges flow lists into one list ordered by `(start, list index, position in list)`.
/// The inputs need not be sorted; the sort is stable.
pub fn merge_sorted(lists: Vec<Vec<FlowSpec>>) -> Vec<FlowSpec> {
    let mut all: Vec<FlowSpec> = lists.into_iter().flatten().collect();
    // Stable: equal starts keep concatenation order = (list index, position).
    all.sort_by_key(|f| f.start);
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(start: Time, tag: u32) -> FlowSpec {
        FlowSpec {
            src: 0,
            dst: 1,
            size: 1,
            start,
            class: 0,
            deadline: None,
            tag,
            alpha: None,
            reliability: None,
        }
    }

    #[test]
    fn merge_is_stable_by_start_then_list_then_position() {
        let a = vec![f(5, 1), f(10, 2), f(10, 3)];
        let b = vec![f(0, 4), f(10, 5), f(20, 6)];
        let m = merge_sorted(vec![a, b]);
        let tags: Vec<u32> = m.iter().map(|x| x.tag).collect();
        assert_eq!(tags, vec![4, 1, 2, 3, 5, 6]);
    }

    #[test]
    fn hosts_validation() {
        assert_eq!(Hosts::star(1, 10).validate().unwrap_err().path, "hosts.n");
        let mut h = Hosts::star(4, 10);
        h.rack_of.pop();
        assert_eq!(h.validate().unwrap_err().path, "hosts.rack_of");
        let mut h = Hosts::star(4, 10);
        h.link_bps.push(1);
        assert_eq!(h.validate().unwrap_err().path, "hosts.link_bps");
        let mut h = Hosts::star(4, 10);
        h.link_bps[2] = 0;
        let e = h.validate().unwrap_err();
        assert_eq!(e.path, "hosts.link_bps[2]");
        assert!(e.msg.contains("expected a rate > 0"));
        let h = Hosts::racks(3, 4, 10);
        assert_eq!(h.n, 12);
        assert_eq!(h.rack_of[4], 1);
        assert!(h.validate().is_ok());
    }
}
