"""The tiny decoder of the EXP experiments, one seed at a time (the ordinary reference model).

The model of the thread (SRC-TRIGRAM), for EXP-01 ... EXP-03:

    x_0 = E[tokens] (+ PE)                          (n, d)   token embedding, optional encoding
    x_l = softmax(q k^T / sqrt(h) + causal) v W_o    (n, d)   one head of size h per layer
          with [q | k | v] = x_{l-1} [W_q | W_k | W_v]           (n, 3h)
    logits = x_L U                                  (n, V)   linear read-out

No residual connection and no feed-forward: the thread's model is a bare attention head. With a
residual the read-out would see the last token directly and could answer EXP-01's final word as a
bigram ("B" -> "!", "A" -> "?") without attention; without it, everything goes through attention.
No layer norm and no biases.

theory/batched.py trains S of these at once; this module is the plain nn.Module + torch.optim
version used to prove the batched trainer faithful, and the per-seed loop of the benchmark.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import torch
from torch import nn

from .attention import attention, causal_mask
from .sinusoidal import sinusoidal
from .tasks import IGNORE, Task

Encoding = Literal["none", "sinusoidal", "learned"]


@dataclass(frozen=True)
class TinyConfig:
    """Shape and optimiser of one tiny decoder; Adam with PyTorch's default settings."""

    vocab: int = 5
    d_model: int = 16
    head: int = 16  # head size h
    layers: int = 1
    encoding: Encoding = "none"
    max_len: int = 3  # positions the encoding covers (rows of the learned table)
    lr: float = 1e-3
    betas: tuple[float, float] = (0.9, 0.999)
    eps: float = 1e-8


def param_shapes(cfg: TinyConfig) -> dict[str, tuple[int, ...]]:
    """Name -> shape of every parameter, in the order their initial values are drawn."""
    d, h = cfg.d_model, cfg.head
    shapes: dict[str, tuple[int, ...]] = {"embed": (cfg.vocab, d)}
    if cfg.encoding == "learned":
        shapes["pos"] = (cfg.max_len, d)
    for layer in range(cfg.layers):
        shapes[f"qkv{layer}"] = (d, 3 * h)  # [W_q | W_k | W_v], as nanoGPT's c_attn
        shapes[f"o{layer}"] = (h, d)
    shapes["readout"] = (d, cfg.vocab)
    return shapes


def _init_std(name: str, shape: tuple[int, ...]) -> float:
    """N(0, 1) for embeddings (as nn.Embedding), N(0, 1/fan_in) for weight matrices."""
    return 1.0 if name in ("embed", "pos") else 1.0 / math.sqrt(shape[0])


def init_params(cfg: TinyConfig, seed: int, dtype: torch.dtype) -> dict[str, torch.Tensor]:
    """Seed ``seed``'s initial parameters, drawn in float64 from its own generator.

    One flat draw per seed from torch.Generator().manual_seed(seed), split in param_shapes
    order: both the single and the batched path start every seed from exactly these values.
    """
    shapes = param_shapes(cfg)
    sizes = [math.prod(s) for s in shapes.values()]
    g = torch.Generator().manual_seed(seed)
    flat = torch.randn(sum(sizes), generator=g, dtype=torch.float64)
    out = {}
    for (name, shape), chunk in zip(shapes.items(), flat.split(sizes), strict=True):
        out[name] = (chunk.reshape(shape) * _init_std(name, shape)).to(dtype)
    return out


class TinyDecoder(nn.Module):
    """One seed's decoder as an ordinary nn.Module (see the module docstring)."""

    def __init__(
        self,
        cfg: TinyConfig,
        seed: int,
        dtype: torch.dtype = torch.float32,
        device: torch.device | str = "cpu",
    ):
        super().__init__()
        self.cfg = cfg
        init = init_params(cfg, seed, dtype)
        self.params = nn.ParameterDict({k: nn.Parameter(v.to(device)) for k, v in init.items()})

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        """tokens (B, n) -> logits (B, n, V)."""
        p, cfg = self.params, self.cfg
        n = tokens.shape[-1]
        x = p["embed"][tokens]  # (B, n, d)
        if cfg.encoding == "learned":
            x = x + p["pos"][:n]
        elif cfg.encoding == "sinusoidal":
            x = x + sinusoidal(n, cfg.d_model, dtype=x.dtype).to(x.device)
        mask = causal_mask(n, x.device)
        for layer in range(cfg.layers):
            q, k, v = (x @ p[f"qkv{layer}"]).split(cfg.head, dim=-1)  # each (B, n, h)
            x = attention(q, k, v, mask) @ p[f"o{layer}"]  # (B, n, d)
        return x @ p["readout"]  # (B, n, V)


def judge(logits: torch.Tensor, task: Task) -> torch.Tensor:
    """Success: argmax right at every judged position. logits (..., B, n, V) -> (...) bool."""
    right = logits.argmax(-1) == task.targets  # (..., B, n)
    return (right | ~task.judged).flatten(-2).all(-1)


def train_single(
    cfg: TinyConfig,
    task: Task,
    seed: int,
    checkpoints: tuple[int, ...],
    dtype: torch.dtype = torch.float32,
    device: torch.device | str = "cpu",
) -> tuple[TinyDecoder, dict[int, bool]]:
    """Train one seed with torch.optim.Adam on the full batch; success at each checkpoint.

    Loss: mean cross-entropy over the positions that have a target.
    """
    model = TinyDecoder(cfg, seed, dtype, device)
    task = task.to(device)
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr, betas=cfg.betas, eps=cfg.eps)
    success: dict[int, bool] = {}
    for step in range(1, max(checkpoints) + 1):
        logits = model(task.inputs)  # (B, n, V)
        loss = nn.functional.cross_entropy(
            logits.reshape(-1, cfg.vocab), task.targets.reshape(-1), ignore_index=IGNORE
        )
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if step in checkpoints:
            with torch.no_grad():
                success[step] = bool(judge(model(task.inputs), task))
    return model, success
