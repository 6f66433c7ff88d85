"""HPCC from Python (issue 13): the built-in ``hpcc`` runs a small incast from a dict, its
keys resolve and a bad one is reported by its path; the shipped mixed fabric switches its
RDMA class to HPCC with one key."""

from __future__ import annotations

import pytest

import dcnsim
from dcnsim.errors import ConfigError

pytestmark = pytest.mark.usefixtures("real_core")


def _incast(transport: dict | None = None, senders: int = 4) -> dict:
    flows = [{"src": s, "dst": 0, "size": "2MB", "start": 0} for s in range(1, senders + 1)]
    sc = {
        "name": "hpcc_incast",
        "topology": {
            "kind": "star",
            "hosts": senders + 1,
            "link": {"rate": "40Gbps", "delay": "1us"},
        },
        "switch": {"queues": 1, "scheduler": {"kind": "fifo"}, "port_limit": "1000000pkt"},
        "host": {"queues": 1, "scheduler": {"kind": "fifo"}},
        "classes": [
            {
                "name": "rdma",
                "transport": "hpcc",
                "workload": {"kind": "flows", "list": flows},
            }
        ],
        "run": {"duration": "20ms", "horizon": "20ms"},
    }
    if transport is not None:
        sc["transports"] = {"hpcc": transport}
    return sc


def test_builtin_hpcc_completes_an_incast_without_cnps() -> None:
    res = dcnsim.run(_incast(), progress=False)
    f = res.flows
    assert len(f) == 4 and f["completed"].all()
    # HPCC reads INT, not ECN: no CNP, and nothing lost on this unlimited buffer.
    assert f["cnps"].sum() == 0 and f["drops"].sum() == 0


def test_a_bad_hpcc_key_is_reported_by_its_path() -> None:
    with pytest.raises(ConfigError) as e:
        dcnsim.validate(_incast({"roce": {"eta": 2.0}}))
    assert e.value.path == "transports.hpcc.roce.eta"


def test_mixed_fabric_runs_hpcc_with_one_key() -> None:
    dcqcn = dcnsim.run("mixed_dctcp_dcqcn", set={"run.duration": "5ms"}, progress=False)
    hpcc = dcnsim.run(
        "mixed_dctcp_dcqcn",
        set={"run.duration": "5ms", "transports.rdma.roce.cc": "hpcc"},
        progress=False,
    )
    for res in (dcqcn, hpcc):
        f = res.flows
        assert set(f["class"]) == {"tcp", "rdma"}
        for c in ("tcp", "rdma"):
            assert f[f["class"] == c]["completed"].sum() > 10
        assert f[f["class"] == "rdma"]["drops"].sum() == 0
    # The same flows; DCQCN's receivers answer CE marks with CNPs, HPCC's never do.
    assert dcqcn.flows[dcqcn.flows["class"] == "rdma"]["cnps"].sum() > 0
    assert hpcc.flows[hpcc.flows["class"] == "rdma"]["cnps"].sum() == 0
