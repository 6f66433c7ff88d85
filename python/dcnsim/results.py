"""Results of one run: columnar tables as pandas DataFrames, run metadata, atomic save/load.

On disk a result directory holds ``flows.parquet``, ``queues.parquet``, ``samples.parquet``,
``meta.json`` and ``scenario.json``. The Parquet files depend only on the simulated data (no
timestamps, no wall-clock time, no pandas metadata, fixed compression), so identical runs give
byte-identical files. ``meta.json`` is written last; a directory is complete only if all five
files exist, and :meth:`Results.save` makes that true by writing into a temporary sibling
directory and renaming it into place. A result directory is the project's only in those six
files: anything else in it (``plots/`` from ``dcnsim plot``, the user's notes) is carried over
into the new directory when a run is saved again, and recovered from the temporary directory
if a save was killed half-way.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from .errors import ConfigError, DamagedResultError

FILES = (
    "flows.parquet",
    "queues.parquet",
    "samples.parquet",
    "traces.parquet",
    "scenario.json",
    "meta.json",
)
TMP_MARK = ".tmp-"
OLD_MARK = ".old-"

#: Column order and Arrow type of every known column. Columns the core adds later are kept,
#: after these, in the order the core returns them.
FLOW_SCHEMA: dict[str, pa.DataType] = {
    "flow_id": pa.int64(),
    "class_id": pa.int64(),
    "class": pa.string(),
    "src": pa.int64(),
    "dst": pa.int64(),
    "size": pa.int64(),
    "start_s": pa.float64(),
    "finish_s": pa.float64(),
    "fct_s": pa.float64(),
    "ideal_fct_s": pa.float64(),
    "slowdown": pa.float64(),
    "completed": pa.bool_(),
    "in_window": pa.bool_(),
    "sender_done_s": pa.float64(),
    "deadline_s": pa.float64(),
    "data_pkts": pa.int64(),
    "retx_pkts": pa.int64(),
    "fast_retx": pa.int64(),
    "rto_count": pa.int64(),
    "spurious_rto": pa.int64(),
    "spurious_retx": pa.int64(),
    "ecn_marks": pa.int64(),
    "max_cwnd": pa.int64(),
    "max_pkt_drops": pa.int64(),
    "tag": pa.int64(),
}
QUEUE_SCHEMA: dict[str, pa.DataType] = {
    "node": pa.int64(),
    "node_name": pa.string(),
    "port": pa.int64(),
    "peer_name": pa.string(),
    "queue": pa.int64(),
    "pkts_in": pa.int64(),
    "bytes_in": pa.int64(),
    "pkts_out": pa.int64(),
    "bytes_out": pa.int64(),
    "drops": pa.int64(),
    "drops_static": pa.int64(),
    "drops_shared": pa.int64(),
    "drops_port": pa.int64(),
    "drops_scheme": pa.int64(),
    "ecn_marks": pa.int64(),
    "max_bytes": pa.int64(),
    "max_pkts": pa.int64(),
    "busy_s": pa.float64(),
}
SAMPLE_SCHEMA: dict[str, pa.DataType] = {
    "t_s": pa.float64(),
    "node": pa.int64(),
    "port": pa.int64(),
    "queue": pa.int64(),
    "bytes": pa.int64(),
    "tx_bytes": pa.int64(),
    "util": pa.float64(),
    "drops": pa.int64(),
    "marks": pa.int64(),
}
#: Goodput per traffic class over time (written when sampling is on; absent in results saved
#: before it existed, which therefore stay complete and cached).
CLASS_SAMPLE_SCHEMA: dict[str, pa.DataType] = {
    "t_s": pa.float64(),
    "class_id": pa.int64(),
    "class": pa.string(),
    "bytes": pa.int64(),
    "goodput_bps": pa.float64(),
}
TRACE_SCHEMA: dict[str, pa.DataType] = {
    "t_s": pa.float64(),
    "flow_id": pa.int64(),
    "cwnd": pa.int64(),
    "ssthresh": pa.float64(),
    "srtt_s": pa.float64(),
    "rto_s": pa.float64(),
    "bytes_acked": pa.int64(),
    "inflight": pa.int64(),
    "rate_bps": pa.float64(),
    "alpha": pa.float64(),
}
#: The sender shim's pipes (C3, ElasticSwitch): one row per pipe, and one per busy pipe per
#: control interval. Empty for runs without a shim scheme; absent in older results.
PIPE_SCHEMA: dict[str, pa.DataType] = {
    "pipe_id": pa.int64(),
    "src": pa.int64(),
    "dst": pa.int64(),
    "objective": pa.string(),
    "flows": pa.int64(),
    "demoted_flows": pa.int64(),
    "demoted": pa.bool_(),
    "guarantee_bps": pa.float64(),
    "max_guarantee_bps": pa.float64(),
    "mean_rate_bps": pa.float64(),
    "final_rate_bps": pa.float64(),
    "weight": pa.float64(),
    "raw_weight": pa.float64(),
    "marked_fraction": pa.float64(),
    "intervals": pa.int64(),
    "tx_pkts": pa.int64(),
    "tx_bytes": pa.int64(),
    "rx_pkts": pa.int64(),
    "inner_marks": pa.int64(),
    "drops": pa.int64(),
    "reports": pa.int64(),
}
PIPE_SAMPLE_SCHEMA: dict[str, pa.DataType] = {
    "t_s": pa.float64(),
    "pipe_id": pa.int64(),
    "rate_bps": pa.float64(),
    "guarantee_bps": pa.float64(),
    "weight": pa.float64(),
    "marked_fraction": pa.float64(),
    "sent_bps": pa.float64(),
    "backlog": pa.int64(),
}
SCHEMAS = {
    "flows": FLOW_SCHEMA,
    "queues": QUEUE_SCHEMA,
    "samples": SAMPLE_SCHEMA,
    "traces": TRACE_SCHEMA,
}
#: Tables a result directory may lack (older results): read when present, else empty.
OPTIONAL_SCHEMAS = {
    "class_samples": CLASS_SAMPLE_SCHEMA,
    "pipes": PIPE_SCHEMA,
    "pipe_samples": PIPE_SAMPLE_SCHEMA,
}
OPTIONAL_FILES = tuple(f"{name}.parquet" for name in OPTIONAL_SCHEMAS)

# Fixed writer options: same input, same bytes.
_PARQUET_OPTS: dict[str, Any] = {
    "compression": "zstd",
    "compression_level": 3,
    "use_dictionary": True,
    "write_statistics": True,
    "version": "2.6",
    "data_page_version": "1.0",
    "row_group_size": 1 << 20,
    "store_schema": False,
}


def _to_arrow(columns: Mapping[str, Any], schema: Mapping[str, pa.DataType]) -> pa.Table:
    """Columns (lists / arrays) → Arrow table with the known columns first, typed as declared.
    Declared columns the core did not return are absent (not invented)."""
    names = [c for c in schema if c in columns] + [c for c in columns if c not in schema]
    arrays = []
    lengths = set()
    for name in names:
        values = columns[name]
        typ = schema.get(name)
        if isinstance(values, pa.Array | pa.ChunkedArray):
            arr = values if typ is None else values.cast(typ)
        elif typ is not None and pa.types.is_floating(typ):
            arr = pa.array(np.asarray(values, dtype=np.float64), type=typ)
        else:
            arr = pa.array(values, type=typ)
        lengths.add(len(arr))
        arrays.append(arr)
    if len(lengths) > 1:
        raise ValueError(f"columns of unequal length: {sorted(lengths)}")
    return pa.table(dict(zip(names, arrays, strict=True)))


def _from_arrow(table: pa.Table) -> pd.DataFrame:
    return table.to_pandas()


def _frame_to_arrow(df: pd.DataFrame, schema: Mapping[str, pa.DataType]) -> pa.Table:
    cols = {
        c: pa.array(df[c].to_numpy(), type=schema.get(c))
        if c in schema
        else pa.Array.from_pandas(df[c])
        for c in df.columns
    }
    return _to_arrow(cols, schema).replace_schema_metadata(None)


def _json_default(o: Any) -> Any:
    if isinstance(o, np.integer):
        return int(o)
    if isinstance(o, np.floating):
        return float(o)
    if isinstance(o, np.ndarray):
        return o.tolist()
    if isinstance(o, Path):
        return str(o)
    raise TypeError(f"not JSON serializable: {type(o).__name__}")


def _dump_json(obj: Any) -> str:
    return json.dumps(obj, indent=2, sort_keys=True, default=_json_default) + "\n"


@dataclass
class Results:
    """One run's results.

    ``flows``: one row per flow (see docs/python-api.md for the columns); ``queues``: one row per
    switch/host egress queue; ``samples``: optional per-(port, queue) time series of queue
    length, bytes sent, port utilization, drops and ECN marks per interval (may be empty);
    ``class_samples``: optional goodput per traffic class per interval (may be empty);
    ``pipes`` / ``pipe_samples``: the sender shim's pipes (C3, ElasticSwitch) and their
    per-control-interval samples (empty without a shim scheme);
    ``meta``: seed, versions, events, packet_hops, wall_s, config_hash, ...; ``scenario``: the
    normalized scenario that produced them; ``traces``: optional per-flow sender time series
    (``output.trace_flows``; may be empty).
    """

    flows: pd.DataFrame
    queues: pd.DataFrame
    samples: pd.DataFrame
    meta: dict[str, Any] = field(default_factory=dict)
    scenario: dict[str, Any] = field(default_factory=dict)
    path: Path | None = None
    traces: pd.DataFrame = field(default_factory=pd.DataFrame)
    class_samples: pd.DataFrame = field(default_factory=pd.DataFrame)
    pipes: pd.DataFrame = field(default_factory=pd.DataFrame)
    pipe_samples: pd.DataFrame = field(default_factory=pd.DataFrame)

    # -- construction ------------------------------------------------------------------------

    @classmethod
    def from_core(
        cls,
        out: Mapping[str, Any],
        *,
        scenario: dict[str, Any],
        config_hash: str,
        extra_meta: Mapping[str, Any] | None = None,
    ) -> Results:
        """Wrap the dict returned by ``_core.run``."""
        meta = dict(out.get("meta") or {})
        all_schemas = {**SCHEMAS, **OPTIONAL_SCHEMAS}
        columns = {name: dict(out.get(name) or {}) for name in all_schemas}
        flows = columns["flows"]
        if "class" not in flows and "class_id" in flows and meta.get("classes"):
            names = list(meta["classes"])
            flows["class"] = [names[int(i)] for i in flows["class_id"]]
        tables = {
            name: _from_arrow(_to_arrow(columns[name], schema))
            for name, schema in all_schemas.items()
        }
        meta["config_hash"] = config_hash
        if extra_meta:
            meta.update(extra_meta)
        return cls(
            tables["flows"],
            tables["queues"],
            tables["samples"],
            meta,
            scenario,
            traces=tables["traces"],
            class_samples=tables["class_samples"],
            pipes=tables["pipes"],
            pipe_samples=tables["pipe_samples"],
        )

    # -- persistence -------------------------------------------------------------------------

    def save(self, directory: str | os.PathLike[str]) -> Path:
        """Write the results to ``directory`` atomically and return its path.

        Everything is written into a hidden temporary sibling first; only when all files are
        complete is it renamed to ``directory`` (an existing ``directory`` is swapped out at that
        last moment). An error or interrupt leaves either the old directory or none.
        """
        target = Path(directory).absolute()
        check_replaceable(target)
        target.parent.mkdir(parents=True, exist_ok=True)
        # Temporary directories of earlier saves of this target that were killed.
        clean_stale_temp(target.parent, name=target.name)
        tag = f"{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        tmp = target.parent / f".{target.name}{TMP_MARK}{tag}"
        tmp.mkdir()
        try:
            for name, schema in {**SCHEMAS, **OPTIONAL_SCHEMAS}.items():
                table = _frame_to_arrow(getattr(self, name), schema)
                _write_parquet(table, tmp / f"{name}.parquet")
            _write_text(tmp / "scenario.json", _dump_json(self.scenario))
            _write_text(tmp / "meta.json", _dump_json(self.meta))  # last: marks completion
            _fsync_dir(tmp)
            if target.exists():
                # Keep what the project did not write (plots, the user's files): move it into
                # the new directory first (a kill from here on leaves it in `tmp`, which
                # clean_stale_temp moves back).
                for child in sorted(target.iterdir()):
                    if child.name not in FILES + OPTIONAL_FILES:
                        os.replace(child, tmp / child.name)
                old = target.parent / f".{target.name}{OLD_MARK}{tag}"
                os.replace(target, old)
                try:
                    os.replace(tmp, target)
                except BaseException:
                    os.replace(old, target)
                    raise
                shutil.rmtree(old, ignore_errors=True)
            else:
                os.replace(tmp, target)
            _fsync_dir(target.parent)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        self.path = target
        return target

    # -- conveniences ------------------------------------------------------------------------

    @property
    def measured(self) -> pd.DataFrame:
        """Flows that started inside the measurement window."""
        return self.flows[self.flows["in_window"]]

    def summary(self) -> str:
        from .analysis import summary_table

        return summary_table(self)

    def _repr_html_(self) -> str:
        """Jupyter's rich display: run facts, FCT and slowdown by size (and class), warnings."""
        from .report import run_fragment

        return run_fragment(self)

    def __repr__(self) -> str:
        m = self.meta
        return (
            f"Results(scenario={m.get('scenario_name')!r}, seed={m.get('seed')}, "
            f"flows={len(self.flows)}, completed={m.get('flows_completed')}, "
            f"hash={str(m.get('config_hash', ''))[:12]})"
        )


