//! The repository's performance scenarios (`dcnsim bench`): events/s, packet-hops/s and,
//! measured by the caller around a fresh process, peak memory.
//!
//! - `leafspine_openloop` / `fattree_openloop`: the fabric alone under open-loop load.
//! - `dctcp_incast16`: 16 DCTCP senders → 1 receiver on one switch, 10 Gb/s, 1 µs links,
//!   K = 65 packets, 1000-packet buffer, long flows, 0.1 s simulated.
//! - `dctcp_fattree8`: k = 8 fat tree (128 hosts, 10 Gb/s, 1 µs), a random permutation of
//!   long DCTCP flows, K = 15 packets, 100-packet queues, one ECMP path per flow.
//! - `dcqcn_fattree8`: the same fat tree and permutation with RoCEv2 / DCQCN flows (the
//!   built-in `dcqcn`), RED-ECN at DCQCN's Kmin 5 KB / Kmax 200 KB / Pmax 1%, 1000-packet
//!   queues (so RED, not the queue limit, governs).
//! - `hpcc_fattree8`: the same fat tree and permutation with RoCEv2 / HPCC flows (the
//!   built-in `hpcc`: INT at every switch egress, SACK recovery), the same switches.
//! - `tcp_incast16_shared` / `tcp_incast16_pfc`: 16 NewReno senders → 1 on one switch with a
//!   1 MB shared buffer, 0.5 s; lossy, then lossless under PFC (the PFC on/off pair).
//! - `scale_fattree4` … `scale_fattree16`: the scaling rows: `dctcp_fattree8`'s switches,
//!   flows and links on fat trees of k = 4, 8, 12, 16 (16 to 1,024 hosts), 5 ms each, for
//!   the cost per packet-hop and the memory as the fabric grows.
//! - `websearch_poisson` / `_1e8` / `_1e9`: a k = 4 fat tree under DCTCP with Poisson
//!   web-search arrivals at 60% load for 50 ms, 0.7 s and 7 s (about 4e6, 1e8 and 1e9
//!   events): peak memory against run length (the last runs only when named).
//! - `reflex_workload`: a shortened run of REFLEX Figs 13–17 (Workload 2 under REFLEX, as
//!   `dcnsim reproduce reflex` plans it): 20 hosts on one switch, 10 Gb/s, DRR 90/10 with
//!   RED at 65 packets, DCTCP with the paper's timers, flexible 250 MB Poisson flows
//!   (α = 1) at 20% of the host links beside regular 100 kB flows at 2%, 0.3 s.

use crate::run::{run_built_with, RunMeta};
use crate::scenario::build::FsReader;

pub const NAMES: &[&str] = &[
    "leafspine_openloop",
    "fattree_openloop",
    "dctcp_incast16",
    "dctcp_fattree8",
    "dcqcn_fattree8",
    "hpcc_fattree8",
    "tcp_incast16_shared",
    "tcp_incast16_pfc",
    "scale_fattree4",
    "scale_fattree8",
    "scale_fattree12",
    "scale_fattree16",
    "websearch_poisson",
    "websearch_poisson_1e8",
    "reflex_workload",
];

/// Benchmarks run only when named (they take minutes).
pub const EXTRA: &[&str] = &["websearch_poisson_1e9"];

/// A loaded k = 4 fat tree (16 hosts, 10 Gb/s, 1 µs) under DCTCP with Poisson web-search
/// arrivals at 60% of the host links for `dur`: about 8e7 events per simulated second, a
/// flow every ~0.13 ms.
fn websearch_poisson(name: &str, dur: &str) -> String {
    format!(
        r#"{{"name": "bench-{name}", "topology": {{"kind": "fat_tree", "k": 4, "link": {{"rate": "10Gbps", "delay": "1us"}}}},
            "switch": {{"queues": 1, "scheduler": {{"kind": "fifo"}}, "port_limit": "100pkt", "ecn": {{"kind": "step", "k": "20pkt"}}}},
            "host": {{"queues": 1, "scheduler": {{"kind": "fifo"}}}},
            "classes": [{{"name": "web", "transport": "dctcp",
                          "workload": {{"kind": "poisson", "load": 0.6, "sizes": {{"cdf": "websearch"}}}}}}],
            "run": {{"duration": "{dur}"}}}}"#
    )
}

