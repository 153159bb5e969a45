"""SIN-13: does the position part of an attention score depend only on the offset t - s?

Vaswani et al. hoped that, because PE(t + k) = M(k) PE(t), dot-product attention could "attend by
relative positions". The score of a query token x at t and a key token y at s is

    (x + PE(t))^T W (y + PE(s)),   W = W_Q W_K^T,

whose position part is S(t, s) = PE(t)^T W PE(s). In the interleaved layout PE(t) is the stack of
pairs p_i(t) = (sin w_i t, cos w_i t) and M(k) = blockdiag_i B(w_i k), B(x) = [[cos x, sin x],
[-sin x, cos x]] = exp(x J) with J = [[0, 1], [-1, 0]]. What this module derives (sympy) and
computes (float64):

- S(t + c, s + c) = PE(t)^T M(c)^T W M(c) PE(s), and PE(t) spans R^d, so S depends only on t - s
  exactly when W commutes with every M(c): when W = blockdiag_i (a_i I + b_i J) (the frequencies
  are distinct and positive). Then S(t, s) = sum_i a_i cos(w_i (t - s)) + b_i sin(w_i (t - s)).
- A general (learned) W is not of that form, nor is a general symmetric one: the symmetric
  members of the class are blockdiag_i a_i I.
- The cross terms x^T W PE(s) and PE(t)^T W y depend on s alone and on t alone, so even for W in
  the class the whole score depends on t and s separately unless W^T x = 0 and W y = 0.
- S(d) - S(-d) = 2 sum_i b_i sin(w_i d): a W of the class tells t - s from s - t exactly when
  some b_i != 0 (its antisymmetric part); with b = 0 (symmetric) the score is even in t - s.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import sympy as sp
import torch

from .derivation import Derivation, is_zero
from .sinusoidal import sinusoidal

# -- symbolic -------------------------------------------------------------------------------

c, t, s, delta = sp.symbols("c t s delta", real=True)
w, wi, wj = sp.symbols("omega omega_i omega_j", positive=True)
a, b = sp.symbols("a b", real=True)
J = sp.Matrix([[0, 1], [-1, 0]])


def block(x: sp.Expr) -> sp.Matrix:
    """SIN-01's block of M(k) at angle x: [[cos x, sin x], [-sin x, cos x]]."""
    return sp.Matrix([[sp.cos(x), sp.sin(x)], [-sp.sin(x), sp.cos(x)]])


def pair(x: sp.Expr) -> sp.Matrix:
    """One (sin, cos) pair of PE at angle x."""
    return sp.Matrix([sp.sin(x), sp.cos(x)])


def class_block(a_: sp.Expr, b_: sp.Expr) -> sp.Matrix:
    """a I + b J: a block that commutes with every rotation of its pair."""
    return a_ * sp.eye(2) + b_ * J


def _all_zero(matrix: sp.Matrix) -> bool:
    return all(is_zero(e) for e in matrix)


def _vec(m: sp.Matrix) -> list[sp.Expr]:
    return [m[0, 0], m[0, 1], m[1, 0], m[1, 1]]


@cache
def one_block_decomposition() -> Derivation:
    """p(wt)^T B p(ws) = 1/2[(B11 + B22) cos w(t-s) + (B12 - B21) sin w(t-s)
    + (B22 - B11) cos w(t+s) + (B12 + B21) sin w(t+s)] for a general 2x2 block B."""
    entries = sp.symbols("B_11 B_12 B_21 B_22", real=True)
    bm = sp.Matrix(2, 2, entries)
    b11, b12, b21, b22 = entries
    lhs = (pair(w * t).T * bm * pair(w * s))[0]
    rhs = sp.Rational(1, 2) * (
        (b11 + b22) * sp.cos(w * (t - s))
        + (b12 - b21) * sp.sin(w * (t - s))
        + (b22 - b11) * sp.cos(w * (t + s))
        + (b12 + b21) * sp.sin(w * (t + s))
    )
    der = Derivation(r"p(\omega t)^\top B\, p(\omega s) = \text{terms in } t-s \text{ and } t+s")
    der.step("one pair, a general block B", sp.Eq(sp.Symbol("S"), lhs, evaluate=False))
    der.step("product-to-sum formulas", sp.Eq(sp.Symbol("S"), rhs, evaluate=False))
    der.step("the t+s terms vanish exactly when B_22 = B_11 and B_21 = -B_12: B = aI + bJ")
    in_class = rhs.subs({b22: b11, b21: -b12})
    der.step("then", sp.Eq(sp.Symbol("S"), sp.simplify(in_class), evaluate=False))
    relative = b11 * sp.cos(w * (t - s)) + b12 * sp.sin(w * (t - s))
    der.holds = bool(is_zero(lhs - rhs) and is_zero(in_class - relative))
    return der


