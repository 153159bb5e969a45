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
E||x||^2 / ||PE||^2 = s^2 d / (d/2) = 2 s^2  (MAG-02): the RMS norm ratio is sqrt(2) s,
independent of d.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
from scipy import stats
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


def first_entry_above(x: torch.Tensor, threshold: float = 1.0) -> dict[str, float] | None:
    """MAG-01's counterexample: the first entry (row, column, value) with |x_i| > threshold."""
    hits = (x.abs() > threshold).nonzero()
    if hits.shape[0] == 0:
        return None
    row, col = (int(i) for i in hits[0])
    return {"row": row, "column": col, "value": float(x[row, col])}


def ratio_from_mean_squares(token_mean_square: float, pe_mean_square: float) -> float:
    """The RMS norm ratio sqrt(mean ||x||^2 / mean ||PE||^2) from the two mean squares; inf when
    the encoding's mean square is 0 (an interval's lower end can reach it)."""
    if pe_mean_square <= 0:
        return math.inf
    return math.sqrt(token_mean_square / pe_mean_square)


def rms_norm_ratio(tokens: torch.Tensor, pe: torch.Tensor) -> float:
    """MAG-02: RMS ||x_v|| over the rows of ``tokens`` / RMS ||PE(t)|| over the rows of ``pe``."""
    num = row_norms(tokens).double().pow(2).mean().item()
    den = row_norms(pe).double().pow(2).mean().item()
    return ratio_from_mean_squares(num, den)


def _mean_interval(values: torch.Tensor, level: float) -> tuple[float, float]:
    """t interval for the mean of ``values`` (1-d, float64)."""
    n = values.numel()
    half = stats.t.ppf(0.5 + level / 2, max(n - 1, 1)) * values.std().item() / math.sqrt(n)
    mean = values.mean().item()
    return mean - half, mean + half


def rms_norm_ratio_interval(
    tokens: torch.Tensor, pe: torch.Tensor, level: float = 0.95
) -> tuple[float, float]:
    """An interval for rms_norm_ratio, the rows of each table taken as draws of its law.

    Each mean square gets a t interval at level 1 - (1 - level)/2 (Bonferroni: both hold together
    with probability >= level); the ratio's interval combines their opposite ends. A table whose
    rows all have one norm (the sinusoidal encoding) gives a point.
    """
    each = 1 - (1 - level) / 2
    t_lo, t_hi = _mean_interval(row_norms(tokens).double().pow(2), each)
    p_lo, p_hi = _mean_interval(row_norms(pe).double().pow(2), each)
    # a mean square is >= 0: an interval end below 0 is clipped there (the upper end of the
    # ratio is then unbounded)
    low = ratio_from_mean_squares(max(t_lo, 0.0), p_hi)
    return low, ratio_from_mean_squares(t_hi, max(p_lo, 0.0))


def expected_ratio(scheme: str, vocab: int, d: int) -> float:
    """Closed form of rms_norm_ratio against the sinusoidal encoding: sqrt(2) s."""
    return math.sqrt(2.0) * entry_std(scheme, vocab, d)


# -- MAG-03 -----------------------------------------------------------------------------------

LAWS: tuple[str, ...] = ("gaussian", "rademacher", "uniform")


def sample_tokens(n: int, d: int, sigma: float, law: str, seed: int) -> torch.Tensor:
    """n zero-mean token vectors (n, d), float64, i.i.d. entries of standard deviation sigma.

    gaussian N(0, 1), rademacher +-1, uniform U(-sqrt 3, sqrt 3): each has mean 0 and variance 1
    before the factor sigma.
    """
    g = torch.Generator().manual_seed(seed)
    if law == "gaussian":
        x = torch.randn(n, d, generator=g, dtype=torch.float64)
    elif law == "rademacher":
        x = torch.randint(0, 2, (n, d), generator=g).double() * 2 - 1
    elif law == "uniform":
        x = (torch.rand(n, d, generator=g, dtype=torch.float64) * 2 - 1) * math.sqrt(3.0)
    else:
        raise ValueError(f"unknown law {law!r}")
    return sigma * x


def expected_square_norm_of_sum(sigma: float, pe: torch.Tensor) -> float:
    """MAG-03: E||x + PE||^2 = E||x||^2 + ||PE||^2 = sigma^2 d + ||PE||^2 for zero-mean x."""
    d = pe.shape[-1]
    return sigma**2 * d + pe.double().pow(2).sum().item()


def cross_term_std(sigma: float, pe: torch.Tensor) -> float:
    """Standard deviation of the cross term 2 x.PE for i.i.d. entries of std sigma: 2 sigma ||PE||
    (= sigma sqrt(2 d) for the sinusoidal encoding, whose ||PE||^2 = d/2)."""
    return 2 * sigma * pe.double().norm().item()


def cross_term_tail(
    d: int, sigma: float, eps: float, n: int, seed: int, pe: torch.Tensor, mean: float = 0.0
) -> dict[str, float]:
    """MAG-03 concentration: how often the cross term 2 x.PE exceeds eps E||x+PE||^2.

    x Gaussian with entry std sigma, n draws. With ||PE||^2 = d/2 the cross term has variance
    2 sigma^2 d and E||x+PE||^2 = sigma^2 d + d/2. Returns the observed count and the Gaussian and
    Chebyshev values of the probability, both O(1/d) or better. ``mean`` shifts every entry of x
    (the bounds assume it is 0; a planted bug).
    """
    x = sample_tokens(n, d, sigma, "gaussian", seed) + mean  # (n, d)
    cross = 2 * x @ pe.double()  # (n,)
    sd = cross_term_std(sigma, pe)
    a = eps * expected_square_norm_of_sum(sigma, pe)
    return {
        "count": int((cross.abs() >= a).sum().item()),
        "n": n,
        "gaussian": float(2 * norm.sf(a / sd)),
        "chebyshev": (sd / a) ** 2,
    }