def _write_parquet(table: pa.Table, path: Path) -> None:
    pq.write_table(table.replace_schema_metadata(None), path, **_PARQUET_OPTS)


def _write_text(path: Path, text: str) -> None:
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


class OutputError(ConfigError):
    """An output path that cannot hold results (a file, inside a file, not writable, or
    someone else's data); raised before a run starts."""


def _writable(d: Path) -> bool:
    """Whether a directory can be written: permissions say so and (for root, or a read-only
    file system, where they do not tell) creating an entry works."""
    if not os.access(d, os.W_OK | os.X_OK):
        return False
    probe = d / f".dcnsim-probe-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    try:
        probe.mkdir()
    except OSError:
        return False
    probe.rmdir()
    return True


def check_output(
    target: str | os.PathLike[str], key: str = "--output", *, result: bool = True
) -> None:
    """Check before simulating that ``target`` can receive a saved result: it is not a file
    and not inside one, the nearest existing directory is writable, and an existing directory
    is a previous result (or empty; not checked with ``result=False``, for a directory that
    holds other files, as a reproduction's). Raises :class:`OutputError` naming ``key``."""
    t = Path(target).absolute()
    if t.exists() and not t.is_dir():
        raise OutputError(f"{t} is a file, expected a directory for the results", key)
    probe = t
    while not probe.exists():
        if probe.parent == probe:
            break
        probe = probe.parent
    if probe != t and not probe.is_dir():
        raise OutputError(f"{t} would be inside {probe}, which is a file", key)
    # Saving renames a sibling into place, so the parent must be writable.
    where = probe if probe != t else t.parent
    if not _writable(where):
        raise OutputError(f"cannot write in {where} (permission denied or read-only)", key)
    if t.exists():
        if not _writable(t):
            raise OutputError(f"cannot write in {t} (permission denied or read-only)", key)
        if not result:
            return
        try:
            check_replaceable(t)
        except FileExistsError as e:
            raise OutputError(str(e), key) from None


