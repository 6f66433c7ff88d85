"""The reproduction framework's verdict semantics (pure Python, no simulation)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dcnsim.papers import framework as fw
from dcnsim.papers import stats
from dcnsim.papers.framework import HOLDS, INCONCLUSIVE, NO, Interval


def test_band_is_three_valued() -> None:
    assert fw.band(Interval(1.5, 1.2, 1.8), 1, 2) == HOLDS
    assert fw.band(Interval(2.5, 2.2, 2.8), 1, 2) == NO
    assert fw.band(Interval(0.5, 0.2, 0.8), 1, 2) == NO
    # an interval straddling an edge decides nothing, whatever the estimate
    assert fw.band(Interval(1.9, 1.5, 2.3), 1, 2) == INCONCLUSIVE
    assert fw.band(Interval(1.05, 0.9, 1.2), 1) == INCONCLUSIVE
    assert fw.band(Interval(math.nan, math.nan, math.nan), 1) == INCONCLUSIVE


def test_all_of() -> None:
    assert fw.all_of(HOLDS, HOLDS) == HOLDS
    assert fw.all_of(HOLDS, INCONCLUSIVE) == INCONCLUSIVE
    assert fw.all_of(INCONCLUSIVE, NO) == NO
    assert fw.all_of(HOLDS, fw.NA) == INCONCLUSIVE


def test_effect_band_tolerates_a_factor_on_the_excess() -> None:
    lo, hi = fw.effect_band(1.6)
    assert math.isclose(lo, 1.3) and math.isclose(hi, 2.2)
    lo, hi = fw.effect_band(5.7)
    assert math.isclose(lo, 3.35) and math.isclose(hi, 10.4)


def test_bootstrap_interval_covers_and_widens_with_seed_spread() -> None:
    rng = np.random.default_rng(1)
    same = [rng.exponential(1.0, 2000) for _ in range(3)]
    iv = fw.bootstrap(np.mean, same)
    assert iv.lo <= iv.est <= iv.hi and iv.hi - iv.lo < 0.2
    # seeds that disagree (one 3× the others) give a much wider interval: the cluster
    # bootstrap resamples seeds, not only flows
    spread = [same[0], same[1], 3 * same[2]]
    iv2 = fw.bootstrap(np.mean, spread)
    assert iv2.hi - iv2.lo > 3 * (iv.hi - iv.lo)
    # paired rows stay paired
    pairs = [np.column_stack([2 * a, a]) for a in same]
    r = fw.bootstrap(lambda p: p[:, 0].mean() / p[:, 1].mean(), pairs)
    assert math.isclose(r.lo, 2) and math.isclose(r.hi, 2)


def _seed_effect_groups() -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Two configurations on four seeds: the seed sets the scale (×1 … ×8, shared by both),
    configuration b is 1.25× a within each seed, with its own flows."""
    rng = np.random.default_rng(4)
    scale = [1.0, 2.0, 4.0, 8.0]
    a = [k * rng.exponential(1.0, 3000) for k in scale]
    b = [1.25 * k * rng.exponential(1.0, 3000) for k in scale]
    return a, b


def test_bootstrap_pairs_configurations_run_on_the_same_seeds() -> None:
    """Same-seed runs see the same flows (a paired design): labelled with the same seeds, two
    configurations share each replicate's draw of seeds, so the seed-to-seed spread both
    share cancels in their ratio. Unlabelled, it does not, and the ratio decides nothing."""
    a, b = _seed_effect_groups()
    seeds = (11, 12, 13, 14)
    ratio = lambda u, v: float(np.mean(v) / np.mean(u))  # noqa: E731
    indep = fw.bootstrap(ratio, a, b)
    paired = fw.bootstrap(ratio, fw.PerSeed(a, seeds), fw.PerSeed(b, seeds))
    assert indep.est == paired.est
    assert fw.band(indep, 1.1) == INCONCLUSIVE  # straddles: seed spread counted twice
    assert fw.band(paired, 1.1, 1.4) == HOLDS
    assert paired.hi - paired.lo < (indep.hi - indep.lo) / 4
    # the pairing is on seed values, not positions: b listed in another order pairs the same
    rev = fw.PerSeed(b[::-1], seeds[::-1])
    assert fw.bootstrap(ratio, fw.PerSeed(a, seeds), rev) == paired
    # groups of other seeds are resampled independently, exactly as unlabelled ones
    other = fw.PerSeed(b, (21, 22, 23, 24))
    assert fw.bootstrap(ratio, fw.PerSeed(a, seeds), other) == indep
    # a list built from a labelled one (slicing, +) drops the label: never paired by mistake
    assert not isinstance(fw.PerSeed(b, seeds)[:], fw.PerSeed)
    # a single group's interval is what it was before pairing existed (same draws)
    assert fw.bootstrap(np.mean, fw.PerSeed(a, seeds)) == fw.bootstrap(np.mean, a)


