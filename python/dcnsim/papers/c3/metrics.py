"""C3 reproduction: what a run measured, per objective, and the intervals over it.

Owns the per-objective metrics read from a run's tables (TS goodput per sampling interval,
LS round trips, DS deadline misses, PS FCTs, the bottleneck queue, class goodputs), the
bootstrap intervals the findings judge (:func:`mean_iv`, :func:`ratio_iv`,
:func:`miss_ratio_iv`, :func:`diff_iv`) and the text formats of the findings' numbers.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..framework import Interval, PerSeed, bootstrap, by_seed, effect_band

# ---------------------------------------------------------------------------------------------
# measurements


def _flows(res: Any, name: str, window: bool = False) -> pd.DataFrame:
    f = res.flows
    f = f[f["class"] == name]
    return f[f.in_window] if window else f


def misses(res: Any, name: str = "ds", window: bool = False) -> np.ndarray:
    """Per DS flow: 1 if it missed its deadline (unfinished, or finished after it).
    ``deadline_s`` is an absolute simulation time (docs/python-api.md), so it is compared
    with the finish time, not with the FCT."""
    f = _flows(res, name, window)
    late = ~f.completed.to_numpy(bool) | (
        f.finish_s.to_numpy(float) > f.deadline_s.to_numpy(float) + 1e-12
    )
    return late.astype(float)


def fcts(res: Any, name: str, window: bool = False) -> np.ndarray:
    """FCTs (s) of the class's completed flows."""
    f = _flows(res, name, window)
    return f[f.completed].fct_s.to_numpy(float)


def fcts_both(
    a: Sequence[Any], b: Sequence[Any], name: str = "ps", window: bool = False
) -> tuple[PerSeed, PerSeed, int, int]:
    """The FCTs (s) of the class's flows that completed in both runs of each pair (``a[i]``
    and ``b[i]``, one seed: the same workload, so the same flows), per seed and labelled by
    flow so the intervals pair them; and how many flows that is, of how many. An average
    over each run's own completed flows would favour the run that leaves more long flows
    unfinished (it drops them from its mean). Raises if a pair's flows differ."""
    xa, xb, ids, both, total = [], [], [], 0, 0
    for ra, rb in zip(a, b, strict=True):
        fa, fb = _flows(ra, name, window), _flows(rb, name, window)
        key = ["flow_id", "src", "dst", "size", "start_s"]
        if len(fa) != len(fb) or not fa[key].reset_index(drop=True).equals(
            fb[key].reset_index(drop=True)
        ):
            raise ValueError(f"{name}: the two runs of a seed carry different flows")
        ok = fa.completed.to_numpy(bool) & fb.completed.to_numpy(bool)
        xa.append(fa.fct_s.to_numpy(float)[ok])
        xb.append(fb.fct_s.to_numpy(float)[ok])
        ids.append(fa.flow_id.to_numpy()[ok])
        both, total = both + int(ok.sum()), total + len(fa)
    return by_seed(a, xa, ids), by_seed(b, xb, ids), both, total


#: One-way propagation of the motivation dumbbell's return path (3 links × 50 µs).
RETURN_S = 150e-6


def ls_rtts(res: Any, name: str = "ls") -> np.ndarray:
    """LS round trips (s): from a 2 KB flow's start until its sender holds the ACK of its last
    byte (both segments leave in the initial window: one round trip plus serialization)."""
    f = _flows(res, name)
    f = f[f.completed]
    rtt = (f.sender_done_s - f.start_s).to_numpy(float)
    return rtt[np.isfinite(rtt)]  # the last flow's ACK may still be in flight at the end


def ls_base(res: Any, name: str = "ls") -> float:
    """The unloaded LS round trip: the flow table's ideal FCT (delivery of both segments) +
    the return path's propagation."""
    return float(_flows(res, name).ideal_fct_s.mean()) + RETURN_S


def unfinished(res: Any, name: str, window: bool = False) -> int:
    f = _flows(res, name, window)
    return int((~f.completed).sum())


def goodput_bins(res: Any, name: str, t0: float = 0.0, t1: float = math.inf) -> np.ndarray:
    """The class's goodput (b/s) per sampling interval ending in (t0, t1]."""
    cs = res.class_samples
    x = cs[(cs["class"] == name) & (cs.t_s > t0 + 1e-12) & (cs.t_s <= t1 + 1e-12)]
    return x.goodput_bps.to_numpy(float)


def goodput_series(res: Any, name: str) -> tuple[np.ndarray, np.ndarray]:
    cs = res.class_samples
    x = cs[cs["class"] == name]
    return x.t_s.to_numpy(float), x.goodput_bps.to_numpy(float)


def bottleneck_queue(res: Any) -> tuple[np.ndarray, np.ndarray]:
    """(t, bytes) of the busiest switch-to-switch port (the dumbbell's core egress)."""
    q = res.queues
    sw = q[~q.peer_name.str.startswith("h") & ~q.node_name.str.startswith("h")]
    if sw.empty:
        sw = q[~q.node_name.str.startswith("h")]
    row = sw.sort_values("bytes_out").iloc[-1]
    s = res.samples
    s = s[(s.node == row.node) & (s.port == row.port)]
    by = s.groupby("t_s").bytes.sum()
    return by.index.to_numpy(float), by.to_numpy(float)


def _iv(stat: Callable[..., float], *groups: Sequence[np.ndarray]) -> Interval:
    return bootstrap(stat, *groups)


def mean_iv(groups: Sequence[np.ndarray]) -> Interval:
    return _iv(np.mean, groups)


def ratio_iv(num: Sequence[np.ndarray], den: Sequence[np.ndarray]) -> Interval:
    """mean(num) / mean(den)."""
    return _iv(lambda a, b: float(np.mean(a) / np.mean(b)), num, den)


def miss_ratio_iv(num: Sequence[np.ndarray], den: Sequence[np.ndarray]) -> Interval:
    """Ratio of miss ratios, the denominator floored at one miss in its sample (so it stays
    finite when the denominator saw none)."""

    def st(a: np.ndarray, b: np.ndarray) -> float:
        return float(np.mean(a) / max(np.mean(b), 1.0 / max(len(b), 1)))

    return _iv(st, num, den)


def diff_iv(a: Sequence[np.ndarray], b: Sequence[np.ndarray]) -> Interval:
    return _iv(lambda x, y: float(np.mean(x) - np.mean(y)), a, b)


def _pt(x: float) -> Interval:
    return Interval(float(x), float(x), float(x))


def _ms(iv: Interval) -> str:
    return f"{iv.est * 1e3:.2f} ms [{iv.lo * 1e3:.2f}, {iv.hi * 1e3:.2f}]"


def _pct(iv: Interval) -> str:
    return f"{iv.est:.1%} [{iv.lo:.1%}, {iv.hi:.1%}]"


#: "more than x%" / "up to g×": the lower edge of the magnitude band only.
def at_least(g: float) -> float:
    return effect_band(g)[0]


def class_means(res: Any, t0: float = 0.01) -> str:
    """Mean goodput (Mb/s) per class after ``t0``."""
    cs = res.class_samples
    cs = cs[cs.t_s > t0]
    m = cs.groupby("class").goodput_bps.mean() / 1e6
    return ", ".join(f"{k} {v:.0f}" for k, v in m.items())
