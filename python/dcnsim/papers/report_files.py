"""A reproduction's report files: ``report.md``, ``report.csv``, the figures' PNGs and
``report.html``, one writer for every paper (:meth:`.framework.Reproduction.write_report`).

Split from :mod:`.framework`, which plans, runs and evaluates; this module only renders what
the evaluation found.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from ..report import write
from .stats import HOLDS, INCONCLUSIVE, NA, NO, TOL

if TYPE_CHECKING:
    from .framework import Finding, Reproduction, Scale


def render_plot(fd: Finding, path: Path) -> None:
    """Draws a finding's plot into the PNG ``path`` (the report's per-figure image)."""
    from .. import plots

    plt = plots._plt()
    fig, ax = plt.subplots(figsize=(6.4, 4))
    assert fd.plot is not None
    fd.plot(ax)
    ax.set_title(fd.figure)
    fig.tight_layout()
    plots.save(fig, path)  # (closes the figure)


def _esc(s: str) -> str:
    return s.replace("|", "\\|").replace("\n", " ")


def verdict_table(findings: Sequence[Finding]) -> str:
    lines = [
        "| figure | paper | rule | ours | verdict |",
        "|---|---|---|---|---|",
    ]
    for f in findings:
        lines.append(
            f"| {f.figure} | {_esc(f.claim)} | {_esc(f.rule)} | {_esc(f.ours)} | {f.verdict} |"
        )
    return "\n".join(lines)


def _only(findings: Sequence[Finding]) -> str:
    ids = ", ".join(f.figure for f in findings)
    return f"figure {ids} was run" if len(findings) == 1 else f"figures {ids} were run"


#: How the bootstrap treats configurations run on the same seeds (:mod:`.stats`), as the
#: report states it.
PAIRED = (
    "configurations run on the same seeds draw the same random streams (the same flows where "
    "only the scheme differs) and share each replicate's draw of seeds, and the same flows' "
    "rows; the seed-to-seed part of each interval is widened for the number of seeds k by "
    "sqrt(k/(k−1))·t(k−1)/z, 2.69 for 3 seeds, 1.29 for 8"
)


def write_report(
    repro: Reproduction,
    out_dir: Path,
    findings: Sequence[Finding],
    scale: Scale,
    elapsed: float | None = None,
    *,
    subset: bool = False,
) -> Path:
    """``report.md`` (verdict table, notes, per-point seeds / durations / flow counts),
    ``report.csv`` (one row per finding, one column per statistic), one PNG per figure and
    ``report.html`` (:func:`write_html_report`)."""
    figdir = out_dir / "figures"
    figdir.mkdir(parents=True, exist_ok=True)
    for f in findings:
        path = figdir / f"{f.figure}.png"
        if f.plot is not None:
            render_plot(f, path)
        elif f.plot_file is not None and Path(f.plot_file).resolve() != path.resolve():
            shutil.copyfile(f.plot_file, path)  # drawn by a parallel evaluation elsewhere
    counted = [f for f in findings if f.counted]
    counts = {v: sum(f.verdict == v for f in counted) for v in (HOLDS, NO, INCONCLUSIVE, NA)}
    lines = [
        f"# {repro.title}",
        "",
        f"Scale: {scale.name}, seeds {list(scale.seeds)}. "
        + (f"Only {_only(findings)} (`--figure`), of {len(repro.figures)}. " if subset else "")
        + f"{counts[HOLDS]} of {len(counted)} findings hold, {counts[NO]} do not, "
        f"{counts[INCONCLUSIVE]} inconclusive, {counts[NA]} not available"
        + (
            f" ({len(findings) - len(counted)} reported variants not counted)."
            if len(counted) < len(findings)
            else "."
        ),
        "",
        "Verdicts: `holds` when the whole 95% cluster-bootstrap interval (seeds, then flows "
        f"within a seed, resampled; {PAIRED}) of the statistic lies in the band the rule "
        "states, `no` "
        "when it lies wholly outside, `inconclusive` when it straddles an edge. A quoted "
        f"effect g counts as reproduced within [1 + (g−1)/{TOL:g}, 1 + (g−1)·{TOL:g}]. "
        "Values are `estimate [low, high]`.",
        "",
        repro.preamble.strip(),
        "",
        "## Findings",
        "",
        verdict_table(findings),
        "",
        "## Notes on findings that do not hold",
        "",
    ]
    for f in findings:
        if f.verdict != HOLDS and f.note:
            lines.append(f"- **{f.figure}** ({f.verdict}): {f.note}")
    lines += ["", "## Points (seeds, simulated seconds, flows counted)", ""]
    for f in findings:
        if not f.points:
            continue
        lines.append(f"### {f.figure}")
        lines.append("")
        lines.append("| point | seeds | duration | flows |")
        lines.append("|---|---|---|---|")
        for p in f.points:
            d = ", ".join(p["duration_s"])
            lines.append(f"| {_esc(p['point'])} | {p['seeds']} | {d} | {p['flows']} |")
        lines.append("")
    if elapsed is not None:
        lines.append(f"Wall time: {elapsed:.0f} s")
    path = out_dir / "report.md"
    write(path, "\n".join(lines) + "\n")
    rows = []
    for f in findings:
        row: dict[str, Any] = {
            "figure": f.figure,
            "claim": f.claim,
            "rule": f.rule,
            "ours": f.ours,
            "verdict": f.verdict,
            "note": f.note,
        }
        for k, iv in f.stats.items():
            row[f"{k}"] = iv.est
            row[f"{k}_lo"] = iv.lo
            row[f"{k}_hi"] = iv.hi
        rows.append(row)
    write(out_dir / "report.csv", pd.DataFrame(rows).to_csv(index=False))
    write_html_report(repro, out_dir, findings, scale, elapsed, subset=subset)
    return path


def write_html_report(
    repro: Reproduction,
    out_dir: Path,
    findings: Sequence[Finding],
    scale: Scale,
    elapsed: float | None = None,
    *,
    subset: bool = False,
) -> Path:
    """``report.html``: the same content as ``report.md`` as one self-contained page (the
    figures written by :func:`write_report` embedded), plus the warnings of the runs and the
    scale's settings. One renderer for every paper."""
    from .. import report as rep

    counted = [f for f in findings if f.counted]
    counts = {v: sum(f.verdict == v for f in counted) for v in (HOLDS, NO, INCONCLUSIVE, NA)}
    only = (
        f"Only {rep.esc(_only(findings))} (<code>--figure</code>), of {len(repro.figures)}. "
        if subset
        else ""
    )
    body = [
        f"<p>{only}{counts[HOLDS]} of {len(counted)} findings hold, {counts[NO]} do not, "
        f"{counts[INCONCLUSIVE]} inconclusive, {counts[NA]} not available"
        + (
            f" ({len(findings) - len(counted)} reported variants not counted).</p>"
            if len(counted) < len(findings)
            else ".</p>"
        ),
        "<p>Verdicts: <b>holds</b> when the whole 95% cluster-bootstrap interval (seeds, then "
        f"flows within a seed, resampled; {PAIRED}) of the statistic lies in the band the rule "
        "states, "
        "<b>no</b> when it lies wholly outside, <b>inconclusive</b> when it straddles an edge. A "
        f"quoted effect g counts as reproduced within [1 + (g−1)/{TOL:g}, 1 + (g−1)·{TOL:g}]. "
        "Values are <code>estimate [low, high]</code>.</p>",
    ]
    body.append(rep.prose(repro.preamble))
    body += ["<h2>Paper vs ours</h2>"]
    head = "".join(f"<th class=l>{h}</th>" for h in ("figure", "paper", "rule", "ours", "verdict"))
    trs = []
    for f in findings:
        v = f.verdict if f.verdict in (HOLDS, NO, INCONCLUSIVE) else ""
        trs.append(
            "<tr>"
            + "".join(
                f'<td class="l">{rep.esc(x)}</td>' for x in (f.figure, f.claim, f.rule, f.ours)
            )
            + f'<td class="l {v}">{rep.esc(f.verdict)}</td></tr>'
        )
    body.append(f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(trs)}</tbody></table>")
    notes = [f for f in findings if f.verdict != HOLDS and f.note]
    if notes:
        body.append("<h2>Notes on findings that do not hold</h2><ul>")
        body += [
            f"<li><b>{rep.esc(f.figure)}</b> ({rep.esc(f.verdict)}): {rep.esc(f.note)}</li>"
            for f in notes
        ]
        body.append("</ul>")
    body.append("<h2>Figures</h2>")
    for f in findings:
        png = out_dir / "figures" / f"{f.figure}.png"
        if f.has_plot and png.is_file():
            body.append(rep.png_data(png.read_bytes(), f.figure, f"{f.figure}: {f.claim}"))
    body.append("<h2>Points (seeds, simulated seconds, flows counted)</h2>")
    for f in findings:
        if f.points:
            pts = pd.DataFrame(
                [
                    {
                        "point": p["point"],
                        "seeds": str(p["seeds"]),
                        "duration": ", ".join(p["duration_s"]),
                        "flows": p["flows"],
                    }
                    for p in f.points
                ]
            )
            body += [f"<h3>{rep.esc(f.figure)}</h3>", rep.table(pts, left=["point", "seeds"])]
    warns: dict[str, int] = {}
    names: dict[str, list[Path]] = {}
    runs = sorted((out_dir / "runs").glob("*/meta.json")) if (out_dir / "runs").is_dir() else []
    for mp in runs:
        try:
            meta = json.loads(mp.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        for w in meta.get("warnings") or []:
            warns[w] = warns.get(w, 0) + 1
        names.setdefault(str(meta.get("scenario_name", "?")), []).append(mp.parent)
    body += [
        "<h2>Warnings of the runs</h2>",
        rep.warnings_block([f"{w} ({n} of {len(runs)} runs)" for w, n in sorted(warns.items())]),
        "<h2>Run facts</h2>",
        rep.facts(
            {
                "scale": scale.name,
                "seeds": ", ".join(str(s) for s in scale.seeds),
                **{f"scale.{k}": v for k, v in scale.params.items()},
                "runs simulated or cached": len(runs),
                **({"wall time": f"{elapsed:.0f} s"} if elapsed is not None else {}),
                **{f"runs of scenario {n}": len(ds) for n, ds in sorted(names.items())},
            }
        ),
        "<h2>Scenarios</h2>",
        "<p>Per scenario, the normalized scenario of one of its runs (the runs differ in the "
        "overrides each figure sets: load, scheme, seed, …).</p>",
    ]
    for n, ds in sorted(names.items()):
        try:
            sc = json.loads((ds[0] / "scenario.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        body.append(rep.scenario_block(sc, f"{n}: run {ds[0].name[:12]} (normalized, TOML)"))
    return rep.write(out_dir / "report.html", rep.page(repro.title, body))
