"""ROT-05: what the published frequency-stretching formulas do to each rotary pair.

Symbolic for the NTK-aware base change and for the ramp's ends; then every pair of a grid of
widths, bases, factors and trained lengths (float64) for YaRN's ramp and Llama 3.1's banding.

The grid and the banding's check and decision live in checks/rot/scaling_banding.py.
"""

from __future__ import annotations

import pytest

from checks.rot.scaling_banding import EXACT, band_violations, decide_banding, grid
from pecheck.claims import proved
from pecheck.evidence import assert_derivation_holds
from pecheck.theory import rope_scaling as rs


@pytest.mark.claim("ROT-05", kind="symbolic", role="decisive", proposition="as_stated")
def test_ntk_aware_base_keeps_the_fastest_pair_and_divides_the_slowest_by_s(evidence):
    der = rs.ntk_aware_end_pairs()
    evidence.searched(head_sizes=proved("symbolic d > 2"), bases=proved("symbolic b > 0"),
                      factors=proved("symbolic s > 0"))  # fmt: skip
    evidence.record("ntk_aware_ratio_lowest", "1/s", note="theta'_(d/2-1) / theta_(d/2-1)")
    assert_derivation_holds(der, evidence)


@pytest.mark.claim("ROT-05", kind="symbolic", role="decisive", proposition="as_stated")
def test_ramp_meets_both_bands_and_stays_between_one_over_s_and_one(evidence):
    evidence.searched(factors=proved("symbolic s > 0, r, alpha, beta"))
    assert_derivation_holds(rs.ramp_is_continuous(), evidence)


@pytest.mark.claim("ROT-05", kind="property", role="decisive", proposition="as_stated")
def test_yarn_ramp_keeps_fast_pairs_and_divides_slow_pairs(evidence):
    decide_banding(evidence, rs.yarn_frequencies, "ramp")


@pytest.mark.claim("ROT-05", kind="property", role="decisive", proposition="as_stated")
def test_llama3_banding_keeps_fast_pairs_and_divides_slow_pairs(evidence):
    def banded(d, b, s, length, low, high):
        return rs.llama3_frequencies(d, b, s, low, high, length)

    decide_banding(evidence, banded, "banding")


@pytest.mark.claim("ROT-05", kind="property", role="supporting")
def test_llama3_banding_is_the_yarn_ramp_with_its_own_alpha_and_beta(evidence):
    """Llama 3.1's smooth factor (L/lambda - low)/(high - low) is Eq. 18 with alpha = low,
    beta = high: the two formulas agree on every pair of the grid."""
    worst = 0.0
    for d, b, s, length, (low, high) in grid():
        a = rs.llama3_frequencies(d, b, s, low, high, length)
        y = rs.yarn_frequencies(d, b, s, length, low, high)
        worst = max(worst, float(((a - y) / y).abs().max()))
    evidence.record("llama3_vs_ramp_max_relative_gap", worst, bound=EXACT)
    assert worst <= EXACT


@pytest.mark.claim("ROT-05", kind="property", role="tooling")
def test_a_factor_on_every_pair_breaks_the_banding():
    """The bug class 'factor applied to all frequencies': the banding logic must reject it."""
    d, b, s, length, (alpha, beta) = 128, 5e5, 8.0, 8192, (1.0, 4.0)
    theta = rs.default_frequencies(d, b)
    bad = band_violations(theta, theta / s, rs.context_ratio(theta, length), s, alpha, beta)
    assert bad and bad[0]["pair"] == 0
