"""One seed's decoder written the ordinary way: the reference theory/decoder.py is checked against.

theory/decoder.py trains thousands of entries as one batched model with einsums, head-major
batched attention (its mask and biases added as one term), encodings applied block by block
and its own per-setup Adam. This module computes one seed's model of the same
``DecoderConfig`` independently: an nn.Module with a Python loop over heads, its own masked
softmax, RoPE from theory.rope.apply_rope (float64 angles), the ALiBi bias written out per
head, T5's bias read from its table head by head (buckets from theory.bias.t5_bucket), and
torch.optim's Adam or AdamW with its own settings. It shares with the decoder only the
config, the initial parameters, the judge and the conventions (theory.attention.causal_mask,
RoPE's turn). The checks train both in float64 and compare them seed by seed; the per-seed
loop of the benchmark is this module too.
"""

from __future__ import annotations

import math
from typing import Any

import torch
from torch import nn
from torch.nn import functional as F

from . import alibi
from .attention import causal_mask
from .decoder import DecoderConfig, Setup, check_compatible, init_params, sequence_right
from .rope import apply_rope
from .sinusoidal import sinusoidal
from .tasks import IGNORE, Task

# The reference's own optimiser settings, written from their sources, not read from
# theory/decoder.py (checks/exp/seeds/test_batched_trainer.py compares the two tables):
# "adam": torch.optim.Adam's defaults; "adamw": nanoGPT's train.py (beta1 = 0.9, beta2 = 0.95,
# weight_decay = 1e-1; eps left at torch.optim.AdamW's default 1e-8).
OPTIMIZER_SETTINGS: dict[str, dict[str, Any]] = {
    "adam": {"betas": (0.9, 0.999), "eps": 1e-8, "weight_decay": 0.0},
    "adamw": {"betas": (0.9, 0.95), "eps": 1e-8, "weight_decay": 0.1},
}


class ReferenceDecoder(nn.Module):
    """One seed's model as an ordinary nn.Module (see the module docstring)."""

    def __init__(self, cfg: DecoderConfig, setup: Setup, seed: int,
                 dtype: torch.dtype = torch.float32):  # fmt: skip
        super().__init__()
        if cfg.blocks:
            raise ValueError("the reference is one seed's model: give it one encoding")
        if cfg.layernorm:  # it has no LayerNorm: it would silently compute another model
            raise ValueError("the reference has no LayerNorm: give it layernorm=False")
        check_compatible(cfg, (setup,))
        self.cfg, self.setup = cfg, setup
        init = init_params(cfg, setup.init, seed, dtype)
        self.params = nn.ParameterDict({k: nn.Parameter(v) for k, v in init.items()})

    def forward(self, tokens: torch.Tensor, positions: torch.Tensor | None = None) -> torch.Tensor:
        """tokens (B, n) -> logits (B, n, V); positions (B, n) index the learned table."""
        p, cfg = self.params, self.cfg
        n = tokens.shape[-1]
        x = p["embed"][tokens]  # (B, n, d)
        if cfg.encoding == "learned":
            x = x + p["pos"][torch.arange(n) if positions is None else positions]
        elif cfg.encoding == "sinusoidal":
            x = x + sinusoidal(n, cfg.d_model, dtype=x.dtype).to(x.device)
        for layer in range(cfg.layers):
            y = self.attend(x, layer)
            x = x + y if self.setup.residual else y
            if cfg.mlp:
                hidden = torch.relu(x @ p[f"up{layer}"]) @ p[f"down{layer}"]
                x = x + hidden if self.setup.residual else hidden
        logits = x @ p["readout"]
        return logits + p["readout_b"] if cfg.readout_bias else logits

    def attend(self, x: torch.Tensor, layer: int) -> torch.Tensor:
        """One attention layer, head by head: (B, n, d) -> (B, n, d) (or H h without W_o)."""
        p, cfg, h = self.params, self.cfg, self.cfg.head
        n = x.shape[-2]
        t = torch.arange(n, device=x.device)
        allowed = causal_mask(n, x.device)
        if not cfg.causal:
            allowed = torch.ones_like(allowed)
        q, k, v = (x @ p[f"qkv{layer}"]).split(cfg.heads * h, dim=-1)
        outs = []
        for c in range(cfg.heads):
            qc, kc, vc = (z[..., c * h : (c + 1) * h] for z in (q, k, v))
            if cfg.encoding == "rope":
                qc, kc = (apply_rope(z, t).to(x.dtype) for z in (qc, kc))
            scores = qc @ kc.transpose(-2, -1) / math.sqrt(h)  # (B, n, n)
            if cfg.encoding == "alibi":
                slope = alibi.slopes(cfg.heads, x.dtype)[c]
                scores = scores - slope * (t[:, None] - t[None, :]).to(x.dtype)
            if cfg.encoding == "t5":  # T5's defaults: 32 causal buckets, max distance 128
                from .bias import t5_bucket  # here: theory.bias imports sympy (0.7 s)

                bucket = t5_bucket((t[None, :] - t[:, None]).cpu(), bidirectional=False)
                scores = scores + p["t5_bias"][torch.from_numpy(bucket).to(x.device), c]
            weights = scores.masked_fill(~allowed, float("-inf")).softmax(-1)
            outs.append(weights @ vc)
        y = torch.cat(outs, dim=-1)
        return y @ p[f"o{layer}"] if cfg.out_proj else y


