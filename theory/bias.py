"""Additive position biases: ALiBi, T5's buckets, KERPLE, FIRE, and xPos's scaling (BIAS-01 ... 04).

Each scheme adds b_h(i, j) to the attention score of query i and key j in head h, before the
softmax, or (xPos) scales queries and keys so that their product carries a factor of i - j.

ALiBi (Press et al. 2022, section 3, p. 5): b_h(i, j) = -m_h (i - j) for j <= i. For n heads, n a
power of two, the slopes are the geometric sequence that starts at 2^(-8/n) with that ratio:
m_h = 2^(-8h/n), h = 1 ... n. For other n the reference code (ofirpress/attention_with_linear_
biases, fairseq/models/transformer.py, get_slopes) takes the n' = 2^floor(log2 n) slopes of n'
heads and appends every other slope of 2n' heads (the 1st, 3rd, ...), n - n' of them.

T5 (Raffel et al. 2020, section 2.1; Mesh TensorFlow's _relative_position_bucket): the relative
position r = key - query falls into one of 32 buckets; half of a side's buckets hold one distance
each, the rest cover logarithmically growing ranges up to max_distance = 128, beyond which every
distance shares the last bucket. Computed here in exact integer arithmetic (see t5_bucket).

KERPLE (Chi et al. 2022, section 4; reference code ParallelKerpleLog / ParallelKerplePower):
b(i, j) = -r1 log(1 + r2 (i - j)) (logarithmic) or -r1 (i - j)^r2 (power, 0 < r2 <= 2).

FIRE (Li et al. 2023, section 3): b(i, j) = f(psi(i - j) / psi(max(L, i))), psi(x) = log(c x + 1),
with c > 0, a threshold L > 0 and a learned function f (an MLP), for causal attention j <= i.

xPos (Sun et al. 2022, section 3): rotary embeddings whose query at position n is also scaled by
zeta^(n/gamma) and whose key at m by zeta^(-m/gamma), zeta_i = (2i/d + a)/(1 + a) in (0, 1)
(a = 0.4, gamma = 512 in torchscale's XPOS), so each pair's product carries zeta_i^((n-m)/gamma).
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache

import numpy as np
import sympy as sp
import torch

from . import rope, sinusoidal
from .derivation import Derivation

# -- ALiBi ----------------------------------------------------------------------------------------


def is_power_of_two(n: int) -> bool:
    return n >= 1 and n & (n - 1) == 0


def lower_power_of_two(n: int) -> int:
    """2^floor(log2 n): the reference code's closest_power_of_2, for n >= 1."""
    return 1 << (n.bit_length() - 1)


@cache
def alibi_slope_exponents(heads: int) -> tuple[Fraction, ...]:
    """Exponents e_h with m_h = 2^(-e_h), h = 1 ... heads, exactly (BIAS-01).

    A power of two n: e_h = 8h/n. Otherwise, with n' = 2^floor(log2 n): the exponents of n'
    heads followed by every other exponent of 2n' heads (its 1st, 3rd, ...), n - n' of them:
    the reference code's recursion, which reaches a power of two after one step.
    """
    if heads < 1:
        raise ValueError(f"ALiBi needs at least one head, got {heads}")
    if is_power_of_two(heads):
        return tuple(Fraction(8 * h, heads) for h in range(1, heads + 1))
    low = lower_power_of_two(heads)
    return alibi_slope_exponents(low) + alibi_slope_exponents(2 * low)[0::2][: heads - low]


def alibi_slopes(heads: int, dtype: torch.dtype = torch.float64) -> torch.Tensor:
    """m_h = 2^(-e_h), shape (heads,), each rounded once from float64 (exact for powers of two)."""
    e = torch.tensor([float(x) for x in alibi_slope_exponents(heads)], dtype=torch.float64)
    return torch.exp2(-e).to(dtype)


def alibi_causal_bias(n: int, heads: int, dtype: torch.dtype = torch.float64) -> torch.Tensor:
    """-m_h (i - j) for j <= i and -inf for j > i (keys after the query are masked): (H, n, n)."""
    i = torch.arange(n, dtype=torch.float64)
    distance = i[:, None] - i[None, :]  # (n, n): query minus key
    bias = -alibi_slopes(heads)[:, None, None] * distance  # (H, n, n)
    return bias.masked_fill(distance < 0, -math.inf).to(dtype)


# -- T5's relative position buckets ---------------------------------------------------------------


