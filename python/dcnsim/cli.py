"""The ``dcnsim`` command line: a thin shell over the Python API.

Exit codes: 0 success; 2 bad input (the message names the offending key, no traceback, no output
directory left behind); 1 internal error (rerun with ``--debug`` for the traceback); 130 when
interrupted (no partial output).
"""

from __future__ import annotations

import argparse
import errno
import json
import os
import subprocess
import sys
import traceback
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .errors import ConfigError, DamagedResultError, DcnsimWarning

EXIT_OK = 0
EXIT_INTERNAL = 1
EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 130

#: OS errors on a path the user chose, reported as bad input (exit 2), not as internal errors.
_USER_ERRNOS = {
    errno.EACCES,
    errno.EPERM,
    errno.EROFS,
    errno.ENOSPC,
    errno.EDQUOT,
    errno.ENOTDIR,
    errno.EISDIR,
}


def _err(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------
# commands


def _limit_overrides(args: argparse.Namespace) -> list[str]:
    """``--memory-limit 8GB`` as a ``run.memory_limit`` override."""
    if getattr(args, "memory_limit", None) is None:
        return []
    return [f"run.memory_limit={json.dumps(str(args.memory_limit))}"]


def _print_warnings(meta: dict[str, Any]) -> None:
    for w in meta.get("warnings") or []:
        _err(f"warning: {w}")


def cmd_run(args: argparse.Namespace) -> int:
    from . import api, config
    from .results import check_output

    prep = config.prepare(
        args.scenario, seed=args.seed, overrides=[*args.set, *_limit_overrides(args)]
    )
    if args.output:
        check_output(args.output, "--output")  # fail before simulating, not after
    res = api.run_prepared(prep, progress=not args.quiet)
    _print_warnings(res.meta)
    if args.output:
        path = res.save(args.output)
        if not args.quiet:
            _err(f"saved to {path}")
    if not args.quiet:
        print(res.summary())
    return EXIT_OK


def cmd_validate(args: argparse.Namespace) -> int:
    from . import _native, config

    status = EXIT_OK
    for sc in args.scenarios:
        try:
            prep = config.prepare(sc, overrides=[*args.set, *_limit_overrides(args)])
        except ConfigError as e:
            _err(f"error: {sc}: {e.path}: {e.message}")
            status = EXIT_BAD_INPUT
            continue
        if args.show:
            print(config.dumps_toml(prep.normalized), end="")
        else:
            print(f"ok: {sc} (config hash {prep.hash[:12]})")
        for w in _native.validate_warnings(prep.raw)[1]:
            _err(f"warning: {sc}: {w}")
    return status


def _is_sweep_dir(d: str | os.PathLike[str]) -> bool:
    return (Path(d) / "sweep.parquet").is_file()


def cmd_plot(args: argparse.Namespace) -> int:
    from . import plots
    from .results import check_output, load

    if args.output:
        # (a file or an unwritable place was an internal error once plotting began)
        check_output(args.output, "--output", result=False)

    sweeps = [d for d in args.dirs if _is_sweep_dir(d)]
    if sweeps:
        if len(args.dirs) > 1:
            raise ConfigError("plot one sweep directory at a time (or only run directories)", "DIR")
        out = Path(args.output) if args.output else Path(sweeps[0]) / "plots"
        try:
            paths = plots.plot_sweep(sweeps[0], out, args.format, x=args.x)
        except DamagedResultError as e:
            raise ConfigError(str(e), "DIR") from None
        except ValueError as e:
            raise ConfigError(str(e), "--x") from None
        for p in paths:
            print(p)
        return EXIT_OK
    if args.x is not None:
        raise ConfigError("--x applies to a sweep directory only", "--x")
    runs = {}
    for d in args.dirs:
        try:
            res = load(d)
        except (FileNotFoundError, DamagedResultError) as e:
            raise ConfigError(str(e), "DIR") from None
        runs[str(d)] = res
    out = Path(args.output) if args.output else Path(args.dirs[0]) / "plots"
    for p in plots.plot_all(runs, out, args.format):
        print(p)
    return EXIT_OK


def cmd_report(args: argparse.Namespace) -> int:
    from . import report
    from .results import check_output_file

    if args.output:
        # (it was blamed on DIR, or an internal error)
        check_output_file(args.output, "--output")

    try:
        path = report.write_run_or_sweep(args.dir, args.output)
    except (FileNotFoundError, DamagedResultError) as e:
        raise ConfigError(str(e), "DIR") from None
    print(path)
    return EXIT_OK


def split_values(text: str) -> list[str]:
    """Split ``v1,v2,[1,2],"a,b"`` on the commas outside brackets, braces and quotes."""
    out: list[str] = []
    depth = 0
    quote = ""
    cur = ""
    for ch in text:
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        elif ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
            continue
        cur += ch
    out.append(cur.strip())
    return [v for v in out if v != ""]


_JOBS_HELP = "worker processes (default, or 0: all cores)"


def _jobs(text: str) -> int | None:
    """``-j``: a number of worker processes; 0 means all cores (as the default)."""
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if n < 0:
        raise argparse.ArgumentTypeError(f"expected 0 (all cores) or more, got {n}")
    return n or None


def parse_param(spec: str) -> tuple[str, list[Any]]:
    from . import config

    key, sep, values = spec.partition("=")
    key = key.strip()
    if not sep or not key:
        raise ConfigError("--param must look like key.path=v1,v2,...", key or spec)
    config.parse_key_path(key)
    vals = [config.parse_value(v) for v in split_values(values)]
    if not vals:
        raise ConfigError("--param needs at least one value", key)
    return key, vals


def cmd_sweep(args: argparse.Namespace) -> int:
    from .sweep import parse_shard
    from .sweep import sweep as run_sweep

    params: dict[str, list[Any]] = {}
    for spec in args.param:
        k, v = parse_param(spec)
        params[k] = v
    shard = None
    if args.shard:
        try:
            shard = parse_shard(args.shard)
        except ValueError as e:
            raise ConfigError(str(e), "--shard") from None
    if args.address is not None and args.backend != "ray":
        raise ConfigError("--address needs --backend ray", "--address")
    seeds: int | list[int] = args.seeds
    if args.seed_list:
        seeds = []
        for item in split_values(args.seed_list):
            try:
                seeds.append(int(item))
            except ValueError:
                raise ConfigError(
                    f"expected comma-separated whole numbers, got {item!r}", "--seed-list"
                ) from None
    df = run_sweep(
        args.scenario,
        params,
        set=[*args.set, *_limit_overrides(args)],
        seeds=seeds,
        jobs=args.jobs,
        out_dir=args.output,
        shard=shard,
        collect_only=args.collect,
        progress=not args.quiet,
        backend=args.backend,
        address=args.address,
    )
    done = int(df["done"].sum()) if "done" in df else 0
    if not args.quiet:
        import pandas as pd

        from .sweep import aggregate

        keys = ("unfinished", "fct_p50_s", "fct_p99_s", "slowdown_p99")
        with pd.option_context("display.width", 160, "display.max_rows", 60):
            if df["seed"].nunique() > 1:
                agg = aggregate(df, metrics=[c for c in keys if c in df])
                cols = [*params, "seeds"]
                for c in keys:
                    if c in agg:
                        agg[c] = [
                            f"{m:.3g} [{lo:.3g}, {hi:.3g}]"
                            for m, lo, hi in zip(
                                agg[c], agg[f"{c}_lo"], agg[f"{c}_hi"], strict=True
                            )
                        ]
                        cols.append(c)
                print("mean [95% Student-t interval] over seeds")
                print(agg[cols].to_string(index=False))
            else:
                cols = [*params, "seed", "done", *(c for c in keys if c in df)]
                print(df[cols].to_string(index=False))
    _err(f"{done}/{len(df)} runs complete; summary in {Path(args.output) / 'sweep.parquet'}")
    return EXIT_OK


def _bench_one(name: str) -> dict[str, Any]:
    """Run one benchmark in a fresh interpreter so its peak RSS is its own."""
    code = (
        "import json, resource, sys\n"
        "from dcnsim import _native\n"
        "base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "r = _native.bench(sys.argv[1])\n"
        "peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "r['peak_rss_mb'] = peak / 1024\n"
        "r['rss_growth_mb'] = (peak - base) / 1024\n"
        "print(json.dumps(r))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, name], capture_output=True, text=True, check=False
    )
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["(no output)"])[-1]
        if "ConfigError" in last:
            raise ConfigError(last.split(":", 1)[-1].strip(), "bench")
        raise RuntimeError(f"benchmark {name} failed: {last}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def cmd_bench(args: argparse.Namespace) -> int:
    from . import _native

    available = _native.bench_names()
    names = args.names or available
    unknown = [n for n in names if n not in available]
    if unknown:
        raise ConfigError(
            f"unknown benchmark {unknown[0]!r}; available: {', '.join(available)}", "bench"
        )
    results = []
    for n in names:
        if not args.json:
            _err(f"bench {n} ...")
        results.append(_bench_one(n))
    if args.json:
        print(json.dumps(results, indent=2))
        return EXIT_OK
    headers = [
        "bench",
        "events",
        "M events/s",
        "packet-hops",
        "M hops/s",
        "sim time",
        "wall",
        "peak RSS",
        "sim RSS",
    ]
    rows = [
        [
            r["name"],
            f"{r['events']:,}",
            f"{r['events_per_s'] / 1e6:.2f}",
            f"{r['packet_hops']:,}",
            f"{r['hops_per_s'] / 1e6:.2f}",
            f"{r['sim_time_s'] * 1e3:.3g} ms",
            f"{r['wall_s']:.2f} s",
            f"{r['peak_rss_mb']:.0f} MB",
            f"+{r['rss_growth_mb']:.0f} MB",
        ]
        for r in results
    ]
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]
    print("  ".join(h.rjust(w) for h, w in zip(headers, widths, strict=True)))
    # "sim RSS": peak growth during the benchmark, above the interpreter and libraries
    for r in rows:
        print("  ".join(c.rjust(w) for c, w in zip(r, widths, strict=True)))
    return EXIT_OK