def test_bootstrap_draws_the_same_rows_for_the_same_flows() -> None:
    """Where two configurations' rows at a seed are the same flows (same ids, same order),
    a replicate draws the same rows for both: two schemes that give every flow the same FCT
    have a ratio of exactly 1, not an interval around it. Rows of other flows are drawn
    apart."""
    a, _ = _seed_effect_groups()
    seeds = (11, 12, 13, 14)
    ids = [np.arange(len(v)) for v in a]
    ratio = lambda u, v: float(np.percentile(v, 99) / np.percentile(u, 99))  # noqa: E731
    same = fw.bootstrap(ratio, fw.PerSeed(a, seeds, ids), fw.PerSeed(list(a), seeds, ids))
    assert (same.lo, same.est, same.hi) == (1.0, 1.0, 1.0)
    # seeds paired but no flow ids: the flows are drawn apart and the interval straddles 1
    apart = fw.bootstrap(ratio, fw.PerSeed(a, seeds), fw.PerSeed(list(a), seeds))
    assert apart.lo < 1 < apart.hi
    # other flows (ids that differ) are not paired, even at the same seeds
    other = [i[::-1] for i in ids]
    assert (
        fw.bootstrap(ratio, fw.PerSeed(a, seeds, ids), fw.PerSeed(list(a), seeds, other)) == apart
    )
    with pytest.raises(ValueError, match="seed 11: rows and flow ids differ"):
        fw.PerSeed(a, seeds, [i[:-1] for i in ids])


def test_a_widened_share_stays_non_negative() -> None:
    """A share counted on 8 seeds, 6 of which count none (10 flows in 8,000 timing out
    twice): resampling seeds can draw only zeros, so the raw interval starts at 0, while
    resampling rows alone cannot; the seed-to-seed part, widened on the linear scale, must not
    give a negative lower bound (it gave -2.8e-04)."""
    hits = lambda h: np.r_[np.zeros(1000 - h), np.ones(h)]  # noqa: E731
    seeds = [hits(5), hits(5)] + [hits(0)] * 6
    mean = lambda v: float(np.mean(v))  # noqa: E731
    iv = fw.bootstrap(mean, seeds)
    assert iv.lo == 0.0 < iv.est < iv.hi
    # a statistic that can be negative is still widened across zero
    signed = [np.full(1000, -1.0), np.full(1000, 0.5), np.r_[np.zeros(999), 1.0]]
    assert fw.bootstrap(mean, signed).lo < -0.5


def test_student_t_quantiles_and_the_seed_inflation() -> None:
    for df, exact in [(1, 12.706), (2, 4.303), (3, 3.182), (4, 2.776), (7, 2.365), (39, 2.023)]:
        assert stats._t_quantile(0.975, df) == pytest.approx(exact, rel=0.008)
    # sqrt(k / (k - 1)) * t(k - 1) / z: 1 for one seed, large for few, near 1 for many
    assert stats._seed_inflation(1, 0.95) == 1.0
    assert stats._seed_inflation(3, 0.95) == pytest.approx(2.69, abs=0.01)
    assert stats._seed_inflation(8, 0.95) == pytest.approx(1.29, abs=0.01)
    assert stats._seed_inflation(40, 0.95) == pytest.approx(1.045, abs=0.005)