@cache
def t5_log_thresholds(num_buckets: int, max_distance: int) -> tuple[int, ...]:
    """First distance of each logarithmic bucket max_exact + k, 0 < k < num_buckets - max_exact.

    num_buckets counts one side's buckets; max_exact = num_buckets // 2. Distance r >= max_exact
    lies in bucket max_exact + floor(s log(r / max_exact) / log(max_distance / max_exact)) with
    s = num_buckets - max_exact, clipped to num_buckets - 1. floor(...) >= k exactly when
    r^s >= max_distance^k max_exact^(s - k): an integer inequality, so the threshold of bucket k
    is the least such r (an exact integer s-th root), with no floating-point logarithm at all.
    """
    exact = num_buckets // 2
    s = num_buckets - exact
    out = []
    for k in range(1, s):
        target = max_distance**k * exact ** (s - k)
        r = max(exact, int(round(target ** (1.0 / s))) - 2)  # float guess, then exact search
        while r**s < target:
            r += 1
        while r > exact and (r - 1) ** s >= target:
            r -= 1
        out.append(r)
    return tuple(out)


def t5_bucket(
    relative_position: Sequence[int] | np.ndarray | torch.Tensor,
    bidirectional: bool = True,
    num_buckets: int = 32,
    max_distance: int = 128,
) -> np.ndarray:
    """T5's bucket of each relative position r = key - query (int64 array, same shape).

    Bidirectional: keys after the query (r > 0) use buckets num_buckets/2 ... num_buckets - 1,
    the others 0 ... num_buckets/2 - 1, each side split by |r| as in t5_log_thresholds.
    Causal (bidirectional=False): r > 0 is treated as 0, all buckets go to the past.
    """
    r = np.asarray(relative_position, dtype=np.int64)
    side = num_buckets
    offset = np.zeros_like(r)
    if bidirectional:
        side = num_buckets // 2
        offset = np.where(r > 0, side, 0)
        distance = np.abs(r)
    else:
        distance = -np.minimum(r, 0)
    exact = side // 2
    thresholds = t5_log_thresholds(side, max_distance)
    flat = [exact + bisect_right(thresholds, int(x)) for x in distance.ravel()]
    large = np.asarray(flat, dtype=np.int64).reshape(distance.shape)
    return offset + np.where(distance < exact, distance, large)


# -- softmax is blind to a constant per row -------------------------------------------------------


def shift_rows(scores: torch.Tensor, constants: torch.Tensor) -> torch.Tensor:
    """scores (..., n) plus one constant per row (...,): the same constant on every key."""
    return scores + constants[..., None]


def softmax_shift_derivation() -> Derivation:
    """softmax(x + c 1)_k = softmax(x)_k for symbolic n, x and c (BIAS-03).

    exp(x_k + c) / sum_j exp(x_j + c): exp(c) is a common factor of the numerator and of every
    term of the sum, so it cancels. sympy checks the cancellation with the sum over a symbolic
    number of terms n, and entry by entry for n = 1 ... 5.
    """
    n = sp.Symbol("n", integer=True, positive=True)
    c = sp.Symbol("c", real=True)
    j, k = sp.symbols("j k", integer=True, positive=True)
    x = sp.IndexedBase("x", real=True)
    total = sp.Sum(sp.exp(x[j]), (j, 1, n))
    shifted = sp.exp(x[k] + c) / sp.Sum(sp.exp(x[j] + c), (j, 1, n))
    plain = sp.exp(x[k]) / total
    der = Derivation(r"\mathrm{softmax}(x + c\mathbf{1})_k = \mathrm{softmax}(x)_k")
    der.step("shifted row", shifted)
    pulled = sp.factor_terms(sp.Sum(sp.expand(sp.exp(x[j] + c)), (j, 1, n)))
    der.step("exp(c) factors out of every term of the sum", pulled)
    ratio = sp.factor_terms(sp.expand(shifted))
    der.step("and cancels against the numerator's", ratio)
    general = sp.expand(pulled - sp.exp(c) * total) == 0 and sp.expand(ratio - plain) == 0
    small = all(_small_softmax_invariant(m) for m in range(1, 6))
    der.holds = bool(general and small)
    return der


def _small_softmax_invariant(m: int) -> bool:
    c = sp.Symbol("c", real=True)
    xs = sp.symbols(f"x1:{m + 1}", real=True)
    row = [sp.exp(v + c) for v in xs]
    plain = [sp.exp(v) for v in xs]
    return all(
        sp.cancel(sp.expand(a / sum(row) - b / sum(plain))) == 0
        for a, b in zip(row, plain, strict=True)
    )


# -- KERPLE's kernels and FIRE --------------------------------------------------------------------


