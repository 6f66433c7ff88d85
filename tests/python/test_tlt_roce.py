"""The RoCE half of ``dcnsim reproduce tlt`` (python/dcnsim/papers/tlt/roce.py): presets,
load arithmetic, registration in the one ``tlt`` reproduction, and — in the full
TLT-SIM-RoCE-BASE fabric — TLT removing vanilla DCQCN's timeouts without losing an important
packet."""

from __future__ import annotations

import numpy as np
import pytest

import ablation_tools
import dcnsim
from dcnsim import config
from dcnsim.papers import tlt
from dcnsim.papers.tlt import roce as tlt_roce


def test_the_old_module_name_is_the_roce_module() -> None:
    # The RoCE half moved from papers/tlt_roce.py into the tlt package; code importing it by
    # its old name gets the same module (so the same figures, notes and presets).
    from dcnsim.papers import tlt_roce as old

    assert old is tlt_roce
    assert old.FIGURES is tlt_roce.FIGURES


def test_variants_validate_for_every_dcqcn_flavour() -> None:
    for t in ("dcqcn", "dcqcn_sack", "dcqcn_irn"):
        for v in ("base", "pfc", "tlt", "tlt_pfc"):
            n = config.prepare("tlt_roce", overrides=tlt_roce.variant(v, t)).normalized
            roce = n["transports"][t]["roce"]
            assert roce["tlt"] == ("on" if v.startswith("tlt") else "off")
            assert (n["switch"].get("pfc") is not None) == v.endswith("pfc")
            assert (n["switch"].get("colour") is not None) == v.startswith("tlt")
    ov = tlt_roce.variant("tlt", "dcqcn", every=384)
    n = config.prepare("tlt_roce", overrides=ov).normalized
    assert n["transports"]["dcqcn"]["roce"]["tlt_every"] == 384
    assert n["switch"]["colour"]["threshold"] in ("200kB", "200KB", 200000, "200000B")
    with pytest.raises(ValueError):
        tlt_roce.variant("tlp", "dcqcn")
    with pytest.raises(ValueError):
        tlt_roce.variant("tlt", "tcp")


def test_hpcc_figures_wait_for_the_core() -> None:
    st = tlt.REPRO.mechanism_status()
    assert st["roce_tlt"] is None
    # Either the core has HPCC, or its figures say why they are not run.
    assert st["hpcc"] is None or "hpcc" in st["hpcc"]
    ids = {f.id for f in tlt.REPRO.figures}
    for k in (
        "Fig6-dcqcn-tlt",
        "Fig6-irn-tlt",
        "Fig6-gap",
        "Fig9a-hpcc-load",
        "Fig18-degree-hpcc",
        "TLT-N-96-vs-384",
    ):
        assert k in ids
    hp = [f for f in tlt.REPRO.figures if "hpcc" in f.id]
    assert hp and all("hpcc" in f.needs for f in hp)


def test_fig18_hpcc_sweeps_the_degree_and_shares_fig6_runs() -> None:
    # TLT-Fig18: HPCC lossy / +PFC / +TLT over the foreground flows per sender; the degree
    # reaches the incast workload, and Fig 6's degree (8) adds no key, so those runs are
    # Fig 6's.
    assert tlt_roce.FIG18 == ("base", "pfc", "tlt")
    assert tlt_roce._deg(tlt_roce.DEGREE) == {}
    assert tlt_roce._deg(2) == {"degree": 2}
    fg = tlt_roce.classes("hpcc", flows_per_sender=2)[1]["workload"]
    assert fg["flows_per_sender"] == 2
    (f,) = [f for f in tlt.REPRO.figures if f.id == "Fig18-degree-hpcc"]
    assert "hpcc" in f.needs


def test_roce_load_arithmetic() -> None:
    cl = tlt_roce.classes("dcqcn_irn", load=0.4, fg_share=0.05)
    bg = cl[0]["workload"]["load"]
    assert bg == pytest.approx(0.4 / 2 * 0.95 / 1.082)
    assert cl[0]["transport"] == cl[1]["transport"] == "dcqcn_irn"
    # the shipped scenario carries the same numbers (0.1756, 1.37 ms)
    sc = config.prepare("tlt_roce").normalized
    assert sc["classes"][0]["workload"]["load"] == pytest.approx(bg, abs=1e-4)
    period = float(cl[1]["workload"]["period"].removesuffix("us"))
    assert period == pytest.approx(1370.5, rel=1e-3)


