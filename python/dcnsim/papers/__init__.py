"""Registry of paper reproductions run by ``dcnsim reproduce PAPER``.

Each entry maps a short name to a module inside this package. A reproduction module holds
its presets and figure definitions on :mod:`dcnsim.papers.framework` and provides::

    TITLE: str                      # the paper, for `dcnsim reproduce --list`
    REPRO: framework.Reproduction   # figure registry, scales, report text
    def reproduce(out_dir: pathlib.Path, *, full: bool, jobs: int | None,
                  progress: bool) -> list[framework.Finding]

``full=False`` is the reduced-scale version that runs in CI; ``full=True`` is paper scale. A
reproduction writes its runs (via :func:`dcnsim.sweep`), tables and plots under ``out_dir`` and
must never leave a partial output directory on error.

To add one: create ``papers/<name>.py``, or a package ``papers/<name>/`` split by concept
once it outgrows one file (as ``c3``, ``tlt`` and ``lowprio`` are; see docs/extending.md), and
add ``"<name>": "dcnsim.papers.<name>"`` below.
"""

from __future__ import annotations

import importlib
from types import ModuleType

PAPERS: dict[str, str] = {
    "resqueue": "dcnsim.papers.resqueue",
    "lowprio": "dcnsim.papers.lowprio",
    "tlt": "dcnsim.papers.tlt",
    "reflex": "dcnsim.papers.reflex",
    "c3": "dcnsim.papers.c3",
}


def available() -> list[str]:
    return sorted(PAPERS)


def get(name: str) -> ModuleType:
    """The reproduction module for ``name``; KeyError if none is registered."""
    return importlib.import_module(PAPERS[name])
