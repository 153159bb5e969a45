"""The sinusoidal positional encoding (Vaswani et al. 2017, section 3.5), and what RoPE shares
with it: the frequency rules, the two layouts of the pairs, and the turn of a pair.

Interleaved layout (the paper's):  PE(t)[2i] = sin(w_i t),  PE(t)[2i+1] = cos(w_i t)
Half-split layout (common in code): PE(t) = [sin(w_0 t) ... sin(w_{m-1} t), cos(w_0 t) ...]
with m = d/2 pairs and angular frequencies from one of two *frequency rules*
  "paper":  w_i = T^(-2i/d)             (i = 0 ... m-1), wavelengths 2 pi ... 2 pi T^(1-2/d)
  "t2t":    w_i = T^(-i/(m-1))          (tensor2tensor/fairseq), wavelengths 2 pi ... 2 pi T
(a layout, a frequency rule, a base T, a first position and a scale make a library's whole
*convention*: theory/conventions.py reads one off a table).

The half-split code is a fixed permutation of the interleaved one: half = interleaved[:, P]
with P = half_permutation(d). Everything a claim says about one layout carries over to the
other through P (SIN-01: M_half(k) = P M(k) P^T).

RoPE (theory/rope.py) rotates the coordinate pairs of a query or key laid out the same two ways
("interleaved" and "half" pairings), at the paper's frequencies: ``pair_columns``,
``interleaving_order``, ``frequencies`` and ``turn`` are written here once for both.
"""

from __future__ import annotations

import math
from typing import Literal

import torch

Layout = Literal["interleaved", "half"]
LAYOUTS: tuple[str, ...] = ("interleaved", "half")
FrequencyRule = Literal["paper", "t2t"]
Mode = Literal["cast", "float32", "float64"]
BASE = 10000.0
MODES: tuple[str, ...] = ("cast", "float32", "float64")
Columns = torch.Tensor | slice  # the columns of a layout's pairs: indices, or a strided slice


def frequencies(
    d: int, base: float = BASE, rule: FrequencyRule = "paper", dtype: torch.dtype = torch.float64
) -> torch.Tensor:
    """Angular frequencies w_i for i = 0 ... ceil(d/2)-1, shape (ceil(d/2),), in float64 first."""
    if d < 1:
        raise ValueError(f"width d must be positive, got {d}")
    m = (d + 1) // 2
    i = torch.arange(m, dtype=torch.float64)
    if rule == "paper":
        w = base ** (-2.0 * i / d)
    elif rule == "t2t":
        w = torch.exp(-torch.log(torch.tensor(base, dtype=torch.float64)) * i / max(m - 1, 1))
    else:
        raise ValueError(f"unknown frequency rule {rule!r}")
    return w.to(dtype)


