"""Intervals and verdicts of the reproductions (see :mod:`dcnsim.papers.framework`).

Verdicts (:func:`band`, :func:`all_of`) are three-valued: ``holds`` when the whole confidence
interval of the statistic lies inside the band the claim allows, ``no`` when it lies wholly
outside, ``inconclusive`` when it straddles an edge. Intervals come from a cluster bootstrap
(:func:`bootstrap`): seeds are resampled with replacement, then flows within each chosen seed,
so both seed-to-seed and flow-to-flow variation widen the interval.

Seeds are paired across configurations: runs with the same seed draw the same random streams
(where only the scheme or the fabric differs, the same arrivals, sizes and pairs), so a
comparison of two configurations is a paired design, and resampling each one's seeds
independently would count the seed-to-seed variation that both share as noise in their ratio.
Joint resampling is valid whatever the dependence between them, since the seeds (each with
all its configurations' runs) are the independent units. Per-seed arrays labelled with their
seeds (:class:`PerSeed`, made by :func:`seeded` / :func:`by_seed`) that carry the same seeds
are resampled with one draw of seeds per replicate; flows within a seed are still drawn per
configuration, except where two groups' rows at a seed are the same flows in the same order
(labelled with flow ids): those share the rows drawn, so a flow's FCT under one scheme is
resampled with its FCT under the other. Unlabelled groups, or groups with other seeds, are
resampled independently.

Few seeds: resampling k seeds spreads the replicates by the seeds' variance with divisor k,
and a 95% interval over k clusters needs Student's t with k − 1 degrees of freedom, not the
normal quantile. So the seed-to-seed part of every interval is widened by
sqrt(k/(k−1))·t(k−1)/z (:func:`_seed_inflation`: 2.69 for 3 seeds, 1.29 for 8, 1.05 for 40):
a second bootstrap that keeps every seed and resamples only rows gives the within-seed
spread, the rest of the interval's half-width (in quadrature) is the seeds' part, and only
that part is widened, on the log scale for a positive statistic. In synthetic paired
experiments whose effect varies from seed to seed (tests/python/test_papers_framework.py),
this takes a 95% interval's coverage with three seeds from 0.82 to 0.98.

Magnitude tolerance (:func:`effect_band`): a quoted effect g (a ratio, "1.6×") holds if ours
is within a factor :data:`TOL` of the paper's *excess over 1*: [1 + (g−1)/TOL, 1 + (g−1)·TOL].
"""

from __future__ import annotations

import functools
import hashlib
import math
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

import numpy as np

#: Factor on a quoted effect's excess over 1 that still counts as the paper's magnitude.
TOL = 2.0
#: Bootstrap replicates and confidence level of every interval.
BOOT = 200
LEVEL = 0.95

HOLDS, NO, INCONCLUSIVE, NA = "holds", "no", "inconclusive", "n/a"


@dataclass(frozen=True)
class Interval:
    """A statistic (on all seeds pooled) and its bootstrap confidence interval."""

    est: float
    lo: float
    hi: float

    def __str__(self) -> str:
        return f"{_g(self.est)} [{_g(self.lo)}, {_g(self.hi)}]"

    def scaled(self, k: float) -> Interval:
        return Interval(self.est * k, self.lo * k, self.hi * k)


def _g(x: float) -> str:
    if x is None or not np.isfinite(x):
        return "nan" if x is None or np.isnan(x) else ("inf" if x > 0 else "-inf")
    a = abs(x)
    return f"{x:.3g}" if a >= 0.01 or a == 0 else f"{x:.2e}"


class PerSeed(list):
    """Per-seed arrays of one configuration, labelled with the seed each came from
    (``seeds[i]`` is the seed of ``self[i]``) and optionally with the flow of each row
    (``ids[i][k]`` is the flow id of row k of seed i). :func:`bootstrap` resamples groups
    that carry the same seeds jointly, and draws the same rows for groups whose rows are the
    same flows. Operations that build a new list (slicing, ``+``) drop the labels, which
    makes the result an independently resampled group, never a wrongly paired one."""

    def __init__(
        self,
        arrays: Sequence[np.ndarray],
        seeds: Sequence[int],
        ids: Sequence[np.ndarray] | None = None,
    ) -> None:
        super().__init__(arrays)
        if len(seeds) != len(self):
            raise ValueError(f"{len(self)} arrays but {len(seeds)} seeds")
        self.seeds = tuple(int(s) for s in seeds)
        self.ids: list[np.ndarray] | None = None
        if ids is not None:
            ids = [np.asarray(x, dtype=np.int64) for x in ids]
            bad = [i for i, (a, x) in enumerate(zip(self, ids, strict=True)) if len(a) != len(x)]
            if bad:
                raise ValueError(f"seed {self.seeds[bad[0]]}: rows and flow ids differ in length")
            self.ids = ids


