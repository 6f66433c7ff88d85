"""A seeded mutation fuzzer over the whole ``dcnsim.validate`` path (Python loading, the JSON
hand-over, the Rust parser, validation and the build with its resource estimate).

Each case takes a shipped scenario (or a small built-in one), applies one to three random
mutations (a value replaced by a hostile one — huge, negative, NaN, a wrong type, a unit in
bits, a non-ASCII name, a date, a deep nesting —, a key deleted or added, a list entry
duplicated, a table turned into a list) and validates it. A case passes if it is accepted or
raises :class:`dcnsim.ConfigError` whose key path names a key present in the input (or the
table in which a required key is missing). Anything else is a failure: another exception
(``RuntimeError`` for a Rust panic, ``TypeError``, ``RecursionError``, ...), a hang (no answer
within ``--timeout`` seconds) or an abort (the worker process died, e.g. on an allocation
failure or the kernel's OOM killer).

Workers run under an address-space limit (``--mem-mb``), so unbounded memory shows up as an
abort, and report their peak RSS. Reproduce a campaign with::

    python tests/python/fuzz_scenarios.py --cases 10000 --seed 1

The same case list comes out of the same ``--seed``; a failing case prints its index, and
``--only INDEX`` re-runs it alone and prints the mutated scenario.

``--plausible`` fuzzes the simulator rather than the validator: the seed scenarios are also
every paper reproduction's reduced-scale scenarios (:func:`paper_corpus`), and each mutation
keeps a value's type and rough magnitude (a number scaled or nudged, a unit kept, a kind
swapped for one seen at the same key, a table taken from another scenario at the same path),
so most cases validate and, with ``--run``, run. The pass rule is the same.
"""

from __future__ import annotations

import argparse
import copy
import datetime
import json
import os
import random
import re
import resource
import select
import subprocess
import sys
import time
from typing import Any

HOSTILE: list[Any] = [
    0,
    -1,
    1,
    2,
    255,
    256,
    65535,
    65536,
    2**31,
    2**32 - 6,  # valid u32s whose sums wrap (packet.ip_header once did)
    2**32 - 1,
    2**32,
    2**32 + 1,
    2**53 + 1,
    2**63,
    2**64 - 1,
    2**64,
    10**30,
    1e9,
    1e30,
    -1e30,
    1.5,
    0.5,
    1e-30,
    float("nan"),
    float("inf"),
    float("-inf"),
    True,
    False,
    "",
    "x",
    "é1",
    "h0",
    "s0",
    "ñ",
    "10Kb",
    "10KB",
    "1e20pkt",
    "1.5pkt",
    "0s",
    "1ps",
    "1e30s",
    "-5us",
    "1e30bps",
    "10Gbps",
    "64KB",
    "65pkt",
    "1e30",
    "nan",
    "NaN KB",
    "x" * 100_000,  # a 100 kB string (a name labels every result row; errors echo values)
    "a\0b",
    [],
    {},
    [1, 2],
    [0, 0],
    [[]],
    {"kind": "x"},
    {"kind": 1},
    datetime.date(2024, 1, 1),
    datetime.datetime(2024, 1, 1, 12, 0),
    datetime.time(12, 0),
]

#: Small scenarios exercising kinds the shipped ones do not.
EXTRA: list[dict[str, Any]] = [
    {
        "topology": {
            "kind": "explicit",
            "hosts": 2,
            "switches": 1,
            "links": [
                {"a": "h0", "b": "s0", "rate": "10Gbps", "delay": "1us"},
                {"a": "h1", "b": "s0", "rate": "10Gbps", "delay": "1us"},
            ],
        },
        "classes": [
            {
                "name": "a",
                "workload": {
                    "kind": "flows",
                    "list": [{"src": 0, "dst": 1, "size": "10KB", "start": 0}],
                },
            }
        ],
        "run": {"duration": "1ms"},
    },
    {
        "topology": {"kind": "fat_tree", "k": 4, "link": {"rate": "10Gbps", "delay": "1us"}},
        "classes": [
            {
                "name": "a",
                "workload": {
                    "kind": "poisson",
                    "load": 0.3,
                    "sizes": {"uniform": [1000, 20000]},
                    "senders": [0, 1, 2],
                    "receivers": [3, 4],
                },
            },
            {"name": "b", "workload": {"kind": "permutation", "size": "100KB"}},
        ],
        "sources": [{"src": 0, "dst": 5, "rate": "1Gbps"}],
        "output": {"queue_sample_interval": "10us", "trace_flows": [0]},
        "scheme": {"kind": "pias", "thresholds": ["10KB", "100KB"]},
        "run": {"duration": "2ms"},
    },
]


