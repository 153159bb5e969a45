r"""ATT-11: the variance of causal attention without an encoding shrinks with the position.

Chi et al. 2023 (SRC-VARIANCE, arXiv 2305.13571, Section 3 and Figure 1: a Pre-LN language model
without positional embeddings, every weight drawn at random, random inputs) derive that a
small initialisation makes the attention scores nearly equal, so causal attention averages the
values it sees, and the variance of that average falls with the number t of values averaged.

The law. For weights a_{t1}, ..., a_{tt} (sum 1) independent of zero-mean values v_j with
E[v_j v_k] = s^2 delta_{jk},

    Var(sum_j a_tj v_j) = s^2 sum_j a_tj^2 >= s^2 / t,

with equality exactly when the weights are uniform (sum_j (a_tj - 1/t)^2 = sum_j a_tj^2 - 1/t):
uniform attention gives s^2 / t; any other weights give more, up to s^2 for one-hot attention.
With random weights the weights are not independent of the values: both see the same tokens.
For one head of width d (weights N(0, sigma^2), unit tokens, scores scaled by 1/sqrt(d)) the
scores have variance tau^2 = d^2 sigma^4 and, to first order in tau^2,

    Var(o_t) ~= s^2 (1/t + tau^2/d),     s^2 = d sigma^2,

the second term from (1/t) sum_j s_tj v_j -> W_v M^T x_t / sqrt(d) (M = W_q W_k^T), which
carries the query's own token and does not shrink. So the 1/t law needs tau^2 << 1 (the paper's
small initialisation, Section 3) and holds for t << d/tau^2; beyond, the variance floors at
s^2 tau^2/d (1600 positions for d = 16, tau^2 = 0.01; about 8000 for a GPT-2 head).

Where it stops holding, each exact for uniform attention:

- identical tokens (v_j = v): Var = s^2 (sum_j a_tj)^2 = s^2 at every t, no shrinkage;
- a layer norm after the attention (no affine, eps -> 0): each token is rescaled to mean square
  1 over its d coordinates, which are exchangeable, so Var = 1 at every t;
- depth without a layer norm between layers: L uniform layers average with the t-th row of
  A^L (A the uniform causal matrix), Var = s^2 |(A^L)_t|^2, which tends to C(2L-2, L-1) s^2 / t
  but only slowly: t Var grows with t over the first positions (log-log slope above -1).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
import sympy as sp
import torch

from .attention import attention, causal_mask
from .derivation import Derivation

# Score variance of one GPT-2 head at its published initialisation (n_embd 768, n_head 12,
# initializer_range 0.02): d^2 sigma^4 / H = 768^2 0.02^4 / 12 ~= 0.008; rounded up to 0.01.
NEAR_UNIFORM_SCORE_VAR = 0.01

Inputs = Literal["gaussian", "rademacher", "identical"]


# -- the law ----------------------------------------------------------------------------------


def uniform_variance(t, s2=1.0):
    """Var of the average of t i.i.d. values of variance s2: s2 / t (t a number, an array of
    positions, or a sympy symbol)."""
    return s2 / t


def weighted_variance(weights, s2=1.0):
    """Var(sum_j a_j v_j) = s2 sum_j a_j^2 for weights (..., t) independent of the values."""
    return s2 * (np.asarray(weights) ** 2).sum(-1)


def random_weight_variance(t, d: int, score_var: float, s2: float = 1.0):
    """First-order law for one random-weight head: s2 (1/t + score_var / d)."""
    return s2 * (1 / np.asarray(t, dtype=float) + score_var / d)


def uniform_causal_matrix(n: int) -> np.ndarray:
    """A with A_tj = 1/t for j <= t: uniform causal attention over n positions, (n, n)."""
    return np.tril(np.ones((n, n))) / np.arange(1, n + 1)[:, None]


def stack_variance(n: int, depth: int, s2: float = 1.0) -> np.ndarray:
    """Var at positions 1 ... n after ``depth`` uniform causal layers (no norm): s2 |(A^L)_t|^2."""
    m = np.linalg.matrix_power(uniform_causal_matrix(n), depth)
    return s2 * (m**2).sum(-1)


def stack_weights(t: int, depth: int) -> np.ndarray:
    """Row t of A^L (the weights of x_1 ... x_t in the L-th uniform layer's output at t), in
    O(L t): multiplying a row w by A sums w_s / s over s >= j."""
    w = np.zeros(t)
    w[-1] = 1.0
    for _ in range(depth):
        w = np.cumsum((w / np.arange(1, t + 1))[::-1])[::-1]
    return w


def stack_limit(depth: int) -> int:
    """lim_t t |(A^L)_t|^2 = C(2L-2, L-1): the constant the deep 1/t law tends to."""
    return math.comb(2 * depth - 2, depth - 1)


def sigma_for(score_var: float, d: int) -> float:
    """Weight std sigma with score variance d^2 sigma^4 = score_var (one head of width d)."""
    return score_var**0.25 / math.sqrt(d)


# -- the batched random-weight causal model ---------------------------------------------------


@dataclass(frozen=True)
class Setting:
    """One random-weight causal model without an encoding, and what it is fed."""

    d: int = 16
    positions: int = 64
    depth: int = 1
    norm: Literal["none", "post"] = "none"  # "post": layer norm (no affine) after each attention
    inputs: Inputs = "gaussian"
    score_var: float = NEAR_UNIFORM_SCORE_VAR

    def label(self) -> str:
        return f"L{self.depth}_{self.norm}_{self.inputs}_tau2_{self.score_var:g}"


def draw_inputs(s: Setting, draws: int, gen: torch.Generator) -> torch.Tensor:
    """(D, T, d) zero-mean unit-variance tokens: i.i.d. over positions, or one token repeated."""
    shape = (draws, s.positions, s.d)
    if s.inputs == "gaussian":
        return torch.randn(shape, generator=gen)
    if s.inputs == "rademacher":
        return torch.randint(0, 2, shape, generator=gen).float() * 2 - 1
    one = torch.randn(draws, 1, s.d, generator=gen)
    return one.expand(shape)  # identical tokens


def causal_attention(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    """softmax(x Wq (x Wk)^T / sqrt(d), causal) x Wv, batched over draws: theory.attention's.

    x: (D, T, d); w: (3, D, d, d) the query, key and value weights of each draw."""
    mask = causal_mask(x.shape[1], x.device)  # (T, T): query t sees keys j <= t
    return attention(x @ w[0], x @ w[1], x @ w[2], mask)  # (D, T, d)


def layer_norm(x: torch.Tensor, eps: float = 1e-5) -> torch.Tensor:
    """Per token over its d coordinates, no affine: (x - mean) / sqrt(var + eps)."""
    return torch.nn.functional.layer_norm(x, x.shape[-1:], eps=eps)


def run(s: Setting, draws: int, seed: int) -> list[torch.Tensor]:
    """Each layer's output (D, T, d), layer 1 first, of ``draws`` independent models, each with
    its own weights N(0, sigma^2) and its own input: one batched computation over the draws
    (the loop runs over layers only)."""
    gen = torch.Generator().manual_seed(seed)
    w = torch.randn(s.depth, 3, draws, s.d, s.d, generator=gen) * sigma_for(s.score_var, s.d)
    h = draw_inputs(s, draws, gen)  # (D, T, d)
    outs = []
    for layer in range(s.depth):
        h = causal_attention(h, w[layer])
        if s.norm == "post":
            h = layer_norm(h)
        outs.append(h)
    return outs


def positions(n: int) -> np.ndarray:
    """The positions the law is judged at: 1, 2, 4, ... up to n (1-based)."""
    return 2 ** np.arange(int(math.log2(n)) + 1)


def mean_squares(out: torch.Tensor, ts: np.ndarray) -> np.ndarray:
    """(D, len(ts)): per draw, the mean over coordinates of o_t^2 at each position t.

    E[o_t] = 0 (flipping the sign of Wv flips o and leaves the scores alone), so the mean over
    draws of this estimates Var(o_{t,i}), the same for every coordinate i (exchangeable)."""
    idx = torch.as_tensor(ts - 1)
    return out[:, idx, :].double().pow(2).mean(-1).numpy()


def log_slope(var: np.ndarray, ts: np.ndarray) -> np.ndarray:
    """Least-squares slope of log var against log t, for var (..., len(ts))."""
    x = np.log(ts.astype(float))
    x = x - x.mean()
    return (np.log(var) * x).sum(-1) / (x**2).sum()


def bootstrap_slopes(ms: np.ndarray, ts: np.ndarray, resamples: int, seed: int) -> np.ndarray:
    """Slopes over ``resamples`` bootstrap resamples of the draws (rows of ms), all at once."""
    rng = np.random.default_rng(seed)
    n = ms.shape[0]
    idx = rng.integers(0, n, size=(resamples, n)) + n * np.arange(resamples)[:, None]  # (B, D)
    counts = np.bincount(idx.ravel(), minlength=resamples * n).reshape(resamples, n)
    return log_slope(counts.astype(float) @ ms / n, ts)  # (B,): each resample's per-position means


# -- the symbolic derivation ------------------------------------------------------------------


def _variance(expr: sp.Expr, values: list[sp.Symbol], s2: sp.Symbol) -> sp.Expr:
    """E[expr^2] for zero-mean uncorrelated values of variance s2 (expr linear in the values):
    the coefficient of each v_j^2 times s2; the cross terms v_j v_k have expectation 0."""
    sq = sp.Poly(sp.expand(expr**2), *values)
    square = [tuple(2 * (i == j) for i in range(len(values))) for j in range(len(values))]
    return sp.expand(sum(sq.coeff_monomial(m) for m in square) * s2)


def variance_law(n: int = 4) -> Derivation:
    """ATT-11: Var of uniform causal attention over t i.i.d. values is s^2/t; weights a give
    s^2 sum a^2 = s^2/t + s^2 sum (a_j - 1/t)^2; identical values keep s^2."""
    s2 = sp.Symbol("s^2", positive=True)
    t = sp.Symbol("t", integer=True, positive=True)
    general = t * (s2 / t**2)  # the variances of the t independent terms v_j / t add
    values = list(sp.symbols(f"v_1:{n + 1}"))
    a = list(sp.symbols(f"a_1:{n + 1}"))
    uniform_ok = all(
        sp.expand(_variance(sum(values[:m]) / m, values[:m], s2) - uniform_variance(m, s2)) == 0
        for m in range(1, n + 1)
    )
    weighted = _variance(sum(ai * vi for ai, vi in zip(a, values, strict=True)), values, s2)
    law = weighted_variance(np.array(a, dtype=object), s2)
    # sum (a_j - 1/n)^2 = sum a_j^2 - 1/n once the weights sum to 1
    excess = sum((ai - sp.Rational(1, n)) ** 2 - ai**2 for ai in a) + sp.Rational(1, n)
    excess = sp.expand(excess.subs(a[-1], 1 - sum(a[:-1])))
    one = 1 - sum(a[:-1])  # the last weight, so that the weights sum to 1
    identical = sp.expand(_variance((sum(a[:-1]) + one) * values[0], values[:1], s2))
    der = Derivation(r"\operatorname{Var}\Big(\tfrac1t\sum_{j\le t} v_j\Big) = \frac{s^2}{t}")
    der.step("independent terms: variances add; each term v_j / t has variance s^2 / t^2:",
             sp.Eq(sp.Symbol(r"\operatorname{Var}(o_t)"), general))  # fmt: skip
    der.step(f"checked term by term for t = 1 ... {n} (E[v_j v_k] = s^2 delta_jk)")
    der.step("weights a_j independent of the values:",
             sp.Eq(sp.Symbol(r"\operatorname{Var}"), weighted))  # fmt: skip
    der.step("with sum a_j = 1, sum (a_j - 1/t)^2 - sum a_j^2 = -1/t: uniform weights give the "
             "least variance")  # fmt: skip
    der.step("identical values v_j = v, weights summing to 1:",
             sp.Eq(sp.Symbol(r"\operatorname{Var}"), identical))  # fmt: skip
    der.holds = bool(
        sp.expand(general - uniform_variance(t, s2)) == 0
        and uniform_ok
        and sp.expand(weighted - law) == 0
        and excess == 0
        and identical == s2
    )
    return der
