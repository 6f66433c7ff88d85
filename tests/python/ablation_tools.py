"""The scripts of tools/ablations/, imported as modules (they are not a package), so tests can
check what their arms run."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType


def load(name: str) -> ModuleType:
    """tools/ablations/``name``.py as a module, with tools/ablations/ importable as when the
    script runs (lowprio.py imports its sibling lowprio_sjf.py)."""
    here = Path(__file__).resolve().parents[2] / "tools" / "ablations"
    if str(here) not in sys.path:
        sys.path.insert(0, str(here))
    path = here / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"{name}_ablations", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod
