"""TLT figures on the six-variant runs (TCP half): Fig 5 (foreground tail and background
mean per variant), Fig 7 (timeouts, important-packet loss, PAUSE frames, paused time),
Fig 1 (RTO inflation at RTO_min 200 µs), Fig 11b (maximum queue) and Fig 16 (segment
delivery time). They all read the runs :func:`plan_fig5` plans.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ...results import Results
from ..framework import NA, Ctx, Finding, band, bars, bootstrap, by_seed, effect_band
from .metrics import (
    P999,
    PER_1K,
    _add,
    _col,
    _fct,
    _get,
    _has,
    _imp_loss,
    _loss_rate,
    _mean,
    _mean_ratio,
    _pause_per_1k,
    _paused_frac,
    _pct,
    _per_run,
    _ratio,
    _record,
    _rtos,
    _stat,
)
from .presets import TRANSPORTS, VARIANT_LABEL

# ---------------------------------------------------------------------------------------------
# Fig 5 / Fig 7: the six variants for TCP and DCTCP

FIG5 = ("base", "pfc", "tlt", "tlt_pfc", "tlp", "rto200")


def plan_fig5(c: Ctx) -> None:
    for t in TRANSPORTS:
        for v in FIG5:
            _add(c, v, t)


def _fig5(c: Ctx, t: str) -> dict[str, dict[str, list[np.ndarray]]]:
    m = c.__dict__.setdefault("_memo", {})
    if ("fig5", t) not in m:
        m[("fig5", t)] = {
            v: {"fg": _fct(_get(c, v, t), "foreground"), "bg": _fct(_get(c, v, t), "background")}
            for v in FIG5
        }
    for v in FIG5:
        _record(c, f"{t} {VARIANT_LABEL[v]}", _get(c, v, t))
    return m[("fig5", t)]


def _fig5_plot(c: Ctx, t: str) -> Any:
    def plot(ax: Any) -> None:
        d = _fig5(c, t)
        fg = [_stat(P999, d[v]["fg"]).scaled(1e3) for v in FIG5]
        bg = [_stat(_mean, d[v]["bg"]).scaled(1e3) for v in FIG5]
        bars(
            ax,
            [VARIANT_LABEL[v] for v in FIG5],
            {"foreground p99.9 (ms)": fg, "background mean (ms)": bg},
            xlabel=t.upper(),
            ylabel="FCT (ms)",
        )
        ax.tick_params(axis="x", labelrotation=30, labelsize=7)

    return plot


def _fig5_ours(d: dict, vs: Sequence[str]) -> str:
    return "; ".join(
        f"{VARIANT_LABEL[v]}: fg p99.9 {_stat(P999, d[v]['fg']).scaled(1e3)} ms, bg mean "
        f"{_stat(_mean, d[v]['bg']).scaled(1e3)} ms"
        for v in vs
    )


def eval_dctcp_tlt(c: Ctx, fd: Finding) -> None:
    d = _fig5(c, "dctcp")
    g = _ratio(P999, d["base"]["fg"], d["tlt"]["fg"])
    b = _ratio(_mean, d["tlt"]["bg"], d["base"]["bg"])
    fd.stats = {"fg_base_over_tlt": g, "bg_tlt_over_base": b}
    fd.ours = f"fg p99.9 baseline ÷ TLT {g}; bg mean TLT ÷ baseline {b}. " + _fig5_ours(
        d, ("base", "tlt")
    )
    lo, hi = effect_band(1 / (1 - 0.809))
    fd.judge(fg_gain=band(g, lo, hi), bg_close=band(b, 0.8, 1.25))
    fd.plot = _fig5_plot(c, "dctcp")


def eval_dctcp_pfc(c: Ctx, fd: Finding) -> None:
    d = _fig5(c, "dctcp")
    g = _ratio(P999, d["base"]["fg"], d["pfc"]["fg"])
    b = _ratio(_mean, d["pfc"]["bg"], d["base"]["bg"])
    fd.stats = {"fg_base_over_pfc": g, "bg_pfc_over_base": b}
    fd.ours = f"fg p99.9 baseline ÷ PFC {g}; bg mean PFC ÷ baseline {b}. " + _fig5_ours(
        d, ("base", "pfc")
    )
    glo, ghi = effect_band(13.0 / 2.11)
    blo, bhi = effect_band(48.8 / 19.3)
    fd.judge(fg_gain=band(g, glo, ghi), bg_cost=band(b, blo, bhi))
    fd.plot = _fig5_plot(c, "dctcp")


def eval_tlt_pfc_similar(c: Ctx, fd: Finding) -> None:
    parts, ours = {}, []
    for t in TRANSPORTS:
        d = _fig5(c, t)
        r = _ratio(P999, d["tlt_pfc"]["fg"], d["tlt"]["fg"])
        fd.stats[f"{t}_fg_tltpfc_over_tlt"] = r
        ours.append(f"{t.upper()}: fg p99.9 TLT+PFC ÷ TLT {r}")
        parts[f"{t}_similar"] = band(r, 2 / 3, 3 / 2)
    fd.ours = "; ".join(ours)
    fd.judge(**parts)
    fd.plot = _fig5_plot(c, "dctcp")


def eval_vs_200us(c: Ctx, fd: Finding) -> None:
    parts, ours = {}, []
    for t in TRANSPORTS:
        d = _fig5(c, t)
        r = _ratio(P999, d["rto200"]["fg"], d["tlt"]["fg"])
        fd.stats[f"{t}_fg_200us_over_tlt"] = r
        ours.append(f"{t.upper()}: fg p99.9 RTO_min 200 µs ÷ TLT {r}")
        parts[f"{t}_tlt_better"] = band(r, 1.0)
    fd.ours = "; ".join(ours)
    fd.judge(**parts)
    fd.plot = _fig5_plot(c, "dctcp")


def eval_tlp(c: Ctx, fd: Finding) -> None:
    parts, ours = {}, []
    for t in TRANSPORTS:
        d = _fig5(c, t)
        near = _ratio(P999, d["base"]["fg"], d["tlp"]["fg"])
        gap = _ratio(P999, d["tlp"]["fg"], d["tlt"]["fg"])
        fd.stats[f"{t}_fg_base_over_tlp"] = near
        fd.stats[f"{t}_fg_tlp_over_tlt"] = gap
        ours.append(f"{t.upper()}: fg p99.9 baseline ÷ TLP {near}, TLP ÷ TLT {gap}")
        parts[f"{t}_tlp_gain_below_2x"] = band(near, 0, 2.0)
        parts[f"{t}_tlt_2x_better_than_tlp"] = band(gap, 2.0)
    fd.ours = "; ".join(ours)
    fd.judge(**parts)
    fd.plot = _fig5_plot(c, "dctcp")


def eval_tcp_trends(c: Ctx, fd: Finding) -> None:
    d = _fig5(c, "tcp")
    dd = _fig5(c, "dctcp")
    g = _ratio(P999, d["base"]["fg"], d["tlt"]["fg"])
    p = _ratio(P999, d["pfc"]["fg"], dd["pfc"]["fg"])
    b = _ratio(_mean, d["tlt"]["bg"], d["base"]["bg"])
    fd.stats = {"tcp_fg_base_over_tlt": g, "fg_tcppfc_over_dctcppfc": p, "tcp_bg_tlt_over_base": b}
    fd.ours = (
        f"TCP fg p99.9 baseline ÷ TLT {g}; TCP+PFC ÷ DCTCP+PFC fg p99.9 {p}; TCP bg mean "
        f"TLT ÷ baseline {b}. " + _fig5_ours(d, FIG5)
    )
    # Fig 15 (web search, 40%): TCP baseline 13.43 ms vs +TLT 2.30 ms.
    lo, hi = effect_band(13.43 / 2.30)
    fd.judge(
        fg_gain=band(g, lo, hi),
        tcp_pfc_fg_worse_than_dctcp_pfc=band(p, 2.0),
        bg_close=band(b, 0.8, 1.25),
    )
    fd.plot = _fig5_plot(c, "tcp")


def _timeouts(c: Ctx, t: str) -> dict[str, list[np.ndarray]]:
    return {v: _rtos(_get(c, v, t)) for v in FIG5}


def eval_fig7_tlt(c: Ctx, fd: Finding) -> None:
    to = _timeouts(c, "dctcp")
    r = _mean_ratio(to["tlt"], to["base"])
    tcp = _timeouts(c, "tcp")
    frac = _stat(lambda v: float(np.mean(v > 0)) if len(v) else math.nan, tcp["tlt"])
    fd.stats = {"dctcp_tlt_over_base_timeouts": r, "tcp_tlt_flows_with_timeout": frac}
    fd.ours = (
        f"DCTCP timeouts per 1k flows: baseline {_stat(PER_1K, to['base'])}, TLT "
        f"{_stat(PER_1K, to['tlt'])} (ratio {r}); TCP+TLT flows with a timeout {frac}"
    )
    fd.judge(
        dctcp_nearly_eliminated=band(r, 0, 0.05),
        tcp_flows_with_timeout=band(frac, 0, 2 * 0.0025),
    )
    fd.plot = _fig7_plot(c, "timeouts")


def eval_fig7_200us(c: Ctx, fd: Finding) -> None:
    to = _timeouts(c, "dctcp")
    r = _mean_ratio(to["rto200"], to["base"])
    fd.stats = {"dctcp_200us_over_base_timeouts": r}
    fd.ours = f"DCTCP timeouts RTO_min 200 µs ÷ baseline {r}"
    lo, hi = effect_band(3.70)
    fd.judge(ratio=band(r, lo, hi))
    fd.plot = _fig7_plot(c, "timeouts")


def eval_fig7_tlp(c: Ctx, fd: Finding) -> None:
    to = _timeouts(c, "dctcp")
    r = _mean_ratio(to["base"], to["tlp"])
    fd.stats = {"dctcp_base_over_tlp_timeouts": r}
    fd.ours = f"DCTCP timeouts baseline ÷ TLP {r} (paper: 52.2% remain, 1.92×)"
    lo, hi = effect_band(1 / 0.522)
    fd.judge(ratio=band(r, lo, hi))
    fd.plot = _fig7_plot(c, "timeouts")


def eval_fig7_imp_loss(c: Ctx, fd: Finding) -> None:
    runs = {t: _get(c, "tlt", t) for t in TRANSPORTS}
    if not all(_has(r, "important_drops", "important_pkts") for r in runs.values()):
        fd.verdict, fd.ours = NA, "not available: no important-packet counters"
        return
    iv = {t: _stat(_loss_rate, _imp_loss(runs[t])) for t in TRANSPORTS}
    fd.stats = {f"{t}_important_loss": iv[t] for t in TRANSPORTS}
    fd.ours = "; ".join(f"{t.upper()}+TLT important-packet loss rate {iv[t]}" for t in TRANSPORTS)
    # paper: 1.33e-7 (DCTCP), 4.30e-6 (TCP): "tiny"; we allow up to 10× the TCP value.
    fd.judge(dctcp=band(iv["dctcp"], 0, 1e-5), tcp=band(iv["tcp"], 0, 4.3e-5))


def _fig7_plot(c: Ctx, what: str) -> Any:
    def plot(ax: Any) -> None:
        series = {}
        for t in TRANSPORTS:
            if what == "timeouts":
                to = _timeouts(c, t)
                series[t.upper()] = [_stat(PER_1K, to[v]) for v in FIG5]
            elif what == "pause":
                series[t.upper()] = [
                    _stat(_mean, _per_run(_get(c, v, t), _pause_per_1k)) for v in FIG5
                ]
            else:
                series[t.upper()] = [
                    _stat(_mean, _per_run(_get(c, v, t), _paused_frac)) for v in FIG5
                ]
        ylabel = {
            "timeouts": "timeouts per 1k flows",
            "pause": "PAUSE frames per 1k flows",
            "paused": "mean fraction of time paused",
        }[what]
        bars(ax, [VARIANT_LABEL[v] for v in FIG5], series, xlabel="variant", ylabel=ylabel)
        ax.tick_params(axis="x", labelrotation=30, labelsize=7)

    return plot


def _eval_pfc_reduction(what: str, paper: dict[str, float]) -> Any:
    f = _pause_per_1k if what == "pause" else _paused_frac

    def ev(c: Ctx, fd: Finding) -> None:
        parts, ours = {}, []
        if not all("pfc_pause_sent" in r.queues.columns for r in _get(c, "pfc", "dctcp")):
            fd.verdict, fd.ours = NA, "not available: no PFC counters in the results"
            return
        for t in TRANSPORTS:
            a = _per_run(_get(c, "pfc", t), f)
            b = _per_run(_get(c, "tlt_pfc", t), f)
            r = _mean_ratio(a, b, math.inf)
            fd.stats[f"{t}_pfc_over_tltpfc"] = r
            g = 1 / (1 - paper[t])
            lo, hi = effect_band(g)
            ours.append(
                f"{t.upper()}: PFC {_stat(_mean, a)}, TLT+PFC {_stat(_mean, b)}, ratio {r} "
                f"(paper {g:.3g}×)"
            )
            parts[t] = band(r, lo, hi)
        fd.ours = "; ".join(ours)
        fd.judge(**parts)
        fd.plot = _fig7_plot(c, what)

    return ev


# ---------------------------------------------------------------------------------------------
# Fig 1: RTO inflation with RTO_min 200 µs (Fig 2, a static RTO, is in sweeps.py)


def eval_fig1(c: Ctx, fd: Finding) -> None:
    runs = _get(c, "rto200", "dctcp")
    _record(c, "dctcp RTO_min 200 µs", runs)
    if not _has(runs, "srtt_s", "rto_s"):
        fd.verdict, fd.ours = NA, "not available: no per-flow RTT / RTO columns"
        return
    rtt = _col(runs, "srtt_s", "foreground")
    rto = _col(runs, "rto_s", "foreground")
    rtt = by_seed(runs, [v[np.isfinite(v) & (v > 0)] for v in rtt])
    rto = by_seed(runs, [v[np.isfinite(v) & (v > 0)] for v in rto])
    above = _stat(lambda v: float(np.mean(v > 1.1e-3)) if len(v) else math.nan, rto)
    p90 = _stat(_pct(90), rtt).scaled(1e3)
    gap = bootstrap(lambda u, v: _pct(90)(u) / _pct(90)(v), rto, rtt, lazy=True)
    fd.stats = {"fg_rto_above_1_1ms": above, "fg_rtt_p90_ms": p90, "rto_p90_over_rtt_p90": gap}
    fd.ours = (
        f"foreground flows with RTO > 1.1 ms: {above}; RTT p90 {p90} ms (paper 0.48); "
        f"RTO p90 ÷ RTT p90 {gap}"
    )
    fd.judge(over_10pct_above_1_1ms=band(above, 0.10), rto_right_of_rtt=band(gap, 1.5))

    def plot(ax: Any) -> None:
        for name, arr in (("RTT", rtt), ("RTO", rto)):
            v = np.sort(np.concatenate(arr)) * 1e3
            if len(v):
                ax.plot(v, np.arange(1, len(v) + 1) / len(v), label=name)
        ax.set_xscale("log")
        ax.set_xlabel("ms (foreground flows, at completion)")
        ax.set_ylabel("CDF")
        ax.grid(alpha=0.3)
        ax.legend()

    fd.plot = plot


def _max_queue(r: Results) -> float:
    q = r.queues
    return float(q[~q["is_host"].astype(bool)]["max_bytes"].max())


def eval_fig11b(c: Ctx, fd: Finding) -> None:
    base, tlt = _get(c, "base", "dctcp"), _get(c, "tlt", "dctcp")
    a = _per_run(base, _max_queue)
    b = _per_run(tlt, _max_queue)
    mx = _stat(_mean, a).scaled(1e-6)
    r = _mean_ratio(a, b)
    fd.stats = {"dctcp_max_queue_MB": mx, "dctcp_over_tlt_max_queue": r}
    fd.ours = f"max per-port queue DCTCP {mx} MB (paper 2.18 MB), DCTCP ÷ DCTCP+TLT {r}"
    lo, hi = effect_band(1 / (1 - 0.231))
    # Upper edge: one congested port's DT cap α·B/(1+α) = 2.25 MB, which the rule
    # "admit while Q < α·free" can pass by at most one frame.
    cap = 4.5 / 2 + 1538e-6
    fd.judge(max_queue=band(mx, 2.18 / 1.25, cap), tlt_lower=band(r, lo, hi))


# ---------------------------------------------------------------------------------------------
# Fig 16: segment delivery time


def _delivery_quantile(r: Results, q: float) -> float:
    """The q-quantile (0–1) of segment delivery times over all classes of one run, from the
    core's log-binned histogram (50 bins per decade), interpolated log-linearly in its bin."""
    sd = r.meta.get("segment_delivery")
    if not sd:
        return math.nan
    edges = np.asarray(sd["edges_s"], dtype=float)
    counts = np.sum([np.asarray(v, dtype=float) for v in sd["counts"].values()], axis=0)
    total = counts.sum()
    if total <= 0:
        return math.nan
    cum = np.cumsum(counts)
    i = int(np.searchsorted(cum, q * total))
    if i == 0:
        return float(edges[0])
    if i >= len(counts) - 1:
        return float(edges[-1])
    lo, hi = np.log10(edges[i - 1]), np.log10(edges[i])
    before = cum[i] - counts[i]
    frac = (q * total - before) / counts[i] if counts[i] > 0 else 0.0
    return float(10 ** (lo + frac * (hi - lo)))