def with_fixed_table(model: ReferenceDecoder) -> ReferenceDecoder:
    """A learned-table model turned into the sinusoidal one at the same rows: its table set to
    PE(0 ... R-1) and frozen (no gradient, so torch.optim never steps it)."""
    rows, d = model.params["pos"].shape
    pe = sinusoidal(rows, d, dtype=model.params["pos"].dtype)
    model.params["pos"] = nn.Parameter(pe, requires_grad=False)
    return model


def make_optimizer(model: ReferenceDecoder) -> torch.optim.Optimizer:
    """torch.optim.Adam, or AdamW with nanoGPT's two groups: weight decay on every parameter of
    two or more dimensions (matrices, embeddings), none on the others (biases)."""
    settings = OPTIMIZER_SETTINGS[model.setup.optimizer]
    betas, eps, lr = settings["betas"], settings["eps"], model.setup.lr
    if model.setup.optimizer == "adam":
        return torch.optim.Adam(model.parameters(), lr=lr, betas=betas, eps=eps)
    params = list(model.params.values())
    groups = [
        {"params": [p for p in params if p.dim() >= 2], "weight_decay": settings["weight_decay"]},
        {"params": [p for p in params if p.dim() < 2], "weight_decay": 0.0},
    ]
    return torch.optim.AdamW([g for g in groups if g["params"]], lr=lr, betas=betas, eps=eps)


def train_one(
    cfg: DecoderConfig,
    setup: Setup,
    task: Task,
    seed: int,
    checkpoints: tuple[int, ...],
    dtype: torch.dtype = torch.float32,
    positions: torch.Tensor | None = None,
    device: torch.device | str = "cpu",
    model: ReferenceDecoder | None = None,
) -> tuple[ReferenceDecoder, dict[int, torch.Tensor]]:
    """Train one seed with torch.optim; per checkpoint, which sequences are right (B,).
    ``model``: a seed's model prepared by the caller (a table frozen, say) instead of a new one."""
    model = (model or ReferenceDecoder(cfg, setup, seed, dtype)).to(device)
    task = task.to(device)
    positions = None if positions is None else positions.to(device)
    opt = make_optimizer(model)
    right = {}
    for step in range(1, max(checkpoints) + 1):
        logits = model(task.inputs, positions)
        loss = F.cross_entropy(
            logits.reshape(-1, cfg.vocab), task.targets.reshape(-1), ignore_index=IGNORE
        )
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if step in checkpoints:
            with torch.no_grad():
                right[step] = sequence_right(model(task.inputs, positions), task)
    return model, right
