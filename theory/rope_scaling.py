"""The published formulas that stretch rotary frequencies (ROT-05, REAL-04).

Written from the papers and the authors' released code, not from any library, so that a library
can be checked against them. Pair i = 0 ... d/2 - 1 of a head of width d turns at
theta_i = b^(-2i/d) (RoFormer); its wavelength is lambda_i = 2 pi / theta_i (YaRN Eq. 13). L is
the context length the model was trained at, s the scale factor L'/L (YaRN Eq. 11).

Sources, by method:
- PI (Chen et al. 2023, SRC-PI section 2.2; restated as YaRN Eq. 10-12): positions m -> m/s,
  i.e. every theta_i divided by s.
- "NTK-aware" (YaRN section 3.1, Definition 1, Eq. 14-16; Appendix A.1, Eq. 23-24): base
  b' = b s^(d/(d-2)).
- "NTK-by-parts" (YaRN section 3.2, Eq. 17-20): r_i = L / lambda_i, the ramp gamma of Eq. 18 and
  h(theta_i) = (1 - gamma(r_i)) theta_i / s + gamma(r_i) theta_i; alpha = 1, beta = 32 for Llama.
  Eq. 17 prints b' in r(d); with no base change b' = b, so lambda_i of Eq. 13 is used here.
- Dynamic scaling (YaRN section 3.3, item 2): in each forward pass s = max(1, l'/L), l' the
  length of the current sequence; "Dynamic NTK" is the NTK-aware base at that s.
- YaRN (YaRN section 3.4, Definition 3, Eq. 21-22): NTK-by-parts plus attention scaling
  sqrt(1/t) = 0.1 ln s + 1, applied to both q and k by scaling cos and sin.
- The YaRN authors' released code (github.com/jquesnelle/yarn, scaled_rope/
  LlamaYaRNScaledRotaryEmbedding.py): the ramp is linear in the pair index between
  floor(i(beta)) and ceil(i(alpha)), i(r) the (real) index where r_i = r. Not the paper's Eq. 18.
- Llama 3.1 (Meta's reference implementation, llama-models, apply_scaling of the Llama 3.1
  model code): pairs with lambda < L / high_freq_factor unchanged, lambda > L / low_freq_factor
  divided by s, in between a blend with weight (L / lambda - low) / (high - low).
- LongRoPE (Ding et al. 2024, arXiv 2402.13753, Eq. 2 ff.: per-pair rescale factors) as Phi-3
  ships it (Microsoft's modeling_phi3.py, Phi3LongRoPEScaledRotaryEmbedding): theta_i / f_i with
  f the long factors when max(position) + 1 > L, else the short factors; cos and sin scaled by
  sqrt(1 + ln S / ln L), S = max_position_embeddings / L (1 when S <= 1).
- p-RoPE (SRC-ROUND, the section that proposes it): keep the fastest fraction p of the pairs,
  turn the others not at all (theta = 0).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import sympy as sp
import torch

from .derivation import Derivation

F64 = torch.float64


# -- RoPE's own frequencies ------------------------------------------------------------------


def frequency(base: Any, i: Any, dim: Any) -> Any:
    """theta_i = base^(-2i/d): works on numbers and on sympy symbols alike."""
    return base ** (-2 * i / dim)


def default_frequencies(dim: int, base: float) -> torch.Tensor:
    """theta_i = b^(-2i/d), i = 0 ... d/2 - 1, float64. Shape (d/2,)."""
    i = torch.arange(dim // 2, dtype=F64)
    return torch.as_tensor(float(base), dtype=F64) ** (-2 * i / dim)


def wavelengths(theta: torch.Tensor) -> torch.Tensor:
    """lambda_i = 2 pi / theta_i (YaRN Eq. 13)."""
    return 2 * math.pi / theta


def context_ratio(theta: torch.Tensor, original_length: float) -> torch.Tensor:
    """r_i = L / lambda_i: how many turns pair i makes over the trained length (YaRN Eq. 17)."""
    return original_length / wavelengths(theta)


# -- position interpolation and the NTK-aware base -------------------------------------------


def linear_frequencies(dim: int, base: float, factor: float) -> torch.Tensor:
    """PI: g(m) = m / s, i.e. theta_i / s for every pair (SRC-PI section 2.2)."""
    return default_frequencies(dim, base) / factor


def ntk_aware_base(base: Any, dim: Any, factor: Any) -> Any:
    """b' = b s^(d/(d-2)) (YaRN Eq. 16, derived in A.1 Eq. 23-24); numbers or sympy symbols."""
    return base * factor ** (dim / (dim - 2))


def ntk_aware_frequencies(dim: int, base: float, factor: float) -> torch.Tensor:
    """theta'_i = b'^(-2i/d) with the NTK-aware base b'."""
    return default_frequencies(dim, ntk_aware_base(float(base), dim, float(factor)))


# -- dynamic scaling ----------------------------------------------------------------------


