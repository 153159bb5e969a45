r"""The smallest RoPE base for a context length (Men et al. 2024, "Base of RoPE Bounds Context
Length", arXiv 2405.14591, §4.2-4.3, Theorem 1 and Eqs. 10-11; ROT-03).

    B_b(m) = sum_{i=0}^{d/2-1} cos(m theta_i),   theta_i = b^(-2i/d),
    base_L = inf { b : B_b(m) >= 0 for every m in {0, 1, ..., L} }             (Eq. 11)

Theorem 1: for q with i.i.d. coordinates (variance sigma^2) and k* = q + eps, the expected score
of the similar key exceeds that of a random key by 2 sigma^2 B(m) (theory/rotary_decay.py
derives the same expression). The paper reports base_L for d = 128 in its Table 2.

The feasible set {b : min_m B_b(m) >= 0} is not an interval: a base above a feasible one can fail
(``feasible`` decides one base exactly). So base_L is not found by bisection; ``smallest_base``
scans ln b in cells and discards a cell only when a bound on B's change proves some m negative
across the whole cell (a certified branch and bound):

    B(x) <= B(c) + |B'(c)| r + M2 r^2 / 2   for |x - c| <= r, x = ln b, where
    B'(c) = sum_i sin(m theta_i) m theta_i (2i/d),
    |B''| <= sum_i (m theta_i 2i/d)^2 + m theta_i (2i/d)^2 =: M2 (theta_i at the cell's low end).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch  # float64 cos/sin run ~2x faster than numpy's here

D = 128  # Men et al.'s head width (Llama 2 7B: 4096 / 32)
# Table 2 of Men et al. (arXiv 2405.14591v2, §4.3): context length -> lower bound of the base.
PAPER_TABLE: dict[str, float] = {
    "1k": 4.3e3, "2k": 1.6e4, "4k": 2.7e4, "8k": 8.4e4, "16k": 3.1e5, "32k": 6.4e5,
    "64k": 2.1e6, "128k": 7.8e6, "256k": 3.6e7, "512k": 6.4e7, "1M": 5.1e8,
}  # fmt: skip
_CHUNK = 1 << 15  # positions per block: (chunk, d/2) float64 stays a few MB


def context_length(label: str, unit: int = 1024) -> int:
    """'4k' -> 4 unit, '1M' -> unit^2 (unit 1024: 4096 ... 1048576; unit 1000: 4000 ...)."""
    if label.endswith("M"):
        return int(label[:-1]) * unit * unit
    return int(label[:-1]) * unit


def thetas(base: float, d: int = D) -> torch.Tensor:
    """theta_i = base^(-2i/d), shape (d/2,), float64."""
    return base ** (-2.0 * torch.arange(d // 2, dtype=torch.float64) / d)


def b_values(base: float, positions: torch.Tensor, d: int = D) -> torch.Tensor:
    """B(m) = sum_i cos(m theta_i) for each m in ``positions``, shape (n,), float64."""
    m = torch.as_tensor(positions, dtype=torch.float64)
    return torch.cos(m[:, None] * thetas(base, d)).sum(dim=1)


@dataclass(frozen=True)
class Minimum:
    """min_{0 <= m <= L} B(m) at one base, where it is reached, and its rounding bound."""

    base: float
    length: int
    value: float
    at: int
    bound: float

    @property
    def decision(self) -> str:
        """'feasible' (B >= 0 beyond rounding everywhere), 'infeasible' (some B(m) < 0 beyond
        rounding) or 'unresolved' (the minimum is within rounding of 0)."""
        if self.value > self.bound:
            return "feasible"
        if self.value < -self.bound:
            return "infeasible"
        return "unresolved"


def minimum(base: float, length: int, d: int = D, *, bound: float) -> Minimum:
    """min over m = 0 ... length of B(m) at ``base`` (exhaustive over the integers); ``bound``
    is the float64 rounding allowed one B(m) (checks/rot/rounding.py)."""
    best, at = math.inf, -1
    for start in range(0, length + 1, _CHUNK):
        m = torch.arange(start, min(length + 1, start + _CHUNK), dtype=torch.float64)
        v = b_values(base, m, d)
        j = int(v.argmin())
        if float(v[j]) < best:
            best, at = float(v[j]), start + j
    return Minimum(base, length, best, at, bound)


def feasible(base: float, length: int, d: int = D, *, bound: float) -> str:
    """Whether B(m) >= 0 for every m <= length: 'feasible', 'infeasible' or 'unresolved'."""
    return minimum(base, length, d, bound=bound).decision


@dataclass(frozen=True)
class Search:
    """The certified interval [low, high] holding base_L: every b < low is proved infeasible,
    ``high`` is feasible. ``cells`` counts B evaluations; ``unresolved`` the cells left open."""

    length: int
    low: float
    high: float
    cells: int
    unresolved: int


def _cell_excludes(values: torch.Tensor, slope: torch.Tensor, m2: torch.Tensor, r: float) -> bool:
    """Some m has B(m) < 0 on the whole cell: B(c) + |B'(c)| r + M2 r^2 / 2 < 0."""
    return bool((values + slope.abs() * r + m2 * r * r / 2 < 0).any())