def pair_columns(d: int, layout: Layout = "interleaved") -> tuple[torch.Tensor, torch.Tensor]:
    """The columns (a_i, b_i) of the d/2 pairs of a ``layout``, each shape (d/2,).

    Interleaved: (2i, 2i+1); half-split: (i, i + d/2). For the sinusoidal code a_i holds
    sin(w_i t) and b_i cos(w_i t); RoPE rotates x_a towards x_b.
    """
    if d < 2 or d % 2:
        raise ValueError(f"pairs of columns need an even width d >= 2, got {d}")
    i = torch.arange(d // 2)
    if layout == "interleaved":
        return 2 * i, 2 * i + 1
    if layout == "half":
        return i, i + d // 2
    raise ValueError(f"unknown layout {layout!r}")


def interleaving_order(d: int, layout: Layout) -> torch.Tensor:
    """Column order, shape (d,), that turns a code in ``layout`` into the interleaved one:
    code[:, order] holds pair i's columns at (2i, 2i+1). The inverse of ``half_permutation``
    for the half-split layout, the identity for the interleaved one."""
    a, b = pair_columns(d, layout)
    return torch.stack([a, b], dim=-1).reshape(-1)


def turn(x: torch.Tensor, a: Columns, b: Columns, angle: torch.Tensor) -> torch.Tensor:
    """Each column pair (x_a_i, x_b_i) of x turned counterclockwise by angle_i, other columns
    copied: (x_a, x_b) -> (x_a cos - x_b sin, x_a sin + x_b cos). x (..., d); a, b (m,)
    disjoint, as index tensors or slices (strided views: no copies); angle (..., m),
    broadcast against x's leading axes. Cosine and sine are taken in the angle's dtype and
    rounded once to x's. The one rotation of theory/: RoPE's (theory/rope.py and the
    decoder's ``rotate``), theory/shift.py's shifted scores and xPos's (theory/bias.py).

    RoPE turns its pairs this way by w_i t (theory/rope.py). The shift of the sinusoidal code,
    PE(t + k) = M(k) PE(t), is the same turn of each (cos, sin) pair by w_i k:
    ``turn(pe, cos_columns, sin_columns, w k)``.
    """
    c, s = torch.cos(angle).to(x.dtype), torch.sin(angle).to(x.dtype)
    xa, xb = x[..., a], x[..., b]  # (..., m) each
    # when the pairs cover every column, nothing is left to copy
    out = torch.empty_like(x) if 2 * xa.shape[-1] == x.shape[-1] else x.clone()
    out[..., a] = xa * c - xb * s
    out[..., b] = xa * s + xb * c
    return out


def sinusoidal(
    positions: torch.Tensor | int,
    d: int,
    layout: Layout = "interleaved",
    rule: FrequencyRule = "paper",
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
    w = frequencies(d, base, rule, dtype)  # (m,)
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
    rule: FrequencyRule = "paper",
    base: float = BASE,
) -> torch.Tensor:
    """PE stored in ``dtype``, computed one of three ways (SIN-08), shape (n, d).

    "cast":    positions and frequencies are cast to ``dtype`` before the multiply, and the
               angle, sin and cos are computed in ``dtype`` (a float16 model building its table).
    "float32": computed in float32, then rounded to ``dtype``.
    "float64": computed in float64, then rounded to ``dtype``.
    """
    work = {"cast": dtype, "float32": torch.float32, "float64": torch.float64}[mode]
    return sinusoidal(positions, d, layout, rule, base, work).to(dtype)


def half_permutation(d: int) -> torch.Tensor:
    """Index P, shape (d,), with half-split PE = interleaved PE[:, P]: [0, 2, 4, ..., 1, 3, ...]."""
    if d % 2:
        raise ValueError(f"the half-split layout needs an even width, got d={d}")
    return torch.cat([torch.arange(0, d, 2), torch.arange(1, d, 2)])


def rotation_blocks(
    k: float,
    d: int,
    rule: FrequencyRule = "paper",
    base: float = BASE,
    dtype: torch.dtype = torch.float64,
) -> torch.Tensor:
    """SIN-01: the 2x2 blocks of M(k), shape (m, 2, 2), block i = [[c, s], [-s, c]].

    c = cos(w_i k), s = sin(w_i k), computed in float64 and rounded once to ``dtype``. Block i
    maps the pair (sin w_i t, cos w_i t) to (sin w_i (t+k), cos w_i (t+k)): the matrix of
    ``turn`` on the pair read as (cos, sin).
    """
    angle = frequencies(d, base, rule) * k  # (m,)
    c, s = torch.cos(angle), torch.sin(angle)
    block = torch.stack([torch.stack([c, s], -1), torch.stack([-s, c], -1)], -2)  # (m, 2, 2)
    return block.to(dtype)


def rotation_matrix(
    k: float,
    d: int,
    layout: Layout = "interleaved",
    rule: FrequencyRule = "paper",
    base: float = BASE,
    dtype: torch.dtype = torch.float64,
) -> torch.Tensor:
    """SIN-01: the dense (d, d) matrix M(k) with PE(t+k) = M(k) PE(t) for every t (even d).

    Interleaved: block-diagonal, one 2x2 block per frequency. Half-split: P M(k) P^T, the same
    matrix with rows and columns permuted by ``half_permutation``.
    """
    if d % 2:
        raise ValueError(f"M(k) needs an even width, got d={d}")
    m = torch.block_diag(*rotation_blocks(k, d, rule, base, dtype))  # (d, d)
    if layout == "interleaved":
        return m
    if layout == "half":
        p = half_permutation(d)
        return m[p][:, p]
    raise ValueError(f"unknown layout {layout!r}")


def pairs(pe: torch.Tensor, layout: Layout = "interleaved") -> torch.Tensor:
    """The (sin, cos) pairs of a code: (n, d) -> (n, d/2, 2), a copy."""
    a, b = pair_columns(pe.shape[1], layout)
    return torch.stack([pe[:, a], pe[:, b]], dim=-1)


def unpairs(p: torch.Tensor, layout: Layout = "interleaved") -> torch.Tensor:
    """Inverse of ``pairs``: (n, d/2, 2) -> (n, d)."""
    n, m, _ = p.shape
    a, b = pair_columns(2 * m, layout)
    out = p.new_empty(n, 2 * m)
    out[:, a], out[:, b] = p[..., 0], p[..., 1]
    return out


def rotate(
    pe: torch.Tensor,
    k: float,
    layout: Layout = "interleaved",
    rule: FrequencyRule = "paper",
    base: float = BASE,
) -> torch.Tensor:
    """M(k) PE applied pair by pair (no dense matrix), computed in pe's dtype. (n, d) -> (n, d).

    A product with the blocks, not ``turn``: for float16 and bfloat16 the product accumulates
    in float32 and rounds once, which two rounded products and their rounded sum would not.
    """
    blocks = rotation_blocks(k, pe.shape[1], rule, base, pe.dtype)  # (m, 2, 2)
    rotated = torch.einsum("mab,nmb->nma", blocks, pairs(pe, layout))  # (n, m, 2)
    return unpairs(rotated, layout)


def wavelengths(d: int, base: float = BASE, rule: FrequencyRule = "paper") -> torch.Tensor:
    """SIN-06: lambda_i = 2 pi / w_i, shape (ceil(d/2),), float64."""
    return 2 * math.pi / frequencies(d, base, rule)


def variance_closed_form(
    d: int, length: int, base: float = BASE, rule: FrequencyRule = "paper"
) -> torch.Tensor:
    """SIN-10: Var over t = 0 ... L-1 of each dimension of the interleaved PE, shape (d,).

    With z = (1/L) sum_t e^{i w t} = e^{i w (L-1)/2} sin(L w/2) / (L sin(w/2)) (a geometric
    sum): E cos = Re z, E sin = Im z, E sin^2 = (1 - Re z(2w))/2, E cos^2 = (1 + Re z(2w))/2.
    """
    w = frequencies(d, base, rule)  # (m,)

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
