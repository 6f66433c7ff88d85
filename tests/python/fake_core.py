"""A stand-in for the Rust extension ``dcnsim._core`` implementing the same contract.

Used by the Python tests (in-process via monkeypatch, or in subprocesses via
``DCNSIM_CORE=fake_core`` with this directory on ``PYTHONPATH``). Its schema is a small
imitation of the real one; the numbers it returns are synthetic but deterministic in the seed
and the scenario.
"""

from __future__ import annotations

import copy
import hashlib
import json
import math
import os
import time
from pathlib import Path
from typing import Any

import numpy as np

__version__ = "0.0.0-fake"


class ConfigError(ValueError):
    def __init__(self, message: str, path: str) -> None:
        super().__init__(message, path)
        self.message = message
        self.path = path


_DEFAULTS: dict[str, Any] = {
    "name": "default",
    "seed": 1,
    "topology": {
        "kind": "leaf_spine",
        "leaves": 2,
        "spines": 2,
        "hosts_per_leaf": 4,
        "host_link_gbps": 10.0,
        "link_delay_us": 1.0,
    },
    "run": {
        "duration_s": 0.01,
        "warmup_s": 0.001,
        "cooldown_s": 0.001,
        "horizon_s": 0.1,
    },
    "classes": [
        {
            "name": "web",
            "queue": 0,
            "cc": "dctcp",
            "workload": {"kind": "poisson", "cdf": "websearch", "load": 0.5},
        }
    ],
    "outputs": {"samples": False},
}
_CLASS_TEMPLATE = _DEFAULTS["classes"][0]


def defaults() -> str:
    return json.dumps(_DEFAULTS)


