"""Sweep tables aggregated over seeds, sweep plots, self-explaining run plots, and
``analysis.normalize`` refusing different workloads."""

from __future__ import annotations

import importlib
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dcnsim import analysis, cli, plots

sw = importlib.import_module("dcnsim.sweep")

PARAMS = {"classes[0].workload.load": [0.2, 0.8], "topology.leaves": [2, 3]}


@pytest.mark.parametrize(
    ("level", "dof", "expected"),
    [(0.95, 1, 12.7062), (0.95, 2, 4.3027), (0.95, 4, 2.7764), (0.95, 10, 2.2281),
     (0.99, 5, 4.0321), (0.95, 1000, 1.9623)],
)  # fmt: skip
def test_t_critical_matches_tables(level: float, dof: int, expected: float) -> None:
    assert analysis.t_critical(level, dof) == pytest.approx(expected, abs=1e-4)


def test_mean_ci_is_the_student_t_interval() -> None:
    v = [1.0, 2.0, 4.0, math.nan]
    n, m, lo, hi = analysis.mean_ci(v)
    s = np.std([1.0, 2.0, 4.0], ddof=1)
    half = 4.3027 * s / math.sqrt(3)
    assert n == 3 and m == pytest.approx(7 / 3)
    assert (lo, hi) == (pytest.approx(m - half, rel=1e-4), pytest.approx(m + half, rel=1e-4))
    assert math.isnan(analysis.mean_ci([3.0])[2])  # one seed: no interval
    assert analysis.mean_ci([])[0] == 0


def test_aggregate_over_seeds(tmp_path: Path, fake) -> None:
    df = sw.sweep({}, PARAMS, seeds=3, jobs=1, out_dir=tmp_path, progress=False)
    agg = sw.aggregate(df)
    assert sw.param_columns(agg) == list(PARAMS)
    assert len(agg) == 4 and list(agg["seeds"]) == [3] * 4
    # point order is the run list's, and the means are the per-seed means
    first = df[(df["classes[0].workload.load"] == 0.2) & (df["topology.leaves"] == 2)]
    assert agg.loc[0, "fct_p99_s"] == pytest.approx(first["fct_p99_s"].mean())
    _n, _m, lo, hi = analysis.mean_ci(first["fct_p99_s"])
    assert (agg.loc[0, "fct_p99_s_lo"], agg.loc[0, "fct_p99_s_hi"]) == (lo, hi)
    assert (agg["fct_p99_s_lo"] <= agg["fct_p99_s"]).all()
    assert (agg["fct_p99_s"] <= agg["fct_p99_s_hi"]).all()
    # deterministic, and written beside sweep.parquet
    pd.testing.assert_frame_equal(agg, sw.aggregate(df))
    on_disk = pd.read_parquet(tmp_path / "sweep_agg.parquet")
    pd.testing.assert_frame_equal(
        on_disk.drop(columns=[c for c in on_disk if c.startswith("wall_s")]),
        agg.drop(columns=[c for c in agg if c.startswith("wall_s")]),
        check_dtype=False,
    )
    # per size bucket: slowdown percentiles and flow counts
    assert any(c.startswith("slowdown_p99[") for c in agg)
    assert any(c.startswith("flows[") for c in agg)


def test_aggregate_skips_runs_not_done() -> None:
    df = pd.DataFrame(
        {
            "x": [1, 1, 1, 2],
            "seed": [1, 2, 3, 1],
            "done": [True, True, False, False],
            "m": [1.0, 3.0, math.nan, math.nan],
        }
    )
    agg = sw.aggregate(df)
    assert list(agg["seeds"]) == [2, 0] and list(agg["runs"]) == [3, 1]
    assert agg.loc[0, "m"] == 2.0 and math.isnan(agg.loc[1, "m"])


def test_plot_sweep_dir(tmp_path: Path, fake, capsys) -> None:
    sw.sweep({}, PARAMS, seeds=2, jobs=1, out_dir=tmp_path / "sw", progress=False)
    assert cli.main(["plot", str(tmp_path / "sw")]) == 0
    names = sorted(p.name for p in (tmp_path / "sw" / "plots").iterdir())
    assert "sweep_overview.png" in names and "sweep_slowdown_p99_by_size.png" in names
    assert cli.main(["plot", str(tmp_path / "sw"), "--x", "nope"]) == 2
    assert "--x" in capsys.readouterr().err
    # the figure: one panel per bucket, error bars, one line per other parameter value
    agg = sw.aggregate(pd.read_parquet(tmp_path / "sw" / "sweep.parquet"))
    cols = plots.sweep_families(list(agg.columns))["slowdown_p99_by_size"]
    fig = plots.sweep_metric(agg, cols)
    axes = [a for a in fig.axes if a.get_visible()]
    assert len(axes) == len(cols) == 4
    assert all(a.get_xlabel() == "classes[0].workload.load" for a in axes)
    assert len(axes[0].containers) == 2  # errorbar containers: leaves=2 and leaves=3
    assert "completed flows/run" in axes[0].get_title()


