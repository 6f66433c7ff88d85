//! The TCP behaviours of real stacks through the fabric (issue "faithful TCP"): HyStart in a
//! synchronized incast, the rfc / ns3 / linux profiles on one incast, and the handshake
//! records.

use dcnsim::run::{run_json, Progress, RunOutput};
use dcnsim::scenario::build::FsReader;

fn run(json: &str) -> RunOutput {
    run_json(json, &FsReader, &mut |_: &Progress| true).unwrap_or_else(|e| panic!("{e}"))
}

/// 8 senders start a 1 MB CUBIC flow each at the same instant towards one receiver
/// behind a 10 Gb/s port with a 300-packet buffer. Plain slow start doubles every sender's
/// window until the port overflows; Linux HyStart's ACK-train rule sees each round's ACKs
/// stretch past half the minimum RTT and leaves slow start first.
fn synchronized_incast(hystart: &str) -> RunOutput {
    let flows: Vec<String> = (0..8)
        .map(|s| format!(r#"{{"src": {s}, "dst": 8, "size": "1MB", "start": 0}}"#))
        .collect();
    run(&format!(
        r#"{{
        "topology": {{"kind": "star", "hosts": 9, "link": {{"rate": "10Gbps", "delay": "5us"}}}},
        "switch": {{"queues": 1, "scheduler": {{"kind": "fifo"}}, "port_limit": "300pkt"}},
        "transports": {{"t": {{"cc": "cubic", "hystart": "{hystart}", "rto_min": "1ms"}}}},
        "classes": [{{"name": "a", "transport": "t",
                     "workload": {{"kind": "flows", "list": [{}]}}}}],
        "run": {{"duration": "100ms"}}
    }}"#,
        flows.join(",")
    ))
}

#[test]
fn hystart_leaves_slow_start_before_a_synchronized_incast_overflows() {
    let plain = synchronized_incast("off");
    let hy = synchronized_incast("linux");
    for o in [&plain, &hy] {
        assert!(o.flows.completed.iter().all(|&c| c));
    }
    let drops = |o: &RunOutput| o.flows.drops.iter().sum::<u64>();
    let rtos = |o: &RunOutput| o.flows.rto_count.iter().sum::<u64>();
    eprintln!(
        "8→1 CUBIC: slow start {} drops {} RTOs; HyStart {} drops {} RTOs",
        drops(&plain),
        rtos(&plain),
        drops(&hy),
        rtos(&hy)
    );
    assert!(drops(&plain) > 0, "plain slow start must overflow the port");
    assert_eq!(drops(&hy), 0, "HyStart exits before the first loss");
}

/// One 32→1 NewReno+SACK incast of 64 KB responses into a 64-packet port, RTO_min 1 ms
/// written explicitly (so only the behaviour keys differ between the profiles).
fn incast(profile: &str) -> RunOutput {
    run(&format!(
        r#"{{
        "topology": {{"kind": "star", "hosts": 33, "link": {{"rate": "10Gbps", "delay": "5us"}}}},
        "switch": {{"queues": 1, "scheduler": {{"kind": "fifo"}}, "port_limit": "64pkt"}},
        "transports": {{"t": {{"profile": "{profile}", "cc": "newreno", "rto_min": "1ms",
                              "rto_init": "1ms"}}}},
        "classes": [{{"name": "incast", "transport": "t",
                     "workload": {{"kind": "incast", "fan_in": 32, "receiver": 32,
                                   "bytes_per_sender": {{"fixed": "64KB"}}, "period": "20ms"}}}}],
        "run": {{"duration": "200ms"}}
    }}"#
    ))
}

