"""Reproduction of Bashir, Faisal, Dogar — "Characterizing TCP's Performance for Low-Priority
Flows Inside a Cloud" (LPF; paper 000, spec experiments LPF-Fig2a … LPF-Fig11).

Every figure is run from the shipped presets (``lpf_colocation``, ``lpf_das``, ``lpf_sjf``,
``lpf_hybrid``: LPF §3 defaults) with overrides, at a reduced scale by default (two seeds, short
runs; minutes on two cores) or at paper scale with ``full=True`` (three seeds, ≥ 5,000
low-priority flows per point as the spec suggests). Output under ``out_dir``:

* ``runs/<hash>/`` — one cached run per distinct scenario (shared between figures, so a rerun
  only simulates what is missing);
* ``figures/LPF-*.png`` — one plot per figure;
* ``report.md`` / ``report.csv`` — per figure: the paper's quoted value, ours, and whether the
  paper's qualitative finding holds, with a note where it does not.

Figures that need a mechanism the simulator does not accept yet (Near-Opt, TCP+, LEDBAT,
TCP-LP) are checked with :func:`dcnsim.validate` at run time and reported as
"not yet available: <reason>" — never approximated. Nothing here is tuned to hit the paper's
numbers: every setting is the paper's or a recorded [CHOICE] of the spec.

The Near-Opt baseline replaces TCP for the **low-priority** flows only (LPF §3 "Baseline"). In
the co-location and hybrid cases those flows are a class of their own; in DAS and SJF one
workload feeds both priorities, so the Near-Opt run replays the TCP run's exact flows (same
sources, destinations, sizes and start times) as two explicit flow lists, high priority over
TCP and low priority over Near-Opt, and flows are matched by (src, dst, size, start).
"""

from __future__ import annotations

import copy
import math
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .. import config
from ..errors import ConfigError
from ..results import Results
from ..results import load as load_results
from ..sweep import SweepRun, execute

TITLE = (
    "Bashir, Faisal, Dogar — Characterizing TCP's Performance for Low-Priority Flows "
    "Inside a Cloud (LPF)"
)

#: LPF §3 flow classes: small < 50 KB, medium 50 KB – 1 MB, long > 1 MB.
LPF_EDGES = (0.0, 50_000.0, 1_000_000.0, math.inf)
BUCKETS = ("small", "medium", "long")
LINK_BPS = 10e9


@dataclass(frozen=True)
class Scale:
    """Run lengths (simulated seconds) and seeds of one reproduction scale."""

    seeds: tuple[int, ...]
    coloc_s: float  # co-location (Figs 4, 7–11)
    fig2_s: float  # 9-node motivation (Fig 2)
    das_s: float  # per 128 KB mean; larger means run proportionally longer
    sjf_s: float
    hybrid_s: float


REDUCED = Scale(seeds=(1, 2), coloc_s=1.0, fig2_s=3.0, das_s=0.1, sjf_s=0.3, hybrid_s=0.3)
FULL = Scale(seeds=(1, 2, 3), coloc_s=2.0, fig2_s=6.0, das_s=0.4, sjf_s=1.5, hybrid_s=1.0)
#: For the CI test: the smallest runs that still show the shapes.
TINY = Scale(seeds=(1,), coloc_s=0.4, fig2_s=1.5, das_s=0.03, sjf_s=0.08, hybrid_s=0.08)


# ---------------------------------------------------------------------------------------------
# mechanisms: which optional transports / schemes the core accepts


def _probe(overrides: dict[str, Any]) -> str | None:
    """None if the co-location preset with ``overrides`` validates, else the reason."""
    try:
        config.prepare("lpf_colocation", overrides=overrides)
    except ConfigError as e:
        # the key and the complaint, without the list of every accepted key
        return str(e).split(", expected one of")[0]
    except Exception as e:  # the core missing altogether
        return f"{type(e).__name__}: {e}"
    return None


MECHANISMS: dict[str, dict[str, Any]] = {
    # spec §4.12
    "nearopt": {"transports.nearopt": {"kind": "nearopt"}, "classes[1].transport": "nearopt"},
    # spec §5.1.5 / §2.8
    "cqcn": {
        "transports.tcpplus": {
            "cc": "cubic",
            "init_cwnd": 2,
            "rto_min": "1ms",
            "cqcn": True,
            "cqcn_interval": "100us",
            "cqcn_probe": "64B",
            "cqcn_priority": 0,
        },
        "classes[1].transport": "tcpplus",
        "scheme": {"kind": "cqcn", "threshold": "10KB"},
    },
    # spec §4.6 / §4.7
    "ledbat": {
        "transports.ledbat": {"cc": "ledbat", "ledbat_target": "3.2ms"},
        "classes[1].transport": "ledbat",
    },
    "tcp_lp": {"transports.tcplp": {"cc": "tcp_lp"}, "classes[1].transport": "tcplp"},
}


def mechanism_status() -> dict[str, str | None]:
    """``{mechanism: None if usable else why not}``."""
    return {m: _probe(ov) for m, ov in MECHANISMS.items()}


# ---------------------------------------------------------------------------------------------
# running


