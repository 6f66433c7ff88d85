"""`dcnsim crosscheck`: the parts that need no root (scenario → tc/ip commands, the replay
schedule, the report and its verdicts) and, when root and namespaces are available, a
3-host testbed run of a few seconds."""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from dcnsim.crosscheck import driver, plan, report
from dcnsim.errors import ConfigError

# ---------------------------------------------------------------------------------------------
# scenario → testbed


def _scenario(**over):
    """A normalized-looking star scenario (the keys the plan reads)."""
    sc = {
        "name": "t",
        "topology": {
            "kind": "star",
            "hosts": 3,
            "link": {
                "rate": "100Mbps",
                "delay": "20us",
                "shaper": "token_bucket",
            },
        },
        "packet": {
            "mtu": 1500,
            "eth_overhead": 38,
            "ip_header": 20,
            "tcp_header": 20,
            "tcp_timestamps": True,
            "min_wire": 84,
        },
        "switch": {
            "queues": 2,
            "scheduler": {"kind": "strict"},
            "queue_limit": "64pkt",
            "port_limit": "128pkt",
            "reserved": "0B",
            "ecn": {"kind": "none"},
            "alpha": 1.0,
            "shared_buffer": None,
            "colour": None,
            "pfc": None,
        },
        "host": {
            "queues": 2,
            "scheduler": {"kind": "strict"},
            "queue_limit": None,
            "driver_queue": 0,
        },
        "transports": {
            "lx": {"profile": "linux", "cc": "cubic", "rto_min": "200ms", "init_cwnd": 10}
        },
        "classes": [
            {"name": "hi", "priority": 0, "ack_priority": None, "transport": "lx"},
            {"name": "lo", "priority": 1, "ack_priority": None, "transport": "lx"},
        ],
        "scheme": {"kind": "none"},
    }
    for k, v in over.items():
        cur = sc
        *path, last = k.split(".")
        for p in path:
            cur = cur[p]
        cur[last] = v
    return sc


FLOWS = [
    {"id": 0, "src": 0, "dst": 2, "size": 30000, "start_s": 0.01, "class": 0},
    {"id": 1, "src": 1, "dst": 2, "size": 200000, "start_s": 0.0, "class": 1},
    {"id": 2, "src": 0, "dst": 1, "size": 5000, "start_s": 0.002, "class": 1},
]


def test_strict_priority_becomes_prio_ordered_htb_classes_with_borrowing():
    cmds = plan.tc_egress("p2", _scenario()["switch"], "switch", 100e6, 1538, _scenario()["packet"])
    assert cmds[0] == "qdisc add dev p2 root handle 1: htb default b r2q 1"
    # the root class is the link's token bucket, charging wire bytes (skb + 24, ≥ 84)
    assert cmds[1] == (
        "class add dev p2 parent 1: classid 1:1 htb rate 100000000bit ceil 100000000bit "
        "burst 1538 cburst 1538 overhead 24 mpu 84"
    )
    leaf0, leaf1 = cmds[2], cmds[3]
    assert "classid 1:a " in leaf0 and "prio 0" in leaf0 and "ceil 100000000bit" in leaf0
    assert "classid 1:b " in leaf1 and "prio 1" in leaf1
    # token rates: nearly everything is borrowed, so priority decides
    assert "rate 100000bit" in leaf0
    assert "qdisc add dev p2 parent 1:a handle 10: pfifo limit 64" in cmds
    assert "qdisc add dev p2 parent 1:b handle 11: pfifo limit 64" in cmds
    filt = [c for c in cmds if c.startswith("filter")]
    assert filt[1].endswith("match ip dsfield 0x20 0xfc flowid 1:b")


def test_weighted_queues_become_rate_shares_and_byte_limits_bfifo():
    sw = _scenario()["switch"] | {
        "scheduler": {"kind": "drr", "weights": [3, 1]},
        "queue_limit": "15380B",
        "port_limit": "30760B",
    }
    cmds = plan.tc_egress("p0", sw, "switch", 100e6, 1538, _scenario()["packet"])
    assert "rate 75000000bit" in cmds[2] and "rate 25000000bit" in cmds[3]
    assert "prio 0" in cmds[2] and "prio 0" in cmds[3]
    # bfifo counts skb bytes (1514 per full frame), dcnsim wire bytes (1538)
    assert "bfifo limit 15140" in " ".join(cmds)


