"""Issue #16, one test per defect class: bounded memory, exact errors, warnings, trustworthy
caches and result directories. Each test failed before the fix."""

from __future__ import annotations

import datetime
import importlib
import json
import os
import socket
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

import dcnsim
from dcnsim import cli, config
from dcnsim.errors import DcnsimWarning
from dcnsim.results import FILES, OPTIONAL_FILES, check_output, clean_stale_temp

SMALL: dict[str, Any] = {
    "topology": {"kind": "star", "hosts": 4, "link": {"rate": "10Gbps", "delay": "1us"}},
    "classes": [
        {
            "name": "a",
            "transport": "dctcp",
            "workload": {"kind": "poisson", "load": 0.3, "sizes": {"fixed": "10KB"}},
        }
    ],
    "run": {"duration": "1ms"},
}


def small(**run: Any) -> dict[str, Any]:
    d = json.loads(json.dumps(SMALL))
    d["run"].update(run)
    return d


def err_of(sc: Any) -> dcnsim.ConfigError:
    with pytest.raises(dcnsim.ConfigError) as e:
        dcnsim.validate(sc)
    return e.value


# --- user mistakes that were internal errors -------------------------------------------------


def test_toml_dates_nan_and_deep_nesting_are_keyed_config_errors(real_core) -> None:
    sc = small()
    sc["run"]["warmup"] = datetime.time(0, 0, 1)
    e = err_of(sc)
    assert e.path == "run.warmup" and "date or time" in e.message
    sc = small()
    sc["classes"][0]["workload"]["load"] = float("nan")
    e = err_of(sc)
    assert e.path == "classes[0].workload.load" and "finite" in e.message
    deep: Any = 1
    for _ in range(5000):
        deep = [deep]
    sc = small()
    sc["name"] = deep
    e = err_of(sc)
    assert e.path.startswith("name[0]") and "nested" in e.message
    # the same from TOML text
    text = "name = 'x'\n[run]\nwarmup = 00:00:01\n"
    with pytest.raises(dcnsim.ConfigError) as ei:
        dcnsim.validate(config.loads_toml(text))
    assert ei.value.path == "run.warmup"
    with pytest.raises(dcnsim.ConfigError):
        config.loads_toml("x = " + "[" * 5000 + "]" * 5000)


def test_errors_name_user_keys_and_tables_are_tables(real_core) -> None:
    sc = small()
    sc["classes"][0]["workload"]["senders"] = [0, 7]
    assert err_of(sc).path == "classes[0].workload.senders[1]"
    sc = small()
    sc["classes"][0]["workload"]["sizes"] = {"uniform": [0, 10]}
    assert err_of(sc).path == "classes[0].workload.sizes.uniform[0]"
    sc = small()
    sc["run"] = []
    e = err_of(sc)
    assert e.path == "run" and "table" in e.message
    sc = small()
    sc["topology"]["hosts"] = 1e30
    e = err_of(sc)
    assert e.message == "expected a whole number from 0 to 4294967295, got 1e30"
    sc = small()
    sc["classes"][0]["workload"]["sizes"] = {"fixed": "10Kb"}
    assert "bits" in err_of(sc).message


# --- memory ----------------------------------------------------------------------------------


def test_memory_estimate_is_a_keyed_error_with_a_key_and_a_flag(real_core, tmp_path) -> None:
    sc = {
        "topology": {
            "kind": "leaf_spine",
            "leaves": 10**9,
            "spines": 0,
            "hosts_per_leaf": 1,
            "host_link": {"rate": "10Gbps", "delay": "1us"},
            "fabric_link": {"rate": "10Gbps", "delay": "1us"},
        }
    }
    e = err_of(sc)
    assert e.path == "topology.leaves" and "memory_limit" in e.message
    big = small()
    big["output"] = {"queue_sample_interval": "10ns"}
    big["run"]["memory_limit"] = "10MB"
    assert err_of(big).path == "output.queue_sample_interval"
    big["run"]["memory_limit"] = "4GB"
    dcnsim.validate(big)
    # the limit is not part of the cache key
    a = config.prepare(small(memory_limit="1GB"))
    b = config.prepare(small())
    assert a.hash == b.hash
    # the CLI flag
    p = tmp_path / "s.toml"
    p.write_text(config.dumps_toml(big | {"run": {"duration": "1ms"}}))
    assert cli.main(["validate", str(p), "--memory-limit", "10MB"]) == cli.EXIT_BAD_INPUT
    assert cli.main(["validate", str(p), "--memory-limit", "4GB"]) == cli.EXIT_OK


