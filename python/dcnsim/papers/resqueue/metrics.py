"""ResQueue reproduction: what a run measured and the statistics the findings share.

Owns the short-flow FCTs (unfinished = +inf), the 1 MB flows' goodput, the per-packet drop
and timeout counts, the percentiles (:func:`_pct`, :data:`QS`) and ratios of percentiles,
the per-seed reading of an undecided comparison (:func:`seeds_needed`), and the memo on the
Ctx that lets several findings share one interval.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ...results import Results
from ..framework import Ctx, FlowRows, Interval, bootstrap, seeded
from ..stats import Pct, _t_quantile

#: The flows-table columns the figures read (a loaded run keeps only these, 10 of 49: a
#: full-scale run loads as 14 MB instead of 95 MB, so the pool's cache holds about all 480).
FLOW_COLUMNS = (
    "flow_id",
    "class",
    "dst",
    "size",
    "start_s",
    "fct_s",
    "completed",
    "in_window",
    "rto_count",
    "max_pkt_drops",
)


def dropped(runs: Sequence[Results]) -> int:
    """Packets dropped anywhere in ``runs``."""
    return int(sum(int(r.meta.get("dropped", 0)) for r in runs))


def _short(r: Results) -> pd.DataFrame:
    f = r.flows
    return f[f["in_window"].astype(bool) & (f["class"] != "large")]


@seeded
def short_fct(runs: Sequence[Results]) -> FlowRows:
    """Per seed: FCTs of in-window short flows, unfinished = +inf (rows labelled by flow)."""
    out, ids = [], []
    for r in runs:
        f = _short(r)
        v = f["fct_s"].to_numpy(dtype=float)
        out.append(np.where(np.isnan(v), np.inf, v))
        ids.append(f["flow_id"].to_numpy())
    return out, ids


@seeded
def large_gbps(runs: Sequence[Results], fes: Sequence[int] | None = None) -> FlowRows:
    """Per seed: goodput (Gb/s) of completed in-window 1 MB flows (optionally only those
    received at a front end, sharing its port with the incasts)."""
    out, ids = [], []
    for r in runs:
        f = r.flows
        f = f[f["in_window"].astype(bool) & (f["class"] == "large") & f["completed"].astype(bool)]
        if fes is not None:
            f = f[f["dst"].isin(list(fes))]
        out.append((f["size"] * 8 / f["fct_s"] / 1e9).to_numpy(dtype=float))
        ids.append(f["flow_id"].to_numpy())
    return out, ids


def max_short_drops(runs: Sequence[Results]) -> int:
    return int(max((_short(r)["max_pkt_drops"].max() for r in runs), default=0))


#: The q-th percentile; unfinished flows are +inf, and a percentile that falls among them is
#: +inf (numpy's interpolation between two infinities would give nan). A bootstrap whose
#: statistic reads its groups only through it runs with ``lazy=True`` (papers/stats.py).
_pct = Pct


QS = {"p99": 99.0, "p99.9": 99.9}


def seeds_needed(per_seed: Sequence[float], thr: float) -> str:
    """Would more seeds decide a comparison with ``thr``? From the per-seed values: if their
    mean lies within half a standard deviation (or 2%) of ``thr`` the statistic sits on the
    threshold and more seeds converge on it without deciding; else the smallest number of
    seeds n whose Student-t 95% interval over per-seed values (± t(n−1)·sd/√n, the width the
    bootstrap gives the seed-to-seed part, papers/stats.py) excludes ``thr``."""
    v = np.asarray([x for x in per_seed if math.isfinite(x)], dtype=float)
    if len(v) < 2:
        return "too few finite per-seed values to tell"
    m, sd = float(v.mean()), float(v.std(ddof=1))
    if abs(m - thr) < max(sd / 2, 0.02 * abs(thr)):
        return f"per-seed mean {m:.3g} sits on {thr:g} (sd {sd:.2g}): more seeds would not decide"

    def half(n: int) -> float:
        return _t_quantile(0.975, n - 1) * sd / math.sqrt(n)

    if sd == 0 or abs(m - thr) >= half(len(v)):
        return (
            f"per-seed mean {m:.3g}, sd {sd:.2g}: the seeds already lie on one side of {thr:g}; "
            "the interval's width comes from resampling flows within a seed"
        )
    n = len(v) + 1
    while abs(m - thr) < half(n):
        n += 1
    return f"per-seed mean {m:.3g}, sd {sd:.2g}: ≈ {n} seeds would decide against {thr:g}"


def per_seed_ratio(q: float, a: Sequence[np.ndarray], b: Sequence[np.ndarray]) -> list[float]:
    """percentile(a) ÷ percentile(b) seed by seed."""
    f = _pct(q)
    return [f(x) / f(y) for x, y in zip(a, b, strict=True)]


def _record(c: Ctx, label: str, runs: Sequence[Results]) -> None:
    c.point(label, runs, sum(len(_short(r)) for r in runs))


def _memo(c: Ctx) -> dict[Any, Any]:
    """Statistics shared by several findings (the Fig 2 family reads the same runs)."""
    return c.__dict__.setdefault("_memo", {})


def _pct_ratio(q: float, a: list[np.ndarray], b: list[np.ndarray]) -> Interval:
    f = _pct(q)
    return bootstrap(lambda u, v: f(u) / f(v), a, b, lazy=True)


@seeded
def _rto_share(runs: Sequence[Results], n: int) -> FlowRows:
    """Per seed: 1.0 for each short flow with at least ``n`` retransmission timeouts, else 0."""
    fr = [_short(r) for r in runs]
    return [(f["rto_count"].to_numpy() >= n).astype(float) for f in fr], [
        f["flow_id"].to_numpy() for f in fr
    ]
