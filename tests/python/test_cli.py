from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import dcnsim
from dcnsim import _native, cli, papers


def run_cli(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "dcnsim", *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_run_prints_summary_and_saves(tmp_path: Path, fake, capsys) -> None:
    out = tmp_path / "res"
    rc = cli.main(["run", "--set", "topology.leaves=3", "--seed", "4", "-o", str(out)])
    assert rc == 0
    text = capsys.readouterr().out
    assert "(0,10KB]" in text and "p99" in text
    res = dcnsim.load(out)
    assert res.meta["seed"] == 4 and res.scenario["topology"]["leaves"] == 3


def test_unknown_key_exit_2_names_key_and_leaves_no_output(tmp_path: Path, fake, capsys) -> None:
    out = tmp_path / "res"
    rc = cli.main(["run", "--set", "topology.leavez=3", "-o", str(out)])
    err = capsys.readouterr().err
    assert rc == 2
    assert err.startswith("error: topology.leavez: ")
    assert "Traceback" not in err
    assert not out.exists() and os.listdir(tmp_path) == []


def test_missing_scenario_file_exit_2(tmp_path: Path, fake, capsys) -> None:
    rc = cli.main(["run", str(tmp_path / "missing.toml"), "-o", str(tmp_path / "o")])
    assert rc == 2
    assert "error: scenario: " in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_interrupt_exit_130_and_no_output(tmp_path: Path, fake, monkeypatch, capsys) -> None:
    def interrupted(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(fake, "run", interrupted)
    rc = cli.main(["run", "-o", str(tmp_path / "o")])
    assert rc == 130
    assert not (tmp_path / "o").exists()


def test_internal_error_exit_1_with_hint(tmp_path: Path, fake, monkeypatch, capsys) -> None:
    def broken(*a, **k):
        raise RuntimeError("simulated bug")

    monkeypatch.setattr(fake, "run", broken)
    rc = cli.main(["run", "-o", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert rc == 1 and "simulated bug" in err and "--debug" in err
    assert "Traceback" not in err
    rc = cli.main(["--debug", "run"])
    assert rc == 1 and "Traceback" in capsys.readouterr().err


def test_validate_many(tmp_path: Path, fake, capsys) -> None:
    good = tmp_path / "good.toml"
    good.write_text('name = "g"\n[topology]\nleaves = 3\n')
    bad = tmp_path / "bad.toml"
    bad.write_text("[topology]\nleaves = -1\n")
    assert cli.main(["validate", str(good)]) == 0
    assert "ok: " in capsys.readouterr().out
    assert cli.main(["validate", str(good), str(bad)]) == 2
    assert "topology.leaves" in capsys.readouterr().err
    assert cli.main(["validate", "--show", str(good)]) == 0
    assert "[topology]" in capsys.readouterr().out


def test_split_values_and_params() -> None:
    assert cli.split_values("1,2, 3") == ["1", "2", "3"]
    assert cli.split_values('[1,2],"a,b",x') == ["[1,2]", '"a,b"', "x"]
    assert cli.parse_param("a.b=0.1,0.2") == ("a.b", [0.1, 0.2])
    with pytest.raises(dcnsim.ConfigError):
        cli.parse_param("a.b=")


def test_sweep_cli_and_resume(tmp_path: Path, fake, capsys) -> None:
    sc = tmp_path / "s.toml"
    sc.write_text('name = "s"\n')
    args = [
        "sweep",
        str(sc),
        "--param",
        "topology.leaves=2,3",
        "--seeds",
        "2",
        "-j",
        "1",
        "-o",
        str(tmp_path / "sw"),
    ]
    assert cli.main(args) == 0
    assert "4/4 runs complete" in capsys.readouterr().err
    assert len(os.listdir(tmp_path / "sw" / "runs")) == 4
    assert cli.main([*args, "--collect"]) == 0
    assert cli.main([*args[:-2], "-o", str(tmp_path / "sw2"), "--shard", "0/2"]) == 0
    assert "2/4 runs complete" in capsys.readouterr().err
    assert cli.main([*args, "--shard", "2/2"]) == 2


def test_a_damaged_sweep_table_is_named_by_plot_and_report(tmp_path: Path, fake, capsys) -> None:
    sc = tmp_path / "s.toml"
    sc.write_text('name = "s"\n')
    out = tmp_path / "sw"
    assert cli.main(["sweep", str(sc), "--param", "topology.leaves=2,3", "-o", str(out), "-q"]) == 0
    t = out / "sweep.parquet"
    t.write_bytes(t.read_bytes()[:100])
    capsys.readouterr()
    # report was an internal error (pyarrow's ArrowInvalid), plot blamed --x
    for cmd in ("plot", "report"):
        assert cli.main([cmd, str(out)]) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: DIR: ") and "sweep.parquet cannot be read back" in err, err
    assert cli.main(["sweep", str(sc), "--param", "topology.leaves=2,3", "-o", str(out), "-q"]) == 0
    assert cli.main(["plot", str(out)]) == 0


def test_sweep_cli_rejects_bad_seed_lists_and_job_counts(tmp_path: Path, fake, capsys) -> None:
    sc = tmp_path / "s.toml"
    sc.write_text('name = "s"\n')
    out = tmp_path / "sw"
    args = ["sweep", str(sc), "--param", "topology.leaves=2", "-o", str(out)]
    # a seed that is not a whole number names --seed-list (it was an internal error)
    assert cli.main([*args, "--seed-list", "1,a"]) == 2
    assert "--seed-list" in capsys.readouterr().err
    assert not out.exists()
    # -j: a negative count is refused by name; 0 means all cores, as the default
    for bad in ("-2", "x"):
        with pytest.raises(SystemExit) as e:
            cli.main([*args, "-j", bad])
        assert e.value.code == 2
        assert "-j/--jobs" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli.main(["reproduce", "reflex", "-j", "-1"])
    assert "-j/--jobs" in capsys.readouterr().err
    assert cli.main([*args, "--seed-list", "3,4", "-j", "0", "-q"]) == 0
    assert sorted(pd.read_parquet(out / "sweep.parquet")["seed"]) == [3, 4]


def test_plot(tmp_path: Path, fake) -> None:
    dcnsim.run({"outputs": {"samples": True}}, progress=False).save(tmp_path / "r")
    assert cli.main(["plot", str(tmp_path / "r"), "--format", "svg"]) == 0
    names = sorted(os.listdir(tmp_path / "r" / "plots"))
    assert names == ["fct_cdf.svg", "fct_p99_by_size.svg", "queues.svg", "slowdown_p99_by_size.svg"]
    assert cli.main(["plot", str(tmp_path / "nope")]) == 2


def test_plot_and_report_check_their_output_first(tmp_path: Path, fake, capsys) -> None:
    # a file or an unwritable place as -o was an internal error (or blamed on DIR)
    run = dcnsim.run({"outputs": {"samples": True}}, progress=False).save(tmp_path / "r")
    f = tmp_path / "afile"
    f.write_text("x")
    for args in (
        ["plot", str(run), "-o", str(f)],
        ["report", str(run), "-o", str(f / "x.html")],
        ["report", str(run), "-o", str(tmp_path)],
    ):
        assert cli.main(args) == 2, args
        assert "error: --output: " in capsys.readouterr().err, args
    assert cli.main(["report", str(run), "-o", str(tmp_path / "new" / "r.html")]) == 0
    assert (tmp_path / "new" / "r.html").is_file()


def test_a_plot_appears_whole_or_not_at_all(tmp_path: Path, monkeypatch) -> None:
    from matplotlib.figure import Figure

    from dcnsim import plots

    target = tmp_path / "p.png"
    target.write_bytes(b"the previous plot")

    def crash(self, fname, **kw):  # half the file written, then the process dies
        Path(fname).write_bytes(b"\x89PNG half")
        raise KeyboardInterrupt

    monkeypatch.setattr(Figure, "savefig", crash)
    with pytest.raises(KeyboardInterrupt):
        plots.save(Figure(), target)
    assert target.read_bytes() == b"the previous plot"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.png"]  # no temporary left
    monkeypatch.undo()
    plots.save(Figure(), target)
    assert target.read_bytes()[:4] == b"\x89PNG"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.png"]


def test_reproduce_figure_subset_runs_only_those(tmp_path: Path, capsys) -> None:
    # REFLEX Fig 10b is a calculation (no simulation): the subset path end to end in seconds
    out = tmp_path / "sub"
    assert cli.main(["reproduce", "reflex", "--figure", "Fig10b", "-o", str(out), "-q"]) == 0
    md = (out / "report.md").read_text()
    assert "Only figure Fig10b was run (`--figure`), of 16." in md
    table = [ln for ln in md.splitlines() if ln.startswith("| Fig")]
    assert [ln.split("|")[1].strip() for ln in table] == ["Fig10b"]
    assert "Only figure Fig10b was run" in (out / "report.html").read_text()
    capsys.readouterr()
    # an unknown id names itself, lists the paper's figures and leaves nothing behind
    bad = tmp_path / "bad"
    assert cli.main(["reproduce", "reflex", "--figure", "Fig99,Fig2", "-o", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "--figure" in err and "'Fig99'" in err and "Fig10b" in err and "Fig17" in err
    assert not bad.exists()


def test_reproduce_checks_its_output_and_figure_list_first(tmp_path: Path, capsys) -> None:
    # a file as DIR was an internal error (FileExistsError) once the runs began; an empty
    # --figure list ran no figure and wrote an empty report
    f = tmp_path / "afile"
    f.write_text("x")
    assert cli.main(["reproduce", "reflex", "--figure", "Fig10b", "-o", str(f), "-q"]) == 2
    assert "--output" in capsys.readouterr().err
    inside = tmp_path / "afile" / "sub"
    assert cli.main(["reproduce", "reflex", "--figure", "Fig10b", "-o", str(inside), "-q"]) == 2
    assert "--output" in capsys.readouterr().err
    out = tmp_path / "r"
    assert cli.main(["reproduce", "reflex", "--figure", ",", "-o", str(out), "-q"]) == 2
    assert "--figure: no figure id" in capsys.readouterr().err
    assert not out.exists()


def test_reproduce_unknown_paper_lists_available(fake, capsys) -> None:
    assert cli.main(["reproduce", "nosuchpaper"]) == 2
    err = capsys.readouterr().err
    assert "nosuchpaper" in err
    assert (
        ("none registered" in err)
        if not papers.available()
        else all(p in err for p in papers.available())
    )


def test_cdfs(fake, capsys) -> None:
    assert cli.main(["cdfs"]) == 0
    assert capsys.readouterr().out.split() == fake.builtin_cdfs()


def test_subprocess_run_and_bench(tmp_path: Path, fake_env) -> None:
    (tmp_path / "fake.toml").write_text('name = "fake"\n')
    p = run_cli(["run", "fake.toml", "-o", "out", "--quiet"], fake_env, tmp_path)
    assert p.returncode == 0, p.stderr
    assert dcnsim.results.is_complete(tmp_path / "out")
    p = run_cli(["run", "fake.toml", "--set", "classes[0].workload.load=7"], fake_env, tmp_path)
    assert p.returncode == 2 and "classes[0].workload.load" in p.stderr
    p = run_cli(["bench", "--json", "tiny"], fake_env, tmp_path)
    assert p.returncode == 0, p.stderr
    (b,) = json.loads(p.stdout)
    assert b["name"] == "tiny" and b["peak_rss_mb"] > 0 and b["events_per_s"] > 0
    p = run_cli(["bench", "nosuch"], fake_env, tmp_path)
    assert p.returncode == 2


def test_native_error_mapping_keeps_other_errors(fake, monkeypatch) -> None:
    def broken(*a, **k):
        raise TypeError("x")

    monkeypatch.setattr(fake, "validate", broken)
    with pytest.raises(TypeError):
        _native.validate({})


def test_plots_are_reproducible(tmp_path: Path, fake) -> None:
    from dcnsim import plots

    r = dcnsim.run({"outputs": {"samples": True}}, progress=False)
    for fmt in ("svg", "png"):
        a = plots.plot_all(r, tmp_path / "a", fmt)
        b = plots.plot_all(r, tmp_path / "b", fmt)
        for pa, pb in zip(a, b, strict=True):
            assert pa.read_bytes() == pb.read_bytes(), pa.name


def test_run_refuses_foreign_output_dir_before_running(tmp_path: Path, fake, capsys) -> None:
    (tmp_path / "keep.txt").write_text("x")
    assert cli.main(["run", "-o", str(tmp_path)]) == 2
    assert "not a dcnsim result directory" in capsys.readouterr().err
    assert os.listdir(tmp_path) == ["keep.txt"]


def test_scenarios_print_a_one_line_description(capsys) -> None:
    from dcnsim import config

    assert cli.main(["scenarios"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [ln.split()[0] for ln in lines] == config.shipped_scenarios()
    default = next(ln for ln in lines if ln.startswith("default "))
    assert "leaf" in default and "\n" not in default
    # "et al." does not end the sentence
    assert config.scenario_description("lpf_hybrid").count("§") >= 1


def test_reproduce_help_lists_papers_times_and_output(capsys) -> None:
    from dcnsim import papers

    with pytest.raises(SystemExit):
        cli.main(["reproduce", "--help"])
    out = capsys.readouterr().out
    for name in papers.available():
        assert f"  {name}: " in out
    assert "min" in out and "reproduce-PAPER" in out and "report.html" in out
