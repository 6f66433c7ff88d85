//! Source/destination pairs: all-to-all, intra-rack, inter-rack, a fixed random
//! permutation, explicit lists; and the permutation of long flows.
//!
//! Every pattern draws exactly the same number of values per flow from the pair stream
//! (two, or one for `Permutation`), so the pair sequence does not depend on sizes or
//! arrival times.

use dcnsim_engine::{Rng, Time};
use serde::{Deserialize, Serialize};

use crate::error::{err, WorkloadError};
use crate::{rng_purpose, FlowSpec, Hosts};

/// How each flow picks its source and destination. The source is always uniform over the
/// hosts that can send under the pattern; the destination is uniform over the hosts
/// allowed for that source. `src == dst` never happens.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Pairs {
    /// Any host to any other host.
    #[default]
    AllToAll,
    /// Destination in the source's rack. Sources are the hosts whose rack has another host.
    IntraRack,
    /// Destination outside the source's rack (needs at least two racks).
    InterRack,
    /// A random derangement `perm` (no fixed points) drawn once per call from the
    /// `PERMUTATION` stream; each flow picks a uniform source `s` and sends to `perm[s]`.
    Permutation,
    /// Source uniform from `src`, destination uniform from `dst` minus the source.
    /// Lists must be non-empty, in range and without duplicates.
    Fixed { src: Vec<u32>, dst: Vec<u32> },
}

/// A validated, precomputed pair chooser.
pub(crate) enum PairPicker {
    AllToAll {
        n: u64,
    },
    /// `by_rack`: hosts grouped by rack; rack `g` is `by_rack[off[g]..off[g+1]]`.
    Racks {
        by_rack: Vec<u32>,
        off: Vec<usize>,
        group_of: Vec<usize>,
        srcs: Vec<u32>,
        intra: bool,
    },
    Permutation {
        perm: Vec<u32>,
    },
    Fixed {
        src: Vec<u32>,
        dst: Vec<u32>,
        pos_in_dst: Vec<Option<usize>>,
    },
}

/// Validates an index list: non-empty, every entry `< n`, no duplicates.
pub(crate) fn check_host_list(list: &[u32], n: u32, path: &str) -> Result<(), WorkloadError> {
    if list.is_empty() {
        return err(path, "expected a non-empty list of host indices");
    }
    let mut seen = vec![false; n as usize];
    for (i, &h) in list.iter().enumerate() {
        if h >= n {
            return err(
                format!("{path}[{i}]"),
                format!("expected a host index < {n}, got {h}"),
            );
        }
        if std::mem::replace(&mut seen[h as usize], true) {
            return err(format!("{path}[{i}]"), format!("host {h} is listed twice"));
        }
    }
    Ok(())
}

/// Groups hosts by rack: (hosts sorted by (rack, index), group offsets, group of each host).
pub(crate) fn rack_groups(hosts: &Hosts) -> (Vec<u32>, Vec<usize>, Vec<usize>) {
    let mut by_rack: Vec<u32> = (0..hosts.n).collect();
    by_rack.sort_by_key(|&h| (hosts.rack_of[h as usize], h));
    let mut off = vec![0];
    let mut group_of = vec![0; hosts.n as usize];
    for (i, &h) in by_rack.iter().enumerate() {
        if i > 0 && hosts.rack_of[h as usize] != hosts.rack_of[by_rack[i - 1] as usize] {
            off.push(i);
        }
        group_of[h as usize] = off.len() - 1;
    }
    off.push(by_rack.len());
    (by_rack, off, group_of)
}

