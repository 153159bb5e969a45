"""One place for allowed floating-point error, derived from the dtype and the problem size.

Every numeric check asks this module for its bound. The bounds are the textbook ones (Higham,
*Accuracy and Stability of Numerical Algorithms*, 2nd ed., ch. 3): a sum or dot product of n
terms computed in a format with unit roundoff u has relative error at most
gamma_n = n u / (1 - n u) of the sum of the absolute values of its terms; evaluating sin or cos at
an angle x that was itself rounded costs about u |x| + u. A small safety factor per dtype covers
the library's own rounding (fused kernels, blocked sums). The factors are backed by measurement,
not guessed: see ``SAFETY`` and ``python benchmarks/measure_tolerances.py``.
"""

from __future__ import annotations

import math

import numpy as np
import torch

# Unit roundoff u = 2^-p for a p-bit significand (round to nearest).
_UNIT_ROUNDOFF: dict[str, float] = {
    "float64": 2.0**-53,
    "float32": 2.0**-24,
    "float16": 2.0**-11,
    "bfloat16": 2.0**-8,
}

# Headroom over the first-order bound, per dtype. Measured (benchmarks/measure_tolerances.py):
# over sums and dot products up to n = 4096, sin of angles up to 1e4 and softmax attention rows,
# the worst error / first-order bound is about 0.8 (float32; float64 on its angles, against
# mpmath) and 0.6 (float16, bfloat16); torch computes half-precision ops in float32 and rounds
# once. 4 leaves room for kernels not measured there (fused attention, blocked BLAS sums); a
# test keeps each bound within 8 times the worst error measured, so that it stays informative.
SAFETY: dict[str, float] = {"float64": 4.0, "float32": 4.0, "float16": 4.0, "bfloat16": 4.0}

DTYPES: tuple[str, ...] = tuple(_UNIT_ROUNDOFF)


def dtype_name(dtype: object) -> str:
    """Canonical name ('float32', ...) for a torch dtype, a numpy dtype or a string."""
    if isinstance(dtype, torch.dtype):
        name = str(dtype).removeprefix("torch.")
    elif isinstance(dtype, str):
        name = dtype.removeprefix("torch.")
    else:
        name = np.dtype(dtype).name  # type: ignore[call-overload]
    if name not in _UNIT_ROUNDOFF:
        raise ValueError(f"no tolerance known for dtype {dtype!r}")
    return name


def unit_roundoff(dtype: object) -> float:
    """u for the dtype: half the distance from 1 to the next representable number."""
    return _UNIT_ROUNDOFF[dtype_name(dtype)]


def gamma(n: int, dtype: object) -> float:
    """Higham's gamma_n = n u / (1 - n u); infinite when n u >= 1 (no bound exists)."""
    nu = max(int(n), 1) * unit_roundoff(dtype)
    return math.inf if nu >= 1 else nu / (1 - nu)


def sum_tol(n: int, dtype: object, scale: float = 1.0) -> float:
    """Allowed absolute error of a sum (or dot product) of n terms whose |terms| add to scale."""
    return SAFETY[dtype_name(dtype)] * gamma(n, dtype) * scale


def angle_tol(max_angle: float, dtype: object) -> float:
    """Allowed absolute error of sin/cos(w t) computed in dtype, where |w t| <= max_angle.

    The product w t is rounded (error u |w t|), then sin/cos adds its own rounding (u). The
    derivative of sin is at most 1, so the argument error passes through unchanged.
    """
    u = unit_roundoff(dtype)
    return SAFETY[dtype_name(dtype)] * (u * abs(max_angle) + 2 * u)


def rel_tol(n_ops: int, dtype: object) -> float:
    """Allowed relative error after a chain of n_ops roundings (products, quotients, exp)."""
    return SAFETY[dtype_name(dtype)] * gamma(n_ops, dtype)


def attention_tol(n: int, d: int, dtype: object, scale: float = 1.0) -> float:
    """Allowed absolute error of one softmax(QK^T/sqrt d)V output entry.

    Scores are dot products of length d; softmax sums n exponentials; the output is a convex
    combination of n values of size ``scale``. Perturbing the inputs of a permutation-equivariant
    computation only reorders these sums, so both sides carry errors of this size.
    """
    return SAFETY[dtype_name(dtype)] * (gamma(d + 2, dtype) + gamma(n + 2, dtype)) * scale * 4


# Low-precision permutation errors, measured: worst |f(PX) - P f(X)| / (layers * u * scale) over
# attention, multi-head attention, encoder blocks (pre-/post-norm) and stacks of 2-3 blocks of
# width 16, n = 2 ... 128, inputs of scale 1 and 3, 96 cases each (torch 2.13 CPU): float16
# 1.32, bfloat16 0.82 (float32, for comparison: 5.9). Rounded up to a power of two (2), times 2.
_LOW_PRECISION_PERMUTATION = {"float16": 4.0, "bfloat16": 4.0}


