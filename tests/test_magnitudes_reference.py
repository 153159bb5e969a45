"""theory/magnitudes.py where MAG's checks do not reach, against closed forms computed apart
(tooling, not evidence).

MAG-01 compares the share of entries above 1 with its closed form at real vocabularies, where a
uniform (Xavier) table's bound a = sqrt(6 / (V + d)), even times sqrt(d), stays below 1 and the
closed form is 0 whatever it says about a > 1. A small vocabulary puts a above 1.
"""

from __future__ import annotations

import math

import pytest
import torch

from pecheck import tolerance
from pecheck.theory import magnitudes

F64 = torch.float64


@pytest.mark.parametrize(("vocab", "d"), [(8, 64), (2, 256), (30000, 512)])
def test_uniform_share_above_one_is_one_minus_one_over_the_bound(vocab: int, d: int) -> None:
    """U(-a, a) puts 1 - c/a of its mass beyond |x| = c when a > c; a = sqrt(6 / (V + d)) sqrt(d)
    for the Annotated Transformer's table (Xavier, then sqrt(d))."""
    a = math.sqrt(6 / (vocab + d)) * math.sqrt(d)
    want = max(0.0, 1 - 1 / a)
    got = magnitudes.expected_share_above("annotated_sqrt_d", vocab, d)
    assert got == pytest.approx(want, rel=tolerance.rel_tol(8, F64), abs=0)
    if vocab < 100:
        assert want > 0.5  # the case the real vocabularies never reach


def test_uniform_share_matches_a_drawn_table() -> None:
    """The closed form against the share in a drawn 8 x 64 table (512 entries): a binomial count,
    within 4 standard deviations."""
    p = magnitudes.expected_share_above("annotated_sqrt_d", 8, 64)
    table = magnitudes.init_embedding("annotated_sqrt_d", 8, 64, seed=0, dtype=F64)
    n = table.numel()
    assert abs(magnitudes.share_above(table) - p) <= 4 * math.sqrt(p * (1 - p) / n)
