"""C3 reproduction: the figures on the small topologies, each a deterministic flow list
run once (one seed; the intervals resample flows).

Owns C3-MOTIV-BASE on the motivation dumbbell (Figs 2b–2f, 3a–c: ElasticSwitch, strict
priority and WFQ reconfiguration without C3, and Fig2c/Fig2d's C3 arms), Fig 5 (the testbed
as a simulated star) and Fig 10 (the bursty dumbbell, with C3's two-queue variant): their
plan and evaluate functions and the class builders they share.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..framework import HOLDS, Ctx, Finding, band, bars, effect_band, exact, lines
from .metrics import (
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
    fcts_both,
    goodput_bins,
    goodput_series,
    ls_base,
    ls_rtts,
    mean_iv,
    misses,
    ratio_iv,
)
from .notes import FIG2C_C3_NOTE, _c3_note, _measured_note
from .scenario import FRAME, cls, long_flows, ls_flows, motiv, payload, rounds, star

# ---------------------------------------------------------------------------------------------
# C3-MOTIV-BASE: Figs 2b–2f, 3a–c


def _motiv_ms(c: Ctx) -> float:
    return 20.0 * c.scale.motiv_rounds + 20.0


def ts_cls(mode: str, name: str = "ts", src: int = 0, n: int = 2, g: str = "250Mbps") -> dict:
    return cls(name, "ts", mode, long_flows(src, src + 4, n), guarantee=g)


def ds_cls(mode: str, c: Ctx, start_ms: float = 0.0, src: int = 2, **kw: Any) -> dict:
    return cls("ds", "ds", mode, rounds([src], src + 4, c.scale.motiv_rounds, 20.0, start_ms), **kw)


def ps_cls(mode: str, c: Ctx, src: int = 3, start_ms: float = 0.0, **kw: Any) -> dict:
    fl = rounds([src], src + 4, c.scale.motiv_rounds, 20.0, start_ms, deadlines=False)
    return cls("ps", "ps", mode, fl, **kw)


def ls_cls(mode: str, c: Ctx, n: int = 7, g: str = "57Mbps", **kw: Any) -> dict:
    """C3-Fig2c: seven 2 KB flows evenly spaced in every 2 ms; under ElasticSwitch each has
    400/7 Mb/s of the class's 400 Mb/s guarantee."""
    return cls("ls", "ls", mode, ls_flows(1, 5, n, 2000.0, _motiv_ms(c)), guarantee=g, **kw)


def plan_fig2b(c: Ctx) -> None:
    classes = [ts_cls("es", "ts1", n=1), ts_cls("es", "ts2", n=1)]
    c.add(("2b",), motiv(500, classes, "es", 100), {}, 1)


def blocks(x: np.ndarray, n: int) -> np.ndarray:
    """Means of consecutive blocks of ``n`` samples (a trailing partial block dropped)."""
    m = len(x) // n
    return x[: m * n].reshape(m, n).mean(axis=1)