def _coverage(monkeypatch, inflate: bool, n_seeds: int = 3, datasets: int = 60) -> float:
    """Share of synthetic paired experiments whose interval of mean(b) / mean(a) covers the
    true ratio, when the effect itself varies from seed to seed (sd 20% on the log scale)."""
    if not inflate:
        monkeypatch.setattr(stats, "_seed_inflation", lambda k, level: 1.0)
    rng = np.random.default_rng(8)

    def experiment(k: int, flows: int) -> tuple[list, list]:
        scale, eff = np.exp(rng.normal(0, 0.5, k)), 1.25 * np.exp(rng.normal(0, 0.2, k))
        base = [rng.exponential(1.0, flows) for _ in range(k)]
        a = [s * x * rng.lognormal(0, 0.3, flows) for s, x in zip(scale, base, strict=True)]
        b = [
            e * s * x * rng.lognormal(0, 0.3, flows)
            for e, s, x in zip(eff, scale, base, strict=True)
        ]
        return a, b

    a, b = experiment(20_000, 40)  # the ratio over the whole population of seeds
    truth = np.mean(np.concatenate(b)) / np.mean(np.concatenate(a))
    seeds = tuple(range(n_seeds))
    hits = 0
    for t in range(datasets):
        a, b = experiment(n_seeds, 300)
        ids = [np.arange(300)] * n_seeds
        iv = fw.bootstrap(
            lambda u, v: float(np.mean(v) / np.mean(u)),
            fw.PerSeed(a, seeds, ids),
            fw.PerSeed(b, seeds, ids),
            n=100,
            seed=t,
        )
        hits += iv.lo <= truth <= iv.hi
    return hits / datasets


def test_a_paired_interval_covers_the_truth_with_three_seeds(monkeypatch) -> None:
    """With three seeds the bootstrap's spread over seeds underestimates their variation (a
    divisor k, and the normal quantile where Student's t with k - 1 degrees of freedom
    applies): without widening the seed-to-seed part, a 95% interval of a paired ratio covers
    the truth in far fewer than 95% of experiments whose effect varies from seed to seed."""
    assert _coverage(monkeypatch, inflate=True) >= 0.9
    assert _coverage(monkeypatch, inflate=False) < 0.85


def test_seeded_labels_a_producers_arrays_with_the_runs_seeds() -> None:
    from types import SimpleNamespace

    @fw.seeded
    def sizes(runs):
        return [np.asarray(r.sizes, dtype=float) for r in runs]

    runs = [SimpleNamespace(meta={"seed": s}, sizes=[s, s]) for s in (3, 1, 2)]
    out = sizes(runs)
    assert isinstance(out, fw.PerSeed) and out.seeds == (3, 1, 2)
    assert [float(v[0]) for v in out] == [3.0, 1.0, 2.0]
    with pytest.raises(ValueError, match="no seed"):
        sizes([SimpleNamespace(meta={}, sizes=[1])])
    with pytest.raises(ValueError, match="2 arrays but 1 seeds"):
        fw.PerSeed([np.zeros(1), np.zeros(1)], (1,))


def test_the_reproductions_per_seed_arrays_carry_their_seeds() -> None:
    """Every reproduction's per-seed producers label their arrays, so its comparisons of
    schemes are paired on seeds."""
    import pandas as pd

    from dcnsim.papers.lowprio import metrics as lpm
    from dcnsim.papers.reflex import metrics as rfm
    from dcnsim.papers.resqueue import metrics as rqm
    from dcnsim.papers.tlt import metrics as tlm

    flows = pd.DataFrame(
        {
            "flow_id": [7, 9],
            "in_window": [True, True],
            "class": ["regular", "foreground"],
            "fct_s": [1e-3, 2e-3],
            "completed": [True, True],
            "rto_count": [0, 1],
            "max_pkt_drops": [0, 2],
            "priority": [1, 0],
            "size": [1000, 2000],
            "src": [0, 1],
            "dst": [2, 3],
            "start_s": [0.0, 0.1],
        }
    )
    runs = [type("R", (), {"meta": {"seed": s}, "flows": flows})() for s in (5, 6)]
    for got in (
        rqm.short_fct(runs),
        rqm._rto_share(runs, 1),
        tlm._fct(runs, "foreground"),
        tlm._col(runs, "rto_count"),
        rfm._reg_fct(runs),
        lpm.low_fct(runs),
        lpm.pairs(runs, runs),
    ):
        assert isinstance(got, fw.PerSeed) and got.seeds == (5, 6)
    # rows that are flows carry their flow ids (the flows paired across schemes)
    assert [list(i) for i in rqm.short_fct(runs).ids] == [[7, 9], [7, 9]]
    assert [list(i) for i in tlm._fct(runs, "foreground").ids] == [[9], [9]]
    with pytest.raises(ValueError, match="seed 5 matched with 6"):
        lpm.pairs(runs[:1], runs[1:])


