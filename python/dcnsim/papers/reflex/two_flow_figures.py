"""REFLEX reproduction: the figures of one flexible and one regular flow, and the
calculations about them.

Owns Figs 2 and 3 (calculated rates), 4 and 5 (the two cases simulated; Case 1's square
wave), 6 (partial delivery vs r), 7 (the fair-share estimate vs T_int), 9 and 10 (the budget
timeline simulated and calculated; the exploit size needed per α/r): their plans,
evaluations and plots.
"""

from __future__ import annotations

import math
from itertools import pairwise
from typing import Any

import numpy as np

from ..framework import HOLDS, Ctx, Finding, band, bars, exact, lines
from .calculations import (
    D_EXPLOIT_DEFAULT,
    FIG10B_FACTORS,
    budget_time_calc,
    calc_rates,
    exploit_needed,
    fig2_rates,
    spendable_fraction,
)
from .metrics import _pt, competition_rates, first_low, phase_rates
from .scenario import GOODPUT, PRESET, SCHEMES, case_overrides, fig6_overrides

# ---------------------------------------------------------------------------------------------
# Fig 2, 3 (calculation)


def plan_none(c: Ctx) -> None:
    return None


def eval_fig2(c: Ctx, fd: Finding) -> None:
    eq, low = fig2_rates()
    ok = np.allclose(eq, [1 / 3, 1 / 3, 1 / 3, 2 / 3]) and np.allclose(low, [0.5, 0, 0.5, 0.5])
    fd.ours = f"equal: {np.round(eq, 4).tolist()}; one A→B low: {np.round(low, 4).tolist()}"
    fd.stats = {"cd_equal": _pt(eq[3]), "cd_low": _pt(low[3])}
    fd.verdict = exact(bool(ok))


def eval_fig3(c: Ctx, fd: Finding) -> None:
    rows = {(k, s): calc_rates(k, s) for k in (1, 2) for s in SCHEMES}
    c1 = rows[(1, "reflex")]["regular"]
    c2 = rows[(2, "reflex")]["flexible"]
    fd.ours = "; ".join(
        f"case {k} {s}: flex {r['flexible']:.2f} reg {r['regular']:.2f}"
        for (k, s), r in rows.items()
    )
    fd.stats = {"case1_reflex_regular": _pt(c1), "case2_reflex_flexible": _pt(c2)}
    fd.judge(
        case1_reflex_regular_7_4=exact(abs(c1 - 7.4) < 1e-9),
        case2_reflex_flexible_4_5=exact(abs(c2 - 4.5) < 1e-9),
        baseline_5_5=exact(np.allclose(list(rows[(1, "none")].values()), [5, 5])),
        absolute_0_10=exact(np.allclose(list(rows[(2, "absolute")].values()), [0, 10])),
    )

    def plot(ax: Any) -> None:
        xs = list(SCHEMES)
        series = {
            f"case {k} {who}": [_pt(rows[(k, s)][who]) for s in xs]
            for k, who in ((1, "regular"), (2, "flexible"))
        }
        bars(ax, xs, series, xlabel="scheme", ylabel="calculated rate (Gb/s)")

    fd.plot = plot


# ---------------------------------------------------------------------------------------------
# Fig 4, 5 (simulation)


def plan_fig4(c: Ctx) -> None:
    for case in (1, 2):
        for s in SCHEMES:
            # Case 1 is decided by 2.3 s (the regular flow's end); Case 2 needs the absolute
            # scheme's starved flexible flow to finish after the 40 Gbit regular flow.
            dur = c.scale.case1_duration if case == 1 else c.scale.case2_duration
            ov = case_overrides(case, s, duration=dur, trace="1ms")
            c.add(("fig4", case, s), PRESET, ov, 1)


