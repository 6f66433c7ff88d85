"""RoCEv2 with DCQCN from Python (issue 13): a small scenario from a dict and from TOML runs
and fills the same results table as TCP; the ``roce`` table round-trips through
``validate --show`` without TCP keys; a bad key is reported by its path."""

from __future__ import annotations

from pathlib import Path

import pytest

import dcnsim
from dcnsim import cli, config
from dcnsim.errors import ConfigError

pytestmark = pytest.mark.usefixtures("real_core")


def _incast(senders: int = 4, size: str = "2MB") -> dict:
    flows = [{"src": s, "dst": 0, "size": size, "start": 0} for s in range(1, senders + 1)]
    return {
        "name": "roce_incast",
        "topology": {
            "kind": "star",
            "hosts": senders + 1,
            "link": {"rate": "40Gbps", "delay": "1us"},
        },
        "switch": {
            "queues": 1,
            "scheduler": {"kind": "fifo"},
            "port_limit": "1000000pkt",
            "ecn": {"kind": "red", "kmin": "5KB", "kmax": "200KB", "pmax": 0.01},
        },
        "host": {"queues": 1, "scheduler": {"kind": "fifo"}},
        "transports": {"rdma": {"kind": "roce", "roce": {"preset": "paper"}}},
        "classes": [
            {"name": "rdma", "transport": "rdma", "workload": {"kind": "flows", "list": flows}}
        ],
        "run": {"duration": "1ms", "horizon": "100ms"},
    }


def test_dcqcn_scenario_from_a_dict_runs_and_reacts() -> None:
    res = dcnsim.run(_incast(), progress=False)
    f = res.flows
    assert len(f) == 4 and f["completed"].all()
    # The same columns as TCP, filled for RoCE: DCQCN marked, notified and was notified.
    assert f["ecn_marks"].sum() > 0
    assert f["cnps"].sum() > 0
    assert (f["data_pkts"] >= 2000).all()  # 2 MB in 1000-byte packets
    assert f["rto_count"].sum() == 0
    assert (f["class"] == "rdma").all()
    assert "4 completed" in res.summary()


def test_dcqcn_from_toml_with_the_builtin(tmp_path: Path) -> None:
    toml = """
name = "roce_toml"
[topology]
kind = "star"
hosts = 3
link = { rate = "40Gbps", delay = "1us" }
[switch]
ecn = { kind = "red", kmin = "5KB", kmax = "200KB", pmax = 0.01 }
[[classes]]
name = "a"
transport = "dcqcn"
workload = { kind = "flows", list = [{ src = 1, dst = 0, size = "500KB", start = 0 },
                                     { src = 2, dst = 0, size = "500KB", start = 0 }] }
[run]
duration = "1ms"
horizon = "50ms"
"""
    p = tmp_path / "r.toml"
    p.write_text(toml)
    res = dcnsim.run(str(p), progress=False)
    assert res.flows["completed"].all()
    assert (res.flows["fct_s"] > 0).all()


def test_roce_table_round_trips_without_tcp_keys(tmp_path: Path, capsys) -> None:
    sc = _incast()
    sc["transports"]["rdma"]["roce"]["ack_every"] = 4
    first = dcnsim.validate(sc)
    rdma = first["transports"]["rdma"]
    assert set(rdma) == {"kind", "roce"}
    assert rdma["roce"]["ack_every"] == 4 and rdma["roce"]["fast_recovery"] == 5
    f = tmp_path / "s.toml"
    f.write_text(config.dumps_toml(sc))
    assert cli.main(["validate", "--show", str(f)]) == 0
    g = tmp_path / "shown.toml"
    g.write_text(capsys.readouterr().out)
    assert dcnsim.validate(str(g)) == first


@pytest.mark.parametrize(
    ("roce", "extra", "path"),
    [
        ({"g": 2}, {}, "transports.rdma.roce.g"),
        ({"bogus": 1}, {}, "transports.rdma.roce.bogus"),
        ({}, {"sack": True}, "transports.rdma.sack"),
    ],
)
def test_bad_roce_keys_name_the_key(roce: dict, extra: dict, path: str) -> None:
    sc = _incast()
    sc["transports"]["rdma"] = {"kind": "roce", "roce": roce, **extra}
    with pytest.raises(ConfigError) as e:
        dcnsim.validate(sc)
    assert e.value.path == path


def test_mixed_fabric_scenario_has_both_families_in_one_table() -> None:
    # DCTCP (queue 0, lossy) and DCQCN (queue 1, PFC) on one leaf-spine.
    res = dcnsim.run("mixed_dctcp_dcqcn", set={"run.duration": "10ms"}, progress=False)
    f = res.flows
    assert set(f["class"]) == {"tcp", "rdma"}
    for c in ("tcp", "rdma"):
        assert f[f["class"] == c]["completed"].sum() > 20
    rdma = f[f["class"] == "rdma"]
    assert rdma["cnps"].sum() > 0 and rdma["drops"].sum() == 0
    assert f[f["class"] == "tcp"]["cnps"].sum() == 0
    # The reference-style RoCE timing (docs/rdma.md, Results): set for the RDMA flows that
    # finished, never after their in-order finish, NaN for TCP.
    done = rdma[rdma["completed"]]
    assert done["rx_all_s"].notna().all() and (done["rx_all_s"] <= done["finish_s"]).all()
    assert (done["rx_first_sent_s"] >= done["start_s"]).all()
    assert f[f["class"] == "tcp"][["rx_all_s", "rx_first_sent_s"]].isna().all().all()
    q = res.queues
    # PFC acts on the RDMA priority only.
    assert q[q["queue"] == 1]["pfc_pause_sent"].sum() > 0
    assert q[q["queue"] == 0]["pfc_pause_sent"].sum() == 0
    assert q[q["queue"] == 1]["drops"].sum() == 0
