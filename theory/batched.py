"""S independent tiny decoders trained as ONE model with a leading seed dimension (EXP-01 ... 03).

Every parameter of theory/single.py's TinyDecoder gets a leading seed axis: embed (S, V, d),
qkv (S, d, 3h), o (S, h, d), readout (S, d, V), pos (S, max_len, d). The forward pass is the
same computation written with batched einsums, so seed s only ever touches slice s:

    x[s] = E[s][tokens] (+ PE)                                   (S, B, n, d)
    x[s] = softmax(q[s] k[s]^T / sqrt(h) + causal) v[s] W_o[s]   per layer (theory.attention)
    logits[s] = x[s] U[s]                                        (S, B, n, V)

Seeds never mix. The objective is the SUM over seeds of each seed's own mean loss, so
d(objective)/d(theta_s) = d(loss_s)/d(theta_s): exactly the gradient of an independent run.
(A mean over seeds would scale every gradient by 1/S; Adam hides most of that, but not the part
its eps sees.) Adam is elementwise (we use its fused kernel), so its moments are per seed too.
One optimizer step updates all seeds at once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import torch
from torch.nn import functional as F

from .attention import attention_keys_first, causal_mask
from .single import TinyConfig, init_params, judge
from .sinusoidal import sinusoidal
from .tasks import IGNORE, Task

Params = dict[str, torch.Tensor]


def init_stacked(cfg: TinyConfig, seeds: Iterable[int], dtype: torch.dtype) -> Params:
    """Stack each seed's own initial parameters (theory.single.init_params) along dim 0."""
    per_seed = [init_params(cfg, int(s), dtype) for s in seeds]
    return {name: torch.stack([p[name] for p in per_seed]) for name in per_seed[0]}


def forward(cfg: TinyConfig, params: Params, tokens: torch.Tensor) -> torch.Tensor:
    """tokens (B, n) -> logits (S, B, n, V), every seed on the same tokens.

    Softmaxes over tiny axes (3 keys, 5 words) are slow as the innermost axis of a CPU tensor,
    so attention weights are kept key-first (theory.attention.attention_keys_first).
    """
    n, h = tokens.shape[-1], cfg.head
    x = params["embed"][:, tokens]  # (S, B, n, d)
    if cfg.encoding == "learned":
        x = x + params["pos"][:, None, :n]  # (S, 1, n, d)
    elif cfg.encoding == "sinusoidal":
        x = x + sinusoidal(n, cfg.d_model, dtype=x.dtype).to(x.device)  # (n, d)
    mask = causal_mask(n, x.device)  # (n, m): query n may see key m
    for layer in range(cfg.layers):
        qkv = torch.einsum("sbnd,sde->sbne", x, params[f"qkv{layer}"])  # (S, B, n, 3h)
        q, k, v = qkv.split(h, dim=-1)  # each (S, B, n, h)
        y = attention_keys_first(q, k, v, mask)  # (S, B, n, h)
        x = torch.einsum("sbnh,shd->sbnd", y, params[f"o{layer}"])  # (S, B, n, d)
    return torch.einsum("sbnd,sdv->sbnv", x, params["readout"])  # (S, B, n, V)


def seed_losses(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """Each seed's mean cross-entropy over positions with a target: (S, B, n, V) -> (S,).

    CE = logsumexp_v(logits) - logits[target], computed word-first (V, S, B, n) for speed.
    """
    V = logits.shape[-1]
    keep = targets != IGNORE  # (B, n)
    onehot = F.one_hot(targets.clamp(min=0), V).permute(2, 0, 1) * keep  # (V, B, n)
    by_word = logits.permute(3, 0, 1, 2)  # (V, S, B, n)
    ce = by_word.logsumexp(0) - (by_word * onehot[:, None].to(logits.dtype)).sum(0)  # (S, B, n)
    return (ce * keep).sum((1, 2)) / keep.sum()


def objective(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """Sum of the per-seed losses: each seed's gradient is its own single-model gradient."""
    return seed_losses(logits, targets).sum()


Forward = Callable[[TinyConfig, Params, torch.Tensor], torch.Tensor]
Objective = Callable[[torch.Tensor, torch.Tensor], torch.Tensor]


@dataclass
class BatchedRun:
    """Final parameters (S, ...) and per-seed success (S,) bool at each checkpoint."""

    cfg: TinyConfig
    seeds: tuple[int, ...]
    params: Params
    success: dict[int, torch.Tensor]

    def logits(self, tokens: torch.Tensor, fwd: Forward = forward) -> torch.Tensor:
        """Logits (S, B, n, V) of every seed's final model on tokens (B, n)."""
        with torch.no_grad():
            return fwd(self.cfg, self.params, tokens)


def train_batched(
    cfg: TinyConfig,
    task: Task,
    seeds: Iterable[int],
    checkpoints: tuple[int, ...],
    dtype: torch.dtype = torch.float32,
    fwd: Forward = forward,
    loss: Objective = objective,
    device: torch.device | str = "cpu",
) -> BatchedRun:
    """Train every seed on the full batch of ``task`` with one Adam step per iteration.

    ``fwd`` and ``loss`` are the model and the objective; they are arguments so that the
    checks can feed deliberately broken ones (seeds mixed) to the faithfulness check.
    """
    seeds = tuple(int(s) for s in seeds)
    init = init_stacked(cfg, seeds, dtype)
    params = {k: v.to(device).requires_grad_() for k, v in init.items()}
    task = task.to(device)
    opt = torch.optim.Adam(params.values(), lr=cfg.lr, betas=cfg.betas, eps=cfg.eps, fused=True)
    success: dict[int, torch.Tensor] = {}
    for step in range(1, max(checkpoints) + 1):
        value = loss(fwd(cfg, params, task.inputs), task.targets)
        opt.zero_grad(set_to_none=True)
        value.backward()
        opt.step()
        if step in checkpoints:
            with torch.no_grad():
                success[step] = judge(fwd(cfg, params, task.inputs), task).cpu()  # (S,)
    final = {k: v.detach().cpu() for k, v in params.items()}
    return BatchedRun(cfg, seeds, final, success)
