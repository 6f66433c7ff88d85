"""C3 reproduction (coexistence of congestion controls through virtual elastic pipes; paper 002;
spec experiments.md C3-MOTIV-BASE … C3-Fig10).

Presets: the shipped scenario ``c3_coexist`` is the motivation's Coexist-TS/DS/PS under C3;
every figure builds its scenario in this package as a dict (:func:`motiv`, :func:`star`,
:func:`tree`) so the topology, scheme and class set of each point are explicit.

Objectives and their transports (C3 §2): TS and LS run ElasticSwitch (DCTCP under the
VM-pair limiter; ``scheme.kind = "elasticswitch"`` without C3), DS runs D2TCP, PS runs
L2DCT. "Without C3" is ElasticSwitch for the guaranteed classes and the plain flow
transports for the rest; "with C3" puts every class in per-objective pipes
(``scheme.kind = "c3"``). Metrics per objective: TS goodput per 1 ms interval (the
``class_samples`` table) against its guarantee; LS RTT as the time until the sender of a
2 KB (two-segment) LS flow holds the ACK of its last byte, one round trip plus
serialization; DS deadline-miss ratio
(a flow misses when it did not finish within its deadline); PS average FCT.

Layout (one concept per module): :mod:`.scenario` (constants, transports, class builders and
the topologies :func:`motiv`, :func:`star`, :func:`tree`), :mod:`.metrics` (per-objective
measurements and intervals), :mod:`.notes` (the preamble and the notes on findings that do
not hold), :mod:`.dumbbell_figures` (Figs 2b–3c, 5, 10), :mod:`.tree_figures` (Figs 6–9);
this module registers the figures and scales and builds :data:`REPRO`. Every name the single
module ``c3.py`` defined, which this package replaced, is re-exported here, so
``from dcnsim.papers.c3 import ...`` works as before.
"""

from __future__ import annotations

from ..framework import HOLDS, NO, Figure, Reproduction, Scale, by_id
from .dumbbell_figures import (  # noqa: F401  (re-exported, see above)
    FIG2D,
    FIG2D_ADDITIVE,
    FIG10_MODES,
    HALF_ROUND,
    _motiv_classes,
    _motiv_ms,
    blocks,
    ds_cls,
    eval_fig2b,
    eval_fig2c,
    eval_fig2d,
    eval_fig2ef,
    eval_fig3ab,
    eval_fig3c,
    eval_fig5,
    eval_fig10,
    fig2d_scenario,
    fig3c_scenario,
    fig10_scenario,
    first_round,
    limiter_at_join,
    ls_cls,
    plan_fig2b,
    plan_fig2c,
    plan_fig2d,
    plan_fig2ef,
    plan_fig3ab,
    plan_fig3c,
    plan_fig5,
    plan_fig10,
    ps_cls,
    ts_cls,
)
from .metrics import (  # noqa: F401  (re-exported, see above)
    RETURN_S,
    _flows,
    _iv,
    _ms,
    _pct,
    _pt,
    at_least,
    bottleneck_queue,
    class_means,
    diff_iv,
    fcts,
    goodput_bins,
    goodput_series,
    ls_base,
    ls_rtts,
    mean_iv,
    miss_ratio_iv,
    misses,
    ratio_iv,
    unfinished,
)
from .notes import (  # noqa: F401  (re-exported, see above)
    _ABL,
    _ABL_TREE,
    _ABL_TREE_OLD,
    _BEFORE,
    _DUMBBELL_CAUSE,
    _TREE_CAUSE,
    FIG2C_C3_NOTE,
    INVESTIGATED,
    PIPE_NOTE,
    PREAMBLE,
    _c3_note,
    _measured_note,
)
from .scenario import (  # noqa: F401  (re-exported, see above)
    C3_IW,
    DS_ROUND,
    FRAME,
    FRAME_C3,
    MSS,
    OTHER_READING,
    TRANSPORTS,
    TREE_DEADLINE,
    _guarantee,
    _switch,
    cls,
    long_flows,
    ls_flows,
    motiv,
    payload,
    rounds,
    scheme_of,
    star,
    tree,
)
from .tree_figures import (  # noqa: F401  (re-exported, see above)
    ALL3,
    FIG7A,
    FIG7B,
    OTHER,
    OTHER_LABEL,
    WORKLOADS,
    _fig6,
    _fig7a,
    _fig7b,
    _fig8a,
    _fig8b,
    _fig9o,
    _fig9t,
    _lbl,
    _two_readings,
    add_tree,
    eval_fig6,
    eval_fig7a,
    eval_fig7b,
    eval_fig8a,
    eval_fig8b,
    eval_fig9o,
    eval_fig9t,
    plan_fig6,
    plan_fig7,
    plan_fig8,
    plan_fig9o,
    plan_fig9t,
    t_fct,
    t_miss,
    t_ts,
    tree_key,
    tree_runs,
)

