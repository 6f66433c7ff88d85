"""Estimated cost of a run (for ordering a pool's work longest first): the bytes its
classes offer over its duration, read from the normalized scenario."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .sweep import SweepRun

_DUR_UNITS = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9, "ps": 1e-12}


def duration_secs(v: Any, default: float) -> float:
    """Seconds of a normalized duration (``"10ms"``), or ``default``."""
    if isinstance(v, (int, float)):
        return float(v)
    if isinstance(v, str):
        t = v.strip()
        for unit in ("ms", "us", "ns", "ps", "s"):
            if t.endswith(unit):
                try:
                    return float(t[: -len(unit)]) * _DUR_UNITS[unit]
                except ValueError:
                    return default
    return default


def _hosts(topo: Mapping[str, Any]) -> float:
    kind = topo.get("kind")
    try:
        if kind == "fat_tree":
            return float(topo.get("k", 4)) ** 3 / 4
        if kind == "leaf_spine":
            return float(topo.get("leaves", 1)) * float(topo.get("hosts_per_leaf", 1))
        if kind == "star":
            return float(topo.get("hosts", 2))
        if kind == "explicit":
            return float(len(topo.get("hosts", []) or [])) or 2.0
    except (TypeError, ValueError):
        pass
    return 2.0


_SI = {"": 1.0, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}


def _quantity(v: Any, unit: str) -> float | None:
    """``"10Gbps"`` (unit ``bps``) or ``"500KB"`` (unit ``B``) as a number; None if not one."""
    if isinstance(v, (int, float)):
        return float(v)
    if not isinstance(v, str) or not v.endswith(unit):
        return None
    t = v[: -len(unit)].strip()
    k: float | None = 1.0
    if t and t[-1].isalpha():
        k, t = _SI.get(t[-1].upper()), t[:-1]
    if k is None:
        return None
    try:
        return float(t) * k
    except ValueError:
        return None


def _host_rate(topo: Mapping[str, Any]) -> float:
    """A host link's rate (bits/s) of a normalized topology (10 Gb/s if it names none)."""
    for k in ("host_link", "link"):
        x = _quantity((topo.get(k) or {}).get("rate"), "bps")
        if x:
            return x
    return 10e9


def _mean_size(spec: Any, default: float) -> float:
    """Mean bytes of a size spec when it says (``fixed`` or ``uniform``), else ``default``."""
    if not isinstance(spec, Mapping):
        return default
    if (x := _quantity(spec.get("fixed"), "B")) is not None:
        return x
    u = spec.get("uniform")
    if isinstance(u, list) and len(u) == 2:
        a, b = _quantity(u[0], "B"), _quantity(u[1], "B")
        if a is not None and b is not None:
            return (a + b) / 2
    return default


def _class_bytes(w: Mapping[str, Any], dur: float, hosts: float, rate: float) -> float:
    """Bytes a class offers over ``dur`` seconds (an estimate: its packets, and so its
    events, scale with them)."""
    kind = w.get("kind")
    load = w.get("load")
    if kind == "flows":
        return sum(_quantity(f.get("size"), "B") or 0.0 for f in w.get("list") or []) or (
            hosts * rate / 8 * dur
        )
    if kind == "incast":
        if isinstance(load, (int, float)):  # Poisson rounds at `load` of the receiver link
            return float(load) * rate / 8 * dur
        per_round = (
            float(w.get("fan_in") or 1)
            * float(w.get("flows_per_sender") or 1)
            * _mean_size(w.get("bytes_per_sender"), 64e3)
        )
        period = duration_secs(w.get("period"), 0.0)
        return per_round * (max(1.0, dur / period) if period > 0 else 1.0)
    if isinstance(load, (int, float)):
        basis = w.get("load_basis")
        if basis == "bisection" and (b := _quantity(w.get("bisection"), "bps")):
            return float(load) * b / 8 * dur
        n = len(w.get("senders") or []) or hosts
        return float(load) * n * rate / 8 * dur
    return hosts * rate / 8 * dur  # permutations and the like: taken as saturating


def run_cost(run: SweepRun) -> float:
    """A run's estimated cost (arbitrary units, for ordering only): the bytes its classes and
    open-loop sources offer over ``run.duration``, which its packets and events follow. A
    Poisson class offers ``load`` of its basis (every host link, its senders' links, or the
    stated bisection), an incast its rounds (or ``load`` of the receiver link), a list its
    flows; a class that states none of these is taken as saturating every host link, an
    open-loop source as saturating one. (The horizon only caps stragglers: a run normally
    ends soon after its duration.)"""
    n = run.prepared.normalized
    r = n.get("run", {}) or {}
    dur = duration_secs(r.get("duration"), 0.01)
    topo = n.get("topology", {}) or {}
    hosts, rate = _hosts(topo), _host_rate(topo)
    total = sum(
        _class_bytes(c.get("workload", {}) or {}, dur, hosts, rate)
        for c in n.get("classes", []) or []
    )
    total += len(n.get("sources", []) or []) * rate / 8 * dur
    return max(total, 1e-3 * hosts * rate / 8 * dur)
