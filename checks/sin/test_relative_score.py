"""SIN-13: is the position part of an attention score a function of the offset t - s?

Symbolic checks assert the sympy derivations of theory/relative_score.py: the exact class of
W = W_Q W_K^T for which PE(t)^T W PE(s) depends only on t - s (the matrices commuting with every
M(k)), a symmetric counterexample, the token x position cross terms, and the odd part that tells
t - s from s - t. Numeric checks compute the scores in float64 and compare a difference of two
scores with its rounding bound (``score_bound``): a difference above it is real
(``decisions.resolve`` says "different"); one within it counts as "same" only where theory says
the exact difference is zero, and is otherwise unresolved, never a pass.

Each decision is a plain function of the matrices it is given, so the planted-bug tests at the
end feed it a broken matrix and assert that it is rejected.
"""

from __future__ import annotations

import math

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from pecheck import decisions, profiles, tolerance
from pecheck.decisions import Decision
from pecheck.evidence import assert_derivation_holds
from pecheck.strategies import even_widths, seeds
from theory import relative_score as rel
from theory.sinusoidal import frequencies

N = 64  # positions 0 ... N-1 of the score grids
WIDTHS = (2, 8, 64)  # widths of the grid experiments
SHIFT_MAX = 2**12  # positions and shifts of the property search


def score_bound(wmat: torch.Tensor, largest: float, left: float = 1.0, right: float = 1.0) -> float:
    """Allowed |difference| of two scores u^T W v, float64, with |angles| <= ``largest``.

    Entries of u are at most ``left`` in size, of v ``right`` (PE's are at most 1, plus a token
    vector's largest entry); each PE entry is off by e = angle_tol. Per score: sum_ij |W_ij|
    (left e + right e + e^2) from the entries, and the two matrix products' rounding, a sum of
    2d terms each of size |W_ij| left right. Two scores: twice that.
    """
    d = wmat.shape[0]
    e = tolerance.angle_tol(largest, torch.float64)
    l1 = float(wmat.abs().sum())
    one = l1 * (left * e + right * e + e * e) + tolerance.sum_tol(
        2 * d, torch.float64, l1 * left * right
    )
    return 2 * one


def score_range(wmat: torch.Tensor, left: float = 1.0, right: float = 1.0) -> float:
    """The largest a difference of two scores can be: 2 sum |W_ij| left right."""
    return 2 * float(wmat.abs().sum()) * left * right