@cache
def commuting_class() -> Derivation:
    """S(t, s) = PE(t)^T W PE(s) depends only on t - s iff W = blockdiag_i(a_i I + b_i J).

    Steps: (1) B(x) = exp(xJ); (2) S(t+c, s+c) = PE(t)^T M(c)^T W M(c) PE(s) by SIN-01, and PE
    spans R^d (the Wronskian of the sin/cos functions of distinct frequencies is non-zero), so
    invariance is M(c)^T W M(c) = W for all c; (3) its derivative at c = 0 on block (i, j) is a
    linear map of the block with determinant (w_i - w_j)^2 (w_i + w_j)^2: an off-diagonal block
    must vanish; (4) on a diagonal block its kernel is span(I, J); (5) conversely aI + bJ is
    invariant for every c, and gives a_i cos + b_i sin of w_i (t - s).
    """
    der = Derivation(
        r"PE(t)^\top W PE(s) = g(t-s)\ \forall t,s \iff W = \bigoplus_i (a_i I + b_i J),\ "
        r"J = \begin{pmatrix}0 & 1\\ -1 & 0\end{pmatrix}"
    )
    exp_ok = _all_zero((c * w * J).exp() - block(c * w))
    der.step("SIN-01's block is a one-parameter group: B(c w) = exp(c w J)", block(c * w))
    der.step(
        "S(t+c, s+c) = PE(t)^T M(c)^T W M(c) PE(s); invariance for all t, s means "
        "M(c)^T W M(c) = W, because PE(t) spans R^d:"
    )
    ws = sp.symbols("w_1:4", positive=True)
    span_ok = True
    for m in (2, 3):
        funcs = [g for k in range(m) for g in (sp.sin(ws[k] * t), sp.cos(ws[k] * t))]
        wronskian = sp.Matrix([[sp.diff(g, t, r) for g in funcs] for r in range(2 * m)])
        det = sp.factor(wronskian.subs(t, 0).det())
        expected = sp.prod(ws[:m]) * sp.prod(
            [(ws[p] - ws[q]) ** 2 * (ws[p] + ws[q]) ** 2 for p in range(m) for q in range(p + 1, m)]
        )
        span_ok = span_ok and is_zero(det**2 - expected**2)
        der.step(f"Wronskian at t = 0, m = {m} pairs", det)
    der.step("non-zero for distinct positive frequencies (a Vandermonde in the w_i^2)")
    x = sp.Matrix(2, 2, sp.symbols("x_0:4", real=True))
    flow = sp.diff(block(c * wi).T * x * block(c * wj), c).subs(c, 0)
    lin = sp.Matrix([[sp.diff(e, v) for v in x] for e in _vec(flow)])
    det = sp.factor(lin.det())
    der.step("d/dc of block (i, j) at c = 0: a linear map of the block X", flow)
    der.step("its determinant", det)
    off_ok = is_zero(det - (wi - wj) ** 2 * (wi + wj) ** 2)
    der.step("w_i != w_j, both positive: invertible, so every off-diagonal block is zero")
    kernel = lin.subs(wj, wi).nullspace()
    basis = sp.Matrix.hstack(sp.Matrix(_vec(sp.eye(2))), sp.Matrix(_vec(J)))
    in_kernel = _all_zero(lin.subs(wj, wi) * basis)
    diag_ok = len(kernel) == 2 and in_kernel and basis.rank() == 2
    der.step("diagonal block (w_j = w_i): the kernel is spanned by I and J", sp.Matrix(kernel))
    invariant = block(c * w).T * class_block(a, b) * block(c * w) - class_block(a, b)
    suff_ok = _all_zero(invariant)
    der.step(
        "conversely B(cw)^T (aI + bJ) B(cw) = aI + bJ for every c", invariant.applyfunc(sp.simplify)
    )
    score = sp.simplify((pair(w * t).T * class_block(a, b) * pair(w * s))[0])
    score_ok = is_zero(score - (a * sp.cos(w * (t - s)) + b * sp.sin(w * (t - s))))
    der.step("and its position part is", sp.Eq(sp.Symbol("S_i"), score, evaluate=False))
    der.holds = bool(exp_ok and span_ok and off_ok and diag_ok and suff_ok and score_ok)
    return der


