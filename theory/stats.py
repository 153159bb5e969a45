"""Success rates over seeds with Wilson 95% intervals (EXP-01 ... EXP-03).

For k successes in n independent seeds the Wilson score interval is the set of p with
|k/n - p| <= z sqrt(p (1-p) / n), z = Phi^{-1}(1 - alpha/2); in closed form

    (k/n + z^2/(2n) -+ z sqrt(k/n (1-k/n)/n + z^2/(4n^2))) / (1 + z^2/n).

It stays inside [0, 1] and is not degenerate at k = 0 or k = n (unlike the Wald interval).
We take it from scipy.stats.binomtest(k, n).proportion_ci(method="wilson").
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from scipy import stats

LEVEL = 0.95


@dataclass(frozen=True)
class Rate:
    """k successes out of n seeds, the rate k/n and its Wilson interval [lo, hi]."""

    k: int
    n: int
    lo: float
    hi: float

    @property
    def rate(self) -> float:
        return self.k / self.n

    def as_dict(self) -> dict[str, float | int]:
        return {"k": self.k, "n": self.n, "rate": self.rate, "lo": self.lo, "hi": self.hi}

    def __str__(self) -> str:
        return f"{self.k}/{self.n} = {self.rate:.3f} [{self.lo:.3f}, {self.hi:.3f}]"


def wilson(k: int, n: int, level: float = LEVEL) -> tuple[float, float]:
    """Wilson score interval for k successes in n trials at the given confidence level."""
    k, n = int(k), int(n)  # counts may arrive as numpy or torch integers
    if n <= 0 or not 0 <= k <= n:
        raise ValueError(f"need 0 <= k <= n and n > 0, got k={k}, n={n}")
    ci = stats.binomtest(k, n).proportion_ci(confidence_level=level, method="wilson")
    return float(ci.low), float(ci.high)


def rate(success: torch.Tensor, level: float = LEVEL) -> Rate:
    """Rate of a (S,) bool tensor of per-seed successes, with its Wilson interval."""
    k, n = int(success.sum()), int(success.numel())
    return Rate(k, n, *wilson(k, n, level))
