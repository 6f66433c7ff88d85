"""C3 reproduction: C3-SIM-BASE, Figs 6–9 on the two-tier tree (and the 3:1
oversubscribed one), Poisson workloads over seeds.

Owns the tree runs' keys (:func:`add_tree`, :func:`tree_runs`), the per-seed metrics of the
measurement window, and every tree figure's plan and evaluation; each evaluation runs under
both readings of C3's ambiguous choices (:func:`_two_readings`: the verdict on the printed
law, the other reading's numbers and verdict appended).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from ..framework import Ctx, Finding, PerSeed, band, bars, effect_band, exact, lines, seeded
from .metrics import (
    _ms,
    _pct,
    diff_iv,
    fcts,
    fcts_both,
    goodput_bins,
    mean_iv,
    miss_ratio_iv,
    misses,
    ratio_iv,
)
from .notes import _c3_note
from .scenario import payload, tree

# ---------------------------------------------------------------------------------------------
# C3-SIM-BASE: Figs 6–9 on the tree


WORKLOADS = {"WS": "websearch", "DM": "datamining_vl2", "MR": "fb_hadoop"}


def tree_key(cdf: str, objs: Sequence[str], mode: str, **kw: Any) -> tuple:
    return ("tree", cdf, tuple(objs), mode, tuple(sorted(kw.items())))


def add_tree(c: Ctx, cdf: str, objs: Sequence[str], mode: str, **kw: Any) -> None:
    for s in c.seeds:
        c.add((*tree_key(cdf, objs, mode, **kw), s), tree(cdf, objs, mode, c.scale, **kw), {}, s)


def tree_runs(c: Ctx, cdf: str, objs: Sequence[str], mode: str, **kw: Any) -> list[Any]:
    return c.seeds_of(*tree_key(cdf, objs, mode, **kw))


@seeded
def t_miss(rs: Sequence[Any]) -> PerSeed:
    return [misses(r, window=True) for r in rs]


@seeded
def t_fct(rs: Sequence[Any]) -> PerSeed:
    return [fcts(r, "ps", window=True) for r in rs]


def t_fct_both(a: Sequence[Any], b: Sequence[Any]) -> tuple[PerSeed, PerSeed, str]:
    """PS FCTs of the window's flows finished in both arms (one seed: the same flows), and
    how many those are (``metrics.fcts_both``): what every AFCT comparison of two arms with
    the same PS workload reads."""
    pa, pb, n, m = fcts_both(a, b, "ps", window=True)
    return pa, pb, f"{n} of {m} PS flows finished in both"


@seeded
def t_ts(rs: Sequence[Any], c: Ctx, per_flow: float, n: int) -> PerSeed:
    """TS goodput per 5 ms interval of the measurement window, per TS flow (b/s)."""
    w0, w1 = c.scale.tree_warmup_ms / 1e3, c.scale.tree_ms / 1e3
    return [goodput_bins(r, "ts", w0, w1) / n / per_flow for r in rs]


ALL3 = ("ds", "ps", "ts")

#: The tree key of the second arm (:data:`OTHER_READING` in the C3 runs).
OTHER: dict[str, str] = {"reading": "other"}
OTHER_LABEL = "other reading (variant additive + start share)"


def _lbl(rd: dict[str, str]) -> str:
    return f"{OTHER_LABEL}: " if rd else ""


def _two_readings(body: Callable[[Ctx, Finding, dict[str, str]], None]) -> Callable:
    """A tree figure's evaluation under both readings of C3's ambiguous choices: the verdict,
    statistics and plot on the printed law (``body(c, fd, {})``); the other reading's numbers
    (``other_*`` statistics) and its own verdict, with the rule parts it missed, appended to
    the row's "ours"."""

    def ev(c: Ctx, fd: Finding) -> None:
        body(c, fd, {})
        alt = Finding(fd.figure, fd.claim, fd.rule)
        body(c, alt, OTHER)
        fd.stats |= {f"other_{k}": v for k, v in alt.stats.items()}
        why = f" {alt.note}" if alt.note else ""
        fd.ours = f"{fd.ours} ‖ {OTHER_LABEL}: {alt.ours}; its verdict: {alt.verdict}{why}"
        _c3_note(fd)

    return ev


def plan_fig6(c: Ctx) -> None:
    for cdf in c.scale.workloads:
        for mode in ("es", "c3"):
            add_tree(c, WORKLOADS[cdf], ALL3, mode)
        add_tree(c, WORKLOADS[cdf], ALL3, "c3", **OTHER)


