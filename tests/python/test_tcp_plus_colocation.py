"""LPF §5 must-show: in the workload co-location use case (8:1 on-off incast of gradient
updates at high priority, Alibaba storage at low priority), TCP+ halts on marked probes and
resumes, with fewer spurious RTOs than plain TCP (shortened run)."""

from __future__ import annotations

import pytest

import dcnsim

pytestmark = pytest.mark.usefixtures("real_core")

SHORT = {"run.duration": "60ms", "run.warmup": "5ms", "run.cooldown": "5ms"}


def _storage(res: dcnsim.Results):
    f = res.flows
    return f[(f["class"] == "storage") & f["in_window"]]


def test_tcp_plus_cuts_spurious_timeouts_in_colocation() -> None:
    plain = _storage(dcnsim.run("lpf_colocation", set=SHORT, progress=False))
    plus_set = {
        **SHORT,
        "transports.tcp.cqcn": True,
        "scheme": {"kind": "cqcn", "threshold": "64KB"},
    }
    plus = _storage(dcnsim.run("lpf_colocation", set=plus_set, progress=False))
    assert len(plain) == len(plus) > 50  # same seed: the same storage flows
    assert plain["spurious_rto"].sum() > 10, "plain TCP suffers priority-induced spurious RTOs"
    assert plus["cqcn_halts"].sum() > 0, "marked probes halted senders"
    assert plus["completed"].all(), "halted senders resumed and finished"
    assert plus["spurious_rto"].sum() < plain["spurious_rto"].sum() / 2
