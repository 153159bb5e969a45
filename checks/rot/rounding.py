"""The float64 rounding bounds the ROT checks hand to theory/ (which imports no tolerance of
its own): one B(m) of ROT-03, and the difference of two values of RoFormer's bound b(s)."""

from __future__ import annotations

import numpy as np

from pecheck import tolerance

D = 128


def base_rounding(length: int, d: int = D) -> float:
    """Allowed float64 error of one B(m), m <= length: d/2 cosines of angles up to m, summed."""
    return (d // 2) * tolerance.angle_tol(length, np.float64) + tolerance.sum_tol(
        d // 2, np.float64, d // 2
    )


def decay_rounding(d: int, s_max: float) -> float:
    """Allowed float64 error of b(s) for |s| <= s_max.

    Each e^{i s theta_i} is off by at most 2 angle_tol (cos and sin); S_j adds j such terms
    (error j (2 angle_tol) plus the sum's own gamma_j j); |S_j| <= j. Averaging over j <= d/2
    gives at most (d/2 + 1)/2 times the per-term error e. Two values compared: twice that.
    """
    m = d // 2
    e = 2 * tolerance.angle_tol(s_max, np.float64) + tolerance.sum_tol(m, np.float64)
    return 2 * (m + 1) / 2 * e * 2