def _fig6(c: Ctx, fd: Finding, rd: dict[str, str]) -> None:
    parts, stats, ours = {}, {}, []
    gains = {}
    for w in c.scale.workloads:
        a = tree_runs(c, WORKLOADS[w], ALL3, "es")
        b = tree_runs(c, WORKLOADS[w], ALL3, "c3", **rd)
        if not rd:  # the same runs under both readings
            c.point(f"{w} without C3", a, sum(len(r.flows) for r in a))
        c.point(_lbl(rd) + f"{w} with C3", b, sum(len(r.flows) for r in b))
        pa, pb, nboth = t_fct_both(a, b)
        g = ratio_iv(pa, pb)
        md = miss_ratio_iv(t_miss(a), t_miss(b))
        dd = diff_iv(t_miss(a), t_miss(b))
        tsb = mean_iv(t_ts(b, c, payload(300e6, True), 40))
        tsa = mean_iv(t_ts(a, c, payload(300e6, False), 40))
        gains[w] = g
        stats |= {f"{w}_ps_gain": g, f"{w}_ds_miss_ratio": md, f"{w}_ts_c3": tsb, f"{w}_ts_es": tsa}
        ours.append(
            f"{w}: PS AFCT ×{g} ({nboth}), DS misses {_pct(mean_iv(t_miss(a)))} → "
            f"{_pct(mean_iv(t_miss(b)))} (×{md}), TS / guarantee {tsa} → {tsb}"
        )
        parts[f"{w}_c3_better_afct"] = band(g, 1.0 + 1e-9)
        parts[f"{w}_c3_fewer_misses"] = band(dd, 1e-9)
        parts[f"{w}_ts_meets_guarantee_c3"] = band(tsb, 0.95)
    if "WS" in gains and len(gains) > 1:
        parts["ws_gain_largest"] = exact(all(gains["WS"].est >= v.est for v in gains.values()))
    fd.stats = stats
    fd.ours = "; ".join(ours)
    fd.judge(**parts)

    def plot(ax: Any) -> None:
        ws = list(c.scale.workloads)
        bars(
            ax,
            ws,
            {
                "PS AFCT gain": [stats[f"{w}_ps_gain"] for w in ws],
                "DS miss ratio reduction": [stats[f"{w}_ds_miss_ratio"] for w in ws],
            },
            xlabel="workload",
            ylabel="without C3 / with C3",
            ref=1.0,
        )

    fd.plot = plot


FIG7A = {"DS+PS": ("ds", "ps"), "DS+TS": ("ds", "ts"), "DS+TS+PS": ALL3}
FIG7B = {"PS+DS": ("ds", "ps"), "PS+TS": ("ps", "ts"), "PS+TS+DS": ALL3}


def plan_fig7(c: Ctx) -> None:
    for objs in (*FIG7A.values(), *FIG7B.values()):
        for mode in ("es", "c3"):
            add_tree(c, "websearch", objs, mode)
        add_tree(c, "websearch", objs, "c3", **OTHER)
    add_tree(c, "websearch", ("ps",), "none")


def _fig7a(c: Ctx, fd: Finding, rd: dict[str, str]) -> None:
    parts, stats, ours, best = {}, {}, [], []
    for k, objs in FIG7A.items():
        a = tree_runs(c, "websearch", objs, "es")
        b = tree_runs(c, "websearch", objs, "c3", **rd)
        c.point(_lbl(rd) + f"{k} without / with C3", a + b, sum(len(r.flows) for r in a + b))
        ma, mb = mean_iv(t_miss(a)), mean_iv(t_miss(b))
        red = miss_ratio_iv(t_miss(a), t_miss(b))
        best.append(red)
        stats |= {f"{k}_miss_es": ma, f"{k}_miss_c3": mb, f"{k}_reduction": red}
        ours.append(f"{k}: {_pct(ma)} → {_pct(mb)} (×{red})")
        parts[f"{k}_c3_fewer"] = band(diff_iv(t_miss(a), t_miss(b)), 1e-9)
    top = max(best, key=lambda v: v.est)
    parts["up_to_3x"] = band(top, *effect_band(3.0))
    fd.stats = stats
    fd.ours = "DS miss ratio without → with C3: " + "; ".join(ours)
    fd.judge(**parts)

    def plot(ax: Any) -> None:
        ks = list(FIG7A)
        bars(
            ax,
            ks,
            {
                "without C3": [stats[f"{k}_miss_es"] for k in ks],
                "with C3": [stats[f"{k}_miss_c3"] for k in ks],
            },
            xlabel="DS with",
            ylabel="deadline-miss ratio",
        )

    fd.plot = plot


