"""TLT runs and per-flow statistics shared by every TLT figure (both halves): the run key
and overrides of a TCP-half run, FCTs with unfinished flows as +inf, percentiles and ratios
with their cluster-bootstrap intervals, timeouts, PAUSE frames and paused time, important
packet counts, and the per-point record of the report.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ...results import Results
from ..framework import Ctx, FlowRows, Interval, PerSeed, bootstrap, seeded
from ..stats import Pct
from .presets import K_TCP, SCENARIO, classes, variant

# ---------------------------------------------------------------------------------------------
# runs


def _ov(c: Ctx, v: str, transport: str, **kw: Any) -> dict[str, Any]:
    k = kw.pop("k", K_TCP)
    clocking = kw.pop("clocking", "adaptive")
    cl = classes(
        transport,
        load=kw.pop("load", 0.4),
        fg_share=kw.pop("fg", 0.05),
        flows_per_sender=kw.pop("degree", 8),
        cdf=kw.pop("cdf", "websearch"),
    )
    assert not kw, kw
    return {
        "run.duration": c.scale.duration,
        "output.segment_delivery": True,  # Fig 16; a histogram per class, cheap
        **variant(v, transport, k, clocking),
        "classes": cl,
    }


#: The flows columns TLT's figures read (every read is in this module, and sweeps.py's
#: clock_bytes): the pool loads only these, 12 of the table's 51 columns, so a loaded run
#: holds about a quarter of the memory and the bounded cache holds more runs.
FLOW_COLUMNS = (
    "flow_id",
    "class",
    "in_window",
    "fct_s",
    "data_pkts",
    "rto_count",
    "srtt_s",
    "rto_s",
    "important_pkts",
    "important_bytes",
    "important_drops",
    "clock_bytes",
)


def _key(v: str, transport: str, **kw: Any) -> tuple:
    return (v, transport, tuple(sorted(kw.items())))


def _add(c: Ctx, v: str, transport: str, **kw: Any) -> None:
    for s in c.seeds:
        c.add((*_key(v, transport, **kw), s), SCENARIO, _ov(c, v, transport, **dict(kw)), s)


def _get(c: Ctx, v: str, transport: str, **kw: Any) -> list[Results]:
    return [c.get((*_key(v, transport, **kw), s)) for s in c.seeds]


def _cls(r: Results, name: str) -> pd.DataFrame:
    f = r.flows
    return f[f["in_window"].astype(bool) & (f["class"] == name)]


@seeded
def _fct(runs: Sequence[Results], name: str) -> FlowRows:
    """Per seed: FCTs (s) of the class's in-window flows, unfinished = +inf (rows labelled
    by flow)."""
    out, ids = [], []
    for r in runs:
        f = _cls(r, name)
        v = f["fct_s"].to_numpy(dtype=float)
        out.append(np.where(np.isnan(v), np.inf, v))
        ids.append(f["flow_id"].to_numpy())
    return out, ids


@seeded
def _col(runs: Sequence[Results], col: str, name: str | None = None) -> FlowRows:
    """Per seed: a per-flow column over in-window flows (of one class, or all)."""
    out, ids = [], []
    for r in runs:
        f = r.flows
        f = f[f["in_window"].astype(bool)]
        if name is not None:
            f = f[f["class"] == name]
        out.append(f[col].to_numpy(dtype=float))
        ids.append(f["flow_id"].to_numpy())
    return out, ids


def _has(runs: Sequence[Results], *cols: str) -> bool:
    """Whether every run's flows table has ``cols`` (a table saved by a core that did not
    write them lacks them). Only declared columns may be asked about: the reproduction's
    pool loads nothing else, so an undeclared one would read as absent and turn its figure
    "not available" silently."""
    if undeclared := [c for c in cols if c not in FLOW_COLUMNS]:
        raise KeyError(f"tlt: flows column(s) {undeclared} not in FLOW_COLUMNS")
    return all(c in r.flows.columns for r in runs for c in cols)


#: The q-th percentile, +inf where it falls among unfinished flows (papers/stats.py). A
#: bootstrap of statistics that are all :class:`Pct` runs lazily (the same interval, less work).
_pct = Pct


P999 = _pct(99.9)
P99 = _pct(99.0)


def _mean(v: np.ndarray) -> float:
    return float(np.mean(v)) if len(v) else math.nan


def _ratio(sa: Any, a: list[np.ndarray], b: list[np.ndarray], sb: Any = None) -> Interval:
    """stat(a) ÷ stat(b) with its cluster-bootstrap interval."""
    sb = sb or sa
    lazy = isinstance(sa, Pct) and isinstance(sb, Pct)
    return bootstrap(lambda u, v: sa(u) / sb(v), a, b, lazy=lazy)


def _mean_ratio(a: list[np.ndarray], b: list[np.ndarray], zero: float = math.nan) -> Interval:
    """mean(a) ÷ mean(b) with its interval; ``zero`` where mean(b) is 0."""
    return bootstrap(lambda u, v: _mean(u) / _mean(v) if _mean(v) > 0 else zero, a, b)


def _stat(s: Any, a: list[np.ndarray]) -> Interval:
    return bootstrap(s, a, lazy=isinstance(s, Pct))


def _queues_pfc(r: Results) -> tuple[float, float]:
    """(PAUSE frames sent, mean paused fraction over switch/host egress queues that were
    paused at least once or belong to a PFC fabric) of one run; (0, 0) without PFC columns."""
    q = r.queues
    if "pfc_pause_sent" not in q.columns:
        return 0.0, 0.0
    frames = float(q["pfc_pause_sent"].sum())
    dur = float(r.meta.get("sim_time_s", math.nan))
    paused = q["pfc_paused_s"].to_numpy(dtype=float)
    frac = float(np.mean(paused) / dur) if len(paused) and dur > 0 else 0.0
    return frames, frac


def _flows_total(r: Results) -> int:
    return int(r.flows["in_window"].astype(bool).sum())


@seeded
def _per_run(runs: Sequence[Results], f: Any) -> PerSeed:
    """Per seed: a one-element array of a per-run statistic (intervals over seeds only)."""
    return [np.array([f(r)], dtype=float) for r in runs]


def _pause_per_1k(r: Results) -> float:
    return _queues_pfc(r)[0] * 1000 / max(1, _flows_total(r))


def _paused_frac(r: Results) -> float:
    return _queues_pfc(r)[1]


def _rtos(runs: Sequence[Results]) -> list[np.ndarray]:
    return _col(runs, "rto_count")


PER_1K = lambda v: 1000 * _mean(v)  # noqa: E731


def _record(c: Ctx, label: str, runs: Sequence[Results]) -> None:
    c.point(label, runs, sum(_flows_total(r) for r in runs))


# ---------------------------------------------------------------------------------------------
# important packets (Fig 7, Fig 10, Fig 11a, Table 1 and the RoCE half)


@seeded
def _imp_loss(runs: Sequence[Results]) -> FlowRows:
    """Per seed: rows (important drops, important packets) of in-window flows."""
    out, ids = [], []
    for r in runs:
        f = r.flows[r.flows["in_window"].astype(bool)]
        out.append(f[["important_drops", "important_pkts"]].to_numpy(dtype=float))
        ids.append(f["flow_id"].to_numpy())
    return out, ids


def _loss_rate(a: np.ndarray) -> float:
    s = a.sum(axis=0) if len(a) else np.zeros(2)
    return float(s[0] / s[1]) if s[1] > 0 else math.nan


@seeded
def _imp_frac(runs: Sequence[Results], by: str) -> FlowRows:
    """Per seed: rows (important, total) packets (``by = "pkts"``) or bytes."""
    out, ids = [], []
    for r in runs:
        f = r.flows[r.flows["in_window"].astype(bool)]
        ids.append(f["flow_id"].to_numpy())
        if by == "pkts":
            out.append(f[["important_pkts", "data_pkts"]].to_numpy(dtype=float))
        else:
            out.append(
                np.column_stack(
                    [f["important_bytes"].to_numpy(float), (f["data_pkts"] * 1538).to_numpy(float)]
                )
            )
    return out, ids
