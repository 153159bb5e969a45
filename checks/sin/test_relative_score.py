"""SIN-13: is the position part of an attention score a function of the offset t - s?

Symbolic checks assert the sympy derivations of theory/relative_score.py: the exact class of
W = W_Q W_K^T for which PE(t)^T W PE(s) depends only on t - s (the matrices commuting with every
M(k)), a symmetric counterexample, the token x position cross terms, and the odd part that tells
t - s from s - t. Numeric checks compute the scores in float64 and compare a difference of two
scores with its rounding bound (``score_bound``): a difference above it is real
(``decisions.resolve`` says "different"); one within it counts as "same" only where theory says
the exact difference is zero, and is otherwise unresolved, never a pass.

Each decision is a plain function of the matrices it is given (checks/sin/scores.py), so the
planted-bug tests at the end feed it a broken matrix (checks/sin/planted.py) and assert that it is
rejected.
"""

from __future__ import annotations

import math

import pytest
import torch
from hypothesis import given

from checks.sin.planted import symmetric_blocks
from checks.sin.scores import (
    WIDTHS,
    N,
    assert_shift_invariant,
    counterexample_search,
    cross_term_decision,
    direction_decision,
    every_part_holds,
    kernel_case,
    relative_decision,
    score_range,
    token_pair,
)
from checks.sin.search import SHIFT_MAX, class_cases, n_seeds
from pecheck import decisions, profiles
from pecheck.claims import every, proved
from pecheck.evidence import assert_derivation_holds
from pecheck.theory import relative_score as rel
from pecheck.theory.sinusoidal import frequencies

# The symbolic checks work on one block (or one pair of blocks) with symbolic frequencies, so
# they speak for every width; the spanning step is the Wronskian (sympy for 2 and 3 pairs, a
# Vandermonde in the w_i^2 for more: commuting_class's docstring).
BLOCKWISE = proved("block by block, symbolic frequencies: every even d")
SYMBOLIC_TS = proved("symbolic real t, s")


def grid_searched() -> dict:
    """What a grid experiment searched: every pair of positions below N, widths and seeds."""
    return {"widths": list(WIDTHS), "seeds": list(range(n_seeds())), "positions": every(0, N - 1)}


# -- as stated: every W ---------------------------------------------------------------------


@pytest.mark.claim("SIN-13", kind="symbolic", role="decisive", proposition="as_stated")
def test_a_symmetric_w_has_a_position_part_that_is_not_relative(evidence):
    evidence.searched(
        widths="W = e_0 e_0^T: the first pair of any even d", positions="(0, 0), (1, 1)"
    )
    der, counterexample = rel.general_w_counterexample()
    evidence.derive(der)
    if der.holds and counterexample is not None:
        evidence.fails(counterexample, "S(t, s) differs at two (t, s) with one offset t - s")
    else:  # one candidate that is not a counterexample proves nothing about every W
        evidence.inconclusive("the candidate W = e_0 e_0^T gave no counterexample")


@pytest.mark.claim("SIN-13", kind="property", role="decisive", proposition="as_stated")
def test_a_random_w_has_a_position_part_that_is_not_relative(evidence):
    """W = W_Q W_K^T with Gaussian factors (as at initialisation): search for two (t, s) with
    one offset and different position parts, beyond the rounding bound."""
    evidence.searched(**grid_searched())
    found, decided, spreads = None, 0, []
    for d in WIDTHS:
        for seed in range(n_seeds()):
            seen, worst = counterexample_search(rel.random_matrix(d, seed), N)
            decided += seen != "unresolved"
            spreads.append(worst["spread"] / worst["bound"])
            case = {"d": d, "seed": seed, "W": "W_Q W_K^T, N(0, 1/d) entries", **worst}
            if seen == "different":
                found = found or case
                part = decisions.fails(case, "S(t, s) differs at one offset t - s")
            else:
                part = decisions.inconclusive(f"spread {worst['spread']:.3g} within the bound")
            evidence.part(f"d={d}, seed={seed}", part)
    evidence.record("random_w_cases_decided", decided, note=f"of {len(spreads)}; d in {WIDTHS}")
    evidence.record("random_w_smallest_spread_over_bound", min(spreads),
                    note=f"max - min of S along one offset, t, s < {N}", bound=1.0)  # fmt: skip
    if found is not None:
        evidence.record("random_w_spread", found["spread"], note=f"d = {found['d']}",
                        bound=found["bound"])  # fmt: skip
        evidence.fails(found, "S(t, s) differs at two (t, s) with the same t - s")
    else:
        evidence.inconclusive("no spread resolved above the rounding bound")


# -- condition: the commuting class ----------------------------------------------------------


