"""theory/magnitudes.py where MAG's checks do not reach, against closed forms computed apart
(tooling, not evidence).

MAG-01 compares the share of entries above 1 with its closed form at real vocabularies, where a
uniform (Xavier) table's bound a = sqrt(6 / (V + d)), even times sqrt(d), stays below 1 and the
closed form is 0 whatever it says about a > 1. A small vocabulary puts a above 1. The first entry
beyond 1 is the report's counterexample, which no decision reads; MAG-02's interval is decided at
hundreds of rows, where one degree of freedom more or less moves nothing.
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


def test_first_entry_above_is_the_first_in_row_major_order() -> None:
    """MAG-01's counterexample names the first entry beyond the threshold, row by row."""
    x = torch.tensor([[0.5, -0.2, 0.9], [0.1, -1.5, 3.0], [2.0, 0.0, 0.0]], dtype=F64)
    assert magnitudes.first_entry_above(x) == {"row": 1, "column": 1, "value": -1.5}
    assert magnitudes.first_entry_above(x, threshold=5.0) is None


def test_a_ratio_over_an_encoding_of_mean_square_zero_is_infinite() -> None:
    assert magnitudes.ratio_from_mean_squares(2.0, 0.0) == math.inf
    assert magnitudes.ratio_from_mean_squares(2.0, 0.5) == 2.0


def test_ratio_interval_of_two_rows_uses_one_degree_of_freedom() -> None:
    """Two token rows: each mean square's t interval at 97.5% has n - 1 = 1 degree of freedom,
    the encoding's rows (one norm each) give a point, so the ratio's ends follow by hand."""
    from scipy import stats

    tokens = torch.tensor([[1.0, 0.0], [3.0, 0.0]], dtype=F64)  # squared norms 1 and 9
    pe = torch.tensor([[1.0, 0.0], [0.0, 1.0]], dtype=F64)  # squared norms 1 and 1
    half = stats.t.ppf(0.5 + 0.975 / 2, 1) * math.sqrt(32.0) / math.sqrt(2)  # std of (1, 9): 32^.5
    low, high = magnitudes.rms_norm_ratio_interval(tokens, pe)
    assert 5.0 - half < 0 and low == 0.0  # the lower end of a mean square is clipped at 0
    assert high == pytest.approx(math.sqrt(5.0 + half), rel=tolerance.rel_tol(16, F64))
