from __future__ import annotations

import math
from pathlib import Path

import pytest

import dcnsim
from dcnsim import config
from dcnsim.errors import ConfigError


def test_parse_key_path_with_indices() -> None:
    assert config.parse_key_path("classes[0].workload.load") == ["classes", 0, "workload", "load"]
    assert config.parse_key_path("a[1][2].b") == ["a", 1, 2, "b"]
    assert config.format_key_path(["classes", 0, "workload", "load"]) == "classes[0].workload.load"
    for bad in ["", "a..b", "a[x]", "a.[0]", "a b"]:
        with pytest.raises(ConfigError):
            config.parse_key_path(bad)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("3", 3),
        ("0.5", 0.5),
        ("1e-3", 0.001),
        ("true", True),
        ('"3"', "3"),
        ("dctcp", "dctcp"),
        ("[1, 2]", [1, 2]),
        ("{a = 1}", {"a": 1}),
        ("10Gbps", "10Gbps"),
        ("", ""),
    ],
)
def test_parse_value(text: str, value: object) -> None:
    assert config.parse_value(text) == value


def test_parse_override() -> None:
    assert config.parse_override("classes[1].cc = dctcp") == ("classes[1].cc", "dctcp")
    assert config.parse_override("run.seed=7") == ("run.seed", 7)
    with pytest.raises(ConfigError) as e:
        config.parse_override("run.seed")
    assert e.value.path == "run.seed"


def test_set_path_creates_tables_and_uses_fallback_for_lists() -> None:
    raw: dict = {}
    config.set_path(raw, "topology.leaves", 4)
    assert raw == {"topology": {"leaves": 4}}
    full = {"classes": [{"name": "a", "workload": {"load": 0.5}}]}
    config.set_path(raw, "classes[0].workload.load", 0.3, lambda: full)
    assert raw["classes"][0] == {"name": "a", "workload": {"load": 0.3}}
    assert full["classes"][0]["workload"]["load"] == 0.5  # fallback not mutated
    with pytest.raises(ConfigError) as e:
        config.set_path(raw, "classes[3].name", "x", lambda: full)
    assert e.value.path == "classes[3]"


def test_set_unknown_key_is_rejected_by_validation(fake) -> None:
    with pytest.raises(ConfigError) as e:
        dcnsim.validate({}, set=["topology.leavez=3"])
    assert e.value.path == "topology.leavez"
    assert isinstance(e.value, ValueError)


def test_override_list_index_of_default_classes(fake) -> None:
    # the scenario has no [[classes]]: the index refers to the default classes
    n = dcnsim.validate({"name": "x"}, set=["classes[0].workload.load=0.25"])
    assert n["classes"][0]["workload"]["load"] == 0.25
    with pytest.raises(ConfigError) as e:
        dcnsim.validate({"name": "x"}, set=["classes[5].workload.load=0.25"])
    assert e.value.path.startswith("classes[5]")


@pytest.mark.usefixtures("real_core")
def test_overrides_leave_the_callers_tables_alone() -> None:
    # A table set by one override and a key inside it set by a later one: the table passed in
    # (a module constant shared by many runs, say) must come out as it went in.
    table = {"kind": "roce", "roce": {"cc": "hpcc"}}
    classes = [
        {"name": "a", "workload": {"kind": "poisson", "load": 0.3, "sizes": {"cdf": "websearch"}}}
    ]
    ov = {
        "transports.x": table,
        "transports.x.roce.rto": "4ms",
        "classes": classes,
        "classes[0].workload.load": 0.5,
    }
    p = config.prepare("tlt_roce", overrides=ov)
    assert table == {"kind": "roce", "roce": {"cc": "hpcc"}}
    assert classes[0]["workload"]["load"] == 0.3
    assert p.raw["transports"]["x"]["roce"]["rto"] == "4ms"
    assert p.raw["classes"][0]["workload"]["load"] == 0.5


def test_missing_file_and_bad_toml(tmp_path: Path, fake) -> None:
    with pytest.raises(ConfigError) as e:
        dcnsim.validate(str(tmp_path / "nope.toml"))
    assert e.value.path == "scenario" and "nope.toml" in e.value.message
    bad = tmp_path / "bad.toml"
    bad.write_text("[run]\nseed = 1\nduration_s = = 3\n")
    with pytest.raises(ConfigError) as e:
        dcnsim.validate(bad)
    assert "line 3" in e.value.message
    with pytest.raises(ConfigError):
        dcnsim.validate("no-such-shipped-scenario")


def test_dumps_toml_roundtrip() -> None:
    d = {
        "name": "x y",
        "weird key": 1,
        "f": 0.1,
        "big": 1e300,
        "inf": math.inf,
        "flag": False,
        "lst": [1, 2, 3],
        "empty": [],
        "t": {"a": 1, "sub": {"b": "c"}, "opt": None},
        "classes": [
            {"name": "a", "workload": {"kind": "poisson", "load": 0.5}},
            {"name": "b", "workload": {"kind": "incast", "fan_in": 8}, "pts": [[0, 0.0]]},
        ],
    }
    back = config.loads_toml(config.dumps_toml(d))
    expected = {**d, "t": {"a": 1, "sub": {"b": "c"}}}
    assert back == expected


def test_dict_and_toml_forms_are_equivalent(tmp_path: Path, fake) -> None:
    d = {
        "name": "eq",
        "topology": {"leaves": 3},
        "seed": 4,
        "classes": [{"name": "web", "workload": {"load": 0.4}}],
    }
    p = tmp_path / "s.toml"
    p.write_text(config.dumps_toml(d))
    a = config.prepare(d)
    b = config.prepare(p)
    assert a.normalized == b.normalized and a.hash == b.hash


def test_config_hash_depends_on_content_not_key_order(fake) -> None:
    a = config.prepare({"topology": {"leaves": 3, "spines": 2}})
    b = config.prepare({"topology": {"spines": 2, "leaves": 3}})
    c = config.prepare({"topology": {"spines": 2, "leaves": 3}}, seed=9)
    assert a.hash == b.hash and len(a.hash) == 64
    assert c.hash != a.hash
    assert config.get_path(c.normalized, config.SEED_PATH) == 9


def test_core_config_error_is_translated(fake) -> None:
    with pytest.raises(dcnsim.ConfigError) as e:
        dcnsim.validate({"classes": [{"workload": {"load": 2.0}}]})
    assert e.value.path == "classes[0].workload.load"
    assert "expected" in e.value.message
    assert str(e.value).startswith("classes[0].workload.load: ")
