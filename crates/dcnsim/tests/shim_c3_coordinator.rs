//! C3's coordinator (spec §5.3.5: admission control, network-wide scale factors) and a
//! pipe's `start` (spec §5.3.3), on its own and on the coordinator's demotion path, through
//! the real fabric. Topology and runners: `shim_common/`.

mod shim_common;

use dcnsim::run::RunOutput;
use dcnsim::scenario::build::Built;
use dcnsim::scheme::c3::Objective;
use shim_common::{build, build_until, run, scenario};

/// Three TS pipes (one 100 MB flow each, R_G = 200 Mb/s) from hosts 0, 1 and 2 to host 3,
/// starting 1 ms apart, through the 500 Mb/s core: Σ R_G = 600 Mb/s oversubscribes it.
fn three_ts(admission: bool) -> (Built, RunOutput) {
    let flows: Vec<String> = (0..3)
        .map(|i| format!(r#"{{"src": {i}, "dst": 3, "size": "100MB", "start": "{i}ms"}}"#))
        .collect();
    let classes = format!(
        r#"{{"name": "ts", "transport": "t", "objective": "ts", "guarantee": "200Mbps",
             "workload": {{"kind": "flows", "list": [{}]}}}}"#,
        flows.join(",")
    );
    let scheme = format!(r#"{{"kind": "c3", "admission": {admission}}}"#);
    let json = scenario("500Mbps", &scheme, &classes, "200ms", "50ms");
    (build(&json), run(&json))
}

#[test]
fn c3_coordinator_demotes_the_latest_flow_on_an_oversubscribed_link() {
    let (b, out) = three_ts(true);
    let (_, without) = three_ts(false);
    let sh = b.sim.shim.as_ref().unwrap();
    let k = sh.coord.as_ref().expect("the coordinator runs by default");
    // One demotion: the most recently arrived flow (host 2's, started at 2 ms) moves to
    // the BE pipe of (2, 3); 400 Mb/s of guarantees then fit the core.
    assert_eq!(k.demoted, 1, "{k:?}");
    assert!(k.rounds >= 30, "{k:?}");
    let ts: Vec<u32> = (0..3)
        .map(|h| sh.find(h, 3, Objective::Ts).unwrap())
        .collect();
    let be = sh
        .find(2, 3, Objective::Be)
        .expect("the demoted flow's BE pipe");
    assert_eq!(sh.pipe_of(2), Some(be));
    assert_eq!(sh.pipes[ts[2] as usize].stats.demoted, 1);
    for &p in &ts[..2] {
        assert_eq!(sh.pipes[p as usize].stats.demoted, 0);
        // The admitted pipes keep their guarantee at every interval after the first.
        for s in sh.samples.iter().filter(|s| s.pipe == p).skip(1) {
            assert!((s.r_g - 200e6).abs() < 1.0 && s.rate >= s.r_g, "{s:?}");
        }
    }
    // The results' pipe table says the same: one row per pipe, host 2's TS pipe demoted.
    let t = &out.pipes;
    assert_eq!(t.pipe_id.len(), 4);
    for i in 0..4 {
        let want = t.src[i] == 2 && t.objective[i] == "ts";
        assert_eq!(t.demoted[i], want, "row {i}: {t:?}");
    }
    // End to end (payload of 1460 B per 1566 B frame): the two admitted flows send new data
    // at their guarantee; without admission control the three guarantees cannot all hold
    // on the 500 Mb/s core and at least one flow falls below.
    let floor = 0.95 * 200e6 * 1460.0 / 1566.0;
    let carried: Vec<f64> = out.meta.load.iter().map(|l| l.carried_bps).collect();
    let per_flow = |o: &RunOutput| -> Vec<f64> {
        // Per-flow rate of new data over the 200 ms run (the measurement window holds no
        // flow start, so the run ends at its duration): first transmissions of 1460 B
        // segments (data segments sent − retransmissions). It exceeds the goodput by at most
        // a window in flight.
        let f = &o.flows;
        f.data_pkts
            .iter()
            .zip(&f.retx_pkts)
            .map(|(&n, &r)| (n - r) as f64 * 1460.0 * 8.0 / 0.2)
            .collect()
    };
    let with = per_flow(&out);
    let wo = per_flow(&without);
    eprintln!("class carried {carried:?}; per flow (b/s): admission {with:?}, none {wo:?}");
    assert!(with[0] >= floor && with[1] >= floor, "{with:?} < {floor}");
    assert!(
        wo.iter().any(|&r| r < floor),
        "without admission all three held 200 Mb/s: {wo:?}"
    );
    // No demotion without admission control.
    let shw = three_ts(false).0;
    assert_eq!(
        shw.sim
            .shim
            .as_ref()
            .unwrap()
            .coord
            .as_ref()
            .unwrap()
            .demoted,
        0
    );
}

#[test]
fn c3_coordinator_scale_factors_follow_the_policy() {
    // Host 0: a TS pipe (one flow, R_G = 300 Mb/s) to host 3 and a BE pipe (2 flows) to
    // host 4; host 1: a BE pipe (2 flows) to host 3. Policy scale.ts = 3, others 1.
    // Present objectives TS and BE → Σπ = 4; W_TS = 300e6, W_BE = 4 flows:
    //   s_TS = (3/4)/300e6 = 2.5e-9, s_BE = (1/4)/4 = 0.0625;
    // host 0: u_TS = 0.75, u_BE = 0.125 → w_TS = 6/7, w_BE = 1/7; host 1: w_BE = 1.
    // (Static factors without the coordinator: w_TS = 3/4, w_BE = 1/4 at host 0.)
    let classes = r#"{"name": "ts", "transport": "t", "objective": "ts", "guarantee": "300Mbps",
            "workload": {"kind": "flows", "list": [{"src": 0, "dst": 3, "size": "50MB", "start": 0}]}},
        {"name": "be", "transport": "t", "workload": {"kind": "flows", "list": [
            {"src": 0, "dst": 4, "size": "50MB", "start": 0},
            {"src": 0, "dst": 4, "size": "50MB", "start": 0},
            {"src": 1, "dst": 3, "size": "50MB", "start": 0},
            {"src": 1, "dst": 3, "size": "50MB", "start": 0}]}}"#;
    let weights = |coordinator: bool| {
        let scheme =
            format!(r#"{{"kind": "c3", "coordinator": {coordinator}, "scale": {{"ts": 3}}}}"#);
        // Up to just after the 10 ms tick (all five flows active).
        let b = build_until(
            &scenario("1Gbps", &scheme, classes, "30ms", "0ms"),
            10_000_001_000,
        );
        let sh = b.sim.shim.as_ref().unwrap();
        let w = |src, dst, o| {
            let p = sh.find(src, dst, o).unwrap();
            // The weight of the tick at 10 ms (all five flows active).
            sh.samples
                .iter()
                .find(|s| s.pipe == p && s.t == 10_000_000_000)
                .unwrap()
                .weight
        };
        let scale = sh.coord.as_ref().and_then(|k| k.scale);
        (
            [
                w(0, 3, Objective::Ts),
                w(0, 4, Objective::Be),
                w(1, 3, Objective::Be),
            ],
            scale,
        )
    };
    let (w, scale) = weights(true);
    let s = scale.expect("scale factors after a round");
    assert!((s[Objective::Ts as usize] - 2.5e-9).abs() < 1e-21, "{s:?}");
    assert!((s[Objective::Be as usize] - 0.0625).abs() < 1e-15, "{s:?}");
    assert_eq!(s[Objective::Ds as usize], 0.0);
    let want = [6.0 / 7.0, 1.0 / 7.0, 1.0];
    for i in 0..3 {
        assert!((w[i] - want[i]).abs() < 1e-12, "{w:?} vs {want:?}");
    }
    let (ws, none) = weights(false);
    assert!(none.is_none());
    let want_static = [0.75, 0.25, 1.0];
    for i in 0..3 {
        assert!((ws[i] - want_static[i]).abs() < 1e-12, "{ws:?}");
    }
}

/// C3's `start` (spec §5.3.3 ambiguity "initial R_w (suggest R_G or line-rate/num
/// pipes)"). Host 0 has a busy BE pipe (a 1 GB flow to host 3 from t = 0) when a 1 MB PS
/// flow to host 4 starts at 12 ms (a created pipe), and a second one at 202 ms, after the
/// first finished (the PS pipe returns from idle). Returns, per moment: the BE and PS pipes'
/// R_w just before and just after the 12 ms start, the PS pipe's R_G after it, its first
/// sample (the 12–15 ms interval), its R_w before and after the 202 ms return, and the
/// smallest R_w − R_G of any sample of the run.
struct StartProbe {
    be_before: f64,
    be_after: f64,
    ps_after: f64,
    ps_r_g: f64,
    first_sent_bps: f64,
    ret_before: f64,
    ret_after: f64,
    ret_idle: bool,
    min_margin: f64,
}

fn start_probe(start: &str) -> StartProbe {
    let classes = r#"{"name": "be", "transport": "t", "workload": {"kind": "flows", "list": [
            {"src": 0, "dst": 3, "size": "1GB", "start": 0}]}},
        {"name": "ps", "transport": "ps", "objective": "ps", "workload": {"kind": "flows", "list": [
            {"src": 0, "dst": 4, "size": "1MB", "start": "12ms"},
            {"src": 0, "dst": 4, "size": "1MB", "start": "202ms"}]}}"#;
    let json = scenario(
        "1Gbps",
        &format!(r#"{{"kind": "c3", "start": "{start}"}}"#),
        classes,
        "250ms",
        "0ms",
    );
    let us = 1_000_000u64; // ps
    let at = |t: u64| {
        let b = build_until(&json, t);
        let sh = b.sim.shim.as_ref().unwrap();
        let be = sh.find(0, 3, Objective::Be).unwrap() as usize;
        let ps = sh.find(0, 4, Objective::Ps).map(|p| p as usize);
        (
            sh.pipes[be].r_w,
            ps.map(|p| {
                (
                    sh.pipes[p].r_w,
                    sh.pipes[p].r_g,
                    sh.pipes[p].flows.is_empty(),
                )
            }),
        )
    };
    let (be_before, ps0) = at(12_000 * us - us);
    assert!(ps0.is_none(), "the PS pipe exists before its first flow");
    let (be_after, ps1) = at(12_000 * us + us);
    let (ps_after, ps_r_g, _) = ps1.unwrap();
    let (_, ret0) = at(202_000 * us - us);
    let (ret_before, _, ret_idle) = ret0.unwrap();
    let (_, ret1) = at(202_000 * us + us);
    let ret_after = ret1.unwrap().0;
    // The whole run: R_w ≥ R_G at every control interval of every pipe (spec §5.3.3).
    let full = build_until(&json, 250_000 * us);
    let sh = full.sim.shim.as_ref().unwrap();
    let ps = sh.find(0, 4, Objective::Ps).unwrap() as usize;
    let min_margin = sh
        .samples
        .iter()
        .map(|s| s.rate - s.r_g)
        .fold(f64::INFINITY, f64::min);
    let first = sh
        .samples
        .iter()
        .find(|s| s.pipe as usize == ps)
        .expect("a PS sample");
    assert_eq!(first.t, 15_000 * us, "{first:?}");
    StartProbe {
        be_before,
        be_after,
        ps_after,
        ps_r_g,
        first_sent_bps: first.sent_bps,
        ret_before,
        ret_after,
        ret_idle,
        min_margin,
    }
}

