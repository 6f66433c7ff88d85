"""The Ray backend with the real simulator: a 12-run sweep on a local Ray instance gives the
local backend's sweep.parquet (all but wall-clock time). Skipped without Ray."""

from __future__ import annotations

import importlib
from pathlib import Path

import pandas as pd
import pytest

ray = pytest.importorskip("ray")
sw = importlib.import_module("dcnsim.sweep")

pytestmark = pytest.mark.usefixtures("real_core")

SHORT = {"run.duration": "3ms", "run.warmup": "1ms", "run.cooldown": "1ms"}
# 3 loads x 2 transports x 2 seeds = 12 runs
PARAMS = {"classes[0].workload.load": [0.2, 0.4, 0.6], "classes[0].transport": ["dctcp", "cubic"]}


def test_real_ray_sweep_equals_local(tmp_path: Path) -> None:
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        on_ray = sw.sweep(
            None, PARAMS, seeds=2, out_dir=tmp_path / "ray", set=SHORT, backend="ray",
            progress=False,
        )  # fmt: skip
    finally:
        ray.shutdown()
    assert len(on_ray) == 12 and on_ray["done"].all()
    sw.sweep(None, PARAMS, seeds=2, jobs=2, out_dir=tmp_path / "local", set=SHORT, progress=False)
    a = pd.read_parquet(tmp_path / "ray" / "sweep.parquet").drop(columns=["wall_s"])
    b = pd.read_parquet(tmp_path / "local" / "sweep.parquet").drop(columns=["wall_s"])
    pd.testing.assert_frame_equal(a, b)
    # and every run's flows are byte-identical files
    for h in a["config_hash"]:
        ra = (tmp_path / "ray" / "runs" / h / "flows.parquet").read_bytes()
        assert ra == (tmp_path / "local" / "runs" / h / "flows.parquet").read_bytes()
