"""The one place that imports the Rust extension ``dcnsim._core``.

Everything else calls :func:`core` so that the extension is loaded lazily (importing ``dcnsim``
stays cheap and works before the extension is built) and so that tests can substitute a fake:
either ``monkeypatch.setattr(dcnsim._native, "_CORE", fake)`` in-process, or the environment
variable ``DCNSIM_CORE=<importable module>`` for subprocesses (CLI tests, sweep workers).

Errors raised by the extension are translated here into :class:`dcnsim.errors.ConfigError`, so
callers never see the extension's own exception class.
"""

from __future__ import annotations

import datetime
import hashlib
import importlib
import json
import math
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


#: Deepest nesting of tables and lists a scenario may have (the schema needs 6).
MAX_DEPTH = 32


def _key_path(tokens: list[str | int]) -> str:
    out = ""
    for t in tokens:
        out += f"[{t}]" if isinstance(t, int) else ("." if out else "") + t
    return out


def check_plain(scenario: Any) -> None:
    """Check that a scenario holds only what TOML and JSON share: tables with string keys,
    lists, strings, booleans, integers and finite floats, nested at most ``MAX_DEPTH`` deep.
    Anything else (a TOML date, NaN, a Python object, a runaway nesting) is a ConfigError
    naming its key, instead of a TypeError or RecursionError from the JSON encoder."""
    stack: list[tuple[Any, list[str | int]]] = [(scenario, [])]
    while stack:
        node, path = stack.pop()
        if len(path) > MAX_DEPTH:
            raise ConfigError(f"nested more than {MAX_DEPTH} tables or lists deep", _where(path))
        if isinstance(node, bool | str | int) or node is None:
            continue
        if isinstance(node, dict):
            for k, v in node.items():
                if not isinstance(k, str):
                    raise ConfigError(f"expected string keys, got {k!r}", _where(path))
                stack.append((v, [*path, k]))
        elif isinstance(node, list | tuple):
            stack.extend((v, [*path, i]) for i, v in enumerate(node))
        elif isinstance(node, float):
            if not math.isfinite(node):
                raise ConfigError(f"expected a finite number, got {node}", _where(path))
        elif isinstance(node, datetime.date | datetime.time):
            raise ConfigError(
                f"a date or time ({node}) is not a scenario value; write a duration as a "
                'string like "10ms" or a number of seconds',
                _where(path),
            )
        else:
            raise ConfigError(
                f"expected a number, string, boolean, list or table, got a {type(node).__name__}",
                _where(path),
            )


def _where(path: list[str | int]) -> str:
    # built only for an error: a scenario with long flow lists has thousands of values
    return _key_path(path) or "scenario"


def validate(scenario: dict[str, Any]) -> dict[str, Any]:
    """Validate with the core; return the normalized scenario (every default filled in)."""
    check_plain(scenario)
    return json.loads(_call(core().validate, json.dumps(scenario)))


def validate_warnings(scenario: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """Validate and also return the warnings of settings that cannot have an effect (a core
    without this function gives none)."""
    check_plain(scenario)
    fn = getattr(core(), "validate_warnings", None)
    if fn is None:
        return validate(scenario), []
    text, warnings = _call(fn, json.dumps(scenario))
    return json.loads(text), list(warnings)


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
