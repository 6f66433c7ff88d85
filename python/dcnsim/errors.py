"""Exceptions of the Python API."""

from __future__ import annotations


class ConfigError(ValueError):
    """Bad input: a scenario key, value, file or override that cannot be used.

    ``path`` is the key path of the offending entry (``"topology.leaves"``,
    ``"classes[1].workload.load"``; ``"scenario"`` for the scenario file itself) and ``message``
    says what was expected.
    """

    def __init__(self, message: str, path: str = "") -> None:
        super().__init__(message, path)
        self.message = message
        self.path = path

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message

    def __reduce__(self) -> tuple[type[ConfigError], tuple[str, str]]:
        return (type(self), (self.message, self.path))


class DcnsimWarning(UserWarning):
    """Something worked but may not be what was meant: a cached run that was corrupt and is
    recomputed, a setting without effect. The CLI prints these as ``warning: ...``."""


class DamagedResultError(ValueError):
    """A saved result's directory has all its files but one cannot be read back (a truncated
    or overwritten file: saves are atomic, so not one of dcnsim's). ``path`` is the file."""

    def __init__(self, message: str, path: str = "") -> None:
        super().__init__(message, path)
        self.message = message
        self.path = path

    def __str__(self) -> str:
        return self.message

    def __reduce__(self) -> tuple[type[DamagedResultError], tuple[str, str]]:
        return (type(self), (self.message, self.path))
