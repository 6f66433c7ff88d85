//! RoCEv2 and DCQCN through the real fabric (mechanisms §2.4, §2.6, §4.9): fair-share
//! convergence with the queue between Kmin and Kmax, go-back-N after one loss, a lossless
//! incast under PFC, and the `roce` table's keyed errors. Scenarios are JSON so each test
//! states its setup in one place.

use dcnsim::run::{run_json, Progress, RunOutput};
use dcnsim::scenario::build::FsReader;
use dcnsim::scenario::{from_json, to_json, ConfigError};
use dcnsim_engine::{to_secs, MS};

fn run(json: &str) -> RunOutput {
    run_json(json, &FsReader, &mut |_: &Progress| true).unwrap_or_else(|e| panic!("{e}"))
}

fn sum(v: &[u64]) -> u64 {
    v.iter().sum()
}

/// `senders` hosts, each with `per` flows of `size` to host 0 starting at 0, on one switch
/// with 40 Gb/s, 1 µs links (TLT-SIM-RoCE-BASE's link delay), RED-ECN at DCQCN's Kmin = 5 KB,
/// Kmax = 200 KB, Pmax = 1%, and a RoCE transport `roce` whose `roce` table is `roce`.
fn star(senders: u32, per: u32, size: &str, switch_extra: &str, roce: &str, extra: &str) -> String {
    let mut flows = vec![];
    for s in 1..=senders {
        for _ in 0..per {
            flows.push(format!(
                r#"{{"src": {s}, "dst": 0, "size": "{size}", "start": 0}}"#
            ));
        }
    }
    format!(
        r#"{{"topology": {{"kind": "star", "hosts": {h}, "link": {{"rate": "40Gbps", "delay": "1us"}}}},
            "switch": {{"queues": 1, "scheduler": {{"kind": "fifo"}}, "port_limit": "1000000pkt",
                        "ecn": {{"kind": "red", "kmin": "5KB", "kmax": "200KB", "pmax": 0.01}}
                        {switch_extra}}},
            "host": {{"queues": 1, "scheduler": {{"kind": "fifo"}}}},
            "transports": {{"roce": {{"kind": "roce", "roce": {{ {roce} }}}}}},
            "classes": [{{"name": "rdma", "transport": "roce", "workload": {{"kind": "flows", "list": [{f}]}}}}]
            {extra}}}"#,
        h = senders + 1,
        f = flows.join(","),
    )
}

fn jain(x: &[f64]) -> f64 {
    let s: f64 = x.iter().sum();
    let s2: f64 = x.iter().map(|v| v * v).sum();
    s * s / (x.len() as f64 * s2)
}

