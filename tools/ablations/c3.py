"""Ablations behind the notes of `dcnsim reproduce c3` (issue 15): each arm changes one thing
against the reproduction's preset and prints what the finding judges. The motivation runs are
deterministic flow lists, so one seed decides them.

    python tools/ablations/c3.py fig2d-framing            # ns-2 framing, full scale
    python tools/ablations/c3.py fig2d-framing --rounds 10  # the reduced scale
    python tools/ablations/c3.py fig2d-es-inner --rounds 10 # TS's transport inside ES
    python tools/ablations/c3.py fig2d-ts-cbr --rounds 10   # TS as open-loop streams
"""

from __future__ import annotations

import argparse
import copy
from types import SimpleNamespace
from typing import Any

import dcnsim
from dcnsim.papers.c3 import dumbbell_figures as d
from dcnsim.papers.c3.metrics import _flows, misses

#: One change per arm: the packet table. The preset keeps dcnsim's default Ethernet framing
#: (a 1460 B payload in a 1538 B frame); ns-2, the paper's simulator, puts the IP packet on
#: the wire as it is.
FRAMING = {
    "preset (Ethernet framing, 38 B per frame)": {},
    "ns-2 framing (eth_overhead 0, min_wire 64)": {"eth_overhead": 0, "min_wire": 64},
}


def _report(arm: str, key: str, r: Any, extra: str) -> None:
    """One run's line: the DS flows late of all, and ``extra``."""
    m = misses(r)
    print(
        f"{arm:44s} {key:18s} late {int(m.sum()):3d} of {len(m)} ({m.mean() * 100:4.1f}%), {extra}",
        flush=True,
    )


def fig2d_framing(rounds: int) -> None:
    """C3-Fig2d's DS deadline misses per run, with and without the Ethernet framing."""
    c = SimpleNamespace(scale=SimpleNamespace(motiv_rounds=rounds))
    for arm, packet in FRAMING.items():
        for key in d.FIG2D:
            sc = copy.deepcopy(d.fig2d_scenario(c, key))  # type: ignore[arg-type]
            sc["packet"] = packet
            r = dcnsim.run(sc, seed=1, progress=False)
            f = _flows(r, "ds")
            late_ms = (f.finish_s - f.deadline_s).max() * 1e3
            _report(arm, key, r, f"max lateness {late_ms:+.3f} ms")


#: One change per arm: the transport the TS flows run inside their ElasticSwitch limiters
#: (spec §4.5: "inside the limiter, TCP flows run as usual"; the preset runs DCTCP).
ES_INNER = {
    "preset (DCTCP inside ElasticSwitch)": {},
    "NewReno with ECN": {"cc": "newreno", "ecn": True},
    "NewReno without ECN": {"cc": "newreno", "ecn": False},
    "Cubic with ECN": {"cc": "cubic", "ecn": True},
}


def fig2d_es_inner(rounds: int) -> None:
    """C3-Fig2d's DS deadline misses per run, with each transport inside the TS limiters."""
    c = SimpleNamespace(scale=SimpleNamespace(motiv_rounds=rounds))
    for arm, es in ES_INNER.items():
        for key in d.FIG2D:
            sc = copy.deepcopy(d.fig2d_scenario(c, key))  # type: ignore[arg-type]
            sc["transports"]["es"] = {**sc["transports"]["es"], **es}
            r = dcnsim.run(sc, seed=1, progress=False)
            _report(arm, key, r, f"drops {r.meta['dropped']}")


def fig2d_ts_cbr(rounds: int) -> None:
    """C3-Fig2d's coexistence runs with the two TS flows replaced by two open-loop 250 Mb/s
    streams (their limiters' floor, not responsive to congestion): a change of the model,
    not a reading of the paper."""
    c = SimpleNamespace(scale=SimpleNamespace(motiv_rounds=rounds))
    for key in ("Coexist-TS/DS", "Coexist-TS/DS/PS"):
        sc = copy.deepcopy(d.fig2d_scenario(c, key))  # type: ignore[arg-type]
        sc["classes"] = [cl for cl in sc["classes"] if cl["name"] != "ts"]
        sc["scheme"] = {"kind": "none"}
        sc["sources"] = [{"src": 0, "dst": 4, "rate": "250Mbps"}] * 2
        r = dcnsim.run(sc, seed=1, progress=False)
        _report("TS as two 250 Mb/s streams", key, r, f"drops {r.meta['dropped']}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("ablation", choices=["fig2d-framing", "fig2d-es-inner", "fig2d-ts-cbr"])
    ap.add_argument("--rounds", type=int, default=50, help="DS rounds (full scale: 50)")
    a = ap.parse_args()
    if a.ablation == "fig2d-framing":
        fig2d_framing(a.rounds)
    elif a.ablation == "fig2d-es-inner":
        fig2d_es_inner(a.rounds)
    elif a.ablation == "fig2d-ts-cbr":
        fig2d_ts_cbr(a.rounds)


if __name__ == "__main__":
    main()
