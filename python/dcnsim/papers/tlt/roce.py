"""TLT (paper 004), the RoCE half of §7: Fig 6, Fig 9a, the RoCE columns of Fig 15, Fig 18's
HPCC half (incast degree) and the N = 96 vs 384 footnote (TLT-N), on TLT-SIM-RoCE-BASE (the
shipped ``tlt_roce`` scenario: the TCP fabric with 1 µs links, RoCEv2 with DCQCN, payload
1000 B, RED-ECN 5 KB / 200 KB / 1%). :mod:`dcnsim.papers.tlt` includes these figures, so
``dcnsim reproduce tlt`` runs both halves; the metrics and verdict rules are the TCP half's.

Transports: vanilla DCQCN (go-back-N, static RTO 4 ms), DCQCN+SACK (selective repeat without
the BDP window, RTO 4 ms), DCQCN+IRN (selective repeat, BDP-FC, RTO_high 1930 µs, RTO_low
454 µs), and HPCC with SACK (``roce.cc = "hpcc"``). Variants: baseline (lossy), +PFC,
+TLT (``roce.tlt = "on"``: rate-based on the DCQCN flavours with one important packet in
every 96, window-based on IRN and HPCC; colour-aware dropping at 200 kB), +TLT+PFC. IRN
runs without PFC only (§7.1).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ...results import Results
from ...runcost import duration_secs
from ..framework import NA, Ctx, Figure, Finding, band, bars, bootstrap, effect_band, lines
from . import metrics as T
from . import presets
from .notes import ROCE_MISS_NOTES as MISS_NOTES

SCENARIO = "tlt_roce"
#: Wire bytes per payload byte of a full RoCE data packet: 1000 B payload + Ethernet 38 +
#: IP 20 + UDP/BTH/ICRC 24.
WIRE = 1082 / 1000
#: Colour-aware dropping threshold for RoCE transports (§7.1: 200 kB ≥ DCQCN's K_max).
K_ROCE = 200_000
#: TLT §7.1: with vanilla DCQCN one packet in every 96 is important.
EVERY = 96

LABEL = {
    "dcqcn": "DCQCN",
    "dcqcn_sack": "DCQCN+SACK",
    "dcqcn_irn": "DCQCN+IRN",
    "hpcc": "HPCC",
}
#: HPCC with SACK (mechanisms §4.11).
HPCC = {
    "kind": "roce",
    "roce": {"preset": "tlt", "payload": "1000B", "rto": "4ms", "recovery": "sack", "cc": "hpcc"},
}
VARIANT_LABEL = {"base": "lossy", "pfc": "+PFC", "tlt": "+TLT", "tlt_pfc": "+TLT+PFC"}
#: Fig 6's variants per transport (§7.1: "Except for IRN, we evaluate it with and without
#: PFC").
FIG6 = {
    "dcqcn": ("base", "pfc", "tlt", "tlt_pfc"),
    "dcqcn_sack": ("base", "pfc", "tlt", "tlt_pfc"),
    "dcqcn_irn": ("base", "tlt"),
    "hpcc": ("base", "pfc", "tlt", "tlt_pfc"),
}


def variant(name: str, transport: str, every: int = EVERY) -> dict[str, Any]:
    """Overrides that turn the shipped ``tlt_roce`` baseline into ``name`` for ``transport``."""
    t = f"transports.{transport}"
    ov: dict[str, Any] = {}
    if transport == "hpcc":
        ov[t] = HPCC
    pfc = {"switch.pfc": {"enabled": True}}
    tlt = {
        "switch.colour": {"threshold": f"{K_ROCE}B", "mode": "red_only"},
        f"{t}.roce.tlt": "on",
        f"{t}.roce.tlt_every": every,
    }
    table: dict[str, dict[str, Any]] = {
        "base": {},
        "pfc": pfc,
        "tlt": tlt,
        "tlt_pfc": {**tlt, **pfc},
    }
    if name not in table:
        raise ValueError(f"unknown variant {name!r}; expected one of {sorted(table)}")
    if transport not in LABEL:
        raise ValueError(f"unknown transport {transport!r}; expected one of {sorted(LABEL)}")
    if transport == "hpcc" and name in ("tlt", "tlt_pfc"):
        # The override replaces the whole transport table: carry TLT inside it.
        ov[t] = {**HPCC, "roce": {**HPCC["roce"], "tlt": "on", "tlt_every": every}}
        tlt = {k: v for k, v in table[name].items() if not k.startswith(t)}
        return {**ov, **tlt}
    return {**ov, **table[name]}


def classes(transport: str, **kw: Any) -> list[dict[str, Any]]:
    """The TCP half's background + incast arithmetic with RoCE's wire/payload ratio."""
    return presets.classes(transport, wire=WIRE, **kw)


def _seeds(c: Ctx) -> tuple[int, ...]:
    return tuple(c.scale.params.get("roce_seeds", c.seeds))


#: The scenario's horizon (``tlt_roce.toml``): a run stops once every measured flow has
#: finished, at the latest at the horizon.
SCENARIO_HORIZON_MS = 300.0


def horizon_ms(duration: str) -> float:
    """[CHOICE] How long a run may go on so that the flows started in its window finish: the
    scenario's 300 ms, or 5 × the duration if longer. (At the full scale's 240 ms the 300 ms
    left 60 ms, and web-search flows of 17–30 MB started late in the window were still
    running at the horizon, +inf in every background mean.)"""
    d = duration_secs(duration, math.nan) * 1e3
    if math.isnan(d):
        raise ValueError(f"roce_duration: expected a duration such as '240ms', got {duration!r}")
    return max(SCENARIO_HORIZON_MS, 5.0 * d)


def _ov(c: Ctx, v: str, transport: str, **kw: Any) -> dict[str, Any]:
    every = kw.pop("every", EVERY)
    cl = classes(
        transport,
        load=kw.pop("load", 0.4),
        fg_share=kw.pop("fg", 0.05),
        flows_per_sender=kw.pop("degree", 8),
        cdf=kw.pop("cdf", "websearch"),
    )
    assert not kw, kw
    dur = c.scale.params.get("roce_duration", c.scale.duration)
    ov: dict[str, Any] = {"run.duration": dur}
    if horizon_ms(dur) > SCENARIO_HORIZON_MS:
        ov["run.horizon"] = f"{horizon_ms(dur):g}ms"
    return {**ov, **variant(v, transport, every), "classes": cl}


def _key(v: str, transport: str, **kw: Any) -> tuple:
    return ("roce", v, transport, tuple(sorted(kw.items())))


def _add(c: Ctx, v: str, transport: str, **kw: Any) -> None:
    for s in _seeds(c):
        c.add((*_key(v, transport, **kw), s), SCENARIO, _ov(c, v, transport, **dict(kw)), s)


def _get(c: Ctx, v: str, transport: str, **kw: Any) -> list[Results]:
    runs = [c.get((*_key(v, transport, **kw), s)) for s in _seeds(c)]
    label = f"{LABEL[transport]} {VARIANT_LABEL[v]}"
    if kw:
        label += " " + ", ".join(f"{k} {x}" for k, x in sorted(kw.items()))
    T._record(c, label, runs)
    return runs


def _fg_bg(c: Ctx, v: str, t: str, **kw: Any) -> dict[str, list[np.ndarray]]:
    runs = _get(c, v, t, **kw)
    return {"fg": T._fct(runs, "foreground"), "bg": T._fct(runs, "background")}


# ---------------------------------------------------------------------------------------------
# Fig 6


def _plan_fig6(transports: Sequence[str]) -> Any:
    def plan(c: Ctx) -> None:
        for t in transports:
            for v in FIG6[t]:
                _add(c, v, t)

    return plan


def _fig6(c: Ctx, t: str) -> dict[str, dict[str, list[np.ndarray]]]:
    return {v: _fg_bg(c, v, t) for v in FIG6[t]}


def _ours(d: dict, t: str) -> str:
    return "; ".join(
        f"{LABEL[t]} {VARIANT_LABEL[v]}: fg p99.9 {T._stat(T.P999, d[v]['fg']).scaled(1e3)} ms, "
        f"bg mean {T._stat(T._mean, d[v]['bg']).scaled(1e3)} ms"
        for v in d
    )


def _fig6_plot(c: Ctx, ts: Sequence[str]) -> Any:
    def plot(ax: Any) -> None:
        xs, fg, bg = [], [], []
        for t in ts:
            d = _fig6(c, t)
            for v in FIG6[t]:
                xs.append(f"{LABEL[t]} {VARIANT_LABEL[v]}")
                fg.append(T._stat(T.P999, d[v]["fg"]).scaled(1e3))
                bg.append(T._stat(T._mean, d[v]["bg"]).scaled(1e3))
        bars(ax, xs, {"fg p99.9 (ms)": fg, "bg mean (ms)": bg}, xlabel="variant", ylabel="FCT (ms)")
        ax.tick_params(axis="x", labelrotation=40, labelsize=6)

    return plot


def eval_fig6_dcqcn(c: Ctx, fd: Finding) -> None:
    d = _fig6(c, "dcqcn")
    g = T._ratio(T.P999, d["base"]["fg"], d["tlt"]["fg"])
    b = T._ratio(T._mean, d["tlt"]["bg"], d["base"]["bg"])
    fd.stats = {"fg_base_over_tlt": g, "bg_tlt_over_base": b}
    fd.ours = f"fg p99.9 lossy ÷ TLT {g}; bg mean TLT ÷ lossy {b}. " + _ours(d, "dcqcn")
    lo, hi = effect_band(1 / (1 - 0.691))
    fd.judge(fg_gain=band(g, lo, hi), bg_close=band(b, 0.8, 1.25))
    fd.plot = _fig6_plot(c, ["dcqcn"])


def eval_fig6_dcqcn_pfc(c: Ctx, fd: Finding) -> None:
    d = _fig6(c, "dcqcn")
    g = T._ratio(T.P999, d["pfc"]["fg"], d["tlt_pfc"]["fg"])
    b = T._ratio(T._mean, d["pfc"]["bg"], d["tlt_pfc"]["bg"])
    fd.stats = {"fg_pfc_over_tltpfc": g, "bg_pfc_over_tltpfc": b}
    fd.ours = f"PFC ÷ TLT+PFC: fg p99.9 {g}, bg mean {b}"
    fd.judge(no_fg_gain=band(g, 0, 1.25), no_bg_gain=band(b, 0, 1.25))
    fd.plot = _fig6_plot(c, ["dcqcn"])


def eval_fig6_sack_pfc(c: Ctx, fd: Finding) -> None:
    runs = {v: _get(c, v, "dcqcn_sack") for v in ("pfc", "tlt_pfc")}
    bg = {v: T._fct(runs[v], "background") for v in runs}
    b = T._ratio(T._mean, bg["pfc"], bg["tlt_pfc"])
    fr = {v: T._per_run(runs[v], T._pause_per_1k) for v in runs}
    pt = {v: T._per_run(runs[v], T._paused_frac) for v in runs}
    p = T._mean_ratio(fr["pfc"], fr["tlt_pfc"], math.inf)
    q = T._mean_ratio(pt["pfc"], pt["tlt_pfc"], math.inf)
    fd.stats = {"bg_pfc_over_tltpfc": b, "pause_pfc_over_tltpfc": p, "paused_pfc_over_tltpfc": q}
    fd.ours = (
        f"PFC ÷ TLT+PFC: bg mean {b}, PAUSE frames per 1k flows {p} (PFC "
        f"{T._stat(T._mean, fr['pfc'])}, TLT+PFC {T._stat(T._mean, fr['tlt_pfc'])}), paused "
        f"fraction {q}"
    )
    b_lo, b_hi = effect_band(1 / (1 - 0.2138))
    p_lo, p_hi = effect_band(1 / (1 - 0.835))
    q_lo, q_hi = effect_band(1 / (1 - 0.928))
    fd.judge(
        bg_gain=band(b, b_lo, b_hi), pause_frames=band(p, p_lo, p_hi), paused=band(q, q_lo, q_hi)
    )
    fd.plot = _fig6_plot(c, ["dcqcn_sack"])


def eval_fig6_irn(c: Ctx, fd: Finding) -> None:
    d = _fig6(c, "dcqcn_irn")
    g = T._ratio(T.P999, d["base"]["fg"], d["tlt"]["fg"])
    b = T._ratio(T._mean, d["tlt"]["bg"], d["base"]["bg"])
    to = T._stat(T.PER_1K, T._rtos(_get(c, "tlt", "dcqcn_irn")))
    fd.stats = {"fg_base_over_tlt": g, "bg_tlt_over_base": b, "tlt_timeouts_per_1k": to}
    fd.ours = (
        f"fg p99.9 IRN ÷ IRN+TLT {g}; bg mean TLT ÷ IRN {b}; IRN+TLT timeouts per 1k flows "
        f"{to}. " + _ours(d, "dcqcn_irn")
    )
    lo, hi = effect_band(1 / (1 - 0.5562))
    fd.judge(fg_gain=band(g, lo, hi), bg_small_gain=band(b, 0.8, 1.05))
    fd.plot = _fig6_plot(c, ["dcqcn_irn"])


def eval_fig6_irn_vs_pfc(c: Ctx, fd: Finding) -> None:
    irn = _fg_bg(c, "base", "dcqcn_irn")
    pfc = _fg_bg(c, "pfc", "dcqcn")
    g = T._ratio(T.P999, irn["fg"], pfc["fg"])
    b = T._ratio(T._mean, pfc["bg"], irn["bg"])
    fd.stats = {"fg_irn_over_dcqcnpfc": g, "bg_dcqcnpfc_over_irn": b}
    fd.ours = f"fg p99.9 IRN ÷ DCQCN+PFC {g}; bg mean DCQCN+PFC ÷ IRN {b}"
    lo, hi = effect_band(1 / (1 - 0.664))
    fd.judge(fg_comparable=band(g, 2 / 3, 3 / 2), bg_gain=band(b, lo, hi))
    fd.plot = _fig6_plot(c, ["dcqcn", "dcqcn_irn"])


def _eval_gap(ts: Sequence[str]) -> Any:
    def ev(c: Ctx, fd: Finding) -> None:
        parts, ours = {}, []
        for t in ts:
            d = _fig6(c, t)
            lossless = d["pfc"]["fg"] if "pfc" in d else _fg_bg(c, "pfc", "dcqcn")["fg"]
            near = T._ratio(T.P999, d["tlt"]["fg"], lossless)
            gain = T._ratio(T.P999, d["base"]["fg"], d["tlt"]["fg"])
            fd.stats[f"{t}_fg_tlt_over_pfc"] = near
            fd.stats[f"{t}_fg_base_over_tlt"] = gain
            ref = "PFC" if "pfc" in d else "DCQCN+PFC"
            ours.append(f"{LABEL[t]}: fg p99.9 TLT ÷ {ref} {near}, lossy ÷ TLT {gain}")
            parts[f"{t}_tlt_near_lossless"] = band(near, 0, 1.5)
            parts[f"{t}_tlt_beats_lossy"] = band(gain, 1.0)
        fd.ours = "; ".join(ours)
        fd.judge(**parts)
        fd.plot = _fig6_plot(c, ts)

    return ev


def eval_fig6_hpcc(c: Ctx, fd: Finding) -> None:
    d = _fig6(c, "hpcc")
    g = T._ratio(T.P999, d["base"]["fg"], d["tlt"]["fg"])
    b = T._ratio(T._mean, d["base"]["bg"], d["tlt"]["bg"])
    p = T._ratio(T._mean, d["pfc"]["bg"], d["tlt_pfc"]["bg"])
    fd.stats = {"fg_base_over_tlt": g, "bg_base_over_tlt": b, "bg_pfc_over_tltpfc": p}
    fd.ours = f"lossy ÷ TLT: fg p99.9 {g}, bg mean {b}; bg mean PFC ÷ TLT+PFC {p}. " + _ours(
        d, "hpcc"
    )
    g_lo, g_hi = effect_band(1 / (1 - 0.785))
    b_lo, b_hi = effect_band(1 / (1 - 0.705))
    p_lo, p_hi = effect_band(1 / (1 - 0.205))
    fd.judge(
        fg_gain=band(g, g_lo, g_hi), bg_gain=band(b, b_lo, b_hi), pfc_bg_gain=band(p, p_lo, p_hi)
    )
    fd.plot = _fig6_plot(c, ["hpcc"])


# ---------------------------------------------------------------------------------------------
# Fig 9a: HPCC+PFC vs HPCC+PFC+TLT over the load


def plan_fig9a(c: Ctx) -> None:
    for x in c.scale.loads:
        for v in ("pfc", "tlt_pfc"):
            _add(c, v, "hpcc", load=x)


def eval_fig9a(c: Ctx, fd: Finding) -> None:
    bg, fg = {}, {}
    for x in c.scale.loads:
        p, t = _fg_bg(c, "pfc", "hpcc", load=x), _fg_bg(c, "tlt_pfc", "hpcc", load=x)
        bg[x] = T._ratio(T._mean, p["bg"], t["bg"])
        fg[x] = T._ratio(T.P999, t["fg"], p["fg"])
    fd.stats = {f"bg_pfc_over_tltpfc_{x:.0%}": v for x, v in bg.items()}
    fd.stats.update({f"fg_tltpfc_over_pfc_{x:.0%}": v for x, v in fg.items()})
    fd.ours = "; ".join(f"{x:.0%}: bg PFC ÷ TLT+PFC {bg[x]}, fg TLT+PFC ÷ PFC {fg[x]}" for x in bg)
    hi = max(bg)
    lo_, hi_ = effect_band(1 / (1 - 0.519))
    fd.judge(
        **{f"bg_gain_at_{x:.0%}": band(bg[x], 1.0) for x in bg},
        **{f"fg_low_at_{x:.0%}": band(fg[x], 0, 1.5) for x in fg},
        **({f"gain_at_{hi:.0%}": band(bg[hi], lo_, hi_)} if hi >= 0.6 else {}),
    )

    def plot(ax: Any) -> None:
        lines(
            ax,
            [100 * x for x in bg],
            {
                "bg mean PFC ÷ TLT+PFC": list(bg.values()),
                "fg p99.9 TLT+PFC ÷ PFC": list(fg.values()),
            },
            xlabel="load (%)",
            ylabel="ratio",
            ref=1,
        )

    fd.plot = plot


# ---------------------------------------------------------------------------------------------
# Fig 15: the RoCE columns


#: Fig 15's RoCE columns: (transport, baseline variant).
FIG15 = (("dcqcn_sack", "pfc"), ("dcqcn_irn", "base"), ("hpcc", "pfc"))


def _plan_fig15(ts: Sequence[str]) -> Any:
    def plan(c: Ctx) -> None:
        for cdf in presets.WORKLOADS.values():
            for x in c.scale.wl_loads:
                for t, base in FIG15:
                    if t in ts:
                        _add(c, base, t, load=x, cdf=cdf)
                        _add(c, "tlt", t, load=x, cdf=cdf)

    return plan


def _eval_fig15(ts: Sequence[str], claim: str) -> Any:
    """``claim = "tlt_best"``: baseline ÷ TLT fg p99.9 ≥ 1 in every cell (IRN);
    ``"pfc_better"``: PFC baseline ÷ TLT ≤ 1 in every cell (DCQCN+SACK, HPCC)."""

    def ev(c: Ctx, fd: Finding) -> None:
        parts, rows, table = {}, [], {}
        for wname, cdf in presets.WORKLOADS.items():
            for x in c.scale.wl_loads:
                for t, base in FIG15:
                    if t not in ts:
                        continue
                    b = _fg_bg(c, base, t, load=x, cdf=cdf)["fg"]
                    tl = _fg_bg(c, "tlt", t, load=x, cdf=cdf)["fg"]
                    r = T._ratio(T.P999, b, tl)
                    tag = f"{wname} {x:.0%} {LABEL[t]}"
                    table[tag] = {
                        "baseline": T._stat(T.P999, b).scaled(1e3),
                        "+TLT": T._stat(T.P999, tl).scaled(1e3),
                    }
                    rows.append(f"{tag}: {VARIANT_LABEL[base]} ÷ TLT {r}")
                    key = tag.replace(" ", "_").replace("%", "pct").replace("+", "_")
                    parts[key] = band(r, 1.0) if claim == "tlt_best" else band(r, 0, 1.0)
        fd.ours = "; ".join(rows)
        fd.judge(**parts)

        def plot(ax: Any) -> None:
            bars(
                ax,
                list(table),
                {k: [table[r][k] for r in table] for k in ("baseline", "+TLT")},
                xlabel="workload, load, transport",
                ylabel="fg p99.9 FCT (ms)",
            )
            ax.tick_params(axis="x", labelrotation=30, labelsize=6)

        fd.plot = plot

    return ev


# ---------------------------------------------------------------------------------------------
# Fig 18, HPCC half: incast degree (foreground flows per sender), lossy vs +PFC vs +TLT

#: TLT-Fig18: "transports HPCC and TCP (each baseline/PFC/TLT variants)".
FIG18 = ("base", "pfc", "tlt")
#: Fig 6's foreground degree (8 flows per sender): the Fig 18 runs at this degree are Fig 6's.
DEGREE = 8


def _deg(d: int) -> dict[str, Any]:
    """The run key's extra for degree ``d`` (none at Fig 6's 8, so those runs are shared)."""
    return {} if d == DEGREE else {"degree": d}


def plan_fig18(c: Ctx) -> None:
    for d in c.scale.degrees:
        for v in FIG18:
            _add(c, v, "hpcc", **_deg(d))


def eval_fig18(c: Ctx, fd: Finding) -> None:
    """The TCP half's rule (tlt.eval_fig18) on HPCC: at the highest degree, lossy ÷ TLT fg
    p99.9 within the tolerance of the paper's 78.9% cut, and TLT best (min(lossy, PFC) ÷ TLT
    ≥ 1)."""
    ds = tuple(c.scale.degrees)
    fg = {(v, d): _fg_bg(c, v, "hpcc", **_deg(d))["fg"] for d in ds for v in FIG18}
    hi = ds[-1]
    g = T._ratio(T.P999, fg[("base", hi)], fg[("tlt", hi)])
    best = bootstrap(
        lambda a, b, t: min(T.P999(a), T.P999(b)) / T.P999(t),
        fg[("base", hi)],
        fg[("pfc", hi)],
        fg[("tlt", hi)],
    )
    per = {d: T._ratio(T.P999, fg[("base", d)], fg[("tlt", d)]) for d in ds}
    fd.stats = {"hpcc_base_over_tlt_at_max_degree": g, "best_other_over_tlt": best}
    fd.stats.update({f"hpcc_base_over_tlt_at_{d}": per[d] for d in ds})
    fd.ours = (
        f"at {hi} flows/host: HPCC lossy ÷ TLT fg p99.9 {g}; best other ÷ TLT {best}. Lossy ÷ "
        + "TLT per degree: "
        + ", ".join(f"{d}: {per[d]}" for d in ds)
        + ". fg p99.9 (ms): "
        + "; ".join(
            f"{d} flows/host "
            + ", ".join(
                f"{VARIANT_LABEL[v]} {T._stat(T.P999, fg[(v, d)]).scaled(1e3)}" for v in FIG18
            )
            for d in ds
        )
    )
    lo, up = effect_band(1 / (1 - 0.789))
    fd.judge(gain=band(g, lo, up), tlt_best=band(best, 1.0))

    def plot(ax: Any) -> None:
        lines(
            ax,
            list(ds),
            {
                f"HPCC {VARIANT_LABEL[v]}": [T._stat(T.P999, fg[(v, d)]).scaled(1e3) for d in ds]
                for v in FIG18
            },
            xlabel="foreground flows per sender",
            ylabel="fg p99.9 FCT (ms)",
        )

    fd.plot = plot


# ---------------------------------------------------------------------------------------------
# TLT-N: every-N marking with N = 96 and 384


def plan_n(c: Ctx) -> None:
    _add(c, "tlt", "dcqcn")
    _add(c, "tlt", "dcqcn", every=384)


def eval_n(c: Ctx, fd: Finding) -> None:
    a = _fg_bg(c, "tlt", "dcqcn")
    b = _fg_bg(c, "tlt", "dcqcn", every=384)
    runs = {96: _get(c, "tlt", "dcqcn"), 384: _get(c, "tlt", "dcqcn", every=384)}
    if not all(T._has(r, "important_pkts") for r in runs.values()):
        fd.verdict, fd.ours = NA, "not available: no important-packet counters"
        return
    imp = {n: T._stat(T._loss_rate, T._imp_frac(runs[n], "pkts")) for n in runs}
    r = T._ratio(T.P999, b["fg"], a["fg"])
    fd.stats = {
        "fg_n384_over_n96": r,
        "important_frac_n96": imp[96],
        "important_frac_n384": imp[384],
    }
    fd.ours = (
        f"vanilla DCQCN + TLT fg p99.9 N = 384 ÷ N = 96 {r}; important packets / data packets "
        f"N = 96 {imp[96]}, N = 384 {imp[384]}"
    )
    fd.judge(differs_less_than_3pct=band(r, 1 / 1.06, 1.06))

    def plot(ax: Any) -> None:
        bars(
            ax,
            ["N = 96", "N = 384"],
            {"fg p99.9 (ms)": [T._stat(T.P999, v["fg"]).scaled(1e3) for v in (a, b)]},
            xlabel="periodic marking interval",
            ylabel="FCT (ms)",
        )

    fd.plot = plot


# ---------------------------------------------------------------------------------------------
# registry

DCQCN_FAMILY = ("dcqcn", "dcqcn_sack", "dcqcn_irn")
NEEDS = ("pfc", "roce_tlt")
NEEDS_HPCC = (*NEEDS, "hpcc")
_P6 = [_plan_fig6(DCQCN_FAMILY)]
_P6H = [_plan_fig6(("hpcc",))]
_g = {
    "dcqcn": effect_band(1 / (1 - 0.691)),
    "irn": effect_band(1 / (1 - 0.5562)),
    "irnpfc": effect_band(1 / (1 - 0.664)),
    "sack": effect_band(1 / (1 - 0.2138)),
    "pause": effect_band(1 / (1 - 0.835)),
    "paused": effect_band(1 / (1 - 0.928)),
    "hfg": effect_band(1 / (1 - 0.785)),
    "hbg": effect_band(1 / (1 - 0.705)),
    "hpfc": effect_band(1 / (1 - 0.205)),
    "h60": effect_band(1 / (1 - 0.519)),
    "h18": effect_band(1 / (1 - 0.789)),
}


def _b(k: str) -> str:
    lo, hi = _g[k]
    return f"[{lo:.2f}, {hi:.2f}]"


FIGURES: list[Figure] = [
    Figure(
        "Fig6-dcqcn-tlt",
        "vanilla DCQCN without PFC: TLT cuts fg p99.9 by 69.1%, bg mean only +5.60%",
        f"fg lossy ÷ TLT in {_b('dcqcn')}, bg TLT ÷ lossy in [0.8, 1.25]",
        _P6,
        eval_fig6_dcqcn,
        needs=NEEDS,
    ),
    Figure(
        "Fig6-dcqcn-pfc",
        "vanilla DCQCN with PFC: TLT fails to show a gain",
        "PFC ÷ TLT+PFC fg p99.9 and bg mean each ≤ 1.25",
        _P6,
        eval_fig6_dcqcn_pfc,
        needs=NEEDS,
    ),
    Figure(
        "Fig6-sack-pfc",
        "DCQCN+SACK with PFC: TLT cuts bg mean by 21.38%, PAUSE frames by 83.5%, paused time "
        "by 92.8%",
        f"PFC ÷ TLT+PFC bg mean in {_b('sack')}, PAUSE frames per 1k flows in {_b('pause')}, "
        f"paused fraction in {_b('paused')}",
        _P6,
        eval_fig6_sack_pfc,
        needs=NEEDS,
    ),
    Figure(
        "Fig6-irn-tlt",
        "DCQCN+IRN: TLT improves fg p99.9 by 55.62% and bg mean by 5.92% (eliminating timeouts)",
        f"fg IRN ÷ IRN+TLT in {_b('irn')}, bg IRN+TLT ÷ IRN in [0.8, 1.05]",
        _P6,
        eval_fig6_irn,
        needs=NEEDS,
    ),
    Figure(
        "Fig6-irn-vs-dcqcn-pfc",
        "IRN vs vanilla DCQCN+PFC: comparable fg tail, 66.4% better bg mean",
        f"fg IRN ÷ DCQCN+PFC in [2/3, 3/2], bg DCQCN+PFC ÷ IRN in {_b('irnpfc')}",
        _P6,
        eval_fig6_irn_vs_pfc,
        needs=NEEDS,
    ),
    Figure(
        "Fig6-gap",
        "TLT closes most of the lossy-vs-lossless gap for each RoCE transport",
        "per DCQCN flavour: fg p99.9 TLT ÷ lossless (its own PFC variant; IRN: DCQCN+PFC) ≤ "
        "1.5 and lossy ÷ TLT ≥ 1",
        _P6,
        _eval_gap(DCQCN_FAMILY),
        needs=NEEDS,
    ),
    Figure(
        "Fig6-hpcc",
        "HPCC without PFC: TLT cuts fg p99.9 by 78.5% and bg mean by 70.5%; with PFC, bg mean "
        "by 20.5%",
        f"lossy ÷ TLT fg in {_b('hfg')}, bg in {_b('hbg')}; PFC ÷ TLT+PFC bg in {_b('hpfc')}",
        _P6H,
        eval_fig6_hpcc,
        needs=NEEDS_HPCC,
    ),
    Figure(
        "Fig9a-hpcc-load",
        "HPCC+PFC: TLT keeps fg tails low at every load and a lower bg mean (51.9% at 60%)",
        f"per load: bg PFC ÷ TLT+PFC ≥ 1, fg TLT+PFC ÷ PFC ≤ 1.5; at 60%: bg ratio in {_b('h60')}",
        [plan_fig9a],
        eval_fig9a,
        needs=NEEDS_HPCC,
    ),
    Figure(
        "Fig15-roce-irn",
        "DCQCN+IRN: TLT gives the best fg tail for every workload and load",
        "IRN ÷ IRN+TLT fg p99.9 ≥ 1 at every (workload, load)",
        [_plan_fig15(("dcqcn_irn",))],
        _eval_fig15(("dcqcn_irn",), "tlt_best"),
        needs=NEEDS,
    ),
    Figure(
        "Fig15-roce-sack",
        "DCQCN+SACK: TLT is not as good as PFC in fg tail",
        "PFC ÷ TLT fg p99.9 ≤ 1 at every (workload, load)",
        [_plan_fig15(("dcqcn_sack",))],
        _eval_fig15(("dcqcn_sack",), "pfc_better"),
        needs=NEEDS,
    ),
    Figure(
        "Fig15-roce-hpcc",
        "HPCC with SACK: TLT is not as good as PFC in fg tail",
        "PFC ÷ TLT fg p99.9 ≤ 1 at every (workload, load)",
        [_plan_fig15(("hpcc",))],
        _eval_fig15(("hpcc",), "pfc_better"),
        needs=NEEDS_HPCC,
    ),
    Figure(
        "Fig18-degree-hpcc",
        "HPCC: TLT is best at high incast degree, up to 78.9% lower fg tail",
        f"at the highest degree: lossy ÷ TLT fg p99.9 in {_b('h18')}, min(lossy, PFC) ÷ TLT ≥ 1",
        [plan_fig18],
        eval_fig18,
        needs=NEEDS_HPCC,
    ),
    Figure(
        "TLT-N-96-vs-384",
        "vanilla DCQCN + TLT: tail FCT differs less than 3% between N = 96 and N = 384",
        "fg p99.9 N = 384 ÷ N = 96 in [1/1.06, 1.06] (the 3% bound with the tolerance factor 2)",
        [plan_n],
        eval_n,
        needs=NEEDS,
    ),
]


#: mechanism → overrides of the ``tlt_roce`` preset that validate iff the core has it
MECHANISMS = {
    "roce_tlt": (SCENARIO, variant("tlt", "dcqcn")),
    "hpcc": (SCENARIO, variant("base", "hpcc")),
}

PREAMBLE = """\
RoCE half (Fig 6, 9a, 15's RoCE columns, 18's HPCC half, TLT-N) on TLT-SIM-RoCE-BASE (the
shipped `tlt_roce` scenario: the same fabric with 1 µs links; DCQCN with the TLT reference
constants, RED-ECN 5 KB / 200 KB / 1%, payload 1000 B; static RTO 4 ms, IRN RTO_high 1930 µs /
RTO_low 454 µs, BDP-FC 18,750 B). Same load arithmetic as the TCP half with RoCE's wire/payload
ratio 1082/1000. TLT: colour threshold 200 kB (`red_only`); `roce.tlt = "on"`: rate-based on
vanilla DCQCN and DCQCN+SACK (the last packet of each message, one in every 96 sent, the first
and last of each retransmission round), window-based on IRN (and HPCC) — the spec's reading of
which variant DCQCN+SACK uses. Choices (stated, not tuned): window-based TLT's important
ACK-clocking on RoCE resends a whole packet (a lost one, else the first unacknowledged one: a
RoCE packet has no 1-byte form); PFC as in the TCP half. The RoCE runs use their own (shorter)
duration and seeds at the reduced scale (`scale.roce_*` in the run facts); a run may go on
past its window until its measured flows finish, up to 300 ms or 5 × the duration if longer.
HPCC runs with SACK recovery and window-based TLT (`roce.tlt = "on"` picks the window
variant for HPCC over SACK, spec §5.5.3); its first important packet is the last one of the
initial window W_init.
Fig18-degree-hpcc is TLT-Fig18's HPCC half: the foreground flows per incast sender over the
scale's `degrees` (the TCP half's grid), HPCC lossy, +PFC and +TLT, judged by the TCP half's
rule at the highest degree; its runs at 8 flows per sender are Fig 6's.
"""

__all__ = ["FIGURES", "MECHANISMS", "MISS_NOTES", "PREAMBLE", "classes", "variant"]
