"""The LPF-Fig3c (SJF) ablations of tools/ablations/lowprio.py, which runs them (``fig3c-*``):
the reproduction's full-scale SJF runs and their Near-Opt replays, the DM / WS p99.9 gap, and
each one-change arm, and the replay scenarios the DAS arms of lowprio.py build too. Split from
lowprio.py by concept; the arms' names, runs and output are unchanged."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np

from dcnsim.papers import framework as fw
from dcnsim.papers import lowprio as L

# ---------------------------------------------------------------------------------------------
# replays (the DAS arms of lowprio.py build them too)


def replay_low(tcp: Any, preset: str, **changes: Any) -> dict[str, Any]:
    """The TCP run's exact flows (like the reproduction's Near-Opt replay), the low-priority
    ones over the study's TCP with ``changes``, the high-priority ones over the preset's TCP."""
    sc = L._replay(tcp, preset)
    del sc["transports"]["nearopt"]
    sc["transports"]["low"] = {**L.LPF_TCP, **changes}
    sc["classes"][1]["transport"] = "low"
    sc["name"] = f"{preset}_low_replay"
    return sc


def without_high(sc: dict[str, Any]) -> dict[str, Any]:
    """A replay scenario without its high-priority flows (the low class alone, same flows)."""
    sc = {**sc, "classes": [c for c in sc["classes"] if c["priority"] != 0]}
    sc["name"] = f"{sc['name']}_nohigh"
    return sc


# ---------------------------------------------------------------------------------------------
# LPF-Fig3c


#: LPF-Fig3c compares its data-mining gap with Fig 3b's web search.
SJF_CDFS = ("websearch", "datamining_vl2")


def _p999_ratio(a: np.ndarray) -> float:
    f = L.STATS["p99.9"]
    return f(a[:, 0]) / f(a[:, 1])


def _p999_gap(a: np.ndarray, b: np.ndarray) -> float:
    """(TCP / Near-Opt at p99.9 of a) ÷ (the same of b): LPF-Fig3c's DM / WS gap."""
    f = L.STATS["p99.9"]
    return (f(a[:, 0]) / f(a[:, 1])) / (f(b[:, 0]) / f(b[:, 1]))


def _matched(tcp: list, no: list) -> list[np.ndarray]:
    """Per seed: [TCP FCT, Near-Opt FCT, size, TCP finish, Near-Opt finish, run end] of the
    low-priority flows completed in both runs (as :func:`dcnsim.papers.lowprio.pairs`)."""
    key = ["src", "dst", "size", "start_s"]
    cols = ["fct_s", "finish_s", "completed"]
    out = []
    for t, b in zip(tcp, no, strict=True):
        m = L._low(t)[[*key, *cols]].merge(L._low(b)[[*key, *cols]], on=key, suffixes=("_t", "_n"))
        m = m[m["completed_t"].astype(bool) & m["completed_n"].astype(bool)]
        end = fw_duration(t)
        v = m[["fct_s_t", "fct_s_n", "size", "finish_s_t", "finish_s_n"]].to_numpy(dtype=float)
        out.append(np.column_stack([v, np.full(len(v), end)]))
    return out


def fw_duration(res: Any) -> float:
    """The run's configured duration (s); the saved scenario writes it as e.g. "1500ms"."""
    d = str(res.scenario["run"]["duration"])
    for unit, k in (("ps", 1e-12), ("ns", 1e-9), ("us", 1e-6), ("ms", 1e-3), ("s", 1.0)):
        if d.endswith(unit):
            return float(d[: -len(unit)]) * k
    raise ValueError(f"run.duration {d!r}")


