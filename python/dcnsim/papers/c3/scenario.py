"""C3 reproduction: how every point is built as a scenario dict.

Owns the frame and payload constants, the transports of the four objectives (C3 §2) and
their initial window, the class builders (:func:`cls`, :func:`rounds`, :func:`ls_flows`,
:func:`long_flows`, :func:`scheme_of`), and the three topologies the figures run on:
:func:`motiv` (the motivation dumbbell), :func:`star` (Fig 5's testbed) and :func:`tree`
(C3-SIM-BASE, with :data:`OTHER_READING`, the spec's other reading of C3's choices).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..framework import Scale

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