def eval_fig4(c: Ctx, fd: Finding) -> None:
    sim = {}
    for case in (1, 2):
        for s in SCHEMES:
            r = c.get(("fig4", case, s))
            sim[(case, s)] = competition_rates(r)
            c.point(f"case {case} {s}", [r], len(r.flows))
    reg1 = sim[(1, "reflex")]["regular"]
    flex2 = sim[(2, "reflex")].get("flexible", math.nan)
    abs2 = sim[(2, "absolute")].get("flexible", math.nan)
    ratio1 = reg1 / (calc_rates(1, "reflex")["regular"] * GOODPUT)
    ratio2 = flex2 / (calc_rates(2, "reflex")["flexible"] * GOODPUT)
    fd.stats = {
        "case1_reflex_regular_gbps": _pt(reg1),
        "case1_sim_over_calc_goodput": _pt(ratio1),
        "case2_reflex_flexible_gbps": _pt(flex2),
        "case2_sim_over_calc_goodput": _pt(ratio2),
        "case2_absolute_flexible_gbps": _pt(abs2),
    }
    fd.ours = (
        f"Case 1 REFLEX regular {reg1:.2f} Gb/s (= {ratio1:.3f} × 7.4 × {GOODPUT:.3f}); "
        f"Case 2 REFLEX flexible {flex2:.2f} Gb/s (= {ratio2:.3f} × 4.5 × {GOODPUT:.3f}); "
        f"Case 2 absolute flexible {abs2:.2f} Gb/s. All: "
        + "; ".join(
            f"c{k} {s}: flex {v.get('flexible', math.nan):.2f} reg {v.get('regular', math.nan):.2f}"
            for (k, s), v in sim.items()
        )
    )
    # Physics bands: the header overhead (×0.962) is in the reference; what is left is the
    # partial first and last cycles of a ~0.28 s (Case 1) / ~0.45 s (Case 2) competition and
    # DCTCP's convergence after each priority change: ±8 %.
    fd.judge(
        case1_regular_7_4_x_goodput=band(_pt(ratio1), 0.92, 1.08),
        case2_flexible_4_5_x_goodput=band(_pt(ratio2), 0.92, 1.08),
        case2_absolute_starves=band(_pt(abs2), -math.inf, 0.5),
    )

    def plot(ax: Any) -> None:
        xs = list(SCHEMES)
        series = {
            f"case {k} {who}": [_pt(sim[(k, s)].get(who, math.nan)) for s in xs]
            for k in (1, 2)
            for who in ("flexible", "regular")
        }
        bars(ax, xs, series, xlabel="scheme", ylabel="simulated goodput (Gb/s)")

    fd.plot = plot


def eval_fig5(c: Ctx, fd: Finding) -> None:
    r = c.get(("fig4", 1, "reflex"))
    exp, hi, _, _ = phase_rates(r)
    c.point("case 1 reflex", [r], len(r.flows))
    fd.stats = {"regular_exploit_gbps": _pt(exp), "regular_warmup_measure_gbps": _pt(hi)}
    fd.ours = (
        f"regular flow in exploit intervals {exp:.2f} Gb/s, in warmup/measure {hi:.2f} Gb/s "
        f"(DRR 9:1 × goodput = {9 * GOODPUT:.2f}; fair half = {5 * GOODPUT:.2f})"
    )
    # A square wave between the DRR share (9 Gb/s) and the fair share (5 Gb/s), ×0.962;
    # ±10 % for DCTCP's reaction to each switch of queue.
    fd.judge(
        exploit_9=band(_pt(exp / (9 * GOODPUT)), 0.9, 1.1),
        warmup_measure_5=band(_pt(hi / (5 * GOODPUT)), 0.9, 1.1),
    )

    def plot(ax: Any) -> None:
        for cls in ("flexible", "regular"):
            row = r.flows[r.flows["class"] == cls].iloc[0]
            x = r.traces[r.traces.flow_id == row.flow_id]
            t = x.t_s.to_numpy()
            rate = np.diff(x.bytes_acked.to_numpy()) * 8 / np.diff(t) / 1e9
            m = (t[1:] > 1.95) & (t[1:] < 2.45)
            ax.plot(t[1:][m], rate[m], label=cls, lw=0.8)
        ax.set_xlabel("time (s)")
        ax.set_ylabel("goodput (Gb/s, 1 ms bins)")
        ax.legend(fontsize=8)

    fd.plot = plot


# ---------------------------------------------------------------------------------------------
# Fig 6 (partial delivery)


def plan_fig6(c: Ctx) -> None:
    for r in c.scale.fig6_r:
        c.add(("fig6", r), PRESET, fig6_overrides(r), 1)


