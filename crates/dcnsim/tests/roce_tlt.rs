//! TLT on RoCE in the fabric (Lim et al., EuroSys 2021, §5.2, Fig. 4; mechanisms §5.5.3):
//! the Fig. 4 walk-through, the every-N marking, control packets past colour-aware dropping,
//! and a small incast where lossy DCQCN + TLT avoids the timeouts of lossy DCQCN and gets
//! close to lossless (PFC) DCQCN. Scenarios are JSON so each test states its setup in one
//! place.

use dcnsim::run::{run_json, Progress, RunOutput};
use dcnsim::scenario::build::FsReader;
use dcnsim::scenario::{from_json, ConfigError};
use dcnsim_engine::{MS, SEC};

fn run(json: &str) -> RunOutput {
    run_json(json, &FsReader, &mut |_: &Progress| true).unwrap_or_else(|e| panic!("{e}"))
}

fn sum(v: &[u64]) -> u64 {
    v.iter().sum()
}

/// Flows `(src, dst, size)` starting at 0 on one switch with 40 Gb/s, 1 µs links
/// (TLT-SIM-RoCE-BASE's link delay), DCQCN's RED-ECN (Kmin 5 KB, Kmax 200 KB, Pmax 1%) and
/// one RoCE transport whose `roce` table is `roce`.
fn star(
    hosts: u32,
    flows: &[(u32, u32, &str)],
    switch_extra: &str,
    roce: &str,
    extra: &str,
) -> String {
    let list: Vec<_> = flows
        .iter()
        .map(|(s, d, z)| format!(r#"{{"src": {s}, "dst": {d}, "size": "{z}", "start": 0}}"#))
        .collect();
    format!(
        r#"{{"topology": {{"kind": "star", "hosts": {hosts}, "link": {{"rate": "40Gbps", "delay": "1us"}}}},
            "switch": {{"queues": 1, "scheduler": {{"kind": "fifo"}}, "port_limit": "1000000pkt",
                        "ecn": {{"kind": "red", "kmin": "5KB", "kmax": "200KB", "pmax": 0.01}}
                        {switch_extra}}},
            "host": {{"queues": 1, "scheduler": {{"kind": "fifo"}}}},
            "transports": {{"roce": {{"kind": "roce", "roce": {{ {roce} }}}}}},
            "classes": [{{"name": "rdma", "transport": "roce", "workload": {{"kind": "flows", "list": [{l}]}}}}]
            {extra}}}"#,
        l = list.join(","),
    )
}