def _seed_of(run: Any) -> int:
    s = getattr(run, "meta", {}).get("seed")
    if s is None:
        raise ValueError(f"{run!r} has no seed in its meta: cannot pair it")
    return int(s)


def by_seed(
    runs: Sequence[Any], arrays: Sequence[np.ndarray], ids: Sequence[Any] | None = None
) -> PerSeed:
    """``arrays`` (one per run, in order) labelled with the runs' seeds, and with each row's
    flow id if ``ids`` is given (one sequence per run)."""
    return PerSeed(arrays, [_seed_of(r) for r in runs], ids)


#: What a :func:`seeded` producer returns when each row is one flow: the arrays per run and the
#: rows' flow ids per run.
FlowRows = tuple[list[np.ndarray], list[np.ndarray]]


def seeded(f: Callable[..., Any]) -> Callable[..., PerSeed]:
    """Decorates a function of ``(runs, ...)`` that returns one array per run, or a pair
    (arrays, flow ids per run) when each row is one flow: its result is labelled with the
    runs' seeds (and the rows' flows) as a :class:`PerSeed`."""

    @functools.wraps(f)
    def g(runs: Sequence[Any], *a: Any, **kw: Any) -> PerSeed:
        runs = list(runs)
        res = f(runs, *a, **kw)
        return by_seed(runs, *res) if isinstance(res, tuple) else by_seed(runs, res)

    return g


def _pairing(groups: Sequence[Sequence[np.ndarray]]) -> list[tuple | None]:
    """How each group is resampled: None on its own (unlabelled, or a seed repeated), else
    ``(key, pos, rows)``: ``key`` its sorted seeds (groups with the same key share each
    replicate's pick of seeds), ``pos`` the positions of those seeds in the group, and
    ``rows[i]`` a token for seed i's flows (groups of one key whose flows at a seed are the
    same ids, in the same order, share the rows drawn there) or None (rows drawn alone)."""
    tokens: dict[tuple, int] = {}
    out: list[tuple | None] = []
    for g in groups:
        s = getattr(g, "seeds", None)
        if s is None or len(set(s)) != len(s) or len(s) != len(g) or not len(s):
            out.append(None)
            continue
        key = tuple(sorted(s))
        ids = getattr(g, "ids", None)
        rows = [
            None if ids is None else tokens.setdefault((key, s[i], *_digest(ids[i])), len(tokens))
            for i in range(len(g))
        ]
        out.append((key, np.argsort(np.asarray(s), kind="stable"), rows))
    return out


def _digest(ids: np.ndarray) -> tuple[int, bytes]:
    """A seed's flow ids as (count, 128-bit hash): equal for the same ids in the same order,
    without keeping a copy of them."""
    a = np.ascontiguousarray(ids, dtype=np.int64)
    return len(a), hashlib.blake2b(memoryview(a).cast("B"), digest_size=16).digest()


def _draw(
    groups: Sequence[Sequence[np.ndarray]],
    rng: np.random.Generator,
    plan: list | None = None,
    fixed: bool = False,
) -> list:
    """One replicate's draws: per group, the seeds picked (with replacement) and for each
    pick the rows drawn from that seed (None for an empty one, which draws nothing).

    Groups labelled with the same seeds (``plan`` from :func:`_pairing`) share one pick of
    seeds (a paired design: the i-th sorted seed of one is the i-th of the other), and at
    each pick the groups whose rows there are the same flows share the rows drawn; other
    rows are drawn for each group on its own. ``fixed``: every seed once, only the rows
    resampled (the within-seed part of the variation, :func:`_seed_inflation`)."""
    plan = plan if plan is not None else [None] * len(groups)
    picks: dict[tuple[int, ...], np.ndarray] = {}
    shared_rows: dict[tuple[int, int], np.ndarray] = {}
    out = []
    for seeds, pl in zip(groups, plan, strict=True):
        if pl is None:
            pick = np.arange(len(seeds)) if fixed else rng.integers(0, len(seeds), len(seeds))
            out.append([(i, _rows(rng, len(seeds[i]))) for i in pick])
            continue
        key, pos, toks = pl
        if key not in picks:
            k = len(seeds)
            picks[key] = np.arange(k) if fixed else rng.integers(0, k, k)
        d = []
        for j, k in enumerate(picks[key]):
            i = int(pos[k])
            t = toks[i]
            if t is None:
                d.append((i, _rows(rng, len(seeds[i]))))
            else:
                if (j, t) not in shared_rows:
                    shared_rows[(j, t)] = _rows(rng, len(seeds[i]))
                d.append((i, shared_rows[(j, t)]))
        out.append(d)
    return out


