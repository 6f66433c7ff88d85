//! Hostile input (issue #16): every case here once panicked, wrapped, clamped, named a key
//! the user never wrote, or was accepted without effect. Each must now be a keyed error (or a
//! warning naming the key), decided before anything big is allocated.

use dcnsim::scenario::build::FsReader;
use dcnsim::scenario::from_json;
use serde_json::{json, Value};

/// A small valid scenario to mutate.
fn base() -> Value {
    json!({
        "topology": {"kind": "star", "hosts": 4, "link": {"rate": "10Gbps", "delay": "1us"}},
        "classes": [{"name": "a", "transport": "dctcp",
                     "workload": {"kind": "poisson", "load": 0.3, "sizes": {"fixed": "10KB"}}}],
        "run": {"duration": "1ms", "memory_limit": "2GB"}
    })
}

fn set(v: &mut Value, path: &[&str], x: Value) {
    let mut node = v;
    for (i, k) in path.iter().enumerate() {
        if i + 1 == path.len() {
            node[*k] = x;
            return;
        }
        node = if let Ok(n) = k.parse::<usize>() {
            &mut node[n]
        } else {
            &mut node[*k]
        };
    }
}

fn with(path: &[&str], x: Value) -> Value {
    let mut v = base();
    set(&mut v, path, x);
    v
}

/// (path, message) of the validation error, or panics if the input is accepted.
fn err(v: &Value) -> (String, String) {
    let r = std::panic::catch_unwind(|| {
        let sc = from_json(&v.to_string())?;
        sc.build(&FsReader).map(|_| ())
    })
    .expect("validation must not panic");
    match r {
        Ok(()) => panic!("expected an error for {v}"),
        Err(e) => (e.path, e.msg),
    }
}

fn warnings(v: &Value) -> Vec<String> {
    let sc = from_json(&v.to_string()).unwrap();
    sc.build(&FsReader)
        .unwrap_or_else(|e| panic!("{e}"))
        .warnings
}

#[test]
fn panics_and_wraps_from_input_are_keyed_errors() {
    // split_at(1) on a multi-byte first character
    let v = json!({
        "topology": {"kind": "explicit", "hosts": 2, "switches": 1, "links": [
            {"a": "h0", "b": "s0", "rate": "10Gbps", "delay": "1us"},
            {"a": "é1", "b": "s0", "rate": "10Gbps", "delay": "1us"}]},
    });
    let (p, m) = err(&v);
    assert_eq!(p, "topology.links[1].a");
    assert!(m.contains("\"é1\""), "{m}");
    // ≥ 65,535 leaves: a spine would need more ports than a u16 numbers
    let ls = |leaves: u64, hpl: u64| {
        json!({"topology": {"kind": "leaf_spine", "leaves": leaves, "spines": 1,
            "hosts_per_leaf": hpl, "host_link": {"rate": "10Gbps", "delay": "1us"},
            "fabric_link": {"rate": "10Gbps", "delay": "1us"}}})
    };
    let (p, m) = err(&ls(70_000, 1));
    assert_eq!(p, "topology.leaves");
    assert!(m.contains("70000 ports"), "{m}");
    // leaves × hosts_per_leaf wraps a u32 (65536 × 65536 = 0): must not read as "< 2 hosts"
    let (p, m) = err(&ls(2, 65_536));
    assert_eq!(p, "topology.hosts_per_leaf");
    assert!(m.contains("ports"), "{m}");
    // 65535 leaves of one host: the route table offsets would wrap a u32 (the index out of
    // bounds), even with a limit that admits the memory
    let mut v = ls(65_535, 1);
    v["run"] = json!({"memory_limit": "1000000GB"});
    let (p, m) = err(&v);
    assert_eq!(p, "topology.leaves");
    assert!(m.contains("route tables") || m.contains("refuses"), "{m}");
    let (p, m) = err(&ls(65_535, 65_534));
    assert!(p.starts_with("topology."), "{p}");
    assert!(!m.contains("at least 2 hosts"), "{m}");
    // an incast's flow count driven by flows_per_sender names it, not the period
    let mut v = base();
    v["classes"][0]["workload"] = json!({"kind": "incast", "fan_in": 2, "receiver": 0,
        "period": "100us", "flows_per_sender": 4_294_967_295u64,
        "bytes_per_sender": {"fixed": "10KB"}});
    let (p, m) = err(&v);
    assert_eq!(p, "classes[0].workload.flows_per_sender", "{m}");
    v["classes"][0]["workload"]["flows_per_sender"] = json!(1);
    v["classes"][0]["workload"]["period"] = json!("1ps");
    assert_eq!(err(&v).0, "classes[0].workload.period");
    // a leaf's ports overflow through the spines: the error names spines, not the hosts
    let mut v = ls(2, 4);
    v["topology"]["spines"] = json!(4_294_967_290u64);
    let (p, m) = err(&v);
    assert_eq!(p, "topology.spines", "{m}");
}

