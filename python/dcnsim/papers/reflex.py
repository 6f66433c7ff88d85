"""REFLEX reproduction (Kassing, Dukic, Zhang, Singla, "New primitives for bounded degradation
in network service"; paper 001; spec experiments.md REFLEX-BASE … REFLEX-Fig17).

Presets: the shipped scenario ``reflex`` (REFLEX-BASE devices, Case 1 under REFLEX); every
case and baseline is an override of it (:func:`case_overrides`). The calculated columns come
from the fluid max-min solver :func:`dcnsim.fluid.maxmin`.

Figures: 2 and 3 (calculation), 4 (simulation, both cases, all six schemes), 5 (Case 1
time series), 6 (partial delivery vs r), 7 (fair-share estimate vs T_int), 8 and 11 (many
short regular flows), 9 and 10a (budget timeline, simulated and calculated), 10b (exploit size
needed per α/r, calculated), 12 (convergence), 13–17 (the three workloads on a 20-server ToR;
speed-ups vs no prioritization). The reduced scale runs the r sweep of Figs 13–17 at one
point (r = 0.5, α = 1, Workload 3 only).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import pairwise
from typing import Any

import numpy as np

from ..fluid import maxmin
from .framework import (
    HOLDS,
    NO,
    Ctx,
    Figure,
    Finding,
    Interval,
    Reproduction,
    Scale,
    all_of,
    band,
    bars,
    exact,
    lines,
)

TITLE = "REFLEX: new primitives for bounded degradation in network service (Kassing et al.)"
PRESET = "reflex"
EXPECTED_TIME = "reduced: about 6 min (44 runs) on two cores; --full: not measured (many hours)"

#: Line rate (Gb/s) and the best goodput fraction on the REFLEX-BASE wire: 1380 B of payload
#: in a 1434 B frame (PPP 2 + IP 20 + TCP with timestamps 32); the paper's "approximately 96%".
LINE = 10.0
GOODPUT = 1380 / 1434

#: Schemes of Figs 3/4: name → (DRR weights of [high, low] or None for strict priority,
#: flexible flow's queue, REFLEX on).
SCHEMES: dict[str, tuple[list[float] | None, int, bool]] = {
    "none": ([90.0, 10.0], 0, False),  # no prioritization: both flows in the high queue
    "absolute": (None, 1, False),  # flexible always in a strictly lower queue
    "w9:1": ([9.0, 1.0], 1, False),  # fixed weighted prioritization, flexible always low
    "w2:1": ([2.0, 1.0], 1, False),
    "w10:9": ([10.0, 9.0], 1, False),
    "reflex": ([90.0, 10.0], 0, True),
}

#: Case 1: 40 Gbit flexible at 0 s, 2 Gbit regular at 2 s; Case 2 the other way round.
GBIT = 125_000_000


def _sched(weights: list[float] | None) -> dict[str, Any]:
    return {"kind": "strict"} if weights is None else {"kind": "drr", "weights": weights}


def case_overrides(
    case: int,
    scheme: str,
    *,
    alpha: float = 0.9,
    reliability: float | None = None,
    flex_gbit: float | None = None,
    reg_gbit: float | None = None,
    flex_start: str | None = None,
    reg_start: str | None = None,
    interval: str = "5ms",
    duration: str = "6s",
    trace: str | None = None,
) -> dict[str, Any]:
    """Overrides of the ``reflex`` preset for one two-flow case (1 or 2, REFLEX §4 Figs 3/4)
    under one of :data:`SCHEMES`; class 0 is the flexible flow (host 0 → 2), class 1 the
    regular flow (host 1 → 2)."""
    weights, flex_q, on = SCHEMES[scheme]
    fg = flex_gbit if flex_gbit is not None else (40.0 if case == 1 else 2.0)
    rg = reg_gbit if reg_gbit is not None else (2.0 if case == 1 else 40.0)
    fs = flex_start if flex_start is not None else ("0s" if case == 1 else "2s")
    rs = reg_start if reg_start is not None else ("2s" if case == 1 else "0s")
    flex: dict[str, Any] = {
        "name": "flexible",
        "priority": flex_q,
        "transport": "dctcp",
        "workload": {
            "kind": "flows",
            "list": [{"src": 0, "dst": 2, "size": f"{int(fg * GBIT)}B", "start": fs}],
        },
    }
    if on:
        flex["alpha"] = alpha
        if reliability is not None:
            flex["reliability"] = reliability
    reg = {
        "name": "regular",
        "priority": 0,
        "transport": "dctcp",
        "workload": {
            "kind": "flows",
            "list": [{"src": 1, "dst": 2, "size": f"{int(rg * GBIT)}B", "start": rs}],
        },
    }
    ov: dict[str, Any] = {
        "classes": [flex, reg],
        "switch.scheduler": _sched(weights),
        "host.scheduler": _sched(weights),
        "scheme": {"kind": "reflex", "interval": interval} if on else {"kind": "none"},
        "run.duration": duration,
        "run.horizon": duration,
    }
    if trace:
        ov["output.trace_flows"] = [0, 1]
        ov["output.trace_interval"] = trace
    return ov


# ---------------------------------------------------------------------------------------------
# calculations (fluid max-min)


def fig2_rates() -> tuple[np.ndarray, np.ndarray]:
    """REFLEX Fig. 2: (all equal priority, one A→B flow at low priority)."""
    caps = {"A": 1.0, "B": 1.0, "C": 1.0, "D": 1.0}
    paths = [["A", "B"], ["A", "B"], ["A", "D"], ["C", "D"]]
    return maxmin(paths, caps), maxmin(paths, caps, priority=[0, 1, 0, 0])


def calc_rates(case: int, scheme: str, alpha: float = 0.9, exploit_share: float = 0.6) -> dict:
    """Fluid rates (Gb/s, no header overhead) of the flexible and regular flow while both are
    active. REFLEX: the flexible flow is LOW for the exploit share of the time when it has
    budget (Case 1: built before the regular flow came) and otherwise keeps α of its fair
    share (Case 2: its budget grows only at (1 − α)·R_fair, so on average it holds α·R_fair)."""
    paths = [[0], [0]]
    fair = maxmin(paths, [LINE])
    if scheme == "reflex":
        low = maxmin(paths, [LINE], weights=[1.0, 9.0])  # DRR 90/10, flexible in the low queue
        if case == 1:
            r = exploit_share * low + (1 - exploit_share) * fair
        else:
            f = alpha * fair[0]
            r = np.array([f, LINE - f])
    elif scheme == "none":
        r = fair
    elif scheme == "absolute":
        r = maxmin(paths, [LINE], priority=[1, 0])
    else:
        w = SCHEMES[scheme][0]
        assert w is not None
        r = maxmin(paths, [LINE], weights=[w[1], w[0]])
    return {"flexible": float(r[0]), "regular": float(r[1])}


# ---------------------------------------------------------------------------------------------
# measurements


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


def fig6_overrides(r: float) -> dict[str, Any]:
    """8 Gbit flexible (α = 1, reliability r) vs 8 Gbit regular, both from t = 0."""
    return case_overrides(
        1,
        "reflex",
        alpha=1.0,
        reliability=r,
        flex_gbit=8.0,
        reg_gbit=8.0,
        flex_start="0s",
        reg_start="0s",
        duration="4s",
    )


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


def budget_time_calc(alpha: float, d_exploit: int, t_int: float = 0.005) -> float:
    """Seconds from a flow's start (at a cycle boundary) to its first LOW interval, from the
    algorithm's timeline: SYNC at the next cycle start (one cycle later, D·T_int), R_fair after
    warmup + measure (2 intervals), budget growing at (1 − α)·R_fair until it exceeds
    L = α·R_fair·D_exploit·T_int, checked only at measure→exploit boundaries (every cycle)."""
    d = 2 + d_exploit
    first = (d + 2) * t_int  # R_fair known; the first decision
    need = alpha * d_exploit * t_int / (1 - alpha)  # accrual time: L / ((1 − α)·R_fair)
    k = math.ceil(need / (d * t_int) - 1e-9)  # decisions after the first one
    return first + k * d * t_int


def spendable_fraction(d_exploit: int, low_share: float | None = None) -> float:
    """REFLEX Fig. 10a: the most of its fair share a flexible flow can give up in a two-flow
    competition: the exploit share of the cycle × what going LOW costs (1 − low / fair, from
    the fluid solver with DRR 9:1)."""
    if low_share is None:
        low_share = _low_share()
    return d_exploit / (2 + d_exploit) * (1 - low_share)


def _low_share() -> float:
    """Rate at LOW / fair share in the two-flow competition under DRR 9:1 (fluid solver): 1/5."""
    fair = maxmin([[0], [0]], [LINE])[0]
    low = maxmin([[0], [0]], [LINE], weights=[1.0, 9.0])[0]
    return low / fair


def exploit_needed(factor: float, low_share: float | None = None) -> int | None:
    """REFLEX Fig. 10b: the smallest D_exploit (1:1 warmup:measure) at which a flexible flow
    with freedom factor α (or r) can spend all the freedom it has, 1 − factor of its fair
    share, in a two-flow competition; ``None`` if no exploit size suffices.

    The spendable fraction of Fig. 10a, D/(2 + D)·(1 − ℓ) with ℓ = low / fair (paper §6.4),
    must reach 1 − factor: D·(factor − ℓ) ≥ 2·(1 − factor), i.e.
    D ≥ 2·(1 − factor) / (factor − ℓ). The same bound is where Algorithm 1's budget (spec
    §5.2.4) stops covering a LOW exploit phase every cycle: a cycle earns (1 − α)·R_fair over
    the 2 HIGH intervals and loses (α − ℓ)·R_fair over the D LOW ones. The r axis is read the
    same way as α [CHOICE: the paper plots "α/r" on one axis; 1 − r of the data may be dropped,
    i.e. the delivered fraction of the fair share may fall to r]."""
    ell = _low_share() if low_share is None else low_share
    if factor >= 1.0:
        return 0  # no freedom to spend
    if factor <= ell:
        return None  # even D → ∞ spends only 1 − ℓ < 1 − factor
    return max(1, math.ceil(2 * (1 - factor) / (factor - ell) - 1e-9))


#: The α/r grid of Fig. 10b and the paper's default exploit size (§6.4).
FIG10B_FACTORS = tuple(round(0.1 * i, 1) for i in range(11))
D_EXPLOIT_DEFAULT = 3


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


def first_low(res: Any) -> float:
    tr = res.traces
    x = tr[(tr.flow_id == 0) & tr.reflex_low]
    return float(x.t_s.min()) if len(x) else math.nan


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


# ---------------------------------------------------------------------------------------------
# Figs 8, 11 (many short regular flows)


def short_flows_overrides(
    d_exploit: int | None, measure: str, *, trace: bool = False
) -> dict[str, Any]:
    """One long flexible flow (α = 0.9, host 0 → 2, active the whole run) and 100 kB regular
    flows (host 1 → 2), Poisson 1000 flows/s from 1 s for ``measure``, then 1 s of cool-down
    (REFLEX §6.2). ``d_exploit`` None: no REFLEX (the flexible flow stays HIGH)."""
    m = float(measure.rstrip("s"))
    ov = case_overrides(
        1,
        "reflex" if d_exploit is not None else "none",
        flex_gbit=200.0,
        duration=f"{m + 2:g}s",
    )
    # 100 kB × 1000 / s = 0.8 Gb/s of payload on the 10 Gb/s link (load_basis bisection).
    ov["classes"][1]["workload"] = {
        "kind": "poisson",
        "sizes": {"fixed": "100kB"},
        "load": 0.08,
        "senders": [1],
        "receivers": [2],
        "load_basis": "bisection",
        "bisection": "10Gbps",
        "start": "1s",
        "stop": f"{m + 1:g}s",
    }
    ov["run.warmup"] = "1s"
    ov["run.cooldown"] = "1s"
    ov["run.horizon"] = f"{m + 3:g}s"
    if d_exploit is not None:
        ov["scheme"]["exploit"] = d_exploit
    if trace:
        ov["output.trace_flows"] = [0]
        ov["output.trace_interval"] = "1ms"
    return ov


def plan_fig8(c: Ctx) -> None:
    for s in c.seeds:
        c.add(("fig8", None, s), PRESET, short_flows_overrides(None, c.scale.fig8_measure), s)
        for de in c.scale.fig8_exploit:
            ov = short_flows_overrides(de, c.scale.fig8_measure, trace=de == 3)
            c.add(("fig8", de, s), PRESET, ov, s)


def _reg_fct(runs: Sequence[Any]) -> list[np.ndarray]:
    out = []
    for r in runs:
        f = r.flows
        f = f[(f["class"] == "regular") & f.in_window & f.completed]
        out.append(f.fct_s.to_numpy(dtype=float))
    return out


def eval_fig8(c: Ctx, fd: Finding) -> None:
    from .framework import bootstrap

    base = _reg_fct(c.seeds_of("fig8", None))
    c.point("no REFLEX", c.seeds_of("fig8", None), sum(map(len, base)))
    per = {}
    for de in c.scale.fig8_exploit:
        runs = c.seeds_of("fig8", de)
        per[de] = _reg_fct(runs)
        c.point(f"D_exploit {de}", runs, sum(map(len, per[de])))

    def p99(v: np.ndarray) -> float:
        return float(np.percentile(v, 99)) if len(v) else math.nan

    lo_de, hi_de = min(per), max(per)
    g99 = bootstrap(lambda a, b: p99(a) / p99(b), per[lo_de], per[hi_de])
    gmean = bootstrap(lambda a, b: np.mean(a) / np.mean(b), base, per[3])
    fd.stats = {f"p99_de{lo_de}_over_de{hi_de}": g99, "mean_base_over_de3": gmean}
    fd.ours = (
        "regular 100 kB FCT p99 (ms): no REFLEX "
        f"{p99(np.concatenate(base)) * 1e3:.3f}, "
        + ", ".join(f"D_e {k}: {p99(np.concatenate(v)) * 1e3:.3f}" for k, v in per.items())
        + f"; p99 D_e {lo_de} / D_e {hi_de} = {g99}; mean no-REFLEX / D_e 3 = {gmean}"
    )
    fd.judge(
        p99_falls_with_exploit=band(g99, 1.0),
        de3_mean_better_than_none=band(gmean, 1.0),
    )

    def plot(ax: Any) -> None:
        xs = list(per)
        series = {
            q: [bootstrap(lambda v, q=q: np.percentile(v, q) * 1e3, per[k]) for k in xs]
            for q in (50, 90, 99)
        }
        lines(ax, xs, series, xlabel="D_exploit (intervals)", ylabel="regular FCT (ms)")
        ax.axhline(p99(np.concatenate(base)) * 1e3, color="k", lw=0.8, ls="--")

    fd.plot = plot


def eval_fig11(c: Ctx, fd: Finding) -> None:
    r = c.get(("fig8", 3, c.seeds[0]))
    tr = r.traces[r.traces.flow_id == 0]
    t = tr.t_s.to_numpy(dtype=float)
    b = tr.bytes_acked.to_numpy(dtype=float)
    rate = np.diff(b) * 8 / np.diff(t)
    low = tr.reflex_low.to_numpy()[1:] & tr.reflex_low.to_numpy()[:-1]
    high = ~tr.reflex_low.to_numpy()[1:] & ~tr.reflex_low.to_numpy()[:-1]
    m = (t[1:] > 1.0) & (t[1:] < float(t.max()) - 1.0)
    r_low = float(np.mean(rate[m & low])) if (m & low).any() else math.nan
    r_high = float(np.mean(rate[m & high])) if (m & high).any() else math.nan
    est = tr.r_fair_bps.to_numpy(dtype=float)[1:][m]
    e = float(np.nanmean(est))
    c.point("D_exploit 3", [r], len(r.flows))
    fd.stats = {"low_over_high": _pt(r_low / r_high), "estimate_over_high": _pt(e / r_high)}
    fd.ours = (
        f"flexible flow: {r_low / 1e9:.2f} Gb/s in LOW intervals, {r_high / 1e9:.2f} Gb/s in "
        f"HIGH intervals, mean estimate {e / 1e9:.2f} Gb/s; LOW share of the bins "
        f"{(m & low).sum() / max(1, m.sum()):.2f}"
    )
    fd.judge(
        low_rate_same_as_high=band(_pt(r_low / r_high), 0.9, 1.1),
        estimate_tracks_rate=band(_pt(e / r_high), 0.9, 1.1),
    )

    def plot(ax: Any) -> None:
        ax.plot(t[1:], rate / 1e9, lw=0.5, label="achieved")
        ax.plot(t, tr.r_fair_bps / 1e9, lw=0.8, label="estimate")
        ax.set_xlim(2.0, 2.3)
        ax.set_xlabel("time (s)")
        ax.set_ylabel("Gb/s (1 ms bins)")
        ax.legend(fontsize=8)

    fd.plot = plot


# ---------------------------------------------------------------------------------------------
# Fig 12 (convergence)


def convergence_overrides(n: int, gap: float, duration: str) -> dict[str, Any]:
    """``n`` long flexible flows (α = 0.9) from hosts 0..n−1 to host n, one every ``gap`` s."""
    flows = [
        {"src": i, "dst": n, "size": "100GB", "start": f"{gap * i:g}s", "alpha": 0.9}
        for i in range(n)
    ]
    return {
        "topology.hosts": n + 1,
        "classes": [
            {
                "name": "flexible",
                "priority": 0,
                "transport": "dctcp",
                "workload": {"kind": "flows", "list": flows},
            }
        ],
        "scheme": {"kind": "reflex"},
        "run.duration": duration,
        "run.horizon": duration,
        "output.trace_flows": list(range(n)),
        "output.trace_interval": "5ms",
    }


def plan_fig12(c: Ctx) -> None:
    n, gap = c.scale.fig12_flows, c.scale.fig12_gap
    c.add(("fig12",), PRESET, convergence_overrides(n, gap, f"{n * gap:g}s"), 1)


def eval_fig12(c: Ctx, fd: Finding) -> None:
    r = c.get(("fig12",))
    n, gap = c.scale.fig12_flows, c.scale.fig12_gap
    c.point(f"{n} flows", [r], len(r.flows))
    tr = r.traces
    err, cv = [], []
    for k in range(1, n + 1):
        # Window with k flows: from 100 ms after the k-th arrival to the next arrival.
        t0, t1 = gap * (k - 1) + 0.1, gap * k
        exp = LINE * GOODPUT / k * 1e9
        rates, ests = [], []
        for fid in range(k):
            x = tr[(tr.flow_id == fid) & (tr.t_s >= t0) & (tr.t_s <= t1)]
            if len(x) < 2:
                continue
            rates.append((x.bytes_acked.iloc[-1] - x.bytes_acked.iloc[0]) * 8 / (t1 - t0))
            ests.append(float(np.nanmean(x.r_fair_bps)))
        if not rates:
            continue
        # The estimates of one window sum to the link's goodput (all flows are HIGH in the
        # measure phase), so their mean is 10/k by construction: judge each flow's own.
        err.append(float(np.nanmean(np.abs(np.array(ests) / exp - 1))))
        cv.append(float(np.std(rates) / np.mean(rates)))
    few = [v for k, v in enumerate(cv, 1) if k <= 10]
    many = [v for k, v in enumerate(cv, 1) if k > 10]
    med_err = float(np.median(err))
    fd.stats = {"estimate_rel_error_median": _pt(med_err)}
    fd.ours = (
        "per window of k flows: mean |estimate / (10·0.962/k) − 1| over the flows "
        + ", ".join(f"{v:.2f}" for v in err)
        + "; per-flow rate CV "
        + ", ".join(f"{v:.2f}" for v in cv)
    )
    parts = {"estimate_hovers_around_10_over_n": band(_pt(med_err), -math.inf, 0.3)}
    if few and many:
        parts["more_dispersion_beyond_10"] = exact(float(np.mean(many)) > float(np.mean(few)))
    fd.judge(**parts)

    def plot(ax: Any) -> None:
        ks = list(range(1, len(err) + 1))
        lines(
            ax,
            ks,
            {"estimate rel. error": [_pt(v) for v in err], "rate CV": [_pt(v) for v in cv]},
            xlabel="flows",
            ylabel="ratio",
        )

    fd.plot = plot


# ---------------------------------------------------------------------------------------------
# Figs 13-17 (workloads on a 20-server ToR)

#: Regular-flow workloads (REFLEX §6.4): sizes and load of the 20 × 10 Gb/s host links.
#: Workload 2: the stated 100 kB × 5000 flows/s is 4 Gb/s = 2 % (the paper's "around 40 %"
#: does not follow): the stated rate is used.
WORKLOADS = {
    "wl1": ({"fixed": "250MB"}, 0.2),
    "wl2": ({"fixed": "100kB"}, 0.02),
    "wl3": ({"cdf": "websearch"}, 0.2),
}


def workload_overrides(
    wl: str, scheme: str, sc: Scale, *, alpha: float | None = None, reliability: float | None = None
) -> dict[str, Any]:
    """REFLEX-WL-BASE: 20 servers under one ToR; flexible flows 250 MB, Poisson 20 flows/s
    (20 % of the host links); regular flows per workload; uniformly random distinct pairs.
    ``scheme``: "none", "w9:1" (flexible always low, DRR 9:1) or "reflex"."""
    sizes, load = WORKLOADS[wl]
    weights, flex_q, on = SCHEMES[scheme]
    warm, meas, cool = sc.wl_warmup, sc.wl_measure, sc.wl_cooldown
    dur = warm + meas + cool
    flex: dict[str, Any] = {
        "name": "flexible",
        "priority": flex_q,
        "transport": "dctcp",
        "workload": {"kind": "poisson", "sizes": {"fixed": "250MB"}, "load": 0.2},
    }
    if on:
        flex["alpha"] = 1.0 if alpha is None else alpha
        if reliability is not None:
            flex["reliability"] = reliability
    reg = {
        "name": "regular",
        "priority": 0,
        "transport": "dctcp",
        "workload": {"kind": "poisson", "sizes": sizes, "load": load},
    }
    return {
        "topology.hosts": 20,
        "classes": [flex, reg],
        "switch.scheduler": _sched(weights),
        "host.scheduler": _sched(weights),
        "scheme": {"kind": "reflex"} if on else {"kind": "none"},
        "run.duration": f"{dur:g}s",
        "run.warmup": f"{warm:g}s",
        "run.cooldown": f"{cool:g}s",
        "run.horizon": f"{dur + sc.wl_drain:g}s",
    }


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


def speedups(base: Any, run: Any, cls: str) -> np.ndarray:
    """Per-flow speed-up FCT_baseline / FCT_scheme of the measured, completed flows of
    ``cls`` (the same seed generates the same flows under every scheme)."""
    a = base.flows.set_index("flow_id")
    b = run.flows.set_index("flow_id")
    m = (a["class"] == cls) & a.in_window & a.completed & b.completed
    return (a.fct_s[m] / b.fct_s[m]).to_numpy(dtype=float)


def _wl_eval(wl: str, c: Ctx, fd: Finding, flex_focus: bool) -> None:
    from .framework import bootstrap

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
            cls: [speedups(b, r, cls) for b, r in zip(bases, runs, strict=True)]
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


FIGURES = [
    Figure(
        "Fig2",
        "max-min interdependence: A-flows 1/3, C–D 2/3; one A→B flow low: it gets 0, others 1/2",
        "fluid max-min solver gives exactly these",
        [plan_none],
        eval_fig2,
    ),
    Figure(
        "Fig3",
        "calculated rates: baseline 5/5, absolute 0/10, REFLEX Case 1 regular 7.4, Case 2 "
        "flexible 4.5 Gb/s",
        "fluid solver: exactly these",
        [plan_none],
        eval_fig3,
    ),
    Figure(
        "Fig4",
        "simulated ≈ calculated × 0.96; REFLEX Case 1 regular 7.4, Case 2 flexible 4.5 "
        "(no starvation), absolute starves the flexible flow in Case 2",
        "sim / (calc × 1380/1434) in [0.92, 1.08] for both; absolute Case 2 flexible < 0.5 Gb/s",
        [plan_fig4],
        eval_fig4,
    ),
    Figure(
        "Fig5",
        "Case 1 REFLEX: 25 ms square wave, regular ≈ 5 Gb/s in warmup/measure, ≈ 9 in exploit",
        "exploit bins / (9 × 0.962) and warmup/measure bins / (5 × 0.962) in [0.9, 1.1]",
        [plan_fig4],
        eval_fig5,
    ),
    Figure(
        "Fig6",
        "delivered fraction falls with r to ≈ 0.65 at r ≈ 0.6, flat below, never below r",
        "delivered ≥ r; = 1 at r = 1; at r = 0 in [0.55, 0.75]; spread ≤ 0.05 for r ≤ 0.5; "
        "non-decreasing in r",
        [plan_fig6],
        eval_fig6,
    ),
    Figure(
        "Fig7",
        "fair-share estimate ≈ half the line rate for T_int ≥ 2 ms, lower at 1 ms",
        "mean estimate during competition / (5 × 0.962): 1 ms ≤ 0.9; others in [0.85, 1.15]",
        [plan_fig7],
        eval_fig7,
    ),
    Figure(
        "Fig8",
        "one long flexible flow (α = 0.9) and 100 kB regular flows at 1000/s: regular FCT "
        "percentiles fall with D_exploit; REFLEX helps mean, median and tail",
        "p99(D_exploit min) / p99(D_exploit max) > 1 and mean(no REFLEX) / mean(D_exploit 3) > 1",
        [plan_fig8],
        eval_fig8,
    ),
    Figure(
        "Fig9-10",
        "175 ms to collect the initial budget at α = 0.9, D_exploit 3; a flexible flow can "
        "spend at most 48 % of its fair share",
        "simulated first LOW = our algorithm timeline (±1 ms); at D_exploit 3 in [150, 200] ms; "
        "fluid 0.6 × (1 − 1/5) = 0.48 exactly",
        [plan_fig9],
        eval_fig9,
    ),
    Figure(
        "Fig10b",
        "exploit size needed to spend the freedom α/r permits; at D_exploit 3 (48 %) REFLEX "
        "benefits α and r ≥ 0.6",
        "D ≥ 2(1 − α)/(α − 1/5): smallest α/r on the 0.1 grid with needed D ≤ 3 is exactly "
        "0.6; none suffices for α/r ≤ 0.2; needed D non-increasing in α/r",
        [plan_none],
        eval_fig10b,
    ),
    Figure(
        "Fig11",
        "with many short regular flows the flexible flow's rate at LOW equals its rate at HIGH, "
        "and so does its estimate",
        "LOW / HIGH rate and estimate / HIGH rate in [0.9, 1.1]",
        [plan_fig8],
        eval_fig11,
    ),
    Figure(
        "Fig12",
        "flexible flows arriving every 200 ms: the estimate hovers around 10/n; more variance "
        "beyond 10 flows",
        "median over windows of the flows' mean |estimate / (10 × 0.962 / n) − 1| ≤ 0.3; "
        "mean rate CV for n > 10 above that for n ≤ 10",
        [plan_fig12],
        eval_fig12,
    ),
    Figure(
        "Fig13",
        "Workload 1 (250 MB regular): 9-1 speeds regular flows up (1.35×); REFLEX α = 0.8 "
        "barely (1.04×), never slower",
        "9-1 regular mean speed-up > 1; REFLEX ≥ 0.97; 9-1 above REFLEX",
        [plan_wl],
        eval_wl("wl1", False),
    ),
    Figure(
        "Fig14",
        "Workload 1: flexible flows slowed below 0.8×: REFLEX 14.5 % vs 9-1 32.5 %",
        "REFLEX's fraction of flexible flows with speed-up < 0.8 below 9-1's; REFLEX flexible "
        "mean speed-up above 9-1's",
        [plan_wl],
        eval_wl("wl1", True),
    ),
    Figure(
        "Fig15",
        "Workload 2 (100 kB regular): 9-1 regular 2.10× mean; REFLEX α = 0.8 1.19×",
        "9-1 regular mean speed-up > 1; REFLEX ≥ 0.97; 9-1 above REFLEX",
        [plan_wl],
        eval_wl("wl2", False),
    ),
    Figure(
        "Fig16",
        "Workload 3 (web search regular): REFLEX gains below 9-1's",
        "9-1 regular mean speed-up > 1; REFLEX ≥ 0.97; 9-1 above REFLEX",
        [plan_wl],
        eval_wl("wl3", False),
    ),
    Figure(
        "Fig17",
        "Workload 3: flexible flows slowed below 0.8×: REFLEX 1.7 % vs 9-1 2.2 %",
        "REFLEX's slowed fraction below 9-1's; REFLEX flexible mean speed-up above 9-1's; "
        "with r < 1 (α = 1) every flexible flow delivers at least r",
        [plan_wl],
        eval_wl("wl3", True),
    ),
]

REDUCED = Scale(
    "reduced",
    seeds=(1,),
    params={
        "case1_duration": "2.5s",
        "case2_duration": "5s",
        "fig6_r": (0.0, 0.2, 0.4, 0.6, 0.8, 1.0),
        "fig7_tint": ("1ms", "2ms", "5ms", "10ms"),
        "fig7_ends": ("2.15s", "2.2s"),
        "fig8_exploit": (1, 3, 10),
        "fig8_measure": "2s",
        "fig9_exploit": (1, 3, 5),
        "fig12_flows": 20,
        "fig12_gap": 0.2,
        "wl_names": ("wl1", "wl2", "wl3"),
        "wl_alphas": (0.8,),
        "wl_r_names": ("wl3",),
        "wl_rs": (0.5,),
        "wl_warmup": 1.0,
        "wl_measure": 2.0,
        "wl_cooldown": 1.0,
        "wl_drain": 3.0,
    },
)
FULL = Scale(
    "full",
    seeds=(1, 2, 3),
    params={
        "case1_duration": "6s",
        "case2_duration": "6s",
        "fig6_r": tuple(round(0.1 * i, 1) for i in range(11)),
        "fig7_tint": ("1ms", "2ms", "5ms", "10ms"),
        "fig7_ends": ("2.1s", "2.15s", "2.2s", "2.25s"),
        "fig8_exploit": tuple(range(1, 11)),
        "fig8_measure": "5s",
        "fig9_exploit": (1, 2, 3, 4, 5, 6, 8, 10),
        "fig12_flows": 20,
        "fig12_gap": 0.2,
        "wl_names": ("wl1", "wl2", "wl3"),
        "wl_alphas": tuple(round(0.1 * i, 1) for i in range(11)),
        "wl_r_names": ("wl1", "wl2", "wl3"),
        "wl_rs": tuple(round(0.1 * i, 1) for i in range(10)),
        "wl_warmup": 1.0,
        "wl_measure": 10.0,
        "wl_cooldown": 5.0,
        "wl_drain": 5.0,
    },
)

PREAMBLE = """
REFLEX-BASE (scenario `reflex`): two queues per device, DRR 90/10, DCTCP marking at 65
packets (RED hard threshold), 466-packet queues, 20-packet host device queue, 1380 B segments
with timestamps over PPP framing (goodput 1380/1434 = 96.2 % of 10 Gb/s), RTO_min 1 ms,
delayed ACKs (2 segments, 1 ms), T_int 5 ms, cycle 1:1:3. The two flows of Figs 3–7 come from
two hosts through one switch to a third host [CHOICE: the contended link is the switch's
egress, where DRR and marking act]. Every run is deterministic (one seed): a single value per
point, judged against physics bands (header overhead, partial cycles).

