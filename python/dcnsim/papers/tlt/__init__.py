"""TLT (Lim, Bai, Zhu, Jung, Han — "Towards Timeout-less Transport in Commodity Datacenter
Networks", EuroSys 2021; paper 004): the TCP and DCTCP half of §7 and Appendix B.

Presets and figure definitions only; running, intervals, verdicts and the report are
:mod:`dcnsim.papers.framework`. Every run is the shipped ``tlt`` scenario (TLT-SIM-TCP-BASE:
96 hosts, 12 ToRs × 8, 4 cores, 40 Gb/s, 10 µs per link, 4.5 MB shared buffer per switch
with DT α = 1) with overrides for the transport (DCTCP or NewReno "vanilla TCP") and the
variant: baseline (RTO_min 4 ms, lossy), +PFC, +TLT (important marking + colour-aware
dropping at 400 kB), +TLT+PFC, +TLP (PTO_min 10 µs), RTO_min 200 µs, a static 160 µs RTO.

Metrics (spec §6, TLT-Fig*): foreground = the 95 → 1 incast flows, background = the Poisson
web-search flows, both started in the measurement window; unfinished flows count as +inf in
percentiles and means. Timeouts per 1k flows = Σ RTOs × 1000 / flows. PAUSE frames per 1k
flows and the mean fraction of time a PFC link priority is paused come from the queue table.
The RoCE half (Fig 6, 9a, the RoCE columns of Fig 15, TLT-N) is :mod:`dcnsim.papers.tlt.roce`,
included in this reproduction's figures.

This package is the reproduction (``dcnsim reproduce tlt``): its title, report preamble, the
notes wiring and :data:`REPRO`. The rest is one concept per module: :mod:`.presets`
(constants, variants, load arithmetic, scales), :mod:`.metrics` (run keys and per-flow
statistics), :mod:`.fig5` (the figures on the six-variant runs), :mod:`.sweeps` (the
one-parameter sweeps), :mod:`.roce` (the RoCE half), :mod:`.figures` (the registry) and
:mod:`.notes` (what is known about the misses).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..framework import HOLDS, NA, Ctx, Finding, Reproduction, Scale, by_id
from . import roce
from .fig5 import _delivery_quantile  # noqa: F401  (re-exported: tests read it from here)
from .figures import FIGURES
from .metrics import FLOW_COLUMNS
from .notes import TCP_MISS_NOTES, note_for
from .presets import (  # noqa: F401  (re-exported: the presets are this paper's API)
    FAN_IN,
    FG_BYTES,
    FULL,
    HOSTS,
    K_TCP,
    LINK_BPS,
    OVERSUB,
    QUICK,
    REDUCED,
    SCENARIO,
    TRANSPORTS,
    VARIANT_LABEL,
    WIRE,
    WORKLOADS,
    buffer_room,
    classes,
    variant,
)

TITLE = (
    "Towards Timeout-less Transport in Commodity Datacenter Networks (TLT; Lim et al., "
    "EuroSys 2021) — TCP, DCTCP and RoCE"
)
#: Wall time of `dcnsim reproduce tlt` (measured; docs/cli.md), for `reproduce --help`.
EXPECTED_TIME = (
    "reduced: about 5.7 min on two cores (297 runs, 177 TCP and 120 RoCE, then 1.2 min of "
    "bootstrap intervals; the intervals take 45 s since 2026-11-28); --full: several hours "
    "(its RoCE half alone took 2.2 h on one core, its Fig 1/5/7 subset 63 min)"
)

#: What is known about each finding when it does not hold: what was tried, and which
#: explanations are hypotheses (none is stated as a cause without an ablation).
MISS_NOTES: dict[str, str | Mapping[str, str]] = {**TCP_MISS_NOTES, **roce.MISS_NOTES}


def _scale_key(scale: Scale) -> str:
    """The key of ``scale`` in this reproduction's scales ("reduced", "full", "quick")."""
    return next((k for k, sc in REPRO.scales.items() if sc is scale), scale.name)


def _noted(ev: Any, notes: str | Mapping[str, str]) -> Any:
    def f(c: Ctx, fd: Finding) -> None:
        ev(c, fd)
        if fd.verdict not in (HOLDS, NA):
            fd.note = f"{fd.note} {note_for(notes, _scale_key(c.scale))}".strip()

    return f


for _f in FIGURES:
    if _f.id in MISS_NOTES:
        _f.evaluate = _noted(_f.evaluate, MISS_NOTES[_f.id])

PREAMBLE = (
    """\
The TCP and DCTCP half of TLT's evaluation (§7.1, Appendix B) on TLT-SIM-TCP-BASE (the
shipped `tlt` scenario). Foreground = 95 → 1 incasts of 8 × 8 kB flows per sender, 5% of the
bytes; background = web-search Poisson flows; ToR–core load 40%. Unfinished flows count as
+inf.
Segment delivery time (Fig 16): first transmission to the first ACK covering the segment,
retransmissions included, all classes, from the core's histograms (50 bins per decade).

Choices (stated, not tuned): MSS 1460 B (reference code 1480 B); ACK every segment; the
senders of one incast start together; PFC with a dynamic XOFF (α = 1/16) and headroom for
2 × link delay × rate + 2 MTU; colour threshold 400 kB counted on the port's red bytes
(`red_only`, the reference code's reading); TLT's adaptive important ACK-clocking.

"""
    + roce.PREAMBLE
)

REPRO = Reproduction(
    key="tlt",
    title=TITLE,
    figures=FIGURES,
    scales={"reduced": REDUCED, "full": FULL, "quick": QUICK},
    preamble=PREAMBLE,
    mechanisms={
        "pfc": (SCENARIO, variant("pfc", "dctcp")),
        "tlt": (SCENARIO, variant("tlt", "dctcp")),
        **roce.MECHANISMS,
    },
    flow_columns=FLOW_COLUMNS,
)


#: ``dcnsim reproduce``: the reproduction's own method (reduced or ``full`` scale).
reproduce = REPRO.reproduce


__all__ = ["HOLDS", "REPRO", "TITLE", "buffer_room", "by_id", "classes", "reproduce", "variant"]