def corpus(plausible: bool = False) -> list[dict[str, Any]]:
    """The seed scenarios: every shipped scenario, raw (as a user would start from it); with
    ``plausible``, also the paper reproductions' scenarios."""
    from dcnsim import config

    out = [config.load_scenario(n) for n in config.shipped_scenarios()]
    out += copy.deepcopy(EXTRA)
    if plausible:
        out += paper_corpus()
    return out


#: How many scenarios :func:`paper_corpus` takes from each reproduction.
PER_PAPER = 24


def paper_corpus(per_paper: int = PER_PAPER) -> list[dict[str, Any]]:
    """Up to ``per_paper`` distinct scenarios of each paper reproduction's reduced scale, as
    its first planning phase asks for them (the raw scenario with the run's overrides and
    seed applied; nothing is simulated). Chosen by their configuration hash, so the same
    ones come out on every call."""
    from pathlib import Path

    from dcnsim import papers
    from dcnsim.papers import framework as fw

    out: list[dict[str, Any]] = []
    for name in papers.available():
        repro = papers.get(name).REPRO
        scale = repro.scales.get("reduced") or next(iter(repro.scales.values()))
        # The pool only records what is asked for: its directory is never created.
        ctx = fw.Ctx(fw.Pool(Path("/nonexistent-fuzz-pool"), None, False), scale, {})
        for f in repro.figures:
            if f.plan:
                f.plan[0](ctx)
        by_hash = {r.hash: r.prepared.raw for r in ctx.pool.pending.values()}
        hashes = sorted(by_hash)
        step = max(1, len(hashes) // per_paper)
        out += [copy.deepcopy(by_hash[h]) for h in hashes[::step][:per_paper]]
    return out


#: How deep :func:`_paths` looks for a key to mutate. A value nested deeper than this is
#: already one of the hostile values (:func:`_deep`); walking it by recursion would exhaust
#: Python's stack when a later mutation of the same case picks a path inside it.
MAX_PATH_DEPTH = 64


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if len(prefix) >= MAX_PATH_DEPTH:
        return out
    if isinstance(node, dict):
        for k, v in node.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _paths(v, (*prefix, i))
    return out


def _get(node: Any, path: tuple[Any, ...]) -> Any:
    for t in path:
        node = node[t]
    return node


def _deep(depth: int) -> Any:
    v: Any = 1
    for i in range(depth):
        v = [v] if i % 2 else {"a": v}
    return v


def _tweak(v: Any, rng: random.Random) -> Any:
    """A value near ``v`` but hostile: scaled numbers, numbers with changed units."""
    if isinstance(v, bool):
        return rng.choice([not v, 1, "true"])
    if isinstance(v, int | float):
        return rng.choice([v * 1000, v * 1e9, -v, v + 0.5, v * 2**32, 2**64 - v, float(v)])
    if isinstance(v, str):
        num = "".join(c for c in v if c.isdigit() or c in ".e")
        unit = v[len(num) :] if v.startswith(num) else ""
        return rng.choice(
            [
                v.lower(),
                v.upper(),
                v + v,
                f"{num}e30{unit}",
                f"-{v}",
                f"{num}{unit[:-1]}b" if unit else v + "b",
                v[1:],
                v.replace("0", "٠"),
            ]
        )
    return rng.choice(HOSTILE)


def mutate(sc: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    sc = copy.deepcopy(sc)
    for _ in range(rng.randint(1, 3)):
        paths = [p for p in _paths(sc) if p]
        if not paths:
            sc = {"run": rng.choice(HOSTILE)}
            continue
        path = rng.choice(paths)
        parent = _get(sc, path[:-1])
        last = path[-1]
        op = rng.random()
        if op < 0.3:
            parent[last] = rng.choice(HOSTILE)
        elif op < 0.7:
            parent[last] = _tweak(parent[last], rng)
        elif op < 0.78:
            del parent[last]
        elif op < 0.84 and isinstance(parent, dict):
            parent[rng.choice(["bogus", "kind", "seed", "rate", "Load", "ｌoad"])] = rng.choice(
                HOSTILE
            )
        elif op < 0.9 and isinstance(parent, list):
            parent.insert(rng.randrange(len(parent) + 1), copy.deepcopy(parent[last]))
        elif op < 0.95:
            parent[last] = (
                [parent[last]]
                if rng.random() < 0.5
                else list(parent[last].values() if isinstance(parent[last], dict) else [])
            )
        else:
            parent[last] = _deep(rng.choice([40, 200, 600]))
            break  # nothing below walks a nesting that deep recursively
    return sc


def _shape(path: tuple[Any, ...]) -> tuple[Any, ...]:
    """A key path with its list indices erased: where values of one kind live."""
    return tuple("*" if isinstance(t, int) else t for t in path)


class Alphabet:
    """Every value the seed scenarios hold, by key-path shape: the kinds a ``kind`` key takes,
    the tables found at ``switch.pfc``, and so on. Plausible mutations draw from it."""

    def __init__(self, base: list[dict[str, Any]]) -> None:
        self.at: dict[tuple[Any, ...], list[Any]] = {}
        for sc in base:
            for path in _paths(sc):
                if path:
                    v = _get(sc, path)
                    seen = self.at.setdefault(_shape(path), [])
                    if len(seen) < 64 and v not in seen:
                        seen.append(v)

    def others(self, path: tuple[Any, ...]) -> list[Any]:
        return self.at.get(_shape(path), [])


_NUM_UNIT = re.compile(r"^(-?[0-9]*\.?[0-9]+(?:e-?[0-9]+)?)\s*([A-Za-z%]*)$")


def _near(v: Any, rng: random.Random) -> Any:
    """A plausible value near ``v``: the same type, unit and rough magnitude."""
    if isinstance(v, bool):
        return not v
    if isinstance(v, int):
        return max(0, rng.choice([v - 1, v + 1, v // 2, v * 2, v * 4, v // 4, 0, 1]))
    if isinstance(v, float):
        if 0.0 <= v <= 1.0:
            return rng.choice([0.0, 0.01, v / 2, min(1.0, v * 1.5), 0.99, 1.0])
        return rng.choice([v / 4, v / 2, v * 2, v * 4, 0.0])
    if isinstance(v, str) and (m := _NUM_UNIT.match(v)):
        num, unit = float(m.group(1)), m.group(2)
        x = num * rng.choice([0.0, 0.01, 0.25, 0.5, 2.0, 4.0, 16.0])
        return f"{x:g}{unit}"
    if isinstance(v, list) and v:
        v = copy.deepcopy(v)
        if rng.random() < 0.5:
            del v[rng.randrange(len(v))]
        else:
            v.insert(rng.randrange(len(v) + 1), copy.deepcopy(rng.choice(v)))
        return v
    return v


def plausible_mutate(sc: dict[str, Any], rng: random.Random, alphabet: Alphabet) -> dict[str, Any]:
    """One to three mutations that keep ``sc`` close to something a user would write."""
    sc = copy.deepcopy(sc)
    for _ in range(rng.randint(1, 3)):
        paths = [p for p in _paths(sc) if p]
        path = rng.choice(paths)
        parent = _get(sc, path[:-1])
        last = path[-1]
        op = rng.random()
        others = [o for o in alphabet.others(path) if o != parent[last]]
        if op < 0.35 and others:
            # another scenario's value at the same place: a kind, a unit, a whole table
            parent[last] = copy.deepcopy(rng.choice(others))
        elif op < 0.45 and isinstance(parent, dict):
            del parent[last]
        else:
            parent[last] = _near(parent[last], rng)
    return sc


def case(
    i: int,
    seed: int,
    base: list[dict[str, Any]],
    alphabet: Alphabet | None = None,
) -> dict[str, Any]:
    """Case ``i`` of campaign ``seed``: its own random stream, so a worker builds only the
    cases it runs (building all of a 20,000-case campaign first took longer than the hang
    timeout) and case ``i`` is the same in any campaign of that seed. With ``alphabet``,
    a plausible mutation (``--plausible``)."""
    rng = random.Random(f"{seed}:{i}")
    if alphabet is not None:
        return plausible_mutate(rng.choice(base), rng, alphabet)
    return mutate(rng.choice(base), rng)


def cases(n: int, seed: int) -> list[dict[str, Any]]:
    base = corpus()
    return [case(i, seed, base) for i in range(n)]


def _tokens(path: str) -> list[Any]:
    out: list[Any] = []
    for part in path.replace("[", ".[").split("."):
        if not part:
            continue
        if part.startswith("[") and part.endswith("]") and part[1:-1].isdigit():
            out.append(int(part[1:-1]))
        else:
            out.append(part)
    return out


def _has(node: Any, toks: list[Any]) -> bool:
    for t in toks:
        if (isinstance(node, dict) and isinstance(t, str) and t in node) or (
            isinstance(node, list) and isinstance(t, int) and t < len(node)
        ):
            node = node[t]
        else:
            return False
    return True


def names_input_key(sc: dict[str, Any], path: str, message: str) -> bool:
    """Whether an error's key path names something the user wrote: the key itself, or (for a
    missing required key) the table that lacks it. ``scenario`` names the document."""
    if path == "scenario":
        return True
    toks = _tokens(path)
    if not toks:
        return False
    if _has(sc, toks):
        return True
    return "missing" in message and _has(sc, toks[:-1])


#: With ``--run``, accepted cases are also run, stopped after this many events.
RUN_EVENTS = 200_000


def check_case(sc: dict[str, Any], run: bool = False) -> tuple[str, str]:
    """Validate (and with ``run``, run a bounded prefix of) one case in this process:
    ("ok"|"config"|"badkey"|"exception", detail)."""
    import dcnsim

    try:
        dcnsim.validate(sc)
        if run:
            res = dcnsim.run(sc, set={"run.max_events": RUN_EVENTS}, progress=False)
            res.summary()
    except dcnsim.ConfigError as e:
        if not names_input_key(sc, e.path, e.message):
            return "badkey", f"{e.path}: {e.message}"
        return "config", e.path
    except Exception as e:
        return "exception", f"{type(e).__name__}: {e}"[:300]
    return "ok", ""


def worker(
    seed: int, start: int, count: int, total: int, run: bool = False, plausible: bool = False
) -> None:
    """Run cases [start, start + count) and print one JSON line per case, then the peak RSS."""
    base = corpus(plausible)
    alphabet = Alphabet(base) if plausible else None
    for i in range(start, min(start + count, total)):
        print(json.dumps({"i": i, "start": True}), flush=True)
        t0 = time.perf_counter()
        kind, detail = check_case(case(i, seed, base, alphabet), run)
        dt = time.perf_counter() - t0
        print(json.dumps({"i": i, "kind": kind, "detail": detail, "s": round(dt, 4)}), flush=True)
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"done": True, "peak_rss_mb": rss_mb}), flush=True)


def campaign(
    n: int,
    seed: int,
    mem_mb: int,
    timeout: float,
    chunk: int = 2000,
    quiet: bool = False,
    run: bool = False,
    plausible: bool = False,
) -> dict[str, Any]:
    """Run ``n`` cases in worker processes under an address-space limit; restart a worker
    after an abort or a hang. Returns the tally and the failures."""
    counts: dict[str, int] = {}
    failures: list[dict[str, Any]] = []
    peak = 0.0
    slowest = 0.0
    slowest_i = -1
    nxt = 0
    t_start = time.time()

    def limit() -> None:
        b = mem_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (b, b))

    while nxt < n:
        proc = subprocess.Popen(
            [
                sys.executable,
                __file__,
                "--worker",
                str(nxt),
                str(min(chunk, n - nxt)),
                "--cases",
                str(n),
                "--seed",
                str(seed),
                *(["--run"] if run else []),
                *(["--plausible"] if plausible else []),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=limit,
        )
        assert proc.stdout is not None
        current = nxt
        buf = ""
        done = False
        while True:
            ready, _, _ = select.select([proc.stdout], [], [], timeout)
            if not ready:
                proc.kill()
                counts["hang"] = counts.get("hang", 0) + 1
                failures.append({"i": current, "kind": "hang", "detail": f"> {timeout} s"})
                nxt = current + 1
                break
            line = proc.stdout.readline()
            if not line:
                proc.wait()
                if not done:
                    err = (proc.stderr.read() if proc.stderr else "")[-300:]
                    counts["abort"] = counts.get("abort", 0) + 1
                    failures.append(
                        {"i": current, "kind": "abort", "detail": f"exit {proc.returncode}: {err}"}
                    )
                    nxt = current + 1
                break
            buf = line
            rec = json.loads(buf)
            if rec.get("done"):
                peak = max(peak, rec["peak_rss_mb"])
                done = True
                nxt = current + 1
                continue
            current = rec["i"]
            if rec.get("start"):
                continue
            counts[rec["kind"]] = counts.get(rec["kind"], 0) + 1
            if rec["s"] > slowest:
                slowest, slowest_i = rec["s"], rec["i"]
            if rec["kind"] in ("exception", "badkey"):
                failures.append(rec)
        proc.wait()
        if not quiet:
            print(f"  {nxt}/{n} cases, {time.time() - t_start:.0f} s", file=sys.stderr)
    return {
        "cases": n,
        "seed": seed,
        "run": run,
        "plausible": plausible,
        "counts": counts,
        "failures": failures,
        "peak_rss_mb": round(peak, 1),
        "slowest_case_s": slowest,
        "slowest_case": slowest_i,
        "mem_limit_mb": mem_mb,
        "wall_s": round(time.time() - t_start, 1),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--cases", type=int, default=1000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--mem-mb", type=int, default=3072, help="address-space limit per worker")
    p.add_argument("--timeout", type=float, default=60.0, help="seconds without an answer")
    p.add_argument("--only", type=int, help="run one case here and print it")
    p.add_argument(
        "--run",
        action="store_true",
        help=f"also run accepted cases (stopped after {RUN_EVENTS} events)",
    )
    p.add_argument(
        "--plausible",
        action="store_true",
        help="mutations that keep values plausible, seeds from the paper reproductions too",
    )
    p.add_argument("--worker", nargs=2, type=int, help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.worker:
        worker(a.seed, a.worker[0], a.worker[1], a.cases, a.run, a.plausible)
        return 0
    if a.only is not None:
        base = corpus(a.plausible)
        sc = case(a.only, a.seed, base, Alphabet(base) if a.plausible else None)
        print(json.dumps(sc, default=str, indent=1)[:4000])
        print(check_case(sc, a.run))
        return 0
    res = campaign(a.cases, a.seed, a.mem_mb, a.timeout, run=a.run, plausible=a.plausible)
    print(json.dumps(res, indent=1, default=str))
    bad = sum(res["counts"].get(k, 0) for k in ("exception", "badkey", "hang", "abort"))
    return 1 if bad else 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    sys.exit(main())
