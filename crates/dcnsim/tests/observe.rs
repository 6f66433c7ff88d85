//! Issue 18 (engine side): per-port / per-class time series, offered vs carried load, and
//! packet captures read back with a minimal pcap parser.

use dcnsim::run::{run_json, Progress, RunOutput};
use dcnsim::scenario::build::FsReader;

fn run(json: &str) -> RunOutput {
    run_json(json, &FsReader, &mut |_: &Progress| true).unwrap_or_else(|e| panic!("{e}"))
}

fn err(json: &str) -> String {
    match run_json(json, &FsReader, &mut |_: &Progress| true) {
        Ok(_) => panic!("expected an error"),
        Err(e) => e.to_string(),
    }
}

/// One record of a classic pcap file (Ethernet / IPv4 / TCP headers only).
#[derive(Debug, Clone)]
struct Rec {
    t_ns: u64,
    orig_len: u32,
    src_ip: [u8; 4],
    dst_ip: [u8; 4],
    dscp: u8,
    ecn: u8,
    sport: u16,
    dport: u16,
    seq: u32,
    ack: u32,
    tcp_flags: u8,
    ip_len: u16,
}

/// A tiny reader for the libpcap format (nanosecond magic, LINKTYPE_ETHERNET).
fn parse_pcap(b: &[u8]) -> Vec<Rec> {
    let u32le = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().unwrap());
    let u16be = |i: usize| u16::from_be_bytes(b[i..i + 2].try_into().unwrap());
    let u32be = |i: usize| u32::from_be_bytes(b[i..i + 4].try_into().unwrap());
    assert_eq!(u32le(0), 0xa1b2_3c4d, "nanosecond pcap magic");
    assert_eq!(u16::from_le_bytes([b[4], b[5]]), 2);
    assert_eq!(u16::from_le_bytes([b[6], b[7]]), 4);
    assert_eq!(u32le(16), 54, "snaplen");
    assert_eq!(u32le(20), 1, "LINKTYPE_ETHERNET");
    let mut i = 24;
    let mut out = Vec::new();
    while i < b.len() {
        let (sec, ns, incl, orig) = (u32le(i), u32le(i + 4), u32le(i + 8), u32le(i + 12));
        assert!(ns < 1_000_000_000);
        assert_eq!(incl, 54);
        let f = i + 16;
        assert_eq!(u16be(f + 12), 0x0800, "EtherType IPv4");
        let ip = f + 14;
        assert_eq!(b[ip], 0x45);
        // The IPv4 header checksum verifies to zero.
        let mut sum: u32 = (0..10).map(|k| u16be(ip + 2 * k) as u32).sum();
        while sum > 0xffff {
            sum = (sum & 0xffff) + (sum >> 16);
        }
        assert_eq!(sum, 0xffff, "IPv4 header checksum");
        assert_eq!(b[ip + 9], 6, "TCP");
        let tcp = ip + 20;
        out.push(Rec {
            t_ns: sec as u64 * 1_000_000_000 + ns as u64,
            orig_len: orig,
            src_ip: b[ip + 12..ip + 16].try_into().unwrap(),
            dst_ip: b[ip + 16..ip + 20].try_into().unwrap(),
            dscp: b[ip + 1] >> 2,
            ecn: b[ip + 1] & 3,
            sport: u16be(tcp),
            dport: u16be(tcp + 2),
            seq: u32be(tcp + 4),
            ack: u32be(tcp + 8),
            tcp_flags: b[tcp + 13],
            ip_len: u16be(ip + 2),
        });
        i = f + incl as usize;
    }
    assert_eq!(i, b.len());
    out
}