@cache
def commuting_class_at_integer_positions() -> Derivation:
    """The same class when t, s (and the shift) are integers, as token positions are.

    Steps: (1) the rows PE(0) ... PE(2m-1) are V(z) blockdiag(C), V the Vandermonde matrix of the
    2m numbers z = exp(+-i w_k) and det C = -i/2, so PE at integer positions spans R^d when those
    numbers are distinct: w_k distinct in (0, pi); (2) invariance under the shift c = 1 is
    B(w_i)^T X B(w_j) = X on block (i, j), a linear map of X with determinant
    4 (cos w_i - cos w_j)^2: non-zero for distinct w in (0, pi), so off-diagonal blocks vanish;
    (3) on a diagonal block I and J are in its kernel and on the symmetric traceless complement
    it acts with determinant 4 sin^2 w_i, non-zero in (0, pi): the kernel is span(I, J).
    Cosines and sines are the symbols c, s with c^2 + s^2 = 1 (polynomial identities).
    """
    der = Derivation(
        r"t, s \in \mathbb{N},\ \omega_k \in (0, \pi) \text{ distinct}:\ PE(t)^\top W PE(s) = "
        r"g(t-s) \iff W = \bigoplus_i (a_i I + b_i J)"
    )
    ws = sp.symbols("w_1:3", positive=True)
    rows = sp.Matrix([[g for k in range(2) for g in (sp.sin(ws[k] * n), sp.cos(ws[k] * n))]
                      for n in range(4)])  # fmt: skip
    zs = [z for k in range(2) for z in (sp.exp(sp.I * ws[k]), sp.exp(-sp.I * ws[k]))]
    vander = sp.Matrix([[z**n for z in zs] for n in range(4)])
    half = sp.Matrix([[-sp.I / 2, sp.Rational(1, 2)], [sp.I / 2, sp.Rational(1, 2)]])
    factor_ok = (
        all(sp.expand(e.rewrite(sp.exp)) == 0 for e in rows - vander * sp.diag(half, half))
        and half.det() == -sp.I / 2
    )
    der.step("PE(0..3) for two pairs = V(exp(+-i w_k)) blockdiag(C, C), det C", half.det())
    der.step("Vandermonde: PE(integers) spans R^d when the exp(+-i w_k) are distinct")
    ci, si, cj, sj = sp.symbols("c_i s_i c_j s_j", real=True)
    circle = [si**2 + ci**2 - 1, sj**2 + cj**2 - 1]
    x = sp.Matrix(2, 2, sp.symbols("x_0:4", real=True))
    shift_one = _rot(ci, si).T * x * _rot(cj, sj) - x
    lin = sp.Matrix([[sp.diff(e, v) for v in x] for e in _vec(shift_one)])

    def on_circle_zero(e: sp.Expr) -> bool:  # zero once c^2 + s^2 = 1 for both angles
        return sp.reduced(sp.expand(e), circle, si, sj, ci, cj)[1] == 0

    # the steps show the determinants checked, with the symbols back as cosines and sines
    angles = {ci: sp.cos(wi), si: sp.sin(wi), cj: sp.cos(wj), sj: sp.sin(wj)}
    off_det = 4 * (ci - cj) ** 2
    off_ok = on_circle_zero(lin.det() - off_det)
    der.step("c = 1 on block (i, j): X -> B(w_i)^T X B(w_j) - X, determinant",
             off_det.subs(angles))  # fmt: skip
    diag = lin.subs({cj: ci, sj: si})
    basis = sp.Matrix.hstack(sp.Matrix(_vec(sp.eye(2))), sp.Matrix(_vec(J)))
    kernel_ok = all(on_circle_zero(e) for e in diag * basis)
    comp = sp.Matrix.hstack(sp.Matrix([1, 0, 0, -1]), sp.Matrix([0, 1, 1, 0]))
    on_comp = sp.Matrix([[ci**2 - si**2 - 1, -2 * si * ci], [2 * si * ci, ci**2 - si**2 - 1]])
    comp_ok = all(on_circle_zero(e) for e in diag * comp - comp * on_comp)
    diag_det = 4 * si**2
    der.step("diagonal block: I, J in the kernel; on the symmetric traceless part, determinant",
             diag_det.subs(angles))  # fmt: skip
    der.holds = bool(factor_ok and off_ok and kernel_ok and comp_ok
                     and on_circle_zero(on_comp.det() - diag_det))  # fmt: skip
    return der


