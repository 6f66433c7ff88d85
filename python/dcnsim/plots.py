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
from .results import Results, read_sweep_table

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


def _fmt_load(x: Any) -> str:
    return f"{x:g}" if isinstance(x, int | float) else str(x)


def _class_parts(scenario: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """Per traffic class: (name, transport, "load X" or the workload kind)."""
    out = []
    for i, c in enumerate(scenario.get("classes") or []):
        if not isinstance(c, Mapping):
            continue
        name = str(c.get("name") or f"class {i}")
        tr = c.get("transport") or c.get("cc")
        if isinstance(tr, Mapping):
            tr = tr.get("cc") or tr.get("kind")
        wl = c.get("workload") if isinstance(c.get("workload"), Mapping) else {}
        if wl.get("load") is not None:
            what = f"load {_fmt_load(wl['load'])}"
        else:
            what = str(wl.get("kind") or "")
        out.append((name, str(tr or ""), what))
    return out


def _join_parts(name: str, tr: str, what: str) -> str:
    bits = [b for b in (tr, what) if b]
    return f"{name}: {', '.join(bits)}" if bits else name


def class_facts(scenario: Mapping[str, Any]) -> list[str]:
    """One short text per traffic class of a (normalized) scenario: its name, transport and
    offered load when the workload has one, e.g. ``background: dctcp, load 0.4``."""
    return [_join_parts(*p) for p in _class_parts(scenario)]


def merged_class_facts(scenarios: Sequence[Mapping[str, Any]]) -> list[str]:
    """:func:`class_facts` over several runs: a transport or load that differs between them
    is shown as ``swept``."""
    parts = [_class_parts(sc) for sc in scenarios]
    if not parts:
        return []
    out = []
    for i in range(max(len(p) for p in parts)):
        cols = [p[i] for p in parts if i < len(p)]
        merged = [
            vals.pop() if len(vals := {c[k] for c in cols}) == 1 else ("swept" if k else "?")
            for k in range(3)
        ]
        if merged[2] == "swept" and all(c[2].startswith("load ") for c in cols):
            merged[2] = "load swept"
        out.append(_join_parts(*merged))
    return out


def describe(runs: Runs) -> str:
    """A title line naming what was run: scenario, seed(s), and per class the transport and
    load (a class whose setting differs between the runs says so)."""
    runs_d = _as_runs(runs)
    if not runs_d:
        return ""
    names = sorted({str(r.meta.get("scenario_name") or "run") for r in runs_d.values()})
    seeds = sorted({r.meta.get("seed") for r in runs_d.values()}, key=str)
    seed_txt = f"seed {seeds[0]}" if len(seeds) == 1 else f"seeds {_seed_range(seeds)}"
    cls = "; ".join(merged_class_facts([r.scenario for r in runs_d.values()]))
    head = f"{' / '.join(names)} · {seed_txt}"
    return f"{head}\n{cls}" if cls else head


def _seed_range(seeds: Sequence[Any]) -> str:
    ints = [s for s in seeds if isinstance(s, int)]
    if len(ints) == len(seeds) and len(ints) > 2 and ints == list(range(ints[0], ints[-1] + 1)):
        return f"{ints[0]}–{ints[-1]}"
    return ", ".join(str(s) for s in seeds)


#: values spanning at least this ratio (two decades) get a log axis
LOG_SPAN = 100.0


def spans_decades(values: Any, ratio: float = LOG_SPAN) -> bool:
    """Whether the finite positive values span at least ``ratio`` (max/min)."""
    v = np.asarray(values, dtype=float).ravel()
    v = v[np.isfinite(v) & (v > 0)]
    return bool(v.size >= 2 and v.max() / v.min() >= ratio)


def note(ax: Any, text: str) -> None:
    """Write ``text`` in the middle of empty axes (instead of leaving them blank)."""
    ax.text(0.5, 0.5, text, ha="center", va="center", transform=ax.transAxes, wrap=True)
    ax.set_xticks([])
    ax.set_yticks([])


def legend(ax: Any, n: int | None = None) -> None:
    """A legend that stays readable with many entries: small font, several columns, and
    placed outside the axes when there are more than a few."""
    handles, _labels = ax.get_legend_handles_labels()
    if not handles:
        return
    n = len(handles) if n is None else n
    if n <= 4:
        ax.legend(fontsize="small")
    else:
        ax.legend(
            fontsize="x-small",
            ncol=1 if n <= 12 else 2,
            loc="upper left",
            bbox_to_anchor=(1.01, 1.0),
            borderaxespad=0.0,
        )


def fct_cdf(
    runs: Runs,
    *,
    metric: str = "fct_s",
    in_window_only: bool = True,
    log_x: bool | None = None,
) -> Figure:
    """Empirical CDF of FCT (or slowdown) over completed flows, one line per run. Unfinished
    flows are not plotted; the legend gives each run's completed and unfinished counts. The
    x axis is logarithmic when the values span two decades or more (``log_x`` forces it)."""
    plt = _plt()
    runs_d = _as_runs(runs)
    fig, ax = plt.subplots(figsize=(6.4 if len(runs_d) <= 4 else 8.5, 4.2), layout="constrained")
    everything = []
    for label, res in runs_d.items():
        flows = res.measured if in_window_only else res.flows
        done = flows[flows["completed"].astype(bool)]
        v = np.sort(done[metric].to_numpy(dtype=float))
        v = v[np.isfinite(v)]
        n_unf = len(flows) - len(done)
        if v.size == 0:
            continue
        everything.append(v)
        y = np.arange(1, v.size + 1) / v.size
        extra = f", {n_unf} unfinished" if n_unf else ""
        ax.step(v, y, where="post", label=f"{label}: {v.size} flows{extra}")
    ax.set_title(describe(runs_d), fontsize="small")
    if not everything:
        note(ax, "no flow completed in the measurement window: nothing to plot")
        return fig
    if log_x if log_x is not None else spans_decades(np.concatenate(everything)):
        ax.set_xscale("log")
    ax.set_xlabel("FCT (s)" if metric == "fct_s" else metric)
    ax.set_ylabel("CDF of completed flows")
    ax.grid(True, alpha=0.3)
    legend(ax)
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
    With a single run and ``by="bucket"`` the bars are grouped by class instead. Each bar is
    labelled with its number of completed flows (n=…); the y axis is logarithmic when the bars
    span two decades or more."""
    plt = _plt()
    runs_d = _as_runs(runs)
    col = analysis.pct_name(percentile)
    series: dict[str, dict[str, float]] = {}
    counts: dict[str, dict[str, int]] = {}
    if len(runs_d) == 1 and by == "bucket":
        (res,) = runs_d.values()
        stats = analysis.fct_stats(res, by=["class", "bucket"], metric=metric, edges=edges)
        for cls, g in stats.groupby("class", sort=True):
            series[str(cls)] = dict(zip(g["bucket"], g[col], strict=True))
            counts[str(cls)] = dict(zip(g["bucket"], g["count"], strict=True))
        groups = analysis.bucket_labels(edges)
    else:
        groups_set: list[str] = []
        for label, res in runs_d.items():
            stats = analysis.fct_stats(res, by=by, metric=metric, edges=edges)
            keys = [str(k) for k in stats[by]]
            series[label] = dict(zip(keys, stats[col], strict=True))
            counts[label] = dict(zip(keys, stats["count"], strict=True))
            groups_set += [k for k in keys if k not in groups_set]
        groups = analysis.bucket_labels(edges) if by == "bucket" else groups_set
    wide = len(series) > 4
    fig, ax = plt.subplots(
        figsize=(max(6.4, 1.4 * len(groups)) + (2.5 if wide else 0), 4.2), layout="constrained"
    )
    what = "FCT (s)" if metric == "fct_s" else metric
    ax.set_title(describe(runs_d), fontsize="small")
    heights_all = [h for vals in series.values() for h in vals.values()]
    if not heights_all or not np.isfinite(np.asarray(heights_all, dtype=float)).any():
        note(ax, f"no flow completed in the measurement window: no {col} {what}")
        return fig
    width = 0.8 / max(len(series), 1)
    x = np.arange(len(groups))
    for i, (label, vals) in enumerate(series.items()):
        heights = [vals.get(g, np.nan) for g in groups]
        bars = ax.bar(x + (i - (len(series) - 1) / 2) * width, heights, width, label=label)
        ns = [int(counts[label].get(g, 0)) for g in groups]
        if len(series) * len(groups) <= 24:
            ax.bar_label(bars, labels=[f"n={n}" for n in ns], fontsize="xx-small", padding=1)
    if spans_decades(heights_all):
        ax.set_yscale("log")
    ax.set_xticks(x, groups)
    ax.set_xlabel("flow size" if by == "bucket" else by)
    ax.set_ylabel(f"{col} {what}")
    ax.grid(True, axis="y", alpha=0.3)
    legend(ax, len(series))
    return fig


def queue_timeseries(res: Results, *, max_series: int = 8) -> Figure:
    """Queue occupancy over time from ``res.samples`` (the busiest ``max_series`` queues)."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(8.5, 4.2), layout="constrained")
    ax.set_title(describe(res), fontsize="small")
    s = res.samples
    if s.empty:
        note(ax, "no queue samples recorded (set output.queue_sample_interval)")
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
    legend(ax)
    return fig


def link_timeseries(res: Results, *, max_series: int = 6) -> Figure:
    """Port utilization (the busiest ``max_series`` ports) and goodput per class over time,
    from ``res.samples`` (``util``) and ``res.class_samples``."""
    plt = _plt()
    fig, (ax, bx) = plt.subplots(2, 1, figsize=(8.5, 5.6), sharex=True, layout="constrained")
    ax.set_title(describe(res), fontsize="small")
    s = res.samples
    if s.empty or "util" not in s:
        note(ax, "no port samples recorded (set output.queue_sample_interval)")
        return fig
    # util is per port (repeated on each queue row): one series per port
    per_port = s.drop_duplicates(["t_s", "port"])
    busiest = per_port.groupby("port")["util"].mean().sort_values(ascending=False)
    links: dict[int, str] = {}
    q = res.queues
    if not q.empty and {"port", "node_name", "peer_name"} <= set(q.columns):
        for port, a, b in zip(q["port"], q["node_name"], q["peer_name"], strict=True):
            links.setdefault(int(port), f"{a}→{b}")
    for port in list(busiest.index)[:max_series]:
        g = per_port[per_port["port"] == port]
        ax.step(g["t_s"], g["util"], where="post", label=links.get(int(port), f"port {port}"))
    ax.set_ylabel("utilization")
    ax.set_ylim(0, 1.05)
    ax.grid(True, alpha=0.3)
    legend(ax)
    c = res.class_samples
    if c.empty:
        note(bx, "no class goodput samples")
    else:
        for name, g in c.groupby("class" if "class" in c else "class_id"):
            bx.step(g["t_s"], g["goodput_bps"] / 1e9, where="post", label=str(name))
        bx.set_ylabel("goodput (Gb/s)")
        bx.grid(True, alpha=0.3)
        legend(bx)
    bx.set_xlabel("time (s)")
    return fig


def save(fig: Figure, path: str | os.PathLike[str], *, dpi: int = 150) -> Path:
    """Save a figure (format from the suffix) and close it. The file appears whole or not at
    all: written beside its name, then renamed over it (an interrupted save left a truncated
    image under the final name)."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_name(f".{p.name}.{os.getpid()}.tmp")
    try:
        fig.savefig(tmp, dpi=dpi, metadata=_metadata(p.suffix), format=p.suffix.lstrip("."))
        os.replace(tmp, p)
    finally:
        tmp.unlink(missing_ok=True)
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
    """Write the standard plots (FCT CDF, p99 slowdown and FCT by bucket, queue, utilization
    and class goodput time series)."""
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
            if "util" in res.samples:
                paths.append(save(link_timeseries(res), out / f"utilization{suffix}.{fmt}"))
    return paths


# ---------------------------------------------------------------------------------------------
# Sweeps: metric against a parameter, mean over seeds with its confidence interval


def _is_number(v: Any) -> bool:
    return isinstance(v, int | float | np.integer | np.floating) and not isinstance(
        v, bool | np.bool_
    )


def sweep_x(agg: Any, params: Sequence[str]) -> str | None:
    """The parameter to put on the x axis: the first numeric one that takes several values,
    else the first that takes several values, else the first."""
    varying = [p for p in params if agg[p].nunique(dropna=False) > 1]
    numeric = [p for p in varying if all(_is_number(v) for v in agg[p])]
    for cands in (numeric, varying, list(params)):
        if cands:
            return cands[0]
    return None


def sweep_families(columns: Sequence[str]) -> dict[str, list[str]]:
    """Groups of sweep-table metric columns drawn together, one panel per column."""
    cols = [c for c in columns if not c.endswith(("_lo", "_hi"))]
    fam: dict[str, list[str]] = {
        "overview": [
            c for c in ("fct_p50_s", "fct_p99_s", "slowdown_p99", "unfinished") if c in cols
        ]
    }
    for stat in ("p99", "p50"):
        pre = f"slowdown_{stat}["
        fam[f"slowdown_{stat}_by_size"] = [
            c for c in cols if c.startswith(pre) and not c.startswith(f"{pre}class=")
        ]
        fam[f"slowdown_{stat}_by_class"] = [c for c in cols if c.startswith(f"{pre}class=")]
    return {k: v for k, v in fam.items() if v}


_METRIC_LABELS = {
    "fct_p50_s": "p50 FCT (s)",
    "fct_p99_s": "p99 FCT (s)",
    "fct_mean_s": "mean FCT (s)",
    "slowdown_p99": "p99 slowdown",
    "slowdown_p50": "p50 slowdown",
    "unfinished": "unfinished flows",
    "drops": "drops",
    "ecn_marks": "ECN marks",
}


def _panel_title(col: str, agg: Any) -> str:
    if "[" in col:
        _base, lab = col.split("[", 1)
        lab = lab.rstrip("]")
        n_col = f"flows[{lab}]"
        label = lab.replace("class=", "class ")
        if n_col in agg:
            n = np.asarray(agg[n_col], dtype=float)
            n = n[np.isfinite(n)]
            if n.size:
                lo, hi = round(n.min()), round(n.max())
                per = f"{lo}" if lo == hi else f"{lo}–{hi}"
                return f"{label}: {per} completed flows/run"
        return label
    return _METRIC_LABELS.get(col, col)


def sweep_metric(
    agg: Any,
    columns: Sequence[str],
    *,
    x: str | None = None,
    title: str = "",
    ylabel: str = "",
) -> Figure:
    """One panel per metric column of an aggregated sweep table (:func:`dcnsim.sweep.aggregate`):
    the mean over seeds against parameter ``x`` (default: :func:`sweep_x`) with error bars
    from the confidence interval, one line per combination of the other parameters. Axes are
    logarithmic where values span two decades; a panel without data says so."""
    from .sweep import param_columns

    plt = _plt()
    params = [p for p in param_columns(agg)]
    xp = x if x is not None else sweep_x(agg, params)
    if xp is not None and xp not in params:
        raise ValueError(f"x={xp!r} is not a swept parameter (parameters: {params})")
    others = [p for p in params if p != xp]
    groups: list[tuple[str, Any]] = []
    if others:
        for key, g in agg.groupby(others, sort=False, dropna=False):
            key_t = key if isinstance(key, tuple) else (key,)
            lab = ", ".join(f"{k}={v}" for k, v in zip(others, key_t, strict=True))
            groups.append((lab, g))
    else:
        groups.append(("", agg))
    n = len(columns)
    ncols = min(n, 2 if n <= 4 else 3)
    nrows = -(-n // ncols)
    wide = len(groups) > 4
    fig, axes = plt.subplots(
        nrows,
        ncols,
        figsize=(4.6 * ncols + (2.8 if wide else 0), 3.4 * nrows + 0.6),
        layout="constrained",
        squeeze=False,
    )
    numeric_x = xp is not None and all(_is_number(v) for v in agg[xp])
    cats = [] if numeric_x or xp is None else [str(v) for v in dict.fromkeys(agg[xp])]
    for i, col in enumerate(columns):
        ax = axes[i // ncols][i % ncols]
        ax.set_title(_panel_title(col, agg), fontsize="small")
        vals = np.asarray(agg[col], dtype=float) if col in agg else np.array([])
        if not np.isfinite(vals).any():
            note(ax, "no completed flows at any point")
            continue
        for lab, g in groups:
            if xp is None:
                xs = np.zeros(len(g))
            elif numeric_x:
                xs = np.asarray(g[xp], dtype=float)
            else:
                xs = np.array([cats.index(str(v)) for v in g[xp]], dtype=float)
            y = np.asarray(g[col], dtype=float)
            lo = np.asarray(g.get(f"{col}_lo", y), dtype=float)
            hi = np.asarray(g.get(f"{col}_hi", y), dtype=float)
            err = np.nan_to_num(np.vstack([y - lo, hi - y]).clip(min=0))
            order = np.argsort(xs, kind="stable")
            ax.errorbar(
                xs[order],
                y[order],
                yerr=err[:, order],
                marker="o",
                ms=4,
                capsize=3,
                label=lab or None,
            )
        if spans_decades(np.concatenate([vals, np.asarray(agg.get(f"{col}_hi", vals))])):
            ax.set_yscale("log")
        if numeric_x and spans_decades(agg[xp]):
            ax.set_xscale("log")
        if cats:
            ax.set_xticks(range(len(cats)), cats, rotation=20 if len(cats) > 4 else 0)
        ax.set_xlabel(xp or "")
        if ylabel:
            ax.set_ylabel(ylabel)
        ax.grid(True, alpha=0.3)
    for j in range(n, nrows * ncols):
        axes[j // ncols][j % ncols].set_visible(False)
    if others:
        legend(axes[0][ncols - 1], len(groups))
    if title:
        fig.suptitle(title, fontsize="small")
    return fig


def sweep_title(sweep_dir: str | os.PathLike[str], df: Any) -> str:
    """Scenario, seeds and per class transport and load of a sweep (values that differ
    between its runs are named as swept)."""
    import json

    from .sweep import param_columns

    d = Path(sweep_dir)
    done = df[df["done"].astype(bool)] if "done" in df else df
    name = "?"
    scenarios = []
    for rd in done.get("run_dir", []):
        try:
            sc = json.loads((d / rd / "scenario.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        name = str(sc.get("name") or name)
        scenarios.append(sc)
    seeds = sorted({int(s) for s in df["seed"]})
    params = param_columns(df)
    head = f"sweep of {name} · seeds {_seed_range(seeds)} · {len(df)} runs"
    if params:
        head += f" · swept: {', '.join(params)}"
    facts = merged_class_facts(scenarios)
    return head + ("\n" + "; ".join(facts) if facts else "")


def plot_sweep(
    sweep_dir: str | os.PathLike[str],
    out_dir: str | os.PathLike[str] | None = None,
    fmt: str = "png",
    *,
    x: str | None = None,
) -> list[Path]:
    """Write the sweep plots of ``sweep_dir`` (a directory with ``sweep.parquet``): an overview
    (p50/p99 FCT, p99 slowdown, unfinished flows) and slowdown percentiles per size bucket and
    per class, each against the swept parameter ``x`` with 95% Student-t intervals over seeds.
    Default ``out_dir``: ``sweep_dir/plots``."""

    from .sweep import aggregate

    if fmt not in ("png", "svg"):
        raise ValueError(f"format must be png or svg, got {fmt!r}")
    d = Path(sweep_dir)
    df = read_sweep_table(d)
    agg = aggregate(df)
    out = Path(out_dir) if out_dir is not None else d / "plots"
    title = sweep_title(d, df)
    paths = []
    fams = sweep_families(list(agg.columns))
    if not fams:
        fig = _plt().figure(figsize=(6.4, 3))
        note(fig.add_subplot(), "no run of this sweep has completed: nothing to plot")
        fig.suptitle(title, fontsize="small")
        return [save(fig, out / f"sweep_overview.{fmt}")]
    for fam, cols in fams.items():
        ylabel = "" if fam == "overview" else fam.split("_by_")[0].replace("_", " ")
        fig = sweep_metric(agg, cols, x=x, title=title, ylabel=ylabel)
        paths.append(save(fig, out / f"sweep_{fam}.{fmt}"))
    return paths