def eval_fig2b(c: Ctx, fd: Finding) -> None:
    r = c.get(("2b",))
    c.point("Base-TS, 500 Mb/s", [r], len(r.flows))
    ref = payload(250e6, False)
    # ElasticSwitch guarantees a VM pair (spec §4.5; ES §4.1) and both flows run SRC1 →
    # DST1, so the limiter holds the pair's 500 Mb/s of frames (wire bytes, no tunnel) and
    # the two DCTCP flows share it inside. Judged: the pair's wire rate per 5 ms control
    # interval (what the limiter guarantees) and each flow's payload goodput in 5 ms blocks
    # of its 1 ms bins (the flows' windows cut in antiphase every few ms, so 1 ms bins swing
    # between about 100 and 360 Mb/s while their sum stays at the link's payload rate).
    ps = r.pipe_samples
    pair = ps[ps.t_s > 0.02 + 1e-12].sent_bps.to_numpy(float)
    pair_iv = mean_iv([pair])
    raw = {k: goodput_bins(r, k, 0.02) for k in ("ts1", "ts2")}
    ivs = {k: mean_iv([blocks(v, 5)]) for k, v in raw.items()}
    below = {k: float(np.mean(v < 0.9 * ref)) for k, v in raw.items()}
    fd.stats = {
        "pair_wire_mbps": pair_iv.scaled(1e-6),
        **{f"{k}_mbps": iv.scaled(1e-6) for k, iv in ivs.items()},
        **{f"{k}_1ms_bins_below_90pct": _pt(v) for k, v in below.items()},
    }
    fd.ours = (
        f"pair (both flows, one ElasticSwitch limiter) {pair_iv.scaled(1e-6)} Mb/s of frames; "
        + "; ".join(f"{k} {iv.scaled(1e-6)} Mb/s" for k, iv in ivs.items())
        + f" of payload per 5 ms (250 Mb/s of frames = {ref / 1e6:.0f} Mb/s of payload); "
        + ", ".join(f"{k} below 90% in {v:.0%}" for k, v in below.items())
        + " of 1 ms bins"
    )
    fd.judge(
        pair_at_guarantee=band(pair_iv, 0.9 * 500e6, 1.1 * 500e6),
        **{f"{k}_at_guarantee": band(iv, 0.9 * ref, 1.1 * ref) for k, iv in ivs.items()},
    )

    def plot(ax: Any) -> None:
        for k in ivs:
            t, g = goodput_series(r, k)
            ax.plot(t * 1e3, g / 1e6, label=k, lw=0.8)
        ax.axhline(ref / 1e6, color="k", lw=0.8)
        ax.set_xlabel("time (ms)")
        ax.set_ylabel("goodput (Mb/s, 1 ms)")
        ax.legend(fontsize=8)

    fd.plot = plot


def plan_fig2c(c: Ctx) -> None:
    ms = _motiv_ms(c)
    c.add(("2c", "alone"), motiv(500, [ls_cls("es", c)], "es", ms), {}, 1)
    c.add(("2c", "ds"), motiv(1000, [ls_cls("es", c), ds_cls("es", c)], "es", ms), {}, 1)
    # The must-show's "with C3 the LS RTT inflation drops": the same under C3 (LS and DS
    # pipes), with the printed Eq. 1 and its additive reading (spec §5.3.3 [CHOICE]).
    for v in ("paper", "additive"):
        sc = motiv(1000, [ls_cls("c3", c), ds_cls("c3", c)], "c3", ms)
        sc["scheme"]["variant"] = v
        c.add(("2c", "c3", v), sc, {}, 1)


def eval_fig2c(c: Ctx, fd: Finding) -> None:
    a = c.get(("2c", "alone"))
    b = c.get(("2c", "ds"))
    c.point("Base-LS, 500 Mb/s", [a], len(a.flows))
    c.point("Coexist-LS/DS, 1000 Mb/s", [b], len(b.flows))
    la, lb = ls_rtts(a), ls_rtts(b)
    ideal = ls_base(a)
    mean_a = mean_iv([la])
    rm = ratio_iv([lb], [la])
    rt = _iv(lambda x, y: float(np.quantile(x, 0.99) / np.quantile(y, 0.99)), [lb], [la])
    fd.stats = {
        "ls_rtt_alone_s": mean_a,
        "mean_ratio": rm,
        "p99_ratio": rt,
        "var_ratio": _pt(np.var(lb) / np.var(la)),
    }
    fd.ours = (
        f"LS RTT alone {_ms(mean_a)} (unloaded {ideal * 1e3:.3f} ms); with DS mean ×{rm}, "
        f"p99 ×{rt}, variance ×{np.var(lb) / np.var(la):.3g}"
    )
    for v in ("paper", "additive"):
        rc = c.get(("2c", "c3", v))
        c.point(f"C3 LS/DS ({v} Eq. 1), 1000 Mb/s", [rc], len(rc.flows))
        lc = ls_rtts(rc)
        cm = ratio_iv([lc], [la])
        ct = _iv(lambda x, y: float(np.quantile(x, 0.99) / np.quantile(y, 0.99)), [lc], [la])
        fd.stats[f"c3_{v}_mean_ratio"] = cm
        fd.stats[f"c3_{v}_p99_ratio"] = ct
        fd.ours += f"; with C3 ({v} Eq. 1, not judged) mean ×{cm}, p99 ×{ct}"
    fd.judge(
        alone_near_base_rtt=band(mean_a, 0.0, 1.25 * ideal),
        mean_up_80pct=band(rm, at_least(1.8)),
        tail_up_300pct=band(rt, at_least(4.0)),
    )
    if fd.verdict != HOLDS:
        fd.note = (
            fd.note + " Measured at reduced scale: with the initial window of 10 used before "
            "(not C3's 2) the DS rounds' first windows and spurious timeouts raised the LS "
            "round trip to mean x1.71 and p99 x4.23; with 2 the bottleneck queue stays below "
            "about 50 frames. Not tuned."
        ).strip()
    fd.note = (fd.note + " " + FIG2C_C3_NOTE).strip()

    def plot(ax: Any) -> None:
        for lab, r in (("Base-LS", a), ("Coexist-LS/DS", b)):
            f = _flows(r, "ls")
            f = f[f.completed]
            ax.plot(f.start_s * 1e3, (f.sender_done_s - f.start_s) * 1e6, ".", ms=2, label=lab)
        ax.axhline(300, color="k", lw=0.8)
        ax.set_xlabel("flow start (ms)")
        ax.set_ylabel("LS RTT (µs)")
        ax.legend(fontsize=8)

    fd.plot = plot