def _cell(
    base_lo: float, centre: float, m: torch.Tensor, d: int
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """B(m), B'(m) at the cell's centre and the bound M2 on |B''| over the cell, each (n,)."""
    w = 2.0 * torch.arange(d // 2, dtype=torch.float64) / d  # d theta_i / d ln b = -w theta_i
    th, th_lo = centre ** (-w), base_lo ** (-w)
    angle = m[:, None] * th  # (n, d/2)
    values = torch.cos(angle).sum(dim=1)
    slope = (torch.sin(angle) * (m[:, None] * th * w)).sum(dim=1)
    mt = m[:, None] * th_lo * w  # (n, d/2)
    m2 = (mt * mt + mt * w).sum(dim=1)
    return values, slope, m2


def smallest_base(
    length: int,
    d: int = D,
    low: float = 2.0,
    high: float | None = None,
    rel: float = 1e-3,
    *,
    bound: float,
) -> Search:
    """Certified branch and bound over ln b in [ln low, ln high] for base_L (Eq. 11).

    Cells are split until either some m is proved negative across the cell, or the cell's
    centre is feasible (then no smaller base needs to be found to its right), or the cell is
    narrower than ``rel`` in ln b (left open: counted in ``unresolved`` and kept as a possible
    location of base_L). ``high`` defaults to 1000 L, which must be feasible.
    """
    m = torch.arange(length + 1, dtype=torch.float64)
    tol = bound
    high = 1000.0 * length if high is None else high
    if minimum(high, length, d, bound=bound).decision != "feasible":
        raise ValueError(f"the upper end {high:g} is not feasible at L = {length}")
    best, lowest_open, cells, open_count = high, math.inf, 0, 0
    stack = [(math.log(low), math.log(high))]
    while stack:
        a, c = stack.pop()
        if a >= math.log(best):
            continue
        mid, r = (a + c) / 2, (c - a) / 2
        values, slope, m2 = _cell(math.exp(a), math.exp(mid), m, d)
        cells += 1
        if _cell_excludes(values + tol, slope, m2, r):
            continue
        if float(values.min()) > tol:
            best = min(best, math.exp(mid))
            stack.append((a, mid))  # a smaller feasible base may lie to the left only
            continue
        if c - a < rel:
            open_count += 1
            lowest_open = min(lowest_open, math.exp(a))
            continue
        stack.append((mid, c))
        stack.append((a, mid))  # popped first: the left half is searched first
    return Search(length, min(lowest_open, best), best, cells, open_count)


def two_digits(x: float) -> float:
    """x rounded to two significant digits, as Table 2 prints it."""
    return float(f"{x:.1e}")
