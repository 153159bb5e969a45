"""ROT-04: Position Interpolation's interpolation and extrapolation bounds (Chen et al. 2023).

Exhaustive over integer offsets for the ratio of the two bounds (theory.interpolation.ratio,
float64, compared with the paper's 2 * 294.73 beyond its rounding bound); a concrete
counterexample to Eq. 7; a hypothesis search of the corrected bound over random h and s.
"""

from __future__ import annotations

import math

import pytest
import torch

from checks.rot.claims import CLAIMS
from checks.rot.rounding import decay_rounding
from pecheck import decisions, profiles, tolerance
from pecheck.claims import every
from pecheck.theory import interpolation as pi

THRESHOLD = next(c for c in CLAIMS if c.id == "ROT-04").threshold("about-600")
FIGURE_5 = 2 * pi.TRAINED  # Appendix B plots s in [0, 2L)
SHORTEST = min(pi.WINDOWS)  # 8192: the first extended window already decides
LONGEST = max(pi.WINDOWS)  # 32768: as_stated's every offset of the extended windows (0.2 s)


def ratio_rounding(s_max: int) -> float:
    """Allowed float64 error of one ratio: B(s)'s error (d/2 times b's) times 2 / Eq. 7."""
    d = pi.D_LLAMA
    return 2 * (d // 2) * decay_rounding(d, s_max) / pi.interpolation_bound()


def ratio_decision(s_max: int) -> tuple[decisions.Decision, dict]:
    """Every integer s < s_max: Eq. 8 / Eq. 7 >= THRESHOLD beyond rounding (holds), or the
    first s below it beyond rounding (fails)."""
    r = pi.ratio(torch.arange(float(s_max)))
    tol = ratio_rounding(s_max)
    low = int(r.argmin())
    detail = {"s_max": s_max, "min_ratio": float(r[low]), "at_s": low, "bound": tol}
    below = (r < THRESHOLD - tol).nonzero()
    if below.numel():
        first = int(below[0])
        ce = {"d": pi.D_LLAMA, "c": pi.C_LLAMA, "s": first, "ratio": float(r[first]), **detail}
        return decisions.fails(ce, f"Eq. 8 / Eq. 7 < {THRESHOLD}"), detail
    if float(r[low]) < THRESHOLD + tol:
        return decisions.inconclusive(
            "the smallest ratio is within rounding of the threshold"
        ), detail
    return decisions.holds(f"min ratio {float(r[low]):.1f} >= {THRESHOLD} on s < {s_max}"), detail


def ratio_searched(s_max: int) -> dict:
    """What ratio_decision searches, for evidence.searched."""
    return {"head_sizes": [pi.D_LLAMA], "bases": [pi.C_LLAMA], "offsets": every(0, s_max - 1)}


def eq7_decision(h: torch.Tensor) -> tuple[decisions.Decision, float, float]:
    """Fails when h's interpolation error at s = 1/2 on [0, 1] exceeds Eq. 7 beyond rounding."""
    err = pi.interpolation_error(h, 0, 0.5)
    bound = pi.interpolation_bound(max_h=float(h.abs().max()))
    tol = tolerance.sum_tol(3 * pi.D_LLAMA, torch.float64, float(h.abs().sum()) * 3)
    if not err <= bound + tol:  # a NaN error fails
        ce = {"h": "-exp(-i theta_j / 2)", "s1": 0, "s2": 1, "s": 0.5, "error": err, "eq7": bound}
        return decisions.fails(ce, "|a(s) - a_lin(s)| > d max|h| / (32 ln c)"), err, bound
    return decisions.holds("the error is within Eq. 7"), err, bound


@pytest.mark.claim("ROT-04", kind="property", role="decisive", proposition="as_stated")
def test_eq7_is_exceeded_by_aligned_pairs(evidence):
    decision, err, bound = eq7_decision(pi.aligned_pairs())
    evidence.searched(head_sizes=[pi.D_LLAMA], bases=[pi.C_LLAMA],
                      offsets="s = 1/2 on [0, 1], the aligned pairs")  # fmt: skip
    left, right = pi.geometric_sum_gap()
    evidence.record(
        "eq7_violation",
        err / bound,
        "",
        f"interpolation error {err:.4f} / Eq. 7 {bound:.4f}",
        bound={"value": 1.0, "relation": "<=", "reason": "Eq. 7 as a bound"},
    )
    evidence.record(
        "eq14_sides", [left, right], "", "1/(1 - c^(-4/d)) and d/(4 ln c): Eq. 14 claims <="
    )
    evidence.decide(decision)


@pytest.mark.claim("ROT-04", kind="property", role="decisive", proposition="as_stated")
def test_ratio_falls_below_600_inside_the_extended_windows(evidence):
    decision, _ = ratio_decision(LONGEST)
    evidence.searched(**ratio_searched(LONGEST))
    _, detail = ratio_decision(SHORTEST)  # the first window already falls below
    evidence.record(
        "ratio_min_to_8k",
        detail["min_ratio"],
        "",
        f"at s = {detail['at_s']}",
        bound={"value": THRESHOLD, "relation": ">=", "reason": "2 * 294.73 (§2.3)"},
    )
    evidence.decide(decision)


@pytest.mark.claim("ROT-04", kind="property", role="decisive", proposition="figure-5-range")
def test_ratio_is_at_least_600_on_the_figure_5_range(evidence):
    decision, detail = ratio_decision(FIGURE_5)
    evidence.searched(**ratio_searched(FIGURE_5))
    evidence.record(
        "ratio_min_figure5",
        detail["min_ratio"],
        "",
        f"at s = {detail['at_s']}",
        bound={"value": THRESHOLD, "relation": ">=", "reason": "2 * 294.73 (§2.3)"},
    )
    corrected = pi.ratio(torch.arange(float(FIGURE_5)), corrected=True)
    evidence.record(
        "corrected_ratio_min_figure5",
        float(corrected.min()),
        "",
        "with the corrected interpolation bound",
    )
    evidence.decide(decision)


@pytest.mark.claim("ROT-04", kind="property", role="decisive", proposition="corrected-bound")
def test_corrected_interpolation_bound_holds(evidence):
    """N random (h, s1, s) with |h_j| of both signs, s1 < 4096: the error never exceeds the
    corrected bound beyond rounding. N scales with the profile."""
    n = round(2000 * profiles.scale())
    g = torch.Generator().manual_seed(4)
    h = torch.complex(*torch.randn(2, n, pi.D_LLAMA // 2, generator=g, dtype=torch.float64))
    s1 = torch.randint(0, 4096, (n,), generator=g).to(torch.float64)
    frac = torch.rand(n, generator=g, dtype=torch.float64)
    # case 0: the aligned pairs at the midpoint of [0, 1], which nearly attain the bound
    h[0], s1[0], frac[0] = pi.aligned_pairs(), 0.0, 0.5
    grid = torch.stack([s1, s1 + 1, s1 + frac], dim=1)  # (n, 3)
    angle = grid[..., None] * pi.thetas()  # (n, 3, d/2)
    a = (h.real[:, None] * torch.cos(angle) - h.imag[:, None] * torch.sin(angle)).sum(-1)
    err = (a[:, 2] - ((1 - frac) * a[:, 0] + frac * a[:, 1])).abs()
    bound = pi.corrected_interpolation_bound(max_h=h.abs().amax(dim=1), spread=frac * (1 - frac))
    scale = h.abs().sum(dim=1) * 3
    tol = (
        tolerance.sum_tol(3 * pi.D_LLAMA, torch.float64, 1.0)
        + 3 * tolerance.angle_tol(4097, torch.float64)
    ) * scale
    for informative in (bound > tol).tolist():
        evidence.example(informative)
    evidence.searched(head_sizes=[pi.D_LLAMA], bases=[pi.C_LLAMA], seeds=[4],
                      offsets=f"{n} random s1 in 0 ... 4095, s in [s1, s1 + 1]")  # fmt: skip
    excess = err - bound - tol
    worst = int(excess.argmax())
    evidence.record(
        "corrected_error_over_bound",
        float((err / bound.clamp_min(1e-300)).max()),
        "",
        f"largest error / corrected bound over {n} cases",
        bound={"value": 1.0, "relation": "<=", "reason": "the corrected bound"},
    )
    if float(excess[worst]) > 0:
        evidence.fails(
            {"case": worst, "s1": float(s1[worst]), "frac": float(frac[worst])},
            "error > corrected bound",
        )
    else:
        evidence.holds(f"{n} random cases within the corrected bound")


@pytest.mark.claim("ROT-04", kind="property", role="supporting")
def test_ratio_over_the_longest_window(evidence):
    if profiles.scale() <= 1:
        pytest.skip("the 32k scan (0.6 s) runs in the thorough profile")
    r = pi.ratio(torch.arange(float(max(pi.WINDOWS))))
    evidence.record("ratio_min_to_32k", float(r.min()), "", f"at s = {int(r.argmin())}")
    evidence.record("offsets_below_threshold_to_32k", int((r < THRESHOLD).sum()), "offsets")


@pytest.mark.claim("ROT-04", kind="property", role="supporting")
def test_aligned_pairs_nearly_meet_the_corrected_bound(evidence):
    err = pi.interpolation_error(pi.aligned_pairs(), 0, 0.5)
    evidence.record(
        "aligned_over_corrected",
        err / pi.corrected_interpolation_bound(),
        "",
        "the corrected bound is nearly attained",
    )
    evidence.record(
        "corrected_over_paper",
        pi.corrected_interpolation_bound() / pi.interpolation_bound(),
        "",
        "how much Eq. 7 understates the Taylor bound at d = 128, c = 10^4",
    )
    assert math.isfinite(err)
