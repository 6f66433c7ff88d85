from __future__ import annotations

import importlib
import os
import socket
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dcnsim.errors import ConfigError
from dcnsim.results import is_complete

# `dcnsim.sweep` is the function (re-exported by the package); the module is dcnsim.sweep too
sw = importlib.import_module("dcnsim.sweep")

PARAMS = {"classes[0].workload.load": [0.2, 0.5], "topology.leaves": [2, 3]}


def _saves(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record every run that is actually simulated (jobs=1 runs in-process)."""
    calls: list[str] = []
    real = sw._run_one

    def counting(prep, run_dir):
        calls.append(prep.hash)
        return real(prep, run_dir)

    monkeypatch.setattr(sw, "_run_one", counting)
    return calls


def test_plan_is_cartesian_and_deterministic(fake) -> None:
    runs = sw.plan({}, PARAMS, seeds=3)
    assert len(runs) == 2 * 2 * 3
    assert [
        (r.params["classes[0].workload.load"], r.params["topology.leaves"], r.seed)
        for r in runs[:4]
    ] == [(0.2, 2, 1), (0.2, 2, 2), (0.2, 2, 3), (0.2, 3, 1)]
    assert [r.hash for r in runs] == [r.hash for r in sw.plan({}, PARAMS, seeds=3)]
    assert len({r.hash for r in runs}) == len(runs)
    # points that normalize identically are run once
    assert len(sw.plan({}, {"topology.leaves": [2, 2]}, seeds=[1])) == 1


def test_plan_rejects_bad_points_before_running(fake) -> None:
    with pytest.raises(ConfigError) as e:
        sw.plan({}, {"topology.leavez": [1, 2]}, seeds=1)
    assert e.value.path == "topology.leavez"
    # an explicit seed list holds whole numbers (numpy's too); anything else names `seeds`
    for bad in (["a"], [1.5], [True], [None]):
        with pytest.raises(ConfigError) as e:
            sw.plan({}, {"topology.leaves": [2]}, seeds=bad)
        assert e.value.path == "seeds", bad
    assert [r.seed for r in sw.plan({}, {"topology.leaves": [2]}, seeds=np.arange(1, 3))] == [1, 2]
    assert len(sw.plan({}, {"topology.leaves": [2]}, seeds=np.int64(2))) == 2
    for bad in ("12", 2.0, True):
        with pytest.raises(ConfigError) as e:
            sw.plan({}, {"topology.leaves": [2]}, seeds=bad)
        assert e.value.path == "seeds", bad
    with pytest.raises(ConfigError):
        sw.plan({}, {"topology.leaves": []}, seeds=1)
    # a string is one value, not a list of its characters ("2ms" swept as "2", "m", "s")
    with pytest.raises(ConfigError) as e:
        sw.plan({}, {"run.duration": "2ms"}, seeds=1)
    assert e.value.path == "run.duration" and "list of values" in e.value.message


@pytest.mark.parametrize("n", [1, 2, 3, 5, 13])
def test_shards_cover_run_list_exactly_once(fake, n: int) -> None:
    runs = sw.plan({}, PARAMS, seeds=3)
    parts = [sw.shard_of(runs, (i, n)) for i in range(n)]
    hashes = [r.hash for p in parts for r in p]
    assert sorted(hashes) == sorted(r.hash for r in runs)
    assert len(hashes) == len(set(hashes))


def test_parse_shard() -> None:
    assert sw.parse_shard("0/4") == (0, 4)
    for bad in ["4/4", "-1/2", "1", "a/b", "0/0"]:
        with pytest.raises(ValueError):
            sw.parse_shard(bad)


def test_sweep_writes_summary_and_resumes_without_recomputing(
    tmp_path: Path, fake, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = _saves(monkeypatch)
    df = sw.sweep({}, PARAMS, seeds=2, jobs=1, out_dir=tmp_path, progress=False)
    assert len(calls) == 8 and len(df) == 8 and df["done"].all()
    on_disk = pd.read_parquet(tmp_path / "sweep.parquet")
    assert list(on_disk["seed"]) == [1, 2] * 4
    assert {
        "classes[0].workload.load",
        "topology.leaves",
        "fct_p99_s",
        "slowdown_p99",
        "unfinished",
        "config_hash",
    } <= set(on_disk.columns)
    calls.clear()
    df2 = sw.sweep({}, PARAMS, seeds=2, jobs=1, out_dir=tmp_path, progress=False)
    assert calls == []
    pd.testing.assert_frame_equal(df.drop(columns="wall_s"), df2.drop(columns="wall_s"))


def test_interrupted_sweep_resumes_and_cleans_partial_runs(
    tmp_path: Path, fake, monkeypatch: pytest.MonkeyPatch
) -> None:
    runs = sw.plan({}, PARAMS, seeds=1)
    # a first, "killed" attempt: two runs finished, one left a half-written temp dir
    sw.execute(runs[:2], tmp_path, jobs=1, progress=False)
    dead_pid = 2**22 + 7  # above the default pid_max: no such process
    partial = tmp_path / "runs" / f".{runs[2].hash}.tmp-{socket.gethostname()}-{dead_pid}-x"
    partial.mkdir()
    (partial / "flows.parquet").write_bytes(b"garbage")
    calls = _saves(monkeypatch)
    df = sw.sweep({}, PARAMS, seeds=1, jobs=1, out_dir=tmp_path, progress=False)
    assert sorted(calls) == sorted(r.hash for r in runs[2:])
    assert not partial.exists()
    assert df["done"].all()
    assert sorted(os.listdir(tmp_path / "runs")) == sorted(r.hash for r in runs)


def test_sweep_in_parallel_processes(tmp_path: Path, fake) -> None:
    df = sw.sweep({}, PARAMS, seeds=1, jobs=2, out_dir=tmp_path, progress=False)
    assert df["done"].all()
    assert all(is_complete(tmp_path / "runs" / h) for h in df["config_hash"])


def test_shards_then_collect(tmp_path: Path, fake) -> None:
    for i in range(3):
        sw.sweep({}, PARAMS, seeds=2, jobs=1, out_dir=tmp_path, shard=(i, 3), progress=False)
    partial = sw.sweep(
        {}, PARAMS, seeds=3, jobs=1, out_dir=tmp_path, collect_only=True, progress=False
    )
    assert int(partial["done"].sum()) == 8 and len(partial) == 12  # seed 3 not run yet
    df = sw.sweep({}, PARAMS, seeds=2, jobs=1, out_dir=tmp_path, collect_only=True, progress=False)
    assert df["done"].all() and len(df) == 8


def test_failed_runs_are_reported_and_others_kept(
    tmp_path: Path, fake, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = sw._run_one
    bad = sw.plan({}, PARAMS, seeds=1)[1].hash

    def sometimes(prep, run_dir):
        if prep.hash == bad:
            raise RuntimeError("boom")
        return real(prep, run_dir)

    monkeypatch.setattr(sw, "_run_one", sometimes)
    with pytest.raises(sw.SweepError, match="1 of 4 runs failed"):
        sw.sweep({}, PARAMS, seeds=1, jobs=1, out_dir=tmp_path, progress=False)
    df = pd.read_parquet(tmp_path / "sweep.parquet")
    assert int(df["done"].sum()) == 3


def test_base_overrides_apply_to_every_point(tmp_path: Path, fake) -> None:
    runs = sw.plan({}, {"topology.leaves": [2, 3]}, seeds=1, overrides=["topology.spines=4"])
    assert all(r.prepared.normalized["topology"]["spines"] == 4 for r in runs)
    assert [r.prepared.normalized["topology"]["leaves"] for r in runs] == [2, 3]
    with pytest.raises(ConfigError):
        sw.plan({}, {"topology.leaves": [2]}, seeds=1, overrides=["topology.nope=1"])


def test_results_of_another_core_build_are_recomputed(tmp_path, monkeypatch, real_core) -> None:
    """The cache key is the scenario hash; a change of simulator build must not reuse old runs."""
    import dcnsim
    from dcnsim import _native

    out = tmp_path / "sw"
    first = dcnsim.sweep(
        "default", {"run.duration": ["6ms"]}, seeds=1, out_dir=out, jobs=1, progress=False
    )
    assert len(first) == 1
    run_dir = next((out / "runs").iterdir())
    stamp = (run_dir / "meta.json").stat().st_mtime_ns
    dcnsim.sweep("default", {"run.duration": ["6ms"]}, seeds=1, out_dir=out, jobs=1, progress=False)
    assert (run_dir / "meta.json").stat().st_mtime_ns == stamp, "same build: cached"
    monkeypatch.setattr(_native, "_BUILD_ID", "another-build")
    dcnsim.sweep("default", {"run.duration": ["6ms"]}, seeds=1, out_dir=out, jobs=1, progress=False)
    assert (run_dir / "meta.json").stat().st_mtime_ns != stamp, "other build: recomputed"


def test_ray_backend_without_ray_is_bad_input(
    tmp_path: Path, fake, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    import sys

    from dcnsim import cli

    monkeypatch.setitem(sys.modules, "ray", None)  # import ray -> ImportError
    with pytest.raises(ConfigError) as e:
        sw.sweep({}, PARAMS, out_dir=tmp_path / "a", backend="ray", progress=False)
    assert e.value.path == "backend" and "pip install" in e.value.message
    assert not (tmp_path / "a").exists()  # nothing ran, nothing written
    args = ["sweep", "default", "--param", "topology.leaves=2", "-o", str(tmp_path / "b")]
    assert cli.main([*args, "--backend", "ray"]) == 2
    assert "dcnsim[ray]" in capsys.readouterr().err


def test_pool_tasks_run_longest_first_with_tiny_runs_batched(real_core) -> None:
    # Cost = the bytes offered over the duration: duration and hosts per leaf drive it here.
    win = {"run.warmup": ["0s"], "run.cooldown": ["0s"]}
    runs = sw.plan("default", {"run.duration": ["1ms", "20ms", "80ms"], **win}, seeds=[1, 2])
    runs += sw.plan(
        "default", {"run.duration": ["80ms"], "topology.hosts_per_leaf": [16], **win}, seeds=[3]
    )
    costs = {r.hash: sw.run_cost(r) for r in runs}
    tasks = sw.plan_tasks(runs, jobs=2)
    flat = [r.hash for t in tasks for r in t]
    assert sorted(flat) == sorted(r.hash for r in runs)  # every run exactly once
    assert flat == sorted(flat, key=lambda h: -costs[h])  # longest first
    assert tasks[0] == [runs[-1]]  # twice the hosts of the other 80 ms runs
    # The 1 ms runs are below 1/50 of a fair share of the work: one batch.
    batches = [t for t in tasks if len(t) > 1]
    assert len(batches) == 1
    assert {r.params["run.duration"] for r in batches[0]} == {"1ms"}
    assert len(tasks) == len(runs) - 1
    one, twenty = (next(r for r in runs if r.params["run.duration"] == d) for d in ("1ms", "20ms"))
    assert sw.run_cost(twenty) == pytest.approx(20 * sw.run_cost(one))
    # The Poisson class (40% of every 10G host link) doubles with the hosts; the incast's
    # rounds (16 × 20 KB every 500 µs) do not.
    poisson, incast = 0.4 * 32 * 10e9 / 8 * 0.08, 16 * 20e3 * (0.08 / 500e-6)
    assert costs[runs[-2].hash] == pytest.approx(poisson + incast)
    assert sw.run_cost(runs[-1]) == pytest.approx(2 * poisson + incast)


def test_run_cost_follows_the_bytes_each_load_basis_offers(real_core) -> None:
    # `reproduce lowprio` (2026-11-26): a run of lpf_sjf (50% of all 40 host links) took 30×
    # as long as one of lpf_hybrid (80% of a 10 Gb/s bisection), while cost = time × hosts ×
    # load ranked them the other way round and batched 17 such runs as "tiny" on one worker
    # (55 s, the other core idle). Offered bytes rank them as their events do.
    win = {"run.warmup": "0s", "run.cooldown": "0s", "run.duration": "300ms"}
    sjf = sw.plan("lpf_sjf", {k: [v] for k, v in win.items()}, seeds=[1])[0]
    hybrid = sw.plan("lpf_hybrid", {k: [v] for k, v in win.items()}, seeds=[1])[0]
    loads = [c["workload"]["load"] for c in hybrid.prepared.normalized["classes"]]
    assert sw.run_cost(hybrid) == pytest.approx(sum(loads) * 10e9 / 8 * 0.3)
    sjf_load = sjf.prepared.normalized["classes"][0]["workload"]["load"]
    assert sw.run_cost(sjf) == pytest.approx(sjf_load * 40 * 10e9 / 8 * 0.3)
    # A flows list offers its flows' bytes.
    listed = sw.plan(
        {
            "classes": [
                {
                    "name": "c",
                    "transport": "dctcp",
                    "workload": {
                        "kind": "flows",
                        "list": [
                            {"src": 0, "dst": 1, "size": "1MB", "start": 0},
                            {"src": 2, "dst": 3, "size": "3MB", "start": 0},
                        ],
                    },
                }
            ]
        },
        {},
        seeds=[1],
    )[0]
    assert sw.run_cost(listed) == pytest.approx(4e6)


def test_longest_first_batches_give_the_same_saved_runs(
    tmp_path: Path, fake, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every run counts as tiny here: the runs go in batches, each still saved on its own.
    monkeypatch.setattr(sw, "TINY", 1.0)
    runs = sw.plan({}, {"classes[0].workload.load": [0.1, 0.2, 0.3]}, seeds=[1, 2, 3])
    assert any(len(t) > 1 for t in sw.plan_tasks(runs, jobs=2))
    n, failures = sw.execute(runs, tmp_path, jobs=2, progress=False, longest_first=True)
    assert (n, failures) == (len(runs), [])
    assert all(is_complete(tmp_path / "runs" / r.hash) for r in runs)


def test_a_killed_worker_names_the_run_it_had_in_flight(
    tmp_path: Path, fake, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Issue 13: the kernel's OOM killer took a worker of `reproduce tlt --full`; the pool then
    # failed all 271 unfinished runs alike and the report named an arbitrary one of them (a run
    # measured afterwards at 0.35 GB peak). The worker's marker names the run it was simulating.
    import signal

    runs = sw.plan({}, PARAMS, seeds=1)
    victim = runs[2].hash
    real = sw._simulate_and_save

    def oom_killed(prep, run_dir):  # runs in the forked worker
        if prep.hash == victim:
            os.kill(os.getpid(), signal.SIGKILL)
        return real(prep, run_dir)

    monkeypatch.setattr(sw, "_simulate_and_save", oom_killed)
    _, failures = sw.execute(runs, tmp_path, jobs=2, progress=False)
    assert failures, "the killed worker's run must fail"
    # In flight: the victim, and perhaps the other worker's run (the pool ends it too); they
    # come first, each naming its worker's pid.
    flight = [r.hash for r, e in failures if "died while simulating this run (" in str(e)]
    assert victim in flight and len(flight) <= 2
    assert [r.hash for r, _ in failures[: len(flight)]] == flight
    assert all("pid" in str(e) for _, e in failures[: len(flight)])
    assert all(
        "died while simulating" in str(e) or str(e).startswith("not run") for _, e in failures
    )
    assert not list((tmp_path / "runs").glob(".*.running"))
