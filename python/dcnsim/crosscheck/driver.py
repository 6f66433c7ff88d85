"""Traffic driver of the crosscheck testbed: one process per host namespace.

Run by the testbed as ``ip netns exec NS python3 driver.py SPEC.json OUT.json`` (standard
library only, so it starts fast and imports nothing of dcnsim). It is a server for every flow
this host receives (it reads and acknowledges at once, and records when the last byte
arrived) and a client replaying the flows this host sends at their start times (recording
start lateness and, once the server has everything, the kernel's ``TCP_INFO``).

Time: every host process uses ``CLOCK_MONOTONIC``, which network namespaces share, and the
common origin ``t0`` of the spec: a flow scheduled at ``start`` connects at ``t0 + start``.
A flow's payload starts with an 8-byte header (flow id, size) so the server knows when it
has the whole flow; flows shorter than 8 bytes send 8.
"""

from __future__ import annotations

import errno
import json
import os
import selectors
import socket
import struct
import sys
import time

HDR = struct.Struct("!II")
CHUNK = 1 << 16
TCP_CONGESTION = getattr(socket, "TCP_CONGESTION", 13)

# Offsets in ``struct tcp_info`` (include/uapi/linux/tcp.h, filled by tcp_get_info()).
_TI_HEAD = struct.Struct("=8B24I")  # state .. tcpi_total_retrans (104 bytes)
_TI_DSACK_DUPS = 216  # __u32 tcpi_dsack_dups (Linux 5.0)
_TI_BYTES_RETRANS = 208  # __u64 tcpi_bytes_retrans (Linux 4.19)
_TI_DATA_SEGS_OUT = 156  # __u32 tcpi_data_segs_out (Linux 4.6)
_TI_TOTAL_RTO = 240  # __u16 tcpi_total_rto (Linux 6.7)
TCP_INFO_LEN = 248


def parse_tcp_info(buf: bytes) -> dict[str, int | None]:
    """The fields the report uses; ``None`` where this kernel's struct is too short."""
    h = _TI_HEAD.unpack_from(buf, 0)
    u32 = h[8:]
    out: dict[str, int | None] = {
        "retransmits": h[2],
        "rto_us": u32[0],
        "rtt_us": u32[15],
        "rttvar_us": u32[16],
        "snd_cwnd": u32[18],
        "total_retrans": u32[23],
        "data_segs_out": None,
        "dsack_dups": None,
        "total_rto": None,
    }
    if len(buf) >= _TI_DATA_SEGS_OUT + 4:
        out["data_segs_out"] = struct.unpack_from("=I", buf, _TI_DATA_SEGS_OUT)[0]
    if len(buf) >= _TI_DSACK_DUPS + 4:
        out["dsack_dups"] = struct.unpack_from("=I", buf, _TI_DSACK_DUPS)[0]
    if len(buf) >= _TI_TOTAL_RTO + 2:
        out["total_rto"] = struct.unpack_from("=H", buf, _TI_TOTAL_RTO)[0]
    return out


def payload(fid: int, size: int) -> bytes:
    size = max(size, HDR.size)
    return HDR.pack(fid, size) + bytes(size - HDR.size)


