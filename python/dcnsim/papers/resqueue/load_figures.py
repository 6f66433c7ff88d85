"""ResQueue reproduction: the figures over the load grid at incast degree 32.

Owns Fig 2 (short-flow tail FCT of DCTCP, PIAS and ResQueue per load: order, PIAS over
DCTCP, ResQueue's speedup, the high-load gain), Fig 3 (1 MB flows' goodput) and Fig 4 with
the motivation (the most times a short-flow packet is dropped; repeatedly dropped flows'
FCT): their plans, evaluations, notes and plots.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ...results import Results
from ..framework import (
    HOLDS,
    NO,
    Ctx,
    Finding,
    Interval,
    PerSeed,
    band,
    bootstrap,
    effect_band,
    exact,
    lines,
)
from .ablations import ABLATION_KB, _abl_note, abl_readings
from .metrics import (
    QS,
    _memo,
    _pct,
    _record,
    _short,
    dropped,
    large_gbps,
    max_short_drops,
    per_seed_ratio,
    seeds_needed,
    short_fct,
)
from .scenario import BUFFER, NO_DROP_BUFFER, SCHEMES, _add, _get, frontends

# ---------------------------------------------------------------------------------------------
# Fig 2: tail FCT of short flows vs load


def plan_loads(c: Ctx) -> None:
    for x in c.scale.loads:
        for s in SCHEMES:
            _add(c, s, x)


def _load_fct(c: Ctx) -> dict[str, dict[float, list[np.ndarray]]]:
    m = _memo(c)
    if "load_fct" not in m:
        m["load_fct"] = {s: {x: short_fct(_get(c, s, x)) for x in c.scale.loads} for s in SCHEMES}
    for s in SCHEMES:
        for x in c.scale.loads:
            _record(c, f"{s} {x:.0%}", _get(c, s, x))
    return m["load_fct"]


def _mean_gain(a: dict[float, list], b: dict[float, list], loads: Sequence[float], q: float):
    """Mean over ``loads`` of percentile(a) ÷ percentile(b), with its interval."""
    f = _pct(q)
    n = len(loads)

    def stat(*arrs: np.ndarray) -> float:
        return float(np.mean([f(arrs[i]) / f(arrs[n + i]) for i in range(n)]))

    return bootstrap(stat, *(a[x] for x in loads), *(b[x] for x in loads), lazy=True)


def _per_load(a: dict[float, list], b: dict[float, list], q: float) -> dict[float, Interval]:
    f = _pct(q)
    return {x: bootstrap(lambda u, v: f(u) / f(v), a[x], b[x], lazy=True) for x in a}


def _scheme_ratio(c: Ctx, sa: str, sb: str, q: float) -> dict[float, Interval]:
    """percentile(sa) ÷ percentile(sb) per load (memoized)."""
    m = _memo(c)
    key = ("ratio", sa, sb, q)
    if key not in m:
        fct = _load_fct(c)
        m[key] = _per_load(fct[sa], fct[sb], q)
    return m[key]


def _fig2_plot(c: Ctx, q: float, label: str) -> Any:
    def plot(ax: Any) -> None:
        series = {s: list(_scheme_ratio(c, s, "dctcp", q).values()) for s in SCHEMES}
        xs = [100 * x for x in c.scale.loads]
        lines(ax, xs, series, xlabel="load (%)", ylabel=f"{label} short-flow FCT / DCTCP", ref=1)

    return plot


def plan_nodrop(c: Ctx) -> None:
    """The ablation of Fig 2's DCTCP-vs-PIAS findings and of Fig 3: DCTCP and PIAS at every
    load with one change, a port that never drops (:data:`NO_DROP_BUFFER`)."""
    for x in c.scale.loads:
        for s in ("dctcp", "pias"):
            _add(c, s, x, buffer=NO_DROP_BUFFER)


def _nodrop_fct(c: Ctx) -> dict[str, dict[float, list[np.ndarray]]]:
    m = _memo(c)
    if "nodrop_fct" not in m:
        m["nodrop_fct"] = {
            s: {x: short_fct(_get(c, s, x, buffer=NO_DROP_BUFFER)) for x in c.scale.loads}
            for s in ("dctcp", "pias")
        }
    return m["nodrop_fct"]


def _timeout_share(runs: Sequence[Results], q: float) -> float:
    """Of the short flows at or above the q-th percentile of their run's FCTs (unfinished
    ones included), the share that took at least one timeout."""
    top = rto = 0
    for r in runs:
        f = _short(r)
        v = f["fct_s"].to_numpy(dtype=float)
        v = np.where(np.isnan(v), np.inf, v)
        if not len(v):
            continue
        hit = v >= _pct(q)(v)
        top += int(hit.sum())
        rto += int((f["rto_count"].to_numpy()[hit] > 0).sum())
    return rto / top if top else math.nan


#: What the DCTCP-vs-PIAS findings' ablation is meant to decide, and what each outcome means.
NODROP_CAUSE = (
    "How, as the timeout shares below measure it: with the default buffer the short flows in "
    "both schemes' tails took a timeout, so both tails are one or two RTOs (incast rounds "
    "overflow a front end's port, and all short flows share PIAS's top level, so PIAS does "
    "not keep their packets from being dropped)."
)


def nodrop_conclusion(default: Mapping[str, str], ablated: Mapping[str, str], drops: int) -> str:
    """The ablation's reading, per part of the finding (e.g. "at 60%", or "" for the whole):
    its verdict under the default buffer and with a port that never drops (``drops`` packets
    were dropped anyway). A cause is stated as confirmed only where removing the losses turns
    a miss into ``holds``."""
    if drops:
        return f"The ablation's runs still dropped {drops} packets: it decides nothing."
    missed = [k for k, v in default.items() if v != HOLDS]
    if not missed:
        return "It holds with the default buffer too."

    def where(pick: Any) -> str:
        ks = [k for k in missed if pick(ablated[k])]
        return " " + ", ".join(ks) if any(ks) else ""

    there = "there " if any(missed) else ""  # per part ("at 60%"), or the whole finding
    out = []
    if any(ablated[k] == HOLDS for k in missed):
        out.append(
            f"With nothing dropped it holds{where(lambda v: v == HOLDS)}, so {there}the short "
            "flows' losses are what keep it from holding (confirmed by this one change). "
            + NODROP_CAUSE
        )
    if any(ablated[k] == NO for k in missed):
        out.append(
            f"With nothing dropped it does not hold{where(lambda v: v == NO)} either: {there}"
            "the losses are refuted as the cause."
        )
    if any(ablated[k] not in (HOLDS, NO) for k in missed):
        out.append(
            "With nothing dropped it is still inconclusive"
            f"{where(lambda v: v not in (HOLDS, NO))}: {there}this change neither confirms nor "
            "refutes the losses as the cause."
        )
    return " ".join(out)


def _dctcp_pias_note(c: Ctx, q: str, default: Mapping[str, str], per_load: bool) -> str:
    """The ablation of a DCTCP-vs-PIAS finding (the order at every load when ``per_load``,
    else the mean over loads against 1.1; ``default`` its verdict per part as run, keyed as
    :func:`nodrop_conclusion` reads them): the same with a port that never drops."""
    nd = _nodrop_fct(c)
    per = _per_load(nd["dctcp"], nd["pias"], QS[q])
    g = _mean_gain(nd["dctcp"], nd["pias"], c.scale.loads, QS[q])
    runs = {(s, x): _get(c, s, x, buffer=NO_DROP_BUFFER) for s in ("dctcp", "pias") for x in per}
    for (s, x), r in runs.items():
        _record(c, f"{s} {x:.0%}, {NO_DROP_BUFFER}", r)
    drops = sum(dropped(r) for r in runs.values())
    if per_load:
        ablated = {f"at {x:.0%}": band(v, 1.0) for x, v in per.items()}
    else:
        ablated = {"": band(g, 1.1)}

    def shares(**kw: Any) -> dict[float, tuple[float, float]]:
        return {
            x: tuple(_timeout_share(_get(c, s, x, **kw), QS[q]) for s in ("dctcp", "pias"))
            for x in c.scale.loads
        }

    words = lambda sh: ", ".join(f"{x:.0%} {a:.0%} / {b:.0%}" for x, (a, b) in sh.items())  # noqa: E731
    left = shares(buffer=NO_DROP_BUFFER)
    spurious = [x for x, (a, b) in left.items() if a >= 0.5 and b >= 0.5]
    still = (
        " Where most of the tail still times out with nothing dropped ("
        + ", ".join(f"{x:.0%}" for x in spurious)
        + "), every one of those timeouts is spurious: the packets were only queued longer "
        "than the RTO, and both schemes' tails are still set by timeouts."
        if spurious and not drops
        else ""
    )
    return (
        f"Ablation (one change: a port that never drops, '{NO_DROP_BUFFER}'; {c.scale.name}, "
        f"seeds {list(c.seeds)}; {drops} packets dropped): DCTCP ÷ PIAS {q} "
        + ", ".join(f"{v} at {x:.0%}" for x, v in per.items())
        + f"; mean over loads {g}. "
        + nodrop_conclusion(default, ablated, drops)
        + f" Short flows at or above the {q} that took a timeout, DCTCP / PIAS, as run: "
        f"{words(shares())}; with nothing dropped: {words(left)}.{still}"
    )


def _eval_order(q: str) -> Any:
    def ev(c: Ctx, fd: Finding) -> None:
        _load_fct(c)  # records the points
        dp = _scheme_ratio(c, "dctcp", "pias", QS[q])
        pr = _scheme_ratio(c, "pias", "resqueue", QS[q])
        fd.ours = "; ".join(f"{x:.0%}: DCTCP/PIAS {dp[x]}, PIAS/RQ {pr[x]}" for x in dp)
        fd.judge(
            **{f"DCTCP_over_PIAS_at_{x:.0%}": band(v, 1.0) for x, v in dp.items()},
            **{f"PIAS_over_ResQueue_at_{x:.0%}": band(v, 1.0) for x, v in pr.items()},
        )
        if fd.verdict != HOLDS:
            fct = _load_fct(c)
            seeds = "; ".join(
                f"{a}/{b} at {x:.0%}: "
                + seeds_needed(per_seed_ratio(QS[q], fct[a][x], fct[b][x]), 1.0)
                for x in c.scale.loads
                for a, b, iv in (("dctcp", "pias", dp[x]), ("pias", "resqueue", pr[x]))
                if iv.lo < 1.0
            )
            dp_verdict = {f"at {x:.0%}": band(v, 1.0) for x, v in dp.items()}
            fd.note += (
                " DCTCP ÷ PIAS: "
                + _dctcp_pias_note(c, q, dp_verdict, per_load=True)
                + f" Per seed: {seeds}. "
                + "PIAS ÷ ResQueue (the Ablation-queue0-size row, one change: queue 0 "
                f"capped at {ABLATION_KB:g} KB; the cause it tests: Fig2-speedup's note; "
                "at every load), point by point: "
                + abl_readings(c, q, degrees=(32,), gain_band=(1.0, math.inf))
                + "."
            )
        fd.plot = _fig2_plot(c, QS[q], q)

    return ev


def _eval_pias_beats(q: str) -> Any:
    def ev(c: Ctx, fd: Finding) -> None:
        fct = _load_fct(c)
        g = _mean_gain(fct["dctcp"], fct["pias"], c.scale.loads, QS[q])
        fd.stats = {"dctcp_over_pias": g}
        fd.ours = f"mean over loads of DCTCP ÷ PIAS {q}: {g}"
        fd.judge(DCTCP_over_PIAS=band(g, 1.1))
        if fd.verdict != HOLDS:
            ps = {x: per_seed_ratio(QS[q], fct["dctcp"][x], fct["pias"][x]) for x in c.scale.loads}
            mean_ps = [float(np.mean(v)) for v in zip(*ps.values(), strict=True)]
            fd.note += (
                f" {_dctcp_pias_note(c, q, {'': fd.verdict}, per_load=False)} Per seed, "
                "the mean over loads is "
                + ", ".join(f"{v:.3g}" for v in mean_ps)
                + f" ({seeds_needed(mean_ps, 1.1)})."
            )
        fd.plot = _fig2_plot(c, QS[q], q)

    return ev


def _eval_speedup(q: str) -> Any:
    def ev(c: Ctx, fd: Finding) -> None:
        fct = _load_fct(c)
        loads = [x for x in c.scale.loads if x > 0.2]
        g = _mean_gain(fct["pias"], fct["resqueue"], loads, QS[q])
        per = _scheme_ratio(c, "pias", "resqueue", QS[q])
        fd.stats = {"pias_over_resqueue": g}
        fd.ours = f"{g} (per load: " + ", ".join(f"{x:.0%} {per[x]}" for x in loads) + ")"
        lo, hi = effect_band(1.6)
        fd.judge(mean_gain=band(g, lo, hi))
        if fd.verdict != HOLDS:
            ps = {x: per_seed_ratio(QS[q], fct["pias"][x], fct["resqueue"][x]) for x in loads}
            mean_ps = [float(np.mean(v)) for v in zip(*ps.values(), strict=True)]
            fd.note += (
                f" {_abl_note(c, q, degrees=(32,), gain_band=(lo, hi), loads=loads)} Per "
                "seed, the mean gain is "
                + ", ".join(f"{v:.3g}" for v in mean_ps)
                + f" ({seeds_needed(mean_ps, lo)})."
            )
        fd.plot = _fig2_plot(c, QS[q], q)

    return ev


def _eval_high(q: str) -> Any:
    def ev(c: Ctx, fd: Finding) -> None:
        fct = _load_fct(c)
        loads = [x for x in c.scale.loads if x >= 0.6]
        f = _pct(QS[q])
        n = len(loads)
        g = bootstrap(
            lambda *a: min(f(a[i]) / f(a[n + i]) for i in range(n)),
            *(fct["pias"][x] for x in loads),
            *(fct["resqueue"][x] for x in loads),
            lazy=True,
        )
        fd.stats = {"min_gain_high": g}
        fd.ours = f"min over loads ≥ 60% of PIAS ÷ ResQueue {q}: {g}"
        fd.judge(min_gain=band(g, 2.0, 3 * 2.0))
        if fd.verdict != HOLDS:
            fd.note += " " + _abl_note(c, q, degrees=(32,), gain_band=(2.0, 6.0), loads=loads)
        fd.plot = _fig2_plot(c, QS[q], q)

    return ev


# ---------------------------------------------------------------------------------------------
# Fig 3: large-flow throughput


def eval_fig3(c: Ctx, fd: Finding) -> None:
    loads = [x for x in c.scale.loads if x > 0.2]
    fes = frontends(c.scale.hosts, c.scale.frontends)
    gp = {s: {x: large_gbps(_get(c, s, x)) for x in c.scale.loads} for s in SCHEMES}
    gp_fe = {s: {x: large_gbps(_get(c, s, x), fes) for x in c.scale.loads} for s in SCHEMES}
    for s in SCHEMES:
        for x in c.scale.loads:
            runs = _get(c, s, x)
            c.point(f"{s} {x:.0%} (1 MB flows)", runs, sum(len(v) for v in gp[s][x]))
    n = len(loads)
    mean = lambda v: float(np.mean(v)) if len(v) else math.nan  # noqa: E731

    def stat(*a: np.ndarray) -> float:
        return float(np.mean([mean(a[i]) / mean(a[n + i]) for i in range(n)]))

    g = bootstrap(stat, *(gp["resqueue"][x] for x in loads), *(gp["pias"][x] for x in loads))
    g_fe = bootstrap(
        stat, *(gp_fe["resqueue"][x] for x in loads), *(gp_fe["pias"][x] for x in loads)
    )
    fd.stats = {"resqueue_over_pias": g, "resqueue_over_pias_frontend_rx": g_fe}
    fd.ours = (
        f"mean over loads > 20% of ResQueue ÷ PIAS mean 1 MB goodput: all {g}; "
        f"received at a front end {g_fe}"
    )
    lo, hi = effect_band(1.08)
    fd.judge(goodput_gain=band(g, lo, hi))
    if fd.verdict != HOLDS:
        # the same statistic, PIAS with a port that never drops over PIAS as run
        nd_runs = {x: _get(c, "pias", x, buffer=NO_DROP_BUFFER) for x in loads}
        nd = bootstrap(
            stat, *(large_gbps(nd_runs[x]) for x in loads), *(gp["pias"][x] for x in loads)
        )
        per = ", ".join(
            f"{bootstrap(lambda u, v: mean(u) / mean(v), large_gbps(nd_runs[x]), gp['pias'][x])} "
            f"at {x:.0%}"
            for x in loads
        )
        drops = sum(dropped(r) for r in nd_runs.values())
        if drops:
            why = f"The ablation's runs still dropped {drops} packets: it decides nothing."
        elif nd.hi < lo:
            why = (
                f"Removing every loss raises large-flow goodput by less than the {lo:.2f}× the "
                "rule needs, so no faster loss recovery can give 1.08× here: the 1 MB flows' "
                "goodput does not hang on their losses (confirmed by this one change); what is "
                "left to set it is the sharing of the bottlenecks (DCTCP, strict priority below "
                "the short flows). Why the paper's large flows lost enough to gain 8% is not "
                "known."
            )
        else:
            why = (
                "Its interval does not exclude a gain of the rule's size from removing "
                "losses, so it does not explain the miss."
            )
        fd.note += " " + (
            'Throughput "relative to competition" read as ResQueue\'s mean 1 MB goodput ÷ '
            "PIAS's at the same load. ResQueue can only speed up the recovery of lost "
            f"packets. Ablation (one change: a port that never drops, '{NO_DROP_BUFFER}'; "
            f"{c.scale.name}, seeds {list(c.seeds)}; {drops} packets dropped): PIAS's mean "
            f"1 MB goodput with it over PIAS's with {BUFFER}, mean over loads > 20%: {nd} "
            f"({per}). " + why
        )

    def plot(ax: Any) -> None:
        xs = [100 * x for x in c.scale.loads]
        series = {
            s: [
                bootstrap(lambda u, v: mean(u) / mean(v), gp[s][x], gp["dctcp"][x])
                for x in c.scale.loads
            ]
            for s in SCHEMES
        }
        lines(ax, xs, series, xlabel="load (%)", ylabel="1 MB flow goodput / DCTCP", ref=1)

    fd.plot = plot


# ---------------------------------------------------------------------------------------------
# Fig 4 and the motivation: drops per packet


def _drops(c: Ctx) -> dict[str, dict[float, int]]:
    out = {}
    for s in SCHEMES:
        out[s] = {}
        for x in c.scale.loads:
            runs = _get(c, s, x)
            out[s][x] = max_short_drops(runs)
            _record(c, f"{s} {x:.0%}", runs)
    return out


def _drops_plot(d: dict[str, dict[float, int]]) -> Any:
    def plot(ax: Any) -> None:
        for s in SCHEMES:
            ax.plot([100 * x for x in d[s]], list(d[s].values()), marker="o", label=s)
        ax.set_xlabel("load (%)")
        ax.set_ylabel("max drops of any short-flow packet")
        ax.grid(alpha=0.3)
        ax.legend()

    return plot


#: One traced run (measured once, not recomputed by the report).
TRACE_NOTE = (
    "Trace (one run at the reduced scale, degree 48, 60% load, seed 1, ResQueue with queue 0 "
    "capped at 20 KB, drops captured with `output.pcap_ports` at the 7 front ends' ports): "
    "the worst short flow (6 KB into h39) lost 3 packets in queue 1 when its round filled the "
    "port (43–68 µs after its start); 1.04 ms after its start its first retransmission was "
    "dropped by queue 0's 20 KB limit together with 48 other retransmissions at that port "
    "within 40 µs (15 of its own round, the rest of rounds that timed out at the same time), "
    "and at 3.04 ms (1 + 2 ms backoff) again with 21 others; it finished after 7.1 ms "
    "(1 + 2 + 4 ms)."
)


def eval_fig4_rq(c: Ctx, fd: Finding) -> None:
    d = _drops(c)
    fd.ours = "ResQueue: " + ", ".join(f"{x:.0%} {v}" for x, v in d["resqueue"].items())
    fd.judge(**{f"at_{x:.0%}": exact(v <= 1) for x, v in d["resqueue"].items()})
    if fd.verdict != HOLDS:
        fd.note += " " + _abl_note(c, None, drops_max=1) + " " + TRACE_NOTE
    fd.plot = _drops_plot(d)


def _eval_fig4_base(scheme: str) -> Any:
    def ev(c: Ctx, fd: Finding) -> None:
        every = _drops(c)
        d = every[scheme]
        v = list(d.values())
        fd.ours = ", ".join(f"{x:.0%} {n}" for x, n in d.items())
        fd.judge(grows=exact(v[-1] > v[0]), magnitude=exact(7 / 2 <= max(v) <= 7 * 2))
        if fd.verdict != HOLDS:
            fd.note += " " + (
                f"max drops per short-flow packet under {scheme} reach {max(v)} (paper ≈ 7). "
                "A maximum grows with the number of packets observed; the runs are shorter "
                "than the paper's (not stated). Not ablated."
            )
        fd.plot = _drops_plot(every)

    return ev


def plan_motiv_nolarge(c: Ctx) -> None:
    """The motivation's ablation: PIAS at every load without the 1 MB flows (one change;
    the incasts unchanged)."""
    for x in c.scale.loads:
        _add(c, "pias", x, large=False)


def _pias_pooled(c: Ctx, **kw: Any) -> tuple[PerSeed, PerSeed]:
    """Per seed, PIAS's short-flow FCTs over every load pooled (unfinished = +inf), and those
    of the flows with a packet dropped at least twice."""
    n_s = len(c.seeds)
    seeds: list[int] = []
    rep_l: list[list[np.ndarray]] = [[] for _ in range(n_s)]
    all_l: list[list[np.ndarray]] = [[] for _ in range(n_s)]
    for x in c.scale.loads:
        runs = _get(c, "pias", x, **kw)
        _record(c, f"pias {x:.0%}" + ("" if kw.get("large", True) else ", no 1 MB flows"), runs)
        seeds = [int(r.meta["seed"]) for r in runs]
        for i, r in enumerate(runs):
            s = _short(r)
            v = s["fct_s"].to_numpy(dtype=float)
            all_l[i].append(np.where(np.isnan(v), np.inf, v))
            w = s[s["max_pkt_drops"] >= 2]["fct_s"].to_numpy(dtype=float)
            rep_l[i].append(np.where(np.isnan(w), np.inf, w))
    return (
        PerSeed([np.concatenate(v) for v in all_l], seeds),
        PerSeed([np.concatenate(v) for v in rep_l], seeds),
    )


def motiv_conclusion(default: str, ablated: str) -> str:
    """The motivation ablation's reading: the median's verdict as run and without the 1 MB
    flows."""
    if default == HOLDS:
        return "It holds as run too."
    if ablated == HOLDS:
        return (
            "Without the 1 MB flows it holds, so their queueing at the front ends' ports is "
            "what lifts the median here (confirmed by this one change)."
        )
    if ablated == NO:
        return (
            "Without the 1 MB flows it does not hold either, so they are refuted as the cause. "
            "What is left at a front end's port is the short flows' own incast rounds, and the "
            "median rises with their load (per load below)."
        )
    return "Without the 1 MB flows it is inconclusive: this change decides nothing."


def eval_motiv(c: Ctx, fd: Finding) -> None:
    # One group per seed, all loads pooled inside it: the cluster bootstrap resamples seeds
    # (then flows), not (load, seed) cells, which would resample the load mix itself.
    allf, rep = _pias_pooled(c)
    med = _pct(50)
    nan = Interval(math.nan, math.nan, math.nan)
    m_rep = bootstrap(med, rep, lazy=True) if sum(map(len, rep)) else nan
    m_all = bootstrap(med, allf, lazy=True)
    fd.stats = {
        "median_fct_repeat_dropped_ms": m_rep.scaled(1e3),
        "median_fct_us": m_all.scaled(1e6),
    }
    fd.ours = (
        f"PIAS, all loads: median FCT of short flows with a packet dropped ≥ 2 times "
        f"{m_rep.scaled(1e3)} ms ({sum(map(len, rep))} flows); median short FCT "
        f"{m_all.scaled(1e6)} µs"
    )
    below = band(m_all.scaled(1e6), 0, 100)
    fd.judge(repeat_dropped_median=band(m_rep.scaled(1e3), 2.0, 5.0), median_below_100us=below)
    if fd.verdict != HOLDS:
        share = []
        for x in c.scale.loads:
            v = np.concatenate(short_fct(_get(c, "pias", x)))
            w = np.concatenate(short_fct(_get(c, "pias", x, large=False)))
            share.append(
                f"{x:.0%} {np.mean(v < 100e-6):.0%} ({np.median(v) * 1e6:.0f} µs; without the "
                f"1 MB flows {np.mean(w < 100e-6):.0%}, {np.median(w) * 1e6:.0f} µs)"
            )
        nol, _ = _pias_pooled(c, large=False)
        m_nol = bootstrap(med, nol, lazy=True).scaled(1e6)
        n = len(c.scale.loads)
        per_seed = [float(np.median(v)) * 1e6 for v in allf]
        fd.note += (
            f" Ablation (one change: no 1 MB flows, the incasts unchanged; {c.scale.name}, "
            f"seeds {list(c.seeds)}): median short FCT {m_nol} µs. "
            + motiv_conclusion(below, band(m_nol, 0, 100))
            + " Share of PIAS short flows finishing within 100 µs (median), by load: "
            + ", ".join(share)
            + f". The rule pools {n} loads, so the pooled median moves with the load grid; "
            "per seed it is "
            + ", ".join(f"{v:.0f} µs" for v in per_seed)
            + f" ({seeds_needed(per_seed, 100.0)}). The paper's words are \"a "
            'large fraction ... in less than 100 microseconds", not the median.'
        )
