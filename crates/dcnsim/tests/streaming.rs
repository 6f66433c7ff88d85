//! Streaming runs (`sim::flow`, `Scenario::build_with`): flows generated as the run reaches
//! them and finished flows retired give exactly the results of adding every flow before the
//! run, and the flows held in memory do not grow with the number of finished flows.

use dcnsim::run::{run_built, run_built_with, RunOutput};
use dcnsim::scenario::build::FsReader;
use dcnsim::scenario::{from_json, Scenario};
use std::cell::RefCell;
use std::rc::Rc;

/// A k = 4 fat tree, small DCTCP buffers (drops and retransmissions happen), web-search
/// Poisson arrivals, a second Poisson class of small flows with deadlines and a high
/// priority, periodic incasts (a list merged with the generated flows), and listed flows
/// starting in the same picosecond as queue samples (a flow start goes first).
fn mixed(extra_run: &str) -> Scenario {
    let j = format!(
        r#"{{"name": "stream-mixed", "seed": 5,
        "topology": {{"kind": "fat_tree", "k": 4, "link": {{"rate": "10Gbps", "delay": "1us"}}}},
        "switch": {{"queues": 2, "scheduler": {{"kind": "strict"}}, "port_limit": "40pkt",
                    "ecn": {{"kind": "step", "k": "20pkt"}}}},
        "host": {{"queues": 2, "scheduler": {{"kind": "strict"}}}},
        "classes": [
          {{"name": "web", "transport": "dctcp", "priority": 1,
            "workload": {{"kind": "poisson", "load": 0.5, "sizes": {{"cdf": "websearch"}}}}}},
          {{"name": "small", "transport": "dctcp", "priority": 0,
            "workload": {{"kind": "poisson", "load": 0.1, "sizes": {{"uniform": ["1KB", "20KB"]}},
                          "deadline": {{"kind": "fixed", "value": "200us"}}}}}},
          {{"name": "incast", "transport": "dctcp", "priority": 1,
            "workload": {{"kind": "incast", "fan_in": 8, "bytes_per_sender": {{"fixed": "30KB"}},
                          "period": "2ms", "start": "1ms"}}}},
          {{"name": "listed", "transport": "dctcp", "priority": 0,
            "workload": {{"kind": "flows", "list": [
              {{"src": 0, "dst": 15, "size": "50KB", "start": 0}},
              {{"src": 3, "dst": 9, "size": "5KB", "start": "500us"}},
              {{"src": 5, "dst": 6, "size": "5KB", "start": "500us"}}]}}}}
        ],
        "output": {{"queue_sample_interval": "100us", "sample_ports": "all"}},
        "run": {{"duration": "12ms", "warmup": "1ms", "cooldown": "1ms"{extra_run}}}}}"#
    );
    from_json(&j).unwrap()
}

fn run(sc: &Scenario, stream: bool) -> RunOutput {
    let b = sc.build_with(&FsReader, stream).unwrap();
    assert_eq!(b.sim.flows.streaming, stream);
    run_built(b, &sc.name, sc.seed, &mut |_| true)
}

fn same(a: &RunOutput, b: &RunOutput) {
    // Debug prints every f64 exactly (NaN as NaN): equal text is bit-identical columns.
    assert_eq!(format!("{:?}", a.flows), format!("{:?}", b.flows));
    assert_eq!(format!("{:?}", a.queues), format!("{:?}", b.queues));
    assert_eq!(format!("{:?}", a.samples), format!("{:?}", b.samples));
    assert_eq!(
        format!("{:?}", a.class_samples),
        format!("{:?}", b.class_samples)
    );
    let (m, n) = (&a.meta, &b.meta);
    assert_eq!(
        (m.events, m.packet_hops, m.delivered, m.dropped, &m.end),
        (n.events, n.packet_hops, n.delivered, n.dropped, &n.end)
    );
    assert_eq!(
        (m.flows_total, m.flows_completed, m.flows_in_window),
        (n.flows_total, n.flows_completed, n.flows_in_window)
    );
    assert_eq!(m.sim_time_s.to_bits(), n.sim_time_s.to_bits());
    assert_eq!(m.warnings, n.warnings);
    for (x, y) in m.load.iter().zip(&n.load) {
        assert_eq!(x.offered_bps.to_bits(), y.offered_bps.to_bits());
        assert_eq!(x.carried_bps.to_bits(), y.carried_bps.to_bits());
    }
}

#[test]
fn streaming_gives_the_results_of_building_every_flow_first() {
    let sc = mixed("");
    let (lazy, eager) = (run(&sc, true), run(&sc, false));
    assert_eq!(lazy.meta.end, "complete");
    // The run is loaded and lossy enough to exercise retransmissions and drops.
    let drops: u64 = lazy.flows.drops.iter().sum();
    assert!(lazy.meta.flows_total > 300, "{}", lazy.meta.flows_total);
    assert!(drops > 0 && lazy.meta.dropped > 0);
    same(&lazy, &eager);
}

