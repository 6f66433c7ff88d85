"""The reproduction framework every paper module uses.

A paper module holds only its presets and its figure definitions::

    REPRO = Reproduction(title=..., scales={"reduced": ..., "full": ...}, figures=[...])
    reproduce = REPRO.reproduce

A :class:`Figure` names the paper's claim and numbers, plans the runs it needs (one or more
phases: a later phase may read an earlier phase's results, e.g. to replay its flows) and
evaluates them into a :class:`Finding`: the statistic with its confidence interval, the
verdict and a plot in the paper's form. One :class:`Pool` runs every figure's runs together
through the sweep cache (``out_dir/runs/<hash>``: runs shared by figures are simulated once,
and a rerun only simulates what is missing).

Intervals and three-valued verdicts (bootstrap, bands, the magnitude tolerance) are in
:mod:`dcnsim.papers.stats`; this module re-exports them.
"""

from __future__ import annotations

import math
import os
import sys
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .. import config
from ..results import Results
from ..results import load as load_results
from ..sweep import SweepRun, execute
from .report_files import render_plot, write_report
from .stats import (  # noqa: F401  (re-exported: the paper modules use them from here)
    BOOT,
    HOLDS,
    INCONCLUSIVE,
    LEVEL,
    NA,
    NO,
    TOL,
    FlowRows,
    Interval,
    PerSeed,
    _g,
    all_of,
    band,
    bootstrap,
    by_seed,
    effect_band,
    exact,
    seeded,
)

# ---------------------------------------------------------------------------------------------
# runs


@dataclass(frozen=True)
class Scale:
    """One scale of a reproduction: seeds and paper-specific run lengths."""

    name: str
    seeds: tuple[int, ...]
    params: Mapping[str, Any] = field(default_factory=dict)

    def __getattr__(self, k: str) -> Any:
        try:
            return self.params[k]
        except KeyError:
            raise AttributeError(k) from None


class Pool:
    """Every run of a reproduction: ``add`` during planning, ``run`` executes the missing
    ones in parallel through the sweep cache, ``get`` loads a result by key."""

    def __init__(
        self,
        out_dir: Path,
        jobs: int | None,
        progress: bool,
        flow_columns: Sequence[str] | None = None,
    ) -> None:
        self.out_dir = Path(out_dir)
        self.jobs = jobs
        self.progress = progress
        #: the flows table's columns a loaded run keeps (None: all of them)
        self.flow_columns = tuple(flow_columns) if flow_columns is not None else None
        self.pending: dict[Hashable, SweepRun] = {}
        self.done: dict[Hashable, SweepRun] = {}
        # Loaded runs, least recently used first, with their loaded size: at most
        # MEMORY_SHARE of the physical memory is kept (a full-scale RoCE evaluation held
        # 18.9 GB of 24 when every run it read stayed loaded); a run read again after it was
        # dropped is loaded again.
        self._cache: OrderedDict[str, Results] = OrderedDict()
        self._sizes: dict[str, float] = {}
        self._held = 0.0

    def add(self, key: Hashable, base: Any, overrides: Mapping[str, Any], seed: int) -> None:
        if key in self.pending or key in self.done:
            return
        prep = config.prepare(base, seed=seed, overrides=dict(overrides))
        self.pending[key] = SweepRun(len(self.pending), {"key": repr(key)}, seed, prep)

    def run(self) -> None:
        runs = list({r.hash: r for r in self.pending.values()}.values())
        if runs:
            # Longest first, tiny runs batched (sweep.plan_tasks: cost = simulated time ×
            # hosts × offered load), so the two cores stay busy to the end of each phase.
            _, failures = execute(
                runs, self.out_dir, jobs=self.jobs, progress=self.progress, longest_first=True
            )
            if failures:
                r, e = failures[0]
                raise RuntimeError(f"{len(failures)} runs failed; first {r.params}: {e}")
        self.done.update(self.pending)
        self.pending.clear()

    def get(self, key: Hashable) -> Results:
        h = self.done[key].hash
        res = self._cache.get(h)
        if res is None:
            res = self._load(h)
            self._keep(h, res)
        else:
            self._cache.move_to_end(h)
        return res

    def _load(self, h: str) -> Results:
        return load_results(self.out_dir / "runs" / h, flow_columns=self.flow_columns)

    def _keep(self, h: str, res: Results) -> None:
        """Caches a loaded run, dropping the least recently used ones while the cache holds
        more than MEMORY_SHARE of the physical memory (the newest run is always kept)."""
        size = _results_bytes(res)
        self._cache[h] = res
        self._sizes[h] = size
        self._held += size
        cap = MEMORY_SHARE * _phys_mem()
        while self._held > cap and len(self._cache) > 1:
            old, _ = self._cache.popitem(last=False)
            self._held -= self._sizes.pop(old)

    def preload(self, threads: int = 1) -> None:
        """Loads every finished run now (each once, on ``threads`` threads): evaluators
        forked afterwards share them instead of each loading the runs its figure reads."""
        from concurrent.futures import ThreadPoolExecutor

        todo = [
            h for h in dict.fromkeys(r.hash for r in self.done.values()) if h not in self._cache
        ]
        with ThreadPoolExecutor(max(1, threads)) as ex:
            for h, res in zip(todo, ex.map(self._load, todo), strict=True):
                self._keep(h, res)

    def seed_of(self, key: Hashable) -> int:
        return self.done[key].seed


