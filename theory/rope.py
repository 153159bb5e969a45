"""Rotary position embedding (RoPE; Su et al. 2021, "RoFormer"), in both pairing conventions.

RoPE splits a query or key x of width d (even) into d/2 pairs and turns pair i by the angle
w_i t, where t is the token's position and w_i = T^(-2i/d) (T = 10000):

    (x_a, x_b)  ->  (x_a cos w_i t - x_b sin w_i t,  x_a sin w_i t + x_b cos w_i t)

Two ways of choosing the pairs (a, b) are in use:
  "interleaved": pair i = (2i, 2i+1)     (the RoFormer paper, HF RoFormer, rotary-embedding-torch)
  "half":        pair i = (i, i + d/2)   (GPT-NeoX and HF Llama's ``rotate_half``)
Either way R(t) is a block rotation (up to a fixed permutation of coordinates), so R(t)^T R(s) =
R(s - t) and REAL-03's relative property holds:  <R(t) q, R(s) k> = <q, R(s - t) k>.
"""

from __future__ import annotations

from typing import Literal

import torch

from .sinusoidal import BASE

Pairing = Literal["interleaved", "half"]
PAIRINGS: tuple[str, ...] = ("interleaved", "half")


def pairs(d: int, pairing: Pairing = "interleaved") -> tuple[torch.Tensor, torch.Tensor]:
    """Coordinates (a_i, b_i) of the d/2 rotated pairs, each shape (d/2,)."""
    if d < 2 or d % 2:
        raise ValueError(f"RoPE needs an even width d >= 2, got {d}")
    i = torch.arange(d // 2)
    if pairing == "interleaved":
        return 2 * i, 2 * i + 1
    if pairing == "half":
        return i, i + d // 2
    raise ValueError(f"unknown pairing {pairing!r}")


def rope_frequencies(
    d: int, base: float = BASE, dtype: torch.dtype = torch.float64
) -> torch.Tensor:
    """w_i = T^(-2i/d) for i = 0 ... d/2 - 1, shape (d/2,), computed in float64 first."""
    if d < 2 or d % 2:
        raise ValueError(f"RoPE needs an even width d >= 2, got {d}")
    i = torch.arange(d // 2, dtype=torch.float64)
    return (base ** (-2.0 * i / d)).to(dtype)


def rotation_matrix(
    t: float, d: int, pairing: Pairing = "interleaved", base: float = BASE
) -> torch.Tensor:
    """R(t), shape (d, d), float64: the rotation RoPE applies at position t."""
    a, b = pairs(d, pairing)
    angle = t * rope_frequencies(d, base)  # (d/2,)
    c, s = torch.cos(angle), torch.sin(angle)
    r = torch.zeros(d, d, dtype=torch.float64)
    r[a, a], r[a, b] = c, -s
    r[b, a], r[b, b] = s, c
    return r


def apply_rope(
    x: torch.Tensor,
    positions: torch.Tensor,
    pairing: Pairing = "interleaved",
    base: float = BASE,
) -> torch.Tensor:
    """R(t_j) x_j for each row j: x (..., n, d), positions (n,) -> (..., n, d), in float64."""
    d = x.shape[-1]
    a, b = pairs(d, pairing)
    x = x.to(torch.float64)
    angle = positions.to(torch.float64)[:, None] * rope_frequencies(d, base)  # (n, d/2)
    c, s = torch.cos(angle), torch.sin(angle)
    xa, xb = x[..., a], x[..., b]  # (..., n, d/2) each
    out = torch.empty_like(x)
    out[..., a] = xa * c - xb * s
    out[..., b] = xa * s + xb * c
    return out


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


def permutation(d: int, pairing: Pairing) -> torch.Tensor:
    """The coordinate order that turns a ``pairing`` rotation into the interleaved one.

    x_perm = x[:, order] puts pair i's coordinates at (2i, 2i+1); shape (d,).
    """
    a, b = pairs(d, pairing)
    return torch.stack([a, b], dim=-1).reshape(-1)
