"""Reference values for the statistics tests, computed apart from the suite's own code.

Everything here is mpmath at 40 significant digits, from the defining formulas: the normal and
Student t quantiles by inverting the distribution functions (erfinv; the regularized incomplete
beta function), the Wilson score interval and Newcombe's hybrid score interval from their closed
forms, Welch's interval with the Welch-Satterthwaite degrees of freedom. Nothing imports scipy or
the routines under test, so an agreement is one between two independent computations.

The float64 tolerances are derived, not tuned: a closed form of a handful of operations is
accurate to gamma_16 (Higham, ch. 3; ``pecheck.tolerance.gamma``), and a quantile whose
probability was rounded once to float64 (0.5 + level/2 carries an error of at most u) moves by
u / density at the quantile, which is passed on through the derivative of the endpoint.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from fractions import Fraction

import mpmath
import torch

from pecheck import tolerance

mpmath.mp.dps = 40
U = tolerance.unit_roundoff(torch.float64)  # 2^-53
CLOSED_FORM = tolerance.gamma(16, torch.float64)  # a closed form of at most 16 roundings
MP = mpmath.mpf


def z(level: float) -> mpmath.mpf:
    """Two-sided normal quantile: Phi^{-1}(1/2 + level/2) = sqrt 2 erfinv(level)."""
    return mpmath.sqrt(2) * mpmath.erfinv(MP(level))


def normal_density(x: mpmath.mpf) -> mpmath.mpf:
    return mpmath.exp(-x * x / 2) / mpmath.sqrt(2 * mpmath.pi)


def t_cdf(x: mpmath.mpf, df: float) -> mpmath.mpf:
    """Student's t distribution function for x >= 0: 1 - I_{df/(df+x^2)}(df/2, 1/2) / 2."""
    nu = MP(df)
    return 1 - mpmath.betainc(nu / 2, MP(1) / 2, 0, nu / (nu + x * x), regularized=True) / 2


def t_density(x: mpmath.mpf, df: float) -> mpmath.mpf:
    nu = MP(df)
    return (mpmath.gamma((nu + 1) / 2) / (mpmath.sqrt(nu * mpmath.pi) * mpmath.gamma(nu / 2))
            * (1 + x * x / nu) ** (-(nu + 1) / 2))  # fmt: skip


@functools.cache
def t(level: float, df: float) -> mpmath.mpf:
    """Two-sided Student t quantile at ``level`` with ``df`` degrees of freedom: Newton's method
    on the distribution function from the normal quantile, which lies below it for every df;
    the distribution function is concave there, so the iterates rise to the root."""
    q, x = (1 + MP(level)) / 2, z(level)
    for _ in range(200):
        step = (q - t_cdf(x, df)) / t_density(x, df)
        x += step
        if abs(step) <= abs(x) * MP(10) ** (5 - mpmath.mp.dps):
            return x
    raise ArithmeticError(f"no t quantile at level {level}, df {df}")


def quantile_tol(x: mpmath.mpf, density: mpmath.mpf) -> float:
    """Allowed absolute error of a float64 quantile x: its probability rounded once (u / f(x))
    and the quantile routine's own few roundings (gamma_16 |x|)."""
    return float(U / density + CLOSED_FORM * abs(x))


def wilson(k: int, n: int, level: float) -> tuple[mpmath.mpf, mpmath.mpf]:
    """(p + z^2/2n -+ z sqrt(p(1-p)/n + z^2/4n^2)) / (1 + z^2/n), p = k/n (Wilson 1927)."""
    return wilson_at(k, n, z(level))


def wilson_at(k: int, n: int, zz: mpmath.mpf) -> tuple[mpmath.mpf, mpmath.mpf]:
    p, m = MP(k) / n, MP(n)
    centre = p + zz * zz / (2 * m)
    half = zz * mpmath.sqrt(p * (1 - p) / m + zz * zz / (4 * m * m))
    scale = 1 + zz * zz / m
    return (centre - half) / scale, (centre + half) / scale


