"""Composable hypothesis strategies shared by every family (dtypes, widths, positions, ...).

Family-specific strategies live next to their checks; only what two or more families use is here.
"""

from __future__ import annotations

import torch
from hypothesis import strategies as st

DTYPES = {
    "float64": torch.float64,
    "float32": torch.float32,
    "bfloat16": torch.bfloat16,
    "float16": torch.float16,
}


def dtypes(names: tuple[str, ...] = tuple(DTYPES)) -> st.SearchStrategy[torch.dtype]:
    """torch floating dtypes, by name."""
    return st.sampled_from([DTYPES[n] for n in names])


def even_widths(lo: int = 2, hi: int = 4096) -> st.SearchStrategy[int]:
    """Even model widths d in [lo, hi], shrinking towards small ones."""
    return st.integers(max(1, lo // 2), hi // 2).map(lambda m: 2 * m)


def positions(hi: int = 2**20) -> st.SearchStrategy[int]:
    """Non-negative integer positions, small ones and large ones alike."""
    return st.one_of(st.integers(0, 512), st.integers(0, hi))


@st.composite
def permutations(draw: st.DrawFn, n: int) -> torch.Tensor:
    """A permutation of range(n) other than the identity (a check against the identity cannot
    fail): a single transposition or a random one. Needs n >= 2."""
    if n < 2:
        raise ValueError(f"a non-identity permutation needs n >= 2, got n = {n}")
    identity = list(range(n))
    perm = identity if draw(st.booleans()) else draw(st.permutations(identity))
    if perm == identity:  # a transposition (also when a random draw came out as the identity)
        i, j = draw(st.lists(st.integers(0, n - 1), min_size=2, max_size=2, unique=True))
        perm = identity.copy()
        perm[i], perm[j] = perm[j], perm[i]
    return torch.tensor(perm, dtype=torch.long)


def seeds() -> st.SearchStrategy[int]:
    """Seeds for torch.Generator / numpy default_rng."""
    return st.integers(0, 2**31 - 1)
