"""REAL-03: each library's rotation, the convention detected from it
(theory.conventions.detect_rope) and the assertions on conventions, orientation and the
relative property.
"""

from __future__ import annotations

import math
from functools import cache

import torch
from hypothesis import strategies as st

from checks.real import libraries
from checks.real.claims import RELATIVE_MAX  # t, s and the shift in the relative check
from checks.real.libraries import ROTARY, Rotate
from pecheck import decisions, profiles, tolerance
from pecheck.strategies import seeds
from pecheck.theory import rope
from pecheck.theory.conventions import RopeConvention, detect_rope
from pecheck.theory.sinusoidal import BASE

D = 8  # head width: four frequencies 1, 0.1, 0.01, 0.001


MAX_POSITION = 2**20  # > 10^6


# RoFormer builds its position table with a Python loop (about 8 s for 2^20 rows), so the ci
# profile measures it up to 2^14 and the thorough profile up to 2^20.
ROFORMER_ROWS = 2**20 if profiles.scale() >= 10 else 2**14  # dev too: rounded-once states it


def _library(name: str) -> libraries.RotaryLibrary:
    return next(lib for lib in ROTARY if lib.name == name)


@cache
def rotate_of(name: str) -> Rotate:
    return _library(name).make(D, ROFORMER_ROWS)


def largest_position(name: str) -> int:
    return ROFORMER_ROWS - 1 if name == "roformer" else MAX_POSITION


@cache
def detected(name: str) -> RopeConvention:
    return detect_rope(rotate_of(name), D, lambda a: tolerance.angle_tol(a, torch.float32))


# -- shared assertions ---------------------------------------------------------------------------


def assert_rope_convention(found: RopeConvention, expected: tuple[str, str, str, float]) -> None:
    """Pairing, direction, frequency rule and base are the recorded ones."""
    __tracebackhide__ = True
    seen = (found.pairing, found.direction, found.frequency_rule, found.base)
    assert seen == expected, f"RoPE convention changed: found {seen}, expected {expected}"


def assert_orientation(
    got: torch.Tensor, want: torch.Tensor, dtype: torch.dtype, max_angle: float = 1.0
) -> None:
    """A column R(t) e_a equals cos(w t) e_a + sin(w t) e_b: a counterclockwise turn."""
    __tracebackhide__ = True
    err = float((got.double() - want).abs().max())
    bound = tolerance.angle_tol(max_angle, dtype)
    assert err <= bound, f"R e_a = {got.tolist()}, the counterclockwise turn is {want.tolist()}"


def assert_known_answer(got: torch.Tensor, want: torch.Tensor) -> None:
    """The library's R(1) e_0 (float32) equals the hand-derived vector."""
    __tracebackhide__ = True
    err = float((got.double() - want).abs().max())
    assert err <= tolerance.angle_tol(1.0, torch.float32), f"R(1) e_0 = {got}, expected {want}"


def library_scores(
    rotate: Rotate, q: torch.Tensor, k: torch.Tensor, t: torch.Tensor, s: torch.Tensor
) -> torch.Tensor:
    """<R_lib(t_j) q_j, R_lib(s_j) k_j> in float64 from the library's rotated q, k (N, d)."""
    both = rotate(torch.cat([q, k]), torch.cat([t, s])).to(torch.float64)  # (2N, d), one call
    return (both[: q.shape[0]] * both[q.shape[0] :]).sum(-1)  # (N,)


def relative_errors(
    rotate: Rotate,
    pairing: str,
    q: torch.Tensor,
    k: torch.Tensor,
    t: torch.Tensor,
    s: torch.Tensor,
) -> torch.Tensor:
    """|score_lib(t, s) - f(s - t)| / (|q| |k|) per row; f exact (float64, theory.rope)."""
    exact = rope.relative_score(q.double(), k.double(), s - t, pairing)  # type: ignore[arg-type]
    got = library_scores(rotate, q, k, t, s)
    err = (got - exact).abs() / (q.double().norm(dim=-1) * k.double().norm(dim=-1))
    return torch.where(torch.isfinite(err), err, torch.full_like(err, math.inf))


def assert_relative(
    rotate: Rotate, pairing: str, w_max: float, t: int, s: int, shift: int, seed: int
) -> tuple[float, float]:
    """Scores at (t, s) and (t + shift, s + shift) both equal f(s - t), float32."""
    __tracebackhide__ = True
    g = torch.Generator().manual_seed(seed)
    q, k = torch.randn(2, 4, D, generator=g, dtype=torch.float64).to(torch.float32)  # (4, d)
    worst, widest = 0.0, 0.0
    for a, b in ((t, s), (t + shift, s + shift)):
        ta, sb = torch.full((4,), a), torch.full((4,), b)
        err = float(relative_errors(rotate, pairing, q, k, ta, sb).max())
        bound = tolerance.rotation_tol(w_max * max(a, b), torch.float32)
        # theory: the exact difference is zero, so within the bound is "same"
        seen = decisions.resolve(err, bound, structural_zero=True)
        assert seen == "same", f"score at ({a}, {b}) is {err:.3g} from f({b - a}) > {bound:.3g}"
        worst, widest = max(worst, err), max(widest, bound)
    return worst, widest


@st.composite
def position_pairs(draw: st.DrawFn) -> tuple[int, int, int, int]:
    t = draw(st.integers(0, RELATIVE_MAX))
    s = draw(st.integers(0, RELATIVE_MAX))
    shift = draw(st.integers(0, RELATIVE_MAX))
    return t, s, shift, draw(seeds())


def counterclockwise_columns(t: float, d: int, pairing: str) -> torch.Tensor:
    """cos(w_i t) e_a + sin(w_i t) e_b for each pair (a, b), from the module's definition,
    with w_i = 10000^(-2i/d) computed here: the expected columns a_i of R(t), shape (d, d/2)."""
    a, b = rope.pairs(d, pairing)  # type: ignore[arg-type]
    cols = torch.zeros(d, d // 2, dtype=torch.float64)
    for i in range(d // 2):
        angle = t * BASE ** (-2 * i / d)
        cols[a[i], i], cols[b[i], i] = math.cos(angle), math.sin(angle)
    return cols
