"""LPF statistics shared by the figures: low-priority FCTs per size class, TCP and Near-Opt
flows matched pair by pair, normalized FCTs (TCP ÷ Near-Opt) and ratios between
configurations with their cluster-bootstrap intervals, retransmission rates, the Near-Opt
baseline guard, and the bar plots in the paper's form.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ...results import Results
from ..framework import (
    NO,
    Finding,
    FlowRows,
    Interval,
    PerSeed,
    all_of,
    band,
    bars,
    bootstrap,
    by_seed,
    seeded,
)
from .presets import BUCKETS, LPF_EDGES

# ---------------------------------------------------------------------------------------------
# statistics


#: The flows columns LPF's figures read (here, das_sjf.py's replay of a TCP run's flows and
#: knobs.py's high-priority tail): the pool loads only these, 14 of the table's 51 columns.
FLOW_COLUMNS = (
    "flow_id",
    "class",
    "priority",
    "src",
    "dst",
    "size",
    "start_s",
    "tag",
    "in_window",
    "completed",
    "fct_s",
    "data_pkts",
    "retx_pkts",
    "spurious_rto",
)


def _low(res: Results) -> pd.DataFrame:
    f = res.flows
    return f[f["in_window"].astype(bool) & (f["priority"] == 1)]


def bucket(sizes: pd.Series) -> pd.Series:
    return pd.cut(sizes.astype(float), bins=list(LPF_EDGES), right=True, labels=list(BUCKETS))


STATS: dict[str, Callable[[np.ndarray], float]] = {
    "mean": lambda v: float(np.mean(v)) if len(v) else math.nan,
    "p50": lambda v: float(np.percentile(v, 50)) if len(v) else math.nan,
    "p99": lambda v: float(np.percentile(v, 99)) if len(v) else math.nan,
    "p99.9": lambda v: float(np.percentile(v, 99.9)) if len(v) else math.nan,
}


@seeded
def low_fct(runs: Sequence[Results], which: str | None = None) -> FlowRows:
    """Per seed: FCTs of completed in-window low-priority flows (optionally one size class)."""
    out, ids = [], []
    for r in runs:
        f = _low(r)
        if which is not None:
            f = f[bucket(f["size"]) == which]
        f = f[f["completed"].astype(bool)]
        out.append(f["fct_s"].to_numpy(dtype=float))
        ids.append(f["flow_id"].to_numpy())
    return out, ids


def pairs(tcp: Sequence[Results], base: Sequence[Results], which: str | None = None) -> PerSeed:
    """Per seed: (TCP FCT, Near-Opt FCT) of the low-priority flows completed in both runs,
    matched on (src, dst, size, start)."""
    key = ["src", "dst", "size", "start_s"]
    out = []
    for t, b in zip(tcp, base, strict=True):
        if t.meta.get("seed") != b.meta.get("seed"):
            raise ValueError(f"pairs: seed {t.meta.get('seed')} matched with {b.meta.get('seed')}")
        m = _low(t)[[*key, "fct_s", "completed"]].merge(
            _low(b)[[*key, "fct_s", "completed"]], on=key, suffixes=("_t", "_n")
        )
        if which is not None:
            m = m[bucket(m["size"]) == which]
        both = m["completed_t"].astype(bool) & m["completed_n"].astype(bool)
        out.append(m.loc[both, ["fct_s_t", "fct_s_n"]].to_numpy(dtype=float))
    return by_seed(tcp, out)


def ratio(p: list, stat: str) -> Interval:
    """Normalized FCT (LPF §3): a statistic of TCP's FCTs ÷ the same statistic under
    Near-Opt, over matched pairs, with its cluster-bootstrap interval."""
    f = STATS[stat]

    def r(a: np.ndarray) -> float:
        d = f(a[:, 1])
        return f(a[:, 0]) / d if d else math.nan

    return bootstrap(r, p)


def rel(a: list, b: list, stat: str) -> Interval:
    """stat(a) ÷ stat(b) for two configurations (e.g. two buffer sizes; paired on seeds when
    both are labelled with the same ones)."""
    f = STATS[stat]
    return bootstrap(lambda x, y: f(x) / f(y) if f(y) else math.nan, a, b)


def n_of(p: list) -> int:
    return int(sum(len(x) for x in p))


def retx_rate(res: Results) -> np.ndarray:
    """Per-flow retransmission rate (retransmitted / data packets) of long storage flows."""
    f = res.flows
    f = f[f["in_window"].astype(bool) & (f["class"] == "storage") & (f["size"] > 1e6)]
    return (f["retx_pkts"] / f["data_pkts"].clip(lower=1)).to_numpy(dtype=float)


def guard(fd: Finding, ivs: Sequence[Interval]) -> str:
    """Near-Opt is the upper bound of a fair transport: a normalized mean FCT whose interval
    lies below 1 means the baseline failed (slower than TCP), so nothing can be judged."""
    bad = [iv for iv in ivs if np.isfinite(iv.hi) and iv.hi < 1]
    if bad:
        fd.note = (
            f"Near-Opt baseline slower than TCP (normalized mean FCT {bad[0]}): the baseline is "
            "not near-optimal here, so the finding cannot be judged. " + fd.note
        ).strip()
        return NO
    return all_of(*(band(iv, 1.0) for iv in ivs))


def _rstr(ivs: dict[str, Interval]) -> str:
    return ", ".join(f"{k} {v}" for k, v in ivs.items())


def _ratio_plot(
    xs: Sequence[str], per_x: Sequence[dict[str, Interval]], xlabel: str
) -> Callable[[Any], None]:
    """The paper's form: normalized FCT (TCP ÷ Near-Opt) per x value, avg / p99 / p99.9."""

    def plot(ax: Any) -> None:
        series = {s: [d[s] for d in per_x] for s in ("mean", "p99", "p99.9")}
        bars(ax, xs, series, xlabel=xlabel, ylabel="normalized FCT (TCP / Near-Opt)", ref=1.0)

    return plot


def _fct_plot(xs: Sequence[str], per_x: Sequence[dict[str, Interval]], xlabel: str) -> Any:
    def plot(ax: Any) -> None:
        series = {s: [d[s].scaled(1e3) for d in per_x] for s in ("mean", "p99")}
        bars(ax, xs, series, xlabel=xlabel, ylabel="low-priority FCT (ms)")

    return plot
