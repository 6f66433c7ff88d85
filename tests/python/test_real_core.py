"""Tests against the real Rust extension (skipped when it is not built, failing under CI)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import dcnsim
from dcnsim import analysis, config

pytestmark = pytest.mark.usefixtures("real_core")


def test_contract_surface(real_core) -> None:
    assert isinstance(real_core.__version__, str)
    assert issubclass(real_core.ConfigError, ValueError)
    assert "websearch" in real_core.builtin_cdfs()
    assert isinstance(real_core.bench_names(), list)


def test_defaults_are_complete_and_validation_is_idempotent() -> None:
    d = dcnsim.defaults()
    assert dcnsim.validate(d) == d
    n = dcnsim.validate(None)
    assert dcnsim.validate(n) == n


def test_default_scenario_is_shipped() -> None:
    assert "default" in dcnsim.shipped_scenarios()


def _shipped() -> list[str]:
    return config.shipped_scenarios()


@pytest.mark.parametrize("name", _shipped())
def test_every_shipped_scenario_validates_and_toml_equals_dict(name: str, tmp_path: Path) -> None:
    prep = config.prepare(name)
    raw = config.load_scenario(name)
    p = tmp_path / f"{name}.toml"
    p.write_text(config.dumps_toml(raw))
    assert config.prepare(p).hash == prep.hash
    assert config.prepare(raw).hash == prep.hash
    # the normalized form, written as TOML, is itself a valid and equivalent scenario
    q = tmp_path / f"{name}-normalized.toml"
    q.write_text(config.dumps_toml(prep.normalized))
    assert config.prepare(q).normalized == prep.normalized


def test_unknown_key_names_the_key() -> None:
    with pytest.raises(dcnsim.ConfigError) as e:
        dcnsim.validate({"bogus_key": 1})
    assert "bogus_key" in e.value.path or "bogus_key" in e.value.message
    with pytest.raises(dcnsim.ConfigError) as e:
        dcnsim.validate(None, set=["topology.no_such_key=3"])
    assert e.value.path.startswith("topology")


def _first_leaf(d: object, typ: type, prefix: str = "") -> str | None:
    if isinstance(d, dict):
        for k, v in d.items():
            p = f"{prefix}.{k}" if prefix else k
            if isinstance(v, typ) and not isinstance(v, bool):
                return p
            found = _first_leaf(v, typ, p)
            if found:
                return found
    return None


def test_wrong_type_names_the_key() -> None:
    path = _first_leaf(dcnsim.defaults(), int)
    assert path is not None
    with pytest.raises(dcnsim.ConfigError) as e:
        dcnsim.validate(None, set={path: "not a number"})
    assert e.value.path.split(".")[0] == path.split(".")[0]


def test_same_seed_byte_identical_other_seed_different(tmp_path: Path) -> None:
    a = dcnsim.run(None, seed=11, progress=False).save(tmp_path / "a")
    b = dcnsim.run(None, seed=11, progress=False).save(tmp_path / "b")
    c = dcnsim.run(None, seed=12, progress=False).save(tmp_path / "c")
    for f in ("flows.parquet", "queues.parquet", "samples.parquet", "scenario.json"):
        assert (a / f).read_bytes() == (b / f).read_bytes(), f
    fa, fc = dcnsim.load(a).flows, dcnsim.load(c).flows
    cols = ["size", "src", "dst", "start_s"]
    assert not fa[cols].equals(fc[cols])


def test_a_seed_that_is_not_a_whole_number_is_a_keyed_error() -> None:
    # it was int()-ed: "x" raised a ValueError and 1.5 ran as seed 1
    for bad in ("x", 1.5, True):
        with pytest.raises(dcnsim.ConfigError) as e:
            config.prepare(None, seed=bad)
        assert e.value.path == "seed", bad
    assert config.prepare(None, seed=np.int64(3)).normalized["seed"] == 3


def test_real_results_follow_the_contract() -> None:
    from dcnsim.results import FLOW_SCHEMA, QUEUE_SCHEMA

    r = dcnsim.run(None, progress=False)
    assert list(r.flows.columns)[: len(FLOW_SCHEMA)] == list(FLOW_SCHEMA)
    assert list(r.queues.columns)[: len(QUEUE_SCHEMA)] == list(QUEUE_SCHEMA)
    for k in (
        "seed",
        "version",
        "events",
        "packet_hops",
        "sim_time_s",
        "wall_s",
        "flows_total",
        "flows_completed",
        "flows_in_window",
        "scenario_name",
        "classes",
        "warnings",
        "config_hash",
    ):
        assert k in r.meta, k
    assert r.meta["flows_total"] == len(r.flows) > 0
    assert r.meta["flows_in_window"] == int(r.flows["in_window"].sum())
    done = r.flows[r.flows["completed"]]
    assert (done["fct_s"] >= done["ideal_fct_s"] * (1 - 1e-9)).all()
    stats = analysis.fct_stats(r)
    assert int(stats["count"].sum() + stats["unfinished"].sum()) == r.meta["flows_in_window"]


def test_cli_default_run_under_a_minute(tmp_path: Path, real_env) -> None:
    t0 = time.monotonic()
    p = subprocess.run(
        [sys.executable, "-m", "dcnsim", "run", "-o", "out"],
        cwd=tmp_path,
        env=real_env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    elapsed = time.monotonic() - t0
    assert p.returncode == 0, p.stderr
    for lab in analysis.bucket_labels():
        assert lab in p.stdout
    assert elapsed < 60, f"default scenario took {elapsed:.1f}s"
    assert dcnsim.results.is_complete(tmp_path / "out")


def test_cli_bad_input_exit_2_no_output(tmp_path: Path, real_env) -> None:
    p = subprocess.run(
        [sys.executable, "-m", "dcnsim", "run", "--set", "bogus.key=1", "-o", "out"],
        cwd=tmp_path,
        env=real_env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert p.returncode == 2, p.stderr
    assert p.stderr.startswith("error: ") and "bogus" in p.stderr
    assert "Traceback" not in p.stderr and "panicked" not in p.stderr
    assert not (tmp_path / "out").exists()


def test_progress_callback_and_interrupt(real_core) -> None:
    n = dcnsim.validate(None)
    seen: list[tuple] = []
    real_core.run(json.dumps(n), lambda *a: seen.append(a), 0.0)
    assert seen and all(len(a) == 4 for a in seen)

    def stop(*args):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        real_core.run(json.dumps(n), stop, 0.0)


def test_a_class_name_is_one_string_shared_by_its_rows(real_core) -> None:
    """The core hands Python one string per class for the flows' and the class samples'
    ``class`` column, not one per row (a long name times the rows once took gigabytes), and
    a name longer than the cap is a keyed error before anything runs."""
    n = dcnsim.validate(None)
    n["classes"][0]["name"] = "x" * 64
    n["output"]["queue_sample_interval"] = "100us"  # (class samples too)
    out = real_core.run(json.dumps(n), None, 0.0)
    for table in ("flows", "class_samples"):
        col = out[table]["class"]
        assert len(col) > len(n["classes"]), table
        assert {c for c in col} <= {c["name"] for c in n["classes"]}, table
        assert len({id(c) for c in col}) <= len(n["classes"]), table
    n["classes"][0]["name"] = "x" * 65
    with pytest.raises(dcnsim.ConfigError, match=r"classes\[0\]\.name.*at most 64"):
        dcnsim.validate(n)


def test_real_sweep_in_parallel_and_resume(tmp_path: Path) -> None:
    import importlib

    sw = importlib.import_module("dcnsim.sweep")
    params = {"classes[0].workload.load": [0.2, 0.4]}
    df = sw.sweep(None, params, seeds=2, jobs=2, out_dir=tmp_path, progress=False)
    assert len(df) == 4 and df["done"].all()
    assert df["fct_p99_s"].notna().all()
    runs = sw.plan(None, params, seeds=2)
    ran, failures = sw.execute(runs, tmp_path, jobs=2, progress=False)
    assert (ran, failures) == (0, [])


BAD_INPUTS = [
    # (override, key path expected in the message)
    ("topology.no_such_key=3", "topology"),
    ("topology.host_link.rate=-10Gbps", "topology.host_link.rate"),
    ('classes[0].workload.sizes={cdf_file="{dir}/not_one.cdf"}', "classes[0].workload.sizes"),
    ('classes[0].workload.sizes={cdf_file="{dir}/not_monotone.cdf"}', "classes[0].workload.sizes"),
    ('classes[0].workload.sizes={cdf_file="{dir}/missing.cdf"}', "classes[0].workload.sizes"),
    ("classes[0].priority=7", "classes[0].priority"),
    ("classes[0].workload.load=-0.5", "classes[0].workload.load"),
    ("classes[9].workload.load=0.5", "classes[9]"),
]


@pytest.mark.parametrize(("override", "key"), BAD_INPUTS)
def test_bad_input_is_config_error_and_cli_exit_2(
    override: str, key: str, tmp_path: Path, capsys
) -> None:
    from dcnsim import cli

    (tmp_path / "not_one.cdf").write_text("0 0\n1000 0.5\n2000 0.9\n")
    (tmp_path / "not_monotone.cdf").write_text("0 0\n1000 0.5\n2000 0.4\n3000 1\n")
    override = override.replace("{dir}", str(tmp_path))
    with pytest.raises(dcnsim.ConfigError) as e:
        dcnsim.run(None, set=[override], progress=False)
    assert e.value.path.startswith(key)
    out = tmp_path / "out"
    assert cli.main(["run", "--set", override, "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {e.value.path}: ")
    assert "Traceback" not in err and "panicked" not in err
    assert not out.exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".out")]


def test_missing_scenario_file_exit_2(tmp_path: Path, capsys) -> None:
    from dcnsim import cli

    assert cli.main(["run", str(tmp_path / "nope.toml"), "-o", str(tmp_path / "o")]) == 2
    assert capsys.readouterr().err.startswith("error: scenario: scenario file not found")
    assert not (tmp_path / "o").exists()


def test_real_save_load_roundtrip(tmp_path: Path) -> None:
    import pandas as pd

    r = dcnsim.run(None, progress=False, set=["output.queue_sample_interval=100us"])
    assert len(r.samples) > 0
    back = dcnsim.load(r.save(tmp_path / "r"))
    for name in ("flows", "queues", "samples"):
        pd.testing.assert_frame_equal(getattr(r, name), getattr(back, name))
    assert back.meta == r.meta and back.scenario == r.scenario
    assert back.meta["config_hash"] == config.config_hash(back.scenario)


def test_same_seed_same_flows_across_transports_so_normalize_matches() -> None:
    a = dcnsim.run(None, progress=False, set=["classes[0].transport=cubic"])
    b = dcnsim.run(None, progress=False)
    c = analysis.normalize(a, b)
    assert len(c.per_flow) == int(b.flows["in_window"].sum())
    assert c.aggregate["count"].sum() + c.aggregate["unfinished_a"].sum() >= len(c.per_flow) - int(
        c.aggregate["unfinished_b"].sum()
    )
    assert (c.aggregate["p99"] > 0).all()
