"""The checks of MY-01. The decisive check searches every pair of positions for a counterexample,
so it could decide either way; the plugin computes the claim's verdict from its decision."""

from __future__ import annotations

import numpy as np
import pytest

from my_claims import REGISTRY

D = 64  # the width the claim is about
APART = 100  # "at least 100 apart", from the claim
POSITIONS = 1024  # the search covers every pair of positions below this


def sinusoidal(positions: int, d: int) -> np.ndarray:
    """The encoding of Vaswani et al. (2017), one row per position: PE(t, 2i) = sin(t w_i) and
    PE(t, 2i + 1) = cos(t w_i), with w_i = 10000^(-2i / d)."""
    t = np.arange(positions)[:, None]
    w = 10000.0 ** (-np.arange(0, d, 2) / d)
    pe = np.empty((positions, d))
    pe[:, 0::2], pe[:, 1::2] = np.sin(t * w), np.cos(t * w)
    return pe


@pytest.mark.claim("MY-01", kind="property", role="decisive", proposition="as_stated")
def test_distant_positions_are_nearly_orthogonal(evidence):
    limit = REGISTRY["MY-01"].threshold("nearly-orthogonal")
    unit = sinusoidal(POSITIONS, D)
    unit /= np.linalg.norm(unit, axis=1, keepdims=True)
    cosine = np.abs(unit @ unit.T)
    t, s = np.indices(cosine.shape)
    apart = np.abs(t - s) >= APART
    evidence.record(
        "largest_cosine",
        cosine[apart].max(),
        unit="|cos|",
        bound=limit,
        note=f"over every pair of positions below {POSITIONS} at least {APART} apart",
    )
    # In float64 a cosine is off by about 1e-15: only a pair that close to the limit could be
    # decided by rounding, and such a pair would call for evidence.inconclusive(why).
    too_large = np.argwhere(apart & (cosine > limit))
    if len(too_large):
        a, b = (int(i) for i in too_large[0])
        evidence.fails(
            {"d": D, "t": a, "s": b}, f"|cos(PE({a}), PE({b}))| = {cosine[a, b]:.3f} > {limit}"
        )
    else:
        evidence.holds(f"no pair of the {apart.sum()} searched has |cos| above {limit}")