FIG2D = {
    "Base-DS": (500, ("ds",), "es"),
    "Coexist-TS/DS": (1000, ("ts", "ds"), "es"),
    "Coexist-TS/DS/PS": (1500, ("ts", "ds", "ps"), "es"),
    "C3 TS/DS/PS": (1500, ("ts", "ds", "ps"), "c3"),
}


def _join_ms(c: Ctx, objs: Sequence[str]) -> float:
    """When the DS (and PS) rounds start: with TS in the run, after ``motiv_join_ms`` of TS
    alone (C3 §2.2, Coexist-TS/DS: "the two TS flows start at 0 sec and all the DS flows
    start at 0.5 sec"; Fig 2e/f show that run. [CHOICE] the TS/DS/PS runs, for which the
    paper gives no times, follow the same timeline, PS starting with DS); without TS, at 0."""
    return float(c.scale.motiv_join_ms) if "ts" in objs else 0.0


def _motiv_classes(objs: Sequence[str], mode: str, c: Ctx) -> list[dict[str, Any]]:
    t0 = _join_ms(c, objs)
    out = []
    for o in objs:
        out.append(
            {
                "ts": lambda: ts_cls(mode),
                "ds": lambda: ds_cls(mode, c, start_ms=t0),
                "ps": lambda: ps_cls(mode, c, start_ms=t0),
            }[o]()
        )
    return out


def first_round(res: Any, name: str = "ds") -> np.ndarray:
    """Per flow of the class's first round (the flows that start first): 1 if it missed its
    deadline. C3's Fig 2d shows the ten flows of one round; in Coexist-TS/DS the round that
    arrives on TS alone at 0.5 s (Fig 2e: "after 0.516 second" five DS flows are left)."""
    f = _flows(res, name)
    first = (f.start_s <= f.start_s.min() + 1e-12).to_numpy(bool)
    return misses(res, name)[first]


def limiter_at_join(res: Any, join_ms: float) -> float:
    """The TS pair's ElasticSwitch rate (b/s) at the last control interval up to ``join_ms``,
    when DS joins; NaN if the run has no pipe sample by then."""
    ps = res.pipe_samples
    before = ps[ps.t_s <= join_ms / 1e3 + 1e-12]
    return float(before.rate_bps.iloc[-1]) if len(before) else math.nan


#: Fig2d's second reading of Eq. 1 (spec §5.3.3 "Ambiguities [CHOICE]": the text calls it
#: "weighted additive increase"): the C3 run again with ``scheme.variant = "additive"``.
FIG2D_ADDITIVE = "C3 TS/DS/PS, additive Eq. 1"


def fig2d_scenario(c: Ctx, key: str) -> dict[str, Any]:
    if key == FIG2D_ADDITIVE:
        sc = fig2d_scenario(c, "C3 TS/DS/PS")
        sc["scheme"]["variant"] = "additive"
        return sc
    cap, objs, mode = FIG2D[key]
    t0 = _join_ms(c, objs)
    return motiv(cap, _motiv_classes(objs, mode, c), mode, t0 + _motiv_ms(c))