def eval_fig16(c: Ctx, fd: Finding) -> None:
    base, tlt = _get(c, "base", "dctcp"), _get(c, "tlt", "dctcp")
    if not all(r.meta.get("segment_delivery") for r in (*base, *tlt)):
        fd.verdict, fd.ours = NA, "not available: runs without segment delivery histograms"
        return
    parts, rows = {}, []
    for q, paper in ((0.99, 0.228), (0.999, 0.576)):
        a = _per_run(base, lambda r, q=q: _delivery_quantile(r, q))
        b = _per_run(tlt, lambda r, q=q: _delivery_quantile(r, q))
        r = _mean_ratio(a, b)
        tag = f"p{q * 100:g}"
        fd.stats[f"{tag}_base_over_tlt"] = r
        g = 1 / (1 - paper)
        lo, hi = effect_band(g)
        rows.append(
            f"{tag}: baseline {_stat(_mean, a).scaled(1e6)} µs, TLT {_stat(_mean, b).scaled(1e6)} "
            f"µs, ratio {r} (paper {g:.3g}×)"
        )
        parts[f"{tag}_reduction"] = band(r, lo, hi)
    fd.ours = "; ".join(rows)
    fd.judge(**parts)

    def plot(ax: Any) -> None:
        for name, runs in (("baseline", base), ("+TLT", tlt)):
            sd = [r.meta["segment_delivery"] for r in runs]
            edges = np.asarray(sd[0]["edges_s"], dtype=float)
            counts = np.sum(
                [np.asarray(v, dtype=float) for d in sd for v in d["counts"].values()], axis=0
            )
            cdf = np.cumsum(counts)[1:-1] / max(1.0, counts.sum())
            ax.plot(edges[1:] * 1e6, cdf, label=f"DCTCP {name}")
        ax.set_xscale("log")
        ax.set_xlabel("segment delivery time (µs)")
        ax.set_ylabel("CDF")
        ax.grid(alpha=0.3)
        ax.legend()

    fd.plot = plot
