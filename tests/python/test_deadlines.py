"""The shipped `deadlines` scenario shows what D2TCP and L2DCT change against DCTCP (the
Rust tests in crates/dcnsim/tests/deadline_size_cc.rs check the mechanisms themselves)."""

from __future__ import annotations

import dcnsim


def _fcts(cc: str) -> list[float]:
    r = dcnsim.run("deadlines", set={"transports.cc.cc": cc}, progress=False)
    f = r.flows.sort_values("flow_id")
    assert f.completed.all()
    return list(f.fct_s)


def test_d2tcp_meets_the_tight_deadline_dctcp_misses_and_l2dct_favours_the_newcomer() -> None:
    d2tcp, dctcp, l2dct = _fcts("d2tcp"), _fcts("dctcp"), _fcts("l2dct")
    # Flow 0: 1 MB with a 14 ms deadline, sharing the bottleneck with flow 1 (40 ms).
    assert dctcp[0] > 14e-3 and d2tcp[0] <= 14e-3 and d2tcp[1] <= 40e-3
    # Flow 3: 300 KB joining a 4 MB flow 10 ms late; L2DCT weights it up (spec §4.4).
    assert l2dct[3] < 0.75 * dctcp[3]