def _sjf_full(pool: fw.Pool, loads: tuple[float, ...]) -> dict[tuple[str, float], list]:
    """The reproduction's full-scale SJF runs of both workloads at `loads` (seeds 1-3) and
    their Near-Opt replays, matched per seed as :func:`_matched` does."""
    c = SimpleNamespace(scale=L.FULL, seeds=L.FULL.seeds)
    pts = [(cdf, ld) for ld in loads for cdf in ("websearch", "datamining_vl2")]
    for cdf, ld in pts:
        for s in c.seeds:
            pool.add((cdf, ld, s), "lpf_sjf", L._sjf_ov(c, cdf, ld), s)
    pool.run()
    for cdf, ld in pts:
        for s in c.seeds:
            pool.add((cdf, ld, "no", s), L._replay(pool.get((cdf, ld, s)), "lpf_sjf"), {}, s)
    pool.run()
    return {
        (cdf, ld): _matched(
            [pool.get((cdf, ld, s)) for s in c.seeds],
            [pool.get((cdf, ld, "no", s)) for s in c.seeds],
        )
        for cdf, ld in pts
    }


def sjf_sizes(pool: fw.Pool) -> None:
    """LPF-Fig3c at high load, full scale: the DM / WS p99.9 gap over all flows (the
    reproduction's statistic), with the data-mining flows restricted to sizes web search also
    has (<= 30 MB) or <= 100 MB, and over the flows that finished by the end of the run (what
    a run with run.horizon = run.duration would count: the simulation before the horizon does
    not depend on it)."""
    load = L.SJF_LOADS[-1][1]
    m = _sjf_full(pool, (load,))
    ws, dm = m["websearch", load], m["datamining_vl2", load]
    print(f"SJF high load ({load:.0%}), full scale, seeds {L.FULL.seeds}:", flush=True)
    for label, keep in (
        ("all flows (the reproduction)", lambda a: a),
        ("DM <= 30 MB (web search's largest)", lambda a: a[a[:, 2] <= 30e6]),
        ("DM <= 100 MB", lambda a: a[a[:, 2] <= 100e6]),
    ):
        d = [keep(a) for a in dm]
        dmr = fw.bootstrap(_p999_ratio, d)
        print(
            f"  {label}: DM p99.9 ratio {dmr}, DM / WS gap {fw.bootstrap(_p999_gap, d, ws)}; "
            f"{sum(map(len, d))} DM flows"
        )
    done = [a[(a[:, 3] <= a[:, 5]) & (a[:, 4] <= a[:, 5])] for a in dm]
    wsd = [a[(a[:, 3] <= a[:, 5]) & (a[:, 4] <= a[:, 5])] for a in ws]
    print(
        f"  finished by the run's end (horizon = duration): DM / WS gap "
        f"{fw.bootstrap(_p999_gap, done, wsd)}; {sum(map(len, done))} DM flows"
    )
    top = np.concatenate(dm)
    top = top[top[:, 0] >= np.percentile(top[:, 0], 99.9)]
    print(
        f"  DM flows at or above TCP's p99.9 FCT: sizes {np.min(top[:, 2]) / 1e6:.0f}-"
        f"{np.max(top[:, 2]) / 1e6:.0f} MB, TCP {np.min(top[:, 0]):.2f}-{np.max(top[:, 0]):.2f} s"
    )


def sjf_reading(pool: fw.Pool) -> None:
    """LPF-Figs 3b/3c under two readings of "we normalize TCP's FCTs by the FCTs achieved
    using Near-Opt" (LPF §3), full scale, every load of both workloads: the percentile of
    TCP's FCTs ÷ the same percentile under Near-Opt (the reproduction's statistic) and the
    percentile of the per-flow ratios (each flow's TCP FCT ÷ its own Near-Opt FCT, the same
    flows matched as the reproduction matches them)."""
    m = _sjf_full(pool, tuple(ld for _, ld in L.SJF_LOADS))
    f999 = L.STATS["p99.9"]

    def per_flow(a: np.ndarray) -> float:
        return float(f999(a[:, 0] / a[:, 1]))

    print(f"SJF, full scale, seeds {L.FULL.seeds}: TCP / Near-Opt at p99.9", flush=True)
    for name, load in L.SJF_LOADS:
        for cdf in ("websearch", "datamining_vl2"):
            x = m[cdf, load]
            print(
                f"  {name} ({load:.0%}) {cdf}: ratio of percentiles "
                f"{fw.bootstrap(_p999_ratio, x)}, percentile of per-flow ratios "
                f"{fw.bootstrap(per_flow, x)}; {sum(map(len, x))} flows"
            )
        dm, ws = m["datamining_vl2", load], m["websearch", load]
        print(
            f"  {name}: DM / WS gap, ratio of percentiles {fw.bootstrap(_p999_gap, dm, ws)}, "
            f"per-flow {fw.bootstrap(lambda a, b: per_flow(a) / per_flow(b), dm, ws)}"
        )


