"""Analysis helpers: pure functions on the flow / queue DataFrames of :class:`Results`.

Conventions:

* Only flows that started inside the measurement window (``in_window``) count by default.
* Statistics of FCT or slowdown are over *completed* flows; flows that did not finish by the
  horizon are never dropped silently: every table has an ``unfinished`` column.
* Percentiles use linear interpolation between order statistics (numpy's default).
* Size buckets are right-closed intervals in bytes with decimal units (1 KB = 1000 B).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from .results import Results

#: Default size bucket edges in bytes: (0,10KB], (10KB,100KB], (100KB,1MB], (1MB,inf).
DEFAULT_EDGES: tuple[float, ...] = (0, 10_000, 100_000, 1_000_000, math.inf)
#: Percentiles reported by default (as percent).
PERCENTILES: tuple[float, ...] = (50.0, 99.0, 99.9)


def _flows(x: Any) -> pd.DataFrame:
    return x.flows if hasattr(x, "flows") else x


def fmt_bytes(n: float) -> str:
    """10000 → '10KB', 1e6 → '1MB', inf → 'inf'."""
    if math.isinf(n):
        return "inf"
    if n == 0:
        return "0"
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if n >= scale:
            v = n / scale
            return f"{v:g}{unit}"
    return f"{n:g}B"


def bucket_labels(edges: Sequence[float] = DEFAULT_EDGES) -> list[str]:
    out = []
    for lo, hi in itertools.pairwise(edges):
        right = ")" if math.isinf(hi) else "]"
        out.append(f"({fmt_bytes(lo)},{fmt_bytes(hi)}{right}")
    return out


def size_bucket(
    sizes: pd.Series | Sequence[float], edges: Sequence[float] = DEFAULT_EDGES
) -> pd.Series:
    """Label each size with its bucket (an ordered categorical; (lo, hi] intervals)."""
    if list(edges) != sorted(edges) or len(set(edges)) != len(edges) or len(edges) < 2:
        raise ValueError(f"bucket edges must be strictly increasing, got {list(edges)}")
    s = pd.Series(sizes)
    return pd.cut(s.astype("float64"), bins=list(edges), right=True, labels=bucket_labels(edges))


def pct_name(p: float) -> str:
    """99.9 → 'p99.9', 50 → 'p50'."""
    return f"p{p:g}"


def describe(
    values: pd.Series | np.ndarray, percentiles: Sequence[float] = PERCENTILES
) -> dict[str, float]:
    """count, mean and percentiles of the finite values (NaN = unfinished is excluded)."""
    v = np.asarray(values, dtype=np.float64)
    v = v[~np.isnan(v)]
    out: dict[str, float] = {"count": int(v.size), "mean": float(v.mean()) if v.size else math.nan}
    for p in percentiles:
        out[pct_name(p)] = float(np.percentile(v, p)) if v.size else math.nan
    return out


def _select(flows: pd.DataFrame, in_window_only: bool) -> pd.DataFrame:
    if in_window_only and "in_window" in flows.columns:
        return flows[flows["in_window"].astype(bool)]
    return flows


def _group_keys(by: str | Sequence[str] | None) -> list[str]:
    if by is None:
        return []
    if isinstance(by, str):
        return [by]
    return list(by)


def fct_stats(
    results: Any,
    *,
    by: str | Sequence[str] | None = "bucket",
    metric: str = "fct_s",
    in_window_only: bool = True,
    edges: Sequence[float] = DEFAULT_EDGES,
    percentiles: Sequence[float] = PERCENTILES,
) -> pd.DataFrame:
    """FCT (or ``metric="slowdown"``) statistics, overall or grouped.

    ``by``: ``None`` (overall), ``"bucket"`` (size buckets from ``edges``), ``"class"``, or any
    flow column / list of them. Columns: the group keys, ``count`` (completed flows),
    ``unfinished``, ``mean`` and one column per percentile (``p50``, ``p99``, ``p99.9``).
    Empty groups (e.g. a bucket without flows) are kept with count 0.
    """
    flows = _select(_flows(results), in_window_only).copy()
    keys = _group_keys(by)
    for name, wanted in (("by", [k for k in keys if k != "bucket"]), ("metric", [metric])):
        if unknown := [c for c in wanted if c not in flows.columns]:
            # (a bare KeyError named only the column)
            raise KeyError(
                f"{name}: the flows table has no column {', '.join(map(repr, unknown))} "
                f"(it has: {', '.join(flows.columns)})"
            )
    if "bucket" in keys:
        flows["bucket"] = size_bucket(flows["size"], edges)
    done = flows["completed"].astype(bool) if "completed" in flows else ~flows[metric].isna()
    flows["_unfinished"] = ~done
    flows["_value"] = flows[metric].where(done)
    rows = []
    if keys:
        grouped = flows.groupby(keys, observed=False, sort=True, dropna=False)
        for key, g in grouped:
            key_t = key if isinstance(key, tuple) else (key,)
            row: dict[str, Any] = dict(zip(keys, key_t, strict=True))
            row.update(describe(g["_value"], percentiles))
            row["unfinished"] = int(g["_unfinished"].sum())
            rows.append(row)
    else:
        row = describe(flows["_value"], percentiles)
        row["unfinished"] = int(flows["_unfinished"].sum())
        rows.append(row)
    cols = [*keys, "count", "unfinished", "mean", *(pct_name(p) for p in percentiles)]
    out = pd.DataFrame(rows, columns=cols)
    out["count"] = out["count"].astype("int64")
    out["unfinished"] = out["unfinished"].astype("int64")
    if "bucket" in keys:
        out["bucket"] = out["bucket"].astype(str)
    return out


def unfinished(results: Any, *, in_window_only: bool = True) -> pd.DataFrame:
    """The flows that did not complete (by the horizon)."""
    flows = _select(_flows(results), in_window_only)
    return flows[~flows["completed"].astype(bool)]


def throughput_bps(results: Any, *, in_window_only: bool = True) -> pd.Series:
    """Per-flow goodput in bit/s: size·8 / FCT (NaN for unfinished flows), indexed by flow_id."""
    flows = _select(_flows(results), in_window_only)
    fct = flows["fct_s"].where(flows["completed"].astype(bool))
    tput = flows["size"].astype("float64") * 8.0 / fct
    return pd.Series(tput.to_numpy(), index=flows["flow_id"].to_numpy(), name="throughput_bps")


def jain_index(values: Iterable[float]) -> float:
    """Jain's fairness index (Σx)² / (n·Σx²): 1 for equal shares, 1/n when one takes all.
    NaN values are ignored; NaN if nothing is left or all values are zero."""
    v = np.asarray(
        list(values) if not isinstance(values, np.ndarray | pd.Series) else values, dtype=np.float64
    )
    v = v[~np.isnan(v)]
    if v.size == 0:
        return math.nan
    denom = v.size * float(np.sum(v * v))
    return float(np.sum(v)) ** 2 / denom if denom > 0 else math.nan


def deadline_miss_ratio(results: Any, *, in_window_only: bool = True) -> dict[str, float]:
    """Among flows with a deadline (``deadline_s`` finite: an absolute simulation time, as the
    core reports it), the share that missed it: finished after the deadline (``finish_s >
    deadline_s``) or not at all. Returns ``{"flows": n, "missed": m, "ratio": m/n}`` (ratio NaN
    if no flow has a deadline)."""
    flows = _select(_flows(results), in_window_only)
    d = flows["deadline_s"].astype("float64")
    has = d.notna() & np.isfinite(d)
    sub = flows[has]
    met = sub["completed"].astype(bool) & (sub["finish_s"] <= sub["deadline_s"])
    n = len(sub)
    missed = int((~met).sum())
    return {"flows": n, "missed": missed, "ratio": missed / n if n else math.nan}


@dataclass
class Comparison:
    """Result of :func:`normalize`: run ``a`` relative to baseline ``b``.

    ``per_flow``: one row per matched flow with ``a``, ``b`` and ``ratio = a / b`` (NaN when
    either did not finish). ``aggregate``: per group, ratios of the statistics
    (``mean``, ``p50``, ``p99``, ``p99.9`` of a / same of b) computed over flows completed in
    both runs, plus the unfinished counts of each run.
    """

    per_flow: pd.DataFrame
    aggregate: pd.DataFrame


#: Flow columns set by the workload alone (not by the transport or the network).
WORKLOAD_COLUMNS: tuple[str, ...] = ("size", "src", "dst", "start_s", "class")


def check_same_workload(fa: pd.DataFrame, fb: pd.DataFrame) -> None:
    """Raise ValueError unless two flow tables hold the same flows: the same ``flow_id`` set
    and, per flow, equal :data:`WORKLOAD_COLUMNS` (those both tables have)."""
    msg = "runs have different flows ({}); normalize needs the same workload and seed"
    ids_a = pd.Index(fa["flow_id"])
    ids_b = pd.Index(fb["flow_id"])
    if len(ids_a) != len(ids_b) or not ids_a.sort_values().equals(ids_b.sort_values()):
        only_a = ids_a.difference(ids_b)
        only_b = ids_b.difference(ids_a)
        where = (
            f"flow {only_a[0]} only in the first run"
            if len(only_a)
            else f"flow {only_b[0]} only in the baseline"
            if len(only_b)
            else "duplicate flow ids"
        )
        raise ValueError(msg.format(f"{len(fa)} vs {len(fb)} flows, {where}"))
    cols = [c for c in WORKLOAD_COLUMNS if c in fa.columns and c in fb.columns]
    m = fa[["flow_id", *cols]].merge(fb[["flow_id", *cols]], on="flow_id", suffixes=("_a", "_b"))
    for c in cols:
        diff = m[f"{c}_a"] != m[f"{c}_b"]
        if diff.any():
            bad = m.loc[diff, "flow_id"].iloc[0]
            raise ValueError(msg.format(f"flow {bad} differs in {c}"))


def normalize(
    a: Any,
    b: Any,
    *,
    on: str = "fct_s",
    by: str | Sequence[str] | None = "bucket",
    in_window_only: bool = True,
    edges: Sequence[float] = DEFAULT_EDGES,
    percentiles: Sequence[float] = PERCENTILES,
) -> Comparison:
    """Compare run ``a`` against baseline ``b`` flow by flow (matched on ``flow_id``).

    Runs with the same seed and workload have the same flows: the same flow ids, each with the
    same size, source, destination, start time and class. Before comparing anything both runs'
    whole flow tables (not only the measured flows) are checked, and a ValueError naming the
    first difference is raised if the workloads differ (another seed, load, size distribution
    or duration), since a flow-by-flow comparison would then be meaningless.
    """
    check_same_workload(_flows(a), _flows(b))
    fa = _select(_flows(a), in_window_only)
    fb = _select(_flows(b), in_window_only)
    cols = ["flow_id", "size", "src", "dst", "class", on, "completed"]
    cols = [c for c in cols if c in fa.columns]
    m = fa[cols].merge(fb[cols], on="flow_id", how="inner", suffixes=("_a", "_b"))
    done_a = m["completed_a"].astype(bool)
    done_b = m["completed_b"].astype(bool)
    per = pd.DataFrame(
        {
            "flow_id": m["flow_id"],
            "size": m["size_a"],
            "class": m.get("class_a", ""),
            "a": m[f"{on}_a"].where(done_a),
            "b": m[f"{on}_b"].where(done_b),
        }
    )
    per["bucket"] = size_bucket(per["size"], edges).astype(str)
    per["ratio"] = per["a"] / per["b"]
    both = done_a & done_b
    keys = _group_keys(by)
    rows = []
    groups = per.groupby(keys, sort=False) if keys else [((), per)]
    order = bucket_labels(edges) if keys == ["bucket"] else None
    for key, g in groups:
        key_t = key if isinstance(key, tuple) else (key,)
        sel = both.loc[g.index]
        sa = describe(g.loc[sel, "a"], percentiles)
        sb = describe(g.loc[sel, "b"], percentiles)
        row: dict[str, Any] = dict(zip(keys, key_t, strict=True))
        row["count"] = int(sel.sum())
        row["unfinished_a"] = int((~done_a.loc[g.index]).sum())
        row["unfinished_b"] = int((~done_b.loc[g.index]).sum())
        for stat in ("mean", *(pct_name(p) for p in percentiles)):
            row[stat] = sa[stat] / sb[stat] if sb[stat] else math.nan
        row["median_flow_ratio"] = (
            float(np.nanmedian(g.loc[sel, "ratio"])) if sel.any() else math.nan
        )
        rows.append(row)
    agg = pd.DataFrame(rows)
    if order is not None and not agg.empty:
        agg["_o"] = agg["bucket"].map({lab: i for i, lab in enumerate(order)})
        agg = agg.sort_values("_o").drop(columns="_o").reset_index(drop=True)
    return Comparison(per_flow=per.reset_index(drop=True), aggregate=agg)


# ---------------------------------------------------------------------------------------------
# Text summary for the CLI


def _fmt_time(s: float) -> str:
    if s != s:
        return "-"
    if s >= 1:
        return f"{s:.3g}s"
    if s >= 1e-3:
        return f"{s * 1e3:.3g}ms"
    return f"{s * 1e6:.3g}us"


def _fmt_num(x: float) -> str:
    return "-" if x != x else f"{x:.3g}"


def _table(headers: list[str], rows: list[list[str]]) -> str:
    widths = [
        max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)
    ]
    lines = [
        "  ".join(
            h.rjust(w) if i else h.ljust(w)
            for i, (h, w) in enumerate(zip(headers, widths, strict=True))
        )
    ]
    lines.append("  ".join("-" * w for w in widths))
    for r in rows:
        lines.append(
            "  ".join(
                c.rjust(w) if i else c.ljust(w)
                for i, (c, w) in enumerate(zip(r, widths, strict=True))
            )
        )
    return "\n".join(lines)


def _stats_rows(
    results: Any, by: str | None, label: str, edges: Sequence[float]
) -> tuple[list[str], list[list[str]]]:
    f = fct_stats(results, by=by, edges=edges)
    s = fct_stats(results, by=by, metric="slowdown", edges=edges)
    headers = [
        label,
        "flows",
        "unfin",
        "FCT mean",
        "p50",
        "p99",
        "p99.9",
        "slowdown p50",
        "p99",
        "p99.9",
    ]
    rows = []
    for i in range(len(f)):
        key = "all" if by is None else str(f.iloc[i][by])
        r = f.iloc[i]
        q = s.iloc[i]
        rows.append(
            [
                key,
                str(int(r["count"])),
                str(int(r["unfinished"])),
                _fmt_time(r["mean"]),
                _fmt_time(r["p50"]),
                _fmt_time(r["p99"]),
                _fmt_time(r["p99.9"]),
                _fmt_num(q["p50"]),
                _fmt_num(q["p99"]),
                _fmt_num(q["p99.9"]),
            ]
        )
    return headers, rows


#: What the core's ``meta["end"]`` means (crates/dcnsim/src/run.rs decides it).
END_REASONS: dict[str, str] = {
    "complete": "every flow of the measurement window finished",
    "horizon": "stopped at the horizon (run.horizon)",
    "max_events": "stopped at the event limit (run.max_events)",
    "idle": "nothing left to simulate",
    "pfc_deadlock": "PFC deadlock: nothing left to simulate, a pause cycle holds traffic",
    "memory_limit": "stopped: the packets held reached the memory limit's share (run.memory_limit)",
    "interrupted": "interrupted",
}


def how_it_ended(meta: Mapping[str, Any]) -> str:
    """A sentence for the core's ``meta["end"]`` ("" when the core did not say)."""
    end = meta.get("end")
    if not end:
        return ""
    return END_REASONS.get(str(end), str(end))


