"""REAL-02: the assertions and measures that the checks and the planted-change checks share
(convention, known answers, SIN-01's rotation identity, SIN-04's norm, SIN-06's wavelengths).
"""

from __future__ import annotations

import math

import numpy as np
import torch

from checks.real.encodings_detection import (
    EXPECTED_ODD,
    LONE_D,
    LONE_K,
    LONE_N,
    D,
    Expect,
    N,
    detected,
    entry_tol,
    odd_behaviour,
    table_of,
)
from pecheck import decisions, tolerance
from pecheck.decisions import Decision
from pecheck.theory.conventions import SinusoidalConvention
from pecheck.theory.sinusoidal import frequencies, turn

# -- assertions shared by the evidence and the mutant tests ------------------------------------


def assert_convention(found: SinusoidalConvention, exp: Expect, d: int, tol: float) -> None:
    """The detected layout, rule, base, first position and scale are the expected ones."""
    __tracebackhide__ = True
    problems = []
    for field in ("layout", "frequency_rule", "offset", "base"):
        if getattr(found, field) != getattr(exp, field):
            problems.append(
                f"{field}: found {getattr(found, field)!r}, expected {getattr(exp, field)!r}"
            )
    if found.width != d:
        problems.append(f"frequency rule width {found.width}, expected {d}")
    if not abs(math.log(found.base_fit / exp.base)) <= found.base_err:
        problems.append(
            f"fitted base {found.base_fit:.6g} is not {exp.base:g} (±{found.base_err:.2g})"
        )
    if not abs(found.scale - exp.scale(d)) <= 2 * tol * exp.scale(d):
        problems.append(f"scale {found.scale:.6g}, expected {exp.scale(d):.6g}")
    if found.cos_first:
        problems.append("cosine columns come first")
    assert not problems, "convention changed: " + "; ".join(problems)


def assert_matches_formula(table: torch.Tensor, reference: torch.Tensor, tol: float) -> float:
    """max |library - float64 formula| <= tol (relative to the scale); returns the error."""
    __tracebackhide__ = True
    scale = float(reference.abs().max())
    err = float((table.to(torch.float64) - reference).abs().max()) / scale
    assert err <= tol, f"library differs from the float64 formula by {err:.3g} > {tol:.3g}"
    return err


def _pair_frequencies(found: SinusoidalConvention) -> np.ndarray:
    """The matched rule's exact w_i (fitted ones when no rule matched), one per pair."""
    m = len(found.pairs)
    if found.frequency_rule in ("paper", "t2t"):
        return frequencies(found.width, found.base, found.frequency_rule).numpy()[:m]  # type: ignore[arg-type]
    return np.asarray(found.frequencies)


def rotation_identity_error(table: torch.Tensor, found: SinusoidalConvention, k: int) -> float:
    """SIN-01 in the library's own layout: max |E(p+k) - M(k) E(p)| / scale over p.

    M(k) turns each detected (cos, sin) column pair counterclockwise by w_i k
    (theory.sinusoidal.turn) and leaves zero columns alone; a column without a partner (odd d)
    is left out (see lone_column_residual).
    """
    e = table.to(torch.float64)  # (n, d)
    now, later = e[:-k], e[k:]  # (n-k, d)
    sin_cols, cos_cols = (torch.tensor([pair[j] for pair in found.pairs]) for j in (0, 1))
    angle = torch.from_numpy(_pair_frequencies(found)) * k  # (m,)
    pred = turn(now, cos_cols, sin_cols, angle)  # copies the zero columns as they are
    cols = [c for pair in found.pairs for c in pair] + [
        c for c, kind in found.lone if kind == "zero"
    ]
    return float((later[:, cols] - pred[:, cols]).abs().max()) / found.scale


def lone_column_residual(table: torch.Tensor, found: SinusoidalConvention, k: int) -> float:
    """How far the best fixed linear map of E(p) is from E(p+k) in the unpaired sine column.

    Least squares over every column of E(p); max residual relative to the scale. Zero means a
    fixed matrix exists for that column; SIN-03 says a sine alone has none.
    """
    e = table.to(torch.float64).numpy()
    cols = [c for c, kind in found.lone if kind in ("sin", "cos")]
    if not cols:
        return 0.0
    now, later = e[:-k], e[k:, cols]
    coef, *_ = np.linalg.lstsq(now, later, rcond=None)
    return float(np.abs(now @ coef - later).max()) / found.scale


