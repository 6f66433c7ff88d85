"""Parameter sweeps: cartesian product of parameter values × seeds, run in parallel, cached.

Layout of ``out_dir``::

    out_dir/runs/<config_hash>/   one saved Results per distinct normalized scenario
    out_dir/sweep.parquet         one row per (parameter point, seed) with key metrics

Each run is keyed by the hash of its normalized scenario (which includes the seed), so a run that
is already complete is never recomputed: an interrupted sweep, rerun with the same arguments,
resumes where it stopped. Saves are atomic, so a killed run leaves only a hidden temporary
directory, which the next sweep removes.

Scaling out: ``shard=(i, n)`` runs only the runs whose position in the (deterministic) run list
is ``i`` modulo ``n`` (0 ≤ i < n). Give each machine or array task its own ``i`` with a shared
``out_dir`` (or copy the ``runs/`` directories together afterwards), then call with
``collect=True`` to build ``sweep.parquet`` from the cache without running anything. Or use
``backend="ray"``: the runs become Ray tasks on a cluster (``pip install 'dcnsim[ray]'``), saved
into the same cache by the same code.
"""

from __future__ import annotations

import itertools
import json
import multiprocessing
import numbers
import os
import shutil
import sys
import warnings
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from . import _native, analysis, api, config
from .errors import DcnsimWarning
from .progress import Progress
from .results import SCHEMAS, Results, clean_stale_temp, is_complete, load
from .runcost import run_cost


@dataclass(frozen=True)
class SweepRun:
    """One point of the sweep: parameter values, seed and the prepared scenario."""

    index: int
    params: dict[str, Any]
    seed: int
    prepared: config.Prepared = field(repr=False)

    @property
    def hash(self) -> str:
        return self.prepared.hash


class SweepError(RuntimeError):
    """Some runs of a sweep failed (the others are saved and summarized)."""


def _seed(s: Any) -> int:
    """One seed of an explicit list: a whole number (``7``, ``"7"``), else a keyed error."""
    if isinstance(s, bool) or not isinstance(s, (numbers.Integral, str)):
        raise config.ConfigError(f"expected whole numbers, got {s!r}", "seeds")
    try:
        return int(s)
    except ValueError:
        raise config.ConfigError(f"expected whole numbers, got {s!r}", "seeds") from None


def parse_shard(text: str) -> tuple[int, int]:
    """``"2/8"`` → ``(2, 8)``; shards are numbered 0 … n-1."""
    try:
        i_s, n_s = text.split("/")
        i, n = int(i_s), int(n_s)
    except ValueError:
        raise ValueError(f"shard must look like i/n (e.g. 0/4), got {text!r}") from None
    if n < 1 or not 0 <= i < n:
        raise ValueError(f"shard {text!r}: need n >= 1 and 0 <= i < n")
    return i, n


def shard_of(runs: Sequence[SweepRun], shard: tuple[int, int] | None) -> list[SweepRun]:
    """The runs of shard ``(i, n)``: positions ≡ i (mod n) of the run list."""
    if shard is None:
        return list(runs)
    i, n = shard
    return [r for k, r in enumerate(runs) if k % n == i]


