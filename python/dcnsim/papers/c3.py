"""C3 reproduction (coexistence of congestion controls through virtual elastic pipes; paper 002;
spec experiments.md C3-MOTIV-BASE … C3-Fig10).

Presets: the shipped scenario ``c3_coexist`` is the motivation's Coexist-TS/DS/PS under C3;
every figure builds its scenario here as a dict (:func:`motiv`, :func:`star`, :func:`tree`)
so the topology, scheme and class set of each point are explicit.

Objectives and their transports (C3 §2): TS and LS run ElasticSwitch (DCTCP under the
VM-pair limiter; ``scheme.kind = "elasticswitch"`` without C3), DS runs D2TCP, PS runs
L2DCT. "Without C3" is ElasticSwitch for the guaranteed classes and the plain flow
transports for the rest; "with C3" puts every class in per-objective pipes
(``scheme.kind = "c3"``). Metrics per objective: TS goodput per 1 ms interval (the
``class_samples`` table) against its guarantee; LS RTT as the time until the sender of a
2 KB (two-segment) LS flow holds the ACK of its last byte, one round trip plus
serialization; DS deadline-miss ratio
(a flow misses when it did not finish within its deadline); PS average FCT.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .framework import (
    HOLDS,
    NO,
    Ctx,
    Figure,
    Finding,
    Interval,
    Reproduction,
    Scale,
    band,
    bars,
    bootstrap,
    effect_band,
    exact,
    lines,
)

TITLE = "C3: coexisting congestion controls through virtual elastic pipes (paper 002)"
PRESET = "c3_coexist"
EXPECTED_TIME = "reduced: about 4-6 min (151 runs) on two cores; --full: not measured (hours)"

#: Payload per wire frame: 1460 B in 1538 B (no tunnel) or 1566 B (C3's 28 B outer header).
FRAME, FRAME_C3, MSS = 1538, 1566, 1460

#: Initial window 2 segments: C3 §3 "most of the existing protocols start with initial
#: congestion window of two packets (such as DCTCP, L2DCT ...)" (spec §4.1, PAPER-derived).
#: With the rfc profile's 10, a Base-DS round's ten flows put 100 frames (2.5 ms at
#: 500 Mb/s) into the bottleneck at once, beyond the 1 ms initial RTO: every flow took
#: spurious timeouts and retransmitted about 15% of its bytes.
C3_IW = 2

TRANSPORTS: dict[str, Any] = {
    # [CHOICE] RTO_min 1 ms for every transport (datacenter setting; the paper gives none).
    "es": {"cc": "dctcp", "rto_min": "1ms", "init_cwnd": C3_IW},
    "ds": {"cc": "d2tcp", "rto_min": "1ms", "init_cwnd": C3_IW},
    "ps": {"cc": "l2dct", "rto_min": "1ms", "init_cwnd": C3_IW},
    "dctcp": {"cc": "dctcp", "rto_min": "1ms", "init_cwnd": C3_IW},
}

#: C3-Fig2d's Base-DS round: five 92 KB flows due in 16 ms and five 138 KB due in 20 ms.
DS_ROUND = (("92KB", "16ms"),) * 5 + (("138KB", "20ms"),) * 5


def payload(g_bps: float, c3: bool) -> float:
    """Goodput (payload bits/s) a guarantee on wire bytes allows."""
    return g_bps * MSS / (FRAME_C3 if c3 else FRAME)


# ---------------------------------------------------------------------------------------------
# classes


def _guarantee(mode: str, objective: str, g: str | None) -> dict[str, Any]:
    """Class keys for a scheme mode: ``c3`` → objective (+ guarantee for TS); ``es`` → the
    guarantee for TS and LS (their ElasticSwitch limiters); ``none`` → nothing."""
    if mode in ("c3", "c3-2q"):
        out: dict[str, Any] = {"objective": objective}
        if objective == "ts":
            out["guarantee"] = g
        return out
    if mode == "es" and g is not None:
        return {"guarantee": g}
    return {}


def cls(
    name: str,
    objective: str,
    mode: str,
    flows: list[dict[str, Any]] | None = None,
    *,
    transport: str | None = None,
    guarantee: str | None = None,
    workload: dict[str, Any] | None = None,
    priority: int = 0,
) -> dict[str, Any]:
    tr = transport or {"ts": "es", "ls": "es", "ds": "ds", "ps": "ps"}[objective]
    wl = workload if workload is not None else {"kind": "flows", "list": flows}
    return {
        "name": name,
        "transport": tr,
        "priority": priority,
        **_guarantee(mode, objective, guarantee),
        "workload": wl,
    }


def scheme_of(mode: str, classes: Sequence[dict[str, Any]] = ()) -> dict[str, Any]:
    """The scheme table of a mode; ElasticSwitch only when a class has a guarantee (without
    one its limiters would do nothing, and the core rejects that)."""
    if mode == "es" and not any("guarantee" in c for c in classes):
        return {"kind": "none"}
    return {
        "none": {"kind": "none"},
        "es": {"kind": "elasticswitch"},
        "c3": {"kind": "c3"},
        "c3-2q": {"kind": "c3"},
    }[mode]


def long_flows(src: int, dst: int, n: int) -> list[dict[str, Any]]:
    return [{"src": src, "dst": dst, "size": "10GB", "start": 0} for _ in range(n)]


def rounds(
    srcs: Sequence[int],
    dst: int,
    n_rounds: int,
    period_ms: float,
    start_ms: float = 0.0,
    *,
    deadlines: bool = True,
    shape: Sequence[tuple[str, str]] = DS_ROUND,
) -> list[dict[str, Any]]:
    """``n_rounds`` rounds of the flows in ``shape`` (size, deadline), started together every
    ``period_ms``, spread over ``srcs`` in turn."""
    out = []
    for r in range(n_rounds):
        for i, (size, dl) in enumerate(shape):
            f: dict[str, Any] = {
                "src": srcs[i % len(srcs)],
                "dst": dst,
                "size": size,
                "start": f"{start_ms + r * period_ms:g}ms",
            }
            if deadlines:
                f["deadline"] = dl
            out.append(f)
    return out


def ls_flows(src: int, dst: int, n: int, period_us: float, until_ms: float) -> list[dict]:
    """2 KB latency-sensitive flows, ``n`` evenly spaced in every ``period_us`` (C3-Fig2c:
    seven, every 2 ms)."""
    out = []
    t = 0.0
    step = period_us / n
    while t < until_ms * 1000:
        out.append({"src": src, "dst": dst, "size": "2KB", "start": f"{t:.3f}us"})
        t += step
    return out


# ---------------------------------------------------------------------------------------------
# topologies


def _switch(queues: int, sched: dict[str, Any] | None, buffer: str) -> dict[str, Any]:
    return {
        "queues": queues,
        "scheduler": sched or ({"kind": "fifo"} if queues == 1 else {"kind": "strict"}),
        "port_limit": buffer,
        "ecn": {"kind": "step", "k": "20pkt"},
    }


def motiv(
    core_mbps: float,
    classes: list[dict[str, Any]],
    mode: str,
    duration_ms: float,
    *,
    queues: int = 1,
    sched: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """C3-MOTIV-BASE: a dumbbell of 4 + 4 hosts (SRCi = host i−1 → DSTi = host i+3) whose
    core link is the bottleneck; 10 Gb/s access links [CHOICE: faster than the bottleneck],
    50 µs per link (RTT 300 µs), ECN K = 20 packets, 250 packets of buffer per port."""
    return {
        "name": "c3-motiv",
        "topology": {
            "kind": "dumbbell",
            "left": 4,
            "right": 4,
            "host_link": {"rate": "10Gbps", "delay": "50us"},
            "core_link": {"rate": f"{core_mbps:g}Mbps", "delay": "50us"},
        },
        "switch": _switch(queues, sched, "250pkt"),
        "host": {"queues": 1, "scheduler": {"kind": "fifo"}},
        "transports": TRANSPORTS,
        "scheme": scheme_of(mode, classes),
        "classes": classes,
        "run": {
            "duration": f"{duration_ms:g}ms",
            "horizon": f"{duration_ms:g}ms",
        },
        "output": {"queue_sample_interval": "1ms"},
    }


def star(classes: list[dict[str, Any]], mode: str, duration_ms: float) -> dict[str, Any]:
    """C3-Fig5's testbed as a simulation: 6 hosts on one switch, 1 Gb/s, 75 µs per link (RTT
    300 µs, C3's LS/PS reference RTT) [CHOICE], K = 20, 250 packets."""
    return {
        "name": "c3-star",
        "topology": {"kind": "star", "hosts": 6, "link": {"rate": "1Gbps", "delay": "75us"}},
        "switch": _switch(1, None, "250pkt"),
        "host": {"queues": 1, "scheduler": {"kind": "fifo"}},
        "transports": TRANSPORTS,
        "scheme": scheme_of(mode, classes),
        "classes": classes,
        "run": {"duration": f"{duration_ms:g}ms", "horizon": f"{duration_ms:g}ms"},
        "output": {"queue_sample_interval": "1ms"},
    }


#: The spec's other reading of C3's ambiguous choices (§5.3.3), run as a second arm of the
#: tree figures' C3 runs: Eq. 1 as the text's "weighted additive increase" (R_w + w x 10 Mb/s
#: per 5 ms interval) and a starting pipe at its host's line rate / busy pipes instead of R_G.
#: The verdicts stay on the printed law and default start (``variant = "paper"``, ``start =
#: "guarantee"``).
OTHER_READING: dict[str, str] = {"variant": "additive", "start": "share"}

#: DS deadlines in the tree [CHOICE]: exponential, mean 40 ms, at least 5 ms.
TREE_DEADLINE = {"kind": "exp", "mean": "40ms", "min": "5ms"}


def tree(
    cdf: str,
    objectives: Sequence[str],
    mode: str,
    scale: Scale,
    *,
    load: float = 0.3,
    oversub: bool = False,
    inner: str = "paper",
    reading: str = "printed",
) -> dict[str, Any]:
    """C3-SIM-BASE: a two-tier tree (1 spine; 4 racks × 10 hosts [CHOICE], or the 3:1
    oversubscribed 4 × 30), 1 Gb/s edge, 10 Gb/s core, 37.5 µs per link (max RTT 300 µs),
    250 KB per port, K = 20. DS and PS: Poisson at ``load`` of the host links (or, with
    ``oversub``, of the 4 × 10 Gb/s core uplinks, all inter-rack), sizes from ``cdf``; TS: one
    long flow per host to a distinct host with 300 Mb/s guarantee (oversubscribed: 10
    inter-rack TS flows with 100 Mb/s). ``inner = "dctcp"`` runs DCTCP for DS and PS.
    ``reading = "other"`` (C3 runs only) sets the scheme keys of :data:`OTHER_READING`."""
    hpl = 30 if oversub else 10
    n = 4 * hpl
    dur = scale.tree_ms
    classes = []
    pairs = "inter_rack" if oversub else "all_to_all"
    basis: dict[str, Any] = {"load_basis": "bisection", "bisection": "40Gbps"} if oversub else {}
    for o in objectives:
        if o == "ts":
            if oversub:
                fl = [
                    {"src": 12 * i, "dst": (12 * i + hpl) % n, "size": "10GB", "start": 0}
                    for i in range(10)
                ]
                classes.append(cls("ts", "ts", mode, fl, guarantee="100Mbps"))
            else:
                classes.append(
                    cls(
                        "ts",
                        "ts",
                        mode,
                        workload={"kind": "permutation", "size": "10GB", "start": 0},
                        guarantee="300Mbps",
                    )
                )
        else:
            wl: dict[str, Any] = {
                "kind": "poisson",
                "load": load,
                "sizes": {"cdf": cdf},
                "pairs": pairs,
                **basis,
            }
            if o == "ds":
                wl["deadline"] = TREE_DEADLINE
            tr = "dctcp" if inner == "dctcp" else None
            classes.append(cls(o, o, mode, workload=wl, transport=tr))
    return {
        "name": "c3-tree-oversub" if oversub else "c3-tree",
        "topology": {
            "kind": "leaf_spine",
            "leaves": 4,
            "spines": 1,
            "hosts_per_leaf": hpl,
            "host_link": {"rate": "1Gbps", "delay": "37500ns"},
            "fabric_link": {"rate": "10Gbps", "delay": "37500ns"},
        },
        "switch": _switch(1, None, "250KB"),
        "host": {"queues": 1, "scheduler": {"kind": "fifo"}},
        "transports": TRANSPORTS,
        "scheme": {**scheme_of(mode, classes), **(OTHER_READING if reading == "other" else {})},
        "classes": classes,
        "run": {
            "duration": f"{dur:g}ms",
            "warmup": f"{scale.tree_warmup_ms:g}ms",
            "cooldown": f"{scale.tree_cooldown_ms:g}ms",
            "horizon": f"{dur + scale.tree_drain_ms:g}ms",
        },
        "output": {"queue_sample_interval": "5ms"},
    }