#[test]
fn values_out_of_range_are_rejected_not_clamped() {
    for (path, x, key) in [
        (
            vec!["classes", "0", "workload", "sizes", "fixed"],
            json!(1.8446744073709552e19),
            "classes[0].workload.sizes.fixed",
        ),
        (
            vec!["topology", "link", "rate"],
            json!("1e30bps"),
            "topology.link.rate",
        ),
        (vec!["run", "duration"], json!(1e30), "run.duration"),
        (
            vec!["switch", "port_limit"],
            json!("1e20pkt"),
            "switch.port_limit",
        ),
    ] {
        let (p, m) = err(&with(&path, x.clone()));
        assert_eq!(p, key, "{x}");
        assert!(m.contains("at most") && m.contains("never clamped"), "{m}");
    }
    // bits are not bytes
    let (p, m) = err(&with(
        &["classes", "0", "workload", "sizes", "fixed"],
        json!("10Kb"),
    ));
    assert_eq!(p, "classes[0].workload.sizes.fixed");
    assert!(m.contains("bits") && m.contains("10KB"), "{m}");
    // every interval > 0
    let mut v = base();
    v["output"] = json!({"trace_flows": [0], "trace_interval": "0s"});
    assert_eq!(err(&v).0, "output.trace_interval");
    // packet sizes fit an IP packet's length field: near 2³² they wrapped the header sum to
    // a small number and the run went on with it
    for key in ["eth_overhead", "ip_header", "tcp_header", "min_wire"] {
        let (p, m) = err(&with(&["packet", key], json!(4_294_967_290u64)));
        assert_eq!(p, format!("packet.{key}"), "{m}");
        assert_eq!(m, "expected at most 65535 bytes, got 4294967290");
    }
    // a header that fits no MTU names the MTU rule (it is not out of range by itself)
    assert_eq!(
        err(&with(&["packet", "ip_header"], json!(1500))).0,
        "packet.mtu"
    );
}

#[test]
fn errors_name_the_keys_the_user_wrote_in_plain_words() {
    let (p, _) = err(&with(
        &["classes", "0", "workload", "senders"],
        json!([0, 9]),
    ));
    assert_eq!(p, "classes[0].workload.senders[1]");
    let (p, _) = err(&with(
        &["classes", "0", "workload", "sizes"],
        json!({"uniform": [0, 10]}),
    ));
    assert_eq!(p, "classes[0].workload.sizes.uniform[0]");
    let (p, m) = err(&with(&["topology", "hosts"], json!(1e30)));
    assert_eq!(p, "topology.hosts");
    assert_eq!(m, "expected a whole number from 0 to 4294967295, got 1e30");
    // a table given as a list is not the table's defaults
    let (p, m) = err(&with(&["run"], json!([])));
    assert_eq!(p, "run");
    assert!(m.contains("expected a table"), "{m}");
    let (p, _) = err(&with(&["classes", "0", "workload", "sizes"], json!([1000])));
    assert_eq!(p, "classes[0].workload.sizes");
    // a cross-key constraint names the key that was changed, not the default
    let mut v = base();
    v["transports"] = json!({"dctcp": {"cc": "dctcp", "rto_min": "100s"}});
    let (p, m) = err(&v);
    assert_eq!(p, "transports.dctcp.rto_min", "{m}");
    v["transports"] = json!({"dctcp": {"cc": "dctcp", "rto_max": "1us"}});
    assert_eq!(err(&v).0, "transports.dctcp.rto_max");
    let mut v = base();
    v["scheme"] = json!({"kind": "pias", "thresholds": []});
    assert_eq!(err(&v).0, "scheme.thresholds");
    // a workload that starts at the end of the run: its unwritten stop is the run's end,
    // which the message names (it named a `stop` the scenario does not have)
    for kind in ["poisson", "incast", "das"] {
        let mut v = base();
        v["classes"][0]["workload"] = match kind {
            "poisson" => json!({"kind": "poisson", "load": 0.3, "sizes": {"fixed": "10KB"},
                                "start": "1ms"}),
            "incast" => json!({"kind": "incast", "fan_in": 2, "receiver": 0, "period": "100us",
                               "bytes_per_sender": {"fixed": "10KB"}, "start": "1ms"}),
            _ => json!({"kind": "das", "load": 0.3, "sizes": {"fixed": "10KB"}, "start": "1ms"}),
        };
        let (p, m) = err(&v);
        assert_eq!(p, "classes[0].workload.start", "{kind}: {m}");
        assert_eq!(
            m,
            "expected a start before the end of the run (run.duration = 1000000000 ps), got \
             1000000000 ps",
            "{kind}"
        );
        // a written stop is named as written
        v["classes"][0]["workload"]["stop"] = json!("1ms");
        let (p, m) = err(&v);
        assert_eq!(p, "classes[0].workload.stop", "{kind}: {m}");
        assert!(m.starts_with("expected stop > start"), "{kind}: {m}");
    }
}