def check_output_file(target: str | os.PathLike[str], key: str = "--output") -> None:
    """Check before writing that the file ``target`` can be written: it is not a directory,
    and its directory can be created or written (:func:`check_output`, ``result=False``)."""
    t = Path(target).absolute()
    if t.is_dir():
        raise OutputError(f"{t} is a directory, expected a file", key)
    try:
        check_output(t.parent, key, result=False)
    except OutputError as e:
        raise OutputError(f"cannot write {t}: {e.message}", key) from None


def check_replaceable(target: str | os.PathLike[str]) -> None:
    """Refuse to overwrite anything but a previous result (or an empty directory): ``-o ~``
    must never wipe a home directory."""
    t = Path(target)
    if not t.exists():
        return
    if t.is_dir() and (is_complete(t) or not any(t.iterdir())):
        return
    raise FileExistsError(
        f"{t} exists and is not a dcnsim result directory; choose another output path"
    )


def is_complete(directory: str | os.PathLike[str]) -> bool:
    """True if ``directory`` holds a complete saved result."""
    d = Path(directory)
    return d.is_dir() and all((d / f).is_file() for f in FILES)


def load(
    directory: str | os.PathLike[str], *, flow_columns: Sequence[str] | None = None
) -> Results:
    """Read a directory written by :meth:`Results.save`.

    ``flow_columns``: read only these columns of the flows table, in this order (a reader of
    a few of its ~50 columns then holds a fraction of the memory: a loaded table is mostly
    8-byte columns); a name the table does not have is a ``KeyError`` naming it."""
    d = Path(directory)
    if not is_complete(d):
        missing = [f for f in FILES if not (d / f).is_file()]
        raise FileNotFoundError(f"{d} is not a complete dcnsim result (missing: {missing})")
    cols: dict[str, list[str] | None] = {name: None for name in SCHEMAS}
    if isinstance(flow_columns, str):
        raise TypeError(
            f"flow_columns: a sequence of column names, not the string {flow_columns!r}"
        )
    if flow_columns is not None:
        want = list(dict.fromkeys(flow_columns))
        have = pq.read_schema(d / "flows.parquet").names
        if unknown := [c for c in want if c not in have]:
            raise KeyError(
                f"flow_columns: {d / 'flows.parquet'} has no column "
                f"{', '.join(map(repr, unknown))} (it has: {', '.join(have)})"
            )
        cols["flows"] = want
    f = d
    try:
        tables = {}
        for name in SCHEMAS:
            f = d / f"{name}.parquet"
            tables[name] = _from_arrow(pq.read_table(f, columns=cols[name]))
        for name in OPTIONAL_SCHEMAS:
            f = d / f"{name}.parquet"
            tables[name] = _from_arrow(pq.read_table(f)) if f.is_file() else pd.DataFrame()
        f = d / "meta.json"
        meta = json.loads(f.read_text(encoding="utf-8"))
        f = d / "scenario.json"
        scenario = json.loads(f.read_text(encoding="utf-8"))
    except (pa.ArrowException, OSError, ValueError) as e:
        # (ArrowInvalid is a ValueError; a JSON decoding error too.)
        raise DamagedResultError(
            f"{f} cannot be read back, so {d} is not a usable dcnsim result (a truncated or "
            f"overwritten file?): {type(e).__name__}: {e}",
            str(f),
        ) from None
    return Results(
        tables["flows"],
        tables["queues"],
        tables["samples"],
        meta,
        scenario,
        path=d.absolute(),
        traces=tables["traces"],
        class_samples=tables["class_samples"],
        pipes=tables["pipes"],
        pipe_samples=tables["pipe_samples"],
    )


