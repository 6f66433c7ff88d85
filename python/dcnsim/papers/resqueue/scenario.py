"""ResQueue reproduction: how every run is built from the shipped ``resqueue`` scenario.

Owns the schemes' settings (PIAS thresholds, :func:`scheme_set` for DCTCP, PIAS and ResQueue
under either reading of queue 0's reservation, :data:`RESERVES`), the switch buffers
(:data:`BUFFERS`), the workload (:func:`frontends`, :func:`classes`: incast rounds at the front
ends, 1 MB flows all-to-all) and the run keys every figure plans and reads (:func:`_add`,
:func:`_get`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...results import Results
from ..framework import Ctx

SCENARIO = "resqueue"

#: PIAS demotion thresholds for this workload (spec §5.4.1 CHOICE): all short flows (≤ 6 KB)
#: in the first normal level, the rest spread over 10 KB – 1 MB. PIAS and ResQueue use the same.
THRESHOLDS = ["10KB", "20KB", "50KB", "100KB", "200KB", "500KB"]
NO_RESERVE = ["0B"] * 8
SCHEMES = ("dctcp", "pias", "resqueue")
#: Any queue limit that never binds (the port limit or shared pool decides).
UNLIMITED = "1000000pkt"

#: Switch buffers. The paper: "switches use shallow buffers as suggested in prior work
#: (e.g. [pFabric])" (§4.1) and, for the reservation, "a 4MB buffer shared among all ports"
#: (§4.5.2). PIAS's own ns-2 simulations (which ResQueue extends) use 240 packets per port.
#: [CHOICE] the default is 240 packets per port: a 4 MB pool shared by a switch's ports drops
#: nothing up to 40% load (measured at full scale, 8 seeds; DCTCP's and PIAS's runs drop
#: 2,818 packets at 60% and 340,066 at 80%, where a front end's link is offered more than its
#: capacity: :func:`frontend_offered`), so under it the schemes differ little, and the
#: previous 100 KB per port is smaller than one 32 × 6 KB incast. All three are reported (the
#: "buffer" sensitivity rows), and a fourth, a port that never drops: the one change of the
#: ablations that remove every loss.
BUFFERS: dict[str, dict[str, Any]] = {
    "240pkt/port": {"switch.port_limit": "240pkt"},
    "100KB/port": {"switch.port_limit": "100KB"},
    "4MB shared": {
        "switch.port_limit": UNLIMITED,
        "switch.shared_buffer": "4MB",
        "switch.alpha": 1.0,
    },
    "no limit": {"switch.port_limit": UNLIMITED},
}
BUFFER = "240pkt/port"
#: The buffer of the ablations that remove losses (Figs 2, 3 notes): no port limit, so no
#: packet is dropped at any load (each flow's window bounds what it queues).
NO_DROP_BUFFER = "no limit"


#: Reservation semantics of ResQueue's queue 0. "cap" (default): the queue *is* its reserved
#: bytes ("the size of this queue is 20KB", §3): dedicated and nothing beyond. "extra": the
#: reserved bytes come on top of the port buffer and queue 0 may also use the shared port
#: buffer beyond them.
RESERVES = ("cap", "extra")
RESERVE = "cap"


def reserved(kb: float) -> list[str]:
    return [f"{int(kb * 1000)}B"] + ["0B"] * 7


def scheme_set(name: str, reserve_kb: float = 20.0, semantics: str = RESERVE) -> dict[str, Any]:
    """Overrides that turn the shipped (ResQueue) scenario into ``name``."""
    free = {"switch.queue_limit": [UNLIMITED] * 8}  # only the port limit / pool binds
    if name == "dctcp":
        return {"scheme": {"kind": "none"}, "switch.reserved": NO_RESERVE, **free}
    if name == "pias":
        return {
            "scheme": {"kind": "pias", "thresholds": THRESHOLDS, "resqueue": False},
            "switch.reserved": NO_RESERVE,
            **free,
        }
    if name == "resqueue":
        ov: dict[str, Any] = {
            "scheme": {"kind": "pias", "thresholds": THRESHOLDS, "resqueue": True},
            "switch.reserved": reserved(reserve_kb),
            **free,
        }
        if semantics == "cap":
            # buffer.rs admits a packet that fits in the queue's reserved bytes for free; a
            # static limit equal to the reservation refuses the rest.
            ov["switch.queue_limit"] = [f"{int(reserve_kb * 1000)}B"] + [UNLIMITED] * 7
        elif semantics != "extra":
            raise ValueError(f"unknown reservation semantics {semantics!r}")
        return ov
    raise ValueError(f"unknown scheme {name!r}; expected one of {SCHEMES}")


def frontends(n_hosts: int, n: int) -> list[int]:
    """``n`` front-end servers "spread across the network uniformly randomly" (§4.1): a fixed
    draw (seed 11) per topology size, so every scheme and seed sees the same placement."""
    rng = np.random.default_rng(11)
    return sorted(int(h) for h in rng.choice(n_hosts, size=n, replace=False))


def frontend_offered(load: float, n_hosts: int, n_fes: int, bisection_gbps: float) -> float:
    """What :func:`classes` offers a front end's 10 Gb/s link, as a fraction of it: its
    incasts (``load``) plus its 1/``n_hosts`` share of the all-to-all 1 MB flows. Above 1 at
    the highest loads (0.8: 1.16 at full scale, 1.10 reduced)."""
    large = load * (1 - n_fes * 10.0 / bisection_gbps)
    return load + large * bisection_gbps / n_hosts / 10.0


def classes(
    load: float, degree: int, fes: Sequence[int], bisection_gbps: float
) -> list[dict[str, Any]]:
    """At every front end, incast rounds (degree ``degree``) at ``load`` of its 10 Gb/s link,
    half 1 KB rounds and half 2–6 KB; 1 MB flows all-to-all on the rest of ``load`` of the
    leaf uplinks, so the fabric as a whole is offered ``load``."""
    large = load * (1 - len(fes) * 10.0 / bisection_gbps)
    out: list[dict[str, Any]] = [
        {
            "name": "large",
            "transport": "dctcp",
            "workload": {
                "kind": "poisson",
                "load": large,
                "load_basis": "bisection",
                "bisection": f"{bisection_gbps:g}Gbps",
                "sizes": {"fixed": "1MB"},
            },
        }
    ]
    for fe in fes:
        inc = {"kind": "incast", "fan_in": degree, "receiver": fe, "load": load / 2}
        out.append(
            {
                "name": f"short_1k_fe{fe}",
                "transport": "dctcp",
                "workload": {**inc, "bytes_per_sender": {"fixed": "1KB"}},
            }
        )
        out.append(
            {
                "name": f"short_2_6k_fe{fe}",
                "transport": "dctcp",
                "workload": {**inc, "bytes_per_sender": {"uniform": ["2KB", "6KB"]}},
            }
        )
    return out


# ---------------------------------------------------------------------------------------------
# runs


def _ov(c: Ctx, scheme: str, load: float, **kw: Any) -> dict[str, Any]:
    sc = c.scale
    degree = kw.pop("degree", 32)
    buf = kw.pop("buffer", BUFFER)
    rkb = kw.pop("reserve_kb", 20.0)
    sem = kw.pop("semantics", RESERVE)
    large = kw.pop("large", True)
    assert not kw, kw
    cl = classes(load, degree, frontends(sc.hosts, sc.frontends), sc.bisection)
    return {
        **sc.topo,
        "run.duration": sc.duration,
        **BUFFERS[buf],
        **scheme_set(scheme, rkb, sem),
        # large=False: the ablation without the 1 MB flows (the incasts unchanged)
        "classes": cl if large else [k for k in cl if k["name"] != "large"],
    }


def _key(scheme: str, load: float, **kw: Any) -> tuple:
    return (scheme, load, tuple(sorted(kw.items())))


def _add(c: Ctx, scheme: str, load: float, **kw: Any) -> None:
    for s in c.seeds:
        c.add((*_key(scheme, load, **kw), s), SCENARIO, _ov(c, scheme, load, **kw), s)


def _get(c: Ctx, scheme: str, load: float, **kw: Any) -> list[Results]:
    return [c.get((*_key(scheme, load, **kw), s)) for s in c.seeds]
