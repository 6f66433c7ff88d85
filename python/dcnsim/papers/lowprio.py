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
"""

from __future__ import annotations

import copy
import itertools
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..results import Results
from .framework import (
    HOLDS,
    INCONCLUSIVE,
    NO,
    TOL,
    Ctx,
    Figure,
    Finding,
    Interval,
    Reproduction,
    Scale,
    all_of,
    band,
    bars,
    bootstrap,
    effect_band,
)

TITLE = (
    "Bashir, Faisal, Dogar — Characterizing TCP's Performance for Low-Priority Flows "
    "Inside a Cloud (LPF)"
)
#: Wall time of `dcnsim reproduce lowprio` (measured; docs/cli.md), for `reproduce --help`.
EXPECTED_TIME = "reduced: about 3.3 min on two cores; --full: 30-50 min"

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
    seeds=(1, 2),
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
        "coloc_seeds": (1, 2, 3, 4, 5),
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


# ---------------------------------------------------------------------------------------------
# statistics


def _low(res: Results) -> pd.DataFrame:
    f = res.flows
    return f[f["in_window"].astype(bool) & (f["priority"] == 1)]


def bucket(sizes: pd.Series) -> pd.Series:
    return pd.cut(sizes.astype(float), bins=list(LPF_EDGES), right=True, labels=list(BUCKETS))


STATS: dict[str, Callable[[np.ndarray], float]] = {
    "mean": lambda v: float(np.mean(v)) if len(v) else math.nan,
    "p50": lambda v: float(np.percentile(v, 50)) if len(v) else math.nan,
    "p99": lambda v: float(np.percentile(v, 99)) if len(v) else math.nan,
    "p99.9": lambda v: float(np.percentile(v, 99.9)) if len(v) else math.nan,
}


def low_fct(runs: Sequence[Results], which: str | None = None) -> list[np.ndarray]:
    """Per seed: FCTs of completed in-window low-priority flows (optionally one size class)."""
    out = []
    for r in runs:
        f = _low(r)
        if which is not None:
            f = f[bucket(f["size"]) == which]
        out.append(f.loc[f["completed"].astype(bool), "fct_s"].to_numpy(dtype=float))
    return out


def pairs(tcp: Sequence[Results], base: Sequence[Results], which: str | None = None) -> list:
    """Per seed: (TCP FCT, Near-Opt FCT) of the low-priority flows completed in both runs,
    matched on (src, dst, size, start)."""
    key = ["src", "dst", "size", "start_s"]
    out = []
    for t, b in zip(tcp, base, strict=True):
        m = _low(t)[[*key, "fct_s", "completed"]].merge(
            _low(b)[[*key, "fct_s", "completed"]], on=key, suffixes=("_t", "_n")
        )
        if which is not None:
            m = m[bucket(m["size"]) == which]
        both = m["completed_t"].astype(bool) & m["completed_n"].astype(bool)
        out.append(m.loc[both, ["fct_s_t", "fct_s_n"]].to_numpy(dtype=float))
    return out


def ratio(p: list, stat: str) -> Interval:
    """Normalized FCT (LPF §3): a statistic of TCP's FCTs ÷ the same statistic under
    Near-Opt, over matched pairs, with its cluster-bootstrap interval."""
    f = STATS[stat]

    def r(a: np.ndarray) -> float:
        d = f(a[:, 1])
        return f(a[:, 0]) / d if d else math.nan

    return bootstrap(r, p)


def rel(a: list, b: list, stat: str) -> Interval:
    """stat(a) ÷ stat(b) for two independent configurations (e.g. two buffer sizes)."""
    f = STATS[stat]
    return bootstrap(lambda x, y: f(x) / f(y) if f(y) else math.nan, a, b)


def n_of(p: list) -> int:
    return int(sum(len(x) for x in p))


def retx_rate(res: Results) -> np.ndarray:
    """Per-flow retransmission rate (retransmitted / data packets) of long storage flows."""
    f = res.flows
    f = f[f["in_window"].astype(bool) & (f["class"] == "storage") & (f["size"] > 1e6)]
    return (f["retx_pkts"] / f["data_pkts"].clip(lower=1)).to_numpy(dtype=float)


def guard(fd: Finding, ivs: Sequence[Interval]) -> str:
    """Near-Opt is the upper bound of a fair transport: a normalized mean FCT whose interval
    lies below 1 means the baseline failed (slower than TCP), so nothing can be judged."""
    bad = [iv for iv in ivs if np.isfinite(iv.hi) and iv.hi < 1]
    if bad:
        fd.note = (
            f"Near-Opt baseline slower than TCP (normalized mean FCT {bad[0]}): the baseline is "
            "not near-optimal here, so the finding cannot be judged. " + fd.note
        ).strip()
        return NO
    return all_of(*(band(iv, 1.0) for iv in ivs))


def _rstr(ivs: dict[str, Interval]) -> str:
    return ", ".join(f"{k} {v}" for k, v in ivs.items())


def _ratio_plot(
    xs: Sequence[str], per_x: Sequence[dict[str, Interval]], xlabel: str
) -> Callable[[Any], None]:
    """The paper's form: normalized FCT (TCP ÷ Near-Opt) per x value, avg / p99 / p99.9."""

    def plot(ax: Any) -> None:
        series = {s: [d[s] for d in per_x] for s in ("mean", "p99", "p99.9")}
        bars(ax, xs, series, xlabel=xlabel, ylabel="normalized FCT (TCP / Near-Opt)", ref=1.0)

    return plot


def _fct_plot(xs: Sequence[str], per_x: Sequence[dict[str, Interval]], xlabel: str) -> Any:
    def plot(ax: Any) -> None:
        series = {s: [d[s].scaled(1e3) for d in per_x] for s in ("mean", "p99")}
        bars(ax, xs, series, xlabel=xlabel, ylabel="low-priority FCT (ms)")

    return plot


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


# ---------------------------------------------------------------------------------------------
# Fig 3: DAS and SJF (one workload: Near-Opt replays the TCP run's flows)

DAS_MEANS = (128e3, 1e6, 5e6)
SJF_LOADS = (("low", 0.15), ("medium", 0.3), ("high", 0.5))


