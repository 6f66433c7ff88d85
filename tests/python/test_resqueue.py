"""ResQueue reproduction: scheme and workload construction, and what a CI-sized run decides.

The verdict of every finding is in ``dcnsim reproduce resqueue`` → report.md (and the full
reduced-scale run is the slow test).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from dcnsim import config, papers
from dcnsim.papers import resqueue
from dcnsim.papers.framework import Scale

pytestmark = pytest.mark.usefixtures("real_core")

#: two loads, one seed, short runs: enough to see drops grow with load
CI = Scale(
    "ci",
    seeds=(1,),
    params={**resqueue.QUICK.params, "loads": (0.2, 0.8), "duration": "8ms"},
)


def test_registered() -> None:
    assert "resqueue" in papers.available()
    assert papers.get("resqueue").TITLE.startswith("ResQueue")
    assert len(resqueue.COUNTED) == 16


def test_reservation_semantics() -> None:
    cap = config.prepare("resqueue", overrides=resqueue.scheme_set("resqueue", 15)).normalized
    assert cap["switch"]["reserved"][0] == "15KB"
    assert cap["switch"]["queue_limit"][0] == "15KB"  # queue 0 is its reservation
    extra = config.prepare(
        "resqueue", overrides=resqueue.scheme_set("resqueue", 15, "extra")
    ).normalized
    assert extra["switch"]["reserved"][0] == "15KB"
    assert extra["switch"]["queue_limit"][0] == "1000000pkt"  # reservation on top
    pias = config.prepare("resqueue", overrides=resqueue.scheme_set("pias")).normalized
    assert pias["switch"]["reserved"] == ["0B"] * 8
    assert pias["switch"]["queue_limit"] == ["1000000pkt"] * 8


def test_seeds_needed_tells_a_threshold_tie_from_a_seed_shortage() -> None:
    # per-seed ratios scattered around the threshold: more seeds converge on it, never decide
    assert "would not decide" in resqueue.seeds_needed([0.97, 1.03, 1.01], 1.0)
    # clearly above it but noisy: a finite number of seeds decides (2·sd/|m−thr| squared)
    msg = resqueue.seeds_needed([0.9, 1.3, 1.1], 0.9)
    assert "seeds would decide" in msg and int(msg.split("≈ ")[1].split()[0]) >= 3
    assert "one side" in resqueue.seeds_needed([1.2, 1.25, 1.22], 1.0)
    assert "too few" in resqueue.seeds_needed([1.2], 1.0)


def test_frontends_spread_and_load_split() -> None:
    fes = resqueue.frontends(56, 7)
    assert fes == resqueue.frontends(56, 7) and len(set(fes)) == 7
    cl = resqueue.classes(0.6, 32, fes, 280.0)
    assert len(cl) == 1 + 2 * 7
    assert {c["workload"]["receiver"] for c in cl[1:]} == set(fes)
    # the fabric is offered `load` in total: 1 MB flows take what the incasts leave
    large = cl[0]["workload"]["load"]
    assert abs(large * 280 + 7 * 0.6 * 10 - 0.6 * 280) < 1e-9


@pytest.fixture(scope="module")
def ci(tmp_path_factory: pytest.TempPathFactory) -> dict:
    out = tmp_path_factory.mktemp("resq")
    ids = ["Fig4-dctcp-max-drops", "Fig4-pias-max-drops", "Fig4-resqueue-max-drops"]
    fs = resqueue.REPRO.run(out, CI, ids, jobs=2)
    resqueue.REPRO.write_report(out, fs, CI, None)
    return {"f": resqueue.by_id(fs), "out": out}


def test_drops_per_packet_grow_with_load_without_resqueue(ci: dict) -> None:
    for k in ("Fig4-dctcp-max-drops", "Fig4-pias-max-drops"):
        ours = ci["f"][k].ours
        lo, hi = (int(p.split()[-1]) for p in ours.split(", "))
        assert hi > lo, ours


def test_resqueue_miss_is_explained_by_the_ablation(ci: dict) -> None:
    """A ResQueue max-drops miss carries the ablation's numbers (each variant's max drops)."""
    fd = ci["f"]["Fig4-resqueue-max-drops"]
    if fd.verdict != "holds":
        for lab in resqueue.ABLATIONS:
            assert f"{lab} " in fd.note, fd.note
        assert "max drops of a short-flow packet: PIAS" in fd.note


def test_report_written(ci: dict) -> None:
    text = (ci["out"] / "report.md").read_text()
    assert "| Fig4-pias-max-drops |" in text and "## Points" in text
    assert (ci["out"] / "figures" / "Fig4-pias-max-drops.png").is_file()


def test_html_report_shows_every_figure_in_chromium(ci: dict) -> None:
    from chromium_check import render

    text = (ci["out"] / "report.html").read_text()
    assert "Paper vs ours" in text and "Fig4-pias-max-drops" in text
    shown = render(ci["out"] / "report.html")
    assert shown.console == []
    assert shown.total == len(list((ci["out"] / "figures").glob("*.png"))) > 0
    assert shown.loaded == shown.total


@pytest.mark.slow
def test_reduced_reproduction(tmp_path: Path) -> None:
    """The reduced scale end to end (≈ 5 min on two cores). Asserts the verdicts it decides
    the same way every time: without ResQueue the worst short-flow packet is dropped more
    often as load grows (up to 4-5 times). The others miss or are inconclusive: report.md."""
    fs = resqueue.by_id(resqueue.reproduce(tmp_path, jobs=2, progress=False))
    for k in ("Fig4-dctcp-max-drops", "Fig4-pias-max-drops"):
        assert fs[k].verdict == "holds", fs[k].ours
    assert fs["Fig4-resqueue-max-drops"].verdict == "no", fs["Fig4-resqueue-max-drops"].ours
    assert (tmp_path / "report.md").is_file()
