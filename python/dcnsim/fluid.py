"""Fluid (flow-level) max-min fair rates: water-filling over the flows' paths.

:func:`maxmin` is the flow-level bound that sits next to simulated rates: every flow is a
fluid that crosses a set of links with capacities; rates are max-min fair (weighted when
``weights`` are given); flows in a higher strict-priority class are solved first and lower
classes share only the capacity they leave (REFLEX §2, Fig. 2; mechanisms spec §5.2.1).

Water-filling (progressive filling): in one class, all unfrozen flows grow together, flow
``f`` at rate ``w_f · t``; ``t`` rises until a link is full (its residual capacity divided
by the weight sum of the unfrozen flows on it is the smallest) or a flow reaches its demand;
those flows freeze at their rate and the rest continue. The result is exact (no iteration to
a tolerance): each step freezes at least one flow.

What it is not: a model of DRR or TCP dynamics. DRR between *queues* is weighted max-min
between queues; with one flow per queue on a link (the REFLEX two-flow cases) that equals
per-flow weights. Header overheads are not modelled: pass goodput capacities if wanted.

Example (REFLEX Fig. 2: two flows A→B, one A→D, one C→D on unit host links)::

    >>> from dcnsim.fluid import maxmin
    >>> caps = {"A": 1.0, "B": 1.0, "C": 1.0, "D": 1.0}   # A, C uplinks; B, D downlinks
    >>> paths = [["A", "B"], ["A", "B"], ["A", "D"], ["C", "D"]]
    >>> maxmin(paths, caps)                                # 1/3, 1/3, 1/3, 2/3
    >>> maxmin(paths, caps, priority=[0, 1, 0, 0])         # 1/2, 0, 1/2, 1/2
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence

import numpy as np

__all__ = ["maxmin"]


def maxmin(
    paths: Sequence[Sequence[Hashable]],
    capacities: Mapping[Hashable, float] | Sequence[float],
    *,
    priority: Sequence[int] | None = None,
    weights: Sequence[float] | None = None,
    demands: Sequence[float] | None = None,
) -> np.ndarray:
    """Max-min fair rates of flows over links.

    ``paths[f]``: the links flow ``f`` crosses (keys of ``capacities``, or indices when
    ``capacities`` is a sequence). ``priority[f]``: strict-priority class, **0 highest**
    (default all 0); class ``k`` is solved on what classes ``< k`` left. ``weights[f] > 0``:
    weighted max-min (default 1). ``demands[f] >= 0``: the most flow ``f`` wants (default
    unbounded; a flow with an empty path needs a finite demand).

    Returns the rates as a float array in the units of ``capacities``. Raises ``ValueError``
    naming the argument for bad input.
    """
    n = len(paths)
    if isinstance(capacities, Mapping):
        keys = list(capacities)
        index = {k: i for i, k in enumerate(keys)}
        cap = np.array([float(capacities[k]) for k in keys])
    else:
        cap = np.array([float(c) for c in capacities])
        index = {i: i for i in range(len(cap))}
    if np.any(~np.isfinite(cap)) or np.any(cap < 0):
        raise ValueError("capacities: expected finite values >= 0")
    prio = np.zeros(n, dtype=int) if priority is None else np.asarray(priority, dtype=int)
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=float)
    dem = np.full(n, np.inf) if demands is None else np.asarray(demands, dtype=float)
    for name, arr in (("priority", prio), ("weights", w), ("demands", dem)):
        if len(arr) != n:
            raise ValueError(f"{name}: expected {n} values (one per flow), got {len(arr)}")
    if np.any(~(w > 0)) or np.any(~np.isfinite(w)):
        raise ValueError("weights: expected finite values > 0")
    if np.any(np.isnan(dem)) or np.any(dem < 0):
        raise ValueError("demands: expected values >= 0")
    # Incidence matrix: a[l, f] = 1 if flow f crosses link l (a link listed twice counts once).
    a = np.zeros((len(cap), n))
    for f, p in enumerate(paths):
        for link in p:
            if link not in index:
                raise ValueError(f"paths[{f}]: unknown link {link!r}")
            a[index[link], f] = 1.0
        if not len(p) and not np.isfinite(dem[f]):
            raise ValueError(f"paths[{f}]: an empty path needs a finite demand")
    rate = np.zeros(n)
    resid = cap.copy()
    for cls in sorted(set(prio.tolist())):
        active = prio == cls
        while active.any():
            # Weight sum of the unfrozen flows on each link; t at which each link fills.
            wsum = a @ (w * active)
            with np.errstate(divide="ignore", invalid="ignore"):
                t_link = np.where(wsum > 0, resid / wsum, np.inf)
            t_dem = np.where(active, (dem - rate) / w, np.inf)
            t = min(t_link.min(initial=np.inf), t_dem.min(initial=np.inf))
            if not np.isfinite(t):
                raise ValueError("demands: a flow is bounded by neither a link nor a demand")
            t = max(t, 0.0)
            rate += np.where(active, w * t, 0.0)
            resid -= a @ np.where(active, w * t, 0.0)
            resid[resid < 1e-12 * max(1.0, cap.max(initial=1.0))] = 0.0
            # Freeze flows on a full link and flows at their demand.
            full = (wsum > 0) & (t_link <= t * (1 + 1e-12))
            frozen = active & ((a[full].sum(axis=0) > 0) | (t_dem <= t * (1 + 1e-12)))
            if not frozen.any():  # numerically impossible; guard against a stall
                frozen = active
            active &= ~frozen
    return rate