# ---------------------------------------------------------------------------------------------
# measurements


def _flows(res: Any, name: str, window: bool = False) -> pd.DataFrame:
    f = res.flows
    f = f[f["class"] == name]
    return f[f.in_window] if window else f


def misses(res: Any, name: str = "ds", window: bool = False) -> np.ndarray:
    """Per DS flow: 1 if it missed its deadline (unfinished, or finished after it).
    ``deadline_s`` is an absolute simulation time (docs/python-api.md), so it is compared
    with the finish time, not with the FCT."""
    f = _flows(res, name, window)
    late = ~f.completed.to_numpy(bool) | (
        f.finish_s.to_numpy(float) > f.deadline_s.to_numpy(float) + 1e-12
    )
    return late.astype(float)


def fcts(res: Any, name: str, window: bool = False) -> np.ndarray:
    """FCTs (s) of the class's completed flows."""
    f = _flows(res, name, window)
    return f[f.completed].fct_s.to_numpy(float)


#: One-way propagation of the motivation dumbbell's return path (3 links × 50 µs).
RETURN_S = 150e-6


def ls_rtts(res: Any, name: str = "ls") -> np.ndarray:
    """LS round trips (s): from a 2 KB flow's start until its sender holds the ACK of its last
    byte (both segments leave in the initial window: one round trip plus serialization)."""
    f = _flows(res, name)
    f = f[f.completed]
    rtt = (f.sender_done_s - f.start_s).to_numpy(float)
    return rtt[np.isfinite(rtt)]  # the last flow's ACK may still be in flight at the end


def ls_base(res: Any, name: str = "ls") -> float:
    """The unloaded LS round trip: the flow table's ideal FCT (delivery of both segments) +
    the return path's propagation."""
    return float(_flows(res, name).ideal_fct_s.mean()) + RETURN_S


def unfinished(res: Any, name: str, window: bool = False) -> int:
    f = _flows(res, name, window)
    return int((~f.completed).sum())


def goodput_bins(res: Any, name: str, t0: float = 0.0, t1: float = math.inf) -> np.ndarray:
    """The class's goodput (b/s) per sampling interval ending in (t0, t1]."""
    cs = res.class_samples
    x = cs[(cs["class"] == name) & (cs.t_s > t0 + 1e-12) & (cs.t_s <= t1 + 1e-12)]
    return x.goodput_bps.to_numpy(float)


def goodput_series(res: Any, name: str) -> tuple[np.ndarray, np.ndarray]:
    cs = res.class_samples
    x = cs[cs["class"] == name]
    return x.t_s.to_numpy(float), x.goodput_bps.to_numpy(float)


def bottleneck_queue(res: Any) -> tuple[np.ndarray, np.ndarray]:
    """(t, bytes) of the busiest switch-to-switch port (the dumbbell's core egress)."""
    q = res.queues
    sw = q[~q.peer_name.str.startswith("h") & ~q.node_name.str.startswith("h")]
    if sw.empty:
        sw = q[~q.node_name.str.startswith("h")]
    row = sw.sort_values("bytes_out").iloc[-1]
    s = res.samples
    s = s[(s.node == row.node) & (s.port == row.port)]
    by = s.groupby("t_s").bytes.sum()
    return by.index.to_numpy(float), by.to_numpy(float)


def _iv(stat: Callable[..., float], *groups: Sequence[np.ndarray]) -> Interval:
    return bootstrap(stat, *groups)


def mean_iv(groups: Sequence[np.ndarray]) -> Interval:
    return _iv(np.mean, groups)


def ratio_iv(num: Sequence[np.ndarray], den: Sequence[np.ndarray]) -> Interval:
    """mean(num) / mean(den)."""
    return _iv(lambda a, b: float(np.mean(a) / np.mean(b)), num, den)


def miss_ratio_iv(num: Sequence[np.ndarray], den: Sequence[np.ndarray]) -> Interval:
    """Ratio of miss ratios, the denominator floored at one miss in its sample (so it stays
    finite when the denominator saw none)."""

    def st(a: np.ndarray, b: np.ndarray) -> float:
        return float(np.mean(a) / max(np.mean(b), 1.0 / max(len(b), 1)))

    return _iv(st, num, den)


def diff_iv(a: Sequence[np.ndarray], b: Sequence[np.ndarray]) -> Interval:
    return _iv(lambda x, y: float(np.mean(x) - np.mean(y)), a, b)


def _pt(x: float) -> Interval:
    return Interval(float(x), float(x), float(x))


def _ms(iv: Interval) -> str:
    return f"{iv.est * 1e3:.2f} ms [{iv.lo * 1e3:.2f}, {iv.hi * 1e3:.2f}]"


def _pct(iv: Interval) -> str:
    return f"{iv.est:.1%} [{iv.lo:.1%}, {iv.hi:.1%}]"


#: "more than x%" / "up to g×": the lower edge of the magnitude band only.
def at_least(g: float) -> float:
    return effect_band(g)[0]


#: Why C3 loses where it does (the preamble's "Where C3 loses"): pointed to from every finding
#: that does not hold, after its own measured class goodputs.
PIPE_NOTE = "See the preamble, 'Where C3 loses'. Not tuned."