def _replay(tcp: Results, preset: str) -> dict[str, Any]:
    """The Near-Opt baseline of a one-workload use case (DAS, SJF): the TCP run's exact flows
    as two explicit lists, high priority over the preset's TCP, low priority over Near-Opt."""
    sc = copy.deepcopy(tcp.scenario)
    f = tcp.flows
    cls = sc["classes"][0]

    def rows(d: pd.DataFrame) -> list[dict[str, Any]]:
        return [
            {
                "src": int(r.src),
                "dst": int(r.dst),
                "size": int(r.size),
                "start": f"{round(r.start_s * 1e12)}ps",
                "tag": int(r.tag),
            }
            for r in d.itertuples()
        ]

    hi, lo = f[f["priority"] == 0], f[f["priority"] == 1]
    sc["transports"]["nearopt"] = dict(NEAROPT)
    sc["classes"] = [
        {
            "name": "high",
            "priority": 0,
            "transport": cls["transport"],
            "workload": {"kind": "flows", "list": rows(hi)},
        },
        {
            "name": "low",
            "priority": 1,
            "transport": "nearopt",
            "workload": {"kind": "flows", "list": rows(lo)},
        },
    ]
    sc["name"] = f"{preset}_nearopt_replay"
    return sc


def _das_ov(c: Ctx, mean: float) -> dict[str, Any]:
    dur = c.scale.das_s * max(1.0, mean / 128e3) ** 0.5
    return {**_window(dur), "classes[0].workload.sizes": {"uniform": ["1B", f"{2 * mean:.0f}B"]}}


def plan_3a(c: Ctx) -> None:
    for m in DAS_MEANS:
        for s in c.seeds:
            c.add(("3a", m, s), "lpf_das", _das_ov(c, m), s)


def plan2_3a(c: Ctx) -> None:
    for m in DAS_MEANS:
        for s in c.seeds:
            c.add(("3a-no", m, s), _replay(c.get(("3a", m, s)), "lpf_das"), {}, s)


def _within2(c: Ctx, fd: Finding, xs: Sequence[str], ps: Sequence[list], what: str) -> None:
    """ "TCP within 2× of Near-Opt" at every x: mean and p99 ratios in [1, 2] (1 = the
    baseline guard)."""
    per = [{s: ratio(p, s) for s in ("mean", "p99", "p99.9")} for p in ps]
    fd.stats = {f"{x}_{s}": d[s] for x, d in zip(xs, per, strict=True) for s in ("mean", "p99")}
    fd.ours = "; ".join(
        f"{x}: {_rstr({k: d[k] for k in ('mean', 'p99')})}" for x, d in zip(xs, per, strict=True)
    )
    fd.judge(
        baseline=guard(fd, [d["mean"] for d in per]),
        **{f"{x}_mean": band(d["mean"], 1, 2) for x, d in zip(xs, per, strict=True)},
        **{f"{x}_p99": band(d["p99"], 0, 2) for x, d in zip(xs, per, strict=True)},
    )
    fd.plot = _ratio_plot(xs, per, what)


def eval_3a(c: Ctx, fd: Finding) -> None:
    ps, xs = [], []
    for m in DAS_MEANS:
        tcp, no = c.seeds_of("3a", m), c.seeds_of("3a-no", m)
        p = pairs(tcp, no)
        c.point(f"mean {m / 1e3:g} KB", tcp + no, n_of(p))
        ps.append(p)
        xs.append(f"{m / 1e3:g}KB")
    _within2(c, fd, xs, ps, "mean flow size")


def _sjf_ov(c: Ctx, cdf: str, load: float) -> dict[str, Any]:
    dur = c.scale.sjf_s
    if cdf == "datamining_vl2" and c.scale.sjf_dm_flows and load == SJF_LOADS[-1][1]:
        # enough ≥ 1 MB (low-priority) flows for the high-load p99.9 that 3c compares:
        # sjf_dm_flows over all seeds (low and medium are judged at p99)
        want = c.scale.sjf_dm_flows / len(c.seeds) / 0.9  # 90% of a run is in the window
        dur = max(dur, want / (DM_LOW_FLOWS_PER_S * load))
    return {
        **_window(dur),
        "classes[0].workload.sizes": {"cdf": cdf},
        "classes[0].workload.load": load,
    }


def _plan_sjf(fig: str, cdf: str) -> Callable[[Ctx], None]:
    def plan(c: Ctx) -> None:
        for _, load in SJF_LOADS:
            for s in c.seeds:
                c.add((fig, load, s), "lpf_sjf", _sjf_ov(c, cdf, load), s)

    return plan


def _plan2_sjf(fig: str) -> Callable[[Ctx], None]:
    def plan(c: Ctx) -> None:
        for _, load in SJF_LOADS:
            for s in c.seeds:
                c.add((fig + "-no", load, s), _replay(c.get((fig, load, s)), "lpf_sjf"), {}, s)

    return plan


def _plan_3c(c: Ctx) -> None:
    _plan_sjf("3b", "websearch")(c)  # the web-search gap it is compared with
    _plan_sjf("3c", "datamining_vl2")(c)


def _plan2_3c(c: Ctx) -> None:
    _plan2_sjf("3b")(c)
    _plan2_sjf("3c")(c)


def _sjf_pairs(c: Ctx, fig: str) -> dict[str, list]:
    out = {}
    for name, load in SJF_LOADS:
        tcp, no = c.seeds_of(fig, load), c.seeds_of(fig + "-no", load)
        out[name] = pairs(tcp, no)
        c.point(f"{fig} {name} ({load:.0%})", tcp + no, n_of(out[name]))
    return out


def eval_3b(c: Ctx, fd: Finding) -> None:
    ps = _sjf_pairs(c, "3b")
    _within2(c, fd, list(ps), list(ps.values()), "load (web search)")


def eval_3c(c: Ctx, fd: Finding) -> None:
    dm, ws = _sjf_pairs(c, "3c"), _sjf_pairs(c, "3b")
    per = {k: {s: ratio(p, s) for s in ("mean", "p99", "p99.9")} for k, p in dm.items()}
    f999 = STATS["p99.9"]

    def gap(a: np.ndarray, b: np.ndarray) -> float:
        ra = f999(a[:, 0]) / f999(a[:, 1])
        rb = f999(b[:, 0]) / f999(b[:, 1])
        return ra / rb

    rel_gap = bootstrap(gap, dm["high"], ws["high"])
    f99 = STATS["p99"]
    worst = bootstrap(
        lambda a, b, h: max(f99(x[:, 0]) / f99(x[:, 1]) for x in (a, b, h)),
        dm["low"],
        dm["medium"],
        dm["high"],
    )
    fd.stats = {"dm_over_ws_p999_high": rel_gap, "dm_max_p99": worst}
    n = n_of(dm["high"])
    fd.ours = (
        "; ".join(f"{k}: {_rstr(v)}" for k, v in per.items())
        + f"; high-load p99.9 DM/WS {rel_gap}; max p99 {worst}; {n} DM flows at high load"
    )
    lo, hi = effect_band(1.44)
    if n < 5000:
        fd.note = (
            f"only {n} low-priority (≥ 1 MB) data-mining flows at high load: a p99.9 needs "
            "≥ 5,000 (the full scale runs that many)."
        )
    fd.judge(
        baseline=guard(fd, [d["mean"] for d in per.values()]),
        DM_over_WS_p999_gap=band(rel_gap, lo, hi),
        max_DM_p99=band(worst, 1.0, 3.0 * 1.5),
        flows_at_high_load=HOLDS if n >= 5000 else INCONCLUSIVE,
    )
    fd.plot = _ratio_plot(list(per), list(per.values()), "load (data mining)")


