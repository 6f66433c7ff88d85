"""Ablations behind the RoCE notes of `dcnsim reproduce tlt` (issue 13,
`python/dcnsim/papers/tlt/notes.py`, ROCE_MISS_NOTES): each arm changes one thing against a
Fig 6 variant of the reproduction and prints, per seed, what the notes cite: the foreground
p99.9 and the background mean FCT, the foreground timeouts, the important (green) packets
dropped and all drops, and the foreground flows' NACK rounds (all of them, and those at or
above the p99). Runs are cached in --runs like a reproduction's.

    python tools/ablations/tlt.py fig6-dcqcn --runs /tmp/tlt-abl          # reduced scale
    python tools/ablations/tlt.py fig6-dcqcn --runs /tmp/tlt-abl --full   # seeds 1-5, 240 ms
    python tools/ablations/tlt.py fig6-dcqcn --runs /tmp/tlt-abl --full --only "preset,9 MB,sack"
    python tools/ablations/tlt.py fig6-dcqcn-pfc --runs /tmp/tlt-abl --full
    python tools/ablations/tlt.py fig6-dcqcn-degree --runs /tmp/tlt-abl   # incast fan-in
    python tools/ablations/tlt.py fig6-dcqcn-mark --runs /tmp/tlt-abl     # RED at dequeue
    python tools/ablations/tlt.py fig6-dcqcn-load --runs /tmp/tlt-abl     # reference load
    python tools/ablations/tlt.py fig6-irn --runs /tmp/tlt-abl            # IRN's two timeouts
    python tools/ablations/tlt.py fig6-sack-pfc --runs /tmp/tlt-abl       # PFC's XOFF alpha
    python tools/ablations/tlt.py fig6-hpcc-pfc --runs /tmp/tlt-abl       # the same, HPCC
    python tools/ablations/tlt.py fig6-reading --runs /tmp/tlt-abl        # reference timing
    python tools/ablations/tlt.py fig6-hpcc --runs /tmp/tlt-abl           # HPCC's base RTT

The reduced scale is the reproduction's (seeds 1 and 2, 10 ms), the full scale its --full
(seeds 1-5, 240 ms), so an arm's "preset" line is the reproduction's own run.

`fig6-reading` changes no run: it judges the reproduction's own Fig 6 runs (every transport
and variant) under a second reading of a flow's FCT, the TLT RoCE reference simulator's
(docs/rdma.md, Results): from the send time of the first copy of the flow's first packet to
reach the receiver (`rx_first_sent_s`) until every packet has reached it once, in any order
(`rx_all_s`), beside the reproduction's `fct_s` (flow arrival until the responder has every
packet in order).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np

from dcnsim.papers import framework as fw
from dcnsim.papers.tlt import metrics as T
from dcnsim.papers.tlt import presets
from dcnsim.papers.tlt import roce as R

#: Vanilla DCQCN (go-back-N) with TLT (Fig6-dcqcn-tlt): one change each against the
#: +TLT variant, with the lossy and +PFC baselines beside it.
FIG6_DCQCN: dict[str, tuple[str, dict[str, Any]]] = {
    "lossy": ("base", {}),
    "+PFC": ("pfc", {}),
    "+TLT (preset)": ("tlt", {}),
    # the shared buffer twice as deep (4.5 -> 9 MB): no green packet dropped at the DT limit
    "+TLT, shared buffer 9 MB": ("tlt", {"switch.shared_buffer": "9MB"}),
    "lossy, shared buffer 9 MB": ("base", {"switch.shared_buffer": "9MB"}),
    # selective repeat instead of go-back-N (DCQCN+SACK's recovery), nothing else
    "+TLT, recovery sack": ("tlt", {"transports.dcqcn.roce.recovery": "sack"}),
    # the colour threshold twice as high (200 -> 400 kB)
    "+TLT, colour threshold 400 kB": ("tlt", {"switch.colour.threshold": "400000B"}),
    "+TLT, colour threshold 1 MB": ("tlt", {"switch.colour.threshold": "1000000B"}),
    # one important packet in every 384 instead of 96 (the paper's footnote)
    "+TLT, N = 384": ("tlt", {"transports.dcqcn.roce.tlt_every": 384}),
    # a gap NACKed once (1 s) or at every out-of-order packet (0) instead of every 500 us
    "+TLT, nack_interval 1 s": ("tlt", {"transports.dcqcn.roce.nack_interval": "1s"}),
    "+TLT, nack_interval 0": ("tlt", {"transports.dcqcn.roce.nack_interval": "0s"}),
    "lossy, nack_interval 1 s": ("base", {"transports.dcqcn.roce.nack_interval": "1s"}),
    "lossy, nack_interval 0": ("base", {"transports.dcqcn.roce.nack_interval": "0s"}),
    # no congestion control at all (no rate cut, from a CNP or anything else): a bound on
    # what the CNPs' timing (the reference piggybacks them on ACKs) could change
    "+TLT, cc none": ("tlt", {"transports.dcqcn.roce.cc": "none"}),
}

#: Vanilla DCQCN with PFC (TLT-Fig6-dcqcn-pfc): TLT+PFC against PFC, and TLT+PFC with
#: selective repeat instead of go-back-N (one change).
FIG6_DCQCN_PFC: dict[str, tuple[str, dict[str, Any]]] = {
    "+PFC": ("pfc", {}),
    "+TLT+PFC (preset)": ("tlt_pfc", {}),
    "+TLT+PFC, recovery sack": ("tlt_pfc", {"transports.dcqcn.roce.recovery": "sack"}),
    "+PFC, recovery sack": ("pfc", {"transports.dcqcn.roce.recovery": "sack"}),
    # PFC's XOFF alpha (PFC_ALPHAS): the background mean Fig6-irn-vs-dcqcn-pfc compares
    "+PFC, PFC alpha 1/128": ("pfc", {"switch.pfc.alpha": 1 / 128}),
    "+PFC, PFC alpha 1/4": ("pfc", {"switch.pfc.alpha": 1 / 4}),
}

#: Vanilla DCQCN's lossy, +PFC and +TLT variants at other incast fan-ins: foreground flows per
#: sender 2, 4, 5 (the TLT RoCE reference config's default) and 8 (the paper's, the preset),
#: the one change being the incast's flows per sender (the foreground load kept).
FIG6_DCQCN_DEGREE: dict[str, tuple[str, dict[str, Any]]] = {
    f"{label}, {d} flows per sender": (v, {"degree": d})
    for d in (2, 4, 5, 8)
    for label, v in (("lossy", "base"), ("+PFC", "pfc"), ("+TLT", "tlt"))
}

#: Vanilla DCQCN's lossy, +PFC and +TLT variants at the offered load the TLT RoCE reference's
#: workload generator gives (scratch/hpcc-realistic-workload-bgfg.cc computes both arrival rates
#: with LINK_RATE_IN_GBPS = 50 on 40 Gb/s links, so its "LOAD 0.4" offers 0.5 of 40 Gb/s): the
#: one change is the load, 0.4 (the paper's, the preset) -> 0.5, the foreground share kept.
FIG6_DCQCN_LOAD: dict[str, tuple[str, dict[str, Any]]] = {
    f"{label}{arm}": (v, ch)
    for label, v in (("lossy", "base"), ("+PFC", "pfc"), ("+TLT", "tlt"))
    for arm, ch in (("", {}), (", load 0.5", {"load": 0.5}))
}

#: Lossy DCQCN+IRN (Fig6-irn-vs-dcqcn-pfc): which of IRN's two timeouts sets the foreground
#: tail. The timer's value is chosen each time it restarts: RTO_low (454 us) while at most
#: `rto_low_pkts` (3) packets are outstanding, counting lost and SACKed ones (the TLT
#: reference's `GetIrnBytesInFlight`), RTO_high (1930 us) otherwise. One change each.
FIG6_IRN: dict[str, tuple[str, dict[str, Any]]] = {
    "lossy (preset)": ("base", {}),
    # every timeout at RTO_low's value
    "lossy, rto_high 454 us": ("base", {"transports.dcqcn_irn.roce.rto_high": "454us"}),
    # RTO_low while up to 8 packets (a whole foreground flow) are outstanding
    "lossy, rto_low_pkts 8": ("base", {"transports.dcqcn_irn.roce.rto_low_pkts": 8}),
    "+TLT (preset)": ("tlt", {}),
    # the colour threshold (200 kB) raised: fewer red background packets dropped
    "+TLT, colour threshold 400 kB": ("tlt", {"switch.colour.threshold": "400000B"}),
    "+TLT, colour threshold 1 MB": ("tlt", {"switch.colour.threshold": "1000000B"}),
}

#: PFC's dynamic XOFF, alpha x (buffer - headroom - used): the paper gives no PFC threshold;
#: the preset's 1/16 is the TLT RoCE reference config's, 1/128 its code default.
PFC_ALPHAS = (("1/128", 1 / 128), ("1/4", 1 / 4))


def pfc_alpha_arms() -> dict[str, tuple[str, dict[str, Any]]]:
    """Lossy, +TLT, +PFC and +TLT+PFC, then +PFC and +TLT+PFC at each other XOFF alpha (one
    change each): how TLT's background gain under PFC depends on how early PFC pauses."""
    return {
        "lossy": ("base", {}),
        "+TLT": ("tlt", {}),
        "+PFC (preset)": ("pfc", {}),
        "+TLT+PFC (preset)": ("tlt_pfc", {}),
        **{
            f"{label}, PFC alpha {name}": (v, {"switch.pfc.alpha": a})
            for name, a in PFC_ALPHAS
            for label, v in (("+PFC", "pfc"), ("+TLT+PFC", "tlt_pfc"))
        },
    }