#: Ablations of where C3 loses (reduced scale; tree seeds 1-3, the motivation and star runs
#: deterministic; each changes one thing in the C3 runs only, the runs without C3 are the
#: same): (a) ``variant = "fujiz"``; (b) ``variant = "additive"``, Eq. 1 read as the text's
#: "weighted additive increase", R_w + w x 10 Mb/s per 5 ms interval; (c) a new pipe starts at
#: the host's line rate / its busy pipes instead of R_G (a temporary build, not shipped; the
#: spec's other suggested start); (b+c) both; (d) weights normalised per objective across
#: the network instead of per host (temporary build). Appended to a finding's note when it
#: does not hold.
_ABL = (
    "INVESTIGATED (reduced scale; ablations change one thing in the C3 runs: (a) variant "
    "fujiz, (b) variant additive = R_w + w x 10 Mb/s per 5 ms, (c) new pipes start at line / "
    "busy pipes instead of R_G, temporary build, (b+c) both, (d) weights normalised per "
    "objective across the network instead of per host, temporary build):"
)
_DUMBBELL_CAUSE = (
    "Cause here (confirmed by (b), which changes only the increase): Eq. 1's multiplicative "
    "increase. With one pipe per host every w = 1, so Eq. 1/2 multiply every pipe by the "
    "same factors and the pipes keep the ratio of their floors R_G (TS: its guarantee; PS: "
    "1 MTU / 2 RTT); the additive increase lets them approach each other. Neither the start "
    "rate ((c) changes nothing) nor the weights' size ((d): equal w = 1/3, PS stays starved) "
    "is the cause here."
)
_TREE_CAUSE = (
    "What the ablations show (this version's numbers): (c), which changes only the start, "
    "brings PS AFCT to L2DCT's where PS runs alone (Fig8b) and near the runs without C3 in "
    "some mixes: cause of PS's slowness confirmed, a new pipe starts at R_G (PS: 1 MTU / 2 "
    "RTT) and moves once per 5 ms, while with Poisson traffic many flows find their (source, "
    "destination) pipe new or idle and a short flow can end before its pipe's rate moved. "
    "For DS it does not help: C3 under the printed law misses fewer deadlines than D2TCP "
    "alone at every load of Fig8a (point estimates), (c) more. (b) alone cuts TS's excess "
    "over its guarantee (WS 2.42 -> 1.30 of it) and with it the DS misses in the mixes, to "
    "below the runs without C3 (WS 30.4% vs 34.0%, MR 6.6% vs 8.6%), but makes PS slower "
    "(a new pipe ramps by 10 Mb/s per 5 ms): consistent with TS's excess under Eq. 1 costing "
    "the mixes' DS flows (not isolated further). No reading shows the paper's gains for "
    "every class at once."
)
#: The tree figures' ablations, measured again with the coordinator and the shipped keys:
#: each changes one scheme key in the C3 runs; (b+c) is the row's second arm.
_ABL_TREE = (
    "MEASURED in this report's version (the four fixes; reduced scale, seeds 1-3; one "
    'change in the C3 runs: the printed law and start, (b) variant = "additive", (c) start '
    '= "share", (b+c) both, i.e. the row\'s other reading; runs without C3 shared):'
)
#: The same ablations measured before the preamble's four fixes (and, for (a) and (d),
#: before the coordinator); kept for the record.
_ABL_TREE_OLD = (
    "Measured with the coordinator but before the four fixes (DS misses then counted "
    "against the relative deadline, so lower):"
)
_BEFORE = (
    "Before the coordinator existed ((a) variant fujiz, (d) weights normalised per objective "
    "across the network; (c), (d) temporary builds):"
)
INVESTIGATED: dict[str, str] = {
    "Fig2d": (
        "Measured in this report's version (the four fixes of the preamble): C3 TS/DS/PS "
        "misses 3% (Eq. 1/2) and 0% with (b), the second reading above; without C3 none "
        "misses, so C3 cannot be fewer. One-change ablations of the C3 run (reduced, "
        "deterministic), as hypotheses: H1 the DS pipe's R_G left out the bytes queued in "
        "the pipe: confirmed and fixed (8% -> 3%, 54 bottleneck drops -> 0). H2 the three "
        "late flows (138 KB, late by 0.1-0.5 ms) finish a path delay after the pipe released "
        "their last byte, while EDF's margin is h x TD (0.25 ms with 5 ms to go): partly "
        "supported, ds_headroom 0.1 -> 0%, 0.2 -> 1% (not shipped; the spec's h is 5%). H3 "
        "timeouts cause the misses: rejected, RTO_min 10 ms removes all 28 and leaves 2%. "
        "The single changes high_share 0.5 (0%), bucket 5 (1%), mark_k 5 (0%) or 40 (2%) "
        "also move 0-3 flows of 100, so no cause beyond H1 is claimed. The timeouts (28 in "
        "10 rounds, 4 under (b)) are spurious: no packet is dropped anywhere (pipe queues "
        "never reach their 1000 packets; 100 changes nothing). At a marked interval Eq. 2 "
        "cuts the DS pipe from about 1 Gb/s to its R_G (about 250 Mb/s) in one step (w = 1, "
        "alpha near 1) and the 39-43 packets then queued in it wait about 2 ms, twice the "
        "1 ms RTO floor [CHOICE]; not a defect of the pipe. Before those fixes: "
        f"{_ABL} 55% (Eq. 1/2), (a) 53%, (b) 48%, (c) 55%, (b+c) 18%, (d) 0%. "
        f"{_DUMBBELL_CAUSE}"
    ),
    "Fig5": (
        f"{_ABL} TS goodput with/without C3 x1.49 (Eq. 1/2), (a) x1.46, (b) x1.09, (c) x1.47, "
        "(b+c) x1.09 (in band), (d) x1.54; PS AFCT gain x0.263, (a) x0.524, (b) x0.692, (c) "
        "x0.376, (b+c) x0.722, (d) x0.201; DS misses 3.3%, (a) 5.0%, (b) 8.3%, (c) 0%, (b+c) "
        f"3.3%, (d) 8.3%. {_DUMBBELL_CAUSE}"
    ),
    "Fig10": (
        f"{_ABL} class goodput TS/DS/PS Mb/s with C3: 920/417/43 (Eq. 1/2), (a) 482/489/541, "
        "(b) 595/475/199, (c) 854/414/42, (b+c) 565/468/181, (d) 803/435/36 (without C3 "
        "441/449/448); DS misses 35%, (a) 3%, (b) 2%, (c) 35%, (b+c) 2%, (d) 0%; PS AFCT 95 "
        "ms, (a) 47, (b) 96, (c) 65, (b+c) 83, (d) 69 ms (paper 17.34, without C3 12.25). "
        f"{_DUMBBELL_CAUSE} Only (a), which cuts from the measured rate, gives PS its share; "
        "under (b) PS stays at 199 Mb/s though the core carries only about 1.35 Gb/s of "
        "payload (not investigated)."
    ),
    "Fig6": (
        f"{_ABL_TREE} WS DS misses 44.6 / 30.4 / 41.2 / 36.6% (printed / (b) / (c) / (b+c); "
        "without C3 34.0%); WS PS AFCT gain x0.564 / 0.551 / 0.655 / 0.660; WS TS / guarantee "
        "2.42 / 1.30 / 1.89 / 1.48 (without 1.24); MR DS misses 13.3 / 6.6 / 10.8 / 8.9% "
        "(without 8.6%), MR PS gain x0.344 / 0.400 / 0.814 / 0.982. "
        f"{_ABL_TREE_OLD} WS DS misses 41.5 / 31.2 / 22.2 / 20.1% (without C3 16.2%); WS PS "
        "AFCT gain x0.519 / 0.534 / 0.674 / 0.662; WS TS / guarantee 2.26 / 1.34 / 1.88 / "
        "1.48; MR DS misses 18.3 / 13.8 / 2.3 / 2.3% (without 1.6%), MR PS gain x0.321 / "
        "0.375 / 0.807 / 0.972. "
        f"{_BEFORE} WS: DS misses 35.1% (Eq. 1/2), (a) 32.2%, (b) 27.3%, (c) 21.6%, (b+c) 20.9%, "
        "(d) 53.9% (without C3 16.2%); PS AFCT gain x0.555, (a) x0.509, (b) x0.532, (c) "
        "x0.654, (b+c) x0.633, (d) x0.645; TS / guarantee WS/DM/MR 1.82/2.85/1.63, (a) "
        "1.64/2.48/1.53, (b) 1.21/1.60/1.09, (c) 1.67/2.89/1.31, (b+c) 1.32/2.42/1.03, (d) "
        "1.07/1.26/1.05 (without C3 1.24/1.90/1.02); MR DS misses 18.5%, (c) 2.5%, (b+c) "
        f"2.5%, (d) 22.0% (without 1.6%). {_TREE_CAUSE}"
    ),
    "Fig7a": (
        f"{_ABL_TREE} DS misses DS+PS / DS+TS / DS+TS+PS: printed 27.3/44.3/44.6%, (b) "
        "24.7/30.7/30.4%, (c) 28.1/38.7/41.2%, (b+c) 27.3/33.8/36.6% (without C3 "
        f"32.2/33.2/34.0%). {_ABL_TREE_OLD} printed 15.7/41.0/41.5%, (b) 17.0/30.4/31.2%, "
        "(c) 10.8/19.1/22.2%, (b+c) 11.9/15.5/20.1% (without C3 12.4/14.7/16.2%). "
        f"{_BEFORE} DS misses with C3, DS+PS / DS+TS / DS+TS+PS: 19.6/33.5/35.1% (Eq. 1/2), (a) "
        "17.8/30.7/32.2%, (b) 19.8/26.3/27.3%, (c) 13.9/20.4/21.6%, (b+c) 14.2/17.8/20.9%, "
        f"(d) 49.0/53.4/53.9% (without C3 12.4/14.7/16.2%). {_TREE_CAUSE}"
    ),
    "Fig7b": (
        f"{_ABL_TREE} PS AFCT PS+DS / PS+TS / PS+TS+DS: printed 46.7/48.8/53.7 ms, (b) "
        "58.5/51.8/55.0, (c) 41.5/36.5/46.2, (b+c) 41.9/34.5/45.9 (without C3 "
        f"42.1/23.9/30.3). {_ABL_TREE_OLD} printed 54.4/50.2/56.5 ms, (b) 57.9/51.6/54.8, "
        "(c) 41.4/37.7/43.5, (b+c) 39.9/38.2/44.3 (without C3 38.1/23.4/29.3). "
        f"{_BEFORE} PS AFCT with C3, PS+DS / PS+TS / PS+TS+DS: 53.6/53.1/52.8 ms (Eq. 1/2), (a) "
        "56.4/48.7/57.6, (b) 62.4/54.4/55.1, (c) 43.4/37.5/44.8, (b+c) 43.3/32.9/46.3, (d) "
        f"51.0/42.6/45.4 (without C3 38.1/23.4/29.3). {_TREE_CAUSE}"
    ),
    "Fig8a": (
        f"{_ABL_TREE} C3 misses at loads 0.3/0.6/0.9: printed 24.7/30.3/33.4%, (b) "
        "24.2/28.4/30.3%, (c) 26.0/32.5/37.6%, (b+c) 25.0/30.1/32.9% (D2TCP "
        f"29.6/37.7/41.3%). {_ABL_TREE_OLD} printed 11.3/23.0/25.3%, (b) 14.2/24.4/25.2%, "
        "(c) 8.2/13.0/15.0%, (b+c) 9.0/13.6/14.3% (D2TCP 10.8/13.9/15.1%). "
        f"{_BEFORE} C3 misses at loads 0.3/0.6/0.9: 15.2/28.3/38.4% (Eq. 1/2), (a) "
        "13.7/25.4/34.6%, (b) 17.0/28.8/41.1%, (c) 10.3/16.4/21.5%, (b+c) 11.3/17.1/21.7%, "
        f"(d) 46.6/48.8/50.7% (D2TCP 10.8/13.9/15.1%). {_TREE_CAUSE}"
    ),
    "Fig8b": (
        f"{_ABL_TREE} AFCT gain L2DCT / C3 at loads 0.3/0.6/0.9: printed x0.80/0.79/0.84, "
        "(b) x0.51/0.62/0.69, (c) x1.05/0.97/0.99, (b+c) x0.88/0.90/0.90. "
        f"{_ABL_TREE_OLD} printed x0.76/0.70/0.80, (b) x0.49/0.54/0.67, (c) x1.00/0.87/0.97, "
        "(b+c) x0.85/0.79/0.94. "
        f"{_BEFORE} AFCT gain L2DCT / C3 at loads 0.3/0.6/0.9: x0.76/0.70/0.80 (Eq. 1/2), (a) "
        "x0.68/0.69/0.78, (b) x0.49/0.54/0.67, (c) x0.99/0.87/0.98, (b+c) x0.84/0.78/0.93, "
        f"(d) x0.58/0.69/0.93. {_TREE_CAUSE}"
    ),
    "Fig9-oversub": (
        f"{_ABL_TREE} PS AFCT gain printed x0.688, (b) x0.491, (c) x0.915, (b+c) x0.800; "
        "DS miss ratio without / with C3 x1.07, (b) x1.12, (c) x1.07, (b+c) x1.06. "
        f"{_ABL_TREE_OLD} PS AFCT gain printed x0.679, (b) x0.445, (c) x0.847, (b+c) x0.733; "
        "DS misses 9.8%, (b) 10.3%, (c) 7.5%, (b+c) 7.7% (without C3 7.7%). "
        f"{_BEFORE} PS AFCT gain x0.637 (Eq. 1/2), (a) x0.638, (b) x0.445, (c) x0.82; DS misses "
        "8.8%, (a) 10.1%, (b) 8.8%, (c) 8.0% (without C3 7.7%); (b+c), (d) not run. "
        f"{_TREE_CAUSE}"
    ),
    "Fig9-transport": (
        f"{_ABL_TREE} DS misses C3+D2TCP / C3+DCTCP: printed 44.6/44.1%, (b) "
        "30.4/30.2%, (c) 41.2/41.5%, (b+c) 36.6/37.4% (originals 34.0%); PS AFCT "
        "gain x0.557, (b) x0.563, (c) x0.655, (b+c) x0.651. "
        f"{_ABL_TREE_OLD} DS misses printed 41.5/42.5%, (b) 31.2/31.4%, (c) 22.2/22.4%, "
        "(b+c) 20.1/20.6% (originals 16.2%); PS AFCT gain x0.509, (b) x0.519, (c) x0.618, "
        "(b+c) x0.618. "
        f"{_BEFORE} DS misses C3+D2TCP / C3+DCTCP: 35.1/34.8% (Eq. 1/2), (a) 32.2/32.7%, (b) "
        "27.3/27.6%, (c) 21.6/21.9% (originals 16.2%); PS AFCT gain x0.484, (a) x0.518, (b) "
        f"x0.51, (c) x0.634; (b+c), (d) not run. {_TREE_CAUSE}"
    ),
}


def _c3_note(fd: Finding, extra: str = "") -> None:
    if fd.verdict != HOLDS:
        inv = INVESTIGATED.get(fd.figure, "")
        fd.note = (fd.note + " " + extra + " " + PIPE_NOTE + " " + inv).strip()


def class_means(res: Any, t0: float = 0.01) -> str:
    """Mean goodput (Mb/s) per class after ``t0``."""
    cs = res.class_samples
    cs = cs[cs.t_s > t0]
    m = cs.groupby("class").goodput_bps.mean() / 1e6
    return ", ".join(f"{k} {v:.0f}" for k, v in m.items())


# ---------------------------------------------------------------------------------------------
# C3-MOTIV-BASE: Figs 2b–2f, 3a–c


def _motiv_ms(c: Ctx) -> float:
    return 20.0 * c.scale.motiv_rounds + 20.0


def ts_cls(mode: str, name: str = "ts", src: int = 0, n: int = 2, g: str = "250Mbps") -> dict:
    return cls(name, "ts", mode, long_flows(src, src + 4, n), guarantee=g)


def ds_cls(mode: str, c: Ctx, start_ms: float = 0.0, src: int = 2, **kw: Any) -> dict:
    return cls("ds", "ds", mode, rounds([src], src + 4, c.scale.motiv_rounds, 20.0, start_ms), **kw)


def ps_cls(mode: str, c: Ctx, src: int = 3, **kw: Any) -> dict:
    fl = rounds([src], src + 4, c.scale.motiv_rounds, 20.0, deadlines=False)
    return cls("ps", "ps", mode, fl, **kw)


def ls_cls(mode: str, c: Ctx, n: int = 7, g: str = "57Mbps", **kw: Any) -> dict:
    """C3-Fig2c: seven 2 KB flows evenly spaced in every 2 ms; under ElasticSwitch each has
    400/7 Mb/s of the class's 400 Mb/s guarantee."""
    return cls("ls", "ls", mode, ls_flows(1, 5, n, 2000.0, _motiv_ms(c)), guarantee=g, **kw)


def plan_fig2b(c: Ctx) -> None:
    classes = [ts_cls("es", "ts1", n=1), ts_cls("es", "ts2", n=1)]
    c.add(("2b",), motiv(500, classes, "es", 100), {}, 1)


def blocks(x: np.ndarray, n: int) -> np.ndarray:
    """Means of consecutive blocks of ``n`` samples (a trailing partial block dropped)."""
    m = len(x) // n
    return x[: m * n].reshape(m, n).mean(axis=1)


def eval_fig2b(c: Ctx, fd: Finding) -> None:
    r = c.get(("2b",))
    c.point("Base-TS, 500 Mb/s", [r], len(r.flows))
    ref = payload(250e6, False)
    # ElasticSwitch guarantees a VM pair (spec §4.5; ES §4.1) and both flows run SRC1 →
    # DST1, so the limiter holds the pair's 500 Mb/s of frames (wire bytes, no tunnel) and
    # the two DCTCP flows share it inside. Judged: the pair's wire rate per 5 ms control
    # interval (what the limiter guarantees) and each flow's payload goodput in 5 ms blocks
    # of its 1 ms bins (the flows' windows cut in antiphase every few ms, so 1 ms bins swing
    # between about 100 and 360 Mb/s while their sum stays at the link's payload rate).
    ps = r.pipe_samples
    pair = ps[ps.t_s > 0.02 + 1e-12].sent_bps.to_numpy(float)
    pair_iv = mean_iv([pair])
    raw = {k: goodput_bins(r, k, 0.02) for k in ("ts1", "ts2")}
    ivs = {k: mean_iv([blocks(v, 5)]) for k, v in raw.items()}
    below = {k: float(np.mean(v < 0.9 * ref)) for k, v in raw.items()}
    fd.stats = {
        "pair_wire_mbps": pair_iv.scaled(1e-6),
        **{f"{k}_mbps": iv.scaled(1e-6) for k, iv in ivs.items()},
        **{f"{k}_1ms_bins_below_90pct": _pt(v) for k, v in below.items()},
    }
    fd.ours = (
        f"pair (both flows, one ElasticSwitch limiter) {pair_iv.scaled(1e-6)} Mb/s of frames; "
        + "; ".join(f"{k} {iv.scaled(1e-6)} Mb/s" for k, iv in ivs.items())
        + f" of payload per 5 ms (250 Mb/s of frames = {ref / 1e6:.0f} Mb/s of payload); "
        + ", ".join(f"{k} below 90% in {v:.0%}" for k, v in below.items())
        + " of 1 ms bins"
    )
    fd.judge(
        pair_at_guarantee=band(pair_iv, 0.9 * 500e6, 1.1 * 500e6),
        **{f"{k}_at_guarantee": band(iv, 0.9 * ref, 1.1 * ref) for k, iv in ivs.items()},
    )

    def plot(ax: Any) -> None:
        for k in ivs:
            t, g = goodput_series(r, k)
            ax.plot(t * 1e3, g / 1e6, label=k, lw=0.8)
        ax.axhline(ref / 1e6, color="k", lw=0.8)
        ax.set_xlabel("time (ms)")
        ax.set_ylabel("goodput (Mb/s, 1 ms)")
        ax.legend(fontsize=8)

    fd.plot = plot