def test_fifo_is_one_class_and_no_filters():
    sw = _scenario()["switch"] | {
        "queues": 1,
        "scheduler": {"kind": "fifo"},
        "queue_limit": "128pkt",
    }
    cmds = plan.tc_egress("p0", sw, "switch", 100e6, 1538, _scenario()["packet"])
    assert cmds[0].endswith("htb default a r2q 1")
    assert sum(c.startswith("class") for c in cmds) == 2
    assert not any(c.startswith("filter") for c in cmds)
    assert "pfifo limit 128" in cmds[-1]


def test_plan_routes_sysctls_addresses_and_replay_lists():
    p = plan.build_plan(_scenario(), FLOWS, 4242, plan.Capabilities())
    assert p.switch_ns == "dcx-4242-sw"
    assert [h.ns for h in p.hosts] == ["dcx-4242-h0", "dcx-4242-h1", "dcx-4242-h2"]
    assert [h.addr for h in p.hosts] == ["198.18.0.1", "198.18.0.2", "198.18.0.3"]
    h0 = p.hosts[0]
    assert (
        h0.route == "route replace 198.18.0.0/15 dev eth0 rto_min 200ms initcwnd 10 congctl cubic"
    )
    assert h0.sysctls["net.ipv4.tcp_timestamps"] == "1"
    assert h0.sysctls["net.ipv4.tcp_no_metrics_save"] == "1"
    # replay: h0 sends flows 0 and 2 with the class's DSCP, h2 receives two
    assert sorted(f["id"] for f in h0.flows) == [0, 2]
    f0 = next(f for f in h0.flows if f["id"] == 0)
    assert f0 == {
        "id": 0,
        "dst_addr": "198.18.0.3",
        "size": 30000,
        "start": 0.01,
        "tos": 0,
        "ack_q": 0,
        "cc": "cubic",
    }
    f2 = next(f for f in h0.flows if f["id"] == 2)
    assert (f2["tos"], f2["ack_q"]) == (0x20, 1)  # data and ACKs of class 1 at CS1
    assert [h.n_recv for h in p.hosts] == [0, 1, 2]
    assert p.depth_bytes == 1538  # default burst two frames = depth one frame
    spec = plan.driver_spec(p, h0, 100.0, 30.0, "/tmp/r")
    assert spec["t0"] == 100.0 and spec["addr"] == "198.18.0.1" and spec["port"] == plan.PORT


def test_addresses_stay_in_the_benchmarking_range():
    import ipaddress

    net = ipaddress.ip_network(plan.NET)
    for i in (0, 1, 254, 255, 256, 70000):
        assert ipaddress.ip_address(plan.host_addr(i)) in net
    assert len({plan.host_addr(i) for i in range(1000)}) == 1000


@pytest.mark.parametrize(
    ("over", "key"),
    [
        ({"topology.kind": "leaf_spine"}, "topology.kind"),
        ({"topology.link": {"rate": "10Gbps", "delay": "1us", "shaper": "token_bucket"}},
         "topology.link.rate"),
        ({"topology.link": {"rate": "100Mbps", "delay": "1ms", "shaper": "token_bucket"}},
         "topology.link.delay"),
        ({"topology.link": {"rate": "100Mbps", "delay": "1us"}}, "topology.link.shaper"),
        ({"switch.shared_buffer": "1MB"}, "switch.shared_buffer"),
        ({"switch.ecn": {"kind": "step", "k": "20pkt"}}, "switch.ecn"),
        ({"switch.port_limit": "100pkt"}, "switch.port_limit"),
        ({"switch.driver_queue": 100}, "switch.driver_queue"),
        ({"host.driver_queue": 100}, "host.driver_queue"),
        ({"transports.lx.cc": "dctcp"}, "classes[0].transport"),
    ],
)  # fmt: skip
def test_what_the_testbed_cannot_build_is_rejected_naming_the_key(over, key):
    with pytest.raises(ConfigError) as e:
        plan.check_scenario(_scenario(**over), plan.Capabilities())
    assert e.value.path == key


def test_a_delay_with_netem_is_accepted_and_noted():
    sc = _scenario(
        **{"topology.link": {"rate": "100Mbps", "delay": "1ms", "shaper": "token_bucket"}}
    )
    notes = plan.check_scenario(sc, plan.Capabilities(netem=True))
    assert any("netem" in n for n in notes)


def test_sim_overrides_force_linux_handshake_token_bucket_and_scale_rates():
    raw = {
        "topology": {"kind": "star", "hosts": 3, "link": {"rate": "100Mbps", "delay": "1us"}},
        "switch": {"queue_limit": "64pkt"},
        "classes": [{"name": "a", "transport": "cubic"}],
    }
    sc = plan.sim_overrides(raw, rate=200e6)
    assert sc["topology"]["link"] == {
        "rate": "200000000bps",
        "delay": "1us",
        "shaper": "token_bucket",
    }
    assert sc["transports"]["cubic"] == {"profile": "linux", "handshake": True}
    assert sc["switch"]["queue_limit"] == "64pkt"  # buffers in packets are not scaled
    assert raw["topology"]["link"]["rate"] == "100Mbps"  # the input is not changed


def test_units():
    assert plan.rate_bps("100Mbps") == 100e6
    assert plan.seconds("20us") == pytest.approx(20e-6)
    assert plan.seconds("200ms") == pytest.approx(0.2)
    assert plan.amount("64pkt") == ("pkt", 64)
    assert plan.amount("1.5KB") == ("bytes", 1500)
    assert plan.dscp_tos(1) == 0x20


# ---------------------------------------------------------------------------------------------
# the driver's pieces


def test_driver_payload_header_and_tcp_info_parsing():
    p = driver.payload(7, 3000)
    assert len(p) == 3000 and driver.HDR.unpack(p[:8]) == (7, 3000)
    assert len(driver.payload(1, 3)) == 8  # a flow below the header size sends 8 bytes
    buf = bytearray(driver.TCP_INFO_LEN)
    import struct

    struct.pack_into("=8B24I", buf, 0, 1, 0, 0, 0, 0, 0, 0, 0, *range(24))
    struct.pack_into("=I", buf, 216, 5)
    struct.pack_into("=H", buf, 240, 3)
    ti = driver.parse_tcp_info(bytes(buf))
    assert ti["rtt_us"] == 15 and ti["total_retrans"] == 23
    assert ti["dsack_dups"] == 5 and ti["total_rto"] == 3
    short = driver.parse_tcp_info(bytes(buf[:200]))
    assert short["dsack_dups"] is None and short["total_rto"] is None


# ---------------------------------------------------------------------------------------------
# report and verdicts


def _sim_df(fcts, sizes, cls="a"):
    n = len(fcts)
    return pd.DataFrame(
        {
            "flow_id": range(n),
            "class_id": 0,
            "class": cls,
            "size": sizes,
            "start_s": 0.0,
            "fct_s": fcts,
            "completed": True,
            "retx": [1.0] * n,
            "rtos": [0.0] * n,
            "spurious": [0.0] * n,
            "tlp": [0.0] * n,
        }
    )


def test_verdicts_use_the_kernel_spread_widened_by_the_tolerance():
    tol = report.Tolerances()
    assert report.pct_agrees(1.2, [1.0, 1.0], tol.p50)  # within +25 %
    assert not report.pct_agrees(1.3, [1.0, 1.0], tol.p50)
    assert report.pct_agrees(1.3, [0.9, 1.1], tol.p50)  # the kernel's own spread counts
    assert report.pct_agrees(math.nan, [1.0], 0.25) is None
    assert report.count_agrees(0.01, 0.02, tol)  # both rare
    assert report.count_agrees(1.0, 1.9, tol)
    assert not report.count_agrees(1.0, 2.5, tol)
    assert not report.count_agrees(0.0, 1.0, tol)