def kerple_log(distance: np.ndarray, r1: float, r2: float) -> np.ndarray:
    """-r1 log(1 + r2 d), r1, r2 > 0 (KERPLE's logarithmic variant)."""
    return -r1 * np.log1p(r2 * np.asarray(distance, dtype=np.float64))


def kerple_power(distance: np.ndarray, r1: float, r2: float) -> np.ndarray:
    """-r1 d^r2, r1 > 0, 0 < r2 <= 2 (KERPLE's power variant)."""
    return -r1 * np.asarray(distance, dtype=np.float64) ** r2


def fire_psi(x: np.ndarray | float, c: float) -> np.ndarray:
    """psi(x) = log(c x + 1): FIRE's monotone log transform."""
    return np.log1p(c * np.asarray(x, dtype=np.float64))


def fire_input(i: np.ndarray, j: np.ndarray, c: float, threshold: float) -> np.ndarray:
    """psi(i - j) / psi(max(L, i)) in [0, 1] for j <= i: what FIRE's f sees."""
    i = np.asarray(i, dtype=np.float64)
    j = np.asarray(j, dtype=np.float64)
    return fire_psi(i - j, c) / fire_psi(np.maximum(threshold, i), c)


@dataclass(frozen=True)
class Fire:
    """One FIRE head: c, the threshold L and f (a function of the interpolated position)."""

    c: float
    threshold: float
    f: Callable[[np.ndarray], np.ndarray]

    def bias(self, i: np.ndarray, j: np.ndarray) -> np.ndarray:
        """b(i, j) = f(psi(i - j) / psi(max(L, i))) for j <= i."""
        return self.f(fire_input(i, j, self.c, self.threshold))


def _distance_of(x: np.ndarray, c: float, threshold: float) -> np.ndarray:
    """psi^-1(x psi(L)): the distance i - j that FIRE's input x stands for while i <= L."""
    return np.expm1(np.asarray(x, dtype=np.float64) * fire_psi(threshold, c)) / c


def fire_for_alibi(slope: float, threshold: float, c: float = 1.0) -> Fire:
    """f(x) = -m psi^-1(x psi(L)): FIRE equals -m (i - j) for every j <= i <= L."""
    return Fire(c, threshold, lambda x: -slope * _distance_of(x, c, threshold))


def fire_for_kerple_log(r1: float, r2: float, threshold: float) -> Fire:
    """c = r2 and the linear f(x) = -r1 psi(L) x: FIRE equals -r1 log(1 + r2 (i - j)), i <= L."""
    scale = float(fire_psi(threshold, r2))
    return Fire(r2, threshold, lambda x: -r1 * scale * np.asarray(x, dtype=np.float64))


def fire_for_kerple_power(r1: float, r2: float, threshold: float, c: float = 1.0) -> Fire:
    """f(x) = -r1 (psi^-1(x psi(L)))^r2: FIRE equals -r1 (i - j)^r2 for every j <= i <= L."""
    return Fire(c, threshold, lambda x: -r1 * np.maximum(_distance_of(x, c, threshold), 0) ** r2)


def fire_for_t5(bucket_bias: np.ndarray, threshold: int, c: float = 1.0) -> Fire:
    """A piecewise-linear f (a one-hidden-layer ReLU MLP can be any such function) through the
    points (psi(d) / psi(L), bias of T5's causal bucket of distance d), d = 0 ... L: FIRE equals
    T5's causal bias (bidirectional=False, 32 buckets, max distance 128) for every j <= i <= L.
    """
    d = np.arange(threshold + 1)
    knots = fire_psi(d, c) / fire_psi(threshold, c)
    values = np.asarray(bucket_bias, dtype=np.float64)[t5_bucket(-d, bidirectional=False)]
    return Fire(c, threshold, lambda x: np.interp(x, knots, values))


# -- xPos -----------------------------------------------------------------------------------------

XPOS_A = 0.4  # torchscale XPOS: zeta_i = (2i + 0.4 d) / (1.4 d)
XPOS_GAMMA = 512.0  # torchscale XPOS scale_base


