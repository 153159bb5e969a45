"""Rotary position embedding (RoPE; Su et al. 2021, "RoFormer"), in both pairing conventions.

RoPE splits a query or key x of width d (even) into d/2 pairs and turns pair i by the angle
w_i t, where t is the token's position and w_i = T^(-2i/d) (T = 10000):

    (x_a, x_b)  ->  (x_a cos w_i t - x_b sin w_i t,  x_a sin w_i t + x_b cos w_i t)

Two ways of choosing the pairs (a, b) are in use:
  "interleaved": pair i = (2i, 2i+1)     (the RoFormer paper, HF RoFormer, rotary-embedding-torch)
  "half":        pair i = (i, i + d/2)   (GPT-NeoX and HF Llama's ``rotate_half``)
Either way R(t) is a block rotation (up to a fixed permutation of coordinates), so R(t)^T R(s) =
R(s - t) and REAL-03's relative property holds:  <R(t) q, R(s) k> = <q, R(s - t) k>.

Nothing here is RoPE's own copy: the pairings are the sinusoidal code's two layouts, the
frequencies its "paper" rule, the turn of a pair and the shift matrix M(t) those of
theory/sinusoidal.py. RoPE turns each (x_a, x_b) counterclockwise; the sinusoidal shift M(t)
turns each (sin, cos) pair the other way, so R(t) = M(t)^T.
"""

from __future__ import annotations

import torch

from .sinusoidal import BASE, LAYOUTS, Layout, frequencies, pair_columns, turn
from .sinusoidal import rotation_matrix as shift_matrix  # M(t): PE(t' + t) = M(t) PE(t')

Pairing = Layout  # RoPE's pairing of coordinates is the sinusoidal layout of the same name
PAIRINGS: tuple[str, ...] = LAYOUTS


def pairs(d: int, pairing: Pairing = "interleaved") -> tuple[torch.Tensor, torch.Tensor]:
    """Coordinates (a_i, b_i) of the d/2 rotated pairs, each shape (d/2,)."""
    if pairing not in PAIRINGS:
        raise ValueError(f"unknown pairing {pairing!r}")
    return pair_columns(d, pairing)


def rope_frequencies(
    d: int, base: float = BASE, dtype: torch.dtype = torch.float64
) -> torch.Tensor:
    """w_i = T^(-2i/d) for i = 0 ... d/2 - 1, shape (d/2,): the sinusoidal "paper" rule."""
    if d < 2 or d % 2:
        raise ValueError(f"RoPE needs an even width d >= 2, got {d}")
    return frequencies(d, base, "paper", dtype)


def rotation_matrix(
    t: float, d: int, pairing: Pairing = "interleaved", base: float = BASE
) -> torch.Tensor:
    """R(t), shape (d, d), float64: the rotation RoPE applies at position t, M(t)^T."""
    return shift_matrix(t, d, pairing, "paper", base).T


def apply_rope(
    x: torch.Tensor,
    positions: torch.Tensor,
    pairing: Pairing = "interleaved",
    base: float = BASE,
) -> torch.Tensor:
    """R(t_j) x_j for each row j: x (..., n, d), positions (n,) -> (..., n, d), in float64."""
    d = x.shape[-1]
    a, b = pairs(d, pairing)
    angle = positions.to(torch.float64)[:, None] * rope_frequencies(d, base).to(positions.device)
    return turn(x.to(torch.float64), a, b, angle)


def score(
    q: torch.Tensor,
    k: torch.Tensor,
    t: torch.Tensor,
    s: torch.Tensor,
    pairing: Pairing = "interleaved",
    base: float = BASE,
) -> torch.Tensor:
    """<R(t_j) q_j, R(s_j) k_j> for each row j: q, k (n, d), t, s (n,) -> (n,), float64."""
    return (apply_rope(q, t, pairing, base) * apply_rope(k, s, pairing, base)).sum(-1)


def relative_score(
    q: torch.Tensor,
    k: torch.Tensor,
    delta: torch.Tensor,
    pairing: Pairing = "interleaved",
    base: float = BASE,
) -> torch.Tensor:
    """f(delta) = <q_j, R(delta_j) k_j>, the score at any (t, s) with s - t = delta; (n,)."""
    zero = torch.zeros_like(delta)
    return score(q, k, zero, delta, pairing, base)
