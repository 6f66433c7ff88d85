"""TLT presets (paper 004, TCP half): the constants of TLT-SIM-TCP-BASE, the overrides of
each variant (baseline, +PFC, +TLT, +TLT+PFC, +TLP, RTO_min 200 µs, static 160 µs RTO), the
background + incast load arithmetic, the §4.2 shared-buffer calculation and the
reproduction's scales. The RoCE half reuses :func:`classes` (:mod:`.roce`).
"""

from __future__ import annotations

import math
from typing import Any

from ..framework import Scale

SCENARIO = "tlt"

#: Topology constants of TLT-SIM-TCP-BASE (the scenario file's).
HOSTS = 96
LINK_BPS = 40e9
OVERSUB = 2.0
#: Wire bytes per payload byte of a full segment (1538-byte frame, 1460-byte MSS): dcnsim's
#: Poisson load counts payload, the paper's load counts the wire.
WIRE = 1538 / 1460
FAN_IN = 95
FG_BYTES = 8000

TRANSPORTS = ("dctcp", "tcp")
#: Colour-aware dropping threshold for TCP-based transports (§7.1: 400 kB = BDP).
K_TCP = 400_000


def variant(name: str, transport: str, k: int = K_TCP, clocking: str = "adaptive") -> dict:
    """Overrides that turn the shipped baseline into ``name`` for ``transport``."""
    t = f"transports.{transport}"
    pfc = {"switch.pfc": {"enabled": True}}
    tlt = {
        "switch.colour": {"threshold": f"{k}B", "mode": "red_only"},
        f"{t}.tlt": clocking,
    }
    table: dict[str, dict[str, Any]] = {
        "base": {},
        "pfc": pfc,
        "tlt": tlt,
        "tlt_pfc": {**tlt, **pfc},
        # §7.1: "TLP (PTO min 10 µs)"; TLP needs SACK, which every transport here has.
        "tlp": {f"{t}.tlp": True, f"{t}.pto_min": "10us"},
        # The RTO before a flow's first RTT sample follows RTO_min, as the baseline's 4 ms
        # does (connections are up before flows start, TLT §7): with the 4 ms initial RTO
        # kept, a short foreground flow that loses its first window waits 4 ms either way
        # and the variant changes nothing (a reduced run gave 1.00× the baseline timeouts).
        "rto200": {f"{t}.rto_min": "200us", f"{t}.rto_init": "200us"},
        # TLT Fig 2: "a small fixed RTO of 160 µs (twice the base RTT)".
        "static160": {f"{t}.rto_mode": "static", f"{t}.rto_static": "160us"},
    }
    if name not in table:
        raise ValueError(f"unknown variant {name!r}; expected one of {sorted(table)}")
    return dict(table[name])


VARIANT_LABEL = {
    "base": "baseline (4 ms)",
    "pfc": "+PFC",
    "tlt": "+TLT",
    "tlt_pfc": "+TLT+PFC",
    "tlp": "+TLP",
    "rto200": "RTO_min 200 µs",
    "static160": "static RTO 160 µs",
}


def classes(
    transport: str,
    load: float = 0.4,
    fg_share: float = 0.05,
    flows_per_sender: int = 8,
    cdf: str = "websearch",
    cdf_mean: float | None = None,
    wire: float = WIRE,
) -> list[dict[str, Any]]:
    """Background Poisson + periodic foreground incasts (TLT-SIM-TCP-BASE load arithmetic).

    Each host offers ``load / OVERSUB`` of its link (so ToR uplinks carry ≈ ``load``), of which
    ``fg_share`` by bytes is foreground. Background ``load`` (dcnsim: payload fraction of all
    host links) = load / OVERSUB × (1 − fg_share) / WIRE; the incast period makes foreground
    bytes ``fg_share`` of all bytes. ``wire``: wire bytes per payload byte (RoCE: 1.082)."""
    if not (0 < load <= 1 and 0 <= fg_share < 1):
        raise ValueError(f"load {load} or fg_share {fg_share} out of range")
    bg = load / OVERSUB * (1 - fg_share) / wire
    out: list[dict[str, Any]] = [
        {
            "name": "background",
            "transport": transport,
            "workload": {"kind": "poisson", "load": bg, "sizes": {"cdf": cdf}},
        }
    ]
    if fg_share > 0:
        fg_bps = bg * HOSTS * LINK_BPS * fg_share / (1 - fg_share)  # payload bits/s
        round_bits = FAN_IN * flows_per_sender * FG_BYTES * 8
        period_us = round_bits / fg_bps * 1e6
        out.append(
            {
                "name": "foreground",
                "transport": transport,
                "workload": {
                    "kind": "incast",
                    "fan_in": FAN_IN,
                    "flows_per_sender": flows_per_sender,
                    "bytes_per_sender": {"fixed": f"{FG_BYTES}B"},
                    "period": f"{period_us:.3f}us",
                },
            }
        )
    return out


