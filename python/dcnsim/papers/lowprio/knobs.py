"""LPF Figs 7–11: co-location at the high load, TCP only, one knob at a time: the
low-priority queue's buffer (7), RTO_min (8), Cubic / NewReno with and without SACK (9),
TCP-LP and LEDBAT (10), and WFQ and TCP+ (11).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...results import Results
from ..framework import (
    HOLDS,
    INCONCLUSIVE,
    Ctx,
    Finding,
    PerSeed,
    band,
    bars,
    bootstrap,
    effect_band,
    seeded,
)
from .colocation import _cs
from .metrics import STATS, _fct_plot, _low, _rstr, low_fct, rel
from .presets import BUCKETS, MECHANISMS, coloc, low_transport

# ---------------------------------------------------------------------------------------------
# Figs 7–11: co-location at the high load, TCP only

BUFFERS = (192e3, 96e3, 64e3, 24e3)
RTOS = ("500us", "1ms", "5ms", "10ms")
TCP_VARIANTS = (("cubic", True), ("cubic", False), ("newreno", True), ("newreno", False))


def _c7(c: Ctx, key: tuple, **extra: Any) -> None:
    for s in _cs(c):
        c.add((*key, s), "lpf_colocation", coloc(c.scale.coloc_s, **extra), s)


def _runs(c: Ctx, *key: Any) -> list[Results]:
    return [c.get((*key, s)) for s in _cs(c)]


def plan_7(c: Ctx) -> None:
    for b in BUFFERS:
        # [CHOICE] the high queue stays 128 KB; the port limit never binds before the per-queue
        # limits, so the low queue can really use `b`.
        _c7(
            c,
            ("7", b),
            **{
                "switch.queue_limit": ["128KB", f"{b:.0f}B"],
                "switch.port_limit": f"{128e3 + b:.0f}B",
            },
        )


def eval_7(c: Ctx, fd: Finding) -> None:
    fct = {}
    for b in BUFFERS:
        runs = _runs(c, "7", b)
        fct[b] = low_fct(runs)
        c.point(f"low buffer {b / 1e3:g} KB", runs, sum(map(len, fct[b])))
    per = {b: {s: bootstrap(STATS[s], fct[b]) for s in ("mean", "p99")} for b in BUFFERS}
    r = rel(fct[24e3], fct[192e3], "p99")
    steps = [rel(fct[BUFFERS[i + 1]], fct[BUFFERS[i]], "p99") for i in range(len(BUFFERS) - 1)]
    fd.stats = {"p99_24_over_192": r}
    fd.ours = (
        "p99 (ms): "
        + ", ".join(f"{b / 1e3:g} KB {per[b]['p99'].scaled(1e3)}" for b in BUFFERS)
        + f"; 24/192 KB {r}"
    )
    lo, hi = effect_band(5.7)
    # monotone: no step may clearly go down (each shrink-step ratio ≥ 1 within tolerance 0.9)
    fd.judge(
        p99_24_over_192KB=band(r, lo, hi),
        **{
            f"step_{BUFFERS[i] / 1e3:g}_to_{BUFFERS[i + 1] / 1e3:g}KB": band(st, 0.9)
            for i, st in enumerate(steps)
        },
    )
    fd.plot = _fct_plot(
        [f"{b / 1e3:g}KB" for b in BUFFERS], list(per.values()), "low-priority buffer"
    )


def plan_8(c: Ctx) -> None:
    for rto in RTOS:
        _c7(c, ("8", rto), **low_transport(rto_min=rto, rto_init=rto))


def eval_8(c: Ctx, fd: Finding) -> None:
    fct, sp = {}, {}
    for rto in RTOS:
        runs = _runs(c, "8", rto)
        fct[rto] = low_fct(runs)
        sp[rto] = int(sum(_low(r)["spurious_rto"].sum() for r in runs))
        c.point(f"RTO_min {rto}", runs, sum(map(len, fct[rto])))
    per = {k: {s: bootstrap(STATS[s], v) for s in ("mean", "p99")} for k, v in fct.items()}
    arms = {k: rel(fct[k], fct["1ms"], "p99") for k in ("500us", "5ms", "10ms")}
    fd.stats = {f"p99_{k}_over_1ms": v for k, v in arms.items()}
    fd.ours = (
        "; ".join(f"{k}: p99 {per[k]['p99'].scaled(1e3)} ms, {sp[k]} spurious RTOs" for k in RTOS)
        + "; p99 ÷ 1 ms: "
        + _rstr(arms)
    )
    # "severely affects": each arm of the U at least 1.25× the 1 ms tail
    fd.judge(**{f"arm_{k}": band(v, 1.25) for k, v in arms.items()})
    fd.plot = _fct_plot(list(RTOS), list(per.values()), "RTO_min (low-priority transport)")


def plan_9(c: Ctx) -> None:
    for cc, sack in TCP_VARIANTS:
        _c7(c, ("9", cc, sack), **low_transport(cc=cc, sack=sack))


def eval_9(c: Ctx, fd: Finding) -> None:
    fct = {}
    for cc, sack in TCP_VARIANTS:
        runs = _runs(c, "9", cc, sack)
        k = f"{cc}{'+SACK' if sack else ''}"
        fct[k] = low_fct(runs)
        c.point(k, runs, sum(map(len, fct[k])))
    per = {k: {s: bootstrap(STATS[s], v) for s in ("mean", "p99")} for k, v in fct.items()}
    fm = STATS["mean"]
    spread = bootstrap(lambda *a: max(map(fm, a)) / min(map(fm, a)), *fct.values())
    fd.stats = {"mean_spread": spread}
    fd.ours = (
        "mean (ms): "
        + ", ".join(f"{k} {v['mean'].scaled(1e3)}" for k, v in per.items())
        + (f"; max/min {spread}")
    )
    # "minimal to no impact": the four means within 15% of each other
    fd.judge(spread=band(spread, 1.0, 1.15))
    fd.plot = _fct_plot(list(per), list(per.values()), "low-priority TCP variant")


def plan_10(c: Ctx) -> None:
    _c7(c, ("10", "tcp"))
    for m in ("tcp_lp", "ledbat"):
        _c7(c, ("10", m), **MECHANISMS[m])


def eval_10(c: Ctx, fd: Finding) -> None:
    fct = {}
    for m in ("tcp", "tcp_lp", "ledbat"):
        runs = _runs(c, "10", m)
        fct[m] = low_fct(runs)
        c.point(m, runs, sum(map(len, fct[m])))
    r = {(m, s): rel(fct[m], fct["tcp"], s) for m in ("tcp_lp", "ledbat") for s in ("mean", "p99")}
    fd.stats = {f"{m}_{s}": v for (m, s), v in r.items()}
    fm, f99 = STATS["mean"], STATS["p99"]
    worst_mean = bootstrap(
        lambda t, a, b: max(fm(a), fm(b)) / fm(t), fct["tcp"], fct["tcp_lp"], fct["ledbat"]
    )
    worst_p99 = bootstrap(
        lambda t, a, b: max(f99(a), f99(b)) / f99(t), fct["tcp"], fct["tcp_lp"], fct["ledbat"]
    )
    fd.stats.update({"worst_mean": worst_mean, "worst_p99": worst_p99})
    fd.ours = "; ".join(f"{m} {s} ÷ TCP {v}" for (m, s), v in r.items())
    lm, hm = effect_band(2.4)
    lp, hp = effect_band(6.67)
    fd.judge(
        tcp_lp_slower=band(r[("tcp_lp", "mean")], 1.0),
        ledbat_slower=band(r[("ledbat", "mean")], 1.0),
        worst_mean=band(worst_mean, lm, hm),
        worst_p99=band(worst_p99, lp, hp),
    )
    per = {m: {s: bootstrap(STATS[s], fct[m]) for s in ("mean", "p99")} for m in fct}
    fd.plot = _fct_plot(list(per), list(per.values()), "low-priority transport")


def plan_11(c: Ctx) -> None:
    _c7(c, ("11", "spq"), update=12e6)
    _c7(c, ("11", "wfq"), update=12e6, **{"switch.scheduler": {"kind": "drr", "weights": [99, 1]}})
    if not c.missing("cqcn"):
        _c7(c, ("11", "tcp+"), update=12e6, **MECHANISMS["cqcn"])


@seeded
def _hi999(runs: Sequence[Results]) -> PerSeed:
    out = []
    for r in runs:
        f = r.flows
        f = f[f["in_window"].astype(bool) & (f["priority"] == 0) & f["completed"].astype(bool)]
        out.append(f["fct_s"].to_numpy(dtype=float))
    return out


def eval_11(c: Ctx, fd: Finding) -> None:
    spq, wfq = _runs(c, "11", "spq"), _runs(c, "11", "wfq")
    red = {b: rel(low_fct(spq, b), low_fct(wfq, b), "p99.9") for b in BUCKETS}
    pen = rel(_hi999(wfq), _hi999(spq), "p99.9")
    for name, runs in (("SPQ", spq), ("WFQ 99:1", wfq)):
        for b in BUCKETS:
            c.point(f"{name}, {b}", runs, sum(map(len, low_fct(runs, b))))
    fd.stats = {f"wfq_{b}_p999_reduction": v for b, v in red.items()}
    fd.stats["wfq_high_p999_penalty"] = pen
    parts = [f"WFQ p99.9 reduction: {_rstr(red)}; high-priority p99.9 WFQ ÷ SPQ {pen}"]
    ls, hs = effect_band(9)
    lm, hm = effect_band(5.4)
    checks = {
        "WFQ_small": band(red["small"], ls, hs),
        "WFQ_medium": band(red["medium"], lm, hm),
        "WFQ_high_priority_cost": band(pen, 1.0, 1.12),
    }
    per = {"SPQ": spq, "WFQ 99:1": wfq}
    if c.missing("cqcn"):
        parts.append(f"TCP+ not available: {c.missing('cqcn')}")
        checks["TCP+"] = INCONCLUSIVE
    else:
        tp = _runs(c, "11", "tcp+")
        r = rel(low_fct(spq, "medium"), low_fct(tp, "medium"), "p99")
        c.point("TCP+, medium", tp, sum(map(len, low_fct(tp, "medium"))))
        fd.stats["tcpplus_medium_p99_reduction"] = r
        parts.append(f"TCP+ medium p99 reduction {r}")
        lt, ht = effect_band(6)
        checks["TCP+_medium"] = band(r, lt, ht)
        per["TCP+"] = tp
    fd.ours = "; ".join(parts)
    fd.judge(**checks)
    if fd.verdict != HOLDS:
        fd.note += " " + (
            "TCP+'s probe threshold (10 KB), interval (100 µs) and probe size (64 B) are not "
            "given by LPF; the threshold and the interval are swept in an ablation (below), the "
            "probe size is not. WFQ 99:1 leaves the low queue 1% of the link during the on "
            "period."
        )

    def plot(ax: Any) -> None:
        f999 = STATS["p99.9"]
        series = {
            name: [bootstrap(f999, low_fct(runs, b)).scaled(1e3) for b in BUCKETS]
            for name, runs in per.items()
        }
        bars(ax, list(BUCKETS), series, xlabel="flow size (12 MB updates)", ylabel="p99.9 FCT (ms)")

    fd.plot = plot
