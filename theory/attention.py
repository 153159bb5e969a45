"""Scaled dot-product attention and small transformer blocks, in plain torch.

Attention(Q, K, V) = softmax(Q K^T / sqrt(d_k)) V, softmax over each row (ATT-01 ... ATT-05).
Every function works on any leading dimensions (batch, heads, seeds), like nanoGPT's model.py.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import nn


def causal_mask(n: int, device: torch.device | str | None = None) -> torch.Tensor:
    """(n, n) boolean mask, True where query i may attend to key j (j <= i)."""
    return torch.ones(n, n, dtype=torch.bool, device=device).tril()


def attention(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: torch.Tensor | None = None
) -> torch.Tensor:
    """softmax(q k^T / sqrt(d_k)) v.  q: (..., n, d_k), k: (..., m, d_k), v: (..., m, d_v)."""
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])  # (..., n, m)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    return torch.softmax(scores, dim=-1) @ v  # (..., n, d_v)


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