TITLE = "C3: coexisting congestion controls through virtual elastic pipes (paper 002)"
PRESET = "c3_coexist"
EXPECTED_TIME = (
    "reduced: about 50 s (151 runs) on two cores; --full: 55 min (203 runs) on two cores "
    "shared with other jobs, measured before the engine's speed-ups"
)


# ---------------------------------------------------------------------------------------------
# registry


FIGURES: list[Figure] = [
    Figure(
        "Fig2b",
        "Base-TS: two ElasticSwitch flows with 250 Mb/s guarantees on 500 Mb/s both get them",
        "the pair's limiter rate (both flows run SRC1 → DST1) within ±10% of 500 Mb/s of "
        "frames; each flow's mean goodput (5 ms blocks) within ±10% of 250 Mb/s of frames in "
        "payload",
        [plan_fig2b],
        eval_fig2b,
    ),
    Figure(
        "Fig2c",
        "LS RTT ≈ 300 µs alone; with DS: mean +80%, tail +300%",
        "alone ≤ 1.25 × unloaded RTT; mean ratio ≥ 1.4 and p99 ratio ≥ 2.5 (lower magnitude edges)",
        [plan_fig2c],
        eval_fig2c,
    ),
    Figure(
        "Fig2d",
        "DS misses 0/10 alone, 2/10 with TS, 6/10 with TS+PS; Base-PS AFCT 17.64 ms",
        "alone ≤ 5% (every round); in the first round (with TS: the one that joins TS after "
        "0.5 s, as in the paper) each step adds misses (difference > 0) and C3 has fewer than "
        "without for TS/DS/PS; Base-PS AFCT within 2× of 17.64 ms",
        [plan_fig2d],
        eval_fig2d,
    ),
    Figure(
        "Fig2ef",
        "TS (guarantees met alone) drops to ≈110 Mb/s while DS bursts and the queue spikes",
        "min 1 ms TS goodput during DS < 90% of the 500 Mb/s guarantee; max queue during DS ≥ "
        "2× before",
        [plan_fig2ef],
        eval_fig2ef,
    ),
    Figure(
        "Fig3ab",
        "strict priority: DS misses when low; TS below its guarantee when low",
        "DS miss ratio when low ≥ 10%; TS 5th percentile of 1 ms goodput when low < 90% of "
        "the guarantee",
        [plan_fig3ab],
        eval_fig3ab,
    ),
    Figure(
        "Fig3c",
        "WFQ reconfiguration: more DS misses the larger the old/new weight gap and the delay",
        "misses non-decreasing along both axes and not all equal",
        [plan_fig3c],
        eval_fig3c,
    ),
    Figure(
        "Fig5",
        "testbed (simulated star): C3 improves PS AFCT 4×, DS misses → 0, TS unchanged",
        "AFCT gain in [2.5, 7]; DS misses with C3 ≤ 2%; TS goodput ratio in [0.9, 1.1]",
        [plan_fig5],
        eval_fig5,
    ),
    Figure(
        "Fig6",
        "TS/DS/PS at 90% load: C3 better on all metrics (WS AFCT 3×; misses 4×/4×/2×)",
        "per workload: AFCT gain > 1, fewer DS misses, TS ≥ 95% of guarantee with C3; WS gain "
        "largest",
        [plan_fig6],
        eval_fig6,
    ),
    Figure(
        "Fig7a",
        "DS with PS / TS / TS+PS: C3 reduces misses up to 3×",
        "C3 fewer misses in each mix; largest reduction in [2, 5]",
        [plan_fig7],
        eval_fig7a,
    ),
    Figure(
        "Fig7b",
        "PS hurt more with TS and TS+DS than with DS (not hurt); C3 AFCT 4× better",
        "AFCT(PS+TS), AFCT(PS+TS+DS) > AFCT(PS+DS); C3 gain with TS+DS in [2.5, 7]; PS+DS ≤ "
        "1.2 × PS alone",
        [plan_fig7],
        eval_fig7b,
    ),
    Figure(
        "Fig8a",
        "DS only: C3 meets more deadlines at every load (up to 2.5×), almost all below 30%",
        "C3 fewer misses at each load; largest reduction in [1.75, 4]; C3 ≤ 5% at the lowest",
        [plan_fig8],
        eval_fig8a,
    ),
    Figure(
        "Fig8b",
        "PS only: C3 like L2DCT at low load, better at high load",
        "AFCT ratio L2DCT / C3 in [0.9, 1.1] at the lowest load, > 1 at the highest",
        [plan_fig8],
        eval_fig8b,
    ),
    Figure(
        "Fig9-oversub",
        "3:1 oversubscribed: C3 PS AFCT −20%, DS misses only marginally lower",
        "AFCT gain in [1.1, 1.4]; miss ratio reduction in [0.95, 1.5]",
        [plan_fig9o],
        eval_fig9o,
    ),
    Figure(
        "Fig9-transport",
        "C3 with DCTCP inside: PS AFCT 3× better than the originals; DS better than D2TCP, "
        "worse than C3 with D2TCP",
        "AFCT gain in [2, 5]; misses below the originals' and above C3+D2TCP's",
        [plan_fig9t],
        eval_fig9t,
    ),
    Figure(
        "Fig10",
        "bursty dumbbell: no-C3 TS noisy, DS 9.6% misses, LS hurt; C3 TS flat, DS 0.2%, PS "
        "AFCT 17.34 ms; two-queue LS RTT ≈ base",
        "LS RTT no-C3 > C3 > two-queue, two-queue ≤ 1.25 × unloaded; with C3: ≤ 5% of TS bins "
        "below guarantee, DS misses ≤ 2%, PS AFCT within 2× of 17.34 ms",
        [plan_fig10],
        eval_fig10,
    ),
]

