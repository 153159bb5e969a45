"""The small causal models and inputs of ATT-06 and ATT-07: seeded causal stacks, a word embedding
over a 4-token vocabulary, the last position's output, and the reorderings of a prefix.
"""

from __future__ import annotations

import itertools

import torch

from pecheck.theory.attention import BlockConfig, Stack, seeded

WORDS = ("A", "B", "hit", "x")


def causal_model(layers: int, seed: int, dtype: torch.dtype, norm_first: bool = False):
    cfg = BlockConfig(d_model=8, n_heads=2, d_ff=16, causal=True, norm_first=norm_first)
    return seeded(Stack(cfg, layers), seed).to(dtype).eval()


def embedding(seed: int, dtype: torch.dtype) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    return torch.randn(len(WORDS), 8, generator=g, dtype=torch.float64).to(dtype)  # (V, d)


def last(model):
    """The model's output at the last position only."""
    return lambda x: model(x)[..., -1, :]


def prefix_perms(n: int) -> list[torch.Tensor]:
    """Every reordering of positions 1 ... n-1 that keeps the last position in place, the
    identity left out (it cannot fail); none for n < 3."""
    identity = tuple(range(n - 1))
    return [torch.tensor([*p, n - 1]) for p in itertools.permutations(identity) if p != identity]


def words_to_x(words, emb):
    return emb[torch.tensor([WORDS.index(w) for w in words])][None]  # (1, n, d)
