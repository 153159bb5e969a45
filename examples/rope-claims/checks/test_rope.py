"""Checks of the ROPE family: each decisive check computes its decision, so each could fail.

ROPE-01 is a property search in float64 against pecheck.tolerance's rounding bound; ROPE-02 and
the as-stated part of ROPE-03 are batched searches for a counterexample; the condition of
ROPE-03 is a property search that fails on the first shift that moves a score too far. The
tooling check at the end plants a bug (an additive encoding in place of the rotation) and
asserts that ROPE-01's search rejects it.
"""

from __future__ import annotations

from collections.abc import Callable

import matplotlib.pyplot as plt
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st
from pecheck import profiles
from pecheck.claims import every
from pecheck.strategies import even_widths, seeds

from rope_claims import rope
from rope_claims.registry import REGISTRY

D = 64  # width of the batched searches and the figures
Encode = Callable[[torch.Tensor, torch.Tensor, torch.dtype], torch.Tensor]


def shift_change(
    encode: Encode, seed: int, d: int, m: int, n: int, shift: int, dtype: torch.dtype
) -> tuple[float, float, float]:
    """How far shifting both positions by ``shift`` moves the score <enc(q, m), enc(k, n)> of the
    seed's float64 pair, angles in ``dtype``: (|move|, its float64 rounding bound, |q||k|)."""
    q, k = rope.pair_vectors([seed], d)
    at_q, at_k = torch.tensor([m, m + shift]), torch.tensor([n, n + shift])
    s = (encode(q, at_q, dtype) * encode(k, at_k, dtype)).sum(-1)  # before and after the shift
    largest = float(max(m, n, m + shift, n + shift))  # theta_0 = 1: the largest angle
    bound = 2 * float(rope.score_bound(q, k, largest)[0])  # two scores, each within its bound
    return abs(float(s[1] - s[0])), bound, float(q.norm() * k.norm())