fn tmp(name: &str) -> String {
    let d = std::env::temp_dir().join(format!("dcnsim-observe-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name).to_string_lossy().into_owned()
}

/// 8 → 1 incast of 64 KB flows on a star, one round.
fn incast(cc: &str, port_limit: &str, output: &str) -> String {
    format!(
        r#"{{
        "topology": {{"kind": "star", "hosts": 9, "link": {{"rate": "10Gbps", "delay": "2us"}}}},
        "switch": {{"queues": 1, "scheduler": {{"kind": "fifo"}}, "port_limit": "{port_limit}", "ecn": {{"kind": "step", "k": "10pkt"}}}},
        "host": {{"queues": 1, "scheduler": {{"kind": "fifo"}}}},
        "transports": {{"t": {{"cc": "{cc}", "ecn": {ecn}, "init_cwnd": 10, "rto_min": "1ms"}}}},
        "classes": [{{"name": "incast", "transport": "t",
                     "workload": {{"kind": "incast", "fan_in": 8, "receiver": 8, "bytes_per_sender": {{"fixed": "64KB"}}}}}}],
        "run": {{"duration": "20ms", "horizon": "1s"}},
        "output": {{{output}}}
    }}"#,
        ecn = cc == "dctcp"
    )
}

fn flow_of(r: &Rec) -> u32 {
    // Data travels from the flow's port (1024 + id) to 5001.
    (if r.dport == 5001 { r.sport } else { r.dport }) as u32 - 1024
}