#[test]
fn c3_start_guarantee_or_share_sets_a_new_pipes_first_rate() {
    let g = start_probe("guarantee");
    let s = start_probe("share");
    for (name, p) in [("guarantee", &g), ("share", &s)] {
        eprintln!(
            "{name}: PS R_w at start {:.1} Mb/s (R_G {:.1}), first interval released {:.1} \
             Mb/s; BE R_w {:.1} → {:.1} Mb/s; PS R_w before / after its return {:.1} / {:.1} \
             Mb/s",
            p.ps_after / 1e6,
            p.ps_r_g / 1e6,
            p.first_sent_bps / 1e6,
            p.be_before / 1e6,
            p.be_after / 1e6,
            p.ret_before / 1e6,
            p.ret_after / 1e6
        );
        // R_w ≥ R_G in every sample of every pipe, under either start.
        assert!(
            p.min_margin >= 0.0,
            "{name}: R_w < R_G by {}",
            -p.min_margin
        );
        // The other (BE) pipe of the host keeps its R_w when the PS pipe starts.
        assert_eq!(p.be_before, p.be_after, "{name}");
        // The first PS flow finished: the pipe was idle before the second one.
        assert!(p.ret_idle, "{name}: the PS pipe was still busy at 202 ms");
        // PS guarantee: 1 MTU per 2 RTT = 1538 B × 8 / 600 µs.
        assert!((p.ps_r_g - 1538.0 * 8.0 / 600e-6).abs() < 1.0, "{name}");
    }
    // `guarantee`: the created pipe starts at R_G and releases at most that in its first
    // (12–15 ms) interval, i.e. 3/5 of R_G over the 5 ms of the sample; the returning pipe
    // resumes from the R_w it had when it went idle.
    assert_eq!(g.ps_after, g.ps_r_g);
    assert!(g.first_sent_bps <= 0.6 * g.ps_r_g + 1538.0 * 8.0 / 5e-3);
    assert_eq!(g.ret_after, g.ret_before.max(g.ps_r_g));
    // `share`: the host's line (1 Gb/s) over its two busy pipes (BE and the new PS), at
    // creation and again at the return from idle, and the first interval releases far more
    // than R_G (the flow's slow start fills most of it).
    assert_eq!(s.ps_after, 500e6);
    assert_eq!(s.ret_after, 500e6);
    assert!(
        s.first_sent_bps > 5.0 * g.first_sent_bps && s.first_sent_bps > 100e6,
        "share's first interval released {:.1} Mb/s, guarantee's {:.1}",
        s.first_sent_bps / 1e6,
        g.first_sent_bps / 1e6
    );
}

