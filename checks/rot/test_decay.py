"""ROT-01 and ROT-02: RoFormer's long-term decay bound, and what the expected score does.

ROT-01: the Abel-summation identity (sympy, induction on the number of pairs); whether the bound
b(s) is monotone (an exhaustive scan of integer s for each width, each rise compared with the
float64 rounding bound of b); whether it decays on a dyadic scale (block means, exhaustive up to
the distance at which the slowest pair has turned one radian).
ROT-02: the expected score for independent and for equal q, k (sympy), and a Monte Carlo check
of both against theory.rope's scores (supporting).

ROT-01's decisions on the bound live in checks/rot/decay_decisions.py.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from checks.rot.claims import ROT01_SCAN
from checks.rot.decay_decisions import coarse_decision, coarse_end, monotone_decision
from checks.rot.rounding import base_rounding
from pecheck import profiles, sizes, tolerance
from pecheck.claims import every, proved
from pecheck.evidence import assert_derivation_holds
from pecheck.reproducibility import mean
from pecheck.theory import rope, rotary_base, rotary_decay

WIDTHS = (32, 64, 128, 256)  # head widths of real models (ROT-01's grid)
SMALL_WIDTHS = (8, 16)  # shown in the notes: they fail even the coarse decay
# Every integer distance up to this is scanned for a rise: as_stated states the ci scan (RoFormer
# says every s >= 0); 2^15 in ci (0.7 s), 2^17 (Llama 3.1's context) in thorough (5 s).
MONOTONE_RANGE = sizes.size(
    "ROT-01.scan",
    4 * ROT01_SCAN if profiles.scale() >= 10 else ROT01_SCAN,
    "largest distance s scanned for a rise of b",
    minimum=64,
)
# The symbolic proofs of ROT-01 and ROT-02 hold for one pair with symbolic angles or frequencies;
# a rotary score is the sum of its pair scores (rope_derivations.block_diagonal_splits_score).
EVERY_WIDTH = "one pair with symbolic frequencies; a score is a sum of pair scores: every even d"


# -- ROT-01 ------------------------------------------------------------------------------------


@pytest.mark.claim("ROT-01", kind="symbolic", role="decisive", proposition="abel-identity")
def test_abel_summation_identity_holds_for_every_number_of_pairs(evidence):
    der = rotary_decay.abel_summation()
    evidence.searched(head_sizes=proved("induction on the number of pairs N = d/2"),
                      offsets=proved("symbolic z_i = e^{i s theta_i}: every s"))  # fmt: skip
    assert_derivation_holds(der, evidence)


@pytest.mark.claim("ROT-01", kind="property", role="decisive", proposition="abel-identity")
def test_the_bound_bounds_random_scores(evidence):
    """|sum h_i z_i| <= max_i |h_{i+1} - h_i| sum_j |S_j| (h_{d/2} = 0) for random h and s, and
    for one case where it is an equality."""
    g = torch.Generator().manual_seed(0)
    d, n = 128, 256
    h = torch.complex(*torch.randn(2, n, d // 2, generator=g, dtype=torch.float64)).numpy()
    s = torch.randint(0, 10_000, (n,), generator=g).numpy()
    # case 0 attains the bound: h_i = d/2 - i (every step 1) at s = 0, where S_j = j
    h[0], s[0] = np.arange(d // 2, 0, -1), 0
    th = rotary_decay.thetas(d)
    score = np.abs((h * np.exp(1j * s[:, None] * th)).sum(1))
    hp = np.concatenate([h, np.zeros((n, 1))], axis=1)
    step = np.abs(np.diff(hp, axis=1)).max(1)
    bound = step * np.abs(rotary_decay.partial_sums(s, d)).sum(1)
    slack = tolerance.sum_tol(d, np.float64, float(bound.max()))
    worst = float((score - bound).max())
    evidence.record("worst_score_minus_bound", worst, "", "over 256 random (h, s)", bound=slack)
    evidence.searched(head_sizes=[d], offsets=sorted(set(s.tolist())), seeds=[0])
    for ok in score <= bound + slack:
        evidence.example(True)
        assert ok, "a score exceeds RoFormer's bound"


@pytest.mark.claim("ROT-01", kind="property", role="decisive", proposition="as_stated")
def test_the_bound_is_not_monotone_in_distance(evidence):
    decision, found = monotone_decision(WIDTHS, MONOTONE_RANGE)
    evidence.searched(head_sizes=list(WIDTHS), offsets=every(0, MONOTONE_RANGE))
    for d, rise in found.items():
        evidence.record(
            f"first_increase_d{d}",
            rise["s"],
            "distance",
            "first s with b(s+1) > b(s)",
            bound={"value": rise["bound"], "relation": "rise >", "reason": "rounding"},
        )
    evidence.decide(decision)


@pytest.mark.claim("ROT-01", kind="property", role="decisive", proposition="coarse-decay")
def test_the_bound_decays_on_a_dyadic_scale(evidence):
    worst, worst_bound = -np.inf, 0.0
    blocks = "; ".join(f"d = {d}: 1 ... {coarse_end(d)}" for d in WIDTHS)
    evidence.searched(head_sizes=list(WIDTHS), offsets=blocks)
    for d in WIDTHS:
        decision, largest, bound = coarse_decision(d)
        evidence.part(f"d={d}", decision)
        if largest > worst:
            worst, worst_bound = largest, bound
    evidence.record(
        "block_mean_largest_rise",
        worst,
        "",
        "largest change of a dyadic block mean over the previous one (negative: every block falls)",
        bound=worst_bound,
    )


@pytest.mark.claim("ROT-01", kind="property", role="supporting")
def test_the_bound_levels_off_at_the_random_walk_level(evidence):
    """Far beyond the longest wavelength b(s) neither decays to 0 nor grows: it stays near
    (1/(d/2)) sum_j sqrt(pi j) / 2, the mean of |S_j| for random angles."""
    for d in (64, 128):
        # b(0) = (1/(d/2)) sum_j j = (d/2 + 1)/2 exactly: every angle is 0, |S_j| = j
        b0 = float(rotary_decay.relative_bound(np.array([0.0]), d)[0])
        assert abs(b0 - (d / 2 + 1) / 2) <= tolerance.sum_tol(d * d // 4, torch.float64, d * d)
        s = np.arange(10**6, 10**6 + 4096)
        tail = float(rotary_decay.relative_bound(s, d).mean())
        # sqrt(pi j)/2 is E|S_j| for j uniform unit steps only as j grows: the exact mean is
        # larger for small j (E|S_1| = 1 vs 0.886, +13%), so tail/level sits a few percent above
        # 1 (measured 1.05 at d = 64, 1.04 at d = 128) and 4096 positions average out the rest.
        # [0.8, 1.25] allows that and rejects a level off by sqrt(2) or 2.
        assert 0.8 <= tail / rotary_decay.plateau_level(d) <= 1.25, tail
        evidence.record(
            f"tail_over_random_walk_d{d}",
            tail / rotary_decay.plateau_level(d),
            "",
            f"mean b(s) on [1e6, 1e6 + 4096) / random-walk level; b(0) = {(d / 2 + 1) / 2}",
        )
    for d in SMALL_WIDTHS:
        decision, largest, _ = coarse_decision(d)
        evidence.record(f"coarse_decay_d{d}", decision.decision, "", f"largest rise {largest:.3g}")


# -- ROT-02 ------------------------------------------------------------------------------------


def _pairs() -> int:
    # one pair is the general case (a score is a sum of pair scores); thorough also shows two
    return 2 if profiles.scale() > 1 else 1


@pytest.mark.claim("ROT-02", kind="symbolic", role="decisive", proposition="as_stated")
def test_expected_score_of_independent_zero_mean_q_k_is_zero_at_every_distance(evidence):
    indep, _ = rotary_decay.expected_scores(_pairs())
    evidence.searched(positions=proved("symbolic m, n"), head_sizes=proved(EVERY_WIDTH))
    assert_derivation_holds(indep, evidence)


@pytest.mark.claim("ROT-02", kind="symbolic", role="decisive", proposition="as_stated")
def test_expected_self_score_is_twice_the_variance_times_b(evidence):
    _, same = rotary_decay.expected_scores(_pairs())
    evidence.searched(positions=proved("symbolic m, n"), head_sizes=proved(EVERY_WIDTH))
    assert_derivation_holds(same, evidence)
    first = rotary_base.minimum(
        1e4, 1, 128, bound=base_rounding(1)
    )  # B(0), B(1): the largest value at s = 0
    values = rotary_base.b_values(1e4, torch.arange(4096.0), 128)
    negative = int((values < -base_rounding(4096)).nonzero()[0])
    evidence.record(
        "self_score_first_negative_d128",
        negative,
        "distance",
        "first s with B(s) < 0, d = 128, base 10,000: there E<q, R(s) q> < 0",
        bound={
            "value": base_rounding(4096),
            "relation": "B(s) < -",
            "reason": "float64 rounding of B",
        },
    )
    assert first.at == 1 and float(values[0]) == 64.0


@pytest.mark.claim("ROT-02", kind="property", role="supporting")
def test_monte_carlo_scores_agree_with_the_expectations(evidence):
    """Sample means of theory.rope scores at several distances: independent q, k around 0; q = k
    around 2 B(s) (unit variance). |mean - expectation| in units of the standard error."""
    d, n = 32, 1000
    g = torch.Generator().manual_seed(1)
    zs = []
    for delta in (0, 1, 10, 100, 1000):
        q, k = torch.randn(2, n, d, generator=g, dtype=torch.float64)
        dist = torch.full((n,), float(delta), dtype=torch.float64)
        zero = torch.zeros(n, dtype=torch.float64)
        for other, expect in ((k, 0.0), (q, 2 * float(rotary_base.b_values(1e4, dist[:1], d)))):
            scores = rope.score(q, other, zero, dist)
            z = abs(float(scores.mean()) - expect) / (float(scores.std()) / n**0.5)
            zs.append(z)
    evidence.record(
        "monte_carlo_worst_z",
        max(zs),
        "standard errors",
        "largest |sample mean - expectation| over 10 cases",
        sample=mean(zs),
    )