# ---------------------------------------------------------------------------------------------
# Fig 4: co-location

UPDATES = (4e6, 8e6, 12e6, 16e6, 24e6)


def _cs(c: Ctx) -> tuple[int, ...]:
    return c.scale.coloc_seeds


def _coloc_pair(c: Ctx, load: float, upd: float) -> None:
    for s in _cs(c):
        c.add(
            ("4", load, upd, "tcp", s),
            "lpf_colocation",
            coloc(c.scale.coloc_s, load=load, update=upd),
            s,
        )
        c.add(
            ("4", load, upd, "no", s),
            "lpf_colocation",
            coloc(c.scale.coloc_s, load=load, update=upd, **MECHANISMS["nearopt"]),
            s,
        )


def _coloc_pairs(
    c: Ctx, load: float, upd: float, which: str | None = None, label: str = ""
) -> list:
    tcp = [c.get(("4", load, upd, "tcp", s)) for s in _cs(c)]
    no = [c.get(("4", load, upd, "no", s)) for s in _cs(c)]
    p = pairs(tcp, no, which)
    c.point(
        label or f"load {load:.0%}, {upd / 1e6:g} MB" + (f", {which}" if which else ""),
        tcp + no,
        n_of(p),
    )
    return p


def plan_4a(c: Ctx) -> None:
    for load in sorted({x for _, x in COLOC_LOADS} | set(HIGH_SWEEP)):
        _coloc_pair(c, load, 4e6)


def eval_4a(c: Ctx, fd: Finding) -> None:
    loads = sorted({x for _, x in COLOC_LOADS} | set(HIGH_SWEEP))
    ps = {x: _coloc_pairs(c, x, 4e6) for x in loads}
    per = {x: {s: ratio(ps[x], s) for s in ("mean", "p99", "p99.9")} for x in loads}
    named = {n: per[x] for n, x in COLOC_LOADS}
    fd.stats = {f"{n}_{s}": d[s] for n, d in named.items() for s in ("mean", "p99")}
    fd.ours = "; ".join(
        f"{x:.0%}: {_rstr({k: d[k] for k in ('mean', 'p99')})}" for x, d in per.items()
    )
    fd.judge(
        baseline=guard(fd, [d["mean"] for d in per.values()]),
        low_mean=band(named["low"]["mean"], 1, 2),
        medium_mean=band(named["medium"]["mean"], 1, 2),
        high_p99=band(named["high"]["p99"], 4, 3 * 4),
    )
    if fd.verdict != HOLDS:
        fd.note += " " + (
            f'"high" is {HIGH:.0%} of the link (a stated choice, see the preamble); the gap at '
            "each high load is in the row above."
        )
    fd.plot = _ratio_plot([f"{x:.0%}" for x in loads], list(per.values()), "high-priority load")


def plan_4b(c: Ctx) -> None:
    _coloc_pair(c, HIGH, 4e6)


def eval_4b(c: Ctx, fd: Finding) -> None:
    ps = {b: _coloc_pairs(c, HIGH, 4e6, b) for b in BUCKETS}
    per = {b: {s: ratio(p, s) for s in ("mean", "p99", "p99.9")} for b, p in ps.items()}
    f99 = STATS["p99"]
    worst = bootstrap(
        lambda sm, md, lg: (
            (f99(md[:, 0]) / f99(md[:, 1]))
            / max(f99(sm[:, 0]) / f99(sm[:, 1]), f99(lg[:, 0]) / f99(lg[:, 1]))
        ),
        ps["small"],
        ps["medium"],
        ps["long"],
    )
    fd.stats = {"medium_p99": per["medium"]["p99"], "medium_over_others_p99": worst}
    fd.ours = (
        "; ".join(f"{b}: {_rstr(v)}" for b, v in per.items())
        + f"; medium ÷ worst other (p99) {worst}"
    )
    lo, hi = effect_band(4.9)
    fd.judge(
        baseline=guard(fd, [d["mean"] for d in per.values()]),
        medium_p99=band(per["medium"]["p99"], lo, hi),
        medium_worst=band(worst, 1.0),
    )
    fd.plot = _ratio_plot(list(BUCKETS), list(per.values()), f"flow size (load {HIGH:.0%})")


def plan_4c(c: Ctx) -> None:
    for u in UPDATES:
        _coloc_pair(c, HIGH, u)


def eval_4c(c: Ctx, fd: Finding) -> None:
    ps = {u: _coloc_pairs(c, HIGH, u) for u in UPDATES}
    per = {u: {s: ratio(p, s) for s in ("mean", "p99", "p99.9")} for u, p in ps.items()}
    f99 = STATS["p99"]
    r = lambda a: f99(a[:, 0]) / f99(a[:, 1])  # noqa: E731
    rise = bootstrap(lambda a, b: r(b) / r(a), ps[4e6], ps[12e6])
    fall = bootstrap(lambda a, b: r(b) / r(a), ps[12e6], ps[24e6])
    fd.stats = {"p99_12MB": per[12e6]["p99"], "rise_4_12": rise, "fall_12_24": fall}
    fd.ours = (
        "; ".join(f"{u / 1e6:g} MB: p99 {v['p99']}" for u, v in per.items())
        + f"; 12/4 MB {rise}, 24/12 MB {fall}"
    )
    lo, hi = effect_band(12)
    fd.judge(
        baseline=guard(fd, [d["mean"] for d in per.values()]),
        p99_at_12MB=band(per[12e6]["p99"], lo, hi),
        rise_4_to_12MB=band(rise, 1.25),
        fall_12_to_24MB=band(fall, 0, 1 / 1.25),
    )
    fd.plot = _ratio_plot([f"{u / 1e6:g}MB" for u in UPDATES], list(per.values()), "update size")


# ---------------------------------------------------------------------------------------------
# Fig 5: hybrid services