def _fig7b(c: Ctx, fd: Finding, rd: dict[str, str]) -> None:
    stats, ours = {}, []
    fc = {}
    for k, objs in FIG7B.items():
        a = tree_runs(c, "websearch", objs, "es")
        b = tree_runs(c, "websearch", objs, "c3", **rd)
        c.point(_lbl(rd) + f"{k} without / with C3", a + b, sum(len(r.flows) for r in a + b))
        # without C3, each mix its own PS flows (compared across mixes below, unpaired)
        fc[k] = t_fct(a)
        pa, pb, nboth = t_fct_both(a, b)
        ga, gb, g = mean_iv(pa), mean_iv(pb), ratio_iv(pa, pb)
        stats |= {f"{k}_afct_es_s": ga, f"{k}_afct_c3_s": gb, f"{k}_gain": g}
        ours.append(f"{k}: {_ms(ga)} → {_ms(gb)} (×{g}; {nboth})")
    alone = tree_runs(c, "websearch", ("ps",), "none")
    if not rd:  # the same runs under both readings
        c.point("PS alone (L2DCT)", alone, sum(len(r.flows) for r in alone))
    hurt_ds = ratio_iv(fc["PS+DS"], t_fct(alone))
    stats["ps_with_ds_over_alone"] = hurt_ds
    fd.stats = stats
    fd.ours = "PS AFCT without → with C3: " + "; ".join(ours) + f"; PS+DS / PS alone ×{hurt_ds}"
    fd.judge(
        ts_hurts_more_than_ds=band(ratio_iv(fc["PS+TS"], fc["PS+DS"]), 1 + 1e-9),
        ts_ds_hurts_more_than_ds=band(ratio_iv(fc["PS+TS+DS"], fc["PS+DS"]), 1 + 1e-9),
        c3_4x_with_ts_ds=band(stats["PS+TS+DS_gain"], *effect_band(4.0)),
        ds_alone_not_hurt=band(hurt_ds, -math.inf, 1.2),
    )

    def plot(ax: Any) -> None:
        ks = list(FIG7B)
        bars(
            ax,
            ks,
            {
                "without C3": [stats[f"{k}_afct_es_s"].scaled(1e3) for k in ks],
                "with C3": [stats[f"{k}_afct_c3_s"].scaled(1e3) for k in ks],
            },
            xlabel="PS with",
            ylabel="PS AFCT (ms)",
        )

    fd.plot = plot


def plan_fig8(c: Ctx) -> None:
    for load in c.scale.loads:
        for o in ("ds", "ps"):
            for mode in ("none", "c3"):
                add_tree(c, "websearch", (o,), mode, load=load)
            add_tree(c, "websearch", (o,), "c3", load=load, **OTHER)


def _fig8a(c: Ctx, fd: Finding, rd: dict[str, str]) -> None:
    loads = list(c.scale.loads)
    ma, mb, red, parts = [], [], [], {}
    for ld in loads:
        a = tree_runs(c, "websearch", ("ds",), "none", load=ld)
        b = tree_runs(c, "websearch", ("ds",), "c3", load=ld, **rd)
        c.point(_lbl(rd) + f"load {ld:g}", a + b, sum(len(r.flows) for r in a + b))
        ma.append(mean_iv(t_miss(a)))
        mb.append(mean_iv(t_miss(b)))
        red.append(miss_ratio_iv(t_miss(a), t_miss(b)))
        parts[f"c3_fewer_at_{ld:g}"] = band(diff_iv(t_miss(a), t_miss(b)), 1e-9)
    parts["up_to_2_5x"] = band(max(red, key=lambda v: v.est), *effect_band(2.5))
    parts["c3_meets_almost_all_at_low_load"] = band(mb[0], -math.inf, 0.05)
    fd.stats = {f"miss_d2tcp_{ld:g}": x for ld, x in zip(loads, ma, strict=True)} | {
        f"miss_c3_{ld:g}": x for ld, x in zip(loads, mb, strict=True)
    }
    fd.ours = "; ".join(
        f"load {ld:g}: D2TCP {_pct(x)}, C3 {_pct(y)}"
        for ld, x, y in zip(loads, ma, mb, strict=True)
    )
    fd.judge(**parts)

    def plot(ax: Any) -> None:
        lines(ax, loads, {"D2TCP": ma, "C3": mb}, xlabel="load", ylabel="deadline-miss ratio")

    fd.plot = plot


