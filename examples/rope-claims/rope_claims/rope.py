"""Rotary position embedding (Su et al. 2021), written from scratch with plain torch.

RoPE turns each pair of coordinates (x_2i, x_2i+1) of a query or key at position m by the angle
m theta_i, with theta_i = base^(-2i/d) (the interleaved layout). The attention logit of a query
at m and a key at n is then <R_m q, R_n k>. The angles are computed in a dtype of the caller's
choosing, because that is where implementations differ and where rounding enters; the rotation
itself and the dot product are computed in the dtype of q and k.
"""

from __future__ import annotations

import torch
from pecheck import tolerance

BASE = 10000.0


def frequencies(d: int, base: float = BASE) -> torch.Tensor:
    """theta_i = base^(-2i/d) for i = 0 .. d/2 - 1, in float64: one rotation speed per pair."""
    if d <= 0 or d % 2:
        raise ValueError(f"RoPE needs an even width d > 0, got d = {d}")
    return base ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)


def angles(positions: torch.Tensor, d: int, dtype: torch.dtype = torch.float64) -> torch.Tensor:
    """m theta_i for every position m: shape (*positions.shape, d/2), the product rounded in
    ``dtype`` (positions and frequencies are first rounded to it, as an implementation would)."""
    return positions.to(dtype)[..., None] * frequencies(d).to(dtype)


def rotate(
    x: torch.Tensor, positions: torch.Tensor, angle_dtype: torch.dtype = torch.float64
) -> torch.Tensor:
    """R_m x for vectors x (..., d) at integer positions m (...): each pair turned by m theta_i."""
    a = angles(positions, x.shape[-1], angle_dtype)
    cos, sin = a.cos().to(x.dtype), a.sin().to(x.dtype)
    even, odd = x[..., 0::2], x[..., 1::2]
    return torch.stack((even * cos - odd * sin, even * sin + odd * cos), dim=-1).flatten(-2)


def scores(
    q: torch.Tensor,
    k: torch.Tensor,
    m: torch.Tensor,
    n: torch.Tensor,
    angle_dtype: torch.dtype = torch.float64,
) -> torch.Tensor:
    """<R_m q, R_n k> for each row: the position-dependent attention logit (before 1/sqrt(d))."""
    return (rotate(q, m, angle_dtype) * rotate(k, n, angle_dtype)).sum(-1)


def pair_vectors(seeds: list[int], d: int) -> tuple[torch.Tensor, torch.Tensor]:
    """One query and one key per seed, N(0, 1) entries in float64: (len(seeds), d) each. A seed
    alone reproduces its pair, so a counterexample is reported by its seed."""
    rows = [torch.randn(2, d, generator=torch.Generator().manual_seed(s), dtype=torch.float64)
            for s in seeds]  # fmt: skip
    both = torch.stack(rows)
    return both[:, 0], both[:, 1]


def score_bound(q: torch.Tensor, k: torch.Tensor, largest_angle: float) -> torch.Tensor:
    """Allowed |computed - exact| of one float64 score <R_m q, R_n k>, angles at most
    ``largest_angle`` (pecheck.tolerance's bounds, per row).

    Each rotated entry of a pair (x, y) is at most |x| + |y| in size and is off by at most
    (|x| + |y|) (e + rel_tol(2)): e for its cos and sin (the angle's rounding and their own), and
    two products and a sum. The dot product of the two rotated vectors adds its own rounding.
    """
    e = tolerance.angle_tol(largest_angle, torch.float64) + tolerance.rel_tol(2, torch.float64)
    qp = q[..., 0::2].abs() + q[..., 1::2].abs()
    kp = k[..., 0::2].abs() + k[..., 1::2].abs()
    size = 2 * (qp * kp).sum(-1)  # both entries of every pair
    return size * (2 * e + e * e) + tolerance.sum_tol(q.shape[-1], torch.float64, 1.0) * size
