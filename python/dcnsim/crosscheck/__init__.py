"""``dcnsim crosscheck``: a scenario's flows in dcnsim (TCP profile ``linux``) and on this
machine's Linux TCP inside network namespaces, side by side (docs/crosscheck.md).

Layout: :mod:`.probe` (what the kernel offers), :mod:`.plan` (scenario → testbed commands
and flow lists; pure), :mod:`.testbed` (namespaces, HTB, teardown), :mod:`.driver` (the
per-host traffic process, stdlib only), :mod:`.report` (tables, verdicts, plot; pure).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from ..errors import ConfigError
from ..report import write
from . import plan as planmod
from . import report
from .probe import Probe, probe

DEFAULT_TOL = report.Tolerances()


class Unavailable(ConfigError):
    """The machine cannot run the testbed (not root, tools or kernel features missing)."""


def require(p: Probe) -> None:
    missing = p.missing()
    if missing:
        raise Unavailable("the crosscheck testbed needs " + "; ".join(missing), "crosscheck")


def prepare_sim(scenario: Any, overrides: Iterable[str] = (), rate: float | None = None):
    """The validated scenario as the simulated side runs it."""
    from .. import config

    raw = config.load_scenario(scenario)
    for spec in overrides:
        k, v = config.parse_override(spec)
        config.set_path(raw, k, v)
    raw = planmod.sim_overrides(raw, rate)
    return config.prepare(raw)


def at_kernel_starts(sc: Mapping[str, Any], sim_raw: pd.DataFrame, kernel: pd.DataFrame):
    """The scenario with every class's flows as an explicit list started when the kernel
    really started them (scheduled start + the median lateness over repetitions): what
    dcnsim predicts for the testbed's actual schedule, so start lateness (an artefact of
    2 CPUs driving every host) is told apart from TCP."""
    from .. import config

    late = kernel.groupby("flow_id")["late_s"].median().clip(lower=0).fillna(0.0)
    sc2 = json.loads(json.dumps(sc))
    for ci, c in enumerate(sc2.get("classes") or []):
        sub = sim_raw[sim_raw["class_id"] == ci]
        c["workload"] = {
            "kind": "flows",
            "list": [
                {
                    "src": int(r["src"]),
                    "dst": int(r["dst"]),
                    "size": int(r["size"]),
                    "start": float(r["start_s"]) + float(late.get(int(r["flow_id"]), 0.0)),
                }
                for _, r in sub.iterrows()
            ],
        }
        c.pop("large", None)
    return config.prepare(sc2)


def crosscheck(
    scenario: Any,
    out_dir: str | os.PathLike[str],
    *,
    reps: int = 3,
    rate: float | None = None,
    overrides: Iterable[str] = (),
    tol: report.Tolerances = DEFAULT_TOL,
    log: Callable[[str], None] = lambda m: None,
) -> dict[str, Any]:
    """Runs both sides and writes ``report.md``, ``table.csv``, ``flows_sim.csv``,
    ``flows_kernel.csv``, ``summary.json`` and ``fct_cdf.png`` into ``out_dir``."""
    from .. import api
    from .testbed import Testbed

    t_start = time.monotonic()
    if reps < 1:
        raise ConfigError("expected at least 1 repetition", "--reps")
    p = probe()
    require(p)
    prep = prepare_sim(scenario, overrides, rate)
    sc = prep.normalized
    caps = p.capabilities()
    planmod.check_scenario(sc, caps)  # before simulating: a bad scenario fails fast
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)

    log("simulating (dcnsim, linux profile, token-bucket links) ...")
    res = api.run_prepared(prep, progress=False)
    sim_raw = res.flows
    sim = report.sim_flows(sim_raw)
    planned = sim_raw[["flow_id", "class_id", "class", "src", "dst", "size", "start_s"]]
    flows = [
        {
            "id": int(r.flow_id),
            "src": int(r.src),
            "dst": int(r.dst),
            "size": int(r.size),
            "start_s": float(r.start_s),
            "class": int(r.class_id),
        }
        for r in planned.itertuples()
    ]
    plan = planmod.build_plan(sc, flows, os.getpid(), caps)
    duration = max((f["start_s"] for f in flows), default=0.0)
    kernels = []
    nstats = []
    lateness = []
    errors: list[str] = []
    t_build = time.monotonic()
    with Testbed(plan, cpus=p.cpus) as tb:
        build_s = time.monotonic() - t_build
        log(f"testbed up ({len(plan.hosts)} hosts, {build_s:.1f} s); {reps} kernel run(s) ...")
        for rep in range(reps):
            r = tb.run_flows(duration, timeout_s=15.0)
            kf = report.kernel_flows(planned, r["hosts"], rep)
            kernels.append(kf)
            nstats.append(r["nstat"])
            lateness.extend(kf["late_s"].dropna().tolist())
            for h in r["hosts"]:
                errors.extend(h.get("errors", []))
            errors.extend(r["errors"])
            log(f"  rep {rep + 1}: {int(kf['completed'].sum())}/{len(kf)} flows completed")
    kernel = pd.concat(kernels, ignore_index=True)
    table = report.compare(sim, kernel, tol)
    verdict = report.verdicts(table)
    log("simulating again at the kernel's actual start times ...")
    res2 = api.run_prepared(at_kernel_starts(sc, sim_raw, kernel), progress=False)
    sim2 = report.sim_flows(res2.flows)
    table2 = report.compare(sim2, kernel, tol)
    verdict2 = report.verdicts(table2)
    stack2 = report.stack_table(sim2, res2.flows, kernel, nstats)
    stack = report.stack_table(sim, sim_raw, kernel, nstats)
    sim_long, kern_long = report.long_flow_medians(sim, kernel)
    late = pd.Series(lateness) if lateness else pd.Series([math_nan()])
    facts = {
        "scenario": sc.get("name"),
        "hosts": len(plan.hosts),
        "link rate": f"{plan.rate_bps / 1e6:g} Mb/s (token bucket, burst "
        f"{plan.depth_bytes} B + one frame)",
        "flows": len(flows),
        "kernel repetitions": reps,
        "kernel": p.kernel,
        "start lateness (kernel)": f"median {late.median() * 1e6:.0f} µs, "
        f"p99 {late.quantile(0.99) * 1e6:.0f} µs, max {late.max() * 1e6:.0f} µs",
        "median FCT of flows ≥ 100 KB": f"dcnsim {sim_long * 1e3:.2f} ms, kernel "
        f"{kern_long * 1e3:.2f} ms",
        "wall time": f"{time.monotonic() - t_start:.1f} s (testbed build {build_s:.1f} s)",
    }
    notes = list(plan.notes)
    if errors:
        notes.append(f"driver errors ({len(errors)}): " + "; ".join(errors[:5]))
    md = report.report_md(str(sc.get("name")), table, verdict, stack, facts, tol, notes)
    md += report.second_md(table2, verdict2, stack2)
    # Each file whole or not at all (a temporary sibling renamed into place).
    write(out / "report.md", md)
    for name, df in (
        ("table.csv", table),
        ("table_kernel_starts.csv", table2),
        ("flows_sim.csv", sim),
        ("flows_sim_kernel_starts.csv", sim2),
        ("flows_kernel.csv", kernel),
    ):
        write(out / name, df.to_csv(index=False))
    report.plot_cdf(sim, kernel, out / "fct_cdf.png", sim2)
    summary = {
        "verdicts": verdict,
        "verdicts_at_kernel_starts": verdict2,
        "facts": facts,
        "kernel_completed": [int(k["completed"].sum()) for k in kernels],
        "flows": len(flows),
        "sim_long_p50_s": sim_long,
        "kernel_long_p50_s": kern_long,
        "nstat": nstats,
        "errors": errors[:50],
    }
    write(out / "summary.json", json.dumps(summary, indent=2, default=str))
    return {"report": out / "report.md", "summary": summary, "table": table, "stack": stack}


def math_nan() -> float:
    return float("nan")


def facts_json(d: Mapping[str, Any]) -> str:
    return json.dumps(d, indent=2, default=str)