/// `start` on the coordinator's demotion path (spec §5.3.3 "initial R_w", §5.3.5): host 2
/// sends a 100 MB TS flow to host 3 (R_G 600 Mb/s) and, at 1 ms and again at 51 ms, a
/// 300 KB TS flow to host 4 (600 Mb/s more): Σ R_G = 1.2 Gb/s oversubscribes host 2's
/// 1 Gb/s link (the core is 10 Gb/s), so at the next coordinator round (5 ms, 55 ms) the
/// newer flow is demoted to the BE pipe (2, 4). That demotion is the BE pipe's start: at
/// 5 ms it is created, at 55 ms it comes back from idle (the first demoted flow finished
/// by 10 ms). Returns the BE pipe's samples (t in ms, rate) and the flows demoted.
fn demotion_start(start: &str) -> (Vec<(f64, f64, f64)>, u64) {
    let classes = r#"{"name": "ts", "transport": "t", "objective": "ts", "guarantee": "600Mbps",
        "workload": {"kind": "flows", "list": [
            {"src": 2, "dst": 3, "size": "100MB", "start": 0},
            {"src": 2, "dst": 4, "size": "300KB", "start": "1ms"},
            {"src": 2, "dst": 4, "size": "300KB", "start": "51ms"}]}}"#;
    let json = scenario(
        "10Gbps",
        &format!(r#"{{"kind": "c3", "start": "{start}"}}"#),
        classes,
        "100ms",
        "0ms",
    );
    let b = build(&json);
    let sh = b.sim.shim.as_ref().unwrap();
    let be = sh
        .find(2, 4, Objective::Be)
        .expect("the demoted flows' BE pipe");
    let ts = sh.find(2, 4, Objective::Ts).unwrap();
    let rows = sh
        .samples
        .iter()
        .filter(|s| s.pipe == be)
        .map(|s| (s.t as f64 / 1e9, s.rate, s.weight))
        .collect();
    (rows, sh.pipes[ts as usize].stats.demoted)
}