/// N long DCQCN flows into one 40 Gb/s port: per-flow goodput over the steady window,
/// and the bottleneck queue's mean and samples in that window.
fn long_flows(n: u32, preset: &str, t0: u64, t1: u64) -> (Vec<f64>, f64, Vec<u64>) {
    let json = star(
        n,
        1,
        "1GB",
        "",
        &format!(r#""preset": "{preset}""#),
        r#", "output": {"queue_sample_interval": "10us"}, "run": {"duration": "1s", "horizon": "1s"}"#,
    );
    let sc = from_json(&json).unwrap();
    let mut b = sc.build(&FsReader).unwrap();
    let sim = &mut b.sim;
    sim.run(t0, u64::MAX);
    let a0: Vec<u64> = (0..n)
        .map(|f| sim.roce_flow(f).unwrap().acked_bytes())
        .collect();
    sim.run(t1, u64::MAX);
    let a1: Vec<u64> = (0..n)
        .map(|f| sim.roce_flow(f).unwrap().acked_bytes())
        .collect();
    let secs = to_secs(t1 - t0);
    let gput: Vec<f64> = a0
        .iter()
        .zip(&a1)
        .map(|(a, b)| (b - a) as f64 * 8.0 / secs)
        .collect();
    // The switch port toward host 0 is the one with the most queued bytes over the window.
    let s = sim.sample_table();
    let (lo, hi) = (to_secs(t0), to_secs(t1));
    let mut best: (f64, Vec<u64>) = (0.0, vec![]);
    let mut keys: Vec<(u64, u64)> = s.node.iter().copied().zip(s.port.iter().copied()).collect();
    keys.sort();
    keys.dedup();
    for k in keys {
        let v: Vec<u64> = (0..s.t_s.len())
            .filter(|&i| (s.node[i], s.port[i]) == k && s.t_s[i] >= lo && s.t_s[i] < hi)
            .map(|i| s.bytes[i])
            .collect();
        let m = v.iter().sum::<u64>() as f64 / v.len().max(1) as f64;
        if m > best.0 {
            best = (m, v);
        }
    }
    (gput, best.0, best.1)
}

fn pct(v: &[u64], q: f64) -> u64 {
    let mut v = v.to_vec();
    v.sort_unstable();
    v[((v.len() - 1) as f64 * q).round() as usize]
}

const KMIN: f64 = 5_000.0;
const KMAX: f64 = 200_000.0;

#[test]
fn long_dcqcn_flows_converge_to_a_fair_share_with_the_queue_between_kmin_and_kmax() {
    // DCQCN §5 (fairness): N long flows into one 40 Gb/s port, steady window 20-40 ms.
    for (n, preset) in [(4, "tlt"), (8, "tlt"), (4, "paper"), (8, "paper")] {
        let (g, q, samples) = long_flows(n, preset, 20 * MS, 40 * MS);
        let j = jain(&g);
        let total: f64 = g.iter().sum();
        let p90 = pct(&samples, 0.9);
        eprintln!(
            "{preset} n={n}: goodput {:?} Gb/s, Jain {j:.4}, mean queue {q:.0} B, p90 {p90} B",
            g.iter()
                .map(|x| (x / 1e7).round() / 100.0)
                .collect::<Vec<_>>()
        );
        assert!(j >= 0.95, "{preset} n={n}: Jain {j}");
        // Work-conserving: at least 85% of the goodput the link allows (payload 1000 B of
        // 1082 wire bytes).
        let cap = 40e9 * 1000.0 / 1082.0;
        assert!(total >= 0.85 * cap, "{preset} n={n}: {total}");
        // The queue DCQCN holds sits in RED's marking range (DCQCN §3.1: the fixed point is
        // between Kmin and Kmax).
        assert!(q > KMIN && q < KMAX, "{preset} n={n}: mean queue {q}");
        assert!((p90 as f64) < KMAX, "{preset} n={n}: p90 queue {p90}");
    }
}

#[test]
fn without_dcqcn_line_rate_qps_overrun_kmax() {
    // The same four flows with cc = "none": the queue grows without bound (the check above
    // fails without the rate machine).
    let json = star(
        4,
        1,
        "1GB",
        "",
        r#""cc": "none""#,
        r#", "output": {"queue_sample_interval": "10us"}, "run": {"duration": "5ms", "horizon": "5ms"}"#,
    );
    let out = run(&json);
    let max_sw = (0..out.queues.port.len())
        .filter(|&i| !out.queues.is_host[i])
        .map(|i| out.queues.max_bytes[i])
        .max()
        .unwrap();
    assert!(max_sw as f64 > 10.0 * KMAX, "{max_sw}");
    assert!(sum(&out.queues.ecn_marks) > 0);
}

#[test]
fn go_back_n_resends_the_whole_tail_after_one_loss() {
    // One 1 MB message (1000 packets of 1000 B) at line rate; PSN 100 is dropped once at the
    // switch. The receiver NACKs PSN 100 at the first later packet and discards the rest;
    // the sender goes back to 100: every packet it had sent from 100 on goes again.
    let json = star(
        1,
        1,
        "1MB",
        "",
        r#""cc": "none""#,
        r#", "scheme": {"kind": "test", "drop_data_seq": 100}, "run": {"duration": "10ms", "horizon": "10ms"}"#,
    );
    let out = run(&json);
    let f = &out.flows;
    assert!(f.completed[0]);
    assert_eq!(f.drops[0], 1);
    assert_eq!(f.fast_retx[0], 1, "one go-back-N round");
    assert_eq!(f.rto_count[0], 0);
    let n = 1000;
    // Every extra packet is a retransmission, and there are many: the tail in flight.
    assert_eq!(f.data_pkts[0], n + f.retx_pkts[0]);
    // The tail is what the pacer sent between PSN 100 leaving and the NACK arriving: the
    // loss is seen when PSN 101 arrives (one packet time later), and the NACK takes one
    // round trip: 4 link delays + serializations (data 1082 B twice, NACK 86 B twice) at
    // 40 Gb/s, one packet per 216.4 ns.
    let gap: f64 = 1082.0 * 8.0 / 40e9;
    let rtt = 4e-6 + 2.0 * gap + 2.0 * 86.0 * 8.0 / 40e9;
    let expect = ((gap + rtt) / gap).floor() as u64;
    let r = f.retx_pkts[0];
    eprintln!(
        "go-back-N: retx {r} (expected ~{expect}), data {}",
        f.data_pkts[0]
    );
    assert!(r >= expect - 1 && r <= expect + 2, "retx {r} vs ~{expect}");
    assert!(r > 10, "go-back-N resends the tail, not one packet: {r}");
}

#[test]
fn pfc_with_dcqcn_makes_a_roce_incast_lossless() {
    // 16 senders × 400 kB at line rate into one port with a 1 MB shared buffer: without PFC
    // the buffer overflows; with PFC on, zero drops and every flow completes.
    let incast = |pfc: &str| {
        run(&star(
            16,
            1,
            "400kB",
            &format!(r#", "shared_buffer": "1MB" {pfc}"#),
            "",
            r#", "run": {"duration": "1ms", "horizon": "100ms"}"#,
        ))
    };
    let lossy = incast("");
    assert!(
        lossy.meta.dropped > 0,
        "the incast overflows the buffer without PFC"
    );
    let pfc = incast(r#", "pfc": {}"#);
    assert_eq!(pfc.meta.dropped, 0);
    assert_eq!(pfc.meta.flows_completed, 16);
    assert_eq!(sum(&pfc.flows.retx_pkts), 0);
    assert_eq!(sum(&pfc.flows.rto_count), 0);
    assert!(sum(&pfc.queues.pfc_pause_sent) > 0);
    // DCQCN reacted (CE marks at the congested port turned into CNPs and cuts).
    assert!(sum(&pfc.flows.ecn_marks) > 0);
    assert!(sum(&pfc.flows.cnps) > 0);
}

/// The most bytes any sender host's NIC queue held.
fn max_host_queue(o: &RunOutput) -> u64 {
    (0..o.queues.port.len())
        .filter(|&i| o.queues.is_host[i] && o.queues.node[i] != 0)
        .map(|i| o.queues.max_bytes[i])
        .max()
        .unwrap()
}

#[test]
fn a_paused_nic_stops_its_qps_instead_of_queueing_their_packets() {
    // 16 senders × 2 MB into one port under PFC: the switch pauses the senders' NICs. A NIC
    // serves its QPs only while their priority is not paused (the reference NIC pulls
    // packets from the QPs: `sim::flow::NicPull`), so a sender's NIC queue never holds more
    // than the one data packet next in line (1000 B + 82 B of headers and framing), however
    // long the pauses. A NIC that took every paced packet queued ≈ 925 kB here (DCQCN).
    for cc in ["none", "dcqcn"] {
        let out = run(&star(
            16,
            1,
            "2MB",
            r#", "shared_buffer": "1MB", "pfc": {}"#,
            &format!(r#""cc": "{cc}""#),
            r#", "run": {"duration": "1ms", "horizon": "100ms"}"#,
        ));
        assert_eq!(out.meta.dropped, 0, "{cc}");
        assert_eq!(out.meta.flows_completed, 16, "{cc}");
        let paused: f64 = (0..out.queues.port.len())
            .filter(|&i| out.queues.is_host[i])
            .map(|i| out.queues.pfc_paused_s[i])
            .sum();
        assert!(paused > 0.0, "{cc}: the senders were paused");
        assert!(
            max_host_queue(&out) <= 1082,
            "{cc}: {}",
            max_host_queue(&out)
        );
        if cc == "none" {
            // Line-rate QPs under PFC alone: the bottleneck never idles while the NICs
            // wait for their RESUME. 32 MB of payload (34.6 MB on the wire) at 40 Gb/s is
            // 6.9 ms.
            let last = out.flows.finish_s.iter().cloned().fold(0.0, f64::max);
            let wire = 16.0 * 2e6 * 1082.0 / 1000.0 * 8.0 / 40e9;
            assert!(last < 1.02 * wire && last > wire, "last {last} vs {wire}");
        }
    }
}

#[test]
fn qps_of_one_host_take_turns_at_its_nic() {
    // Two line-rate QPs (cc = none) on one host: the NIC serves them in turn, each gets half
    // its link, and its queue holds at most one data packet.
    let out = run(&star(
        1,
        2,
        "1MB",
        "",
        r#""cc": "none""#,
        r#", "run": {"duration": "1ms", "horizon": "10ms"}"#,
    ));
    assert_eq!(out.meta.flows_completed, 2);
    assert!(max_host_queue(&out) <= 1082, "{}", max_host_queue(&out));
    // Both end together (turns), after 2 MB on the wire at 40 Gb/s (≈ 433 µs).
    let (a, b) = (out.flows.finish_s[0], out.flows.finish_s[1]);
    let wire = 2.0 * 1e6 * 1082.0 / 1000.0 * 8.0 / 40e9;
    assert!((a - b).abs() < 0.02 * wire, "{a} {b}");
    assert!(a.max(b) < 1.02 * wire + 10e-6, "{a} {b} vs {wire}");
}

fn err_of(transports: &str) -> ConfigError {
    let j = format!(
        r#"{{"transports": {transports}, "classes": [{{"name": "a", "transport": "r",
            "workload": {{"kind": "flows", "list": [{{"src": 1, "dst": 0, "size": "1MB", "start": 0}}]}}}}]}}"#
    );
    match from_json(&j) {
        Err(e) => e,
        Ok(sc) => match sc.build(&FsReader) {
            Err(e) => e,
            Ok(_) => panic!("expected an error for {transports}"),
        },
    }
}

