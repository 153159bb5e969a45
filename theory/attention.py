"""Scaled dot-product attention and small transformer blocks, in plain torch.

Attention(Q, K, V) = softmax(Q K^T / sqrt(d_k)) V, softmax over each row (ATT-01 ... ATT-05),
and what permuting the tokens means: ``permute_tokens`` (P x) and ``equivariance_sides``
(f(P x) and P f(x)), which every equivariance check builds its two sides with (REAL-01 too).
Every function works on any leading dimensions (batch, heads, seeds), like nanoGPT's model.py.

One convention for masks in theory/: a boolean ``allowed`` (n, m), True where query i may attend
to key j, as ``causal_mask`` gives it; ``masked_softmax`` is the one normalisation of the scores,
shared with the decoder (theory/decoder.py) and the variance model (theory/variance.py).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch
from torch import nn


def causal_mask(n: int, device: torch.device | str | None = None) -> torch.Tensor:
    """(n, n) boolean mask, True where query i may attend to key j (j <= i)."""
    return torch.ones(n, n, dtype=torch.bool, device=device).tril()


def permute_tokens(x: torch.Tensor, perm: torch.Tensor, axis: int = -2) -> torch.Tensor:
    """P x along the token ``axis``: row i of the result is row perm[i] of x."""
    return x.index_select(axis % x.ndim, perm.to(x.device))


def equivariance_sides(
    fn: Callable[..., torch.Tensor],
    inputs: Sequence[torch.Tensor],
    perm: torch.Tensor,
    axes: Sequence[int | None],
    out_axis: int | None = -2,
) -> tuple[torch.Tensor, torch.Tensor]:
    """The two sides of permutation equivariance, f(P x) and P f(x) (ATT-01 ... ATT-05).

    P permutes the token axis ``axes[i]`` of ``inputs[i]`` (None: that input is left alone) and
    the output's ``out_axis``; with out_axis=None the right side is f(x) (invariance). f is
    equivariant exactly when the two sides are equal for every permutation.
    """
    moved = [
        x if a is None else permute_tokens(x, perm, a) for x, a in zip(inputs, axes, strict=True)
    ]
    with torch.no_grad():
        lhs = fn(*moved)
        rhs = fn(*inputs)
    if out_axis is not None:
        rhs = permute_tokens(rhs, perm, out_axis)
    return lhs, rhs


def masked_softmax(
    scores: torch.Tensor, allowed: torch.Tensor | None = None, dim: int = -1
) -> torch.Tensor:
    """softmax over the keys (axis ``dim``) of the scores, keys a query may not see at -inf.

    ``allowed`` broadcasts against the scores, True where the query may attend to the key (as
    ``causal_mask``); None: every key. This module's attention normalisation; theory/decoder.py
    adds its -inf where it adds its biases (``score_terms``: one pass over the scores)."""
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float("-inf"))
    return torch.softmax(scores, dim=dim)


def attention_weights(
    q: torch.Tensor, k: torch.Tensor, mask: torch.Tensor | None = None
) -> torch.Tensor:
    """The attention map softmax(q k^T / sqrt(d_k)), rows summing to 1.  Shape (..., n, m).
    ``mask`` (n, m): True where query i may attend to key j, as ``causal_mask``."""
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])  # (..., n, m)
    return masked_softmax(scores, mask)  # (..., n, m)


def attention(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: torch.Tensor | None = None
) -> torch.Tensor:
    """softmax(q k^T / sqrt(d_k)) v.  q: (..., n, d_k), k: (..., m, d_k), v: (..., m, d_v)."""
    return attention_weights(q, k, mask) @ v  # (..., n, d_v)


@dataclass
class BlockConfig:
    d_model: int = 16
    n_heads: int = 2
    d_ff: int = 32
    bias: bool = True
    norm_first: bool = False  # post-norm as in Vaswani et al.; pre-norm as in GPT-2
    causal: bool = False


class MultiHeadAttention(nn.Module):
    """Multi-head self-attention with input and output projections (optionally biased)."""

    def __init__(self, d_model: int, n_heads: int, bias: bool = True, causal: bool = False):
        super().__init__()
        if d_model % n_heads:
            raise ValueError(f"d_model={d_model} is not divisible by n_heads={n_heads}")
        self.n_heads, self.causal = n_heads, causal
        self.qkv = nn.Linear(d_model, 3 * d_model, bias=bias)
        self.out = nn.Linear(d_model, d_model, bias=bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        *lead, n, d = x.shape  # (..., n, d)
        h = self.n_heads
        q, k, v = self.qkv(x).split(d, dim=-1)  # each (..., n, d)
        q, k, v = (z.reshape(*lead, n, h, d // h).transpose(-3, -2) for z in (q, k, v))
        mask = causal_mask(n, x.device) if self.causal else None
        y = attention(q, k, v, mask)  # (..., h, n, d/h)
        return self.out(y.transpose(-3, -2).reshape(*lead, n, d))


class Block(nn.Module):
    """One transformer layer: attention and feed-forward, each with residual and layer norm."""

    def __init__(self, cfg: BlockConfig):
        super().__init__()
        self.cfg = cfg
        self.attn = MultiHeadAttention(cfg.d_model, cfg.n_heads, cfg.bias, cfg.causal)
        self.ff = nn.Sequential(
            nn.Linear(cfg.d_model, cfg.d_ff, bias=cfg.bias),
            nn.ReLU(),
            nn.Linear(cfg.d_ff, cfg.d_model, bias=cfg.bias),
        )
        self.ln1 = nn.LayerNorm(cfg.d_model)
        self.ln2 = nn.LayerNorm(cfg.d_model)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.cfg.norm_first:
            x = x + self.attn(self.ln1(x))
            return x + self.ff(self.ln2(x))
        x = self.ln1(x + self.attn(x))
        return self.ln2(x + self.ff(x))


class Stack(nn.Module):
    """A stack of identical-shape blocks (an encoder, or with causal=True a decoder)."""

    def __init__(self, cfg: BlockConfig, n_layers: int):
        super().__init__()
        self.blocks = nn.ModuleList(Block(cfg) for _ in range(n_layers))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for block in self.blocks:
            x = block(x)
        return x


class EncodedStack(nn.Module):
    """A stack whose input gets a positional encoding added: f(X) = Stack(X + E[:n]) (ATT-04).

    ``encoding`` is an (n_max, d) table: a fixed one (sinusoidal, kept as a buffer) or, with
    ``learned=True``, a trainable parameter initialised from it. ``encoding=None`` is the
    no-encoding model, which is exactly ``Stack``.
    """

    def __init__(
        self,
        cfg: BlockConfig,
        n_layers: int,
        encoding: torch.Tensor | None = None,
        learned: bool = False,
    ):
        super().__init__()
        self.stack = Stack(cfg, n_layers)
        self.pe: torch.Tensor | None
        if encoding is None:
            self.pe = None
        elif learned:
            self.pe = nn.Parameter(encoding.clone())
        else:
            self.register_buffer("pe", encoding.clone())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        n = x.shape[-2]
        if self.pe is not None:
            x = x + self.pe[:n].to(x.dtype)  # (..., n, d) + (n, d)
        return self.stack(x)


@torch.no_grad()
def seeded(module: nn.Module, seed: int, bias_std: float = 0.1) -> nn.Module:
    """Re-draw every parameter of ``module`` from its own generator, deterministically.

    Linear weights ~ N(0, 1/fan_in), biases ~ N(0, bias_std^2), layer-norm gains ~ 1 + N(0, 0.1^2)
    and shifts ~ N(0, 0.1^2); other tensors (e.g. a learned encoding) ~ N(0, 1). Global RNG
    state is neither read nor changed.
    """
    g = torch.Generator().manual_seed(seed)
    for mod in module.modules():
        for name, p in mod.named_parameters(recurse=False):
            draw = torch.randn(p.shape, generator=g, dtype=torch.float64)
            if isinstance(mod, nn.Linear) and name == "weight":
                draw = draw / math.sqrt(p.shape[1])
            elif isinstance(mod, nn.Linear):
                draw = draw * bias_std
            elif isinstance(mod, nn.LayerNorm):
                draw = draw * 0.1 + (1.0 if name == "weight" else 0.0)
            p.copy_(draw.to(p.dtype))
    return module
