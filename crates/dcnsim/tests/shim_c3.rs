//! C3 pipes (spec §5.3) through the real fabric: a TS pipe's rate never below its
//! guarantee, the DS pipe's EDF guarantee and its isolation from a PS burst, the `fujiz` law
//! with an LS pipe, and feedback as report packets. Topology and runners: `shim_common/`.

mod shim_common;

use dcnsim::scenario::build::Built;
use dcnsim::scheme::c3::Objective;
use shim_common::{build, build_until, run, scenario};

/// A TS pipe (one flow, R_G = 300 Mb/s) from host 0 against BE flows from hosts 1 and 2,
/// all to host 3 over a 500 Mb/s core. Returns the built run (`c3`) and the carried loads.
fn ts_vs_be(c3: bool) -> (Option<Built>, Vec<f64>) {
    let scheme = if c3 {
        r#"{"kind": "c3"}"#
    } else {
        r#"{"kind": "none"}"#
    };
    let ts = if c3 {
        r#""objective": "ts", "guarantee": "300Mbps","#
    } else {
        ""
    };
    let classes = format!(
        r#"{{"name": "ts", "transport": "t", {ts} "workload": {{"kind": "flows", "list": [
               {{"src": 0, "dst": 3, "size": "100MB", "start": 0}}]}}}},
           {{"name": "be", "transport": "t", "workload": {{"kind": "flows", "list": [
               {{"src": 1, "dst": 3, "size": "100MB", "start": 0}},
               {{"src": 1, "dst": 3, "size": "100MB", "start": 0}},
               {{"src": 2, "dst": 3, "size": "100MB", "start": 0}},
               {{"src": 2, "dst": 3, "size": "100MB", "start": 0}}]}}}}"#
    );
    let json = scenario("500Mbps", scheme, &classes, "200ms", "50ms");
    let load = run(&json).meta.load.iter().map(|l| l.carried_bps).collect();
    (c3.then(|| build(&json)), load)
}

#[test]
fn c3_pipe_rate_never_below_its_guarantee() {
    let (b, with) = ts_vs_be(true);
    let (_, without) = ts_vs_be(false);
    eprintln!("carried b/s (ts, be): C3 {with:?}, plain DCTCP {without:?}");
    let b = b.unwrap();
    let sh = b.sim.shim.as_ref().expect("c3 builds the shim");
    let p = sh.find(0, 3, Objective::Ts).expect("the TS pipe");
    let rows: Vec<_> = sh.samples.iter().filter(|s| s.pipe == p).collect();
    assert!(rows.len() >= 30, "{} samples", rows.len());
    for s in &rows {
        // The limiter's rate: R_w ≥ R_G at every control interval (spec §5.3.3).
        assert!((s.r_g - 300e6).abs() < 1.0, "R_G = Σ guarantees: {s:?}");
        assert!(s.rate >= s.r_g, "{s:?}");
    }
    // What the pipe actually released: at least R_G in every interval after the first
    // (the flow's slow start), while the BE pipes competing at the core were cut.
    for s in rows.iter().skip(2) {
        assert!(s.sent_bps >= 0.97 * s.r_g, "pipe released {s:?}");
    }
    // End to end: the TS flow's goodput holds its guarantee (1460 B of payload per 1566 B
    // encapsulated frame); without C3 it gets a fair fifth of the link.
    let floor = 0.95 * 300e6 * 1460.0 / 1566.0;
    assert!(with[0] >= floor, "TS carried {:.3e} < {floor:.3e}", with[0]);
    assert!(
        without[0] < 0.5 * floor,
        "TS without C3: {:.3e}",
        without[0]
    );
    // The BE pipes keep at least their 1 Mb/s guarantees.
    assert!(with[1] > 2e6, "BE carried {:.3e}", with[1]);
}