/// The scenario JSON of a benchmark.
pub fn scenario(name: &str) -> Option<String> {
    let j = match name {
        "leafspine_openloop" => {
            // 8 leaves × 16 hosts, 4 spines, 10G hosts / 40G fabric (no oversubscription);
            // every host sends a 9 Gb/s stream to a host on another leaf.
            let mut sources = Vec::new();
            for h in 0..128u32 {
                let dst = (h + 16 * 3 + 5) % 128;
                sources.push(format!(r#"{{"src": {h}, "dst": {dst}, "rate": "9Gbps", "packet": "1538B"}}"#));
            }
            format!(
                r#"{{"name": "bench-leafspine", "topology": {{"kind": "leaf_spine", "leaves": 8, "spines": 4, "hosts_per_leaf": 16,
                    "host_link": {{"rate": "10Gbps", "delay": "1us"}}, "fabric_link": {{"rate": "40Gbps", "delay": "1us"}}}},
                    "switch": {{"queues": 1, "scheduler": {{"kind": "fifo"}}, "port_limit": "100pkt"}},
                    "sources": [{}], "run": {{"duration": "20ms"}}}}"#,
                sources.join(",")
            )
        }
        "fattree_openloop" => {
            let mut sources = Vec::new();
            for h in 0..128u32 {
                let dst = (h * 37 + 11) % 128;
                let dst = if dst == h { (h + 64) % 128 } else { dst };
                sources.push(format!(r#"{{"src": {h}, "dst": {dst}, "rate": "8Gbps", "packet": "1538B"}}"#));
            }
            format!(
                r#"{{"name": "bench-fattree", "topology": {{"kind": "fat_tree", "k": 8, "link": {{"rate": "10Gbps", "delay": "1us"}}}},
                    "switch": {{"queues": 1, "scheduler": {{"kind": "fifo"}}, "port_limit": "100pkt"}},
                    "sources": [{}], "run": {{"duration": "20ms"}}}}"#,
                sources.join(",")
            )
        }
        "dctcp_incast16" => {
            let flows: Vec<String> = (0..16).map(|h| format!(r#"{{"src": {h}, "dst": 16, "size": "10GB", "start": 0}}"#)).collect();
            format!(
                r#"{{"name": "bench-incast16", "topology": {{"kind": "star", "hosts": 17, "link": {{"rate": "10Gbps", "delay": "1us"}}}},
                    "switch": {{"queues": 1, "scheduler": {{"kind": "fifo"}}, "port_limit": "1000pkt",
                                "ecn": {{"kind": "step", "k": "65pkt"}}}},
                    "host": {{"queues": 1, "scheduler": {{"kind": "fifo"}}}},
                    "classes": [{{"name": "long", "transport": "dctcp", "workload": {{"kind": "flows", "list": [{}]}}}}],
                    "run": {{"duration": "100ms", "horizon": "100ms"}}}}"#,
                flows.join(",")
            )
        }
        "tcp_incast16_shared" | "tcp_incast16_pfc" => {
            let flows: Vec<String> = (0..16).map(|h| format!(r#"{{"src": {h}, "dst": 16, "size": "10GB", "start": 0}}"#)).collect();
            let pfc = if name.ends_with("pfc") { r#", "pfc": {}"# } else { "" };
            format!(
                r#"{{"name": "bench-{name}", "topology": {{"kind": "star", "hosts": 17, "link": {{"rate": "10Gbps", "delay": "1us"}}}},
                    "switch": {{"queues": 1, "scheduler": {{"kind": "fifo"}}, "port_limit": "1000000pkt",
                                "shared_buffer": "1MB"{pfc}}},
                    "host": {{"queues": 1, "scheduler": {{"kind": "fifo"}}}},
                    "transports": {{"reno": {{"cc": "newreno", "rto_min": "1ms", "rto_init": "1ms"}}}},
                    "classes": [{{"name": "long", "transport": "reno", "workload": {{"kind": "flows", "list": [{}]}}}}],
                    "run": {{"duration": "500ms", "horizon": "500ms"}}}}"#,
                flows.join(",")
            )
        }
        "dctcp_fattree8" => r#"{"name": "bench-fattree8-dctcp", "topology": {"kind": "fat_tree", "k": 8, "link": {"rate": "10Gbps", "delay": "1us"}},
                "switch": {"queues": 1, "scheduler": {"kind": "fifo"}, "port_limit": "100pkt", "ecn": {"kind": "step", "k": "15pkt"}},
                "host": {"queues": 1, "scheduler": {"kind": "fifo"}},
                "classes": [{"name": "long", "transport": "dctcp", "workload": {"kind": "permutation", "size": "10GB"}}],
                "run": {"duration": "20ms", "horizon": "20ms"}}"#
            .to_string(),
        "dcqcn_fattree8" => r#"{"name": "bench-fattree8-dcqcn", "topology": {"kind": "fat_tree", "k": 8, "link": {"rate": "10Gbps", "delay": "1us"}},
                "switch": {"queues": 1, "scheduler": {"kind": "fifo"}, "port_limit": "1000pkt",
                           "ecn": {"kind": "red", "kmin": "5KB", "kmax": "200KB", "pmax": 0.01}},
                "host": {"queues": 1, "scheduler": {"kind": "fifo"}},
                "classes": [{"name": "long", "transport": "dcqcn", "workload": {"kind": "permutation", "size": "10GB"}}],
                "run": {"duration": "20ms", "horizon": "20ms"}}"#
            .to_string(),
        "hpcc_fattree8" => r#"{"name": "bench-fattree8-hpcc", "topology": {"kind": "fat_tree", "k": 8, "link": {"rate": "10Gbps", "delay": "1us"}},
                "switch": {"queues": 1, "scheduler": {"kind": "fifo"}, "port_limit": "1000pkt",
                           "ecn": {"kind": "red", "kmin": "5KB", "kmax": "200KB", "pmax": 0.01}},
                "host": {"queues": 1, "scheduler": {"kind": "fifo"}},
                "classes": [{"name": "long", "transport": "hpcc", "workload": {"kind": "permutation", "size": "10GB"}}],
                "run": {"duration": "20ms", "horizon": "20ms"}}"#
            .to_string(),
        "scale_fattree4" | "scale_fattree8" | "scale_fattree12" | "scale_fattree16" => {
            let k = &name["scale_fattree".len()..];
            format!(
                r#"{{"name": "bench-scale-fattree{k}", "topology": {{"kind": "fat_tree", "k": {k}, "link": {{"rate": "10Gbps", "delay": "1us"}}}},
                    "switch": {{"queues": 1, "scheduler": {{"kind": "fifo"}}, "port_limit": "100pkt", "ecn": {{"kind": "step", "k": "15pkt"}}}},
                    "host": {{"queues": 1, "scheduler": {{"kind": "fifo"}}}},
                    "classes": [{{"name": "long", "transport": "dctcp", "workload": {{"kind": "permutation", "size": "10GB"}}}}],
                    "run": {{"duration": "5ms", "horizon": "5ms"}}}}"#
            )
        }
        // ~4e6, ~1e8 and ~1e9 events.
        "websearch_poisson" => websearch_poisson(name, "50ms"),
        "websearch_poisson_1e8" => websearch_poisson(name, "700ms"),
        "websearch_poisson_1e9" => websearch_poisson(name, "7s"),
        // The devices, packets and TCP settings of python/dcnsim/scenarios/reflex.toml and the
        // classes of `workload_overrides("wl2", "reflex")` in python/dcnsim/papers/reflex/
        // scenario.py.
        "reflex_workload" => r#"{"name": "bench-reflex-workload", "seed": 1,
                "topology": {"kind": "star", "hosts": 20, "link": {"rate": "10Gbps", "delay": "1us"}},
                "packet": {"mtu": 1432, "eth_overhead": 2, "min_wire": 54, "tcp_timestamps": true},
                "switch": {"queues": 2, "scheduler": {"kind": "drr", "weights": [90, 10]}, "queue_limit": "466pkt",
                           "port_limit": "932pkt", "ecn": {"kind": "step", "k": "65pkt"}},
                "host": {"queues": 2, "scheduler": {"kind": "drr", "weights": [90, 10]}, "queue_limit": "466pkt",
                         "ecn": {"kind": "step", "k": "65pkt"}, "driver_queue": 20},
                "scheme": {"kind": "reflex", "interval": "5ms", "warmup": 1, "measure": 1, "exploit": 3, "low_priority": 1},
                "transports": {"dctcp": {"cc": "dctcp", "dctcp_g": 0.0625, "init_cwnd": 10, "sack": true, "rto_min": "1ms",
                               "rto_init": "2ms", "clock_granularity": "1ms", "delayed_ack": true, "delack_count": 2,
                               "delack_timeout": "1ms", "rwnd": "1MiB"}},
                "classes": [{"name": "flexible", "priority": 0, "transport": "dctcp", "alpha": 1.0,
                             "workload": {"kind": "poisson", "sizes": {"fixed": "250MB"}, "load": 0.2}},
                            {"name": "regular", "priority": 0, "transport": "dctcp",
                             "workload": {"kind": "poisson", "sizes": {"fixed": "100kB"}, "load": 0.02}}],
                "run": {"duration": "300ms", "horizon": "300ms"}}"#
            .to_string(),
        _ => return None,
    };
    Some(j)
}

/// Runs a benchmark in this process. Flow rows go to a sink that only counts them (a
/// streaming run keeps no finished flow), so peak memory is the simulator's own.
pub fn run(name: &str) -> Option<RunMeta> {
    let j = scenario(name)?;
    let sc = crate::scenario::from_json(&j).expect("benchmark scenarios are valid");
    let built = sc.build(&FsReader).expect("benchmark scenarios are valid");
    let rows = std::rc::Rc::new(std::cell::Cell::new(0usize));
    let r = rows.clone();
    let sink: crate::sim::flow::FlowSink = Box::new(move |t| r.set(r.get() + t.len()));
    let out = run_built_with(built, &sc.name, sc.seed, &mut |_| true, Some(sink));
    debug_assert_eq!(rows.get() as u64, out.meta.flows_total);
    Some(out.meta)
}

#[cfg(test)]
mod tests {
    #[test]
    fn bench_scenarios_are_valid() {
        for n in super::NAMES.iter().chain(super::EXTRA) {
            let j = super::scenario(n).unwrap();
            let sc = crate::scenario::from_json(&j).unwrap_or_else(|e| panic!("{n}: {e}"));
            sc.check().unwrap_or_else(|e| panic!("{n}: {e}"));
        }
    }
}