class Runner:
    """Collects runs (scenario + overrides + seed), executes the missing ones in parallel
    through the sweep cache, and loads results by key."""

    def __init__(self, out_dir: Path, jobs: int | None, progress: bool) -> None:
        self.out_dir = out_dir
        self.jobs = jobs
        self.progress = progress
        self.pending: dict[Any, SweepRun] = {}
        self.done: dict[Any, SweepRun] = {}
        self._cache: dict[str, Results] = {}

    def add(self, key: Any, base: Any, overrides: dict[str, Any], seed: int) -> None:
        if key in self.pending or key in self.done:
            return
        prep = config.prepare(base, seed=seed, overrides=overrides)
        self.pending[key] = SweepRun(len(self.pending), {"key": repr(key)}, seed, prep)

    def run(self) -> None:
        runs = list({r.hash: r for r in self.pending.values()}.values())
        if runs:
            _, failures = execute(runs, self.out_dir, jobs=self.jobs, progress=self.progress)
            if failures:
                r, e = failures[0]
                raise RuntimeError(f"{len(failures)} LPF runs failed; first {r.params}: {e}")
        self.done.update(self.pending)
        self.pending.clear()

    def get(self, key: Any) -> Results:
        h = self.done[key].hash
        if h not in self._cache:
            self._cache[h] = load_results(self.out_dir / "runs" / h)
        return self._cache[h]


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


def coloc(dur: float, *, load: float = 0.5, update: float = 4e6, **extra: Any) -> dict[str, Any]:
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


def _stats(fct: pd.Series | np.ndarray) -> dict[str, float]:
    v = np.asarray(fct, dtype=float)
    v = v[~np.isnan(v)]
    if not v.size:
        return {"mean": math.nan, "p50": math.nan, "p99": math.nan, "p99.9": math.nan, "n": 0}
    return {
        "mean": float(v.mean()),
        "p50": float(np.percentile(v, 50)),
        "p99": float(np.percentile(v, 99)),
        "p99.9": float(np.percentile(v, 99.9)),
        "n": int(v.size),
    }


def bucket(sizes: pd.Series) -> pd.Series:
    return pd.cut(sizes.astype(float), bins=list(LPF_EDGES), right=True, labels=list(BUCKETS))


def low_fct(res: Results, which: str | None = None) -> dict[str, float]:
    """FCT statistics of completed low-priority flows (optionally one LPF size class);
    ``unfinished`` counts the ones that did not complete."""
    f = _low(res)
    if which is not None:
        f = f[bucket(f["size"]) == which]
    done = f["completed"].astype(bool)
    out = _stats(f.loc[done, "fct_s"])
    out["unfinished"] = int((~done).sum())
    return out


def normalized(tcp: Results, base: Results, which: str | None = None) -> dict[str, float]:
    """LPF metric: statistics of TCP's low-priority FCTs ÷ the same statistics under the
    Near-Opt baseline, over flows completed in both runs (matched on src, dst, size, start)."""
    key = ["src", "dst", "size", "start_s"]
    a = _low(tcp)[[*key, "fct_s", "completed"]]
    b = _low(base)[[*key, "fct_s", "completed"]]
    m = a.merge(b, on=key, suffixes=("_t", "_n"))
    if which is not None:
        m = m[bucket(m["size"]) == which]
    both = m["completed_t"].astype(bool) & m["completed_n"].astype(bool)
    st, sn = _stats(m.loc[both, "fct_s_t"]), _stats(m.loc[both, "fct_s_n"])
    out = {k: st[k] / sn[k] if sn[k] else math.nan for k in ("mean", "p50", "p99", "p99.9")}
    out["n"] = int(both.sum())
    return out


def retx_rate(res: Results, klass: str = "storage") -> np.ndarray:
    """Per-flow retransmission rate (retransmitted / data packets) of long flows of ``klass``."""
    f = res.flows
    f = f[f["in_window"].astype(bool) & (f["class"] == klass) & (f["size"] > 1e6)]
    return (f["retx_pkts"] / f["data_pkts"].clip(lower=1)).to_numpy(dtype=float)


def _pooled(runner: Runner, keys: Sequence[Any]) -> Results:
    """Several seeds of one configuration as one Results (flows concatenated)."""
    rs = [runner.get(k) for k in keys]
    if len(rs) == 1:
        return rs[0]
    r0 = rs[0]
    return Results(
        flows=pd.concat([r.flows for r in rs], ignore_index=True),
        queues=r0.queues,
        samples=r0.samples,
        traces=r0.traces,
        meta=r0.meta,
        scenario=r0.scenario,
    )


# ---------------------------------------------------------------------------------------------
# figures


@dataclass
class Outcome:
    figure: str
    paper: str
    ours: str = ""
    holds: bool | None = None  # None: not evaluated (not available)
    note: str = ""
    values: dict[str, float] = field(default_factory=dict)
    plot: Callable[[Any], None] | None = field(default=None, repr=False)

    @property
    def verdict(self) -> str:
        if self.holds is None:
            return "n/a"
        return "yes" if self.holds else "no"


def _fmt(x: float, digits: int = 2) -> str:
    return "nan" if x is None or not np.isfinite(x) else f"{x:.{digits}f}"


def _fmt_ratio(d: dict[str, float]) -> str:
    return f"avg {_fmt(d['mean'])}×, p99 {_fmt(d['p99'])}×, p99.9 {_fmt(d['p99.9'])}×"