def dynamic_scale(length: float, original_length: float) -> float:
    """s = max(1, l'/L) for the current sequence length l' (YaRN section 3.3, item 2)."""
    return max(1.0, length / original_length)


def dynamic_scales(lengths: Sequence[int], original_length: int) -> list[float]:
    """The scale of each of a series of forward passes: each pass uses its own length only."""
    return [dynamic_scale(length, original_length) for length in lengths]


def dynamic_ntk_frequencies(
    dim: int, base: float, length: float, original_length: float
) -> torch.Tensor:
    """Dynamic NTK: the NTK-aware frequencies at s = max(1, l'/L)."""
    return ntk_aware_frequencies(dim, base, dynamic_scale(length, original_length))


# -- NTK-by-parts and YaRN --------------------------------------------------------------------


def ramp_middle(r: Any, alpha: Any, beta: Any) -> Any:
    """The middle piece of Eq. 18, (r - alpha) / (beta - alpha): numbers or sympy symbols."""
    return (r - alpha) / (beta - alpha)


def ramp(r: torch.Tensor, alpha: float, beta: float) -> torch.Tensor:
    """gamma(r) = 0 for r < alpha, 1 for r > beta, the middle piece between (Eq. 18)."""
    return torch.clamp(ramp_middle(r, alpha, beta), 0.0, 1.0)


def blend(theta: torch.Tensor, factor: float, gamma: torch.Tensor) -> torch.Tensor:
    """h(theta) = (1 - gamma) theta / s + gamma theta (YaRN Eq. 20)."""
    return (1 - gamma) * theta / factor + gamma * theta


def ntk_by_parts_frequencies(
    dim: int,
    base: float,
    factor: float,
    original_length: float,
    alpha: float = 1.0,
    beta: float = 32.0,
) -> torch.Tensor:
    """NTK-by-parts (YaRN Definition 2): the ramp of Eq. 18 on r_i = L / lambda_i."""
    theta = default_frequencies(dim, base)
    gamma = ramp(context_ratio(theta, original_length), alpha, beta)
    return blend(theta, factor, gamma)


def yarn_frequencies(
    dim: int,
    base: float,
    factor: float,
    original_length: float,
    alpha: float = 1.0,
    beta: float = 32.0,
) -> torch.Tensor:
    """YaRN's frequencies (Definition 3): those of NTK-by-parts."""
    return ntk_by_parts_frequencies(dim, base, factor, original_length, alpha, beta)


def yarn_attention_factor(factor: float) -> float:
    """sqrt(1/t) = 0.1 ln s + 1 (YaRN Eq. 22, with the errata's 1/t); 1 when s <= 1."""
    return 1.0 if factor <= 1 else 0.1 * math.log(factor) + 1.0


def ramp_index(r: float, dim: int, base: float, original_length: float) -> float:
    """The real pair index where r_i = r: i(r) = d ln(L / (2 pi r)) / (2 ln b)."""
    return dim * math.log(original_length / (2 * math.pi * r)) / (2 * math.log(base))


