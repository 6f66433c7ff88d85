"""Flow traces survive save/load, and file names in a scenario are relative to its file."""

from __future__ import annotations

from pathlib import Path

import pytest

import dcnsim

pytestmark = pytest.mark.usefixtures("real_core")

SCENARIO = """
name = "files"
[topology]
kind = "star"
hosts = 4
link = {{ rate = "10Gbps", delay = "1us" }}
[[classes]]
name = "a"
transport = "dctcp"
workload = {{ kind = "poisson", load = 0.3, sizes = {{ cdf_file = "{cdf}" }} }}
[output]
trace_flows = [0, 1]
trace_interval = "20us"
[run]
duration = "20ms"
"""


def test_relative_cdf_file_and_traces_round_trip(tmp_path: Path, monkeypatch) -> None:
    d = tmp_path / "scen"
    d.mkdir()
    (d / "sizes.cdf").write_text("# sizes\n200000 0\n200000 0.5\n2000000 1\n")
    (d / "s.toml").write_text(SCENARIO.format(cdf="sizes.cdf"))
    monkeypatch.chdir(tmp_path)  # not the scenario's directory
    res = dcnsim.run(str(d / "s.toml"), progress=False)
    assert len(res.flows) > 3
    assert res.flows["size"].between(200_000, 2_000_000).all()
    t = res.traces
    assert set(t["flow_id"].unique()) <= {0, 1} and len(t) > 5
    assert (t["cwnd"] > 0).all()
    assert t["alpha"].between(0, 1).all(), "DCTCP alpha is traced"
    saved = res.save(tmp_path / "out")
    back = dcnsim.load(saved)
    assert back.traces.equals(res.traces)


def test_missing_relative_cdf_file_names_the_key(tmp_path: Path) -> None:
    (tmp_path / "s.toml").write_text(SCENARIO.format(cdf="nope.cdf"))
    with pytest.raises(dcnsim.ConfigError) as e:
        dcnsim.validate(str(tmp_path / "s.toml"))
    assert e.value.path == "classes[0].workload.sizes.cdf_file"
    assert str(tmp_path / "nope.cdf") in e.value.message