def test_compare_tables_buckets_and_verdicts():
    sim = _sim_df([0.001] * 10 + [0.05] * 10, [5000] * 10 + [500_000] * 10)
    kern = []
    for rep, scale in enumerate((1.0, 1.1)):
        k = _sim_df([0.001 * scale] * 10 + [0.1 * scale] * 10, [5000] * 10 + [500_000] * 10)
        k["rep"] = rep
        k.loc[10:, "retx"] = 5.0
        kern.append(k)
    kernel = pd.concat(kern, ignore_index=True)
    t = report.compare(sim, kernel)
    assert list(t["bucket"]) == ["(0,10KB]", "(100KB,1MB]"]
    small, big = t.iloc[0], t.iloc[1]
    assert small["p50_agrees"] and not big["p50_agrees"]
    assert big["kernel_p50_lo_ms"] == pytest.approx(100) and big[
        "kernel_p50_hi_ms"
    ] == pytest.approx(110)
    assert small["retx_agrees"] and not big["retx_agrees"]
    v = report.verdicts(t)
    assert v["fct_p50"]["verdict"] == "differs" and v["fct_p50"]["differs_in"] == ["a (100KB,1MB]"]
    assert v["rtos"]["verdict"] == "agrees"
    md = report.table_md(t)
    assert "**no**" in md and "(100KB,1MB]" in md
    assert report.long_flow_medians(sim, kernel) == (pytest.approx(0.05), pytest.approx(0.105))


def test_kernel_flows_join_driver_records_and_measure_from_the_schedule():
    planned = pd.DataFrame(
        {
            "flow_id": [0, 1],
            "class_id": [0, 0],
            "class": ["a", "a"],
            "size": [1000, 2000],
            "start_s": [0.5, 1.0],
        }
    )
    hosts = [
        {
            "received": [{"id": 0, "rx_done": 0.75}],
            "sent": [
                {"id": 0, "late": 0.001, "total_retrans": 2, "total_rto": 1, "dsack_dups": 0,
                 "rtt_us": 500},
            ],
        }
    ]  # fmt: skip
    k = report.kernel_flows(planned, hosts, rep=3)
    assert k.loc[0, "fct_s"] == pytest.approx(0.25) and bool(k.loc[0, "completed"])
    assert not bool(k.loc[1, "completed"]) and math.isnan(k.loc[1, "fct_s"])
    assert k.loc[0, "retx"] == 2 and k.loc[0, "rtos"] == 1 and k.loc[0, "rtt_s"] == 0.0005
    assert (k["rep"] == 3).all()


def test_the_second_simulation_replays_each_flow_at_the_kernels_start(real_core):
    from dcnsim import api
    from dcnsim.crosscheck import at_kernel_starts, prepare_sim

    prep = prepare_sim(_toml_dict(SMALL))
    sim_raw = api.run_prepared(prep, progress=False).flows
    kernel = pd.DataFrame(
        {
            "flow_id": list(sim_raw["flow_id"]) * 2,
            "late_s": [0.001] * len(sim_raw) + [0.003] * len(sim_raw),  # median 2 ms
        }
    )
    prep2 = at_kernel_starts(prep.normalized, sim_raw, kernel)
    wl = prep2.normalized["classes"][0]["workload"]
    assert wl["kind"] == "flows"
    starts = sorted(plan.seconds(f["start"]) for f in wl["list"])
    assert starts == pytest.approx(sorted(float(s) + 0.002 for s in sim_raw["start_s"]))
    res2 = api.run_prepared(prep2, progress=False)
    assert sorted(res2.flows["size"]) == sorted(sim_raw["size"])


def _toml_dict(text: str) -> dict:
    from dcnsim import config

    return config.loads_toml(text)


def test_cli_without_root_says_what_is_missing_and_exits_2(real_env, tmp_path):
    if os.geteuid() == 0 and shutil.which("ethtool") and shutil.which("ip"):
        # simulate a machine without the tools: an empty PATH for the probe's lookups
        env = dict(real_env, PATH=str(tmp_path))
    else:
        env = dict(real_env)
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "dcnsim",
            "crosscheck",
            "crosscheck_coloc",
            "-o",
            str(tmp_path / "o"),
        ],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert r.returncode == 2, r.stderr
    assert "error: crosscheck: the crosscheck testbed needs" in r.stderr
    # What is missing depends on the machine: root, iproute2 (the empty PATH above), or
    # only ethtool (root with `ip` but not `ethtool`): each names its Debian package.
    assert "install the Debian packages" in r.stderr or "root" in r.stderr


# ---------------------------------------------------------------------------------------------
# the real thing: 3 hosts, a few seconds


