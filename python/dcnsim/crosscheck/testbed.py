"""The testbed: builds a :class:`~.plan.Plan` in network namespaces and always tears it down.

Safety rules (docs/crosscheck.md): namespaces carry the prefix ``dcx-<pid>-`` and are never
connected to the root namespace; on start, namespaces with the prefix whose process is gone
are removed; teardown runs on success, error, Ctrl-C and SIGTERM (a context manager plus a
SIGTERM handler that turns the signal into an exception); only the driver processes this
command started are ever stopped, by their pid.
"""

from __future__ import annotations

import contextlib
import json
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import FrameType, TracebackType
from typing import Any

from ..results import pid_alive
from .plan import PREFIX, Plan, driver_spec, host_addr

DRIVER = Path(__file__).with_name("driver.py")


class TestbedError(RuntimeError):
    """A command building the testbed failed (the message has the command and its error)."""


class Terminated(BaseException):
    """SIGTERM arrived: unwinds like Ctrl-C so the testbed is torn down."""


def _run(args: list[str], stdin: str | None = None, check: bool = True) -> str:
    r = subprocess.run(args, input=stdin, capture_output=True, text=True, check=False, timeout=60)
    if check and r.returncode != 0:
        what = " ".join(args)
        raise TestbedError(f"{what}: {r.stderr.strip() or r.stdout.strip()}")
    return r.stdout


def list_ours() -> list[str]:
    """Namespaces with the project's prefix (any process)."""
    out = _run(["ip", "netns", "list"], check=False)
    names = [ln.split()[0] for ln in out.splitlines() if ln.strip()]
    return [n for n in names if n.startswith(PREFIX)]


def clean_stale() -> list[str]:
    """Removes namespaces ``dcx-<pid>-…`` whose process no longer exists; returns them."""
    gone = []
    for ns in list_ours():
        m = re.match(rf"{re.escape(PREFIX)}(\d+)-", ns)
        if m and not pid_alive(int(m.group(1))):
            _run(["ip", "netns", "del", ns], check=False)
            gone.append(ns)
    return gone