def plan(
    scenario: config.Scenario | None,
    params: Mapping[str, Sequence[Any]],
    seeds: int | Sequence[int] = 1,
    overrides: Iterable[str] | Mapping[str, Any] | None = None,
) -> list[SweepRun]:
    """Expand parameters × seeds into the run list (validated; deterministic order: parameters
    vary in the order given, the last one fastest, seeds innermost). ``seeds=N`` means seeds
    1…N. ``overrides`` (as ``set=`` of :func:`dcnsim.run`) apply to every point before the
    swept parameters. Points that normalize to the same scenario are run once."""
    if isinstance(seeds, numbers.Integral) and not isinstance(seeds, bool):
        seed_list = list(range(1, int(seeds) + 1))
    elif isinstance(seeds, (str, bool)) or not isinstance(seeds, Iterable):
        raise config.ConfigError(f"expected a count or a list of seeds, got {seeds!r}", "seeds")
    else:
        seed_list = [_seed(s) for s in seeds]
    if not seed_list:
        raise config.ConfigError("need at least one seed", "seeds")
    keys = list(params)
    for k in keys:
        config.parse_key_path(k)
        v = params[k]
        if isinstance(v, (str, bytes, Mapping)) or not isinstance(v, Iterable):
            # (a string was swept character by character: "2ms" as "2", "m", "s")
            raise config.ConfigError(f"expected a list of values, got {v!r}", k)
        if not list(v):
            raise config.ConfigError("parameter has no values", k)
    base = config.load_scenario(scenario)
    if overrides:
        base = config.prepare(base, overrides=overrides).raw
    runs: list[SweepRun] = []
    seen: set[str] = set()
    for values in itertools.product(*(list(params[k]) for k in keys)):
        point = dict(zip(keys, values, strict=True))
        for seed in seed_list:
            prep = config.prepare(base, seed=seed, overrides=point)
            if prep.hash in seen:
                continue
            seen.add(prep.hash)
            runs.append(SweepRun(len(runs), point, seed, prep))
    return runs


