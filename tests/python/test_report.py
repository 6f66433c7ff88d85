"""HTML reports of a run and a sweep: self-contained, and shown by headless Chromium with
every figure decoded and no console error (the reproduction report: test_resqueue.py and
test_report_of_a_reproduction below)."""

from __future__ import annotations

import base64
import importlib
import re
from pathlib import Path

import pytest

import dcnsim
from chromium_check import render
from dcnsim import cli, report
from dcnsim.papers import framework as fw

sw = importlib.import_module("dcnsim.sweep")


def _self_contained(text: str) -> None:
    # nothing fetched from anywhere: every src/href is a data: URL (or an in-page anchor)
    for url in re.findall(r'(?:src|href)="([^"]*)"', text):
        assert url.startswith("data:") or url.startswith("#"), url


def test_run_report(tmp_path: Path, fake) -> None:
    r = dcnsim.run({}, progress=False, set={"outputs.samples": True})
    r.meta["warnings"] = ["run.horizon: stopped with 3 unfinished flows"]
    r.save(tmp_path / "r")
    assert cli.main(["report", str(tmp_path / "r")]) == 0
    path = tmp_path / "r" / "report.html"
    text = path.read_text()
    _self_contained(text)
    for must in ("Run facts", "seed", "(0,10KB]", "stopped with 3 unfinished flows", "[topology]"):
        assert must in text, must
    assert text.count("data:image/png;base64,") == 4  # CDF, 2 percentile bars, queues
    shown = render(path)
    assert shown.console == []
    assert shown.loaded == shown.total == 4


def test_sweep_report(tmp_path: Path, fake) -> None:
    params = {"classes[0].workload.load": [0.2, 0.8], "topology.leaves": [2, 3]}
    sw.sweep({}, params, seeds=2, jobs=1, out_dir=tmp_path / "sw", progress=False)
    out = tmp_path / "elsewhere" / "sweep.html"
    assert cli.main(["report", str(tmp_path / "sw"), "-o", str(out)]) == 0
    text = out.read_text()
    _self_contained(text)
    assert "Mean over seeds with 95% interval" in text and "swept topology.leaves" in text
    n_figs = text.count("data:image/png;base64,")
    assert n_figs >= 3  # overview, p99 and p50 slowdown by size
    shown = render(out)
    assert shown.console == []
    assert shown.loaded == shown.total == n_figs


def test_report_of_a_reproduction(tmp_path: Path, fake) -> None:
    """The framework's HTML renderer (every paper uses it) on a one-figure reproduction."""

    def plan(ctx: fw.Ctx) -> None:
        for s in ctx.seeds:
            ctx.add(("a", s), {}, {"topology.leaves": 2}, s)

    def evaluate(ctx: fw.Ctx, f: fw.Finding) -> None:
        runs = ctx.seeds_of("a")
        iv = fw.bootstrap(lambda v: float(v.mean()), fw.per_seed([r.flows for r in runs], "size"))
        f.ours = str(iv)
        f.verdict = fw.band(iv, 0, 1e12)
        ctx.point("a", runs, sum(len(r.flows) for r in runs))
        f.plot = lambda ax: fw.bars(ax, ["a"], {"mean size": [iv]}, xlabel="x", ylabel="B")

    repro = fw.Reproduction(
        key="toy",
        title="Toy paper <one figure>",
        figures=[fw.Figure("Fig1", "sizes are positive", "mean in (0, 1e12)", [plan], evaluate)],
        scales={"reduced": fw.Scale("reduced", seeds=(1, 2))},
        preamble="What this reproduces & why.",
    )
    fs = repro.reproduce(tmp_path, progress=False)
    assert fs[0].verdict == fw.HOLDS
    text = (tmp_path / "report.html").read_text()
    assert (tmp_path / "report.md").is_file()
    _self_contained(text)
    assert "Toy paper &lt;one figure&gt;" in text and "Paper vs ours" in text
    assert 'class="l holds"' in text and "sizes are positive" in text
    assert "runs of scenario default" in text and "[topology]" in text  # the scenario
    shown = render(tmp_path / "report.html")
    assert shown.console == []
    assert shown.loaded == shown.total == 1


def test_checker_catches_a_broken_figure(tmp_path: Path) -> None:
    """The browser check fails when a figure does not decode (so it is not vacuous)."""
    good = report.png_data(base64.b64decode(_PIXEL), "good")
    bad = report.png_data(b"not a png", "bad")
    path = report.write(tmp_path / "x.html", report.page("t", [good, bad]))
    shown = render(path)
    assert (shown.loaded, shown.total) == (1, 2)
    assert any("figure bad did not load" in ln for ln in shown.console)


def test_report_of_something_else_is_bad_input(tmp_path: Path, fake, capsys) -> None:
    (tmp_path / "d").mkdir()
    assert cli.main(["report", str(tmp_path / "d")]) == 2
    assert "neither a saved run" in capsys.readouterr().err


_PIXEL = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGA"
    "hKmMIQAAAABJRU5ErkJggg=="
)


@pytest.fixture(autouse=True)
def _agg_backend() -> None:
    import matplotlib

    matplotlib.use("Agg")


def test_results_and_sweep_tables_render_as_html_in_jupyter(tmp_path: Path, fake) -> None:
    r = dcnsim.run({}, seed=3, progress=False)
    r.meta["warnings"] = ["x.y: <no effect>"]
    frag = r._repr_html_()
    assert frag.startswith("<div>") and "<table" in frag and "(0,10KB]" in frag
    assert "seed 3" in frag and "x.y: &lt;no effect&gt;" in frag  # escaped
    df = dcnsim.sweep({}, {"topology.leaves": [2, 3]}, seeds=2, jobs=1, out_dir=tmp_path,
                      progress=False)  # fmt: skip
    assert "<table" in df._repr_html_()
    assert "fct_p99_s_lo" in sw.aggregate(df)._repr_html_()


def test_real_run_and_sweep_reports_in_chromium(tmp_path: Path, real_core) -> None:
    short = {
        "run.duration": "3ms",
        "run.warmup": "1ms",
        "run.cooldown": "1ms",
        "output.queue_sample_interval": "50us",
    }
    dcnsim.run(None, set=short, progress=False).save(tmp_path / "r")
    assert cli.main(["report", str(tmp_path / "r")]) == 0
    shown = render(tmp_path / "r" / "report.html")
    # FCT CDF, p99 slowdown and FCT by size, queues, utilization + class goodput
    assert shown.console == [] and shown.loaded == shown.total == 5
    sw.sweep(None, {"classes[0].workload.load": [0.2, 0.5]}, seeds=2, jobs=2, set=short,
             out_dir=tmp_path / "sw", progress=False)  # fmt: skip
    assert cli.main(["report", str(tmp_path / "sw")]) == 0
    shown = render(tmp_path / "sw" / "report.html")
    # overview, p99/p50 slowdown by size and by class (the default has two classes)
    assert shown.console == [] and shown.loaded == shown.total == 5


def test_write_is_whole_or_nothing(tmp_path: Path, monkeypatch) -> None:
    target = tmp_path / "r.md"
    target.write_text("previous")
    real = Path.write_text

    def crash(self, data, *a, **kw):  # half the text written, then the process dies
        real(self, data[:3], *a, **kw)
        raise KeyboardInterrupt

    monkeypatch.setattr(Path, "write_text", crash)
    with pytest.raises(KeyboardInterrupt):
        report.write(target, "the new report")
    monkeypatch.undo()
    assert target.read_text() == "previous"
    assert [p.name for p in tmp_path.iterdir()] == ["r.md"]  # no temporary left
