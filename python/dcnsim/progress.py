"""A small dependency-free progress bar with ETA, written to stderr.

On a terminal it redraws one line at most a few times per second. In a Jupyter notebook (an
IPython kernel is running and the stream is not a terminal) it shows the same line as a display
output updated in place (IPython's ``display(..., display_id=True)``; no ipywidgets needed), or,
when IPython's display is unavailable, redraws with carriage returns, which notebook front ends
honour. Elsewhere (CI, pipes, log files) it stays silent until :meth:`Progress.close`, which
prints one final line. ``enabled=False`` silences it completely.
"""

from __future__ import annotations

import os
import sys
import time
from types import TracebackType
from typing import TextIO


def in_notebook() -> bool:
    """Whether this process is a Jupyter kernel (IPython's ZMQ shell). Never imports IPython:
    a kernel has already loaded it."""
    ipy = sys.modules.get("IPython")
    if ipy is None or "ipykernel" not in sys.modules:
        return False
    try:
        shell = ipy.get_ipython()
    except Exception:
        return False
    return shell is not None and type(shell).__name__ == "ZMQInteractiveShell"


class _NotebookLine:
    """One text output of the current notebook cell, replaced on every update."""

    def __init__(self) -> None:
        from IPython.display import Pretty, display

        self._pretty = Pretty
        self._handle = display(Pretty(""), display_id=True)

    def show(self, text: str) -> None:
        self._handle.update(self._pretty(text))


def _fmt_duration(seconds: float) -> str:
    if seconds != seconds or seconds == float("inf"):  # NaN or unknown
        return "--:--"
    s = round(seconds)
    h, rem = divmod(s, 3600)
    m, s = divmod(rem, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m:02d}:{s:02d}"


class Progress:
    """Progress towards ``total`` units; call :meth:`update` with the absolute amount done."""

    def __init__(
        self,
        total: float,
        desc: str = "",
        *,
        unit: str = "",
        enabled: bool = True,
        stream: TextIO | None = None,
        min_interval_s: float = 0.1,
        width: int = 28,
    ) -> None:
        self.total = float(total)
        self.desc = desc
        self.unit = unit
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = enabled
        isatty = getattr(self.stream, "isatty", lambda: False)()
        ci = os.environ.get("CI", "").lower() in ("1", "true")
        self.notebook = enabled and not isatty and not ci and in_notebook()
        self.live = enabled and not ci and (isatty or self.notebook)
        self._cell: _NotebookLine | None = None
        if self.notebook:
            try:
                self._cell = _NotebookLine()
            except Exception:  # no IPython.display: carriage returns on the stream
                self._cell = None
            min_interval_s = max(min_interval_s, 0.25)  # each update is a message to the browser
        self.min_interval_s = min_interval_s
        self.width = width
        self.done = 0.0
        self.extra = ""
        self.start = time.monotonic()
        self._last_draw = 0.0
        self._closed = False
        self._last_len = 0

    def update(self, done: float, extra: str = "") -> None:
        self.done = float(done)
        self.extra = extra
        if not self.live:
            return
        now = time.monotonic()
        if now - self._last_draw >= self.min_interval_s or self.done >= self.total:
            self._last_draw = now
            self._draw(self.line())

    def advance(self, n: float = 1.0, extra: str = "") -> None:
        self.update(self.done + n, extra)

    def eta_s(self) -> float:
        elapsed = time.monotonic() - self.start
        if self.done <= 0 or self.total <= 0:
            return float("nan")
        return elapsed * max(self.total - self.done, 0.0) / self.done

    def line(self, final: bool = False) -> str:
        frac = min(max(self.done / self.total, 0.0), 1.0) if self.total > 0 else 1.0
        filled = int(frac * self.width)
        bar = "#" * filled + "-" * (self.width - filled)
        elapsed = time.monotonic() - self.start
        timing = (
            f"{_fmt_duration(elapsed)}"
            if final
            else f"{_fmt_duration(elapsed)} < ETA {_fmt_duration(self.eta_s())}"
        )
        head = f"{self.desc}: " if self.desc else ""
        counts = ""
        if self.unit:
            counts = f" {self.done:g}/{self.total:g} {self.unit}"
        extra = f" {self.extra}" if self.extra else ""
        return f"{head}[{bar}] {frac * 100:5.1f}%{counts} {timing}{extra}"

    def _draw(self, text: str) -> None:
        if self._cell is not None:
            self._cell.show(text)
            return
        pad = " " * max(self._last_len - len(text), 0)
        self.stream.write("\r" + text + pad)
        self.stream.flush()
        self._last_len = len(text)

    def close(self, message: str | None = None) -> None:
        """Finish: on a terminal end the bar's line; elsewhere print one final line."""
        if self._closed:
            return
        self._closed = True
        if not self.enabled:
            return
        text = message if message is not None else self.line(final=True)
        if self._cell is not None:
            self._cell.show(text)
            return
        if self.live:
            self._draw(text)
            self.stream.write("\n")
        else:
            self.stream.write(text + "\n")
        self.stream.flush()

    def __enter__(self) -> Progress:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc_type is None:
            self.close()
        elif self._cell is not None:
            self._closed = True
        elif self.live and not self._closed:
            self._closed = True
            self.stream.write("\n")
            self.stream.flush()