def plan_fig2d(c: Ctx) -> None:
    for k in (*FIG2D, FIG2D_ADDITIVE):
        c.add(("2d", k), fig2d_scenario(c, k), {}, 1)
    c.add(("2d", "Base-PS"), motiv(500, [ps_cls("es", c)], "es", _motiv_ms(c)), {}, 1)


def eval_fig2d(c: Ctx, fd: Finding) -> None:
    # Judged: the first round's ten flows (what the paper's Fig 2d shows; see `first_round`);
    # every round's misses are reported beside them.
    m, m_all = {}, {}
    for k in FIG2D:
        r = c.get(("2d", k))
        m[k], m_all[k] = first_round(r), misses(r)
        c.point(k, [r], len(m_all[k]))
    ra = c.get(("2d", FIG2D_ADDITIVE))
    add, add_all = first_round(ra), misses(ra)
    c.point(FIG2D_ADDITIVE, [ra], len(add_all))
    bp = c.get(("2d", "Base-PS"))
    c.point("Base-PS", [bp], len(bp.flows))
    afct = mean_iv([fcts(bp, "ps")])
    ps3 = mean_iv([fcts(c.get(("2d", "Coexist-TS/DS/PS")), "ps")])
    iv = {k: mean_iv([v]) for k, v in m.items()}
    iv_all = {k: mean_iv([v]) for k, v in m_all.items()}
    d1 = diff_iv([m["Coexist-TS/DS"]], [m["Base-DS"]])
    d2 = diff_iv([m["Coexist-TS/DS/PS"]], [m["Coexist-TS/DS"]])
    d3 = diff_iv([m["Coexist-TS/DS/PS"]], [m["C3 TS/DS/PS"]])
    add_iv = mean_iv([add])
    fd.stats = {
        **{f"miss_{k}": v for k, v in iv.items()},
        **{f"miss_all_rounds_{k}": v for k, v in iv_all.items()},
        "miss_c3_additive": add_iv,
        "base_ps_afct_s": afct,
    }
    join = float(c.scale.motiv_join_ms)
    fd.ours = (
        f"first round (with TS: the round that arrives at {join:g} ms on TS alone): "
        + "; ".join(f"{k} {int(m[k].sum())} of {len(m[k])} late" for k in FIG2D)
        + "; every round: "
        + "; ".join(f"{k} {_pct(v)}" for k, v in iv_all.items())
        + f"; Base-PS AFCT {_ms(afct)} (TS/DS/PS: {_ms(ps3)}); second reading, "
        f"{FIG2D_ADDITIVE}: {int(add.sum())} of {len(add)} late in the first round, "
        f"{_pct(mean_iv([add_all]))} in all (not judged)"
    )
    fd.judge(
        alone_meets=band(iv_all["Base-DS"], -math.inf, 0.05),
        ts_adds_misses=band(d1, 1e-9),
        ps_adds_more=band(d2, 1e-9),
        c3_fewer=band(d3, 1e-9),
        base_ps_afct_within_2x=band(afct, 17.64e-3 / 2, 17.64e-3 * 2),
    )
    base = _flows(c.get(("2d", "Base-DS")), "ds")
    late = base[misses(c.get(("2d", "Base-DS"))) > 0]
    by = (late.finish_s - late.deadline_s).max() * 1e3 if len(late) else 0.0

    def limiter_mbps(k: str) -> str:
        return f"{limiter_at_join(c.get(('2d', k)), join) / 1e6:.0f}"

    per = ", ".join(
        f"{k} {int(_flows(c.get(('2d', k)), 'ds').rto_count.sum())} timeouts, max queue "
        f"{bottleneck_queue(c.get(('2d', k)))[1].max() / FRAME:.0f} pkts"
        for k in FIG2D
    )
    _c3_note(
        fd,
        f"Base-DS: {len(late)} of {len(base)} DS flows late ("
        f"{', '.join(sorted({f'{x / 1e3:.0f} KB' for x in late['size']}))}), by at most "
        f"{by:.2f} ms. A round (1150 KB in 20 ms) needs 97% of 500 Mb/s in payload (1460 of "
        "1538 B per frame), and D2TCP as specified (d = T_c / D, spec §4.3) makes the 138 KB "
        "flows the more imminent ones at the start (138 KB / 20 ms > 92 KB / 16 ms), so the "
        "92 KB flows get less than a fair share; with d fixed at 1 (DCTCP) none is late "
        "(measured, see report). With TS: the TS pair's ElasticSwitch limiter runs at "
        f"{limiter_mbps('Coexist-TS/DS')} Mb/s (TS/DS) and "
        f"{limiter_mbps('Coexist-TS/DS/PS')} Mb/s (TS/DS/PS) when DS joins (its guarantee: "
        "500; it grows while TS is alone); ES halves it at most once per 5 ms marked "
        "interval and never below the guarantee, so while it is above the guarantee the DS "
        "rounds get less than the link minus the guarantee (the cause of the first round's "
        "misses, confirmed by one change: see report). Per run: "
        f"{per}. Class goodput (Mb/s) "
        f"of TS/DS/PS without C3: {class_means(c.get(('2d', 'Coexist-TS/DS/PS')))}; with C3: "
        f"{class_means(c.get(('2d', 'C3 TS/DS/PS')))}; with C3, additive Eq. 1: "
        f"{class_means(c.get(('2d', FIG2D_ADDITIVE)))}.",
    )

    def plot(ax: Any) -> None:
        ivs = {**iv, "C3, additive": add_iv}
        bars(
            ax,
            list(ivs),
            {"deadline-miss ratio, first round": list(ivs.values())},
            xlabel="",
            ylabel="missed",
        )

    fd.plot = plot