# ---------------------------------------------------------------------------------------------
# figures


@dataclass
class Finding:
    """One figure's outcome."""

    figure: str
    claim: str
    rule: str
    verdict: str = NA
    ours: str = ""
    note: str = ""
    #: named statistics with their intervals (report.csv gets one column per name)
    stats: dict[str, Interval] = field(default_factory=dict)
    plot: Callable[[Any], None] | None = field(default=None, repr=False)
    #: the plot already rendered (by a parallel evaluation) to this PNG; ``plot`` is then None
    plot_file: Path | None = None
    #: per point: label, seeds, simulated seconds, flows counted
    points: list[dict[str, Any]] = field(default_factory=list)
    counted: bool = True

    @property
    def has_plot(self) -> bool:
        return self.plot is not None or self.plot_file is not None

    def judge(self, **parts: str) -> None:
        """Sets the verdict to the conjunction of named parts of the rule and notes which
        parts did not hold (so every miss says where it missed)."""
        self.verdict = all_of(*parts.values())
        bad = {
            v: [k.replace("__", " ").replace("_", " ") for k, x in parts.items() if x == v]
            for v in (NO, INCONCLUSIVE, NA)
        }
        msg = "; ".join(f"{v}: {', '.join(ks)}" for v, ks in bad.items() if ks)
        if msg:
            self.note = (f"[{msg}] " + self.note).strip()


class Ctx:
    """What a figure's plan and evaluate functions see: the pool, the scale, mechanism status,
    and a record of which runs each figure used (for the per-point table)."""

    def __init__(self, pool: Pool, scale: Scale, status: Mapping[str, str | None]) -> None:
        self.pool = pool
        self.scale = scale
        self.status = status
        self.points: list[dict[str, Any]] = []
        #: the figure being planned, and how many runs each figure's plans asked for
        self.planning: str | None = None
        self.runs_of: dict[str, int] = {}

    @property
    def seeds(self) -> tuple[int, ...]:
        return self.scale.seeds

    def add(self, key: Hashable, base: Any, overrides: Mapping[str, Any], seed: int) -> None:
        if self.planning is not None:
            self.runs_of[self.planning] = self.runs_of.get(self.planning, 0) + 1
        self.pool.add(key, base, overrides, seed)

    def get(self, key: Hashable) -> Results:
        return self.pool.get(key)

    def seeds_of(self, *key: Any) -> list[Results]:
        """The runs ``(*key, seed)`` for every seed of the scale."""
        return [self.pool.get((*key, s)) for s in self.seeds]

    def point(self, label: str, runs: Sequence[Results], flows: int) -> None:
        """Records one evaluated point: its seeds, simulated duration and flows counted."""
        durs = sorted({str(r.scenario.get("run", {}).get("duration", "?")) for r in runs})
        seeds = sorted({int(r.meta.get("seed", -1)) for r in runs})
        self.points.append(
            {"point": label, "seeds": seeds, "duration_s": durs, "flows": int(flows)}
        )

    def missing(self, *mechs: str) -> str | None:
        why = [f"{m}: {self.status[m]}" for m in mechs if self.status.get(m)]
        return "; ".join(why) if why else None