def cmd_reproduce(args: argparse.Namespace) -> int:
    from . import papers

    avail = papers.available()
    if args.paper not in papers.PAPERS:
        listing = ", ".join(avail) if avail else "none registered yet"
        _err(f"error: no reproduction named {args.paper!r} (available: {listing})")
        return EXIT_BAD_INPUT
    mod = papers.get(args.paper)
    out = Path(args.output or f"reproduce-{args.paper}{'-full' if args.full else ''}")
    from .results import check_output

    # (a file or an unwritable place as DIR was an internal error after the runs' start)
    check_output(out, "--output", result=False)
    if args.figure:
        figs = [f for arg in args.figure for f in arg.split(",") if f]
        if not figs:
            _err("error: --figure: no figure id given (the ids are the report's first column)")
            return EXIT_BAD_INPUT
        try:
            figs = mod.REPRO.check_figures(figs)
        except KeyError as e:
            _err(f"error: --figure: {e.args[0]}")
            return EXIT_BAD_INPUT
        mod.REPRO.reproduce(
            out, full=args.full, jobs=args.jobs, progress=not args.quiet, figures=figs
        )
    else:
        mod.reproduce(out, full=args.full, jobs=args.jobs, progress=not args.quiet)
    _err(f"results in {out}")
    return EXIT_OK