def plan_fig2ef(c: Ctx) -> None:
    t0 = c.scale.ef_start_ms
    ms = t0 + 20.0 * c.scale.ef_rounds + 20
    ds = cls("ds", "ds", "es", rounds([2], 6, c.scale.ef_rounds, 20.0, t0))
    c.add(("2ef",), motiv(1000, [ts_cls("es"), ds], "es", ms), {}, 1)


def eval_fig2ef(c: Ctx, fd: Finding) -> None:
    r = c.get(("2ef",))
    c.point("Coexist-TS/DS, 1000 Mb/s", [r], len(r.flows))
    t0 = c.scale.ef_start_ms / 1e3
    t1 = t0 + 0.02 * c.scale.ef_rounds
    ref = payload(500e6, False)
    alone = goodput_bins(r, "ts", 0.01, t0)
    during = goodput_bins(r, "ts", t0, t1)
    qt, qb = bottleneck_queue(r)
    q_before = float(qb[(qt > 0.01) & (qt <= t0)].max())
    q_during = float(qb[(qt > t0) & (qt <= t1)].max())
    below = float(np.mean(during < 0.9 * ref))
    fd.stats = {
        "ts_alone_mbps": mean_iv([alone]).scaled(1e-6),
        "ts_min_during_ds_mbps": _pt(during.min() / 1e6),
        "bins_below_guarantee": mean_iv([(during < 0.9 * ref).astype(float)]),
        "queue_before_kb": _pt(q_before / 1e3),
        "queue_during_kb": _pt(q_during / 1e3),
    }
    fd.ours = (
        f"TS alone {alone.mean() / 1e6:.0f} Mb/s; during DS rounds min {during.min() / 1e6:.0f}"
        f" Mb/s, {below:.0%} of 1 ms bins below 90% of the 500 Mb/s guarantee "
        f"({ref / 1e6:.0f} Mb/s payload); max queue {q_before / 1e3:.1f} KB before, "
        f"{q_during / 1e3:.1f} KB during"
    )
    fd.judge(
        ts_dips_below_guarantee=exact(during.min() < 0.9 * ref),
        queue_spikes=exact(q_during >= 2 * max(q_before, 1538)),
    )
    _measured_note(fd)

    def plot(ax: Any) -> None:
        t, g = goodput_series(r, "ts")
        ax.plot(t * 1e3, g / 1e6, lw=0.8, label="TS goodput (Mb/s)")
        ax.plot(qt * 1e3, qb / 1e3 * 10, lw=0.8, label="queue (KB × 10)")
        ax.axhline(ref / 1e6, color="k", lw=0.8)
        ax.axvline(t0 * 1e3, color="grey", lw=0.6, ls="--")
        ax.set_xlabel("time (ms)")
        ax.legend(fontsize=8)

    fd.plot = plot


