"""Ablations behind the notes of `dcnsim reproduce c3` (issue 15): each arm changes one thing
against the reproduction's preset and prints what the finding judges. The motivation runs are
deterministic flow lists, so one seed decides them.

    python tools/ablations/c3.py fig2d-framing            # ns-2 framing, full scale
    python tools/ablations/c3.py fig2d-framing --rounds 10  # the reduced scale
    python tools/ablations/c3.py fig2d-es-inner --rounds 10 # TS's transport inside ES
    python tools/ablations/c3.py fig2d-ts-cbr --rounds 10   # TS as open-loop streams
    python tools/ablations/c3.py fig2d-join --rounds 3      # when DS joins TS; ES pinned
    python tools/ablations/c3.py tree --objs ds,ps,ts       # tree mixes: one change per arm

The coexistence runs start the DS (and PS) rounds after 0.5 s of TS alone, as the paper's
Coexist-TS/DS does (``--join-ms``, the reproduction's ``motiv_join_ms``).
"""

from __future__ import annotations

import argparse
import copy
from types import SimpleNamespace
from typing import Any

import dcnsim
from dcnsim.papers.c3 import REDUCED
from dcnsim.papers.c3 import dumbbell_figures as d
from dcnsim.papers.c3.metrics import _flows, fcts, misses
from dcnsim.papers.c3.scenario import tree

#: One change per arm: the packet table. The preset keeps dcnsim's default Ethernet framing
#: (a 1460 B payload in a 1538 B frame); ns-2, the paper's simulator, puts the IP packet on
#: the wire as it is.
FRAMING = {
    "preset (Ethernet framing, 38 B per frame)": {},
    "ns-2 framing (eth_overhead 0, min_wire 64)": {"eth_overhead": 0, "min_wire": 64},
}


def _report(arm: str, key: str, r: Any, extra: str) -> None:
    """One run's line: the DS flows late in the first round (what the finding judges) and of
    all, and ``extra``."""
    m, m1 = misses(r), d.first_round(r)
    print(
        f"{arm:44s} {key:18s} first round {int(m1.sum()):2d} of {len(m1)}, all "
        f"{int(m.sum()):3d} of {len(m)} ({m.mean() * 100:4.1f}%), {extra}",
        flush=True,
    )


def _ctx(rounds: int, join_ms: float) -> Any:
    return SimpleNamespace(scale=SimpleNamespace(motiv_rounds=rounds, motiv_join_ms=join_ms))


def fig2d_framing(rounds: int, join_ms: float) -> None:
    """C3-Fig2d's DS deadline misses per run, with and without the Ethernet framing."""
    c = _ctx(rounds, join_ms)
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


def fig2d_es_inner(rounds: int, join_ms: float) -> None:
    """C3-Fig2d's DS deadline misses per run, with each transport inside the TS limiters."""
    c = _ctx(rounds, join_ms)
    for arm, es in ES_INNER.items():
        for key in d.FIG2D:
            sc = copy.deepcopy(d.fig2d_scenario(c, key))  # type: ignore[arg-type]
            sc["transports"]["es"] = {**sc["transports"]["es"], **es}
            r = dcnsim.run(sc, seed=1, progress=False)
            _report(arm, key, r, f"drops {r.meta['dropped']}")


def fig2d_ts_cbr(rounds: int, join_ms: float) -> None:
    """C3-Fig2d's coexistence runs with the two TS flows replaced by two open-loop 250 Mb/s
    streams (their limiters' floor, not responsive to congestion): a change of the model,
    not a reading of the paper."""
    c = _ctx(rounds, join_ms)
    for key in ("Coexist-TS/DS", "Coexist-TS/DS/PS"):
        sc = copy.deepcopy(d.fig2d_scenario(c, key))  # type: ignore[arg-type]
        sc["classes"] = [cl for cl in sc["classes"] if cl["name"] != "ts"]
        sc["scheme"] = {"kind": "none"}
        sc["sources"] = [{"src": 0, "dst": 4, "rate": "250Mbps"}] * 2
        r = dcnsim.run(sc, seed=1, progress=False)
        _report("TS as two 250 Mb/s streams", key, r, f"drops {r.meta['dropped']}")


#: One change per arm: ElasticSwitch's rate increase. Off, the TS pair's limiter stays at its
#: guarantee (500 Mb/s) while TS is alone; in the preset it grows by 5% of it per clean 5 ms.
ES_PINNED = {
    "preset (ES increase 0.05 G per clean 5 ms)": {},
    "ES increase off (limiter at its guarantee)": {"increase": 0.0, "min_step": "0bps"},
}