def cmd_crosscheck(args: argparse.Namespace) -> int:
    from . import crosscheck
    from .crosscheck.plan import rate_bps

    rate = None
    if args.rate is not None:
        try:
            rate = rate_bps(args.rate)
        except (ValueError, KeyError):
            raise ConfigError(
                f"expected a rate like 200Mbps, got {args.rate!r}", "--rate"
            ) from None
        if rate <= 0:
            raise ConfigError("expected a rate > 0", "--rate")
    name = Path(str(args.scenario)).stem
    out = Path(args.output or f"crosscheck-{name}")
    from .crosscheck.testbed import Terminated

    log = (lambda m: None) if args.quiet else _err
    try:
        res = crosscheck.crosscheck(
            args.scenario, out, reps=args.reps, rate=rate, overrides=args.set, log=log
        )
    except Terminated:
        _err("terminated (SIGTERM); the testbed was removed")
        return 128 + 15
    if not args.quiet:
        for label, key in (
            ("", "verdicts"),
            ("at the kernel's start times: ", "verdicts_at_kernel_starts"),
        ):
            for v in res["summary"][key].values():
                extra = f" ({', '.join(v['differs_in'])})" if v["differs_in"] else ""
                print(f"{label}{v['title']}: {v['verdict']}{extra}")
        _err(f"report in {res['report']}")
    return EXIT_OK


def cmd_cdfs(args: argparse.Namespace) -> int:
    from . import _native

    for name in _native.builtin_cdfs():
        print(name)
    return EXIT_OK


def cmd_scenarios(args: argparse.Namespace) -> int:
    from . import config

    names = config.shipped_scenarios()
    width = max((len(n) for n in names), default=0)
    for name in names:
        desc = config.scenario_description(name)
        print(f"{name.ljust(width)}  {desc}" if desc else name)
    return EXIT_OK


# ---------------------------------------------------------------------------------------------
# parser