#: The built-in VL2 data-mining CDF (LPF-Fig3c's workload).
DM_CDF = Path(__file__).resolve().parents[2] / "crates/dcnsim-workload/data/datamining_vl2.cdf"


def capped_cdf(src: Path, cap: float, dst: Path) -> Path:
    """``src`` conditioned on size <= ``cap`` (a point of the CDF): the points above dropped,
    the probabilities divided by the CDF at ``cap``."""
    pts = []
    for line in src.read_text().splitlines():
        line = line.split("#")[0].split()
        if line:
            pts.append((float(line[0]), float(line[1])))
    top = dict(pts)[cap]
    dst.parent.mkdir(parents=True, exist_ok=True)
    dst.write_text(
        f"# {src.name} conditioned on size <= {cap:.0f} B (tools/ablations/lowprio.py)\n"
        + "".join(f"{x:.0f} {p / top:.9f}\n" for x, p in pts if x <= cap)
    )
    return dst


def sjf_cap(pool: fw.Pool, runs_dir: Path) -> None:
    """LPF-Fig3c at high load with one change: the data-mining sizes conditioned on
    <= 100 MB (the 2% of flows of 0.1-1 GB removed; the load, and so the bytes, unchanged),
    against web search at the same scale (the reproduction's full-scale SJF run: 1.5 s,
    seeds 1-3)."""
    c = SimpleNamespace(scale=L.FULL, seeds=L.FULL.seeds)
    load = L.SJF_LOADS[-1][1]
    cdf = capped_cdf(DM_CDF, 100e6, runs_dir / "datamining_vl2_le100MB.cdf")
    arms = {
        "websearch": L._sjf_ov(c, "websearch", load),
        "DM <= 100 MB": {
            **L._sjf_ov(c, "datamining_vl2", load),
            **L._window(L.FULL.sjf_s),
            "classes[0].workload.sizes": {"cdf_file": str(cdf)},
        },
    }
    for name, ov in arms.items():
        for s in c.seeds:
            pool.add((name, s), "lpf_sjf", ov, s)
    pool.run()
    for name in arms:
        for s in c.seeds:
            pool.add((name, "no", s), L._replay(pool.get((name, s)), "lpf_sjf"), {}, s)
    pool.run()
    p = {
        n: L.pairs(*[[pool.get((n, *k, s)) for s in c.seeds] for k in ((), ("no",))]) for n in arms
    }
    print(f"SJF high load ({load:.0%}), {L.FULL.sjf_s:g} s, seeds {c.seeds}:", flush=True)
    for n, v in p.items():
        print(f"  {n}: TCP / Near-Opt p99.9 {fw.bootstrap(_p999_ratio, v)}; {L.n_of(v)} flows")
    gap = fw.bootstrap(_p999_gap, p["DM <= 100 MB"], p["websearch"])
    print(f"  DM (<= 100 MB) / WS p99.9 gap {gap}")