@dataclass
class Figure:
    """A figure (or finding) of the paper: claim, runs, statistic and verdict rule.

    ``plan`` is a sequence of phase functions (phase k may read the results of phase k−1);
    ``evaluate`` returns the Finding. ``needs`` names mechanisms (see
    ``Reproduction.mechanisms``) without which the figure is reported "not available"."""

    id: str
    claim: str
    rule: str
    plan: Sequence[Callable[[Ctx], None]]
    evaluate: Callable[[Ctx, Finding], None]
    needs: tuple[str, ...] = ()
    #: False for reported variants that are not one of the paper's findings
    counted: bool = True


def _evaluate_figure(f: Figure, ctx: Ctx) -> Finding:
    fd = Finding(f.id, f.claim, f.rule, counted=f.counted)
    if why := ctx.missing(*f.needs):
        fd.ours = f"not available: {why}"
    else:
        ctx.points = []
        f.evaluate(ctx, fd)
        fd.points = ctx.points
    return fd


#: What a forked evaluator reads (set by the parent just before it forks the evaluators).
_EVAL: tuple[Sequence[Figure], Ctx, Path] | None = None


def _evaluate_in_child(i: int) -> Finding:
    """Evaluator process (forked, so it sees the parent's runs and state): figure ``i`` of
    ``_EVAL``, its plot drawn here into the figures directory (a finding's plot is a closure
    and cannot be sent back)."""
    assert _EVAL is not None
    figs, ctx, figdir = _EVAL
    fd = _evaluate_figure(figs[i], ctx)
    if fd.plot is not None:
        path = figdir / f"{fd.figure}.png"
        render_plot(fd, path)
        fd.plot, fd.plot_file = None, path
    return fd


#: The share of the physical memory loaded runs may take: the pool's cache drops the least
#: recently used runs beyond it, and parallel evaluation (which preloads every run) is used
#: only while all the runs fit in it (a full-scale RoCE reproduction's 2.9 GB of result files
#: held 18.9 GB once loaded: 6.5× their size on disk).
MEMORY_SHARE = 0.25
#: Loaded size of a run ÷ its files' size (measured 6.5–7.6× on the reproductions).
LOADED_PER_FILE_BYTE = 8


def _results_bytes(res: Results) -> float:
    """A loaded run's size: its tables' memory (strings included)."""
    frames = (res.flows, res.queues, res.samples, res.traces, res.class_samples, res.pipes)
    return float(sum(f.memory_usage(deep=True).sum() for f in (*frames, res.pipe_samples)))


def _run_loaded_bytes(d: Path) -> float:
    """A run's estimated size once loaded: its result files' size × 8."""
    if not d.is_dir():
        return 0.0
    return float(sum(f.stat().st_size for f in d.iterdir() if f.is_file()) * LOADED_PER_FILE_BYTE)


def _loaded_bytes(pool: Pool) -> float:
    """The finished runs' estimated size once loaded."""
    return sum(
        _run_loaded_bytes(pool.out_dir / "runs" / h) for h in {r.hash for r in pool.done.values()}
    )


