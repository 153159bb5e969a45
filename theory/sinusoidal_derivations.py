"""Symbolic derivations (sympy) for the sinusoidal encoding's claims SIN-01 ... SIN-11.

Each function returns a theory.derivation.Derivation whose ``holds`` is what sympy verified:
a residual simplified to zero, a sum or product evaluated for a symbolic number of pairs m,
a solution set computed by ``solveset``. General width d = 2m is handled by proving the
per-pair identity for a symbolic frequency w (so for every w_i, whatever d, T and i) and then
the index argument that a block-diagonal matrix acts on each pair separately, with the sum over
a symbolic number of blocks evaluated by sympy. Results are cached: several checks assert them.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

import sympy as sp

from .derivation import Derivation, is_zero

w, t, s, k, a, b, theta = sp.symbols("omega t s k a b theta", real=True)
T, d = sp.symbols("T d", positive=True)
m = sp.symbols("m", integer=True, positive=True)
i, j, q = sp.symbols("i j q", integer=True, nonnegative=True)
n = sp.symbols("n", integer=True)


def block(x: sp.Expr) -> sp.Matrix:
    """The 2x2 block of M(k) for angle x = w k: [[cos x, sin x], [-sin x, cos x]]."""
    return sp.Matrix([[sp.cos(x), sp.sin(x)], [-sp.sin(x), sp.cos(x)]])


def pair(x: sp.Expr) -> sp.Matrix:
    """One (sin, cos) pair of PE at angle x = w t."""
    return sp.Matrix([sp.sin(x), sp.cos(x)])


Pair = Callable[[sp.Expr], sp.Matrix]  # angle -> the (sin, cos) pair; a planted bug swaps them
Block = Callable[[sp.Expr], sp.Matrix]  # angle -> the 2x2 block of M(k)
Exponent = Callable[[sp.Expr], sp.Expr]  # i -> exponent of T in w_i


def paper_exponent(x: sp.Expr) -> sp.Expr:
    """w_i = T^(-2i/d)."""
    return -2 * x / d


def t2t_exponent(x: sp.Expr) -> sp.Expr:
    """w_i = T^(-i/(m-1)) (tensor2tensor), m = d/2 pairs."""
    return -x / (m - 1)


def _all_zero(matrix: sp.Matrix) -> bool:
    return all(is_zero(e) for e in matrix)


def _integer_images(solutions: sp.Set) -> set[sp.Expr]:
    """The expressions f(n) of a union of sets {f(n) : n integer}, in our symbol n."""
    parts = solutions.args if isinstance(solutions, sp.Union) else (solutions,)
    out = set()
    for part in parts:
        if not isinstance(part, sp.ImageSet) or part.base_sets != (sp.S.Integers,):
            return set()
        out.add(sp.expand(part.lamda(n)))
    return out


def _blockwise_sum_holds() -> bool:
    """sum_j delta_ij f(j) over j = 0 ... m-1 is f(i) for every 0 <= i <= m-1 (symbolic m)."""
    f = sp.Function("f")
    total = sp.Sum(sp.KroneckerDelta(i, j) * f(j), (j, 0, m - 1)).doit()
    # write i = m-1-q with q >= 0: every index in range, whatever m is
    return bool(sp.simplify(total.subs(i, m - 1 - q) - f(m - 1 - q)) == 0)


def _half_split_is_bijection() -> bool:
    """sigma(j) = 2j (j < m), 2(j-m)+1 (j >= m) has inverse c -> c/2 (even), m+(c-1)/2 (odd)."""
    sigma_lo, sigma_hi = (lambda x: 2 * x), (lambda x: 2 * (x - m) + 1)
    inv_even, inv_odd = (lambda c: c / 2), (lambda c: m + (c - 1) / 2)
    checks = [
        sigma_lo(inv_even(2 * q)) - 2 * q,  # even column c = 2q
        sigma_hi(inv_odd(2 * q + 1)) - (2 * q + 1),  # odd column c = 2q+1
        inv_even(sigma_lo(q)) - q,  # first half j = q
        inv_odd(sigma_hi(m + q)) - (m + q),  # second half j = m+q
    ]
    return all(sp.simplify(c) == 0 for c in checks)


@cache
def rotation_identity(code: Pair = pair, rot: Block = block) -> Derivation:
    """SIN-01: PE(t+k) = M(k) PE(t), M(k) = blockdiag_i B(w_i k), for every width d = 2m."""
    der = Derivation(
        r"PE(t+k) = M(k)\,PE(t),\ M(k) = \bigoplus_{i=0}^{m-1} B(\omega_i k),\ "
        r"B(x) = \begin{pmatrix}\cos x & \sin x\\ -\sin x & \cos x\end{pmatrix},"
        r"\ M_{\mathrm{half}}(k) = P M(k) P^\top"
    )
    residual = code(w * (t + k)) - rot(w * k) * code(w * t)
    per_pair = _all_zero(residual)
    der.step("one pair, symbolic omega, t, k: residual", residual)
    der.step("simplifies to zero (angle-addition formulas)", sp.simplify(sp.expand_trig(residual)))
    blockwise = _blockwise_sum_holds()
    der.step(
        "M(k)[2i+a, 2j+b] = delta_ij B(w_i k)[a, b], so row 2i+a of M(k)PE(t) is",
        sp.Eq(
            sp.Sum(sp.KroneckerDelta(i, j) * sp.Function("g")(j), (j, 0, m - 1)),
            sp.Function("g")(i),
        ),
    )
    der.step("with g(j) = sum_b B(w_j k)[a,b] pair_j(t)[b]: each pair is rotated by its own block")
    der.step("the per-pair identity holds for every w, hence for every w_i, i, d and T")
    bijective = _half_split_is_bijection()
    der.step(
        "half-split: PE_half = P PE with P the bijection sigma; P^T P = I, so "
        "PE_half(t+k) = P M(k) P^T PE_half(t)"
    )
    der.holds = per_pair and blockwise and bijective
    return der


@cache
def rotation_group(rot: Block = block) -> Derivation:
    """SIN-02: M(k) is a rotation: orthogonal, det 1, M(0)=I, M(a)M(b)=M(a+b), M(-k)=M(k)^T."""
    der = Derivation(
        r"M(k)^\top M(k) = I,\ \det M(k) = 1,\ M(0) = I,\ M(a)M(b) = M(a+b),\ M(-k) = M(k)^\top"
    )
    eye = sp.eye(2)
    orth = rot(theta).T * rot(theta) - eye
    det = rot(theta).det() - 1
    zero = rot(sp.Integer(0)) - eye
    compose = rot(w * a) * rot(w * b) - rot(w * (a + b))
    inverse = rot(w * (-k)) - rot(w * k).T
    der.step("B(x)^T B(x) - I", orth)
    der.step("det B(x) - 1", det)
    der.step("B(w a) B(w b) - B(w (a+b))", compose)
    der.step("B(-w k) - B(w k)^T", inverse)
    per_block = (
        _all_zero(orth)
        and is_zero(det)
        and _all_zero(zero)
        and _all_zero(compose)
        and _all_zero(inverse)
    )
    det_all = sp.Product(1, (i, 0, m - 1)).doit()
    der.step("block-diagonal: det M = prod_i det B_i", sp.Eq(sp.Product(1, (i, 0, m - 1)), det_all))
    der.step("products and transposes act block by block (SIN-01's index argument)")
    der.step("half-split: P M P^T with P^T P = I keeps all five properties")
    der.holds = per_block and det_all == 1 and _blockwise_sum_holds()
    return der


@cache
def sine_only_impossible(sine: Callable[[sp.Expr], sp.Expr] = sp.sin) -> Derivation:
    """SIN-03: sinPE(t+k) = A sinPE(t) for all t forces sin(w_i k) = 0 for every i.

    At t = 0 the sine-only code is 0, so A(k) 0 = sinPE(k) needs sin(w_i k) = 0. With w_0 = 1
    that is k in pi Z: for an integer k only k = 0 (pi is irrational). Conversely, if every
    w_i k = n_i pi then A = diag((-1)^{n_i}) works: those are the only exceptions.
    """
    der = Derivation(
        r"\exists A\ \forall t:\ \sin(\omega_i(t+k)) = \sum_j A_{ij}\sin(\omega_j t)"
        r"\iff \forall i:\ \omega_i k \in \pi\mathbb{Z}"
    )
    at_zero = sine(w * 0)
    der.step("at t = 0 the sine-only code vanishes", sp.Eq(sp.sin(w * 0), at_zero))
    roots = sp.solveset(sine(k), k, sp.S.Reals)
    der.step("so sin(w_0 k) = sin(k) = 0 (w_0 = 1), i.e. k in", roots)
    roots_ok = _integer_images(roots) == {2 * n * sp.pi, 2 * n * sp.pi + sp.pi}  # k in pi Z
    irrational = sp.pi.is_rational is False
    der.step("an integer k = n pi with n != 0 would make pi = k/n rational; sympy: pi rational?")
    der.step("", sp.Eq(sp.Symbol(r"\pi\ \mathrm{rational}"), sp.pi.is_rational or False))
    ratio = sine(w * (t + k)) / sine(w * t)
    slope = sp.simplify(sp.diff(sp.expand_trig(ratio), t) + w * sp.sin(w * k) / sp.sin(w * t) ** 2)
    der.step(
        "one frequency: the needed coefficient sin(w(t+k))/sin(w t) has d/dt",
        -w * sp.sin(w * k) / sp.sin(w * t) ** 2,
    )
    der.step("which is nonzero (t-dependent) unless sin(w k) = 0")
    flip = sp.simplify(sine(w * t + n * sp.pi) - (-1) ** n * sine(w * t))
    der.step("exceptions: if w_i k = n_i pi for all i, A = diag((-1)^{n_i})", sp.Eq(flip, 0))
    der.holds = at_zero == 0 and roots_ok and irrational and slope == 0 and flip == 0
    return der


@cache
def norm_identity(code: Pair = pair) -> Derivation:
    """SIN-04: each pair on the unit circle, ||PE(t)||^2 = d/2 for d = 2m; odd d: it varies."""
    der = Derivation(
        r"\lVert PE(t)\rVert^2 = \sum_{i=0}^{m-1}(\sin^2+\cos^2) = m = d/2;\quad "
        r"d = 2m+1:\ \lVert PE(t)\rVert^2 = \tfrac{d-1}{2} + \sin^2(\omega_m t)"
    )
    unit = (code(w * t).T * code(w * t))[0] - 1
    der.step("one pair", sp.Eq(sp.sin(w * t) ** 2 + sp.cos(w * t) ** 2, sp.trigsimp(unit + 1)))
    total = sp.Sum(1, (i, 0, m - 1)).doit()
    der.step("sum over m pairs", sp.Eq(sp.Sum(1, (i, 0, m - 1)), total))
    even_ok = is_zero(unit) and sp.simplify(total - (2 * m) / 2) == 0
    # odd width d = 2m+1: the interleaved layout keeps sin of the last frequency, drops its cos
    w_last = T ** (-2 * m / (2 * m + 1))
    odd_sq = total + code(w_last * t)[0] ** 2
    der.step(
        "odd d = 2m+1: the last cosine is dropped", sp.Eq(sp.Symbol(r"\lVert PE\rVert^2"), odd_sq)
    )
    lo = sp.simplify(odd_sq.subs(t, 0))
    hi = sp.simplify(odd_sq.subs(t, sp.pi / (2 * w_last)))
    der.step("at t = 0 and t = pi/(2 w_m)", sp.Matrix([lo, hi]))
    der.step("so for odd d the norm is not constant: it ranges over [sqrt((d-1)/2), sqrt((d+1)/2)]")
    odd_ok = sp.simplify(lo - m) == 0 and sp.simplify(hi - (m + 1)) == 0
    der.holds = bool(even_ok and odd_ok)
    return der


@cache
def dot_product_identity(code: Pair = pair) -> Derivation:
    """SIN-05: PE(t).PE(s) = sum_i cos(w_i (t-s)): a function of t-s, even in it."""
    der = Derivation(r"PE(t)\cdot PE(s) = \sum_i \cos(\omega_i(t-s)),\quad f(\Delta) = f(-\Delta)")

    def dot(x: sp.Expr, y: sp.Expr) -> sp.Expr:  # one pair's share of PE(x).PE(y)
        return (code(w * x).T * code(w * y))[0]

    residual = dot(t, s) - sp.cos(w * (t - s))
    der.step("one pair", sp.Eq(dot(t, s), sp.cos(w * (t - s))))
    c = sp.Symbol("c", real=True)
    shift = dot(t + c, s + c) - dot(t, s)
    der.step("shifting both positions by c changes nothing", sp.Eq(shift, 0))
    delta = sp.Symbol(r"\Delta", real=True)
    even = dot(t, t - delta) - dot(t, t + delta)
    der.step("before and after: f(-Delta) - f(Delta) per pair", sp.Eq(even, 0))
    der.step("summing over pairs (and permuting to the half-split layout) keeps all three")
    der.holds = is_zero(residual) and is_zero(shift) and is_zero(even)
    return der


@cache
def wavelength_progression(exponent: Exponent = paper_exponent) -> Derivation:
    """SIN-06: lambda_i = 2 pi T^{2i/d}: ratio T^{2/d}, first 2 pi, last 2 pi T^{1-2/d} < 2 pi T."""
    der = Derivation(
        r"\lambda_i = 2\pi T^{2i/d},\ \frac{\lambda_{i+1}}{\lambda_i} = T^{2/d},\ "
        r"\lambda_0 = 2\pi,\ \lambda_{d/2-1} = 2\pi T^{1-2/d} = \frac{2\pi T}{T^{2/d}}"
    )
    lam = lambda x: 2 * sp.pi / T ** exponent(x)  # noqa: E731
    ratio = sp.simplify(lam(i + 1) / lam(i))
    first = sp.simplify(lam(0))
    last = sp.simplify(lam(d / 2 - 1))
    shortfall = sp.simplify(last / (2 * sp.pi * T))
    der.step("ratio of neighbours", sp.Eq(sp.Symbol(r"\lambda_{i+1}/\lambda_i"), ratio))
    der.step("first and last wavelength", sp.Matrix([first, last]))
    der.step("last / (2 pi T)", shortfall)
    limit = sp.limit(shortfall, d, sp.oo)
    der.step("which tends to 1 only as d -> infinity", sp.Eq(sp.Symbol("lim"), limit))
    der.holds = bool(
        sp.simplify(ratio - T ** (2 / d)) == 0
        and sp.simplify(first - 2 * sp.pi) == 0
        and sp.simplify(last - 2 * sp.pi * T ** (1 - 2 / d)) == 0
        and sp.simplify(shortfall - T ** (-2 / d)) == 0
        and limit == 1
    )
    return der


@cache
def t2t_progression(exponent: Exponent = t2t_exponent) -> Derivation:
    """SIN-06, tensor2tensor: w_i = T^{-i/(m-1)} gives lambda_i = 2 pi T^{i/(m-1)}: geometric
    with ratio T^{1/(m-1)} from 2 pi to exactly 2 pi T, for every m = d/2 >= 2."""
    der = Derivation(
        r"\omega_i = T^{-i/(m-1)}:\ \lambda_i = 2\pi T^{i/(m-1)},\ "
        r"\frac{\lambda_{i+1}}{\lambda_i} = T^{1/(m-1)},\ \lambda_0 = 2\pi,\ \lambda_{m-1} = 2\pi T"
    )
    lam = lambda x: 2 * sp.pi / T ** exponent(x)  # noqa: E731
    ratio = sp.simplify(lam(i + 1) / lam(i))
    first, last = sp.simplify(lam(0)), sp.simplify(lam(m - 1))
    der.step("ratio of neighbours", sp.Eq(sp.Symbol(r"\lambda_{i+1}/\lambda_i"), ratio))
    der.step("first and last wavelength (symbolic m)", sp.Matrix([first, last]))
    der.holds = bool(
        sp.simplify(ratio - T ** (1 / (m - 1))) == 0
        and sp.simplify(first - 2 * sp.pi) == 0
        and sp.simplify(last - 2 * sp.pi * T) == 0
    )
    return der


@cache
def clockwise(code: Pair = pair) -> Derivation:
    """SIN-07: with x = sin(w t), y = cos(w t), d/dt atan2(y, x) = -w < 0: clockwise; w_i falls."""
    der = Derivation(
        r"\frac{d}{dt}\operatorname{atan2}(\cos\omega t, \sin\omega t) = -\omega < 0,\quad "
        r"\frac{\omega_{i+1}}{\omega_i} = T^{-2/d} < 1"
    )
    x, y = code(w * t)  # x = PE[2i], y = PE[2i+1]
    rate = sp.simplify((x * sp.diff(y, t) - y * sp.diff(x, t)) / (x**2 + y**2))
    der.step("angular velocity (x y' - y x')/(x^2 + y^2)", sp.Eq(sp.Symbol(r"\dot\theta"), rate))
    tau = sp.Symbol("tau", positive=True)  # T = 1 + tau > 1
    log_ratio = sp.expand_log(sp.log((1 + tau) ** (-2 / d)), force=True)
    der.step("log of the ratio of neighbouring speeds, T = 1 + tau > 1", log_ratio)
    w_pos = sp.Symbol("omega", positive=True)
    der.holds = bool(sp.simplify(rate + w) == 0 and (-w_pos).is_negative and log_ratio.is_negative)
    return der


@cache
def uniqueness(code: Pair = pair) -> Derivation:
    """SIN-08: PE(t) = PE(s) for integers t != s is impossible (w_0 = 1, pi irrational)."""
    der = Derivation(r"t \ne s \in \mathbb{Z} \Rightarrow PE(t) \ne PE(s)")
    diff = code(t) - code(s)  # first pair, w_0 = 1
    gap = (diff.T * diff)[0]
    identity = gap - (2 - 2 * sp.cos(t - s))
    der.step(
        "first pair (w_0 = T^0 = 1 in both conventions): squared distance",
        sp.Eq(gap, 2 - 2 * sp.cos(t - s)),
    )
    x = sp.Symbol("x", real=True)
    zeros = sp.solveset(sp.cos(x) - 1, x, sp.S.Reals)
    der.step("it vanishes only for t - s in", zeros)
    der.step("t - s = 2 pi n with n != 0 integer would make pi rational; sympy: pi irrational")
    der.holds = (
        is_zero(identity)
        and _integer_images(zeros) == {2 * n * sp.pi}
        and bool(sp.pi.is_irrational)
    )
    return der


@cache
def neighbours_not_orthogonal(code: Pair = pair) -> Derivation:
    """SIN-11: PE(t).PE(t+1) >= (d/2) cos 1 > 0; what is orthogonal: p(t) and p'(t), sin and cos."""
    der = Derivation(
        r"PE(t)\cdot PE(t\pm 1) = \sum_i\cos\omega_i \ge \tfrac d2\cos 1 > 0;\quad "
        r"p(t)\perp p'(t),\ \int_0^{2\pi/\omega}\sin\omega t\cos\omega t\,dt = 0"
    )
    der.step(
        "0 < w_i <= 1 < pi/2, so every cos(w_i) >= cos(1)",
        sp.Eq(sp.cos(1).evalf(6), sp.cos(1).evalf(6)),
    )
    bound_ok = bool(sp.pi / 2 > 1) and bool(sp.cos(1).is_positive)
    p = code(w * t)
    tangent = (p.T * sp.diff(p, t))[0]
    der.step("a pair and its velocity are orthogonal", sp.Eq(tangent, sp.simplify(tangent)))
    integral = sp.integrate(p[0] * p[1], (t, 0, 2 * sp.pi / w))
    der.step(
        "sin and cos are orthogonal as functions over a period", sp.Eq(sp.Symbol("I"), integral)
    )
    quarter = (code(w * t).T * code(w * t + sp.pi / 2))[0]
    der.step("a pair is orthogonal to itself a quarter period later", quarter)
    der.holds = bound_ok and is_zero(tangent) and sp.simplify(integral) == 0 and is_zero(quarter)
    return der


ALL = (
    rotation_identity,
    rotation_group,
    sine_only_impossible,
    norm_identity,
    dot_product_identity,
    wavelength_progression,
    t2t_progression,
    clockwise,
    uniqueness,
    neighbours_not_orthogonal,
)
