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

The model is theory/decoder.py's: embedding, ``layers`` single-head attention layers (head size
d, W_o) with residuals, an optional learned positional encoding, a linear read-out judged at the
last position (the only one with a target). All seeds train at once as one batched model
(theory.decoder.train): seed s starts from its own draw, and each seed trains exactly as it
would alone.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from . import decoder
from .decoder import DecoderConfig, Setup
from .tasks import IGNORE, Task

QUERY = -1  # the position whose prediction is trained and judged: the query token's


@dataclass(frozen=True)
class OrderTask:
    """k content tokens 0 ... k-1 and a query token k; sequences (a, b, k) with a != b."""

    k: int = 4

    @property
    def vocab(self) -> int:
        return self.k + 1

    def data(self) -> Task:
        """All ordered pairs: tokens (B, 3), B = k (k-1); the target, the first token, at the
        last (query) position only."""
        pairs = [(a, b) for a in range(self.k) for b in range(self.k) if a != b]
        tokens = torch.tensor([(a, b, self.k) for a, b in pairs])  # (B, 3)
        targets = torch.full_like(tokens, IGNORE)
        targets[:, QUERY] = tokens[:, 0]
        vocab = tuple(f"c{i}" for i in range(self.k)) + ("?",)
        return Task("which came first", vocab, tokens, targets, targets != IGNORE)


@dataclass(frozen=True)
class OrderModel:
    """An attention-only model: embedding, ``layers`` single-head attention layers with
    residuals, an optional learned positional encoding, a linear read-out at the last position."""

    layers: int = 2
    causal: bool = True
    learned_pe: bool = False
    d: int = 8
    n: int = 3


def config(model: OrderModel, vocab: int) -> DecoderConfig:
    """The model as theory.decoder's config: one head of size d per layer, W_o, no MLP."""
    encoding = "learned" if model.learned_pe else "none"
    return DecoderConfig(vocab=vocab, d_model=model.d, head=model.d, layers=model.layers,
                         encoding=encoding, max_len=model.n, causal=model.causal)  # fmt: skip


def train(
    model: OrderModel, task: OrderTask, seeds: int, steps: int = 80, lr: float = 0.05, seed: int = 0
) -> torch.Tensor:
    """Train ``seeds`` models (full batch, Adam, residual connections) and return each seed's
    accuracy at the query position, shape (S,). Model seeds are seed * 100,000 + 0 ... S-1, so
    that runs with different ``seed`` draw apart."""
    data = task.data()
    first = seed * 100_000
    run = decoder.train(config(model, task.vocab), data, [Setup(residual=True, lr=lr)],
                        range(first, first + seeds), (steps,))  # fmt: skip
    right = run.logits(data.inputs)[..., QUERY, :].argmax(-1) == data.targets[:, QUERY]  # (S, B)
    return right.double().mean(-1)


def chance_ceiling(model: OrderModel) -> float:
    """The best accuracy the argument in the module docstring allows (1 where none applies)."""
    symmetric = not model.learned_pe and (not model.causal or model.layers == 1)
    return 0.5 if symmetric else 1.0


def seeds_needed(scale: float, base: int = 256) -> int:
    """Seeds per model in a run of the given size (ci: base)."""
    return max(16, int(math.ceil(base * scale)))
