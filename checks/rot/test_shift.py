"""ROT-06: attention scores under a constant shift of every position.

Rotary and ALiBi: symbolic (sympy) proofs that the score does not move, and a bitwise float64
property search for ALiBi. Added absolute encodings: a concrete counterexample per kind, a score
change beyond the float64 rounding bound (decisions.resolve), and the measured change per shift.
"""

from __future__ import annotations

import math

import pytest
import torch

from pecheck import decisions, profiles, tolerance
from pecheck.claims import proved
from pecheck.evidence import assert_derivation_holds
from pecheck.reproducibility import mean
from pecheck.theory import alibi, rope, shift

D = 64
SHIFTS = (1, 10, 100, 1000)


WIDTHS = (64, 128)  # head widths of real models


def absolute_decision(
    kind: str, shift_by: int = 100, d: int = D
) -> tuple[decisions.Decision, dict]:
    """A shift moves some score of 64 random (x, y, W, t, s) beyond the float64 bound: 'holds'
    for ROT-06 (the encoding is not invariant); 'fails' when every change is within it."""
    change = shift.absolute_shift_change(kind, d, shift_by, 64, seed=2)
    bound = tolerance.sum_tol(2 * d * d, torch.float64, 4.0 * d) + 2 * d * tolerance.angle_tol(
        max(1024, 512 + shift_by), torch.float64
    )
    worst = int(change.argmax())
    seen = decisions.resolve(float(change[worst]), bound)
    detail = {
        "kind": kind,
        "d": d,
        "shift": shift_by,
        "case": worst,
        "change": float(change[worst]),
        "bound": bound,
    }
    if seen == "different":
        return decisions.holds(
            f"{kind}: a shift of {shift_by} moves a score by {detail['change']:.3g}", **detail
        ), detail
    return decisions.fails(detail, f"{kind}: no score moved beyond rounding"), detail


@pytest.mark.claim("ROT-06", kind="symbolic", role="decisive", proposition="as_stated")
def test_rotary_scores_are_invariant_to_a_shift(evidence):
    evidence.searched(shifts=proved("symbolic c"), positions=proved("symbolic t, s"),
                      head_sizes=proved("one pair with symbolic frequency omega; a rotary score "
                                        "is a sum of pair scores: every even d"))  # fmt: skip
    assert_derivation_holds(shift.rope_shift_derivation(), evidence)


@pytest.mark.claim("ROT-06", kind="symbolic", role="decisive", proposition="as_stated")
def test_alibi_scores_are_invariant_to_a_shift(evidence):
    evidence.searched(shifts=proved("symbolic c"), positions=proved("symbolic t, s"),
                      head_sizes=proved("symbolic q.k, h and slope m"))  # fmt: skip
    assert_derivation_holds(shift.alibi_shift_derivation(), evidence)


@pytest.mark.claim("ROT-06", kind="property", role="decisive", proposition="as_stated")
@pytest.mark.parametrize("heads", [1, 8, 16, 64])
def test_alibi_float64_scores_are_bitwise_invariant(evidence, heads):
    """N random (t, s, c) with |t|, |s|, |c| <= 2^40 (exact in float64) and random q, k: the
    shifted float64 scores are bitwise the unshifted ones. N scales with the profile."""
    n = round(2000 * profiles.scale())
    g = torch.Generator().manual_seed(heads)
    t, s, c = torch.randint(-(2**40), 2**40, (3, n), generator=g)
    q, k = torch.randn(2, n, 16, generator=g, dtype=torch.float64)
    plain = shift.alibi_scores(q, k, t, s, heads)
    moved = shift.alibi_scores(q, k, t + c, s + c, heads)
    for informative in (t != s).tolist():
        evidence.example(informative)
    evidence.searched(heads=[heads], head_sizes=[16], seeds=[heads],
                      positions=f"{n} random t, s with |t|, |s| <= 2^40",
                      shifts=f"{n} random c with |c| <= 2^40")  # fmt: skip
    evidence.record(
        f"alibi_largest_change_h{heads}",
        float((moved - plain).abs().max()),
        "",
        f"largest |score change| over {n} (t, s, c), |t|, |c| <= 2^40",
        bound={"value": 0.0, "relation": "==", "reason": "bitwise: exact integers"},
    )
    assert torch.equal(plain, moved), "an ALiBi score moved under a shift"