#: Where DCQCN's RED marking looks at the queue: the preset marks at enqueue (what the
#: arriving packet finds in front of it); HPCC's ns-3 simulator, on which the paper ran its
#: RoCE experiments, marks at dequeue (what the departing packet leaves behind), so a mark
#: does not wait out the queue it reports. One change per variant.
FIG6_DCQCN_MARK: dict[str, tuple[str, dict[str, Any]]] = {
    f"{label}{arm}": (v, ch)
    for label, v in (("lossy", "base"), ("+PFC", "pfc"), ("+TLT", "tlt"), ("+TLT+PFC", "tlt_pfc"))
    for arm, ch in (("", {}), (", RED at dequeue", {"switch.ecn.at": "dequeue"}))
}

#: Lossy HPCC and HPCC + TLT (Fig6-hpcc: the paper's lossy background 3.4x TLT's): the one
#: change is HPCC's base RTT T, every QP's own path RTT (the preset) or one network-wide T
#: as the TLT RoCE reference runs it (`GLOBAL_T 1`: T = its largest base RTT, about 8.8 us
#: on its topology, the same shape as this one, so a QP starts with that BDP as its window,
#: about twice its own within a rack).
FIG6_HPCC: dict[str, tuple[str, dict[str, Any]]] = {
    f"{label}{arm}": (v, ch)
    for label, v in (("lossy", "base"), ("+TLT", "tlt"))
    for arm, ch in (("", {}), (", base RTT 8.8 us", {"transports.hpcc.roce.base_rtt": "8.8us"}))
}

