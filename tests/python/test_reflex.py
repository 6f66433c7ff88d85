"""REFLEX (issue 14): flexible flows in the packet simulator, the paper's two-flow cases and
partial delivery, and the reproduction's verdicts.

Algorithms 1 and 2 on scripted inputs are Rust unit tests (crates/dcnsim/src/scheme/reflex.rs);
here the mechanism runs end to end. Every number is checked against a band from physics: the
fluid calculation × the goodput fraction 1380/1434 of the REFLEX-BASE wire, ± a few percent
for partial cycles and DCTCP's reaction to queue switches.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import dcnsim
from dcnsim import ConfigError, papers
from dcnsim.papers import reflex as R
from dcnsim.papers.framework import HOLDS, Finding

pytestmark = pytest.mark.usefixtures("real_core")

GP = R.GOODPUT  # 1380 / 1434


def _run(ov: dict) -> dcnsim.Results:
    return dcnsim.run(R.PRESET, set=ov, progress=False)


def test_registered_and_calculated() -> None:
    assert "reflex" in papers.available()
    assert R.calc_rates(1, "reflex")["regular"] == pytest.approx(7.4)
    assert R.calc_rates(2, "reflex")["flexible"] == pytest.approx(4.5)
    assert R.calc_rates(2, "absolute") == {"flexible": 0.0, "regular": 10.0}
    assert R.calc_rates(1, "w9:1") == pytest.approx({"flexible": 1.0, "regular": 9.0})


def test_case1_regular_gets_7_4_under_reflex() -> None:
    """Fig 3/4 Case 1: the flexible flow built budget alone for 2 s; during competition it is
    LOW in exploit phases (60 %), so the regular flow averages 0.6·9 + 0.4·5 = 7.4 Gb/s of
    line rate, × 0.962 in goodput. Without REFLEX (no prioritization) it gets the fair 5."""
    res = _run(R.case_overrides(1, "reflex", duration="2.5s", trace="1ms"))
    rates = R.competition_rates(res)
    assert rates["regular"] / (7.4 * GP) == pytest.approx(1.0, abs=0.05), rates
    flex = res.flows[res.flows["class"] == "flexible"].iloc[0]
    assert flex.reflex_low > 0 and flex.alpha == 0.9
    # LOW only in exploit intervals: at most 3 of every 5 intervals.
    assert flex.reflex_low <= 0.6 * flex.reflex_intervals + 3
    base = R.competition_rates(_run(R.case_overrides(1, "none", duration="2.5s", trace="1ms")))
    assert base["regular"] / (5 * GP) == pytest.approx(1.0, abs=0.05), base


def test_case2_flexible_keeps_alpha_share_unlike_absolute() -> None:
    """Case 2: a flexible flow arriving while a regular one runs keeps α = 0.9 of its fair
    share on average (≈ 4.5 Gb/s × 0.962: no starvation); under absolute priority it gets
    nothing until the regular flow is done."""
    rates = R.competition_rates(_run(R.case_overrides(2, "reflex", duration="3s", trace="1ms")))
    assert rates["flexible"] / (4.5 * GP) == pytest.approx(1.0, abs=0.08), rates
    absolute = _run(R.case_overrides(2, "absolute", duration="2.5s", trace="1ms"))
    ab = R.competition_rates(absolute)
    assert ab["flexible"] < 0.1 and ab["regular"] / (10 * GP) == pytest.approx(1, abs=0.02), ab


def test_partial_delivery_floor_and_never_below_r() -> None:
    """Fig 6: 8 Gbit flexible (α = 1) vs 8 Gbit regular. While both run, B_r drains at
    0.6·(5 − 1) Gb/s for ≈ 1.12 s: ≈ 0.34 of the flexible flow is given up, so the delivered
    fraction bottoms out near 0.66 for any r below that and is just above r above it."""
    got = {}
    for r in (0.0, 0.4, 0.8, 1.0):
        f = _run(R.fig6_overrides(r)).flows
        fl = f[f["class"] == "flexible"].iloc[0]
        assert fl.completed and fl.reliability == r
        got[r] = float(fl.delivered)
        assert got[r] >= r - 1e-9, (r, got[r])
    assert got[1.0] == 1.0
    assert 0.55 <= got[0.0] <= 0.75, got
    assert abs(got[0.0] - got[0.4]) < 0.05, got  # flat below the floor
    assert got[0.0] < got[0.8] < 1.0, got  # falls with r
    # Above the floor B_r is spent down to about the potential loss of one LOW exploit phase
    # (L = α·R_fair·3·T_int ≈ 9 MB ≈ 0.01 of the flow; a negative B_α adds to the margin,
    # since the flow goes LOW only while B_α + B_r > L): delivered is r plus a few L.
    assert 0.8 <= got[0.8] <= 0.85, got


def test_first_low_follows_the_cycle_timeline() -> None:
    """A flow alone from t = 0 syncs at the first cycle start (25 ms), measures in 30–35 ms,
    then earns (1 − α)·R_fair until its budget covers α·R_fair·3·T_int (135 ms at α = 0.9),
    checked only at measure→exploit boundaries: first LOW at 185 ms (the paper's ≈ 175 ms)."""
    r = _run(R.case_overrides(1, "reflex", duration="0.3s", trace="1ms"))
    assert R.budget_time_calc(0.9, 3) == pytest.approx(0.185)
    assert R.first_low(r) == pytest.approx(0.185, abs=0.0011)
    tr = r.traces[r.traces.flow_id == 0]
    assert tr[tr.t_s < 0.034].r_fair_bps.isna().all()
    est = tr[tr.t_s > 0.036].r_fair_bps
    assert (est / (10e9 * GP)).between(0.95, 1.01).all()
    # LOW only in exploit intervals (interval k mod 5 >= 2); samples exactly at a boundary
    # may see either side of it.
    k = tr.t_s / 0.005
    inside = (k - k.round()).abs() > 1e-6
    low = tr[tr.reflex_low & inside]
    assert len(low) > 0 and (k[low.index].astype(int) % 5 >= 2).all()


def test_fig10b_exploit_size_needed_per_alpha() -> None:
    """Fig 10b (calculation): the spendable fraction D/(2 + D)·(1 − 1/5) of Fig 10a must reach
    the freedom 1 − α, so D ≥ 2(1 − α)/(α − 1/5) (LOW gets 1/5 of the fair share under DRR
    9:1). At the default D_exploit 3 (48 %) the first α/r on the 0.1 grid that can spend all
    of it is 0.6 (continuous bound 0.52); at or below 1/5 no exploit size suffices."""
    need = {a: R.exploit_needed(a) for a in R.FIG10B_FACTORS}
    assert need == {
        0.0: None,
        0.1: None,
        0.2: None,
        0.3: 14,
        0.4: 6,
        0.5: 4,
        0.6: 2,
        0.7: 2,
        0.8: 1,
        0.9: 1,
        1.0: 0,
    }
    # The needed size spends the whole freedom and one less does not (Fig 10a's formula).
    for a, d in need.items():
        if d:
            assert R.spendable_fraction(d) >= 1 - a - 1e-9
            assert d == 1 or R.spendable_fraction(d - 1) < 1 - a
    assert min(a for a, d in need.items() if d is not None and d <= 3) == 0.6
    fig = next(f for f in R.FIGURES if f.id == "Fig10b")
    fd = Finding(fig.id, fig.claim, fig.rule)
    fig.evaluate(None, fd)  # type: ignore[arg-type]  # a calculation: no runs read
    assert fd.verdict == HOLDS, (fd.ours, fd.note)
    assert fd.stats["threshold_de3"].est == pytest.approx(0.6)
    assert fd.stats["continuous_threshold_de3"].est == pytest.approx(0.52)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    _, ax = plt.subplots()
    assert fd.plot is not None
    fd.plot(ax)
    plt.close("all")


def test_flow_list_overrides_and_errors_name_the_key() -> None:
    ov = R.fig6_overrides(1.0)
    ov["classes"][0]["workload"]["list"][0]["reliability"] = 0.5
    f = _run({**ov, "run.duration": "0.05s", "run.horizon": "0.05s"}).flows
    assert f[f["class"] == "flexible"].iloc[0].reliability == 0.5
    bad = R.fig6_overrides(1.0)
    bad["classes"][0]["reliability"] = 1.5
    with pytest.raises(ConfigError, match=r"classes\[0\]\.reliability"):
        dcnsim.validate(R.PRESET, set=bad)
    bad = R.fig6_overrides(1.0)
    bad["classes"][0]["workload"]["list"][0]["alpha"] = -1
    with pytest.raises(ConfigError, match=r"list\[0\]\.alpha"):
        dcnsim.validate(R.PRESET, set=bad)
    # A flexible flow without the scheme, and r < 1 without a finite alpha.
    bad = R.case_overrides(1, "reflex")
    bad["scheme"] = {"kind": "none"}
    with pytest.raises(ConfigError, match=r"classes\[0\]\.alpha.*reflex"):
        dcnsim.validate(R.PRESET, set=bad)
    bad = R.case_overrides(1, "none")
    bad["classes"][0]["reliability"] = 0.5
    bad["scheme"] = {"kind": "reflex"}
    # (alpha is not written, so the error names the reliability the user did write)
    with pytest.raises(ConfigError, match=r"classes\[0\]\.reliability.*missing key `alpha`"):
        dcnsim.validate(R.PRESET, set=bad)
    # REFLEX runs in the TCP sender: a flexible flow on a RoCE transport is an error.
    bad = R.case_overrides(1, "reflex")
    bad["classes"][0]["transport"] = "dcqcn"
    with pytest.raises(ConfigError, match=r"classes\[0\]\.alpha.*TCP-family"):
        dcnsim.validate(R.PRESET, set=bad)
    with pytest.raises(ConfigError, match=r"scheme\.low_priority"):
        dcnsim.validate(R.PRESET, set={"scheme.low_priority": 2})


def test_csv_columns_set_alpha_and_reliability(tmp_path: Path) -> None:
    csv = tmp_path / "flows.csv"
    csv.write_text("src,dst,size,start,class,alpha,reliability\n0,2,1000000,0,0,0.5,0.7\n")
    ov = R.case_overrides(1, "reflex", duration="0.01s")
    ov["classes"][0]["workload"] = {"kind": "flows", "csv": str(csv)}
    f = _run(ov).flows
    fl = f[f["class"] == "flexible"].iloc[0]
    assert (fl.alpha, fl.reliability) == (0.5, 0.7)


def test_regular_flows_never_run_reflex() -> None:
    f = _run(R.case_overrides(1, "reflex", duration="0.1s")).flows
    reg = f[f["class"] == "regular"]
    assert (reg.reflex_intervals == 0).all() and (reg.alpha == float("inf")).all()
    # The scheme without any flexible flow says so.
    res = _run({**R.case_overrides(1, "none", duration="0.01s"), "scheme": {"kind": "reflex"}})
    assert any("reflex" in w and "no effect" in w for w in res.meta["warnings"])


@pytest.mark.slow
def test_reduced_reproduction(tmp_path: Path) -> None:
    """The reduced scale end to end (≈ 6 min on two cores); asserts the verdicts it decides
    with margin. Fig 7 (2 ms interval) does not hold and Fig 14's flexible-mean comparison is
    inconclusive at one seed: see report.md."""
    fs = R.by_id(R.reproduce(tmp_path, jobs=2, progress=False))
    for k in ("Fig2", "Fig3", "Fig4", "Fig5", "Fig6", "Fig8", "Fig9-10", "Fig11", "Fig12"):
        assert fs[k].verdict == "holds", (k, fs[k].ours, fs[k].note)
    for k in ("Fig10b", "Fig13", "Fig15", "Fig16", "Fig17"):
        assert fs[k].verdict == "holds", (k, fs[k].ours, fs[k].note)
    assert (tmp_path / "report.md").is_file()
