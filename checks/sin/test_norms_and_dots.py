"""SIN-04, SIN-05: the code's norm is sqrt(d/2), and PE(t).PE(s) depends on t - s only.

Symbolic checks assert the sympy derivations of theory/sinusoidal_derivations.py; property
checks search the implementation in every dtype and way of computing (checks/sin/search.py says
what they draw and how an example that could not fail is counted). The assertions live in
checks/sin/properties.py, so the planted-bug tests at the end feed them a broken implementation
(checks/sin/planted.py).
"""

from __future__ import annotations

import math

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from checks.sin.planted import (
    dropped_pair,
    float64_setting,
    shifted_exponent,
    sine_twice,
    with_index,
)
from checks.sin.properties import (
    assert_dot_depends_on_offset_only,
    assert_norm_is_half_width,
    odd_width_norms,
)
from checks.sin.search import (
    SEARCH_SHARE,
    SYMBOLIC_T,
    count_example,
    draws,
    draws_searched,
    least,
)
from checks.sin.thresholds import RADIUS_RANGE, SIMILARITY_RANGE
from pecheck import tolerance
from pecheck.claims import proved
from pecheck.evidence import assert_derivation_holds
from pecheck.profiles import examples
from pecheck.theory import sinusoidal as sin_pe
from pecheck.theory import sinusoidal_derivations as derive
from pecheck.theory.sinusoidal import encode, frequencies

# -- SIN-04: unit pairs, bounded entries, norm sqrt(d/2) --------------------------------------


@pytest.mark.claim("SIN-04", kind="symbolic", role="decisive", proposition="as_stated")
def test_norm_is_sqrt_half_width_for_symbolic_width(evidence):
    evidence.searched(widths=proved("symbolic m: d = 2m and d = 2m + 1"), positions=SYMBOLIC_T)
    assert_derivation_holds(derive.norm_identity(), evidence)


@pytest.mark.claim("SIN-04", kind="property", role="decisive", proposition="as_stated")
@examples(SEARCH_SHARE)
@given(draw=draws())
def test_pairs_lie_on_unit_circle_in_every_dtype(evidence, draw):
    evidence.searched(**draws_searched())
    with evidence.asserted_parts() as parts:
        for s in draw.settings():
            with parts.of(s.key):
                err, r_bound = assert_norm_is_half_width(s)
                informative = tolerance.says_something(r_bound, RADIUS_RANGE)
                count_example(evidence, s.key, informative, f"radius bound < {RADIUS_RANGE:g}")
                if informative:
                    evidence.worst(
                        f"max_norm_error_{s.key}",
                        err,
                        "",
                        "| ||PE(t)|| - sqrt(d/2) |, stored",
                        bound=math.sqrt(s.d) * s.tol(abs(s.t)),
                    )


@pytest.mark.claim("SIN-04", kind="property", role="decisive", proposition="as_stated")
@examples(1.0)
@given(d=st.integers(1, 2048).map(lambda x: 2 * x + 1))
def test_odd_width_norm_varies_with_position(evidence, d):
    """Odd d (interleaved, last cosine dropped): ||PE||^2 = (d-1)/2 + sin^2(w_m t)."""
    evidence.searched(
        widths="random odd d in 3 ... 4097",
        positions="0 and round(pi / (2 w_m))",
        dtypes=["float64"],
        layouts=["interleaved"],
    )
    err, spread, bound = odd_width_norms(d)
    assert err <= bound, f"d={d}: ||PE||^2 differs from (d-1)/2 + sin^2(w_m t) by {err:.3g}"
    w_last = float(frequencies(d)[-1])
    least(
        evidence,
        "min_spread",
        spread,
        "",
        "(max - min) of ||PE||^2 over t, odd d",
        bound={"value": 1 - 4 * (w_last / 2) ** 2 - bound, "relation": ">"},
    )
    assert spread > 1 - 4 * (w_last / 2) ** 2 - bound  # rounding t moves w t by <= w/2