def _cached(run_dir: Path, build: str) -> bool:
    """A complete result of this same simulator build. A result from another build (the code
    changed since) is recomputed: its scenario hash alone cannot tell."""
    if not is_complete(run_dir):
        return False
    try:
        meta = json.loads((run_dir / "meta.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    if meta.get("core_build") != build:
        return False
    return _readable(run_dir)


def _discard(run_dir: Path, exc: BaseException) -> None:
    """Remove a corrupt cached run (a disk error, a truncated copy between machines) with a
    warning, so it is recomputed instead of failing every later sweep."""
    warnings.warn(
        f"cached run {run_dir} is unreadable ({type(exc).__name__}: {exc}); recomputing it",
        DcnsimWarning,
        stacklevel=3,
    )
    shutil.rmtree(run_dir, ignore_errors=True)


def _readable(run_dir: Path) -> bool:
    """Whether a cached run's files can be read back: the Parquet footers (a truncated file
    has none) and the JSON files. Cheap: no table is read."""
    try:
        for name in SCHEMAS:
            pq.read_metadata(run_dir / f"{name}.parquet")
        for name in ("meta.json", "scenario.json"):
            json.loads((run_dir / name).read_text(encoding="utf-8"))
    except Exception as exc:  # any reader error means: not usable
        _discard(run_dir, exc)
        return False
    return True


#: Suffix of the marker a worker keeps next to a run's directory while it simulates it.
RUNNING_MARK = ".running"


def running_marker(run_dir: str | os.PathLike[str]) -> Path:
    """The marker of a run in flight: ``<runs>/.<hash>.running``, holding the worker's pid."""
    d = Path(run_dir)
    return d.parent / f".{d.name}{RUNNING_MARK}"


def _simulate_and_save(prep: config.Prepared, run_dir: str) -> None:
    res = api.run_prepared(prep, progress=False)
    res.save(run_dir)


def _run_one(prep: config.Prepared, run_dir: str) -> str:
    """Worker: simulate and save one run (atomically). While it runs, a marker next to its
    directory names the worker's pid: a worker killed from outside (the kernel's OOM
    killer) cannot say which run it had, the marker it leaves behind does (`execute`)."""
    mark = running_marker(run_dir)
    mark.write_text(str(os.getpid()))
    try:
        _simulate_and_save(prep, run_dir)
    finally:
        mark.unlink(missing_ok=True)
    return run_dir


def _run_batch(items: list[tuple[config.Prepared, str]]) -> list[BaseException | None]:
    """Worker: simulate and save several small runs in one task; one failure does not stop
    the others (each run's outcome, ``None`` for success)."""
    out: list[BaseException | None] = []
    for prep, run_dir in items:
        try:
            _run_one(prep, run_dir)
            out.append(None)
        except Exception as exc:  # reported per run by the caller
            out.append(exc)
    return out


#: Runs estimated below this fraction of a fair share of the work (total / jobs) are batched.
TINY = 1 / 50


def plan_tasks(runs: Sequence[SweepRun], jobs: int, cost: Any = run_cost) -> list[list[SweepRun]]:
    """Orders ``runs`` longest first (by ``cost``; ties keep the given order) and packs the
    tiny ones (each below ``TINY`` of ``total / jobs``) into batches of up to that much work,
    so a process pool starts the long runs first (no long run left alone at the end) and
    the per-task overhead of many tiny runs is paid once per batch."""
    costs = [float(cost(r)) for r in runs]
    order = sorted(range(len(runs)), key=lambda i: -costs[i])
    total = sum(costs)
    limit = total / max(1, jobs) * TINY
    tasks: list[list[SweepRun]] = []
    batch: list[SweepRun] = []
    acc = 0.0
    for i in order:
        if costs[i] >= limit or limit <= 0:
            tasks.append([runs[i]])
            continue
        if batch and acc + costs[i] > limit:
            tasks.append(batch)
            batch, acc = [], 0.0
        batch.append(runs[i])
        acc += costs[i]
    if batch:
        tasks.append(batch)
    return tasks


def _mp_context() -> Any:
    # fork keeps user scripts without a __main__ guard (and notebooks) working
    if sys.platform.startswith("linux"):
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context()


BACKENDS = ("local", "ray")
#: How often Ray resubmits a run whose worker died (a crash, an OOM kill, a lost node).
RAY_MAX_RETRIES = 3


def execute(
    runs: Sequence[SweepRun],
    out_dir: str | os.PathLike[str],
    *,
    jobs: int | None = None,
    progress: bool = True,
    backend: str = "local",
    address: str | None = None,
    max_retries: int = RAY_MAX_RETRIES,
    longest_first: bool = False,
) -> tuple[int, list[tuple[SweepRun, BaseException]]]:
    """Run every run of ``runs`` whose cache directory is not complete. Returns
    ``(number run now, failures)``. ``backend="ray"`` runs them as Ray tasks (see
    :func:`execute_ray`); ``address`` and ``max_retries`` apply to it only.
    ``longest_first`` (local backend): submit the runs longest first with the tiny ones
    batched (:func:`plan_tasks`); each run is still simulated and saved on its own, so the
    results are the same."""
    if backend not in BACKENDS:
        raise config.ConfigError(f"unknown backend {backend!r}; one of {BACKENDS}", "backend")
    if backend != "ray" and address is not None:
        raise config.ConfigError("an address applies to the ray backend only", "address")
    runs_dir = Path(out_dir) / "runs"
    runs_dir.mkdir(parents=True, exist_ok=True)
    clean_stale_temp(runs_dir)
    for m in runs_dir.glob(f".*{RUNNING_MARK}"):  # left by workers killed in earlier sweeps
        m.unlink(missing_ok=True)
    build = _native.build_id()
    todo = [r for r in runs if not _cached(runs_dir / r.hash, build)]
    failures: list[tuple[SweepRun, BaseException]] = []
    if not todo:
        return 0, failures
    cached = len(runs) - len(todo)
    desc = f"sweep ({cached} cached)" if cached else "sweep"
    if backend == "ray":
        desc += " on ray"
        bar = Progress(len(todo), desc, unit="runs", enabled=progress)
        with bar:
            failures = execute_ray(
                todo, runs_dir, bar, address=address, jobs=jobs, max_retries=max_retries
            )
        return len(todo) - len(failures), failures
    jobs = max(1, min(jobs or os.cpu_count() or 1, len(todo)))
    bar = Progress(len(todo), desc, unit="runs", enabled=progress)
    with bar:
        if jobs == 1:
            for r in todo:
                try:
                    _run_one(r.prepared, str(runs_dir / r.hash))
                except Exception as exc:
                    failures.append((r, exc))
                bar.advance(1, f"{len(failures)} failed" if failures else "")
            return len(todo) - len(failures), failures
        pool = ProcessPoolExecutor(max_workers=jobs, mp_context=_mp_context())
        try:
            if longest_first:
                tasks = plan_tasks(todo, jobs)
            else:
                tasks = [[r] for r in todo]
            pending: dict[Future[Any], list[SweepRun]] = {}
            for t in tasks:
                if len(t) == 1:
                    fut = pool.submit(_run_one, t[0].prepared, str(runs_dir / t[0].hash))
                else:
                    items = [(r.prepared, str(runs_dir / r.hash)) for r in t]
                    fut = pool.submit(_run_batch, items)
                pending[fut] = t
            while pending:
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for fut in done:
                    t = pending.pop(fut)
                    exc = fut.exception()
                    if exc is not None:
                        failures.extend((r, exc) for r in t)
                    elif len(t) > 1:
                        failures.extend(
                            (r, e) for r, e in zip(t, fut.result(), strict=True) if e is not None
                        )
                    bar.advance(len(t), f"{len(failures)} failed" if failures else "")
        except BaseException:
            # Ctrl-C (or any error here): stop now. Calls already handed to the workers would
            # otherwise still run to completion, so end the workers; a run they leave half
            # saved is only a temporary directory, removed by the next sweep.
            for proc in list(getattr(pool, "_processes", {}).values()):
                proc.terminate()
            pool.shutdown(wait=True, cancel_futures=True)
            raise
        pool.shutdown(wait=True)
    return len(todo) - len(failures), _in_flight_first(failures, runs_dir)


def _in_flight_first(
    failures: list[tuple[SweepRun, BaseException]], runs_dir: Path
) -> list[tuple[SweepRun, BaseException]]:
    """When a worker process dies (killed by the OOM killer or a signal), the pool fails every
    run not yet finished with the same error, in no useful order. The runs whose marker is
    still there were being simulated when it happened: they go first and say so (the others
    were only queued), so a report names the run that was in flight, not an arbitrary one."""
    if not any(isinstance(e, BrokenProcessPool) for _, e in failures):
        return failures
    flight: list[tuple[SweepRun, BaseException]] = []
    queued: list[tuple[SweepRun, BaseException]] = []
    for r, e in failures:
        mark = running_marker(runs_dir / r.hash)
        if isinstance(e, BrokenProcessPool) and mark.exists():
            pid = mark.read_text().strip()
            mark.unlink(missing_ok=True)
            msg = (
                f"its worker process (pid {pid}) died while simulating this run (killed "
                f"from outside, e.g. by the kernel's OOM killer: `dmesg` names the pid; or "
                f"ended by the pool because another worker died): {e}"
            )
            flight.append((r, RuntimeError(msg)))
        elif isinstance(e, BrokenProcessPool):
            queued.append((r, RuntimeError(f"not run: a worker process died ({e})")))
        else:
            flight.append((r, e))
    return flight + queued


def _import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise config.ConfigError(
            "the ray backend needs Ray: pip install 'dcnsim[ray]' (or pip install ray)",
            "backend",
        ) from None
    return ray


def execute_ray(
    todo: Sequence[SweepRun],
    runs_dir: Path,
    bar: Progress,
    *,
    address: str | None = None,
    jobs: int | None = None,
    max_retries: int = RAY_MAX_RETRIES,
) -> list[tuple[SweepRun, BaseException]]:
    """Run ``todo`` as Ray tasks, one CPU each, saving into ``runs_dir`` exactly as the local
    backend does (the same worker function, the same atomic save into the same cache
    directory), so ``collect`` builds the same ``sweep.parquet``.

    Connects to the cluster at ``address`` (``"auto"``: the one ``ray start`` runs on this
    machine), or uses the Ray already initialized in this process, or starts a local one; a
    Ray this call started is shut down at the end. ``runs_dir`` must be at the same path on
    every node (a shared file system). A task whose worker process dies (a crash, an OOM kill,
    a lost node) is resubmitted up to ``max_retries`` times by Ray; an exception raised by the
    simulation itself is a failure of that run, not retried (it would fail again). At most
    ``jobs`` runs are in flight (default: as many as the cluster schedules)."""
    ray = _import_ray()
    started = False
    if not ray.is_initialized():
        kwargs: dict[str, Any] = {"log_to_driver": False}
        if address is not None:
            kwargs["address"] = address
        else:
            kwargs["include_dashboard"] = False
        ray.init(**kwargs)
        started = True
    failures: list[tuple[SweepRun, BaseException]] = []
    try:
        task = ray.remote(num_cpus=1, max_retries=max_retries, retry_exceptions=False)(_run_one)
        queue = list(todo)
        limit = max(1, jobs) if jobs else len(queue)
        pending: dict[Any, SweepRun] = {}
        try:
            while queue or pending:
                while queue and len(pending) < limit:
                    r = queue.pop(0)
                    pending[task.remote(r.prepared, str(runs_dir / r.hash))] = r
                ready, _ = ray.wait(list(pending), num_returns=1)
                for ref in ready:
                    r = pending.pop(ref)
                    try:
                        ray.get(ref)
                    except Exception as exc:
                        failures.append((r, _ray_cause(exc)))
                    bar.advance(1, f"{len(failures)} failed" if failures else "")
        except BaseException:
            # Ctrl-C: stop the tasks still running; what they leave is a temporary directory
            for ref in pending:
                ray.cancel(ref, force=True)
            raise
    finally:
        if started:
            ray.shutdown()
    return failures


def _ray_cause(exc: BaseException) -> BaseException:
    """The simulation's own exception inside Ray's wrapper (RayTaskError), when it has one."""
    cause = getattr(exc, "cause", None)
    return cause if isinstance(cause, BaseException) else exc


def _short_label(label: str) -> str:
    return label.strip("()[]").replace(",", "-")


def run_metrics(res: Results) -> dict[str, Any]:
    """Key metrics of one run, as one flat row of the sweep table."""
    m = res.meta
    row: dict[str, Any] = {
        "flows_total": int(m.get("flows_total", len(res.flows))),
        "flows_completed": int(m.get("flows_completed", 0)),
    }
    overall = analysis.fct_stats(res, by=None).iloc[0]
    row["flows_in_window"] = int(overall["count"] + overall["unfinished"])
    row["unfinished"] = int(overall["unfinished"])
    for stat in ("mean", "p50", "p99", "p99.9"):
        row[f"fct_{stat}_s"] = float(overall[stat])
    sd = analysis.fct_stats(res, by=None, metric="slowdown").iloc[0]
    for stat in ("mean", "p50", "p99", "p99.9"):
        row[f"slowdown_{stat}"] = float(sd[stat])
    by_bucket = analysis.fct_stats(res, by="bucket", metric="slowdown")
    for _, b in by_bucket.iterrows():
        lab = _short_label(str(b["bucket"]))
        row[f"slowdown_p50[{lab}]"] = float(b["p50"])
        row[f"slowdown_p99[{lab}]"] = float(b["p99"])
        row[f"flows[{lab}]"] = int(b["count"])
    if "class" in res.flows and res.flows["class"].nunique() > 1:
        by_class = analysis.fct_stats(res, by="class", metric="slowdown")
        for _, c in by_class.iterrows():
            lab = f"class={c['class']}"
            row[f"slowdown_p50[{lab}]"] = float(c["p50"])
            row[f"slowdown_p99[{lab}]"] = float(c["p99"])
            row[f"flows[{lab}]"] = int(c["count"])
    q = res.queues
    row["drops"] = int(q["drops"].sum()) if "drops" in q else 0
    row["ecn_marks"] = int(q["ecn_marks"].sum()) if "ecn_marks" in q else 0
    row["deadline_miss_ratio"] = analysis.deadline_miss_ratio(res)["ratio"]
    for k in ("events", "packet_hops", "sim_time_s", "wall_s"):
        if k in m:
            row[k] = m[k]
    return row


def collect(runs: Sequence[SweepRun], out_dir: str | os.PathLike[str]) -> pd.DataFrame:
    """Build (and write atomically) ``out_dir/sweep.parquet`` from the complete cached runs, and
    ``out_dir/sweep_agg.parquet``, its :func:`aggregate` over seeds. Runs not (yet) complete
    get a row with ``done = False`` and no metrics."""
    out = Path(out_dir)
    rows = []
    for r in runs:
        d = out / "runs" / r.hash
        row: dict[str, Any] = {
            **{k: _cell(v) for k, v in r.params.items()},
            "seed": r.seed,
            "config_hash": r.hash,
            "run_dir": f"runs/{r.hash}",
        }
        row["done"] = is_complete(d) and _readable(d)
        if row["done"]:
            try:
                row.update(run_metrics(load(d)))
            except Exception as exc:  # corrupt inside a readable footer
                _discard(d, exc)
                row["done"] = False
        rows.append(row)
    df = pd.DataFrame(rows)
    _write_table(df, out / "sweep.parquet")
    _write_table(aggregate(df), out / "sweep_agg.parquet")
    return df


#: Columns of the sweep table that are neither parameters nor metrics.
RUN_COLUMNS = ("seed", "config_hash", "run_dir", "done", "seeds", "runs")


def param_columns(df: pd.DataFrame) -> list[str]:
    """The swept parameters of a sweep table: the columns before ``seed`` (``collect`` writes
    the parameters first, in the order given), or before ``seeds`` in an :func:`aggregate`
    table."""
    cols = list(df.columns)
    for mark in ("seed", "seeds"):
        if mark in cols:
            return cols[: cols.index(mark)]
    raise ValueError("not a sweep table: it has no 'seed' column")


def metric_columns(df: pd.DataFrame) -> list[str]:
    """The numeric metric columns of a sweep table (everything after the run columns)."""
    skip = {*param_columns(df), *RUN_COLUMNS}
    return [c for c in df.columns if c not in skip and pd.api.types.is_numeric_dtype(df[c])]


def aggregate(
    df: pd.DataFrame,
    *,
    metrics: Sequence[str] | None = None,
    level: float = 0.95,
) -> pd.DataFrame:
    """Aggregate a sweep table over seeds: one row per parameter point.

    Columns: the parameters, ``seeds`` (completed runs at this point), ``runs`` (all runs), then
    per metric ``M`` (mean over seeds), ``M_lo`` and ``M_hi``: the two-sided Student-t
    confidence interval of the mean at ``level`` (mean ± t*·s/√n over the per-seed values, see
    :func:`dcnsim.analysis.mean_ci`). Seeds are independent replications, so the t interval is
    the textbook choice and, unlike a bootstrap, needs no random numbers. The interval is NaN
    for a point with fewer than two completed seeds. Runs not done and NaN metrics (e.g. a p99
    of a bucket without completed flows) are left out of that metric's mean. Points keep the
    order of the sweep's run list."""
    params = param_columns(df)
    mets = list(metrics) if metrics is not None else metric_columns(df)
    done = df[df["done"].astype(bool)] if "done" in df else df
    if not params:
        keys: list[tuple[Any, ...]] = [()]
    else:
        keys = list(dict.fromkeys(tuple(r) for r in df[params].itertuples(index=False)))
    rows = []
    for key in keys:
        if params:
            sel = (df[params] == pd.Series(key, index=params)).all(axis=1)
            sel_done = (done[params] == pd.Series(key, index=params)).all(axis=1)
            g_all, g = df[sel], done[sel_done]
        else:
            g_all, g = df, done
        row: dict[str, Any] = dict(zip(params, key, strict=True))
        row["seeds"] = len(g)
        row["runs"] = len(g_all)
        for m in mets:
            _, mean, lo, hi = analysis.mean_ci(g.get(m, []), level)
            row[m] = mean
            row[f"{m}_lo"] = lo
            row[f"{m}_hi"] = hi
        rows.append(row)
    out = pd.DataFrame(rows)
    out.attrs["level"] = level
    out.attrs["interval"] = "student-t"
    return out


def _cell(v: Any) -> Any:
    # lists/tables as parameter values are written as text so the column has one type
    return v if isinstance(v, str | int | float | bool) else repr(v)


def _write_table(df: pd.DataFrame, path: Path) -> None:
    table = pa.Table.from_pandas(df, preserve_index=False)
    for i, name in enumerate(table.column_names):
        if pa.types.is_null(table.schema.field(i).type):
            table = table.set_column(i, name, table.column(i).cast(pa.float64()))
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        pq.write_table(table.replace_schema_metadata(None), tmp, compression="zstd")
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def check_sweep_dir(out_dir: str | os.PathLike[str], *, collect_only: bool = False) -> None:
    """Check before running anything that ``out_dir`` can hold a sweep (a ConfigError naming
    ``--output`` otherwise); with ``collect_only`` it must already hold one."""
    d = Path(out_dir).absolute()
    if collect_only:
        if not (d / "runs").is_dir():
            raise config.ConfigError(
                f"{d} holds no sweep results (no runs/ directory); run the sweep first", "--output"
            )
        return
    if d.exists() and not d.is_dir():
        raise config.ConfigError(f"{d} is a file, expected a sweep directory", "--output")
    probe = d
    while not probe.exists() and probe.parent != probe:
        probe = probe.parent
    if probe != d and not probe.is_dir():
        raise config.ConfigError(f"{d} would be inside {probe}, which is a file", "--output")
    if not os.access(probe, os.W_OK | os.X_OK):
        raise config.ConfigError(f"cannot write in {probe} (permission denied)", "--output")


def sweep(
    scenario: config.Scenario | None,
    params: Mapping[str, Sequence[Any]],
    seeds: int | Sequence[int] = 1,
    jobs: int | None = None,
    out_dir: str | os.PathLike[str] = "sweep",
    *,
    set: Iterable[str] | Mapping[str, Any] | None = None,
    shard: tuple[int, int] | None = None,
    collect_only: bool = False,
    progress: bool = True,
    backend: str = "local",
    address: str | None = None,
    max_retries: int = RAY_MAX_RETRIES,
) -> pd.DataFrame:
    """Run ``scenario`` for every combination of ``params`` values × ``seeds``.

    ``params`` maps key paths (as for ``--set``) to lists of values; ``seeds`` is a count
    (seeds 1…N) or a list; ``jobs`` worker processes (default: all cores). Returns the summary
    table (also written to ``out_dir/sweep.parquet``). Raises :class:`SweepError` after
    saving everything else if some runs failed, and ConfigError before running anything if any
    point is invalid. ``set`` overrides apply to every point.

    ``backend="ray"`` submits the runs as Ray tasks instead of local worker processes (to the
    cluster at ``address``, e.g. ``"auto"`` or ``"ray://head:10001"``; see
    :func:`execute_ray`): same cache, same saves, same table; a run whose worker dies is
    retried up to ``max_retries`` times.
    """
    if backend not in BACKENDS:
        raise config.ConfigError(f"unknown backend {backend!r}; one of {BACKENDS}", "backend")
    if backend == "ray" and not collect_only:
        _import_ray()  # a missing extra is bad input, reported before anything runs
    check_sweep_dir(out_dir, collect_only=collect_only)
    runs = plan(scenario, params, seeds, overrides=set)
    failures: list[tuple[SweepRun, BaseException]] = []
    if not collect_only:
        _, failures = execute(
            shard_of(runs, shard),
            out_dir,
            jobs=jobs,
            progress=progress,
            backend=backend,
            address=address,
            max_retries=max_retries,
        )
    df = collect(runs, out_dir)
    if failures:
        lines = [
            f"  {r.hash[:12]} {r.params} seed={r.seed}: {type(e).__name__}: {e}"
            for r, e in failures[:10]
        ]
        more = "" if len(failures) <= 10 else f"\n  ... and {len(failures) - 10} more"
        raise SweepError(f"{len(failures)} of {len(runs)} runs failed:\n" + "\n".join(lines) + more)
    return df


__all__ = [
    "SweepError",
    "SweepRun",
    "aggregate",
    "collect",
    "execute",
    "execute_ray",
    "parse_shard",
    "plan",
    "shard_of",
    "sweep",
]