#[test]
fn c3_share_start_on_the_demotion_path() {
    let (g, gd) = demotion_start("guarantee");
    let (s, sd) = demotion_start("share");
    eprintln!("BE pipe samples (ms, rate b/s, w): guarantee {g:?}\nshare {s:?}");
    // Both flows to host 4 are demoted, under either start.
    assert_eq!((gd, sd), (2, 2));
    let at = |rows: &[(f64, f64, f64)], t: f64| {
        rows.iter()
            .copied()
            .find(|r| (r.0 - t).abs() < 1e-6)
            .unwrap_or_else(|| panic!("no BE sample at {t} ms: {rows:?}"))
    };
    // `guarantee`: the created BE pipe starts at its R_G (1 Mb/s); the sample is after one
    // unmarked interval of Eq. 1, (1 + w)·R_G ≤ 2 Mb/s.
    let (_, r, w) = at(&g, 5.0);
    assert!((r - (1.0 + w) * 1e6).abs() < 1.0, "{g:?}");
    // `share`: at the demotion the BE pipe starts at host 2's line over its busy pipes (the
    // TS pipe to host 3, the BE pipe, and the TS pipe to host 4 while its queue drains:
    // 1 Gb/s / 3), then one unmarked interval of Eq. 1 (w = 1/2: TS and BE share the host).
    let (_, r, w) = at(&s, 5.0);
    assert!((r - (1.0 + w) * 1e9 / 3.0).abs() < 1.0, "{s:?}");
    // The first demoted flow finished: no BE sample (the pipe was idle) between 10 and
    // 55 ms; the second demotion starts it again at line / busy pipes.
    assert!(
        !s.iter().any(|r| r.0 > 7.5 && r.0 < 54.9),
        "the BE pipe stayed busy: {s:?}"
    );
    let (_, r, w) = at(&s, 55.0);
    assert!((r - (1.0 + w) * 1e9 / 3.0).abs() < 1.0, "{s:?}");
}