class Testbed:
    """``with Testbed(plan) as tb: tb.run(...)`` — built on enter, removed on exit."""

    def __init__(self, plan: Plan, cpus: int = 1) -> None:
        self.plan = plan
        self.cpus = cpus
        self.created: list[str] = []
        self.procs: list[subprocess.Popen[bytes]] = []
        self._old_term: Any = None
        self.stale_removed: list[str] = []

    # -- lifecycle

    def __enter__(self) -> Testbed:
        self._old_term = signal.getsignal(signal.SIGTERM)

        def on_term(signum: int, frame: FrameType | None) -> None:
            raise Terminated()

        signal.signal(signal.SIGTERM, on_term)
        try:
            self.stale_removed = clean_stale()
            self.build()
        except BaseException:
            self.teardown()
            raise
        return self

    def __exit__(
        self,
        et: type[BaseException] | None,
        ev: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.teardown()

    def teardown(self) -> None:
        """Stops our drivers (by pid) and deletes our namespaces; safe to call twice."""
        for p in self.procs:
            if p.poll() is None:
                p.kill()
                with contextlib.suppress(subprocess.TimeoutExpired):
                    p.wait(timeout=5)
        self.procs = []
        for ns in reversed(self.created):
            _run(["ip", "netns", "del", ns], check=False)
        self.created = []
        if self._old_term is not None:
            signal.signal(signal.SIGTERM, self._old_term)
            self._old_term = None

    # -- build

    def _netns(self, name: str) -> None:
        _run(["ip", "netns", "add", name])
        self.created.append(name)
        _run(["ip", "-n", name, "link", "set", "lo", "up"])

    def build(self) -> None:
        pl = self.plan
        sw = pl.switch_ns
        self._netns(sw)
        _run(["ip", "-n", sw, "link", "add", "br0", "type", "bridge"])
        # no STP and no forwarding delay: ports forward at once
        _run(["ip", "-n", sw, "link", "set", "br0", "type", "bridge", "stp_state", "0"])
        _run(["ip", "-n", sw, "link", "set", "br0", "type", "bridge", "forward_delay", "0"])
        _run(["ip", "-n", sw, "link", "set", "br0", "up"])
        mask = format((1 << max(1, self.cpus)) - 1, "x")
        macs: dict[str, str] = {}
        for h in pl.hosts:
            self._netns(h.ns)
            _run(
                [
                    "ip",
                    "-n",
                    sw,
                    "link",
                    "add",
                    h.port_dev,
                    "type",
                    "veth",
                    "peer",
                    "name",
                    "eth0",
                    "netns",
                    h.ns,
                ]
            )
            batch_sw = [
                f"link set {h.port_dev} master br0",
                f"link set {h.port_dev} up",
            ]
            _run(["ip", "-n", sw, "-batch", "-"], stdin="\n".join(batch_sw) + "\n")
            batch_h = [
                f"addr add {h.addr}/15 dev eth0",
                "link set eth0 up",
                h.route,
            ]
            _run(["ip", "-n", h.ns, "-batch", "-"], stdin="\n".join(batch_h) + "\n")
            for ns, dev in ((h.ns, "eth0"), (sw, h.port_dev)):
                # one packet per skb in the qdiscs (no 64 KB super-packets)
                _run(
                    [
                        "ip",
                        "netns",
                        "exec",
                        ns,
                        "ethtool",
                        "-K",
                        dev,
                        "gso",
                        "off",
                        "tso",
                        "off",
                        "gro",
                        "off",
                    ]
                )
                # RPS: each flow's packets hashed to one CPU, so never reordered across CPUs
                _run(
                    [
                        "ip",
                        "netns",
                        "exec",
                        ns,
                        "sh",
                        "-c",
                        f"echo {mask} > /sys/class/net/{dev}/queues/rx-0/rps_cpus",
                    ]
                )
            _run(
                ["ip", "netns", "exec", h.ns, "sysctl", "-q", "-w"]
                + [f"{k}={v}" for k, v in h.sysctls.items()]
            )
            _run(["tc", "-n", h.ns, "-batch", "-"], stdin="\n".join(h.tc_nic) + "\n")
            _run(["tc", "-n", sw, "-batch", "-"], stdin="\n".join(h.tc_switch_port) + "\n")
            macs[h.name] = _run(
                ["ip", "netns", "exec", h.ns, "cat", "/sys/class/net/eth0/address"]
            ).strip()
        # static neighbours: no ARP exchange in front of a flow's first packet
        for h in pl.hosts:
            lines = [
                f"neigh replace {host_addr(i)} lladdr {macs[o.name]} dev eth0 nud permanent"
                for i, o in enumerate(pl.hosts)
                if o is not h
            ]
            _run(["ip", "-n", h.ns, "-batch", "-"], stdin="\n".join(lines) + "\n")

    # -- use

    def nstat(self) -> dict[str, dict[str, int]]:
        """TcpExt counters of every host namespace (``/proc/net/netstat``)."""
        out = {}
        for h in self.plan.hosts:
            txt = _run(["ip", "netns", "exec", h.ns, "cat", "/proc/net/netstat"])
            lines = [ln.split() for ln in txt.splitlines()]
            vals: dict[str, int] = {}
            for i in range(0, len(lines) - 1, 2):
                if lines[i] and lines[i][0] == "TcpExt:":
                    vals.update(
                        {k: int(v) for k, v in zip(lines[i][1:], lines[i + 1][1:], strict=False)}
                    )
            out[h.name] = vals
        return out

    def run_flows(self, duration_s: float, timeout_s: float) -> dict[str, Any]:
        """Starts one driver per host, waits for them, returns their records."""
        pl = self.plan
        with tempfile.TemporaryDirectory(prefix="dcx-") as tmp:
            specs = []
            t0 = time.monotonic() + 1.5 + 0.05 * len(pl.hosts)
            for h in pl.hosts:
                spec = driver_spec(pl, h, t0, duration_s + timeout_s, f"{tmp}/{h.name}.ready")
                sp = Path(tmp) / f"{h.name}.json"
                sp.write_text(json.dumps(spec))
                specs.append((h, sp, Path(tmp) / f"{h.name}.out.json"))
            before = self.nstat()
            for h, sp, outp in specs:
                self.procs.append(
                    subprocess.Popen(
                        [
                            "ip",
                            "netns",
                            "exec",
                            h.ns,
                            sys.executable,
                            "-S",
                            str(DRIVER),
                            str(sp),
                            str(outp),
                        ],
                        stdout=subprocess.DEVNULL,
                        stderr=subprocess.PIPE,
                    )
                )
            late_ready = 0
            while time.monotonic() < t0:
                if all(Path(f"{tmp}/{h.name}.ready").exists() for h in pl.hosts):
                    break
                time.sleep(0.01)
            else:
                late_ready = 1
            errs = []
            for p in self.procs:
                try:
                    _, err = p.communicate(timeout=duration_s + timeout_s + 30)
                except subprocess.TimeoutExpired:
                    p.kill()
                    _, err = p.communicate()
                if p.returncode != 0:
                    errs.append((err or b"").decode(errors="replace")[-2000:])
            self.procs = []
            after = self.nstat()
            recs = []
            for _, _, outp in specs:
                if outp.exists():
                    recs.append(json.loads(outp.read_text()))
            if errs and not recs:
                raise TestbedError("traffic driver failed:\n" + "\n".join(errs))
        counters: dict[str, int] = {}
        for h in before:
            for k, v in after[h].items():
                counters[k] = counters.get(k, 0) + v - before[h].get(k, 0)
        return {"hosts": recs, "nstat": counters, "errors": errs, "late_ready": late_ready}
