//! PIAS tagging and ResQueue promotion (issue 6 must-shows): threshold boundaries, the −1
//! promotion (including at the top level and without ResQueue), timeout-only promotion, the
//! config errors, and a scripted fabric run where a one-packet flow's retransmission goes
//! to the reserved queue 0 and survives a burst that keeps dropping new packets.

use dcnsim::packet::{flags, Packet, PktKind};
use dcnsim::run::{run_built, Progress, RunOutput};
use dcnsim::scenario::build::FsReader;
use dcnsim::scenario::from_json;
use dcnsim::scheme::pias::{AckQueue, Pias, PiasConfig, PromoteOn};
use dcnsim::scheme::{Scheme, TxCtx};
use dcnsim::units::Bytes;

fn cfg(th: &[u64], resqueue: bool) -> PiasConfig {
    PiasConfig {
        thresholds: Some(th.iter().map(|&b| Bytes(b)).collect()),
        resqueue,
        ..PiasConfig::default()
    }
}

const CTX: TxCtx = TxCtx { now: 0, host: 0 };

fn data(flow: u32, seq: u64, payload: u32, fl: u8) -> Packet {
    let mut p = Packet::new(PktKind::Data, flow, 0, 1, payload, payload + 78);
    p.seq = seq;
    p.flags = fl;
    p
}

fn tag(s: &mut Pias, flow: u32, seq: u64, payload: u32, fl: u8) -> u8 {
    let mut p = data(flow, seq, payload, fl);
    p.class = 7; // whatever the class said: the scheme decides
    s.on_host_tx(&mut p, &CTX);
    p.class
}

#[test]
fn levels_switch_exactly_at_thresholds() {
    let s = Pias::new(&cfg(&[10_000, 100_000], false));
    assert_eq!(s.level(0), 0);
    assert_eq!(s.level(9_999), 0);
    assert_eq!(
        s.level(10_000),
        1,
        "a flow that has sent α_1 bytes is demoted"
    );
    assert_eq!(s.level(99_999), 1);
    assert_eq!(s.level(100_000), 2);
    assert_eq!(s.level(u64::MAX), 2, "K−1 thresholds give K levels");
}

#[test]
fn first_transmissions_are_tagged_by_bytes_sent_before_them() {
    let mut s = Pias::new(&cfg(&[3_000, 6_000], false));
    // packets of 1460 B: starts 0, 1460, 2920 | 4380, 5840 | 7300
    let got: Vec<u8> = (0..6).map(|i| tag(&mut s, 0, i * 1460, 1460, 0)).collect();
    assert_eq!(got, vec![0, 0, 0, 1, 1, 2]);
    // another flow starts again at the top, whatever flow 0 did
    assert_eq!(tag(&mut s, 5, 0, 1000, 0), 0);
    // with ResQueue the same levels sit one queue lower
    let mut r = Pias::new(&cfg(&[3_000, 6_000], true));
    let got: Vec<u8> = (0..6).map(|i| tag(&mut r, 0, i * 1460, 1460, 0)).collect();
    assert_eq!(got, vec![1, 1, 1, 2, 2, 3]);
}

#[test]
fn resqueue_promotes_a_retransmission_by_one_level_of_bytes_sent_so_far() {
    let mut r = Pias::new(&cfg(&[10_000, 100_000, 500_000], true));
    // one-packet flow: sent at the top normal level (queue 1), retransmitted in queue 0
    assert_eq!(tag(&mut r, 0, 0, 1000, 0), 1);
    assert_eq!(tag(&mut r, 0, 0, 1000, flags::RETX), 0);
    assert_eq!(tag(&mut r, 0, 0, 1000, flags::RETX | flags::RTO_RETX), 0);
    // a large flow that has sent 200 KB is at level 2 (queue 3); a retransmission of its
    // very first packet uses the bytes sent *so far* (level 2) − 1 = queue 2, not queue 0
    for i in 0..137 {
        tag(&mut r, 1, i * 1460, 1460, 0);
    }
    assert_eq!(tag(&mut r, 1, 137 * 1460, 1460, 0), 3);
    assert_eq!(tag(&mut r, 1, 0, 1460, flags::RETX), 2);
    // top level: a flow at the highest normal level (queue 1) goes to queue 0, and never below
    assert_eq!(tag(&mut r, 2, 0, 1460, 0), 1);
    assert_eq!(tag(&mut r, 2, 1460, 1460, 0), 1);
    assert_eq!(tag(&mut r, 2, 0, 1460, flags::RETX), 0);
    assert_eq!(tag(&mut r, 2, 0, 1460, flags::RETX), 0);
}

