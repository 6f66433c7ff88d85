"""Shared fixtures: the fake core (``fake_core.py``) and the real one when it is built.

Tests that need the real extension use the ``real_core`` fixture: it skips when
``dcnsim._core`` is not importable, except under CI (``CI`` set), where it fails, since CI
builds the extension and must exercise it.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]

try:
    import dcnsim  # noqa: F401  (installed: pip install . / maturin develop)

    SRC_PATHS = [str(HERE)]
except ImportError:  # plain source checkout: test the Python layer against the fake core
    sys.path.insert(0, str(REPO / "python"))
    SRC_PATHS = [str(HERE), str(REPO / "python")]

import fake_core  # noqa: E402
from dcnsim import _native, config  # noqa: E402


def _subprocess_env(core: str | None) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([*SRC_PATHS, env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    if core:
        env["DCNSIM_CORE"] = core
    else:
        env.pop("DCNSIM_CORE", None)
    return env


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    """Use the fake core in this process and in subprocesses / sweep workers."""
    monkeypatch.setattr(_native, "_CORE", fake_core)
    # the shipped default.toml is written for the real schema: use the fake's own defaults
    monkeypatch.setattr(config, "DEFAULT_SCENARIO", "__no_such_scenario__")
    monkeypatch.setenv("DCNSIM_CORE", "fake_core")
    monkeypatch.setenv("PYTHONPATH", _subprocess_env("fake_core")["PYTHONPATH"])
    yield fake_core


def _real() -> ModuleType | None:
    try:
        return importlib.import_module("dcnsim._core")
    except ImportError:
        return None


@pytest.fixture
def real_core(monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    mod = _real()
    if mod is None:
        if os.environ.get("CI"):
            pytest.fail("dcnsim._core is not importable under CI: the extension must be built")
        pytest.skip("dcnsim._core not built (pip install . or maturin develop)")
    monkeypatch.setattr(_native, "_CORE", mod)
    monkeypatch.delenv("DCNSIM_CORE", raising=False)
    yield mod


@pytest.fixture
def fake_env() -> dict[str, str]:
    """Environment for subprocesses that should use the fake core."""
    return _subprocess_env("fake_core")


@pytest.fixture
def real_env() -> dict[str, str]:
    return _subprocess_env(None)
