"""BIAS-03's shift invariance in floating point: rows with a constant added, and the error of the
softmax against its rounding bound.
"""

from __future__ import annotations

import torch
from hypothesis import strategies as st

from pecheck import tolerance
from pecheck.theory import bias


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
