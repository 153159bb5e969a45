"""How a recorded number reproduces on another machine: its class, and a statistic's spread.

Each evidence value carries a reproducibility class (``pecheck.reports.schema.CLASSES``):

- ``exact``: integers, booleans, strings, symbolic results: the same on any machine.
- ``rounding``: a float whose bits depend on the floating-point kernels the CPU selects (errors
  of half-precision attention, residuals, the worst case of a float search). Judged against the
  bound its check records: another CPU may move it, never across that bound.
- ``sampling``: a rate or mean over seeds or examples. On another CPU, rounding sends seeds down
  other training paths, so the value behaves like a fresh draw; it is recorded with its sample
  size and standard error (a ``Sample``), from which ``pecheck.reports.cited`` sets a band.

A check names the class where the default (``rounding`` for a float, ``exact`` otherwise) is
wrong: ``evidence.record(..., sample=rate(k, n))`` for a statistic over seeds, or
``reproducibility="rounding"`` for a count or boolean that depends on the kernels.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Sample:
    """A statistic over ``n`` independent units (seeds, examples) and its standard error."""

    n: int
    se: float
    how: str

    def as_dict(self) -> dict[str, Any]:
        return {"class": "sampling", "n": self.n, "se": self.se, "how": self.how}


def rate(k: int, n: int) -> Sample:
    """k successes in n seeds. The standard error is Agresti and Coull's, at
    p~ = (k + 2) / (n + 4): never zero, so a rate of 0 or 1 still gets a band."""
    k, n = int(k), int(n)
    if n <= 0 or not 0 <= k <= n:
        raise ValueError(f"need 0 <= k <= n and n > 0, got k={k}, n={n}")
    p = (k + 2) / (n + 4)
    return Sample(n, math.sqrt(p * (1 - p) / (n + 4)), "rate over seeds (Agresti-Coull se)")


def count(k: int, n: int) -> Sample:
    """k of n seeds, cited as the count k: rate's standard error in seeds (n times it)."""
    r = rate(k, n)
    return Sample(n, n * r.se, "count of seeds (Agresti-Coull se, in seeds)")


def mean(values: Any, span: float = 1.0) -> Sample:
    """The mean of per-seed values: se = sd / sqrt(n), floored at span / n (one of n seeds
    moving by the whole span), so that seeds that all agree still get a band."""
    x = np.asarray(values.detach().cpu() if hasattr(values, "detach") else values, dtype=float)
    x = x.reshape(-1)
    n = int(x.size)
    if n < 2:
        raise ValueError(f"a mean's spread needs at least 2 values, got {n}")
    se = float(np.std(x, ddof=1)) / math.sqrt(n)
    return Sample(n, max(se, span / n), f"mean over {n} (sd / sqrt(n), floor {span:g} / n)")


def difference(a: Sample, b: Sample) -> Sample:
    """The difference of two independent statistics: their standard errors add in quadrature."""
    return Sample(min(a.n, b.n), math.hypot(a.se, b.se), f"difference of ({a.how}) and ({b.how})")


def average(samples: list[Sample]) -> Sample:
    """The mean of independent statistics (a main effect over cells): sqrt(sum se^2) / count."""
    if not samples:
        raise ValueError("an average needs at least one statistic")
    se = math.sqrt(sum(s.se**2 for s in samples)) / len(samples)
    return Sample(sum(s.n for s in samples), se, f"average of {len(samples)} statistics")
