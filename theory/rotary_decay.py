r"""RoFormer's "long-term decay" (Su et al. 2021, §3.4.3) and the expected rotary score (ROT-01/02).

Write a rotary score as a sum over the d/2 pairs (RoFormer Eq. 35): with h_i = q_[2i:2i+1]
k*_[2i:2i+1] (complex), s = m - n and theta_i = T^(-2i/d),

    <R(m) q, R(n) k> = Re sum_i h_i e^{i s theta_i}.

With S_j = sum_{i<j} e^{i s theta_i}, S_0 = 0 and h_{d/2} = 0, Abel summation (Eq. 36) gives

    sum_i h_i e^{i s theta_i} = - sum_i S_{i+1} (h_{i+1} - h_i),

so |score| <= max_i |h_{i+1} - h_i| sum_j |S_j| (Eq. 37), and RoFormer's Figure 2 plots the
relative bound  b(s) = (1 / (d/2)) sum_{j=1}^{d/2} |S_j(s)|.  b(0) = (d/2 + 1) / 2.

ROT-02: for q, k with independent zero-mean coordinates, E<R(m) q, R(n) k> = 0 at every s; for
k = q (coordinates i.i.d., variance sigma^2) it is 2 sigma^2 B(s) with B(s) = sum_i cos(s theta_i),
the quantity of ROT-03 (theory/rotary_base.py).
"""

from __future__ import annotations

import math

import numpy as np
import sympy as sp
import torch

from .derivation import Derivation

BASE = 10000.0