def plan_fig2c(c: Ctx) -> None:
    ms = _motiv_ms(c)
    c.add(("2c", "alone"), motiv(500, [ls_cls("es", c)], "es", ms), {}, 1)
    c.add(("2c", "ds"), motiv(1000, [ls_cls("es", c), ds_cls("es", c)], "es", ms), {}, 1)
    # The must-show's "with C3 the LS RTT inflation drops": the same under C3 (LS and DS
    # pipes), with the printed Eq. 1 and its additive reading (spec §5.3.3 [CHOICE]).
    for v in ("paper", "additive"):
        sc = motiv(1000, [ls_cls("c3", c), ds_cls("c3", c)], "c3", ms)
        sc["scheme"]["variant"] = v
        c.add(("2c", "c3", v), sc, {}, 1)


def eval_fig2c(c: Ctx, fd: Finding) -> None:
    a = c.get(("2c", "alone"))
    b = c.get(("2c", "ds"))
    c.point("Base-LS, 500 Mb/s", [a], len(a.flows))
    c.point("Coexist-LS/DS, 1000 Mb/s", [b], len(b.flows))
    la, lb = ls_rtts(a), ls_rtts(b)
    ideal = ls_base(a)
    mean_a = mean_iv([la])
    rm = ratio_iv([lb], [la])
    rt = _iv(lambda x, y: float(np.quantile(x, 0.99) / np.quantile(y, 0.99)), [lb], [la])
    fd.stats = {
        "ls_rtt_alone_s": mean_a,
        "mean_ratio": rm,
        "p99_ratio": rt,
        "var_ratio": _pt(np.var(lb) / np.var(la)),
    }
    fd.ours = (
        f"LS RTT alone {_ms(mean_a)} (unloaded {ideal * 1e3:.3f} ms); with DS mean ×{rm}, "
        f"p99 ×{rt}, variance ×{np.var(lb) / np.var(la):.3g}"
    )
    for v in ("paper", "additive"):
        rc = c.get(("2c", "c3", v))
        c.point(f"C3 LS/DS ({v} Eq. 1), 1000 Mb/s", [rc], len(rc.flows))
        lc = ls_rtts(rc)
        cm = ratio_iv([lc], [la])
        ct = _iv(lambda x, y: float(np.quantile(x, 0.99) / np.quantile(y, 0.99)), [lc], [la])
        fd.stats[f"c3_{v}_mean_ratio"] = cm
        fd.stats[f"c3_{v}_p99_ratio"] = ct
        fd.ours += f"; with C3 ({v} Eq. 1, not judged) mean ×{cm}, p99 ×{ct}"
    fd.judge(
        alone_near_base_rtt=band(mean_a, 0.0, 1.25 * ideal),
        mean_up_80pct=band(rm, at_least(1.8)),
        tail_up_300pct=band(rt, at_least(4.0)),
    )
    if fd.verdict != HOLDS:
        fd.note = (
            fd.note + " Measured at reduced scale: with the initial window of 10 used before "
            "(not C3's 2) the DS rounds' first windows and spurious timeouts raised the LS "
            "round trip to mean x1.71 and p99 x4.23; with 2 the bottleneck queue stays below "
            "about 50 frames. Not tuned."
        ).strip()
    fd.note = (fd.note + " " + FIG2C_C3_NOTE).strip()

    def plot(ax: Any) -> None:
        for lab, r in (("Base-LS", a), ("Coexist-LS/DS", b)):
            f = _flows(r, "ls")
            f = f[f.completed]
            ax.plot(f.start_s * 1e3, (f.sender_done_s - f.start_s) * 1e6, ".", ms=2, label=lab)
        ax.axhline(300, color="k", lw=0.8)
        ax.set_xlabel("flow start (ms)")
        ax.set_ylabel("LS RTT (µs)")
        ax.legend(fontsize=8)

    fd.plot = plot


#: Fig2c under C3 (not judged; the must-show's "with C3 ... the LS RTT inflation drops"):
#: one-change ablations of the printed-law C3 run, measured at reduced scale.
FIG2C_C3_NOTE = (
    "With C3 (not judged): under the printed law the LS round trip's mean inflation is below "
    "the one without C3 but its tail is above (see ours). One-change ablations of that C3 "
    "run (reduced, deterministic), mean / p99 relative to LS alone: variant additive "
    "x0.90 / x0.79, variant fujiz x0.90 / x0.79, the two-queue variant (LS strict high) "
    "x0.92 / x0.79, ls_bucket 1 x1.39 / x5.83, mark_k 5 x1.21 / x3.43, ds_headroom 0.1 "
    "x1.37 / x5.90. Cause (confirmed by the three changes that remove the tail): the DS "
    "pipe is its host's only pipe (w = 1), so Eq. 1 doubles its R_w every unmarked 5 ms "
    "from its R_G (about 500 Mb/s) towards the 10 Gb/s host line, whether or not its flows "
    "use it (R_w 1.62 Gb/s at 40 ms after an interval in which the pipe sent 368 Mb/s; the "
    "next round's burst then left it at 1.40 Gb/s into the 1 Gb/s core), filling the "
    "bottleneck (at most 200 packets queued vs 42 without C3; under additive 1): the 2 KB "
    "LS flows wait behind it (57 timeouts, all spurious: nothing dropped). The printed law as "
    "specified (spec §5.3.3), not a defect found."
)

FIG2D = {
    "Base-DS": (500, ("ds",), "es"),
    "Coexist-TS/DS": (1000, ("ts", "ds"), "es"),
    "Coexist-TS/DS/PS": (1500, ("ts", "ds", "ps"), "es"),
    "C3 TS/DS/PS": (1500, ("ts", "ds", "ps"), "c3"),
}


def _motiv_classes(objs: Sequence[str], mode: str, c: Ctx) -> list[dict[str, Any]]:
    out = []
    for o in objs:
        out.append(
            {
                "ts": lambda: ts_cls(mode),
                "ds": lambda: ds_cls(mode, c),
                "ps": lambda: ps_cls(mode, c),
            }[o]()
        )
    return out


#: Fig2d's second reading of Eq. 1 (spec §5.3.3 "Ambiguities [CHOICE]": the text calls it
#: "weighted additive increase"): the C3 run again with ``scheme.variant = "additive"``.
FIG2D_ADDITIVE = "C3 TS/DS/PS, additive Eq. 1"


def fig2d_scenario(c: Ctx, key: str) -> dict[str, Any]:
    if key == FIG2D_ADDITIVE:
        sc = fig2d_scenario(c, "C3 TS/DS/PS")
        sc["scheme"]["variant"] = "additive"
        return sc
    cap, objs, mode = FIG2D[key]
    return motiv(cap, _motiv_classes(objs, mode, c), mode, _motiv_ms(c))


def plan_fig2d(c: Ctx) -> None:
    for k in (*FIG2D, FIG2D_ADDITIVE):
        c.add(("2d", k), fig2d_scenario(c, k), {}, 1)
    c.add(("2d", "Base-PS"), motiv(500, [ps_cls("es", c)], "es", _motiv_ms(c)), {}, 1)


def eval_fig2d(c: Ctx, fd: Finding) -> None:
    m = {}
    for k in FIG2D:
        r = c.get(("2d", k))
        m[k] = misses(r)
        c.point(k, [r], len(m[k]))
    ra = c.get(("2d", FIG2D_ADDITIVE))
    add = misses(ra)
    c.point(FIG2D_ADDITIVE, [ra], len(add))
    bp = c.get(("2d", "Base-PS"))
    c.point("Base-PS", [bp], len(bp.flows))
    afct = mean_iv([fcts(bp, "ps")])
    ps3 = mean_iv([fcts(c.get(("2d", "Coexist-TS/DS/PS")), "ps")])
    iv = {k: mean_iv([v]) for k, v in m.items()}
    d1 = diff_iv([m["Coexist-TS/DS"]], [m["Base-DS"]])
    d2 = diff_iv([m["Coexist-TS/DS/PS"]], [m["Coexist-TS/DS"]])
    d3 = diff_iv([m["Coexist-TS/DS/PS"]], [m["C3 TS/DS/PS"]])
    add_iv = mean_iv([add])
    fd.stats = {
        **{f"miss_{k}": v for k, v in iv.items()},
        "miss_c3_additive": add_iv,
        "base_ps_afct_s": afct,
    }
    fd.ours = (
        "; ".join(f"{k} misses {_pct(v)}" for k, v in iv.items())
        + f"; Base-PS AFCT {_ms(afct)} (TS/DS/PS: {_ms(ps3)}); second reading, "
        f"{FIG2D_ADDITIVE}: misses {_pct(add_iv)} (not judged)"
    )
    fd.judge(
        alone_meets=band(iv["Base-DS"], -math.inf, 0.05),
        ts_adds_misses=band(d1, 1e-9),
        ps_adds_more=band(d2, 1e-9),
        c3_fewer=band(d3, 1e-9),
        base_ps_afct_within_2x=band(afct, 17.64e-3 / 2, 17.64e-3 * 2),
    )
    base = _flows(c.get(("2d", "Base-DS")), "ds")
    late = base[misses(c.get(("2d", "Base-DS"))) > 0]
    by = (late.finish_s - late.deadline_s).max() * 1e3 if len(late) else 0.0
    per = ", ".join(
        f"{k} {int(_flows(c.get(('2d', k)), 'ds').rto_count.sum())} timeouts, max queue "
        f"{bottleneck_queue(c.get(('2d', k)))[1].max() / FRAME:.0f} pkts"
        for k in FIG2D
    )
    _c3_note(
        fd,
        f"Base-DS: {len(late)} of {len(base)} DS flows late ("
        f"{', '.join(sorted({f'{x / 1e3:.0f} KB' for x in late['size']}))}), by at most "
        f"{by:.2f} ms. A round (1150 KB in 20 ms) needs 97% of 500 Mb/s in payload (1460 of "
        "1538 B per frame), and D2TCP as specified (d = T_c / D, spec §4.3) makes the 138 KB "
        "flows the more imminent ones at the start (138 KB / 20 ms > 92 KB / 16 ms), so the "
        "92 KB flows get less than a fair share; with d fixed at 1 (DCTCP) none is late "
        "(measured, see report). With TS at 1000 Mb/s and TS+PS at 1500 Mb/s the DS flows get "
        f"more than 500 Mb/s and meet their deadlines. Per run: {per}. Class goodput (Mb/s) "
        f"of TS/DS/PS without C3: {class_means(c.get(('2d', 'Coexist-TS/DS/PS')))}; with C3: "
        f"{class_means(c.get(('2d', 'C3 TS/DS/PS')))}; with C3, additive Eq. 1: "
        f"{class_means(c.get(('2d', FIG2D_ADDITIVE)))}.",
    )

    def plot(ax: Any) -> None:
        ivs = {**iv, "C3, additive": add_iv}
        bars(ax, list(ivs), {"deadline-miss ratio": list(ivs.values())}, xlabel="", ylabel="missed")

    fd.plot = plot


def plan_fig2ef(c: Ctx) -> None:
    t0 = c.scale.ef_start_ms
    ms = t0 + 20.0 * c.scale.ef_rounds + 20
    ds = cls("ds", "ds", "es", rounds([2], 6, c.scale.ef_rounds, 20.0, t0))
    c.add(("2ef",), motiv(1000, [ts_cls("es"), ds], "es", ms), {}, 1)


def eval_fig2ef(c: Ctx, fd: Finding) -> None:
    r = c.get(("2ef",))
    c.point("Coexist-TS/DS, 1000 Mb/s", [r], len(r.flows))
    t0 = c.scale.ef_start_ms / 1e3
    t1 = t0 + 0.02 * c.scale.ef_rounds
    ref = payload(500e6, False)
    alone = goodput_bins(r, "ts", 0.01, t0)
    during = goodput_bins(r, "ts", t0, t1)
    qt, qb = bottleneck_queue(r)
    q_before = float(qb[(qt > 0.01) & (qt <= t0)].max())
    q_during = float(qb[(qt > t0) & (qt <= t1)].max())
    below = float(np.mean(during < 0.9 * ref))
    fd.stats = {
        "ts_alone_mbps": mean_iv([alone]).scaled(1e-6),
        "ts_min_during_ds_mbps": _pt(during.min() / 1e6),
        "bins_below_guarantee": mean_iv([(during < 0.9 * ref).astype(float)]),
        "queue_before_kb": _pt(q_before / 1e3),
        "queue_during_kb": _pt(q_during / 1e3),
    }
    fd.ours = (
        f"TS alone {alone.mean() / 1e6:.0f} Mb/s; during DS rounds min {during.min() / 1e6:.0f}"
        f" Mb/s, {below:.0%} of 1 ms bins below 90% of the 500 Mb/s guarantee "
        f"({ref / 1e6:.0f} Mb/s payload); max queue {q_before / 1e3:.1f} KB before, "
        f"{q_during / 1e3:.1f} KB during"
    )
    fd.judge(
        ts_dips_below_guarantee=exact(during.min() < 0.9 * ref),
        queue_spikes=exact(q_during >= 2 * max(q_before, 1538)),
    )

    def plot(ax: Any) -> None:
        t, g = goodput_series(r, "ts")
        ax.plot(t * 1e3, g / 1e6, lw=0.8, label="TS goodput (Mb/s)")
        ax.plot(qt * 1e3, qb / 1e3 * 10, lw=0.8, label="queue (KB × 10)")
        ax.axhline(ref / 1e6, color="k", lw=0.8)
        ax.axvline(t0 * 1e3, color="grey", lw=0.6, ls="--")
        ax.set_xlabel("time (ms)")
        ax.legend(fontsize=8)

    fd.plot = plot


