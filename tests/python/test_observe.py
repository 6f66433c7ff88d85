"""Issue 18, engine side: port/class time series, offered vs carried load, and pcap captures
read back with a small parser (always) and with tshark (when installed)."""

from __future__ import annotations

import itertools
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

import dcnsim
from dcnsim import report

pytestmark = pytest.mark.usefixtures("real_core")

# 8 → 1 incast of 64 KB flows on a 10G star.
SCENARIO = """
name = "observe"
[topology]
kind = "star"
hosts = 9
link = {{ rate = "10Gbps", delay = "2us" }}
[switch]
queues = 1
scheduler = {{ kind = "fifo" }}
port_limit = "{limit}"
ecn = {{ kind = "step", k = "10pkt" }}
[host]
queues = 1
scheduler = {{ kind = "fifo" }}
[transports.t]
cc = "{cc}"
ecn = {ecn}
init_cwnd = 10
rto_min = "1ms"
[[classes]]
name = "incast"
transport = "t"
workload = {{ kind = "incast", fan_in = 8, receiver = 8, bytes_per_sender = {{ fixed = "64KB" }} }}
[run]
duration = "20ms"
[output]
{output}
"""


def scenario(tmp: Path, cc: str, limit: str, output: str) -> str:
    p = tmp / f"{cc}.toml"
    p.write_text(
        SCENARIO.format(cc=cc, limit=limit, ecn="true" if cc == "dctcp" else "false", output=output)
    )
    return str(p)


def read_pcap(path: Path) -> list[dict]:
    """Classic pcap, nanosecond magic, Ethernet/IPv4/TCP headers."""
    b = path.read_bytes()
    magic, major, minor, _, _, snaplen, link = struct.unpack_from("<IHHiIII", b, 0)
    assert (magic, major, minor, snaplen, link) == (0xA1B23C4D, 2, 4, 54, 1)
    out, i = [], 24
    while i < len(b):
        sec, ns, incl, orig = struct.unpack_from("<IIII", b, i)
        f = i + 16
        (ethertype,) = struct.unpack_from(">H", b, f + 12)
        assert ethertype == 0x0800
        ip = f + 14
        tos, ip_len = b[ip + 1], struct.unpack_from(">H", b, ip + 2)[0]
        sport, dport, seq, ack = struct.unpack_from(">HHII", b, ip + 20)
        out.append(
            {
                "t": sec + ns * 1e-9,
                "ecn": tos & 3,
                "dscp": tos >> 2,
                "len": ip_len - 40,
                "orig": orig,
                "sport": sport,
                "dport": dport,
                "seq": seq,
                "ack": ack,
                "flags": b[ip + 33],
            }
        )
        i = f + incl
    return out


def flow_of(r: dict) -> int:
    return (r["sport"] if r["dport"] == 5001 else r["dport"]) - 1024


def test_pcap_at_receivers_matches_the_flows(tmp_path: Path) -> None:
    cap = tmp_path / "dctcp.pcap"
    res = dcnsim.run(scenario(tmp_path, "dctcp", "1000pkt", f'pcap = "{cap}"'), progress=False)
    recs = read_pcap(cap)
    f = res.flows
    assert res.meta["dropped"] == 0 and len(f) == 8
    assert all(a["t"] <= b["t"] for a, b in itertools.pairwise(recs))
    ce = 0
    for _, row in f.iterrows():
        data = [r for r in recs if flow_of(r) == row["flow_id"] and r["dport"] == 5001]
        data = [r for r in data if r["flags"] & 0x08]  # PSH: data segments
        assert len(data) == row["data_pkts"]
        spans = sorted((r["seq"], r["seq"] + r["len"]) for r in data)
        assert spans[0][0] == 0 and spans[-1][1] == row["size"]
        assert all(a[1] == b[0] for a, b in itertools.pairwise(spans))
        assert max(r["t"] for r in data) == pytest.approx(row["finish_s"], abs=1.5e-9)
        assert all(r["ecn"] in (2, 3) for r in data)  # ECT(0) or CE
        ce += sum(r["ecn"] == 3 for r in data)
    assert ce == res.queues["ecn_marks"].sum() > 0
    assert (cap.parent / (cap.name + ".drops.csv")).read_text().startswith("t_s,flow,")


