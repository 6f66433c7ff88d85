"""Scenario loading, ``--set`` overrides, TOML round-trips and the config hash.

A scenario is given as a TOML file path, a plain ``dict`` with the same structure, or the name of
a scenario shipped inside the package (``python/dcnsim/scenarios/<name>.toml``). Defaults and
validation live in the Rust core only (one source of truth): this module never invents keys or
fills in values; it only hands the dict to ``_core.validate`` and reports its errors.
"""

from __future__ import annotations

import copy
import hashlib
import json
import math
import numbers
import re
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from . import _native
from .errors import ConfigError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

Scenario = str | Path | Mapping[str, Any]

#: Key path of the RNG seed in the scenario schema.
SEED_PATH = "seed"
#: Name of the scenario run when none is given.
DEFAULT_SCENARIO = "default"


# ---------------------------------------------------------------------------------------------
# Shipped scenarios and TOML files


def _scenario_dir() -> Any:
    return resources.files("dcnsim").joinpath("scenarios")


def shipped_scenarios() -> list[str]:
    """Names of the scenarios packaged with dcnsim (usable wherever a scenario is expected)."""
    try:
        entries = list(_scenario_dir().iterdir())
    except (FileNotFoundError, NotADirectoryError):
        return []
    return sorted(e.name[: -len(".toml")] for e in entries if e.name.endswith(".toml"))


def scenario_description(name: str, limit: int = 110) -> str:
    """The first sentence of a shipped scenario's leading comment (its one-line description,
    cut at ``limit`` characters); empty if it has none."""
    try:
        text = (_scenario_dir() / f"{name}.toml").read_text(encoding="utf-8")
    except OSError:
        return ""
    words: list[str] = []
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        words += line.lstrip("#").split()
    para = " ".join(words)
    # a sentence ends at a full stop before a capital letter, not after "et al." or "e.g."
    end = re.search(r"(?<!\bal)(?<!\be\.g)(?<!\bi\.e)\.\s+(?=[A-Z(])", para)
    first = para if end is None else para[: end.start() + 1]
    return first if len(first) <= limit else first[: limit - 1].rstrip() + "…"