def plan_fig3ab(c: Ctx) -> None:
    ms = _motiv_ms(c)
    for hi in ("ts", "ds"):
        ts = ts_cls("es")
        ds = ds_cls("es", c)
        ts["priority"], ds["priority"] = (0, 1) if hi == "ts" else (1, 0)
        c.add(("3ab", hi), motiv(1000, [ts, ds], "es", ms, queues=2), {}, 1)


def eval_fig3ab(c: Ctx, fd: Finding) -> None:
    a = c.get(("3ab", "ts"))  # TS high, DS low
    b = c.get(("3ab", "ds"))  # DS high, TS low
    c.point("TS high / DS low", [a], len(a.flows))
    c.point("DS high / TS low", [b], len(b.flows))
    ref = payload(500e6, False)
    ds_low, ds_high = mean_iv([misses(a)]), mean_iv([misses(b)])
    p5 = lambda x: float(np.quantile(x, 0.05))  # noqa: E731
    ts_low = _iv(p5, [goodput_bins(b, "ts", 0.01)])
    ts_high = _iv(p5, [goodput_bins(a, "ts", 0.01)])
    fd.stats = {
        "ds_miss_low": ds_low,
        "ds_miss_high": ds_high,
        "ts_p5_low_mbps": ts_low.scaled(1e-6),
        "ts_p5_high_mbps": ts_high.scaled(1e-6),
    }
    fd.ours = (
        f"(a) DS misses {_pct(ds_low)} when low, {_pct(ds_high)} when high; (b) TS 5th "
        f"percentile of 1 ms goodput {ts_low.scaled(1e-6)} Mb/s when low, "
        f"{ts_high.scaled(1e-6)} when high (guarantee {ref / 1e6:.0f} Mb/s payload)"
    )
    fd.judge(
        ds_low_misses=band(ds_low, 0.1),
        ts_low_below_guarantee=band(ts_low, -math.inf, 0.9 * ref),
    )

    def plot(ax: Any) -> None:
        for lab, r in (("TS high", a), ("TS low", b)):
            t, g = goodput_series(r, "ts")
            ax.plot(t * 1e3, g / 1e6, lw=0.8, label=lab)
        ax.axhline(ref / 1e6, color="k", lw=0.8)
        ax.set_xlabel("time (ms)")
        ax.set_ylabel("TS goodput (Mb/s)")
        ax.legend(fontsize=8)

    fd.plot = plot


def fig3c_scenario(c: Ctx, old: float, delay_ms: float) -> dict[str, Any]:
    """TS in queue 0, DS in queue 1 under DRR with TS:DS = old:1; the operator asks for 1:1
    when the DS application starts (20 ms) and the switch applies it after ``delay_ms``."""
    t0 = 20.0
    ts = ts_cls("es")
    ds = cls("ds", "ds", "es", rounds([2], 6, c.scale.motiv_rounds, 20.0, t0))
    ts["priority"], ds["priority"] = 0, 1
    sched = {
        "kind": "drr",
        "weights": [old, 1.0],
        "reconfigure": {"at": f"{t0:g}ms", "weights": [1.0, 1.0], "delay": f"{delay_ms:g}ms"},
    }
    return motiv(1000, [ts, ds], "es", t0 + _motiv_ms(c), queues=2, sched=sched)


def plan_fig3c(c: Ctx) -> None:
    for old in c.scale.fig3c_old:
        for d in c.scale.fig3c_delay_ms:
            c.add(("3c", old, d), fig3c_scenario(c, old, d), {}, 1)


def eval_fig3c(c: Ctx, fd: Finding) -> None:
    olds, ds = list(c.scale.fig3c_old), list(c.scale.fig3c_delay_ms)
    n = np.zeros((len(olds), len(ds)))
    for i, o in enumerate(olds):
        for j, d in enumerate(ds):
            r = c.get(("3c", o, d))
            n[i, j] = misses(r).sum()
            c.point(f"old {o:g}:1, delay {d:g} ms", [r], len(r.flows))
    mono_d = bool(np.all(np.diff(n, axis=1) >= 0))
    mono_o = bool(np.all(np.diff(n[:, 1:], axis=0) >= 0)) if len(ds) > 1 else True
    fd.stats = {"misses_max": _pt(n.max()), "misses_min": _pt(n.min())}
    fd.ours = (
        "DS misses (rows old TS:DS, columns delay ms " + ", ".join(f"{d:g}" for d in ds) + "): "
    )
    fd.ours += "; ".join(
        f"{o:g}:1 → " + ", ".join(f"{int(x)}" for x in n[i]) for i, o in enumerate(olds)
    )
    fd.judge(
        grows_with_delay=exact(mono_d),
        grows_with_weight_gap=exact(mono_o),
        some_effect=exact(n.max() > n.min()),
    )

    def plot(ax: Any) -> None:
        lines(
            ax,
            ds,
            {f"old {o:g}:1": [_pt(x) for x in n[i]] for i, o in enumerate(olds)},
            xlabel="configuration delay (ms)",
            ylabel="DS flows missing deadlines",
        )

    fd.plot = plot


# ---------------------------------------------------------------------------------------------
# Fig 5 (testbed → star) and Fig 10 (dumbbell, bursty)


#: C3-Fig5's DS/PS rounds: ten flows, half size of Fig 2d's (aggregate ≈ 250 Mb/s over the
#: 16–20 ms deadlines) [CHOICE], every ``fig5_period_ms`` (paper: 0.5 s, shortened).
HALF_ROUND = (("46KB", "16ms"),) * 5 + (("69KB", "20ms"),) * 5


def plan_fig5(c: Ctx) -> None:
    n, p = c.scale.fig5_rounds, c.scale.fig5_period_ms
    for mode in ("es", "c3"):
        classes = [
            cls("ts", "ts", mode, long_flows(0, 5, 2), guarantee="200Mbps"),
            cls("ds", "ds", mode, rounds([1, 2], 5, n, p, shape=HALF_ROUND)),
            cls("ps", "ps", mode, rounds([3, 4], 5, n, p, deadlines=False, shape=HALF_ROUND)),
        ]
        c.add(("5", mode), star(classes, mode, n * p + 20), {}, 1)


def eval_fig5(c: Ctx, fd: Finding) -> None:
    a, b = c.get(("5", "es")), c.get(("5", "c3"))
    c.point("without C3", [a], len(a.flows))
    c.point("with C3", [b], len(b.flows))
    gain = ratio_iv([fcts(a, "ps")], [fcts(b, "ps")])
    ma, mb = mean_iv([misses(a)]), mean_iv([misses(b)])
    ts = ratio_iv([goodput_bins(b, "ts", 0.01)], [goodput_bins(a, "ts", 0.01)])
    fd.stats = {"ps_afct_gain": gain, "ds_miss_es": ma, "ds_miss_c3": mb, "ts_c3_over_es": ts}
    fd.ours = (
        f"PS AFCT without/with C3 ×{gain}; DS misses {_pct(ma)} → {_pct(mb)}; TS goodput "
        f"with/without C3 ×{ts}"
    )
    fd.judge(
        ps_afct_4x=band(gain, *effect_band(4.0)),
        ds_no_misses_with_c3=band(mb, -math.inf, 0.02),
        ts_unchanged=band(ts, 0.9, 1.1),
    )
    _c3_note(
        fd,
        f"Class goodput (Mb/s) without C3: {class_means(a)}; with C3: {class_means(b)}.",
    )

    def plot(ax: Any) -> None:
        bars(
            ax,
            ["PS AFCT gain", "DS miss w/o", "DS miss C3", "TS C3/ES"],
            {"without vs with C3": [gain, ma, mb, ts]},
            xlabel="",
            ylabel="value",
        )

    fd.plot = plot


FIG10_MODES = ("es", "c3", "c3-2q")


def fig10_scenario(c: Ctx, mode: str) -> dict[str, Any]:
    """Four categories from four source hosts, 500 Mb/s minimum each, on a 2 Gb/s core:
    TS 2 × 250 Mb/s; DS ten D2TCP flows per 20 ms round; PS ten L2DCT flows per round;
    LS ten 2 KB flows every 2 ms [CHOICE, spec C3-Fig10]. ``c3-2q``: LS in the strict
    high-priority switch queue (class priority 0 of 2 queues), the rest below."""
    n = c.scale.motiv_rounds
    ms = 20.0 * n + 20
    m = "es" if mode == "es" else "c3"
    lo = 1 if mode == "c3-2q" else 0
    classes = [
        cls("ts", "ts", m, long_flows(0, 4, 2), guarantee="250Mbps", priority=lo),
        cls("ds", "ds", m, rounds([1], 5, n, 20.0), priority=lo),
        cls("ps", "ps", m, rounds([2], 6, n, 20.0, deadlines=False), priority=lo),
        cls("ls", "ls", m, ls_flows(3, 7, 10, 2000.0, ms), guarantee="50Mbps", priority=0),
    ]
    return motiv(2000, classes, m, ms, queues=2 if mode == "c3-2q" else 1)


def plan_fig10(c: Ctx) -> None:
    for mode in FIG10_MODES:
        c.add(("10", mode), fig10_scenario(c, mode), {}, 1)


def eval_fig10(c: Ctx, fd: Finding) -> None:
    rs = {m: c.get(("10", m)) for m in FIG10_MODES}
    for m, r in rs.items():
        c.point(m, [r], len(r.flows))
    ideal = ls_base(rs["c3"])
    rtt = {m: mean_iv([ls_rtts(r)]) for m, r in rs.items()}
    miss = {m: mean_iv([misses(r)]) for m, r in rs.items()}
    afct = {m: mean_iv([fcts(r, "ps")]) for m, r in rs.items()}
    ref = payload(500e6, True)
    below = {
        m: mean_iv([(goodput_bins(r, "ts", 0.02) < 0.9 * ref).astype(float)]) for m, r in rs.items()
    }
    fd.stats = {
        **{f"ls_rtt_{m}_s": v for m, v in rtt.items()},
        **{f"ds_miss_{m}": v for m, v in miss.items()},
        **{f"ps_afct_{m}_s": v for m, v in afct.items()},
        **{f"ts_bins_below_{m}": v for m, v in below.items()},
    }
    fd.ours = (
        "; ".join(
            f"{m}: LS RTT {_ms(rtt[m])}, DS misses {_pct(miss[m])}, PS AFCT {_ms(afct[m])}, "
            f"TS bins below guarantee {_pct(below[m])}"
            for m in FIG10_MODES
        )
        + f" (unloaded LS RTT {ideal * 1e3:.3f} ms)"
    )
    fd.judge(
        rtt_es_above_c3=band(diff_iv([ls_rtts(rs["es"])], [ls_rtts(rs["c3"])]), 1e-9),
        rtt_c3_above_2q=band(diff_iv([ls_rtts(rs["c3"])], [ls_rtts(rs["c3-2q"])]), 1e-9),
        two_queue_near_base=band(rtt["c3-2q"], 0.0, 1.25 * ideal),
        ts_meets_guarantee_c3=band(below["c3"], -math.inf, 0.05),
        ds_misses_c3_low=band(miss["c3"], -math.inf, 0.02),
        ps_afct_c3_within_2x=band(afct["c3"], 17.34e-3 / 2, 17.34e-3 * 2),
    )
    _c3_note(
        fd,
        "Class goodput (Mb/s): "
        + "; ".join(f"{m}: {class_means(r, 0.02)}" for m, r in rs.items())
        + ".",
    )

    def plot(ax: Any) -> None:
        for m, r in rs.items():
            f = _flows(r, "ls")
            f = f[f.completed]
            ax.plot(f.start_s * 1e3, (f.sender_done_s - f.start_s) * 1e6, ".", ms=2, label=m)
        ax.set_xlabel("flow start (ms)")
        ax.set_ylabel("LS RTT (µs)")
        ax.legend(fontsize=8)

    fd.plot = plot


