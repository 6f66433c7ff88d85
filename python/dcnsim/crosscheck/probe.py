"""What this machine can run: root, the tools, network namespaces, qdiscs, congestion controls.

Probed once per command, in a throw-away namespace with the project's prefix. What is missing
decides what the crosscheck refuses (exit 2 with the list), never silently what it compares.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass, field

from .plan import PREFIX, Capabilities

TOOLS = {"ip": "iproute2", "tc": "iproute2", "ethtool": "ethtool", "sysctl": "procps"}
QDISCS = ("htb", "pfifo", "bfifo", "netem")


@dataclass
class Probe:
    root: bool
    tools: dict[str, bool]
    netns: bool = False
    qdiscs: set[str] = field(default_factory=set)
    ccs: set[str] = field(default_factory=set)
    kernel: str = ""
    cpus: int = 1
    detail: str = ""

    def missing(self) -> list[str]:
        """What stops the testbed, in words a user can act on."""
        out = []
        if not self.root:
            out.append("root (network namespaces and qdiscs need CAP_NET_ADMIN): run as root")
        absent = sorted({pkg for t, pkg in TOOLS.items() if not self.tools.get(t)})
        if absent:
            tools = ", ".join(t for t in TOOLS if not self.tools.get(t))
            out.append(f"{tools} (install the Debian packages: {' '.join(absent)})")
        if self.root and self.tools.get("ip") and not self.netns:
            out.append(f"network namespaces ({self.detail or 'ip netns add failed'})")
        if self.netns:
            for q in ("htb", "pfifo", "bfifo"):
                if q not in self.qdiscs:
                    out.append(f"the {q} qdisc (CONFIG_NET_SCH_{q.upper()})")
        return out

    def capabilities(self) -> Capabilities:
        return Capabilities(
            qdiscs=set(self.qdiscs), ccs=set(self.ccs), netem="netem" in self.qdiscs
        )


def _run(args: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, capture_output=True, text=True, check=False, timeout=20)


def probe() -> Probe:
    p = Probe(root=os.geteuid() == 0, tools={t: shutil.which(t) is not None for t in TOOLS})
    p.kernel = os.uname().release
    p.cpus = os.cpu_count() or 1
    try:
        with open("/proc/sys/net/ipv4/tcp_available_congestion_control") as f:
            p.ccs = set(f.read().split())
    except OSError:
        p.ccs = set()
    if not (p.root and p.tools["ip"] and p.tools["tc"]):
        return p
    ns = f"{PREFIX}{os.getpid()}-probe"
    r = _run(["ip", "netns", "add", ns])
    if r.returncode != 0:
        p.detail = r.stderr.strip()
        return p
    try:
        p.netns = True
        _run(["ip", "-n", ns, "link", "add", "pa", "type", "veth", "peer", "name", "pb"])
        for q in QDISCS:
            r = _run(["tc", "-n", ns, "qdisc", "replace", "dev", "pa", "root", q])
            if r.returncode == 0:
                p.qdiscs.add(q)
                _run(["tc", "-n", ns, "qdisc", "del", "dev", "pa", "root"])
    finally:
        _run(["ip", "netns", "del", ns])
    return p
