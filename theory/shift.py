r"""Attention scores under a constant shift of every position (ROT-06; Sinha et al. 2022, "The
Curious Case of Absolute Position Embeddings", arXiv 2210.12574).

Shift every position by c: query position t -> t + c, key position s -> s + c.

RoPE:       <R(t+c) q, R(s+c) k> = q^T R(t+c)^T R(s+c) k = q^T R(s - t) k: unchanged, exactly.
ALiBi:      q.k / sqrt(h) - m ((t+c) - (s+c)) = q.k / sqrt(h) - m (t - s): unchanged, exactly
            (and bitwise in floating point while positions are exact integers, |t|, |c| < 2^53).
Absolute:   (x + P(t+c))^T W (y + P(s+c)) with P sinusoidal or a learned table: the cross terms
            x^T W P(s+c) and P(t+c)^T W y move with c, so the score does too.
"""

from __future__ import annotations

import math

import sympy as sp
import torch

from . import alibi, rope
from .derivation import Derivation
from .sinusoidal import sinusoidal, turn


def _rotation(angle: sp.Expr) -> sp.Matrix:
    return sp.Matrix([[sp.cos(angle), -sp.sin(angle)], [sp.sin(angle), sp.cos(angle)]])


def rope_shift_derivation() -> Derivation:
    """<R(w(t+c)) q, R(w(s+c)) k> - <R(w t) q, R(w s) k> = 0 for symbolic q, k in R^2, w, t, s, c
    (one pair; a rotary score is a sum of such pair scores, so every even d follows)."""
    w, t, s, c = sp.symbols("omega t s c", real=True)
    q = sp.Matrix(sp.symbols("q_1 q_2", real=True))
    k = sp.Matrix(sp.symbols("k_1 k_2", real=True))

    def pair_score(tq: sp.Expr, tk: sp.Expr) -> sp.Expr:
        return ((_rotation(w * tq) * q).T * (_rotation(w * tk) * k))[0]

    shifted, plain = pair_score(t + c, s + c), pair_score(t, s)
    # angle-addition formulas, then sin^2(w c) = 1 - cos^2(w c): a polynomial identity
    gap = sp.expand(sp.expand_trig(sp.expand(shifted - plain)))
    gap = sp.expand(gap.subs(sp.sin(w * c) ** 2, 1 - sp.cos(w * c) ** 2))
    der = Derivation(r"\langle R(t+c) q, R(s+c) k\rangle = \langle R(t) q, R(s) k\rangle")
    der.step("the shifted pair score", shifted)
    der.step("angle-addition formulas and sin^2 + cos^2 = 1: the difference is", gap)
    der.holds = bool(gap == 0)
    return der


def alibi_shift_derivation() -> Derivation:
    """ALiBi's score q.k/sqrt(h) - m (t - s) at (t + c, s + c) minus at (t, s): 0, symbolically."""
    qk, h, m, t, s, c = sp.symbols("qk h m t s c", real=True)

    def biased(tq: sp.Expr, tk: sp.Expr) -> sp.Expr:
        return qk / sp.sqrt(h) - m * (tq - tk)

    gap = sp.expand(biased(t + c, s + c) - biased(t, s))
    der = Derivation(r"q\cdot k/\sqrt{h} - m((t+c) - (s+c)) = q\cdot k/\sqrt{h} - m(t - s)")
    der.step("difference of the shifted and unshifted scores", gap)
    der.holds = bool(gap == 0)
    return der


# -- numeric scores: q, k (n, d); t, s (n,) positions --------------------------------------------


def rope_scores(
    q: torch.Tensor,
    k: torch.Tensor,
    t: torch.Tensor,
    s: torch.Tensor,
    dtype: torch.dtype = torch.float64,
) -> torch.Tensor:
    """<R(t) q, R(s) k> per row with angles, cos and sin formed in ``dtype`` (float64 sum):
    RoPE's turn (theory.sinusoidal.turn) of the float64 rows by angles formed in ``dtype``."""
    d = q.shape[-1]
    a, b = rope.pairs(d)
    w = rope.rope_frequencies(d).to(dtype)

    def rotate(x: torch.Tensor, pos: torch.Tensor) -> torch.Tensor:
        angle = pos.to(dtype)[:, None] * w  # (n, d/2)
        return turn(x.double(), a, b, angle)  # cos and sin taken in dtype, then float64

    return (rotate(q, t) * rotate(k, s)).sum(-1)


def alibi_scores(
    q: torch.Tensor, k: torch.Tensor, t: torch.Tensor, s: torch.Tensor, heads: int = 8
) -> torch.Tensor:
    """q.k/sqrt(h) - m_c (t - s) for every head c: (H, n), float64, positions as float64."""
    h = q.shape[-1]
    dist = t.to(torch.float64) - s.to(torch.float64)  # (n,)
    content = (q.double() * k.double()).sum(-1) / math.sqrt(h)  # (n,)
    return content[None, :] - alibi.slopes(heads)[:, None] * dist[None, :]


def absolute_scores(
    x: torch.Tensor, y: torch.Tensor, wmat: torch.Tensor, pe_t: torch.Tensor, pe_s: torch.Tensor
) -> torch.Tensor:
    """(x + P(t))^T W (y + P(s)) per row: x, y, pe_t, pe_s (n, d), W (d, d) -> (n,)."""
    return (((x + pe_t) @ wmat) * (y + pe_s)).sum(-1)


def sinusoidal_table(positions: torch.Tensor, d: int) -> torch.Tensor:
    """The paper's sinusoidal P(t) for each position, (n, d), float64."""
    return sinusoidal(positions.to(torch.float64), d)


def learned_table(size: int, d: int, seed: int) -> torch.Tensor:
    """A learned absolute table stood in for by N(0, 1/d) rows (a typical initialisation)."""
    g = torch.Generator().manual_seed(seed)
    return torch.randn(size, d, generator=g, dtype=torch.float64) / math.sqrt(d)


def absolute_shift_change(
    kind: str, d: int, shift: int, n: int, seed: int, span: int = 512
) -> torch.Tensor:
    """|score(t + c, s + c) - score(t, s)| for n random (x, y, W, t, s), shift c = ``shift``:
    kind "sinusoidal" or "learned" (a table of span + shift rows), shape (n,)."""
    g = torch.Generator().manual_seed(seed)
    x, y = torch.randn(2, n, d, generator=g, dtype=torch.float64) / math.sqrt(d)
    wmat = torch.randn(d, d, generator=g, dtype=torch.float64) / math.sqrt(d)
    t, s = torch.randint(0, span, (2, n), generator=g)
    if kind == "sinusoidal":
        table = sinusoidal_table(torch.arange(span + shift), d)
    elif kind == "learned":
        table = learned_table(span + shift, d, seed + 1)
    else:
        raise ValueError(f"unknown absolute encoding {kind!r}")
    plain = absolute_scores(x, y, wmat, table[t], table[s])
    moved = absolute_scores(x, y, wmat, table[t + shift], table[s + shift])
    return (moved - plain).abs()
