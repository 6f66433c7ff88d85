"""C3 pipes as seen from Python (issue 15): the pipe table and per-interval pipe samples in the
run results, and what the coordinator did, checked against physics.

The mechanisms themselves are tested in Rust (crates/dcnsim/tests/shim_c3*.rs); here a C3 run
goes through the bindings and the result files. Setup: C3's motivation dumbbell (1 Gb/s host
links, 50 µs per link, a 500 Mb/s core, DCTCP marking at 20 packets, 250 packets of buffer).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import dcnsim
from dcnsim import ConfigError

pytestmark = pytest.mark.usefixtures("real_core")

TS_GUARANTEE = 200e6


def _scenario(admission: bool = True) -> dict[str, Any]:
    """Three TS flows (R_G = 200 Mb/s each) from hosts 0, 1, 2 to host 3 starting 1 ms
    apart (Σ R_G = 600 Mb/s on the 500 Mb/s core), plus two BE flows from host 0 to host 4
    and a DS class from host 4 to host 5 (off the core: the coordinator demotes the most
    recently arrived flow on an oversubscribed link, which would otherwise be a DS flow
    started after the TS ones). The run stops at 150 ms."""
    ts = [{"src": i, "dst": 3, "size": "100MB", "start": f"{i}ms"} for i in range(3)]
    be = [{"src": 0, "dst": 4, "size": "20MB", "start": 0} for _ in range(2)]
    ds = [
        {"src": 4, "dst": 5, "size": "50KB", "start": f"{5 * i}ms", "deadline": "10ms"}
        for i in range(10)
    ]
    return {
        "topology": {
            "kind": "dumbbell",
            "left": 3,
            "right": 3,
            "host_link": {"rate": "1Gbps", "delay": "50us"},
            "core_link": {"rate": "500Mbps", "delay": "50us"},
        },
        "switch": {
            "queues": 1,
            "scheduler": {"kind": "fifo"},
            "port_limit": "250pkt",
            "ecn": {"kind": "step", "k": "20pkt"},
        },
        "host": {"queues": 1, "scheduler": {"kind": "fifo"}},
        "transports": {
            "t": {"cc": "dctcp", "init_cwnd": 2, "rto_min": "1ms"},
            "d": {"cc": "d2tcp", "init_cwnd": 2, "rto_min": "1ms"},
        },
        "scheme": {"kind": "c3", "admission": admission},
        "classes": [
            {
                "name": "ts",
                "transport": "t",
                "objective": "ts",
                "guarantee": "200Mbps",
                "workload": {"kind": "flows", "list": ts},
            },
            {"name": "be", "transport": "t", "workload": {"kind": "flows", "list": be}},
            {
                "name": "ds",
                "transport": "d",
                "objective": "ds",
                "workload": {"kind": "flows", "list": ds},
            },
        ],
        "run": {"duration": "150ms", "warmup": "0ms", "horizon": "150ms"},
    }


@pytest.fixture(scope="module")
def c3_run() -> dcnsim.Results:
    return dcnsim.run(_scenario(), progress=False)


def test_one_pipe_row_per_src_dst_objective(c3_run: dcnsim.Results) -> None:
    res = c3_run
    pipes = res.pipes
    keys = list(zip(pipes["src"], pipes["dst"], pipes["objective"], strict=True))
    assert len(keys) == len(set(keys)), keys
    # Every (src, dst, objective) of the flows has its pipe; the coordinator added the BE
    # pipe (2, 3) for the demoted TS flow.
    objective = {"ts": "ts", "be": "be", "ds": "ds"}
    flows = {(int(r.src), int(r.dst), objective[r["class"]]) for _, r in res.flows.iterrows()}
    assert set(keys) == flows | {(2, 3, "be")}
    assert list(pipes["pipe_id"]) == list(range(len(pipes)))
    assert pipes["flows"].sum() == len(res.flows) + pipes["demoted_flows"].sum()


def test_admission_demotes_the_latest_ts_flow(c3_run: dcnsim.Results) -> None:
    p = c3_run.pipes
    ts = p[p["objective"] == "ts"].set_index("src")
    # Σ R_G = 600 Mb/s > 500 Mb/s: the most recently arrived flow (host 2's) goes to BE.
    assert list(ts["demoted"]) == [False, False, True]
    assert ts.loc[2, "demoted_flows"] == 1
    assert p[p["objective"] != "ts"]["demoted"].sum() == 0


def test_admitted_ts_pipes_hold_their_guarantee(c3_run: dcnsim.Results) -> None:
    p = c3_run.pipes
    kept = p[(p["objective"] == "ts") & ~p["demoted"]]
    assert len(kept) == 2
    for _, r in kept.iterrows():
        assert r.guarantee_bps == pytest.approx(TS_GUARANTEE, rel=1e-6)
        assert r.max_guarantee_bps == pytest.approx(TS_GUARANTEE, rel=1e-6)
        # Released wire rate, mean over its busy intervals (the first holds the flow's slow
        # start): at least 95 % of R_G.
        assert r.mean_rate_bps >= 0.95 * r.guarantee_bps, r
        assert r.final_rate_bps >= r.guarantee_bps
        assert r.intervals >= 25
    # Per interval: the limiter's rate never falls below R_G.
    s = c3_run.pipe_samples
    assert len(s) > 0
    assert (s["rate_bps"] >= s["guarantee_bps"]).all()
    for pid in kept["pipe_id"]:
        sp = s[s["pipe_id"] == pid]
        # Released at least 0.95·R_G in every interval after the first two.
        assert (sp["sent_bps"].iloc[2:] >= 0.95 * TS_GUARANTEE).all(), sp
    # Weights are normalised per host (Σ ≤ 1) and marked fractions are fractions.
    assert (s["weight"] >= 0).all() and (s["weight"] <= 1 + 1e-12).all()
    assert p["marked_fraction"].between(0, 1).all()


def test_without_admission_nobody_is_demoted_and_a_guarantee_breaks() -> None:
    res = dcnsim.run(_scenario(admission=False), progress=False)
    p = res.pipes
    assert not p["demoted"].any()
    ts = p[p["objective"] == "ts"]
    assert len(ts) == 3
    # Three 200 Mb/s floors on a 500 Mb/s core: the pipes' limiters stay at R_G or above,
    # but what they get through falls short for at least one of them (data packets sent,
    # retransmissions included, over the 150 ms: an upper bound of the goodput).
    assert res.meta["sim_time_s"] == pytest.approx(0.15)
    f = res.flows[res.flows["class"] == "ts"]
    goodput = f["data_pkts"] * 1460 * 8 / 0.15
    floor = 0.95 * TS_GUARANTEE * 1460 / 1566
    assert (goodput < floor).any(), goodput


def test_pipe_tables_survive_save_and_load(c3_run: dcnsim.Results, tmp_path: Path) -> None:
    back = dcnsim.load(c3_run.save(tmp_path / "r"))
    assert back.pipes.equals(c3_run.pipes)
    assert back.pipe_samples.equals(c3_run.pipe_samples)


def test_no_shim_no_pipes() -> None:
    sc = _scenario()
    sc["scheme"] = {"kind": "none"}
    for c in sc["classes"]:
        c.pop("objective", None)
        c.pop("guarantee", None)
    sc["run"] = {"duration": "5ms", "warmup": "0ms", "horizon": "10ms"}
    res = dcnsim.run(sc, progress=False)
    assert res.pipes.empty and res.pipe_samples.empty


def test_bad_coordinator_keys_name_the_key() -> None:
    for scheme, key in [
        ({"kind": "c3", "coordinator_interval": "7ms"}, "scheme.coordinator_interval"),
        ({"kind": "c3", "coordinator": False, "admission": True}, "scheme.admission"),
    ]:
        sc = _scenario()
        sc["scheme"] = scheme
        with pytest.raises(ConfigError) as e:
            dcnsim.run(sc, progress=False)
        assert key in str(e.value), e.value


def test_feedback_as_report_packets() -> None:
    sc = _scenario()
    sc["scheme"]["feedback"] = "packet"
    res = dcnsim.run(sc, progress=False)
    p = res.pipes
    kept = p[(p["objective"] == "ts") & ~p["demoted"]]
    # One report per busy interval reaches the sender (the last may still be in flight);
    # instant feedback sends none.
    assert ((kept["reports"] >= kept["intervals"] - 1) & (kept["reports"] > 0)).all(), kept
    assert (kept["mean_rate_bps"] >= 0.95 * kept["guarantee_bps"]).all(), kept
    # The rate law runs when a report arrives, after the tick: sample times are off the 5 ms
    # grid by about one reverse-path delay (3 × 50 µs + serialization).
    s = res.pipe_samples[res.pipe_samples["pipe_id"].isin(kept["pipe_id"])]
    off = (s["t_s"] * 1e6).round() % 5000
    assert off.between(150, 1000).all(), off.describe()
