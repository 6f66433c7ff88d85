"""dcnsim: a fast packet-level datacenter network simulator (Rust core, Python front end).

Quick start::

    import dcnsim
    res = dcnsim.run()                       # the built-in default scenario
    res = dcnsim.run("my.toml", seed=2, set=["classes[0].workload.load=0.3"])
    print(res.summary())
    res.save("out/run1"); res = dcnsim.load("out/run1")
"""

from __future__ import annotations

from importlib import metadata as _metadata

from .api import defaults, run, validate
from .config import shipped_scenarios
from .errors import ConfigError, DamagedResultError
from .results import Results, load
from .sweep import sweep

try:
    __version__ = _metadata.version("dcnsim")
except _metadata.PackageNotFoundError:  # running from a source tree without installing
    __version__ = "0+unknown"

__all__ = [
    "ConfigError",
    "DamagedResultError",
    "Results",
    "__version__",
    "defaults",
    "load",
    "run",
    "shipped_scenarios",
    "sweep",
    "validate",
]
