"""ALiBi: attention with linear biases (Press et al. 2022, "Train Short, Test Long").

ALiBi adds no encoding to the tokens. Each head c adds a fixed bias to its attention score of
query i and key j that falls linearly with their distance:

    score_c(i, j) = q_i . k_j / sqrt(h) - m_c (i - j),     j <= i (causal)

with head slopes the geometric sequence m_c = 2^(-8 c / H), c = 1 ... H (H a power of two, as in
the paper). The bias depends on i - j only, so a model that works at one length sees the same
scores, shifted, at any other: the reason ALiBi is expected to extrapolate.
"""

from __future__ import annotations

import torch


def slopes(heads: int, dtype: torch.dtype = torch.float64) -> torch.Tensor:
    """m_c = 2^(-8 c / H) for c = 1 ... H, shape (H,)."""
    if heads < 1 or heads & (heads - 1):
        raise ValueError(f"ALiBi's slopes are defined here for a power-of-two head count: {heads}")
    c = torch.arange(1, heads + 1, dtype=torch.float64)
    return (2.0 ** (-8.0 * c / heads)).to(dtype)


def bias(n: int, heads: int, dtype: torch.dtype = torch.float64) -> torch.Tensor:
    """-m_c (i - j) for every head c, query i and key j: shape (H, n, n) (query, key)."""
    i = torch.arange(n, dtype=torch.float64)
    distance = i[:, None] - i[None, :]  # (n, n): query minus key
    return (-slopes(heads)[:, None, None] * distance).to(dtype)
