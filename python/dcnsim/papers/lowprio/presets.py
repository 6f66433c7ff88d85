"""LPF presets (paper 000): the study's flow-size classes and co-location loads, the
reproduction's scales, the study's TCP for low-priority-only transports, the Near-Opt
baseline, the mechanisms a figure needs, and the run window and co-location overrides.
"""

from __future__ import annotations

import math
from typing import Any

from ..framework import (
    Scale,
)

#: LPF §3 flow classes: small < 50 KB, medium 50 KB – 1 MB, long > 1 MB.
LPF_EDGES = (0.0, 50_000.0, 1_000_000.0, math.inf)
BUCKETS = ("small", "medium", "long")
LINK_BPS = 10e9

#: Co-location loads of the high-priority (ML) class on the parameter-server link. LPF §3.2
#: names low / medium / high without values. [CHOICE] "high" = 70%: with the storage class's
#: 10% the link then carries 80% in total, the total load the paper uses for its other
#: high-load use case (hybrid services, Fig 5: "80% total load"). Fig 4a also reports 50%,
#: 60% and 80% (the verdict uses 70%, fixed before the runs).
COLOC_LOADS = (("low", 0.15), ("medium", 0.3), ("high", 0.7))
HIGH = 0.7
HIGH_SWEEP = (0.5, 0.6, 0.7, 0.8)

REDUCED = Scale(
    "reduced",
    # three seeds: with two, an interval's seed-to-seed part is widened 9.2× (Student's t with
    # one degree of freedom, papers/stats.py), and the reduced scale decided nothing
    seeds=(1, 2, 3),
    params={
        "coloc_seeds": (1, 2, 3, 4, 5),
        "coloc_s": 1.0,
        "fig2_s": 3.0,
        "das_s": 0.1,
        "sjf_s": 0.3,
        "sjf_dm_flows": 0,  # 3c: whatever sjf_s gives (too few for a p99.9)
        "hybrid_s": 0.3,
    },
)
FULL = Scale(
    "full (paper)",
    seeds=(1, 2, 3),
    params={
        # Forty seeds: with five, Figs 4a, 4b, 8 and 11 straddled their thresholds and their
        # notes estimated 3-14 seeds to decide; with ten, 4b, 8, 9 and 11 still did (Fig 9's
        # note estimated about 60). A run here takes about a second.
        "coloc_seeds": tuple(range(1, 41)),
        "coloc_s": 1.5,
        "fig2_s": 6.0,
        "das_s": 0.4,
        "sjf_s": 1.5,
        "sjf_dm_flows": 5000,  # 3c: low-priority flows at high load, all seeds together
        "hybrid_s": 1.0,
    },
)
#: For CI tests: the smallest runs that still show shapes.
TINY = Scale(
    "tiny",
    seeds=(1,),
    params={
        "coloc_seeds": (1, 2),
        "coloc_s": 0.4,
        "fig2_s": 1.5,
        "das_s": 0.03,
        "sjf_s": 0.08,
        "sjf_dm_flows": 0,
        "hybrid_s": 0.08,
    },
)

#: Data-mining (VL2) flows of ≥ 1 MB per simulated second per unit of load on 40 hosts
#: (measured: 13 in a 0.27 s window at 15% load); sizes the 3c runs for ``sjf_dm_flows``.
DM_LOW_FLOWS_PER_S = 320.0

# ---------------------------------------------------------------------------------------------
# presets


#: The study's TCP (LPF §3: CUBIC, SACK, IW 2, RTO_min 1 ms, 1 MB buffers), for transports
#: that only the low class uses.
LPF_TCP = {
    "cc": "cubic",
    "sack": True,
    "init_cwnd": 2,
    "rto_min": "1ms",
    "rto_init": "1ms",
    "rwnd": "1MB",
}


def low_transport(**changes: Any) -> dict[str, Any]:
    """Overrides giving the low-priority class (classes[1]) its own transport: the study's
    TCP with ``changes``. The high-priority class keeps the preset's ``tcp`` untouched, so
    the on-off incast itself does not change (LPF Figs 8–10 vary the low-priority flows)."""
    return {"transports.low": {**LPF_TCP, **changes}, "classes[1].transport": "low"}


#: The Near-Opt baseline: spec §4.12's rate rule as LPF §3 prints it, a link's available
#: rate divided by its flow count, the minimum over the path (`nearopt_share = "equal"`).
#: LPF §3's prose calls the result "the fair-share rate", "RCP style"; the printed rule
#: leaves idle the share of a flow that another link holds lower (74-84% of the max-min rates
#: in the 5 MB DAS runs). The max-min share (`nearopt_share = "max_min"`, docs/schemes.md)
#: is a stronger baseline than the paper's and is reported as an ablation (LPF-Fig3a's note),
#: not used for the verdicts: the reproduction models the mechanism as specified.
NEAROPT = {"kind": "nearopt", "nearopt_share": "equal"}

MECHANISMS: dict[str, dict[str, Any]] = {
    # spec §4.12 (see NEAROPT)
    "nearopt": {"transports.nearopt": NEAROPT, "classes[1].transport": "nearopt"},
    # spec §5.1.5 / §2.8
    "cqcn": {
        **low_transport(cqcn=True, cqcn_interval="100us", cqcn_probe="64B", cqcn_priority=0),
        "scheme": {"kind": "cqcn", "threshold": "10KB"},
    },
    # spec §4.6 / §4.7: configured like the study's TCP (IW 2, RTO_min 1 ms, §3), only the
    # congestion control differs
    "ledbat": low_transport(cc="ledbat", ledbat_target="3.2ms"),
    "tcp_lp": low_transport(cc="tcp_lp"),
}


def _window(dur: float) -> dict[str, Any]:
    # 5% warm-up and cool-down; a generous horizon for stragglers of starved flows.
    return {
        "run.duration": f"{dur:g}s",
        "run.warmup": f"{dur * 0.05:g}s",
        "run.cooldown": f"{dur * 0.05:g}s",
        "run.horizon": f"{max(10 * dur, 2.0):g}s",
    }


def update_period(aggregate_bytes: float, load: float) -> str:
    """LPF §3.2 / spec §5.1.3: load = aggregate update × 8 / period / link rate."""
    return f"{aggregate_bytes * 8 / (load * LINK_BPS) * 1e6:.3f}us"


def coloc(dur: float, *, load: float = HIGH, update: float = 4e6, **extra: Any) -> dict[str, Any]:
    """Overrides of the co-location preset: high-priority load and aggregate update size."""
    ov = {
        **_window(dur),
        "classes[0].workload.bytes_per_sender": {"fixed": f"{update / 8:.0f}B"},
        "classes[0].workload.period": update_period(update, load),
    }
    ov.update(extra)
    return ov