def _run(v: str) -> dcnsim.Results:
    ov = {
        "run.duration": "4ms",
        **tlt_roce.variant(v, "dcqcn"),
        "classes": tlt_roce.classes("dcqcn"),
    }
    return dcnsim.run("tlt_roce", seed=1, set=ov)


def test_tlt_removes_vanilla_dcqcn_timeouts_in_the_fabric() -> None:
    # Lossy go-back-N in the 95 → 1 incasts: tail losses wait for the 4 ms static RTO. With
    # TLT (rate-based marking, colour threshold 200 kB) red packets are dropped instead,
    # important ones never, and no flow times out.
    base, t = _run("base"), _run("tlt")
    fb = base.flows[base.flows["in_window"].astype(bool)]
    ft = t.flows[t.flows["in_window"].astype(bool)]
    assert fb["rto_count"].sum() > 0
    assert ft["drops"].sum() > 0
    assert ft["important_drops"].sum() == 0
    assert ft["important_pkts"].sum() > 0
    assert ft["rto_count"].sum() == 0
    fg = ft[ft["class"] == "foreground"]["fct_s"].to_numpy(float)
    assert np.all(np.isfinite(fg))
    fgb = fb[fb["class"] == "foreground"]["fct_s"].to_numpy(float)
    assert np.percentile(fg, 99.9) < np.percentile(fgb, 99.9)


def test_window_tlt_on_hpcc_clocks_when_the_window_closes_before_the_first_mark() -> None:
    # HPCC + window-based TLT + PFC with PFC's XOFF alpha at 1/128 (tools/ablations/tlt.py
    # fig6-hpcc-pfc), 10 ms of the reduced scale's seed 1. A foreground QP's first window left
    # slowly (its NIC shared by eight QPs); HPCC shrank the window before the first window's
    # last packet, the one TLT marks, had left, and the red packets that had left were
    # dropped: nothing important in flight, no ACK to reopen the window. An Important Clock
    # packet keeps TLT's one important packet in flight; without it the QP waited for the
    # 4 ms RTO. With no important (green) packet dropped, no flow may time out.
    from types import SimpleNamespace

    from dcnsim.papers.tlt import presets

    c = SimpleNamespace(scale=presets.REDUCED, seeds=presets.REDUCED.seeds)
    ov = {
        **tlt_roce._ov(c, "tlt_pfc", "hpcc"),  # type: ignore[arg-type]
        "switch.pfc.alpha": 1 / 128,
        "run.duration": "10ms",
        "run.horizon": "15ms",
    }
    r = dcnsim.run("tlt_roce", seed=1, set=ov, progress=False)
    assert r.queues["red_drops"].sum() > 0
    assert r.queues["green_drops"].sum() == 0
    assert r.flows["important_drops"].sum() == 0
    assert r.flows["clock_bytes"].sum() > 0
    assert r.flows["rto_count"].sum() == 0


def test_every_roce_miss_note_names_a_roce_figure() -> None:
    # A note is attached by figure id (tlt._noted): a misspelt key would never reach the
    # report. Every key must be one of the RoCE half's figures and be in the merged table.
    ids = {f.id for f in tlt_roce.FIGURES}
    assert set(tlt_roce.MISS_NOTES) <= ids, set(tlt_roce.MISS_NOTES) - ids
    for k, notes in tlt_roce.MISS_NOTES.items():
        assert tlt.MISS_NOTES[k] == notes
        texts = [notes] if isinstance(notes, str) else list(notes.values())
        assert texts and all(t.strip() for t in texts)
        if not isinstance(notes, str):
            assert set(notes) <= set(tlt.REPRO.scales), set(notes)


def test_a_note_measured_at_one_scale_is_labelled_at_another() -> None:
    notes = {"reduced": "small runs say A.", "full": "big runs say B."}
    assert tlt.note_for(notes, "full") == "big runs say B."
    assert tlt.note_for(notes, "reduced") == "small runs say A."
    only = {"reduced": "small runs say A."}
    assert tlt.note_for(only, "full") == (
        "(Measured at the reduced scale, not this one.) small runs say A."
    )
    assert tlt.note_for("any scale.", "full") == "any scale."