def _fig8b(c: Ctx, fd: Finding, rd: dict[str, str]) -> None:
    loads = list(c.scale.loads)
    ga, gb, gain, both = [], [], [], []
    for ld in loads:
        a = tree_runs(c, "websearch", ("ps",), "none", load=ld)
        b = tree_runs(c, "websearch", ("ps",), "c3", load=ld, **rd)
        c.point(_lbl(rd) + f"load {ld:g}", a + b, sum(len(r.flows) for r in a + b))
        pa, pb, nboth = t_fct_both(a, b)
        ga.append(mean_iv(pa).scaled(1e3))
        gb.append(mean_iv(pb).scaled(1e3))
        gain.append(ratio_iv(pa, pb))
        both.append(nboth)
    fd.stats = {f"gain_{ld:g}": g for ld, g in zip(loads, gain, strict=True)}
    fd.ours = "AFCT L2DCT / C3: " + "; ".join(
        f"load {ld:g}: {x.est:.2f} / {y.est:.2f} ms (×{g}; {nb})"
        for ld, x, y, g, nb in zip(loads, ga, gb, gain, both, strict=True)
    )
    fd.judge(
        similar_at_low_load=band(gain[0], 0.9, 1.1),
        better_at_high_load=band(gain[-1], 1 + 1e-9),
    )

    def plot(ax: Any) -> None:
        lines(ax, loads, {"L2DCT": ga, "C3": gb}, xlabel="load", ylabel="PS AFCT (ms)")

    fd.plot = plot


def plan_fig9o(c: Ctx) -> None:
    for mode in ("es", "c3"):
        add_tree(c, "websearch", ALL3, mode, oversub=True)
    add_tree(c, "websearch", ALL3, "c3", oversub=True, **OTHER)


def _fig9o(c: Ctx, fd: Finding, rd: dict[str, str]) -> None:
    a = tree_runs(c, "websearch", ALL3, "es", oversub=True)
    b = tree_runs(c, "websearch", ALL3, "c3", oversub=True, **rd)
    if not rd:  # the same runs under both readings
        c.point("without C3", a, sum(len(r.flows) for r in a))
    c.point(_lbl(rd) + "with C3", b, sum(len(r.flows) for r in b))
    pa, pb, nboth = t_fct_both(a, b)
    g = ratio_iv(pa, pb)
    md = miss_ratio_iv(t_miss(a), t_miss(b))
    fd.stats = {"ps_gain": g, "ds_miss_ratio": md}
    fd.ours = (
        f"PS AFCT ×{g} ({_ms(mean_iv(pa))} → {_ms(mean_iv(pb))}; {nboth}); DS misses "
        f"{_pct(mean_iv(t_miss(a)))} → {_pct(mean_iv(t_miss(b)))} (×{md})"
    )
    fd.judge(
        ps_20pct=band(g, *effect_band(1.2)),
        ds_marginal=band(md, 0.95, 1.5),
    )

    def plot(ax: Any) -> None:
        bars(ax, ["PS AFCT", "DS misses"], {"without / with C3": [g, md]}, xlabel="", ylabel="×")

    fd.plot = plot


def plan_fig9t(c: Ctx) -> None:
    for mode in ("es", "c3"):
        add_tree(c, "websearch", ALL3, mode)
    add_tree(c, "websearch", ALL3, "c3", inner="dctcp")
    add_tree(c, "websearch", ALL3, "c3", **OTHER)
    add_tree(c, "websearch", ALL3, "c3", inner="dctcp", **OTHER)


def _fig9t(c: Ctx, fd: Finding, rd: dict[str, str]) -> None:
    a = tree_runs(c, "websearch", ALL3, "es")
    b = tree_runs(c, "websearch", ALL3, "c3", **rd)
    d = tree_runs(c, "websearch", ALL3, "c3", inner="dctcp", **rd)
    c.point(_lbl(rd) + "C3 with DCTCP inside", d, sum(len(r.flows) for r in d))
    pa, pd_, nboth = t_fct_both(a, d)
    g = ratio_iv(pa, pd_)
    ma, mb, md = (mean_iv(t_miss(x)) for x in (a, b, d))
    fd.stats = {"ps_gain_dctcp": g, "miss_es": ma, "miss_c3": mb, "miss_c3_dctcp": md}
    fd.ours = (
        f"PS AFCT originals / C3+DCTCP ×{g} ({nboth}); DS misses: originals {_pct(ma)}, C3+D2TCP "
        f"{_pct(mb)}, C3+DCTCP {_pct(md)}"
    )
    fd.judge(
        ps_3x=band(g, *effect_band(3.0)),
        ds_better_than_d2tcp=band(diff_iv(t_miss(a), t_miss(d)), 1e-9),
        ds_worse_than_c3_d2tcp=band(diff_iv(t_miss(d), t_miss(b)), 1e-9),
    )

    def plot(ax: Any) -> None:
        bars(
            ax,
            ["originals", "C3+D2TCP/L2DCT", "C3+DCTCP"],
            {"DS miss ratio": [ma, mb, md]},
            xlabel="",
            ylabel="deadline-miss ratio",
        )

    fd.plot = plot


eval_fig6 = _two_readings(_fig6)
eval_fig7a = _two_readings(_fig7a)
eval_fig7b = _two_readings(_fig7b)
eval_fig8a = _two_readings(_fig8a)
eval_fig8b = _two_readings(_fig8b)
eval_fig9o = _two_readings(_fig9o)
eval_fig9t = _two_readings(_fig9t)
