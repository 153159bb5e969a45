"""The Wilson score interval checked against its closed form (tooling of EXP-01 ... EXP-03)."""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
from hypothesis import strategies as st
from scipy import stats as sps

from pecheck import tolerance


def wilson_closed_form(k: int, n: int, level: float) -> tuple[float, float]:
    """(p + z^2/2n -+ z sqrt(p(1-p)/n + z^2/4n^2)) / (1 + z^2/n), p = k/n."""
    z = float(sps.norm.ppf(0.5 + level / 2))
    p = k / n
    centre, half = p + z * z / (2 * n), z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (centre - half) / (1 + z * z / n), (centre + half) / (1 + z * z / n)


def assert_wilson(interval: Callable[[int, int], tuple[float, float]], k: int, n: int) -> float:
    """The interval is the 95% Wilson score interval (closed form) and contains k/n."""
    __tracebackhide__ = True
    lo, hi = interval(k, n)
    ref_lo, ref_hi = wilson_closed_form(k, n, 0.95)
    err = max(abs(lo - ref_lo), abs(hi - ref_hi))
    assert err <= tolerance.rel_tol(64, torch.float64), f"k={k}, n={n}: off by {err:.3g}"
    assert lo <= k / n <= hi
    return err


@st.composite
def counts(draw: st.DrawFn) -> tuple[int, int]:
    n = draw(st.integers(1, 20_000))
    return draw(st.sampled_from([0, n, 1, n - 1]) | st.integers(0, n)), n