def test_a_full_scale_report_shows_the_full_scale_note() -> None:
    """Through the evaluation wrapper, with the reproduction's own scale objects (whose names
    are descriptions, not keys): each scale gets its note, the CI scale the reduced one,
    labelled."""
    from types import SimpleNamespace

    from dcnsim.papers.framework import NO

    notes = {"reduced": "small runs say A.", "full": "big runs say B."}

    def ev(c, fd):
        fd.verdict = NO

    for scale, want in (
        (tlt.FULL, "big runs say B."),
        (tlt.REDUCED, "small runs say A."),
        (tlt.QUICK, "(Measured at the reduced scale, not this one.) small runs say A."),
    ):
        fd = SimpleNamespace(verdict=None, note="")
        tlt._noted(ev, notes)(SimpleNamespace(scale=scale), fd)
        assert fd.note == want, scale.name


def test_full_scale_runs_may_go_on_until_their_measured_flows_finish() -> None:
    # At 240 ms the scenario's 300 ms horizon cut off web-search flows started late in the
    # window (+inf in the background means); the horizon is 5 × the duration when longer.
    from types import SimpleNamespace

    def ov(scale: object) -> dict:
        c = SimpleNamespace(scale=scale, seeds=(1,))
        return tlt_roce._ov(c, "pfc", "dcqcn")

    full = ov(tlt.FULL)
    assert full["run.duration"] == "240ms"
    assert full["run.horizon"] == "1200ms"
    n = config.prepare("tlt_roce", overrides=full).normalized
    assert n["run"]["horizon"] in ("1200ms", "1.2s")
    # The reduced scale keeps the scenario's horizon (and so its cached runs).
    assert "run.horizon" not in ov(tlt.REDUCED)
    assert tlt_roce.horizon_ms("10ms") == 300.0
    with pytest.raises(ValueError, match="roce_duration"):
        tlt_roce.horizon_ms("ten")


def _leaves(d, path=()):
    """Every (key path, value) of a nested scenario table."""
    if isinstance(d, dict):
        for k, v in d.items():
            yield from _leaves(v, (*path, k))
    else:
        yield path, d


def test_ablation_arms_change_one_thing_and_notes_cite_only_them() -> None:
    """Each arm of tools/ablations/tlt.py differs from the reproduction's variant it names in
    exactly the key it changes (so "one change" is what runs), and every ablation a RoCE note
    cites ("tools/ablations/tlt.py fig6-dcqcn") is one the tool runs (or reads)."""
    import re
    from types import SimpleNamespace

    from dcnsim.papers.tlt import presets

    abl = ablation_tools.load("tlt")
    c = SimpleNamespace(scale=presets.REDUCED, seeds=presets.REDUCED.seeds)
    for transport, arms in abl.ABLATIONS.values():
        for name, (v, ch) in arms.items():
            ov = tlt_roce._ov(c, v, transport)
            base = dict(_leaves(config.prepare(tlt_roce.SCENARIO, seed=1, overrides=ov).normalized))
            assert len(ch) <= 1, name
            if ch and set(ch) <= set(abl.OV_ARGS):
                # the incast's fan-in or the load: run builder arguments, the classes table only
                ov_arm, want = tlt_roce._ov(c, v, transport, **ch), "classes"
            else:
                ov_arm, want = {**ov, **ch}, None
            arm = config.prepare(tlt_roce.SCENARIO, seed=1, overrides=ov_arm).normalized
            diff = {".".join(map(str, p)) for p, x in _leaves(arm) if base.get(p) != x}
            if want is None:
                assert diff == set(ch), (name, diff)
            else:
                assert all(d.startswith(want) for d in diff), (name, diff)
                assert diff or ch.get("degree") == 8, name
    texts = [
        t for n in tlt_roce.MISS_NOTES.values() for t in ([n] if isinstance(n, str) else n.values())
    ]
    cited = {m for t in texts for m in re.findall(r"tools/ablations/tlt\.py ([a-z0-9-]+)", t)}
    assert "fig6-dcqcn" in cited and cited <= {*abl.ABLATIONS, *abl.READINGS}, cited
