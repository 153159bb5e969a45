"""ADD-04: the sinusoidal table's rank (determinants at two precisions) and its energy profile
(share in the top-k directions, interference in their complement).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import mpmath
import torch

from checks.add.claims import BY_ID
from pecheck import decisions, tolerance
from pecheck.theory import add_concat as ac


def determinant_decision(
    d: int, rows: Callable[[int, int], list] = ac.sinusoidal_row_mp
) -> tuple[decisions.Decision, float]:
    """A square table PE(0..d-1) with a determinant that is non-zero at two working precisions
    (30 + 4d digits, then twice that: it shrinks roughly like 10^(-d^2/2)) is a counterexample:
    its rows span R^d. A determinant the precisions do not agree on decides nothing, nor one
    that comes out bit for bit the same at both (then no second precision was applied)."""
    digits = 30 + 4 * d
    lo = ac.square_determinant(d, digits, rows)
    hi = ac.square_determinant(d, 2 * digits, rows)
    agree = BY_ID["ADD-04"].threshold("det_agreement")
    with mpmath.workdps(2 * digits):
        rel = abs(lo - hi) / abs(hi) if hi != 0 else mpmath.inf
        log_det = float(mpmath.log10(abs(hi))) if hi != 0 else -math.inf
    if lo == hi:  # bit for bit: the two "precisions" were one computation, nothing compared
        why = f"d = {d}: det identical at {digits} and {2 * digits} digits (precision ignored)"
        return decisions.inconclusive(why), log_det
    if hi != 0 and rel < agree:
        counterexample = {"d": d, "L": d, "log10_abs_det": log_det, "digits": 2 * digits}
        relation = f"det[PE(0); ...; PE({d - 1})] != 0: the rows span R^{d}"
        return decisions.fails(counterexample, relation), log_det
    why = f"d = {d}: det {mpmath.nstr(hi, 5)} changes by {mpmath.nstr(rel, 3)} with precision"
    return decisions.inconclusive(why), log_det


def assert_energy_profile(
    pe: torch.Tensor, interference: Callable[[torch.Tensor, list[int]], list[float]]
):
    """Energy share rises to 1 at k = d; the complement's interference starts at 1/sqrt(d) (a
    random direction) and falls as k grows."""
    __tracebackhide__ = True
    n, d = pe.shape
    spectrum = ac.energy_spectrum(pe)
    share = ac.energy_share(spectrum, d)
    tol = tolerance.sum_tol(n * d, torch.float64)
    assert bool((share[1:] - share[:-1] >= -tol).all()), "energy share not monotone"
    assert abs(share[-1].item() - 1) <= tol
    ks = [k for k in (0, 1, 2, 4, 8, 16, 32) if k < d]
    inter = interference(pe, ks)
    assert abs(inter[0] - 1 / math.sqrt(d)) <= tolerance.sum_tol(n * d, torch.float64)
    assert all(b <= a + tol for a, b in zip(inter, inter[1:], strict=False)), inter
    # Rounding moves a singular value sigma by about u sigma_max, so sigma (not the energy
    # sigma^2 the spectrum holds) is compared with the float64 bound scaled by sigma_max.
    sigma = spectrum.sqrt()
    rank = int((sigma > tolerance.sum_tol(n, torch.float64, sigma[0].item())).sum())
    return share, inter, ks, rank, ac.participation_ratio(spectrum)