def plan_fig3ab(c: Ctx) -> None:
    ms = _motiv_ms(c)
    for hi in ("ts", "ds"):
        ts = ts_cls("es")
        ds = ds_cls("es", c)
        ts["priority"], ds["priority"] = (0, 1) if hi == "ts" else (1, 0)
        c.add(("3ab", hi), motiv(1000, [ts, ds], "es", ms, queues=2), {}, 1)


def eval_fig3ab(c: Ctx, fd: Finding) -> None:
    a = c.get(("3ab", "ts"))  # TS high, DS low
    b = c.get(("3ab", "ds"))  # DS high, TS low
    c.point("TS high / DS low", [a], len(a.flows))
    c.point("DS high / TS low", [b], len(b.flows))
    ref = payload(500e6, False)
    ds_low, ds_high = mean_iv([misses(a)]), mean_iv([misses(b)])
    p5 = lambda x: float(np.quantile(x, 0.05))  # noqa: E731
    ts_low = _iv(p5, [goodput_bins(b, "ts", 0.01)])
    ts_high = _iv(p5, [goodput_bins(a, "ts", 0.01)])
    fd.stats = {
        "ds_miss_low": ds_low,
        "ds_miss_high": ds_high,
        "ts_p5_low_mbps": ts_low.scaled(1e-6),
        "ts_p5_high_mbps": ts_high.scaled(1e-6),
    }
    fd.ours = (
        f"(a) DS misses {_pct(ds_low)} when low, {_pct(ds_high)} when high; (b) TS 5th "
        f"percentile of 1 ms goodput {ts_low.scaled(1e-6)} Mb/s when low, "
        f"{ts_high.scaled(1e-6)} when high (guarantee {ref / 1e6:.0f} Mb/s payload)"
    )
    fd.judge(
        ds_low_misses=band(ds_low, 0.1),
        ts_low_below_guarantee=band(ts_low, -math.inf, 0.9 * ref),
    )

    def plot(ax: Any) -> None:
        for lab, r in (("TS high", a), ("TS low", b)):
            t, g = goodput_series(r, "ts")
            ax.plot(t * 1e3, g / 1e6, lw=0.8, label=lab)
        ax.axhline(ref / 1e6, color="k", lw=0.8)
        ax.set_xlabel("time (ms)")
        ax.set_ylabel("TS goodput (Mb/s)")
        ax.legend(fontsize=8)

    fd.plot = plot


def fig3c_scenario(c: Ctx, old: float, delay_ms: float) -> dict[str, Any]:
    """TS in queue 0, DS in queue 1 under DRR with TS:DS = old:1; the operator asks for 1:1
    when the DS application starts (20 ms) and the switch applies it after ``delay_ms``."""
    t0 = 20.0
    ts = ts_cls("es")
    ds = cls("ds", "ds", "es", rounds([2], 6, c.scale.motiv_rounds, 20.0, t0))
    ts["priority"], ds["priority"] = 0, 1
    sched = {
        "kind": "drr",
        "weights": [old, 1.0],
        "reconfigure": {"at": f"{t0:g}ms", "weights": [1.0, 1.0], "delay": f"{delay_ms:g}ms"},
    }
    return motiv(1000, [ts, ds], "es", t0 + _motiv_ms(c), queues=2, sched=sched)


def plan_fig3c(c: Ctx) -> None:
    for old in c.scale.fig3c_old:
        for d in c.scale.fig3c_delay_ms:
            c.add(("3c", old, d), fig3c_scenario(c, old, d), {}, 1)