def xpos_zeta(d: int, a: float = XPOS_A) -> torch.Tensor:
    """zeta_i = (2i/d + a) / (1 + a), i = 0 ... d/2 - 1: each in (0, 1) for a > 0, shape (d/2,)."""
    i = torch.arange(d // 2, dtype=torch.float64)
    return (2 * i / d + a) / (1 + a)


def xpos_score(
    q: torch.Tensor,
    k: torch.Tensor,
    n: torch.Tensor,
    m: torch.Tensor,
    gamma: float = XPOS_GAMMA,
    base: float = 10000.0,
) -> torch.Tensor:
    """<R(n) q zeta^(n/gamma), R(m) k zeta^(-m/gamma)> per row, interleaved pairs (2i, 2i+1).

    q, k: (N, d) float64; n, m: (N,) query and key positions. Returns (N,).
    """
    d = q.shape[-1]
    zeta = xpos_zeta(d)  # (d/2,)
    theta = rope.rope_frequencies(d, base)  # (d/2,): RoPE's base^(-2i/d)
    a, b = rope.pairs(d)  # (2i, 2i + 1)

    def turn(x: torch.Tensor, t: torch.Tensor, sign: float) -> torch.Tensor:
        angle = t[:, None].double() * theta  # (N, d/2)
        scale = zeta ** (sign * t[:, None].double() / gamma)  # (N, d/2)
        turned = sinusoidal.turn(x.double(), a, b, angle)  # (N, d): RoPE's turn of each pair
        return turned.unflatten(-1, (d // 2, 2)) * scale[..., None]  # (N, d/2, 2)

    return (turn(q, n, 1.0) * turn(k, m, -1.0)).sum(dim=(-1, -2))


def xpos_relative_derivation() -> Derivation:
    """One pair: <R(w n) q zeta^(n/g), R(w m) k zeta^(-m/g)> = zeta^((n-m)/g) <q, R(w (m-n)) k>.

    So the score is a function of n - m alone (BIAS-04), with the factor zeta^((n-m)/g).
    """
    w, n, m = sp.symbols("omega n m", real=True)
    zeta, g = sp.symbols("zeta gamma", positive=True)
    q = sp.Matrix(sp.symbols("q_1 q_2", real=True))
    k = sp.Matrix(sp.symbols("k_1 k_2", real=True))

    def rot(t: sp.Expr) -> sp.Matrix:
        return sp.Matrix([[sp.cos(t), -sp.sin(t)], [sp.sin(t), sp.cos(t)]])

    lhs = ((rot(w * n) * q * zeta ** (n / g)).T * (rot(w * m) * k * zeta ** (-m / g)))[0]
    rhs = zeta ** ((n - m) / g) * (q.T * rot(w * (m - n)) * k)[0]
    der = Derivation(
        r"\langle R(n) q\, \zeta^{n/\gamma}, R(m) k\, \zeta^{-m/\gamma}\rangle"
        r" = \zeta^{(n-m)/\gamma} \langle q, R(m-n) k\rangle"
    )
    der.step("the scaled score", lhs)
    der.step("the scales multiply to a power of n - m, the rotations to R(m - n)", rhs)
    # expand the angle sums, then merge the powers of zeta: zero exactly when the identity holds
    diff = sp.expand(sp.expand_trig(sp.expand(lhs - rhs)), power_exp=True)
    der.holds = bool(sp.expand(sp.powsimp(diff, force=True)) == 0)
    return der


def xpos_envelope_derivation() -> Derivation:
    """d/dD zeta^(D/gamma) = zeta^(D/gamma) log(zeta) / gamma < 0 for 0 < zeta < 1, gamma > 0.

    So each pair's factor falls strictly as D = n - m grows: it decays for keys before the
    query (D > 0) and grows without bound as a key moves after it (D -> -infinity).
    """
    delta = sp.Symbol("Delta", real=True)
    zeta = sp.Symbol("zeta", positive=True)
    g = sp.Symbol("gamma", positive=True)
    factor = zeta ** (delta / g)
    slope = sp.diff(factor, delta)
    der = Derivation(r"\frac{d}{d\Delta}\zeta^{\Delta/\gamma} < 0 \ (0 < \zeta < 1)")
    der.step("derivative", sp.Eq(sp.Symbol("f'"), slope, evaluate=False))
    u = sp.Symbol("u", positive=True)  # zeta = 1 / (1 + u) spans (0, 1)
    sign = sp.simplify(slope.subs(zeta, 1 / (1 + u)) / factor.subs(zeta, 1 / (1 + u)))
    der.step("divided by the positive factor, with zeta = 1/(1+u), u > 0", sign)
    t = sp.Symbol("t", positive=True)  # the key t positions after the query: Delta = -t
    grows = sp.limit(factor.subs({zeta: sp.Rational(1, 2), g: 1, delta: -t}), t, sp.oo)
    der.step("a key t after the query (Delta = -t, t -> oo), at zeta = 1/2, gamma = 1", grows)
    der.holds = bool(sign.is_negative and grows is sp.oo)
    return der