def sjf_horizon(pool: fw.Pool, seeds: tuple[int, ...]) -> None:
    """LPF-Fig3c at high load with one change: when the run stops. Data mining and web search
    run D s (1.5, 3, 6: the arrivals of D s, with the reproduction's 5% warm-up and cool-down)
    and either go on until every flow has finished (run.horizon = 10 D, the reproduction's
    rule) or stop at D (run.horizon = run.duration: a flow unfinished by then is not counted,
    in TCP's run or in its Near-Opt replay). The 0.1-1 GB flows that set the full runs' DM
    p99.9 take seconds there (TCP 6.6-7.9 s), so a run that stops at its end may count
    fewer of them: the question this answers."""
    c = SimpleNamespace(scale=L.FULL, seeds=seeds)
    load = L.SJF_LOADS[-1][1]
    arms: dict[str, dict[str, Any]] = {}
    for dur in (1.5, 3.0, 6.0):
        for cdf in ("websearch", "datamining_vl2"):
            base = {**L._sjf_ov(c, cdf, load), **L._window(dur)}
            arms[f"{cdf} {dur:g} s, to the end"] = base
            arms[f"{cdf} {dur:g} s, stopped"] = {**base, "run.horizon": f"{dur:g}s"}
    for name, ov in arms.items():
        for s in seeds:
            pool.add((name, s), "lpf_sjf", ov, s)
    pool.run()
    for name in arms:
        for s in seeds:
            pool.add((name, "no", s), L._replay(pool.get((name, s)), "lpf_sjf"), {}, s)
    pool.run()
    m = {
        n: _matched([pool.get((n, s)) for s in seeds], [pool.get((n, "no", s)) for s in seeds])
        for n in arms
    }
    print(f"SJF high load ({load:.0%}), seeds {seeds}: TCP / Near-Opt at p99.9", flush=True)
    for dur in (1.5, 3.0, 6.0):
        for how in ("to the end", "stopped"):
            ws, dm = m[f"websearch {dur:g} s, {how}"], m[f"datamining_vl2 {dur:g} s, {how}"]
            big = max(float(np.max(a[:, 2])) for a in dm if len(a))
            print(
                f"  {dur:g} s, {how}: DM {fw.bootstrap(_p999_ratio, dm)} "
                f"({sum(map(len, dm))} flows, largest {big / 1e6:.0f} MB), WS "
                f"{fw.bootstrap(_p999_ratio, ws)} ({sum(map(len, ws))} flows), DM / WS gap "
                f"{fw.bootstrap(_p999_gap, dm, ws)}",
                flush=True,
            )


def _sjf_replayed(
    pool: fw.Pool, label: str, no_of: Callable[[Any], dict], tcp_of: Callable | None = None
) -> None:
    """LPF-Fig3c at high load, full scale (seeds 1-3): the reproduction's runs beside one
    change made in their replays. ``no_of(run)`` is the changed Near-Opt replay of a TCP run,
    ``tcp_of(run)`` the changed TCP replay (None: the TCP run itself). Prints both workloads'
    TCP / Near-Opt p99.9 and the DM / WS gap, the preset's first."""
    load = L.SJF_LOADS[-1][1]
    m = _sjf_full(pool, (load,))
    for cdf in SJF_CDFS:
        for s in L.FULL.seeds:
            run = pool.get((cdf, load, s))
            if tcp_of is not None:
                pool.add((cdf, label, "tcp", s), tcp_of(run), {}, s)
            pool.add((cdf, label, "no", s), no_of(run), {}, s)
    pool.run()
    tcp_key = (lambda c, s: (c, label, "tcp", s)) if tcp_of else (lambda c, s: (c, load, s))
    arms = {"preset": {c: m[c, load] for c in SJF_CDFS}}
    arms[label] = {
        c: _matched(
            [pool.get(tcp_key(c, s)) for s in L.FULL.seeds],
            [pool.get((c, label, "no", s)) for s in L.FULL.seeds],
        )
        for c in SJF_CDFS
    }
    print(f"SJF high load ({load:.0%}), full scale, seeds {L.FULL.seeds}: TCP / Near-Opt p99.9")
    for name, x in arms.items():
        ws, dm = x["websearch"], x["datamining_vl2"]
        print(
            f"  {name}: DM {fw.bootstrap(_p999_ratio, dm)}, WS {fw.bootstrap(_p999_ratio, ws)}, "
            f"DM / WS gap {fw.bootstrap(_p999_gap, dm, ws)}",
            flush=True,
        )


