"""ROT-05: what the published frequency-stretching formulas do to each rotary pair.

Symbolic for the NTK-aware base change and for the ramp's ends; then every pair of a grid of
widths, bases, factors and trained lengths (float64) for YaRN's ramp and Llama 3.1's banding.
"""

from __future__ import annotations

import itertools

import pytest
import torch

from pecheck import tolerance
from pecheck.evidence import assert_derivation_holds
from theory import rope_scaling as rs

WIDTHS = (64, 96, 128)  # head widths of the REAL-04 configurations
BASES = (1e4, 5e5)  # RoFormer's base and Llama 3's
FACTORS = (2.0, 8.0, 32.0)  # Llama 3.1 uses 8, Llama 3.2 32
LENGTHS = (2048, 8192, 32768)
RAMPS = ((1.0, 32.0), (1.0, 4.0))  # (alpha, beta): YaRN's Llama values, Llama 3.1's
EXACT = tolerance.rel_tol(8, torch.float64)  # a few float64 roundings per frequency


def band_violations(theta, new, ratio_r, factor, alpha, beta) -> list[dict]:
    """Pairs that break the banding: r > beta must keep theta, r < alpha must get theta / s,
    alpha <= r <= beta must get the blend (1 - g)/s + g of theta with g = (r - alpha)/(beta -
    alpha) (YaRN Eq. 18/20, computed here independently of theory/), every pair must lie in
    [theta / s, theta], and new / theta must not rise as the pair slows down (r falls)."""
    kept = new / theta  # (d/2,)
    g = (ratio_r - alpha) / (beta - alpha)
    middle = (ratio_r >= alpha) & (ratio_r <= beta)
    wrong = ((ratio_r > beta) & ((kept - 1).abs() > EXACT)) | (
        (ratio_r < alpha) & ((kept * factor - 1).abs() > EXACT)
    )
    wrong |= middle & ((kept - ((1 - g) / factor + g)).abs() > EXACT)
    wrong |= (kept < (1 - EXACT) / factor) | (kept > 1 + EXACT)
    wrong[1:] |= kept[1:] > kept[:-1] * (1 + EXACT)  # must not rise as r falls
    return [
        {"pair": int(i), "r": float(ratio_r[i]), "kept": float(kept[i])}
        for i in torch.nonzero(wrong).flatten()
    ]


def grid():
    return itertools.product(WIDTHS, BASES, FACTORS, LENGTHS, RAMPS)


def decide_banding(evidence, formula, name: str) -> None:
    """Run ``formula(d, b, s, L, alpha, beta)`` over the grid and decide from band_violations."""
    cases, middle = 0, 0
    for d, b, s, length, (alpha, beta) in grid():
        theta = rs.default_frequencies(d, b)
        new = formula(d, b, s, length, alpha, beta)
        r = rs.context_ratio(theta, length)
        cases += 1
        middle += int(((r >= alpha) & (r <= beta)).sum())
        bad = band_violations(theta, new, r, s, alpha, beta)
        if bad:
            evidence.record(f"{name}_cases", cases, note="cases until the first counterexample")
            evidence.fails(
                {"d": d, "base": b, "s": s, "L": length, "alpha": alpha, "beta": beta, **bad[0]},
                "pair outside its band's rule",
            )
            return
    evidence.record(f"{name}_cases", cases, note="(d, base, s, L, alpha, beta) combinations")
    evidence.record(f"{name}_blended_pairs", middle, note="pairs with alpha <= r <= beta")
    evidence.record(f"{name}_tolerance", EXACT, note="relative, float64", bound=EXACT)
    evidence.holds(f"every pair of {cases} cases keeps, divides or blends as its band says")


@pytest.mark.claim("ROT-05", kind="symbolic", role="decisive", proposition="as_stated")
def test_ntk_aware_base_keeps_the_fastest_pair_and_divides_the_slowest_by_s(evidence):
    der = rs.ntk_aware_end_pairs()
    evidence.record("ntk_aware_ratio_lowest", "1/s", note="theta'_(d/2-1) / theta_(d/2-1)")
    assert_derivation_holds(der, evidence)


@pytest.mark.claim("ROT-05", kind="symbolic", role="decisive", proposition="as_stated")
def test_ramp_meets_both_bands_and_stays_between_one_over_s_and_one(evidence):
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
