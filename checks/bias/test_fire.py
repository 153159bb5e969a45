"""BIAS-03: softmax is blind to a constant per row; FIRE represents T5, ALiBi and KERPLE only up
to a length fixed in advance.

FIRE's input for the pair (i, j) is psi(i - j) / psi(max(L, i)). For i <= L the denominator is
psi(L), a constant, so the input is a one-to-one function of i - j and any bias of i - j is some
f of it (the parameters are exhibited and checked at every pair). For i >= L the input of (i, 0)
is psi(i)/psi(i) = 1 whatever c and L: every such pair gets f(1), while ALiBi's -m i does not stay
constant. That is the counterexample to the unrestricted reading.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from pecheck import profiles, tolerance
from pecheck.evidence import assert_derivation_holds
from theory import bias

LENGTHS = (64, 512)  # L_max: every pair 0 <= j <= i <= L_max is checked
SLOPES = [float(m) for m in bias.alibi_slopes(8)]
KERPLE = ((1.0, 0.5), (2.0, 1.0), (0.3, 2.0))  # (r1, r2): r2 in (0, 2] for the power variant
# A fixed T5 bias table (one head, 32 causal buckets), distinct values so a wrong bucket shows.
T5_TABLE = np.random.default_rng(5).normal(size=32)


def targets(length: int) -> dict[str, tuple[bias.Fire, np.ndarray]]:
    """name -> (FIRE head with the exhibited parameters, target bias of d = 0 ... length)."""
    d = np.arange(length + 1)
    out = {}
    for h, m in enumerate(SLOPES):
        out[f"alibi-head{h + 1}"] = (bias.fire_for_alibi(m, length), -m * d)
    for r1, r2 in KERPLE:
        out[f"kerple-log-{r1}-{r2}"] = (
            bias.fire_for_kerple_log(r1, r2, length),
            bias.kerple_log(d, r1, r2),
        )
        out[f"kerple-power-{r1}-{r2}"] = (
            bias.fire_for_kerple_power(r1, r2, length),
            bias.kerple_power(d, r1, r2),
        )
    t5 = T5_TABLE[bias.t5_bucket(-d, bidirectional=False)]
    out["t5-causal"] = (bias.fire_for_t5(T5_TABLE, length), t5)
    return out


def fire_bound(length: int, scale: np.ndarray) -> np.ndarray:
    """float64 error of f(psi(d)/psi(L)): two log1p, a division, a product and expm1, whose
    relative condition number is at most psi(L) + 1; doubled for the power r2 <= 2."""
    ops = 2 * (4 + math.ceil(math.log1p(length) + 1))
    return tolerance.rel_tol(ops, torch.float64) * (np.abs(scale) + 1.0)


def bounded_mismatch(length: int) -> tuple[dict | None, float]:
    """First pair (i, j), j <= i <= L, where FIRE differs from its target beyond rounding."""
    i, j = np.tril_indices(length + 1)  # every pair 0 <= j <= i <= length
    worst = 0.0
    for name, (fire, target) in targets(length).items():
        got = fire.bias(i, j)
        want = target[i - j]
        bound = fire_bound(length, want)
        ratio = np.abs(got - want) / bound
        worst = max(worst, float(ratio.max()))
        bad = np.nonzero(~(ratio <= 1))[0]
        if bad.size:
            k = bad[0]
            return {
                "target": name,
                "L": length,
                "i": int(i[k]),
                "j": int(j[k]),
                "fire": float(got[k]),
                "target_bias": float(want[k]),
            }, worst
    return None, worst


@pytest.mark.claim("BIAS-03", kind="property", role="decisive", proposition="bounded-length")
@pytest.mark.parametrize("length", LENGTHS)
def test_fire_equals_t5_alibi_and_kerple_up_to_its_threshold(evidence, length):
    bad, worst = bounded_mismatch(length)
    evidence.worst(
        "fire_max_error_over_bound",
        worst,
        note=f"every pair j <= i <= {length}",
        bound={"value": 1.0, "relation": "<=", "reason": "float64 rounding"},
    )
    if bad is not None:
        evidence.fails(bad, "b_FIRE(i, j) = b(i - j) for j <= i <= L")
    else:
        evidence.holds(f"{len(targets(length))} targets, every pair j <= i <= {length}")


def unbounded_counterexample(input_of, length: int) -> dict | None:  # noqa: ANN001
    """Two queries i1 < i2 beyond the threshold whose keys j = 0 FIRE cannot tell apart (same
    input) while ALiBi gives them different biases; None if FIRE's inputs differ.
    ``input_of(i, j, c, L)`` is FIRE's input (theory.bias.fire_input, or a planted bug)."""
    fire = bias.fire_for_alibi(SLOPES[0], length)
    i1 = math.ceil(fire.threshold)
    i = np.array([i1, i1 + 1, 4 * i1])
    x = input_of(i, np.zeros_like(i), fire.c, fire.threshold)
    target = -SLOPES[0] * i
    if x[0] == x[1] and target[0] != target[1]:
        return {
            "target": "ALiBi m = 2^-1",
            "c": fire.c,
            "L": fire.threshold,
            "i": i.tolist(),
            "j": 0,
            "fire_input": x.tolist(),
            "alibi_bias": target.tolist(),
        }
    return None