def eval_fig6(c: Ctx, fd: Finding) -> None:
    rs = list(c.scale.fig6_r)
    deliv, fct_f, fct_r = [], [], []
    for r in rs:
        res = c.get(("fig6", r))
        f = res.flows
        fl = f[f["class"] == "flexible"].iloc[0]
        rg = f[f["class"] == "regular"].iloc[0]
        deliv.append(float(fl.delivered))
        fct_f.append(float(fl.fct_s))
        fct_r.append(float(rg.fct_s))
        c.point(f"r={r}", [res], len(f))
    d = dict(zip(rs, deliv, strict=True))
    low = [d[r] for r in rs if r <= 0.5]
    fd.stats = {"delivered_r0": _pt(d[min(rs)]), "regular_fct_r0_s": _pt(fct_r[0])}
    fd.ours = (
        "delivered: "
        + ", ".join(f"r={r}: {x:.3f}" for r, x in d.items())
        + f"; regular FCT at r={min(rs)}: {fct_r[0]:.3f} s, at r=1: {fct_r[-1]:.3f} s"
    )
    # Physics: while both run the flexible flow drains B_r at 0.6·(5 − 1) = 2.4 Gb/s for the
    # regular flow's ≈ 8 / (7.4 × 0.962) = 1.12 s: ≈ 0.34 of 8 Gbit → a floor near 0.66.
    fd.judge(
        never_below_r=exact(all(x >= r - 1e-9 for r, x in d.items())),
        full_at_r1=exact(abs(d[max(rs)] - 1.0) < 1e-9),
        floor_about_0_65=band(_pt(d[min(rs)]), 0.55, 0.75),
        flat_below_0_6=exact(max(low) - min(low) < 0.05),
        falls_with_r=exact(all(a <= b + 1e-3 for a, b in pairwise(deliv))),
    )

    def plot(ax: Any) -> None:
        lines(
            ax,
            rs,
            {"flexible delivered": [_pt(x) for x in deliv], "r": [_pt(r) for r in rs]},
            xlabel="reliability r",
            ylabel="fraction delivered",
        )

    fd.plot = plot


# ---------------------------------------------------------------------------------------------
# Fig 7 (T_int)


def plan_fig7(c: Ctx) -> None:
    for ti in c.scale.fig7_tint:
        for end in c.scale.fig7_ends:
            ov = case_overrides(1, "reflex", interval=ti, duration=end)
            c.add(("fig7", ti, end), PRESET, ov, 1)


def eval_fig7(c: Ctx, fd: Finding) -> None:
    est = {}
    for ti in c.scale.fig7_tint:
        vals = []
        for end in c.scale.fig7_ends:
            res = c.get(("fig7", ti, end))
            fl = res.flows[res.flows["class"] == "flexible"].iloc[0]
            vals.append(float(fl.r_fair_bps) / 1e9)
            c.point(f"T_int {ti} end {end}", [res], len(res.flows))
        est[ti] = float(np.mean(vals))
    fd.stats = {f"estimate_{k}": _pt(v) for k, v in est.items()}
    fd.ours = "mean fair-share estimate during competition: " + ", ".join(
        f"T_int {k}: {v:.2f} Gb/s" for k, v in est.items()
    )
    half = 5 * GOODPUT
    parts = {}
    for k, v in est.items():
        if k == "1ms":
            parts["1ms_underestimates"] = band(_pt(v / half), -math.inf, 0.9)
        else:
            parts[f"{k}_about_half"] = band(_pt(v / half), 0.85, 1.15)
    fd.judge(**parts)

    def plot(ax: Any) -> None:
        xs = list(est)
        bars(
            ax,
            xs,
            {"estimate during competition": [_pt(est[k]) for k in xs]},
            xlabel="T_int",
            ylabel="fair-share estimate (Gb/s)",
            ref=half,
        )

    fd.plot = plot
    if fd.verdict != HOLDS:
        fd.note += (
            " Measured cause (Case 1, 0.25 ms bins after 2 s): returning from a LOW exploit "
            "phase the flexible flow's DCTCP window regains its share over several ms — at "
            "T_int = 2 ms it averages 2.7 Gb/s in the warmup and 4.0 Gb/s in the measure "
            "interval, at 5 ms 4.2 and 4.9 — so a 2 ms warmup is too short here; the paper's "
            "ns-3 run reports 2 ms as correct. Not tuned."
        )


# ---------------------------------------------------------------------------------------------
# Figs 9, 10 (budget accumulation; calculation and simulation)


