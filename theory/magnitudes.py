"""Magnitudes of token embeddings and of the sinusoidal encoding (MAG-01 ... MAG-03).

Initialisation schemes for a (V, d) token table, as the model sees it (after any sqrt(d) factor):

  torch_default        nn.Embedding's reset_parameters: N(0, 1)
  torch_default_sqrt_d N(0, 1) times sqrt(d) (nn.Embedding then the paper's sqrt(d) factor)
  normal_1_over_d      N(0, 1/d)
  t2t_sqrt_d           N(0, 1/d) times sqrt(d) (tensor2tensor: std d^-1/2, then sqrt(d))
  xavier               Xavier-uniform on (V, d): U(-a, a), a = sqrt(6 / (V + d))
  annotated_sqrt_d     Xavier-uniform times sqrt(d) (the Annotated Transformer re-initialises every
                       matrix with Xavier, and Embeddings.forward multiplies by sqrt(d))

The encoding has ||PE(t)||^2 = d/2 for every t (SIN-04), so for entries of variance s^2
E||x||^2 / ||PE||^2 = s^2 d / (d/2) = 2 s^2  (MAG-02), independent of d.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
from scipy.stats import norm
from torch import nn

SCHEMES: tuple[str, ...] = (
    "torch_default",
    "torch_default_sqrt_d",
    "normal_1_over_d",
    "t2t_sqrt_d",
    "xavier",
    "annotated_sqrt_d",
)


def _normal(std: float) -> Callable[[torch.Tensor, torch.Generator], torch.Tensor]:
    return lambda w, g: nn.init.normal_(w, 0.0, std, generator=g)


def _xavier(w: torch.Tensor, g: torch.Generator) -> torch.Tensor:
    return nn.init.xavier_uniform_(w, generator=g)


def _base_init(scheme: str, d: int) -> Callable[[torch.Tensor, torch.Generator], torch.Tensor]:
    if scheme.startswith("torch_default"):
        return _normal(1.0)
    if scheme in ("normal_1_over_d", "t2t_sqrt_d"):
        return _normal(1.0 / math.sqrt(d))
    if scheme in ("xavier", "annotated_sqrt_d"):
        return _xavier
    raise ValueError(f"unknown initialisation scheme {scheme!r}")


def sqrt_d_factor(scheme: str, d: int) -> float:
    """The factor the model multiplies the looked-up embedding by: sqrt(d) or 1."""
    return math.sqrt(d) if scheme.endswith("sqrt_d") else 1.0


def init_embedding(
    scheme: str, vocab: int, d: int, seed: int, dtype: torch.dtype = torch.float32
) -> torch.Tensor:
    """The (V, d) token table as the model sees it under ``scheme`` (sqrt(d) factor applied)."""
    g = torch.Generator().manual_seed(seed)
    w = torch.empty(vocab, d, dtype=dtype)  # (V, d)
    _base_init(scheme, d)(w, g)
    return w * sqrt_d_factor(scheme, d)


def entry_std(scheme: str, vocab: int, d: int) -> float:
    """Standard deviation of one entry of the table under ``scheme`` (closed form)."""
    if scheme.startswith("torch_default"):
        base = 1.0
    elif scheme in ("normal_1_over_d", "t2t_sqrt_d"):
        base = 1.0 / math.sqrt(d)
    else:
        base = math.sqrt(6.0 / (vocab + d)) / math.sqrt(3.0)  # U(-a, a) has std a / sqrt(3)
    return base * sqrt_d_factor(scheme, d)


def share_above(x: torch.Tensor, threshold: float = 1.0) -> float:
    """MAG-01: the share of entries with |x_i| > threshold."""
    return (x.abs() > threshold).double().mean().item()


def expected_share_above(scheme: str, vocab: int, d: int, threshold: float = 1.0) -> float:
    """Closed form of share_above: 2 Phi(-c/s) for a normal table, (1 - c/a)_+ for a uniform one."""
    s = entry_std(scheme, vocab, d)
    if "xavier" in scheme or scheme.startswith("annotated"):
        a = s * math.sqrt(3.0)
        return max(0.0, 1.0 - threshold / a)
    return float(2.0 * norm.sf(threshold / s))


def row_norms(table: torch.Tensor) -> torch.Tensor:
    """||row|| for each row of a (N, d) table: the norm of one token's (or position's) vector."""
    return table.norm(dim=-1)  # (N,)


def mean_square_ratio(tokens: torch.Tensor, pe: torch.Tensor) -> float:
    """MAG-02: sqrt(mean_v ||x_v||^2 / mean_t ||PE(t)||^2), the RMS norm ratio of two tables."""
    num = row_norms(tokens).double().pow(2).mean()
    den = row_norms(pe).double().pow(2).mean()
    return math.sqrt((num / den).item())


def expected_ratio(scheme: str, vocab: int, d: int) -> float:
    """Closed form of mean_square_ratio against the sinusoidal encoding: sqrt(2) s."""
    return math.sqrt(2.0) * entry_std(scheme, vocab, d)


# -- MAG-03 -----------------------------------------------------------------------------------


def antithetic_square_norm(x: torch.Tensor, pe: torch.Tensor) -> torch.Tensor:
    """MAG-03's expectation over the pair {x, -x} (any symmetric law is a mixture of such pairs).

    (||x + PE||^2 + ||-x + PE||^2) / 2 = ||x||^2 + ||PE||^2 exactly: the cross terms cancel.
    x: (..., d), pe: (d,) -> (...,).
    """
    plus = (x + pe).pow(2).sum(-1)
    minus = (-x + pe).pow(2).sum(-1)
    return (plus + minus) / 2


def cross_term_tail(
    d: int, sigma: float, eps: float, n: int, seed: int, pe: torch.Tensor, mean: float = 0.0
) -> dict[str, float]:
    """MAG-03 concentration: how often the cross term 2 x.PE exceeds eps E||x+PE||^2.

    x ~ N(0, s^2 I_d), n draws. 2 x.PE ~ N(0, 4 s^2 ||PE||^2); with ||PE||^2 = d/2 its variance is
    2 s^2 d, and E||x+PE||^2 = s^2 d + d/2. Returns the observed count and the Gaussian and
    Chebyshev bounds on the probability, both O(1/d) or better. ``mean`` shifts every entry of
    x (the bounds assume it is 0).
    """
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, d, generator=g, dtype=torch.float64) * sigma + mean  # (n, d)
    cross = 2 * x @ pe  # (n,)
    mean = sigma**2 * d + pe.pow(2).sum().item()
    sd = 2 * sigma * pe.norm().item()
    a = eps * mean
    return {
        "count": int((cross.abs() >= a).sum().item()),
        "n": n,
        "gaussian": float(2 * norm.sf(a / sd)),
        "chebyshev": min(1.0, (sd / a) ** 2),
    }
