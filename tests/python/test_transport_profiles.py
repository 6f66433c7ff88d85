"""Transport profiles through the Python front end: ``validate --show`` prints every resolved
key and what it prints validates to the same scenario (issue #9)."""

from __future__ import annotations

from pathlib import Path

import pytest

import dcnsim
from dcnsim import cli, config

pytestmark = pytest.mark.usefixtures("real_core")

SCENARIO = """
name = "profiles"
[transports.lin]
profile = "linux"
rto_min = "5ms"
[transports.ns]
profile = "ns3"
cc = "newreno"
[transports.dctcp]
profile = "linux"
[[classes]]
name = "a"
transport = "lin"
workload = { kind = "flows", list = [{ src = 0, dst = 1, size = "10KB", start = 0 }] }
"""


def test_show_prints_every_key_and_roundtrips(tmp_path: Path, capsys) -> None:
    f = tmp_path / "s.toml"
    f.write_text(SCENARIO)
    assert cli.main(["validate", "--show", str(f)]) == 0
    shown = capsys.readouterr().out
    g = tmp_path / "shown.toml"
    g.write_text(shown)
    first = dcnsim.validate(str(f))
    again = dcnsim.validate(str(g))
    assert again == first
    assert config.config_hash(again) == config.config_hash(first)
    lin = config.loads_toml(shown)["transports"]["lin"]
    assert lin["profile"] == "linux" and lin["rto_min"] == "5ms"
    # linux values for the keys not written; "unset = rto_min" keys follow the written rto_min
    assert (lin["hystart"], lin["prr"], lin["timer_tick"], lin["quickack_idle"]) == (
        "linux",
        True,
        "4ms",
        "5ms",
    )
    assert first["transports"]["ns"]["slow_start"] == "per_ack"
    assert first["transports"]["dctcp"]["cc"] == "dctcp"  # a built-in's table keeps its cc
    for name, t in first["transports"].items():
        unset = {k for k, v in t.items() if v is None}
        assert unset <= {"init_ssthresh", "ledbat_base_window", "nearopt_period"}, name


def test_wrong_profile_names_the_key() -> None:
    with pytest.raises(dcnsim.ConfigError) as e:
        dcnsim.validate({"transports": {"mytcp": {"profile": "bsd"}}})
    assert e.value.path == "transports.mytcp.profile"
    with pytest.raises(dcnsim.ConfigError) as e:
        dcnsim.validate({"transports": {"mytcp": {"profile": "linux", "quickack_segs": 0}}})
    assert (e.value.path, e.value.message) == ("transports.mytcp.quickack_segs", "must be >= 1")


def test_override_sets_a_profile() -> None:
    sc = dcnsim.validate(None, set=["transports.t.profile=ns3", "transports.t.cc=cubic"])
    assert sc["transports"]["t"]["rto_min"] == "1s"
    assert sc["transports"]["t"]["hystart"] == "linux"
