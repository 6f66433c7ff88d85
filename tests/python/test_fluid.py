"""The fluid max-min solver (dcnsim.fluid): REFLEX Fig. 2 exactly, and textbook cases."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from dcnsim.fluid import maxmin

# REFLEX Fig. 2: four hosts on one switch, unit links; A and C send (uplinks), B and D
# receive (downlinks). Flows: A→B, A→B, A→D, C→D.
CAPS = {"A": 1.0, "B": 1.0, "C": 1.0, "D": 1.0}
PATHS = [["A", "B"], ["A", "B"], ["A", "D"], ["C", "D"]]


def _exact(x: float) -> Fraction:
    return Fraction(x).limit_denominator(1000)


def test_fig2_equal_priority() -> None:
    r = maxmin(PATHS, CAPS)
    assert [_exact(v) for v in r] == [Fraction(1, 3)] * 3 + [Fraction(2, 3)]


def test_fig2_one_flow_low() -> None:
    # One A→B flow to low priority: it gets 0, every other flow 1/2 (C–D slows by 0.25).
    r = maxmin(PATHS, CAPS, priority=[0, 1, 0, 0])
    assert [_exact(v) for v in r] == [Fraction(1, 2), 0, Fraction(1, 2), Fraction(1, 2)]
    assert _exact(maxmin(PATHS, CAPS)[3] - r[3]) == Fraction(1, 6)
    # "the regular C-D flow experiences a slowdown of 0.25" is relative: 0.5 / (2/3) = 0.75.
    assert _exact(r[3] / maxmin(PATHS, CAPS)[3]) == Fraction(3, 4)


def test_single_link_equal_and_weighted() -> None:
    assert np.allclose(maxmin([[0]] * 4, [10.0]), 2.5)
    # DRR 9:1 with one flow per queue = weighted max-min 9:1.
    assert np.allclose(maxmin([[0], [0]], [10.0], weights=[9, 1]), [9.0, 1.0])
    # Strict priority: the low flow gets only what the high one leaves.
    assert np.allclose(maxmin([[0], [0]], [10.0], priority=[1, 0]), [0.0, 10.0])
    assert np.allclose(
        maxmin([[0], [0]], [10.0], priority=[1, 0], demands=[np.inf, 4.0]), [6.0, 4.0]
    )


def test_parking_lot() -> None:
    # Classic parking lot: one long flow over links 0..2, one short flow per link.
    paths = [[0, 1, 2], [0], [1], [2]]
    assert np.allclose(maxmin(paths, [1.0, 1.0, 1.0]), [0.5, 0.5, 0.5, 0.5])
    # Unequal capacities: link 1 is the long flow's bottleneck; the others fill up.
    r = maxmin(paths, [1.0, 0.4, 1.0])
    assert np.allclose(r, [0.2, 0.8, 0.2, 0.8])


def test_demands_and_conservation() -> None:
    rng = np.random.default_rng(1)
    caps = rng.uniform(1, 10, 6)
    paths = [list(rng.choice(6, size=rng.integers(1, 4), replace=False)) for _ in range(12)]
    w = rng.uniform(0.5, 3, 12)
    r = maxmin(paths, caps, weights=w, priority=rng.integers(0, 2, 12))
    load = np.zeros(6)
    for f, p in enumerate(paths):
        load[p] += r[f]
    assert np.all(load <= caps + 1e-9)
    # Every flow crosses at least one saturated link (max-min: no flow can grow alone).
    for p in paths:
        assert np.isclose(load[p], caps[p]).any()


def test_errors_name_the_argument() -> None:
    with pytest.raises(ValueError, match="weights"):
        maxmin([[0]], [1.0], weights=[0.0])
    with pytest.raises(ValueError, match=r"paths\[0\]"):
        maxmin([["X"]], {"A": 1.0})
    with pytest.raises(ValueError, match="priority"):
        maxmin([[0]], [1.0], priority=[0, 1])
