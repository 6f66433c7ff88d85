"""Plots of saved or in-memory results (matplotlib, Agg backend). Plots never run simulations.

Every function takes one :class:`Results` or several as ``{label: Results}`` and returns a
matplotlib ``Figure``; :func:`plot_all` writes the standard set as PNG or SVG files.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from . import analysis
from .results import Results

if TYPE_CHECKING:
    from matplotlib.figure import Figure

Runs = Results | Mapping[str, Results] | Sequence[Results]


def _plt() -> Any:
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    matplotlib.rcParams["svg.hashsalt"] = "dcnsim"  # stable ids: reproducible SVG files

    return plt


def _as_runs(runs: Runs) -> dict[str, Results]:
    if isinstance(runs, Results):
        return {_label(runs): runs}
    if isinstance(runs, Mapping):
        return dict(runs)
    out: dict[str, Results] = {}
    for r in runs:
        lab = _label(r)
        while lab in out:
            lab += "'"
        out[lab] = r
    return out


def _label(r: Results) -> str:
    name = r.meta.get("scenario_name") or "run"
    return f"{name} (seed {r.meta.get('seed', '?')})"


def fct_cdf(
    runs: Runs, *, metric: str = "fct_s", in_window_only: bool = True, log_x: bool = True
) -> Figure:
    """Empirical CDF of FCT (or slowdown) over completed flows, one line per run. Unfinished
    flows are not plotted; their count is shown in the legend."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6, 4), constrained_layout=True)
    for label, res in _as_runs(runs).items():
        flows = res.measured if in_window_only else res.flows
        done = flows[flows["completed"].astype(bool)]
        v = np.sort(done[metric].to_numpy(dtype=float))
        n_unf = len(flows) - len(done)
        if v.size == 0:
            continue
        y = np.arange(1, v.size + 1) / v.size
        extra = f", {n_unf} unfinished" if n_unf else ""
        ax.step(v, y, where="post", label=f"{label}{extra}")
    if log_x:
        ax.set_xscale("log")
    ax.set_xlabel("FCT (s)" if metric == "fct_s" else metric)
    ax.set_ylabel("CDF")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small")
    return fig


def percentile_bars(
    runs: Runs,
    *,
    metric: str = "slowdown",
    percentile: float = 99.0,
    by: str = "bucket",
    edges: Sequence[float] = analysis.DEFAULT_EDGES,
) -> Figure:
    """Bars of one percentile of FCT/slowdown per size bucket (or class), grouped by run.
    With a single run and ``by="bucket"`` the bars are grouped by class instead."""
    plt = _plt()
    runs_d = _as_runs(runs)
    col = analysis.pct_name(percentile)
    series: dict[str, dict[str, float]] = {}
    if len(runs_d) == 1 and by == "bucket":
        (res,) = runs_d.values()
        stats = analysis.fct_stats(res, by=["class", "bucket"], metric=metric, edges=edges)
        for cls, g in stats.groupby("class", sort=True):
            series[str(cls)] = dict(zip(g["bucket"], g[col], strict=True))
        groups = analysis.bucket_labels(edges)
    else:
        groups_set: list[str] = []
        for label, res in runs_d.items():
            stats = analysis.fct_stats(res, by=by, metric=metric, edges=edges)
            keys = [str(k) for k in stats[by]]
            series[label] = dict(zip(keys, stats[col], strict=True))
            groups_set += [k for k in keys if k not in groups_set]
        groups = analysis.bucket_labels(edges) if by == "bucket" else groups_set
    fig, ax = plt.subplots(figsize=(max(6, 1.4 * len(groups)), 4), constrained_layout=True)
    width = 0.8 / max(len(series), 1)
    x = np.arange(len(groups))
    for i, (label, vals) in enumerate(series.items()):
        heights = [vals.get(g, np.nan) for g in groups]
        ax.bar(x + (i - (len(series) - 1) / 2) * width, heights, width, label=label)
    ax.set_xticks(x, groups)
    ax.set_xlabel("flow size" if by == "bucket" else by)
    ax.set_ylabel(f"{col} {'FCT (s)' if metric == 'fct_s' else metric}")
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize="small")
    return fig


def queue_timeseries(res: Results, *, max_series: int = 8) -> Figure:
    """Queue occupancy over time from ``res.samples`` (the busiest ``max_series`` queues)."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(7, 4), constrained_layout=True)
    s = res.samples
    if s.empty:
        ax.text(
            0.5,
            0.5,
            "no queue samples recorded (enable them in the scenario's outputs)",
            ha="center",
            va="center",
            transform=ax.transAxes,
        )
        return fig
    keys = ["node", "port", "queue"]
    peaks = s.groupby(keys)["bytes"].max().sort_values(ascending=False)
    # port -> "leaf2→spine0" from the queue table when it names the ends
    links: dict[int, str] = {}
    q = res.queues
    if not q.empty and {"port", "node_name", "peer_name"} <= set(q.columns):
        for port, a, b in zip(q["port"], q["node_name"], q["peer_name"], strict=True):
            links.setdefault(int(port), f"{a}→{b}")
    for key in list(peaks.index)[:max_series]:
        node, port, queue = key
        g = s[(s["node"] == node) & (s["port"] == port) & (s["queue"] == queue)]
        where = links.get(int(port), f"node {node} port {port}")
        ax.step(g["t_s"], g["bytes"], where="post", label=f"{where} q{queue}")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("queue (bytes)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small")
    return fig


def save(fig: Figure, path: str | os.PathLike[str]) -> Path:
    """Save a figure (format from the suffix) and close it."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(p, dpi=150, metadata=_metadata(p.suffix))
    _plt().close(fig)
    return p


def _metadata(suffix: str) -> dict[str, Any]:
    # no creation dates: identical inputs give identical files
    if suffix == ".svg":
        return {"Date": None}
    if suffix == ".png":
        return {"Software": None}
    return {}


def plot_all(runs: Runs, out_dir: str | os.PathLike[str], fmt: str = "png") -> list[Path]:
    """Write the standard plots (FCT CDF, p99 slowdown and FCT by bucket, queue time series)."""
    if fmt not in ("png", "svg"):
        raise ValueError(f"format must be png or svg, got {fmt!r}")
    out = Path(out_dir)
    runs_d = _as_runs(runs)
    paths = [
        save(fct_cdf(runs_d), out / f"fct_cdf.{fmt}"),
        save(percentile_bars(runs_d, metric="slowdown"), out / f"slowdown_p99_by_size.{fmt}"),
        save(percentile_bars(runs_d, metric="fct_s"), out / f"fct_p99_by_size.{fmt}"),
    ]
    for i, res in enumerate(runs_d.values()):
        if not res.samples.empty:
            suffix = "" if len(runs_d) == 1 else f"_{i}"
            paths.append(save(queue_timeseries(res), out / f"queues{suffix}.{fmt}"))
    return paths
