"""ResQueue reproduction (issue 6), CI-sized: the quick grid of ``dcnsim.papers.resqueue``
(3 loads x 3 schemes, 2 incast degrees, 2 reserved sizes, 2 seeds; ~40 short runs).

Findings the reduced model reproduces are asserted; findings it does not reproduce are
``xfail(strict=True)`` with the measured values in the reason, so they show up in every run
and a change that makes them hold is noticed. The full reduced-scale grid is the slow test.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from dcnsim import papers


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    from dcnsim.papers import resqueue

    out = tmp_path_factory.mktemp("resq")
    df = resqueue.reproduce(out, quick=True, jobs=2, progress=False)
    return {"df": df, "f": resqueue.findings_by_id(df), "out": out}


def test_registered() -> None:
    assert "resqueue" in papers.available()
    mod = papers.get("resqueue")
    assert mod.TITLE.startswith("ResQueue")


def test_outputs_written(quick: dict[str, Any]) -> None:
    out: Path = quick["out"]
    for name in (
        "report.md",
        "results.csv",
        "fig2_tail_fct.png",
        "fig4_max_drops.png",
        "fig5_incast_degree.png",
        "fig6_reserved_buffer.png",
    ):
        assert (out / name).is_file(), name
    text = (out / "report.md").read_text()
    assert "| Fig2-speedup-p99.9 |" in text and "Why ours differs" in text


def test_resqueue_cuts_the_p999_tail_of_pias(quick: dict[str, Any]) -> None:
    # RESQ-Fig2: 1.6x over PIAS on average above 20 % load. (">2x at >= 60 %" holds for p99.9
    # in the 3-seed grid of the slow test, not reliably with 2 seeds at one high load: the
    # percentiles are RTO-quantized and flip between the 3 ms and 7 ms levels.)
    f = quick["f"]["Fig2-speedup-p99.9"]
    assert f["value"] >= 1.5, f["ours"]


def test_without_resqueue_packets_are_dropped_repeatedly_more_with_load(
    quick: dict[str, Any],
) -> None:
    # RESQ-Motiv / Fig4: max drops per packet grow with load for DCTCP and PIAS
    for k in ("Fig4-dctcp-max-drops", "Fig4-pias-max-drops"):
        assert quick["f"][k]["holds"], quick["f"][k]["ours"]


def test_repeatedly_dropped_short_flows_finish_after_3_ms(quick: dict[str, Any]) -> None:
    f = quick["f"]["Motiv-repeat-drop-fct"]
    assert f["holds"], f["ours"]


def test_resqueue_has_fewer_repeat_drops_of_short_packets(quick: dict[str, Any]) -> None:
    df = quick["df"]
    d = df[df["figure"] == "load"].set_index(["scheme", "load"])
    for x in (0.2, 0.5, 0.8):
        assert d.at[("resqueue", x), "max_drops_short"] <= d.at[("pias", x), "max_drops_short"]
    assert d.at[("resqueue", 0.5), "max_drops_short"] == 1


def test_incast_degree_normalized_fct_below_one(quick: dict[str, Any]) -> None:
    f = quick["f"]["Fig5-below-one"]
    assert f["holds"], f["ours"]


def test_reserved_buffer_zero_is_pias_and_20kb_helps(quick: dict[str, Any]) -> None:
    df = quick["df"]
    r = df[(df["figure"] == "reserve")]
    pias = float(r[r["scheme"] == "pias"]["p999_us"].iloc[0])
    rq = r[r["scheme"] == "resqueue"].set_index("reserve_kb")["p999_us"]
    # RESQ-Fig6: the dedicated bytes are what make the promotion work. "0 KB ≈ PIAS" is not
    # asserted at this size: the p99.9 of ~2 seeds sits on RTO steps (1/3/7 ms), and with 0 KB
    # it landed on 7 ms (= PIAS) under one event tie-breaking order and on 3.6 ms under
    # another. The slow full-grid run reports the ratio.
    assert rq.loc[20] / pias < 0.8, (rq.to_dict(), pias)
    assert rq.loc[20] < rq.loc[0], (rq.to_dict(), pias)


# ---- findings the reduced model does not reproduce (measured values in the reason) -------


def _xfail_unless(f: dict[str, Any]) -> None:
    if not f["holds"]:
        pytest.xfail(f"not reproduced: paper '{f['paper']}', ours {f['ours']}")


@pytest.mark.parametrize(
    "fid",
    [
        "Fig2-pias-beats-dctcp-p99",  # PIAS drops more than DCTCP with tail drop, no push-out
        "Fig2-order-p99.9",  # follows from the above
        "Fig4-resqueue-max-drops",  # synchronized retransmissions overflow the 20 KB
        "Fig3-throughput",  # large-flow goodput ~equal (1.00x), not 1.08x
    ],
)
def test_not_reproduced_findings_are_reported(quick: dict[str, Any], fid: str) -> None:
    f = quick["f"][fid]
    _xfail_unless(f)
    # if one of these starts holding, the report and this list must be updated
    raise AssertionError(f"{fid} now holds ({f['ours']}): update the xfail list and report")


@pytest.mark.slow
def test_full_reduced_reproduction(tmp_path: Path) -> None:
    from dcnsim.papers import resqueue

    df = resqueue.reproduce(tmp_path, jobs=2, progress=False)
    f = resqueue.findings_by_id(df)
    assert f["Fig2-speedup-p99.9"]["holds"], f["Fig2-speedup-p99.9"]["ours"]
    assert f["Fig2-high-load-p99.9"]["holds"], f["Fig2-high-load-p99.9"]["ours"]
    assert f["Fig5-average"]["holds"], f["Fig5-average"]["ours"]
    assert f["Fig6-sweet-spot"]["holds"], f["Fig6-sweet-spot"]["ours"]