class Repro:
    """Plans and evaluates the LPF figures at one scale."""

    def __init__(self, runner: Runner, scale: Scale, status: dict[str, str | None]) -> None:
        self.r = runner
        self.s = scale
        self.status = status

    def missing(self, *mechs: str) -> str | None:
        why = [f"{m}: {self.status[m]}" for m in mechs if self.status.get(m)]
        return "; ".join(why) if why else None

    # each figure has plan_X (add runs) and eval_X (→ Outcome); Near-Opt DAS/SJF need a
    # second planning phase from the TCP runs (plan2_X).

    # --- Fig 2: 9-node motivation --------------------------------------------------------
    def _fig2_ov(self, fair: bool) -> dict[str, Any]:
        ov = coloc(self.s.fig2_s)
        ov.update({"topology.hosts": 9, "classes[1].workload.senders": list(range(1, 9))})
        if fair:
            # FairShare: one shared FIFO queue with the whole 192 KB port buffer, both
            # workloads at the same priority (LPF §2.2 "flows from both the applications
            # share a single queue").
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

    def plan_2a(self) -> None:
        for s in self.s.seeds:
            self.r.add(("2a", "prio", s), "lpf_colocation", self._fig2_ov(False), s)
            self.r.add(("2a", "fair", s), "lpf_colocation", self._fig2_ov(True), s)

    def eval_2a(self) -> Outcome:
        o = Outcome(
            "LPF-Fig2a",
            "p80 retransmission rate of long low-priority flows ≈ 8% "
            "(PriorityQueue) vs negligible (FairShare)",
        )
        pq = np.concatenate([retx_rate(self.r.get(("2a", "prio", s))) for s in self.s.seeds])
        fs = np.concatenate([retx_rate(self.r.get(("2a", "fair", s))) for s in self.s.seeds])
        if not (pq.size and fs.size):
            o.note = "no long storage flows in the window; run longer"
            return o
        p80q, p80f = np.percentile(pq, 80), np.percentile(fs, 80)
        p50q, p50f = np.percentile(pq, 50), np.percentile(fs, 50)
        o.ours = (
            f"p80 {100 * p80q:.1f}% (PriorityQueue) vs {100 * p80f:.1f}% (FairShare); "
            f"p50 {100 * p50q:.1f}% vs {100 * p50f:.1f}%; {pq.size} / {fs.size} long flows"
        )
        o.values = {"p50_pq": p50q, "p50_fs": p50f, "p80_pq": p80q, "p80_fs": p80f}
        o.holds = bool(p80q > 1.5 * p80f and p50q > 1.5 * p50f and p80q > 0.02)
        if p80f > 0.01:
            o.note = (
                (
                    "Partly: the body of the CDF is far worse under PriorityQueue "
                    f"(p50 {p50q / max(p50f, 1e-9):.1f}×), the p80 less so. "
                )
                if p50q > 2 * p50f and not o.holds
                else ""
            ) + (
                "FairShare is not negligible here: the shared 192 KB FIFO also takes the 4 MB "
                "8:1 incast, which overflows it, so storage flows lose packets there too. "
                "The paper's FairShare point is a testbed measurement (Linux/Mellanox)."
            )

        def plot(ax: Any) -> None:
            for v, lab in ((pq, "PriorityQueue"), (fs, "FairShare")):
                x = np.sort(v) * 100
                ax.plot(x, np.arange(1, x.size + 1) / x.size, label=lab)
            ax.set_xlabel("retransmission rate of long low-priority flows (%)")
            ax.set_ylabel("CDF")
            ax.legend()

        o.plot = plot
        return o

    def plan_2b(self) -> None:
        if self.missing("nearopt"):
            return
        for s in self.s.seeds:
            self.r.add(("2a", "prio", s), "lpf_colocation", self._fig2_ov(False), s)
            ov = {**self._fig2_ov(False), **MECHANISMS["nearopt"]}
            self.r.add(("2b", "nearopt", s), "lpf_colocation", ov, s)

    def eval_2b(self) -> Outcome:
        o = Outcome(
            "LPF-Fig2b",
            "qualitative: Near-Opt FCT CDF of long low-priority flows "
            'clearly left of TCP\'s ("substantial opportunity")',
        )
        if why := self.missing("nearopt"):
            o.ours = f"not yet available: {why}"
            return o
        tcp = _pooled(self.r, [("2a", "prio", s) for s in self.s.seeds])
        no = _pooled(self.r, [("2b", "nearopt", s) for s in self.s.seeds])
        d = normalized(tcp, no, "long")
        o.ours = f"TCP/Near-Opt for long flows: p50 {_fmt(d['p50'])}×, " + _fmt_ratio(d)
        o.holds = bool(d["p50"] > 1 and d["p99"] > 1)
        _baseline_check(o, [d])
        return o

    # --- Fig 3a: DAS ---------------------------------------------------------------------
    DAS_MEANS = (128e3, 1e6, 5e6)

    def _das_ov(self, mean: float) -> dict[str, Any]:
        dur = self.s.das_s * max(1.0, mean / 128e3) ** 0.5
        return {
            **_window(dur),
            "classes[0].workload.sizes": {"uniform": ["1B", f"{2 * mean:.0f}B"]},
        }

    def plan_3a(self) -> None:
        for m in self.DAS_MEANS:
            for s in self.s.seeds:
                self.r.add(("3a", m, s), "lpf_das", self._das_ov(m), s)

    def plan2_3a(self) -> None:
        if self.missing("nearopt"):
            return
        for m in self.DAS_MEANS:
            for s in self.s.seeds:
                tcp = self.r.get(("3a", m, s))
                self.r.add(("3a-no", m, s), _replay(tcp, "lpf_das"), {}, s)

    def eval_3a(self) -> Outcome:
        o = Outcome(
            "LPF-Fig3a",
            "TCP within 2× of Near-Opt for means 128 KB / 1 MB / 5 MB, insensitive to flow size",
        )
        if why := self.missing("nearopt"):
            o.ours = f"not yet available: {why}"
            return o
        parts, ok, rs = [], True, []
        for m in self.DAS_MEANS:
            d = normalized(
                _pooled(self.r, [("3a", m, s) for s in self.s.seeds]),
                _pooled(self.r, [("3a-no", m, s) for s in self.s.seeds]),
            )
            parts.append(f"{m / 1e3:g} KB: {_fmt_ratio(d)}")
            ok &= bool(d["mean"] <= 2.0 and d["p99"] <= 2.0)
            rs.append(d)
        o.ours = "; ".join(parts)
        o.holds = ok
        _baseline_check(o, rs)
        return o

    # --- Fig 3b/3c: SJF ------------------------------------------------------------------
    SJF_LOADS = (("low", 0.15), ("medium", 0.3), ("high", 0.5))

    def _sjf_ov(self, cdf: str, load: float) -> dict[str, Any]:
        return {
            **_window(self.s.sjf_s),
            "classes[0].workload.sizes": {"cdf": cdf},
            "classes[0].workload.load": load,
        }

    def plan_3bc(self, fig: str, cdf: str) -> None:
        for _, load in self.SJF_LOADS:
            for s in self.s.seeds:
                self.r.add((fig, load, s), "lpf_sjf", self._sjf_ov(cdf, load), s)

    def plan2_3bc(self, fig: str) -> None:
        if self.missing("nearopt"):
            return
        for _, load in self.SJF_LOADS:
            for s in self.s.seeds:
                self.r.add(
                    (fig + "-no", load, s), _replay(self.r.get((fig, load, s)), "lpf_sjf"), {}, s
                )

    def _sjf_ratios(self, fig: str) -> dict[str, dict[str, float]]:
        return {
            name: normalized(
                _pooled(self.r, [(fig, load, s) for s in self.s.seeds]),
                _pooled(self.r, [(fig + "-no", load, s) for s in self.s.seeds]),
            )
            for name, load in self.SJF_LOADS
        }

    def eval_3b(self) -> Outcome:
        o = Outcome("LPF-Fig3b", "SJF web search: TCP within 2× of Near-Opt at all loads")
        if why := self.missing("nearopt"):
            o.ours = f"not yet available: {why}"
            return o
        rs = self._sjf_ratios("3b")
        o.ours = "; ".join(f"{k}: {_fmt_ratio(v)}" for k, v in rs.items())
        o.holds = all(v["mean"] <= 2 and v["p99"] <= 2 for v in rs.values())
        _baseline_check(o, list(rs.values()))
        return o

    def eval_3c(self) -> Outcome:
        o = Outcome(
            "LPF-Fig3c",
            "SJF data mining: up to 3×, larger than web search; at high load "
            "p99.9 gap 44% larger than web search",
        )
        if why := self.missing("nearopt"):
            o.ours = f"not yet available: {why}"
            return o
        dm, ws = self._sjf_ratios("3c"), self._sjf_ratios("3b")
        rel = dm["high"]["p99.9"] / ws["high"]["p99.9"]
        o.ours = "; ".join(f"{k}: {_fmt_ratio(v)}" for k, v in dm.items()) + (
            f"; high-load p99.9 DM/WS = {_fmt(rel)}"
        )
        o.holds = bool(rel > 1 and max(v["p99.9"] for v in dm.values()) <= 3.5)
        _baseline_check(o, [*dm.values(), *ws.values()])
        return o

    # --- Fig 4: co-location ----------------------------------------------------------------
    LOADS = (("low", 0.15), ("medium", 0.3), ("high", 0.5))
    UPDATES = (4e6, 8e6, 12e6, 16e6, 24e6)

    def plan_4(self) -> None:
        no = self.missing("nearopt")
        for _, load in self.LOADS:
            for s in self.s.seeds:
                self.r.add(
                    ("4", load, 4e6, "tcp", s),
                    "lpf_colocation",
                    coloc(self.s.coloc_s, load=load),
                    s,
                )
                if not no:
                    self.r.add(
                        ("4", load, 4e6, "no", s),
                        "lpf_colocation",
                        coloc(self.s.coloc_s, load=load, **MECHANISMS["nearopt"]),
                        s,
                    )
        for u in self.UPDATES:
            for s in self.s.seeds:
                self.r.add(
                    ("4", 0.5, u, "tcp", s), "lpf_colocation", coloc(self.s.coloc_s, update=u), s
                )
                if not no:
                    self.r.add(
                        ("4", 0.5, u, "no", s),
                        "lpf_colocation",
                        coloc(self.s.coloc_s, update=u, **MECHANISMS["nearopt"]),
                        s,
                    )

    def _c4(self, load: float, upd: float, which: str | None = None) -> dict[str, float]:
        return normalized(
            _pooled(self.r, [("4", load, upd, "tcp", s) for s in self.s.seeds]),
            _pooled(self.r, [("4", load, upd, "no", s) for s in self.s.seeds]),
            which,
        )

    def eval_4a(self) -> Outcome:
        o = Outcome("LPF-Fig4a", "> 4× at high load, within 2× at low and medium load")
        if why := self.missing("nearopt"):
            o.ours = f"not yet available: {why}"
            return o
        rs = {n: self._c4(load, 4e6) for n, load in self.LOADS}
        o.ours = "; ".join(f"{k}: {_fmt_ratio(v)}" for k, v in rs.items())
        hi = max(rs["high"]["mean"], rs["high"]["p99"])
        o.holds = bool(hi > 4 and rs["low"]["mean"] <= 2 and rs["medium"]["mean"] <= 2)
        _baseline_check(o, list(rs.values()))
        return o

    def eval_4b(self) -> Outcome:
        o = Outcome("LPF-Fig4b", "all size classes > 1× at high load; medium worst (up to 4.9×)")
        if why := self.missing("nearopt"):
            o.ours = f"not yet available: {why}"
            return o
        rs = {b: self._c4(0.5, 4e6, b) for b in BUCKETS}
        o.ours = "; ".join(f"{k}: {_fmt_ratio(v)}" for k, v in rs.items())
        worst = max(rs, key=lambda b: np.nan_to_num(rs[b]["p99"]))
        o.holds = bool(all(v["mean"] > 1 for v in rs.values()) and worst == "medium")
        _baseline_check(o, list(rs.values()))
        return o

    def eval_4c(self) -> Outcome:
        o = Outcome(
            "LPF-Fig4c",
            "gap widens with update size, > 10× at 12 MB, then shrinks for larger updates",
        )
        if why := self.missing("nearopt"):
            o.ours = f"not yet available: {why}"
            return o
        rs = {u: self._c4(0.5, u) for u in self.UPDATES}
        o.ours = "; ".join(f"{u / 1e6:g} MB: {_fmt_ratio(v)}" for u, v in rs.items())
        p = [rs[u]["p99"] for u in self.UPDATES]
        peak = int(np.nanargmax(p))
        o.holds = bool(0 < peak < len(p) - 1 and p[peak] > p[0])
        _baseline_check(o, list(rs.values()))
        return o

    # --- Fig 5: hybrid services -------------------------------------------------------------
    SIZES5 = (32e3, 64e3, 128e3, 1e6)
    SPLITS5 = ((0.7, 0.1), (0.6, 0.2), (0.5, 0.3), (0.4, 0.4))

    def _hy_ov(self, size: float, hi: float, lo: float, low_transport: str) -> dict[str, Any]:
        return {
            **_window(self.s.hybrid_s),
            "classes[0].workload.sizes": {"fixed": f"{size:.0f}B"},
            "classes[1].workload.sizes": {"fixed": f"{size:.0f}B"},
            "classes[0].workload.load": hi,
            "classes[1].workload.load": lo,
            "classes[1].transport": low_transport,
        }

    def plan_5(self) -> None:
        if self.missing("nearopt"):
            return
        pts = {(sz, 0.5, 0.3) for sz in self.SIZES5} | {(128e3, h, lo) for h, lo in self.SPLITS5}
        for sz, h, lo in sorted(pts):
            for t in ("tcp", "nearopt"):
                for s in self.s.seeds:
                    self.r.add(("5", sz, h, lo, t, s), "lpf_hybrid", self._hy_ov(sz, h, lo, t), s)

    def _c5(self, sz: float, h: float, lo: float) -> dict[str, float]:
        return normalized(
            _pooled(self.r, [("5", sz, h, lo, "tcp", s) for s in self.s.seeds]),
            _pooled(self.r, [("5", sz, h, lo, "nearopt", s) for s in self.s.seeds]),
        )

    def eval_5a(self) -> Outcome:
        o = Outcome("LPF-Fig5a", "gap grows with flow size (best at 32 KB, worst at 1 MB)")
        if why := self.missing("nearopt"):
            o.ours = f"not yet available: {why}"
            return o
        rs = {sz: self._c5(sz, 0.5, 0.3) for sz in self.SIZES5}
        o.ours = "; ".join(f"{sz / 1e3:g} KB: {_fmt_ratio(v)}" for sz, v in rs.items())
        o.holds = bool(rs[1e6]["mean"] > rs[32e3]["mean"])
        _baseline_check(o, list(rs.values()))
        return o

    def eval_5b(self) -> Outcome:
        o = Outcome(
            "LPF-Fig5b",
            "similar across low-priority loads (text) / mild increase with "
            "low-priority load (caption)",
        )
        if why := self.missing("nearopt"):
            o.ours = f"not yet available: {why}"
            return o
        rs = {(h, lo): self._c5(128e3, h, lo) for h, lo in self.SPLITS5}
        o.ours = "; ".join(f"{h:.0%}/{lo:.0%}: {_fmt_ratio(v)}" for (h, lo), v in rs.items())
        means = [v["mean"] for v in rs.values()]
        o.holds = bool(max(means) / min(means) < 2)
        _baseline_check(o, list(rs.values()))
        return o

    # --- Figs 7–11: co-location, high load ----------------------------------------------------
    BUFFERS = (192e3, 96e3, 64e3, 24e3)
    RTOS = ("500us", "1ms", "5ms", "10ms")

    def plan_7to11(self) -> None:
        d = self.s.coloc_s
        for s in self.s.seeds:
            for b in self.BUFFERS:
                # [CHOICE] high queue stays 128 KB; the port limit never binds before the
                # per-queue limits, so the low queue can really use `b`.
                self.r.add(
                    ("7", b, s),
                    "lpf_colocation",
                    coloc(
                        d,
                        **{
                            "switch.queue_limit": ["128KB", f"{b:.0f}B"],
                            "switch.port_limit": f"{128e3 + b:.0f}B",
                        },
                    ),
                    s,
                )
            for rto in self.RTOS:
                self.r.add(
                    ("8", rto, s),
                    "lpf_colocation",
                    coloc(d, **{"transports.tcp.rto_min": rto, "transports.tcp.rto_init": rto}),
                    s,
                )
            for cc in ("cubic", "newreno"):
                for sack in (True, False):
                    self.r.add(
                        ("9", cc, sack, s),
                        "lpf_colocation",
                        coloc(d, **{"transports.tcp.cc": cc, "transports.tcp.sack": sack}),
                        s,
                    )
            self.r.add(("10", "tcp", s), "lpf_colocation", coloc(d), s)
            for m in ("tcp_lp", "ledbat"):
                if not self.missing(m):
                    self.r.add(("10", m, s), "lpf_colocation", coloc(d, **_low_transport(m)), s)
            self.r.add(("11", "spq", s), "lpf_colocation", coloc(d, update=12e6), s)
            self.r.add(
                ("11", "wfq", s),
                "lpf_colocation",
                coloc(d, update=12e6, **{"switch.scheduler": {"kind": "drr", "weights": [99, 1]}}),
                s,
            )
            if not self.missing("cqcn"):
                self.r.add(
                    ("11", "tcp+", s),
                    "lpf_colocation",
                    coloc(d, update=12e6, **MECHANISMS["cqcn"]),
                    s,
                )

    def _pool(self, *key: Any) -> Results:
        return _pooled(self.r, [(*key, s) for s in self.s.seeds])

    def eval_7(self) -> Outcome:
        o = Outcome(
            "LPF-Fig7",
            "TCP FCT grows as the low-priority buffer shrinks; p99 at 24 KB = 5.7× p99 at 192 KB",
        )
        st = {b: low_fct(self._pool("7", b)) for b in self.BUFFERS}
        ratio = st[24e3]["p99"] / st[192e3]["p99"]
        o.ours = (
            "p99 (ms): "
            + ", ".join(f"{b / 1e3:g} KB {1e3 * v['p99']:.2f}" for b, v in st.items())
            + f"; 24/192 = {_fmt(ratio)}×"
        )
        p99 = [st[b]["p99"] for b in self.BUFFERS]
        mono = all(p99[i + 1] >= 0.95 * p99[i] for i in range(len(p99) - 1))
        o.holds = bool(ratio > 1.5 and mono)
        o.plot = _bars({f"{b / 1e3:g}KB": st[b] for b in self.BUFFERS}, "low-priority buffer")
        return o

    def eval_8(self) -> Outcome:
        o = Outcome(
            "LPF-Fig8",
            "U-shape: 1 ms best; 500 µs (spurious timeouts) and 5/10 ms "
            "(slow tail-loss recovery) worse",
        )
        st = {r: low_fct(self._pool("8", r)) for r in self.RTOS}
        sp = {r: int(_low(self._pool("8", r))["spurious_rto"].sum()) for r in self.RTOS}
        o.ours = "; ".join(
            f"{r}: avg {1e3 * v['mean']:.2f} ms, p99 {1e3 * v['p99']:.2f} ms, {sp[r]} spurious RTOs"
            for r, v in st.items()
        )
        m = {r: st[r]["mean"] for r in self.RTOS}
        p = {r: st[r]["p99"] for r in self.RTOS}
        # The tail is where RTO_min acts (LPF §4: "particularly when dealing with tail
        # losses"), so the U is judged on p99; the mean is reported alongside.
        high_worse = p["5ms"] > p["1ms"] and p["10ms"] > p["5ms"]
        low_worse = p["500us"] > p["1ms"]
        o.holds = bool(high_worse and low_worse)
        if max(m.values()) / min(m.values()) < 1.25:
            o.note = (
                "the mean hardly moves ("
                + ", ".join(f"{k} {1e3 * v:.2f} ms" for k, v in m.items())
                + "); the U shows in the p99."
            )
        if not low_worse:
            o.note += (
                " 500 µs is not worse than 1 ms at p99 although it has more spurious RTOs "
                f"({sp['500us']} vs {sp['1ms']})."
            )
        o.plot = _bars(st, "RTO_min")
        return o

    def eval_9(self) -> Outcome:
        o = Outcome("LPF-Fig9", "Cubic/NewReno × SACK on/off: minimal to no impact")
        st = {
            f"{cc}{'+SACK' if sack else ''}": low_fct(self._pool("9", cc, sack))
            for cc in ("cubic", "newreno")
            for sack in (True, False)
        }
        means = np.array([v["mean"] for v in st.values()])
        spread = means.max() / means.min()
        o.ours = (
            "avg (ms): "
            + ", ".join(f"{k} {1e3 * v['mean']:.2f}" for k, v in st.items())
            + (f"; max/min {_fmt(spread)}")
        )
        o.holds = bool(spread <= 1.15)
        o.plot = _bars(st, "TCP configuration")
        return o

    def eval_10(self) -> Outcome:
        o = Outcome(
            "LPF-Fig10",
            "TCP-LP and LEDBAT (target 3.2 ms) slower than TCP: up to 2.4× avg, 6.67× p99",
        )
        miss = [m for m in ("tcp_lp", "ledbat") if self.missing(m)]
        if len(miss) == 2:
            o.ours = f"not yet available: {self.missing(*miss)}"
            return o
        base = low_fct(self._pool("10", "tcp"))
        st = {"tcp": base}
        parts = []
        for m in ("tcp_lp", "ledbat"):
            if m in miss:
                parts.append(f"{m}: not yet available")
                continue
            v = low_fct(self._pool("10", m))
            st[m] = v
            parts.append(
                f"{m}: avg {_fmt(v['mean'] / base['mean'])}×, "
                f"p99 {_fmt(v['p99'] / base['p99'])}× of TCP"
            )
        o.ours = "; ".join(parts)
        o.holds = bool(all(st[m]["mean"] > base["mean"] for m in st if m != "tcp"))
        if miss:
            o.note = f"partial: {self.missing(*miss)}"
        o.plot = _bars(st, "low-priority transport")
        return o

    def eval_11(self) -> Outcome:
        o = Outcome(
            "LPF-Fig11",
            "12 MB updates: WFQ 99:1 cuts p99.9 FCT of small / medium "
            "low-priority flows up to 9× / 5.4× (+6% for high priority at p99.9); TCP+ "
            "up to 6× for medium at p99",
        )
        spq, wfq = self._pool("11", "spq"), self._pool("11", "wfq")
        red = {b: low_fct(spq, b)["p99.9"] / low_fct(wfq, b)["p99.9"] for b in BUCKETS}

        def hi999(r: Results) -> float:
            f = r.flows
            f = f[f["in_window"].astype(bool) & (f["priority"] == 0) & f["completed"].astype(bool)]
            return float(np.percentile(f["fct_s"], 99.9)) if len(f) else math.nan

        pen = hi999(wfq) / hi999(spq) - 1
        parts = [
            f"WFQ p99.9 reduction small {_fmt(red['small'])}×, medium "
            f"{_fmt(red['medium'])}×, long {_fmt(red['long'])}×; high-priority p99.9 "
            f"{100 * pen:+.1f}%"
        ]
        holds = bool(red["small"] > 1 and red["medium"] > 1 and pen < 0.25)
        if not (red["small"] > 1 and red["medium"] > 1):
            o.note = (
                "WFQ 99:1 gives the low queue 1% (100 Mb/s) during the 9.6 ms on period; "
                "a full 64 KB low queue then takes ≈ 5 ms to drain, longer than RTO_min, so "
                "small/medium flows still time out (spurious RTOs with backoff) and their "
                "p99.9 does not improve (our reading; not verified further). Not tuned to "
                "match."
            )
        st = {"SPQ": low_fct(spq), "WFQ 99:1": low_fct(wfq)}
        if why := self.missing("cqcn"):
            parts.append(f"TCP+ not yet available: {why}")
            o.note = "TCP+ part not evaluated"
        else:
            tp = self._pool("11", "tcp+")
            r = low_fct(spq, "medium")["p99"] / low_fct(tp, "medium")["p99"]
            parts.append(f"TCP+ medium p99 reduction {_fmt(r)}×")
            if r < 1:
                o.note += (
                    " TCP+ made medium flows slower (probe threshold 10 KB, interval "
                    "100 µs, 64 B probes; LPF leaves these open and they are not swept "
                    "here)."
                )
            holds = holds and bool(r > 1)
            st["TCP+"] = low_fct(tp)
        o.ours = "; ".join(parts)
        o.holds = holds
        o.plot = _bars(st, "scheduler / transport")
        return o