def eval_fig3c(c: Ctx, fd: Finding) -> None:
    olds, ds = list(c.scale.fig3c_old), list(c.scale.fig3c_delay_ms)
    n = np.zeros((len(olds), len(ds)))
    for i, o in enumerate(olds):
        for j, d in enumerate(ds):
            r = c.get(("3c", o, d))
            n[i, j] = misses(r).sum()
            c.point(f"old {o:g}:1, delay {d:g} ms", [r], len(r.flows))
    mono_d = bool(np.all(np.diff(n, axis=1) >= 0))
    mono_o = bool(np.all(np.diff(n[:, 1:], axis=0) >= 0)) if len(ds) > 1 else True
    fd.stats = {"misses_max": _pt(n.max()), "misses_min": _pt(n.min())}
    fd.ours = (
        "DS misses (rows old TS:DS, columns delay ms " + ", ".join(f"{d:g}" for d in ds) + "): "
    )
    fd.ours += "; ".join(
        f"{o:g}:1 → " + ", ".join(f"{int(x)}" for x in n[i]) for i, o in enumerate(olds)
    )
    fd.judge(
        grows_with_delay=exact(mono_d),
        grows_with_weight_gap=exact(mono_o),
        some_effect=exact(n.max() > n.min()),
    )
    _measured_note(fd)

    def plot(ax: Any) -> None:
        lines(
            ax,
            ds,
            {f"old {o:g}:1": [_pt(x) for x in n[i]] for i, o in enumerate(olds)},
            xlabel="configuration delay (ms)",
            ylabel="DS flows missing deadlines",
        )

    fd.plot = plot


# ---------------------------------------------------------------------------------------------
# Fig 5 (testbed → star) and Fig 10 (dumbbell, bursty)


#: C3-Fig5's DS/PS rounds: ten flows, half size of Fig 2d's (aggregate ≈ 250 Mb/s over the
#: 16–20 ms deadlines) [CHOICE], every ``fig5_period_ms`` (paper: 0.5 s, shortened).
HALF_ROUND = (("46KB", "16ms"),) * 5 + (("69KB", "20ms"),) * 5


def plan_fig5(c: Ctx) -> None:
    n, p = c.scale.fig5_rounds, c.scale.fig5_period_ms
    for mode in ("es", "c3"):
        classes = [
            cls("ts", "ts", mode, long_flows(0, 5, 2), guarantee="200Mbps"),
            cls("ds", "ds", mode, rounds([1, 2], 5, n, p, shape=HALF_ROUND)),
            cls("ps", "ps", mode, rounds([3, 4], 5, n, p, deadlines=False, shape=HALF_ROUND)),
        ]
        c.add(("5", mode), star(classes, mode, n * p + 20), {}, 1)


def eval_fig5(c: Ctx, fd: Finding) -> None:
    a, b = c.get(("5", "es")), c.get(("5", "c3"))
    c.point("without C3", [a], len(a.flows))
    c.point("with C3", [b], len(b.flows))
    pa, pb, n, m = fcts_both([a], [b], "ps")
    gain = ratio_iv(pa, pb)
    ma, mb = mean_iv([misses(a)]), mean_iv([misses(b)])
    ts = ratio_iv([goodput_bins(b, "ts", 0.01)], [goodput_bins(a, "ts", 0.01)])
    fd.stats = {"ps_afct_gain": gain, "ds_miss_es": ma, "ds_miss_c3": mb, "ts_c3_over_es": ts}
    fd.ours = (
        f"PS AFCT without/with C3 ×{gain} ({n} of {m} PS flows finished in both); DS misses "
        f"{_pct(ma)} → {_pct(mb)}; TS goodput "
        f"with/without C3 ×{ts}"
    )
    fd.judge(
        ps_afct_4x=band(gain, *effect_band(4.0)),
        ds_no_misses_with_c3=band(mb, -math.inf, 0.02),
        ts_unchanged=band(ts, 0.9, 1.1),
    )
    _c3_note(
        fd,
        f"Class goodput (Mb/s) without C3: {class_means(a)}; with C3: {class_means(b)}.",
    )

    def plot(ax: Any) -> None:
        bars(
            ax,
            ["PS AFCT gain", "DS miss w/o", "DS miss C3", "TS C3/ES"],
            {"without vs with C3": [gain, ma, mb, ts]},
            xlabel="",
            ylabel="value",
        )

    fd.plot = plot


FIG10_MODES = ("es", "c3", "c3-2q")


