"""REFLEX reproduction: how every run is built, as overrides of the shipped ``reflex`` preset.

Owns the wire constants (:data:`LINE`, :data:`GOODPUT`), the schemes of Figs 3/4
(:data:`SCHEMES`) and the override builders: the two-flow cases (:func:`case_overrides`,
and :func:`fig6_overrides` from it), many short regular flows beside one long flexible flow
(:func:`short_flows_overrides`, Figs 8 and 11), flexible flows arriving one by one
(:func:`convergence_overrides`, Fig 12) and the three workloads on a 20-server ToR
(:data:`WORKLOADS`, :func:`workload_overrides`, Figs 13–17).
"""

from __future__ import annotations

from typing import Any

from ..framework import Scale

PRESET = "reflex"

#: Line rate (Gb/s) and the best goodput fraction on the REFLEX-BASE wire: 1380 B of payload
#: in a 1434 B frame (PPP 2 + IP 20 + TCP with timestamps 32); the paper's "approximately 96%".
LINE = 10.0
GOODPUT = 1380 / 1434

#: Schemes of Figs 3/4: name → (DRR weights of [high, low] or None for strict priority,
#: flexible flow's queue, REFLEX on).
SCHEMES: dict[str, tuple[list[float] | None, int, bool]] = {
    "none": ([90.0, 10.0], 0, False),  # no prioritization: both flows in the high queue
    "absolute": (None, 1, False),  # flexible always in a strictly lower queue
    "w9:1": ([9.0, 1.0], 1, False),  # fixed weighted prioritization, flexible always low
    "w2:1": ([2.0, 1.0], 1, False),
    "w10:9": ([10.0, 9.0], 1, False),
    "reflex": ([90.0, 10.0], 0, True),
}

#: Case 1: 40 Gbit flexible at 0 s, 2 Gbit regular at 2 s; Case 2 the other way round.
GBIT = 125_000_000


def _sched(weights: list[float] | None) -> dict[str, Any]:
    return {"kind": "strict"} if weights is None else {"kind": "drr", "weights": weights}


def case_overrides(
    case: int,
    scheme: str,
    *,
    alpha: float = 0.9,
    reliability: float | None = None,
    flex_gbit: float | None = None,
    reg_gbit: float | None = None,
    flex_start: str | None = None,
    reg_start: str | None = None,
    interval: str = "5ms",
    duration: str = "6s",
    trace: str | None = None,
) -> dict[str, Any]:
    """Overrides of the ``reflex`` preset for one two-flow case (1 or 2, REFLEX §4 Figs 3/4)
    under one of :data:`SCHEMES`; class 0 is the flexible flow (host 0 → 2), class 1 the
    regular flow (host 1 → 2)."""
    weights, flex_q, on = SCHEMES[scheme]
    fg = flex_gbit if flex_gbit is not None else (40.0 if case == 1 else 2.0)
    rg = reg_gbit if reg_gbit is not None else (2.0 if case == 1 else 40.0)
    fs = flex_start if flex_start is not None else ("0s" if case == 1 else "2s")
    rs = reg_start if reg_start is not None else ("2s" if case == 1 else "0s")
    flex: dict[str, Any] = {
        "name": "flexible",
        "priority": flex_q,
        "transport": "dctcp",
        "workload": {
            "kind": "flows",
            "list": [{"src": 0, "dst": 2, "size": f"{int(fg * GBIT)}B", "start": fs}],
        },
    }
    if on:
        flex["alpha"] = alpha
        if reliability is not None:
            flex["reliability"] = reliability
    reg = {
        "name": "regular",
        "priority": 0,
        "transport": "dctcp",
        "workload": {
            "kind": "flows",
            "list": [{"src": 1, "dst": 2, "size": f"{int(rg * GBIT)}B", "start": rs}],
        },
    }
    ov: dict[str, Any] = {
        "classes": [flex, reg],
        "switch.scheduler": _sched(weights),
        "host.scheduler": _sched(weights),
        "scheme": {"kind": "reflex", "interval": interval} if on else {"kind": "none"},
        "run.duration": duration,
        "run.horizon": duration,
    }
    if trace:
        ov["output.trace_flows"] = [0, 1]
        ov["output.trace_interval"] = trace
    return ov


def fig6_overrides(r: float) -> dict[str, Any]:
    """8 Gbit flexible (α = 1, reliability r) vs 8 Gbit regular, both from t = 0."""
    return case_overrides(
        1,
        "reflex",
        alpha=1.0,
        reliability=r,
        flex_gbit=8.0,
        reg_gbit=8.0,
        flex_start="0s",
        reg_start="0s",
        duration="4s",
    )