def _rows(rng: np.random.Generator, n: int) -> np.ndarray | None:
    return rng.integers(0, n, n) if n else None


def _gather(groups: Sequence[Sequence[np.ndarray]], draws: list) -> list:
    """The resampled arrays of one replicate's draws."""
    out = []
    for seeds, d in zip(groups, draws, strict=True):
        parts = [seeds[i][rows] if rows is not None else seeds[i] for i, rows in d]
        out.append(np.concatenate(parts) if parts else np.empty(0))
    return out


class Pct:
    """The q-th percentile of a sample, as ``np.percentile``'s default (linear) method gives
    it: nan for an empty sample, and +inf where numpy gives nan, i.e. where the percentile
    falls among unfinished flows (+inf: numpy interpolates between two infinities to nan).

    Given a :class:`Resample` (a replicate of :func:`bootstrap` with ``lazy=True``) it selects
    the two order statistics it needs among the few rows above a threshold instead of
    partitioning every row, with the same result to the last bit
    (tests/python/test_papers_framework.py checks it against ``np.percentile``)."""

    __slots__ = ("q",)

    def __init__(self, q: float) -> None:
        self.q = float(q)

    def __call__(self, v: Any) -> float:
        if not len(v):
            return math.nan
        x = v.percentile(self.q) if isinstance(v, Resample) else float(np.percentile(v, self.q))
        return math.inf if math.isnan(x) else x


class _Sorted:
    """A group of per-seed 1-D arrays and their pooled rows sorted (once per bootstrap): a
    replicate's order statistics lie near the pooled ones, which give the thresholds."""

    def __init__(self, group: Sequence[np.ndarray]) -> None:
        self.group = group
        pooled = np.concatenate([np.asarray(a, dtype=float) for a in group])
        self.sorted = np.sort(pooled)  # NaNs last
        self.nan = bool(np.isnan(self.sorted[-1]))

    @staticmethod
    def of(group: Sequence[np.ndarray]) -> _Sorted | None:
        ok = len(group) and all(np.ndim(a) == 1 for a in group)
        return _Sorted(group) if ok and sum(len(a) for a in group) else None