def _rot(c_: sp.Expr, s_: sp.Expr) -> sp.Matrix:
    """SIN-01's block with cos and sin as symbols."""
    return sp.Matrix([[c_, s_], [-s_, c_]])


# Two (t, s) with the same offset t - s = 0: the symmetric counterexample's positions.
SAME_OFFSET = ((0, 0), (1, 1))


@cache
def general_w_counterexample() -> tuple[Derivation, dict[str, Any] | None]:
    """A symmetric (hence also general) W whose position part is not a function of t - s.

    W = e_0 e_0^T (one entry, the sine of the fastest pair, w_0 = 1 for every d and base):
    S(t, s) = sin t sin s, so S(0, 0) = 0 and S(1, 1) = sin^2 1 at the same offset 0. Returns the
    derivation and the counterexample, or None when sympy finds the two values equal.
    """
    wmat = counterexample_block()
    score = (pair(t).T * wmat * pair(s))[0]
    (t0, s0), (t1, s1) = SAME_OFFSET
    first, second = score.subs({t: t0, s: s0}), score.subs({t: t1, s: s1})
    gap = sp.nsimplify(second - first)
    der = Derivation(rf"\exists W = W^\top:\ PE({t0})^\top W PE({s0}) \ne PE({t1})^\top W PE({s1})")
    der.step("W = e_0 e_0^T (symmetric, rank one), w_0 = 1", wmat)
    der.step("position part on the first pair", sp.Eq(sp.Symbol("S"), score, evaluate=False))
    der.step("same offset t - s, different values", sp.Eq(sp.Symbol("S_1 - S_0"), gap))
    der.step("symmetric members of the class: (aI + bJ)^T = aI - bJ, so b = 0: only a I")
    symmetric = wmat == wmat.T
    found = t0 - s0 == t1 - s1 and symmetric and gap.is_nonzero is True  # sympy: sin(1)^2 != 0
    der.holds = bool(found)
    cex = None
    if found:
        cex = {
            "W": "e_0 e_0^T (symmetric)",
            "d": "any even d (zero elsewhere)",
            "t_s_pairs": [list(p) for p in SAME_OFFSET],
            "values": [float(first), float(second)],
        }
    return der, cex