SIZES5 = (32e3, 64e3, 128e3, 1e6)
SPLITS5 = ((0.7, 0.1), (0.6, 0.2), (0.5, 0.3), (0.4, 0.4))


def _hy_ov(c: Ctx, size: float, hi: float, lo: float, low_transport: str) -> dict[str, Any]:
    return {
        **_window(c.scale.hybrid_s),
        "classes[0].workload.sizes": {"fixed": f"{size:.0f}B"},
        "classes[1].workload.sizes": {"fixed": f"{size:.0f}B"},
        "classes[0].workload.load": hi,
        "classes[1].workload.load": lo,
        "classes[1].transport": low_transport,
        # both classes' Near-Opt share one oracle (the high class is Near-Opt too)
        "transports.nearopt.nearopt_share": NEAROPT["nearopt_share"],
    }


def _hy_points() -> list[tuple[float, float, float]]:
    return sorted({(sz, 0.5, 0.3) for sz in SIZES5} | {(128e3, h, lo) for h, lo in SPLITS5})


def plan_5(c: Ctx) -> None:
    for sz, h, lo in _hy_points():
        for t in ("tcp", "nearopt"):
            for s in c.seeds:
                c.add(("5", sz, h, lo, t, s), "lpf_hybrid", _hy_ov(c, sz, h, lo, t), s)


def _hy(c: Ctx, sz: float, h: float, lo: float) -> list:
    tcp, no = c.seeds_of("5", sz, h, lo, "tcp"), c.seeds_of("5", sz, h, lo, "nearopt")
    p = pairs(tcp, no)
    c.point(f"{sz / 1e3:g} KB, {h:.0%} high / {lo:.0%} low", tcp + no, n_of(p))
    return p


def eval_5a(c: Ctx, fd: Finding) -> None:
    ps = {sz: _hy(c, sz, 0.5, 0.3) for sz in SIZES5}
    per = {sz: {s: ratio(p, s) for s in ("mean", "p99", "p99.9")} for sz, p in ps.items()}
    fm = STATS["mean"]
    r = lambda a: fm(a[:, 0]) / fm(a[:, 1])  # noqa: E731
    grow = bootstrap(lambda a, b: r(b) / r(a), ps[32e3], ps[1e6])
    fd.stats = {"mean_1MB_over_32KB": grow}
    fd.ours = "; ".join(
        f"{sz / 1e3:g} KB: {_rstr({'mean': v['mean']})}" for sz, v in per.items()
    ) + (f"; 1 MB ÷ 32 KB {grow}")
    fd.judge(baseline=guard(fd, [d["mean"] for d in per.values()]), growth=band(grow, 1.25))
    fd.plot = _ratio_plot([f"{sz / 1e3:g}KB" for sz in SIZES5], list(per.values()), "flow size")


def eval_5b(c: Ctx, fd: Finding) -> None:
    ps = {(h, lo): _hy(c, 128e3, h, lo) for h, lo in SPLITS5}
    per = {k: {s: ratio(p, s) for s in ("mean", "p99", "p99.9")} for k, p in ps.items()}
    fm = STATS["mean"]

    def spread(*arrs: np.ndarray) -> float:
        r = [fm(a[:, 0]) / fm(a[:, 1]) for a in arrs]
        return max(r) / min(r)

    sp = bootstrap(spread, *ps.values())
    fd.stats = {"mean_spread": sp}
    fd.ours = "; ".join(
        f"{lo:.0%} low: {_rstr({'mean': v['mean']})}" for (h, lo), v in per.items()
    ) + (f"; max/min {sp}")
    fd.judge(baseline=guard(fd, [d["mean"] for d in per.values()]), spread=band(sp, 1.0, 1.5))
    if fd.verdict != HOLDS:
        fd.note += (
            " The paper contradicts itself here: its text says the load matters little, its "
            "caption that the gap grows with low-priority load; the rule follows the text (the "
            "spec's reading), and the means above show which one ours resembles."
        )
        est = [per[k]["mean"].est for k in ps]
        if all(b > a for a, b in itertools.pairwise(est)):
            fd.note += (
                " Ours follows the caption: the mean ratio grows with every step of the "
                "low-priority load, so the miss is the rule's reading of an ambiguous claim."
            )
    fd.plot = _ratio_plot(
        [f"{lo:.0%}" for _, lo in SPLITS5], list(per.values()), "low-priority load"
    )


# ---------------------------------------------------------------------------------------------
# Figs 7–11: co-location at the high load, TCP only

BUFFERS = (192e3, 96e3, 64e3, 24e3)
RTOS = ("500us", "1ms", "5ms", "10ms")
TCP_VARIANTS = (("cubic", True), ("cubic", False), ("newreno", True), ("newreno", False))


def _c7(c: Ctx, key: tuple, **extra: Any) -> None:
    for s in _cs(c):
        c.add((*key, s), "lpf_colocation", coloc(c.scale.coloc_s, **extra), s)


def _runs(c: Ctx, *key: Any) -> list[Results]:
    return [c.get((*key, s)) for s in _cs(c)]


def plan_7(c: Ctx) -> None:
    for b in BUFFERS:
        # [CHOICE] the high queue stays 128 KB; the port limit never binds before the per-queue
        # limits, so the low queue can really use `b`.
        _c7(
            c,
            ("7", b),
            **{
                "switch.queue_limit": ["128KB", f"{b:.0f}B"],
                "switch.port_limit": f"{128e3 + b:.0f}B",
            },
        )


def eval_7(c: Ctx, fd: Finding) -> None:
    fct = {}
    for b in BUFFERS:
        runs = _runs(c, "7", b)
        fct[b] = low_fct(runs)
        c.point(f"low buffer {b / 1e3:g} KB", runs, sum(map(len, fct[b])))
    per = {b: {s: bootstrap(STATS[s], fct[b]) for s in ("mean", "p99")} for b in BUFFERS}
    r = rel(fct[24e3], fct[192e3], "p99")
    steps = [rel(fct[BUFFERS[i + 1]], fct[BUFFERS[i]], "p99") for i in range(len(BUFFERS) - 1)]
    fd.stats = {"p99_24_over_192": r}
    fd.ours = (
        "p99 (ms): "
        + ", ".join(f"{b / 1e3:g} KB {per[b]['p99'].scaled(1e3)}" for b in BUFFERS)
        + f"; 24/192 KB {r}"
    )
    lo, hi = effect_band(5.7)
    # monotone: no step may clearly go down (each shrink-step ratio ≥ 1 within tolerance 0.9)
    fd.judge(
        p99_24_over_192KB=band(r, lo, hi),
        **{
            f"step_{BUFFERS[i] / 1e3:g}_to_{BUFFERS[i + 1] / 1e3:g}KB": band(st, 0.9)
            for i, st in enumerate(steps)
        },
    )
    fd.plot = _fct_plot(
        [f"{b / 1e3:g}KB" for b in BUFFERS], list(per.values()), "low-priority buffer"
    )


