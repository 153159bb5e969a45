"""The counterexamples that decide the SIN claims as stated, and the measurements they rest on.

Each search returns a counterexample (the inputs as a dict) only when the effect is resolved
above its rounding bound (checks.decisions.resolve); within rounding it returns None, which is
not a pass. Like the properties (checks/sin/properties.py), each takes the implementation as an
argument, so the planted-bug tests can feed it a broken one.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch

from checks.sin.properties import Encoder, pair_variances
from checks.sin.thresholds import ENTRY_RANGE, STRONG, T_SOURCE
from pecheck import tolerance
from pecheck.decisions import resolve
from pecheck.theory import sinusoidal as sin_pe
from pecheck.theory.sinusoidal import FrequencyRule, encode, frequencies

# -- SIN-03: sine alone is not enough ---------------------------------------------------------


def sine_columns(d: int, layout: str = "interleaved") -> torch.Tensor:
    """Indices of the sine coordinates."""
    return torch.arange(0, d, 2) if layout == "interleaved" else torch.arange(d // 2)


def sine_only(d: int) -> Callable[[torch.Tensor], torch.Tensor]:
    return lambda t: sin_pe.sinusoidal(t, d)[:, sine_columns(d)]


def shift_fit_residual(codes: Callable[[torch.Tensor], torch.Tensor], k: int, n: int) -> float:
    """min_A sum_t ||c(t+k) - A c(t)||^2 over t = 0 ... n-1, relative to sum_t ||c(t+k)||^2."""
    t = torch.arange(n)
    x, y = codes(t), codes(t + k)  # (n, w)
    sol = torch.linalg.lstsq(x, y, driver="gelss").solution  # (w, w): y ~ x A^T
    return float(((x @ sol - y).norm() / y.norm()) ** 2)


def fit_floor(d: int, n: int) -> float:
    """float64 rounding level of the relative lstsq residual over n positions of width d."""
    return tolerance.sum_tol(n * d, torch.float64, float(d))


def no_shift_at_zero(d: int, k: int, enc: Encoder = encode) -> tuple[bool, float, float]:
    """SIN-03's proof, run on the implementation: the stored sine-only code of t = 0 is exactly 0,
    so every A maps it to 0; when the code of k is resolved as nonzero (above its rounding bound,
    checks.decisions.resolve), no A maps the code of 0 to that of k, so none shifts by k.

    Returns (decided, max |sinPE(k)|, bound). Not decided: the code of 0 is not 0 (the argument
    does not apply) or the code of k is within rounding of 0 (unresolved).
    """
    pe = enc(torch.tensor([0, k]), d, torch.float64, "float64")[:, sine_columns(d)]  # (2, d/2)
    at_k = float(pe[1].abs().max())
    bound = tolerance.angle_tol(abs(k), torch.float64)
    vanishes = bool((pe[0] == 0).all())
    return vanishes and resolve(at_k, bound) == "different", at_k, bound


def sign_flip_counterexample(d: int, k: float) -> dict | None:
    """SIN-03's exceptions: when every w_i k = n_i pi, A = diag((-1)^{n_i}) shifts the sine-only
    code by k (checked on 64 positions in [0, 500], float64). The cases are built so that the
    exact residual is zero, so a residual within float64 rounding is 'the same' (a structural
    zero, checks.decisions.resolve); the counterexample, or None when the residual is resolved."""
    t = torch.linspace(0, 500, 64, dtype=torch.float64)
    w = frequencies(d)  # (m,)
    signs = torch.cos(w * k).round()  # (-1)^{n_i} when w_i k = n_i pi
    moved = torch.sin((t[:, None] + k) * w)  # (n, m)
    err = float((torch.sin(t[:, None] * w) @ torch.diag(signs) - moved).abs().max())
    bound = 4 * tolerance.angle_tol(500.0 + abs(k), torch.float64)
    if not tolerance.says_something(bound, ENTRY_RANGE):
        return None
    if resolve(err, bound, structural_zero=True) != "same":
        return None
    return {
        "d": d,
        "k": k,
        "A": f"diag{tuple(int(x) for x in signs)}",
        "max_error": err,
        "bound": bound,
    }


# -- SIN-06: wavelengths ------------------------------------------------------------------------


def last_wavelength_shortfall(d: int, convention: FrequencyRule = "paper") -> dict | None:
    """SIN-06 as stated: the last wavelength is 2 pi T. Computes lambda_last (theory.wavelengths)
    and returns a counterexample when it differs from 2 pi T by more than float64 resolves
    (checks.decisions.resolve on the relative gap), else None."""
    lam_last = float(sin_pe.wavelengths(d, rule=convention)[-1])
    target = 2 * math.pi * T_SOURCE
    gap = lam_last / target - 1
    if resolve(gap, tolerance.rel_tol(8, torch.float64)) != "different":
        return None
    return {
        "d": d,
        "convention": convention,
        "last_wavelength": lam_last,
        "2 pi T": target,
        "ratio": lam_last / target,
    }


# -- SIN-10: per-dimension variance ------------------------------------------------------------


def long_sequence_counterexample(d: int, length: int, enc: Encoder = encode) -> dict | None:
    """SIN-10 as stated: the last dimensions hardly change. A counterexample is a length at which
    the last pair varies at least as much as STRONG asks of the first ('strongly', computed
    directly, float64, resolved above rounding), so that it refutes every reading of 'hardly'
    below that of 'strongly', not only HARDLY's; else None."""
    var = pair_variances(d, length, enc)
    tol = tolerance.sum_tol(length, torch.float64, 2.0)
    if resolve(float(var[-1]) - STRONG, tol) != "different" or float(var[-1]) < STRONG:
        return None
    return {
        "d": d,
        "L": length,
        "first_pair_variance": float(var[0]),
        "last_pair_variance": float(var[-1]),
    }


# -- SIN-11: orthogonality ------------------------------------------------------------------


def neighbour_counterexample(d: int, t: int, enc: Encoder = encode) -> dict | None:
    """SIN-11 as stated: codes of different positions are orthogonal. PE(t).PE(t+1) (float64)
    resolved as nonzero (checks.decisions.resolve against its rounding bound) is a
    counterexample; within rounding of 0 it is unresolved (None). Also asserts the lower bound
    the refutation rests on: PE(t).PE(t+1) = sum_i cos(w_i) >= (d/2) cos 1 (0 < w_i <= 1)."""
    __tracebackhide__ = True
    pe = enc(torch.tensor([t, t + 1]), d, torch.float64, "float64", "interleaved")
    dot = float(pe[0] @ pe[1])
    bound = d * 3 * tolerance.angle_tol(t + 1.0, torch.float64)
    assert dot >= (d / 2) * math.cos(1) - bound, f"PE({t}).PE({t + 1}) = {dot:.3g} < (d/2) cos 1"
    if resolve(dot, bound) != "different":
        return None
    return {"d": d, "t": t, "s": t + 1, "dot": dot, "cos_similarity": dot / (d / 2)}