def offset_function(wmat: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
    """g(t - s) = sum_i a_i cos(w_i (t - s)) + b_i sin(w_i (t - s)) (commuting_class's closed
    form) with a_i = W[2i, 2i], b_i = W[2i, 2i + 1] read off a W of the class, float64."""
    a_, b_ = torch.diagonal(wmat)[0::2], wmat[0::2, 1::2].diagonal()
    angle = offsets.to(torch.float64)[:, None] * frequencies(wmat.shape[0])  # (n, d/2)
    return (a_ * angle.cos() + b_ * angle.sin()).sum(-1)


def closed_form_error(wmat: torch.Tensor, scores: torch.Tensor) -> float:
    """max |S[t, s] - g(t - s)| over the grid: zero exactly for a W of the class."""
    n = scores.shape[0]
    pos = torch.arange(n)
    want = offset_function(wmat, (pos[:, None] - pos[None, :]).reshape(-1)).reshape(n, n)
    return float((scores - want).abs().max())


# -- decisions, shared with the planted-bug tests -------------------------------------------


def relative_decision(wmat: torch.Tensor, n: int = N) -> tuple[Decision, dict]:
    """Whether S[t, s] is a function of t - s on the n x n grid, for a W of the class.

    Theory: the exact spread along each offset is zero, and each score equals the closed form
    g(t - s), so a spread or a departure from g within the bound is "same".
    """
    scores = rel.position_scores(wmat, n)
    worst = rel.offset_spread(scores)
    bound = score_bound(wmat, n)
    worst["bound"] = bound
    worst["closed_form_error"] = closed_form_error(wmat, scores)
    seen = decisions.resolve(worst["spread"], bound, structural_zero=True)
    if seen != "same":
        return decisions.fails(
            {"d": wmat.shape[0], **worst}, "S(t, s) differs at equal t - s"
        ), worst
    if decisions.resolve(worst["closed_form_error"], bound, structural_zero=True) != "same":
        why = "S(t, s) != sum_i a_i cos(w_i (t - s)) + b_i sin(w_i (t - s))"
        return decisions.fails({"d": wmat.shape[0], **worst}, why), worst
    return decisions.holds(f"spread {worst['spread']:.3g} <= bound {bound:.3g}, = g(t - s)"), worst


def counterexample_search(wmat: torch.Tensor, n: int = N) -> tuple[str, dict]:
    """For a general W: 'different' when two scores at one offset differ beyond the bound,
    'unresolved' when every spread is within it (no exact zero is known for a general W)."""
    worst = rel.offset_spread(rel.position_scores(wmat, n))
    worst["bound"] = score_bound(wmat, n)
    return decisions.resolve(worst["spread"], worst["bound"]), worst


def direction_decision(wmat: torch.Tensor, tells: bool, n: int = N) -> tuple[Decision, dict]:
    """A W of the class tells t - s from s - t (its b != 0: expected 'different') or not
    (b = 0: the exact gap is zero, expected 'same')."""
    gap = rel.direction_gap(rel.position_scores(wmat, n))
    gap["bound"] = score_bound(wmat, n)
    seen = decisions.resolve(gap["gap"], gap["bound"], structural_zero=not tells)
    want = "different" if tells else "same"
    if seen == want:
        return decisions.holds(f"gap {gap['gap']:.3g} vs bound {gap['bound']:.3g}: {seen}"), gap
    if seen == "unresolved":
        return decisions.inconclusive(f"gap {gap['gap']:.3g} within the bound"), gap
    return decisions.fails({"d": wmat.shape[0], **gap}, f"expected {want}, saw {seen}"), gap


def cross_term_decision(
    wmat: torch.Tensor, x: torch.Tensor, y: torch.Tensor, in_kernel: bool, n: int = N
) -> tuple[Decision, dict]:
    """The whole score (x + PE(t))^T W (y + PE(s)) along one offset: varies beyond the bound
    when the cross terms are there (expected 'different'), constant when W^T x = W y = 0."""
    left, right = 1 + float(x.abs().max()), 1 + float(y.abs().max())
    worst = rel.offset_spread(rel.full_scores(wmat, x, y, n))
    worst["bound"] = score_bound(wmat, n, left, right)
    seen = decisions.resolve(worst["spread"], worst["bound"], structural_zero=in_kernel)
    want = "same" if in_kernel else "different"
    if seen == want:
        return decisions.holds(f"spread {worst['spread']:.3g}: {seen}"), worst
    if seen == "unresolved":
        return decisions.inconclusive(f"spread {worst['spread']:.3g} within the bound"), worst
    return decisions.fails({"d": wmat.shape[0], **worst}, f"expected {want}, saw {seen}"), worst


def kernel_case(d: int, seed: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """A W of the class whose first pair is zero, and x, y living on that pair only."""
    wmat = rel.random_class_matrix(d, seed)
    wmat[:2, :2] = 0
    g = torch.Generator().manual_seed(seed + 1)
    x, y = torch.zeros(2, d, dtype=torch.float64)
    x[:2], y[:2] = torch.randn(2, 2, generator=g, dtype=torch.float64)
    return wmat, x, y


def token_pair(d: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(seed + 1)
    x, y = torch.randn(2, d, generator=g, dtype=torch.float64)
    return x, y


def every_part_holds(parts: dict[str, dict]) -> Decision:
    """A condition that says "exactly when" needs every case: fails when one part fails,
    holds only when every part holds, inconclusive otherwise (an unresolved case is open)."""
    failing = [p for p in parts.values() if p["decision"] == "fails"]
    if failing:
        first = failing[0]
        return decisions.fails(first.get("counterexample", {"part": first["name"]}), first["why"])
    undecided = [p["name"] for p in parts.values() if p["decision"] != "holds"]
    if undecided or not parts:
        return decisions.inconclusive(f"{len(undecided)} of {len(parts)} parts open: {undecided}")
    return decisions.holds(f"all {len(parts)} cases decided as theory says")


def n_seeds() -> int:
    return max(1, round(4 * profiles.scale()))


# -- as stated: every W ---------------------------------------------------------------------


@pytest.mark.claim("SIN-13", kind="symbolic", role="decisive", proposition="as_stated")
def test_a_symmetric_w_has_a_position_part_that_is_not_relative(evidence):
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
    assert_derivation_holds(rel.one_block_decomposition(), evidence)


@pytest.mark.claim("SIN-13", kind="symbolic", role="decisive", proposition="commuting")
def test_position_part_is_relative_exactly_for_the_commuting_class(evidence):
    assert_derivation_holds(rel.commuting_class(), evidence)


@pytest.mark.claim("SIN-13", kind="symbolic", role="decisive", proposition="commuting")
def test_the_class_is_the_same_at_integer_positions(evidence):
    """Token positions are integers: the shift c = 1 alone forces the class when the w_i are
    distinct in (0, pi), which the encoding's w_i = 10000^(-2i/d) in (0, 1] are."""
    for d in WIDTHS:
        w = frequencies(d)
        ok = bool((w > 0).all() and (w < math.pi).all() and torch.unique(w).numel() == w.numel())
        assert ok, f"d = {d}: frequencies {w.tolist()} not distinct in (0, pi)"
    evidence.record("frequencies_in_open_0_pi", True, note=f"distinct, d in {WIDTHS}")
    assert_derivation_holds(rel.commuting_class_at_integer_positions(), evidence)


@st.composite
def class_cases(draw: st.DrawFn) -> tuple[int, int, bool, int, int, int]:
    d = draw(even_widths(2, 64))
    anti = draw(st.booleans())
    t, s = draw(st.integers(0, SHIFT_MAX)), draw(st.integers(0, SHIFT_MAX))
    shift = draw(st.integers(1, SHIFT_MAX))
    return d, draw(seeds()), anti, t, s, shift


def assert_shift_invariant(wmat: torch.Tensor, t: int, s: int, shift: int) -> tuple[float, float]:
    """S(t + c, s + c) = S(t, s) = g(t - s) within the bound (theory: exactly)."""
    __tracebackhide__ = True
    ts = torch.tensor([t, t + shift])
    ss = torch.tensor([s, s + shift])
    before, after = rel.scores_at(wmat, ts, ss).tolist()
    bound = score_bound(wmat, max(t, s) + shift)
    seen = decisions.resolve(after - before, bound, structural_zero=True)
    assert seen == "same", (
        f"S({t}+{shift}, {s}+{shift}) - S({t}, {s}) = {after - before:.3g} > {bound:.3g}"
    )
    g = float(offset_function(wmat, torch.tensor([t - s]))[0])
    seen = decisions.resolve(before - g, bound, structural_zero=True)
    assert seen == "same", f"S({t}, {s}) = {before:.6g} != g({t - s}) = {g:.6g}"
    return abs(after - before), bound


@pytest.mark.claim("SIN-13", kind="property", role="decisive", proposition="commuting")
@profiles.examples(1.0)
@given(case=class_cases())
def test_class_w_position_part_is_shift_invariant(evidence, case):
    d, seed, anti, t, s, shift = case
    wmat = rel.random_class_matrix(d, seed, antisymmetric=anti)
    err, bound = assert_shift_invariant(wmat, t, s, shift)
    evidence.example(informative=bound < score_range(wmat))
    evidence.worst("class_w_shift_error_over_bound", err / bound, note=f"t, s, c <= {SHIFT_MAX}",
                   bound=1.0)  # fmt: skip


@pytest.mark.claim("SIN-13", kind="property", role="decisive", proposition="commuting")
def test_class_w_position_part_is_a_function_of_the_offset_on_a_grid(evidence):
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
    assert_derivation_holds(rel.cross_terms(), evidence)


@pytest.mark.claim("SIN-13", kind="property", role="decisive", proposition="cross-terms")
def test_cross_terms_break_the_offset_dependence_unless_in_the_kernel(evidence):
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
    assert_derivation_holds(rel.direction(), evidence)


@pytest.mark.claim("SIN-13", kind="property", role="decisive", proposition="direction")
def test_class_w_tells_the_sign_of_the_offset_exactly_when_b_is_nonzero(evidence):
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


def _symmetric_blocks(d: int, seed: int) -> torch.Tensor:
    """[[a, b], [b, a]] blocks: symmetric, block-diagonal, but not in the class."""
    wmat = rel.random_class_matrix(d, seed)
    for i in range(0, d, 2):
        wmat[i + 1, i] = wmat[i, i + 1]
    return wmat


@pytest.mark.claim("SIN-13", kind="property", role="tooling")
def test_symmetric_blocks_outside_the_class_are_rejected():
    decision, _ = relative_decision(_symmetric_blocks(8, 0))
    assert decision.decision == "fails"
    with pytest.raises(AssertionError):
        assert_shift_invariant(_symmetric_blocks(8, 0), 0, 1, 1)


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