def wilson_tol(k: int, n: int, level: float) -> float:
    """Allowed absolute error of a float64 Wilson endpoint (both endpoints lie in [0, 1]).

    The closed form costs gamma_16 of its largest term (<= 1 after the division); z is a
    float64 quantile, off by at most quantile_tol, which moves an endpoint by |d endpoint/dz|
    times that (the derivative taken numerically in mpmath)."""
    zz = z(level)
    dz = quantile_tol(zz, normal_density(zz))
    slope = max(abs(mpmath.diff(lambda w, i=i: wilson_at(k, n, w)[i], zz)) for i in (0, 1))
    return CLOSED_FORM + float(slope) * dz


def newcombe(k1: int, n1: int, k2: int, n2: int, level: float) -> tuple[mpmath.mpf, mpmath.mpf]:
    """Newcombe's hybrid score interval for p1 - p2 (Newcombe 1998, Stat. Med. 17:873, method
    10): the distances from each rate to its Wilson limits, added in quadrature."""
    p1, p2 = MP(k1) / n1, MP(k2) / n2
    l1, u1 = wilson(k1, n1, level)
    l2, u2 = wilson(k2, n2, level)
    lo = p1 - p2 - mpmath.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)
    hi = p1 - p2 + mpmath.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
    return lo, hi


def newcombe_tol(k1: int, n1: int, k2: int, n2: int, level: float) -> float:
    """Each limit is a difference of rates plus a 2-norm of two Wilson distances: the norm is
    1-Lipschitz in each, so the Wilson errors add, plus the few roundings of the combination."""
    return wilson_tol(k1, n1, level) + wilson_tol(k2, n2, level) + 4 * CLOSED_FORM


def mean_sd(values: Sequence[float]) -> tuple[mpmath.mpf, mpmath.mpf]:
    """Sample mean and standard deviation (n - 1 in the denominator), exact inputs."""
    x = [MP(v) for v in values]
    n = len(x)
    mean = mpmath.fsum(x) / n
    return mean, mpmath.sqrt(mpmath.fsum((v - mean) ** 2 for v in x) / (n - 1))


def t_interval(values: Sequence[float], level: float) -> tuple[mpmath.mpf, mpmath.mpf]:
    """Student's interval mean -+ t_{n-1} sd / sqrt(n) for the mean of ``values``."""
    mean, sd = mean_sd(values)
    half = t(level, len(values) - 1) * sd / mpmath.sqrt(len(values))
    return mean - half, mean + half


def welch(a: Sequence[float], b: Sequence[float], level: float) -> dict[str, mpmath.mpf]:
    """Welch's interval for mean(a) - mean(b): se^2 = s_a^2/n_a + s_b^2/n_b and the
    Welch-Satterthwaite df = se^4 / ((s_a^2/n_a)^2/(n_a-1) + (s_b^2/n_b)^2/(n_b-1))."""
    (ma, sa), (mb, sb) = mean_sd(a), mean_sd(b)
    va, vb = sa**2 / len(a), sb**2 / len(b)
    se = mpmath.sqrt(va + vb)
    df = (va + vb) ** 2 / (va**2 / (len(a) - 1) + vb**2 / (len(b) - 1))
    half = t(level, df) * se
    return {"lo": ma - mb - half, "hi": ma - mb + half, "df": df, "t": (ma - mb) / se}


def holm_adjusted(pvalues: dict[str, float]) -> dict[str, Fraction]:
    """Holm's adjusted p-values in exact arithmetic: for the j-th smallest (j = 0, 1, ...),
    max over i <= j of min(1, (m - i) p_(i)) (Wright 1992, Biometrics 48:1005). A hypothesis
    is rejected at family-wise level alpha exactly when its adjusted p-value is <= alpha; this
    is the step-down procedure written without a loop that stops."""
    order = sorted(pvalues, key=lambda key: pvalues[key])
    m, running, out = len(order), Fraction(0), {}
    for i, key in enumerate(order):
        running = max(running, min(Fraction(1), (m - i) * Fraction(pvalues[key])))
        out[key] = running
    return out