# ---------------------------------------------------------------------------------------------
# C3-SIM-BASE: Figs 6–9 on the tree


WORKLOADS = {"WS": "websearch", "DM": "datamining_vl2", "MR": "fb_hadoop"}


def tree_key(cdf: str, objs: Sequence[str], mode: str, **kw: Any) -> tuple:
    return ("tree", cdf, tuple(objs), mode, tuple(sorted(kw.items())))


def add_tree(c: Ctx, cdf: str, objs: Sequence[str], mode: str, **kw: Any) -> None:
    for s in c.seeds:
        c.add((*tree_key(cdf, objs, mode, **kw), s), tree(cdf, objs, mode, c.scale, **kw), {}, s)


def tree_runs(c: Ctx, cdf: str, objs: Sequence[str], mode: str, **kw: Any) -> list[Any]:
    return c.seeds_of(*tree_key(cdf, objs, mode, **kw))


def t_miss(rs: Sequence[Any]) -> list[np.ndarray]:
    return [misses(r, window=True) for r in rs]


def t_fct(rs: Sequence[Any]) -> list[np.ndarray]:
    return [fcts(r, "ps", window=True) for r in rs]


def t_ts(rs: Sequence[Any], c: Ctx, per_flow: float, n: int) -> list[np.ndarray]:
    """TS goodput per 5 ms interval of the measurement window, per TS flow (b/s)."""
    w0, w1 = c.scale.tree_warmup_ms / 1e3, c.scale.tree_ms / 1e3
    return [goodput_bins(r, "ts", w0, w1) / n / per_flow for r in rs]


ALL3 = ("ds", "ps", "ts")

#: The tree key of the second arm (:data:`OTHER_READING` in the C3 runs).
OTHER: dict[str, str] = {"reading": "other"}
OTHER_LABEL = "other reading (variant additive + start share)"


def _lbl(rd: dict[str, str]) -> str:
    return f"{OTHER_LABEL}: " if rd else ""


def _two_readings(body: Callable[[Ctx, Finding, dict[str, str]], None]) -> Callable:
    """A tree figure's evaluation under both readings of C3's ambiguous choices: the verdict,
    statistics and plot on the printed law (``body(c, fd, {})``); the other reading's numbers
    (``other_*`` statistics) and its own verdict, with the rule parts it missed, appended to
    the row's "ours"."""

    def ev(c: Ctx, fd: Finding) -> None:
        body(c, fd, {})
        alt = Finding(fd.figure, fd.claim, fd.rule)
        body(c, alt, OTHER)
        fd.stats |= {f"other_{k}": v for k, v in alt.stats.items()}
        why = f" {alt.note}" if alt.note else ""
        fd.ours = f"{fd.ours} ‖ {OTHER_LABEL}: {alt.ours}; its verdict: {alt.verdict}{why}"
        _c3_note(fd)

    return ev


def plan_fig6(c: Ctx) -> None:
    for cdf in c.scale.workloads:
        for mode in ("es", "c3"):
            add_tree(c, WORKLOADS[cdf], ALL3, mode)
        add_tree(c, WORKLOADS[cdf], ALL3, "c3", **OTHER)


def _fig6(c: Ctx, fd: Finding, rd: dict[str, str]) -> None:
    parts, stats, ours = {}, {}, []
    gains = {}
    for w in c.scale.workloads:
        a = tree_runs(c, WORKLOADS[w], ALL3, "es")
        b = tree_runs(c, WORKLOADS[w], ALL3, "c3", **rd)
        if not rd:  # the same runs under both readings
            c.point(f"{w} without C3", a, sum(len(r.flows) for r in a))
        c.point(_lbl(rd) + f"{w} with C3", b, sum(len(r.flows) for r in b))
        g = ratio_iv(t_fct(a), t_fct(b))
        md = miss_ratio_iv(t_miss(a), t_miss(b))
        dd = diff_iv(t_miss(a), t_miss(b))
        tsb = mean_iv(t_ts(b, c, payload(300e6, True), 40))
        tsa = mean_iv(t_ts(a, c, payload(300e6, False), 40))
        gains[w] = g
        stats |= {f"{w}_ps_gain": g, f"{w}_ds_miss_ratio": md, f"{w}_ts_c3": tsb, f"{w}_ts_es": tsa}
        ours.append(
            f"{w}: PS AFCT ×{g}, DS misses {_pct(mean_iv(t_miss(a)))} → "
            f"{_pct(mean_iv(t_miss(b)))} (×{md}), TS / guarantee {tsa} → {tsb}"
        )
        parts[f"{w}_c3_better_afct"] = band(g, 1.0 + 1e-9)
        parts[f"{w}_c3_fewer_misses"] = band(dd, 1e-9)
        parts[f"{w}_ts_meets_guarantee_c3"] = band(tsb, 0.95)
    if "WS" in gains and len(gains) > 1:
        parts["ws_gain_largest"] = exact(all(gains["WS"].est >= v.est for v in gains.values()))
    fd.stats = stats
    fd.ours = "; ".join(ours)
    fd.judge(**parts)

    def plot(ax: Any) -> None:
        ws = list(c.scale.workloads)
        bars(
            ax,
            ws,
            {
                "PS AFCT gain": [stats[f"{w}_ps_gain"] for w in ws],
                "DS miss ratio reduction": [stats[f"{w}_ds_miss_ratio"] for w in ws],
            },
            xlabel="workload",
            ylabel="without C3 / with C3",
            ref=1.0,
        )

    fd.plot = plot


FIG7A = {"DS+PS": ("ds", "ps"), "DS+TS": ("ds", "ts"), "DS+TS+PS": ALL3}
FIG7B = {"PS+DS": ("ds", "ps"), "PS+TS": ("ps", "ts"), "PS+TS+DS": ALL3}


def plan_fig7(c: Ctx) -> None:
    for objs in (*FIG7A.values(), *FIG7B.values()):
        for mode in ("es", "c3"):
            add_tree(c, "websearch", objs, mode)
        add_tree(c, "websearch", objs, "c3", **OTHER)
    add_tree(c, "websearch", ("ps",), "none")


def _fig7a(c: Ctx, fd: Finding, rd: dict[str, str]) -> None:
    parts, stats, ours, best = {}, {}, [], []
    for k, objs in FIG7A.items():
        a = tree_runs(c, "websearch", objs, "es")
        b = tree_runs(c, "websearch", objs, "c3", **rd)
        c.point(_lbl(rd) + f"{k} without / with C3", a + b, sum(len(r.flows) for r in a + b))
        ma, mb = mean_iv(t_miss(a)), mean_iv(t_miss(b))
        red = miss_ratio_iv(t_miss(a), t_miss(b))
        best.append(red)
        stats |= {f"{k}_miss_es": ma, f"{k}_miss_c3": mb, f"{k}_reduction": red}
        ours.append(f"{k}: {_pct(ma)} → {_pct(mb)} (×{red})")
        parts[f"{k}_c3_fewer"] = band(diff_iv(t_miss(a), t_miss(b)), 1e-9)
    top = max(best, key=lambda v: v.est)
    parts["up_to_3x"] = band(top, *effect_band(3.0))
    fd.stats = stats
    fd.ours = "DS miss ratio without → with C3: " + "; ".join(ours)
    fd.judge(**parts)

    def plot(ax: Any) -> None:
        ks = list(FIG7A)
        bars(
            ax,
            ks,
            {
                "without C3": [stats[f"{k}_miss_es"] for k in ks],
                "with C3": [stats[f"{k}_miss_c3"] for k in ks],
            },
            xlabel="DS with",
            ylabel="deadline-miss ratio",
        )

    fd.plot = plot


def _fig7b(c: Ctx, fd: Finding, rd: dict[str, str]) -> None:
    stats, ours = {}, []
    fc = {}
    for k, objs in FIG7B.items():
        a = tree_runs(c, "websearch", objs, "es")
        b = tree_runs(c, "websearch", objs, "c3", **rd)
        c.point(_lbl(rd) + f"{k} without / with C3", a + b, sum(len(r.flows) for r in a + b))
        fc[k] = (t_fct(a), t_fct(b))
        ga = mean_iv(t_fct(a))
        gb = mean_iv(t_fct(b))
        g = ratio_iv(t_fct(a), t_fct(b))
        stats |= {f"{k}_afct_es_s": ga, f"{k}_afct_c3_s": gb, f"{k}_gain": g}
        ours.append(f"{k}: {_ms(ga)} → {_ms(gb)} (×{g})")
    alone = tree_runs(c, "websearch", ("ps",), "none")
    if not rd:  # the same runs under both readings
        c.point("PS alone (L2DCT)", alone, sum(len(r.flows) for r in alone))
    hurt_ds = ratio_iv(fc["PS+DS"][0], t_fct(alone))
    stats["ps_with_ds_over_alone"] = hurt_ds
    fd.stats = stats
    fd.ours = "PS AFCT without → with C3: " + "; ".join(ours) + f"; PS+DS / PS alone ×{hurt_ds}"
    fd.judge(
        ts_hurts_more_than_ds=band(ratio_iv(fc["PS+TS"][0], fc["PS+DS"][0]), 1 + 1e-9),
        ts_ds_hurts_more_than_ds=band(ratio_iv(fc["PS+TS+DS"][0], fc["PS+DS"][0]), 1 + 1e-9),
        c3_4x_with_ts_ds=band(stats["PS+TS+DS_gain"], *effect_band(4.0)),
        ds_alone_not_hurt=band(hurt_ds, -math.inf, 1.2),
    )

    def plot(ax: Any) -> None:
        ks = list(FIG7B)
        bars(
            ax,
            ks,
            {
                "without C3": [stats[f"{k}_afct_es_s"].scaled(1e3) for k in ks],
                "with C3": [stats[f"{k}_afct_c3_s"].scaled(1e3) for k in ks],
            },
            xlabel="PS with",
            ylabel="PS AFCT (ms)",
        )

    fd.plot = plot


def plan_fig8(c: Ctx) -> None:
    for load in c.scale.loads:
        for o in ("ds", "ps"):
            for mode in ("none", "c3"):
                add_tree(c, "websearch", (o,), mode, load=load)
            add_tree(c, "websearch", (o,), "c3", load=load, **OTHER)


def _fig8a(c: Ctx, fd: Finding, rd: dict[str, str]) -> None:
    loads = list(c.scale.loads)
    ma, mb, red, parts = [], [], [], {}
    for ld in loads:
        a = tree_runs(c, "websearch", ("ds",), "none", load=ld)
        b = tree_runs(c, "websearch", ("ds",), "c3", load=ld, **rd)
        c.point(_lbl(rd) + f"load {ld:g}", a + b, sum(len(r.flows) for r in a + b))
        ma.append(mean_iv(t_miss(a)))
        mb.append(mean_iv(t_miss(b)))
        red.append(miss_ratio_iv(t_miss(a), t_miss(b)))
        parts[f"c3_fewer_at_{ld:g}"] = band(diff_iv(t_miss(a), t_miss(b)), 1e-9)
    parts["up_to_2_5x"] = band(max(red, key=lambda v: v.est), *effect_band(2.5))
    parts["c3_meets_almost_all_at_low_load"] = band(mb[0], -math.inf, 0.05)
    fd.stats = {f"miss_d2tcp_{ld:g}": x for ld, x in zip(loads, ma, strict=True)} | {
        f"miss_c3_{ld:g}": x for ld, x in zip(loads, mb, strict=True)
    }
    fd.ours = "; ".join(
        f"load {ld:g}: D2TCP {_pct(x)}, C3 {_pct(y)}"
        for ld, x, y in zip(loads, ma, mb, strict=True)
    )
    fd.judge(**parts)

    def plot(ax: Any) -> None:
        lines(ax, loads, {"D2TCP": ma, "C3": mb}, xlabel="load", ylabel="deadline-miss ratio")

    fd.plot = plot


def _fig8b(c: Ctx, fd: Finding, rd: dict[str, str]) -> None:
    loads = list(c.scale.loads)
    ga, gb, gain = [], [], []
    for ld in loads:
        a = tree_runs(c, "websearch", ("ps",), "none", load=ld)
        b = tree_runs(c, "websearch", ("ps",), "c3", load=ld, **rd)
        c.point(_lbl(rd) + f"load {ld:g}", a + b, sum(len(r.flows) for r in a + b))
        ga.append(mean_iv(t_fct(a)).scaled(1e3))
        gb.append(mean_iv(t_fct(b)).scaled(1e3))
        gain.append(ratio_iv(t_fct(a), t_fct(b)))
    fd.stats = {f"gain_{ld:g}": g for ld, g in zip(loads, gain, strict=True)}
    fd.ours = "AFCT L2DCT / C3: " + "; ".join(
        f"load {ld:g}: {x.est:.2f} / {y.est:.2f} ms (×{g})"
        for ld, x, y, g in zip(loads, ga, gb, gain, strict=True)
    )
    fd.judge(
        similar_at_low_load=band(gain[0], 0.9, 1.1),
        better_at_high_load=band(gain[-1], 1 + 1e-9),
    )

    def plot(ax: Any) -> None:
        lines(ax, loads, {"L2DCT": ga, "C3": gb}, xlabel="load", ylabel="PS AFCT (ms)")

    fd.plot = plot


