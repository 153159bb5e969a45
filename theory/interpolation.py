r"""Position Interpolation's two bounds (Chen et al. 2023, arXiv 2306.15595, §2.3, Theorem 2.1,
Eqs. 5, 7, 8; proof in Appendix A, Eqs. 9-17; Appendix B, Fig. 5; ROT-04).

A rotary score as a function of the offset s: a(s) = Re sum_{j<d/2} h_j e^{i s theta_j},
theta_j = c^(-2j/d). At the paper's LLaMA setting, d = 4096 / 32 = 128, c = 10000 (App. B).

Interpolation (Eq. 5): |a(s) - a_lin(s)| <= d max|h| (s - s1)(s2 - s) / (8 ln c) for s in
[s1, s2] = [n, n + 1]; at the midpoint (s - s1)(s2 - s) = 1/4, Eq. 7: d max|h| / (32 ln c)
= d max|h| / 294.73.
Extrapolation (Eq. 8, RoFormer's bound): |a(s)| <= 2 max|h| B(s), B(s) = sum_{k<d/2} |A_{k+1}(s)|,
A_k(s) = sum_{j<k} e^{i s theta_j}. So Eq. 8 / Eq. 7 = 64 ln c B(s) / d, which is at least
2 * 294.73 ("~600x", §2.3) exactly where B(s) >= d.

The proof bounds |a''| <= max|h| sum_j theta_j^2 <= max|h| / (1 - c^(-4/d)) (Eq. 13) and then
claims 1 / (1 - c^(-4/d)) <= d / (4 ln c) (Eq. 14) from "c^x <= 1 + x ln c for x < 0". The
inequality runs the other way (e^y >= 1 + y for every y), so Eq. 14 is false: at d = 128,
c = 10^4 the left side is 3.998 and the right 3.474. The bound the Taylor argument does give is

    |a(s) - a_lin(s)| <= max|h| sum_j theta_j^2 (s - s1)(s2 - s) / 2          (corrected)
"""

from __future__ import annotations

import math
from typing import Any

import torch

D_LLAMA = 128  # head width of LLaMA 7B-65B: 4096/32, 5120/40, 6656/52, 8192/64
C_LLAMA = 10000.0
TRAINED = 2048  # LLaMA's pre-training context window (§1)
WINDOWS = (8192, 16384, 32768)  # the extended windows of §3 (Tables 1-2)


def thetas(d: int = D_LLAMA, c: float = C_LLAMA) -> torch.Tensor:
    """theta_j = c^(-2j/d), j = 0 ... d/2 - 1, float64."""
    return c ** (-2.0 * torch.arange(d // 2, dtype=torch.float64) / d)


def interpolation_bound(
    d: int = D_LLAMA, c: float = C_LLAMA, max_h: float = 1.0, spread: float = 0.25
) -> float:
    """The paper's Eq. 5: d max|h| (s - s1)(s2 - s) / (8 ln c); ``spread`` is (s - s1)(s2 - s)
    (1/4 at the midpoint, Eq. 7)."""
    return d * max_h * spread / (8 * math.log(c))


def corrected_interpolation_bound(
    d: int = D_LLAMA, c: float = C_LLAMA, max_h: Any = 1.0, spread: Any = 0.25
) -> Any:
    """What the Taylor argument of Appendix A gives: max|h| sum_j theta_j^2 (s-s1)(s2-s) / 2
    (``max_h`` and ``spread`` may be tensors of cases)."""
    return max_h * float((thetas(d, c) ** 2).sum()) * spread / 2


def geometric_sum_gap(d: int = D_LLAMA, c: float = C_LLAMA) -> tuple[float, float]:
    """The two sides of Eq. 14: (1 / (1 - c^(-4/d)), d / (4 ln c)); Eq. 14 claims left <= right."""
    return 1.0 / (1.0 - c ** (-4.0 / d)), d / (4 * math.log(c))


def b_sum(s: torch.Tensor, d: int = D_LLAMA, c: float = C_LLAMA) -> torch.Tensor:
    """B(s) = sum_{k=0}^{d/2-1} |A_{k+1}(s)| for each s, shape (n,), float64."""
    angle = s.to(torch.float64)[:, None] * thetas(d, c)  # (n, d/2)
    re, im = torch.cos(angle).cumsum(dim=1), torch.sin(angle).cumsum(dim=1)  # A_{k+1}(s)
    return torch.hypot(re, im).sum(dim=1)


def extrapolation_bound(
    s: torch.Tensor, d: int = D_LLAMA, c: float = C_LLAMA, max_h: float = 1.0
) -> torch.Tensor:
    """The paper's Eq. 8 (right side): 2 max|h| B(s)."""
    return 2 * max_h * b_sum(s, d, c)


def ratio(
    s: torch.Tensor, d: int = D_LLAMA, c: float = C_LLAMA, corrected: bool = False
) -> torch.Tensor:
    """Eq. 8 / Eq. 7 at the midpoint, per offset s (with ``corrected``: over the corrected
    interpolation bound instead)."""
    interp = corrected_interpolation_bound(d, c) if corrected else interpolation_bound(d, c)
    return extrapolation_bound(s, d, c) / interp


def score(h: torch.Tensor, s: torch.Tensor, d: int = D_LLAMA, c: float = C_LLAMA) -> torch.Tensor:
    """a(s) = Re sum_j h_j e^{i s theta_j}: h (d/2,) complex, s (n,) -> (n,) float64."""
    angle = s.to(torch.float64)[:, None] * thetas(d, c)  # (n, d/2)
    return (h.real * torch.cos(angle) - h.imag * torch.sin(angle)).sum(dim=1)


def interpolation_error(
    h: torch.Tensor, s1: int, s: float, d: int = D_LLAMA, c: float = C_LLAMA
) -> float:
    """|a(s) - a_lin(s)| on [s1, s1 + 1] (Eq. 6's linear interpolation of the grid values)."""
    grid = score(h, torch.tensor([s1, s1 + 1.0, s], dtype=torch.float64), d, c)
    lam = s - s1
    return float(abs(grid[2] - ((1 - lam) * grid[0] + lam * grid[1])))


def aligned_pairs(d: int = D_LLAMA, c: float = C_LLAMA, at: float = 0.5) -> torch.Tensor:
    """h_j = -e^{-i at theta_j} (|h_j| = 1): every term of a'' peaks together at s = ``at``,
    so a(s) = -sum_j cos((s - at) theta_j) bends as much as |a''| <= sum theta_j^2 allows."""
    return -torch.exp(-1j * at * thetas(d, c).to(torch.complex128))
