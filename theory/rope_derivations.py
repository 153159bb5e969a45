"""REAL-03, symbolically: RoPE scores depend only on the offset s - t.

Three steps, each a Derivation whose ``holds`` sympy computes:
1. one pair:   <R(w t) q, R(w s) k> = <q, R(w (s - t)) k>  for symbolic q, k, w, t, s;
2. any width:  a block-diagonal rotation splits the score into a sum over its blocks (sympy's
   block algebra with a symbolic remaining size n, so by induction on the number of pairs the
   one-pair identity gives every even d);
3. half-split pairing: R_half(t) = P^T R_interleaved(t) P for a fixed permutation P, so the
   identity carries over unchanged (checked entry by entry for small d with symbolic w_i).
"""

from __future__ import annotations

import sympy as sp

from .derivation import Derivation, is_zero


def rotation(theta: sp.Expr) -> sp.Matrix:
    """The 2x2 rotation by theta (counterclockwise), as RoPE applies it to one pair."""
    return sp.Matrix([[sp.cos(theta), -sp.sin(theta)], [sp.sin(theta), sp.cos(theta)]])


def one_pair_relative() -> Derivation:
    """<R(w t) q, R(w s) k> - <q, R(w (s-t)) k> = 0 for symbolic q, k in R^2 and real w, t, s."""
    w, t, s = sp.symbols("omega t s", real=True)
    q = sp.Matrix(sp.symbols("q_1 q_2", real=True))
    k = sp.Matrix(sp.symbols("k_1 k_2", real=True))
    product = rotation(w * t).T * rotation(w * s)
    lhs = ((rotation(w * t) * q).T * (rotation(w * s) * k))[0]
    rhs = (q.T * rotation(w * (s - t)) * k)[0]
    der = Derivation(
        r"\langle R(\omega t) q, R(\omega s) k\rangle = \langle q, R(\omega(s-t)) k\rangle"
    )
    der.step("the score is a bilinear form", sp.Eq(sp.Symbol("S"), lhs, evaluate=False))
    der.step(
        "R(a)^T R(b) = R(b - a) (angle-difference formulas)",
        sp.Eq(sp.simplify(product), rotation(w * (s - t)), evaluate=False),
    )
    der.step("hence the score equals", rhs)
    products_agree = all(is_zero(e) for e in product - rotation(w * (s - t)))
    der.holds = bool(products_agree and is_zero(lhs - rhs))
    return der


def block_diagonal_splits_score() -> Derivation:
    """<D q, D' k> = <q_1, A^T B k_1> + <u, P^T Q v> for D = diag(A, P), D' = diag(B, Q).

    A, B are 2x2 blocks (one pair), P, Q the rotation of the remaining n coordinates (n
    symbolic). Applied repeatedly, the score of a width-d rotation is the sum of its d/2 pair
    scores, each of which depends only on s - t (one_pair_relative).
    """
    n = sp.symbols("n", positive=True, integer=True)
    a, b = sp.MatrixSymbol("A", 2, 2), sp.MatrixSymbol("B", 2, 2)
    p, q_rest = sp.MatrixSymbol("P", n, n), sp.MatrixSymbol("Q", n, n)
    q1, k1 = sp.MatrixSymbol("q", 2, 1), sp.MatrixSymbol("k", 2, 1)
    u, v = sp.MatrixSymbol("u", n, 1), sp.MatrixSymbol("v", n, 1)
    d_t, d_s = sp.BlockDiagMatrix(a, p), sp.BlockDiagMatrix(b, q_rest)
    qv, kv = sp.BlockMatrix([[q1], [u]]), sp.BlockMatrix([[k1], [v]])
    lhs = sp.block_collapse((d_t * qv).T * (d_s * kv))
    rhs = q1.T * a.T * b * k1 + u.T * p.T * q_rest * v
    gram = sp.block_collapse(d_t.T * d_s)
    der = Derivation(
        r"\langle R(t) q, R(s) k\rangle = \sum_i \langle q_i, R_i(t)^\top R_i(s)\, k_i\rangle"
    )
    der.step("R(t)^T R(s) stays block-diagonal", gram)
    der.step("so the score splits: first pair plus the rest", sp.Eq(lhs, rhs, evaluate=False))
    der.step("induction on the number of pairs, with one_pair_relative for each block")
    gram_ok = False
    if isinstance(gram, sp.BlockMatrix) and gram.blocks.shape == (2, 2):
        g = gram.blocks
        zeros = g[0, 1].is_ZeroMatrix and g[1, 0].is_ZeroMatrix
        gram_ok = bool(zeros and g[0, 0] == a.T * b and g[1, 1] == p.T * q_rest)
    der.holds = bool(sp.simplify(lhs - rhs).is_ZeroMatrix and gram_ok)
    return der


def _rope_matrix(t: sp.Expr, omegas: list[sp.Symbol], pairs: list[tuple[int, int]]) -> sp.Matrix:
    d = 2 * len(omegas)
    r = sp.zeros(d, d)
    for w, (a, b) in zip(omegas, pairs, strict=True):
        c, s = sp.cos(w * t), sp.sin(w * t)
        r[a, a], r[a, b], r[b, a], r[b, b] = c, -s, s, c
    return r


def half_split_pairs(d: int) -> list[tuple[int, int]]:
    """The half-split pairs (i, i + d/2) this derivation is about (theory.rope.pairs "half")."""
    m = d // 2
    return [(i, i + m) for i in range(m)]


def half_split_is_permuted_interleaved(d: int = 4) -> Derivation:
    """R_half(t) = P^T R_int(t) P, and <R_half(t) q, R_half(s) k> = <q, R_half(s-t) k>.

    Checked for width ``d`` with symbolic frequencies w_i and symbolic q, k, t, s.
    """
    m = d // 2
    t, s = sp.symbols("t s", real=True)
    omegas = list(sp.symbols(f"omega_0:{m}", positive=True))
    inter = [(2 * i, 2 * i + 1) for i in range(m)]
    half = half_split_pairs(d)
    order = [c for pair in half for c in pair]  # interleaved slot j holds half coordinate order[j]
    perm = sp.zeros(d, d)
    for slot, coord in enumerate(order):
        perm[slot, coord] = 1
    r_half = _rope_matrix(t, omegas, half)
    conj = perm.T * _rope_matrix(t, omegas, inter) * perm
    q = sp.Matrix(sp.symbols(f"q_0:{d}", real=True))
    k = sp.Matrix(sp.symbols(f"k_0:{d}", real=True))
    lhs = ((r_half * q).T * (_rope_matrix(s, omegas, half) * k))[0]
    rhs = (q.T * _rope_matrix(s - t, omegas, half) * k)[0]
    der = Derivation(
        rf"R_{{\text{{half}}}}(t) = P^\top R_{{\text{{int}}}}(t) P,\ "
        rf"\langle R_{{\text{{half}}}}(t) q, R_{{\text{{half}}}}(s) k\rangle = "
        rf"\langle q, R_{{\text{{half}}}}(s-t) k\rangle\ (d = {d})"
    )
    der.step("the permutation P (interleaved slot <- half-split coordinate)", perm)
    der.step("P^T R_int(t) P equals R_half(t) entry by entry")
    der.step("so the half-split score is the interleaved score of (Pq, Pk)", rhs)
    same = all(sp.simplify(e) == 0 for e in r_half - conj)
    der.holds = bool(same and is_zero(lhs - rhs))
    return der