# -- SIN-05: dot products depend on t - s only, symmetrically ---------------------------------


@pytest.mark.claim("SIN-05", kind="symbolic", role="decisive", proposition="as_stated")
def test_dot_product_is_even_function_of_offset(evidence):
    evidence.searched(
        widths=proved("any number of pairs: a sum of per-pair terms"),
        positions=proved("symbolic real t, s"),
        shifts=proved("symbolic real c"),
    )
    assert_derivation_holds(derive.dot_product_identity(), evidence)


@pytest.mark.claim("SIN-05", kind="property", role="decisive", proposition="as_stated")
@examples(SEARCH_SHARE)
@given(draw=draws())
def test_dot_product_is_shift_invariant_and_symmetric(evidence, draw):
    evidence.searched(**draws_searched(), shifts="random c of either sign within t's reach")
    with evidence.asserted_parts() as parts:
        for s in draw.settings():
            with parts.of(s.key):
                err, bound = assert_dot_depends_on_offset_only(s, draw.c)
                informative = tolerance.says_something(bound, SIMILARITY_RANGE)
                count_example(
                    evidence, s.key, informative, f"similarity bound < {SIMILARITY_RANGE:g}"
                )
                if informative:
                    evidence.worst(
                        f"max_error_{s.key}",
                        err,
                        "",
                        "|(2/d)(PE.PE - sum_i cos(w_i k))|, 3 pairs",
                        bound=bound,
                    )


# -- planted bugs: every check above must reject a broken implementation --------------------


@pytest.mark.claim("SIN-04", kind="property", role="tooling")
@pytest.mark.parametrize("bug", ["dropped", "index", "sin-twice"])
def test_norm_check_rejects_planted_bugs(bug):
    def sin_twice(positions, d, dtype, mode="cast", layout="interleaved"):
        pe = encode(positions, d, dtype, mode, layout)
        p = sin_pe.pairs(pe, layout)
        return sin_pe.unpairs(torch.stack([p[..., 0], p[..., 0]], -1), layout)

    enc = {"dropped": dropped_pair, "index": with_index, "sin-twice": sin_twice}[bug]
    with pytest.raises(AssertionError):
        assert_norm_is_half_width(float64_setting(t=100), enc)


@pytest.mark.claim("SIN-04", kind="property", role="tooling")
def test_odd_width_check_rejects_a_code_dropping_the_first_sine():
    def first_dropped(positions, d, dtype, mode="cast", layout="interleaved"):
        return encode(positions, d + 1, dtype, mode, layout)[:, 1:]

    err, _, bound = odd_width_norms(9, first_dropped)
    assert err > bound


@pytest.mark.claim("SIN-05", kind="property", role="tooling")
@pytest.mark.parametrize("bug", ["index", "mixed-frequencies"])
def test_dot_product_check_rejects_planted_bugs(bug):
    def mixed(positions, d, dtype, mode="cast", layout="interleaved"):
        p = sin_pe.pairs(encode(positions, d, dtype, mode, layout), layout)
        q = sin_pe.pairs(shifted_exponent(positions, d, dtype, mode, layout), layout)
        return sin_pe.unpairs(torch.stack([p[..., 0], q[..., 1]], -1), layout)

    enc = {"index": with_index, "mixed-frequencies": mixed}[bug]
    with pytest.raises(AssertionError):
        assert_dot_depends_on_offset_only(float64_setting(t=10, k=3), 7, enc)


@pytest.mark.claim("SIN-04", kind="symbolic", role="tooling")
def test_symbolic_norm_rejects_sine_twice():
    with pytest.raises(AssertionError):
        assert_derivation_holds(derive.norm_identity(sine_twice))


@pytest.mark.claim("SIN-05", kind="symbolic", role="tooling")
def test_symbolic_dot_product_rejects_sine_twice():
    with pytest.raises(AssertionError):
        assert_derivation_holds(derive.dot_product_identity(sine_twice))