#[test]
fn without_resqueue_retransmissions_are_not_promoted() {
    let mut s = Pias::new(&cfg(&[10_000, 100_000], false));
    assert_eq!(tag(&mut s, 0, 0, 1000, 0), 0);
    assert_eq!(
        tag(&mut s, 0, 0, 1000, flags::RETX | flags::RTO_RETX),
        0,
        "top level stays at the top, no reserved queue"
    );
    for i in 0..10 {
        tag(&mut s, 1, i * 1460, 1460, 0);
    }
    // 14.6 KB sent: level 1; its retransmission stays at level 1
    assert_eq!(tag(&mut s, 1, 0, 1460, flags::RETX), 1);
}

#[test]
fn timeout_mode_promotes_only_timeout_retransmissions() {
    let mut c = cfg(&[10_000], true);
    c.promote_on = PromoteOn::Timeout;
    let mut r = Pias::new(&c);
    assert_eq!(tag(&mut r, 0, 0, 1000, 0), 1);
    assert_eq!(
        tag(&mut r, 0, 0, 1000, flags::RETX),
        1,
        "fast retransmit not promoted"
    );
    assert_eq!(tag(&mut r, 0, 0, 1000, flags::RETX | flags::RTO_RETX), 0);
    // default = any
    let mut a = Pias::new(&cfg(&[10_000], true));
    tag(&mut a, 0, 0, 1000, 0);
    assert_eq!(tag(&mut a, 0, 0, 1000, flags::RETX), 0);
}

#[test]
fn acks_go_to_the_top_normal_level_by_default() {
    let ack = |s: &mut Pias| {
        let mut p = Packet::new(PktKind::Ack, 0, 1, 0, 0, 84);
        p.class = 5;
        s.on_host_tx(&mut p, &CTX);
        p.class
    };
    assert_eq!(ack(&mut Pias::new(&cfg(&[10_000], false))), 0);
    assert_eq!(ack(&mut Pias::new(&cfg(&[10_000], true))), 1);
    let mut c = cfg(&[10_000], true);
    c.acks = AckQueue::Highest;
    assert_eq!(ack(&mut Pias::new(&c)), 0);
    c.acks = AckQueue::Class;
    assert_eq!(ack(&mut Pias::new(&c)), 5);
    // open-loop packets are left alone
    let mut s = Pias::new(&cfg(&[10_000], true));
    let mut raw = Packet::new(PktKind::Raw, 0, 0, 1, 1000, 1078);
    raw.class = 4;
    s.on_host_tx(&mut raw, &CTX);
    assert_eq!(raw.class, 4);
}

fn err(scheme: &str, queues: u8) -> (String, String) {
    let json = format!(
        r#"{{"switch": {{"queues": {queues}}}, "host": {{"queues": {queues}}}, "scheme": {scheme}}}"#
    );
    let e = match from_json(&json) {
        Err(e) => e,
        Ok(sc) => match sc.build(&FsReader) {
            Err(e) => e,
            Ok(_) => panic!("{scheme} should be rejected"),
        },
    };
    (e.path, e.msg)
}

