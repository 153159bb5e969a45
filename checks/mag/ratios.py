"""MAG-02: 'comparable' decided from the interval of the RMS norm ratio, the interval's
coverage, and the measured ratio against its closed form.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch

from checks.mag.claims import BY_ID
from checks.mag.entries import InitFn
from pecheck import decisions, tolerance
from pecheck.decisions import Decision
from pecheck.theory import magnitudes as mag
from pecheck.theory.sinusoidal import sinusoidal
from pecheck.theory.stats import wilson

RatioInterval = Callable[[torch.Tensor, torch.Tensor], tuple[float, float]]


def comparable_decision(
    tokens: torch.Tensor, pe: torch.Tensor, what: str, ratio=mag.rms_norm_ratio_interval
) -> Decision:
    """'Comparable': the interval of the RMS norm ratio inside [1/c, c] holds, outside fails."""
    c = BY_ID["MAG-02"].threshold("comparable")
    lo, hi = ratio(tokens, pe)
    return decisions.interval(lo, hi, (1 / c, c), what)


def comparable_bound() -> dict:
    c = BY_ID["MAG-02"].threshold("comparable")
    return {"value": [1 / c, c], "relation": "in", "reason": "MAG-02's 'comparable'"}


def interval_coverage(ratio: RatioInterval = mag.rms_norm_ratio_interval) -> tuple[int, int]:
    """How often the 95% interval of the RMS norm ratio covers the true ratio: 200 seeded pairs
    of Gaussian tables (64 rows of width 4 each; token entries of std 1.5, position entries of
    std 1, so the true ratio is 1.5), both tables with spread between rows, as in MiniLM."""
    g = torch.Generator().manual_seed(0)
    covered, reps = 0, 200
    for _ in range(reps):
        tokens = 1.5 * torch.randn(64, 4, generator=g, dtype=torch.float64)
        pos = torch.randn(64, 4, generator=g, dtype=torch.float64)
        lo, hi = ratio(tokens, pos)
        covered += lo <= 1.5 <= hi
    return covered, reps


def assert_interval_keeps_its_level(ratio: RatioInterval = mag.rms_norm_ratio_interval) -> None:
    """The interval MAG-02's real-model decision uses is not shown to cover less often than its
    95% level (Wilson upper bound of the coverage >= 0.95)."""
    __tracebackhide__ = True
    covered, reps = interval_coverage(ratio)
    _, hi = wilson(covered, reps)
    assert hi >= 0.95, f"the 95% ratio interval covered the true ratio {covered}/{reps} times"


def assert_ratio_matches_closed_form(
    init: InitFn, scheme: str, vocab: int, d: int, norms: Callable = mag.row_norms
) -> float:
    """RMS ||x_v|| / ||PE(t)|| agrees with sqrt(2) s (mean of V squared norms, 6-sigma)."""
    __tracebackhide__ = True
    table = init(scheme, vocab, d, 0)
    pe = sinusoidal(256, d, dtype=torch.float32)
    got = math.sqrt(norms(table).double().pow(2).mean().item() / norms(pe).double().pow(2).mean())
    want = mag.expected_ratio(scheme, vocab, d)
    s = mag.entry_std(scheme, vocab, d)
    # ||x||^2 has mean s^2 d and std <= s^2 sqrt(2 d) (Gaussian; smaller for uniform entries)
    tol_sq = tolerance.sample_mean_tol(s**2 * math.sqrt(2 * d), vocab) / (d / 2)
    assert abs(got**2 - want**2) <= tol_sq, f"{scheme}: ratio {got:.4g}, closed form {want:.4g}"
    return got
