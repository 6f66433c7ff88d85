"""Every shipped scenario's results, bit for bit: a digest of each run's tables and metadata
against the digests recorded in ``golden/shipped.json``.

A change meant to leave results alone (a speed-up, a refactor: issue 17) must pass this
unchanged. A change that moves results on purpose (a model fix) records the new digests with

    DCNSIM_UPDATE_GOLDEN=1 python -m pytest -q tests/python/test_golden.py

and says in its commit which scenarios moved and why.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import dcnsim
from dcnsim.config import shipped_scenarios

pytestmark = [
    pytest.mark.usefixtures("real_core"),
    # Recorded on x86-64 Linux: another platform's math library may round a logarithm (the
    # workloads' exponential gaps) differently, and then every later event moves.
    pytest.mark.skipif(
        not (sys.platform.startswith("linux") and platform.machine() in ("x86_64", "AMD64")),
        reason="digests recorded on x86-64 Linux",
    ),
]

GOLDEN = Path(__file__).resolve().parent / "golden" / "shipped.json"

#: The run's tables, all of them (empty ones hash as their header).
TABLES = ("flows", "queues", "samples", "traces", "class_samples", "pipes", "pipe_samples")
#: Metadata that names the build or measures the machine, not the simulation.
NOT_RESULTS = {"wall_s", "core_build", "version", "dcnsim_python", "input_files"}


def _column_bytes(col: pd.Series) -> bytes:
    """A column's values as bytes that do not depend on how pandas formats or types them:
    integers as int64, floats as float64 (their exact bits), booleans as one byte, anything
    else as text."""
    kind = col.dtype.kind
    if kind in "iu":
        return np.ascontiguousarray(col.to_numpy(dtype=np.int64)).tobytes()
    if kind == "f":
        return np.ascontiguousarray(col.to_numpy(dtype=np.float64)).tobytes()
    if kind == "b":
        return np.ascontiguousarray(col.to_numpy(dtype=np.uint8)).tobytes()
    return "\x00".join(map(str, col.tolist())).encode()


def digest(r: Any) -> str:
    """SHA-256 over every column of the run's tables (name and values) and the metadata
    that the simulation determines."""
    h = hashlib.sha256()
    for name in TABLES:
        table = getattr(r, name)
        h.update(f"{name}:{len(table)}".encode())
        for c in table.columns:
            h.update(str(c).encode())
            h.update(_column_bytes(table[c]))
    meta = {k: v for k, v in r.meta.items() if k not in NOT_RESULTS}
    h.update(json.dumps(meta, sort_keys=True, default=str).encode())
    return h.hexdigest()


def test_shipped_scenarios_give_the_recorded_results() -> None:
    got = {name: digest(dcnsim.run(name, progress=False)) for name in shipped_scenarios()}
    if os.environ.get("DCNSIM_UPDATE_GOLDEN"):
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_text(json.dumps(got, indent=2, sort_keys=True) + "\n")
    want = json.loads(GOLDEN.read_text())
    assert sorted(got) == sorted(want), "shipped scenarios added or removed: update the digests"
    moved = sorted(n for n in got if got[n] != want[n])
    assert not moved, (
        f"results changed for {moved}: if intended, record them with DCNSIM_UPDATE_GOLDEN=1 "
        "(see this file's docstring) and say why in the commit"
    )