def load_frame(load: Mapping[str, Any]) -> pd.DataFrame:
    """``meta["load"]`` (per class: offered/carried bits/s and fraction of the host links'
    capacity over the measurement window) as a DataFrame, one row per class."""
    rows = [
        {
            "class": name,
            "offered_gbps": float(v.get("offered_bps", math.nan)) / 1e9,
            "carried_gbps": float(v.get("carried_bps", math.nan)) / 1e9,
            "offered_load": float(v.get("offered_load", math.nan)),
            "carried_load": float(v.get("carried_load", math.nan)),
        }
        for name, v in load.items()
    ]
    return pd.DataFrame(
        rows, columns=["class", "offered_gbps", "carried_gbps", "offered_load", "carried_load"]
    )


def summary_table(results: Results, edges: Sequence[float] = DEFAULT_EDGES) -> str:
    """Human-readable summary: run facts, FCT/slowdown percentiles by size bucket (and by class
    when there are several), queue drops and marks, and the core's warnings."""
    m = results.meta
    flows = results.flows
    parts = []
    wall = float(m.get("wall_s") or 0.0)
    events = int(m.get("events") or 0)
    rate = f", {events / wall / 1e6:.2f} M events/s" if wall > 0 and events else ""
    n_win = int(flows["in_window"].sum()) if "in_window" in flows else len(flows)
    unfin = len(unfinished(results)) if len(flows) else 0
    parts.append(
        f"scenario {m.get('scenario_name', '?')}  seed {m.get('seed', '?')}  "
        f"hash {str(m.get('config_hash', ''))[:12]}\n"
        f"flows: {m.get('flows_total', len(flows))} total, "
        f"{m.get('flows_completed', '?')} completed, {n_win} in window "
        f"({unfin} of them unfinished)\n"
        f"simulated {_fmt_time(float(m.get('sim_time_s', math.nan)))} in {wall:.2f}s wall"
        f" ({events:,} events, {int(m.get('packet_hops') or 0):,} packet-hops{rate})"
        + (f"\nended: {how_it_ended(m)}" if how_it_ended(m) else "")
    )
    if len(flows):
        h, rows = _stats_rows(results, "bucket", "size", edges)
        rows += _stats_rows(results, None, "size", edges)[1]
        parts.append(
            "FCT by flow size (flows started in the measurement window)\n" + _table(h, rows)
        )
        classes = flows["class"].unique() if "class" in flows else []
        if len(classes) > 1:
            h, rows = _stats_rows(results, "class", "class", edges)
            parts.append("FCT by class\n" + _table(h, rows))
    q = results.queues
    if len(q):
        if "is_host" in q:
            scopes = [("switch", q[~q["is_host"].astype(bool)]), ("host", q[q["is_host"]])]
        else:
            scopes = [("all", q)]
        lines = []
        for scope, qq in scopes:
            if qq.empty:
                continue
            drops = int(qq["drops"].sum()) if "drops" in qq else 0
            marks = int(qq["ecn_marks"].sum()) if "ecn_marks" in qq else 0
            peak = int(qq["max_bytes"].max()) if "max_bytes" in qq else 0
            lines.append(
                f"{scope} queues: {drops:,} drops, {marks:,} ECN marks, max occupancy {peak:,} B"
            )
        parts.append("\n".join(lines))
    if m.get("load"):
        lf = load_frame(m["load"])
        rows = [
            [
                str(r["class"]),
                f"{r['offered_gbps']:.3g} Gb/s ({r['offered_load']:.3g})",
                f"{r['carried_gbps']:.3g} Gb/s ({r['carried_load']:.3g})",
            ]
            for _, r in lf.iterrows()
        ]
        parts.append(
            "load in the measurement window (fraction of the host links' capacity)\n"
            + _table(["class", "offered", "carried"], rows)
        )
    for w in m.get("warnings") or []:
        parts.append(f"warning: {w}")
    return "\n\n".join(parts)