#[test]
fn bad_roce_keys_name_the_key() {
    let cases = [
        (
            r#"{"r": {"kind": "roce", "sack": true}}"#,
            "transports.r.sack",
            "TCP key",
        ),
        (
            r#"{"r": {"kind": "roce", "cc": "dctcp"}}"#,
            "transports.r.cc",
            "TCP key",
        ),
        (
            r#"{"r": {"kind": "roce", "roce": {"g": 2}}}"#,
            "transports.r.roce.g",
            "(0, 1]",
        ),
        (
            r#"{"r": {"kind": "roce", "roce": {"bogus": 1}}}"#,
            "transports.r.roce.bogus",
            "unknown",
        ),
        (
            r#"{"r": {"kind": "roce", "roce": {"payload": "1500B"}}}"#,
            "transports.r.roce.payload",
            "1456",
        ),
        (
            r#"{"r": {"kind": "roce", "roce": {"ack_every": 0}}}"#,
            "transports.r.roce.ack_every",
            "at least 1",
        ),
        (
            r#"{"r": {"kind": "roce", "roce": {"min_rate": "100Gbps"}}}"#,
            "transports.r.roce.min_rate",
            "line rate",
        ),
        (
            r#"{"r": {"kind": "roce", "roce": {"timer": "0s"}}}"#,
            "transports.r.roce.timer",
            "> 0",
        ),
        (
            r#"{"r": {"kind": "roce", "roce": {"cc": "timely"}}}"#,
            "transports.r.roce.cc",
            "hpcc",
        ),
        (
            r#"{"r": {"kind": "tcp", "roce": {}}}"#,
            "transports.r.roce",
            "kind = \"roce\"",
        ),
    ];
    for (t, path, msg) in cases {
        let e = err_of(t);
        assert_eq!(e.path, path, "{t}: {e:?}");
        assert!(e.msg.contains(msg), "{t}: {e:?}");
    }
}