def plan_fig9o(c: Ctx) -> None:
    for mode in ("es", "c3"):
        add_tree(c, "websearch", ALL3, mode, oversub=True)
    add_tree(c, "websearch", ALL3, "c3", oversub=True, **OTHER)


def _fig9o(c: Ctx, fd: Finding, rd: dict[str, str]) -> None:
    a = tree_runs(c, "websearch", ALL3, "es", oversub=True)
    b = tree_runs(c, "websearch", ALL3, "c3", oversub=True, **rd)
    if not rd:  # the same runs under both readings
        c.point("without C3", a, sum(len(r.flows) for r in a))
    c.point(_lbl(rd) + "with C3", b, sum(len(r.flows) for r in b))
    g = ratio_iv(t_fct(a), t_fct(b))
    md = miss_ratio_iv(t_miss(a), t_miss(b))
    fd.stats = {"ps_gain": g, "ds_miss_ratio": md}
    fd.ours = (
        f"PS AFCT ×{g} ({_ms(mean_iv(t_fct(a)))} → {_ms(mean_iv(t_fct(b)))}); DS misses "
        f"{_pct(mean_iv(t_miss(a)))} → {_pct(mean_iv(t_miss(b)))} (×{md})"
    )
    fd.judge(
        ps_20pct=band(g, *effect_band(1.2)),
        ds_marginal=band(md, 0.95, 1.5),
    )

    def plot(ax: Any) -> None:
        bars(ax, ["PS AFCT", "DS misses"], {"without / with C3": [g, md]}, xlabel="", ylabel="×")

    fd.plot = plot


def plan_fig9t(c: Ctx) -> None:
    for mode in ("es", "c3"):
        add_tree(c, "websearch", ALL3, mode)
    add_tree(c, "websearch", ALL3, "c3", inner="dctcp")
    add_tree(c, "websearch", ALL3, "c3", **OTHER)
    add_tree(c, "websearch", ALL3, "c3", inner="dctcp", **OTHER)


def _fig9t(c: Ctx, fd: Finding, rd: dict[str, str]) -> None:
    a = tree_runs(c, "websearch", ALL3, "es")
    b = tree_runs(c, "websearch", ALL3, "c3", **rd)
    d = tree_runs(c, "websearch", ALL3, "c3", inner="dctcp", **rd)
    c.point(_lbl(rd) + "C3 with DCTCP inside", d, sum(len(r.flows) for r in d))
    g = ratio_iv(t_fct(a), t_fct(d))
    ma, mb, md = (mean_iv(t_miss(x)) for x in (a, b, d))
    fd.stats = {"ps_gain_dctcp": g, "miss_es": ma, "miss_c3": mb, "miss_c3_dctcp": md}
    fd.ours = (
        f"PS AFCT originals / C3+DCTCP ×{g}; DS misses: originals {_pct(ma)}, C3+D2TCP "
        f"{_pct(mb)}, C3+DCTCP {_pct(md)}"
    )
    fd.judge(
        ps_3x=band(g, *effect_band(3.0)),
        ds_better_than_d2tcp=band(diff_iv(t_miss(a), t_miss(d)), 1e-9),
        ds_worse_than_c3_d2tcp=band(diff_iv(t_miss(d), t_miss(b)), 1e-9),
    )

    def plot(ax: Any) -> None:
        bars(
            ax,
            ["originals", "C3+D2TCP/L2DCT", "C3+DCTCP"],
            {"DS miss ratio": [ma, mb, md]},
            xlabel="",
            ylabel="deadline-miss ratio",
        )

    fd.plot = plot


eval_fig6 = _two_readings(_fig6)
eval_fig7a = _two_readings(_fig7a)
eval_fig7b = _two_readings(_fig7b)
eval_fig8a = _two_readings(_fig8a)
eval_fig8b = _two_readings(_fig8b)
eval_fig9o = _two_readings(_fig9o)
eval_fig9t = _two_readings(_fig9t)


# ---------------------------------------------------------------------------------------------
# registry


FIGURES: list[Figure] = [
    Figure(
        "Fig2b",
        "Base-TS: two ElasticSwitch flows with 250 Mb/s guarantees on 500 Mb/s both get them",
        "the pair's limiter rate (both flows run SRC1 → DST1) within ±10% of 500 Mb/s of "
        "frames; each flow's mean goodput (5 ms blocks) within ±10% of 250 Mb/s of frames in "
        "payload",
        [plan_fig2b],
        eval_fig2b,
    ),
    Figure(
        "Fig2c",
        "LS RTT ≈ 300 µs alone; with DS: mean +80%, tail +300%",
        "alone ≤ 1.25 × unloaded RTT; mean ratio ≥ 1.4 and p99 ratio ≥ 2.5 (lower magnitude edges)",
        [plan_fig2c],
        eval_fig2c,
    ),
    Figure(
        "Fig2d",
        "DS misses 0/10 alone, 2/10 with TS, 6/10 with TS+PS; Base-PS AFCT 17.64 ms",
        "alone ≤ 5%; each step adds misses (difference > 0); C3 fewer than without for "
        "TS/DS/PS; Base-PS AFCT within 2× of 17.64 ms",
        [plan_fig2d],
        eval_fig2d,
    ),
    Figure(
        "Fig2ef",
        "TS (guarantees met alone) drops to ≈110 Mb/s while DS bursts and the queue spikes",
        "min 1 ms TS goodput during DS < 90% of the 500 Mb/s guarantee; max queue during DS ≥ "
        "2× before",
        [plan_fig2ef],
        eval_fig2ef,
    ),
    Figure(
        "Fig3ab",
        "strict priority: DS misses when low; TS below its guarantee when low",
        "DS miss ratio when low ≥ 10%; TS 5th percentile of 1 ms goodput when low < 90% of "
        "the guarantee",
        [plan_fig3ab],
        eval_fig3ab,
    ),
    Figure(
        "Fig3c",
        "WFQ reconfiguration: more DS misses the larger the old/new weight gap and the delay",
        "misses non-decreasing along both axes and not all equal",
        [plan_fig3c],
        eval_fig3c,
    ),
    Figure(
        "Fig5",
        "testbed (simulated star): C3 improves PS AFCT 4×, DS misses → 0, TS unchanged",
        "AFCT gain in [2.5, 7]; DS misses with C3 ≤ 2%; TS goodput ratio in [0.9, 1.1]",
        [plan_fig5],
        eval_fig5,
    ),
    Figure(
        "Fig6",
        "TS/DS/PS at 90% load: C3 better on all metrics (WS AFCT 3×; misses 4×/4×/2×)",
        "per workload: AFCT gain > 1, fewer DS misses, TS ≥ 95% of guarantee with C3; WS gain "
        "largest",
        [plan_fig6],
        eval_fig6,
    ),
    Figure(
        "Fig7a",
        "DS with PS / TS / TS+PS: C3 reduces misses up to 3×",
        "C3 fewer misses in each mix; largest reduction in [2, 5]",
        [plan_fig7],
        eval_fig7a,
    ),
    Figure(
        "Fig7b",
        "PS hurt more with TS and TS+DS than with DS (not hurt); C3 AFCT 4× better",
        "AFCT(PS+TS), AFCT(PS+TS+DS) > AFCT(PS+DS); C3 gain with TS+DS in [2.5, 7]; PS+DS ≤ "
        "1.2 × PS alone",
        [plan_fig7],
        eval_fig7b,
    ),
    Figure(
        "Fig8a",
        "DS only: C3 meets more deadlines at every load (up to 2.5×), almost all below 30%",
        "C3 fewer misses at each load; largest reduction in [1.75, 4]; C3 ≤ 5% at the lowest",
        [plan_fig8],
        eval_fig8a,
    ),
    Figure(
        "Fig8b",
        "PS only: C3 like L2DCT at low load, better at high load",
        "AFCT ratio L2DCT / C3 in [0.9, 1.1] at the lowest load, > 1 at the highest",
        [plan_fig8],
        eval_fig8b,
    ),
    Figure(
        "Fig9-oversub",
        "3:1 oversubscribed: C3 PS AFCT −20%, DS misses only marginally lower",
        "AFCT gain in [1.1, 1.4]; miss ratio reduction in [0.95, 1.5]",
        [plan_fig9o],
        eval_fig9o,
    ),
    Figure(
        "Fig9-transport",
        "C3 with DCTCP inside: PS AFCT 3× better than the originals; DS better than D2TCP, "
        "worse than C3 with D2TCP",
        "AFCT gain in [2, 5]; misses below the originals' and above C3+D2TCP's",
        [plan_fig9t],
        eval_fig9t,
    ),
    Figure(
        "Fig10",
        "bursty dumbbell: no-C3 TS noisy, DS 9.6% misses, LS hurt; C3 TS flat, DS 0.2%, PS "
        "AFCT 17.34 ms; two-queue LS RTT ≈ base",
        "LS RTT no-C3 > C3 > two-queue, two-queue ≤ 1.25 × unloaded; with C3: ≤ 5% of TS bins "
        "below guarantee, DS misses ≤ 2%, PS AFCT within 2× of 17.34 ms",
        [plan_fig10],
        eval_fig10,
    ),
]

REDUCED = Scale(
    "reduced",
    seeds=(1, 2, 3),
    params={
        "motiv_rounds": 10,
        "ef_start_ms": 50.0,
        "ef_rounds": 5,
        "fig3c_old": (1.0, 3.0, 9.0),
        "fig3c_delay_ms": (0.0, 20.0, 60.0),
        "fig5_rounds": 6,
        "fig5_period_ms": 50.0,
        "workloads": ("WS", "DM", "MR"),
        "loads": (0.3, 0.6, 0.9),
        "tree_ms": 200.0,
        "tree_warmup_ms": 10.0,
        "tree_cooldown_ms": 40.0,
        "tree_drain_ms": 200.0,
    },
)
FULL = Scale(
    "full",
    seeds=(1, 2, 3),
    params={
        "motiv_rounds": 50,
        "ef_start_ms": 500.0,
        "ef_rounds": 25,
        "fig3c_old": (1.0, 2.0, 4.0, 9.0, 19.0),
        "fig3c_delay_ms": (0.0, 10.0, 20.0, 40.0, 80.0),
        "fig5_rounds": 20,
        "fig5_period_ms": 500.0,
        "workloads": ("WS", "DM", "MR"),
        "loads": (0.1, 0.3, 0.5, 0.7, 0.9),
        "tree_ms": 1000.0,
        "tree_warmup_ms": 50.0,
        "tree_cooldown_ms": 100.0,
        "tree_drain_ms": 500.0,
    },
)