def _phys_mem() -> float:
    try:
        return float(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return math.inf


def _evaluate_all(
    figs: Sequence[Figure], ctx: Ctx, jobs: int | None, figdir: Path
) -> list[Finding]:
    """Every figure's finding, in ``figs``' order. With more than one job (and ``fork``) the
    figures are evaluated in parallel processes, each drawing its own plot: the bootstrap
    intervals and plots are most of a reproduction's time after its runs, and each figure's
    are independent of the others' (each bootstrap draws from its own fixed seed), so the
    findings and files are the same as evaluating one figure after another."""
    global _EVAL
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    n = max(1, min(jobs or os.cpu_count() or 1, len(figs)))
    if n > 1 and _loaded_bytes(ctx.pool) >= MEMORY_SHARE * _phys_mem():
        n = 1  # every run loaded at once (the preload below) could exhaust the memory
    if n == 1 or "fork" not in multiprocessing.get_all_start_methods():
        return [_evaluate_figure(f, ctx) for f in figs]
    figdir.mkdir(parents=True, exist_ok=True)
    # Figures share runs (resqueue's read most of the same 200): loaded once here, before the
    # fork, instead of once per evaluator.
    ctx.pool.preload(threads=n)
    _EVAL = (figs, ctx, figdir)
    try:
        with ProcessPoolExecutor(n, mp_context=multiprocessing.get_context("fork")) as ex:
            # Figures with more runs first (they tend to take longest), so no long one is
            # left alone at the end; the results go back in the registry's order.
            order = sorted(range(len(figs)), key=lambda i: -ctx.runs_of.get(figs[i].id, 0))
            futs = {i: ex.submit(_evaluate_in_child, i) for i in order}
            return [futs[i].result() for i in range(len(figs))]
    finally:
        _EVAL = None


@dataclass
class Reproduction:
    """A paper's reproduction: its figures, scales and report text."""

    key: str
    title: str
    figures: Sequence[Figure]
    scales: Mapping[str, Scale]
    preamble: str = ""
    #: mechanism → overrides of a preset that validate iff the core accepts it
    mechanisms: Mapping[str, tuple[str, Mapping[str, Any]]] = field(default_factory=dict)
    #: evaluate the figures in parallel processes (False when figures share intervals
    #: memoized on the Ctx, which parallel evaluators would each compute again)
    parallel_figures: bool = True
    #: the flows-table columns its figures read: a loaded run keeps only these, so the
    #: pool's bounded cache holds more runs (None: every column)
    flow_columns: tuple[str, ...] | None = None

    def mechanism_status(self) -> dict[str, str | None]:
        out: dict[str, str | None] = {}
        for m, (preset, ov) in self.mechanisms.items():
            try:
                config.prepare(preset, overrides=dict(ov))
                out[m] = None
            except Exception as e:  # ConfigError or the core missing
                out[m] = str(e).split(", expected one of")[0]
        return out

    def figure(self, fid: str) -> Figure:
        for f in self.figures:
            if f.id == fid:
                return f
        raise KeyError(f"{self.key}: no figure {fid!r}")

    def run(
        self,
        out_dir: Path,
        scale: Scale | str,
        figures: Iterable[str] | None = None,
        *,
        jobs: int | None = None,
        progress: bool = False,
        status: Mapping[str, str | None] | None = None,
    ) -> list[Finding]:
        """Simulates (or loads from ``out_dir/runs``) and evaluates ``figures`` (all by
        default), in the registry's order."""
        sc = self.scales[scale] if isinstance(scale, str) else scale
        st = dict(status) if status is not None else self.mechanism_status()
        want = set(figures) if figures is not None else None
        figs = [f for f in self.figures if want is None or f.id in want]
        if want is not None and (unknown := want - {f.id for f in self.figures}):
            raise KeyError(f"{self.key}: unknown figures {sorted(unknown)}")
        pool = Pool(Path(out_dir), jobs, progress, self.flow_columns)
        ctx = Ctx(pool, sc, st)
        live = [f for f in figs if not ctx.missing(*f.needs)]
        for phase in range(max((len(f.plan) for f in live), default=0)):
            for f in live:
                if phase < len(f.plan):
                    ctx.planning = f.id
                    f.plan[phase](ctx)
            ctx.planning = None
            pool.run()
        procs = jobs if self.parallel_figures else 1
        return _evaluate_all(figs, ctx, procs, Path(out_dir) / "figures")

    def write_report(
        self,
        out_dir: Path,
        findings: Sequence[Finding],
        scale: Scale,
        elapsed: float | None,
        *,
        subset: bool = False,
    ) -> Path:
        return write_report(self, Path(out_dir), findings, scale, elapsed, subset=subset)

    def check_figures(self, figures: Iterable[str]) -> list[str]:
        """``figures`` in the registry's order; ``KeyError`` naming the unknown ids and
        listing the known ones."""
        want = list(dict.fromkeys(figures))
        ids = [f.id for f in self.figures]
        if unknown := [w for w in want if w not in ids]:
            raise KeyError(
                f"{self.key}: no figure {', '.join(map(repr, unknown))} (figures: {', '.join(ids)})"
            )
        return [i for i in ids if i in want]

    def reproduce(
        self,
        out_dir: Path,
        *,
        full: bool = False,
        jobs: int | None = None,
        progress: bool = True,
        figures: Iterable[str] | None = None,
    ) -> list[Finding]:
        """``dcnsim reproduce``: every figure (or only ``figures``, by id) at the reduced or
        full scale, then the report. Runs shared with other figures are cached in
        ``out_dir/runs``, so a later full reproduction into the same directory reuses them."""
        import shutil

        out = Path(out_dir)
        subset = self.check_figures(figures) if figures is not None else None
        existed = out.exists()
        t0 = time.monotonic()
        sc = self.scales["full" if full else "reduced"]
        try:
            out.mkdir(parents=True, exist_ok=True)
            fs = self.run(out, sc, subset, jobs=jobs, progress=progress)
            self.write_report(out, fs, sc, time.monotonic() - t0, subset=subset is not None)
        except BaseException:
            # Finished runs are a cache (`out/runs/<hash>/`, each written whole): a failure
            # later (a worker killed, an interrupt) must not take hours of them with it, and
            # the same command resumes from them. Only a directory this call created and that
            # holds no finished run is removed.
            kept = sum(1 for _ in out.glob("runs/*/meta.json"))
            if not existed and not kept:
                shutil.rmtree(out, ignore_errors=True)
            elif kept:
                print(
                    f"dcnsim reproduce: {kept} finished runs kept in {out / 'runs'}; the same "
                    "command resumes from them",
                    file=sys.stderr,
                )
            raise
        return fs


# ---------------------------------------------------------------------------------------------
# plots


def bars(
    ax: Any,
    xs: Sequence[str],
    series: Mapping[str, Sequence[Interval]],
    *,
    xlabel: str,
    ylabel: str,
    ref: float | None = None,
) -> None:
    """Grouped bars with interval whiskers: one group per x value, one bar per series."""
    x = np.arange(len(xs))
    w = 0.8 / max(1, len(series))
    for i, (name, ivs) in enumerate(series.items()):
        est = np.array([iv.est for iv in ivs], dtype=float)
        err = np.array(
            [[max(0.0, iv.est - iv.lo) for iv in ivs], [max(0.0, iv.hi - iv.est) for iv in ivs]]
        )
        err = np.nan_to_num(err)
        ax.bar(x + (i - (len(series) - 1) / 2) * w, est, w, yerr=err, capsize=2, label=name)
    if ref is not None:
        ax.axhline(ref, color="k", lw=0.8)
    ax.set_xticks(x, list(xs))
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.legend(fontsize=8)


def lines(
    ax: Any,
    xs: Sequence[float],
    series: Mapping[str, Sequence[Interval]],
    *,
    xlabel: str,
    ylabel: str,
    ref: float | None = None,
) -> None:
    """Lines with interval bands over a numeric x axis."""
    for name, ivs in series.items():
        est = np.array([iv.est for iv in ivs], dtype=float)
        lo = np.array([iv.lo for iv in ivs], dtype=float)
        hi = np.array([iv.hi for iv in ivs], dtype=float)
        (ln,) = ax.plot(xs, est, marker="o", label=name)
        ax.fill_between(xs, lo, hi, alpha=0.2, color=ln.get_color())
    if ref is not None:
        ax.axhline(ref, color="k", lw=0.8)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)


def per_seed(frames: Iterable[pd.DataFrame], cols: str | Sequence[str]) -> list[np.ndarray]:
    """Per-seed arrays of one column (1-D) or several (2-D rows) for :func:`bootstrap`."""
    out = []
    for f in frames:
        a = f[cols].to_numpy(dtype=float)
        out.append(a)
    return out


def by_id(findings: Sequence[Finding]) -> dict[str, Finding]:
    """A reproduction's findings keyed by figure id."""
    return {f.figure: f for f in findings}