#[test]
fn memory_estimate_rejects_before_allocating() {
    // 1e9 leaves once grew to 24 GB in validate
    let v = json!({"topology": {"kind": "leaf_spine", "leaves": 1_000_000_000u64, "spines": 0,
        "hosts_per_leaf": 1, "host_link": {"rate": "10Gbps", "delay": "1us"},
        "fabric_link": {"rate": "10Gbps", "delay": "1us"}}});
    let (p, m) = err(&v);
    assert_eq!(p, "topology.leaves");
    // a fat tree with k = 56 (in range) needs ~15 GB of route tables
    let v = json!({"topology": {"kind": "fat_tree", "k": 56,
        "link": {"rate": "10Gbps", "delay": "1us"}}, "run": {"memory_limit": "8GB"}});
    let (p, m2) = err(&v);
    assert_eq!(p, "topology.k");
    for m in [m, m2] {
        assert!(m.contains("memory_limit") && m.contains("GB"), "{m}");
    }
    // tiny flows at 50% load: the flow list would not fit
    let mut v = with(&["classes", "0", "workload", "sizes", "fixed"], json!(1.5));
    set(&mut v, &["run", "duration"], json!("10ms"));
    let (p, m) = err(&v);
    assert_eq!(p, "classes[0].workload.load");
    assert!(m.contains("flows"), "{m}");
    // a sampling interval of 1 ps
    let mut v = base();
    v["output"] = json!({"queue_sample_interval": "1ps"});
    assert_eq!(err(&v).0, "output.queue_sample_interval");
    // the limit is a key: the same scenario passes with a larger one
    let mut v = base();
    v["output"] = json!({"queue_sample_interval": "100ns"});
    set(&mut v, &["run", "memory_limit"], json!("1MB"));
    assert_eq!(err(&v).0, "output.queue_sample_interval");
    set(&mut v, &["run", "memory_limit"], json!("1KB"));
    assert_eq!(err(&v).0, "topology.hosts");
    set(&mut v, &["run", "memory_limit"], json!("4GB"));
    warnings(&v);
}

#[test]
fn settings_without_effect_are_warned_about() {
    let mut v = base();
    v["switch"] = json!({"shared_buffer": "4MB"});
    let w = warnings(&v);
    assert!(
        w.iter().any(|w| w.starts_with("switch.shared_buffer:")),
        "{w:?}"
    );
    v["switch"] = json!({"shared_buffer": "4MB", "port_limit": "4MB"});
    assert!(warnings(&v).is_empty(), "{:?}", warnings(&v));

    let mut v = base();
    v["transports"] = json!({"tp": {"cqcn": true}});
    set(&mut v, &["classes", "0", "transport"], json!("tp"));
    let w = warnings(&v);
    assert!(
        w.iter().any(|w| w.starts_with("transports.tp.cqcn:")),
        "{w:?}"
    );

    let mut v = base();
    v["switch"] = json!({"queues": 1});
    set(&mut v, &["classes", "0", "priority"], json!(3));
    let w = warnings(&v);
    assert!(
        w.iter().any(|w| w.starts_with("classes[0].priority:")),
        "{w:?}"
    );

    let mut v = base();
    set(
        &mut v,
        &["classes", "0", "workload"],
        json!({"kind": "flows", "list": []}),
    );
    let w = warnings(&v);
    assert!(
        w.iter().any(|w| w.starts_with("classes[0].workload:")),
        "{w:?}"
    );
}

/// A packet's id rides in its `Arrive` event, so a run may never hold more packets than an
/// event can name, whatever memory the limit admits: the run-time packet cap is clamped to
/// the simulator's own limit (and stays the memory share below it).
#[test]
fn the_packet_cap_stays_below_what_an_event_can_name() {
    use dcnsim::scenario::resources::{MAX_PACKET_CAP, PACKET_BYTES};
    let cap = |limit: &str| {
        let v = with(&["run", "memory_limit"], json!(limit));
        let sc = from_json(&v.to_string()).unwrap();
        sc.build(&FsReader).unwrap().max_packets
    };
    assert_eq!(cap("100000GB"), MAX_PACKET_CAP);
    assert!(MAX_PACKET_CAP < dcnsim::packet::MAX_PACKETS as u64);
    // 2 GB: about half of it (less the estimate) for packets, under the clamp
    let c = cap("2GB");
    assert!(
        c < MAX_PACKET_CAP && c * PACKET_BYTES <= 1_000_000_000,
        "{c}"
    );
    assert!(c * PACKET_BYTES > 900_000_000, "{c}");
}

