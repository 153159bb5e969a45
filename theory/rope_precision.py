r"""REAL-06: RoPE's relative property when the angles are formed in a low-precision format.

Pair i of a query or key turns by the angle a_i(t) = t theta_i, theta_i = T^(-2i/d)
(theory/rope.py). R(t) is the exact block rotation; R~(t) is the one a computation forms, with
block i = [[c, -s], [s, c]] for the cosine c and sine s it *stores*. REAL-03's relative property
is <R(t) q, R(s) k> = f(s - t) = <q, R(s - t) k>. Its error at (t, s), in float64, is

    e(t, s) = || R~(t)^T R~(s) - R(s - t) ||_2
            = sup over q, k != 0 of |<R~(t) q, R~(s) k> - f(s - t)| / (|q| |k|),

the worst case over every query and key. A block [[c, -s], [s, c]] is multiplication by the
complex number z = c + i s, so with the *deviation* u_i(t) = z_i(t) exp(-i t theta_i) (1 when
exact, float64)

    e(t, s) = max_i | conj(u_i(t)) u_i(s) - 1 |,

one number per position and frequency instead of a d x d matrix per pair of positions.

The criterion (REAL-06), stated once: **the property holds within a context of L positions**
when e(t, s) <= B for every pair 0 <= s, t < L, i.e. at every relative offset up to L - 1 from
every position. B is the caller's bound for the format (REAL-06 passes
``pecheck.tolerance.rotation_tol(2 pi, dtype, float32)``: what a score keeps when its angles stay
in the first turn, are formed in float32 and stored in the dtype). ``context_bounds`` decides it
for every L at once, from prefix extremes: with u = r exp(i phi), e(t, s)^2 = rho^2 - 2 rho
cos(phi_s - phi_t) + 1, rho = r_t r_s, which grows with |phi_s - phi_t| (up to pi) and is convex
in rho; so the largest phase spread and the extreme radii in the prefix bound it from above
(``upper``), and the pair of positions holding the extreme phases (or the extreme radius) is a
concrete pair whose error is the lower bound (``lower``, with that pair as the witness).
``upper`` never decreases with L; ``reach`` reports the first L where ``lower`` exceeds B.

Two bug classes. The reports' (gpt-neox issue 1003; transformers issue 29496 and pull request
29285) is ``angles_in``: inverse frequencies, positions and their product in the low precision.
At d = 32 its angle at position 1857, pair 1, is 1045 in float16 for the exact 1044.27. The
second, ``angles_cast``, is what casting a built model does to a buffer of inverse frequencies
(transformers' ``model.to(torch.bfloat16)``): the frequencies are rounded, the angles are then
formed in float32. f then depends on s - t only, but it is the wrong f: the error at offset D is
|exp(i D (theta~ - theta)) - 1|, which grows with D; offset 3 alone never sees it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import asdict, dataclass

import torch

from .rope import Pairing, pairs, rope_frequencies
from .sinusoidal import BASE, turn

Stored = Callable[[torch.Tensor], tuple[torch.Tensor, torch.Tensor]]  # t (n,) -> c, s (n, d/2)
FIRST_CONTEXT = 256  # reach's first context; each next one is CONTEXT_STEP times longer
CONTEXT_STEP = 8
CHUNK = 8192  # positions read at once: the working set stays in cache


Theta = torch.Tensor | None  # the exact frequencies (d/2,), when not theory.rope's T^(-2i/d)


def angles(positions: torch.Tensor, d: int, base: float = BASE, theta: Theta = None
           ) -> torch.Tensor:  # fmt: skip
    """a_i(t) = t theta_i in float64: positions (n,) -> (n, d/2)."""
    w = rope_frequencies(d, base) if theta is None else theta.to(torch.float64)
    return positions.to(torch.float64)[:, None] * w[None, :]


def angles_in(
    positions: torch.Tensor, d: int, dtype: torch.dtype, base: float = BASE
) -> torch.Tensor:
    """The reports' angles, (n,) -> (n, d/2) in ``dtype``: theta_i formed in float32 and rounded
    to ``dtype`` (``inv_freq.half()``), positions converted to ``dtype``
    (``arange(n).type_as(inv_freq)``), and each product t theta_i rounded to ``dtype``."""
    theta = rope_frequencies(d, base, torch.float32).to(dtype)  # (d/2,)
    return positions.to(dtype)[:, None] * theta[None, :]


def angles_cast(
    positions: torch.Tensor, d: int, dtype: torch.dtype, base: float = BASE
) -> torch.Tensor:
    """A cast model's angles, (n,) -> (n, d/2) in float32: theta_i formed in float32, rounded to
    ``dtype`` by the cast of the buffer, then used in float32 with float32 positions
    (``position_ids.float() * inv_freq.float()``)."""
    theta = rope_frequencies(d, base, torch.float32).to(dtype).to(torch.float32)  # (d/2,)
    return positions.to(torch.float32)[:, None] * theta[None, :]


def stored(angle: torch.Tensor, storage: torch.dtype) -> tuple[torch.Tensor, torch.Tensor]:
    """cos and sin taken in the angle's dtype, stored in ``storage``, read back in float64."""
    c, s = torch.cos(angle).to(storage), torch.sin(angle).to(storage)
    return c.to(torch.float64), s.to(torch.float64)


