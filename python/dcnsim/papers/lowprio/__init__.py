"""Reproduction of Bashir, Faisal, Dogar — "Characterizing TCP's Performance for Low-Priority
Flows Inside a Cloud" (LPF; paper 000, spec experiments LPF-Fig2a … LPF-Fig11).

Presets and figure definitions only; running, intervals, verdicts and the report are
:mod:`dcnsim.papers.framework`. Every figure runs the shipped presets (``lpf_colocation``,
``lpf_das``, ``lpf_sjf``, ``lpf_hybrid``: LPF §3 defaults) with overrides.

The Near-Opt baseline replaces TCP for the **low-priority** flows only (LPF §3 "Baseline"). In
the co-location and hybrid cases those flows are a class of their own; in DAS and SJF one
workload feeds both priorities, so the Near-Opt run replays the TCP run's exact flows as two
explicit flow lists (high priority over TCP, low priority over Near-Opt). TCP and Near-Opt
flows are matched on (src, dst, size, start) and compared pair by pair.

Choices stated in the report (``PREAMBLE``): the co-location "high" load, the low-class-only
transport changes of Figs 8–10, the seeds per use case.

This package is the reproduction (``dcnsim reproduce lowprio``): its title, report preamble
and :data:`REPRO`. The rest is one concept per module: :mod:`.presets` (classes, loads,
scales, transports, overrides), :mod:`.metrics` (matched FCTs and normalized ratios), the
figures by use case — :mod:`.motivation` (Fig 2), :mod:`.das_sjf` (Fig 3),
:mod:`.colocation` (Fig 4), :mod:`.hybrid` (Fig 5), :mod:`.knobs` (Figs 7–11) —
:mod:`.figures` (the registry) and :mod:`.notes` (what is known about the misses).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..framework import HOLDS, NO, Finding, Reproduction, Scale
from .das_sjf import SJF_LOADS, _replay, _sjf_ov  # noqa: F401  (tools/ablations/lowprio.py)
from .figures import FIGURES
from .metrics import (  # noqa: F401  (re-exported: the tests and tools/ablations use them)
    FLOW_COLUMNS,
    STATS,
    _low,
    bucket,
    guard,
    low_fct,
    n_of,
    pairs,
    ratio,
    rel,
    retx_rate,
)
from .motivation import _fig2_ov  # noqa: F401  (tools/ablations/lowprio.py)
from .notes import INVESTIGATED, _noted  # noqa: F401  (re-exported: the tests read them)
from .presets import (  # noqa: F401  (re-exported: the presets are this paper's API)
    BUCKETS,
    COLOC_LOADS,
    DM_LOW_FLOWS_PER_S,
    FULL,
    HIGH,
    HIGH_SWEEP,
    LINK_BPS,
    LPF_EDGES,
    LPF_TCP,
    MECHANISMS,
    NEAROPT,
    REDUCED,
    TINY,
    _window,
    coloc,
    low_transport,
    update_period,
)

TITLE = (
    "Bashir, Faisal, Dogar — Characterizing TCP's Performance for Low-Priority Flows "
    "Inside a Cloud (LPF)"
)
#: Wall time of `dcnsim reproduce lowprio` (measured; docs/cli.md), for `reproduce --help`.
EXPECTED_TIME = (
    "reduced: about 2.3 min on two cores (275 runs); --full: about 55 min (1,465 runs, 102 CPU-min "
    "of simulation measured on a loaded machine)"
)

for _f in FIGURES:
    _f.evaluate = _noted(_f.evaluate)

PREAMBLE = f"""\
Normalized FCT = a statistic of TCP's low-priority FCTs ÷ the same statistic under the
Near-Opt baseline, over flows matched on (src, dst, size, start) and completed in both runs.

Choices (stated, not tuned):
- Co-location "high" load = {HIGH:.0%} of the parameter-server link for the ML class (80% in
  total with the 10% storage class, the total load of the paper's hybrid-services figure);
  Fig 4a reports {", ".join(f"{x:.0%}" for x in HIGH_SWEEP)} too. Low / medium = 15% / 30%.
  The co-location findings hinge on this unstated load, and no single load gives all of
  them: in one-change ablations (tools/ablations/lowprio.py, the notes of Figs 4a, 4b, 7, 8
  and 9) Figs 4b, 8 and 9 come closest to the paper at 60% (Fig 9 holds there, Fig 8's
  right arm and Fig 4b's order appear, with their other parts on the edge), while Figs 4a
  and 7 reach the paper's magnitude only at 75-80%.
- Co-location runs use 5 seeds at the reduced scale and 40 at full scale (their
  seed-to-seed variance is large); the others use the scale's seeds.
- Figs 8–10 change only the low-priority class's transport (RTO_min, CC, SACK, LEDBAT /
  TCP-LP); the high-priority incast keeps the study's TCP. LEDBAT and TCP-LP use the study's
  TCP settings otherwise (IW 2, RTO_min 1 ms, SACK, 1 MB buffers; LPF §3 configures TCP once).
- Near-Opt counts its own class's queue only beyond one period of the link
  (`nearopt_own_queue = "excess"`, work-conserving; see docs/schemes.md) and re-paces at every
  rate update.
- Near-Opt computes its rates by LPF §3's printed rule (a link's available rate divided by its
  flow count, the minimum over the path; `nearopt_share = "equal"`, spec §4.12). That rule
  leaves idle the share of a flow another link holds lower; the max-min share
  (`nearopt_share = "max_min"`) is a stronger baseline than the paper's, measured as an
  ablation in LPF-Fig3a's note, not used for verdicts. Near-Opt keeps new data inside
  the receiver's 1 MB window, and at a timeout counts bytes the receiver holds as acknowledged
  (its loss information covers lost ACKs).
"""

REPRO = Reproduction(
    key="lowprio",
    title=TITLE,
    figures=FIGURES,
    scales={"reduced": REDUCED, "full": FULL, "tiny": TINY},
    preamble=PREAMBLE,
    mechanisms={m: ("lpf_colocation", ov) for m, ov in MECHANISMS.items()},
    flow_columns=FLOW_COLUMNS,
)


def run_figures(
    out_dir: Any, scale: Scale, figures: Sequence[str] | None = None, **kw: Any
) -> list[Finding]:
    """Evaluates ``figures`` (ids like "LPF-Fig8", or "8"); all by default."""
    ids = (
        None if figures is None else [f if f.startswith("LPF-") else f"LPF-Fig{f}" for f in figures]
    )
    return REPRO.run(out_dir, scale, ids, **kw)


def mechanism_status() -> dict[str, str | None]:
    return REPRO.mechanism_status()


#: ``dcnsim reproduce``: the reproduction's own method (reduced or ``full`` scale).
reproduce = REPRO.reproduce


__all__ = ["HOLDS", "NO", "REPRO", "TITLE", "mechanism_status", "reproduce", "run_figures"]