impl PairPicker {
    /// `hosts` must already be validated. `path` is the key of the `pairs` value.
    pub(crate) fn new(
        pairs: &Pairs,
        hosts: &Hosts,
        rng_master: u64,
        stream_index: u64,
        path: &str,
    ) -> Result<PairPicker, WorkloadError> {
        match pairs {
            Pairs::AllToAll => Ok(PairPicker::AllToAll { n: hosts.n as u64 }),
            Pairs::IntraRack | Pairs::InterRack => {
                let intra = matches!(pairs, Pairs::IntraRack);
                let (by_rack, off, group_of) = rack_groups(hosts);
                let racks = off.len() - 1;
                let size = |g: usize| off[g + 1] - off[g];
                let srcs: Vec<u32> = if intra {
                    (0..hosts.n)
                        .filter(|&h| size(group_of[h as usize]) >= 2)
                        .collect()
                } else if racks >= 2 {
                    (0..hosts.n).collect()
                } else {
                    Vec::new()
                };
                if srcs.is_empty() {
                    let want = if intra {
                        "a rack with at least 2 hosts"
                    } else {
                        "at least 2 racks"
                    };
                    return err(
                        path,
                        format!("expected {want} for this pattern, got {racks} rack(s) in hosts.rack_of"),
                    );
                }
                Ok(PairPicker::Racks {
                    by_rack,
                    off,
                    group_of,
                    srcs,
                    intra,
                })
            }
            Pairs::Permutation => Ok(PairPicker::Permutation {
                perm: derangement(
                    hosts.n,
                    &mut Rng::stream(rng_master, rng_purpose::PERMUTATION, stream_index),
                ),
            }),
            Pairs::Fixed { src, dst } => {
                check_host_list(src, hosts.n, &format!("{path}.src"))?;
                check_host_list(dst, hosts.n, &format!("{path}.dst"))?;
                if dst.len() == 1 {
                    if let Some(i) = src.iter().position(|&s| s == dst[0]) {
                        return err(
                            format!("{path}.src[{i}]"),
                            format!(
                                "host {} is also the only destination, so it has no host to \
                                 send to; expected sources other than the destination",
                                dst[0]
                            ),
                        );
                    }
                }
                let mut pos = vec![None; hosts.n as usize];
                for (i, &d) in dst.iter().enumerate() {
                    pos[d as usize] = Some(i);
                }
                Ok(PairPicker::Fixed {
                    src: src.clone(),
                    dst: dst.clone(),
                    pos_in_dst: pos,
                })
            }
        }
    }

    /// The hosts that can be sources (for `LoadBasis::SenderHosts`).
    pub(crate) fn sources(&self, hosts: &Hosts) -> Vec<u32> {
        match self {
            PairPicker::Racks { srcs, .. } => srcs.clone(),
            PairPicker::Fixed { src, .. } => src.clone(),
            _ => (0..hosts.n).collect(),
        }
    }

    /// Draws one `(src, dst)` pair with `src != dst`.
    pub(crate) fn pick(&self, rng: &mut Rng) -> (u32, u32) {
        match self {
            PairPicker::AllToAll { n } => {
                let s = rng.below(*n);
                let mut d = rng.below(n - 1);
                if d >= s {
                    d += 1;
                }
                (s as u32, d as u32)
            }
            PairPicker::Racks {
                by_rack,
                off,
                group_of,
                srcs,
                intra,
            } => {
                let s = srcs[rng.below(srcs.len() as u64) as usize];
                let g = group_of[s as usize];
                let (lo, hi) = (off[g], off[g + 1]);
                let d = if *intra {
                    // Uniform over the rack minus the source.
                    let own = lo + by_rack[lo..hi].iter().position(|&h| h == s).unwrap_or(0);
                    let mut k = lo + rng.below((hi - lo - 1) as u64) as usize;
                    if k >= own {
                        k += 1;
                    }
                    by_rack[k]
                } else {
                    // Uniform over all hosts outside the rack: skip the rack's block.
                    let mut k = rng.below((by_rack.len() - (hi - lo)) as u64) as usize;
                    if k >= lo {
                        k += hi - lo;
                    }
                    by_rack[k]
                };
                (s, d)
            }
            PairPicker::Permutation { perm } => {
                let s = rng.below(perm.len() as u64) as usize;
                (s as u32, perm[s])
            }
            PairPicker::Fixed {
                src,
                dst,
                pos_in_dst,
            } => {
                let s = src[rng.below(src.len() as u64) as usize];
                let d = match pos_in_dst[s as usize] {
                    Some(own) => {
                        let mut k = rng.below((dst.len() - 1) as u64) as usize;
                        if k >= own {
                            k += 1;
                        }
                        dst[k]
                    }
                    None => dst[rng.below(dst.len() as u64) as usize],
                };
                (s, d)
            }
        }
    }
}