def _path(prefix: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{prefix}[{key}]"
    return f"{prefix}.{key}" if prefix else key


def _check(value: Any, template: Any, path: str) -> Any:
    if isinstance(template, dict):
        if not isinstance(value, dict):
            raise ConfigError("expected a table", path or "scenario")
        out = copy.deepcopy(template)
        for k, v in value.items():
            if k not in template:
                raise ConfigError(
                    f"unknown key {k!r}; expected one of {sorted(template)}", _path(path, k)
                )
            out[k] = _check(v, template[k], _path(path, k))
        return out
    if isinstance(template, list):
        if not isinstance(value, list):
            raise ConfigError("expected an array", path)
        if not value:
            raise ConfigError("expected at least one entry", path)
        return [_check(v, _CLASS_TEMPLATE, _path(path, i)) for i, v in enumerate(value)]
    if isinstance(template, bool):
        if not isinstance(value, bool):
            raise ConfigError("expected true or false", path)
        return value
    if isinstance(template, int):
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError("expected an integer", path)
        if value < 0:
            raise ConfigError("expected a non-negative integer", path)
        return value
    if isinstance(template, float):
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ConfigError("expected a number", path)
        if value < 0 or math.isnan(value):
            raise ConfigError("expected a non-negative number", path)
        return float(value)
    if isinstance(template, str):
        if not isinstance(value, str):
            raise ConfigError("expected a string", path)
        return value
    raise AssertionError(path)


def _validate(scenario: dict[str, Any]) -> dict[str, Any]:
    out = _check(scenario, _DEFAULTS, "")
    for i, c in enumerate(out["classes"]):
        load = c["workload"]["load"]
        if not 0 < load <= 1:
            raise ConfigError("expected a load in (0, 1]", f"classes[{i}].workload.load")
        if c["workload"]["cdf"] not in builtin_cdfs():
            raise ConfigError("unknown CDF", f"classes[{i}].workload.cdf")
    if out["topology"]["leaves"] < 1:
        raise ConfigError("expected at least 1 leaf", "topology.leaves")
    return out


def validate(scenario_json: str) -> str:
    return json.dumps(_validate(json.loads(scenario_json)))


def builtin_cdfs() -> list[str]:
    return ["datamining_pias", "websearch"]


def _announce_and_linger() -> None:
    """With ``FAKE_CORE_PIDS=DIR``: write this process's pid into DIR (a file per run) and take
    ``FAKE_CORE_SECONDS`` (default 0.5 s), so a test can kill the worker mid-run."""
    where = os.environ.get("FAKE_CORE_PIDS")
    if not where:
        return
    (Path(where) / f"{os.getpid()}-{time.monotonic_ns()}").write_text(str(os.getpid()))
    time.sleep(float(os.environ.get("FAKE_CORE_SECONDS", "0.5")))


def run(scenario_json: str, progress: Any = None, progress_interval_s: float = 0.2) -> dict:
    _announce_and_linger()
    sc = _validate(json.loads(scenario_json))
    seed = sc["seed"]
    digest = hashlib.sha256(json.dumps(sc, sort_keys=True).encode()).digest()
    rng = np.random.default_rng([seed, int.from_bytes(digest[:8], "little")])
    topo = sc["topology"]
    hosts = topo["leaves"] * topo["hosts_per_leaf"]
    rate = topo["host_link_gbps"] * 1e9 / 8
    horizon = sc["run"]["horizon_s"]
    duration = sc["run"]["duration_s"]
    n_per_class = 40
    flows: dict[str, list] = {
        k: []
        for k in [
            "flow_id",
            "class_id",
            "class",
            "src",
            "dst",
            "size",
            "start_s",
            "finish_s",
            "fct_s",
            "ideal_fct_s",
            "slowdown",
            "completed",
            "in_window",
            "sender_done_s",
            "deadline_s",
            "data_pkts",
            "retx_pkts",
            "fast_retx",
            "rto_count",
            "spurious_rto",
            "spurious_retx",
            "ecn_marks",
            "max_cwnd",
            "max_pkt_drops",
            "tag",
        ]
    }
    fid = 0
    wall0 = time.perf_counter()
    total = n_per_class * len(sc["classes"])
    for ci, cls in enumerate(sc["classes"]):
        load = cls["workload"]["load"]
        for _ in range(n_per_class):
            size = int(rng.choice([1_000, 5_000, 50_000, 500_000, 3_000_000]))
            start = float(rng.uniform(0, duration))
            ideal = size / rate + 4e-6
            slow = 1.0 + float(rng.exponential(2.0 * load))
            done = bool(rng.random() > 0.05)
            fct = ideal * slow if done else math.nan
            src = int(rng.integers(hosts))
            dst = int((src + 1 + rng.integers(hosts - 1)) % hosts)
            row = {
                "flow_id": fid,
                "class_id": ci,
                "class": cls["name"],
                "src": src,
                "dst": dst,
                "size": size,
                "start_s": start,
                "finish_s": start + fct,
                "fct_s": fct,
                "ideal_fct_s": ideal,
                "slowdown": slow if done else math.nan,
                "completed": done,
                "in_window": sc["run"]["warmup_s"] <= start < duration - sc["run"]["cooldown_s"],
                "sender_done_s": start + fct if done else math.nan,
                "deadline_s": math.nan,
                "data_pkts": -(-size // 1460),
                "retx_pkts": 0,
                "fast_retx": 0,
                "rto_count": 0,
                "spurious_rto": 0,
                "spurious_retx": 0,
                "ecn_marks": int(rng.integers(5)),
                "max_cwnd": 14600,
                "max_pkt_drops": 0,
                "tag": 0,
            }
            for k, v in row.items():
                flows[k].append(v)
            fid += 1
            if progress is not None and fid % 20 == 0:
                progress(horizon * fid / total, horizon, fid, total)
    nodes = [f"h{i}" for i in range(hosts)] + [f"leaf{i}" for i in range(topo["leaves"])]
    queues: dict[str, list] = {
        k: []
        for k in [
            "node",
            "node_name",
            "port",
            "peer_name",
            "queue",
            "pkts_in",
            "bytes_in",
            "pkts_out",
            "bytes_out",
            "drops",
            "drops_static",
            "drops_shared",
            "drops_port",
            "drops_scheme",
            "ecn_marks",
            "max_bytes",
            "max_pkts",
            "busy_s",
        ]
    }
    for n, name in enumerate(nodes):
        pk = int(rng.integers(100, 1000))
        drops = int(rng.integers(3))
        for k, v in {
            "node": n,
            "node_name": name,
            "port": 0,
            "peer_name": "x",
            "queue": 0,
            "pkts_in": pk,
            "bytes_in": pk * 1500,
            "pkts_out": pk - drops,
            "bytes_out": (pk - drops) * 1500,
            "drops": drops,
            "drops_static": 0,
            "drops_shared": drops,
            "drops_port": 0,
            "drops_scheme": 0,
            "ecn_marks": 3,
            "max_bytes": 30000,
            "max_pkts": 20,
            "busy_s": float(pk * 1500 / rate),
        }.items():
            queues[k].append(v)
    samples: dict[str, list] = {}
    if sc["outputs"]["samples"]:
        t = np.linspace(0, duration, 50)
        samples = {
            "t_s": t.tolist(),
            "node": [hosts] * 50,
            "port": [0] * 50,
            "queue": [0] * 50,
            "bytes": rng.integers(0, 30000, 50).tolist(),
        }
    completed = sum(flows["completed"])
    return {
        "flows": flows,
        "queues": queues,
        "samples": samples,
        "meta": {
            "seed": seed,
            "version": __version__,
            "events": 1000 * fid,
            "packet_hops": 500 * fid,
            "sim_time_s": horizon,
            "wall_s": time.perf_counter() - wall0,
            "flows_total": fid,
            "flows_completed": completed,
            "flows_in_window": sum(flows["in_window"]),
            "scenario_name": sc["name"],
            "classes": [c["name"] for c in sc["classes"]],
            "warnings": [],
        },
    }


def bench_names() -> list[str]:
    return ["tiny", "small"]


def bench(name: str) -> dict:
    if name not in bench_names():
        raise ConfigError(f"unknown benchmark; expected one of {bench_names()}", "bench")
    t0 = time.perf_counter()
    _ = sum(range(10_000))
    wall = max(time.perf_counter() - t0, 1e-6)
    return {
        "name": name,
        "events": 10_000,
        "packet_hops": 5_000,
        "sim_time_s": 0.01,
        "wall_s": wall,
        "events_per_s": 10_000 / wall,
        "hops_per_s": 5_000 / wall,
    }