class Resample:
    """One replicate of a group in :func:`bootstrap` with ``lazy=True``: its rows drawn and
    gathered, and the group's pooled order for :class:`Pct`. Anything else than a
    :class:`Pct` gets the gathered array (``np.asarray``), the same as an eager bootstrap's."""

    __slots__ = ("_g", "_r")

    def __init__(self, pooled: _Sorted, draws: list) -> None:
        self._r = pooled
        self._g = _gather([pooled.group], [draws])[0]

    def __len__(self) -> int:
        return len(self._g)

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        return self._g if dtype is None else self._g.astype(dtype)

    def percentile(self, q: float) -> float:
        """``np.percentile`` of the rows, numpy's arithmetic step by step (linear method:
        numpy/lib/_function_base_impl.py, ``_quantile``, ``_get_indexes``, ``_lerp``); its
        two order statistics are selected among the rows at or above a threshold taken
        from the pooled rows, with room to spare (all rows if too few are above it)."""
        g, r = self._g, self._r
        if r.nan and np.isnan(g).any():
            return math.nan  # numpy's percentile of rows with a NaN
        m = len(g)
        virtual = (m - 1) * (q / 100.0)
        if virtual >= m - 1:  # numpy takes the last row twice, its "previous index" being -1
            lo = hi = m - 1
            gamma = virtual - -1
        else:
            lo = math.floor(virtual)
            hi = lo + 1
            gamma = virtual - lo
        need = m - lo  # rows from the lower order statistic up
        n = len(r.sorted)
        cut = n - min(n, 2 * need * n // m + 64)
        top = g[g >= r.sorted[cut]] if cut > 0 and 4 * need < m else g
        if len(top) < need:
            top = g
        base = m - len(top)
        part = np.partition(top, (lo - base, hi - base) if hi > lo else lo - base)
        a, b = float(part[lo - base]), float(part[hi - base])
        with np.errstate(invalid="ignore"):
            d = np.float64(b) - np.float64(a)
            x = np.float64(a) + d * gamma
            if gamma >= 0.5:
                x = np.float64(b) - d * (1 - gamma)
        return float(x)


def _lazy(groups: Sequence[Sequence[np.ndarray]], sorted_: list, draws: list) -> list:
    """A replicate's groups: a :class:`Resample` where the group's rows are sorted (1-D
    arrays), else the gathered rows."""
    return [
        Resample(so, d) if so is not None else _gather([g], [d])[0]
        for g, so, d in zip(groups, sorted_, draws, strict=True)
    ]


#: Threads that evaluate a bootstrap's replicates (the draws stay on one generator, in
#: order; gathering the rows and computing the statistic, mostly numpy calls that can run
#: outside the GIL, run on these threads). 1 = all on the calling thread.
BOOT_THREADS = max(1, min(4, os.cpu_count() or 1))
#: Below this many rows a bootstrap runs on the calling thread (threads would cost more).
BOOT_THREAD_ROWS = 20_000


def _replicates(
    stat: Callable[..., float],
    groups: Sequence[Sequence[np.ndarray]],
    n: int,
    seed: int,
    fixed: bool = False,
    sorted_: list | None = None,
) -> np.ndarray:
    """``n`` bootstrap replicates of ``stat``. The generator's draws are the same whatever
    the threads (drawn in replicate order on this thread), so the replicates are too.
    ``sorted_`` (one :class:`_Sorted` or None per group): hand ``stat`` a :class:`Resample`
    for each such group instead of its gathered rows."""
    rng = np.random.default_rng(seed)
    plan = _pairing(groups)
    rows = sum(len(a) for g in groups for a in g)
    threads = BOOT_THREADS if rows >= BOOT_THREAD_ROWS else 1

    def rep(d: list) -> float:
        return stat(*(_gather(groups, d) if sorted_ is None else _lazy(groups, sorted_, d)))

    if threads <= 1:
        return np.array([rep(_draw(groups, rng, plan, fixed)) for _ in range(n)], dtype=float)
    from collections import deque
    from concurrent.futures import ThreadPoolExecutor

    out: list[float] = []
    with ThreadPoolExecutor(threads) as ex:
        pending: deque = deque()
        for _ in range(n):
            d = _draw(groups, rng, plan, fixed)
            pending.append(ex.submit(rep, d))
            if len(pending) > 2 * threads:  # bounded: a replicate's draws are as big as its rows
                out.append(pending.popleft().result())
        out.extend(f.result() for f in pending)
    return np.array(out, dtype=float)


def bootstrap(
    stat: Callable[..., float],
    *groups: Sequence[np.ndarray],
    n: int = BOOT,
    level: float = LEVEL,
    seed: int = 0,
    lazy: bool = False,
) -> Interval:
    """``stat(*arrays)`` on the pooled data and its cluster-bootstrap interval.

    Each group is one configuration's per-seed arrays (rows may be tuples: pass 2-D arrays
    for paired data such as matched TCP / Near-Opt FCTs). Seeds are resampled with
    replacement, then rows within each seed. Groups labelled with the same seeds
    (:class:`PerSeed`) share each replicate's pick of seeds (same-seed runs draw the same
    random streams), and where their rows at a seed are the same flows, the rows drawn
    there; other groups are resampled independently. The seeds' part of the interval is then
    widened for the number of seeds (:func:`_seed_inflation`; a second set of ``n``
    replicates, every seed kept, measures the rest).

    ``lazy``: ``stat`` receives each group of 1-D arrays as a :class:`Resample`, from which a
    :class:`Pct` selects its percentile among the top rows only (the same values, far less
    work on large groups); use it when ``stat`` reads its groups through :class:`Pct`
    (anything else it does with one gets the gathered rows)."""
    pooled = [np.concatenate(list(g)) if len(g) else np.empty(0) for g in groups]
    if any(len(p) == 0 for p in pooled):
        return Interval(math.nan, math.nan, math.nan)
    est = float(stat(*pooled))
    sorted_ = [_Sorted.of(g) for g in groups] if lazy else None
    lo, hi = _percentiles(_replicates(stat, groups, n, seed, sorted_=sorted_), level)
    if np.isnan(lo) or np.isnan(hi):
        return Interval(est, math.nan, math.nan)
    # the pooled estimate is always inside its own interval
    lo, hi = min(lo, est), max(hi, est)
    c = _seed_inflation(min(len(g) for g in groups), level)
    if c > 1 and math.isfinite(est):
        wlo, whi = _percentiles(
            _replicates(stat, groups, n, seed + 1, fixed=True, sorted_=sorted_), level
        )
        wlo, whi = min(wlo, est), max(whi, est)  # nan (no finite replicate) stays nan
        # a positive statistic (a ratio, a percentile) is widened on the log scale, so its
        # interval stays positive; any other on its own scale, and one whose replicates'
        # intervals both start at zero or above (a share, a count) keeps its lower bound at
        # zero or above: widening must not make a share negative
        nonneg = min(lo, wlo) >= 0
        f, g = (math.log, math.exp) if min(lo, wlo) > 0 else (float, float)
        lo = g(f(est) - _inflate(f(est) - f(lo), f(est) - f(wlo), c))
        hi = g(f(est) + _inflate(f(hi) - f(est), f(whi) - f(est), c))
        if nonneg:
            lo = max(lo, 0.0)
    return Interval(est, float(lo), float(hi))


def _percentiles(reps: np.ndarray, level: float) -> tuple[float, float]:
    """The replicates' equal-tailed percentile interval (nan if every replicate is nan)."""
    reps = reps[~np.isnan(reps)]
    if not reps.size:
        return math.nan, math.nan
    a = (1 - level) / 2
    with np.errstate(invalid="ignore"):
        lo, hi = np.quantile(reps, [a, 1 - a])
    if np.isnan(lo) or np.isnan(hi):  # interpolated between infinities: take the order statistic
        lo, hi = np.quantile(reps, [a, 1 - a], method="inverted_cdf")
    return float(lo), float(hi)


def _seed_inflation(k: int, level: float) -> float:
    """How much wider the seed-to-seed part of an interval must be with ``k`` seeds: the
    bootstrap's spread over k resampled clusters estimates their variance with divisor k, not
    k − 1, and a level-``level`` interval over k clusters takes Student's t with k − 1 degrees
    of freedom, not the normal quantile. 1 for one seed (no seed-to-seed part)."""
    if k < 2:
        return 1.0
    p = 1 - (1 - level) / 2
    return math.sqrt(k / (k - 1)) * _t_quantile(p, k - 1) / NormalDist().inv_cdf(p)


def _t_quantile(p: float, df: int) -> float:
    """Student's t quantile: exact for 1 and 2 degrees of freedom, else the Cornish-Fisher
    expansion to the third order in 1/df (within 0.8% of the exact value at df = 3, closer
    above)."""
    if df == 1:
        return math.tan(math.pi * (p - 0.5))
    if df == 2:
        return (2 * p - 1) / math.sqrt(2 * p * (1 - p))
    z = NormalDist().inv_cdf(p)
    g1 = (z**3 + z) / 4
    g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96
    g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384
    return z + g1 / df + g2 / df**2 + g3 / df**3


def _inflate(total: float, within: float, c: float) -> float:
    """One side of an interval (its distance from the estimate) with its seed-to-seed part
    widened ``c`` times: total² = within² + seeds², widened to within² + c²·seeds²."""
    if not math.isfinite(total) or not math.isfinite(within):
        return total
    seeds2 = max(total * total - within * within, 0.0)
    return math.sqrt(min(within, total) ** 2 + c * c * seeds2)


def band(iv: Interval, lo: float = -math.inf, hi: float = math.inf) -> str:
    """``holds`` if the interval lies in [lo, hi], ``no`` if wholly outside, else
    ``inconclusive`` (an interval that straddles an edge decides nothing)."""
    if np.isnan(iv.est) or np.isnan(iv.lo) or np.isnan(iv.hi):
        return INCONCLUSIVE
    if iv.lo >= lo and iv.hi <= hi:
        return HOLDS
    if iv.hi < lo or iv.lo > hi:
        return NO
    return INCONCLUSIVE


def effect_band(g: float, tol: float = TOL) -> tuple[float, float]:
    """The band around a quoted effect ``g`` (> 1): its excess over 1 within a factor tol."""
    return 1 + (g - 1) / tol, 1 + (g - 1) * tol


def all_of(*verdicts: str) -> str:
    """Conjunction: ``no`` if any is no, else ``inconclusive`` if any is, else ``holds``."""
    if any(v == NO for v in verdicts):
        return NO
    if any(v in (INCONCLUSIVE, NA) for v in verdicts):
        return INCONCLUSIVE
    return HOLDS


def exact(ok: bool) -> str:
    """A verdict on an exact count (no sampling interval applies, e.g. a maximum)."""
    return HOLDS if ok else NO