class _ReproduceParser(argparse.ArgumentParser):
    """``dcnsim reproduce --help`` lists the papers with their titles and expected times; the
    paper modules are imported only when the help is shown."""

    def format_help(self) -> str:
        from . import papers

        lines = ["reproductions (default output directory: reproduce-PAPER, or -full):"]
        for name in papers.available():
            try:
                mod = papers.get(name)
                title = str(getattr(mod, "TITLE", "")).strip()
                when = getattr(mod, "EXPECTED_TIME", "not measured")
            except Exception as e:  # a broken module must not hide the others
                title, when = f"(cannot load: {e})", "?"
            lines.append(f"  {name}: {title}")
            lines.append(f"      {when}")
        lines.append(
            "The output directory gets runs/ (cached runs; a rerun simulates only what is "
            "missing), report.md, report.html, report.csv and figures/."
        )
        self.epilog = "\n".join(lines)
        return super().format_help()


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="dcnsim",
        description="Packet-level datacenter network simulator.",
        epilog="Exit codes: 0 ok, 1 internal error, 2 bad input, 130 interrupted.",
    )
    p.add_argument("--debug", action="store_true", help="show tracebacks of internal errors")
    p.add_argument("--version", action="store_true", help="print versions and exit")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    def scenario_opts(sp: argparse.ArgumentParser) -> None:
        sp.add_argument(
            "--set",
            action="append",
            default=[],
            metavar="KEY=VALUE",
            help="override a scenario value, e.g. classes[0].workload.load=0.3 "
            "(value parsed as TOML, else taken as a string); repeatable",
        )
        sp.add_argument(
            "--memory-limit",
            metavar="SIZE",
            default=None,
            help="largest memory a run may take by the resource estimate, e.g. 16GB "
            "(sets run.memory_limit; default: half of what this process may use)",
        )

    r = sub.add_parser("run", help="run one scenario and print FCT percentiles by size")
    r.add_argument(
        "scenario",
        nargs="?",
        default=None,
        help="TOML file or shipped scenario name (default: the built-in default)",
    )
    scenario_opts(r)
    r.add_argument("--seed", type=int, default=None, help="override the scenario's seed")
    r.add_argument("-o", "--output", metavar="DIR", help="save results (Parquet + JSON) here")
    r.add_argument("-q", "--quiet", action="store_true", help="no progress bar, no summary")
    r.set_defaults(func=cmd_run)

    v = sub.add_parser("validate", help="check scenarios without running them")
    v.add_argument("scenarios", nargs="+", metavar="SCENARIO")
    scenario_opts(v)
    v.add_argument(
        "--show",
        action="store_true",
        help="print the normalized scenario (all defaults filled in) as TOML",
    )
    v.set_defaults(func=cmd_validate)

    pl = sub.add_parser(
        "plot",
        help="plot saved results (FCT CDF, percentiles, queues) or a sweep (metrics against "
        "a parameter, mean and 95%% interval over seeds)",
    )
    pl.add_argument(
        "dirs", nargs="+", metavar="DIR", help="result directories (from run -o) or one sweep"
    )
    pl.add_argument("-o", "--output", metavar="OUT", help="output directory (default DIR/plots)")
    pl.add_argument("--format", choices=["png", "svg"], default="png")
    pl.add_argument(
        "--x",
        metavar="KEY",
        default=None,
        help="sweeps: the parameter on the x axis (default: the first numeric swept one)",
    )
    pl.set_defaults(func=cmd_plot)

    rr = sub.add_parser(
        "report",
        help="write one self-contained HTML report (figures, tables, scenario, warnings) of a "
        "run or sweep directory",
    )
    rr.add_argument("dir", metavar="DIR", help="a saved run (run -o) or a sweep directory")
    rr.add_argument("-o", "--output", metavar="FILE", help="output file (default DIR/report.html)")
    rr.set_defaults(func=cmd_report)

    s = sub.add_parser("sweep", help="run a parameter sweep on all cores, cached by config hash")
    s.add_argument("scenario", help="TOML file or shipped scenario name")
    s.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="KEY=V1,V2,...",
        help="a swept key and its values; repeat for a cartesian product",
    )
    scenario_opts(s)
    s.add_argument("--seeds", type=int, default=1, help="seeds 1..N per point (default 1)")
    s.add_argument("--seed-list", metavar="S1,S2,...", help="explicit seeds instead of --seeds")
    s.add_argument("-j", "--jobs", type=_jobs, default=None, help=_JOBS_HELP)
    s.add_argument("-o", "--output", metavar="DIR", required=True, help="sweep directory")
    s.add_argument(
        "--shard",
        metavar="I/N",
        help="run only slice I of N (0 <= I < N) of the run list, for clusters",
    )
    s.add_argument(
        "--backend",
        choices=["local", "ray"],
        default="local",
        help="local: worker processes on this machine (default); ray: Ray tasks on a cluster "
        "(pip install '.[ray]'; DIR must be on a file system every node sees)",
    )
    s.add_argument(
        "--address",
        metavar="ADDR",
        default=None,
        help="with --backend ray: the cluster to use (auto, HOST:6379 or ray://HOST:10001); "
        "default: a Ray started for this sweep on this machine",
    )
    s.add_argument(
        "--collect",
        action="store_true",
        help="run nothing; build sweep.parquet from the cached runs",
    )
    s.add_argument("-q", "--quiet", action="store_true")
    s.set_defaults(func=cmd_sweep)

    b = sub.add_parser("bench", help="run the performance benchmarks (events/s, hops/s, memory)")
    b.add_argument("names", nargs="*", metavar="NAME", help="benchmarks (default: all)")
    b.add_argument("--json", action="store_true", help="machine-readable output")
    b.set_defaults(func=cmd_bench)

    rp = sub.add_parser(
        "reproduce",
        help="reproduce a paper's experiments",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    rp.__class__ = _ReproduceParser
    rp.add_argument("paper", metavar="PAPER", help="a reproduction listed below")
    rp.add_argument("--full", action="store_true", help="paper scale (slow); default reduced")
    rp.add_argument(
        "-o", "--output", metavar="DIR", help="output directory (default reproduce-PAPER[-full])"
    )
    rp.add_argument("-j", "--jobs", type=_jobs, default=None, help=_JOBS_HELP)
    rp.add_argument("-q", "--quiet", action="store_true")
    rp.add_argument(
        "--figure",
        action="append",
        metavar="ID",
        help="run only this figure (repeatable, or comma-separated ids as in the report's "
        "first column); an unknown id lists the paper's figures",
    )
    rp.set_defaults(func=cmd_reproduce)

    x = sub.add_parser(
        "crosscheck",
        help="run a scenario in dcnsim (linux TCP profile) and on this kernel's TCP "
        "in network namespaces; compare (needs root)",
    )
    x.add_argument("scenario", help="TOML file or shipped scenario name (star topology)")
    x.add_argument(
        "--set", action="append", default=[], metavar="KEY=VALUE", help="override a value"
    )
    x.add_argument("--reps", type=int, default=3, help="kernel repetitions (default 3)")
    x.add_argument(
        "--rate",
        metavar="RATE",
        default=None,
        help="run the host links at RATE (e.g. 200Mbps), scaling every link rate; buffers "
        "in packets stay as they are",
    )
    x.add_argument("-o", "--output", metavar="DIR", help="report directory")
    x.add_argument("-q", "--quiet", action="store_true")
    x.set_defaults(func=cmd_crosscheck)

    c = sub.add_parser("cdfs", help="list the built-in flow-size CDFs")
    c.set_defaults(func=cmd_cdfs)
    sc = sub.add_parser("scenarios", help="list the shipped scenarios")
    sc.set_defaults(func=cmd_scenarios)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.version:
        from . import __version__, _native

        core = _native.version() if _native.available() else "not built"
        print(f"dcnsim {__version__} (core {core})")
        return EXIT_OK
    if not getattr(args, "func", None):
        parser.print_help()
        return EXIT_BAD_INPUT
    warnings.simplefilter("always", DcnsimWarning)
    show = warnings.showwarning

    def _show(message: Any, category: Any, *a: Any, **k: Any) -> None:
        if issubclass(category, DcnsimWarning):
            _err(f"warning: {message}")
        else:
            show(message, category, *a, **k)

    warnings.showwarning = _show
    try:
        return int(args.func(args))
    except ConfigError as e:
        _err(f"error: {e.path}: {e.message}" if e.path else f"error: {e.message}")
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        _err("interrupted")
        return EXIT_INTERRUPTED
    except MemoryError:
        _err("error: out of memory; lower the scenario's size or run.memory_limit (--memory-limit)")
        return EXIT_BAD_INPUT
    except BrokenPipeError:
        # output piped into e.g. `head`: not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except Exception as e:
        if isinstance(e, OSError) and e.filename is not None and e.errno in _USER_ERRNOS:
            # a file the user named could not be written or read (disk full, permissions)
            _err(f"error: {e.filename}: {e.strerror}")
            return EXIT_BAD_INPUT
        if args.debug:
            traceback.print_exc()
        from .sweep import SweepError

        if isinstance(e, SweepError):
            _err(f"error: {e}")
        else:
            _err(f"internal error: {type(e).__name__}: {e}")
        if not args.debug:
            _err("(rerun with --debug for the traceback)")
        return EXIT_INTERNAL
    finally:
        warnings.showwarning = show


if __name__ == "__main__":
    sys.exit(main())