def sjf_share(pool: fw.Pool) -> None:
    """LPF-Fig3c at high load with one change of the baseline: Near-Opt divides a link's
    available rate max-min fairly (``nearopt_share = "max_min"``, the share LPF's prose names)
    instead of by the flow count (the printed rule the reproduction keeps). Only the Near-Opt
    replays change."""

    def no_of(run: Any) -> dict:
        sc = L._replay(run, "lpf_sjf")
        sc["transports"]["nearopt"]["nearopt_share"] = "max_min"
        return sc

    _sjf_replayed(pool, "Near-Opt share max_min", no_of)


def _sjf_both_changed(pool: fw.Pool, label: str, change: Callable[[dict], dict]) -> None:
    """:func:`_sjf_replayed` with one ``change`` made to the TCP replay and the Near-Opt
    replay alike."""
    _sjf_replayed(
        pool,
        label,
        lambda run: change(L._replay(run, "lpf_sjf")),
        lambda run: change(replay_low(run, "lpf_sjf")),
    )


def sjf_nohigh(pool: fw.Pool) -> None:
    """LPF-Fig3c at high load with one change: the reproduction's runs replayed without their
    high-priority (< 1 MB) flows, TCP and Near-Opt alike: how much of each workload's gap the
    high class makes."""
    _sjf_both_changed(pool, "without the high class", without_high)


def sjf_lossless(pool: fw.Pool) -> None:
    """LPF-Fig3c at high load with one change: the low-priority queue 64 KB -> 100 MB (as
    fig3a-lossless), in the TCP replay and the Near-Opt replay alike, so no low-priority
    packet is dropped: how much of each workload's gap the low queue's losses make."""

    def lossless(sc: dict[str, Any]) -> dict[str, Any]:
        sc["switch"]["queue_limit"] = ["128KB", "100MB"]
        sc["switch"]["port_limit"] = "100128KB"
        return sc

    _sjf_both_changed(pool, "low queue 100 MB", lossless)


def sjf_driver(pool: fw.Pool) -> None:
    """LPF-Fig3c at high load with one change: a 100-packet FIFO driver queue below every
    switch port's class queues (as fig3a-driver), in the TCP replay and the Near-Opt replay
    alike."""

    def driver(sc: dict[str, Any]) -> dict[str, Any]:
        sc["switch"]["driver_queue"] = 100
        return sc

    _sjf_both_changed(pool, "switch driver queue 100", driver)


def sjf_profile(pool: fw.Pool) -> None:
    """LPF-Fig3c at high load with one change of the low-priority TCP: the defaults LPF does
    not state taken from ns-3 (its simulator) or Linux, LPF's own keys kept (as
    fig3a-profile). The Near-Opt replays are the reproduction's."""
    for prof in ("ns3", "linux"):
        _sjf_replayed(
            pool,
            f"low TCP profile {prof}",
            lambda run: L._replay(run, "lpf_sjf"),
            lambda run, prof=prof: replay_low(run, "lpf_sjf", profile=prof),
        )


def sjf_load(pool: fw.Pool) -> None:
    """LPF-Fig3c with one change: the high load (the paper says only "> 40%"; the
    reproduction's 50% is a choice). Both workloads at 40, 50, 60 and 70%, full scale as the
    reproduction builds them (data mining sized for 5,000 low-priority flows at 50%, the high
    load it judges; 1.5 s at the others), seeds 1-3."""
    loads = (0.4, 0.5, 0.6, 0.7)
    m = _sjf_full(pool, loads)
    print(f"SJF, full scale, seeds {L.FULL.seeds}: TCP / Near-Opt at p99.9", flush=True)
    for ld in loads:
        ws, dm = m["websearch", ld], m["datamining_vl2", ld]
        print(
            f"  {ld:.0%}: DM {fw.bootstrap(_p999_ratio, dm)} ({sum(map(len, dm))} flows), WS "
            f"{fw.bootstrap(_p999_ratio, ws)}, DM / WS gap {fw.bootstrap(_p999_gap, dm, ws)}",
            flush=True,
        )
