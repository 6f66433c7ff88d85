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

Layout (one concept per module): :mod:`.scenario` (wire constants, schemes and every override
builder of the ``reflex`` preset), :mod:`.calculations` (the fluid and budget-timeline
calculations), :mod:`.metrics` (what a run measured), :mod:`.two_flow_figures` (Figs 2–7, 9,
10), :mod:`.many_flow_figures` (Figs 8, 11, 12), :mod:`.workload_figures` (Figs 13–17); this
module registers the figures and scales and builds :data:`REPRO`. Every name the single module
``reflex.py`` defined, which this package replaced, is re-exported here, so
``from dcnsim.papers.reflex import ...`` works as before.
"""

from __future__ import annotations

from ..framework import HOLDS, NO, Figure, Reproduction, Scale, all_of, by_id
from .calculations import (  # noqa: F401  (re-exported, see above)
    D_EXPLOIT_DEFAULT,
    FIG10B_FACTORS,
    _low_share,
    budget_time_calc,
    calc_rates,
    exploit_needed,
    fig2_rates,
    spendable_fraction,
)
from .many_flow_figures import eval_fig8, eval_fig11, eval_fig12, plan_fig8, plan_fig12
from .metrics import (  # noqa: F401  (re-exported, see above)
    _pt,
    _reg_fct,
    competition_rates,
    first_low,
    phase_rates,
    speedups,
)
from .scenario import (  # noqa: F401  (re-exported, see above)
    GBIT,
    GOODPUT,
    LINE,
    PRESET,
    SCHEMES,
    WORKLOADS,
    _sched,
    case_overrides,
    convergence_overrides,
    fig6_overrides,
    short_flows_overrides,
    workload_overrides,
)
from .two_flow_figures import (
    eval_fig2,
    eval_fig3,
    eval_fig4,
    eval_fig5,
    eval_fig6,
    eval_fig7,
    eval_fig9,
    eval_fig10b,
    plan_fig4,
    plan_fig6,
    plan_fig7,
    plan_fig9,
    plan_none,
)
from .workload_figures import (  # noqa: F401  (re-exported, see above)
    _vkey,
    _wl_eval,
    _wl_variants,
    eval_wl,
    plan_wl,
)

TITLE = "REFLEX: new primitives for bounded degradation in network service (Kassing et al.)"
EXPECTED_TIME = (
    "reduced: about 1.3 min (44 runs) on two cores; --full: not measured (many hours: "
    "1.0e11 events)"
)


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


#: ``dcnsim reproduce``: the reproduction's own method (reduced or ``full`` scale).
reproduce = REPRO.reproduce


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