def plan_8(c: Ctx) -> None:
    for rto in RTOS:
        _c7(c, ("8", rto), **low_transport(rto_min=rto, rto_init=rto))


def eval_8(c: Ctx, fd: Finding) -> None:
    fct, sp = {}, {}
    for rto in RTOS:
        runs = _runs(c, "8", rto)
        fct[rto] = low_fct(runs)
        sp[rto] = int(sum(_low(r)["spurious_rto"].sum() for r in runs))
        c.point(f"RTO_min {rto}", runs, sum(map(len, fct[rto])))
    per = {k: {s: bootstrap(STATS[s], v) for s in ("mean", "p99")} for k, v in fct.items()}
    arms = {k: rel(fct[k], fct["1ms"], "p99") for k in ("500us", "5ms", "10ms")}
    fd.stats = {f"p99_{k}_over_1ms": v for k, v in arms.items()}
    fd.ours = (
        "; ".join(f"{k}: p99 {per[k]['p99'].scaled(1e3)} ms, {sp[k]} spurious RTOs" for k in RTOS)
        + "; p99 ÷ 1 ms: "
        + _rstr(arms)
    )
    # "severely affects": each arm of the U at least 1.25× the 1 ms tail
    fd.judge(**{f"arm_{k}": band(v, 1.25) for k, v in arms.items()})
    fd.plot = _fct_plot(list(RTOS), list(per.values()), "RTO_min (low-priority transport)")


def plan_9(c: Ctx) -> None:
    for cc, sack in TCP_VARIANTS:
        _c7(c, ("9", cc, sack), **low_transport(cc=cc, sack=sack))


def eval_9(c: Ctx, fd: Finding) -> None:
    fct = {}
    for cc, sack in TCP_VARIANTS:
        runs = _runs(c, "9", cc, sack)
        k = f"{cc}{'+SACK' if sack else ''}"
        fct[k] = low_fct(runs)
        c.point(k, runs, sum(map(len, fct[k])))
    per = {k: {s: bootstrap(STATS[s], v) for s in ("mean", "p99")} for k, v in fct.items()}
    fm = STATS["mean"]
    spread = bootstrap(lambda *a: max(map(fm, a)) / min(map(fm, a)), *fct.values())
    fd.stats = {"mean_spread": spread}
    fd.ours = (
        "mean (ms): "
        + ", ".join(f"{k} {v['mean'].scaled(1e3)}" for k, v in per.items())
        + (f"; max/min {spread}")
    )
    # "minimal to no impact": the four means within 15% of each other
    fd.judge(spread=band(spread, 1.0, 1.15))
    fd.plot = _fct_plot(list(per), list(per.values()), "low-priority TCP variant")


def plan_10(c: Ctx) -> None:
    _c7(c, ("10", "tcp"))
    for m in ("tcp_lp", "ledbat"):
        _c7(c, ("10", m), **MECHANISMS[m])


def eval_10(c: Ctx, fd: Finding) -> None:
    fct = {}
    for m in ("tcp", "tcp_lp", "ledbat"):
        runs = _runs(c, "10", m)
        fct[m] = low_fct(runs)
        c.point(m, runs, sum(map(len, fct[m])))
    r = {(m, s): rel(fct[m], fct["tcp"], s) for m in ("tcp_lp", "ledbat") for s in ("mean", "p99")}
    fd.stats = {f"{m}_{s}": v for (m, s), v in r.items()}
    fm, f99 = STATS["mean"], STATS["p99"]
    worst_mean = bootstrap(
        lambda t, a, b: max(fm(a), fm(b)) / fm(t), fct["tcp"], fct["tcp_lp"], fct["ledbat"]
    )
    worst_p99 = bootstrap(
        lambda t, a, b: max(f99(a), f99(b)) / f99(t), fct["tcp"], fct["tcp_lp"], fct["ledbat"]
    )
    fd.stats.update({"worst_mean": worst_mean, "worst_p99": worst_p99})
    fd.ours = "; ".join(f"{m} {s} ÷ TCP {v}" for (m, s), v in r.items())
    lm, hm = effect_band(2.4)
    lp, hp = effect_band(6.67)
    fd.judge(
        tcp_lp_slower=band(r[("tcp_lp", "mean")], 1.0),
        ledbat_slower=band(r[("ledbat", "mean")], 1.0),
        worst_mean=band(worst_mean, lm, hm),
        worst_p99=band(worst_p99, lp, hp),
    )
    per = {m: {s: bootstrap(STATS[s], fct[m]) for s in ("mean", "p99")} for m in fct}
    fd.plot = _fct_plot(list(per), list(per.values()), "low-priority transport")


def plan_11(c: Ctx) -> None:
    _c7(c, ("11", "spq"), update=12e6)
    _c7(c, ("11", "wfq"), update=12e6, **{"switch.scheduler": {"kind": "drr", "weights": [99, 1]}})
    if not c.missing("cqcn"):
        _c7(c, ("11", "tcp+"), update=12e6, **MECHANISMS["cqcn"])


def _hi999(runs: Sequence[Results]) -> list[np.ndarray]:
    out = []
    for r in runs:
        f = r.flows
        f = f[f["in_window"].astype(bool) & (f["priority"] == 0) & f["completed"].astype(bool)]
        out.append(f["fct_s"].to_numpy(dtype=float))
    return out


