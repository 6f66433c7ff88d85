"""TLT figures that sweep one parameter (TCP half): Fig 2 (a static 160 µs RTO), Fig 8
and Fig 11a and Table 1 (the colour threshold), Fig 9b (load), Fig 10 (foreground share),
Fig 15 (workloads), Fig 17 (important ACK-clocking), Fig 18 (incast degree), and the §4.2
shared-buffer arithmetic.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..framework import NA, Ctx, Finding, band, bars, bootstrap, effect_band, exact, lines
from .metrics import (
    P99,
    P999,
    _add,
    _fct,
    _get,
    _has,
    _imp_frac,
    _imp_loss,
    _loss_rate,
    _mean,
    _mean_ratio,
    _per_run,
    _queues_pfc,
    _ratio,
    _record,
    _rtos,
    _stat,
)
from .presets import K_TCP, TRANSPORTS, VARIANT_LABEL, WORKLOADS, buffer_room

# ---------------------------------------------------------------------------------------------
# Fig 2: a small static RTO


def plan_fig2(c: Ctx) -> None:
    for v in ("base", "static160"):
        _add(c, v, "dctcp", fg=0.15)


def eval_fig2(c: Ctx, fd: Finding) -> None:
    base, st = _get(c, "base", "dctcp", fg=0.15), _get(c, "static160", "dctcp", fg=0.15)
    _record(c, "dctcp baseline, fg 15%", base)
    _record(c, "dctcp static 160 µs, fg 15%", st)
    fg = _ratio(P99, _fct(base, "foreground"), _fct(st, "foreground"))
    bg = _ratio(_mean, _fct(st, "background"), _fct(base, "background"))
    to = _mean_ratio(_rtos(st), _rtos(base), math.inf)
    fd.stats = {"fg_p99_base_over_static": fg, "bg_static_over_base": bg, "timeouts_ratio": to}
    fd.ours = f"fg p99 baseline ÷ static {fg}; bg mean static ÷ baseline {bg}; timeouts ×{to}"
    a, b = effect_band(1 / (1 - 0.41))
    c1, d1 = effect_band(2.13)
    e, f = effect_band(51)
    fd.judge(fg_gain=band(fg, a, b), bg_cost=band(bg, c1, d1), timeouts=band(to, e, f))


# ---------------------------------------------------------------------------------------------
# Fig 8 / Fig 11 / Table 1: the colour threshold


def plan_thresholds(c: Ctx) -> None:
    for k in c.scale.thresholds:
        _add(c, "tlt", "dctcp", k=k)
        _add(c, "tlt_pfc", "dctcp", k=k)


def _k_series(c: Ctx, v: str) -> dict[int, dict[str, list[np.ndarray]]]:
    out = {}
    for k in c.scale.thresholds:
        runs = _get(c, v, "dctcp", k=k)
        _record(c, f"dctcp {VARIANT_LABEL[v]} K = {k / 1000:g} kB", runs)
        out[k] = {"fg": _fct(runs, "foreground"), "bg": _fct(runs, "background")}
    return out


def _k_plot(c: Ctx, d: dict, title: str) -> Any:
    def plot(ax: Any) -> None:
        xs = [k / 1000 for k in d]
        lines(
            ax,
            xs,
            {
                "fg p99.9 (ms)": [_stat(P999, d[k]["fg"]).scaled(1e3) for k in d],
                "bg mean (ms)": [_stat(_mean, d[k]["bg"]).scaled(1e3) for k in d],
            },
            xlabel=f"colour threshold (kB), {title}",
            ylabel="FCT (ms)",
        )

    return plot


def eval_fig8a(c: Ctx, fd: Finding) -> None:
    d = _k_series(c, "tlt")
    ks = list(d)
    fg = _ratio(P999, d[ks[-1]]["fg"], d[ks[0]]["fg"])
    bg = _ratio(_mean, d[ks[0]]["bg"], d[ks[-1]]["bg"])
    fd.stats = {"fg_kmax_over_kmin": fg, "bg_kmin_over_kmax": bg}
    fd.ours = f"fg p99.9 K={ks[-1] / 1e3:g}k ÷ K={ks[0] / 1e3:g}k {fg}; bg mean K min ÷ K max {bg}"
    fd.judge(fg_grows_with_k=band(fg, 1.0), bg_falls_with_k=band(bg, 1.0))
    fd.plot = _k_plot(c, d, "no PFC")


def eval_fig8b(c: Ctx, fd: Finding) -> None:
    d = _k_series(c, "tlt_pfc")
    ks = list(d)
    bg = _ratio(_mean, d[ks[-1]]["bg"], d[ks[0]]["bg"])
    fd.stats = {"bg_kmax_over_kmin": bg}
    fd.ours = f"with PFC: bg mean K={ks[-1] / 1e3:g}k ÷ K={ks[0] / 1e3:g}k {bg}"
    fd.judge(bg_grows_with_k=band(bg, 1.0))
    fd.plot = _k_plot(c, d, "PFC")


def eval_fig11a(c: Ctx, fd: Finding) -> None:
    ks = [k for k in c.scale.thresholds]
    runs = {k: _get(c, "tlt", "dctcp", k=k) for k in ks}
    for k in ks:
        _record(c, f"dctcp +TLT K = {k / 1000:g} kB", runs[k])
    if not all(_has(r, "important_pkts") for r in runs.values()):
        fd.verdict, fd.ours = NA, "not available: no important-packet counters"
        return
    iv = {k: _stat(_loss_rate, _imp_frac(runs[k], "pkts")) for k in ks}
    at = iv.get(K_TCP)
    smaller = bootstrap(
        lambda u, v: _loss_rate(u) / _loss_rate(v),
        _imp_frac(runs[ks[0]], "pkts"),
        _imp_frac(runs[K_TCP], "pkts"),
    )
    fd.stats = {"important_pkt_fraction_400k": at, "frac_kmin_over_400k": smaller}
    fd.ours = "important packets / data packets: " + ", ".join(
        f"{k / 1e3:g} kB {iv[k]}" for k in ks
    )
    fd.judge(
        at_400k=band(at, 0.059 / 2, 0.059 * 2),
        more_at_smaller_k=band(smaller, 1.0),
    )

    def plot(ax: Any) -> None:
        lines(
            ax,
            [k / 1e3 for k in ks],
            {"important packets": [iv[k] for k in ks]},
            xlabel="colour threshold (kB)",
            ylabel="fraction of data packets",
        )

    fd.plot = plot


def plan_table1(c: Ctx) -> None:
    for t in TRANSPORTS:
        for fg in c.scale.table1_fg:
            for k in c.scale.table1_k:
                _add(c, "tlt", t, k=k, fg=fg)


def eval_table1(c: Ctx, fd: Finding) -> None:
    ks, fgs = c.scale.table1_k, c.scale.table1_fg
    iv, rows = {}, []
    for t in TRANSPORTS:
        for fg in fgs:
            for k in ks:
                runs = _get(c, "tlt", t, k=k, fg=fg)
                if not _has(runs, "important_drops"):
                    fd.verdict, fd.ours = NA, "not available: no important-packet counters"
                    return
                _record(c, f"{t} +TLT fg {fg:.0%} K = {k / 1e3:g} kB", runs)
                iv[(t, fg, k)] = _stat(_loss_rate, _imp_loss(runs))
                rows.append(f"{t.upper()} fg {fg:.0%} K {k / 1e3:g} kB: {iv[(t, fg, k)]}")
    fd.ours = "; ".join(rows)
    low = iv[("dctcp", fgs[0], ks[0])]
    fd.stats = {"dctcp_low": low}
    grows = all(iv[(t, fgs[-1], ks[-1])].est >= iv[(t, fgs[0], ks[0])].est for t in TRANSPORTS)
    fd.judge(
        dctcp_400k_5pct_tiny=band(low, 0, 1e-5),
        grows_with_k_and_share=exact(grows),
        worst_below_1e_2=exact(max(v.est for v in iv.values()) <= 1e-2),
    )


# ---------------------------------------------------------------------------------------------
# Fig 9b: load; Fig 10: foreground share


def plan_loads(c: Ctx) -> None:
    for x in c.scale.loads:
        for v in ("pfc", "tlt_pfc"):
            _add(c, v, "dctcp", load=x)


def eval_fig9b(c: Ctx, fd: Finding) -> None:
    ratio = {}
    for x in c.scale.loads:
        p, t = _get(c, "pfc", "dctcp", load=x), _get(c, "tlt_pfc", "dctcp", load=x)
        _record(c, f"dctcp +PFC {x:.0%}", p)
        _record(c, f"dctcp +TLT+PFC {x:.0%}", t)
        ratio[x] = _ratio(_mean, _fct(t, "background"), _fct(p, "background"))
    fd.stats = {f"bg_tltpfc_over_pfc_{x:.0%}": v for x, v in ratio.items()}
    fd.ours = "bg mean TLT+PFC ÷ PFC: " + ", ".join(f"{x:.0%} {v}" for x, v in ratio.items())
    low = [x for x in ratio if x < 0.5]
    high = [x for x in ratio if x > 0.5]
    fd.judge(
        **{f"tlt_helps_at_{x:.0%}": band(ratio[x], 0, 1.0) for x in low},
        **{f"tlt_hurts_at_{x:.0%}": band(ratio[x], 1.0) for x in high},
    )

    def plot(ax: Any) -> None:
        lines(
            ax,
            [100 * x for x in ratio],
            {"bg mean TLT+PFC ÷ PFC": list(ratio.values())},
            xlabel="load (%)",
            ylabel="ratio",
            ref=1,
        )

    fd.plot = plot


def plan_shares(c: Ctx) -> None:
    for s in c.scale.fg_shares:
        _add(c, "tlt", "dctcp", fg=s)


def eval_fig10(c: Ctx, fd: Finding) -> None:
    sh = c.scale.fg_shares
    runs = {s: _get(c, "tlt", "dctcp", fg=s) for s in sh}
    for s in sh:
        _record(c, f"dctcp +TLT fg {s:.0%}", runs[s])
    if not all(_has(r, "important_bytes") for r in runs.values()):
        fd.verdict, fd.ours = NA, "not available: no important-byte counters"
        return
    iv = {s: _stat(_loss_rate, _imp_frac(runs[s], "bytes")) for s in sh}
    up = bootstrap(
        lambda u, v: _loss_rate(u) / _loss_rate(v),
        _imp_frac(runs[sh[-1]], "bytes"),
        _imp_frac(runs[sh[0]], "bytes"),
    )
    fd.stats = {"important_volume_no_fg": iv[sh[0]], "grows": up}
    fd.ours = "important bytes / wire bytes: " + ", ".join(f"fg {s:.0%} {iv[s]}" for s in sh)
    fd.judge(no_fg=band(iv[sh[0]], 0.0329 / 2, 0.0329 * 2), grows_with_share=band(up, 1.0))

    def plot(ax: Any) -> None:
        lines(
            ax,
            [100 * s for s in sh],
            {"important volume": [iv[s] for s in sh]},
            xlabel="foreground share (%)",
            ylabel="fraction of bytes",
        )

    fd.plot = plot


# ---------------------------------------------------------------------------------------------
# Fig 15: workloads; Fig 17: clocking; Fig 18: incast degree

FIG15 = ("base", "tlp", "rto200", "tlt")


def plan_workloads(c: Ctx) -> None:
    for cdf in WORKLOADS.values():
        for x in c.scale.wl_loads:
            for t in TRANSPORTS:
                for v in FIG15:
                    _add(c, v, t, load=x, cdf=cdf)


def eval_fig15(c: Ctx, fd: Finding) -> None:
    parts, rows, table = {}, [], {}
    for wname, cdf in WORKLOADS.items():
        for x in c.scale.wl_loads:
            for t in TRANSPORTS:
                fg = {v: _fct(_get(c, v, t, load=x, cdf=cdf), "foreground") for v in FIG15}
                for v in FIG15:
                    _record(
                        c, f"{wname} {x:.0%} {t} {VARIANT_LABEL[v]}", _get(c, v, t, load=x, cdf=cdf)
                    )
                best_other = bootstrap(
                    lambda a, b, cc, d: min(P999(a), P999(b), P999(cc)) / P999(d),
                    fg["base"],
                    fg["tlp"],
                    fg["rto200"],
                    fg["tlt"],
                )
                tag = f"{wname} {x:.0%} {t}"
                table[tag] = {v: _stat(P999, fg[v]).scaled(1e3) for v in FIG15}
                parts[tag.replace(" ", "_").replace("%", "pct")] = band(best_other, 1.0)
                rows.append(f"{tag}: best other ÷ TLT {best_other}")
    fd.ours = "; ".join(rows)
    fd.judge(**parts)

    def plot(ax: Any) -> None:
        bars(
            ax,
            list(table),
            {VARIANT_LABEL[v]: [table[k][v] for k in table] for v in FIG15},
            xlabel="workload, load, transport",
            ylabel="fg p99.9 FCT (ms)",
        )
        ax.tick_params(axis="x", labelrotation=30, labelsize=6)

    fd.plot = plot


CLOCKING = ("adaptive", "mtu", "byte")


def plan_clocking(c: Ctx) -> None:
    for m in CLOCKING:
        _add(c, "tlt_pfc", "dctcp", clocking=m)


def eval_fig17(c: Ctx, fd: Finding) -> None:
    runs = {m: _get(c, "tlt_pfc", "dctcp", clocking=m) for m in CLOCKING}
    for m in CLOCKING:
        _record(c, f"dctcp +TLT+PFC clocking {m}", runs[m])
    if not all(_has(r, "clock_bytes") for r in runs.values()):
        fd.verdict, fd.ours = NA, "not available: no clock_bytes counter"
        return
    fg = {m: _fct(runs[m], "foreground") for m in CLOCKING}
    cb = {m: _per_run(runs[m], lambda r: float(r.flows["clock_bytes"].sum())) for m in CLOCKING}
    pf = {m: _per_run(runs[m], lambda r: _queues_pfc(r)[0]) for m in CLOCKING}
    slow = _ratio(P99, fg["byte"], fg["adaptive"])
    bw = _mean_ratio(cb["mtu"], cb["adaptive"], math.inf)
    pause = _mean_ratio(pf["mtu"], pf["adaptive"], math.inf)
    near = _ratio(P99, fg["adaptive"], fg["mtu"])
    fd.stats = {
        "fg_p99_byte_over_adaptive": slow,
        "clock_bytes_mtu_over_adaptive": bw,
        "pause_mtu_over_adaptive": pause,
        "fg_p99_adaptive_over_mtu": near,
    }
    fd.ours = (
        f"fg p99 1-byte ÷ adaptive {slow}; adaptive ÷ 1-MTU {near}; clocking bytes 1-MTU ÷ "
        f"adaptive {bw}; PAUSE frames 1-MTU ÷ adaptive {pause}"
    )
    a, b = effect_band(55)
    c1, d1 = effect_band(6.9)
    e, f = effect_band(1.25)
    fd.judge(
        byte_slower=band(slow, a, b),
        bandwidth=band(bw, c1, d1),
        pause=band(pause, e, f),
        adaptive_like_mtu=band(near, 2 / 3, 3 / 2),
    )


def plan_degree(c: Ctx) -> None:
    for d in c.scale.degrees:
        for v in ("base", "pfc", "tlt"):
            _add(c, v, "tcp", degree=d)


def eval_fig18(c: Ctx, fd: Finding) -> None:
    ds = c.scale.degrees
    fg = {}
    for d in ds:
        for v in ("base", "pfc", "tlt"):
            runs = _get(c, v, "tcp", degree=d)
            _record(c, f"tcp {VARIANT_LABEL[v]} {d} flows/host", runs)
            fg[(v, d)] = _fct(runs, "foreground")
    hi = ds[-1]
    g = _ratio(P999, fg[("base", hi)], fg[("tlt", hi)])
    best = bootstrap(
        lambda a, b, t: min(P999(a), P999(b)) / P999(t),
        fg[("base", hi)],
        fg[("pfc", hi)],
        fg[("tlt", hi)],
    )
    fd.stats = {"tcp_base_over_tlt_at_max_degree": g, "best_other_over_tlt": best}
    fd.ours = f"at {hi} flows/host: TCP baseline ÷ TLT fg p99.9 {g}; best other ÷ TLT {best}"
    lo, up = effect_band(1 / (1 - 0.67))
    fd.judge(gain=band(g, lo, up), tlt_best=band(best, 1.0))

    def plot(ax: Any) -> None:
        lines(
            ax,
            list(ds),
            {
                VARIANT_LABEL[v]: [_stat(P999, fg[(v, d)]).scaled(1e3) for d in ds]
                for v in ("base", "pfc", "tlt")
            },
            xlabel="foreground flows per sender",
            ylabel="fg p99.9 FCT (ms)",
        )

    fd.plot = plot


# ---------------------------------------------------------------------------------------------
# §4.2: the shared-buffer calculation


def eval_analysis(c: Ctx, fd: Finding) -> None:
    a = buffer_room(12e6, 1.0, 16, 400e3)
    fd.ours = (
        f"per-port share {a['share'] / 1e3:.2f} kB, room {a['room'] / 1e3:.2f} kB, "
        f"{a['flows_per_port']} flows/port, {a['flows_total']} total; single port "
        f"{a['single_room'] / 1e6:.1f} MB → {a['single_flows']} flows"
    )
    fd.judge(
        share=exact(round(a["share"] / 1e3, 2) == 705.88),
        room=exact(round(a["room"] / 1e3, 2) == 305.88),
        per_port=exact(a["flows_per_port"] == 203),
        total=exact(a["flows_total"] == 3248),
        single=exact(a["single_flows"] == 3733),
    )