def loads_toml(text: str, origin: str = "<string>") -> dict[str, Any]:
    """Parse TOML text; syntax errors become ConfigError (path ``scenario``) with the line."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{origin}: invalid TOML: {exc}", "scenario") from None
    except RecursionError:
        raise ConfigError(f"{origin}: tables or lists nested too deep", "scenario") from None


def load_toml(path: str | Path) -> dict[str, Any]:
    """Read a TOML scenario file. A missing or unreadable file is a ConfigError."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"scenario file not found: {p}", "scenario") from None
    except IsADirectoryError:
        raise ConfigError(
            f"scenario path is a directory, expected a TOML file: {p}", "scenario"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read scenario file {p}: {exc}", "scenario") from None
    return loads_toml(text, str(p))


def load_scenario(scenario: Scenario | None) -> dict[str, Any]:
    """Turn any accepted scenario form into a fresh raw dict (no defaults filled in)."""
    if scenario is None:
        if DEFAULT_SCENARIO not in shipped_scenarios():
            return {}  # the core's own defaults form a complete scenario
        scenario = DEFAULT_SCENARIO
    if isinstance(scenario, Mapping):
        _native.check_plain(scenario)  # before deepcopy: a runaway nesting would recurse
        return copy.deepcopy(dict(scenario))
    if isinstance(scenario, Path):
        return resolve_files(load_toml(scenario), scenario.parent)
    if isinstance(scenario, str):
        p = Path(scenario)
        looks_like_path = scenario.endswith(".toml") or "/" in scenario or "\\" in scenario
        if p.is_file() or looks_like_path:
            return resolve_files(load_toml(p), p.parent)
        if scenario in shipped_scenarios():
            entry = _scenario_dir().joinpath(f"{scenario}.toml")
            raw = loads_toml(entry.read_text(encoding="utf-8"), f"<shipped scenario {scenario}>")
            return resolve_files(raw, Path(str(entry)).parent)
        names = ", ".join(shipped_scenarios()) or "none"
        raise ConfigError(
            f"{scenario!r} is neither a TOML file nor a shipped scenario (shipped: {names})",
            "scenario",
        )
    raise ConfigError(
        f"expected a TOML path, a dict or a shipped scenario name, got {type(scenario).__name__}",
        "scenario",
    )


#: Keys inside a class workload (or a size spec within it) that name files.
_FILE_KEYS = ("cdf_file", "csv")


def resolve_files(raw: dict[str, Any], base: Path) -> dict[str, Any]:
    """Make relative file names in a scenario (``cdf_file``, ``csv``) relative to ``base``,
    the directory of the scenario file, so a scenario runs the same from any working directory."""

    def fix(node: Any) -> None:
        if isinstance(node, dict):
            for k, v in node.items():
                if k in _FILE_KEYS and isinstance(v, str) and not Path(v).is_absolute():
                    node[k] = str(base / v)
                else:
                    fix(v)
        elif isinstance(node, list):
            for v in node:
                fix(v)

    for cls in raw.get("classes", []) if isinstance(raw.get("classes"), list) else []:
        if isinstance(cls, dict):
            fix(cls.get("workload"))
    return raw


# ---------------------------------------------------------------------------------------------
# Overrides: key.path[i].x=value

_SEGMENT = re.compile(r"([A-Za-z0-9_\-]+)((?:\[\d+\])*)")
_INDEX = re.compile(r"\[(\d+)\]")

PathToken = str | int


def parse_key_path(key: str) -> list[PathToken]:
    """``"classes[0].workload.load"`` → ``["classes", 0, "workload", "load"]``."""
    tokens: list[PathToken] = []
    if not key:
        raise ConfigError("empty key in override", key)
    for part in key.split("."):
        m = _SEGMENT.fullmatch(part)
        if m is None:
            raise ConfigError(
                "malformed key path: expected dotted names with optional [index], "
                "like classes[0].workload.load",
                key,
            )
        tokens.append(m.group(1))
        tokens.extend(int(i) for i in _INDEX.findall(m.group(2)))
    return tokens


def format_key_path(tokens: Sequence[PathToken]) -> str:
    out = ""
    for t in tokens:
        if isinstance(t, int):
            out += f"[{t}]"
        else:
            out += ("." if out else "") + t
    return out


def parse_value(text: str) -> Any:
    """Parse an override value as a TOML literal (``3``, ``0.5``, ``true``, ``"x"``, ``[1, 2]``,
    ``{a = 1}``); anything that is not valid TOML is taken as a plain string (``dctcp``)."""
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def parse_override(spec: str) -> tuple[str, Any]:
    """``"topology.leaves=4"`` → ``("topology.leaves", 4)``."""
    key, sep, value = spec.partition("=")
    key = key.strip()
    if not sep:
        raise ConfigError("override must look like key.path=value", key or spec)
    parse_key_path(key)  # syntax check early, with the key named
    return key, parse_value(value.strip())


def set_path(
    raw: dict[str, Any],
    key: str,
    value: Any,
    fallback: Callable[[], dict[str, Any]] | None = None,
) -> None:
    """Set ``key`` (a dotted path with indices) in ``raw`` to ``value``, in place.

    Missing tables are created (validation then rejects keys that do not exist in the schema).
    A list index that the raw scenario lacks is looked up in ``fallback()`` — the normalized
    scenario with defaults — so ``classes[0].x=...`` works even if the file relies on default
    classes; an index that is out of range there too is a ConfigError naming the key.
    """
    tokens = parse_key_path(key)
    node: Any = raw
    for depth, tok in enumerate(tokens[:-1]):
        nxt = tokens[depth + 1]
        here = format_key_path(tokens[: depth + 1])
        if isinstance(tok, int):
            if not isinstance(node, list) or tok >= len(node):
                raise ConfigError(f"index {tok} is out of range", here)
            child = node[tok]
        else:
            if not isinstance(node, dict):
                raise ConfigError(
                    "is not a table, cannot set a key inside it", format_key_path(tokens[:depth])
                )
            child = node.get(tok)
            missing_index = isinstance(nxt, int) and (
                not isinstance(child, list) or nxt >= len(child)
            )
            if missing_index and fallback is not None:
                # take the list from the normalized scenario (defaults) if it has the index
                full = _get_path(fallback(), tokens[: depth + 1])
                if isinstance(full, list) and isinstance(nxt, int) and nxt < len(full):
                    child = copy.deepcopy(full)
                    node[tok] = child
            if child is None:
                child = [] if isinstance(nxt, int) else {}
                node[tok] = child
        if isinstance(nxt, int) and (not isinstance(child, list) or nxt >= len(child)):
            size = len(child) if isinstance(child, list) else 0
            raise ConfigError(
                f"index {nxt} is out of range (the list has {size} entries)",
                format_key_path(tokens[: depth + 2]),
            )
        node = child
    last = tokens[-1]
    if isinstance(last, int) or isinstance(node, dict):
        node[last] = value
    else:
        raise ConfigError(
            "is not a table, cannot set a key inside it", format_key_path(tokens[:-1])
        )


def _get_path(d: Any, tokens: Sequence[PathToken]) -> Any:
    node = d
    for tok in tokens:
        try:
            node = node[tok]
        except (KeyError, IndexError, TypeError):
            return None
    return node


def get_path(d: Mapping[str, Any], key: str) -> Any:
    """Value at a dotted key path, or None if absent."""
    return _get_path(d, parse_key_path(key))


# ---------------------------------------------------------------------------------------------
# Normalization and hashing


def canonical_json(normalized: Mapping[str, Any]) -> str:
    return json.dumps(normalized, sort_keys=True, separators=(",", ":"), allow_nan=True)


#: Keys of the normalized scenario that do not change what a run computes (left out of the hash).
_UNHASHED = (("run", "memory_limit"),)


def config_hash(normalized: Mapping[str, Any], files: Mapping[str, str] | None = None) -> str:
    """The cache key: sha256 of the normalized scenario as canonical JSON (sorted keys), and of
    the digests of the files it reads (``files``: path → sha256 of the content), so an edited
    CDF or CSV file is a different run. ``run.memory_limit`` is left out (it only decides
    whether a run may start)."""
    d = dict(normalized)
    for table, key in _UNHASHED:
        if isinstance(d.get(table), dict) and key in d[table]:
            d[table] = {k: v for k, v in d[table].items() if k != key}
    text = canonical_json(d)
    if files:
        text += "\nfiles:" + json.dumps(dict(sorted(files.items())), separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def scenario_files(normalized: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(key path, file name) of every file the scenario reads (``cdf_file``, ``csv``)."""
    out: list[tuple[str, str]] = []

    def walk(node: Any, path: list[PathToken]) -> None:
        if isinstance(node, dict):
            for k, v in node.items():
                if k in _FILE_KEYS and isinstance(v, str):
                    out.append((format_key_path([*path, k]), v))
                else:
                    walk(v, [*path, k])
        elif isinstance(node, list):
            for i, v in enumerate(node):
                walk(v, [*path, i])

    walk(normalized.get("classes"), ["classes"])
    return out


def file_digests(normalized: Mapping[str, Any]) -> dict[str, str]:
    """sha256 of the content of every file the scenario reads, by file name."""
    out: dict[str, str] = {}
    for key, name in scenario_files(normalized):
        if name in out:
            continue
        h = hashlib.sha256()
        try:
            with open(name, "rb") as f:
                for chunk in iter(lambda: f.read(1 << 20), b""):
                    h.update(chunk)
        except OSError as exc:
            raise ConfigError(f"cannot read {name!r}: {exc}", key) from None
        out[name] = h.hexdigest()
    return out


@dataclass(frozen=True)
class Prepared:
    """A scenario ready to run: the raw dict as given, the normalized one, the digests of the
    files it reads and the hash of both (the cache key)."""

    raw: dict[str, Any]
    normalized: dict[str, Any]
    hash: str
    files: dict[str, str] = field(default_factory=dict)


def prepare(
    scenario: Scenario | None,
    *,
    seed: int | None = None,
    overrides: Iterable[str] | Mapping[str, Any] | None = None,
) -> Prepared:
    """Load, apply overrides (``["k=v", ...]`` or ``{"k": v}``) and the seed, and validate."""
    raw = load_scenario(scenario)
    items: list[tuple[str, Any]]
    if overrides is None:
        items = []
    elif isinstance(overrides, Mapping):
        items = [(str(k), v) for k, v in overrides.items()]
        for k, _ in items:
            parse_key_path(k)
    else:
        items = [parse_override(s) for s in overrides]
    if seed is not None:
        # A whole number (numpy's too) as an int; anything else as given, for the scenario
        # check to name (it was int()-ed: "x" raised ValueError, 1.5 ran as seed 1).
        whole = isinstance(seed, numbers.Integral) and not isinstance(seed, bool)
        items.append((SEED_PATH, int(seed) if whole else seed))

    cache: dict[str, dict[str, Any]] = {}

    def fallback() -> dict[str, Any]:
        if "n" not in cache:
            cache["n"] = _native.validate(raw)
        return cache["n"]

    paths = [tuple(parse_key_path(k)) for k, _ in items]
    for i, (key, value) in enumerate(items):
        n = len(paths[i])
        if isinstance(value, (dict, list)) and any(
            len(p) > n and p[:n] == paths[i] for p in paths[i + 1 :]
        ):
            # A later key sets something inside this table or list: set a copy, so that the
            # caller's object (often a module constant shared by many runs) is not changed.
            value = copy.deepcopy(value)
        set_path(raw, key, value, fallback)
        cache.clear()
    normalized = _native.validate(raw)
    files = file_digests(normalized)
    return Prepared(
        raw=raw, normalized=normalized, hash=config_hash(normalized, files), files=files
    )


def validate(scenario: Scenario | None) -> dict[str, Any]:
    """Validate a scenario; return the normalized dict or raise ConfigError."""
    return prepare(scenario).normalized


# ---------------------------------------------------------------------------------------------
# dict -> TOML (a small writer so that ``dumps_toml(d)`` re-loads to ``d``; no extra dependency)

_BARE_KEY = re.compile(r"[A-Za-z0-9_\-]+")


def _key(k: str) -> str:
    return k if _BARE_KEY.fullmatch(k) else json.dumps(k)


def _scalar(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, list):
        return "[" + ", ".join(_scalar(x) for x in v) + "]"
    if isinstance(v, dict):
        inner = ", ".join(f"{_key(k)} = {_scalar(x)}" for k, x in v.items() if x is not None)
        return "{" + inner + "}"
    raise TypeError(f"cannot write {type(v).__name__} as TOML")


def _is_table_array(v: Any) -> bool:
    return isinstance(v, list) and bool(v) and all(isinstance(x, dict) for x in v)


def dumps_toml(d: Mapping[str, Any]) -> str:
    """Write a scenario dict as TOML. ``None`` values are omitted (TOML has no null)."""
    lines: list[str] = []
    _emit_table(d, [], lines)
    return "\n".join(lines).lstrip("\n") + "\n"


def _emit_table(d: Mapping[str, Any], prefix: list[str], lines: list[str]) -> None:
    for k, v in d.items():
        if v is None or isinstance(v, dict) or _is_table_array(v):
            continue
        lines.append(f"{_key(k)} = {_scalar(v)}")
    for k, v in d.items():
        if isinstance(v, dict):
            name = ".".join(_key(x) for x in [*prefix, k])
            lines.extend(["", f"[{name}]"])
            _emit_table(v, [*prefix, k], lines)
        elif _is_table_array(v):
            name = ".".join(_key(x) for x in [*prefix, k])
            for item in v:
                lines.extend(["", f"[[{name}]]"])
                _emit_table(item, [*prefix, k], lines)
