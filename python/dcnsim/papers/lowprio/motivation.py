"""LPF Fig 2, the 9-node motivation: retransmissions of long low-priority flows under
PriorityQueue vs FairShare (2a) and the FCT gap between TCP and Near-Opt (2b).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..framework import (
    TOL,
    Ctx,
    Finding,
    band,
    bootstrap,
)
from .metrics import _rstr, guard, n_of, pairs, ratio, retx_rate
from .presets import MECHANISMS, coloc

# ---------------------------------------------------------------------------------------------
# Fig 2: 9-node motivation


def _fig2_ov(c: Ctx, fair: bool) -> dict[str, Any]:
    ov = coloc(c.scale.fig2_s, load=0.5)
    ov.update({"topology.hosts": 9, "classes[1].workload.senders": list(range(1, 9))})
    if fair:
        # FairShare: one shared FIFO queue with the whole 192 KB port buffer, both workloads
        # at the same priority (LPF §2.2 "flows from both the applications share a single
        # queue").
        ov.update(
            {
                "switch.queues": 1,
                "switch.scheduler": {"kind": "fifo"},
                "switch.queue_limit": "192KB",
                "host.queues": 1,
                "host.scheduler": {"kind": "fifo"},
                "classes[1].priority": 0,
            }
        )
    return ov


def plan_2a(c: Ctx) -> None:
    for s in c.seeds:
        c.add(("2", "prio", s), "lpf_colocation", _fig2_ov(c, False), s)
        c.add(("2", "fair", s), "lpf_colocation", _fig2_ov(c, True), s)


def eval_2a(c: Ctx, fd: Finding) -> None:
    pq_runs, fs_runs = c.seeds_of("2", "prio"), c.seeds_of("2", "fair")
    pq = [retx_rate(r) for r in pq_runs]
    fs = [retx_rate(r) for r in fs_runs]
    c.point("PriorityQueue", pq_runs, sum(map(len, pq)))
    c.point("FairShare", fs_runs, sum(map(len, fs)))
    p80 = lambda v: float(np.percentile(v, 80))  # noqa: E731
    a, b = bootstrap(p80, pq), bootstrap(p80, fs)
    fd.stats = {"p80_pq": a, "p80_fs": b}
    fd.ours = f"p80 retransmission rate: PriorityQueue {a}, FairShare {b}"
    # 8% within a factor TOL on the rate itself; "negligible" = at most 1%
    fd.judge(p80_PriorityQueue=band(a, 0.08 / TOL, 0.08 * TOL), p80_FairShare=band(b, 0, 0.01))

    def plot(ax: Any) -> None:
        for v, lab in ((np.concatenate(pq), "PriorityQueue"), (np.concatenate(fs), "FairShare")):
            x = np.sort(v) * 100
            ax.plot(x, np.arange(1, x.size + 1) / max(1, x.size), label=lab)
        ax.set_xlabel("retransmission rate of long low-priority flows (%)")
        ax.set_ylabel("CDF")
        ax.legend()

    fd.plot = plot


def plan_2b(c: Ctx) -> None:
    for s in c.seeds:
        c.add(("2", "prio", s), "lpf_colocation", _fig2_ov(c, False), s)
        c.add(
            ("2", "nearopt", s),
            "lpf_colocation",
            {**_fig2_ov(c, False), **MECHANISMS["nearopt"]},
            s,
        )


def eval_2b(c: Ctx, fd: Finding) -> None:
    tcp, no = c.seeds_of("2", "prio"), c.seeds_of("2", "nearopt")
    p = pairs(tcp, no, "long")
    c.point("long flows, TCP vs Near-Opt", tcp + no, n_of(p))
    d = {s: ratio(p, s) for s in ("mean", "p50", "p99")}
    fd.stats = d
    fd.ours = "TCP / Near-Opt, long flows: " + _rstr(d)
    fd.judge(baseline=guard(fd, [d["mean"]]), p50=band(d["p50"], 1.25), p99=band(d["p99"], 1.25))

    def plot(ax: Any) -> None:
        for a, lab in ((np.concatenate(p)[:, 0], "TCP"), (np.concatenate(p)[:, 1], "Near-Opt")):
            x = np.sort(a) * 1e3
            ax.plot(x, np.arange(1, x.size + 1) / max(1, x.size), label=lab)
        ax.set_xscale("log")
        ax.set_xlabel("FCT of long low-priority flows (ms)")
        ax.set_ylabel("CDF")
        ax.legend()

    fd.plot = plot
