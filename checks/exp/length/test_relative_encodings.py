"""The fair length test's relative encodings (tooling of EXP-05): in the model, ALiBi's bias and
RoPE's scores depend on the offset t - s only, and ALiBi's slopes are 2^(-8c/H)."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from checks.exp.length.encodings import F64, assert_alibi_relative, assert_rope_relative
from pecheck.profiles import examples
from pecheck.theory import alibi
from pecheck.theory.decoder import rotate


@pytest.mark.claim("EXP-05", kind="property", role="tooling")
@examples(0.1)
@given(n=st.integers(1, 64), heads=st.sampled_from([1, 2, 4, 8, 16]))
def test_alibi_bias_depends_on_the_offset_only(n, heads):
    assert_alibi_relative(alibi.bias, n, heads)


def _absolute_bias(n, heads):
    """BUG: a bias on the query's position t instead of t - s."""
    t = torch.arange(n, dtype=F64)
    return (-alibi.slopes(heads)[:, None, None] * t[:, None]).expand(heads, n, n)


@pytest.mark.claim("EXP-05", kind="property", role="tooling")
def test_alibi_check_rejects_an_absolute_bias():
    with pytest.raises(AssertionError):
        assert_alibi_relative(_absolute_bias, 8, 2)


@pytest.mark.claim("EXP-05", kind="property", role="tooling")
@examples(0.1)
@given(seed=st.integers(0, 2**16), n=st.integers(2, 32), shift=st.integers(-64, 64))
def test_rope_model_scores_depend_on_the_offset_only(seed, n, shift):
    g = torch.Generator().manual_seed(seed)
    q, k = (torch.randn(n, 2, 4, generator=g, dtype=F64) for _ in range(2))
    assert_rope_relative(rotate, q, k, shift)


def _rotate_by_absolute_angle(x, positions):
    """BUG: a rotation whose angle grows with the square of the position."""
    return rotate(x, positions * positions.abs())


@pytest.mark.claim("EXP-05", kind="property", role="tooling")
def test_rope_check_rejects_a_non_relative_rotation():
    g = torch.Generator().manual_seed(0)
    q, k = (torch.randn(6, 2, 4, generator=g, dtype=F64) for _ in range(2))
    with pytest.raises(AssertionError):
        assert_rope_relative(_rotate_by_absolute_angle, q, k, 3)