def test_run_plot_titles_name_scenario_seed_transport_and_load(fake) -> None:
    import dcnsim

    r = dcnsim.run({}, seed=4, progress=False)
    fig = plots.fct_cdf(r)
    title = fig.axes[0].get_title()
    assert "default" in title and "seed 4" in title and "dctcp" in title and "load 0.5" in title
    labels = fig.axes[0].get_legend_handles_labels()[1]
    assert "flows" in labels[0]  # the number of completed flows
    bars = plots.percentile_bars(r)
    texts = [t.get_text() for t in bars.axes[0].texts]
    assert any(t.startswith("n=") for t in texts)


def test_plots_say_so_when_nothing_completed(fake) -> None:
    import dcnsim

    r = dcnsim.run({}, progress=False)
    r.flows["completed"] = False
    r.flows["fct_s"] = math.nan
    r.flows["slowdown"] = math.nan
    for fig in (plots.fct_cdf(r), plots.percentile_bars(r)):
        texts = " ".join(t.get_text() for t in fig.axes[0].texts)
        assert "no flow completed" in texts


def test_log_axis_only_when_values_span_decades(fake) -> None:
    import dcnsim

    r = dcnsim.run({}, progress=False)
    fig = plots.fct_cdf(r)  # sizes 1 KB ... 3 MB: FCTs span decades
    assert fig.axes[0].get_xscale() == "log"
    r.flows["fct_s"] = np.where(r.flows["completed"], 1e-3 + 1e-5 * np.arange(len(r.flows)), np.nan)
    assert plots.fct_cdf(r).axes[0].get_xscale() == "linear"


def test_many_runs_get_a_legend_outside(fake) -> None:
    import dcnsim

    runs = {f"run {i}": dcnsim.run({}, seed=i, progress=False) for i in range(1, 9)}
    fig = plots.fct_cdf(runs)
    leg = fig.axes[0].get_legend()
    assert leg is not None and len(leg.get_texts()) == 8
    assert leg.get_bbox_to_anchor().x0 > fig.axes[0].get_window_extent().x1 - 1


def test_normalize_raises_when_workloads_differ(fake) -> None:
    import dcnsim

    a = dcnsim.run({}, progress=False)
    analysis.normalize(a, dcnsim.run({}, progress=False))  # same seed and workload: fine
    # (other transports with the same workload: test_real_core, the fake core's flows depend
    # on every key)
    other_load = dcnsim.run({}, progress=False, set={"classes[0].workload.load": 0.3})
    with pytest.raises(ValueError, match="different flows"):
        analysis.normalize(a, other_load)
    # same sizes and ends but shifted start times (another arrival process)
    shifted = a.flows.copy()
    shifted["start_s"] += 1e-6
    with pytest.raises(ValueError, match="start_s"):
        analysis.normalize(a, shifted)
    # a baseline with extra flows (e.g. a longer run), even if the shared ones match
    extra = pd.concat([a.flows, a.flows.tail(1).assign(flow_id=10**6)], ignore_index=True)
    with pytest.raises(ValueError, match="only in the baseline"):
        analysis.normalize(a, extra)


def test_titles_mark_what_differs_between_runs_as_swept(fake) -> None:
    import dcnsim

    runs = [dcnsim.run({}, progress=False, set={"classes[0].workload.load": x}) for x in (0.2, 0.4)]
    title = plots.describe(runs)
    assert "web: dctcp, load swept" in title
    assert "web: dctcp, load 0.2" in plots.describe(runs[0])


def test_summary_says_how_the_run_ended(fake) -> None:
    import dcnsim

    r = dcnsim.run({}, progress=False)
    r.meta["end"] = "horizon"
    assert "ended: stopped at the horizon (run.horizon)" in r.summary()
    r.meta["end"] = "complete"
    assert "ended: every flow of the measurement window finished" in r.summary()
    del r.meta["end"]
    assert "ended:" not in r.summary()