/// A class's name labels every row of its flows and samples: a long one (found by a
/// mutation fuzzer: 100 kB) multiplied by the rows took gigabytes after the run, past the
/// memory limit's estimate. Names are capped where the scenario is checked.
#[test]
fn a_class_name_is_a_bounded_label() {
    use dcnsim::scenario::MAX_CLASS_NAME;
    let ok = "é".repeat(MAX_CLASS_NAME); // counted in characters, not bytes
    assert!(warnings(&with(&["classes", "0", "name"], json!(ok))).is_empty());
    let long = "x".repeat(MAX_CLASS_NAME + 1);
    let (p, m) = err(&with(&["classes", "0", "name"], json!(long)));
    assert_eq!(p, "classes[0].name");
    assert!(
        m.contains(&format!("at most {MAX_CLASS_NAME} characters")),
        "{m}"
    );
}

/// An unknown or non-string `kind` names the `kind` key; a value an error echoes is shown
/// escaped and, past 200 characters, shortened (a fuzzer's 100 kB kind came back whole,
/// with a raw NUL in it).
#[test]
fn an_unknown_kind_names_its_key_and_echoes_a_short_escaped_value() {
    let (p, m) = err(&with(&["topology", "kind"], json!("st\0ar")));
    assert_eq!(p, "topology.kind");
    assert!(
        m.starts_with("unknown kind \"st\\0ar\", expected one of `star`"),
        "{m}"
    );
    let (p, m) = err(&with(&["classes", "0", "workload", "kind"], json!(7)));
    assert_eq!(p, "classes[0].workload.kind");
    assert_eq!(m, "expected a string, got the number 7");
    let long = "x".repeat(100_000);
    let (p, m) = err(&with(&["topology", "kind"], json!(long)));
    assert_eq!(p, "topology.kind");
    assert!(
        m.len() < 400 && m.contains("…xxxx") && m.contains("(100003 characters)"),
        "{m}"
    );
    let (p, m) = err(&with(&["topology", "link", "rate"], json!(long)));
    assert_eq!(p, "topology.link.rate");
    assert!(m.len() < 400 && m.contains("characters)"), "{m}");
    // a long key the user wrote is shortened where the message names it
    let mut v = base();
    v["switch"] = json!({ long.clone(): 1 });
    let (p, m) = err(&v);
    assert!(p.len() + m.len() < 600, "{p}: {m}");
}

/// A CDF's `scale` is checked against the sizes it makes (fuzzer: 1e-300 was reported as a
/// memory need of 8 TB at `workload.load`, 1e300 as an infinite arrival rate there).
#[test]
fn a_cdf_scale_keeps_sizes_in_range() {
    let with_scale = |x: f64| {
        let mut v = base();
        v["classes"][0]["workload"]["sizes"] = json!({"cdf": "websearch", "scale": x});
        v
    };
    for x in [1e-300, 1e-9, 1e300, 1e12] {
        let (p, m) = err(&with_scale(x));
        assert_eq!(p, "classes[0].workload.sizes.scale", "{x}: {m}");
        assert!(m.contains("mean size at least 1 byte") || m.contains("largest size at most"));
    }
    assert!(warnings(&with_scale(0.01)).is_empty());
}

/// A source's burst enters the sender's NIC queue in one event, before the run's packet cap
/// is next checked: it is charged to the memory estimate (a fuzzed burst of 10⁸ packets
/// aborted the process asking for 4 GB of packet slots).
#[test]
fn a_source_burst_is_charged_before_the_run() {
    let mut v = base();
    v["sources"] = json!([{"src": 0, "dst": 1, "rate": "10Gbps", "burst": 100_000_000u64}]);
    let (p, m) = err(&v);
    assert_eq!(p, "sources[0].burst");
    assert!(m.contains("a burst of 100000000 packets") && m.contains("more than the limit"));
    v["sources"][0]["burst"] = json!(1000);
    assert!(warnings(&v).is_empty());
}

/// An incast's fan-in beyond the hosts is a range error at `fan_in`, not a memory estimate
/// at `period` (the fuzzer's fan_in = 8,000,000 on 32 hosts).
#[test]
fn an_incast_fan_in_beyond_the_hosts_names_fan_in() {
    let mut v = base();
    v["classes"][0]["workload"] = json!({"kind": "incast", "fan_in": 8_000_000,
        "bytes_per_sender": {"fixed": "10KB"}, "period": "100us"});
    let (p, m) = err(&v);
    assert_eq!(p, "classes[0].workload.fan_in");
    assert_eq!(
        m,
        "expected at most 3 senders (all hosts, without the receiver), got 8000000"
    );
}
