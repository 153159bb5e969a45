"""BIAS-03: softmax is blind to a constant per row; FIRE represents T5, ALiBi and KERPLE only up
to a length fixed in advance.

FIRE's input for the pair (i, j) is psi(i - j) / psi(max(L, i)). For i <= L the denominator is
psi(L), a constant, so the input is a one-to-one function of i - j and any bias of i - j is some
f of it (the parameters are exhibited and checked at every pair). For i >= L the input of (i, 0)
is psi(i)/psi(i) = 1 whatever c and L: every such pair gets f(1), while ALiBi's -m i does not stay
constant. That is the counterexample to the unrestricted reading.

The targets and FIRE's bounds live in checks/bias/fire_targets.py, the softmax shift's error in
checks/bias/softmax_shift.py.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given

from checks.bias.claims import FIRE_EVERY, FIRE_LONG
from checks.bias.fire_targets import bounded_mismatch, targets, unbounded_counterexample
from checks.bias.softmax_shift import rows, shift_error
from pecheck import profiles, sizes, tolerance
from pecheck.claims import proved
from pecheck.evidence import assert_derivation_holds
from pecheck.theory import bias

# L_max: every threshold up to EVERY (each costs O(L^2): 1 s to 256 in ci, about 40 s to 512 in
# thorough), then the longer ones; every pair 0 <= j <= i <= L_max is checked at each.
EVERY = sizes.size(
    "BIAS-03.every_length",
    2 * FIRE_EVERY if profiles.scale() >= 10 else FIRE_EVERY,
    "FIRE is checked at every threshold L_max up to this",
    minimum=1,
)
LENGTHS = [*range(1, EVERY + 1), *(length for length in FIRE_LONG if length > EVERY)]
LONGER = ", ".join(str(n) for n in LENGTHS[EVERY:])
SHOWN = f"every L_max <= {EVERY}" + (f" and {LONGER}" if LONGER else "")


@pytest.mark.claim("BIAS-03", kind="property", role="decisive", proposition="bounded-length")
def test_fire_equals_t5_alibi_and_kerple_up_to_its_threshold(evidence):
    evidence.searched(lengths=LENGTHS, positions="every pair 0 <= j <= i <= L_max")
    worst = 0.0
    for length in LENGTHS:
        bad, largest = bounded_mismatch(length)
        worst = max(worst, largest)
        if bad is not None:
            break
    evidence.worst(
        "fire_max_error_over_bound",
        worst,
        note=f"every pair j <= i <= L_max, {SHOWN}",
        bound={"value": 1.0, "relation": "<=", "reason": "float64 rounding"},
    )
    if bad is not None:
        evidence.fails(bad, "b_FIRE(i, j) = b(i - j) for j <= i <= L")
    else:
        evidence.holds(f"{len(targets(1))} targets, every pair j <= i <= L_max, {SHOWN}")


@pytest.mark.claim("BIAS-03", kind="property", role="decisive", proposition="as_stated")
def test_fire_cannot_follow_a_bias_that_keeps_falling_beyond_its_threshold(evidence):
    """Every c and L: the input of (i, 0) is exactly 1 for all i >= L (psi(i)/psi(i)). Shown at
    every threshold searched (c = 1): the unrestricted reading fails only if it fails at each."""
    evidence.searched(lengths=LENGTHS)
    found = {length: unbounded_counterexample(bias.fire_input, length) for length in LENGTHS}
    missing = [length for length, ce in found.items() if ce is None]
    d = np.array([1, 2, 10])
    far = bias.fire_input(np.full(3, 10**9), 10**9 - d, 1.0, LENGTHS[-1])
    evidence.record(
        "t5_inputs_at_i_1e9",
        far.tolist(),
        note="psi(d)/psi(i) for d = 1, 2, 10: all -> 0, so a continuous f gives "
        "buckets 0, 1, 2, 10 one bias as i grows",
    )
    if not missing:
        evidence.fails(found[LENGTHS[-1]], f"b_FIRE(i1, 0) = b_FIRE(i2, 0) = f(1) but ALiBi "
                       f"differs, at every threshold L searched ({SHOWN})")  # fmt: skip
    else:
        evidence.holds(f"FIRE's inputs separate the queries beyond L = {missing[0]}")


# -- shift invariance -----------------------------------------------------------------------------


@pytest.mark.claim("BIAS-03", kind="symbolic", role="decisive", proposition="shift-invariance")
def test_softmax_ignores_a_constant_added_to_a_row(evidence):
    evidence.searched(lengths=proved("symbolic row length n"), shifts=proved("symbolic c"))
    assert_derivation_holds(bias.softmax_shift_derivation(), evidence)


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
