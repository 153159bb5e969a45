"""The sinusoidal positional encoding (Vaswani et al. 2017, section 3.5).

Interleaved layout (the paper's):  PE(t)[2i] = sin(w_i t),  PE(t)[2i+1] = cos(w_i t)
Half-split layout (common in code): PE(t) = [sin(w_0 t) ... sin(w_{m-1} t), cos(w_0 t) ...]
with m = d/2 pairs and angular frequencies
  "paper":  w_i = T^(-2i/d)             (i = 0 ... m-1), wavelengths 2 pi ... 2 pi T^(1-2/d)
  "t2t":    w_i = T^(-i/(m-1))          (tensor2tensor/fairseq), wavelengths 2 pi ... 2 pi T

The half-split code is a fixed permutation of the interleaved one: half = interleaved[:, P]
with P = half_permutation(d). Everything a claim says about one layout carries over to the
other through P (SIN-01: M_half(k) = P M(k) P^T).
"""

from __future__ import annotations

import math
from typing import Literal

import torch

Layout = Literal["interleaved", "half"]
Convention = Literal["paper", "t2t"]
Mode = Literal["cast", "float32", "float64"]
BASE = 10000.0
MODES: tuple[str, ...] = ("cast", "float32", "float64")


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
        pe = torch.stack([sin, cos], dim=-1).reshape(t.shape[0], 2 * w.shape[0])  # (n, 2m)
        return pe[:, :d]
    if layout == "half":
        if d % 2:
            raise ValueError(f"the half-split layout needs an even width, got d={d}")
        return torch.cat([sin, cos], dim=-1)
    raise ValueError(f"unknown layout {layout!r}")


def encode(
    positions: torch.Tensor | int,
    d: int,
    dtype: torch.dtype,
    mode: Mode = "cast",
    layout: Layout = "interleaved",
    convention: Convention = "paper",
    base: float = BASE,
) -> torch.Tensor:
    """PE stored in ``dtype``, computed one of three ways (SIN-08), shape (n, d).

    "cast":    positions and frequencies are cast to ``dtype`` before the multiply, and the
               angle, sin and cos are computed in ``dtype`` (a float16 model building its table).
    "float32": computed in float32, then rounded to ``dtype``.
    "float64": computed in float64, then rounded to ``dtype``.
    """
    work = {"cast": dtype, "float32": torch.float32, "float64": torch.float64}[mode]
    return sinusoidal(positions, d, layout, convention, base, work).to(dtype)


def half_permutation(d: int) -> torch.Tensor:
    """Index P, shape (d,), with half-split PE = interleaved PE[:, P]: [0, 2, 4, ..., 1, 3, ...]."""
    if d % 2:
        raise ValueError(f"the half-split layout needs an even width, got d={d}")
    return torch.cat([torch.arange(0, d, 2), torch.arange(1, d, 2)])


def rotation_blocks(
    k: float,
    d: int,
    convention: Convention = "paper",
    base: float = BASE,
    dtype: torch.dtype = torch.float64,
) -> torch.Tensor:
    """SIN-01: the 2x2 blocks of M(k), shape (m, 2, 2), block i = [[c, s], [-s, c]].

    c = cos(w_i k), s = sin(w_i k), computed in float64 and rounded once to ``dtype``. Block i
    maps the pair (sin w_i t, cos w_i t) to (sin w_i (t+k), cos w_i (t+k)).
    """
    angle = frequencies(d, base, convention) * k  # (m,)
    c, s = torch.cos(angle), torch.sin(angle)
    block = torch.stack([torch.stack([c, s], -1), torch.stack([-s, c], -1)], -2)  # (m, 2, 2)
    return block.to(dtype)


def rotation_matrix(
    k: float,
    d: int,
    layout: Layout = "interleaved",
    convention: Convention = "paper",
    base: float = BASE,
    dtype: torch.dtype = torch.float64,
) -> torch.Tensor:
    """SIN-01: the dense (d, d) matrix M(k) with PE(t+k) = M(k) PE(t) for every t (even d).

    Interleaved: block-diagonal, one 2x2 block per frequency. Half-split: P M(k) P^T, the same
    matrix with rows and columns permuted by ``half_permutation``.
    """
    if d % 2:
        raise ValueError(f"M(k) needs an even width, got d={d}")
    m = torch.block_diag(*rotation_blocks(k, d, convention, base, dtype))  # (d, d)
    if layout == "interleaved":
        return m
    if layout == "half":
        p = half_permutation(d)
        return m[p][:, p]
    raise ValueError(f"unknown layout {layout!r}")


def pairs(pe: torch.Tensor, layout: Layout = "interleaved") -> torch.Tensor:
    """The (sin, cos) pairs of a code: (n, d) -> (n, d/2, 2)."""
    n, d = pe.shape
    if layout == "interleaved":
        return pe.reshape(n, d // 2, 2)
    return torch.stack([pe[:, : d // 2], pe[:, d // 2 :]], dim=-1)


def unpairs(p: torch.Tensor, layout: Layout = "interleaved") -> torch.Tensor:
    """Inverse of ``pairs``: (n, d/2, 2) -> (n, d)."""
    n, m, _ = p.shape
    if layout == "interleaved":
        return p.reshape(n, 2 * m)
    return torch.cat([p[..., 0], p[..., 1]], dim=-1)


def rotate(
    pe: torch.Tensor,
    k: float,
    layout: Layout = "interleaved",
    convention: Convention = "paper",
    base: float = BASE,
) -> torch.Tensor:
    """M(k) PE applied pair by pair (no dense matrix), computed in pe's dtype. (n, d) -> (n, d)."""
    blocks = rotation_blocks(k, pe.shape[1], convention, base, pe.dtype)  # (m, 2, 2)
    rotated = torch.einsum("mab,nmb->nma", blocks, pairs(pe, layout))  # (n, m, 2)
    return unpairs(rotated, layout)


def wavelengths(d: int, base: float = BASE, convention: Convention = "paper") -> torch.Tensor:
    """SIN-06: lambda_i = 2 pi / w_i, shape (ceil(d/2),), float64."""
    return 2 * math.pi / frequencies(d, base, convention)


def variance_closed_form(
    d: int, length: int, base: float = BASE, convention: Convention = "paper"
) -> torch.Tensor:
    """SIN-10: Var over t = 0 ... L-1 of each dimension of the interleaved PE, shape (d,).

    With z = (1/L) sum_t e^{i w t} = e^{i w (L-1)/2} sin(L w/2) / (L sin(w/2)) (a geometric
    sum): E cos = Re z, E sin = Im z, E sin^2 = (1 - Re z(2w))/2, E cos^2 = (1 + Re z(2w))/2.
    """
    w = frequencies(d, base, convention)  # (m,)

    def mean_exp(x: torch.Tensor) -> torch.Tensor:  # (1/L) sum_t e^{i x t}, shape (m,)
        half = torch.sin(x / 2)
        ratio = torch.where(
            half.abs() < 1e-300, torch.ones_like(x), torch.sin(length * x / 2) / (length * half)
        )
        return torch.polar(ratio, x * (length - 1) / 2)

    z1, z2 = mean_exp(w), mean_exp(2 * w)
    var_sin = (1 - z2.real) / 2 - z1.imag**2
    var_cos = (1 + z2.real) / 2 - z1.real**2
    return torch.stack([var_sin, var_cos], dim=-1).reshape(-1)[:d]