def eval_11(c: Ctx, fd: Finding) -> None:
    spq, wfq = _runs(c, "11", "spq"), _runs(c, "11", "wfq")
    red = {b: rel(low_fct(spq, b), low_fct(wfq, b), "p99.9") for b in BUCKETS}
    pen = rel(_hi999(wfq), _hi999(spq), "p99.9")
    for name, runs in (("SPQ", spq), ("WFQ 99:1", wfq)):
        for b in BUCKETS:
            c.point(f"{name}, {b}", runs, sum(map(len, low_fct(runs, b))))
    fd.stats = {f"wfq_{b}_p999_reduction": v for b, v in red.items()}
    fd.stats["wfq_high_p999_penalty"] = pen
    parts = [f"WFQ p99.9 reduction: {_rstr(red)}; high-priority p99.9 WFQ ÷ SPQ {pen}"]
    ls, hs = effect_band(9)
    lm, hm = effect_band(5.4)
    checks = {
        "WFQ_small": band(red["small"], ls, hs),
        "WFQ_medium": band(red["medium"], lm, hm),
        "WFQ_high_priority_cost": band(pen, 1.0, 1.12),
    }
    per = {"SPQ": spq, "WFQ 99:1": wfq}
    if c.missing("cqcn"):
        parts.append(f"TCP+ not available: {c.missing('cqcn')}")
        checks["TCP+"] = INCONCLUSIVE
    else:
        tp = _runs(c, "11", "tcp+")
        r = rel(low_fct(spq, "medium"), low_fct(tp, "medium"), "p99")
        c.point("TCP+, medium", tp, sum(map(len, low_fct(tp, "medium"))))
        fd.stats["tcpplus_medium_p99_reduction"] = r
        parts.append(f"TCP+ medium p99 reduction {r}")
        lt, ht = effect_band(6)
        checks["TCP+_medium"] = band(r, lt, ht)
        per["TCP+"] = tp
    fd.ours = "; ".join(parts)
    fd.judge(**checks)
    if fd.verdict != HOLDS:
        fd.note += " " + (
            "TCP+'s probe threshold (10 KB), interval (100 µs) and probe size (64 B) are not "
            "given by LPF and are not swept; WFQ 99:1 leaves the low queue 1% of the link "
            "during the on period. No ablation isolates the cause of the gap."
        )

    def plot(ax: Any) -> None:
        f999 = STATS["p99.9"]
        series = {
            name: [bootstrap(f999, low_fct(runs, b)).scaled(1e3) for b in BUCKETS]
            for name, runs in per.items()
        }
        bars(ax, list(BUCKETS), series, xlabel="flow size (12 MB updates)", ylabel="p99.9 FCT (ms)")

    fd.plot = plot


# ---------------------------------------------------------------------------------------------
# what was found about the misses (issue 11): appended to a finding's note when it does not
# hold. "Full scale" numbers come from the cached runs of the full reproductions of 2026-11-25
# (before the Near-Opt receive-window fix) and 2026-11-26 (after it: Figs 2a, 3a, 3c); each
# ablation names what changed, its scale and seeds (tools/ablations/lowprio.py re-runs those
# of Figs 2a, 3a, 3c, 7 and 10). A cause is stated as such only where a one-change re-run
# moved the number to the paper's side with its interval.

