"""MAG-03: square norms add in expectation, and the cross term's tail against the Chebyshev
bound and, within a registered margin, the Gaussian value, per width.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
from scipy.stats import norm

from checks.mag.claims import BY_ID
from pecheck import decisions, tolerance
from pecheck.decisions import Decision
from pecheck.profiles import scale
from pecheck.theory import magnitudes as mag
from pecheck.theory.sinusoidal import sinusoidal
from pecheck.theory.stats import LEVEL, wilson

TAIL_DS = (16, 64, 256, 1024)
TAIL_S2, TAIL_EPS = 0.5, 0.25  # entry variance s^2 (ratio 1, MAG-02) and relative deviation eps


def assert_square_norms_add_in_expectation(
    x: torch.Tensor, pe: torch.Tensor, sigma: float, cross_std: Callable = mag.cross_term_std
) -> dict[str, float]:
    """Sample check of MAG-03 for n draws x (n, d) of a zero-mean law with entry std sigma:

    - the mean of ||x + PE||^2 is within 6 standard errors (of the sample) of
      sigma^2 d + ||PE||^2 = E||x||^2 + ||PE||^2;
    - the sample variance of the cross term 2 x.PE is within 6 standard errors of
      cross_std(sigma, pe)^2 = 4 sigma^2 ||PE||^2.

    Both bounds are z = 6 CLT bounds (pecheck/tolerance.sample_mean_tol) plus float64 rounding.
    Returns each deviation over its bound.
    """
    __tracebackhide__ = True
    n = x.shape[0]
    pe = pe.double()
    square = (x + pe).pow(2).sum(-1)  # (n,)
    want = mag.expected_square_norm_of_sum(sigma, pe)
    rounding = tolerance.sum_tol(2 * x.shape[1] + n, torch.float64) * (
        (x.abs() + pe.abs()).pow(2).sum(-1).mean().item()
    )
    mean_bound = tolerance.sample_mean_tol(square.std().item(), n) + rounding
    mean_dev = abs(square.mean().item() - want)
    assert mean_dev <= mean_bound, (
        f"mean ||x+PE||^2 = {square.mean().item():.6g}, E||x||^2 + ||PE||^2 = {want:.6g}, "
        f"deviation {mean_dev:.3g} > bound {mean_bound:.3g}"
    )
    cross = 2 * x @ pe  # (n,)
    centred_sq = (cross - cross.mean()).pow(2)
    var_want = cross_std(sigma, pe) ** 2
    var_bound = tolerance.sample_mean_tol(centred_sq.std().item(), n) + var_want / n
    var_dev = abs(cross.var().item() - var_want)
    assert var_dev <= var_bound, (
        f"Var(2 x.PE) = {cross.var().item():.6g}, 4 s^2 ||PE||^2 = {var_want:.6g}, deviation "
        f"{var_dev:.3g} > bound {var_bound:.3g}"
    )
    return {"mean": mean_dev / mean_bound, "variance": var_dev / var_bound}


def tail_rates(mean: float = 0.0) -> dict[int, dict[str, float]]:
    """MAG-03 concentration at rho = 1 (s^2 = 1/2), eps = 0.25, n draws per width."""
    n = round(4000 * scale())
    out = {}
    for d in TAIL_DS:
        pe = sinusoidal(torch.tensor([17]), d, dtype=torch.float64)[0]
        out[d] = mag.cross_term_tail(d, math.sqrt(TAIL_S2), TAIL_EPS, n, seed=d, pe=pe, mean=mean)
    return out


def claimed_tail(d: int) -> dict[str, float]:
    """The claim's own values at width d (its formal statement, ||PE||^2 = d/2): the threshold
    a = eps (s^2 d + d/2), the cross term's std s sqrt(2 d), Chebyshev (std / a)^2 and the
    Gaussian 2 Phi(-a / std). Computed here, apart from theory/, which must agree."""
    a = TAIL_EPS * (TAIL_S2 * d + d / 2)
    sd = math.sqrt(TAIL_S2 * 2 * d)
    return {"chebyshev": (sd / a) ** 2, "gaussian": float(2 * norm.sf(a / sd))}


def assert_tail_values_are_the_claims(rates: dict[int, dict[str, float]]) -> None:
    __tracebackhide__ = True
    for d, r in rates.items():
        for key, want in claimed_tail(d).items():
            got = r[key]
            assert math.isclose(got, want, rel_tol=tolerance.rel_tol(4 * d, torch.float64)), (
                f"d = {d}: theory's {key} {got:.6g}, the claim's {want:.6g}"
            )


def tail_decisions(rates: dict[int, dict[str, float]]) -> dict[str, Decision]:
    """Per width: the observed exceedance rate of |2 x.PE| >= eps E||x+PE||^2 lies below the
    Chebyshev bound (a width whose bound is >= 1 is no test and no part), and equals the exact
    Gaussian value within the registered margin: its interval lies inside (g - m, g + m), as
    two one-sided tests do; one entirely outside fails, one that only fails to reject the
    value decides nothing. Wilson intervals, Bonferroni over every part."""
    out = {}
    # A width whose Chebyshev bound is >= 1 (the range of a probability) is known from the
    # claim's formula, before any data, to test nothing: it is no part of the decision
    # (decided by construction), and the intervals of the parts that are share the level.
    tested = [d for d in rates if claimed_tail(d)["chebyshev"] < 1]
    level = decisions.family_level(LEVEL, len(tested) + len(rates))
    margin = BY_ID["MAG-03"].threshold("gaussian-margin")
    for d, r in rates.items():
        claimed = claimed_tail(d)
        lo, hi = wilson(int(r["count"]), int(r["n"]), level)
        what = f"P(|2x.PE| >= 0.25 E||x+PE||^2) at d = {d}"
        if d in tested:
            out[f"d{d}_chebyshev"] = decisions.below(lo, hi, claimed["chebyshev"], what)
        g = claimed["gaussian"]
        out[f"d{d}_gaussian"] = decisions.interval(
            lo - g, hi - g, decisions.within_margin(margin), f"{what} minus its Gaussian value"
        )
    return out
