from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import dcnsim
from dcnsim import cli
from dcnsim import results as results_mod
from dcnsim.results import (
    FILES,
    FLOW_SCHEMA,
    OPTIONAL_FILES,
    QUEUE_SCHEMA,
    clean_stale_temp,
    is_complete,
)


def _run(seed: int = 1, **kw) -> dcnsim.Results:
    return dcnsim.run({"outputs": {"samples": True}}, seed=seed, progress=False, **kw)


def test_results_tables_have_stable_columns_and_dtypes(fake) -> None:
    r = _run()
    assert list(r.flows.columns) == list(FLOW_SCHEMA)
    assert list(r.queues.columns) == list(QUEUE_SCHEMA)
    assert r.flows["flow_id"].dtype == "int64"
    assert r.flows["fct_s"].dtype == "float64"
    assert r.flows["completed"].dtype == "bool"
    assert (
        r.meta["config_hash"] == dcnsim.config.prepare({"outputs": {"samples": True}}, seed=1).hash
    )
    assert r.scenario["seed"] == 1
    assert r.flows["fct_s"].isna().any()  # unfinished flows are kept, with NaN


def test_save_load_roundtrip(tmp_path: Path, fake) -> None:
    r = _run()
    path = r.save(tmp_path / "out")
    assert is_complete(path)
    assert sorted(os.listdir(path)) == sorted(FILES + OPTIONAL_FILES)
    back = dcnsim.load(path)
    for name in ("flows", "queues", "samples"):
        pd.testing.assert_frame_equal(getattr(r, name), getattr(back, name))
    assert back.meta == r.meta
    assert back.scenario == r.scenario
    assert back.path == path


def test_same_seed_gives_byte_identical_parquet(tmp_path: Path, fake) -> None:
    a = _run(5).save(tmp_path / "a")
    b = _run(5).save(tmp_path / "b")
    c = _run(6).save(tmp_path / "c")
    for f in ("flows.parquet", "queues.parquet", "samples.parquet", "scenario.json"):
        assert (a / f).read_bytes() == (b / f).read_bytes(), f
    assert (a / "flows.parquet").read_bytes() != (c / "flows.parquet").read_bytes()
    fa, fc = dcnsim.load(a).flows, dcnsim.load(c).flows
    assert not fa[["size", "src", "dst", "start_s"]].equals(fc[["size", "src", "dst", "start_s"]])


def test_parquet_carries_no_wall_clock(tmp_path: Path, fake) -> None:
    r = _run()
    p = r.save(tmp_path / "a")
    r.meta["wall_s"] = 123.456
    q = r.save(tmp_path / "b")
    assert (p / "flows.parquet").read_bytes() == (q / "flows.parquet").read_bytes()
    assert b"pandas" not in (p / "flows.parquet").read_bytes()


def _crash_on_second_write(monkeypatch: pytest.MonkeyPatch) -> None:
    real = results_mod._write_parquet
    calls = {"n": 0}

    def flaky(table, path):
        calls["n"] += 1
        if calls["n"] == 2:
            raise OSError("disk full (simulated)")
        real(table, path)

    monkeypatch.setattr(results_mod, "_write_parquet", flaky)


def test_crash_mid_save_leaves_no_directory(
    tmp_path: Path, fake, monkeypatch: pytest.MonkeyPatch
) -> None:
    r = _run()
    _crash_on_second_write(monkeypatch)
    with pytest.raises(OSError, match="simulated"):
        r.save(tmp_path / "out")
    assert os.listdir(tmp_path) == []


def test_crash_mid_save_keeps_old_target(
    tmp_path: Path, fake, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = _run(1).save(tmp_path / "out")
    before = {f: (old / f).read_bytes() for f in FILES}
    r = _run(2)
    _crash_on_second_write(monkeypatch)
    with pytest.raises(OSError):
        r.save(tmp_path / "out")
    assert os.listdir(tmp_path) == ["out"]
    assert {f: (old / f).read_bytes() for f in FILES} == before


def test_save_replaces_existing_target(tmp_path: Path, fake) -> None:
    _run(1).save(tmp_path / "out")
    _run(2).save(tmp_path / "out")
    assert dcnsim.load(tmp_path / "out").meta["seed"] == 2
    assert os.listdir(tmp_path) == ["out"]


def test_interrupted_run_leaves_nothing(
    tmp_path: Path, fake, monkeypatch: pytest.MonkeyPatch
) -> None:
    def interrupted(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(fake, "run", interrupted)
    with pytest.raises(KeyboardInterrupt):
        dcnsim.run({}, progress=False).save(tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_load_rejects_incomplete_directory(tmp_path: Path, fake) -> None:
    p = _run().save(tmp_path / "out")
    (p / "meta.json").unlink()
    with pytest.raises(FileNotFoundError, match=r"meta\.json"):
        dcnsim.load(p)


def test_load_names_the_damaged_file(tmp_path: Path, fake) -> None:
    # A truncated Parquet file or a JSON file overwritten with text: a DamagedResultError
    # naming the file (it surfaced as pyarrow's ArrowInvalid, an internal error in the CLI)
    for name, damage in (
        ("flows.parquet", lambda b: b[: len(b) // 2]),
        ("meta.json", lambda b: b"{not json"),
    ):
        p = _run().save(tmp_path / name)
        f = p / name
        f.write_bytes(damage(f.read_bytes()))
        with pytest.raises(dcnsim.DamagedResultError) as e:
            dcnsim.load(p)
        assert e.value.path == str(f)
        assert str(f) in str(e.value) and "cannot be read back" in str(e.value)
        # the CLI: a keyed input error (exit 2), not an internal one
        assert cli.main(["plot", str(p)]) == 2


def test_clean_stale_temp_removes_dead_and_keeps_live(tmp_path: Path) -> None:
    import socket

    host = socket.gethostname()
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        (tmp_path / f".abc.tmp-{host}-{dead}-deadbeef").mkdir()
        (tmp_path / f".abc.tmp-{host}-{live.pid}-cafebabe").mkdir()
        (tmp_path / "abc").mkdir()
        assert clean_stale_temp(tmp_path) == 1
        assert sorted(os.listdir(tmp_path)) == sorted(
            ["abc", f".abc.tmp-{host}-{live.pid}-cafebabe"]
        )
    finally:
        live.kill()
        live.wait()


def test_save_never_replaces_a_foreign_directory(tmp_path: Path, fake) -> None:
    victim = tmp_path / "home"
    victim.mkdir()
    (victim / "thesis.tex").write_text("precious")
    with pytest.raises(FileExistsError):
        _run().save(victim)
    assert (victim / "thesis.tex").read_text() == "precious"
    (tmp_path / "empty").mkdir()
    _run().save(tmp_path / "empty")  # an empty directory is fine
    assert is_complete(tmp_path / "empty")