/// TLT Fig. 4: a five-packet message (PSN 0–4 = the paper's packets 1–5) whose PSN 2 and 3
/// are lost and whose first retransmission of PSN 2 is lost again, each loss hitting a red
/// (unimportant) packet only, as colour-aware dropping would.
fn fig4(tlt: &str) -> RunOutput {
    run(&star(
        2,
        &[(1, 0, "5000B")],
        "",
        &format!(r#""cc": "none", "tlt": "{tlt}""#),
        r#", "scheme": {"kind": "test", "keep_colour": true, "drop_red_seqs": [2, 3, 2]},
           "run": {"duration": "1ms", "horizon": "20ms"}"#,
    ))
}

#[test]
fn fig4_walkthrough_recovers_without_a_timeout_only_with_tlt() {
    // Without TLT: PSN 4 arrives and is NACKed (expected 2); the go-back-N round resends
    // 2, 3, 4; 2 is lost again, so 3 and 4 are out of order in the same gap and discarded
    // without a second NACK: only the 4 ms static RTO recovers.
    let base = fig4("off");
    let f = &base.flows;
    assert!(f.completed[0]);
    assert_eq!(f.rto_count[0], 1, "vanilla go-back-N needs the timeout");
    assert!(f.fct_s[0] > 4e-3, "fct {}", f.fct_s[0]);
    assert_eq!(f.drops[0], 3);
    // With TLT (rate-based): the message's last packet (PSN 4) is important, and the round
    // of retransmission 2, 3, 4 starts and ends with important packets: the first
    // retransmission of 2 is green and passes; the flow completes in a few round trips.
    let tlt = fig4("rate");
    let f = &tlt.flows;
    assert!(f.completed[0]);
    assert_eq!(f.rto_count[0], 0, "TLT: no timeout");
    assert!(f.fct_s[0] < 50e-6, "fct {}", f.fct_s[0]);
    assert_eq!(
        f.drops[0], 2,
        "only the two red first transmissions are lost"
    );
    assert_eq!(f.fast_retx[0], 1, "one go-back-N round");
    // Important: PSN 4 (last), then the round's first (2) and last (4).
    assert_eq!(f.important_pkts[0], 3);
    assert_eq!(f.important_drops[0], 0);
}

/// A 1000-packet message at line rate with no loss; rate-based TLT with `every`.
fn periodic(every: u32) -> u64 {
    let out = run(&star(
        2,
        &[(1, 0, "1MB")],
        "",
        &format!(r#""cc": "none", "tlt": "rate", "tlt_every": {every}"#),
        r#", "run": {"duration": "1ms", "horizon": "10ms"}"#,
    ));
    assert!(out.flows.completed[0]);
    assert_eq!(out.flows.data_pkts[0], 1000);
    out.flows.important_pkts[0]
}

#[test]
fn every_n_marking_counts() {
    // TLT §5.2 footnote 2: one important packet in every N sent, plus the message's last.
    // 1000 packets: ⌊1000 / 96⌋ = 10 periodic + the last; N = 384: 2 + 1; N = 0: the last.
    assert_eq!(periodic(96), 11);
    assert_eq!(periodic(384), 3);
    assert_eq!(periodic(0), 1);
    assert_eq!(
        periodic(1000),
        1,
        "the 1000th packet is the last: counted once"
    );
}

#[test]
fn control_packets_pass_colour_aware_dropping() {
    // Eight senders overload the port to host 0 (red data beyond K = 20 kB is dropped there);
    // host 0's own flow to host 9 has its ACKs, NACKs and CNPs come back through that port.
    // Control drops at the switch = all drops − data drops.
    let mut flows: Vec<(u32, u32, &str)> = (1..=8).map(|s| (s, 0, "300kB")).collect();
    flows.push((0, 9, "1MB"));
    let go = |tlt: &str| {
        run(&star(
            10,
            &flows,
            r#", "colour": {"threshold": "20kB", "mode": "red_only"}"#,
            &format!(r#""tlt": "{tlt}""#),
            r#", "run": {"duration": "1ms", "horizon": "100ms"}"#,
        ))
    };
    let control_drops = |o: &RunOutput| o.meta.dropped - sum(&o.flows.drops);
    let base = go("off");
    assert!(
        control_drops(&base) > 0,
        "without TLT red control packets meet the threshold"
    );
    let tlt = go("rate");
    assert!(sum(&tlt.queues.drops_colour) > 0, "red data is dropped");
    assert_eq!(control_drops(&tlt), 0, "ACK, NACK and CNP are green");
    assert_eq!(sum(&tlt.queues.green_drops), 0);
    assert_eq!(tlt.meta.flows_completed, 9);
    assert!(sum(&tlt.flows.cnps) > 0, "CNPs flowed");
}

/// 16 senders × 200 kB into one port, DCQCN, 1 MB shared buffer; `switch` adds colour-aware
/// dropping or PFC.
fn incast(switch: &str, tlt: &str) -> RunOutput {
    let flows: Vec<(u32, u32, &str)> = (1..=16).map(|s| (s, 0, "200kB")).collect();
    run(&star(
        17,
        &flows,
        &format!(r#", "shared_buffer": "1MB" {switch}"#),
        &format!(r#""tlt": "{tlt}""#),
        r#", "run": {"duration": "1ms", "horizon": "200ms"}"#,
    ))
}

fn max_fct(o: &RunOutput) -> f64 {
    o.flows.fct_s.iter().cloned().fold(0.0, f64::max)
}

#[test]
fn lossy_dcqcn_with_tlt_gets_close_to_lossless() {
    let lossy = incast("", "off");
    let pfc = incast(r#", "pfc": {}"#, "off");
    let tlt = incast(
        r#", "colour": {"threshold": "200kB", "mode": "red_only"}"#,
        "rate",
    );
    for (n, o) in [("lossy", &lossy), ("pfc", &pfc), ("tlt", &tlt)] {
        eprintln!(
            "{n}: dropped {}, timeouts {}, retx {}, important {} (dropped {}), max FCT {:.0} us",
            o.meta.dropped,
            sum(&o.flows.rto_count),
            sum(&o.flows.retx_pkts),
            sum(&o.flows.important_pkts),
            sum(&o.flows.important_drops),
            max_fct(o) * 1e6
        );
        assert_eq!(o.meta.flows_completed, 16, "{n}");
    }
    assert!(lossy.meta.dropped > 0);
    assert!(sum(&lossy.flows.rto_count) > 0, "lossy go-back-N times out");
    assert!(max_fct(&lossy) > 4e-3);
    assert_eq!(pfc.meta.dropped, 0);
    // TLT: drops (of red packets only), no timeout, every flow done before the 4 ms RTO
    // could have fired once, and the tail less than half the lossy one. Go-back-N still
    // resends whole tails (TLT §7.1: with vanilla DCQCN "TLT cannot replace the need of
    // efficient loss recovery"), so PFC keeps the shortest tail here.
    assert!(tlt.meta.dropped > 0);
    assert_eq!(sum(&tlt.flows.important_drops), 0);
    assert_eq!(sum(&tlt.flows.rto_count), 0, "TLT: no timeout");
    let rto = 4.0 * MS as f64 / SEC as f64;
    assert!(max_fct(&tlt) < rto, "TLT tail {}", max_fct(&tlt));
    assert!(max_fct(&tlt) < max_fct(&lossy) / 2.0);
    assert!(max_fct(&pfc) < max_fct(&tlt));
}

/// A 1 MB message with PSN 100 lost (red) and its retransmission lost again, under IRN
/// (selective repeat) with window-based TLT or without.
fn irn_twice_lost(tlt: &str) -> RunOutput {
    run(&star(
        2,
        &[(1, 0, "1MB")],
        "",
        &format!(r#""cc": "none", "recovery": "irn", "tlt": "{tlt}""#),
        r#", "scheme": {"kind": "test", "keep_colour": true, "drop_red_seqs": [100, 100]},
           "run": {"duration": "1ms", "horizon": "20ms"}"#,
    ))
}

#[test]
fn window_tlt_on_irn_recovers_a_twice_lost_packet_without_a_timeout() {
    // IRN alone: the retransmission of 100 is lost again and only the timeout resends it
    // (docs/rdma.md: "a retransmission lost again is recovered by the timeout").
    let base = irn_twice_lost("off");
    assert_eq!(base.flows.rto_count[0], 1);
    // Window-based TLT (§5.1): the Important Echo of the next important packet shows 100
    // still missing although it was retransmitted before that packet: lost again, resent.
    let tlt = irn_twice_lost("on");
    let f = &tlt.flows;
    assert!(f.completed[0]);
    assert_eq!(f.rto_count[0], 0, "window-based TLT: no timeout");
    assert_eq!(f.drops[0], 2);
    assert!(f.important_pkts[0] > 0);
    assert!(f.fct_s[0] < 1e-3, "fct {}", f.fct_s[0]);
}

fn err_of(roce: &str) -> ConfigError {
    let j = format!(
        r#"{{"transports": {{"r": {{"kind": "roce", "roce": {{ {roce} }}}}}}, "classes": [{{"name": "a", "transport": "r",
            "workload": {{"kind": "flows", "list": [{{"src": 1, "dst": 0, "size": "1MB", "start": 0}}]}}}}]}}"#
    );
    match from_json(&j) {
        Err(e) => e,
        Ok(sc) => match sc.build(&FsReader) {
            Err(e) => e,
            Ok(_) => panic!("expected an error for {roce}"),
        },
    }
}

#[test]
fn bad_tlt_keys_name_the_key() {
    let e = err_of(r#""tlt": "window""#);
    assert!(e.to_string().contains("transports.r.roce.tlt"), "{e}");
    assert!(e.to_string().contains("selective repeat"), "{e}");
    let e = err_of(r#""tlt": "yes""#);
    assert!(e.to_string().contains("tlt"), "{e}");
    let e = err_of(r#""tlt_every": -1"#);
    assert!(e.to_string().contains("tlt_every"), "{e}");
}

/// A 1 MB message under DCQCN+SACK (selective repeat, no BDP cap) with PSNs 100–102 lost and
/// the retransmission of 101 (the middle of the round) lost again.
fn sack_relost(tlt: &str) -> RunOutput {
    run(&star(
        2,
        &[(1, 0, "1MB")],
        "",
        &format!(r#""cc": "none", "recovery": "sack", "tlt": "{tlt}""#),
        r#", "scheme": {"kind": "test", "keep_colour": true, "drop_red_seqs": [100, 101, 102, 101]},
           "run": {"duration": "1ms", "horizon": "20ms"}"#,
    ))
}

#[test]
fn rate_tlt_on_sack_detects_a_retransmission_lost_again_at_the_round_end() {
    // Without TLT the selective-repeat round resends 100, 101, 102 once; 101 lost again
    // waits for the static 4 ms RTO.
    let base = sack_relost("off");
    assert_eq!(base.flows.rto_count[0], 1);
    // Rate-based TLT: the round's first (100) and last (102) are important; the echo of 102
    // shows 101, retransmitted before it, still missing: resent at once.
    let tlt = sack_relost("rate");
    let f = &tlt.flows;
    assert!(f.completed[0]);
    assert_eq!(f.drops[0], 4);
    assert_eq!(f.rto_count[0], 0, "no timeout");
    assert!(f.tlt_lost_segs[0] >= 1);
    assert!(f.fct_s[0] < 1e-3, "fct {}", f.fct_s[0]);
}

/// mechanisms §5.5.3: `tlt = "on"` is window-based for IRN and for HPCC (with selective
/// repeat), rate-based for both DCQCN flavours and for anything over go-back-N.
#[test]
fn tlt_on_picks_window_for_irn_and_hpcc_and_rate_for_dcqcn() {
    use dcnsim::scenario::roce::{RoceCcName, RoceConfig, RoceRecoveryName, RoceTltName};
    use dcnsim::scenario::PacketConfig;
    use dcnsim::transport::roce::tlt::RoceTlt;
    let pick = |cc: RoceCcName, rec: RoceRecoveryName| {
        let c = RoceConfig {
            cc,
            recovery: rec,
            tlt: RoceTltName::On,
            ..RoceConfig::default()
        };
        c.params(
            &PacketConfig::default(),
            Some(dcnsim_engine::Rate::gbps(40)),
            "t",
        )
        .unwrap()
        .tlt
    };
    use RoceCcName::*;
    use RoceRecoveryName::*;
    assert_eq!(pick(Dcqcn, Irn), RoceTlt::Window);
    assert_eq!(pick(Hpcc, Sack), RoceTlt::Window);
    assert!(matches!(pick(Dcqcn, Sack), RoceTlt::Rate { every: 96 }));
    assert!(matches!(pick(Dcqcn, Gbn), RoceTlt::Rate { every: 96 }));
    assert!(matches!(pick(Hpcc, Gbn), RoceTlt::Rate { every: 96 }));
}

/// HPCC with SACK (the TLT paper's "HPCC (with SACK)") on one 40 Gb/s, 1 µs link pair: a
/// message of `size` whose red (unimportant) packets with the PSNs in `drops` are lost, in
/// that order (a PSN listed twice: its first retransmission is lost too).
fn hpcc_lossy(size: &str, drops: &str, tlt: &str) -> RunOutput {
    run(&star(
        2,
        &[(1, 0, size)],
        "",
        &format!(r#""cc": "hpcc", "recovery": "sack", "tlt": "{tlt}""#),
        &format!(
            r#", "scheme": {{"kind": "test", "keep_colour": true, "drop_red_seqs": {drops}}},
               "run": {{"duration": "1ms", "horizon": "20ms"}}"#
        ),
    ))
}

#[test]
fn window_tlt_on_hpcc_recovers_fig4_losses_without_a_timeout() {
    // (message, red PSNs lost in order, what the TLT run must lose). TLT Fig. 4's pattern on
    // a five-packet message (PSNs 2 and 3 lost, the retransmission of 2 lost again); the
    // same with the retransmission of 3 lost again; and one packet of a 1 MB message lost
    // twice.
    for (size, drops, tlt_drops) in [
        ("5000B", "[2, 3, 2]", 2),
        ("5000B", "[2, 3, 3]", 3),
        ("1MB", "[100, 100]", 2),
    ] {
        let case = format!("{size} {drops}");
        // HPCC over SACK alone: the NACK of the first out-of-order packet starts one
        // selective-repeat round; its retransmission lost again leaves a hole no NACK
        // reports, so only the static 4 ms RTO recovers it.
        let base = hpcc_lossy(size, drops, "off");
        let f = &base.flows;
        assert!(f.completed[0], "{case}");
        assert_eq!(f.rto_count[0], 1, "{case}: HPCC+SACK needs the timeout");
        assert!(f.fct_s[0] > 4e-3, "{case}: fct {}", f.fct_s[0]);
        assert_eq!(f.important_pkts[0], 0);
        // Window-based TLT (`on` picks it for HPCC over SACK, mechanisms §5.5.3): the last
        // packet of the first window (here the message's, W_init = one BDP ≈ 22 kB, or PSN
        // 22 of the 1 MB one) is Important Data; the Important Echo of each important packet
        // judges what was sent before it (lost again → resent at once), the next packet is
        // important, and with nothing left to send an Important Clock packet goes.
        let tlt = hpcc_lossy(size, drops, "on");
        let f = &tlt.flows;
        assert!(f.completed[0], "{case}");
        assert_eq!(
            f.rto_count[0], 0,
            "{case}: window-based TLT on HPCC, no timeout"
        );
        assert_eq!(f.drops[0], tlt_drops, "{case}");
        assert_eq!(f.important_drops[0], 0, "{case}");
        assert!(f.important_pkts[0] >= 2, "{case}");
        // TLT recovered the hole: an echo found it lost (its latest copy left before the
        // echoed important packet), or an Important Clock packet resent it (in the 1 MB case
        // the next important packet left before the lost retransmission, so its echo finds
        // that copy still in flight; nothing else may be sent then, and the clock resends 100).
        assert!(
            f.tlt_lost_segs[0] >= 1 || f.clock_bytes[0] > 0,
            "{case}: TLT's loss detection or its ACK-clocking recovered the hole"
        );
        assert!(f.fct_s[0] < 1e-3, "{case}: fct {}", f.fct_s[0]);
    }
}

/// A six-packet message over `recovery` under rate-based TLT: the first transmission of
/// PSN `first` is lost and, in the round that resends it, the retransmission of PSN
/// `again` (none: no second loss).
fn relost(recovery: &str, first: u64, again: Option<u64>) -> RunOutput {
    let again: Vec<u64> = again.into_iter().collect();
    run(&star(
        2,
        &[(1, 0, "6000B")],
        "",
        &format!(r#""cc": "none", "tlt": "rate", "recovery": "{recovery}""#),
        &format!(
            r#", "scheme": {{"kind": "test", "keep_colour": true, "drop_data_seq": {first},
                             "drop_retx_seqs": {again:?}}},
               "run": {{"duration": "1ms", "horizon": "20ms"}}"#
        ),
    ))
}

/// The TLT RoCE reference's application-level timing (`transport/roce/seen.rs`): a flow is
/// whole once every packet has reached the receiving host, in any order, and starts at the
/// send time of the first copy of its first packet to arrive.
#[test]
fn reference_timing_counts_the_packets_a_go_back_n_responder_discards() {
    // Go-back-N: PSN 2 lost, so 3, 4, 5 arrive out of order and are discarded; the round
    // resending 2-5 loses 3 again. Every PSN has arrived once when that round's 5 arrives
    // (3 came in the first round): the reference counts the flow whole then, one round
    // before the responder has it in order.
    let out = relost("gbn", 2, Some(3));
    let f = &out.flows;
    assert!(f.completed[0]);
    assert_eq!((f.drops[0], f.fast_retx[0], f.rto_count[0]), (2, 2, 0));
    assert!(
        f.rx_all_s[0] < f.finish_s[0],
        "whole at {} before in order at {}",
        f.rx_all_s[0],
        f.finish_s[0]
    );
    assert_eq!(
        f.rx_first_sent_s[0], f.start_s[0],
        "PSN 0's first copy arrived"
    );
    // One loss only: the resent round brings every packet in order, the two times agree.
    let once = relost("gbn", 2, None);
    assert_eq!(once.flows.rx_all_s[0], once.flows.finish_s[0]);
    // Selective repeat keeps what arrives out of order and resends only PSN 2 (no copy of 3
    // to lose again): whole and in order at once.
    let sel = relost("sack", 2, Some(3));
    assert!(sel.flows.completed[0] && sel.flows.drops[0] == 1);
    assert_eq!(sel.flows.rx_all_s[0], sel.flows.finish_s[0]);
    // PSN 0's first copy lost: the reference's start is its retransmission's send time.
    let head = relost("gbn", 0, None);
    let f = &head.flows;
    assert!(f.completed[0] && f.drops[0] == 1);
    assert!(f.rx_first_sent_s[0] > f.start_s[0]);
    assert!(f.rx_all_s[0] - f.rx_first_sent_s[0] < f.fct_s[0]);
}