def fig2d_join(rounds: int) -> None:
    """C3-Fig2d's coexistence runs with the DS (and PS) rounds joining TS at 400 to 600 ms:
    the DS flows late in the first round and the TS pair's ElasticSwitch rate at the last
    control interval before the join, with and without ES's rate increase."""
    for arm, es in ES_PINNED.items():
        for join in range(400, 620, 20):
            c = _ctx(rounds, float(join))
            cols = []
            for key in ("Coexist-TS/DS", "Coexist-TS/DS/PS"):
                sc = copy.deepcopy(d.fig2d_scenario(c, key))  # type: ignore[arg-type]
                sc["scheme"].update(es)
                r = dcnsim.run(sc, seed=1, progress=False)
                rate = d.limiter_at_join(r, join) / 1e6
                m1 = d.first_round(r)
                cols.append(f"{key} {int(m1.sum()):2d} of {len(m1)} (limiter {rate:4.0f} Mb/s)")
            print(f"{arm:44s} join {join} ms: " + "; ".join(cols), flush=True)


#: One change per arm against the tree's C3 preset (printed Eq. 1, start at R_G, coordinator
#: with admission control); "without C3" is the figure's baseline (ElasticSwitch for TS, else
#: no scheme). ``host`` keys go to the scenario's host table, the rest to its scheme table.
TREE_ARMS: dict[str, dict[str, Any]] = {
    "without C3": {},
    "C3 preset": {},
    "host NIC marks (ECN K = 20 pkt)": {"host": {"ecn": {"kind": "step", "k": "20pkt"}}},
    "admission control off": {"admission": False},
    "coordinator off (static per-host split)": {"coordinator": False},
    "alpha = raw marked fraction (g = 1)": {"g": 1.0},
    "TS policy share x0.001": {"scale": {"ts": 0.001}},
    "start = share": {"start": "share"},
    "variant = additive": {"variant": "additive"},
}


def _tree_line(arm: str, seed: int, r: Any) -> None:
    """One tree run's line: DS misses and PS AFCT (measurement window), the hosts' NIC queue
    (packets, unmarked in the preset) and the class goodput per host."""
    cls, q, s = set(r.flows["class"]), r.queues, r.samples
    hosts = int(q.is_host.sum())
    parts = []
    if "ds" in cls:
        parts.append(f"DS misses {misses(r, window=True).mean() * 100:4.1f}%")
    if "ps" in cls:
        parts.append(f"PS AFCT {fcts(r, 'ps', window=True).mean() * 1e3:5.1f} ms")
    hq = s[s.node < hosts].bytes
    parts.append(
        f"host NIC queue max {int(q[q.is_host].max_pkts.max())} pkts, mean {hq.mean() / 1e3:.0f} KB"
    )
    cs = r.class_samples
    w = cs[(cs.t_s > REDUCED.tree_warmup_ms / 1e3) & (cs.t_s <= REDUCED.tree_ms / 1e3)]
    gp = w.groupby("class").goodput_bps.mean() / hosts / 1e6
    parts.append("goodput per host " + ", ".join(f"{k} {v:.0f}" for k, v in gp.items()) + " Mb/s")
    print(f"{arm:42s} seed {seed}: " + "; ".join(parts), flush=True)


def tree_arms(cdf: str, objs: tuple[str, ...], load: float, arms: list[str]) -> None:
    """The tree figures' mixes (reduced scale, seeds 1-3), one change per arm in the C3 runs."""
    base = "es" if "ts" in objs else "none"
    for arm in arms or list(TREE_ARMS):
        for seed in REDUCED.seeds:
            change = copy.deepcopy(TREE_ARMS[arm])
            sc = copy.deepcopy(
                tree(cdf, objs, base if arm == "without C3" else "c3", REDUCED, load=load)
            )
            sc["output"]["sample_ports"] = "all"
            sc["host"] = {**sc.get("host", {}), **change.pop("host", {})}
            sc["scheme"].update(change)
            _tree_line(arm, seed, dcnsim.run(sc, seed=seed, progress=False))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "ablation",
        choices=["fig2d-framing", "fig2d-es-inner", "fig2d-ts-cbr", "fig2d-join", "tree"],
    )
    ap.add_argument("--rounds", type=int, default=50, help="DS rounds (full scale: 50)")
    ap.add_argument(
        "--join-ms", type=float, default=500.0, help="when DS joins TS (the preset: 500)"
    )
    ap.add_argument("--cdf", default="websearch", help="tree: size CDF (the preset's names)")
    ap.add_argument("--objs", default="ds,ps,ts", help="tree: objectives, comma-separated")
    ap.add_argument("--load", type=float, default=0.3, help="tree: DS and PS load each")
    ap.add_argument("--arm", action="append", default=[], help="tree: arms (default all)")
    a = ap.parse_args()
    if a.ablation == "fig2d-framing":
        fig2d_framing(a.rounds, a.join_ms)
    elif a.ablation == "fig2d-es-inner":
        fig2d_es_inner(a.rounds, a.join_ms)
    elif a.ablation == "fig2d-ts-cbr":
        fig2d_ts_cbr(a.rounds, a.join_ms)
    elif a.ablation == "fig2d-join":
        fig2d_join(a.rounds)
    elif a.ablation == "tree":
        tree_arms(a.cdf, tuple(a.objs.split(",")), a.load, a.arm)


if __name__ == "__main__":
    main()
