"""Ablations behind the notes of `dcnsim reproduce lowprio` (issue 11): each changes one thing
against the reproduction's co-location preset (1 s, seeds 1-5) and prints the ratio the finding
judges, with its bootstrap interval. Runs are cached in --runs like a reproduction's.

    python tools/ablations/lowprio.py fig7-load --runs /tmp/lpf-abl      # LPF-Fig7 vs load
    python tools/ablations/lowprio.py fig7-profile --runs /tmp/lpf-abl   # low class on ns-3 TCP
    python tools/ablations/lowprio.py fig10-ledbat --runs /tmp/lpf-abl   # LEDBAT target only
    python tools/ablations/lowprio.py fig10-tcplp --runs /tmp/lpf-abl    # TCP-LP's gate off
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from dcnsim.papers import framework as fw
from dcnsim.papers import lowprio as L

SEEDS = (1, 2, 3, 4, 5)
BASE = "lpf_colocation"


def low_buffer(b: float) -> dict[str, Any]:
    """LPF-Fig7's arm: the low queue holds `b` bytes, the high queue 128 KB."""
    return {"switch.queue_limit": ["128KB", f"{b:.0f}B"], "switch.port_limit": f"{128e3 + b:.0f}B"}


def ratio(pool: fw.Pool, a: Any, b: Any) -> str:
    fa = L.low_fct([pool.get((a, s)) for s in SEEDS])
    fb = L.low_fct([pool.get((b, s)) for s in SEEDS])
    return ", ".join(f"{st} {L.rel(fa, fb, st)}" for st in ("mean", "p99"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument(
        "ablation", choices=("fig7-load", "fig7-profile", "fig10-ledbat", "fig10-tcplp")
    )
    ap.add_argument("--runs", type=Path, required=True, help="run cache directory")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    a = ap.parse_args()
    pool = fw.Pool(a.runs, a.jobs, False)
    arms: dict[str, dict[str, Any]] = {}
    pairs: list[tuple[str, str, str]] = []  # (label, numerator arm, denominator arm)
    if a.ablation == "fig7-load":
        # only the co-location high-priority load changes (the paper says "high load")
        for ld in (0.6, 0.7, 0.75, 0.8):
            for b in (24e3, 192e3):
                arms[f"{ld}/{b:g}"] = L.coloc(1.0, load=ld, **low_buffer(b))
            pairs.append((f"load {ld:.0%}: 24 / 192 KB", f"{ld}/24000", f"{ld}/192000"))
    elif a.ablation == "fig7-profile":
        # the low class on the ns-3 TCP profile, LPF's own keys kept
        for prof in ("base", "ns3"):
            extra = {} if prof == "base" else L.low_transport(profile=prof)
            for b in (24e3, 192e3):
                arms[f"{prof}/{b:g}"] = L.coloc(1.0, **{**low_buffer(b), **extra})
            pairs.append((f"{prof}: 24 / 192 KB", f"{prof}/24000", f"{prof}/192000"))
    elif a.ablation == "fig10-ledbat":
        # only LEDBAT's target changes
        arms["tcp"] = L.coloc(1.0)
        for t in ("500us", "1ms", "3.2ms", "10ms", "100ms"):
            arms[t] = L.coloc(1.0, **L.low_transport(cc="ledbat", ledbat_target=t))
            pairs.append((f"LEDBAT target {t} / TCP", t, "tcp"))
    else:
        # TCP-LP with and without its once-per-window gate (cc/tcp_lp.rs `tcplp_gate`)
        arms["tcp"] = L.coloc(1.0)
        for gate in (True, False):
            arms[f"gate={gate}"] = L.coloc(1.0, **L.low_transport(cc="tcp_lp", tcplp_gate=gate))
            pairs.append((f"TCP-LP (tcplp_gate = {gate}) / TCP", f"gate={gate}", "tcp"))
    for name, ov in arms.items():
        for s in SEEDS:
            pool.add((name, s), BASE, ov, s)
    pool.run()
    for label, num, den in pairs:
        print(f"{label}: {ratio(pool, num, den)}", flush=True)


if __name__ == "__main__":
    main()
