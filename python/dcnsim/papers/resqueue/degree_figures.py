"""ResQueue reproduction: Fig 5, ResQueue's tail FCT over PIAS's per incast degree and
load.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..framework import HOLDS, Ctx, Finding, Interval, band, bootstrap, effect_band
from .ablations import _abl_note
from .metrics import _memo, _pct, _record, short_fct
from .scenario import _add, _get

# ---------------------------------------------------------------------------------------------
# Fig 5: incast degree


def plan_degree(c: Ctx) -> None:
    for d in c.scale.degrees:
        for x in c.scale.deg_loads:
            for s in ("pias", "resqueue"):
                _add(c, s, x, degree=d)


def _deg_data(c: Ctx) -> dict[tuple[int, float], dict[str, list]]:
    m = _memo(c)
    if "deg" not in m:
        m["deg"] = {
            (d, x): {s: short_fct(_get(c, s, x, degree=d)) for s in ("pias", "resqueue")}
            for d in c.scale.degrees
            for x in c.scale.deg_loads
        }
    return m["deg"]


def _deg(c: Ctx) -> dict[tuple[int, float], dict[str, list]]:
    for d in c.scale.degrees:
        for x in c.scale.deg_loads:
            for s in ("pias", "resqueue"):
                _record(c, f"{s} degree {d} {x:.0%}", _get(c, s, x, degree=d))
    return _deg_data(c)


def _deg_plot(c: Ctx, per: dict[tuple[int, float], Interval]) -> Any:
    from ..framework import bars

    def plot(ax: Any) -> None:
        degs = list(c.scale.degrees)
        series = {f"{x:.0%}": [per[(d, x)] for d in degs] for x in c.scale.deg_loads}
        bars(
            ax,
            [str(d) for d in degs],
            series,
            xlabel="incast degree",
            ylabel="ResQueue p99 FCT / PIAS",
            ref=1,
        )

    return plot


def _deg_ratio(c: Ctx) -> dict[tuple[int, float], Interval]:
    """p99 ResQueue ÷ PIAS per (degree, load) (memoized: both Fig 5 findings use it)."""
    m = _memo(c)
    dd = _deg_data(c)
    if "deg_ratio" not in m:
        f = _pct(99)
        m["deg_ratio"] = {
            k: bootstrap(lambda u, v: f(u) / f(v), v["resqueue"], v["pias"], lazy=True)
            for k, v in dd.items()
        }
    return m["deg_ratio"]


def eval_fig5_below(c: Ctx, fd: Finding) -> None:
    _deg(c)  # records the points
    per = _deg_ratio(c)
    fd.ours = "p99 ResQueue ÷ PIAS: " + ", ".join(f"d{d}@{x:.0%} {v}" for (d, x), v in per.items())
    fd.judge(**{f"d{d}_at_{x:.0%}": band(v, 0, 1.0) for (d, x), v in per.items()})
    if fd.verdict != HOLDS:
        # ResQueue ÷ PIAS ≤ 1 is PIAS ÷ ResQueue ≥ 1.
        dmax = (max(c.scale.degrees),)
        fd.note += " " + _abl_note(c, "p99", degrees=dmax, gain_band=(1.0, math.inf))
    fd.plot = _deg_plot(c, per)


def eval_fig5_avg(c: Ctx, fd: Finding) -> None:
    dd = _deg(c)
    keys = [k for k in dd if k[1] > 0.4]
    f = _pct(99)
    n = len(keys)
    g = bootstrap(
        lambda *a: float(np.mean([f(a[i]) / f(a[n + i]) for i in range(n)])),
        *(dd[k]["pias"] for k in keys),
        *(dd[k]["resqueue"] for k in keys),
        lazy=True,
    )
    fd.stats = {"pias_over_resqueue_p99": g}
    fd.ours = f"mean over degrees and loads > 40% of PIAS ÷ ResQueue p99: {g}"
    lo, hi = effect_band(1.6)
    fd.judge(mean_gain=band(g, lo, hi))
    if fd.verdict != HOLDS:
        dmax = (max(c.scale.degrees),)
        fd.note += " " + _abl_note(c, "p99", degrees=dmax, gain_band=(lo, hi))
    fd.plot = _deg_plot(c, _deg_ratio(c))