#[test]
fn profiles_differ_on_one_incast_in_the_direction_their_mechanisms_predict() {
    let rfc = incast("rfc");
    let ns3 = incast("ns3");
    let linux = incast("linux");
    let sum = |o: &RunOutput, v: &dyn Fn(&RunOutput) -> &Vec<u64>| v(o).iter().sum::<u64>();
    for (name, o) in [("rfc", &rfc), ("ns3", &ns3), ("linux", &linux)] {
        assert!(
            o.flows.completed.iter().all(|&c| c),
            "{name}: every flow finishes"
        );
        eprintln!(
            "{name}: {} flows, {} RTOs, {} drops, {} probes ({} recovered), {} undone",
            o.flows.completed.len(),
            sum(o, &|o| &o.flows.rto_count),
            sum(o, &|o| &o.flows.drops),
            sum(o, &|o| &o.flows.tlp_probes),
            sum(o, &|o| &o.flows.tlp_recoveries),
            sum(o, &|o| &o.flows.undo_rto) + sum(o, &|o| &o.flows.undo_fast),
        );
    }
    let rtos = |o: &RunOutput| sum(o, &|o| &o.flows.rto_count);
    // Linux detects losses by time (RACK), lost retransmissions included, and reduces by
    // PRR: fewer timeouts than the RFC baseline, whose lost retransmissions wait for the
    // RTO.
    assert!(
        rtos(&linux) < rtos(&rfc),
        "linux {} vs rfc {}",
        rtos(&linux),
        rtos(&rfc)
    );
    assert_eq!(sum(&rfc, &|o| &o.flows.tlp_probes), 0);
    // ns-3 differs from the baseline (per-ACK slow start, pipe-based ssthresh, PRR,
    // 1 ms clock granularity in the RTO).
    assert_ne!(
        (rtos(&ns3), sum(&ns3, &|o| &o.flows.drops)),
        (rtos(&rfc), sum(&rfc, &|o| &o.flows.drops))
    );
}

/// With a handshake the flow records when it was established, the FCT from there, and a
/// SYN retry; the SYN uses `syn_rto`, not the data RTO.
#[test]
fn handshake_records_establishment_and_syn_retries() {
    let out = run(r#"{
        "topology": {"kind": "star", "hosts": 2, "link": {"rate": "10Gbps", "delay": "5us"}},
        "switch": {"queues": 1, "scheduler": {"kind": "fifo"}},
        "transports": {"t": {"handshake": true, "syn_rto": "3ms", "rto_min": "1ms",
                             "syn_rtt_sample": true}},
        "classes": [{"name": "a", "transport": "t",
                     "workload": {"kind": "flows", "list": [
                        {"src": 0, "dst": 1, "size": "100KB", "start": 0}]}}],
        "run": {"duration": "10ms"}
    }"#);
    let f = &out.flows;
    assert!(f.completed[0]);
    // SYN + SYN-ACK: one round trip of header packets (4 hops of 5 µs + serialization).
    let est = f.established_s[0];
    assert!(est > 20e-6 && est < 22e-6, "established at {est}");
    assert!((f.fct_s[0] - f.fct_established_s[0] - est).abs() < 1e-12);
    assert_eq!(f.syn_retx[0], 0);
}

/// A lost SYN is retried after `syn_rto` (here 3 ms, not the 1 ms data RTO); the record
/// counts the retry, and the retried SYN's round trip does not seed the RTT (Karn).
#[test]
fn lost_syn_waits_syn_rto_and_is_counted() {
    // A 20-packet burst from h1 at 40G into the 10G core link with a 1-packet queue keeps
    // that queue full while h0's SYN arrives: the SYN is dropped.
    let out = run(r#"{
        "topology": {"kind": "dumbbell", "left": 2, "right": 1,
                     "host_link": {"rate": "40Gbps", "delay": "1us"}, "core_link": {"rate": "10Gbps", "delay": "1us"}},
        "switch": {"queues": 1, "scheduler": {"kind": "fifo"}, "port_limit": "1pkt"},
        "host": {"queues": 1, "scheduler": {"kind": "fifo"}},
        "transports": {"t": {"cc": "cubic", "handshake": true, "rto_min": "1ms",
                             "syn_rto": "3ms", "syn_rtt_sample": true}},
        "classes": [{"name": "a", "transport": "t", "workload": {"kind": "flows", "list": [{"src": 0, "dst": 2, "size": "1460B", "start": "10us"}]}}],
        "sources": [{"src": 1, "dst": 2, "rate": "40Gbps", "start": "9us", "count": 20, "burst": 20}],
        "run": {"duration": "5ms", "horizon": "100ms"}
    }"#);
    let f = &out.flows;
    assert!(f.completed[0]);
    assert_eq!(f.syn_retx[0], 1);
    let est = f.established_s[0] - 10e-6;
    assert!(est > 3e-3 && est < 3.01e-3, "established {est} after start");
    // From establishment the one-segment flow takes one data round trip.
    assert!(f.fct_established_s[0] < 20e-6, "{}", f.fct_established_s[0]);
}
