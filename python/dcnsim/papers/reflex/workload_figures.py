"""REFLEX reproduction: Figs 13–17, the three workloads on a 20-server ToR: per-flow
speed-ups of fixed 9:1 prioritization and of REFLEX over no prioritization.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..framework import Ctx, Finding, Scale, band, bars, exact
from .metrics import speedups
from .scenario import PRESET, workload_overrides


def _wl_variants(sc: Scale, wl: str) -> list[tuple[str, dict[str, float]]]:
    out: list[tuple[str, dict[str, float]]] = [("none", {}), ("w9:1", {})]
    out += [("reflex", {"alpha": a}) for a in sc.wl_alphas]
    if wl in sc.wl_r_names:
        out += [("reflex", {"alpha": 1.0, "reliability": r}) for r in sc.wl_rs]
    return out


def _vkey(scheme: str, kw: dict[str, float]) -> str:
    return scheme + "".join(f" {k}={v:g}" for k, v in kw.items())


def plan_wl(c: Ctx) -> None:
    for wl in c.scale.wl_names:
        for scheme, kw in _wl_variants(c.scale, wl):
            for s in c.seeds:
                ov = workload_overrides(wl, scheme, c.scale, **kw)
                c.add(("wl", wl, _vkey(scheme, kw), s), PRESET, ov, s)


def _wl_eval(wl: str, c: Ctx, fd: Finding, flex_focus: bool) -> None:
    from ..framework import bootstrap, by_seed

    sc = c.scale
    bases = c.seeds_of("wl", wl, "none")
    res = {}
    deliv_ok, deliv_min = True, {}
    for scheme, kw in _wl_variants(sc, wl)[1:]:
        k = _vkey(scheme, kw)
        runs = c.seeds_of("wl", wl, k)
        if "reliability" in kw:
            # Spec §5.2.6: every flexible flow delivers at least r of its bytes.
            # (Flows still running at the end report their progress, not a delivery.)
            d = np.concatenate(
                [
                    r.flows[(r.flows["class"] == "flexible") & r.flows.completed].delivered
                    for r in runs
                ]
            )
            deliv_min[k] = float(d.min())
            deliv_ok &= bool((d >= kw["reliability"] - 1e-9).all())
        res[k] = {
            cls: by_seed(runs, [speedups(b, r, cls) for b, r in zip(bases, runs, strict=True)])
            for cls in ("regular", "flexible")
        }
        c.point(f"{wl} {k}", runs, sum(len(x) for x in res[k]["regular"]))
    c.point(f"{wl} none", bases, len(bases[0].flows))
    ref = _vkey("reflex", {"alpha": 0.8})
    if ref not in res:
        ref = next(k for k in res if k.startswith("reflex"))

    def mean(v: np.ndarray) -> float:
        return float(np.mean(v)) if len(v) else math.nan

    def slowed(v: np.ndarray) -> float:
        return float(np.mean(v < 0.8)) if len(v) else math.nan

    def p99(v: np.ndarray) -> float:
        return float(np.percentile(v, 1)) if len(v) else math.nan  # the slowest 1 %

    st = {}
    for k, d in res.items():
        st[f"{k} regular mean"] = bootstrap(mean, d["regular"])
        st[f"{k} flexible mean"] = bootstrap(mean, d["flexible"])
        st[f"{k} flexible slowed<0.8"] = bootstrap(slowed, d["flexible"])
    fd.stats = {k.replace(" ", "_"): v for k, v in st.items()}
    fd.ours = "; ".join(f"{k}: {v}" for k, v in st.items())
    if deliv_min:
        fd.ours += "; least delivered fraction of a completed flexible flow: " + ", ".join(
            f"{k}: {v:.3f}" for k, v in deliv_min.items()
        )
    w = "w9:1"
    if flex_focus:
        extra = {"delivered_never_below_r": exact(deliv_ok)} if deliv_min else {}
        fd.judge(
            **extra,
            reflex_slows_fewer_flexible_than_9_1=band(
                bootstrap(
                    lambda a, b: slowed(a) - slowed(b), res[ref]["flexible"], res[w]["flexible"]
                ),
                hi=0.0,
            ),
            reflex_flexible_above_9_1=band(
                bootstrap(lambda a, b: mean(a) - mean(b), res[ref]["flexible"], res[w]["flexible"]),
                lo=0.0,
            ),
        )
    else:
        fd.judge(
            weighted_regular_speedup=band(st[f"{w} regular mean"], lo=1.0),
            reflex_regular_not_slower=band(st[f"{ref} regular mean"], lo=0.97),
            reflex_regular_below_weighted=band(
                bootstrap(lambda a, b: mean(a) - mean(b), res[w]["regular"], res[ref]["regular"]),
                lo=0.0,
            ),
        )

    def plot(ax: Any) -> None:
        xs = list(res)
        bars(
            ax,
            xs,
            {
                "regular mean speed-up": [st[f"{k} regular mean"] for k in xs],
                "flexible mean speed-up": [st[f"{k} flexible mean"] for k in xs],
            },
            xlabel="scheme",
            ylabel="speed-up vs no prioritization",
            ref=1.0,
        )

    fd.plot = plot


def eval_wl(wl: str, flex_focus: bool) -> Any:
    def ev(c: Ctx, fd: Finding) -> None:
        _wl_eval(wl, c, fd, flex_focus)

    return ev