#[test]
fn a_roce_transport_round_trips_without_tcp_keys() {
    let j = r#"{"transports": {"r": {"kind": "roce", "roce": {"preset": "paper", "ack_every": 4}},
                               "t": {"cc": "dctcp"}}}"#;
    let sc = from_json(j).unwrap();
    let r = sc.transports["r"].roce.as_ref().unwrap();
    assert_eq!(r.ack_every, 4);
    assert_eq!(r.fast_recovery, 5, "the paper preset's F");
    assert!(sc.transports["t"].roce.is_none());
    let out = to_json(&sc);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let rv = v["transports"]["r"].as_object().unwrap();
    assert_eq!(rv.keys().collect::<Vec<_>>(), vec!["kind", "roce"]);
    assert!(v["transports"]["t"].get("roce").is_none());
    assert_eq!(from_json(&out).unwrap(), sc);
    // The built-in `dcqcn` is a RoCE transport with the defaults.
    let b = dcnsim::scenario::transport::TransportConfig::builtin("dcqcn").unwrap();
    assert_eq!(
        b.roce.unwrap(),
        dcnsim::scenario::roce::RoceConfig::default()
    );
}

/// One 1 MB message (1000 packets) at line rate with PSN 100 dropped once, under `recovery`.
fn one_loss(recovery: &str) -> RunOutput {
    run(&star(
        1,
        1,
        "1MB",
        "",
        &format!(r#""cc": "none", "recovery": "{recovery}""#),
        r#", "scheme": {"kind": "test", "drop_data_seq": 100}, "run": {"duration": "10ms", "horizon": "10ms"}"#,
    ))
}

#[test]
fn irn_resends_only_the_lost_packet() {
    // IRN §3.1 (mechanisms §4.10): the receiver keeps 101.. and NACKs each with the SACKed
    // PSN; the sender resends PSN 100 alone. Go-back-N (test above) resends ~22.
    let gbn = one_loss("gbn").flows.retx_pkts[0];
    for rec in ["irn", "sack"] {
        let out = one_loss(rec);
        let f = &out.flows;
        eprintln!(
            "{rec}: retx {} data {} (go-back-N retx {gbn})",
            f.retx_pkts[0], f.data_pkts[0]
        );
        assert!(f.completed[0]);
        assert_eq!(f.drops[0], 1);
        assert_eq!(f.retx_pkts[0], 1, "{rec}: one loss, one retransmission");
        assert_eq!(f.data_pkts[0], 1001);
        assert_eq!(f.fast_retx[0], 1, "{rec}: one recovery episode");
        assert_eq!(f.rto_count[0], 0, "{rec}: recovered without a timeout");
    }
    assert!(gbn > 10, "go-back-N resends the tail: {gbn}");
}

/// The most packets one 1 MB message had outstanding during its first 100 µs (it is still
/// sending then: 1 MB takes 216 µs at 40 Gb/s).
fn max_outstanding(roce: &str) -> u64 {
    let json = star(
        1,
        1,
        "1MB",
        "",
        roce,
        r#", "run": {"duration": "10ms", "horizon": "10ms"}"#,
    );
    let sc = from_json(&json).unwrap();
    let mut b = sc.build(&FsReader).unwrap();
    b.sim.run(100 * dcnsim_engine::US, u64::MAX);
    b.sim.roce_flow(0).unwrap().max_outstanding().unwrap()
}

#[test]
fn irn_bdp_fc_caps_outstanding_packets_at_the_bdp() {
    // IRN §3.2: at most ⌈BDP / payload⌉ packets outstanding. 18750 B / 1000 B = 19.
    let irn = max_outstanding(r#""cc": "none", "recovery": "irn""#);
    assert_eq!(irn, 19);
    // base_rtt: 40 Gb/s × 2 µs = 10 kB = 10 packets.
    let rtt = max_outstanding(r#""cc": "none", "recovery": "irn", "base_rtt": "2us""#);
    assert_eq!(rtt, 10);
    // DCQCN+SACK has no cap: one RTT (~5 µs, ~23 packets at 40 Gb/s) is outstanding.
    let sack = max_outstanding(r#""cc": "none", "recovery": "sack""#);
    eprintln!("max outstanding: irn {irn}, irn base_rtt 2us {rtt}, sack {sack}");
    assert!(sack > 19, "{sack}");
}

#[test]
fn a_lossy_incast_without_pfc_completes_under_irn_with_fewer_retransmissions() {
    // 16 senders × 400 kB with DCQCN into one port with a 200 kB shared buffer, no PFC (IRN
    // runs without PFC). Even IRN's 16 × 19 outstanding packets (329 kB on the wire) overflow
    // it; every flow still completes, and IRN resends far fewer packets than go-back-N.
    let incast = |rec: &str| {
        run(&star(
            16,
            1,
            "400kB",
            r#", "shared_buffer": "200kB""#,
            &format!(r#""recovery": "{rec}""#),
            r#", "run": {"duration": "1ms", "horizon": "100ms"}"#,
        ))
    };
    let gbn = incast("gbn");
    let irn = incast("irn");
    let sack = incast("sack");
    let line = |n: &str, o: &RunOutput| {
        eprintln!(
            "{n}: dropped {}, completed {}, retx {}, timeouts {}, max FCT {:.1} us",
            o.meta.dropped,
            o.meta.flows_completed,
            sum(&o.flows.retx_pkts),
            sum(&o.flows.rto_count),
            o.flows.fct_s.iter().copied().fold(0.0f64, f64::max) * 1e6
        )
    };
    line("gbn", &gbn);
    line("irn", &irn);
    line("sack", &sack);
    for o in [&gbn, &irn, &sack] {
        assert!(o.meta.dropped > 0, "the incast is lossy");
        assert_eq!(o.meta.flows_completed, 16);
    }
    let (g, i, s) = (
        sum(&gbn.flows.retx_pkts),
        sum(&irn.flows.retx_pkts),
        sum(&sack.flows.retx_pkts),
    );
    assert!(2 * i < g, "irn {i} vs gbn {g}");
    // Without BDP-FC (DCQCN+SACK) the QPs keep injecting new packets at their DCQCN rate
    // into the full buffer: many more drops, each resent once. The cap is what keeps IRN's
    // losses low here (IRN §4: BDP-FC matters without PFC).
    assert!(2 * i < s, "irn {i} vs sack {s}");
    // Selective repeat resends a packet only if it was lost (or its timer fired): never
    // more retransmissions than drops plus what timeouts resent.
    assert!(i >= irn.meta.dropped);
}

#[test]
fn bad_recovery_keys_name_the_key() {
    let cases = [
        (r#"{"recovery": "hpcc"}"#, "transports.r.roce.recovery", ""),
        (r#"{"rto_low": "0s"}"#, "transports.r.roce.rto_low", "> 0"),
        (r#"{"rto_high": "0s"}"#, "transports.r.roce.rto_high", "> 0"),
        (r#"{"bdp": "0B"}"#, "transports.r.roce.bdp", "at least 1"),
        (r#"{"base_rtt": "0s"}"#, "transports.r.roce.base_rtt", "> 0"),
    ];
    for (roce, path, msg) in cases {
        let t = format!(r#"{{"r": {{"kind": "roce", "roce": {roce}}}}}"#);
        let e = err_of(&t);
        assert_eq!(e.path, path, "{t}: {e:?}");
        assert!(e.msg.contains(msg), "{t}: {e:?}");
    }
}

/// A 2-queue star with a 1 MB shared buffer, `pfc` (the `switch.pfc` table, or none), and one
/// class of `recovery` at `priority` (its ACKs at `ack`).
fn irn_pfc(recovery: &str, pfc: &str, priority: u8, ack: u8) -> Result<(), ConfigError> {
    let pfc = if pfc.is_empty() {
        String::new()
    } else {
        format!(r#", "pfc": {pfc}"#)
    };
    let j = format!(
        r#"{{"topology": {{"kind": "star", "hosts": 2, "link": {{"rate": "40Gbps", "delay": "1us"}}}},
            "switch": {{"queues": 2, "scheduler": {{"kind": "drr", "weights": [1, 1]}}, "shared_buffer": "1MB" {pfc}}},
            "host": {{"queues": 2, "scheduler": {{"kind": "drr", "weights": [1, 1]}}}},
            "transports": {{"r": {{"kind": "roce", "roce": {{"recovery": "{recovery}"}}}}}},
            "classes": [{{"name": "a", "transport": "r", "priority": {priority}, "ack_priority": {ack},
                "workload": {{"kind": "flows", "list": [{{"src": 1, "dst": 0, "size": "100kB", "start": 0}}]}}}}]}}"#
    );
    from_json(&j)?.build(&FsReader).map(|_| ())
}

#[test]
fn irn_with_pfc_on_its_queue_is_refused_naming_the_key() {
    // mechanisms §4.10: IRN runs without PFC. PFC on every queue, or on the class's data or
    // ACK queue: an error naming the transport's recovery key and the class's priority key.
    for (pfc, prio, ack, key) in [
        ("{}", 0, 0, "classes[0].priority"),
        (r#"{"queues": [1]}"#, 1, 1, "classes[0].priority"),
        (r#"{"queues": [1]}"#, 0, 1, "classes[0].ack_priority"),
    ] {
        let e = irn_pfc("irn", pfc, prio, ack).expect_err(pfc).to_string();
        assert!(
            e.contains("transports.r.roce.recovery") && e.contains(key) && e.contains("PFC"),
            "{pfc} {prio}/{ack}: {e}"
        );
    }
    // PFC only on a queue the class does not use, PFC off, or SACK recovery under PFC: fine.
    irn_pfc("irn", r#"{"queues": [1]}"#, 0, 0).unwrap();
    irn_pfc("irn", "", 0, 0).unwrap();
    irn_pfc("irn", r#"{"enabled": false}"#, 0, 0).unwrap();
    irn_pfc("sack", "{}", 0, 0).unwrap();
}