def eval_fig10b(c: Ctx, fd: Finding) -> None:
    need = {a: exploit_needed(a) for a in FIG10B_FACTORS}
    ok = [a for a, d in need.items() if d is not None and d <= D_EXPLOIT_DEFAULT]
    frac = spendable_fraction(D_EXPLOIT_DEFAULT)
    fd.ours = (
        "D_exploit needed per α/r: "
        + ", ".join(f"{a}: {'none' if d is None else d}" for a, d in need.items())
        + f"; at D_exploit {D_EXPLOIT_DEFAULT} (spendable {frac:.2f}) the whole freedom is "
        f"spendable for α/r ≥ {min(ok)} on the 0.1 grid (continuous bound 1 − {frac:.2f} = "
        f"{1 - frac:.2f})"
    )
    fd.stats = {"threshold_de3": _pt(min(ok)), "continuous_threshold_de3": _pt(1 - frac)}
    finite = [need[a] for a in FIG10B_FACTORS if need[a] is not None]
    fd.judge(
        threshold_0_6_at_de3=exact(abs(min(ok) - 0.6) < 1e-9),
        none_suffices_at_or_below_0_2=exact(all(need[a] is None for a in (0.0, 0.1, 0.2))),
        non_increasing_in_alpha=exact(all(x >= y for x, y in pairwise(finite))),
    )
    fd.note += (
        " Exact in 1:1 warmup:measure and DRR 9:1 (LOW gets 1/5 of the fair share): the "
        "continuous threshold at D_exploit 3 is α/r ≥ 0.52; on the paper's 0.1 grid the first "
        "value that can spend its whole freedom is 0.6 (0.5 needs D_exploit 4)."
    )

    def plot(ax: Any) -> None:
        xs = [a for a in FIG10B_FACTORS if 0 < a < 1]
        ys = [_pt(math.nan if need[a] is None else float(need[a])) for a in xs]
        lines(
            ax,
            xs,
            {"calc": ys},
            xlabel="α / r",
            ylabel="D_exploit needed (intervals)",
            ref=D_EXPLOIT_DEFAULT,
        )

    fd.plot = plot


def plan_fig9(c: Ctx) -> None:
    for de in c.scale.fig9_exploit:
        ov = case_overrides(1, "reflex", duration="0.5s", trace="1ms")
        ov["scheme"]["exploit"] = de
        c.add(("fig9", de), PRESET, ov, 1)


def eval_fig9(c: Ctx, fd: Finding) -> None:
    sim, calc = {}, {}
    for de in c.scale.fig9_exploit:
        r = c.get(("fig9", de))
        sim[de] = first_low(r)
        calc[de] = budget_time_calc(0.9, de)
        c.point(f"D_exploit {de}", [r], len(r.flows))
    frac = spendable_fraction(3)
    fd.stats = {"first_low_s_de3": _pt(sim.get(3, math.nan)), "spendable_de3": _pt(frac)}
    fd.ours = (
        "first LOW interval (α = 0.9, flow alone from t = 0): "
        + ", ".join(
            f"D_exploit {k}: sim {sim[k] * 1e3:.0f} ms, calc {calc[k] * 1e3:.0f} ms" for k in sim
        )
        + f"; Fig 10a spendable fraction at D_exploit 3: {frac:.3f}"
    )
    # The sample that first shows LOW is at most one 1 ms trace step after the interval start.
    fd.judge(
        sim_equals_timeline=exact(all(abs(sim[k] - calc[k]) <= 0.0011 for k in sim)),
        about_175ms=band(_pt(sim.get(3, math.nan)), 0.150, 0.200),
        spendable_48pct=exact(abs(frac - 0.48) < 1e-9),
    )
    fd.note += (
        " Our timeline decides at measure→exploit boundaries only (t = 35 ms + k·25 ms), so "
        "the 135 ms accrual that starts at 35 ms is first covered at 185 ms; the paper's "
        "175 ms adds the parts (25 + 10 + 135 ms) and rounds to the next 25 ms."
    )

    def plot(ax: Any) -> None:
        xs = list(sim)
        lines(
            ax,
            xs,
            {"sim": [_pt(sim[k] * 1e3) for k in xs], "calc": [_pt(calc[k] * 1e3) for k in xs]},
            xlabel="D_exploit (intervals)",
            ylabel="time to first LOW (ms)",
        )

    fd.plot = plot