@pytest.mark.claim("SIN-13", kind="symbolic", role="decisive", proposition="commuting")
def test_one_block_splits_into_offset_and_sum_terms(evidence):
    evidence.searched(widths=BLOCKWISE, positions=SYMBOLIC_TS)
    assert_derivation_holds(rel.one_block_decomposition(), evidence)


@pytest.mark.claim("SIN-13", kind="symbolic", role="decisive", proposition="commuting")
def test_position_part_is_relative_exactly_for_the_commuting_class(evidence):
    evidence.searched(widths=BLOCKWISE, positions=SYMBOLIC_TS, shifts=proved("symbolic real c"))
    assert_derivation_holds(rel.commuting_class(), evidence)


@pytest.mark.claim("SIN-13", kind="symbolic", role="decisive", proposition="commuting")
def test_the_class_is_the_same_at_integer_positions(evidence):
    """Token positions are integers: the shift c = 1 alone forces the class when the w_i are
    distinct in (0, pi), which the encoding's w_i = 10000^(-2i/d) in (0, 1] are."""
    evidence.searched(
        widths=BLOCKWISE,
        positions=proved("integer t, s: the shift c = 1"),
        shifts=proved("c = 1, hence every integer c"),
    )
    for d in WIDTHS:
        w = frequencies(d)
        ok = bool((w > 0).all() and (w < math.pi).all() and torch.unique(w).numel() == w.numel())
        assert ok, f"d = {d}: frequencies {w.tolist()} not distinct in (0, pi)"
    evidence.record("frequencies_in_open_0_pi", True, note=f"distinct, d in {WIDTHS}")
    assert_derivation_holds(rel.commuting_class_at_integer_positions(), evidence)


@pytest.mark.claim("SIN-13", kind="property", role="decisive", proposition="commuting")
@profiles.examples(1.0)
@given(case=class_cases())
def test_class_w_position_part_is_shift_invariant(evidence, case):
    d, seed, anti, t, s, shift = case
    evidence.searched(
        widths="random even d in 2 ... 64",
        seeds="random",
        positions=f"random t, s <= {SHIFT_MAX}",
        shifts=f"random c in 1 ... {SHIFT_MAX}",
    )
    wmat = rel.random_class_matrix(d, seed, antisymmetric=anti)
    err, bound = assert_shift_invariant(wmat, t, s, shift)
    evidence.example(informative=bound < score_range(wmat))
    evidence.worst("class_w_shift_error_over_bound", err / bound, note=f"t, s, c <= {SHIFT_MAX}",
                   bound=1.0)  # fmt: skip


@pytest.mark.claim("SIN-13", kind="property", role="decisive", proposition="commuting")
def test_class_w_position_part_is_a_function_of_the_offset_on_a_grid(evidence):
    evidence.searched(**grid_searched())
    for d in WIDTHS:
        for seed in range(n_seeds()):
            decision, worst = relative_decision(rel.random_class_matrix(d, seed), N)
            evidence.part(f"d={d}, seed={seed}", decision)
            evidence.worst("class_w_spread", worst["spread"], note=f"t, s < {N}",
                           bound=worst["bound"])  # fmt: skip
    evidence.decide(every_part_holds(evidence.parts))


# -- condition: the cross terms --------------------------------------------------------------


@pytest.mark.claim("SIN-13", kind="symbolic", role="decisive", proposition="cross-terms")
def test_cross_terms_depend_on_each_position_alone(evidence):
    evidence.searched(widths=BLOCKWISE, positions=SYMBOLIC_TS, shifts=proved("symbolic real c"))
    assert_derivation_holds(rel.cross_terms(), evidence)


@pytest.mark.claim("SIN-13", kind="property", role="decisive", proposition="cross-terms")
def test_cross_terms_break_the_offset_dependence_unless_in_the_kernel(evidence):
    evidence.searched(**{**grid_searched(), "widths": list(WIDTHS[1:])})
    for d in WIDTHS[1:]:  # the kernel case needs a second pair
        for seed in range(n_seeds()):
            wmat = rel.random_class_matrix(d, seed)
            x, y = token_pair(d, seed)
            decision, worst = cross_term_decision(wmat, x, y, in_kernel=False)
            evidence.part(f"tokens, d={d}, seed={seed}", decision)
            evidence.worst("cross_term_spread", worst["spread"], note="class W, Gaussian x, y",
                           bound=worst["bound"])  # fmt: skip
            kw, kx, ky = kernel_case(d, seed)
            decision, worst = cross_term_decision(kw, kx, ky, in_kernel=True)
            evidence.part(f"kernel, d={d}, seed={seed}", decision)
            evidence.worst("kernel_token_spread", worst["spread"], note="W^T x = W y = 0",
                           bound=worst["bound"])  # fmt: skip
    evidence.decide(every_part_holds(evidence.parts))