/// DS rounds (five 46 KB flows due in 16 ms and five 69 KB flows due in 20 ms, every
/// 25 ms — C3-Fig2d's Base-DS at half size) from host 0 to host 3 over a 500 Mb/s core,
/// optionally with a PS burst (20 L2DCT flows of 300 KB) between the same two hosts.
/// Returns the DS deadline-miss ratio and the PS flows' mean FCT.
fn ds_ps(c3: bool, burst: bool) -> (f64, usize, f64) {
    let scheme = if c3 {
        r#"{"kind": "c3"}"#
    } else {
        r#"{"kind": "none"}"#
    };
    let (ods, ops) = if c3 {
        (r#""objective": "ds","#, r#""objective": "ps","#)
    } else {
        ("", "")
    };
    let mut ds = Vec::new();
    for r in 0..4 {
        for i in 0..10 {
            let (size, dl) = if i < 5 {
                ("46KB", "16ms")
            } else {
                ("69KB", "20ms")
            };
            ds.push(format!(
                r#"{{"src": 0, "dst": 3, "size": "{size}", "start": "{}ms", "deadline": "{dl}"}}"#,
                25 * r
            ));
        }
    }
    let ps: Vec<String> = (0..20)
        .map(|_| r#"{"src": 0, "dst": 3, "size": "300KB", "start": 0}"#.to_string())
        .collect();
    let mut classes = format!(
        r#"{{"name": "ds", "transport": "ds", {ods} "workload": {{"kind": "flows", "list": [{}]}}}}"#,
        ds.join(",")
    );
    if burst {
        classes += &format!(
            r#", {{"name": "ps", "transport": "ps", {ops} "workload": {{"kind": "flows", "list": [{}]}}}}"#,
            ps.join(",")
        );
    }
    let out = run(&scenario("500Mbps", scheme, &classes, "100ms", "0ms"));
    let f = &out.flows;
    let (mut n, mut miss, mut ps_fct, mut ps_n) = (0, 0, 0.0, 0);
    for i in 0..f.flow_id.len() {
        if f.class_id[i] == 0 {
            n += 1;
            // `deadline_s` is an absolute time: compare the finish time with it.
            let late = !f.completed[i] || f.start_s[i] + f.fct_s[i] > f.deadline_s[i] + 1e-12;
            miss += late as usize;
        } else if f.completed[i] {
            ps_fct += f.fct_s[i];
            ps_n += 1;
        }
    }
    (miss as f64 / n as f64, n, ps_fct / ps_n.max(1) as f64)
}

#[test]
fn c3_ds_pipe_is_isolated_from_a_ps_burst() {
    let c3_alone = ds_ps(true, false);
    let c3_burst = ds_ps(true, true);
    let tcp_alone = ds_ps(false, false);
    let tcp_burst = ds_ps(false, true);
    eprintln!(
        "DS miss ratio (flows, PS mean FCT): C3 alone {c3_alone:?}, C3 + PS {c3_burst:?}, \
         D2TCP alone {tcp_alone:?}, D2TCP + L2DCT {tcp_burst:?}"
    );
    assert_eq!(c3_alone.1, 40);
    // Control: sharing the path without pipes, the PS burst makes DS flows miss.
    assert!(
        tcp_burst.0 > tcp_alone.0 + 0.1,
        "the burst should hurt DS without C3: {tcp_alone:?} → {tcp_burst:?}"
    );
    // C3: the DS pipe's EDF guarantee holds through the burst — no more misses than alone.
    assert!(
        c3_burst.0 <= c3_alone.0,
        "the PS burst raised the DS miss ratio under C3: {c3_alone:?} → {c3_burst:?}"
    );
    // And the PS flows were not starved: they finished (6 MB at 500 Mb/s take ≥ 96 ms;
    // measured: mean FCT 0.22 s under C3, where the PS pipe starts at its R_G and yields to
    // the DS pipe, vs 0.15 s sharing with D2TCP).
    assert!(c3_burst.2 > 0.0 && c3_burst.2 < 0.5, "{c3_burst:?}");
}

/// The DS pipe's R_G for a flow that starts late (spec §5.3.4): one 100 KB DS flow from
/// host 0 to host 3 starting at 50 ms, due 10 ms later. At its arrival EDF needs
/// (1 + h)·S/TD = 1.05 × 100 KB / 10 ms = 84 Mb/s of payload (more on the wire). Taking
/// the deadline as 10 ms after the start a second time (due at 110 ms) gave a sixth of that.
#[test]
fn c3_ds_guarantee_of_a_flow_that_starts_late() {
    let classes = r#"{"name": "ds", "transport": "ds", "objective": "ds", "workload":
        {"kind": "flows", "list": [
            {"src": 0, "dst": 3, "size": "100KB", "start": "50ms", "deadline": "10ms"}]}}"#;
    let json = scenario("1Gbps", r#"{"kind": "c3"}"#, classes, "80ms", "0ms");
    // Up to just after the arrival (the guarantee is derived on arrival).
    let b = build_until(&json, 50_001_000_000);
    let sh = b.sim.shim.as_ref().expect("c3 builds the shim");
    let p = sh.find(0, 3, Objective::Ds).expect("the DS pipe") as usize;
    let g = sh.pipes[p].r_g;
    let payload = 1.05 * 100e3 * 8.0 / 10e-3;
    // Payload rate × wire / payload (1566 / 1460 B inside the tunnel) within 2%.
    assert!(
        g >= payload && g <= 1.02 * payload * 1566.0 / 1460.0,
        "R_G = {g:.4e} b/s, EDF needs {payload:.4e} b/s of payload"
    );
    // And the flow meets its deadline.
    let out = run(&json);
    assert!(out.flows.completed[0]);
    assert!(out.flows.fct_s[0] <= 10e-3, "FCT {} s", out.flows.fct_s[0]);
}

/// The DS pipe's R_G counts the bytes still waiting in the pipe (spec §5.3.4: S_f is the
/// flow's remaining bytes; the pipe has yet to carry what it holds). One 1 MB DS flow from
/// host 0 to host 3 starting at 1 ms, due 20 ms later, alone on a 1 Gb/s path: at the first
/// control tick (5 ms) its window has filled the pipe queue past the marking threshold.
/// With one flow the EDF search gives G = S / ((1 − h)·TD) in payload (its LB (1 + h)·S/TD
/// fails the test at G·(1 − h)), so S = R_G·(1 − h)·TD / wire-per-payload must be the bytes
/// not yet released from the pipe. Counting only the bytes not yet handed to the pipe (the
/// old rule) left the backlog out: measured, R_G 441 Mb/s with 28 packets (41 KB) queued,
/// where 464 Mb/s are needed; in C3-Fig2d the DS pipe's R_G fell below what its queued
/// bytes needed near each deadline and 8 of 100 DS flows were late (3 with the backlog).
#[test]
fn c3_ds_guarantee_counts_bytes_queued_in_the_pipe() {
    let classes = r#"{"name": "ds", "transport": "ds", "objective": "ds", "workload":
        {"kind": "flows", "list": [
            {"src": 0, "dst": 3, "size": "1MB", "start": "1ms", "deadline": "20ms"}]}}"#;
    let json = scenario("1Gbps", r#"{"kind": "c3"}"#, classes, "40ms", "0ms");
    let tick: u64 = 5_000_000_000; // ps
    let b = build_until(&json, tick + 1);
    let sh = b.sim.shim.as_ref().expect("c3 builds the shim");
    let p = sh.find(0, 3, Objective::Ds).expect("the DS pipe");
    let s = sh
        .samples
        .iter()
        .find(|s| s.pipe == p && s.t == tick)
        .expect("a sample at the first tick");
    let pp = &sh.pipes[p as usize];
    // Full segments released so far (1460 B of payload in a 1566 B tunnelled frame).
    let released = pp.stats.tx_pkts as f64 * 1460.0;
    let not_released = 1e6 - released;
    let td = 21e-3 - 5e-3;
    let implied = s.r_g / 8.0 * (1.0 - 0.05) * td * 1460.0 / 1566.0;
    eprintln!(
        "R_G {:.1} Mb/s, backlog {} packets; implied remaining {implied:.0} B, not released \
         {not_released:.0} B",
        s.r_g / 1e6,
        s.backlog
    );
    // The backlog is material (more than the marking threshold of 20 packets) ...
    assert!(s.backlog >= 20, "{s:?}");
    // ... and R_G covers it: the implied remaining bytes are the bytes not yet released,
    // within two segments (a packet may leave at the tick itself).
    assert!(
        (implied - not_released).abs() <= 2.0 * 1460.0,
        "R_G implies {implied:.0} B remaining; {not_released:.0} B are not yet released \
         ({} packets queued)",
        s.backlog
    );
    // And the flow meets its deadline.
    let out = run(&json);
    assert!(out.flows.completed[0] && out.flows.fct_s[0] <= 20e-3);
}

#[test]
fn c3_fujiz_variant_and_ls_pipe() {
    // The TS-vs-BE run under the `fujiz` law: R_G still floors the TS pipe, and an LS
    // pipe (three flows from host 1) runs at exactly its SILO guarantee,
    // 2.2 × 2 packets per RTT per flow = 2.2 × 2 × 3 × 1538 B × 8 / 300 µs. Together
    // (300 + 541 Mb/s) they oversubscribe the 500 Mb/s core: admission control is off here
    // (it would demote two LS flows; see `c3_coordinator_*`).
    let classes = r#"{"name": "ts", "transport": "t", "objective": "ts", "guarantee": "300Mbps",
            "workload": {"kind": "flows", "list": [{"src": 0, "dst": 3, "size": "20MB", "start": 0}]}},
        {"name": "ls", "transport": "t", "objective": "ls", "workload": {"kind": "flows", "list": [
            {"src": 1, "dst": 3, "size": "2MB", "start": 0},
            {"src": 1, "dst": 3, "size": "2MB", "start": 0},
            {"src": 1, "dst": 3, "size": "2MB", "start": 0}]}},
        {"name": "be", "transport": "t", "workload": {"kind": "flows", "list": [
            {"src": 2, "dst": 3, "size": "20MB", "start": 0},
            {"src": 2, "dst": 3, "size": "20MB", "start": 0}]}}"#;
    let json = scenario(
        "500Mbps",
        r#"{"kind": "c3", "variant": "fujiz", "admission": false}"#,
        classes,
        "100ms",
        "0ms",
    );
    let b = build(&json);
    let sh = b.sim.shim.as_ref().unwrap();
    let ts = sh.find(0, 3, Objective::Ts).unwrap();
    let ls = sh.find(1, 3, Objective::Ls).unwrap();
    let mut n = [0; 2];
    for s in &sh.samples {
        assert!(s.rate >= s.r_g, "{s:?}");
        if s.pipe == ts {
            n[0] += 1;
            assert!((s.r_g - 300e6).abs() < 1.0, "{s:?}");
        }
        if s.pipe == ls && s.r_g > 0.0 {
            n[1] += 1;
            let flows = (s.r_g / (2.2 * 2.0 * 1538.0 * 8.0 / 300e-6)).round();
            assert!((1.0..=3.0).contains(&flows), "{s:?}");
            assert_eq!(s.rate, s.r_g, "LS: R_w = R_G");
        }
    }
    assert!(n[0] > 5 && n[1] > 5, "{n:?}");
    let first_ls = sh.samples.iter().find(|s| s.pipe == ls).unwrap();
    let want = 2.2 * 2.0 * 3.0 * 1538.0 * 8.0 / 300e-6;
    assert!((first_ls.r_g - want).abs() < 1.0, "{first_ls:?}");
}

#[test]
fn c3_feedback_as_report_packets() {
    // The TS-vs-BE setup with `feedback = "packet"`: each receiver shim sends one report per
    // busy pipe per 5 ms tick back through the fabric, and the sender's rate law runs when
    // it arrives — one reverse-path delay after the tick (3 links × 50 µs + a 64 B frame's
    // serialization per hop, plus any queueing behind ACKs), not at the tick.
    let classes = r#"{"name": "ts", "transport": "t", "objective": "ts", "guarantee": "300Mbps",
            "workload": {"kind": "flows", "list": [{"src": 0, "dst": 3, "size": "100MB", "start": 0}]}},
        {"name": "be", "transport": "t", "workload": {"kind": "flows", "list": [
            {"src": 1, "dst": 3, "size": "100MB", "start": 0},
            {"src": 1, "dst": 3, "size": "100MB", "start": 0},
            {"src": 2, "dst": 3, "size": "100MB", "start": 0},
            {"src": 2, "dst": 3, "size": "100MB", "start": 0}]}}"#;
    let offsets = |feedback: &str| {
        let scheme = format!(r#"{{"kind": "c3", "feedback": "{feedback}"}}"#);
        let json = scenario("500Mbps", &scheme, classes, "100ms", "0ms");
        let b = build_until(&json, 100_000_000_000);
        let sh = b.sim.shim.as_ref().unwrap();
        let p = sh.find(0, 3, Objective::Ts).unwrap();
        let rows: Vec<_> = sh.samples.iter().filter(|s| s.pipe == p).copied().collect();
        for s in &rows {
            assert!(s.rate >= s.r_g && (s.r_g - 300e6).abs() < 1.0, "{s:?}");
        }
        for s in rows.iter().skip(2) {
            assert!(
                s.sent_bps >= 0.97 * s.r_g,
                "{feedback}: pipe released {s:?}"
            );
        }
        let reports = sh.pipes[p as usize].stats.reports;
        let offs: Vec<u64> = rows.iter().map(|s| s.t % 5_000_000_000).collect();
        (offs, reports)
    };
    let (instant, r0) = offsets("instant");
    let (packet, r1) = offsets("packet");
    assert_eq!(r0, 0);
    assert!(instant.iter().all(|&o| o == 0), "{instant:?}");
    // 19 ticks up to 95 ms, the report of the one at 100 ms still in flight.
    assert!(
        r1 >= 18 && r1 as usize == packet.len(),
        "{r1} reports, {packet:?}"
    );
    eprintln!(
        "{r1} reports; rate updates {:?}..{:?} ps after their tick",
        packet.iter().min(),
        packet.iter().max()
    );
    for &o in &packet {
        assert!(
            (150_000_000..1_000_000_000).contains(&o),
            "a rate update {o} ps after its tick"
        );
    }
}
