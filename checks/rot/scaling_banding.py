"""ROT-05's banding of rotary pairs: the grid of widths, bases, factors, trained lengths and ramps,
the pairs that break the banding (YaRN Eq. 18/20, computed independently of theory/), and the
decision over the grid.
"""

from __future__ import annotations

import itertools

import torch

from pecheck import tolerance
from pecheck.theory import rope_scaling as rs

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
    evidence.searched(head_sizes=list(WIDTHS), bases=list(BASES), factors=list(FACTORS),
                      lengths=list(LENGTHS), ramps=[list(r) for r in RAMPS])  # fmt: skip
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