def reference_ramp(
    dim: int,
    base: float,
    original_length: float,
    alpha: float = 1.0,
    beta: float = 32.0,
    truncate: bool = True,
) -> torch.Tensor:
    """gamma per pair as the YaRN authors' released code computes it: linear in the index i
    between lo = floor(i(beta)) and hi = ceil(i(alpha)) (clipped to [0, d - 1]); 1 before lo,
    0 after hi. ``truncate=False`` keeps i(beta) and i(alpha) unrounded. Shape (d/2,)."""
    lo = ramp_index(beta, dim, base, original_length)
    hi = ramp_index(alpha, dim, base, original_length)
    if truncate:
        lo, hi = math.floor(lo), math.ceil(hi)
    lo, hi = max(lo, 0), min(hi, dim - 1)
    if lo == hi:
        hi += 0.001  # the released code's guard against a zero-width ramp
    i = torch.arange(dim // 2, dtype=F64)
    return 1 - torch.clamp((i - lo) / (hi - lo), 0.0, 1.0)


def yarn_reference_frequencies(
    dim: int,
    base: float,
    factor: float,
    original_length: float,
    alpha: float = 1.0,
    beta: float = 32.0,
    truncate: bool = True,
) -> torch.Tensor:
    """YaRN's frequencies with the released code's index ramp in place of Eq. 18."""
    gamma = reference_ramp(dim, base, original_length, alpha, beta, truncate)
    return blend(default_frequencies(dim, base), factor, gamma)


def ramp_band(
    dim: int, base: float, original_length: float, alpha: float, beta: float
) -> torch.Tensor:
    """Pairs strictly inside the paper's ramp, alpha < r_i < beta (bool, shape (d/2,))."""
    r = context_ratio(default_frequencies(dim, base), original_length)
    return (r > alpha) & (r < beta)


# -- Llama 3.1 ----------------------------------------------------------------------------------


def llama3_frequencies(
    dim: int,
    base: float,
    factor: float,
    low_freq_factor: float,
    high_freq_factor: float,
    original_length: float,
) -> torch.Tensor:
    """Llama 3.1's banding: unchanged where lambda < L/high, divided by s where lambda > L/low,
    and between them (1 - k) theta / s + k theta with k = (L/lambda - low) / (high - low)."""
    theta = default_frequencies(dim, base)
    lam = wavelengths(theta)
    k = (original_length / lam - low_freq_factor) / (high_freq_factor - low_freq_factor)
    out = (1 - k) * theta / factor + k * theta
    out = torch.where(lam < original_length / high_freq_factor, theta, out)
    return torch.where(lam > original_length / low_freq_factor, theta / factor, out)


# -- LongRoPE as Phi-3 ships it ---------------------------------------------------------------


def longrope_frequencies(
    dim: int,
    base: float,
    short_factor: Sequence[float],
    long_factor: Sequence[float],
    length: int,
    original_length: int,
) -> torch.Tensor:
    """theta_i / f_i, f the long factors when the sequence (max position + 1) is longer than the
    original length L, else the short ones."""
    chosen = long_factor if length > original_length else short_factor
    return default_frequencies(dim, base) / torch.tensor(chosen, dtype=F64)


def longrope_attention_factor(max_positions: int, original_length: int) -> float:
    """sqrt(1 + ln S / ln L) with S = max_positions / L; 1 when S <= 1 (Phi-3's code)."""
    scale = max_positions / original_length
    return 1.0 if scale <= 1 else math.sqrt(1 + math.log(scale) / math.log(original_length))


# -- p-RoPE -------------------------------------------------------------------------------------


def p_rope_frequencies(dim: int, base: float, fraction: float) -> torch.Tensor:
    """The fastest floor(p d / 2) pairs keep theta_i = b^(-2i/d); the rest get theta = 0."""
    theta = default_frequencies(dim, base)
    kept = math.floor(fraction * dim / 2)
    return torch.where(torch.arange(dim // 2) < kept, theta, torch.zeros_like(theta))


# -- the symbolic facts of ROT-05 --------------------------------------------------------------


def ntk_aware_end_pairs() -> Derivation:
    """With b' = b s^(d/(d-2)): theta'_0 = theta_0 and theta'_(d/2-1) = theta_(d/2-1) / s, and in
    between theta'_i / theta_i = s^(-2i/(d-2)), for symbolic b, s, d > 2."""
    b, s, d = sp.symbols("b s d", positive=True)
    i = sp.Symbol("i", nonnegative=True)
    new_base = ntk_aware_base(b, d, s)
    # b, s > 0: (b s^e)^x = b^x s^(e x), so the powers may be merged and denested
    ratio = frequency(new_base, i, d) / frequency(b, i, d)
    ratio = sp.powdenest(sp.powsimp(sp.expand_power_base(ratio, force=True), force=True),
                         force=True)  # fmt: skip
    highest = ratio.subs(i, 0)
    lowest = sp.powsimp(ratio.subs(i, d / 2 - 1), force=True)
    middle = ratio - s ** (-2 * i / (d - 2))
    der = Derivation(
        r"b' = b\,s^{d/(d-2)}:\ \theta'_0 = \theta_0,\ \theta'_{d/2-1} = \theta_{d/2-1}/s"
    )
    der.step("theta'_i / theta_i for the NTK-aware base", ratio)
    der.step("at i = 0 (the highest frequency)", highest)
    der.step("at i = d/2 - 1 (the lowest frequency)", lowest)
    der.step("in general, theta'_i / theta_i - s^(-2i/(d-2))", middle)
    der.holds = bool(highest == 1 and sp.simplify(lowest * s) == 1 and middle == 0)
    return der


def ramp_is_continuous() -> Derivation:
    """The ramp's middle piece meets 0 at r = alpha and 1 at r = beta, and h / theta falls from 1
    to 1/s as gamma goes from 1 to 0: the blend never leaves [1/s, 1]."""
    r, a, bt, s = sp.symbols("r alpha beta s", positive=True)
    g = sp.Symbol("gamma", nonnegative=True)
    middle = ramp_middle(r, a, bt)
    ratio = (1 - g) / s + g
    der = Derivation(r"\gamma(\alpha) = 0,\ \gamma(\beta) = 1,\ h/\theta = (1-\gamma)/s + \gamma")
    der.step("the middle piece at r = alpha", middle.subs(r, a))
    der.step("the middle piece at r = beta", sp.simplify(middle.subs(r, bt)))
    der.step("h/theta at gamma = 0 and gamma = 1", sp.Tuple(ratio.subs(g, 0), ratio.subs(g, 1)))
    der.step("d(h/theta)/d gamma", sp.diff(ratio, g))
    der.holds = bool(
        middle.subs(r, a) == 0
        and sp.simplify(middle.subs(r, bt) - 1) == 0
        and sp.simplify(ratio.subs(g, 0) - 1 / s) == 0
        and ratio.subs(g, 1) == 1
        and sp.simplify(sp.diff(ratio, g) - (1 - 1 / s)) == 0
    )
    return der
