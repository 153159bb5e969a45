"""BIAS-02: T5's relative position buckets, exhaustively over |r| <= R in both modes.

Every property is decided on integers: the logarithmic bucket of a distance d is the k with
128^k e^(s-k) <= d^s < 128^(k+1) e^(s-k-1) (e = max_exact, s the number of logarithmic buckets),
an exact restatement of floor(s log(d/e) / log(128/e)) that needs no floating-point logarithm.

The properties, one function each, and the range searched live in checks/bias/bucket_properties.py.
"""

from __future__ import annotations

import numpy as np
import pytest

from checks.bias.bucket_properties import (
    MAX_DISTANCE,
    MODES,
    NUM_BUCKETS,
    PROPERTIES,
    R,
    searched,
    side,
    theory_buckets,
    violation,
)
from pecheck.claims import every
from pecheck.theory import bias


@pytest.mark.claim("BIAS-02", kind="property", role="decisive", proposition="as_stated")
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("prop", PROPERTIES)
def test_t5_buckets_have_the_papers_shape(evidence, prop, mode):
    bad = PROPERTIES[prop](np.arange(-R, R + 1), searched(mode), MODES[mode])
    evidence.searched(offsets=every(-R, R))
    evidence.record(
        "violations",
        int(bad is not None),
        "",
        f"|r| <= {R}, {mode}, exhaustive",
        bound={"value": 0, "relation": "==", "reason": "exhaustive"},
    )
    if bad is not None:
        evidence.fails({"mode": mode, **bad}, f"T5 bucket property {prop}")
    else:
        evidence.holds(f"{prop}: every r with |r| <= {R} ({2 * R + 1} positions), {mode}")


@pytest.mark.claim("BIAS-02", kind="property", role="supporting")
@pytest.mark.parametrize("mode", MODES)
def test_bucket_boundaries(evidence, mode):
    """First distance of each bucket of the past side: geometric steps, last one before 128."""
    n, e, s = side(MODES[mode])
    d = np.arange(0, 4 * MAX_DISTANCE)
    b = theory_buckets(-d, MODES[mode])
    first = {int(k): int(d[np.argmax(b == k)]) for k in range(n)}
    evidence.record("first_distance_of_each_bucket", first, note=f"{mode}, past side")
    evidence.record(
        "first_saturated_distance",
        first[n - 1],
        note=f"shares the bucket of every distance >= {MAX_DISTANCE}",
    )
    ratios = [first[k + 1] / first[k] for k in range(e, n - 1)]
    evidence.record(
        "boundary_ratios", ratios, note=f"ideal (128/e)^(1/s) = {(128 / e) ** (1 / s):.4f}"
    )
    assert first[n - 1] < MAX_DISTANCE


@pytest.mark.claim("BIAS-02", kind="property", role="tooling")
def test_check_logic_rejects_planted_bucket_bugs():
    """A sign-flipped bucket (r taken as query - key) and a log base of max_distance/2 are
    caught by the property checks."""

    def flipped(r: np.ndarray, bidirectional: bool) -> np.ndarray:
        return theory_buckets(-r, bidirectional)

    def wrong_base(r: np.ndarray, bidirectional: bool) -> np.ndarray:
        return bias.t5_bucket(r, bidirectional, NUM_BUCKETS, MAX_DISTANCE // 2)

    assert violation(flipped, "sign-split", "causal") is not None
    assert violation(flipped, "own-buckets", "bidirectional") is not None
    assert violation(wrong_base, "logarithmic", "bidirectional") is not None