PREAMBLE = """
Objectives and transports (C3 §2): TS and LS run ElasticSwitch (DCTCP under its VM-pair
limiter), DS D2TCP, PS L2DCT; "without C3" is exactly that (`scheme.kind = "elasticswitch"`,
or no scheme when only DS or PS runs), "with C3" puts every class in per-objective pipes
(`scheme.kind = "c3"`, paper Eq. 1/2, control interval 5 ms). RTO_min 1 ms everywhere
[CHOICE]. C3's coordinator runs with its defaults (every 5 ms: admission control, and
network-wide scale factors with equal policy shares per objective).

Two readings of C3 on the tree (Figs 6–9). The spec leaves two choices of the pipe law open
(§5.3.3): the printed Eq. 1 is multiplicative though the text calls it a "weighted additive
increase", and a new pipe's initial R_w may be R_G or line rate / number of pipes. Every
verdict is on the printed law with a new pipe at R_G (`variant = "paper"`, `start =
"guarantee"`, the defaults). Each tree figure's C3 runs are repeated under the other reading,
`variant = "additive"` (R_w + w·10 Mb/s per 5 ms) with `start = "share"` (a pipe that starts,
new or back from idle, at its host's line rate / busy pipes); the row's "ours" gives that
arm's numbers after "‖" and its own verdict under the same rule, so it shows whether the
paper's direction appears under the spec's other reading. The runs without C3 are shared.

Metrics: TS goodput per 1 ms (dumbbell, star) or 5 ms (tree) interval, from the per-class
goodput samples, against the guarantee's payload (1460 of 1538 B per frame; 1460 of 1566 B
inside C3's tunnel); LS RTT = time from a 2 KB LS flow's start until its sender has the ACK of
its last byte (`sender_done_s`; both segments leave in the initial window: one round trip
plus serialization; unloaded: `ideal_fct_s` + the 150 µs return path); DS deadline-miss
ratio (unfinished or late); PS average FCT of finished flows.

Topologies: the motivation dumbbell (4 + 4 hosts, 10 Gb/s access, bottleneck 500–2000 Mb/s,
50 µs per link = 300 µs RTT, ECN K = 20 packets, 250-packet ports); the two-tier tree
(1 spine, 4 racks × 10 hosts [CHOICE], 1 Gb/s edge, 10 Gb/s core, 250 KB ports, K = 20,
37.5 µs per link = 300 µs max RTT); the 3:1 oversubscribed tree (4 × 30 hosts); Fig 5's
testbed as a 6-host star at 1 Gb/s (75 µs per link) [CHOICE].

Where C3 loses (measured, see Fig2d, Fig5, Fig6 and Fig10's class goodputs): with C3 the TS
pipes carry far more than their guarantee (tree: 1.9–3.0× of it with C3 vs 1.0–1.9× without;
Fig10: TS 920 Mb/s with C3 vs 441 without, PS 43 vs 448) and PS is starved. Ablations (one
change in the C3 runs, reduced scale; numbers in each finding's INVESTIGATED note) find two
causes. (1) On the dumbbell and the star (Figs 2d, 5, 10) the printed Eq. 1, R_w ← (1 + w)·R_w:
with one pipe per host every w = 1, so Eq. 1/2 multiply all pipes by the same factors and
they keep the ratio of their floors R_G (TS: Σ guarantees; PS: 1 MTU per 2 RTT ≈ 20 Mb/s).
Reading Eq. 1 as the text's "weighted additive increase" (`variant = "additive"`, R_w +
w·10 Mb/s per 5 ms) brings Fig10's TS to 595 Mb/s and its DS misses from 35% to 2%, and
Fig5's TS ratio from 1.49 to 1.09; the FujiZ reading (`variant = "fujiz"`) gives Fig10 TS
482, PS 541 Mb/s. Starting new pipes higher changes nothing there. (2) On the tree (Figs
6–9) a new pipe starts at R_G and moves once per 5 ms, while most (source, destination)
pipes of Poisson traffic are new when a flow arrives: starting them at line rate / busy
pipes (then a temporary build, now `start = "share"`) brought DS misses at load 0.9 from 38%
to 22% and PS AFCT to L2DCT's (Fig8b ×0.99/0.87/0.98), but no ablation made C3 beat the
runs without it. Measured again with the coordinator and the shipped key, before the three
fixes below (one change,
`start = "share"`): Fig8a's C3 misses at load 0.3 / 0.6 / 0.9 go from 11 / 23 / 25% to
8 / 13 / 15% (D2TCP 11 / 14 / 15%), Fig8b's AFCT gain from ×0.76 / 0.70 / 0.80 to ×1.00 /
0.87 / 0.97, the web-search mix's DS misses from 41.5% to 22.2% (without C3 16.2%); the
other reading (additive + share, each row's second arm) is close to `share` alone, with
TS's excess over its guarantee smaller (web search 1.48× vs 1.88×). Under it no tree
finding holds either: DS misses, and PS AFCT where PS runs alone, come within the intervals
of the runs without C3, PS in the mixes with TS stays slower (web search AFCT ×0.66), and
nowhere does C3 show the paper's gains.
Normalising weights per objective across the network instead of per host (a temporary
build) fixes neither: equal w < 1 leaves Fig10's PS at 36 Mb/s, and on the tree the many DS
pipes get tiny weights (DS misses about 50%). The reproduction runs the printed law
(`paper`). The ablations (and the notes' numbers) were measured before C3's coordinator
existed (per-host weights, static scale factors). With the coordinator on (these runs) the
dumbbell and star runs are unchanged (one pipe per host: the same weights, no link
oversubscribed by guarantees); on the tree it lowers C3's DS misses where DS runs alone
(Fig8a at load 0.3 / 0.6 / 0.9: 11 / 23 / 25%, before 15 / 28 / 38%; D2TCP alone 11 / 14 /
15%) and raises them in the mix (Fig6 web search 41.5%, before 35.1%; without C3 16.2%).
Every verdict is the same as before the coordinator.

Fixed in this version (each changes every figure's numbers; the ablation numbers in the
notes and in "Where C3 loses" above predate them unless a note says otherwise): (1) the DS
miss metric compared a flow's FCT with its deadline, which the flow table holds as an
absolute time, so every late flow after the first round passed (Fig2d's Base-DS showed 43%
where 98% were late); it now compares the finish time. (2) The transports start with 2
segments, as C3 §3 states ("most of the existing protocols start with initial congestion
window of two packets"); with the profile's 10, a Base-DS round put 100 frames (2.5 ms at
500 Mb/s) into the bottleneck at once, beyond the 1 ms initial RTO, and every DS flow took
spurious timeouts (258 in 10 rounds, 1598 frames resent). Measured, `dcnsim reproduce c3
--figure Fig2d`: Base-DS 98% → 20% late, no timeouts. (3) C3's DS pipe took a flow's
deadline as its start plus its (already absolute) deadline, so every flow starting after
t = 0 looked due `start` later and its pipe's R_G was too small (Fig2d: about 250, 170, 130
… Mb/s at the starts of rounds 2, 3, 4 … where EDF needs about 500), and the rounds after
the first missed in cascade; fixed in the shim (`sim/shim.rs`). Measured at reduced scale,
C3's DS misses before → after (3): Fig2d 90% → 8% (printed Eq. 1) and 48% → 0% (additive);
Fig10 90% → 3%; Fig8a at load 0.9 78% → 42% (D2TCP alone 41%). (4) A flow's remaining
bytes in the shim (the DS pipe's EDF guarantee, spec §5.3.4; the PS pipe's SJF order) were
its size less the bytes handed to the pipe, so the bytes still queued in the pipe were left
out and near each deadline R_G fell below what the backlog needed (Fig2d: R_G 240 Mb/s with
43 packets queued); they now count (`sim/shim.rs`, test
`c3_ds_guarantee_counts_bytes_queued_in_the_pipe`). Measured, one change: Fig2d's C3 misses
8% → 3%, bottleneck drops 54 → 0; Fig2c's LS round trip under C3 mean x1.73 → x1.33, p99
x7.51 → x5.85; on the tree (the whole reproduction again), C3's DS misses where DS runs
alone (Fig8a, loads 0.3 / 0.6 / 0.9) 30.9 / 38.6 / 42.1% → 24.7 / 30.3 / 33.4% (D2TCP
29.6 / 37.7 / 41.3%), in the web-search mix (Fig6) 55.9% → 44.6% (without C3 34.0%). The
tree notes' ablations are measured again after it (each note keeps the older numbers).

Fig2d, Base-DS after the fixes: 2 of the 10 flows of every round are late, both 92 KB, by at
most 0.4 ms. This is the model, not a defect found: the bottleneck is 500 Mb/s (C3 §2.2: "In
these experiments the bottleneck link capacity is 500 Mbps"), a round (1150 KB in 20 ms)
needs 97% of it in payload with 1460 of 1538 B per frame (Ethernet preamble and gap counted;
ns-2 counts none), and D2TCP as specified (d = T_c / D) makes the 138 KB flows the more
imminent ones at the start (138 KB / 20 ms > 92 KB / 16 ms), so they take more than a fair
share. Ablations of Base-DS (one change each, not shipped): d fixed at 1 (DCTCP;
`d2tcp_d_min = d2tcp_d_max = 1`) 0 of 100 late; the bottleneck at 520 Mb/s (4% more) 0 of
100; RTO_min 10 ms 20 of 100 (unchanged: no flow times out). With TS (1000 Mb/s) and TS+PS
(1500 Mb/s) the DS class gets more than 500 Mb/s, the bottleneck queue stays below 55
frames, nobody times out and no deadline is missed: the paper's 2/10 and 6/10 are not
reproduced. Not tuned.

Which reading of Eq. 1 the verdicts use: the printed R_w ← (1 + w)·R_w (`variant = "paper"`),
because it is what the paper prints; spec §5.3.3 lists the text's "weighted additive increase"
among the ambiguities [CHOICE], so Fig2d and Fig2c also report C3 under `variant =
"additive"` (R_w + w·10 Mb/s per 5 ms) as a second reading, not judged. Measured (reduced):
Fig2d C3 misses 3% under the printed law (without C3 0%, so `c3_fewer` fails), 0% under the
additive reading; Fig2c's LS round trip with DS, relative to LS alone, is mean x1.33 / p99
x5.85 under C3 with the printed law (x1.37 / x2.66 without C3) and x0.90 / x0.79 under the
additive reading: the printed law's x2 / (1 − α) swings of the DS pipe every 5 ms queue LS
behind it, the additive reading does not (Fig2c's note lists the ablations).

Fig2b: ElasticSwitch guarantees a VM pair (spec §4.5), and both TS flows run SRC1 → DST1, so
one limiter holds the pair's 500 Mb/s of frames (wire bytes; no tunnel without C3) and never
goes below it; the two DCTCP flows share it and cut their windows in antiphase, so a flow's
1 ms goodput swings between about 100 and 360 Mb/s (below 90% of its share in about 40% of
1 ms bins) while the pair's sum stays at the link's payload rate. The finding judges the
pair's limiter rate and each flow's goodput in 5 ms blocks (the control interval).

Choices where the paper leaves values open:
- Initial window 2 segments for every transport (C3 §3; spec §4.1), RTO_min and initial RTO
  1 ms [CHOICE].
- Fig 2c: seven 2 KB LS flows evenly spaced in every 2 ms; under ElasticSwitch each has a
  57 Mb/s guarantee (the class's 400 Mb/s / 7).
- Figs 2d–3c, 10: DS rounds of five 92 KB (16 ms) + five 138 KB (20 ms) flows every 20 ms;
  PS rounds the same without deadlines. Reduced: 10 rounds (paper: 50, i.e. 1 s).
- Fig 2e/f: DS from 50 ms for 5 rounds at reduced scale (paper: from 0.5 s).
- Fig 3c: TS in queue 0, DS in queue 1, DRR TS:DS = old:1, new weights 1:1 requested when
  DS starts (20 ms) and applied after the delay (`scheduler.reconfigure`).
- Fig 5: DS and PS rounds of ten half-size flows (46 / 69 KB, deadlines 16 / 20 ms) from two
  hosts each, every 50 ms (paper: every 0.5 s); TS two 200 Mb/s flows.
- Fig 10: four categories from four hosts, 2 Gb/s core; LS ten 2 KB flows every 2 ms
  (ElasticSwitch guarantee 50 Mb/s each); two-queue variant: LS in the strict high queue.
- Tree (Figs 6–9): DS and PS Poisson at 30% of the host links each (all-to-all; the
  oversubscribed tree: 30% of the 4 × 10 Gb/s core uplinks each, inter-rack), TS one 300
  Mb/s-guaranteed long flow per host to a distinct host (oversubscribed: 10 inter-rack TS
  flows of 100 Mb/s). DS deadlines exponential, mean 40 ms, at least 5 ms. Workloads:
  web search, data mining (VL2), and Facebook Hadoop standing in for MapReduce (no CDF of
  Chen et al. is available). Fig 8 loads: 0.3, 0.6, 0.9 (reduced) / 0.1 … 0.9 (full).
  Reduced: 200 ms of arrivals, flows starting in [10, 160) ms measured, 200 ms to drain,
  seeds 1–3; full: 1 s of arrivals, 0.5 s to drain, seeds 1–3.
- Wall time, measured: the reduced scale is 151 runs (109, plus 42 for the other reading of
  the tree's C3 runs) in 5.8 min on two cores shared with other jobs (`dcnsim reproduce c3
  -j 2`; the runs' own times sum to 615 s, the other reading's 199 s of it; before it, 106
  runs took 2.6 min on two free cores); the full scale is not measured (hours: run it in
  the background).
- Motivation runs are deterministic flow lists (one seed): their intervals resample flows.
"""

REPRO = Reproduction(
    key="c3",
    title=TITLE,
    figures=FIGURES,
    scales={"reduced": REDUCED, "full": FULL},
    preamble=PREAMBLE,
)


def reproduce(
    out_dir: Any, *, full: bool = False, jobs: int | None = None, progress: bool = True
) -> list[Finding]:
    return REPRO.reproduce(out_dir, full=full, jobs=jobs, progress=progress)


def by_id(findings: Sequence[Finding]) -> dict[str, Finding]:
    return {f.figure: f for f in findings}


__all__ = ["HOLDS", "NO", "REPRO", "TITLE", "by_id", "motiv", "reproduce", "star", "tree"]