def read_sweep_table(directory: str | os.PathLike[str]) -> pd.DataFrame:
    """``directory/sweep.parquet`` (a sweep's table), or :class:`DamagedResultError` naming it
    when it cannot be read back."""
    f = Path(directory) / "sweep.parquet"
    try:
        return pd.read_parquet(f)
    except (pa.ArrowException, OSError, ValueError) as e:
        raise DamagedResultError(
            f"{f} cannot be read back, so {directory} is not a usable sweep directory (a "
            f"truncated or overwritten file? 'dcnsim sweep ... --collect' rebuilds it from "
            f"the cached runs): {type(e).__name__}: {e}",
            str(f),
        ) from None


def pid_alive(pid: int) -> bool:
    """Whether a process ``pid`` exists on this machine (signal 0; one we may not signal
    exists too)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _owner_alive(name: str, max_age_s: float, mtime: float) -> bool:
    """Whether the save that made a temp dir named ``name`` may still be running."""
    marker = TMP_MARK if TMP_MARK in name else OLD_MARK
    tag = name.split(marker, 1)[1]
    parts = tag.rsplit("-", 2)  # host-pid-random (host names may contain "-")
    if len(parts) == 3 and parts[0] == socket.gethostname() and parts[1].isdigit():
        pid = int(parts[1])
        return pid != os.getpid() and pid_alive(pid)
    # another machine (shared file system): trust it only for a while
    return time.time() - mtime < max_age_s


def _target_name(name: str) -> str:
    """``.res.tmp-host-1-ab`` → ``res``."""
    marker = TMP_MARK if TMP_MARK in name else OLD_MARK
    return name[1:].split(marker, 1)[0]


def clean_stale_temp(
    parent: str | os.PathLike[str], max_age_s: float = 6 * 3600, *, name: str | None = None
) -> int:
    """Remove temporary/old directories that interrupted saves left in ``parent`` (only those
    of target ``name`` if given), recovering what they hold of the user's.

    A save killed after moving the previous result aside (``.old-``) with no result in place
    gets the previous result back; files that are not the project's (plots, notes) found in
    either kind of directory are moved back into the result directory. Directories of saves
    still running (a live process on this host, or for other hosts one younger than
    ``max_age_s``) are left alone, so shards sharing a cache do not disturb each other.
    Returns the number removed or restored.
    """
    n = 0
    p = Path(parent)
    if not p.is_dir():
        return 0
    stale = []
    for child in p.iterdir():
        cname = child.name
        if not (cname.startswith(".") and (TMP_MARK in cname or OLD_MARK in cname)):
            continue
        if name is not None and _target_name(cname) != name:
            continue
        try:
            mtime = child.stat().st_mtime
        except OSError:
            continue
        if _owner_alive(cname, max_age_s, mtime):
            continue
        stale.append(child)
    # previous results (.old-) first, so the user's files in a .tmp- have a home to go to
    stale.sort(key=lambda c: (TMP_MARK in c.name, c.name))
    for child in stale:
        target = p / _target_name(child.name)
        try:
            if OLD_MARK in child.name and not target.exists() and is_complete(child):
                os.replace(child, target)
                n += 1
                continue
            if target.is_dir():
                for entry in sorted(child.iterdir()):
                    if (
                        entry.name not in FILES + OPTIONAL_FILES
                        and not (target / entry.name).exists()
                    ):
                        os.replace(entry, target / entry.name)
        except OSError:
            pass
        shutil.rmtree(child, ignore_errors=True)
        n += 1
    return n
