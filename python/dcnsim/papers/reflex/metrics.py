"""REFLEX reproduction: what a run measured.

Owns the two flows' goodput while both are active (:func:`competition_rates`), the regular
flow's rate per phase of the cycle (:func:`phase_rates`), the first LOW interval
(:func:`first_low`), the regular flows' FCTs (:func:`_reg_fct`), the per-flow speed-ups of a
workload run (:func:`speedups`) and :func:`_pt`, a single run's value as an interval.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..framework import FlowRows, Interval, seeded


def competition_rates(res: Any) -> dict[str, float]:
    """Average goodput (Gb/s) of each flow while both are active: from the later flow's start
    to the first finish (or the end of the run), from the flows' traces of bytes
    acknowledged (interpolated; a finished flow has all its bytes at its finish)."""
    f = res.flows.sort_values("start_s")
    t0 = float(f.start_s.max())
    fin = f.finish_s.to_numpy(dtype=float)
    t1 = float(np.nanmin(fin)) if np.isfinite(fin).any() else math.nan
    if not math.isfinite(t1):
        t1 = float(res.meta.get("sim_time_s", math.nan))
    out = {}
    tr = res.traces
    for _, row in f.iterrows():
        x = tr[tr.flow_id == row.flow_id]
        t = x.t_s.to_numpy(dtype=float)
        b = x.bytes_acked.to_numpy(dtype=float)
        if row.completed:
            t = np.append(t, row.finish_s)
            b = np.append(b, row["size"])
        v = np.interp([t0, t1], t, b, left=0.0)
        out[row["class"]] = float((v[1] - v[0]) * 8 / (t1 - t0) / 1e9)
    return out


def _pt(x: float) -> Interval:
    """A deterministic single-run value (one seed, no sampling interval)."""
    return Interval(float(x), float(x), float(x))


def phase_rates(res: Any, t_int: float = 0.005) -> tuple[float, float, np.ndarray, np.ndarray]:
    """The regular flow's goodput (Gb/s) in 1 ms trace bins during competition, split into
    bins inside exploit intervals and inside warmup/measure intervals of the 1:1:3 cycle."""
    f = res.flows
    reg = f[f["class"] == "regular"].iloc[0]
    x = res.traces[res.traces.flow_id == reg.flow_id]
    t = x.t_s.to_numpy()
    b = x.bytes_acked.to_numpy()
    rate = np.diff(b) * 8 / np.diff(t) / 1e9
    mid = (t[1:] + t[:-1]) / 2
    m = (mid > reg.start_s + 0.025) & (mid < reg.finish_s)
    # A bin counts if it lies inside one interval (start and end in the same interval).
    same = np.floor(t[1:] / t_int - 1e-9) == np.floor(t[:-1] / t_int + 1e-9)
    ph = np.floor(mid / t_int).astype(int) % 5
    exp = rate[m & same & (ph >= 2)]
    hi = rate[m & same & (ph < 2)]
    return float(np.mean(exp)), float(np.mean(hi)), mid, rate


def first_low(res: Any) -> float:
    tr = res.traces
    x = tr[(tr.flow_id == 0) & tr.reflex_low]
    return float(x.t_s.min()) if len(x) else math.nan


@seeded
def _reg_fct(runs: Sequence[Any]) -> FlowRows:
    out, ids = [], []
    for r in runs:
        f = r.flows
        f = f[(f["class"] == "regular") & f.in_window & f.completed]
        out.append(f.fct_s.to_numpy(dtype=float))
        ids.append(f["flow_id"].to_numpy())
    return out, ids


def speedups(base: Any, run: Any, cls: str) -> np.ndarray:
    """Per-flow speed-up FCT_baseline / FCT_scheme of the measured, completed flows of
    ``cls`` (the same seed generates the same flows under every scheme)."""
    a = base.flows.set_index("flow_id")
    b = run.flows.set_index("flow_id")
    m = (a["class"] == cls) & a.in_window & a.completed & b.completed
    return (a.fct_s[m] / b.fct_s[m]).to_numpy(dtype=float)
