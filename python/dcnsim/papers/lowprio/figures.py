"""The LPF figure registry: each finding's claim, verdict rule, run plan (phases) and
evaluation, in report order.
"""

from __future__ import annotations

from ..framework import (
    TOL,
    Figure,
    effect_band,
)
from .colocation import eval_4a, eval_4b, eval_4c, plan_4a, plan_4b, plan_4c
from .das_sjf import (
    _plan2_3c,
    _plan2_sjf,
    _plan_3c,
    _plan_sjf,
    eval_3a,
    eval_3b,
    eval_3c,
    plan2_3a,
    plan_3a,
)
from .hybrid import eval_5a, eval_5b, plan_5
from .knobs import (
    eval_7,
    eval_8,
    eval_9,
    eval_10,
    eval_11,
    plan_7,
    plan_8,
    plan_9,
    plan_10,
    plan_11,
)
from .motivation import eval_2a, eval_2b, plan_2a, plan_2b
from .presets import HIGH

# ---------------------------------------------------------------------------------------------
# registry

FIGURES: list[Figure] = [
    Figure(
        "LPF-Fig2a",
        "p80 retransmission rate of long low-priority flows ≈ 8% under PriorityQueue vs "
        "negligible under FairShare (9-node co-location)",
        f"p80 PQ in [{0.08 / TOL:.0%}, {0.08 * TOL:.0%}] and p80 FS ≤ 1%",
        [plan_2a],
        eval_2a,
    ),
    Figure(
        "LPF-Fig2b",
        "Near-Opt's FCT CDF of long low-priority flows clearly left of TCP's "
        '("substantial opportunity")',
        "TCP/Near-Opt p50 and p99 ≥ 1.25 (mean ≥ 1: baseline guard)",
        [plan_2b],
        eval_2b,
        ("nearopt",),
    ),
    Figure(
        "LPF-Fig3a",
        "DAS: TCP within 2× of Near-Opt for mean sizes 128 KB / 1 MB / 5 MB",
        "per size: mean in [1, 2], p99 ≤ 2",
        [plan_3a, plan2_3a],
        eval_3a,
        ("nearopt",),
    ),
    Figure(
        "LPF-Fig3b",
        "SJF web search: TCP within 2× of Near-Opt at low / medium / high load",
        "per load: mean in [1, 2], p99 ≤ 2",
        [_plan_sjf("3b", "websearch"), _plan2_sjf("3b")],
        eval_3b,
        ("nearopt",),
    ),
    Figure(
        "LPF-Fig3c",
        "SJF data mining: up to 3×; at high load the p99.9 gap is 44% larger than web search's",
        f"DM/WS p99.9 gap at high load in [{effect_band(1.44)[0]:.2f}, "
        f"{effect_band(1.44)[1]:.2f}] (≥ 5,000 DM flows at high load); max DM p99 over loads "
        "in [1, 4.5]",
        [_plan_3c, _plan2_3c],
        eval_3c,
        ("nearopt",),
    ),
    Figure(
        "LPF-Fig4a",
        "co-location: > 4× at high load, within 2× at low and medium load",
        f"low (15%), medium (30%) mean in [1, 2]; high ({HIGH:.0%}) p99 in [4, 12]",
        [plan_4a],
        eval_4a,
        ("nearopt",),
    ),
    Figure(
        "LPF-Fig4b",
        "high load: every size class > 1×; medium flows suffer most, up to 4.9×",
        f"means ≥ 1; medium p99 in [{effect_band(4.9)[0]:.2f}, {effect_band(4.9)[1]:.2f}]; "
        "medium p99 ÷ worst other ≥ 1",
        [plan_4b],
        eval_4b,
        ("nearopt",),
    ),
    Figure(
        "LPF-Fig4c",
        "gap widens with update size, > 10× at 12 MB (intro: > 12×), then shrinks",
        f"p99 at 12 MB in [{effect_band(12)[0]:.1f}, {effect_band(12)[1]:.0f}]; 12 ÷ 4 MB "
        "≥ 1.25; 24 ÷ 12 MB ≤ 0.8",
        [plan_4c],
        eval_4c,
        ("nearopt",),
    ),
    Figure(
        "LPF-Fig5a",
        "hybrid services: TCP does better for short flows (gap grows with flow size)",
        "mean ratio at 1 MB ÷ at 32 KB ≥ 1.25; means ≥ 1",
        [plan_5],
        eval_5a,
        ("nearopt",),
    ),
    Figure(
        "LPF-Fig5b",
        "128 KB: similar across low-priority loads (text; the caption says it grows)",
        "max/min of the mean ratios over 10–40% low load in [1, 1.5]; means ≥ 1",
        [plan_5],
        eval_5b,
        ("nearopt",),
    ),
    Figure(
        "LPF-Fig7",
        "TCP FCT grows as the low-priority buffer shrinks; p99 at 24 KB = 5.7× p99 at 192 KB",
        f"p99 24 ÷ 192 KB in [{effect_band(5.7)[0]:.2f}, {effect_band(5.7)[1]:.1f}]; each "
        "shrink step ≥ 0.9",
        [plan_7],
        eval_7,
    ),
    Figure(
        "LPF-Fig8",
        "U-shape: 1 ms best; 500 µs (spurious timeouts) and 5 / 10 ms (slow tail-loss "
        "recovery) severely worse",
        "p99 at 500 µs, 5 ms and 10 ms each ≥ 1.25 × p99 at 1 ms",
        [plan_8],
        eval_8,
    ),
    Figure(
        "LPF-Fig9",
        "Cubic / NewReno × SACK on / off: minimal to no impact",
        "max/min of the four mean FCTs ≤ 1.15",
        [plan_9],
        eval_9,
    ),
    Figure(
        "LPF-Fig10",
        "TCP-LP and LEDBAT (target 3.2 ms) slower than TCP: up to 2.4× avg, 6.67× p99",
        f"each mean ≥ TCP's; worst mean in [{effect_band(2.4)[0]:.2f}, "
        f"{effect_band(2.4)[1]:.1f}]; worst p99 in [{effect_band(6.67)[0]:.2f}, "
        f"{effect_band(6.67)[1]:.1f}]",
        [plan_10],
        eval_10,
        ("ledbat", "tcp_lp"),
    ),
    Figure(
        "LPF-Fig11",
        "12 MB updates: WFQ 99:1 cuts p99.9 of small / medium low-priority flows up to 9× / "
        "5.4× (+6% for high priority at p99.9); TCP+ up to 6× for medium at p99",
        f"small in [{effect_band(9)[0]:.1f}, {effect_band(9)[1]:.0f}], medium in "
        f"[{effect_band(5.4)[0]:.1f}, {effect_band(5.4)[1]:.1f}], high-priority ÷ SPQ in "
        f"[1, 1.12]; TCP+ in [{effect_band(6)[0]:.1f}, {effect_band(6)[1]:.0f}]",
        [plan_11],
        eval_11,
    ),
]