def test_run_under_a_memory_limit_fails_with_a_keyed_error(real_env, tmp_path) -> None:
    """A process under `ulimit -v` (2 GB of address space) asked for a fat tree whose route
    tables alone need several GB: the default limit (half the headroom) rejects it with a keyed
    error and exit 2, instead of an allocation abort or the OOM killer."""
    sc = tmp_path / "big.toml"
    sc.write_text(
        'name = "big"\n[topology]\nkind = "fat_tree"\nk = 48\n'
        'link = { rate = "10Gbps", delay = "1us" }\n'
    )
    code = (
        "import resource, sys\n"
        "resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))\n"
        "from dcnsim import cli\n"
        "sys.exit(cli.main(sys.argv[1:]))\n"
    )
    p = subprocess.run(
        [sys.executable, "-c", code, "run", "-q", str(sc)],
        env=real_env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert p.returncode == 2, p.stderr
    assert "error: topology.k: the run would need about" in p.stderr
    assert "address-space limit" in p.stderr


def test_a_memory_limit_above_the_address_space_is_a_keyed_error(real_env) -> None:
    """run.memory_limit = 100 GB under `ulimit -v` (3 GB): the estimate of an incast with
    65,535 flows per sender (42 GB) passes the user's limit, and generating its flows aborted
    the interpreter (found by a mutation fuzzer). Each charge to the estimate now asks the
    allocator for the total first, so the answer is a keyed error and exit 2."""
    code = (
        "import resource, sys\n"
        "resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))\n"
        "from dcnsim import cli\n"
        "sys.exit(cli.main(sys.argv[1:]))\n"
    )
    args = ["validate", "default", "--memory-limit", "100GB"]
    args += ["--set", "classes[1].workload.flows_per_sender=65535"]
    p = subprocess.run(
        [sys.executable, "-c", code, *args],
        env=real_env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert p.returncode == 2, (p.returncode, p.stderr[-2000:])
    # (the flow count is driven by flows_per_sender, the key changed: it names it)
    assert "classes[1].workload.flows_per_sender: the run would need about" in p.stderr, p.stderr
    assert "which this system refuses to allocate" in p.stderr, p.stderr


# --- warnings --------------------------------------------------------------------------------


def test_settings_without_effect_are_warned_in_results_and_cli(real_core, tmp_path, capsys):
    sc = small()
    sc["switch"] = {"shared_buffer": "4MB"}
    res = dcnsim.run(sc, progress=False)
    assert any(w.startswith("switch.shared_buffer:") for w in res.meta["warnings"])
    p = tmp_path / "s.toml"
    p.write_text(config.dumps_toml(sc))
    assert cli.main(["run", "-q", str(p)]) == 0
    assert "warning: switch.shared_buffer:" in capsys.readouterr().err
    assert cli.main(["validate", str(p)]) == 0
    assert "warning: " in capsys.readouterr().err
    # the shipped default (1 MB port limit, 4 MB pool: the pool does decide) is not warned
    res = dcnsim.run(
        "default", set=["run.duration=2ms", "run.warmup=0ms", "run.cooldown=0ms"], progress=False
    )
    assert not [w for w in res.meta["warnings"] if "shared_buffer" in w]
    # a horizon that ends the run with unfinished flows
    sc = small(horizon="1ms")
    sc["classes"][0]["workload"] = {
        "kind": "flows",
        "list": [{"src": 0, "dst": 1, "size": "100MB", "start": 0}],
    }
    res = dcnsim.run(sc, progress=False)
    assert any(w.startswith("run.horizon:") for w in res.meta["warnings"])


# --- output directories ----------------------------------------------------------------------


def test_output_errors_exit_2_before_simulating(fake, tmp_path, capsys, monkeypatch) -> None:
    f = tmp_path / "file"
    f.write_text("x")
    for out in (f, f / "sub"):
        rc = cli.main(["run", "--set", "topology.leaves=3", "-o", str(out)])
        err = capsys.readouterr().err
        assert rc == cli.EXIT_BAD_INPUT and "error: --output:" in err, err
    # an unwritable parent (permissions do not stop root: simulate a read-only mount)
    ro = tmp_path / "ro"
    ro.mkdir()
    real_mkdir = Path.mkdir

    def deny(self: Path, *a: Any, **k: Any) -> None:
        if self.parent == ro:
            raise PermissionError(13, "Permission denied", str(self))
        real_mkdir(self, *a, **k)

    monkeypatch.setattr(Path, "mkdir", deny)
    ran = []
    monkeypatch.setattr(dcnsim.api, "run_prepared", lambda *a, **k: ran.append(1))
    rc = cli.main(["run", "-o", str(ro / "res")])
    assert rc == cli.EXIT_BAD_INPUT and not ran
    assert "cannot write" in capsys.readouterr().err
    # --collect on a directory that holds no sweep
    rc = cli.main(["sweep", "x", "--collect", "-o", str(tmp_path / "none")])
    assert rc == cli.EXIT_BAD_INPUT
    assert "holds no sweep" in capsys.readouterr().err


def test_rerun_keeps_user_files_and_plots(fake, tmp_path) -> None:
    out = tmp_path / "res"
    assert cli.main(["run", "-q", "--seed", "1", "-o", str(out)]) == 0
    (out / "plots").mkdir()
    (out / "plots" / "fct.png").write_bytes(b"png")
    (out / "notes.txt").write_text("mine")
    assert cli.main(["run", "-q", "--seed", "2", "-o", str(out)]) == 0
    assert (out / "notes.txt").read_text() == "mine"
    assert (out / "plots" / "fct.png").read_bytes() == b"png"
    assert dcnsim.load(out).meta["seed"] == 2


def test_stale_temp_of_a_killed_single_save_is_cleaned_and_user_files_recovered(
    fake, tmp_path
) -> None:
    out = tmp_path / "res"
    res = dcnsim.run(progress=False)
    res.save(out)
    # a save killed after moving the user's file into its temp dir (pid that does not exist)
    dead = f".res.tmp-{socket.gethostname()}-999999999-deadbeef"
    (tmp_path / dead).mkdir()
    (tmp_path / dead / "flows.parquet").write_bytes(b"trunc")
    (tmp_path / dead / "notes.txt").write_text("mine")
    # a killed save of another target is not touched by this one
    other = f".other.tmp-{socket.gethostname()}-999999999-deadbeef"
    (tmp_path / other).mkdir()
    res.save(out)
    assert not (tmp_path / dead).exists()
    assert (out / "notes.txt").read_text() == "mine"
    assert (tmp_path / other).exists()
    # killed between moving the old result aside and renaming the new one in: restored
    old = f".gone.old-{socket.gethostname()}-999999999-deadbeef"
    res.save(tmp_path / old)
    assert clean_stale_temp(tmp_path, name="gone") == 1
    assert dcnsim.load(tmp_path / "gone").meta["seed"] == res.meta["seed"]


def test_check_output_refuses_someone_elses_data(tmp_path) -> None:
    d = tmp_path / "data"
    d.mkdir()
    (d / "thesis.tex").write_text("x")
    with pytest.raises(dcnsim.ConfigError, match="not a dcnsim result"):
        check_output(d)
    check_output(tmp_path / "new" / "deeper")


# --- caches ----------------------------------------------------------------------------------


def test_config_hash_covers_file_content(real_core, tmp_path) -> None:
    cdf = tmp_path / "sizes.cdf"
    cdf.write_text("1000 0\n2000 1\n")
    sc = small()
    sc["classes"][0]["workload"]["sizes"] = {"cdf_file": str(cdf)}
    a = config.prepare(sc)
    cdf.write_text("1000 0\n900000 1\n")
    b = config.prepare(sc)
    assert a.hash != b.hash
    assert b.files == {str(cdf): __import__("hashlib").sha256(cdf.read_bytes()).hexdigest()}
    res = dcnsim.run(sc, progress=False)
    assert res.meta["input_files"] == b.files
    # scenarios without files keep their hash (no digests mixed in)
    assert config.prepare(small()).hash == config.config_hash(config.prepare(small()).normalized)


def test_corrupt_cached_run_is_recomputed_with_a_warning(fake, tmp_path) -> None:
    sw = importlib.import_module("dcnsim.sweep")

    df = sw.sweep(None, {"topology.leaves": [2, 3]}, jobs=1, out_dir=tmp_path, progress=False)
    assert df["done"].all()
    victim = tmp_path / df["run_dir"][0] / "flows.parquet"
    victim.write_bytes(victim.read_bytes()[:20])
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        df = sw.sweep(None, {"topology.leaves": [2, 3]}, jobs=1, out_dir=tmp_path, progress=False)
    assert df["done"].all()
    assert any(
        issubclass(w.category, DcnsimWarning) and "recomputing" in str(w.message) for w in got
    )
    dcnsim.load(tmp_path / df["run_dir"][0])


def test_incast_scenario_honours_the_seed(real_core) -> None:
    a = dcnsim.run(
        "incast",
        seed=1,
        set=["run.duration=6ms", "run.warmup=0ms", "run.cooldown=0ms"],
        progress=False,
    )
    b = dcnsim.run(
        "incast",
        seed=2,
        set=["run.duration=6ms", "run.warmup=0ms", "run.cooldown=0ms"],
        progress=False,
    )
    assert list(a.flows["start_s"]) != list(b.flows["start_s"])


def test_files_list_is_the_projects(tmp_path) -> None:
    # the carry-over rule depends on FILES (+ OPTIONAL_FILES) naming exactly what save() writes
    import dcnsim

    res = dcnsim.run(
        {
            "topology": {"kind": "star", "hosts": 2, "link": {"rate": "10Gbps", "delay": "1us"}},
            "classes": [
                {
                    "name": "a",
                    "transport": "cubic",
                    "workload": {
                        "kind": "flows",
                        "list": [{"src": 0, "dst": 1, "size": "10KB", "start": 0}],
                    },
                }
            ],
            "run": {"duration": "1ms"},
        },
        progress=False,
    )
    res.save(tmp_path / "r")
    assert set(os.listdir(tmp_path / "r")) == set(FILES + OPTIONAL_FILES)


def test_the_test_scheme_runs_with_its_defaults() -> None:
    # Its `red_threshold` default ("never") used to be a number past the size check, so a
    # scenario naming only `kind = "test"` failed validation on its own default.
    sc = {
        "topology": {"kind": "star", "hosts": 3, "link": {"rate": "10Gbps", "delay": "1us"}},
        "scheme": {"kind": "test"},
        "classes": [
            {
                "name": "a",
                "transport": "dctcp",
                "workload": {
                    "kind": "flows",
                    "list": [{"src": 1, "dst": 0, "size": "100kB", "start": 0}],
                },
            }
        ],
    }
    r = dcnsim.run(sc)
    assert r.meta["flows_completed"] == 1
    assert r.meta["dropped"] == 0