def test_samples_class_goodput_load_and_report(tmp_path: Path) -> None:
    res = dcnsim.run(
        scenario(tmp_path, "newreno", "20pkt", 'queue_sample_interval = "10us"'),
        progress=False,
    )
    s = res.samples
    assert {"tx_bytes", "util", "drops", "marks"} <= set(s.columns)
    q = res.queues
    for port, g in s.groupby("port"):
        qq = q[q["port"] == port]
        assert g["tx_bytes"].sum() == qq["bytes_out"].sum()
        assert g["drops"].sum() == qq["drops"].sum()
    assert s["util"].between(0, 1 + 1e-9).all() and s["util"].max() > 0.95
    c = res.class_samples
    assert set(c["class"]) == {"incast"}
    assert c["bytes"].sum() >= res.flows["size"].sum()
    load = res.meta["load"]["incast"]
    offered = res.flows["size"].sum() * 8 / 0.020
    assert load["offered_bps"] == pytest.approx(offered)
    assert load["carried_bps"] >= load["offered_bps"]  # retransmitted copies count again
    assert load["offered_load"] == pytest.approx(offered / 90e9)
    assert "offered" in res.summary()
    back = dcnsim.load(res.save(tmp_path / "out"))
    assert back.class_samples.equals(res.class_samples)
    assert back.samples.equals(res.samples)
    html = report.run_html(res)
    assert 'alt="utilization"' in html and "Offered vs carried load" in html


@pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark is not installed")
def test_tshark_reads_the_capture(tmp_path: Path) -> None:
    # Both directions at sender h0 (its NIC and the switch port toward it), with the
    # handshake modelled so that tshark knows the connection's RTT: every transmission of
    # flow 0, retransmissions included, and the duplicate ACKs that trigger fast retransmit.
    cap = tmp_path / "h0.pcap"
    sc = Path(
        scenario(tmp_path, "newreno", "20pkt", f'pcap = "{cap}"\npcap_ports = ["h0/0", "sw0/0"]')
    )
    sc.write_text(sc.read_text().replace('rto_min = "1ms"', 'rto_min = "1ms"\nhandshake = true'))
    res = dcnsim.run(str(sc), progress=False)
    f0 = res.flows.loc[0]

    def count(path: Path, filt: str) -> int:
        cmd = ["tshark", "-n", "-r", str(path), "-Y", filt, "-T", "fields", "-e", "frame.number"]
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
        return len(out.splitlines())

    assert count(cap, "frame") == len(read_pcap(cap))
    assert count(cap, "tcp.len > 0") == f0["data_pkts"]
    assert count(cap, "tcp.flags.syn == 1 && tcp.flags.ack == 0") == 1
    # A data segment below the highest sequence sent is a retransmission (one path, so no
    # reordering); tshark calls those sent within an RTT of the highest "out-of-order".
    resent = "tcp.len > 0 && (tcp.analysis.retransmission || tcp.analysis.out_of_order)"
    assert count(cap, resent) == f0["retx_pkts"] > 0
    assert count(cap, "tcp.analysis.fast_retransmission") >= f0["fast_retx"] > 0
    assert count(cap, "tcp.analysis.duplicate_ack") >= 3
    # CE marks, captured where packets arrive.
    cap2 = tmp_path / "rx.pcap"
    res2 = dcnsim.run(scenario(tmp_path, "dctcp", "1000pkt", f'pcap = "{cap2}"'), progress=False)
    assert count(cap2, "ip.dsfield.ecn == 3") == res2.queues["ecn_marks"].sum() > 0
    assert count(cap2, "tcp.flags.ece == 1") > 0