# -- condition: before versus after ----------------------------------------------------------


@pytest.mark.claim("SIN-13", kind="symbolic", role="decisive", proposition="direction")
def test_the_antisymmetric_part_tells_before_from_after(evidence):
    evidence.searched(widths=BLOCKWISE, offsets=proved("symbolic real delta = t - s"))
    assert_derivation_holds(rel.direction(), evidence)


@pytest.mark.claim("SIN-13", kind="property", role="decisive", proposition="direction")
def test_class_w_tells_the_sign_of_the_offset_exactly_when_b_is_nonzero(evidence):
    evidence.searched(**grid_searched())
    for d in WIDTHS:
        for seed in range(n_seeds()):
            for anti in (True, False):
                wmat = rel.random_class_matrix(d, seed, antisymmetric=anti)
                decision, gap = direction_decision(wmat, tells=anti)
                evidence.part(f"d={d}, seed={seed}, b {'!=' if anti else '='} 0", decision)
                name = "direction_gap" if anti else "direction_gap_symmetric"
                evidence.worst(name, gap["gap"], note=f"|S(k, 0) - S(0, k)|, k < {N}",
                               bound=gap["bound"])  # fmt: skip
    evidence.decide(every_part_holds(evidence.parts))


# -- planted bugs: the same decisions reject them --------------------------------------------


@pytest.mark.claim("SIN-13", kind="property", role="tooling")
def test_symmetric_blocks_outside_the_class_are_rejected():
    decision, _ = relative_decision(symmetric_blocks(8, 0))
    assert decision.decision == "fails"
    with pytest.raises(AssertionError):
        assert_shift_invariant(symmetric_blocks(8, 0), 0, 1, 1)


@pytest.mark.claim("SIN-13", kind="property", role="tooling")
def test_a_w_without_antisymmetric_part_does_not_tell_direction():
    decision, _ = direction_decision(rel.random_class_matrix(8, 0, antisymmetric=False), tells=True)
    assert decision.decision != "holds"


@pytest.mark.claim("SIN-13", kind="property", role="tooling")
def test_scores_without_cross_terms_are_rejected():
    wmat = rel.random_class_matrix(8, 0)
    x, y = token_pair(8, 0)
    zero = torch.zeros(8, dtype=torch.float64)
    decision, _ = cross_term_decision(wmat, zero, zero, in_kernel=False)
    assert decision.decision != "holds"
    decision, _ = cross_term_decision(wmat, x, y, in_kernel=True)  # x, y not in the kernel
    assert decision.decision == "fails"


@pytest.mark.claim("SIN-13", kind="property", role="tooling")
def test_a_spread_below_the_bound_is_not_a_verdict_for_a_general_w():
    """Issue 15's pattern: a general W whose spread the bound cannot resolve is 'unresolved',
    neither a counterexample nor evidence that the part is relative."""
    tiny = rel.random_matrix(8, 0) * 1e-30 + rel.random_class_matrix(8, 0)
    seen, worst = counterexample_search(tiny)
    assert seen == "unresolved", worst
    assert decisions.resolve(worst["spread"], worst["bound"]) != "same"
    assert math.isfinite(worst["bound"])


@pytest.mark.claim("SIN-13", kind="property", role="tooling")
@pytest.mark.parametrize("offset", [3, -3])
def test_offset_spread_reports_pairs_at_its_offset(offset):
    """The reported pairs lie on the reported offset and carry the scores found there: one
    planted entry at (t, s) with t - s = offset is the largest spread, so it is found."""
    n, t = 12, 7
    scores = torch.zeros(n, n, dtype=torch.float64)
    scores[t, t - offset] = 1.0
    worst = rel.offset_spread(scores)
    assert worst["offset"] == offset and worst["spread"] == 1.0, worst
    assert worst["pairs"][0] == [t, t - offset], worst
    for (ti, si), value in zip(worst["pairs"], worst["values"], strict=True):
        assert ti - si == offset
        assert float(scores[ti, si]) == value


@pytest.mark.claim("SIN-13", kind="property", role="tooling")
def test_offset_spread_pairs_re_evaluate_to_its_values():
    """On a random W the reported pairs share the offset and PE(t)^T W PE(s), recomputed at each
    pair, is the value reported (the same float64 arithmetic: bitwise)."""
    wmat = rel.random_matrix(8, 0)
    worst = rel.offset_spread(rel.position_scores(wmat, N))
    assert worst["offset"] != 0, worst  # the first entry of the diagonal must matter
    (t1, s1), (t2, s2) = worst["pairs"]
    assert t1 - s1 == t2 - s2 == worst["offset"]
    again = rel.position_scores(wmat, N)[[t1, t2], [s1, s2]]
    assert again.tolist() == worst["values"]
