"""LPF (low-priority TCP) reproduction: CI-sized subset (``lowprio.TINY``, one seed).

Asserted here — the paper's qualitative findings this reduced reproduction shows:

* LPF-Fig2a: the retransmission-rate CDF of long low-priority flows is far worse under strict
  priority than in one shared queue: median ≥ 2×, p80 higher.
* LPF-Fig8: RTO_min is U-shaped around 1 ms at p99 (500 µs, 5 ms and 10 ms slower).
* LPF-Fig10: TCP-LP and LEDBAT (target 3.2 ms) are slower than TCP for low-priority flows
  (skipped until both validate).

Not asserted (see ``dcnsim reproduce lowprio`` → report.md for the numbers and notes):

* LPF-Fig2a at p80 (≈ 1.3× here, not "8% vs negligible").
* LPF-Fig7 (buffer size): p99 grows as the buffer shrinks, but 24 KB vs 192 KB is ≈ 1.2–1.8×,
  not 5.7×.
* LPF-Fig9 (Cubic/NewReno × SACK): our spread is larger than "minimal".
* LPF-Fig11 (WFQ 99:1): no p99.9 gain for small/medium flows in our model; TCP+ needs cqcn.
* LPF-Fig2b, 3a–c, 4a–c, 5a–b: need the Near-Opt baseline (reported "not yet available"
  until ``kind = "nearopt"`` validates; where it runs but is slower than TCP the report says
  the baseline is not near-optimal there instead of claiming the finding).
"""

from __future__ import annotations

from pathlib import Path

import pytest

import dcnsim
from dcnsim import config
from dcnsim.papers import lowprio

pytestmark = pytest.mark.usefixtures("real_core")

UNAVAILABLE = {"nearopt": "test: off", "cqcn": "test: off", "ledbat": None, "tcp_lp": None}


@pytest.fixture(scope="module")
def out_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("lowprio")


@pytest.mark.parametrize("name", ["lpf_das", "lpf_sjf", "lpf_colocation"])
def test_presets_validate_with_lpf_defaults(name: str) -> None:
    sc = dcnsim.validate(name)
    assert sc["topology"]["hosts"] == 40
    assert sc["switch"]["queue_limit"] == ["128KB", "64KB"]
    assert sc["switch"]["scheduler"] == {"kind": "strict"}
    assert sc["host"]["driver_queue"] == 100
    t = sc["transports"]["tcp"]
    assert (t["cc"], t["sack"], t["init_cwnd"], t["rto_min"], t["rwnd"]) == (
        "cubic",
        True,
        2,
        "1ms",
        "1MB",
    )


def test_hybrid_preset_needs_nearopt() -> None:
    why = lowprio.mechanism_status()["nearopt"]
    if why:
        pytest.skip(f"lpf_hybrid needs the Near-Opt transport, which does not validate yet: {why}")
    sc = dcnsim.validate("lpf_hybrid")
    assert sc["transports"]["nearopt"]["kind"] == "nearopt"


def test_das_preset_pairs_primary_and_duplicate(out_dir: Path) -> None:
    res = dcnsim.run("lpf_das", set=lowprio._window(0.01), progress=False)
    f = res.flows
    per_req = f.groupby("tag")["priority"].agg(lambda p: tuple(sorted(p)))
    assert len(per_req) > 50
    assert (per_req == (0, 1)).all()


def test_sjf_preset_splits_at_1mb() -> None:
    res = dcnsim.run("lpf_sjf", set=lowprio._window(0.02), progress=False)
    f = res.flows
    assert ((f["size"] >= 1_000_000) == (f["priority"] == 1)).all()
    assert (f["priority"] == 1).any() and (f["priority"] == 0).any()


def test_fig2a_priority_queue_inflates_retransmissions(out_dir: Path) -> None:
    # The body of the CDF (median) must be far worse under strict priority; the report also
    # judges the p80, which our FairShare run (a 192 KB FIFO hit by the 4 MB incast) does not
    # keep negligible, so the full p80 finding is listed as not reproduced.
    (o,) = lowprio.run_figures(out_dir, lowprio.TINY, ["2a"], jobs=2, status=UNAVAILABLE)
    v = o.values
    assert v["p50_pq"] >= 2 * v["p50_fs"], o.ours
    assert v["p80_pq"] > v["p80_fs"], o.ours


def test_fig8_rto_min_u_shape(out_dir: Path) -> None:
    """The right arm of LPF-Fig8's U holds robustly: a large RTO_min (5, 10 ms) makes tail
    losses slow, so the low-priority p99 grows past that at 1 ms. The left arm (500 µs worse
    than 1 ms because of spurious timeouts) is not robust at this scale: 500 µs does take
    more spurious RTOs, but its p99 came out above 1 ms's with one event tie-breaking order
    and below it with another, so it is reported (in ``o.note``), not asserted."""
    (o,) = lowprio.run_figures(out_dir, lowprio.TINY, ["8"], jobs=2, status=UNAVAILABLE)
    p99 = {
        part.split(":")[0].strip(): float(part.split("p99")[1].split("ms")[0])
        for part in o.ours.split(";")
    }
    assert p99["5ms"] > p99["1ms"] and p99["10ms"] > p99["1ms"], o.ours
    spurious = {
        part.split(":")[0].strip(): int(part.split("ms, ")[-1].split()[0])
        for part in o.ours.split(";")
    }
    assert spurious["500us"] > spurious["1ms"] > spurious["5ms"] == 0, o.ours


def test_fig10_wan_scavengers_are_slower_than_tcp(out_dir: Path) -> None:
    st = lowprio.mechanism_status()
    if st["ledbat"] or st["tcp_lp"]:
        pytest.skip(f"LEDBAT/TCP-LP not available: {st['ledbat'] or st['tcp_lp']}")
    (o,) = lowprio.run_figures(out_dir, lowprio.TINY, ["10"], jobs=2, status=st)
    assert o.holds, o.ours


def test_missing_mechanisms_are_reported_not_faked(out_dir: Path) -> None:
    outs = lowprio.run_figures(
        out_dir, lowprio.TINY, ["2b", "4a", "5a"], jobs=2, status=UNAVAILABLE
    )
    for o in outs:
        assert o.ours.startswith("not yet available: nearopt: test: off"), o
        assert o.holds is None and o.verdict == "n/a"
    path = lowprio.write_report(out_dir, outs, "test")
    text = path.read_text()
    assert "| LPF-Fig4a |" in text and "not yet available" in text


def test_mechanism_probe_names_the_key() -> None:
    # a mechanism that cannot validate is reported with the offending key
    why = lowprio._probe({"transports.x": {"kind": "no-such-kind"}, "classes[1].transport": "x"})
    assert why and "transports.x" in why
    assert lowprio._probe({}) is None
    assert config.get_path(dcnsim.validate("lpf_colocation"), "classes[0].workload.period")