def buffer_room(
    buffer: float, alpha: float, congested: int, k: float, pkt: float = 1500.0
) -> dict[str, float]:
    """TLT §4.2: how many flows' important packets fit in a DT shared buffer.

    With M congested ports each gets S = α·B / (1 + M·α) (Choudhury–Hahne); red (unimportant)
    packets stop at K, so R = S − K is left for green (important) packets; at most one
    important packet per flow is in flight, so R / pkt flows per port are protected (whole
    packets), M times that in total. ``single`` is the one-congested-port case."""
    if buffer <= 0 or alpha <= 0 or congested < 1 or k < 0 or pkt <= 0:
        raise ValueError("buffer, alpha, pkt > 0, congested >= 1, k >= 0 expected")
    share = alpha * buffer / (1 + congested * alpha)
    room = share - k
    per_port = max(0, math.floor(room / pkt))
    single_room = alpha * buffer / (1 + alpha) - k
    return {
        "share": share,
        "room": room,
        "flows_per_port": per_port,
        "flows_total": per_port * congested,
        "single_room": single_room,
        "single_flows": max(0, math.floor(single_room / pkt)),
    }


# ---------------------------------------------------------------------------------------------
# scales

REDUCED = Scale(
    "reduced (paper topology, 30 ms of arrivals ≈ 1,400 background flows per run)",
    seeds=(1, 2, 3),
    params={
        "duration": "30ms",
        "thresholds": (200_000, 400_000, 700_000, 1_000_000),
        "loads": (0.2, 0.4, 0.6),
        "fg_shares": (0.0, 0.05, 0.1, 0.2),
        "table1_k": (400_000, 600_000),
        "table1_fg": (0.05, 0.1),
        "wl_loads": (0.4,),
        "degrees": (2, 4, 8, 10),
        # the RoCE half (roce.py): ≈ 420 background flows per run; three seeds, since with two
        # an interval's seed-to-seed part is widened 9.2× (papers/stats.py)
        "roce_duration": "10ms",
        "roce_seeds": (1, 2, 3),
    },
)
FULL = Scale(
    "full (paper scale: ≈ 10,000 background flows per run, 5 seeds)",
    seeds=(1, 2, 3, 4, 5),
    params={
        "duration": "210ms",
        # coarser grids than the paper's (Fig 8: 100 kB – 1.2 MB; Fig 9: 10–60%; Fig 15:
        # 20–50%; Fig 18: 2–10) so the full scale fits in about an hour on two cores
        "thresholds": (100_000, 400_000, 700_000, 1_000_000),
        "loads": (0.2, 0.4, 0.6),
        "fg_shares": (0.0, 0.05, 0.1, 0.2),
        "table1_k": (400_000, 500_000, 600_000),
        "table1_fg": (0.05, 0.1),
        "wl_loads": (0.2, 0.4),
        "degrees": (2, 6, 10),
        # RoCE half: ≈ 10,000 background flows per run, as the paper
        "roce_duration": "240ms",
        "roce_seeds": (1, 2, 3, 4, 5),
    },
)
#: CI subset: the Fig 5 runs only, shorter.
QUICK = Scale(
    "quick (CI)",
    seeds=(1, 2),
    params={**REDUCED.params, "duration": "12ms", "roce_duration": "5ms", "roce_seeds": (1,)},
)

WORKLOADS = {
    "web search": "websearch",
    "web server": "fb_webserver",
    "cache follower": "fb_cachefollower",
}
