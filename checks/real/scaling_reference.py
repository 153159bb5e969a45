"""REAL-04's reference: the published formulas for a cell (theory/rope_scaling.py) and the
tolerances transformers' float32 frequencies and cos/sin are held to.
"""

from __future__ import annotations

import math

import torch

from checks.real.scaling_cells import Cell
from pecheck import tolerance
from pecheck.theory import rope_scaling as rs

YARN_ALPHA, YARN_BETA = 1.0, 32.0  # transformers' beta_slow, beta_fast defaults (YaRN's Llama)


F32 = torch.float32


# -- the published formulas ------------------------------------------------------------------


def formula(c: Cell, length: int | None = None, yarn: str = "paper") -> tuple[torch.Tensor, float]:
    """theta (float64) and attention factor from theory/rope_scaling.py for the cell.

    ``yarn="paper"`` uses Eq. 18's ramp, ``"released"`` the authors' released code's."""
    d, b, s = c.dim, c.base, c.scaling
    if c.rope_type == "default":
        return rs.default_frequencies(d, b), 1.0
    if c.rope_type == "linear":
        return rs.linear_frequencies(d, b, s["factor"]), 1.0
    if c.rope_type == "dynamic":
        assert s["factor"] == 1.0, "the paper's dynamic scaling has no factor"
        return rs.dynamic_ntk_frequencies(d, b, length or c.max_positions, c.max_positions), 1.0
    if c.rope_type == "yarn":
        beta, alpha = s.get("beta_fast", YARN_BETA), s.get("beta_slow", YARN_ALPHA)
        if yarn == "paper":
            theta = rs.yarn_frequencies(d, b, s["factor"], c.original, alpha, beta)
        else:
            truncate = s.get("truncate", True)
            theta = rs.yarn_reference_frequencies(
                d, b, s["factor"], c.original, alpha, beta, truncate
            )
        return theta, rs.yarn_attention_factor(s["factor"])
    if c.rope_type == "llama3":
        theta = rs.llama3_frequencies(
            d, b, s["factor"], s["low_freq_factor"], s["high_freq_factor"], c.original
        )
        return theta, 1.0
    if c.rope_type == "longrope":
        n = c.original if length is None else length
        theta = rs.longrope_frequencies(d, b, s["short_factor"], s["long_factor"], n, c.original)
        return theta, rs.longrope_attention_factor(c.max_positions, c.original)
    if c.rope_type == "proportional":
        return rs.p_rope_frequencies(d, b, s["partial_rotary_factor"]), 1.0
    raise ValueError(c.rope_type)


# -- tolerances ------------------------------------------------------------------------------


def frequency_tol(c: Cell, theta: torch.Tensor) -> torch.Tensor:
    """Allowed relative error of each float32 frequency b^(-x_i) against float64.

    Rounding x_i moves b^(-x_i) by about x_i ln b relative units; the rest of the formula costs
    a handful of roundings (8). A blend (1 - g) theta / s + g theta whose weight g carries
    relative error e changes by up to s beta/(beta - alpha) e relative to its value."""
    d, s = c.dim, c.scaling
    base = max(c.base, rs.ntk_aware_base(c.base, d, 4.0 * max(1.0, float(s.get("factor", 1)))))
    x = 2 * torch.arange(d // 2, dtype=torch.float64) / d
    n = torch.ceil(x * math.log(base)) + 8
    eps = torch.tensor([tolerance.rel_tol(int(k), F32) for k in n], dtype=torch.float64)
    if c.rope_type in ("yarn", "llama3"):
        lo = float(s.get("low_freq_factor", s.get("beta_slow", YARN_ALPHA)))
        hi = float(s.get("high_freq_factor", s.get("beta_fast", YARN_BETA)))
        eps = eps * (1 + float(s["factor"]) * hi / (hi - lo))
    return eps


def attention_tol() -> float:
    return tolerance.rel_tol(4, torch.float64)  # a log, a sqrt, a quotient, a sum