#: Each ablation: the transport its arms run (a key of ``roce.LABEL``) and the arms.
ABLATIONS: dict[str, tuple[str, dict[str, tuple[str, dict[str, Any]]]]] = {
    "fig6-dcqcn": ("dcqcn", FIG6_DCQCN),
    "fig6-dcqcn-pfc": ("dcqcn", FIG6_DCQCN_PFC),
    "fig6-dcqcn-degree": ("dcqcn", FIG6_DCQCN_DEGREE),
    "fig6-dcqcn-mark": ("dcqcn", FIG6_DCQCN_MARK),
    "fig6-dcqcn-load": ("dcqcn", FIG6_DCQCN_LOAD),
    "fig6-irn": ("dcqcn_irn", FIG6_IRN),
    "fig6-sack-pfc": ("dcqcn_sack", pfc_alpha_arms()),
    "fig6-hpcc-pfc": ("hpcc", pfc_alpha_arms()),
    "fig6-hpcc": ("hpcc", FIG6_HPCC),
}

#: Ablations that change no run, only how the reproduction's own runs are read
#: (:func:`fig6_reading`).
READINGS = ("fig6-reading",)

#: Arm changes that are arguments of the reproduction's run builder (``roce._ov``), not
#: scenario overrides.
OV_ARGS = ("degree", "load")


def run_arms(
    pool: fw.Pool, scale: Any, arms: dict[str, tuple[str, dict[str, Any]]], transport: str
) -> None:
    """Runs every arm (``(variant, one change)``) at ``scale`` for ``transport`` and prints
    each seed's row."""
    c = SimpleNamespace(scale=scale, seeds=scale.seeds)
    seeds = R._seeds(c)  # type: ignore[arg-type]
    for name, (v, ch) in arms.items():
        ov = R._ov(c, v, transport, **{k: x for k, x in ch.items() if k in OV_ARGS})  # type: ignore[arg-type]
        ch = {k: x for k, x in ch.items() if k not in OV_ARGS}
        for s in seeds:
            pool.add((name, s), R.SCENARIO, {**ov, **ch}, s)
    pool.run()
    print(f"{R.LABEL[transport]}, {scale.name}: seeds {seeds}, per seed", flush=True)
    for name in arms:
        runs = [pool.get((name, s)) for s in seeds]
        fg, bg = T._fct(runs, "foreground"), T._fct(runs, "background")
        rows = []
        for r, f, b in zip(runs, fg, bg, strict=True):
            fl = r.flows[r.flows["in_window"].astype(bool)]
            fgf = fl[fl["class"] == "foreground"]
            # the foreground flows at or above the p99 FCT: NACK rounds (go-back-N rounds or
            # selective-repeat episodes started by a NACK) and retransmissions, each
            tail = fgf[fgf["fct_s"] >= np.nanpercentile(fgf["fct_s"], 99)]
            rows.append(
                f"fg p99.9 {T.P999(f) * 1e3:.2f} ms, bg mean {float(np.mean(b)) * 1e3:.2f} ms, "
                f"fg timeouts {int(fgf['rto_count'].sum())}, important drops "
                f"{int(fl['important_drops'].sum())}, drops {int(r.queues['drops'].sum())}; fg "
                f"NACK rounds per flow {fgf['fast_retx'].mean():.2f}, the {len(tail)} at or "
                f"above the p99: {tail['fast_retx'].mean():.2f} rounds, "
                f"{tail['retx_pkts'].mean():.1f} retransmissions, FCT "
                f"{tail['fct_s'].mean() * 1e3:.2f} ms each"
            )
        print(f"  {name}:", flush=True)
        for s, row in zip(seeds, rows, strict=True):
            print(f"    seed {s}: {row}", flush=True)


