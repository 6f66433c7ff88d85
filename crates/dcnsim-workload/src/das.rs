//! Duplicate-aware scheduling (DAS) request duplication: every request is answered twice,
//! by a primary server at the class priority and by a duplicate server at a lower priority
//! (LPF §3.1 "DAS creates a duplicate copy of each incoming request at a lower priority and
//! attempts to fetch both the responses (the primary and the duplicate) from two different
//! servers"; spec mechanisms §5.1.2).
//!
//! # Requests
//! Requests arrive as one Poisson process in `[start, stop)`. Request `k` (numbered from 1)
//! picks a client `C` uniformly from `clients`, a primary server `A` uniformly from
//! `servers \ {C}` and a duplicate server `B` uniformly from `servers \ {C, A}`, and draws
//! one response size `s` (the duplicate fetches the same object, so it has the same size).
//! It yields two flows starting at the request time, both to the client:
//! * the primary `A → C` with `tag = k`,
//! * the duplicate `B → C` with `tag = k | DUPLICATE_TAG_BIT`.
//!
//! The duplicate bit is how the generator tells its caller which flow is the copy (the
//! simulator gives it the duplicate priority and clears the bit, so both flows of a request
//! carry `tag = k` in the results); [`split_tag`] undoes it. The primary is listed first.
//!
//! # Load
//! `load` is per class, as in the paper ("30% in each priority class"): the request rate is
//!
//! ```text
//! λ = load × C_clients / (8 × E[size])     requests per second
//! ```
//!
//! with `C_clients` the sum of the clients' link rates, so the primaries alone offer `load`
//! of the client links and the duplicates another `load` (LPF §3.1: "medium load (30%) which
//! translates to a high aggregate load (60% – 30% in each priority class) on the bottleneck
//! link").
//!
//! # Purge
//! DAS cancels the other copy once one completes; LPF disables this ("a feature which we
//! disable to simplify our experiment"), and so does this generator: both copies always run
//! to completion. (Purging needs the simulator to cancel a running flow, which it cannot do
//! yet; the scenario layer rejects `purge = true`.)
//!
//! # Streams
//! Arrival gaps, sizes, clients and servers come from four streams of their own
//! (`rng_purpose::DAS_*`), so changing the size distribution leaves request times and
//! placements unchanged.

use dcnsim_engine::{Rng, Time, SEC};

use crate::arrivals::check_open_loop;
use crate::error::{err, WorkloadError};
use crate::pattern::check_host_list;
use crate::{rng_purpose, FlowSpec, Hosts, SizeDist, MAX_FLOWS};

/// Set in the `tag` of the duplicate flow of a request (see the module docs).
pub const DUPLICATE_TAG_BIT: u32 = 1 << 31;

/// `(request id, is the duplicate)` of a tag produced by [`das`].
pub fn split_tag(tag: u32) -> (u32, bool) {
    (tag & !DUPLICATE_TAG_BIT, tag & DUPLICATE_TAG_BIT != 0)
}

/// A DAS duplication workload (see the module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct DasSpec {
    /// Response sizes (the primary and its duplicate share one draw).
    pub sizes: SizeDist,
    /// Per-class load: fraction of the clients' total link capacity, in (0, 1].
    pub load: f64,
    /// Hosts that issue requests; `None` = every host.
    pub clients: Option<Vec<u32>>,
    /// Hosts that answer; `None` = every host.
    pub servers: Option<Vec<u32>>,
    /// Requests in `[start, stop)`; the first arrives one random gap after `start`.
    pub start: Time,
    pub stop: Time,
    /// Stop after this many requests (each yields two flows).
    pub max_requests: Option<u64>,
    pub class: u16,
}

impl DasSpec {
    /// Every host a client and a server, no request cap, class 0.
    pub fn new(sizes: SizeDist, load: f64, start: Time, stop: Time) -> DasSpec {
        DasSpec {
            sizes,
            load,
            clients: None,
            servers: None,
            start,
            stop,
            max_requests: None,
            class: 0,
        }
    }
}

