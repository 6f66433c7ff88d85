"""Sweeps on Ray (``backend="ray"``): the same sweep.parquet as the local backend, the same
cache, and no run lost when a Ray worker is killed mid-sweep. Skipped without Ray
(``pip install '.[ray]'``)."""

from __future__ import annotations

import importlib
import os
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

from dcnsim import cli
from dcnsim.errors import ConfigError

ray = pytest.importorskip("ray")
sw = importlib.import_module("dcnsim.sweep")

# 3 loads x 2 leaf counts x 2 seeds = 12 runs
PARAMS = {"classes[0].workload.load": [0.2, 0.5, 0.8], "topology.leaves": [2, 3]}
NONDETERMINISTIC = ["wall_s", "wall_s_lo", "wall_s_hi"]


@pytest.fixture(scope="module")
def ray_instance(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """One local Ray instance for this module. Its workers inherit the environment at start:
    the fake core, and a directory where each run announces its worker's pid while it runs."""
    from conftest import _subprocess_env

    pids = tmp_path_factory.mktemp("pids")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DCNSIM_CORE", "fake_core")
        mp.setenv("PYTHONPATH", _subprocess_env("fake_core")["PYTHONPATH"])
        mp.setenv("FAKE_CORE_PIDS", str(pids))
        mp.setenv("FAKE_CORE_SECONDS", "0.4")
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
        try:
            yield pids
        finally:
            ray.shutdown()


@pytest.fixture
def local_ray(fake, ray_instance: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for f in ray_instance.iterdir():
        f.unlink()
    monkeypatch.setenv("FAKE_CORE_PIDS", str(ray_instance))
    monkeypatch.setenv("FAKE_CORE_SECONDS", "0.4")
    return ray_instance


def _table(d: Path) -> pd.DataFrame:
    return pd.read_parquet(d / "sweep.parquet").drop(columns=["wall_s"])


def test_ray_sweep_equals_local_and_reuses_the_cache(
    tmp_path: Path, local_ray: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    on_ray = sw.sweep({}, PARAMS, seeds=2, out_dir=tmp_path / "ray", backend="ray", progress=False)
    assert len(on_ray) == 12 and on_ray["done"].all()
    # the runs were simulated in Ray's worker processes, not here
    worker_pids = {int(p.read_text()) for p in local_ray.iterdir()}
    assert worker_pids and os.getpid() not in worker_pids
    monkeypatch.delenv("FAKE_CORE_PIDS")
    sw.sweep({}, PARAMS, seeds=2, jobs=2, out_dir=tmp_path / "local", progress=False)
    pd.testing.assert_frame_equal(_table(tmp_path / "ray"), _table(tmp_path / "local"))
    # the same cache: a second Ray sweep simulates nothing
    monkeypatch.setenv("FAKE_CORE_PIDS", str(local_ray))
    before = len(list(local_ray.iterdir()))
    sw.sweep({}, PARAMS, seeds=2, out_dir=tmp_path / "ray", backend="ray", progress=False)
    assert len(list(local_ray.iterdir())) == before


def test_killing_a_ray_worker_mid_sweep_loses_no_run(tmp_path: Path, local_ray: Path) -> None:
    result: dict[str, object] = {}

    def go() -> None:
        try:
            result["df"] = sw.sweep(
                {}, PARAMS, seeds=2, out_dir=tmp_path / "ray", backend="ray", progress=False
            )
        except BaseException as e:
            result["error"] = e

    t = threading.Thread(target=go)
    t.start()
    victim = None
    deadline = time.monotonic() + 60
    while victim is None and time.monotonic() < deadline:
        files = sorted(local_ray.iterdir())
        if files:
            victim = int(files[0].read_text())
        else:
            time.sleep(0.02)
    assert victim is not None, "no Ray worker started a run"
    os.kill(victim, signal.SIGKILL)  # a worker this test's Ray started, mid-run
    t.join(timeout=300)
    assert not t.is_alive()
    assert "error" not in result, result.get("error")
    df = result["df"]
    assert isinstance(df, pd.DataFrame) and len(df) == 12 and df["done"].all()
    # the killed worker's run was simulated again by another worker
    pids = [int(p.read_text()) for p in local_ray.iterdir()]
    assert len(pids) == 13 and pids.count(victim) == 1
    # ... and the table is the one the local backend gives
    sw.sweep({}, PARAMS, seeds=2, jobs=2, out_dir=tmp_path / "local", progress=False)
    pd.testing.assert_frame_equal(_table(tmp_path / "ray"), _table(tmp_path / "local"))


def test_cli_ray_backend(tmp_path: Path, local_ray: Path) -> None:
    sc = tmp_path / "s.toml"
    sc.write_text('name = "s"\n')
    args = ["sweep", str(sc), "--param", "topology.leaves=2,3", "-o", str(tmp_path / "sw"), "-q"]
    assert cli.main([*args, "--backend", "ray"]) == 0
    assert pd.read_parquet(tmp_path / "sw" / "sweep.parquet")["done"].all()
    assert cli.main([*args, "--address", "auto"]) == 2  # --address without --backend ray


def test_unknown_backend_is_bad_input(fake, tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as e:
        sw.sweep({}, PARAMS, out_dir=tmp_path, backend="slurm", progress=False)
    assert e.value.path == "backend"