@fw.seeded
def _fct_ref(runs: list[Any], name: str) -> fw.FlowRows:
    """Per seed: the class's in-window FCTs (s) under the TLT RoCE reference's timing,
    ``rx_all_s - rx_first_sent_s``, unfinished = +inf (rows labelled by flow, as
    ``metrics._fct``)."""
    out, ids = [], []
    for r in runs:
        f = T._cls(r, name)
        v = (f["rx_all_s"] - f["rx_first_sent_s"]).to_numpy(dtype=float)
        out.append(np.where(np.isnan(v), np.inf, v))
        ids.append(f["flow_id"].to_numpy())
    return out, ids


def fig6_reading(pool: fw.Pool, scale: Any) -> None:
    """Fig 6 under both FCT readings: per transport and variant the foreground p99.9 and the
    background mean, then the ratios the Fig 6 findings judge (lossy ÷ TLT and TLT ÷ the
    lossless variant at the foreground p99.9; TLT ÷ lossy at the background mean)."""
    c = SimpleNamespace(scale=scale, seeds=scale.seeds)
    seeds = R._seeds(c)  # type: ignore[arg-type]
    for t, vs in R.FIG6.items():
        for v in vs:
            for s in seeds:
                pool.add((t, v, s), R.SCENARIO, R._ov(c, v, t), s)  # type: ignore[arg-type]
    pool.run()
    print(f"Fig 6, {scale.name}: seeds {seeds}; fct_s | reference timing", flush=True)
    for t, vs in R.FIG6.items():
        runs = {v: [pool.get((t, v, s)) for s in seeds] for v in vs}
        fcts = {
            name: {v: {k: f(rs, k) for k in ("foreground", "background")} for v, rs in runs.items()}
            for name, f in (("fct_s", T._fct), ("reference", _fct_ref))
        }
        for v in vs:
            cells = [
                f"fg p99.9 {T._stat(T.P999, d[v]['foreground']).scaled(1e3)} ms, bg mean "
                f"{T._stat(T._mean, d[v]['background']).scaled(1e3)} ms"
                for d in fcts.values()
            ]
            print(f"  {R.LABEL[t]} {R.VARIANT_LABEL[v]}: " + " | ".join(cells), flush=True)
        lossless = "pfc" if "pfc" in vs else None
        for name, d in fcts.items():
            parts = [
                "fg lossy ÷ TLT "
                f"{T._ratio(T.P999, d['base']['foreground'], d['tlt']['foreground'])}",
                "bg TLT ÷ lossy "
                f"{T._ratio(T._mean, d['tlt']['background'], d['base']['background'])}",
            ]
            if lossless:
                parts.append(
                    "fg TLT ÷ +PFC "
                    f"{T._ratio(T.P999, d['tlt']['foreground'], d[lossless]['foreground'])}"
                )
            print(f"  {R.LABEL[t]}, {name}: " + "; ".join(parts), flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("ablation", choices=sorted([*ABLATIONS, *READINGS]))
    ap.add_argument("--runs", type=Path, required=True, help="run cache directory")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--full", action="store_true", help="the reproduction's --full scale")
    ap.add_argument(
        "--only",
        default="",
        help="comma-separated parts of arm names: run only the arms whose name contains one",
    )
    a = ap.parse_args()
    scale = presets.FULL if a.full else presets.REDUCED
    if a.ablation == "fig6-reading":
        fig6_reading(fw.Pool(a.runs, a.jobs, False), scale)
        return
    transport, arms = ABLATIONS[a.ablation]
    if a.only:
        parts = [p.strip() for p in a.only.split(",") if p.strip()]
        arms = {n: v for n, v in arms.items() if any(p in n for p in parts)}
        if not arms:
            ap.error(
                f"--only {a.only!r} matches no arm of {a.ablation}: "
                f"{list(ABLATIONS[a.ablation][1])}"
            )
    pool = fw.Pool(a.runs, a.jobs, False)
    run_arms(pool, scale, arms, transport)


if __name__ == "__main__":
    main()