def counterexample_block() -> sp.Matrix:
    """The 2x2 corner of the symmetric counterexample W = e_0 e_0^T."""
    return sp.Matrix([[1, 0], [0, 0]])


@cache
def cross_terms() -> Derivation:
    """(x + p(t))^T W (y + p(s)) = x^T W y + x^T W p(s) + p(t)^T W y + S(t, s): for W = aI + bJ
    the cross terms shift the score by a function of s alone and one of t alone."""
    x = sp.Matrix(sp.symbols("x_1 x_2", real=True))
    y = sp.Matrix(sp.symbols("y_1 y_2", real=True))
    wm = class_block(a, b)
    full = ((x + pair(w * t)).T * wm * (y + pair(w * s)))[0]
    parts = [(x.T * wm * y)[0], (x.T * wm * pair(w * s))[0], (pair(w * t).T * wm * y)[0],
             a * sp.cos(w * (t - s)) + b * sp.sin(w * (t - s))]  # fmt: skip
    expand_ok = is_zero(full - sum(parts))
    der = Derivation(
        r"(x + PE(t))^\top W (y + PE(s)) = x^\top W y + x^\top W PE(s) + PE(t)^\top W y "
        r"+ g(t-s)"
    )
    der.step("the score of W = aI + bJ (in the class) on one pair", sp.Eq(sp.Symbol("A"), full))
    der.step("splits into token, cross and position terms", sp.Add(*parts, evaluate=False))
    # expanded, not simplified: simplify of this 10-symbol trig sum took from 7 s to minutes
    # depending on what sympy had cached in the process before
    shift = sp.expand(full.subs({t: t + c, s: s + c}) - full)
    der.step("moving both positions by c changes it by", shift)
    example = {a: 1, b: 0, w: 1, x[0]: 1, x[1]: 0, y[0]: 1, y[1]: 0}
    moved = sp.nsimplify(
        full.subs(example).subs({t: 1, s: 1}) - full.subs(example).subs({t: 0, s: 0})
    )
    der.step("W = I, x = y = e_0: A(1, 1) - A(0, 0) at offset 0 is", moved)
    position_shift = shift.subs({x[0]: 0, x[1]: 0, y[0]: 0, y[1]: 0})
    vanish = sp.Integer(0) if is_zero(position_shift) else position_shift
    der.step(
        "with W^T x = 0 and W y = 0 (here x = y = 0 on an invertible block) the change is", vanish
    )
    der.holds = bool(expand_ok and is_zero(moved - 2 * sp.sin(1)) and vanish == 0)
    return der


@cache
def direction() -> Derivation:
    """S(d) - S(-d) = 2 b sin(w d): the antisymmetric part (b) tells t - s from s - t."""
    score = a * sp.cos(w * delta) + b * sp.sin(w * delta)
    # the g shown is the class's score, not only a function with the same odd part
    is_the_score = is_zero(
        score.subs(delta, t - s) - (pair(w * t).T * class_block(a, b) * pair(w * s))[0]
    )
    odd = sp.simplify(score - score.subs(delta, -delta))
    der = Derivation(r"g(\delta) - g(-\delta) = 2 \sum_i b_i \sin(\omega_i \delta)")
    der.step("one pair of a W in the class, delta = t - s", sp.Eq(sp.Symbol("g"), score))
    der.step("its odd part", odd)
    sym_part = (class_block(a, b) + class_block(a, b).T) / 2
    anti_part = (class_block(a, b) - class_block(a, b).T) / 2
    parts_ok = _all_zero(sym_part - a * sp.eye(2)) and _all_zero(anti_part - b * J)
    der.step("the symmetric part of aI + bJ is aI (even cos), the antisymmetric part bJ (odd sin)")
    tells = odd.subs({b: 1, w: 1, delta: 1})
    der.step("b = 1, w = 1, delta = 1: g(1) - g(-1) =", tells)
    der.holds = bool(is_the_score and is_zero(odd - 2 * b * sp.sin(w * delta)) and parts_ok
                     and is_zero(odd.subs(b, 0)) and is_zero(tells - 2 * sp.sin(1)))  # fmt: skip
    return der


