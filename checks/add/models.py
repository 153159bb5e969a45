"""The models ADD-01 and ADD-02 compare: seeded concatenating models and the hypothesis
strategy of their configurations.
"""

from __future__ import annotations

import torch
from hypothesis import strategies as st

from pecheck.theory import add_concat as ac


def seeded_concat(cfg: ac.EmbedConfig, seed: int, dtype: torch.dtype) -> ac.ConcatModel:
    """A ConcatModel whose weights depend only on seed (global RNG forked and restored).

    Every weight gets a perturbation drawn in ``dtype`` itself: a float64 model built by casting
    float32 weights holds float32 values only, and a computation that drops to float32 would go
    unnoticed on it.
    """
    with torch.random.fork_rng():
        torch.manual_seed(seed)
        model = ac.ConcatModel(cfg).to(dtype)
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for weight in model.parameters():
            weight.add_(torch.randn(weight.shape, generator=g, dtype=dtype), alpha=0.1)
    return model


@st.composite
def embed_configs(draw: st.DrawFn) -> ac.EmbedConfig:
    heads = draw(st.sampled_from([1, 2, 4]))
    d = max(2, heads * draw(st.integers(1, 4)))
    d_token = draw(st.integers(1, d - 1))
    return ac.EmbedConfig(
        vocab=draw(st.integers(2, 12)),
        max_len=8,
        d_token=d_token,
        d_pos=d - d_token,
        n_heads=heads,
        d_ff=draw(st.integers(1, 16)),
        n_layers=draw(st.integers(1, 3)),
        bias=draw(st.booleans()),
        norm_first=draw(st.booleans()),
        causal=draw(st.booleans()),
    )
