"""The side-by-side report: per class and size bucket, dcnsim's ``linux`` profile against the
kernel's repetitions, with a verdict per figure against stated tolerances. Pure functions
on DataFrames (tested without root); the plot is optional (matplotlib)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..analysis import DEFAULT_EDGES, bucket_labels, size_bucket


@dataclass(frozen=True)
class Tolerances:
    """When a statistic of dcnsim "agrees" with the kernel's (docs/crosscheck.md says why).

    A percentile agrees when dcnsim's value lies within the kernel repetitions' range widened
    by the relative tolerance (so the testbed's own noise never counts against dcnsim). A
    per-flow count agrees when it is within ``count_factor`` of the kernel's (either way) or
    both are below ``count_floor`` per flow (rare events: a handful per run is noise)."""

    p50: float = 0.25
    p99: float = 0.50
    count_factor: float = 2.0
    count_floor: float = 0.1
    #: The CI test's bound on the long flows' median FCT (relative).
    long_p50: float = 0.25


# ---------------------------------------------------------------------------------------------
# one table of flows per side


COLUMNS = ["flow_id", "class_id", "class", "size", "start_s", "fct_s", "completed"]
COUNTS = ["retx", "rtos", "spurious"]


def sim_flows(flows: pd.DataFrame) -> pd.DataFrame:
    """The simulated side's flows in the report's columns (spurious retransmissions are
    known exactly in dcnsim; the kernel's are those a D-SACK reported)."""
    out = flows[COLUMNS].copy()
    out["retx"] = flows["retx_pkts"] + flows.get("syn_retx", 0)
    out["rtos"] = flows["rto_count"]
    out["spurious"] = flows["spurious_retx"]
    out["tlp"] = flows.get("tlp_probes", 0)
    out["rtt_s"] = flows["srtt_s"]
    out["late_s"] = 0.0
    return out


def kernel_flows(
    planned: pd.DataFrame, hosts: Sequence[Mapping[str, Any]], rep: int
) -> pd.DataFrame:
    """One repetition's flows: the planned list joined with what the drivers recorded.
    FCT = when the receiver had the last byte − the scheduled start (as dcnsim measures)."""
    rx = {r["id"]: r for h in hosts for r in h.get("received", [])}
    tx = {r["id"]: r for h in hosts for r in h.get("sent", [])}
    out = planned[["flow_id", "class_id", "class", "size", "start_s"]].copy()
    ids = out["flow_id"].tolist()
    done = [rx.get(i, {}).get("rx_done") for i in ids]
    out["fct_s"] = [
        (d - s) if d is not None else math.nan for d, s in zip(done, out["start_s"], strict=True)
    ]
    out["completed"] = [d is not None for d in done]

    def col(key: str) -> list[float]:
        vals = []
        for i in ids:
            v = tx.get(i, {}).get(key)
            vals.append(math.nan if v is None else float(v))
        return vals

    out["retx"] = col("total_retrans")
    out["rtos"] = col("total_rto")
    out["spurious"] = col("dsack_dups")
    out["tlp"] = math.nan  # per flow unknown; the namespace counters give the total
    out["rtt_s"] = [v / 1e6 for v in col("rtt_us")]
    out["late_s"] = col("late")
    out["rep"] = rep
    return out


# ---------------------------------------------------------------------------------------------
# statistics and verdicts


def _pct(s: pd.Series, q: float) -> float:
    s = s.dropna()
    return float(np.percentile(s, q)) if len(s) else math.nan


def pct_agrees(sim: float, kernel_reps: Sequence[float], tol: float) -> bool | None:
    """dcnsim's percentile within the kernel repetitions' range widened by ``tol``."""
    ks = [k for k in kernel_reps if not math.isnan(k)]
    if math.isnan(sim) or not ks:
        return None
    return min(ks) / (1 + tol) <= sim <= max(ks) * (1 + tol)


def count_agrees(sim: float, kernel: float, tol: Tolerances) -> bool | None:
    if math.isnan(sim) or math.isnan(kernel):
        return None
    if sim < tol.count_floor and kernel < tol.count_floor:
        return True
    lo, hi = sorted((sim, kernel))
    return lo > 0 and hi / lo <= tol.count_factor


def compare(
    sim: pd.DataFrame,
    kernel: pd.DataFrame,
    tol: Tolerances = Tolerances(),
    edges: Sequence[float] = DEFAULT_EDGES,
) -> pd.DataFrame:
    """One row per (class, size bucket) with flows: counts, FCT p50/p99 of dcnsim and of the
    kernel (median over repetitions, and the repetitions' min–max), per-flow retransmissions,
    RTOs and spurious retransmissions, and a verdict per statistic."""
    sim = sim.assign(bucket=size_bucket(sim["size"], edges).astype(str))
    kernel = kernel.assign(bucket=size_bucket(kernel["size"], edges).astype(str))
    order = {b: i for i, b in enumerate(bucket_labels(edges))}
    rows = []
    reps = sorted(kernel["rep"].unique()) if len(kernel) else []
    for (cls, bucket), s in sim.groupby(["class", "bucket"], sort=False, observed=True):
        k = kernel[(kernel["class"] == cls) & (kernel["bucket"] == bucket)]
        row: dict[str, Any] = {
            "class": cls,
            "bucket": bucket,
            "flows": len(s),
            "sim_done": int(s["completed"].sum()),
            "kernel_done": round(float(k["completed"].sum()) / max(1, len(reps)), 1),
        }
        for q, t in ((50, tol.p50), (99, tol.p99)):
            sv = _pct(s.loc[s["completed"], "fct_s"], q)
            kv = [_pct(k.loc[(k["rep"] == r) & k["completed"], "fct_s"], q) for r in reps]
            row[f"sim_p{q}_ms"] = sv * 1e3
            row[f"kernel_p{q}_ms"] = float(np.nanmedian(kv)) * 1e3 if kv else math.nan
            row[f"kernel_p{q}_lo_ms"] = float(np.nanmin(kv)) * 1e3 if kv else math.nan
            row[f"kernel_p{q}_hi_ms"] = float(np.nanmax(kv)) * 1e3 if kv else math.nan
            row[f"p{q}_agrees"] = pct_agrees(sv, kv, t)
        for c in COUNTS:
            sv = float(s[c].mean())
            kv = float(k[c].mean()) if len(k) else math.nan
            row[f"sim_{c}"] = sv
            row[f"kernel_{c}"] = kv
            row[f"{c}_agrees"] = count_agrees(sv, kv, tol)
        row["_o"] = order.get(bucket, 99)
        rows.append(row)
    df = pd.DataFrame(rows)
    if len(df):
        df = df.sort_values(["class", "_o"]).drop(columns="_o").reset_index(drop=True)
    return df


FIGURES = {
    "fct_p50": ("FCT median per class and size", "p50_agrees"),
    "fct_p99": ("FCT p99 per class and size", "p99_agrees"),
    "retx": ("retransmissions per flow", "retx_agrees"),
    "rtos": ("RTOs per flow", "rtos_agrees"),
    "spurious": ("spurious retransmissions per flow (kernel: D-SACKed)", "spurious_agrees"),
}


def verdicts(table: pd.DataFrame) -> dict[str, dict[str, Any]]:
    """Per figure: ``agrees`` (every row with data agrees), ``differs`` (with the rows that
    do not) or ``no data``."""
    out = {}
    for fig, (title, col) in FIGURES.items():
        vals = (
            [(r["class"], r["bucket"], r[col]) for _, r in table.iterrows()] if len(table) else []
        )
        known = [v for v in vals if v[2] is not None and not pd.isna(v[2])]
        bad = [f"{c} {b}" for c, b, v in known if not v]
        verdict = "no data" if not known else ("agrees" if not bad else "differs")
        out[fig] = {"title": title, "verdict": verdict, "differs_in": bad}
    return out


def long_flow_medians(
    sim: pd.DataFrame, kernel: pd.DataFrame, min_size: int = 100_000
) -> tuple[float, float]:
    """Median FCT of the flows of at least ``min_size`` bytes on each side."""
    s = sim[(sim["size"] >= min_size) & sim["completed"]]["fct_s"]
    k = kernel[(kernel["size"] >= min_size) & kernel["completed"]]["fct_s"]
    return float(s.median()), float(k.median())


# ---------------------------------------------------------------------------------------------
# text


def _f(v: Any, nd: int = 2) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    if isinstance(v, bool):
        return "yes" if v else "**no**"
    if isinstance(v, float):
        return f"{v:.{nd}f}"
    return str(v)


def table_md(table: pd.DataFrame) -> str:
    head = (
        "| class | size | flows | done sim/kernel | FCT p50 ms sim | kernel (reps) | ok "
        "| FCT p99 ms sim | kernel (reps) | ok | retx/flow sim | kernel | ok "
        "| RTO/flow sim | kernel | ok | spurious/flow sim | kernel (DSACK) | ok |"
    )
    lines = [head, "|" + "---|" * 19]
    for _, r in table.iterrows():
        lines.append(
            f"| {r['class']} | {r['bucket']} | {r['flows']} "
            f"| {r['sim_done']}/{_f(r['kernel_done'], 1)} "
            f"| {_f(r['sim_p50_ms'])} | {_f(r['kernel_p50_ms'])} "
            f"({_f(r['kernel_p50_lo_ms'])}–{_f(r['kernel_p50_hi_ms'])}) | {_f(r['p50_agrees'])} "
            f"| {_f(r['sim_p99_ms'])} | {_f(r['kernel_p99_ms'])} "
            f"({_f(r['kernel_p99_lo_ms'])}–{_f(r['kernel_p99_hi_ms'])}) | {_f(r['p99_agrees'])} "
            f"| {_f(r['sim_retx'])} | {_f(r['kernel_retx'])} | {_f(r['retx_agrees'])} "
            f"| {_f(r['sim_rtos'], 3)} | {_f(r['kernel_rtos'], 3)} | {_f(r['rtos_agrees'])} "
            f"| {_f(r['sim_spurious'], 3)} | {_f(r['kernel_spurious'], 3)} "
            f"| {_f(r['spurious_agrees'])} |"
        )
    return "\n".join(lines)


def report_md(
    name: str,
    table: pd.DataFrame,
    verdict: Mapping[str, Mapping[str, Any]],
    stack: pd.DataFrame,
    facts: Mapping[str, Any],
    tol: Tolerances,
    notes: Sequence[str],
) -> str:
    out = [f"# dcnsim crosscheck: {name}", ""]
    out.append(
        "dcnsim (TCP profile `linux`, token-bucket links) against this machine's Linux TCP "
        "in network namespaces (HTB egress shaping, same flow list). FCT = last byte "
        "received − scheduled start on both sides."
    )
    out.append("")
    out.append("## Run")
    out.append("")
    for k, v in facts.items():
        out.append(f"- {k}: {v}")
    out.append("")
    out.append("## Verdicts")
    out.append("")
    out.append(
        f"Tolerances: a percentile agrees when dcnsim lies within the kernel repetitions' "
        f"range widened by {tol.p50:.0%} (p50) / {tol.p99:.0%} (p99); a per-flow count "
        f"when within {tol.count_factor:g}× of the kernel's, or both below "
        f"{tol.count_floor:g} per flow."
    )
    out.append("")
    out.extend(_verdict_rows(verdict))
    out.append("")
    out.append("## Per class and size")
    out.append("")
    out.append(table_md(table))
    out.append("")
    out.append("## Stack counters (all flows, per flow; kernel: median over repetitions)")
    out.append("")
    out.append("| counter | dcnsim | kernel | kernel source |")
    out.append("|---|---|---|---|")
    for _, r in stack.iterrows():
        out.append(f"| {r['counter']} | {_f(r['sim'], 3)} | {_f(r['kernel'], 3)} | {r['source']} |")
    out.append("")
    if notes:
        out.append("## Notes")
        out.append("")
        out.extend(f"- {n}" for n in notes)
        out.append("")
    out.append("Figure: `fct_cdf.png` (FCT CDF per class, dcnsim and each kernel repetition).")
    return "\n".join(out) + "\n"


def _verdict_rows(verdict: Mapping[str, Mapping[str, Any]]) -> list[str]:
    rows = ["| figure | verdict | rows that differ |", "|---|---|---|"]
    for v in verdict.values():
        rows.append(f"| {v['title']} | {v['verdict']} | {', '.join(v['differs_in']) or '–'} |")
    return rows


def second_md(
    table: pd.DataFrame, verdict: Mapping[str, Mapping[str, Any]], stack: pd.DataFrame
) -> str:
    """The same comparison with dcnsim re-run at the kernel's actual start times."""
    out = ["", "## dcnsim at the kernel's actual start times", ""]
    out.append(
        "The testbed starts flows late (see start lateness above: every host's driver and "
        "all packet processing share the machine's CPUs, so simultaneous starts spread "
        "out). Here dcnsim replays each flow at its scheduled start plus the kernel's "
        "median lateness for it: what remains is TCP and the link model, not the schedule."
    )
    out.append("")
    out.extend(_verdict_rows(verdict))
    out.append("")
    out.append(table_md(table))
    out.append("")
    out.append("| counter | dcnsim at kernel starts | kernel |")
    out.append("|---|---|---|")
    for _, r in stack.iterrows():
        out.append(f"| {r['counter']} | {_f(r['sim'], 3)} | {_f(r['kernel'], 3)} |")
    return "\n".join(out) + "\n"


STACK = [
    # (label, sim column or None, nstat counter, note)
    ("loss probes (TLP)", "tlp", "TCPLossProbes", "nstat TCPLossProbes"),
    ("RTOs", "rtos", "TCPTimeouts", "nstat TCPTimeouts"),
    ("spurious RTOs", "spurious_rto", "TCPSpuriousRTOs", "nstat TCPSpuriousRTOs"),
    ("D-SACKs received / spurious retx", "spurious", "TCPDSACKRecv", "nstat TCPDSACKRecv"),
    ("retransmitted segments", "retx", "TCPRetransSegs_", "TCP_INFO total_retrans"),
]


def stack_table(
    sim: pd.DataFrame, sim_raw: pd.DataFrame, kernel: pd.DataFrame, nstats: Sequence[Mapping]
) -> pd.DataFrame:
    n = max(1, len(sim))
    rows = []
    for label, col, counter, src in STACK:
        if col == "spurious_rto":
            sv = float(sim_raw["spurious_rto"].sum()) / n
        else:
            sv = float(sim[col].sum()) / n
        if counter.endswith("_"):
            per_rep = [
                float(kernel.loc[kernel["rep"] == r, col].sum()) / n
                for r in sorted(kernel["rep"].unique())
            ]
        else:
            per_rep = [float(ns.get(counter, 0)) / n for ns in nstats]
        kv = float(np.median(per_rep)) if per_rep else math.nan
        rows.append({"counter": label, "sim": sv, "kernel": kv, "source": src})
    return pd.DataFrame(rows)


def plot_cdf(
    sim: pd.DataFrame, kernel: pd.DataFrame, path: Path, sim2: pd.DataFrame | None = None
) -> Path | None:
    """FCT CDF per class, both sides; None when matplotlib cannot be used."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except Exception:
        return None
    classes = list(dict.fromkeys(sim["class"]))
    fig, axes = plt.subplots(1, len(classes), figsize=(5 * len(classes), 3.6), squeeze=False)
    for ax, cls in zip(axes[0], classes, strict=True):
        s = np.sort(sim.loc[(sim["class"] == cls) & sim["completed"], "fct_s"].to_numpy()) * 1e3
        if len(s):
            ax.step(s, np.arange(1, len(s) + 1) / len(s), where="post", label="dcnsim", lw=2)
        if sim2 is not None:
            s2 = sim2.loc[(sim2["class"] == cls) & sim2["completed"], "fct_s"].to_numpy()
            s2 = np.sort(s2) * 1e3
            if len(s2):
                ax.step(
                    s2,
                    np.arange(1, len(s2) + 1) / len(s2),
                    where="post",
                    label="dcnsim at kernel starts",
                    lw=2,
                    ls="--",
                )
        for r in sorted(kernel["rep"].unique()):
            k = kernel[(kernel["rep"] == r) & (kernel["class"] == cls) & kernel["completed"]]
            v = np.sort(k["fct_s"].to_numpy()) * 1e3
            if len(v):
                ax.step(
                    v,
                    np.arange(1, len(v) + 1) / len(v),
                    where="post",
                    label=f"kernel rep {r}",
                    lw=1,
                    alpha=0.8,
                )
        ax.set_xscale("log")
        ax.set_xlabel("FCT (ms)")
        ax.set_ylabel("CDF")
        ax.set_title(str(cls))
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    from ..plots import save

    return save(fig, path, dpi=110)  # (whole or not at all; closes the figure)