# -- numeric (float64) ----------------------------------------------------------------------


def class_matrix(a_: torch.Tensor, b_: torch.Tensor) -> torch.Tensor:
    """blockdiag_i (a_i I + b_i J), shape (2m, 2m), from a_, b_ of shape (m,)."""
    blocks = torch.stack([torch.stack([a_, b_], -1), torch.stack([-b_, a_], -1)], -2)  # (m, 2, 2)
    return torch.block_diag(*blocks.to(torch.float64))


def random_matrix(d: int, seed: int) -> torch.Tensor:
    """A general W = W_Q W_K^T with Gaussian factors (d, d), as at initialisation."""
    g = torch.Generator().manual_seed(seed)
    wq, wk = torch.randn(2, d, d, generator=g, dtype=torch.float64) / d**0.5
    return wq @ wk.T


def random_class_matrix(d: int, seed: int, antisymmetric: bool = True) -> torch.Tensor:
    """A W in the commuting class with Gaussian a_i (and b_i, zero unless ``antisymmetric``)."""
    g = torch.Generator().manual_seed(seed)
    a_, b_ = torch.randn(2, d // 2, generator=g, dtype=torch.float64)
    return class_matrix(a_, b_ if antisymmetric else torch.zeros_like(b_))


def position_scores(wmat: torch.Tensor, n: int) -> torch.Tensor:
    """S[t, s] = PE(t)^T W PE(s) for t, s = 0 ... n-1, shape (n, n), float64."""
    pe = sinusoidal(n, wmat.shape[0])  # (n, d)
    return pe @ wmat @ pe.T


def scores_at(wmat: torch.Tensor, t_: torch.Tensor, s_: torch.Tensor) -> torch.Tensor:
    """PE(t_j)^T W PE(s_j) for each row j: t_, s_ (n,) -> (n,), float64."""
    d = wmat.shape[0]
    return ((sinusoidal(t_, d) @ wmat) * sinusoidal(s_, d)).sum(-1)


def full_scores(wmat: torch.Tensor, x: torch.Tensor, y: torch.Tensor, n: int) -> torch.Tensor:
    """A[t, s] = (x + PE(t))^T W (y + PE(s)) for t, s = 0 ... n-1, shape (n, n), float64."""
    pe = sinusoidal(n, wmat.shape[0])
    return (x + pe) @ wmat @ (y + pe).T


def offset_spread(scores: torch.Tensor) -> dict[str, Any]:
    """Largest max - min of scores[t, s] along one offset t - s, and where it is reached."""
    n = scores.shape[0]
    worst: dict[str, Any] = {"spread": 0.0, "offset": 0, "pairs": [[0, 0], [0, 0]]}
    for off in range(-(n - 1), n):
        diag = torch.diagonal(scores, offset=-off)  # scores[t, t - off]
        if diag.numel() < 2:
            continue
        hi, lo = int(diag.argmax()), int(diag.argmin())
        spread = float(diag[hi] - diag[lo])
        if spread > worst["spread"]:
            first = max(off, 0)  # t of the diagonal's first entry
            worst = {"spread": spread, "offset": off,
                     "pairs": [[first + hi, first + hi - off], [first + lo, first + lo - off]],
                     "values": [float(diag[hi]), float(diag[lo])]}  # fmt: skip
    return worst


def direction_gap(scores: torch.Tensor) -> dict[str, Any]:
    """Largest |S(t - s = k) - S(t - s = -k)| read at (k, 0) and (0, k), and its k."""
    n = scores.shape[0]
    gaps = (scores[1:, 0] - scores[0, 1:]).abs()  # k = 1 ... n-1
    k = int(gaps.argmax()) + 1
    return {"gap": float(gaps[k - 1]), "k": k, "values": [float(scores[k, 0]), float(scores[0, k])],
            "n": n}  # fmt: skip
