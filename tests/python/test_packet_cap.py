"""Issue 13: host NIC queues have no limit, so a run can pile up packets without bound (DCQCN
under PFC pauses queued 13.5 GB and was OOM-killed before RoCE NICs pulled from their QPs). The
run stops, with a keyed warning, when the packets it holds reach the memory limit's share,
instead of growing until the kernel kills it: here a limit below what the run holds at its peak
(≈ 20,000 packets, mostly in the switches' buffers)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

dcnsim = pytest.importorskip("dcnsim")
from dcnsim import config  # noqa: E402
from dcnsim.api import run_prepared  # noqa: E402
from dcnsim.papers import tlt as T  # noqa: E402
from dcnsim.papers.tlt import roce as R  # noqa: E402


def _prep(limit: str) -> config.Prepared:
    dur = "4ms"
    c = SimpleNamespace(
        scale=SimpleNamespace(params={**T.FULL.params, "roce_duration": dur}, duration=dur),
        seeds=(1,),
    )
    ov = R._ov(c, "pfc", "dcqcn")
    ov.update({"run.warmup": "0ms", "run.memory_limit": limit})
    return config.prepare(R.SCENARIO, seed=1, overrides=ov)


def test_held_packets_are_capped_by_the_memory_limit() -> None:
    big = run_prepared(_prep("4GB"), progress=False)
    assert big.meta["end"] == "complete"
    # The same run with a limit that leaves room for fewer packets than it holds at its peak.
    small = run_prepared(_prep("12MB"), progress=False)
    assert small.meta["end"] == "memory_limit"
    assert any(w.startswith("run.memory_limit: the run stopped") for w in small.meta["warnings"])
    assert small.meta["peak_packets"] < big.meta["peak_packets"]