def fig10_scenario(c: Ctx, mode: str) -> dict[str, Any]:
    """Four categories from four source hosts, 500 Mb/s minimum each, on a 2 Gb/s core:
    TS 2 × 250 Mb/s; DS ten D2TCP flows per 20 ms round; PS ten L2DCT flows per round;
    LS ten 2 KB flows every 2 ms [CHOICE, spec C3-Fig10]. ``c3-2q``: LS in the strict
    high-priority switch queue (class priority 0 of 2 queues), the rest below."""
    n = c.scale.motiv_rounds
    ms = 20.0 * n + 20
    m = "es" if mode == "es" else "c3"
    lo = 1 if mode == "c3-2q" else 0
    classes = [
        cls("ts", "ts", m, long_flows(0, 4, 2), guarantee="250Mbps", priority=lo),
        cls("ds", "ds", m, rounds([1], 5, n, 20.0), priority=lo),
        cls("ps", "ps", m, rounds([2], 6, n, 20.0, deadlines=False), priority=lo),
        cls("ls", "ls", m, ls_flows(3, 7, 10, 2000.0, ms), guarantee="50Mbps", priority=0),
    ]
    return motiv(2000, classes, m, ms, queues=2 if mode == "c3-2q" else 1)


def plan_fig10(c: Ctx) -> None:
    for mode in FIG10_MODES:
        c.add(("10", mode), fig10_scenario(c, mode), {}, 1)


def eval_fig10(c: Ctx, fd: Finding) -> None:
    rs = {m: c.get(("10", m)) for m in FIG10_MODES}
    for m, r in rs.items():
        c.point(m, [r], len(r.flows))
    ideal = ls_base(rs["c3"])
    rtt = {m: mean_iv([ls_rtts(r)]) for m, r in rs.items()}
    miss = {m: mean_iv([misses(r)]) for m, r in rs.items()}
    afct = {m: mean_iv([fcts(r, "ps")]) for m, r in rs.items()}
    ref = payload(500e6, True)
    below = {
        m: mean_iv([(goodput_bins(r, "ts", 0.02) < 0.9 * ref).astype(float)]) for m, r in rs.items()
    }
    fd.stats = {
        **{f"ls_rtt_{m}_s": v for m, v in rtt.items()},
        **{f"ds_miss_{m}": v for m, v in miss.items()},
        **{f"ps_afct_{m}_s": v for m, v in afct.items()},
        **{f"ts_bins_below_{m}": v for m, v in below.items()},
    }
    fd.ours = (
        "; ".join(
            f"{m}: LS RTT {_ms(rtt[m])}, DS misses {_pct(miss[m])}, PS AFCT {_ms(afct[m])}, "
            f"TS bins below guarantee {_pct(below[m])}"
            for m in FIG10_MODES
        )
        + f" (unloaded LS RTT {ideal * 1e3:.3f} ms)"
    )
    fd.judge(
        rtt_es_above_c3=band(diff_iv([ls_rtts(rs["es"])], [ls_rtts(rs["c3"])]), 1e-9),
        rtt_c3_above_2q=band(diff_iv([ls_rtts(rs["c3"])], [ls_rtts(rs["c3-2q"])]), 1e-9),
        two_queue_near_base=band(rtt["c3-2q"], 0.0, 1.25 * ideal),
        ts_meets_guarantee_c3=band(below["c3"], -math.inf, 0.05),
        ds_misses_c3_low=band(miss["c3"], -math.inf, 0.02),
        ps_afct_c3_within_2x=band(afct["c3"], 17.34e-3 / 2, 17.34e-3 * 2),
    )
    _c3_note(
        fd,
        "Class goodput (Mb/s): "
        + "; ".join(f"{m}: {class_means(r, 0.02)}" for m, r in rs.items())
        + ".",
    )

    def plot(ax: Any) -> None:
        for m, r in rs.items():
            f = _flows(r, "ls")
            f = f[f.completed]
            ax.plot(f.start_s * 1e3, (f.sender_done_s - f.start_s) * 1e6, ".", ms=2, label=m)
        ax.set_xlabel("flow start (ms)")
        ax.set_ylabel("LS RTT (µs)")
        ax.legend(fontsize=8)

    fd.plot = plot