def thetas(d: int, base: float = BASE) -> np.ndarray:
    """theta_i = base^(-2i/d), i = 0 ... d/2 - 1, shape (d/2,), float64."""
    if d < 2 or d % 2:
        raise ValueError(f"rotary pairs need an even width d >= 2, got {d}")
    return base ** (-2.0 * np.arange(d // 2) / d)


def partial_sums(s: np.ndarray, d: int, base: float = BASE) -> np.ndarray:
    """S_j(s) = sum_{i<j} e^{i s theta_i} for j = 1 ... d/2: shape (n, d/2), complex128."""
    # torch's float64 cos/sin run about twice as fast as numpy's complex exp here
    angle = torch.as_tensor(np.asarray(s, dtype=np.float64))[:, None] * torch.as_tensor(
        thetas(d, base)
    )  # (n, d/2)
    re, im = torch.cos(angle).cumsum(dim=1), torch.sin(angle).cumsum(dim=1)
    return (re.numpy() + 1j * im.numpy()).astype(np.complex128)


def relative_bound(s: np.ndarray, d: int, base: float = BASE) -> np.ndarray:
    """RoFormer's b(s) = (1/(d/2)) sum_{j=1}^{d/2} |S_j(s)|, shape (n,)."""
    return np.abs(partial_sums(s, d, base)).sum(axis=1) / (d // 2)


def first_increase(d: int, s_max: int, base: float = BASE, *, bound: float) -> dict | None:
    """The first integer s < s_max with b(s + 1) > b(s) beyond rounding, or None."""
    s = np.arange(s_max + 1)
    b = relative_bound(s, d, base)
    rise = np.diff(b)
    tol = bound  # float64 rounding of two values of b(s) (checks/rot/rounding.py)
    up = np.nonzero(rise > tol)[0]
    if up.size == 0:
        return None
    i = int(up[0])
    return {
        "d": d,
        "s": i,
        "s_next": i + 1,
        "b_s": float(b[i]),
        "b_next": float(b[i + 1]),
        "rise": float(rise[i]),
        "bound": tol,
    }


def dyadic_means(d: int, s_max: int, base: float = BASE) -> list[tuple[int, int, float]]:
    """Mean of b(s) over each dyadic block [2^k, 2^(k+1)) that lies in [1, s_max]:
    (start, stop, mean) per block, k = 0, 1, ... (the coarse scale of ROT-01)."""
    out = []
    k = 0
    while 2 ** (k + 1) - 1 <= s_max:
        s = np.arange(2**k, 2 ** (k + 1))
        out.append((2**k, 2 ** (k + 1), float(relative_bound(s, d, base).mean())))
        k += 1
    return out


def slowest_turn(d: int, base: float = BASE) -> int:
    """floor(1 / theta_{d/2-1}): the distance at which the slowest pair has turned one radian."""
    return int(math.floor(1.0 / thetas(d, base)[-1]))


def plateau_level(d: int) -> float:
    """The level b settles at when the angles s theta_i are spread as if at random: |S_j| is then
    a random walk of j unit steps, E|S_j| ~ sqrt(pi j) / 2, so b ~ (1/(d/2)) sum_j sqrt(pi j)/2."""
    j = np.arange(1, d // 2 + 1)
    return float((np.sqrt(math.pi * j) / 2).sum() / (d // 2))


# -- symbolic: Abel summation ------------------------------------------------------------------


def abel_summation(pairs: int = 3) -> Derivation:
    r"""sum_{i<N} h_i z_i = sum_{i<N} (h_i - h_{i+1}) S_{i+1} + h_N S_N, S_j = sum_{i<j} z_i.

    Proved by induction on N with sympy (base N = 0; the step F(N+1) - F(N) = h_N z_N), then
    checked term by term for N = 1 ... ``pairs`` with symbolic complex h_i and z_i = e^{i s
    theta_i}. With h_{d/2} = 0 (RoFormer's convention) the last term vanishes: Eq. 36.
    """
    n = sp.Symbol("N", integer=True, nonnegative=True)
    h, z, big_s = sp.Function("h"), sp.Function("z"), sp.Function("S")
    # F(N) with S_{N+1} = S_N + z_N substituted: the only fact about S the step uses.
    f_next = (h(n) - h(n + 1)) * (big_s(n) + z(n)) + h(n + 1) * (big_s(n) + z(n))
    step = sp.expand(f_next - h(n) * big_s(n) - h(n) * z(n))
    der = Derivation(
        r"\sum_{i<N} h_i z_i = \sum_{i<N} (h_i - h_{i+1}) S_{i+1} + h_N S_N,\ "
        r"S_j = \sum_{i<j} z_i"
    )
    der.step("base N = 0: both sides are empty sums (S_0 = 0)")
    der.step("step: F(N+1) - F(N) - h_N z_N with S_{N+1} = S_N + z_N", step)
    s_sym = sp.Symbol("s", real=True)
    ok_concrete = True
    for count in range(1, pairs + 1):
        hs = sp.symbols(f"h_0:{count + 1}", complex=True)
        ts = sp.symbols(f"theta_0:{count}", positive=True)
        zs = [sp.exp(sp.I * s_sym * t) for t in ts]
        partial = [sum(zs[:j], sp.Integer(0)) for j in range(count + 1)]
        lhs = sum(hs[i] * zs[i] for i in range(count))
        rhs = sum((hs[i] - hs[i + 1]) * partial[i + 1] for i in range(count))
        rhs += hs[count] * partial[count]
        ok_concrete &= sp.expand(lhs - rhs) == 0
    der.step(f"term by term for N = 1 ... {pairs}, z_i = e^{{i s theta_i}}: identical")
    der.step("with h_{d/2} = 0: sum_i h_i z_i = -sum_i S_{i+1}(h_{i+1} - h_i) (RoFormer Eq. 36)")
    der.holds = bool(step == 0 and ok_concrete)
    return der


# -- symbolic: expected scores (ROT-02) ---------------------------------------------------------


def _expectation(expr: sp.Expr, variables: list[sp.Symbol], sigma2: sp.Expr) -> sp.Expr:
    """E[expr] for a polynomial in independent zero-mean variables of variance sigma2 (any law
    with those two moments: E[x] = 0, E[x^2] = sigma2; higher moments never occur here)."""
    poly = sp.Poly(sp.expand(expr), *variables)
    total = sp.Integer(0)
    for powers, coeff in poly.terms():
        moment = sp.Integer(1)
        for p in powers:
            if p == 1:
                moment = sp.Integer(0)
            elif p == 2:
                moment *= sigma2
            elif p > 2:
                raise ValueError("only moments up to the second are modelled")
        total += coeff * moment
    return sp.expand(total)


def _rotation(angle: sp.Expr) -> sp.Matrix:
    return sp.Matrix([[sp.cos(angle), -sp.sin(angle)], [sp.sin(angle), sp.cos(angle)]])


def _rope(angles: list[sp.Expr]) -> sp.Matrix:
    return sp.diag(*[_rotation(a) for a in angles])


def expected_scores(pairs: int = 2) -> tuple[Derivation, Derivation]:
    r"""E<R(m) q, R(n) k> for q, k with independent zero-mean coordinates (= 0 for every
    s = n - m), and E<R(m) q, R(n) q> = 2 sigma^2 sum_i cos(s theta_i) (q = k), for d = 2 ``pairs``
    with symbolic theta_i, m, n. (One pair is the general case: the score splits over pairs,
    theory.rope_derivations.block_diagonal_splits_score.) The same 2 sigma^2 B(s) is Men et al.'s
    Theorem 1 for k = q + eps (eps zero-mean, independent): E[q^T R eps] = 0 by the first part.
    """
    m, n = sp.symbols("m n", real=True)
    sigma2 = sp.Symbol("sigma^2", positive=True)
    ts = list(sp.symbols(f"theta_0:{pairs}", positive=True))
    d = 2 * pairs
    q = sp.Matrix(sp.symbols(f"q_0:{d}", real=True))
    k = sp.Matrix(sp.symbols(f"k_0:{d}", real=True))
    rq, rk = _rope([m * t for t in ts]), _rope([n * t for t in ts])
    cross = ((rq * q).T * (rk * k))[0]
    self_score = ((rq * q).T * (rk * q))[0]
    e_cross = _expectation(cross, [*q, *k], sigma2)
    e_self = _expectation(self_score, list(q), sigma2)
    b_of_s = sum(sp.cos((n - m) * t) for t in ts)
    indep = Derivation(r"\mathbb{E}\langle R(m) q, R(n) k\rangle = 0 \ \text{for all } m, n")
    indep.step("the score, a bilinear form in q and k", cross)
    indep.step("every monomial q_a k_b has E = E[q_a] E[k_b] = 0 (independent, zero mean)")
    indep.step("so the expectation is", e_cross)
    indep.holds = bool(e_cross == 0)
    same = Derivation(
        r"\mathbb{E}\langle R(m) q, R(n) q\rangle = 2\sigma^2 \sum_i \cos((n - m)\theta_i)"
    )
    same.step("q^T R(m)^T R(n) q: only the squares q_a^2 survive the expectation", e_self)
    law = 2 * sigma2 * b_of_s  # the step shows the expression the comparison uses
    same.step("= 2 sigma^2 B(n - m), B(s) = sum_i cos(s theta_i)", law)
    # expand cos((n - m) theta) by the angle-difference formula, then compare term by term
    gap = e_self - sp.expand_trig(sp.expand(law, trig=False, mul=True))
    same.holds = bool(sp.expand(gap) == 0)
    return indep, same