class Server:
    """One accepted connection: reads until it has the whole flow, then records and closes."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.buf = b""
        self.fid = -1
        self.size = -1
        self.got = 0


class Client:
    def __init__(self, flow: dict, sock: socket.socket, actual: float) -> None:
        self.flow = flow
        self.sock = sock
        self.data = memoryview(payload(flow["id"], flow["size"]))
        self.sent = 0
        self.actual = actual
        self.connected = False


def main(spec_path: str, out_path: str) -> int:
    with open(spec_path) as f:
        spec = json.load(f)
    me = spec["host"]
    t0 = spec["t0"]
    deadline = t0 + spec["timeout"]
    sel = selectors.DefaultSelector()
    # one listener per ACK priority q (port + q): its connections' ACKs carry DSCP CS<q>
    listeners = {}
    for q in range(8):
        lst = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        lst.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        lst.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, (q * 8) << 2)
        lst.bind((spec["addr"], spec["port"] + q))
        lst.listen(4096)
        lst.setblocking(False)
        listeners[lst.fileno()] = (lst, (q * 8) << 2)
        sel.register(lst, selectors.EVENT_READ, "listen")
    # the flows this host sends, in start order
    todo = sorted(spec["send"], key=lambda f: (f["start"], f["id"]))
    expect_rx = spec["n_recv"]
    received: dict[int, dict] = {}
    sent: dict[int, dict] = {}
    errors: list[str] = []
    nxt = 0
    # sockets made ahead of their flow's start (index → socket): at the start only
    # connect() remains, so simultaneous starts (an incast) are late by less
    ready: dict[int, socket.socket] = {}
    made = 0
    open(spec["ready"], "w").close()  # listening: the parent may set t0
    while True:
        now = time.monotonic()
        while made < len(todo) and t0 + todo[made]["start"] - now < 0.02 and made - nxt < 256:
            fl = todo[made]
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.setblocking(False)
            s.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, fl["tos"])
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            try:
                s.setsockopt(socket.IPPROTO_TCP, TCP_CONGESTION, fl["cc"].encode())
            except OSError as e:
                errors.append(f"flow {fl['id']}: congestion control {fl['cc']}: {e}")
            ready[made] = s
            made += 1
        now = time.monotonic()
        while nxt < made and now >= t0 + todo[nxt]["start"]:
            fl = todo[nxt]
            s = ready.pop(nxt)
            nxt += 1
            actual = time.monotonic()
            err = s.connect_ex((fl["dst_addr"], spec["port"] + fl["ack_q"]))
            if err not in (0, errno.EINPROGRESS):
                errors.append(f"flow {fl['id']}: connect: {os.strerror(err)}")
                s.close()
                continue
            sel.register(s, selectors.EVENT_WRITE, Client(fl, s, actual))
        done = len(received) >= expect_rx and len(sent) == len(todo) and nxt == len(todo)
        if done or now > deadline:
            break
        timeout = 0.05
        if nxt < len(todo):
            wait = t0 + todo[nxt]["start"] - now
            # epoll's timeout is in whole milliseconds: wait in it only for what is more
            # than 1.5 ms away, then in short sleeps, so starts are late by ~0.1 ms, not 1 ms
            if wait < 1.5e-3:
                time.sleep(max(0.0, min(wait, 1e-4)))
                timeout = 0.0
            else:
                timeout = min(timeout, wait - 1.5e-3)
        for key, ev in sel.select(timeout):
            obj = key.data
            if obj == "listen":
                lst, tos = listeners[key.fd]
                while True:
                    try:
                        c, _ = lst.accept()
                    except BlockingIOError:
                        break
                    c.setblocking(False)
                    c.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, tos)
                    sel.register(c, selectors.EVENT_READ, Server(c))
            elif isinstance(obj, Server):
                try:
                    chunk = obj.sock.recv(1 << 20)
                except (BlockingIOError, InterruptedError):
                    continue
                except OSError as e:
                    errors.append(f"server recv: {e}")
                    chunk = b""
                if not chunk:
                    sel.unregister(obj.sock)
                    obj.sock.close()
                    continue
                if obj.fid < 0:
                    obj.buf += chunk[: HDR.size]
                    if len(obj.buf) >= HDR.size:
                        obj.fid, obj.size = HDR.unpack(obj.buf[: HDR.size])
                obj.got += len(chunk)
                if obj.size >= 0 and obj.got >= obj.size:
                    received[obj.fid] = {"id": obj.fid, "rx_done": time.monotonic() - t0}
                    sel.unregister(obj.sock)
                    obj.sock.close()  # the client sees EOF: everything has arrived
            else:
                cl = obj
                if ev & selectors.EVENT_WRITE:
                    if not cl.connected:
                        err = cl.sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
                        if err:
                            errors.append(f"flow {cl.flow['id']}: connect: {os.strerror(err)}")
                            sel.unregister(cl.sock)
                            cl.sock.close()
                            sent[cl.flow["id"]] = {"id": cl.flow["id"], "failed": True}
                            continue
                        cl.connected = True
                    try:
                        n = cl.sock.send(cl.data[cl.sent : cl.sent + CHUNK * 16])
                    except (BlockingIOError, InterruptedError):
                        n = 0
                    cl.sent += n
                    if cl.sent >= len(cl.data):
                        sel.modify(cl.sock, selectors.EVENT_READ, cl)
                elif ev & selectors.EVENT_READ:
                    try:
                        more = cl.sock.recv(4096)
                    except (BlockingIOError, InterruptedError):
                        continue
                    except OSError:
                        more = b""
                    if more:
                        continue
                    # EOF: the server has the whole flow, so every byte is acknowledged
                    raw = cl.sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, TCP_INFO_LEN)
                    rec = {
                        "id": cl.flow["id"],
                        "late": cl.actual - (t0 + cl.flow["start"]),
                        "tx_done": time.monotonic() - t0,
                    }
                    rec.update(parse_tcp_info(raw))
                    sent[cl.flow["id"]] = rec
                    sel.unregister(cl.sock)
                    cl.sock.close()
    for key in list(sel.get_map().values()):
        key.fileobj.close()  # type: ignore[union-attr]
    with open(out_path + ".tmp", "w") as f:
        json.dump(
            {
                "host": me,
                "received": list(received.values()),
                "sent": list(sent.values()),
                "unstarted": len(todo) - nxt,
                "errors": errors[:50],
            },
            f,
        )
    os.replace(out_path + ".tmp", out_path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
