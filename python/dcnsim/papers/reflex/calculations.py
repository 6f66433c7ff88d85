"""REFLEX reproduction: the calculated columns (fluid max-min, and REFLEX's budget timeline).

Owns Fig 2's and Fig 3's rates from :func:`dcnsim.fluid.maxmin` (:func:`fig2_rates`,
:func:`calc_rates`), the time to collect the first budget (:func:`budget_time_calc`, Fig 9),
the spendable fraction of the fair share (:func:`spendable_fraction`, Fig 10a) and the exploit
size needed per α/r (:func:`exploit_needed`, Fig 10b).
"""

from __future__ import annotations

import math

import numpy as np

from ...fluid import maxmin
from .scenario import LINE, SCHEMES


def fig2_rates() -> tuple[np.ndarray, np.ndarray]:
    """REFLEX Fig. 2: (all equal priority, one A→B flow at low priority)."""
    caps = {"A": 1.0, "B": 1.0, "C": 1.0, "D": 1.0}
    paths = [["A", "B"], ["A", "B"], ["A", "D"], ["C", "D"]]
    return maxmin(paths, caps), maxmin(paths, caps, priority=[0, 1, 0, 0])


def calc_rates(case: int, scheme: str, alpha: float = 0.9, exploit_share: float = 0.6) -> dict:
    """Fluid rates (Gb/s, no header overhead) of the flexible and regular flow while both are
    active. REFLEX: the flexible flow is LOW for the exploit share of the time when it has
    budget (Case 1: built before the regular flow came) and otherwise keeps α of its fair
    share (Case 2: its budget grows only at (1 − α)·R_fair, so on average it holds α·R_fair)."""
    paths = [[0], [0]]
    fair = maxmin(paths, [LINE])
    if scheme == "reflex":
        low = maxmin(paths, [LINE], weights=[1.0, 9.0])  # DRR 90/10, flexible in the low queue
        if case == 1:
            r = exploit_share * low + (1 - exploit_share) * fair
        else:
            f = alpha * fair[0]
            r = np.array([f, LINE - f])
    elif scheme == "none":
        r = fair
    elif scheme == "absolute":
        r = maxmin(paths, [LINE], priority=[1, 0])
    else:
        w = SCHEMES[scheme][0]
        assert w is not None
        r = maxmin(paths, [LINE], weights=[w[1], w[0]])
    return {"flexible": float(r[0]), "regular": float(r[1])}


def budget_time_calc(alpha: float, d_exploit: int, t_int: float = 0.005) -> float:
    """Seconds from a flow's start (at a cycle boundary) to its first LOW interval, from the
    algorithm's timeline: SYNC at the next cycle start (one cycle later, D·T_int), R_fair after
    warmup + measure (2 intervals), budget growing at (1 − α)·R_fair until it exceeds
    L = α·R_fair·D_exploit·T_int, checked only at measure→exploit boundaries (every cycle)."""
    d = 2 + d_exploit
    first = (d + 2) * t_int  # R_fair known; the first decision
    need = alpha * d_exploit * t_int / (1 - alpha)  # accrual time: L / ((1 − α)·R_fair)
    k = math.ceil(need / (d * t_int) - 1e-9)  # decisions after the first one
    return first + k * d * t_int


def spendable_fraction(d_exploit: int, low_share: float | None = None) -> float:
    """REFLEX Fig. 10a: the most of its fair share a flexible flow can give up in a two-flow
    competition: the exploit share of the cycle × what going LOW costs (1 − low / fair, from
    the fluid solver with DRR 9:1)."""
    if low_share is None:
        low_share = _low_share()
    return d_exploit / (2 + d_exploit) * (1 - low_share)


def _low_share() -> float:
    """Rate at LOW / fair share in the two-flow competition under DRR 9:1 (fluid solver): 1/5."""
    fair = maxmin([[0], [0]], [LINE])[0]
    low = maxmin([[0], [0]], [LINE], weights=[1.0, 9.0])[0]
    return low / fair


def exploit_needed(factor: float, low_share: float | None = None) -> int | None:
    """REFLEX Fig. 10b: the smallest D_exploit (1:1 warmup:measure) at which a flexible flow
    with freedom factor α (or r) can spend all the freedom it has, 1 − factor of its fair
    share, in a two-flow competition; ``None`` if no exploit size suffices.

    The spendable fraction of Fig. 10a, D/(2 + D)·(1 − ℓ) with ℓ = low / fair (paper §6.4),
    must reach 1 − factor: D·(factor − ℓ) ≥ 2·(1 − factor), i.e.
    D ≥ 2·(1 − factor) / (factor − ℓ). The same bound is where Algorithm 1's budget (spec
    §5.2.4) stops covering a LOW exploit phase every cycle: a cycle earns (1 − α)·R_fair over
    the 2 HIGH intervals and loses (α − ℓ)·R_fair over the D LOW ones. The r axis is read the
    same way as α [CHOICE: the paper plots "α/r" on one axis; 1 − r of the data may be dropped,
    i.e. the delivered fraction of the fair share may fall to r]."""
    ell = _low_share() if low_share is None else low_share
    if factor >= 1.0:
        return 0  # no freedom to spend
    if factor <= ell:
        return None  # even D → ∞ spends only 1 − ℓ < 1 − factor
    return max(1, math.ceil(2 * (1 - factor) / (factor - ell) - 1e-9))


#: The α/r grid of Fig. 10b and the paper's default exploit size (§6.4).
FIG10B_FACTORS = tuple(round(0.1 * i, 1) for i in range(11))
D_EXPLOIT_DEFAULT = 3