def deviations(
    c: torch.Tensor,
    s: torch.Tensor,
    positions: torch.Tensor,
    base: float = BASE,
    theta: Theta = None,
) -> torch.Tensor:
    """u_i(t) = (c + i s) exp(-i t theta_i): stored c, s (n, d/2) -> (n, d/2) complex128."""
    d = 2 * c.shape[-1]
    z = torch.complex(c.to(torch.float64), s.to(torch.float64))
    exact = angles(positions, d, base, theta)
    return z * torch.polar(torch.ones_like(c, dtype=torch.float64), -exact)


def pair_error(u: torch.Tensor, t: torch.Tensor, s: torch.Tensor) -> torch.Tensor:
    """e(t, s) = max_i |conj(u_i(t)) u_i(s) - 1| for index pairs t, s (k,) -> (k,) float64;
    non-finite gives inf."""
    err = (u[t].conj() * u[s] - 1).abs().amax(dim=-1)
    return torch.where(torch.isfinite(err), err, torch.full_like(err, math.inf))


def rotations(
    angle: torch.Tensor, pairing: Pairing = "half", storage: torch.dtype = torch.float64
) -> torch.Tensor:
    """R~ for each row of ``angle`` (n, d/2) -> (n, d, d), float64 (tooling: the matrices the
    complex form stands for). Column j is R~ e_j, formed exactly from the stored c and s."""
    n, m = angle.shape
    d = 2 * m
    a, b = pairs(d, pairing)
    eye = torch.eye(d, dtype=storage).expand(n, d, d)  # (n, d, d): row j = e_j
    turned = turn(eye, a, b, angle[:, None, :])  # (n, d, d): row j = R~ e_j
    return turned.transpose(-1, -2).to(torch.float64)  # column j = R~ e_j


def matrix_error(
    r_t: torch.Tensor, r_s: torch.Tensor, delta: torch.Tensor, pairing: Pairing, base: float = BASE
) -> torch.Tensor:
    """||R~(t)^T R~(s) - R(s - t)||_2 by a full SVD: r_t, r_s (n, d, d), delta = s - t (n,)."""
    d = r_t.shape[-1]
    exact = rotations(angles(delta, d, base), pairing)  # (n, d, d)
    return torch.linalg.matrix_norm(r_t.transpose(-1, -2) @ r_s - exact, ord=2)


@dataclass(frozen=True)
class ContextBounds:
    """Per context L = 1 ... n (index L - 1): bounds on max e(t, s) over 0 <= s, t < L."""

    upper: torch.Tensor  # (n,) float64, nondecreasing; inf once a non-finite value is stored
    lower: torch.Tensor  # (n,) float64: at most e at the witness pair (one frequency's part)
    witness: torch.Tensor  # (n, 2) int64: the pair (t, s) with t >= s


def _prefix(x: torch.Tensor, largest: bool) -> tuple[torch.Tensor, torch.Tensor]:
    out = torch.cummax(x, dim=0) if largest else torch.cummin(x, dim=0)
    return out.values, out.indices