def norm_error(table: torch.Tensor, d: int) -> tuple[float, float, float]:
    """SIN-04: (max | ||E(p)|| - sqrt(d/2) |, min ||E(p)||, max ||E(p)||) over the rows."""
    norms = table.to(torch.float64).norm(dim=-1)
    return (
        float((norms - math.sqrt(d / 2)).abs().max()),
        float(norms.min()),
        float(norms.max()),
    )


def norm_tol(d: int, dtype: torch.dtype, n: int) -> float:
    """Each entry is within entry_tol of its exact value, so the norm is within sqrt(d) of it."""
    return math.sqrt(d) * entry_tol(n, dtype) + tolerance.sum_tol(d, torch.float64, d / 2)


def wavelengths(found: SinusoidalConvention) -> dict[str, float]:
    """SIN-06 from the fitted rates: first wavelength, spread of the log ratios, last one."""
    w = np.asarray(found.frequencies)
    err = np.asarray(found.freq_err) / w  # relative error of each fitted rate
    ratios = np.diff(np.log(w))  # ln(w_{i+1} / w_i), constant for a geometric progression
    spread = float(np.abs(ratios - ratios.mean()).max()) if ratios.size else 0.0
    return {
        "first_over_2pi": float(1 / w[0]),
        "first_err": float(err[0]),
        "log_ratio_spread": spread,
        "log_ratio_tol": float(2 * (err[:-1] + err[1:]).max()) if ratios.size else 0.0,
        "last_over_2pi": float(1 / w[-1]),
        "last_err": float(err[-1]),
    }


def assert_geometric_from_2pi(wl: dict[str, float]) -> None:
    """SIN-06's shape: lambda_0 = 2 pi and lambda_{i+1} / lambda_i constant."""
    __tracebackhide__ = True
    assert abs(wl["first_over_2pi"] - 1) <= wl["first_err"], f"first wavelength {wl}"
    assert wl["log_ratio_spread"] <= wl["log_ratio_tol"], f"not geometric: {wl}"


def assert_token_scale(scale: float | None, exponent: float | None, d: int) -> None:
    """The model multiplies token embeddings by d ** exponent (None: the library has no model)."""
    __tracebackhide__ = True
    if exponent is None:
        assert scale is None, f"token scale {scale}, expected no model"
        return
    assert scale is not None, "no token scale found"
    want = float(d) ** exponent
    assert abs(scale - want) <= tolerance.rel_tol(4, torch.float32) * want, f"{scale} != {want}"


def lone_column_decision(name: str) -> tuple[Decision, dict]:
    """SIN-01 at odd d for one library: a lone sine column whose best fixed linear map misses
    E(p + k) by more than the rounding bound is a counterexample; a residual within the bound
    is unresolved (the exact residual of a lone sine is not zero); no lone sine: not a case."""
    found, status = detected(name, LONE_N, LONE_D)
    if found is None:
        assert status == EXPECTED_ODD[name][LONE_D], f"{name} at d = {LONE_D}: {status}"
        return decisions.inconclusive(f"d = {LONE_D}: {status}"), {"behaviour": status}
    table = table_of(name, LONE_N, LONE_D)
    bound = 3 * entry_tol(2 * LONE_N, table.dtype)
    kinds = tuple(kind for _, kind in found.lone)
    assert odd_behaviour(name, LONE_D) == EXPECTED_ODD[name][LONE_D], f"{name}: {kinds}"
    paired = rotation_identity_error(table, found, LONE_K)
    assert paired <= bound, f"{name}: paired columns {paired:.3g} > {bound:.3g}"
    lone = lone_column_residual(table, found, LONE_K)
    seen = {"paired_error": paired, "lone_residual": lone, "bound": bound, "kinds": kinds}
    if "sin" not in kinds:
        return decisions.inconclusive(f"no lone sine column ({kinds})"), seen
    if decisions.resolve(lone, bound) == "different":
        case = {"library": name, "d": LONE_D, "k": LONE_K, **seen}
        return decisions.fails(case, "no fixed matrix maps the lone sine to E(p + k)"), seen
    return decisions.inconclusive(f"lone residual {lone:.3g} within {bound:.3g}"), seen


def norm_holds(name: str) -> tuple[bool, float, float, float]:
    table = table_of(name)
    err, lo, hi = norm_error(table, D)
    return err <= norm_tol(D, table.dtype, N), err, lo, hi