INVESTIGATED: dict[str, str] = {
    "LPF-Fig2a": (
        "Ablations (tools/ablations/lowprio.py fig2a; full scale, 6 s, seeds 1-3; p80 "
        "retransmission rate PriorityQueue / FairShare): preset 0.117 [0.091, 0.14] / 0.0641 "
        "[0.0425, 0.0846]; FairShare's retransmissions are all real losses (0% spurious) of "
        "the shared 192 KB FIFO under the 8:1 incast. The 9-node cluster looks like the "
        "paper's testbed (9 servers, §3.4: the simulation's settings except RTO_min 5 ms, "
        "Linux hosts), and no one of its differences makes FairShare negligible: RTO_min 5 ms"
        " 0.109 [0.0791, 0.137] / 0.048 [0.0373, 0.0761]; the Linux TCP profile (LPF's keys "
        "kept) 0.0859 [0.0732, 0.0954] / 0.0378 [0.0314, 0.0442]; a 4 MB FairShare FIFO (no "
        "losses) FairShare 0.0315 [0.0291, 0.035], all spurious (the incast queues about 3.2 "
        "ms ahead of the storage packets, beyond RTO_min 1 ms). Two changes together, RTO_min"
        " 5 ms and a 4 MB FairShare FIFO, give the paper's picture: 0.109 [0.0791, 0.137] / 0"
        " [0, 0]. Hypothesis, not confirmed by a one-change run: the paper's FairShare ran "
        "with the testbed's RTO_min of 5 ms on a switch buffer deep enough to hold the "
        "incast; the paper states the switch was configured like the simulation (192 KB per "
        "port) and gives no buffer for this figure, so the preset keeps 192 KB."
    ),
    "LPF-Fig3a": (
        "Near-Opt's backlog grows (full scale, 5 MB, seeds 1-3): for flows starting in the "
        "first 0.25 s it is 1.5x faster than TCP, then its FCTs grow with start time (0.11 s "
        "-> 0.38 s at 1.5-2 s; TCP stays at 0.16-0.26 s) and its active low-priority flows "
        "grow from 293 to 1,114 (TCP 371 -> 795), while no host is offered more than 69%. "
        "Replaying the active flows at 0.3 / 0.8 / 1.5 / 2.2 s through the paper's rate rule "
        "(a link's available rate / its flow count, then the minimum over the path) allocates "
        "74-84% of the max-min fair rates: a flow held lower by its other link leaves its "
        "share of this link unused. Ablation (DAS 5 MB, 1.0 s, seed 1, with both Near-Opt "
        "fixes of LPF-Fig3c; only nearopt_share changed): equal split TCP / Near-Opt mean "
        "1.67, p99 2.10, falling with start time (1.82 -> 1.43: the backlog builds); max-min "
        "mean 3.64, p99 3.67, no such fall (Near-Opt mean FCT 91 -> 42 ms). The equal split "
        "is what lets Near-Opt's backlog build; the reproduction keeps it (the printed rule, "
        "spec §4.12; preamble): with the max-min share TCP is more than 2x slower than the "
        "baseline. Not the cause: the order of "
        "service of a fair "
        "transport (ablation, reduced 0.625 s, seed 1: TCP / Near-Opt mean 1.09 with uniform, "
        "1.24 with fixed 5 MB, 1.04 with exponential sizes: fair-sharing order would rank "
        "them the other way). The reduced scale is too short for the backlog to build. "
        "This explains the 5 MB point only: with both Near-Opt fixes of LPF-Fig3c (full "
        "scale, 2026-11-26, seeds 1-3) TCP / Near-Opt is mean 1.68 / 3.62 / 1.85 and p99 "
        "2.74 / 6.59 / 2.70 at 128 KB / 1 MB / 5 MB (before the fixes 1.40 / 1.69 / 0.81 "
        "and 2.44 / 3.23 / 1.34): the fixes made the baseline faster at every size. "
        "The 1 MB point (tools/ablations/lowprio.py fig3a-*: full scale, DAS mean 1 MB, "
        "1.118 s, seeds 1-3; each arm replays the preset TCP run's flows with one change of "
        "the low-priority TCP, the high class on the preset's TCP, against the same flows "
        "under Near-Opt; the replay with no change reproduces mean 3.62 [3.46, 3.74], p99 "
        "6.59 [5.98, 7.19] exactly). It is TCP that is slow there, not Near-Opt that is "
        "fast: mean slowdown (seed 1) Near-Opt 12.9 / 26.5 / 27.9, TCP 23 / 103 / 56 at "
        "128 KB / 1 MB / 5 MB; TCP's low flows take 16.1 timeouts each (9.4 spurious; 6 per "
        "MB at 128 KB and 5 MB) and the low queues drop 6% of their packets. Within the run "
        "the ratio is flat in the flow's own size (4.2 at 0.2 MB, 3.6 at 1.8 MB) and in its "
        "primary's FCT (3.3-4.0). Confirmed for the mean, one change: without the "
        "high-priority flows (fig3a-nohigh, both runs) TCP / Near-Opt is mean 1.82 [1.8, "
        "1.84], p99 2.54 [2.42, 2.65] (0.45 timeouts per flow): the interplay with the "
        "high class doubles the mean gap, against the paper's 'TCP is largely unaffected'; "
        "the p99 stays above 2 even without it. That interplay is what sets 1 MB apart "
        "(same ablation, --das-mean): without the high class the mean is 2.05 [2.04, 2.05] "
        "/ 1.82 / 1.37 [1.36, 1.39] and the p99 2.34 [2.31, 2.38] / 2.54 / 1.74 [1.68, 1.81] "
        "at 128 KB / 1 MB / 5 MB, so the high class multiplies the mean by 0.82 / 1.99 / "
        "1.35. Toward the paper but not inside its band: "
        "low queue 64 -> 192 KB (fig3a-buffer, both runs; the paper's 64 KB is kept) mean "
        "2.17 [2.07, 2.26], p99 3.14 [2.91, 3.46] (timeouts 8.8 per flow); RTO back-off "
        "capped at 10 ms (fig3a-backoff) mean 3.3 [3.19, 3.4], p99 4.14 [3.83, 4.48]. "
        "Refuted (the gap grows or stays): RTO_min 5 ms (fig3a-rto) mean 4.54 [4.43, 4.65], "
        "p99 8.88 [8.45, 9.38] (spurious timeouts 9.4 -> 2.3 per flow, real losses wait "
        "5 ms); F-RTO + undo + D-SACK (fig3a-spurious) 4.05 [3.83, 4.25], 12.4 [10.8, 13.2]; "
        "the ns-3 profile (fig3a-profile, LPF's keys kept) 4.05 [3.95, 4.16], 8 [7.62, "
        "8.43]; the Linux profile 3.32 [3.19, 3.43], 6.55 [6.17, 7.04]. Hypothesis: losses "
        "of the 64 KB low queue while 1 MB high-priority flows hold the port, recovered by "
        "repeated timeouts; no single change tried brings mean and p99 within 2x."
    ),
    "LPF-Fig3c": (
        "Defect fixed (test transport::nearopt::tests::new_data_stays_inside_the_receive_"
        "window): Near-Opt ignored the receiver's 1 MB window; while one lost segment waited "
        "for its timeout it kept sending at the oracle's rate and the receiver discarded the "
        "excess. The full-scale high-load run (seed 1) resent 10.4 M packets for 2,416 drops "
        "(5% of its data); a reduced run 1.9 M of 8.6 M packets for 34 drops. Defect fixed "
        "with it (test nearopt_survives_lost_acks_at_a_full_receive_window): a window-limited "
        "flow whose ACKs were all lost waited forever, so the oracle now counts bytes the "
        "receiver holds as acknowledged at the timeout. They do not close the data-mining gap: "
        "at full scale with both fixes (2026-11-26, seeds 1-3) the high-load p99.9 DM / WS "
        "gap is 0.754 [0.638, 0.976] (before 0.731) and DM's largest p99 ratio 1.26. "
        "Ablation (tools/ablations/lowprio.py fig3c-sizes on the full-scale runs, seeds "
        "1-3): the p99.9 of the data-mining flows is set by flows of 0.72-0.95 GB (TCP "
        "6.6-7.9 s, Near-Opt 4.2-6.1 s), long-lived and bandwidth-shared under both "
        "transports, so the DM p99.9 ratio is 1.16 [1.06, 1.37]. Over the data-mining flows "
        "of web search's sizes (<= 30 MB) it is 3.87 [2.8, 7.06] and the DM / WS gap 2.51 "
        "[1.69, 4.6]; over those <= 100 MB 2.51 [1.52, 3.33] and 1.63 [0.993, 2.35] (the "
        "paper's 1.44 inside). But removing those flows does not give the paper's gap: "
        "re-run with one change (fig3c-cap: the DM sizes conditioned on <= 100 MB, the 2% "
        "of 0.1-1 GB flows gone, load unchanged; 1.5 s, seeds 1-3, 4,193 DM flows) the DM "
        "p99.9 ratio is 1.28 [1.11, 1.36] and the DM / WS gap 0.833 [0.672, 0.991] (WS 1.54 "
        "[1.32, 1.77]): the smaller DM flows' large gap in the full runs depends on the GB "
        "flows they share links with, and the size mix alone is refuted as the cause. "
        "Refuted as well: "
        "censoring at the end of the run (only flows finished by then, what run.horizon = "
        "run.duration counts: the run before the horizon does not depend on it): gap 0.764 "
        "[0.63, 0.887]; only 3% of the DM flows finish later. Not explained; open: how "
        "the paper's p99.9 treats the GB flows (its run length and flow count are not "
        "stated)."
    ),
    "LPF-Fig4a": (
        "Per seed (full scale, 70%): p99 ratio 3.48, 2.80, 3.76, 4.01, 4.00 (sd 0.50); the "
        "mean 3.6 sits below 4, so about 7 seeds ((1.96 sd / (4 - mean))^2) would likely "
        "decide 'no' at 70%, while 80% gives 15-42 (above 12). The paper's '> 4x' lies "
        "between our 70% and 80%."
    ),
    "LPF-Fig4b": (
        "Per seed (full scale): medium p99 3.55, 2.87, 5.09, 3.61, 4.71 (sd 0.91; about 3 "
        "more seeds would likely clear 2.95); medium / worst other 0.96, 0.52, 1.08, 1.09, "
        "0.64 (mean 0.86, sd 0.26): more seeds would more likely decide 'no': the long "
        "flows (about 55 per seed, so their p99 is one flow) suffer as much as the medium."
    ),
    "LPF-Fig4c": (
        "Ablation (co-location 70%, 1 s, seeds 1-5; TCP's rto_max 60 s -> 10 ms, an "
        "ablation, not a setting we propose): TCP / Near-Opt p99 at 12 MB 6.19 -> 3.21, at "
        "24 MB 12.6 [6.59, 25.8] -> 2.49 [2.35, 2.88], so 24 / 12 MB becomes 0.78 (the "
        "paper's fall). With RFC 6298 backoff, a flow whose retransmissions keep landing in "
        "19 ms on periods backs its RTO off to 0.25-1 s (TCP p99 250 ms; 49 ms capped): that "
        "tail, not the on period, sets our 24 MB gap. Full scale per seed at 24 MB: 25.4, "
        "25.6, 24.9, 11.8, 12.8 (one doubling more or less)."
    ),
    "LPF-Fig7": (
        "Ablation (co-location 70%, 1 s, seeds 1-5): the other reading of the paper's "
        "partitions (one 192 KB port: both queues may use all of it in the 192 KB case, "
        "24 KB per queue for both classes in the 8-queue case) gives 24 / 192 KB p99 2.40 "
        "[1.57, 2.94] against ours 2.78 [2.02, 3.62] at the same scale, so the partition "
        "reading is not the cause. Nor the TCP defaults the paper does not state: the low "
        "class on the ns-3 profile (LPF's own keys kept: Cubic, SACK, IW 2, RTO_min 1 ms; "
        "ns-3's delayed ACKs, per-ACK slow start, HyStart, PRR) gives p99 3.13 [2.47, 4.76], "
        "mean 3.31 [2.87, 3.78] (ours 1.72); the audit found no defect in the per-queue "
        "limits (the 24 KB tail is 31 ms in both readings). Cause: the magnitude is set by "
        "the load (ablation, the same scale and seeds, only the co-location high-priority load "
        "changed; the paper says only 'high load'): 24 / 192 KB p99 1.75 [1.35, 2.48] at "
        "60%, 2.78 [2.02, 3.62] at 70% (ours), 3.71 [2.84, 4.71] at 75%, 31.8 [25.3, 46] at "
        "80% (mean 1.26, 1.72, 2.50, 21.7): the ratio grows steeply as the high class nears "
        "the link, and the paper's 5.7x lies between our 75% and 80%. The reproduction keeps "
        "70% (the load chosen for every co-location figure, see LPF-Fig4a)."
    ),
    "LPF-Fig8": (
        "Per seed (full scale), p99 / p99 at 1 ms: 500 us 1.29, 1.20, 1.00, 0.93, 1.19 "
        "(mean 1.12, sd 0.15); 5 ms 0.82, 1.22, 1.15, 0.76, 1.01 (0.99, sd 0.20); 10 ms "
        "1.14, 1.11, 1.82, 1.08, 1.14 (1.26, sd 0.32). More seeds (about 6 and 3) would "
        "likely decide 'no' for the 500 us and 5 ms arms: our runs show no U-shape."
    ),
    "LPF-Fig9": (
        "Per seed (full scale), max / min of the four means: 1.50, 1.11, 1.15, 1.17, 1.17; "
        "CUBIC without SACK is the slow one (2.70 ms vs 2.27-2.45). The estimate sits near "
        "the 1.15 edge: about 60 seeds would be needed to decide it."
    ),
    "LPF-Fig10": (
        "Cause (ablation, co-location 70%, 4 MB, 1 s, seeds 1-5): TCP-LP's reaction rule. "
        "Ours reacts to at most one early-congestion indication per window and restarts its "
        "smoothed delay after a halving (tcplp_gate, cc/tcp_lp.rs). With tcplp_gate = false "
        "(every indication reacts, TCP-LP section III-C read literally: ACKs of data sent "
        "before a halving still carry the old backlog's delay, count as a second indication "
        "inside itt and collapse the window to 1 MSS), TCP-LP / TCP is mean 2.72 [2.23, 3.22] "
        "and p99 6.30 [4.02, 7.90], the paper's 2.4x and 6.67x (ours 1.61 / 2.78). The "
        "reproduction keeps the gate (the default: without it a lone TCP-LP flow collapses "
        "after every halving). Not the cause: LEDBAT's target (same runs, only "
        "ledbat_target changed): LEDBAT / TCP mean 1.25, 1.24, 1.23, 1.26, 1.31 and p99 "
        "1.93, 1.91, 1.44, 1.41, 1.43 at 0.5, 1, 3.2, 10 and 100 ms; nor the load or update "
        "size (70% / 80% at 4 MB, 8 and 12 MB at 70%: TCP-LP 0.73-1.61 and LEDBAT "
        "1.07-1.36 of TCP's mean). RFC 6817 section 2.4.2 and TCP-LP section III checked "
        "line by line: no defect."
    ),
    "LPF-Fig11": (
        "Per seed (full scale): WFQ medium p99.9 reduction 11.4, 14.3, 6.1, 0.61, 7.7 "
        "(about 270 medium flows per seed, so a p99.9 is the top one or two flows; a stable "
        "p99.9 needs about 20x the flows); TCP+ medium p99 reduction 4.9, 3.8, 2.2, 1.2, 0.9 "
        "(mean 2.6, sd 1.7 against >= 3.5: about 14 seeds would likely decide 'no')."
    ),
}