#[test]
fn pcap_at_receivers_has_real_sequence_numbers_times_and_ce_marks() {
    let path = tmp("dctcp.pcap");
    let out = run(&incast("dctcp", "1000pkt", &format!(r#""pcap": "{path}""#)));
    assert_eq!(out.meta.dropped, 0, "a deep buffer: no drops");
    let recs = parse_pcap(&std::fs::read(&path).unwrap());
    let f = &out.flows;
    let n = f.flow_id.len();
    assert_eq!(n, 8);
    // Times never go backwards (a capture is in time order).
    assert!(recs.windows(2).all(|w| w[0].t_ns <= w[1].t_ns));
    let mut ce = 0u64;
    for id in 0..n {
        let data: Vec<&Rec> = recs
            .iter()
            .filter(|r| flow_of(r) == id as u32 && r.dport == 5001 && r.tcp_flags & 0x08 != 0)
            .collect();
        // Every transmitted segment reaches the receiver once (no losses, no retransmits).
        assert_eq!(data.len() as u64, f.data_pkts[id], "flow {id}");
        assert_eq!(f.retx_pkts[id], 0);
        // The segments tile [0, size): real byte sequence numbers.
        let mut ranges: Vec<(u32, u32)> = data
            .iter()
            .map(|r| (r.seq, r.seq + (r.ip_len as u32 - 40)))
            .collect();
        ranges.sort();
        assert_eq!(ranges[0].0, 0);
        assert!(ranges.windows(2).all(|w| w[0].1 == w[1].0), "contiguous");
        assert_eq!(ranges.last().unwrap().1 as u64, f.size[id]);
        for r in &data {
            assert_eq!(r.orig_len, 54 + r.ip_len as u32 - 40);
            assert_eq!(r.ecn & 2, 2, "DCTCP data is ECT or CE");
            assert_eq!(r.src_ip, [10, 0, 0, 1 + f.src[id] as u8]);
            assert_eq!(r.dst_ip, [10, 0, 0, 9]);
            assert_eq!(r.dscp as u64, f.priority[id]);
        }
        ce += data.iter().filter(|r| r.ecn == 3).count() as u64;
        // The flow completes when its last byte arrives: that is its last captured segment.
        let last = data.iter().map(|r| r.t_ns).max().unwrap();
        assert!(
            (last as f64 * 1e-9 - f.finish_s[id]).abs() < 1.5e-9,
            "flow {id}: last segment at {last} ns, finish {}",
            f.finish_s[id]
        );
        let first = data.iter().map(|r| r.t_ns).min().unwrap();
        assert!(first as f64 * 1e-9 > f.start_s[id]);
        // The receiver's cumulative ACKs climb to the flow's size.
        let acks: Vec<u32> = recs
            .iter()
            .filter(|r| flow_of(r) == id as u32 && r.sport == 5001 && r.tcp_flags & 0x10 != 0)
            .map(|r| r.ack)
            .collect();
        assert!(acks.windows(2).all(|w| w[0] <= w[1]));
        assert_eq!(*acks.last().unwrap() as u64, f.size[id]);
    }
    // Every CE mark the switch made is on a captured data segment, and the switch had to
    // mark (8 × IW 10 overflows K = 10).
    let marks: u64 = out.queues.ecn_marks.iter().sum();
    assert!(marks > 0);
    assert_eq!(ce, marks);
    // ACKs of marked data echo ECE.
    assert!(recs
        .iter()
        .any(|r| r.sport == 5001 && r.tcp_flags & 0x40 != 0));
}

#[test]
fn pcap_shows_retransmissions_and_drops_side_table() {
    let path = tmp("newreno.pcap");
    let out = run(&incast(
        "newreno",
        "20pkt",
        &format!(r#""pcap": "{path}", "pcap_flows": [0, 3]"#),
    ));
    assert!(out.meta.dropped > 0, "a shallow buffer drops");
    let recs = parse_pcap(&std::fs::read(&path).unwrap());
    let f = &out.flows;
    let drops = std::fs::read_to_string(dcnsim::sim::pcap::drops_path(&path)).unwrap();
    let rows: Vec<Vec<&str>> = drops
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    for id in [0usize, 3] {
        let data = recs
            .iter()
            .filter(|r| flow_of(r) == id as u32 && r.dport == 5001 && r.tcp_flags & 0x08 != 0)
            .count() as u64;
        // What reached the receiver = what was sent − what was dropped.
        assert_eq!(data, f.data_pkts[id] - f.drops[id], "flow {id}");
        let dropped_rows = rows
            .iter()
            .filter(|r| r[1] == id.to_string() && r[2] == "data")
            .count() as u64;
        assert_eq!(dropped_rows, f.drops[id], "flow {id}: drop rows");
    }
    assert!(f.drops[0] + f.drops[3] > 0, "the traced flows lost packets");
    // Only the selected flows are captured; drops are at the receiver's switch port.
    assert!(recs.iter().all(|r| [0, 3].contains(&flow_of(r))));
    assert!(rows.iter().all(|r| r[4] == "sw0" && r[7] == "port"));
    // At the sender's NIC every transmission is captured: a retransmission is a segment
    // whose sequence number was seen before (what tshark flags as a retransmission).
    let path = tmp("newreno-h0.pcap");
    let out = run(&incast(
        "newreno",
        "20pkt",
        &format!(r#""pcap": "{path}", "pcap_ports": ["h0/0"]"#),
    ));
    let recs = parse_pcap(&std::fs::read(&path).unwrap());
    let mut seqs: Vec<u32> = recs
        .iter()
        .filter(|r| r.tcp_flags & 0x08 != 0)
        .map(|r| r.seq)
        .collect();
    assert!(recs.iter().all(|r| flow_of(r) == 0 && r.dport == 5001));
    assert_eq!(seqs.len() as u64, out.flows.data_pkts[0]);
    let n = seqs.len();
    seqs.sort();
    seqs.dedup();
    assert!(out.flows.retx_pkts[0] > 0);
    assert_eq!((n - seqs.len()) as u64, out.flows.retx_pkts[0]);
}

#[test]
fn pcap_at_a_port_and_in_a_window() {
    let path = tmp("port.pcap");
    let out = run(&incast(
        "dctcp",
        "1000pkt",
        &format!(
            r#""pcap": "{path}", "pcap_ports": ["sw0/8"], "pcap_start": "100us", "pcap_stop": "300us""#
        ),
    ));
    let recs = parse_pcap(&std::fs::read(&path).unwrap());
    assert!(!recs.is_empty());
    assert!(recs
        .iter()
        .all(|r| (100_000..300_000).contains(&r.t_ns) && r.dport == 5001));
    // The port to the receiver sends back to back while the incast lasts: 1500-byte-ish
    // frames 1.2 µs apart at 10 Gb/s.
    let gaps: Vec<u64> = recs.windows(2).map(|w| w[1].t_ns - w[0].t_ns).collect();
    let min = *gaps.iter().min().unwrap();
    assert!((1100..=1300).contains(&min), "gap {min} ns");
    drop(out);
}

#[test]
fn pcap_keys_are_checked() {
    let base = |o: &str| incast("dctcp", "1000pkt", o);
    let p = tmp("x.pcap");
    let e = err(&base(&format!(
        r#""pcap": "{p}", "pcap_start": "1ms", "pcap_stop": "1ms""#
    )));
    assert!(e.contains("output.pcap_stop"), "{e}");
    let e = err(&base(r#""pcap_flows": [1]"#));
    assert!(
        e.contains("output.pcap_flows") && e.contains("without output.pcap"),
        "{e}"
    );
    let e = err(&base(&format!(r#""pcap": "{p}", "pcap_flows": [99]"#)));
    assert!(e.contains("output.pcap_flows") && e.contains("99"), "{e}");
    let e = err(&base(&format!(r#""pcap": "{p}", "pcap_ports": ["sw9/0"]"#)));
    assert!(
        e.contains("output.pcap_ports[0]") && e.contains("sw9"),
        "{e}"
    );
    let e = err(&base(&format!(
        r#""pcap": "{p}", "pcap_ports": ["sw0/77"]"#
    )));
    assert!(e.contains("output.pcap_ports[0]"), "{e}");
    let e = err(&base(&format!(r#""pcap": "{p}", "pcap_max_packets": 0"#)));
    assert!(e.contains("output.pcap_max_packets"), "{e}");
    // RoCE flows are not framed as TCP: a capture with no TCP-family flow is refused.
    let roce = incast("dctcp", "1000pkt", &format!(r#""pcap": "{p}""#)).replace(
        r#""t": {"cc": "dctcp", "ecn": true, "init_cwnd": 10, "rto_min": "1ms"}"#,
        r#""t": {"kind": "roce"}"#,
    );
    assert!(roce.contains(r#""kind": "roce""#));
    let e = err(&roce);
    assert!(e.contains("output.pcap") && e.contains("TCP-family"), "{e}");
    let e = err(&base(r#""pcap": "/nonexistent-dir-xyz/a.pcap""#));
    assert!(
        e.contains("output.pcap") && e.contains("does not exist"),
        "{e}"
    );
    // a file where the directory should be, and a directory nobody may write (/proc, even
    // for root): refused before the run, which used to end with a warning only
    let f = tmp("not-a-dir");
    std::fs::write(&f, "x").unwrap();
    let e = err(&base(&format!(r#""pcap": "{f}/a.pcap""#)));
    assert!(e.contains("output.pcap") && e.contains("is a file"), "{e}");
    let e = err(&base(r#""pcap": "/proc/a.pcap""#));
    assert!(
        e.contains("output.pcap") && e.contains("not writable"),
        "{e}"
    );
    let _ = std::fs::remove_file(&f);
}

#[test]
fn pcap_cap_stops_the_capture_with_a_warning() {
    let path = tmp("cap.pcap");
    let out = run(&incast(
        "dctcp",
        "1000pkt",
        &format!(r#""pcap": "{path}", "pcap_max_packets": 25"#),
    ));
    let recs = parse_pcap(&std::fs::read(&path).unwrap());
    assert_eq!(recs.len(), 25);
    assert!(out
        .meta
        .warnings
        .iter()
        .any(|w| w.starts_with("output.pcap_max_packets")));
}

#[test]
fn port_and_class_samples_add_up_to_the_totals() {
    let out = run(&incast(
        "newreno",
        "20pkt",
        r#""queue_sample_interval": "10us", "sample_ports": "all""#,
    ));
    let s = &out.samples;
    let q = &out.queues;
    assert!(out.meta.dropped > 0 && !s.t_s.is_empty());
    // Per (port, queue): the per-interval counters sum to the queue's run totals (sampling
    // runs until the fabric is idle).
    for i in 0..q.port.len() {
        let rows: Vec<usize> = (0..s.port.len())
            .filter(|&k| s.port[k] == q.port[i] && s.queue[k] == q.queue[i])
            .collect();
        let sum = |v: &[u64]| rows.iter().map(|&k| v[k]).sum::<u64>();
        assert_eq!(sum(&s.tx_bytes), q.bytes_out[i], "port {}", q.port[i]);
        assert_eq!(sum(&s.drops), q.drops[i]);
        assert_eq!(sum(&s.marks), q.ecn_marks[i]);
        for &k in &rows {
            assert!(s.util[k] <= 1.0 + 1e-9, "utilization {}", s.util[k]);
        }
    }
    // The receiver's switch port runs at line rate during the incast.
    let to_rx = (0..q.port.len())
        .find(|&i| q.node_name[i] == "sw0" && q.peer_name[i] == "h8")
        .unwrap();
    let peak = (0..s.port.len())
        .filter(|&k| s.port[k] == q.port[to_rx])
        .map(|k| s.util[k])
        .fold(0.0, f64::max);
    assert!(peak > 0.95, "peak utilization {peak}");
    // Class goodput: every byte of every flow arrives, retransmitted copies again.
    let c = &out.class_samples;
    let total: u64 = c.bytes.iter().sum();
    let sizes: u64 = out.flows.size.iter().sum();
    assert!(total >= sizes);
    // At most the receiver's line rate, give or take the one packet an interval can
    // straddle (a packet counts when its last bit arrives).
    let max = c.goodput_bps.iter().copied().fold(0.0, f64::max);
    assert!(max <= 10e9 + 1500.0 * 8.0 / 10e-6, "goodput {max}");
    assert!(max > 8e9, "goodput {max}");
}

#[test]
fn offered_and_carried_load_over_the_window() {
    let out = run(&incast("dctcp", "1000pkt", ""));
    let l = &out.meta.load[0];
    // 8 × 64 KB offered over the 20 ms window, all of it delivered inside it.
    let bytes: u64 = out.flows.size.iter().sum();
    let bps = bytes as f64 * 8.0 / 0.020;
    assert!((l.offered_bps - bps).abs() < 1e-6 * bps, "{l:?}");
    assert!((l.carried_bps - bps).abs() < 1e-6 * bps, "{l:?}");
    // Relative to Σ host link rates (9 × 10 Gb/s), the generator's default load basis.
    assert!((l.offered_load - bps / 90e9).abs() < 1e-9);
    // With the window ending before the incast finishes, carried < offered.
    let out = run(&incast("dctcp", "1000pkt", "").replace(
        r#""duration": "20ms""#,
        r#""duration": "20ms", "cooldown": "19.8ms""#,
    ));
    let l = &out.meta.load[0];
    assert!(l.carried_bps < 0.9 * l.offered_bps, "{l:?}");
    assert!(l.carried_bps > 0.0);
}

#[test]
fn pcap_appears_under_its_name_only_when_the_run_finishes() {
    use dcnsim::sim::pcap::{drops_path, Capture};
    let path = tmp("atomic.pcap");
    let drops = drops_path(&path);
    let _ = std::fs::remove_file(&path);
    let _ = std::fs::remove_file(&drops);
    let mut c = Capture::new(&path, vec![], None, 0, u64::MAX, 10);
    c.open();
    // Half-way through a run nothing carries the final names.
    assert!(!std::path::Path::new(&path).exists());
    assert!(!std::path::Path::new(&drops).exists());
    assert!(c.finish().is_empty());
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(bytes.len(), 24, "the pcap file header alone");
    assert!(std::fs::read_to_string(&drops)
        .unwrap()
        .starts_with("t_s,flow"));
    let dir = std::path::Path::new(&path).parent().unwrap();
    let left: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("atomic.pcap") && n.contains(".tmp-"))
        .collect();
    assert!(left.is_empty(), "temporary files left: {left:?}");
}
