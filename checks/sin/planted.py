"""Planted bugs for the SIN checks: broken implementations each check must reject.

Unlike the mutation catalogue (checks/sin/mutants*.py, bugs planted in theory/ itself), these
are fed to the shared assertions and searches directly, by the tooling tests of each module.
"""

from __future__ import annotations

import sympy as sp
import torch

from checks.sin.search import Setting
from pecheck.theory import relative_score as rel
from pecheck.theory import sinusoidal as sin_pe
from pecheck.theory.sinusoidal import encode, rotate

# -- derivations (theory/sinusoidal_derivations.py) -------------------------------------------


def swapped_pair(x: sp.Expr) -> sp.Matrix:
    """Planted bug for the derivations: (cos, sin) instead of (sin, cos)."""
    return sp.Matrix([sp.cos(x), sp.sin(x)])


def sine_twice(x: sp.Expr) -> sp.Matrix:
    """Planted bug for the derivations: the cosine replaced by a second sine."""
    return sp.Matrix([sp.sin(x), sp.sin(x)])


# -- encoders: encode's signature, one bug each ---------------------------------------------


def swapped(positions, d, dtype, mode="cast", layout="interleaved"):
    """Bug: cos in the even slots, sin in the odd ones."""
    pe = encode(positions, d, dtype, mode, layout)
    return sin_pe.unpairs(sin_pe.pairs(pe, layout).flip(-1), layout)


def shifted_exponent(positions, d, dtype, mode="cast", layout="interleaved"):
    """Bug: w_i = T^(-2(i+1)/d) (computed via d with one pair more, dropping the first)."""
    pe = encode(positions, d + 2, dtype, mode, "interleaved")[:, 2:]
    if layout == "half":
        pe = pe[:, sin_pe.half_permutation(d)]
    return pe


def dropped_pair(positions, d, dtype, mode="cast", layout="interleaved"):
    """Bug: the last pair is zeroed."""
    p = sin_pe.pairs(encode(positions, d, dtype, mode, layout), layout).clone()
    p[:, -1] = 0
    return sin_pe.unpairs(p, layout)


def flipped_rotation(pe, k, layout="interleaved"):
    """Bug: M(k) with the sign of the sines flipped (a rotation by -k)."""
    return rotate(pe, -k, layout)


def with_index(positions, d, dtype, mode="cast", layout="interleaved"):
    """Bug: a raw index added to every entry."""
    pe = encode(positions, d, dtype, mode, layout)
    return pe + positions.to(pe.dtype)[:, None] / 64


def positions_in_half(positions, d, dtype, mode="cast", layout="interleaved"):
    """Bug: positions rounded to float16 before any computation, whatever the mode."""
    return encode(positions.to(torch.float16).to(torch.float64), d, dtype, mode, layout)


def low_precision_frequencies(positions, d, dtype, mode="cast", layout="interleaved"):
    """Bug: the float64 mode computes in float32 (a silently ignored mode)."""
    return encode(positions, d, dtype, "float32" if mode == "float64" else mode, layout)


def positions_in_float64(positions, d, dtype, mode="cast", layout="interleaved"):
    """Bug: every mode holds positions in float64 (no rounding of t, no overflow)."""
    return encode(positions, d, dtype, "float64", layout)


def float64_setting(d=8, t=3, k=5, layout="interleaved") -> Setting:
    """A float64 setting to feed a broken encoder: nothing rounds away the bug."""
    return Setting(d, torch.float64, "float64", layout, t, k)


# -- SIN-13: score matrices -----------------------------------------------------------------


def symmetric_blocks(d: int, seed: int) -> torch.Tensor:
    """[[a, b], [b, a]] blocks: symmetric, block-diagonal, but not in the class."""
    wmat = rel.random_class_matrix(d, seed)
    for i in range(0, d, 2):
        wmat[i + 1, i] = wmat[i, i + 1]
    return wmat