def test_bootstrap_keeps_infinite_tails() -> None:
    # unfinished flows are +inf: an interval reaching into them is [finite or inf, inf], not nan
    rng = np.random.default_rng(2)
    seeds = [np.concatenate([rng.exponential(1.0, 990), np.full(10, np.inf)]) for _ in range(2)]
    iv = fw.bootstrap(lambda v: np.percentile(v, 99.5, method="higher"), seeds)
    assert not math.isnan(iv.hi) and iv.hi == math.inf
    assert fw.band(iv, 0, 5) in (NO, INCONCLUSIVE)


def test_a_failed_reproduction_keeps_its_finished_runs(tmp_path, monkeypatch, capsys) -> None:
    """A reproduction that fails after some runs finished (e.g. a worker killed by the kernel)
    keeps them in out/runs so the same command resumes; one that finished nothing leaves no
    directory behind."""
    from dcnsim.papers import reflex

    def fail_after_one_run(self, out, *a, **k):
        d = out / "runs" / "abc"
        d.mkdir(parents=True)
        (d / "meta.json").write_text("{}")
        raise RuntimeError("worker terminated abruptly")

    monkeypatch.setattr(fw.Reproduction, "run", fail_after_one_run)
    out = tmp_path / "repro"
    with pytest.raises(RuntimeError, match="abruptly"):
        reflex.REPRO.reproduce(out, progress=False)
    assert (out / "runs" / "abc" / "meta.json").exists()
    assert "1 finished runs kept" in capsys.readouterr().err

    def fail_at_once(self, out, *a, **k):
        raise RuntimeError("bad")

    monkeypatch.setattr(fw.Reproduction, "run", fail_at_once)
    out2 = tmp_path / "repro2"
    with pytest.raises(RuntimeError, match="bad"):
        reflex.REPRO.reproduce(out2, progress=False)
    assert not out2.exists()


def _toy_repro() -> fw.Reproduction:
    """Figures that need no runs: each evaluates a bootstrap, notes the process that
    evaluated it and draws a plot."""
    import os

    def make(i: int) -> fw.Figure:
        def evaluate(c: fw.Ctx, fd: fw.Finding) -> None:
            rng = np.random.default_rng(i)
            seeds = [rng.exponential(1.0 + i, 3000) for _ in range(3)]
            iv = fw.bootstrap(lambda v: np.percentile(v, 99), seeds)
            fd.stats["p99"] = iv
            fd.verdict = fw.band(iv, 0, 4 + i)
            fd.ours = f"p99 {iv}"
            fd.note = f"pid {os.getpid()}"
            fd.plot = lambda ax: ax.plot(np.sort(seeds[0]), label=f"figure {i}")

        return fw.Figure(f"F{i}", f"claim {i}", "p99 in band", [lambda c: None], evaluate)

    return fw.Reproduction(
        key="toy",
        title="Toy",
        figures=[make(i) for i in range(4)],
        scales={"reduced": fw.Scale("reduced", (1,))},
    )


def test_parallel_evaluation_gives_the_serial_findings_and_files(tmp_path) -> None:
    """With jobs > 1 the figures are evaluated (and their plots drawn) in forked processes:
    the findings, report.csv and the PNGs are those of evaluating them one by one."""
    import os

    repro = _toy_repro()
    out = {}
    for jobs in (1, 2):
        d = tmp_path / f"j{jobs}"
        fs = repro.run(d, "reduced", jobs=jobs)
        repro.write_report(d, fs, repro.scales["reduced"], None)
        out[jobs] = (d, fs)
    (d1, serial), (d2, parallel) = out[1], out[2]
    assert all(f.note == f"pid {os.getpid()}" for f in serial)
    assert all(f.note != f"pid {os.getpid()}" for f in parallel)  # evaluated elsewhere
    for a, b in zip(serial, parallel, strict=True):
        assert (a.figure, a.verdict, a.ours, a.stats) == (b.figure, b.verdict, b.ours, b.stats)
    import pandas as pd

    csv1, csv2 = (pd.read_csv(d / "report.csv").drop(columns="note") for d in (d1, d2))
    pd.testing.assert_frame_equal(csv1, csv2)  # every column but the evaluating pid
    for i in range(4):
        png = f"figures/F{i}.png"
        assert (d1 / png).read_bytes() == (d2 / png).read_bytes()
    html = (d2 / "report.html").read_text()
    assert html.count("<img") == 4  # the plots drawn by the evaluators are in the report


