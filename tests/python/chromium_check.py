"""Open an HTML file in headless Chromium (Debian's ``chromium``) and report what it showed.

``--dump-dom`` prints the DOM after the page's load event, so the report's own script (see
``dcnsim/report.py``) has recorded how many figures decoded; ``--enable-logging=stderr --v=0``
prints every console message as a ``:CONSOLE`` line on stderr.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest


def chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if path := shutil.which(name):
            return path
    return None


@dataclass
class Rendered:
    loaded: int
    total: int
    console: list[str]
    dom: str


def render(path: Path, timeout_s: float = 90.0) -> Rendered:
    """Render ``path``; skips the calling test when no Chromium is installed."""
    exe = chromium()
    if exe is None:
        pytest.skip("chromium not installed (apt-get install chromium); .ci/run installs it")
    with tempfile.TemporaryDirectory(prefix="dcnsim-chromium-") as profile:
        proc = subprocess.run(
            [
                exe,
                "--headless",
                "--no-sandbox",  # CI runs as root
                "--disable-gpu",
                "--no-first-run",
                f"--user-data-dir={profile}",
                "--enable-logging=stderr",
                "--v=0",
                "--virtual-time-budget=10000",
                "--dump-dom",
                Path(path).absolute().as_uri(),
            ],
            capture_output=True,
            text=True,
            timeout=timeout_s,
            check=False,
        )
    assert proc.returncode == 0, proc.stderr[-2000:]
    m = re.search(r'<p id="dcnsim-figures" data-loaded="(-?\d+)" data-total="(-?\d+)"', proc.stdout)
    assert m is not None, "the report's marker is missing from the DOM: " + proc.stdout[-500:]
    console = [ln for ln in proc.stderr.splitlines() if ":CONSOLE" in ln]
    return Rendered(int(m.group(1)), int(m.group(2)), console, proc.stdout)