def _testbed_skip_reason() -> str | None:
    if not sys.platform.startswith("linux"):
        return "not Linux"
    from dcnsim.crosscheck.probe import probe

    missing = probe().missing()
    return "; ".join(missing) if missing else None


def _ours() -> list[str]:
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, check=False)
    return [ln.split()[0] for ln in out.stdout.splitlines() if ln.startswith(plan.PREFIX)]


SMALL = """
name = "crosscheck-3"
seed = 2
[topology]
kind = "star"
hosts = 3
link = { rate = "100Mbps", delay = "20us", shaper = "token_bucket" }
[packet]
tcp_timestamps = true
[switch]
queues = 1
scheduler = { kind = "fifo" }
queue_limit = "100pkt"
port_limit = "100pkt"
[host]
queues = 1
scheduler = { kind = "fifo" }
[transports.lx]
profile = "linux"
cc = "cubic"
[[classes]]
name = "bulk"
transport = "lx"
workload = { kind = "flows", list = [
  { src = 0, dst = 2, size = "1MB", start = 0.0 },
  { src = 1, dst = 2, size = "1MB", start = 0.3 },
  { src = 0, dst = 1, size = "500KB", start = 0.6 },
  { src = 2, dst = 0, size = "1MB", start = 0.9 },
  { src = 1, dst = 0, size = "20KB", start = 0.1 },
  { src = 2, dst = 1, size = "20KB", start = 0.5 },
] }
[run]
duration = "1s"
"""


def test_three_hosts_on_the_kernel_complete_agree_and_leave_nothing(real_core, tmp_path):
    reason = _testbed_skip_reason()
    if reason:
        pytest.skip(f"crosscheck testbed unavailable: {reason}")
    from dcnsim.crosscheck import crosscheck

    sc = tmp_path / "small.toml"
    sc.write_text(SMALL)
    res = crosscheck(sc, tmp_path / "out", reps=1)
    s = res["summary"]
    # every flow of the kernel side completed
    assert s["kernel_completed"] == [s["flows"]] == [6]
    # the testbed is gone
    assert _ours() == []
    # long flows' median FCT agrees within the stated tolerance
    tol = report.Tolerances().long_p50
    ratio = s["sim_long_p50_s"] / s["kernel_long_p50_s"]
    assert abs(ratio - 1) <= tol, ratio
    assert (tmp_path / "out" / "report.md").read_text().startswith("# dcnsim crosscheck")
    assert json.loads((tmp_path / "out" / "summary.json").read_text())["flows"] == 6
    assert Path(tmp_path / "out" / "table.csv").exists()
    # every file was written beside its name and renamed into place: no temporary is left
    assert not [p.name for p in (tmp_path / "out").iterdir() if p.name.startswith(".")]


def test_sigterm_tears_the_testbed_down_and_stale_namespaces_are_removed(real_env, tmp_path):
    reason = _testbed_skip_reason()
    if reason:
        pytest.skip(f"crosscheck testbed unavailable: {reason}")
    import signal
    import time

    from dcnsim.crosscheck.testbed import clean_stale

    # a namespace left by a process that no longer exists (pid above pid_max) is removed
    stale = f"{plan.PREFIX}{2**22 + 1}-sw"
    subprocess.run(["ip", "netns", "add", stale], check=True)
    try:
        assert stale in clean_stale()
        assert stale not in _ours()
    finally:
        subprocess.run(["ip", "netns", "del", stale], capture_output=True, check=False)
    sc = tmp_path / "small.toml"
    sc.write_text(SMALL)
    p = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "dcnsim",
            "crosscheck",
            str(sc),
            "--reps",
            "3",
            "-o",
            str(tmp_path / "o"),
        ],
        stderr=subprocess.PIPE,
        text=True,
        env=real_env,
    )
    assert p.stderr is not None
    for line in p.stderr:
        if "testbed up" in line:
            break
    time.sleep(0.5)
    mine = [n for n in _ours() if n.startswith(f"{plan.PREFIX}{p.pid}-")]
    assert mine, "the testbed was not up"
    p.send_signal(signal.SIGTERM)
    rest = p.stderr.read()
    assert p.wait(timeout=30) == 143, rest
    assert "terminated" in rest
    assert [n for n in _ours() if n.startswith(f"{plan.PREFIX}{p.pid}-")] == []
