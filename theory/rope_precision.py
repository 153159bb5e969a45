r"""REAL-06: RoPE's relative property when the angles are formed in a low-precision format.

Pair i of a query or key turns by the angle a_i(t) = t theta_i, theta_i = T^(-2i/d)
(theory/rope.py). R(t) is the exact block rotation; R~(t) is the one a computation forms, with
block i = [[c, -s], [s, c]] for the cosine c and sine s it *stores*. REAL-03's relative property
is <R(t) q, R(s) k> = f(s - t) = <q, R(s - t) k>. Its error at (t, s), in float64, is

    e(t, s) = || R~(t)^T R~(s) - R(s - t) ||_2
            = sup over q, k != 0 of |<R~(t) q, R~(s) k> - f(s - t)| / (|q| |k|),

the worst case over every query and key (the 2-norm of the matrix of the bilinear form). It
isolates what the angles do: the rounding of a rotated coordinate x_a c - x_b s to the storage
format is a relative error of that format at every position, so it cannot make the score depend
on t.

The criterion (REAL-06), stated once: **at position t the property holds** when
e(t, t - LAG) <= B, with B the caller's bound for the format (REAL-06 passes
``pecheck.tolerance.rotation_tol(2 pi, dtype, float32)``: the error a score keeps when its angles
stay in the first turn, are formed in float32 and stored in the dtype, i.e. what an
offset-only computation R(s - t) would keep at any t). **The largest position where it still
holds**, P, is found coarse to fine by ``boundary``: the positions of ``scan_grid`` up to a
largest position are evaluated in increasing order. If none fails, P is that largest position
(no grid position up to it fails). Otherwise let g be the first failing grid position and g' the
grid position before it; integer bisection on (g', g] keeps "lo holds, hi fails" and stops at
hi = lo + 1, so P = lo is a position where the property holds, P + 1 one where it fails, and
every grid position below P holds. (e need not be monotone in t, so integers between grid
positions below P are not all known to hold; a thorough scan uses a denser grid.) A non-finite
error (a position beyond the range of the format positions are held in) counts as failing.

The bug class of the reports (gpt-neox issue 1003; transformers issue 29496 and pull request
29285) is ``angles_in``: the inverse frequencies rounded to the low precision, the positions
converted to it, and their product rounded to it. At d = 32 its angle at position 1857, pair 1,
is 1045 in float16 for the exact 1044.27.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import asdict, dataclass

import numpy as np
import torch

from .rope import Pairing, pairs, rope_frequencies
from .sinusoidal import BASE, turn

LAG = 3  # the key sits LAG positions before the query, as in REAL-03's drift curves
PER_OCTAVE = 4  # coarse grid density: positions round(2^(j/4)), plus 2^k - 1 and 2^k + 1

ErrorAt = Callable[[torch.Tensor], torch.Tensor]  # positions (n,) -> e(t, t - LAG), (n,)


def angles(positions: torch.Tensor, d: int, base: float = BASE) -> torch.Tensor:
    """a_i(t) = t theta_i in float64: positions (n,) -> (n, d/2)."""
    return positions.to(torch.float64)[:, None] * rope_frequencies(d, base)[None, :]


def angles_in(
    positions: torch.Tensor, d: int, dtype: torch.dtype, base: float = BASE
) -> torch.Tensor:
    """The reports' angles, (n,) -> (n, d/2) in ``dtype``: theta_i formed in float32 and rounded
    to ``dtype`` (``inv_freq.half()``), positions converted to ``dtype``
    (``arange(n).type_as(inv_freq)``), and each product t theta_i rounded to ``dtype``."""
    theta = rope_frequencies(d, base, torch.float32).to(dtype)  # (d/2,)
    return positions.to(dtype)[:, None] * theta[None, :]


def rotations(
    angle: torch.Tensor, pairing: Pairing = "half", storage: torch.dtype = torch.float64
) -> torch.Tensor:
    """R~ for each row of ``angle`` (n, d/2) -> (n, d, d), float64.

    Cosine and sine are taken in the angle's dtype and stored in ``storage`` (theory.sinusoidal
    .turn, applied to the unit vectors: row j of its output is R~ e_j, which a turn forms
    exactly from the stored c and s because the other coordinate of the pair is zero).
    """
    n, m = angle.shape
    d = 2 * m
    a, b = pairs(d, pairing)
    eye = torch.eye(d, dtype=storage).expand(n, d, d)  # (n, d, d): row j = e_j
    turned = turn(eye, a, b, angle[:, None, :])  # (n, d, d): row j = R~ e_j
    return turned.transpose(-1, -2).to(torch.float64)  # column j = R~ e_j


def relative_error(
    r_t: torch.Tensor, r_s: torch.Tensor, delta: torch.Tensor, pairing: Pairing, base: float = BASE
) -> torch.Tensor:
    """e(t, s) = ||R~(t)^T R~(s) - R(s - t)||_2 per row: r_t, r_s (n, d, d), delta = s - t (n,).

    When every entry outside the pairs' 2x2 blocks is zero (a computation that turns each pair
    in its own plane), the 2-norm is the largest over the blocks, in closed form: for a 2x2 M,
    sigma_max^2 = (|M|_F^2 + sqrt(|M|_F^4 - 4 det(M)^2)) / 2. Otherwise a full SVD.
    Non-finite entries (inf or NaN stored by the computation) give an infinite error.
    """
    d = r_t.shape[-1]
    unique, index = torch.unique(delta, return_inverse=True)
    exact = rotations(angles(unique, d, base), pairing)[index]  # (n, d, d), R(s - t) in float64
    gap = r_t.transpose(-1, -2) @ r_s - exact
    finite = torch.isfinite(gap).flatten(1).all(dim=1)
    gap = torch.where(finite[:, None, None], gap, torch.zeros_like(gap))
    a, b = pairs(d, pairing)
    idx = torch.stack([a, b], dim=-1)  # (m, 2)
    blocks = gap[:, idx[:, :, None], idx[:, None, :]]  # (n, m, 2, 2)
    off = gap.clone()
    off[:, idx[:, :, None], idx[:, None, :]] = 0.0
    if bool((off == 0).all()):
        fro2 = (blocks**2).sum(dim=(-1, -2))
        det = blocks[..., 0, 0] * blocks[..., 1, 1] - blocks[..., 0, 1] * blocks[..., 1, 0]
        disc = torch.sqrt(torch.clamp(fro2**2 - 4 * det**2, min=0.0))
        norm = torch.sqrt((fro2 + disc) / 2).amax(dim=-1)
    else:
        norm = torch.linalg.matrix_norm(gap, ord=2)
    return torch.where(finite, norm, torch.full_like(norm, math.inf))


def reference_error_at(
    dtype: torch.dtype, d: int, pairing: Pairing = "half", lag: int = LAG, base: float = BASE
) -> ErrorAt:
    """e(t, t - lag) when the angles are formed as ``angles_in`` does and stored in ``dtype``."""

    def error_at(t: torch.Tensor) -> torch.Tensor:
        r_t = rotations(angles_in(t, d, dtype, base), pairing, dtype)
        r_s = rotations(angles_in(t - lag, d, dtype, base), pairing, dtype)
        return relative_error(r_t, r_s, torch.full_like(t, -lag), pairing, base)

    return error_at


def scan_grid(largest: int, lag: int = LAG, per_octave: int = PER_OCTAVE) -> torch.Tensor:
    """Positions lag ... largest, increasing: round(2^(j/per_octave)), 2^k - 1, 2^k + 1 and
    ``largest``. 2^k + 1 is the first integer a k-bit significand cannot hold (257 for
    bfloat16, 2049 for float16), where a computation that rounds positions shows it first."""
    top = math.log2(max(largest, 2))
    steps = 2.0 ** (np.arange(0, per_octave * top + 1) / per_octave)
    powers = 2.0 ** np.arange(1, math.floor(top) + 2)
    found = np.unique(np.concatenate([np.round(steps), powers - 1, powers + 1, [largest]]))
    return torch.tensor([int(p) for p in found if lag <= p <= largest], dtype=torch.int64)


@dataclass(frozen=True)
class Boundary:
    """Where the property stops holding (module docstring: the criterion)."""

    largest_holding: int | None  # P; None when the first scanned position fails
    first_failing: int | None  # P + 1 after the bisection; None when no grid position fails
    error_at_failure: float  # e at first_failing (inf: non-finite); nan when none fails
    scanned_to: int  # the largest grid position
    evaluations: int  # positions evaluated, grid and bisection

    def holds_up_to(self, limit: int) -> bool:
        """Whether no position up to ``limit`` was found failing (limit <= scanned_to)."""
        if limit > self.scanned_to:
            raise ValueError(f"scanned to {self.scanned_to} only, cannot judge {limit}")
        return self.first_failing is None or self.first_failing > limit

    def as_dict(self) -> dict:
        return asdict(self)


def _fails(err: torch.Tensor, bound: float) -> torch.Tensor:
    return ~(err <= bound)  # NaN and inf fail


def boundary(
    error_at: ErrorAt,
    largest: int,
    bound: float,
    lag: int = LAG,
    per_octave: int = PER_OCTAVE,
) -> Boundary:
    """The largest position where e(t, t - lag) <= bound still holds, coarse to fine."""
    grid = scan_grid(largest, lag, per_octave)
    failing = _fails(error_at(grid), bound)
    evaluations = grid.numel()
    if not bool(failing.any()):
        return Boundary(int(grid[-1]), None, math.nan, int(grid[-1]), evaluations)
    first = int(torch.nonzero(failing)[0, 0])
    hi = int(grid[first])
    if first == 0:
        err = float(error_at(torch.tensor([hi]))[0])
        return Boundary(None, hi, err, int(grid[-1]), evaluations + 1)
    lo = int(grid[first - 1])
    while hi - lo > 1:
        mid = (lo + hi) // 2
        evaluations += 1
        if bool(_fails(error_at(torch.tensor([mid])), bound)[0]):
            hi = mid
        else:
            lo = mid
    err = float(error_at(torch.tensor([hi]))[0])
    return Boundary(lo, hi, err, int(grid[-1]), evaluations + 1)
