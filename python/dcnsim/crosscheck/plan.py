"""From a normalized scenario to the testbed that runs it on the kernel: pure functions.

Nothing here touches the system: :func:`sim_overrides` says how the simulated side is set up
(the ``linux`` TCP profile, the handshake, token-bucket links), :func:`check_scenario` rejects
what the testbed cannot build (naming the key, as every scenario error does), and
:func:`build_plan` produces the exact ``ip``/``tc``/``sysctl`` commands and per-host flow
lists the testbed runs. Unit tests check the translation without root.

The testbed: one namespace per host and one switch namespace holding a bridge with one veth
port per host, never connected to the root namespace; addresses from the benchmarking range
198.18.0.0/15 (RFC 2544 App. C.2.2). Each egress — the host's NIC and the switch port toward
the host — is an HTB tree: a root class at the link rate whose bucket is the link's token
bucket, and one leaf class per queue (strict priority: leaves at a token rate that borrow
from the root in prio order; DRR: leaf rates in the weights' shares; FIFO: one leaf) with a
drop-tail ``pfifo``/``bfifo`` of the queue's limit. HTB charges ``skb->len`` (the IP packet
plus the 14-byte Ethernet header); ``overhead``/``mpu`` make it charge dcnsim's wire bytes
(+ FCS, preamble, inter-frame gap; at least ``min_wire``), so both sides shape the same bytes.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import ConfigError

#: Namespace name prefix; stale namespaces with it (of a dead process) are removed on start.
PREFIX = "dcx-"
#: The benchmarking range (RFC 2544 Appendix C.2.2, RFC 6815): never routed on a real network.
NET = "198.18.0.0/15"
PORT = 5001
#: Largest link rate the testbed shapes faithfully on two cores at 1500 B MTU (docs).
MAX_RATE_BPS = 500e6
#: Link delays up to this are taken as the testbed's own per-hop latency (veth + bridge +
#: softirq, tens of µs) when the kernel has no netem; longer ones need netem.
NATIVE_DELAY_S = 50e-6
#: A host NIC queue without a limit in the scenario (the kernel's TSQ keeps it short).
HOST_UNLIMITED_PKTS = 10000

# Linux congestion controls for dcnsim's `cc` values.
KERNEL_CC = {"cubic": "cubic", "newreno": "reno", "dctcp": "dctcp"}


def host_addr(i: int) -> str:
    """Address of host i: 198.18.0.1, 198.18.0.2, ... (i < 130000)."""
    n = i + 1
    return f"198.{18 + n // 65536}.{(n // 256) % 256}.{n % 256}"


def dscp_tos(priority: int) -> int:
    """TOS byte of a flow of class priority p: DSCP CS<p> (RFC 2474 class selector)."""
    return (priority * 8) << 2


# ---------------------------------------------------------------------------------------------
# units (the normalized scenario writes rates, times and sizes as strings)

_RATE = {"bps": 1.0, "kbps": 1e3, "mbps": 1e6, "gbps": 1e9, "tbps": 1e12}
_TIME = {"ps": 1e-12, "ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0}
_SIZE = {"b": 1, "kb": 1e3, "mb": 1e6, "gb": 1e9, "kib": 1024, "mib": 1024**2, "gib": 1024**3}


def _split(v: str) -> tuple[float, str]:
    s = v.strip()
    i = len(s)
    while i > 0 and not (s[i - 1].isdigit() or s[i - 1] == "."):
        i -= 1
    return float(s[:i]), s[i:].strip()


def rate_bps(v: Any) -> float:
    if isinstance(v, (int, float)):
        return float(v)
    n, u = _split(v)
    return n * _RATE[u.lower() or "bps"]


def seconds(v: Any) -> float:
    if isinstance(v, (int, float)):
        return float(v)
    n, u = _split(v)
    return n * _TIME[u.lower() or "s"]


def amount(v: Any) -> tuple[str, int]:
    """A buffer amount as ("pkt", n) or ("bytes", n)."""
    if isinstance(v, (int, float)):
        return ("bytes", int(v))
    n, u = _split(v)
    if u.lower() == "pkt":
        return ("pkt", int(n))
    return ("bytes", round(n * _SIZE[u.lower() or "b"]))


def fmt_rate(bps: float) -> str:
    return f"{round(bps)}bit"


# ---------------------------------------------------------------------------------------------
# the simulated side


def sim_overrides(raw: Mapping[str, Any], rate: float | None = None) -> dict[str, Any]:
    """The scenario as the simulated side runs it: every transport a class uses gets
    ``profile = "linux"`` (unless written) and ``handshake = true`` (the kernel connects
    before sending; FCTs on both sides are measured from the flow's start), every link the
    token-bucket shaper HTB runs, and with ``rate`` every link rate scaled so the host links
    run at ``rate`` (buffers in packets and bursts stay as they are)."""
    sc = copy.deepcopy(dict(raw))
    topo = sc.setdefault("topology", {})
    keys = [k for k in ("link", "host_link", "core_link", "fabric_link") if k in topo]
    if rate is not None:
        base = topo.get("link") or topo.get("host_link")
        if base is None:
            raise ConfigError("--rate needs a topology with a link or host_link", "--rate")
        factor = rate / rate_bps(base["rate"])
        for k in keys:
            topo[k] = {**topo[k], "rate": f"{round(rate_bps(topo[k]['rate']) * factor)}bps"}
    for k in keys:
        topo[k] = {**topo[k], "shaper": topo[k].get("shaper", "token_bucket")}
    transports = sc.setdefault("transports", {})
    for c in sc.get("classes") or []:
        name = c.get("transport", "dctcp")
        t = transports.setdefault(name, {})
        t.setdefault("profile", "linux")
        t.setdefault("handshake", True)
    return sc


# ---------------------------------------------------------------------------------------------
# what the testbed can build


@dataclass
class Capabilities:
    """What the kernel offers (see :mod:`.probe`); tests build it by hand."""

    qdiscs: set[str] = field(default_factory=lambda: {"htb", "pfifo", "bfifo"})
    ccs: set[str] = field(default_factory=lambda: {"reno", "cubic"})
    netem: bool = False


def _nondefault(d: Mapping[str, Any], key: str, default: Any) -> bool:
    return key in d and d[key] is not None and d[key] != default


def check_scenario(sc: Mapping[str, Any], caps: Capabilities) -> list[str]:
    """Rejects (ConfigError naming the key) what the testbed cannot run faithfully; returns
    notes on settings the kernel side approximates."""
    notes: list[str] = []
    topo = sc["topology"]
    if topo.get("kind") != "star":
        raise ConfigError(
            f'the crosscheck testbed builds one switch (kind = "star"), not {topo.get("kind")!r}',
            "topology.kind",
        )
    link = topo["link"]
    if rate_bps(link["rate"]) > MAX_RATE_BPS:
        raise ConfigError(
            f"{link['rate']} is above what the testbed shapes faithfully on this machine "
            f"(about {MAX_RATE_BPS / 1e6:.0f} Mb/s at 1500 B MTU); scale it with --rate",
            "topology.link.rate",
        )
    delay = seconds(link["delay"])
    if delay > NATIVE_DELAY_S and not caps.netem:
        raise ConfigError(
            f"a propagation delay of {link['delay']} needs netem, which this kernel lacks; "
            f"delays up to {NATIVE_DELAY_S * 1e6:.0f}us stand for the testbed's own latency",
            "topology.link.delay",
        )
    if delay > NATIVE_DELAY_S:
        notes.append(f"topology.link.delay: {link['delay']} per hop added with netem")
    if link.get("shaper", "wire") != "token_bucket":
        raise ConfigError(
            "the kernel side shapes with HTB, a token bucket: the simulated side needs "
            'shaper = "token_bucket" to compare like with like',
            "topology.link.shaper",
        )
    for side in ("switch", "host"):
        port = sc[side]
        if port["scheduler"]["kind"] not in ("fifo", "strict", "drr"):
            raise ConfigError(
                f"scheduler {port['scheduler']['kind']!r} has no HTB translation here "
                "(fifo, strict, drr)",
                f"{side}.scheduler.kind",
            )
        if port.get("driver_queue"):
            raise ConfigError("no driver queue on the kernel side", f"{side}.driver_queue")
    sw = sc["switch"]
    for key, default in (
        ("shared_buffer", None),
        ("colour", None),
        ("pfc", None),
        ("reserved", "0B"),
    ):
        if _nondefault(sw, key, default):
            raise ConfigError("not available in the crosscheck testbed", f"switch.{key}")
    if sw.get("ecn", {}).get("kind", "none") != "none":
        raise ConfigError("ECN marking is not built by the testbed", "switch.ecn")
    if (sc.get("scheme") or {}).get("kind", "none") != "none":
        raise ConfigError("schemes are not built by the testbed", "scheme.kind")
    if sc.get("sources"):
        raise ConfigError("open-loop sources are not replayed by the testbed", "sources")
    queue_limits(sw, "switch")  # raises on a port limit HTB cannot express
    transports = sc.get("transports") or {}
    for i, c in enumerate(sc.get("classes") or []):
        t = transports.get(c["transport"], {})
        cc = t.get("cc", c["transport"])
        kcc = KERNEL_CC.get(cc)
        if kcc is None or kcc not in caps.ccs:
            raise ConfigError(
                f"congestion control {cc!r} is not available in this kernel "
                f"(available: {', '.join(sorted(caps.ccs))})",
                f"classes[{i}].transport",
            )
        if t.get("profile", "linux") != "linux":
            notes.append(
                f"transports.{c['transport']}.profile: {t['profile']!r}, compared with "
                "the kernel anyway"
            )
    return notes


def queue_limits(port: Mapping[str, Any], side: str) -> list[tuple[str, int]]:
    """Per-queue drop-tail limits as ("pkt" | "bytes", n). A port limit shared by several
    queues has no HTB equivalent: it must be absent, or at least the sum of queue limits."""
    nq = int(port["queues"])
    ql = port.get("queue_limit")
    pl = port.get("port_limit")
    per: list[tuple[str, int] | None]
    if ql is None:
        per = [None] * nq
    elif isinstance(ql, list):
        per = [amount(ql[min(q, len(ql) - 1)]) for q in range(nq)]
    else:
        per = [amount(ql)] * nq
    if pl is not None:
        p = amount(pl)
        if nq == 1:
            per = [min(per[0], p) if per[0] and per[0][0] == p[0] else (per[0] or p)]
        elif any(x is None for x in per):
            raise ConfigError(
                "a port limit shared by several queues has no HTB equivalent; give each "
                "queue its own queue_limit (and a port_limit at least their sum, or none)",
                f"{side}.port_limit",
            )
        elif all(x is not None and x[0] == p[0] for x in per):
            if sum(x[1] for x in per if x is not None) > p[1]:
                raise ConfigError(
                    "the port limit is below the sum of the queue limits; HTB has no "
                    "shared port limit",
                    f"{side}.port_limit",
                )
        else:
            raise ConfigError(
                "mixes packet and byte limits; use one unit for port_limit and queue_limit",
                f"{side}.port_limit",
            )
    return [x if x is not None else ("pkt", HOST_UNLIMITED_PKTS) for x in per]


# ---------------------------------------------------------------------------------------------
# tc commands for one egress


def _leaf_qdisc(dev: str, classid: str, handle: int, lim: tuple[str, int], skb_per_wire: float):
    kind, n = lim
    if kind == "pkt":
        return f"qdisc add dev {dev} parent {classid} handle {handle:x}: pfifo limit {n}"
    # bfifo counts skb->len (IP + 14 B), dcnsim counts wire bytes (IP + eth_overhead)
    return (
        f"qdisc add dev {dev} parent {classid} handle {handle:x}: "
        f"bfifo limit {max(1, math.floor(n * skb_per_wire))}"
    )


def tc_egress(
    dev: str,
    port: Mapping[str, Any],
    side: str,
    rate: float,
    depth: int,
    packet: Mapping[str, Any],
) -> list[str]:
    """``tc -batch`` lines shaping egress ``dev`` like a dcnsim port: HTB root class at
    ``rate`` with a bucket of ``depth`` wire bytes, one leaf per queue, DSCP filters."""
    nq = int(port["queues"])
    sched = port["scheduler"]
    kind = sched["kind"]
    mtu_skb = int(packet["mtu"]) + 14
    overhead = int(packet["eth_overhead"]) - 14
    mpu = int(packet["min_wire"])
    skb_per_wire = mtu_skb / (mtu_skb + overhead)
    lims = queue_limits(port, side)
    acct = f"overhead {overhead} mpu {mpu}"
    burst = f"burst {depth} cburst {depth}"
    out = [
        f"qdisc add dev {dev} root handle 1: htb default {10 + nq - 1:x} r2q 1",
        f"class add dev {dev} parent 1: classid 1:1 htb rate {fmt_rate(rate)} "
        f"ceil {fmt_rate(rate)} {burst} {acct}",
    ]
    if kind == "fifo" or nq == 1:
        nq = 1
        out.append(
            f"class add dev {dev} parent 1:1 classid 1:a htb rate {fmt_rate(rate)} "
            f"ceil {fmt_rate(rate)} {burst} quantum {mtu_skb + overhead} {acct}"
        )
        out[0] = f"qdisc add dev {dev} root handle 1: htb default a r2q 1"
    else:
        weights: list[float]
        if kind == "drr":
            w = sched.get("weights") or [1] * nq
            weights = [float(w[min(q, len(w) - 1)]) for q in range(nq)]
        else:
            weights = [0.0] * nq
        for q in range(nq):
            if kind == "strict":
                # strict priority: a token rate, everything else borrowed from the root in
                # prio order (HTB serves the lowest prio number first: htb_dequeue_tree)
                leaf_rate = max(8000.0, rate / 1000)
                prio = q
                quantum = mtu_skb + overhead
            else:
                leaf_rate = rate * weights[q] / sum(weights)
                prio = 0
                quantum = max(mtu_skb + overhead, round((mtu_skb + overhead) * weights[q]))
            out.append(
                f"class add dev {dev} parent 1:1 classid 1:{10 + q:x} htb "
                f"rate {fmt_rate(leaf_rate)} ceil {fmt_rate(rate)} {burst} "
                f"prio {min(prio, 7)} quantum {quantum} {acct}"
            )
    for q in range(nq):
        out.append(_leaf_qdisc(dev, f"1:{10 + q:x}", 0x10 + q, lims[q], skb_per_wire))
    if nq > 1:
        for q in range(nq):
            # DSCP CS<q> (TOS byte q << 5) → queue q; the highest class catches the rest
            out.append(
                f"filter add dev {dev} parent 1: protocol ip prio 1 u32 "
                f"match ip dsfield {dscp_tos(q):#04x} 0xfc flowid 1:{10 + q:x}"
            )
    return out


# ---------------------------------------------------------------------------------------------
# the plan


@dataclass
class HostPlan:
    name: str
    ns: str
    addr: str
    port_dev: str  # the switch's port toward this host
    sysctls: dict[str, str]
    route: str
    tc_nic: list[str]
    tc_switch_port: list[str]
    flows: list[dict[str, Any]]
    n_recv: int


@dataclass
class Plan:
    prefix: str
    switch_ns: str
    hosts: list[HostPlan]
    rate_bps: float
    depth_bytes: int
    notes: list[str]


def ns_prefix(pid: int) -> str:
    return f"{PREFIX}{pid}-"


def _transport(sc: Mapping[str, Any], cls: Mapping[str, Any]) -> dict[str, Any]:
    return dict((sc.get("transports") or {}).get(cls["transport"], {}))


def build_plan(
    sc: Mapping[str, Any], flows: Sequence[Mapping[str, Any]], pid: int, caps: Capabilities
) -> Plan:
    """The testbed for normalized scenario ``sc`` (as the simulated side ran it) and its flow
    list (``id, src, dst, size, start_s, class``)."""
    notes = check_scenario(sc, caps)
    pfx = ns_prefix(pid)
    topo = sc["topology"]
    n = int(topo["hosts"])
    link = topo["link"]
    rate = rate_bps(link["rate"])
    pkt = sc["packet"]
    mtu_wire = int(pkt["mtu"]) + int(pkt["eth_overhead"])
    burst = amount(link["burst"])[1] if link.get("burst") is not None else 2 * mtu_wire
    depth = burst - mtu_wire
    classes = sc.get("classes") or []
    # per-host routes carry the TCP settings a route can (ip-route(8) rto_min, initcwnd,
    # congctl, quickack); the rest are per-namespace sysctls
    t0 = _transport(sc, classes[0]) if classes else {}
    for i, c in enumerate(classes[1:], 1):
        t = _transport(sc, c)
        for key in ("rto_min", "init_cwnd", "delayed_ack", "sack", "dsack", "frto", "rack"):
            if t.get(key) != t0.get(key):
                raise ConfigError(
                    f"the classes' transports differ in {key}; the kernel side sets it per "
                    "host, so every class must use the same value",
                    f"classes[{i}].transport",
                )
    rto_min_ms = max(1, round(seconds(t0.get("rto_min", "200ms")) * 1e3))
    init_cwnd = int(t0.get("init_cwnd", 10))
    cc0 = KERNEL_CC[t0.get("cc", classes[0]["transport"] if classes else "cubic")]
    route = (
        f"route replace {NET} dev eth0 rto_min {rto_min_ms}ms initcwnd {init_cwnd} congctl {cc0}"
    )
    if t0.get("delayed_ack") is False:
        route += " quickack 1"
    sysctls = {
        "net.ipv4.tcp_sack": "1" if t0.get("sack", True) else "0",
        "net.ipv4.tcp_dsack": "1" if t0.get("dsack", True) else "0",
        "net.ipv4.tcp_frto": "2" if t0.get("frto", True) else "0",
        "net.ipv4.tcp_recovery": "1" if t0.get("rack", True) else "0",
        "net.ipv4.tcp_early_retrans": "3" if t0.get("tlp", True) else "0",
        "net.ipv4.tcp_timestamps": "1" if pkt.get("tcp_timestamps") else "0",
        "net.ipv4.tcp_ecn": "1" if t0.get("ecn") else "0",
        "net.ipv4.tcp_no_metrics_save": "1",
        "net.ipv4.tcp_slow_start_after_idle": "0",
        "net.ipv4.tcp_wmem": "4096 4194304 16777216",
        "net.ipv4.tcp_rmem": f"4096 {2 * rwnd_bytes(t0)} {4 * rwnd_bytes(t0)}",
    }
    ack_prio = {
        i: int(c["ack_priority"] if c.get("ack_priority") is not None else c.get("priority", 0))
        for i, c in enumerate(classes)
    }
    by_src: dict[int, list[dict[str, Any]]] = {h: [] for h in range(n)}
    n_recv = dict.fromkeys(range(n), 0)
    for f in flows:
        ci = int(f["class"])
        c = classes[ci]
        by_src[int(f["src"])].append(
            {
                "id": int(f["id"]),
                "dst_addr": host_addr(int(f["dst"])),
                "size": int(f["size"]),
                "start": float(f["start_s"]),
                "tos": dscp_tos(int(c.get("priority", 0))),
                # the receiver's listener on PORT + q sends this class's ACKs with CS<q>
                "ack_q": min(7, ack_prio[ci]),
                "cc": KERNEL_CC[_transport(sc, c).get("cc", c["transport"])],
            }
        )
        n_recv[int(f["dst"])] += 1
    hosts = []
    for h in range(n):
        hosts.append(
            HostPlan(
                name=f"h{h}",
                ns=f"{pfx}h{h}",
                addr=host_addr(h),
                port_dev=f"p{h}",
                sysctls=sysctls,
                route=route,
                tc_nic=tc_egress("eth0", sc["host"], "host", rate, depth, pkt),
                tc_switch_port=tc_egress(f"p{h}", sc["switch"], "switch", rate, depth, pkt),
                flows=by_src[h],
                n_recv=n_recv[h],
            )
        )
    return Plan(
        prefix=pfx,
        switch_ns=f"{pfx}sw",
        hosts=hosts,
        rate_bps=rate,
        depth_bytes=depth,
        notes=notes,
    )


def rwnd_bytes(t: Mapping[str, Any]) -> int:
    v = t.get("rwnd", "1MB")
    return amount(v)[1]


def driver_spec(plan: Plan, h: HostPlan, t0: float, timeout: float, ready: str) -> dict[str, Any]:
    """The JSON the host's driver reads (see :mod:`.driver`)."""
    return {
        "host": h.name,
        "addr": h.addr,
        "port": PORT,
        "t0": t0,
        "timeout": timeout,
        "send": h.flows,
        "n_recv": h.n_recv,
        "ready": ready,
    }
