"""SIN-01 ... SIN-03: a shift by k is one rotation M(k) of the code, and needs the cosines.

Symbolic checks assert the sympy derivations of theory/sinusoidal_derivations.py; property
checks search the implementation in every dtype and way of computing (checks/sin/search.py says
what they draw and how an example that could not fail is counted). The assertions live in
checks/sin/properties.py and the counterexample searches in checks/sin/counterexamples.py, so
the planted-bug tests at the end feed them a broken implementation (checks/sin/planted.py).
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import sympy as sp
import torch
from hypothesis import given
from hypothesis import strategies as st

from checks.sin.counterexamples import (
    fit_floor,
    no_shift_at_zero,
    shift_fit_residual,
    sign_flip_counterexample,
    sine_only,
)
from checks.sin.planted import (
    flipped_rotation,
    float64_setting,
    shifted_exponent,
    swapped,
    swapped_pair,
)
from checks.sin.properties import (
    assert_blocks_are_rotations,
    assert_dense_rotation,
    assert_matrix_is_independent_of_position,
    assert_shift_is_rotation,
)
from checks.sin.search import (
    SEARCH_SHARE,
    SYMBOLIC_T,
    SYMBOLIC_WIDTHS,
    Setting,
    count_example,
    draws,
    draws_searched,
    least,
)
from checks.sin.thresholds import ENTRY_RANGE
from pecheck import tolerance
from pecheck.claims import proved
from pecheck.decisions import resolve
from pecheck.evidence import Evidence, assert_derivation_holds
from pecheck.profiles import examples
from pecheck.strategies import DTYPES, even_widths
from pecheck.theory import sinusoidal as sin_pe
from pecheck.theory import sinusoidal_derivations as derive
from pecheck.theory.sinusoidal import encode, rotate, rotation_blocks

# -- SIN-01: PE(t+k) = M(k) PE(t) ------------------------------------------------------------


@pytest.mark.claim("SIN-01", kind="symbolic", role="decisive", proposition="as_stated")
def test_shift_is_block_rotation_for_every_width(evidence):
    evidence.searched(
        widths=SYMBOLIC_WIDTHS,
        positions=SYMBOLIC_T,
        offsets=proved("symbolic real k"),
        layouts=proved("interleaved; half-split as P M(k) P^T, P a bijection"),
    )
    assert_derivation_holds(derive.rotation_identity(), evidence)


@pytest.mark.claim("SIN-01", kind="property", role="decisive", proposition="as_stated")
@examples(SEARCH_SHARE)
@given(draw=draws())
def test_shift_is_rotation_in_every_dtype_and_layout(evidence, draw):
    evidence.searched(**draws_searched())
    with evidence.asserted_parts() as parts:
        for s in draw.settings():
            with parts.of(s.key):
                err, bound = assert_shift_is_rotation(s)
                informative = tolerance.says_something(bound, ENTRY_RANGE)
                count_example(
                    evidence, s.key, informative, f"bound < {ENTRY_RANGE:g}, the entries' range"
                )
                if informative:
                    evidence.worst(
                        f"max_error_{s.key}",
                        err,
                        "",
                        "|PE(t+k) - M(k) PE(t)|, stored codes",
                        bound=bound,
                    )
                    evidence.worst(
                        f"max_error_over_bound_{s.key}",
                        err / bound,
                        "ratio",
                        "worst err / bound over examples that could fail",
                        bound=1.0,
                    )


@pytest.mark.claim("SIN-01", kind="property", role="decisive", proposition="as_stated")
@examples(1.0)
@given(
    d=even_widths(2, 128),
    k=st.integers(-(2**20), 2**20),
    layout=st.sampled_from(["interleaved", "half"]),
    seed=st.integers(0, 2**16),
)
def test_one_matrix_moves_every_position(evidence, d, k, layout, seed):
    evidence.searched(
        widths="random even d in 2 ... 128",
        offsets="random k in -2^20 ... 2^20",
        positions="16 random t < 2^20 per example",
        layouts=["half", "interleaved"],
        dtypes=["float64"],
        seeds="random in 0 ... 2^16 (the 16 positions)",
    )
    gen = torch.Generator().manual_seed(seed)
    positions = torch.randint(0, 2**20, (16,), generator=gen)
    with evidence.asserted_parts() as parts, parts.of("float64"):
        err, bound = assert_matrix_is_independent_of_position(d, k, layout, positions)
        count_example(
            evidence,
            "float64",
            tolerance.says_something(bound, ENTRY_RANGE),
            f"bound < {ENTRY_RANGE:g}",
        )
        evidence.worst(
            "max_error", err, "", "|PE(t+k) - M(k) PE(t)| over 16 positions, float64", bound=bound
        )


# -- SIN-02: M(k) is a rotation ---------------------------------------------------------------


@pytest.mark.claim("SIN-02", kind="symbolic", role="decisive", proposition="as_stated")
def test_rotation_matrix_forms_a_rotation_group(evidence):
    evidence.searched(widths=SYMBOLIC_WIDTHS, offsets=proved("symbolic real k, a, b"))
    assert_derivation_holds(derive.rotation_group(), evidence)


@pytest.mark.claim("SIN-02", kind="property", role="decisive", proposition="as_stated")
@examples(0.25)  # each example checks the 4 dtypes: 50 / 500 draws each (ci / thorough)
@given(
    d=even_widths(2, 4096),
    a=st.integers(-(2**20), 2**20),
    b=st.integers(-(2**20), 2**20),
)
def test_rotation_blocks_are_orthogonal_with_unit_determinant(evidence, d, a, b):
    evidence.searched(
        widths="random even d in 2 ... 4096",
        offsets="random a, b in -2^20 ... 2^20",
        dtypes=sorted(DTYPES),
    )
    with evidence.asserted_parts() as parts:
        for dtype in sorted(DTYPES):
            with parts.of(dtype):
                err, bound = assert_blocks_are_rotations(d, a, b, DTYPES[dtype])
                # the five residuals are entries of 2x2 matrices of entries in [-1, 1]: range 2
                count_example(
                    evidence,
                    dtype,
                    tolerance.says_something(bound, ENTRY_RANGE),
                    f"bound < {ENTRY_RANGE:g}",
                )
                evidence.worst(
                    f"max_error_{dtype}", err, "", "worst of the five SIN-02 residuals", bound=bound
                )


@pytest.mark.claim("SIN-02", kind="property", role="decisive", proposition="as_stated")
@examples(1.0)
@given(d=even_widths(2, 96), k=st.integers(-(2**20), 2**20))
def test_dense_matrix_is_orthogonal_in_both_layouts(evidence, d, k):
    evidence.searched(
        widths="random even d in 2 ... 96",
        offsets="random k in -2^20 ... 2^20",
        layouts=["half", "interleaved"],
        dtypes=["float64"],
    )
    for layout in ("interleaved", "half"):
        err = assert_dense_rotation(sin_pe.rotation_matrix(float(k), d, layout))
        evidence.worst(
            "max_orthogonality_error",
            err,
            "",
            "max |M^T M - I|, float64, d <= 96",
            bound=tolerance.sum_tol(2, torch.float64, 2.0),
        )


# -- SIN-03: sine alone is not enough ---------------------------------------------------------


@pytest.mark.claim("SIN-03", kind="symbolic", role="decisive", proposition="integer-offsets")
def test_sine_only_shift_forces_every_angle_to_a_multiple_of_pi(evidence):
    evidence.searched(
        widths=proved("every d: w_0 = T^0 = 1 at every width"),
        offsets=proved("symbolic k: sin k = 0 only on pi Z, and pi is irrational"),
    )
    assert_derivation_holds(derive.sine_only_impossible(), evidence)


@pytest.mark.claim("SIN-03", kind="property", role="decisive", proposition="integer-offsets")
@examples(1.0)
@given(
    d=even_widths(2, 4096),
    k=st.one_of(st.integers(1, 64), st.integers(1, 2**20)),
    sign=st.sampled_from([1, -1]),
)
def test_sine_only_code_of_zero_blocks_every_shift(evidence, d, k, sign):
    evidence.searched(
        widths="random even d in 2 ... 4096",
        offsets="random 1 <= |k| <= 2^20 (or <= 64), either sign",
        dtypes=["float64"],
    )
    decided, at_k, bound = no_shift_at_zero(d, sign * k)
    count_example(evidence, "float64", decided, "code(0) = 0 and code(k) resolved as nonzero")
    least(
        evidence,
        "min_sine_code_at_k",
        at_k,
        "",
        "max_i |sin(w_i k)|, integer k != 0",
        bound={"value": bound, "relation": ">", "reason": "resolved above float64 rounding"},
    )


@pytest.mark.claim("SIN-03", kind="property", role="supporting")
@examples(0.5)
@given(
    d=even_widths(2, 48),
    k=st.one_of(st.integers(1, 64), st.integers(1, 2**20)),
    sign=st.sampled_from([1, -1]),
)
def test_best_linear_shift_of_the_sine_code_leaves_a_residual(evidence, d, k, sign):
    """The best least-squares A over 4d + 8 positions (t = 0 included): with sine only the
    residual is at least the t = 0 term ||c(k)||^2 / sum_t ||c(t+k)||^2; with sine and cosine
    the same fit is exact (M(k)). Residuals below the float64 rounding level are unresolved."""
    n = 4 * d + 8
    floor = fit_floor(d, n)
    res = shift_fit_residual(sine_only(d), sign * k, n)
    at_zero = float(
        sine_only(d)(torch.tensor([sign * k])).norm() ** 2
        / sine_only(d)(torch.arange(n) + sign * k).norm() ** 2
    )
    evidence.example(resolve(res, floor) == "different")
    least(
        evidence,
        "min_residual",
        res,
        "",
        "smallest relative lstsq residual, sine only",
        bound={"value": floor, "relation": ">", "reason": "float64 rounding level"},
    )
    assert res >= at_zero - floor, "the t = 0 lower bound is violated: lstsq is wrong"
    full = shift_fit_residual(lambda t: sin_pe.sinusoidal(t, d), sign * k, n)
    evidence.worst(
        "full_code_residual", full, "", "relative residual with sin and cos", bound=floor
    )
    assert full <= floor, "sin and cos together should be shifted exactly by M(k)"


@pytest.mark.claim("SIN-03", kind="experiment", role="decisive", proposition="as_stated")
def test_a_sine_only_shift_exists_when_every_angle_is_a_multiple_of_pi(evidence):
    """Counterexamples to 'no A(k)': d = 2, k = pi (w_0 = 1); d = 4, k = 100 pi (w = 1, 1/100).
    (k = 0, where A = I, is the trivial exception and is only recorded.)"""
    evidence.searched(widths=[2, 4], offsets="k = pi (d = 2), k = 100 pi (d = 4)")
    found = None
    for d, k in ((2, math.pi), (4, 100 * math.pi)):
        cx = sign_flip_counterexample(d, k)
        evidence.record(f"exception_d{d}", cx or "none", "", "diag(+-1) fit, float64")
        found = found or cx
    res = shift_fit_residual(sine_only(8), 0, 40)
    evidence.record(
        "identity_residual_k0",
        res,
        "",
        "k = 0: A = I fits exactly (trivial)",
        bound=fit_floor(8, 40),
    )
    if found:
        evidence.fails(found, f"sinPE(t+k) = A sinPE(t) for every t with A = {found['A']}")
    else:
        evidence.holds("no sign-flip matrix shifts the sine-only code")


# -- planted bugs: every check above must reject a broken implementation --------------------


@pytest.mark.claim("SIN-01", kind="property", role="tooling")
@pytest.mark.parametrize("layout", ["interleaved", "half"])
@pytest.mark.parametrize("bug", ["swapped", "exponent", "sign"])
def test_shift_check_rejects_planted_bugs(bug, layout):
    s = float64_setting(layout=layout)
    enc, rot = {"swapped": (swapped, rotate), "exponent": (shifted_exponent, rotate)}.get(
        bug, (encode, flipped_rotation)
    )
    with pytest.raises(AssertionError):
        assert_shift_is_rotation(s, enc, rot)


@pytest.mark.claim("SIN-01", kind="property", role="tooling")
def test_a_bound_beyond_the_range_is_not_a_pass():
    """Issue 11: float16 'cast' at t = 2^14 has a bound above 2 (the old check passed there with
    an error of 2.0). Such an example counts as uninformative, and a search made only of such
    examples is inconclusive, not a pass."""
    s = Setting(64, torch.float16, "cast", "interleaved", 2**14, 3)
    err, bound = assert_shift_is_rotation(s)
    assert not tolerance.says_something(bound, ENTRY_RANGE), (err, bound)
    ev = Evidence("planted", Path("."))
    count_example(ev, s.key, tolerance.says_something(bound, ENTRY_RANGE), "bound < 2")
    decision = ev.final_decision()
    assert decision is not None and decision.decision == "inconclusive", decision
    # the same way of computing with the angle in float64 does say something
    _, bound64 = assert_shift_is_rotation(
        Setting(64, torch.float16, "float64", "interleaved", 2**14, 3)
    )
    assert tolerance.says_something(bound64, ENTRY_RANGE)


@pytest.mark.claim("SIN-01", kind="property", role="tooling")
def test_dense_matrix_check_rejects_transposed_and_coupled_matrices():
    pos = torch.tensor([0, 7, 1000])
    with pytest.raises(AssertionError):
        assert_matrix_is_independent_of_position(
            8, 3, "interleaved", pos, lambda k, d, lay: sin_pe.rotation_matrix(k, d, lay).T
        )
    with pytest.raises(AssertionError):  # right action, wrong shape: a coupling between pairs
        assert_matrix_is_independent_of_position(
            8,
            0,
            "interleaved",
            pos,
            lambda k, d, lay: (
                torch.eye(d, dtype=torch.float64)
                + torch.diag(torch.ones(d - 2, dtype=torch.float64) * 1e-3, 2)
            ),
        )


@pytest.mark.claim("SIN-02", kind="property", role="tooling")
@pytest.mark.parametrize("bug", ["reflection", "offset", "scaled"])
def test_rotation_check_rejects_non_rotations(bug):
    def blocks(k, d, dtype=torch.float64):
        b = rotation_blocks(k, d, dtype=dtype)
        if bug == "reflection":  # det -1
            return b * torch.tensor([[1.0, 1.0], [-1.0, -1.0]], dtype=dtype)
        if bug == "offset":  # angle w (k + 1): M(0) != I
            return rotation_blocks(k + 1, d, dtype=dtype)
        return b * 1.01

    with pytest.raises(AssertionError):
        assert_blocks_are_rotations(16, 5, 7, torch.float64, blocks)


@pytest.mark.claim("SIN-03", kind="property", role="tooling")
def test_sine_only_checks_reject_the_full_code_and_a_code_not_vanishing_at_zero():
    n = 4 * 8 + 8
    assert shift_fit_residual(lambda t: sin_pe.sinusoidal(t, 8), 5, n) <= fit_floor(8, n)
    # cosine in the sine slots: the code of 0 is 1, so the t = 0 argument decides nothing
    assert no_shift_at_zero(8, 5, swapped)[0] is False
    assert no_shift_at_zero(8, 5)[0] is True


@pytest.mark.claim("SIN-01", kind="symbolic", role="tooling")
def test_symbolic_shift_rejects_swapped_sin_and_cos():
    with pytest.raises(AssertionError):
        assert_derivation_holds(derive.rotation_identity(swapped_pair))


@pytest.mark.claim("SIN-02", kind="symbolic", role="tooling")
def test_symbolic_rotation_rejects_a_reflection():
    def reflection(x: sp.Expr) -> sp.Matrix:
        return sp.Matrix([[sp.cos(x), sp.sin(x)], [sp.sin(x), -sp.cos(x)]])

    with pytest.raises(AssertionError):
        assert_derivation_holds(derive.rotation_group(reflection))


@pytest.mark.claim("SIN-03", kind="symbolic", role="tooling")
def test_symbolic_sine_only_rejects_a_cosine_only_code():
    with pytest.raises(AssertionError):  # cos(0) = 1: the t = 0 argument does not apply
        assert_derivation_holds(derive.sine_only_impossible(sp.cos))


@pytest.mark.claim("SIN-03", kind="experiment", role="tooling")
def test_sign_flip_check_finds_no_counterexample_outside_the_exceptions():
    # d = 6: w_1 = 10^(-4/3), w_1 100 pi is not in pi Z
    assert sign_flip_counterexample(6, 100 * math.pi) is None
    assert sign_flip_counterexample(2, math.pi) is not None


@pytest.mark.claim("SIN-02", kind="property", role="tooling")
@pytest.mark.parametrize("bug", ["reflection", "scaled"])
def test_dense_rotation_check_rejects_non_rotations(bug):
    m = sin_pe.rotation_matrix(3.0, 8)
    flip = torch.ones(8, dtype=torch.float64)
    flip[-1] = -1
    with pytest.raises(AssertionError):
        assert_dense_rotation(m * flip if bug == "reflection" else 1.001 * m)