def test_threaded_bootstrap_gives_the_serial_interval(monkeypatch) -> None:
    """Replicates are computed on BOOT_THREADS threads (the draws stay in order on one
    generator): the interval is the same as on one thread, to the bit."""
    import threading

    rng = np.random.default_rng(3)
    single = [rng.exponential(1.0, 20_000) for _ in range(3)]
    pairs = [
        np.column_stack([rng.exponential(2.0, k), rng.exponential(1.0, k)]) for k in (9_000, 4)
    ]
    seen: set[int] = set()

    def p99_ratio(a: np.ndarray, p: np.ndarray) -> float:
        seen.add(threading.get_ident())
        return float(np.percentile(a, 99) / np.percentile(p[:, 0] / p[:, 1], 50))

    out = {}
    for threads in (1, 2):
        monkeypatch.setattr(stats, "BOOT_THREADS", threads)
        seen.clear()
        out[threads] = fw.bootstrap(p99_ratio, single, pairs, n=60)
        used = set(seen)
    assert out[1] == out[2]
    # the same with groups paired on seeds and flows
    seeds, ids = (1, 2, 3), [np.arange(len(v)) for v in single]
    twin = [2 * v for v in single]
    paired = {}
    for threads in (1, 2):
        monkeypatch.setattr(stats, "BOOT_THREADS", threads)
        paired[threads] = fw.bootstrap(
            lambda u, v: float(np.percentile(u, 99) / np.percentile(v, 50)),
            fw.PerSeed(single, seeds, ids),
            fw.PerSeed(twin, seeds, ids),
            n=60,
        )
    assert paired[1] == paired[2]
    assert used - {threading.get_ident()}  # replicates ran on the pool's threads


def test_parallel_evaluation_is_skipped_when_the_runs_would_not_fit_in_memory(
    tmp_path, monkeypatch
) -> None:
    """Parallel evaluation loads every run first: when their estimated size reaches the
    memory share (here: a machine with no memory), the figures are evaluated in-process."""
    import os

    monkeypatch.setattr(fw, "_phys_mem", lambda: 0.0)
    repro = _toy_repro()
    fs = repro.run(tmp_path / "out", "reduced", jobs=2)
    assert all(f.note == f"pid {os.getpid()}" for f in fs)


def test_the_pool_keeps_loaded_runs_within_the_memory_share(tmp_path, monkeypatch) -> None:
    """Loaded runs are cached least recently used first, within MEMORY_SHARE of the physical
    memory (each counted at its tables' loaded size): beyond it the oldest is dropped (and
    loaded again if read again); a run larger than the share alone is still kept while it is
    the newest."""
    from types import SimpleNamespace

    pool = fw.Pool(tmp_path, 1, False)
    loads: list[str] = []

    def load(self, h):
        loads.append(h)
        return SimpleNamespace(h=h, size=5000 if h == "h3" else 1000)

    monkeypatch.setattr(fw.Pool, "_load", load)
    monkeypatch.setattr(fw, "_results_bytes", lambda res: float(res.size))
    for i in range(4):
        pool.done[i] = SimpleNamespace(hash=f"h{i}")
    # Room for two 1000-byte runs.
    monkeypatch.setattr(fw, "_phys_mem", lambda: 2000 / fw.MEMORY_SHARE)
    a = pool.get(0)
    assert pool.get(0) is a and loads == ["h0"]
    pool.get(1)
    pool.get(0)  # 0 is now the most recently used
    pool.get(2)  # drops 1
    assert list(pool._cache) == ["h0", "h2"]
    pool.get(1)
    assert loads == ["h0", "h1", "h2", "h1"]
    pool.get(3)  # larger than the room: kept alone
    assert list(pool._cache) == ["h3"]
    assert pool._held == 5000