# ---------------------------------------------------------------------------------------------
# Confidence intervals over seeds


def _t_two_sided_mass(t: float, dof: int) -> float:
    """P(|T| <= t) for Student's t with an integer number of degrees of freedom ``dof``.

    Closed form for integer ``dof`` (Abramowitz & Stegun 26.7.3 and 26.7.4): with
    θ = atan(t/√dof), an odd ``dof`` gives (2/π)(θ + sinθ·cosθ·Σ) and an even one sinθ·Σ, where
    Σ is a finite series in cos²θ. Exact up to rounding, no special functions needed."""
    if t <= 0:
        return 0.0
    theta = math.atan(t / math.sqrt(dof))
    c2 = math.cos(theta) ** 2
    s = math.sin(theta)
    if dof % 2 == 1:
        if dof == 1:
            return 2 / math.pi * theta
        term, total = 1.0, 1.0
        for k in range(2, dof - 1, 2):  # 1 + (2/3)c² + (2·4)/(3·5)c⁴ + ... up to c^(dof-3)
            term *= k / (k + 1) * c2
            total += term
        return 2 / math.pi * (theta + s * math.cos(theta) * total)
    term, total = 1.0, 1.0
    for k in range(1, dof - 2, 2):  # 1 + (1/2)c² + (1·3)/(2·4)c⁴ + ... up to c^(dof-2)
        term *= k / (k + 1) * c2
        total += term
    return s * total


