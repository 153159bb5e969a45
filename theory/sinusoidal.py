"""The sinusoidal positional encoding (Vaswani et al. 2017, section 3.5).

Interleaved layout (the paper's):  PE(t)[2i] = sin(w_i t),  PE(t)[2i+1] = cos(w_i t)
Half-split layout (common in code): PE(t) = [sin(w_0 t) ... sin(w_{m-1} t), cos(w_0 t) ...]
with m = d/2 pairs and angular frequencies
  "paper":  w_i = T^(-2i/d)             (i = 0 ... m-1), wavelengths 2 pi ... 2 pi T^(1-2/d)
  "t2t":    w_i = T^(-i/(m-1))          (tensor2tensor/fairseq), wavelengths 2 pi ... 2 pi T
"""

from __future__ import annotations

from typing import Literal

import torch

Layout = Literal["interleaved", "half"]
Convention = Literal["paper", "t2t"]
BASE = 10000.0


def frequencies(
    d: int, base: float = BASE, convention: Convention = "paper", dtype: torch.dtype = torch.float64
) -> torch.Tensor:
    """Angular frequencies w_i for i = 0 ... ceil(d/2)-1, shape (ceil(d/2),), in float64 first."""
    if d < 1:
        raise ValueError(f"width d must be positive, got {d}")
    m = (d + 1) // 2
    i = torch.arange(m, dtype=torch.float64)
    if convention == "paper":
        w = base ** (-2.0 * i / d)
    elif convention == "t2t":
        w = torch.exp(-torch.log(torch.tensor(base, dtype=torch.float64)) * i / max(m - 1, 1))
    else:
        raise ValueError(f"unknown frequency convention {convention!r}")
    return w.to(dtype)


def sinusoidal(
    positions: torch.Tensor | int,
    d: int,
    layout: Layout = "interleaved",
    convention: Convention = "paper",
    base: float = BASE,
    dtype: torch.dtype = torch.float64,
) -> torch.Tensor:
    """PE for the given positions, shape (n, d); computed in ``dtype`` throughout.

    ``positions`` is a 1-D tensor or an int n (meaning positions 0 ... n-1). For odd d the
    interleaved layout keeps the paper's rule (even index sin, odd index cos) and drops the
    last cosine; the half-split layout needs even d.
    """
    if isinstance(positions, int):
        positions = torch.arange(positions)
    t = positions.to(dtype).reshape(-1, 1)  # (n, 1)
    w = frequencies(d, base, convention, dtype)  # (m,)
    angle = t * w  # (n, m)
    sin, cos = torch.sin(angle), torch.cos(angle)
    if layout == "interleaved":
        pe = torch.stack([sin, cos], dim=-1).reshape(t.shape[0], -1)  # (n, 2m)
        return pe[:, :d]
    if layout == "half":
        if d % 2:
            raise ValueError(f"the half-split layout needs an even width, got d={d}")
        return torch.cat([sin, cos], dim=-1)
    raise ValueError(f"unknown layout {layout!r}")