def test_a_reproduction_loads_only_the_flow_columns_it_declares(tmp_path, real_core) -> None:
    """``Reproduction.flow_columns``: the pool's runs keep only those flows columns (a
    full-scale ResQueue run: 14 MB loaded instead of 95 MB), in that order, and their size
    in the cache is what they hold; a column the runs lack is a KeyError naming it."""

    def plan(c: fw.Ctx) -> None:
        c.add("run", "incast", {"run.duration": "12ms", "run.horizon": "30ms"}, 1)

    def evaluate(c: fw.Ctx, fd: fw.Finding) -> None:
        fd.ours = ",".join(c.get("run").flows.columns)

    fig = fw.Figure("F", "claim", "rule", [plan], evaluate)
    scales = {"reduced": fw.Scale("reduced", (1,))}
    cols = ("fct_s", "flow_id")
    repro = fw.Reproduction("toy", "Toy", [fig], scales, flow_columns=cols)
    (fd,) = repro.run(tmp_path, "reduced", jobs=1)
    assert fd.ours == "fct_s,flow_id"
    h = next((tmp_path / "runs").iterdir()).name
    part, full = fw.Pool(tmp_path, 1, False, cols)._load(h), fw.Pool(tmp_path, 1, False)._load(h)
    assert len(full.flows) > 0 and len(full.flows.columns) > 40
    assert part.flows.equals(full.flows[list(cols)])
    fb, pb = (r.flows.memory_usage(deep=True).sum() for r in (full, part))
    assert pb < fb / 5
    assert fw._results_bytes(full) - fw._results_bytes(part) == fb - pb
    with pytest.raises(KeyError, match="'fct_typo'"):
        fw.Pool(tmp_path, 1, False, ("fct_s", "fct_typo"))._load(h)
    with pytest.raises(TypeError, match="flow_columns: a sequence"):
        fw.load_results(tmp_path / "runs" / h, flow_columns="fct_s")


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
def test_a_percentile_selected_from_a_resample_is_numpys_to_the_bit() -> None:
    """Pct on a lazy replicate (its two order statistics selected among the rows above a
    threshold, not among all rows) gives what np.percentile gives on the gathered rows, to
    the bit: at every q the reproductions use and at the edges (one row, q = 0 and 100), with
    ties, with unfinished flows (+inf, where numpy's nan reads as +inf; numpy warns as it
    interpolates them) and with NaN rows."""
    rng = np.random.default_rng(11)
    qs = (0.0, 1.0, 50.0, 90.0, 99.0, 99.9, 100.0)
    for case in range(300):
        k = int(rng.integers(1, 4))
        sizes = rng.integers(0 if case % 7 else 1, 60 if case % 3 else 3000, k)
        # seeds of scales far apart: a replicate of the small ones has no row above the
        # threshold the pooled rows give (the selection's fallback)
        arrays = [
            np.round(rng.exponential(10.0 ** int(rng.integers(-2, 3)), n), int(rng.integers(1, 4)))
            for n in sizes
        ]
        for a in arrays:
            if len(a) and case % 4 == 0:
                a[rng.integers(0, len(a), 1 + len(a) // 20)] = np.inf
            if len(a) and case % 29 == 0:
                a[rng.integers(0, len(a))] = np.nan
        pooled = stats._Sorted.of(arrays)
        if pooled is None:
            continue
        for fixed in (False, True):
            d = stats._draw([arrays], rng, fixed=fixed)[0]
            gathered = stats._gather([arrays], [d])[0]
            lazy = stats.Resample(pooled, d)
            assert len(lazy) == len(gathered)
            for q in qs:
                want, got = stats.Pct(q)(gathered), stats.Pct(q)(lazy)
                assert (math.isnan(want) and math.isnan(got)) or want == got, (case, q, want, got)
            assert np.array_equal(np.asarray(lazy), gathered, equal_nan=True)


def test_a_lazy_bootstrap_gives_the_eager_interval() -> None:
    """bootstrap(..., lazy=True) hands ``stat`` Resamples instead of gathered arrays: the
    same draws, so the same interval to the bit (paired groups included), and a ``stat``
    that reads a Resample otherwise than through Pct gets the gathered rows."""
    rng = np.random.default_rng(5)
    a = [rng.exponential(1.0, n) for n in (4000, 3500, 4200)]
    b = [2 * v + rng.exponential(0.1, len(v)) for v in a]
    seeds, ids = (1, 2, 3), [np.arange(len(v)) for v in a]
    ga, gb = fw.PerSeed(a, seeds, ids), fw.PerSeed(b, seeds, ids)
    p99, p999 = stats.Pct(99), stats.Pct(99.9)

    def ratio(u, v):
        return p99(u) / p999(v)

    assert fw.bootstrap(ratio, ga, gb, n=80, lazy=True) == fw.bootstrap(ratio, ga, gb, n=80)
    mean = lambda u: float(np.mean(u))  # noqa: E731
    assert fw.bootstrap(mean, a, n=40, lazy=True) == fw.bootstrap(mean, a, n=40)