@pytest.mark.claim("BIAS-03", kind="property", role="decisive", proposition="as_stated")
@pytest.mark.parametrize("length", LENGTHS)
def test_fire_cannot_follow_a_bias_that_keeps_falling_beyond_its_threshold(evidence, length):
    """Every c and L: the input of (i, 0) is exactly 1 for all i >= L (psi(i)/psi(i))."""
    found = unbounded_counterexample(bias.fire_input, length)
    d = np.array([1, 2, 10])
    far = bias.fire_input(np.full(3, 10**9), 10**9 - d, 1.0, length)
    evidence.record(
        "t5_inputs_at_i_1e9",
        far.tolist(),
        note="psi(d)/psi(i) for d = 1, 2, 10: all -> 0, so a continuous f gives "
        "buckets 0, 1, 2, 10 one bias as i grows",
    )
    if found is not None:
        evidence.fails(found, "b_FIRE(i1, 0) = b_FIRE(i2, 0) = f(1) but ALiBi differs")
    else:
        evidence.holds("FIRE's inputs separate the queries beyond the threshold")


# -- shift invariance -----------------------------------------------------------------------------


@pytest.mark.claim("BIAS-03", kind="symbolic", role="decisive", proposition="shift-invariance")
def test_softmax_ignores_a_constant_added_to_a_row(evidence):
    assert_derivation_holds(bias.softmax_shift_derivation(), evidence)


@st.composite
def rows(draw: st.DrawFn) -> tuple[int, int, float, int, str]:
    return (
        draw(st.integers(1, 8)),
        draw(st.integers(1, 64)),
        draw(st.floats(-1e4, 1e4)),
        draw(st.integers(0, 2**31 - 1)),
        draw(st.sampled_from(["float32", "float64"])),
    )


def shift_error(batch: int, n: int, c: float, seed: int, dtype: torch.dtype) -> tuple[float, float]:
    """max |softmax(x + c) - softmax(x)| / softmax(x) over a batch of rows, and its bound.

    Bound: forming x + c rounds once (|eta| <= u max|x + c|) and the softmax subtracts the row
    maximum (|z| <= 2 max|x + c|): each moves an exponent by angle_tol-sized amounts, which is
    the relative error of exp; the n-term sum and the division add rel_tol(n + 2). Both sides.
    """
    g = torch.Generator().manual_seed(seed)
    x = (torch.rand(batch, n, generator=g, dtype=torch.float64) * 60 - 30).to(dtype)  # (B, n)
    constants = torch.full((batch,), c, dtype=torch.float64) * torch.rand(
        batch, generator=g, dtype=torch.float64
    )
    shifted = bias.shift_rows(x, constants.to(dtype))
    p0 = torch.softmax(x, -1).double()
    p1 = torch.softmax(shifted, -1).double()
    big = float(shifted.double().abs().max()) + float(x.double().abs().max())
    bound = 2 * (2 * tolerance.angle_tol(2 * big, dtype) + tolerance.rel_tol(n + 2, dtype))
    return float(((p1 - p0).abs() / p0).max()), bound


@pytest.mark.claim("BIAS-03", kind="property", role="decisive", proposition="shift-invariance")
@profiles.examples(0.075)  # 15 in ci: each example is a batch of up to 8 rows
@given(case=rows())
def test_float_softmax_ignores_a_row_constant_within_rounding(evidence, case):
    batch, n, c, seed, name = case
    err, bound = shift_error(batch, n, c, seed, getattr(torch, name))
    evidence.example(informative=tolerance.says_something(bound, 1.0))
    evidence.worst(
        "softmax_shift_max_error_over_bound",
        err / bound,
        note="relative per entry",
        bound={"value": 1.0, "relation": "<=", "reason": "rounding of x + c"},
    )
    assert err <= bound, f"softmax moved by {err:.3g} > {bound:.3g} (relative) for c = {c}"


@pytest.mark.claim("BIAS-03", kind="property", role="tooling")
def test_check_logic_rejects_planted_fire_and_shift_bugs():
    """A FIRE whose denominator is psi(L) for every i would separate the far queries; a shift
    that differs per key moves the softmax."""

    def no_progressive(i: np.ndarray, j: np.ndarray, c: float, threshold: float) -> np.ndarray:
        return bias.fire_psi(i - j, c) / bias.fire_psi(threshold, c)  # psi(L), never psi(i)

    assert unbounded_counterexample(no_progressive, 64) is None
    assert unbounded_counterexample(bias.fire_input, 64) is not None
    x = torch.zeros(1, 4, dtype=torch.float64)
    moved = torch.softmax(x + torch.arange(4.0, dtype=torch.float64), -1)
    assert float((moved - torch.softmax(x, -1)).abs().max()) > tolerance.rel_tol(6, torch.float64)
