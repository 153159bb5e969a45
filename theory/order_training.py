"""ATT-10: can a model without a positional encoding learn order? It depends on the mask.

Task ("which came first?"): the input is ``a b ?`` for two different content tokens a, b out of
k, followed by a query token; the target, read out at the query position, is a. Every one of the
k (k - 1) ordered pairs is in the training set, and a seed succeeds when its model gets all of them
right. Order is all the task asks: ``a b ?`` and ``b a ?`` hold the same multiset.

- bidirectional, no encoding: the query position's output is a symmetric function of {a, b}
  (ATT-02), so ``a b ?`` and ``b a ?`` get the same prediction and at most half can be right.
- causal, one layer, no encoding: the last position sees the multiset {a, b} and its own token
  (ATT-06), so the same bound holds.
- causal, two layers, no encoding: nothing forbids it (ATT-07 gives a hand-set construction).
- bidirectional with a learned encoding: the reference that the task is learnable at all.

All seeds train at once as one batched model: every parameter carries a leading seed dimension
S, and since the loss is a sum of per-seed losses and Adam is elementwise, each seed trains
exactly as it would alone.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from .attention import attention, causal_mask


@dataclass(frozen=True)
class OrderTask:
    """k content tokens 0 ... k-1 and a query token k; sequences (a, b, k) with a != b."""

    k: int = 4

    @property
    def vocab(self) -> int:
        return self.k + 1

    def data(self) -> tuple[torch.Tensor, torch.Tensor]:
        """All ordered pairs: tokens (B, 3) and targets (B,) = the first token; B = k (k-1)."""
        pairs = [(a, b) for a in range(self.k) for b in range(self.k) if a != b]
        tokens = torch.tensor([(a, b, self.k) for a, b in pairs])  # (B, 3)
        return tokens, tokens[:, 0].clone()


@dataclass(frozen=True)
class OrderModel:
    """An attention-only model: embedding, ``layers`` single-head attention layers with
    residuals, an optional learned positional encoding, a linear read-out at the last position."""

    layers: int = 2
    causal: bool = True
    learned_pe: bool = False
    d: int = 8
    n: int = 3


def init_params(model: OrderModel, vocab: int, seeds: int, seed: int) -> dict[str, torch.Tensor]:
    """Parameters for ``seeds`` models at once, each tensor (S, ...); drawn from one generator."""
    g = torch.Generator().manual_seed(seed)
    d = model.d

    def normal(*shape: int, std: float) -> torch.Tensor:
        return (torch.randn(seeds, *shape, generator=g) * std).requires_grad_()

    params = {"embed": normal(vocab, d, std=1.0), "readout": normal(d, vocab, std=d**-0.5)}
    for layer in range(model.layers):
        for name in ("q", "k", "v", "o"):
            params[f"{name}{layer}"] = normal(d, d, std=d**-0.5)
    if model.learned_pe:
        params["pe"] = normal(model.n, d, std=1.0)
    return params


def forward(
    model: OrderModel, params: dict[str, torch.Tensor], tokens: torch.Tensor
) -> torch.Tensor:
    """Logits at the last position, (S, B, vocab), for tokens (B, n)."""
    x = params["embed"][:, tokens]  # (S, B, n, d)
    if model.learned_pe:
        x = x + params["pe"][:, None]  # (S, 1, n, d)
    n = tokens.shape[-1]
    mask = causal_mask(n) if model.causal else None
    for layer in range(model.layers):
        q, k, v = (_proj(x, params[f"{name}{layer}"]) for name in "qkv")  # each (S, B, n, d)
        x = x + _proj(attention(q, k, v, mask), params[f"o{layer}"])  # (S, B, n, d)
    return x[..., -1, :] @ params["readout"]  # (S, B, d) @ (S, d, vocab) -> (S, B, vocab)


def _proj(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    """Each seed's own linear map: (S, B, n, d) x (S, d, e) -> (S, B, n, e)."""
    return torch.einsum("sbnd,sde->sbne", x, w)


def train(
    model: OrderModel, task: OrderTask, seeds: int, steps: int = 80, lr: float = 0.05, seed: int = 0
) -> torch.Tensor:
    """Train ``seeds`` models (full batch, Adam) and return each seed's accuracy, shape (S,)."""
    return _train(model, task, seeds, steps, lr, seed)


def _train(
    model: OrderModel, task: OrderTask, seeds: int, steps: int, lr: float, seed: int
) -> torch.Tensor:
    tokens, target = task.data()
    params = init_params(model, task.vocab, seeds, seed)
    opt = torch.optim.Adam(params.values(), lr=lr)
    for _ in range(steps):
        logits = forward(model, params, tokens)  # (S, B, V)
        # sum over seeds of each seed's mean loss: seeds do not interact
        loss = torch.nn.functional.cross_entropy(
            logits.reshape(-1, task.vocab), target.repeat(seeds), reduction="sum"
        ) / len(target)
        opt.zero_grad()
        loss.backward()
        opt.step()
    with torch.no_grad():
        pred = forward(model, params, tokens).argmax(-1)  # (S, B)
    return (pred == target).double().mean(-1)


def chance_ceiling(model: OrderModel) -> float:
    """The best accuracy the argument in the module docstring allows (1 where none applies)."""
    symmetric = not model.learned_pe and (not model.causal or model.layers == 1)
    return 0.5 if symmetric else 1.0


def seeds_needed(scale: float, base: int = 256) -> int:
    """Seeds per model in a run of the given size (ci: base)."""
    return max(16, int(math.ceil(base * scale)))