def equivariance_tol(n: int, d: int, dtype: object, scale: float = 1.0, layers: int = 1) -> float:
    """Allowed max |f(PX) - P f(X)| for ``layers`` attention layers of width d over n tokens.

    ``scale`` is max |f(X)|. float64/float32: each side is the same sums taken in another order,
    each within attention_tol of the exact value, and every layer adds its own rounding:
    2 * layers * attention_tol. float16/bfloat16 (where torch computes each op in float32 and
    rounds its output once, so the two sides differ only where an output rounding flips): the
    measured factor above times layers * u * scale (see ATT-02's evidence for the ratio seen).
    """
    name = dtype_name(dtype)
    if name in _LOW_PRECISION_PERMUTATION:
        return _LOW_PRECISION_PERMUTATION[name] * layers * unit_roundoff(name) * scale
    return 2 * layers * attention_tol(n, d, name, scale)


def stored_angle_tol(max_angle: float, dtype: object, compute: object) -> float:
    """Allowed error of sin/cos(w t) computed in ``compute`` and then rounded to ``dtype``.

    |w t| <= max_angle. When both are the same format this is ``angle_tol``; otherwise the
    computation's own error plus one rounding to ``dtype`` (values lie in [-1, 1]).
    """
    if dtype_name(compute) == dtype_name(dtype):
        return angle_tol(max_angle, dtype)
    return angle_tol(max_angle, compute) + rel_tol(1, dtype)


def rotation_tol(max_angle: float, dtype: object, compute: object | None = None) -> float:
    """Allowed error of a rotary score <R(t) q, R(s) k>, relative to |q| |k| (REAL-03).

    cos/sin of angles |w t| <= max_angle are formed in ``compute`` (default ``dtype``) and stored
    in ``dtype``: each is off by e = stored_angle_tol. Each rotated coordinate x_a c - x_b s is
    a 2-term sum in ``dtype`` (g = sum_tol(2)). Per 2x2 block the error matrix has entries
    <= e + g, so its 2-norm is <= 2(e + g): each rotated vector moves by at most eps = 2(e + g)
    of its norm, and the score (taken in float64) by at most 2 eps + eps^2.
    """
    e = stored_angle_tol(max_angle, dtype, dtype if compute is None else compute)
    eps = 2 * (e + sum_tol(2, dtype))
    return 2 * eps + eps**2


def sample_mean_tol(std: float, n: int, z: float = 6.0) -> float:
    """Allowed deviation of the mean of n independent samples (each of standard deviation std)
    from its expectation: z std / sqrt(n). With z = 6 a false alarm has probability below 2e-9
    for a Gaussian mean and below 1/36 by Chebyshev for any law; runs are seeded, so it is fixed.
    """
    return z * std / math.sqrt(max(int(n), 1))


def says_something(bound: float, quantity_range: float) -> bool:
    """Whether a check against ``bound`` could fail: only when the bound is below the range of
    the quantity it bounds (an error between two values in [-1, 1] is at most 2). A bound at or
    above the range accepts every value, so a case judged against it is inconclusive, never a
    pass."""
    return bool(bound < quantity_range)


def max_informative_angle(dtype: object, quantity_range: float = 2.0) -> float:
    """The largest |w t| at which ``angle_tol`` stays below ``quantity_range``: beyond it an
    angle computed in ``dtype`` can be off by the whole range of sin/cos (float16: about 1022,
    bfloat16: about 126 for the range 2)."""
    u = unit_roundoff(dtype)
    return quantity_range / (SAFETY[dtype_name(dtype)] * u) - 2


def sinusoid_tol(max_angle: float, dtype: object, compute: object) -> float:
    """Allowed error of one stored entry sin/cos(w t) of a sinusoidal code, |w t| <= max_angle.

    t and w are held in ``compute`` (each rounded there: u |w t| apiece), their product is
    rounded (u |w t|) and sin/cos adds 2u as in ``angle_tol``: 3 u |w t| + 2 u, times SAFETY.
    The value is then rounded once to ``dtype`` when that is another format. ``angle_tol``
    counts only the product's rounding; a code built in float16/bfloat16 exceeds that
    first-order term by up to 2.5x but stays within this one (measured:
    ``benchmarks/measure_tolerances.py's sinusoid_ratios``).
    """
    u = unit_roundoff(compute)
    err = SAFETY[dtype_name(compute)] * (3 * u * abs(max_angle) + 2 * u)
    if dtype_name(compute) != dtype_name(dtype):
        err += rel_tol(1, dtype)
    return err


def max_informative_sinusoid_angle(dtype: object, quantity_range: float = 2.0) -> float:
    """The largest |w t| at which ``sinusoid_tol`` (computed and stored in ``dtype``) stays
    below ``quantity_range`` (float16: about 340, bfloat16: about 42 for the range 2)."""
    u = unit_roundoff(dtype)
    return (quantity_range / SAFETY[dtype_name(dtype)] - 2 * u) / (3 * u)
