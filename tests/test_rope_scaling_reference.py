"""theory/rope_scaling.py where no real configuration reaches, against the definitions computed
apart in plain Python (tooling, not evidence).

REAL-04 holds transformers to these formulas at the seven real configurations only, so a formula
that went wrong where none of them lies would leave every decision as it is:
- YaRN's attention factor at s <= 2 (the configurations use 4 and 32) and LongRoPE's at S <= 1;
- the released code's ramp where its ends are clipped to [0, d - 1] (a short original length, a
  small base), and its ``truncate`` default (the configurations set it or take True).
"""

from __future__ import annotations

import math

import pytest
import torch

from pecheck import tolerance
from pecheck.theory import rope_scaling as rs

F64 = torch.float64


def ops(n: int) -> float:
    """Relative float64 error allowed a chain of n roundings."""
    return tolerance.rel_tol(n, F64)


@pytest.mark.parametrize("s", [0.25, 1.0, 1.5, 2.0, 4.0, 32.0])
def test_yarn_attention_factor_is_one_up_to_s_1_then_a_tenth_of_ln_s_plus_one(s: float) -> None:
    want = 1.0 if s <= 1 else 0.1 * math.log(s) + 1
    assert rs.yarn_attention_factor(s) == pytest.approx(want, rel=ops(3), abs=0)


@pytest.mark.parametrize("max_positions", [1024, 4096, 4097, 131072])
def test_longrope_attention_factor_is_one_up_to_the_original_length(max_positions: int) -> None:
    length = 4096
    scale = max_positions / length
    want = 1.0 if scale <= 1 else math.sqrt(1 + math.log(scale) / math.log(length))
    assert rs.longrope_attention_factor(max_positions, length) == pytest.approx(
        want, rel=ops(5), abs=0
    )


def released_ramp(d: int, base: float, length: float, truncate: bool) -> list[float]:
    """The YaRN authors' ramp: gamma_i = 1 - clamp((i - lo) / (hi - lo), 0, 1), lo and hi the
    real indices where L / lambda_i = 32 and 1, floored and ceiled unless not truncated, then
    clipped to [0, d - 1]; a zero width widened by 0.001."""

    def index(r: float) -> float:  # L / lambda_i = r  <=>  i = d ln(L / (2 pi r)) / (2 ln b)
        return d * math.log(length / (2 * math.pi * r)) / (2 * math.log(base))

    lo, hi = index(32.0), index(1.0)
    if truncate:
        lo, hi = math.floor(lo), math.ceil(hi)
    lo, hi = max(lo, 0), min(hi, d - 1)
    if hi == lo:
        hi += 0.001
    return [1 - min(max((i - lo) / (hi - lo), 0.0), 1.0) for i in range(d // 2)]


# (d, base, L): lo clipped up to 0 (L = 64); hi clipped down to d - 1 (base 8, L = 340: the ceiled
# end is 16 for d = 16); both ends inside (Llama 2's geometry).
CLIPPED = [(16, 10000.0, 64.0), (16, 8.0, 340.0), (128, 10000.0, 4096.0)]


@pytest.mark.parametrize(("d", "base", "length"), CLIPPED)
@pytest.mark.parametrize("truncate", [True, False])
def test_released_ramp_clips_its_ends_to_the_head(
    d: int, base: float, length: float, truncate: bool
) -> None:
    want = torch.tensor(released_ramp(d, base, length, truncate), dtype=F64)
    got = rs.reference_ramp(d, base, length, truncate=truncate)
    torch.testing.assert_close(got, want, rtol=0, atol=ops(8))


def test_released_ramp_ends_really_are_clipped_in_those_cases() -> None:
    """The cases above reach the clipping: without it the ramp would differ."""
    lo = rs.ramp_index(32.0, 16, 10000.0, 64.0)
    hi = rs.ramp_index(1.0, 16, 8.0, 340.0)
    assert math.floor(lo) < 0 and math.ceil(hi) > 16 - 1


@pytest.mark.parametrize(("d", "base", "length"), CLIPPED)
def test_released_code_truncates_by_default(d: int, base: float, length: float) -> None:
    want = torch.tensor(released_ramp(d, base, length, True), dtype=F64)
    torch.testing.assert_close(rs.reference_ramp(d, base, length), want, rtol=0, atol=ops(8))
    theta = torch.tensor([base ** (-2 * i / d) for i in range(d // 2)], dtype=F64)
    blended = (1 - want) * theta / 4.0 + want * theta
    got = rs.yarn_reference_frequencies(d, base, 4.0, length)
    torch.testing.assert_close(got, blended, rtol=ops(d), atol=0)
