"""Self-contained HTML reports of a run, a sweep or a paper reproduction.

One file, no network and no external files: figures are PNGs embedded as base64 ``data:`` URLs,
tables are HTML tables, the style sheet and a few lines of script are inline. The script checks
on load that every figure decoded (``naturalWidth > 0``), logs a console error for one that did
not, and records the count in ``<p id="dcnsim-figures" data-loaded=… data-total=…>`` so a
headless browser can verify the page (tests/python/test_report.py).

Only the standard library and matplotlib (already a dependency) are used.
"""

from __future__ import annotations

import base64
import contextlib
import html
import io
import json
import math
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from .results import Results

_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:2em auto;max-width:75em;
padding:0 1em;color:#222;line-height:1.4}
h1{font-size:1.5em;margin-bottom:.2em}h2{font-size:1.2em;border-bottom:1px solid #ccc;
margin-top:1.6em}h3{font-size:1em}
table{border-collapse:collapse;margin:.6em 0;font-size:.85em}
th,td{border:1px solid #ccc;padding:.2em .5em;text-align:right;vertical-align:top}
th{background:#f3f3f3}td.l,th.l{text-align:left}
pre{background:#f7f7f7;padding:.8em;overflow:auto;font-size:.8em;max-height:40em}
figure{margin:1em 0}figure img{max-width:100%;height:auto;border:1px solid #eee}
figcaption{font-size:.85em;color:#555}
.warn{background:#fff4d6;border-left:4px solid #e0a800;padding:.4em .8em;margin:.3em 0}
.holds{color:#17702a;font-weight:bold}.no{color:#b00020;font-weight:bold}
.inconclusive{color:#8a6d00;font-weight:bold}
.facts td{text-align:left}.facts td:first-child{color:#555}
details summary{cursor:pointer}.wide{overflow-x:auto;max-width:100%}
"""

# Runs after the images loaded: count the ones that decoded; a console error for any that did
# not, so a headless browser's log shows it.
_SCRIPT = """
window.addEventListener("load", function () {
  var imgs = document.images, ok = 0;
  for (var i = 0; i < imgs.length; i++) {
    if (imgs[i].complete && imgs[i].naturalWidth > 0) { ok++; }
    else { console.error("dcnsim report: figure " + (imgs[i].alt || i) + " did not load"); }
  }
  var p = document.getElementById("dcnsim-figures");
  p.setAttribute("data-loaded", String(ok));
  p.setAttribute("data-total", String(imgs.length));
  p.textContent = ok + " of " + imgs.length + " figures shown";
});
"""


def esc(text: Any) -> str:
    return html.escape(str(text), quote=True)


def page(title: str, body: Sequence[str]) -> str:
    """A complete HTML document: ``body`` is a list of HTML fragments."""
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en"><head><meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            '<link rel="icon" href="data:,">',
            f"<title>{esc(title)}</title>",
            f"<style>{_CSS}</style>",
            "</head><body>",
            f"<h1>{esc(title)}</h1>",
            *body,
            '<p id="dcnsim-figures" data-loaded="0" data-total="-1"></p>',
            f"<script>{_SCRIPT}</script>",
            "</body></html>",
            "",
        ]
    )


def png_data(data: bytes, alt: str, caption: str = "") -> str:
    """A ``<figure>`` with the PNG bytes embedded."""
    b64 = base64.b64encode(data).decode("ascii")
    cap = f"<figcaption>{esc(caption)}</figcaption>" if caption else ""
    return f'<figure><img alt="{esc(alt)}" src="data:image/png;base64,{b64}">{cap}</figure>'


def figure(fig: Figure, alt: str, caption: str = "") -> str:
    """Embed a matplotlib figure as a PNG (and close it)."""
    from . import plots

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, metadata={"Software": None})
    plots._plt().close(fig)
    return png_data(buf.getvalue(), alt, caption)


def table(df: pd.DataFrame, *, left: Iterable[str] = (), float_fmt: str = "{:.4g}") -> str:
    """An HTML table of ``df`` (no index); columns in ``left`` are left-aligned text."""
    left = set(left)
    head = "".join(
        f'<th class="{"l" if c in left else ""}">{esc(c)}</th>' for c in df.columns.astype(str)
    )
    rows = []
    for rec in df.itertuples(index=False):
        cells = []
        for c, v in zip(df.columns, rec, strict=True):
            cls = ' class="l"' if c in left else ""
            cells.append(f"<td{cls}>{esc(_cell(v, float_fmt))}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return (
        f'<div class="wide"><table><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )


def _cell(v: Any, float_fmt: str) -> str:
    if isinstance(v, float):
        if math.isnan(v):
            return "–"
        return float_fmt.format(v)
    return str(v)


def facts(items: Mapping[str, Any]) -> str:
    """A two-column table of run facts."""
    rows = "".join(f"<tr><td>{esc(k)}</td><td>{esc(v)}</td></tr>" for k, v in items.items())
    return f'<table class="facts"><tbody>{rows}</tbody></table>'


def warnings_block(warns: Sequence[str]) -> str:
    if not warns:
        return "<p>No warnings.</p>"
    return "".join(f'<div class="warn">{esc(w)}</div>' for w in warns)


def scenario_block(
    scenario: Mapping[str, Any], summary: str = "scenario (normalized, TOML)"
) -> str:
    from . import config

    try:
        text = config.dumps_toml(dict(scenario))
    except Exception:  # a value TOML cannot hold: show JSON instead
        text = json.dumps(scenario, indent=2, sort_keys=True, default=str)
    return f"<details><summary>{esc(summary)}</summary><pre>{esc(text)}</pre></details>"


def _inline(text: str) -> str:
    """Escape, then `code` spans and **bold**."""
    out = esc(text)
    out = re.sub(r"`([^`]+)`", r"<code>\1</code>", out)
    return re.sub(r"\*\*([^*]+)\*\*", r"<b>\1</b>", out)


def prose(text: str) -> str:
    """The little markdown the reports' prose uses, as HTML: paragraphs separated by blank
    lines, ``- `` list items (continued by indented lines), `code` and **bold**. Everything
    else is escaped text."""
    parts = []
    for para in re.split(r"\n\s*\n", text.strip()):
        lead: list[str] = []
        items: list[list[str]] = []
        for line in para.splitlines():
            if line.startswith("- "):
                items.append([line[2:].strip()])
            elif items:  # an indented (or any) line after an item continues it
                items[-1].append(line.strip())
            else:
                lead.append(line.strip())
        if lead:
            parts.append(f"<p>{_inline(' '.join(lead))}</p>")
        if items:
            lis = "".join(f"<li>{_inline(' '.join(it))}</li>" for it in items)
            parts.append(f"<ul>{lis}</ul>")
    return "\n".join(parts)


def write(path: str | os.PathLike[str], text: str) -> Path:
    """Write atomically (a temporary sibling renamed into place; none is left behind)."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_name(f".{p.name}.tmp-{os.getpid()}")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, p)
    finally:
        tmp.unlink(missing_ok=True)
    return p


# ---------------------------------------------------------------------------------------------
# a run


def _fmt_s(x: Any) -> str:
    try:
        v = float(x)
    except (TypeError, ValueError):
        return "?"
    if math.isnan(v):
        return "–"
    if v >= 1:
        return f"{v:.3g} s"
    if v >= 1e-3:
        return f"{v * 1e3:.3g} ms"
    return f"{v * 1e6:.3g} µs"


def run_facts(res: Results) -> dict[str, Any]:
    from . import analysis

    m = res.meta
    wall = float(m.get("wall_s") or 0.0)
    events = int(m.get("events") or 0)
    return {
        "scenario": m.get("scenario_name", "?"),
        "seed": m.get("seed", "?"),
        "config hash": str(m.get("config_hash", ""))[:16],
        "flows": f"{m.get('flows_total', len(res.flows))} total, "
        f"{m.get('flows_completed', '?')} completed, "
        f"{m.get('flows_in_window', '?')} in the measurement window",
        "simulated time": _fmt_s(m.get("sim_time_s")),
        "how it ended": analysis.how_it_ended(m) or "?",
        "wall time": f"{wall:.2f} s",
        "events": f"{events:,}" + (f" ({events / wall / 1e6:.2f} M/s)" if wall > 0 else ""),
        "packet-hops": f"{int(m.get('packet_hops') or 0):,}",
        "dcnsim": f"{m.get('dcnsim_python', '?')} "
        f"(core {m.get('core_build', m.get('version', '?'))})",
    }


def analysis_load_frame(load: Mapping[str, Any]) -> pd.DataFrame:
    """``meta["load"]`` as a table: one row per class."""
    from . import analysis

    return analysis.load_frame(load)


def _stats_table(res: Results, by: str | None) -> str:
    from . import analysis

    f = analysis.fct_stats(res, by=by)
    s = analysis.fct_stats(res, by=by, metric="slowdown")
    key = [] if by is None else [by]
    out = f[[*key, "count", "unfinished"]].copy()
    for c in ("mean", "p50", "p99", "p99.9"):
        out[f"FCT {c}"] = [_fmt_s(v) for v in f[c]]
    for c in ("p50", "p99", "p99.9"):
        out[f"slowdown {c}"] = s[c]
    out = out.rename(columns={"count": "completed"})
    return table(out, left=key)


def _queue_table(res: Results, top: int = 10) -> str:
    q = res.queues
    if q.empty:
        return "<p>No queue counters.</p>"
    cols = [
        c
        for c in ("node_name", "peer_name", "queue", "pkts_in", "drops", "ecn_marks", "max_bytes")
        if c in q
    ]
    order = q.sort_values(["drops", "max_bytes"], ascending=False) if "drops" in q else q
    return f"<p>The {min(top, len(q))} queues with the most drops (of {len(q)}).</p>" + table(
        order[cols].head(top), left=["node_name", "peer_name"]
    )


def run_fragment(res: Results) -> str:
    """A compact HTML summary of a run (no figures, no page around it): what Jupyter shows
    for a :class:`Results` (``_repr_html_``)."""
    from . import plots

    m = res.meta
    warns = list(m.get("warnings") or [])
    parts = [
        "<div>",
        f"<b>dcnsim Results</b>: {esc(plots.describe(res)).replace(chr(10), '; ')}",
        facts(run_facts(res)),
    ]
    if len(res.flows):
        parts.append(_stats_table(res, "bucket"))
        if "class" in res.flows and res.flows["class"].nunique() > 1:
            parts.append(_stats_table(res, "class"))
    parts += [f"<div>warning: {esc(w)}</div>" for w in warns]
    if res.path is not None:
        parts.append(f"<div>saved in {esc(res.path)}</div>")
    parts.append("</div>")
    return "\n".join(parts)


def run_html(res: Results, title: str | None = None) -> str:
    """The HTML report of one run."""
    from . import plots

    m = res.meta
    name = title or f"dcnsim run: {m.get('scenario_name', '?')} (seed {m.get('seed', '?')})"
    body = [
        f"<p>{esc(plots.describe(res)).replace(chr(10), '<br>')}</p>",
        "<h2>Run facts</h2>",
        facts(run_facts(res)),
        "<h2>Warnings</h2>",
        warnings_block(list(m.get("warnings") or [])),
        "<h2>Flow completion times by size</h2>",
        "<p>Flows that started in the measurement window; statistics over completed flows, "
        "unfinished flows counted separately.</p>",
        _stats_table(res, "bucket"),
        _stats_table(res, None),
    ]
    if "class" in res.flows and res.flows["class"].nunique() > 1:
        body += ["<h2>By class</h2>", _stats_table(res, "class")]
    body += [
        "<h2>Figures</h2>",
        figure(plots.fct_cdf(res), "fct_cdf", "CDF of flow completion times"),
        figure(
            plots.percentile_bars(res, metric="slowdown"),
            "slowdown_p99_by_size",
            "p99 slowdown per size bucket and class",
        ),
        figure(
            plots.percentile_bars(res, metric="fct_s"),
            "fct_p99_by_size",
            "p99 FCT per size bucket and class",
        ),
    ]
    if not res.samples.empty:
        body.append(figure(plots.queue_timeseries(res), "queues", "queue occupancy over time"))
        if "util" in res.samples:
            body.append(
                figure(
                    plots.link_timeseries(res),
                    "utilization",
                    "port utilization and goodput per class over time",
                )
            )
    if m.get("load"):
        body += [
            "<h2>Offered vs carried load</h2>",
            "<p>Per class over the measurement window: offered = bytes of flows that start "
            "in it, carried = payload bytes delivered in it; as rates and as a fraction of "
            "the host links' total capacity.</p>",
            table(analysis_load_frame(m["load"]), left=["class"]),
        ]
    body += [
        "<h2>Queues</h2>",
        _queue_table(res),
        "<h2>Scenario</h2>",
        scenario_block(res.scenario),
    ]
    return page(name, body)


# ---------------------------------------------------------------------------------------------
# a sweep


def _run_meta(d: Path) -> dict[str, Any]:
    try:
        return json.loads((d / "meta.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def sweep_html(sweep_dir: str | os.PathLike[str]) -> str:
    """The HTML report of a sweep directory (``sweep.parquet`` and its ``runs/``)."""
    from . import plots
    from .results import read_sweep_table
    from .sweep import aggregate, param_columns

    d = Path(sweep_dir)
    df = read_sweep_table(d)
    agg = aggregate(df)
    params = param_columns(df)
    done = df[df["done"].astype(bool)]
    title_line = plots.sweep_title(d, df)
    warns: dict[str, int] = {}
    scenario: dict[str, Any] | None = None
    for rd in done["run_dir"]:
        for w in _run_meta(d / rd).get("warnings") or []:
            warns[w] = warns.get(w, 0) + 1
        if scenario is None:
            with contextlib.suppress(OSError, ValueError):
                scenario = json.loads((d / rd / "scenario.json").read_text(encoding="utf-8"))
    values = {p: ", ".join(str(v) for v in dict.fromkeys(df[p])) for p in params}
    body = [
        f"<p>{esc(title_line).replace(chr(10), '<br>')}</p>",
        "<h2>Sweep facts</h2>",
        facts(
            {
                **{f"swept {p}": v for p, v in values.items()},
                "seeds": ", ".join(str(s) for s in sorted(set(df["seed"]))),
                "runs": f"{len(done)} of {len(df)} complete",
                "directory": str(d.absolute()),
            }
        ),
        "<h2>Warnings</h2>",
        warnings_block([f"{w} ({n} of {len(done)} runs)" for w, n in sorted(warns.items())]),
        "<h2>Mean over seeds with 95% interval</h2>",
        "<p>Per parameter point: the mean over seeds and, in brackets, the two-sided Student-t "
        "95% confidence interval of that mean (needs two or more completed seeds).</p>",
    ]
    keys = [c for c in ("fct_p50_s", "fct_p99_s", "slowdown_p50", "slowdown_p99", "unfinished")]
    shown = agg[[*params, "seeds"]].copy()
    for c in keys:
        if c in agg:
            shown[c] = [
                f"{m:.4g} [{lo:.4g}, {hi:.4g}]" if not math.isnan(lo) else f"{m:.4g}"
                for m, lo, hi in zip(agg[c], agg[f"{c}_lo"], agg[f"{c}_hi"], strict=True)
            ]
    body.append(table(shown, left=params))
    body.append("<h2>Figures</h2>")
    fams = plots.sweep_families(list(agg.columns))
    if not fams:
        body.append("<p>No run of this sweep has completed: nothing to plot.</p>")
    for fam, cols in fams.items():
        ylabel = "" if fam == "overview" else fam.split("_by_")[0].replace("_", " ")
        fig = plots.sweep_metric(agg, cols, title=title_line, ylabel=ylabel)
        body.append(figure(fig, f"sweep_{fam}", fam.replace("_", " ")))
    run_cols = [
        c
        for c in [*params, "seed", "done", "flows_total", "unfinished", "fct_p99_s", "slowdown_p99"]
        if c in df
    ]
    body += ["<h2>Runs</h2>", table(df[[*run_cols, "run_dir"]], left=[*params, "run_dir"])]
    if scenario is not None:
        body += [
            "<h2>Scenario</h2>",
            scenario_block(scenario, "scenario of the first completed run (normalized, TOML)"),
        ]
    return page(f"dcnsim sweep: {d.name}", body)


def write_run_or_sweep(
    directory: str | os.PathLike[str], out: str | os.PathLike[str] | None
) -> Path:
    """``dcnsim report DIR``: the report of a run or sweep directory (default
    ``DIR/report.html``)."""
    from .results import is_complete, load

    d = Path(directory)
    target = Path(out) if out is not None else d / "report.html"
    if (d / "sweep.parquet").is_file():
        return write(target, sweep_html(d))
    if is_complete(d):
        return write(target, run_html(load(d)))
    raise FileNotFoundError(f"{d} is neither a saved run (dcnsim run -o) nor a sweep directory")