/// A uniformly random derangement of `0..n` (a permutation with `perm[i] != i`), by
/// rejection: shuffle (Fisher–Yates) until no fixed point remains, about e ≈ 2.7 tries.
/// After 1000 failures (probability < 1e-199) it falls back to Sattolo's algorithm (a
/// random single cycle), so it always terminates. `n < 2` has no derangement: returns
/// the identity for n = 1 and an empty vector for n = 0.
pub(crate) fn derangement(n: u32, rng: &mut Rng) -> Vec<u32> {
    let mut p: Vec<u32> = (0..n).collect();
    if n < 2 {
        return p;
    }
    for _ in 0..1000 {
        for i in (1..p.len()).rev() {
            let j = rng.below(i as u64 + 1) as usize;
            p.swap(i, j);
        }
        if p.iter().enumerate().all(|(i, &x)| x as usize != i) {
            return p;
        }
    }
    p = (0..n).collect();
    for i in (1..p.len()).rev() {
        let j = rng.below(i as u64) as usize; // j < i: Sattolo
        p.swap(i, j);
    }
    p
}

/// Every host sends one flow of `size` bytes (at least 1) at `start` to `perm[host]`, a
/// random derangement (so every host also receives exactly one flow). Flows are listed
/// by source index. Fewer than two hosts give no flows. The permutation is drawn from
/// the `PERMUTATION` stream of `(rng_master, stream_index)`.
pub fn permutation_long_flows(
    hosts: &Hosts,
    size: u64,
    start: Time,
    class: u16,
    rng_master: u64,
    stream_index: u64,
) -> Vec<FlowSpec> {
    if hosts.n < 2 {
        return Vec::new();
    }
    let mut rng = Rng::stream(rng_master, rng_purpose::PERMUTATION, stream_index);
    derangement(hosts.n, &mut rng)
        .into_iter()
        .enumerate()
        .map(|(s, d)| FlowSpec {
            src: s as u32,
            dst: d,
            size: size.max(1),
            start,
            class,
            deadline: None,
            tag: 0,
            alpha: None,
            reliability: None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn picks(p: &Pairs, h: &Hosts, k: usize) -> Vec<(u32, u32)> {
        let pk = PairPicker::new(p, h, 7, 0, "pairs").unwrap();
        let mut r = Rng::new(3);
        (0..k).map(|_| pk.pick(&mut r)).collect()
    }

    #[test]
    fn all_to_all_never_self_and_covers_all_pairs() {
        let h = Hosts::star(5, 1);
        let v = picks(&Pairs::AllToAll, &h, 20_000);
        assert!(v.iter().all(|&(s, d)| s != d && s < 5 && d < 5));
        let mut seen = [[false; 5]; 5];
        for &(s, d) in &v {
            seen[s as usize][d as usize] = true;
        }
        let covered = seen.iter().flatten().filter(|&&b| b).count();
        assert_eq!(covered, 20);
    }

    #[test]
    fn rack_patterns_respected() {
        // Racks with unequal sizes and non-contiguous labels.
        let h = Hosts {
            n: 7,
            rack_of: vec![9, 3, 9, 3, 3, 5, 9],
            link_bps: vec![1; 7],
        };
        let intra = picks(&Pairs::IntraRack, &h, 20_000);
        assert!(intra
            .iter()
            .all(|&(s, d)| s != d && h.rack_of[s as usize] == h.rack_of[d as usize]));
        // Host 5 is alone in its rack: never a source or destination of intra-rack flows.
        assert!(intra.iter().all(|&(s, d)| s != 5 && d != 5));
        let inter = picks(&Pairs::InterRack, &h, 20_000);
        assert!(inter
            .iter()
            .all(|&(s, d)| h.rack_of[s as usize] != h.rack_of[d as usize]));
        // Every inter-rack pair occurs.
        let mut n_pairs = std::collections::BTreeSet::new();
        for p in &inter {
            n_pairs.insert(*p);
        }
        let expected = (0..7)
            .flat_map(|s| (0..7).map(move |d| (s, d)))
            .filter(|&(s, d)| h.rack_of[s] != h.rack_of[d])
            .count();
        assert_eq!(n_pairs.len(), expected);
    }

    #[test]
    fn rack_pattern_errors() {
        let star = Hosts::star(4, 1);
        let e = PairPicker::new(&Pairs::InterRack, &star, 1, 0, "pairs")
            .err()
            .unwrap();
        assert_eq!(e.path, "pairs");
        assert!(e.msg.contains("expected at least 2 racks"), "{e}");
        let singles = Hosts {
            n: 3,
            rack_of: vec![0, 1, 2],
            link_bps: vec![1; 3],
        };
        let e = PairPicker::new(&Pairs::IntraRack, &singles, 1, 0, "pairs")
            .err()
            .unwrap();
        assert!(
            e.msg.contains("expected a rack with at least 2 hosts"),
            "{e}"
        );
    }

    #[test]
    fn permutation_is_a_derangement() {
        for n in [2u32, 3, 10, 101] {
            for seed in 0..20 {
                let p = derangement(n, &mut Rng::new(seed));
                let mut sorted = p.clone();
                sorted.sort();
                assert_eq!(sorted, (0..n).collect::<Vec<_>>());
                assert!(p.iter().enumerate().all(|(i, &x)| x as usize != i));
            }
        }
        let h = Hosts::star(16, 1);
        let v = picks(&Pairs::Permutation, &h, 5000);
        let mut dst_of = [None; 16];
        for &(s, d) in &v {
            assert_ne!(s, d);
            // Fixed permutation: a source always sends to the same destination.
            assert!(dst_of[s as usize].is_none_or(|x| x == d));
            dst_of[s as usize] = Some(d);
        }
        let flows = permutation_long_flows(&h, 1_000_000, 5, 2, 42, 0);
        assert_eq!(flows.len(), 16);
        let mut dsts: Vec<u32> = flows.iter().map(|f| f.dst).collect();
        assert!(flows
            .iter()
            .all(|f| f.src != f.dst && f.start == 5 && f.class == 2));
        dsts.sort();
        assert_eq!(dsts, (0..16).collect::<Vec<_>>());
        assert_ne!(flows, permutation_long_flows(&h, 1_000_000, 5, 2, 43, 0));
        assert_eq!(flows, permutation_long_flows(&h, 1_000_000, 5, 2, 42, 0));
        assert!(permutation_long_flows(&Hosts::star(1, 1), 1, 0, 0, 1, 0).is_empty());
    }

    #[test]
    fn fixed_lists() {
        let h = Hosts::star(10, 1);
        let p = Pairs::Fixed {
            src: vec![1, 2, 3],
            dst: vec![3, 4],
        };
        let v = picks(&p, &h, 10_000);
        assert!(v
            .iter()
            .all(|&(s, d)| s != d && [1, 2, 3].contains(&s) && [3, 4].contains(&d)));
        // Source 3 can only send to 4.
        assert!(v.iter().filter(|p| p.0 == 3).all(|p| p.1 == 4));
        assert!(v.contains(&(1, 3)));
        let bad = |src: Vec<u32>, dst: Vec<u32>| {
            PairPicker::new(&Pairs::Fixed { src, dst }, &h, 1, 0, "pairs")
                .err()
                .unwrap()
        };
        let e = bad(vec![], vec![1]);
        assert_eq!(e.path, "pairs.src");
        assert!(e.msg.contains("non-empty"));
        let e = bad(vec![1, 10], vec![1]);
        assert_eq!(e.path, "pairs.src[1]");
        assert!(e.msg.contains("expected a host index < 10, got 10"), "{e}");
        let e = bad(vec![1], vec![2, 2]);
        assert_eq!(e.path, "pairs.dst[1]");
        assert!(e.msg.contains("listed twice"));
        let e = bad(vec![1, 2], vec![2]);
        assert_eq!(e.path, "pairs.src[1]");
        assert!(e.msg.contains("only destination"), "{e}");
    }
}
