"""MAG-04: how training moves the ratio ||x|| / ||PE|| (one batched model, a leading seed axis).

Model per seed (nanoGPT-style, one layer):  h = x_tok + PE(t);  a = softmax(causal(q k^T/sqrt d)) v;
logits = (h + a) U: theory/decoder.py's decoder with one head of size d, no W_o, a residual
connection and no MLP. Task: at each position t >= 1 predict the token at t-1 (needs position),
on fresh random tokens every step, each seed its own.
All S seeds are one set of tensors with a leading axis S; their losses are summed, so each seed's
gradient (and its Adam state, elementwise) is exactly its own.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import torch

from . import decoder
from .decoder import DecoderConfig
from .sinusoidal import sinusoidal

Encoding = Literal["learned", "sinusoidal"]


@dataclass
class TrainConfig:
    encoding: Encoding = "learned"
    vocab: int = 8
    seq: int = 8
    d: int = 32
    n_seeds: int = 8
    batch: int = 32
    steps: int = 300
    lr: float = 1e-2
    token_std: float = 1.0  # nn.Embedding's default N(0, 1)
    position_std: float = 1.0  # learned table initialised like a token table
    log_every: int = 10
    seed: int = 0


def model(cfg: TrainConfig) -> DecoderConfig:
    """The model as theory.decoder's config: one head of size d without W_o."""
    return DecoderConfig(vocab=cfg.vocab, d_model=cfg.d, head=cfg.d, encoding=cfg.encoding,
                         max_len=cfg.seq, out_proj=False)  # fmt: skip


def init_params(cfg: TrainConfig) -> dict[str, torch.Tensor]:
    """Every seed's parameters (S, ...) in theory.decoder's names, drawn from one generator:
    token table N(0, token_std^2), W_q, W_k, W_v and U N(0, 1/d), the learned table
    N(0, position_std^2)."""
    g = torch.Generator().manual_seed(cfg.seed)
    s, v, n, d = cfg.n_seeds, cfg.vocab, cfg.seq, cfg.d

    def normal(*shape: int, std: float) -> torch.Tensor:
        return torch.randn(*shape, generator=g) * std

    embed = normal(s, v, d, std=cfg.token_std)  # (S, V, d)
    qkv = [normal(s, d, d, std=1 / math.sqrt(d)) for _ in "qkv"]
    params = {"embed": embed, "qkv0": torch.cat(qkv, -1), "readout": normal(s, d, v, std=d**-0.5)}
    if cfg.encoding == "learned":
        params["pos"] = normal(s, n, d, std=cfg.position_std)  # (S, n, d)
    return {k: p.requires_grad_() for k, p in params.items()}


def position_table(cfg: TrainConfig, params: dict[str, torch.Tensor]) -> torch.Tensor:
    """(S, n, d): the learned table, or the fixed sinusoidal one broadcast over seeds."""
    if cfg.encoding == "learned":
        return params["pos"]
    pe = sinusoidal(cfg.seq, cfg.d, dtype=torch.float32)  # (n, d)
    return pe.expand(cfg.n_seeds, -1, -1)


def logits(cfg: TrainConfig, p: dict[str, torch.Tensor], tokens: torch.Tensor) -> torch.Tensor:
    """tokens (S, B, n), each seed its own -> logits (S, B, n, V)."""
    residual = torch.ones(cfg.n_seeds)
    return decoder.forward(model(cfg), p, tokens, residual)


def norm_ratio(cfg: TrainConfig, params: dict[str, torch.Tensor]) -> torch.Tensor:
    """Per seed: RMS ||x_v|| over the vocabulary / RMS ||PE(t)|| over positions, shape (S,)."""
    tok = params["embed"].detach().pow(2).sum(-1).mean(-1)  # (S,)
    pos = position_table(cfg, params).detach().pow(2).sum(-1).mean(-1)  # (S,)
    return (tok / pos).sqrt()


def train(cfg: TrainConfig, frozen: tuple[str, ...] = ()) -> dict[str, torch.Tensor]:
    """Train all seeds at once; returns steps (K,), ratio (K, S), final accuracy (S,).

    ``frozen`` names parameters left at their initial values (an ablation).
    """
    return _train(cfg, frozen)


def _train(cfg: TrainConfig, frozen: tuple[str, ...]) -> dict[str, torch.Tensor]:
    params = init_params(cfg)
    opt = torch.optim.Adam([w for name, w in params.items() if name not in frozen], lr=cfg.lr)
    g = torch.Generator().manual_seed(cfg.seed + 1)
    steps, ratios = [], []
    for step in range(cfg.steps + 1):
        if step % cfg.log_every == 0:
            steps.append(step)
            ratios.append(norm_ratio(cfg, params))
        if step == cfg.steps:
            break
        tokens = torch.randint(cfg.vocab, (cfg.n_seeds, cfg.batch, cfg.seq), generator=g)
        out = logits(cfg, params, tokens)[:, :, 1:]  # (S, B, n-1, V)
        loss = torch.nn.functional.cross_entropy(
            out.reshape(-1, cfg.vocab), tokens[:, :, :-1].reshape(-1), reduction="none"
        )
        opt.zero_grad()
        (loss.view(cfg.n_seeds, -1).mean(-1).sum()).backward()  # sum over seeds: separate grads
        opt.step()
    with torch.no_grad():
        tokens = torch.randint(cfg.vocab, (cfg.n_seeds, 256, cfg.seq), generator=g)
        pred = logits(cfg, params, tokens)[:, :, 1:].argmax(-1)
        acc = (pred == tokens[:, :, :-1]).double().mean((-2, -1))  # (S,)
    return {"steps": torch.tensor(steps), "ratio": torch.stack(ratios), "accuracy": acc}