def _baseline_check(o: Outcome, ratios: Sequence[dict[str, float]]) -> None:
    """Near-Opt is meant as an upper bound for a fair transport; if TCP beats it clearly
    (a mean ratio < 0.8), the baseline is not near-optimal in that configuration and the
    "within N×" findings cannot be judged from the ratio."""
    bad = [r["mean"] for r in ratios if np.isfinite(r["mean"]) and r["mean"] < 0.8]
    if bad:
        o.holds = False
        o.note = (
            f"Near-Opt baseline slower than TCP here (normalized FCT down to "
            f"{min(bad):.2f}×): the baseline is not near-optimal in this configuration, so "
            "the comparison does not show the paper's finding. " + o.note
        ).strip()


def _low_transport(m: str) -> dict[str, Any]:
    return dict(MECHANISMS[m])


def _bars(st: dict[Any, dict[str, float]], xlabel: str) -> Callable[[Any], None]:
    def plot(ax: Any) -> None:
        labels = [str(k) for k in st]
        x = np.arange(len(labels))
        for i, stat in enumerate(("mean", "p99")):
            ax.bar(x + (i - 0.5) * 0.38, [1e3 * st[k][stat] for k in st], 0.38, label=stat)
        ax.set_xticks(x, labels)
        ax.set_xlabel(xlabel)
        ax.set_ylabel("low-priority FCT (ms)")
        ax.legend()

    return plot