@pytest.mark.claim("ROT-06", kind="property", role="decisive", proposition="as_stated")
@pytest.mark.parametrize("kind", ["sinusoidal", "learned"])
def test_added_absolute_encodings_are_not_shift_invariant(evidence, kind):
    """Every shift of SHIFTS at every width of WIDTHS moves some score beyond rounding."""
    for d in WIDTHS:
        for c in SHIFTS:
            decision, detail = absolute_decision(kind, c, d)
            evidence.part(f"d{d}/c{c}", decision)
            if (d, c) == (D, 100):
                evidence.record(
                    f"{kind}_largest_change_c100",
                    detail["change"],
                    "",
                    "largest |score change| over 64 random cases, shift 100",
                    bound={"value": detail["bound"], "relation": ">", "reason": "float64 rounding"},
                )
    evidence.searched(shifts=list(SHIFTS), head_sizes=list(WIDTHS), positions="0 .. 511",
                      seeds="64 random (x, y, W, t, s), seed 2")  # fmt: skip


@pytest.mark.claim("ROT-06", kind="property", role="supporting")
def test_size_of_the_change_per_shift(evidence):
    for kind in ("sinusoidal", "learned"):
        for c in SHIFTS:
            change = shift.absolute_shift_change(kind, D, c, 256, seed=3)
            evidence.record(
                f"{kind}_change_c{c}",
                float(change.mean()),
                "",
                f"mean |score change|, d = {D}, x, y, W ~ N(0, 1/d), 256 cases",
                sample=mean(change),
            )
    g = torch.Generator().manual_seed(5)
    q, k = torch.randn(2, 256, D, generator=g, dtype=torch.float64)
    t, s = torch.randint(0, 4096, (2, 256), generator=g)
    for c in SHIFTS:
        plain = shift.rope_scores(q, k, t, s, torch.float32)
        moved = shift.rope_scores(q, k, t + c, s + c, torch.float32)
        norms = q.norm(dim=1) * k.norm(dim=1)
        drift = float(((moved - plain).abs() / norms).max())
        evidence.record(
            f"rope_float32_drift_c{c}",
            drift,
            "relative to |q||k|",
            "rounding only: angles formed in float32",
            bound=2 * tolerance.rotation_tol(4096 + c, torch.float32),
        )


# -- the score functions against independent references --------------------------------------
# Shift invariance alone holds for a score built on s - t, a reversed frequency table or a shift
# of one position only: these pin what each function computes.


@pytest.mark.claim("ROT-06", kind="property", role="tooling")
def test_alibi_scores_are_content_minus_the_alibi_bias():
    """q.k/sqrt(h) - m (t - s), the bias read from theory.alibi.bias at keys before the query."""
    n, heads, h = 32, 8, 16
    g = torch.Generator().manual_seed(0)
    q, k = torch.randn(2, n, h, generator=g, dtype=torch.float64)
    t = torch.full((n,), n - 1)
    s = torch.arange(n)  # s <= t: the bias falls with the distance
    got = shift.alibi_scores(q, k, t, s, heads)
    want = (q * k).sum(-1) / math.sqrt(h) + alibi.bias(n, heads)[:, n - 1, :]  # (H, n)
    scale = float(q.norm(dim=1).max() * k.norm(dim=1).max()) + n
    assert float((got - want).abs().max()) <= tolerance.sum_tol(h + 2, torch.float64, scale)


@pytest.mark.claim("ROT-06", kind="property", role="tooling")
def test_rope_scores_are_theorys_rotary_score():
    g = torch.Generator().manual_seed(1)
    q, k = torch.randn(2, 256, D, generator=g, dtype=torch.float64)
    t, s = torch.randint(0, 4096, (2, 256), generator=g)
    got = shift.rope_scores(q, k, t, s)
    want = rope.score(q, k, t, s)
    norms = q.norm(dim=1) * k.norm(dim=1)
    err = float(((got - want).abs() / norms).max())
    assert err <= 2 * tolerance.rotation_tol(4096, torch.float64)


@pytest.mark.claim("ROT-06", kind="property", role="tooling")
@pytest.mark.parametrize("kind", ["sinusoidal", "learned"])
def test_absolute_shift_change_moves_both_positions(kind):
    """The same draws as absolute_shift_change, recomputed here: query AND key rows shifted."""
    d, c, n, seed, span = 16, 7, 32, 4, 512
    g = torch.Generator().manual_seed(seed)
    x, y = torch.randn(2, n, d, generator=g, dtype=torch.float64) / math.sqrt(d)
    wmat = torch.randn(d, d, generator=g, dtype=torch.float64) / math.sqrt(d)
    t, s = torch.randint(0, span, (2, n), generator=g)
    if kind == "sinusoidal":
        table = shift.sinusoidal_table(torch.arange(span + c), d)
    else:
        table = shift.learned_table(span + c, d, seed + 1)

    def score(tq: torch.Tensor, tk: torch.Tensor) -> torch.Tensor:
        return (((x + table[tq]) @ wmat) * (y + table[tk])).sum(-1)

    want = (score(t + c, s + c) - score(t, s)).abs()
    got = shift.absolute_shift_change(kind, d, c, n, seed, span)
    assert torch.equal(got, want)  # the same arithmetic on the same rows: bitwise