REDUCED = Scale(
    "reduced",
    seeds=(1, 2, 3),
    params={
        "motiv_rounds": 10,
        "motiv_join_ms": 500.0,
        "ef_start_ms": 500.0,
        "ef_rounds": 5,
        "fig3c_old": (1.0, 3.0, 9.0),
        "fig3c_delay_ms": (0.0, 20.0, 60.0),
        "fig5_rounds": 6,
        "fig5_period_ms": 50.0,
        "workloads": ("WS", "DM", "MR"),
        "loads": (0.3, 0.6, 0.9),
        "tree_ms": 200.0,
        "tree_warmup_ms": 10.0,
        "tree_cooldown_ms": 40.0,
        "tree_drain_ms": 200.0,
    },
)
FULL = Scale(
    "full",
    seeds=(1, 2, 3),
    params={
        "motiv_rounds": 50,
        "motiv_join_ms": 500.0,
        "ef_start_ms": 500.0,
        "ef_rounds": 25,
        "fig3c_old": (1.0, 2.0, 4.0, 9.0, 19.0),
        "fig3c_delay_ms": (0.0, 10.0, 20.0, 40.0, 80.0),
        "fig5_rounds": 20,
        "fig5_period_ms": 500.0,
        "workloads": ("WS", "DM", "MR"),
        "loads": (0.1, 0.3, 0.5, 0.7, 0.9),
        "tree_ms": 1000.0,
        "tree_warmup_ms": 50.0,
        "tree_cooldown_ms": 100.0,
        "tree_drain_ms": 500.0,
    },
)

REPRO = Reproduction(
    key="c3",
    title=TITLE,
    figures=FIGURES,
    scales={"reduced": REDUCED, "full": FULL},
    preamble=PREAMBLE,
)


#: ``dcnsim reproduce``: the reproduction's own method (reduced or ``full`` scale).
reproduce = REPRO.reproduce


__all__ = ["HOLDS", "NO", "REPRO", "TITLE", "by_id", "motiv", "reproduce", "star", "tree"]