#[test]
fn bad_configs_name_the_key() {
    let (p, m) = err(r#"{"kind": "pias", "thresholds": ["10KB", "10KB"]}"#, 8);
    assert_eq!(p, "scheme.thresholds[1]", "{m}");
    assert!(m.contains("strictly increasing"), "{m}");
    let (p, m) = err(r#"{"kind": "pias", "thresholds": ["0B"]}"#, 8);
    assert_eq!(p, "scheme.thresholds[0]", "{m}");
    // 8 queues: 7 thresholds for PIAS, only 6 with ResQueue
    let seven = r#"["1KB","2KB","3KB","4KB","5KB","6KB","7KB"]"#;
    err(
        &format!(
            r#"{{"kind": "pias", "thresholds": {seven}, "resqueue": false, "acks": "class"}}"#
        ),
        7,
    );
    let (p, m) = err(
        &format!(r#"{{"kind": "pias", "thresholds": {seven}, "resqueue": true}}"#),
        8,
    );
    assert_eq!(p, "scheme.thresholds", "{m}");
    assert!(m.contains("at most 6"), "{m}");
    let (p, m) = err(
        r#"{"kind": "pias", "preset": "websearch_90", "resqueue": true}"#,
        8,
    );
    assert_eq!(p, "scheme.preset", "{m}");
    let (p, m) = err(r#"{"kind": "pias", "preset": "websearch_55"}"#, 8);
    assert_eq!(p, "scheme.preset", "{m}");
    assert!(m.contains("websearch_50"), "{m}");
    let (p, _) = err(r#"{"kind": "pias"}"#, 8);
    assert_eq!(p, "scheme.thresholds");
    let (p, _) = err(
        r#"{"kind": "pias", "preset": "datamining_50", "thresholds": ["1KB"]}"#,
        8,
    );
    assert_eq!(p, "scheme.thresholds");
    let (p, m) = err(r#"{"kind": "pias", "thresholds": ["1KB"], "bogus": 1}"#, 8);
    assert!(
        p.starts_with("scheme") && (p.contains("bogus") || m.contains("bogus")),
        "{p}: {m}"
    );
    let (p, m) = err(
        r#"{"kind": "pias", "thresholds": ["1KB"], "promote_on": "sometimes"}"#,
        8,
    );
    assert_eq!(p, "scheme.promote_on", "{m}");
    let (p, m) = err(
        r#"{"kind": "pias", "thresholds": ["1KB"], "resqueue": true}"#,
        1,
    );
    assert!(
        p == "scheme.thresholds" || p == "scheme.resqueue",
        "{p}: {m}"
    );
    // a valid preset builds
    let sc = from_json(
        r#"{"switch": {"queues": 8}, "scheme": {"kind": "pias", "preset": "datamining_70"}}"#,
    )
    .unwrap();
    sc.check().unwrap();
}

/// Star with 4 hosts into h3. Open-loop sources from h1 and h2 at 10 Gb/s each overload
/// h3's port in the top normal PIAS queue from t = 0 to 5 ms (a burst that keeps the port
/// buffer full; 100-byte packets, so the free space never reaches a full-size packet). A one-packet TCP flow h0 → h3 starts at 100 µs, is dropped, and is
/// retransmitted after the 1 ms RTO.
fn burst_run(resqueue: bool, reserved: &str) -> RunOutput {
    let base = resqueue as u8;
    let json = format!(
        r#"{{
        "topology": {{"kind": "star", "hosts": 4, "link": {{"rate": "10Gbps", "delay": "1us"}}}},
        "switch": {{"queues": 8, "scheduler": {{"kind": "strict"}}, "port_limit": "30KB",
                    "reserved": ["{reserved}", "0B", "0B", "0B", "0B", "0B", "0B", "0B"]}},
        "host": {{"queues": 8}},
        "transports": {{"t": {{"cc": "dctcp", "rto_min": "1ms", "init_cwnd": 10}}}},
        "classes": [{{"name": "short", "transport": "t",
                     "workload": {{"kind": "flows", "list": [{{"src": 0, "dst": 3, "size": "1KB", "start": "100us"}}]}}}}],
        "sources": [
            {{"src": 1, "dst": 3, "rate": "10Gbps", "packet": "100B", "priority": {base}, "stop": "5ms"}},
            {{"src": 2, "dst": 3, "rate": "10Gbps", "packet": "100B", "priority": {base}, "stop": "5ms"}}
        ],
        "scheme": {{"kind": "pias", "thresholds": ["10KB", "100KB"], "resqueue": {resqueue}}},
        "run": {{"duration": "6ms", "horizon": "50ms"}}
    }}"#
    );
    let sc = from_json(&json).unwrap_or_else(|e| panic!("{e}"));
    let mut built = sc.build(&FsReader).unwrap_or_else(|e| panic!("{e}"));
    built.sim.paranoid = true; // port accounting (incl. reserved bytes) checked after every op
    run_built(built, "burst", 1, &mut |_: &Progress| true)
}

/// Rows of the queue table for the switch egress port towards h3.
fn to_h3(out: &RunOutput) -> Vec<usize> {
    let q = &out.queues;
    (0..q.queue.len())
        .filter(|&i| !q.is_host[i] && q.peer_name[i] == "h3")
        .collect()
}

#[test]
fn one_packet_flow_retransmission_uses_the_reserved_queue_and_survives_the_burst() {
    let out = burst_run(true, "20KB");
    let f = &out.flows;
    let q = &out.queues;
    let rows = to_h3(&out);
    let row = |qi: u64| *rows.iter().find(|&&i| q.queue[i] == qi).unwrap();
    let (q0, q1) = (row(0), row(1));
    eprintln!(
        "resqueue: flow drops {} retx {} rto {} fct {:.1} us; q0 in {} drops {} max {} B; q1 in {} drops {} max {} B",
        f.drops[0], f.retx_pkts[0], f.rto_count[0], f.fct_s[0] * 1e6,
        q.pkts_in[q0], q.drops[q0], q.max_bytes[q0], q.pkts_in[q1], q.drops[q1], q.max_bytes[q1]
    );
    assert!(
        f.drops[0] >= 1,
        "the first transmission must be dropped by the burst"
    );
    assert!(f.completed[0]);
    assert_eq!(
        f.max_pkt_drops[0], 1,
        "the retransmission is never dropped again"
    );
    assert_eq!(f.retx_pkts[0], 1);
    assert!(
        f.fct_s[0] < 1.5e-3,
        "delivered right after the first RTO, during the burst: {}",
        f.fct_s[0]
    );
    // the retransmission (and only it) went through queue 0 of h3's port, without loss
    assert_eq!(q.pkts_in[q0], 1);
    assert_eq!(q.drops[q0], 0);
    assert!(q.max_bytes[q0] <= 20_000);
    // while the burst kept dropping new packets in the lower queue ...
    assert!(q.drops[q1] > 100, "{}", q.drops[q1]);
    // ... which never used the reserved bytes: every other queue stayed within the port limit
    for &i in &rows {
        if q.queue[i] != 0 {
            assert!(
                q.max_bytes[i] <= 30_000,
                "queue {} used reserved bytes: {}",
                q.queue[i],
                q.max_bytes[i]
            );
        }
    }
    assert!(
        q.max_bytes[q1] > 30_000 - 100,
        "queue 1 filled the port limit"
    );
}

#[test]
fn without_resqueue_the_retransmission_is_dropped_again() {
    // Same burst, plain PIAS: the retransmission lands in the same (full) queue as the burst.
    let out = burst_run(false, "0B");
    let f = &out.flows;
    eprintln!(
        "pias: flow drops {} max/pkt {} rto {} fct {:.1} us",
        f.drops[0],
        f.max_pkt_drops[0],
        f.rto_count[0],
        f.fct_s[0] * 1e6
    );
    assert!(f.drops[0] >= 1);
    assert!(
        f.max_pkt_drops[0] >= 2,
        "the retransmission collides with the burst again"
    );
    assert!(!f.completed[0] || f.fct_s[0] > 2e-3);
    // ResQueue with no reserved bytes: promoted to queue 0 (served first) but sharing the
    // full port buffer, so it is dropped like in PIAS (RESQ-Fig6: < 5 KB ≈ PIAS).
    let out = burst_run(true, "0B");
    assert!(out.flows.max_pkt_drops[0] >= 2);
}