#[test]
fn a_truncated_streaming_run_reports_the_flows_it_never_started() {
    // Stopped by the event limit: the flows still to come join the table unstarted, as
    // they were there from the start in the eager run.
    let sc = mixed(r#", "max_events": 400000"#);
    let (lazy, eager) = (run(&sc, true), run(&sc, false));
    assert_eq!(lazy.meta.end, "max_events");
    assert!(lazy.flows.start_s.iter().any(|&s| s > lazy.meta.sim_time_s));
    same(&lazy, &eager);
}

#[test]
fn finished_flows_are_retired_so_held_flows_stay_flat() {
    // Many small flows over a long run: the flows held in memory at once stay a small,
    // run-length-independent number, and every row reaches the sink.
    let j = r#"{"name": "stream-many", "seed": 2,
        "topology": {"kind": "leaf_spine", "leaves": 2, "spines": 2, "hosts_per_leaf": 4,
                     "host_link": {"rate": "10Gbps", "delay": "1us"}, "fabric_link": {"rate": "10Gbps", "delay": "1us"}},
        "classes": [{"name": "a", "transport": "dctcp",
                     "workload": {"kind": "poisson", "load": 0.4, "sizes": {"fixed": "4KB"}}}],
        "run": {"duration": "DUR"}}"#;
    let mut held = Vec::new();
    for dur in ["20ms", "80ms"] {
        let sc = from_json(&j.replace("DUR", dur)).unwrap();
        let b = sc.build(&FsReader).unwrap();
        assert!(b.sim.flows.streaming);
        let rows = Rc::new(RefCell::new(Vec::new()));
        let r = rows.clone();
        let sink: dcnsim::sim::flow::FlowSink = Box::new(move |t| r.borrow_mut().extend(t.flow_id));
        let out = run_built_with(b, &sc.name, sc.seed, &mut |_| true, Some(sink));
        assert!(out.flows.is_empty());
        // Every flow once (rows reach the sink in retirement order, not id order).
        let mut ids = rows.borrow().clone();
        let n = out.meta.flows_total;
        assert!(n > 20_000, "{n}");
        assert_eq!(ids.len() as u64, n);
        ids.sort_unstable();
        assert!(ids.iter().enumerate().all(|(i, &f)| f == i as u64));
        held.push((n, out.meta.events));
    }
    // Without retirement every flow would stay held (the peak would be the total).
    let peaks: Vec<usize> = ["20ms", "80ms"]
        .iter()
        .map(|dur| {
            let sc = from_json(&j.replace("DUR", dur)).unwrap();
            let mut b = sc.build(&FsReader).unwrap();
            while b.sim.run(b.horizon, dcnsim::run::CHUNK) > 0 && !b.sim.finished {
                b.sim.retire_flows();
            }
            b.sim.flows.held_peak
        })
        .collect();
    // (Retirement runs between chunks of `CHUNK` events, so the peak is about the flows of
    // one chunk, whatever the run's length.)
    assert!(held[1].0 > 3 * held[0].0);
    assert!(
        peaks[1] <= peaks[0] + peaks[0] / 4,
        "{peaks:?} for {held:?}"
    );
    assert!((peaks[1] as u64) < held[1].0 / 8, "{peaks:?} for {held:?}");
}

#[test]
fn a_long_flow_does_not_hold_the_flows_started_after_it() {
    // One 50 MB flow from the start (it runs for most of the 60 ms) and 4 KB Poisson flows
    // on other hosts: the short flows finish and are retired while the long one runs, so
    // the flows held at once stay about one chunk's worth (retirement runs between chunks;
    // ~6,400 here). Retiring in flow-id order would hold every flow started after the long
    // one until it ends (~44,000).
    let j = r#"{"name": "stream-long", "seed": 3,
        "topology": {"kind": "leaf_spine", "leaves": 2, "spines": 2, "hosts_per_leaf": 4,
                     "host_link": {"rate": "10Gbps", "delay": "1us"}, "fabric_link": {"rate": "10Gbps", "delay": "1us"}},
        "classes": [
            {"name": "long", "transport": "dctcp",
             "workload": {"kind": "flows", "list": [{"src": 0, "dst": 4, "size": 50000000, "start": 0}]}},
            {"name": "short", "transport": "dctcp",
             "workload": {"kind": "poisson", "load": 0.3, "sizes": {"fixed": "4KB"}}}],
        "run": {"duration": "60ms"}}"#;
    let sc = from_json(j).unwrap();
    let mut b = sc.build(&FsReader).unwrap();
    assert!(b.sim.flows.streaming);
    let mut started_while_long_ran = 0;
    while b.sim.run(b.horizon, dcnsim::run::CHUNK) > 0 && !b.sim.finished {
        b.sim.retire_flows();
        if b.sim
            .flows
            .rec_of(0)
            .is_some_and(|r| r.sender_done.is_none())
        {
            started_while_long_ran = b.sim.flows.len();
        }
    }
    let long_done = b.sim.flow_table().completed[0];
    assert!(long_done, "the long flow finishes within the run");
    assert!(started_while_long_ran > 10_000, "{started_while_long_ran}");
    let peak = b.sim.flows.held_peak;
    assert!(
        peak < started_while_long_ran / 4,
        "held {peak} of the {started_while_long_ran} flows started while the long one ran"
    );
    // The table is still in flow-id order, every flow once.
    let t = b.sim.flow_table();
    assert!(t.flow_id.iter().enumerate().all(|(i, &f)| f == i as u64));
}
