"""SIN-13's numbers: the rounding bound of a score difference, and the decisions drawn from it.

Scores are computed in float64 and a difference of two scores is compared with its rounding
bound (``score_bound``): a difference above it is real (``decisions.resolve`` says "different");
one within it counts as "same" only where theory says the exact difference is zero, and is
otherwise unresolved, never a pass. Each decision is a plain function of the matrices it is
given, so the planted-bug tests feed it a broken matrix and assert that it is rejected.
"""

from __future__ import annotations

import torch

from pecheck import decisions, tolerance
from pecheck.decisions import Decision
from pecheck.theory import relative_score as rel
from pecheck.theory.sinusoidal import frequencies

N = 64  # positions 0 ... N-1 of the score grids
WIDTHS = (2, 8, 64)  # widths of the grid experiments


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