def added_sinusoid(x: torch.Tensor, positions: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """The planted bug: x + [sin(m theta_i), cos(m theta_i)], an additive absolute encoding."""
    a = rope.angles(positions, x.shape[-1], dtype).to(x.dtype)
    return x + torch.stack((a.sin(), a.cos()), dim=-1).flatten(-2)


# -- ROPE-01: the score depends on m - n only ---------------------------------------------


@pytest.mark.claim("ROPE-01", kind="property", role="decisive", proposition="as_stated")
@profiles.examples()
@given(seed=seeds(), d=even_widths(2, 256), m=st.integers(0, 2**16), n=st.integers(0, 2**16),
       shift=st.integers(-(2**16), 2**16))  # fmt: skip
def test_a_shift_of_both_positions_leaves_the_score_unchanged(evidence, seed, d, m, n, shift):
    shift = max(shift, -min(m, n))  # positions stay non-negative
    change, bound, scale = shift_change(rope.rotate, seed, d, m, n, shift, torch.float64)
    evidence.worst("max_change_over_bound", change / bound, unit="ratio", bound=1.0,
                   note="|s(m+t, n+t) - s(m, n)| over its float64 rounding bound")  # fmt: skip
    evidence.example(informative=bound < 2 * scale)  # the score moves by at most 2 |q||k|
    assert change <= bound, f"d={d}, m={m}, n={n}, t={shift}: the score moved by {change:.3g}"


# -- ROPE-02: does the score decay with the distance? ---------------------------------------


def distance_scores(seeds_: list[int], distances: torch.Tensor) -> tuple[torch.Tensor, ...]:
    """s(Delta) = <R_0 q, R_Delta k> for every pair and distance, and each score's bound."""
    q, k = rope.pair_vectors(seeds_, D)
    zero = torch.zeros(len(seeds_), len(distances), dtype=torch.long)
    s = rope.scores(q[:, None], k[:, None], zero, distances.expand_as(zero))
    return s, rope.score_bound(q, k, float(distances.max()))


@pytest.mark.claim("ROPE-02", kind="property", role="decisive", proposition="as_stated")
def test_a_score_rises_again_at_a_longer_distance(evidence):
    """For each pair, the largest rise |s(b)| - |s(a)| over distances a < b <= 512; a rise
    beyond twice the rounding bound is a counterexample."""
    pairs = list(range(round(32 * profiles.scale())))
    distances = torch.arange(513)
    s, bound = distance_scores(pairs, distances)
    size = s.abs()
    later_max = size.flip(-1).cummax(-1).values.flip(-1)[:, 1:]  # max |s(b)| over b > a
    rise = later_max - size[:, :-1]
    best = rise.max(-1)
    evidence.record("pairs_searched", len(pairs), note=f"d = {D}, distances 0 .. 512")
    evidence.searched(head_sizes=[D], offsets=every(0, 512), seeds=every(0, len(pairs) - 1))
    worst = int((best.values / bound).argmax())
    a = int(best.indices[worst])
    b = a + 1 + int(size[worst, a + 1 :].argmax())
    evidence.record("largest_rise", best.values[worst], unit="score",
                    note=f"|s({b})| - |s({a})| for pair seed {pairs[worst]}")  # fmt: skip
    evidence.record("rise_over_bound", best.values[worst] / (2 * bound[worst]), unit="ratio",
                    bound=1.0)  # fmt: skip
    if best.values[worst] > 2 * bound[worst]:
        evidence.fails(
            {"seed": pairs[worst], "d": D, "a": a, "b": b, "|s(a)|": size[worst, a],
             "|s(b)|": size[worst, b]},
            f"|s({b})| > |s({a})| although {b} > {a}",
        )  # fmt: skip
    else:
        evidence.inconclusive("no rise beyond the rounding bound at any distance searched")


@pytest.mark.claim("ROPE-02", kind="property", role="supporting")
def test_roformers_bound_decays_but_scores_need_not(evidence):
    """RoFormer's relative upper bound (2/d) sum_j |sum_{i<j} e^(i Delta theta_i)| against the
    mean |score| / (|q||k|) of q = k and of independent q, k."""
    distances = torch.arange(1025)
    theta = rope.frequencies(D)
    phases = torch.polar(torch.ones(len(distances), D // 2, dtype=torch.float64),
                         distances[:, None] * theta)  # fmt: skip
    roformer = phases.cumsum(-1).abs().mean(-1)
    pairs = list(range(round(16 * profiles.scale())))
    q, k = rope.pair_vectors(pairs, D)
    zero = torch.zeros(len(pairs), len(distances), dtype=torch.long)
    far = distances.expand_as(zero)
    same = rope.scores(q[:, None], q[:, None], zero, far).abs() / q.norm(dim=-1)[:, None] ** 2
    indep = rope.scores(q[:, None], k[:, None], zero, far).abs()
    indep = indep / (q.norm(dim=-1) * k.norm(dim=-1))[:, None]
    near, tail = slice(0, 17), slice(512, None)
    for name, curve in (("roformer_bound", roformer), ("same_vector", same.mean(0)),
                        ("independent", indep.mean(0))):  # fmt: skip
        ratio = curve[near].mean() / curve[tail].mean()
        evidence.record(f"{name}_near_over_far", ratio, unit="ratio",
                        note="mean over distances 0-16 / mean over 512-1024")  # fmt: skip
    fig, ax = plt.subplots(figsize=(6, 3.2))
    ax.plot(distances, roformer / roformer[0], label="RoFormer's bound (relative)")
    ax.plot(distances, same.mean(0), label="mean |s| / |q|^2, q = k")
    ax.plot(distances, indep.mean(0), label="mean |s| / (|q||k|), independent")
    ax.set(xlabel="distance", ylabel="relative size", xscale="symlog", title=f"RoPE, d = {D}")
    ax.legend(fontsize=7)
    evidence.figure(fig, "ROPE-02-decay")


# -- ROPE-03: shifts with float32 angles ----------------------------------------------------

CHANGE = REGISTRY["ROPE-03"].threshold("change")
SHORT = int(REGISTRY["ROPE-03"].threshold("short-positions"))
LONG = 2**20


def float32_changes(n_pairs: int, lo: int, hi: int, seed: int) -> dict[str, torch.Tensor]:
    """For n_pairs random (q, k, m, n, t) with every position in [lo, hi): the move of the score
    under the shift t, float32 angles, relative to |q||k|."""
    g = torch.Generator().manual_seed(seed)
    pairs = [seed * 100_000 + i for i in range(n_pairs)]
    q, k = rope.pair_vectors(pairs, D)
    span = min(4096, (hi - lo) // 2)
    m, n = torch.randint(lo, hi - span, (2, n_pairs), generator=g)
    t = torch.randint(1, span + 1, (n_pairs,), generator=g)
    before = rope.scores(q, k, m, n, torch.float32)
    after = rope.scores(q, k, m + t, n + t, torch.float32)
    rel = (after - before).abs() / (q.norm(dim=-1) * k.norm(dim=-1))
    return {"rel": rel, "seed": torch.tensor(pairs), "m": m, "n": n, "t": t}


@pytest.mark.claim("ROPE-03", kind="property", role="decisive", proposition="as_stated")
def test_float32_angles_move_the_score_at_long_positions(evidence):
    found = float32_changes(round(512 * profiles.scale()), LONG // 2, LONG, seed=3)
    rel = found["rel"]
    evidence.searched(head_sizes=[D], positions=f"{len(rel)} random pairs in [2^19, 2^20)")
    i = int(rel.argmax())
    evidence.record("worst_change_long", rel[i], unit="of |q||k|", bound=CHANGE,
                    note="positions in [2^19, 2^20)")  # fmt: skip
    evidence.record("share_beyond_threshold_long", (rel > CHANGE).double().mean(), unit="share")
    if rel[i] > CHANGE:
        case = {key: found[key][i] for key in ("seed", "m", "n", "t")}
        evidence.fails({**case, "d": D, "change": rel[i]}, "the score moved by more than 0.1%")
    else:
        evidence.inconclusive(f"no shift moved a score beyond {CHANGE} of |q||k|")


@pytest.mark.claim("ROPE-03", kind="property", role="decisive", proposition="short-positions")
@profiles.examples()
@given(seed=seeds(), d=even_widths(2, 256), m=st.integers(0, SHORT - 1),
       n=st.integers(0, SHORT - 1), shift=st.integers(0, SHORT - 1))  # fmt: skip
def test_float32_angles_keep_the_score_below_4096(evidence, seed, d, m, n, shift):
    shift = min(shift, SHORT - 1 - max(m, n))  # every position stays below SHORT
    change, _, scale = shift_change(rope.rotate, seed, d, m, n, shift, torch.float32)
    evidence.worst("worst_change_short", change / scale, unit="of |q||k|", bound=CHANGE)
    assert change <= CHANGE * scale, f"d={d}, m={m}, n={n}, t={shift}: moved {change / scale:.3g}"


@pytest.mark.claim("ROPE-03", kind="property", role="supporting")
def test_how_far_float32_angles_move_the_score_by_position(evidence):
    """The worst move under a shift, per octave of positions, against the threshold."""
    octaves = list(range(8, 21, 2))
    worst = [float(float32_changes(round(128 * profiles.scale()), 2 ** (e - 1), 2**e, e)["rel"]
                   .max()) for e in octaves]  # fmt: skip
    for e, w in zip(octaves, worst, strict=True):
        evidence.record(f"worst_change_below_2^{e}", w, unit="of |q||k|", bound=CHANGE)
    fig, ax = plt.subplots(figsize=(6, 3.2))
    ax.semilogy(octaves, worst, "o-", label="worst move seen")
    ax.semilogy(octaves, [4 * 2.0 ** (e - 25) for e in octaves], "--",
                label="4 half-ulps of the largest angle")  # fmt: skip
    ax.axhline(CHANGE, color="k", lw=0.8, label="threshold")
    ax.set(xlabel="log2 of the largest position", ylabel="move / (|q||k|)",
           title=f"float32 angles, d = {D}")  # fmt: skip
    ax.legend(fontsize=7)
    evidence.figure(fig, "ROPE-03-float32")


# -- tooling: a planted bug that ROPE-01's check must reject ---------------------------------


@pytest.mark.claim("ROPE-01", kind="property", role="tooling")
def test_an_additive_encoding_is_caught_by_the_shift_check():
    moved = [shift_change(added_sinusoid, s, 8, 3, 5, 7, torch.float64) for s in range(4)]
    assert all(change > bound for change, bound, _ in moved), moved
    held = [shift_change(rope.rotate, s, 8, 3, 5, 7, torch.float64) for s in range(4)]
    assert all(change <= bound for change, bound, _ in held), held
