from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from dcnsim import analysis


def flows(
    sizes, fcts, *, completed=None, in_window=None, classes=None, deadlines=None, ids=None
) -> pd.DataFrame:
    n = len(sizes)
    completed = [True] * n if completed is None else completed
    fct = [f if c else math.nan for f, c in zip(fcts, completed, strict=True)]
    return pd.DataFrame(
        {
            "flow_id": list(range(n)) if ids is None else ids,
            "class": ["a"] * n if classes is None else classes,
            "src": [0] * n,
            "dst": [1] * n,
            "size": sizes,
            "start_s": [1.0] * n,
            "fct_s": fct,
            "finish_s": [1.0 + f for f in fct],
            "slowdown": [f * 2 for f in fct],
            "completed": completed,
            "in_window": [True] * n if in_window is None else in_window,
            "deadline_s": [math.nan] * n if deadlines is None else deadlines,
        }
    )


def test_bucket_labels_and_edges() -> None:
    assert analysis.bucket_labels() == ["(0,10KB]", "(10KB,100KB]", "(100KB,1MB]", "(1MB,inf)"]
    b = analysis.size_bucket([1, 10_000, 10_001, 100_000, 1_000_000, 1_000_001, 10**9])
    assert list(b.astype(str)) == [
        "(0,10KB]",
        "(0,10KB]",
        "(10KB,100KB]",
        "(10KB,100KB]",
        "(100KB,1MB]",
        "(1MB,inf)",
        "(1MB,inf)",
    ]
    custom = analysis.size_bucket([5, 50], edges=(0, 10, math.inf))
    assert list(custom.astype(str)) == ["(0,10B]", "(10B,inf)"]
    with pytest.raises(ValueError):
        analysis.size_bucket([1], edges=(10, 0))


def test_percentiles_overall_known_values() -> None:
    f = flows([100] * 101, [float(i) for i in range(101)])  # FCTs 0..100
    s = analysis.fct_stats(f, by=None).iloc[0]
    assert s["count"] == 101 and s["unfinished"] == 0
    assert s["mean"] == pytest.approx(50.0)
    assert s["p50"] == pytest.approx(50.0)
    assert s["p99"] == pytest.approx(99.0)
    assert s["p99.9"] == pytest.approx(99.9)


def test_unfinished_flows_are_counted_not_dropped() -> None:
    f = flows([100, 100, 100, 50_000], [1.0, 2.0, 3.0, 4.0], completed=[True, True, False, False])
    s = analysis.fct_stats(f, by=None).iloc[0]
    assert (s["count"], s["unfinished"]) == (2, 2)
    assert s["mean"] == pytest.approx(1.5)
    by = analysis.fct_stats(f, by="bucket").set_index("bucket")
    assert by.loc["(0,10KB]", "unfinished"] == 1
    assert by.loc["(10KB,100KB]", "unfinished"] == 1
    assert by.loc["(10KB,100KB]", "count"] == 0
    assert math.isnan(by.loc["(10KB,100KB]", "p50"])
    assert by.loc["(1MB,inf)", "count"] == 0  # empty buckets are kept
    assert list(analysis.unfinished(f)["flow_id"]) == [2, 3]


def test_window_filter_and_by_class() -> None:
    f = flows(
        [100, 100, 100, 100],
        [1.0, 2.0, 3.0, 100.0],
        in_window=[True, True, True, False],
        classes=["x", "y", "y", "y"],
    )
    s = analysis.fct_stats(f, by="class").set_index("class")
    assert s.loc["x", "count"] == 1 and s.loc["y", "count"] == 2
    assert s.loc["y", "mean"] == pytest.approx(2.5)
    all_ = analysis.fct_stats(f, by=None, in_window_only=False).iloc[0]
    assert all_["count"] == 4
    sd = analysis.fct_stats(f, by=None, metric="slowdown").iloc[0]
    assert sd["mean"] == pytest.approx(4.0)


def test_an_unknown_group_or_metric_names_the_argument_and_the_columns() -> None:
    f = flows([100, 100], [1.0, 2.0])
    for kw, arg, col in (
        ({"by": "nosuch"}, "by", "nosuch"),
        ({"by": ["class", "zz"]}, "by", "zz"),
        ({"metric": "fct"}, "metric", "fct"),
    ):
        with pytest.raises(KeyError) as e:
            analysis.fct_stats(f, **kw)
        msg = e.value.args[0]
        assert msg.startswith(f"{arg}: the flows table has no column '{col}'"), msg
        assert "fct_s" in msg  # the columns it has


def test_jain_index() -> None:
    assert analysis.jain_index([5, 5, 5, 5]) == pytest.approx(1.0)
    assert analysis.jain_index([1, 0, 0, 0]) == pytest.approx(0.25)
    assert analysis.jain_index([1, 2, 3]) == pytest.approx(36 / (3 * 14))
    assert analysis.jain_index([1, math.nan, 1]) == pytest.approx(1.0)
    assert math.isnan(analysis.jain_index([]))


def test_throughput() -> None:
    f = flows([1000, 2000], [1e-3, 1.0], completed=[True, False])
    t = analysis.throughput_bps(f)
    assert t.loc[0] == pytest.approx(8e6)
    assert math.isnan(t.loc[1])


def test_deadline_miss_ratio() -> None:
    f = flows(
        [100] * 4,
        [1.0, 3.0, 1.0, 1.0],
        completed=[True, True, False, True],
        deadlines=[2.0, 2.0, 2.0, math.nan],
    )
    d = analysis.deadline_miss_ratio(f)
    assert d == {"flows": 3, "missed": 2, "ratio": pytest.approx(2 / 3)}
    assert math.isnan(analysis.deadline_miss_ratio(flows([1], [1.0]))["ratio"])


def test_normalize_per_flow_and_aggregate() -> None:
    sizes = [100] * 4 + [50_000] * 2
    a = flows(sizes, [2.0, 4.0, 6.0, 8.0, 10.0, 30.0], completed=[True] * 5 + [False])
    b = flows(sizes, [1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    c = analysis.normalize(a, b)
    per = c.per_flow.set_index("flow_id")
    assert per.loc[0, "ratio"] == pytest.approx(2.0)
    assert math.isnan(per.loc[5, "ratio"])
    agg = c.aggregate.set_index("bucket")
    assert list(c.aggregate["bucket"]) == ["(0,10KB]", "(10KB,100KB]"]
    small = agg.loc["(0,10KB]"]
    assert small["count"] == 4
    assert small["p50"] == pytest.approx(
        np.percentile([2, 4, 6, 8], 50) / np.percentile([1, 2, 3, 4], 50)
    )
    assert small["mean"] == pytest.approx(2.0)
    big = agg.loc["(10KB,100KB]"]
    assert (big["count"], big["unfinished_a"], big["unfinished_b"]) == (1, 1, 0)
    overall = analysis.normalize(a, b, by=None).aggregate.iloc[0]
    assert overall["count"] == 5


def test_normalize_refuses_different_flows() -> None:
    a = flows([100, 200], [1.0, 1.0])
    b = flows([100, 300], [1.0, 1.0])
    with pytest.raises(ValueError, match="different flows"):
        analysis.normalize(a, b)


def test_summary_table_mentions_buckets_and_unfinished(fake) -> None:
    import dcnsim

    r = dcnsim.run({}, progress=False)
    text = analysis.summary_table(r)
    for lab in analysis.bucket_labels():
        assert lab in text
    assert "unfinished" in text and "p99.9" in text