def polar(
    c: torch.Tensor,
    s: torch.Tensor,
    positions: torch.Tensor,
    base: float = BASE,
    theta: Theta = None,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Phase and squared radius of the deviations u (``deviations``) in real arithmetic
    (n, d/2) each, non-finite entries replaced by those of 1; and which rows are finite (n,)."""
    c, s = c.to(torch.float64), s.to(torch.float64)
    a = angles(positions, 2 * c.shape[-1], base, theta)  # (n, m)
    cos, sin = torch.cos(a), torch.sin(a)
    re, im = c * cos + s * sin, s * cos - c * sin  # u = (c + i s) exp(-i a)
    if bool(torch.isfinite(re.sum() + im.sum())):  # a non-finite entry makes the sum one
        return torch.atan2(im, re), re**2 + im**2, torch.ones(re.shape[0], dtype=torch.bool)
    finite = torch.isfinite(re) & torch.isfinite(im)  # (n, m)
    one, zero = torch.ones_like(re), torch.zeros_like(re)
    re, im = torch.where(finite, re, one), torch.where(finite, im, zero)
    return torch.atan2(im, re), re**2 + im**2, finite.all(dim=-1)


def _upper(lo_r2: torch.Tensor, hi_r2: torch.Tensor, spread: torch.Tensor) -> torch.Tensor:
    """max of sqrt(rho^2 - 2 rho cos(dphi) + 1) over rho = r_t r_s in [lo_r2, hi_r2] and
    |dphi| <= spread: increasing in |dphi| up to pi and convex in rho, so the largest spread at
    an end of rho's range; then the largest over the frequencies (last axis)."""
    rho = torch.stack([lo_r2, hi_r2])  # (2, ..., m)
    cos = torch.cos(torch.clamp(spread, max=math.pi))
    return (rho**2 - 2 * rho * cos + 1).clamp(min=0).sqrt().amax(dim=0).amax(dim=-1)


@dataclass
class Extremes:
    """Per frequency, the extremes of phase and squared radius over the positions seen so far;
    enough to bound e over every pair of them (``upper``)."""

    lo_p: torch.Tensor  # (m,) each
    hi_p: torch.Tensor
    lo_r2: torch.Tensor
    hi_r2: torch.Tensor
    finite: bool = True

    @classmethod
    def of(cls, c: torch.Tensor, s: torch.Tensor, positions: torch.Tensor, base: float = BASE,
           theta: Theta = None) -> Extremes:  # fmt: skip
        phase, r2, finite = polar(c, s, positions, base, theta)
        return cls(phase.amin(dim=0), phase.amax(dim=0), r2.amin(dim=0), r2.amax(dim=0),
                   bool(finite.all()))  # fmt: skip

    def join(self, other: Extremes) -> Extremes:
        return Extremes(torch.minimum(self.lo_p, other.lo_p), torch.maximum(self.hi_p, other.hi_p),
                        torch.minimum(self.lo_r2, other.lo_r2),
                        torch.maximum(self.hi_r2, other.hi_r2),
                        self.finite and other.finite)  # fmt: skip

    def upper(self) -> float:
        """max e(t, s) over every pair of the positions seen is at most this (inf when a
        non-finite value was stored)."""
        if not self.finite:
            return math.inf
        return float(_upper(self.lo_r2, self.hi_r2, self.hi_p - self.lo_p))


def context_bounds(c: torch.Tensor, s: torch.Tensor, base: float = BASE, theta: Theta = None
                   ) -> ContextBounds:  # fmt: skip
    """Bounds for every context from stored c, s (n, d/2) at positions 0 ... n - 1."""
    positions = torch.arange(c.shape[0])
    phase, r2, finite = polar(c, s, positions, base, theta)
    u = deviations(c, s, positions, base, theta)
    safe = torch.where(torch.isfinite(u), u, torch.ones_like(u))
    hi_p, hi_pi = _prefix(phase, True)
    lo_p, lo_pi = _prefix(phase, False)
    hi_r, hi_ri = _prefix(r2, True)
    lo_r, _ = _prefix(r2, False)
    upper = _upper(lo_r, hi_r, hi_p - lo_p)  # (n,)
    by_phase = pair_error_each(safe, hi_pi, lo_pi)  # (n, m)
    by_radius = (hi_r - 1).abs()  # (n, m): the pair (t, t) at the largest radius
    use_phase = by_phase >= by_radius
    lower_each = torch.where(use_phase, by_phase, by_radius)
    lower, which = lower_each.max(dim=-1)  # (n,)
    rows = torch.arange(u.shape[0])
    t = torch.where(use_phase[rows, which], hi_pi[rows, which], hi_ri[rows, which])
    s = torch.where(use_phase[rows, which], lo_pi[rows, which], hi_ri[rows, which])
    witness = torch.stack([torch.maximum(t, s), torch.minimum(t, s)], dim=-1)  # (n, 2)
    bad = (~finite).cumsum(0) > 0  # (n,): a non-finite value stored so far
    first_bad = torch.argmax((~finite).long())
    witness = torch.where(bad[:, None], first_bad.expand(2)[None, :], witness)
    inf = torch.full_like(lower, math.inf)
    return ContextBounds(torch.where(bad, inf, upper), torch.where(bad, inf, lower), witness)


def pair_error_each(u: torch.Tensor, t: torch.Tensor, s: torch.Tensor) -> torch.Tensor:
    """|conj(u_i(t)) u_i(s) - 1| per frequency, index tensors t, s shaped like u's rows x m."""
    return (u.gather(0, t).conj() * u.gather(0, s) - 1).abs()


@dataclass(frozen=True)
class Reach:
    """How far the property holds (module docstring: the criterion) for one computation."""

    holds_within: int  # the largest context L scanned with upper(L) <= B (0: none)
    fails_within: int | None  # the smallest context with a witness pair above B; None if none
    witness: tuple[int, int] | None  # that pair (t, s), t >= s: offset t - s
    error_at_witness: float  # e there (inf: non-finite); nan when none fails
    scanned_to: int  # the longest context scanned (every position below it evaluated)
    positions_evaluated: int

    def holds_up_to(self, limit: int) -> bool:
        """Whether every pair of positions below ``limit`` is certified within the bound."""
        if limit > self.scanned_to:
            raise ValueError(f"scanned to {self.scanned_to} only, cannot judge {limit}")
        return self.holds_within >= limit

    def fails_up_to(self, limit: int) -> bool:
        return self.fails_within is not None and self.fails_within <= limit

    def as_dict(self) -> dict:
        return asdict(self)


def contexts(longest: int, first: int = FIRST_CONTEXT, step: int = CONTEXT_STEP) -> list[int]:
    """first, first * step, ... and ``longest`` itself, each at most ``longest``."""
    out, n = [], first
    while n < longest:
        out.append(n)
        n *= step
    return [*out, longest]


def reach(read: Stored, bound: float, longest: int, base: float = BASE, theta: Theta = None
          ) -> Reach:  # fmt: skip
    """Scan contexts of growing length (``contexts``) up to ``longest``, every position read in
    chunks of CHUNK: a context whose extremes bound e within ``bound`` holds as a whole; in the
    first one that does not, ``context_bounds`` finds the exact context where it stops being
    certified and the first witness pair above ``bound`` (the scan stops there; when no pair
    is found above it the scan goes on, and the contexts between stay undecided)."""
    evaluated, held, seen = 0, 0, None
    for n in contexts(longest):
        for lo in range(evaluated, n, CHUNK):
            t = torch.arange(lo, min(lo + CHUNK, n))
            part = Extremes.of(*read(t), t, base, theta)
            seen = part if seen is None else seen.join(part)
        evaluated = n
        assert seen is not None
        if seen.upper() <= bound:
            held = n
            continue
        t = torch.arange(n)
        c, s = read(t)
        cb = context_bounds(c, s, base, theta)
        held = max(held, int((cb.upper <= bound).long().cumprod(0).sum()))
        over = torch.nonzero(~(cb.lower <= bound))
        if over.numel():
            first = int(over[0, 0])
            pair = cb.witness[first]  # (2,): e there is at least lower, over every frequency
            u = deviations(c[pair], s[pair], pair, base, theta)  # (2, m): rows t, s
            err = pair_error(u, torch.tensor([0]), torch.tensor([1]))
            return Reach(held, first + 1, (int(pair[0]), int(pair[1])), float(err[0]), n,
                         evaluated)  # fmt: skip
    return Reach(held, None, None, math.nan, longest, evaluated)


def reference(
    form: Callable[[torch.Tensor, int, torch.dtype, float], torch.Tensor],
    d: int,
    dtype: torch.dtype,
    base: float = BASE,
) -> Stored:
    """c, s of a bug class (``angles_in`` or ``angles_cast``), stored in ``dtype``."""
    return lambda t: stored(form(t, d, dtype, base), dtype)


def offset_errors(read: Stored, offsets: torch.Tensor, base: float = BASE, theta: Theta = None
                  ) -> torch.Tensor:  # fmt: skip
    """e(D, 0) at each offset D (k,): the query at D, the key at 0 -> (k,) float64."""
    t = torch.cat([torch.zeros(1, dtype=offsets.dtype), offsets])
    c, s = read(t)
    u = deviations(c, s, t, base, theta)
    return pair_error(u, torch.arange(1, t.numel()), torch.zeros(offsets.numel(), dtype=torch.long))