/// Generates the flows of `spec` sorted by start: two per request, primary first (see the
/// module docs). Error paths are relative to the spec (`"load"`, `"servers"`,
/// `"clients[2]"`); `stream_index` selects this workload's random streams.
pub fn das(
    spec: &DasSpec,
    hosts: &Hosts,
    rng_master: u64,
    stream_index: u64,
) -> Result<Vec<FlowSpec>, WorkloadError> {
    check_open_loop(hosts, &spec.sizes, spec.load, spec.start, spec.stop)?;
    let all: Vec<u32> = (0..hosts.n).collect();
    let clients = spec.clients.clone().unwrap_or_else(|| all.clone());
    let servers = spec.servers.clone().unwrap_or(all);
    check_host_list(&clients, hosts.n, "clients")?;
    check_host_list(&servers, hosts.n, "servers")?;
    // Every client needs two servers other than itself: a primary and a distinct duplicate.
    for (i, &c) in clients.iter().enumerate() {
        let eligible = servers.iter().filter(|&&s| s != c).count();
        if eligible < 2 {
            // Without `servers` every host serves: the topology is too small, and the error
            // names the workload table the user wrote, not a key they did not.
            return match spec.servers {
                Some(_) => err(
                    "servers",
                    format!(
                        "expected at least two servers other than client {c} (clients[{i}]) \
                         for a primary and a duplicate, got {eligible}"
                    ),
                ),
                None => err(
                    "",
                    format!(
                        "a DAS request needs two servers other than its client, for a primary \
                         and a duplicate; with `servers` not set every host serves, and the \
                         topology's {} host(s) leave client {c} {eligible}: add hosts",
                        hosts.n
                    ),
                ),
            };
        }
    }
    let cap: f64 = clients
        .iter()
        .map(|&c| hosts.link_bps[c as usize] as f64)
        .sum();
    let mean_gap = 8.0 * spec.sizes.mean() * SEC as f64 / (spec.load * cap);
    if !(mean_gap.is_finite() && mean_gap > 0.0) {
        return err(
            "load",
            format!("the request rate is not finite (mean gap {mean_gap} ps)"),
        );
    }
    // Request ids must stay below the duplicate bit; MAX_FLOWS / 2 requests is far below.
    let cap_requests = MAX_FLOWS / 2;
    let limit = spec.max_requests.unwrap_or(u64::MAX).min(cap_requests);
    let expected = (spec.stop - spec.start) as f64 / mean_gap;
    if spec.max_requests.is_none_or(|m| m > cap_requests) && expected > cap_requests as f64 {
        return err(
            "stop",
            format!(
                "expected at most {cap_requests} requests, but load and duration give about \
                 {expected:.3e}; shorten the run or set max_requests"
            ),
        );
    }

    let mut arr = Rng::stream(rng_master, rng_purpose::DAS_ARRIVAL, stream_index);
    let mut size_rng = Rng::stream(rng_master, rng_purpose::DAS_SIZE, stream_index);
    let mut client_rng = Rng::stream(rng_master, rng_purpose::DAS_CLIENT, stream_index);
    let mut server_rng = Rng::stream(rng_master, rng_purpose::DAS_SERVERS, stream_index);
    let ns = servers.len() as u64;
    let mut flows = Vec::with_capacity((2.0 * expected * 1.01 + 16.0).min(2e6) as usize);
    let mut t = spec.start as f64;
    let mut k: u64 = 0;
    while k < limit {
        t += mean_gap * arr.exp(1.0);
        let start = t.round() as Time;
        if start >= spec.stop {
            break;
        }
        k += 1;
        let c = clients[client_rng.below(clients.len() as u64) as usize];
        // Rejection sampling: at least two of `servers` are eligible (checked above), so
        // each draw succeeds with probability ≥ 2/|servers|.
        let a = loop {
            let s = servers[server_rng.below(ns) as usize];
            if s != c {
                break s;
            }
        };
        let b = loop {
            let s = servers[server_rng.below(ns) as usize];
            if s != c && s != a {
                break s;
            }
        };
        let size = spec.sizes.sample(&mut size_rng);
        let tag = k as u32;
        for (src, tag) in [(a, tag), (b, tag | DUPLICATE_TAG_BIT)] {
            flows.push(FlowSpec {
                src,
                dst: c,
                size,
                start,
                class: spec.class,
                deadline: None,
                tag,
                alpha: None,
                reliability: None,
            });
        }
    }
    Ok(flows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use dcnsim_engine::MS;

    const G10: u64 = 10_000_000_000;

    #[test]
    fn pairs_share_request_client_size_and_start() {
        let hosts = Hosts::star(8, G10);
        let spec = DasSpec::new(SizeDist::Uniform { lo: 1, hi: 200_000 }, 0.3, 0, 20 * MS);
        let f = das(&spec, &hosts, 7, 0).unwrap();
        assert!(f.len() > 100 && f.len().is_multiple_of(2));
        for (i, p) in f.chunks(2).enumerate() {
            let (prim, dup) = (&p[0], &p[1]);
            assert_eq!(split_tag(prim.tag), (i as u32 + 1, false));
            assert_eq!(split_tag(dup.tag), (i as u32 + 1, true));
            assert_eq!(prim.dst, dup.dst, "both copies answer the same client");
            assert_ne!(
                prim.src, dup.src,
                "primary and duplicate come from distinct servers"
            );
            assert_ne!(prim.src, prim.dst);
            assert_ne!(dup.src, dup.dst);
            assert_eq!((prim.size, prim.start), (dup.size, dup.start));
        }
        assert!(f.windows(2).all(|w| w[0].start <= w[1].start));
    }

    /// Too few servers for a primary and a duplicate: the error names `servers` when the
    /// list was given, and the workload table itself (path "") when every host serves by
    /// default and the topology is too small (found by the scenario fuzzer: the error named
    /// a `servers` key the scenario did not have).
    #[test]
    fn too_few_servers_names_what_was_written() {
        let spec = DasSpec::new(SizeDist::Uniform { lo: 1, hi: 256_000 }, 0.3, 0, 100 * MS);
        let e = das(&spec, &Hosts::star(2, G10), 3, 1).unwrap_err();
        assert_eq!(e.path, "");
        assert!(
            e.msg.contains("2 host(s)") && e.msg.contains("add hosts"),
            "{}",
            e.msg
        );
        assert!(das(&spec, &Hosts::star(3, G10), 3, 1).is_ok());
        let mut listed = spec.clone();
        listed.servers = Some(vec![0, 1]);
        let e = das(&listed, &Hosts::star(6, G10), 3, 1).unwrap_err();
        assert_eq!(e.path, "servers");
    }

    #[test]
    fn per_class_load_matches_client_capacity() {
        // Clients 0..4 at 10G: primaries alone must offer 30% of 40 Gb/s.
        let hosts = Hosts::star(12, G10);
        let mut spec = DasSpec::new(SizeDist::Uniform { lo: 1, hi: 256_000 }, 0.3, 0, 2000 * MS);
        spec.clients = Some(vec![0, 1, 2, 3]);
        spec.servers = Some((4..12).collect());
        let f = das(&spec, &hosts, 3, 1).unwrap();
        let prim_bytes: u64 = f
            .iter()
            .filter(|x| !split_tag(x.tag).1)
            .map(|x| x.size)
            .sum();
        let dup_bytes: u64 = f
            .iter()
            .filter(|x| split_tag(x.tag).1)
            .map(|x| x.size)
            .sum();
        assert_eq!(prim_bytes, dup_bytes);
        let offered = prim_bytes as f64 * 8.0 / 2.0 / (4.0 * G10 as f64);
        assert!((offered / 0.3 - 1.0).abs() < 0.03, "offered {offered}");
        assert!(f.iter().all(|x| x.dst < 4 && x.src >= 4));
        // every client is used
        for c in 0..4 {
            assert!(f.iter().any(|x| x.dst == c));
        }
    }

    #[test]
    fn streams_are_independent_of_sizes() {
        let hosts = Hosts::star(6, G10);
        let a = das(
            &DasSpec::new(SizeDist::Fixed(1000), 0.2, 0, MS),
            &hosts,
            5,
            2,
        )
        .unwrap();
        let b = das(
            &DasSpec::new(SizeDist::Uniform { lo: 1, hi: 1999 }, 0.2, 0, MS),
            &hosts,
            5,
            2,
        )
        .unwrap();
        let key = |v: &[FlowSpec]| -> Vec<(u32, u32, Time, u32)> {
            v.iter().map(|x| (x.src, x.dst, x.start, x.tag)).collect()
        };
        assert_eq!(key(&a), key(&b));
        let c = das(
            &DasSpec::new(SizeDist::Fixed(1000), 0.2, 0, MS),
            &hosts,
            6,
            2,
        )
        .unwrap();
        assert_ne!(key(&a), key(&c));
    }

    #[test]
    fn errors_name_keys() {
        let hosts = Hosts::star(4, G10);
        let mut s = DasSpec::new(SizeDist::Fixed(1000), 0.0, 0, MS);
        assert_eq!(das(&s, &hosts, 1, 0).unwrap_err().path, "load");
        s.load = 0.3;
        s.servers = Some(vec![0, 1]);
        s.clients = Some(vec![1, 2]);
        let e = das(&s, &hosts, 1, 0).unwrap_err();
        assert_eq!(e.path, "servers");
        assert!(e.msg.contains("client 1"), "{e}");
        s.servers = Some(vec![0, 9]);
        assert_eq!(das(&s, &hosts, 1, 0).unwrap_err().path, "servers[1]");
        s.servers = None;
        s.clients = Some(vec![]);
        assert_eq!(das(&s, &hosts, 1, 0).unwrap_err().path, "clients");
        s.clients = None;
        s.stop = 0;
        assert_eq!(das(&s, &hosts, 1, 0).unwrap_err().path, "stop");
        s.stop = MS;
        s.max_requests = Some(3);
        assert_eq!(das(&s, &hosts, 1, 0).unwrap().len(), 6);
    }
}