def _noted(ev: Callable[[Ctx, Finding], None]) -> Callable[[Ctx, Finding], None]:
    def evaluate(c: Ctx, fd: Finding) -> None:
        ev(c, fd)
        if fd.verdict != HOLDS and fd.figure in INVESTIGATED:
            fd.note = f"{fd.note} {INVESTIGATED[fd.figure]}".strip()

    return evaluate


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

for _f in FIGURES:
    _f.evaluate = _noted(_f.evaluate)

PREAMBLE = f"""\
Normalized FCT = a statistic of TCP's low-priority FCTs ÷ the same statistic under the
Near-Opt baseline, over flows matched on (src, dst, size, start) and completed in both runs.

Choices (stated, not tuned):
- Co-location "high" load = {HIGH:.0%} of the parameter-server link for the ML class (80% in
  total with the 10% storage class, the total load of the paper's hybrid-services figure);
  Fig 4a reports {", ".join(f"{x:.0%}" for x in HIGH_SWEEP)} too. Low / medium = 15% / 30%.
- Co-location runs use ≥ 5 seeds (their seed-to-seed variance is large); the others use the
  scale's seeds.
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


def reproduce(
    out_dir: Any, *, full: bool = False, jobs: int | None = None, progress: bool = True
) -> list[Finding]:
    return REPRO.reproduce(out_dir, full=full, jobs=jobs, progress=progress)


__all__ = ["HOLDS", "NO", "REPRO", "TITLE", "mechanism_status", "reproduce", "run_figures"]