def _replay(tcp: Results, preset: str) -> dict[str, Any]:
    """The Near-Opt baseline of a one-workload use case (DAS, SJF): the TCP run's exact flows
    as two explicit lists, high priority over the preset's TCP, low priority over Near-Opt."""
    sc = copy.deepcopy(tcp.scenario)
    f = tcp.flows
    cls = sc["classes"][0]
    rows = lambda d: [  # noqa: E731
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
    sc["transports"]["nearopt"] = {"kind": "nearopt"}
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


FIGURES = ("2a", "2b", "3a", "3b", "3c", "4a", "4b", "4c", "5a", "5b", "7", "8", "9", "10", "11")


def run_figures(
    out_dir: Path,
    scale: Scale,
    figures: Sequence[str] = FIGURES,
    *,
    jobs: int | None = None,
    progress: bool = False,
    status: dict[str, str | None] | None = None,
) -> list[Outcome]:
    """Simulate (or load from ``out_dir/runs``) and evaluate ``figures``."""
    runner = Runner(Path(out_dir), jobs, progress)
    rp = Repro(runner, scale, status if status is not None else mechanism_status())
    want = set(figures)
    if "2a" in want:
        rp.plan_2a()
    if "2b" in want:
        rp.plan_2b()
    if "3a" in want:
        rp.plan_3a()
    if want & {"3b", "3c"}:
        rp.plan_3bc("3b", "websearch")
    if "3c" in want:
        rp.plan_3bc("3c", "datamining_vl2")
    if want & {"4a", "4b", "4c"}:
        rp.plan_4()
    if want & {"5a", "5b"}:
        rp.plan_5()
    if want & {"7", "8", "9", "10", "11"}:
        rp.plan_7to11()
    runner.run()
    # second phase: Near-Opt replays of the one-workload use cases
    if "3a" in want:
        rp.plan2_3a()
    if want & {"3b", "3c"}:
        rp.plan2_3bc("3b")
    if "3c" in want:
        rp.plan2_3bc("3c")
    runner.run()
    evals = {
        "2a": rp.eval_2a,
        "2b": rp.eval_2b,
        "3a": rp.eval_3a,
        "3b": rp.eval_3b,
        "3c": rp.eval_3c,
        "4a": rp.eval_4a,
        "4b": rp.eval_4b,
        "4c": rp.eval_4c,
        "5a": rp.eval_5a,
        "5b": rp.eval_5b,
        "7": rp.eval_7,
        "8": rp.eval_8,
        "9": rp.eval_9,
        "10": rp.eval_10,
        "11": rp.eval_11,
    }
    return [evals[f]() for f in FIGURES if f in want]


def write_report(out_dir: Path, outcomes: Sequence[Outcome], scale_name: str) -> Path:
    """``report.md`` + ``report.csv`` + one PNG per plotted figure (written atomically)."""
    from .. import plots

    out_dir = Path(out_dir)
    figdir = out_dir / "figures"
    figdir.mkdir(parents=True, exist_ok=True)
    plt = plots._plt()
    for o in outcomes:
        if o.plot is None:
            continue
        fig, ax = plt.subplots(figsize=(6, 4))
        o.plot(ax)
        ax.set_title(o.figure)
        fig.tight_layout()
        plots.save(fig, figdir / f"{o.figure}.png")
        plt.close(fig)
    lines = [
        f"# {TITLE}",
        "",
        f"Scale: {scale_name}. Normalized FCT = TCP FCT ÷ Near-Opt FCT of low-priority flows "
        '(ratios of the statistics). "holds" = the paper\'s qualitative finding is reproduced.',
        "",
        "| figure | paper | ours | holds | note |",
        "|---|---|---|---|---|",
    ]
    esc = lambda s: s.replace("|", "\\|")  # noqa: E731
    for o in outcomes:
        lines.append(
            f"| {o.figure} | {esc(o.paper)} | {esc(o.ours)} | {o.verdict} | {esc(o.note)} |"
        )
    lines.append("")
    text = "\n".join(lines)
    path = out_dir / "report.md"
    tmp = path.with_name(f".report.md.tmp-{os.getpid()}")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
    pd.DataFrame(
        [
            {
                "figure": o.figure,
                "paper": o.paper,
                "ours": o.ours,
                "holds": o.verdict,
                "note": o.note,
            }
            for o in outcomes
        ]
    ).to_csv(out_dir / "report.csv", index=False)
    return path


def reproduce(out_dir: Path, *, full: bool, jobs: int | None, progress: bool) -> None:
    scale = FULL if full else REDUCED
    outcomes = run_figures(Path(out_dir), scale, jobs=jobs, progress=progress)
    write_report(Path(out_dir), outcomes, "full (paper)" if full else "reduced")