Calculated columns come from the fluid max-min solver `dcnsim.fluid.maxmin`. REFLEX's Case 1
calculation is 0.6 × (DRR 9:1) + 0.4 × (fair share), Case 2 α × fair share (paper §4).

Paper inconsistencies and the choices made:
- Fig 7's "between approximately 0.95 s and 1.2 s" cannot be the competition period (the
  regular flow starts at 2 s): the estimate is read during competition, at the ends of runs
  cut at 2.1–2.25 s (the flow table's last estimate).
- Fig 5's "in the first 20 s" is read as the first 2 s (before the regular flow arrives).
- Workload 2: 100 kB × 5000 flows/s is 4 Gb/s, 2 % of the 20 × 10 Gb/s host links, not the
  stated "around 40 %": the stated arrival rate is used (regular load 0.02).
- Fig 9's 175 ms adds sync, warmup/measure and accrual and rounds to a 25 ms step; the
  algorithm decides only at measure→exploit boundaries, which gives 185 ms (both reported).

Workloads (Figs 13–17): 20 hosts on one switch, flexible flows 250 MB Poisson at 20 % of the
host links (20 flows/s), regular flows per workload, uniformly random distinct pairs
[CHOICE]; speed-up = FCT(no prioritization) / FCT(scheme) per flow, same seed (same flows).
Reduced: 1 s warm-up, 2 s measured, 1 s cool-down, one seed, α = 0.8, and r = 0.5 (α = 1) for
Workload 3; full: the paper's 16 s, 3 seeds, α = 0 … 1 and r = 0 … 0.9 for every workload.

- Fig 10b plots "α/r" on one axis: r is read like α (the delivered fraction of the fair
  share may fall to r). The calculation gives α/r ≥ 0.52 at D_exploit 3; the paper's "≥ 0.6"
  is the first value of its 0.1 grid above that.

The reduced scale runs the r sweep of Figs 13–17 at one point (r = 0.5, α = 1, Workload 3
only).
"""

REPRO = Reproduction(
    key="reflex",
    title=TITLE,
    figures=FIGURES,
    scales={"reduced": REDUCED, "full": FULL},
    preamble=PREAMBLE,
)


def reproduce(
    out_dir: Any, *, full: bool = False, jobs: int | None = None, progress: bool = True
) -> list[Finding]:
    return REPRO.reproduce(out_dir, full=full, jobs=jobs, progress=progress)


def by_id(findings: Sequence[Finding]) -> dict[str, Finding]:
    return {f.figure: f for f in findings}


__all__ = [
    "HOLDS",
    "NO",
    "REPRO",
    "TITLE",
    "all_of",
    "by_id",
    "calc_rates",
    "case_overrides",
    "competition_rates",
    "fig2_rates",
    "reproduce",
]