def short_flows_overrides(
    d_exploit: int | None, measure: str, *, trace: bool = False
) -> dict[str, Any]:
    """One long flexible flow (α = 0.9, host 0 → 2, active the whole run) and 100 kB regular
    flows (host 1 → 2), Poisson 1000 flows/s from 1 s for ``measure``, then 1 s of cool-down
    (REFLEX §6.2). ``d_exploit`` None: no REFLEX (the flexible flow stays HIGH)."""
    m = float(measure.rstrip("s"))
    ov = case_overrides(
        1,
        "reflex" if d_exploit is not None else "none",
        flex_gbit=200.0,
        duration=f"{m + 2:g}s",
    )
    # 100 kB × 1000 / s = 0.8 Gb/s of payload on the 10 Gb/s link (load_basis bisection).
    ov["classes"][1]["workload"] = {
        "kind": "poisson",
        "sizes": {"fixed": "100kB"},
        "load": 0.08,
        "senders": [1],
        "receivers": [2],
        "load_basis": "bisection",
        "bisection": "10Gbps",
        "start": "1s",
        "stop": f"{m + 1:g}s",
    }
    ov["run.warmup"] = "1s"
    ov["run.cooldown"] = "1s"
    ov["run.horizon"] = f"{m + 3:g}s"
    if d_exploit is not None:
        ov["scheme"]["exploit"] = d_exploit
    if trace:
        ov["output.trace_flows"] = [0]
        ov["output.trace_interval"] = "1ms"
    return ov


def convergence_overrides(n: int, gap: float, duration: str) -> dict[str, Any]:
    """``n`` long flexible flows (α = 0.9) from hosts 0..n−1 to host n, one every ``gap`` s."""
    flows = [
        {"src": i, "dst": n, "size": "100GB", "start": f"{gap * i:g}s", "alpha": 0.9}
        for i in range(n)
    ]
    return {
        "topology.hosts": n + 1,
        "classes": [
            {
                "name": "flexible",
                "priority": 0,
                "transport": "dctcp",
                "workload": {"kind": "flows", "list": flows},
            }
        ],
        "scheme": {"kind": "reflex"},
        "run.duration": duration,
        "run.horizon": duration,
        "output.trace_flows": list(range(n)),
        "output.trace_interval": "5ms",
    }


#: Regular-flow workloads (REFLEX §6.4): sizes and load of the 20 × 10 Gb/s host links.
#: Workload 2: the stated 100 kB × 5000 flows/s is 4 Gb/s = 2 % (the paper's "around 40 %"
#: does not follow): the stated rate is used.
WORKLOADS = {
    "wl1": ({"fixed": "250MB"}, 0.2),
    "wl2": ({"fixed": "100kB"}, 0.02),
    "wl3": ({"cdf": "websearch"}, 0.2),
}


def workload_overrides(
    wl: str, scheme: str, sc: Scale, *, alpha: float | None = None, reliability: float | None = None
) -> dict[str, Any]:
    """REFLEX-WL-BASE: 20 servers under one ToR; flexible flows 250 MB, Poisson 20 flows/s
    (20 % of the host links); regular flows per workload; uniformly random distinct pairs.
    ``scheme``: "none", "w9:1" (flexible always low, DRR 9:1) or "reflex"."""
    sizes, load = WORKLOADS[wl]
    weights, flex_q, on = SCHEMES[scheme]
    warm, meas, cool = sc.wl_warmup, sc.wl_measure, sc.wl_cooldown
    dur = warm + meas + cool
    flex: dict[str, Any] = {
        "name": "flexible",
        "priority": flex_q,
        "transport": "dctcp",
        "workload": {"kind": "poisson", "sizes": {"fixed": "250MB"}, "load": 0.2},
    }
    if on:
        flex["alpha"] = 1.0 if alpha is None else alpha
        if reliability is not None:
            flex["reliability"] = reliability
    reg = {
        "name": "regular",
        "priority": 0,
        "transport": "dctcp",
        "workload": {"kind": "poisson", "sizes": sizes, "load": load},
    }
    return {
        "topology.hosts": 20,
        "classes": [flex, reg],
        "switch.scheduler": _sched(weights),
        "host.scheduler": _sched(weights),
        "scheme": {"kind": "reflex"} if on else {"kind": "none"},
        "run.duration": f"{dur:g}s",
        "run.warmup": f"{warm:g}s",
        "run.cooldown": f"{cool:g}s",
        "run.horizon": f"{dur + sc.wl_drain:g}s",
    }
