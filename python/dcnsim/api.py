"""The Python API's entry points: run, validate, defaults (re-exported by ``dcnsim``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from . import _native, config
from .config import Scenario
from .progress import Progress
from .results import Results

Overrides = Iterable[str] | Mapping[str, Any] | None


def defaults() -> dict[str, Any]:
    """The complete default scenario (every key present), as the Rust core defines it."""
    return _native.defaults()


def validate(scenario: Scenario | None = None, *, set: Overrides = None) -> dict[str, Any]:
    """Validate a scenario (path, dict or shipped name) and return it normalized, with every
    default filled in. Raises :class:`dcnsim.ConfigError` naming the offending key."""
    return config.prepare(scenario, overrides=set).normalized


def run(
    scenario: Scenario | None = None,
    *,
    seed: int | None = None,
    set: Overrides = None,
    progress: bool = True,
) -> Results:
    """Run one simulation and return its :class:`Results`.

    ``scenario`` is a TOML path, a dict, or the name of a shipped scenario (``None``: the default
    scenario). ``set`` applies overrides (``["topology.leaves=4"]`` or ``{"topology.leaves": 4}``)
    before validation; ``seed`` overrides the scenario's seed. The simulation releases the GIL.
    """
    prep = config.prepare(scenario, seed=seed, overrides=set)
    return run_prepared(prep, progress=progress)


def run_prepared(
    prep: config.Prepared, *, progress: bool = True, desc: str | None = None
) -> Results:
    name = desc or str(prep.normalized.get("name") or "run")
    bar = Progress(1.0, desc=name, enabled=progress)

    # The callback is passed even without a bar: calling back into Python is what lets
    # Ctrl-C (a pending KeyboardInterrupt) stop the Rust run.
    def on_progress(sim_t: float, horizon: float, done: int, total: int) -> None:
        if not bar.live:
            return
        frac_t = sim_t / horizon if horizon > 0 else 0.0
        frac_f = done / total if total > 0 else 0.0
        bar.update(max(frac_t, frac_f), extra=f"{done}/{total} flows")

    with bar:
        out = _native.run(prep.normalized, on_progress, 0.2 if bar.live else 0.5)
        bar.update(1.0)
    from . import __version__

    results = Results.from_core(
        out,
        scenario=prep.normalized,
        config_hash=prep.hash,
        extra_meta={
            "dcnsim_python": __version__,
            "core_build": _native.build_id(),
            "input_files": dict(prep.files),
        },
    )
    return results