def t_critical(level: float, dof: int) -> float:
    """The two-sided critical value t* of Student's t: P(|T| <= t*) = ``level`` (e.g. 12.71
    for level 0.95 and 1 degree of freedom, 1.96 in the limit). Solved by bisection on the exact
    distribution function, so it is deterministic and needs no SciPy."""
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    if dof < 1:
        raise ValueError(f"degrees of freedom must be >= 1, got {dof}")
    lo, hi = 0.0, 1.0
    while _t_two_sided_mass(hi, dof) < level:
        hi *= 2
    for _ in range(200):
        mid = (lo + hi) / 2
        if _t_two_sided_mass(mid, dof) < level:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-12 * hi:
            break
    return (lo + hi) / 2


def mean_ci(values: Iterable[float], level: float = 0.95) -> tuple[int, float, float, float]:
    """``(n, mean, lo, hi)`` of the finite values: the Student-t interval of the mean,
    mean ± t*(level, n−1)·s/√n with s the sample standard deviation. It treats each value (one
    per seed) as an independent draw; with fewer than two values the interval is NaN."""
    v = np.asarray(list(values), dtype=np.float64)
    v = v[np.isfinite(v)]
    n = int(v.size)
    if n == 0:
        return 0, math.nan, math.nan, math.nan
    m = float(v.mean())
    if n < 2:
        return n, m, math.nan, math.nan
    half = t_critical(level, n - 1) * float(v.std(ddof=1)) / math.sqrt(n)
    return n, m, m - half, m + half
