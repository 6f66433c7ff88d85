"""The one place that imports the Rust extension ``dcnsim._core``.

Everything else calls :func:`core` so that the extension is loaded lazily (importing ``dcnsim``
stays cheap and works before the extension is built) and so that tests can substitute a fake:
either ``monkeypatch.setattr(dcnsim._native, "_CORE", fake)`` in-process, or the environment
variable ``DCNSIM_CORE=<importable module>`` for subprocesses (CLI tests, sweep workers).

Errors raised by the extension are translated here into :class:`dcnsim.errors.ConfigError`, so
callers never see the extension's own exception class.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
from collections.abc import Callable
from types import ModuleType
from typing import Any

from .errors import ConfigError

_CORE: ModuleType | None = None

ProgressFn = Callable[[float, float, int, int], None]


def core() -> ModuleType:
    """Return the simulation core module, importing it on first use."""
    global _CORE
    if _CORE is None:
        name = os.environ.get("DCNSIM_CORE") or "dcnsim._core"
        try:
            _CORE = importlib.import_module(name)
        except ImportError as exc:
            raise RuntimeError(
                f"the dcnsim simulation core ({name}) is not importable: {exc}. "
                "Build it with `pip install .` (or `maturin develop --release`) from a checkout."
            ) from exc
    return _CORE


def available() -> bool:
    """True if the simulation core can be imported."""
    try:
        core()
    except RuntimeError:
        return False
    return True


def _translate(exc: BaseException) -> ConfigError | None:
    """Map the core's ConfigError (if ``exc`` is one) to ours."""
    cls = getattr(core(), "ConfigError", None)
    if cls is None or not isinstance(exc, cls):
        return None
    path = getattr(exc, "path", None)
    message = getattr(exc, "message", None)
    args = exc.args
    if message is None:
        message = str(args[0]) if args else str(exc)
    if path is None:
        path = str(args[1]) if len(args) > 1 else ""
    return ConfigError(message, path)


def _call(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    try:
        return fn(*args, **kwargs)
    except ConfigError:
        raise
    except Exception as exc:
        mapped = _translate(exc)
        if mapped is not None:
            raise mapped from None
        raise


def version() -> str:
    return str(core().__version__)


_BUILD_ID: str | None = None


def build_id() -> str:
    """A fingerprint of the simulation core actually loaded (a hash of its file), recorded in
    every result's meta so a cache can tell results of another build from its own."""
    global _BUILD_ID
    if _BUILD_ID is None:
        mod = core()
        path = getattr(mod, "__file__", None)
        try:
            with open(path, "rb") as f:  # type: ignore[arg-type]
                digest = hashlib.sha256(f.read()).hexdigest()[:16]
        except (OSError, TypeError):
            digest = "unknown"
        _BUILD_ID = f"{version()}+{digest}"
    return _BUILD_ID


def defaults() -> dict[str, Any]:
    return json.loads(_call(core().defaults))


def validate(scenario: dict[str, Any]) -> dict[str, Any]:
    """Validate with the core; return the normalized scenario (every default filled in)."""
    return json.loads(_call(core().validate, json.dumps(scenario)))


def run(
    normalized: dict[str, Any],
    progress: ProgressFn | None = None,
    progress_interval_s: float = 0.2,
) -> dict[str, Any]:
    return _call(core().run, json.dumps(normalized), progress, progress_interval_s)


def builtin_cdfs() -> list[str]:
    return list(core().builtin_cdfs())


def bench(name: str) -> dict[str, Any]:
    return dict(_call(core().bench, name))


def bench_names() -> list[str]:
    return list(core().bench_names())
