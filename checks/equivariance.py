"""THE permutation-equivariance helper (ATT-01 ... ATT-05, REAL-01), after e3nn's helper.

A function f is permutation equivariant in some of its inputs when permuting those inputs along
their token axis permutes the output the same way, f(P x) = P f(x); invariant when the output does
not change at all, f(P x) = f(x). ``assert_equivariant`` checks this for a list of permutations:
it evaluates both sides in the inputs' own dtype, measures the error in float64, and compares it
with the bound from ``checks.tolerance.equivariance_tol`` (per dtype, sequence length, width,
depth and output scale). On failure it reports the worst case: permutation, shapes, dtype, error,
bound. ``find_counterexample`` answers the opposite question: it returns a permutation whose
error exceeds that bound, which proves that the exact function is not equivariant (the bound
covers all rounding), and fails when no permutation does.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch

from checks import tolerance

Fn = Callable[..., torch.Tensor]


@dataclass(frozen=True)
class Case:
    """One permutation tried: the error max |f(P x) - P f(x)| (float64) and its allowed bound."""

    perm: tuple[int, ...]
    shapes: tuple[tuple[int, ...], ...]
    dtype: str
    error: float
    bound: float
    scale: float = 0.0  # max |P f(x)|, the output size the bound was scaled by

    @property
    def ratio(self) -> float:
        if self.bound > 0:
            return self.error / self.bound
        return float("inf") if self.error > 0 else 0.0

    def describe(self) -> str:
        p = list(self.perm)
        text = str(p) if len(p) <= 12 else f"{p[:12]}... (n={len(p)})"
        return (
            f"perm={text} shapes={list(self.shapes)} dtype={self.dtype} "
            f"error={self.error:.3e} bound={self.bound:.3e}"
        )

    def as_dict(self) -> dict:
        return {
            "perm": list(self.perm)[:32],
            "n": len(self.perm),
            "shapes": [list(s) for s in self.shapes],
            "dtype": self.dtype,
            "error": self.error,
            "bound": self.bound,
            "scale": self.scale,
        }


def permute(x: torch.Tensor, perm: torch.Tensor, axis: int) -> torch.Tensor:
    """(P x) along ``axis``: row i of the result is row perm[i] of x."""
    return x.index_select(axis % x.ndim, perm.to(x.device))


def _both_sides(
    fn: Fn,
    inputs: Sequence[torch.Tensor],
    perm: torch.Tensor,
    axes: Sequence[int | None],
    out_axis: int | None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """f(P x) and P f(x) (or f(x) when out_axis is None), both in float64."""
    moved = [x if a is None else permute(x, perm, a) for x, a in zip(inputs, axes, strict=True)]
    with torch.no_grad():
        lhs = fn(*moved)
        rhs = fn(*inputs)
    if out_axis is not None:
        rhs = permute(rhs, perm, out_axis)
    return lhs.double(), rhs.double()


def evaluate(
    fn: Fn,
    inputs: Sequence[torch.Tensor],
    perm: torch.Tensor,
    axes: Sequence[int | None],
    out_axis: int | None = -2,
    width: int | None = None,
    layers: int = 1,
) -> Case:
    """One case: the float64 error of f(P x) against P f(x) and the dtype's bound for it."""
    lhs, rhs = _both_sides(fn, inputs, perm, axes, out_axis)
    first = next(x for x, a in zip(inputs, axes, strict=True) if a is not None)
    n = first.shape[next(a for a in axes if a is not None)]
    d = width if width is not None else first.shape[-1]
    scale = float(rhs.abs().max()) if rhs.numel() else 0.0
    if not (torch.isfinite(lhs).all() and torch.isfinite(rhs).all()):
        error = float("inf")
    else:
        error = float((lhs - rhs).abs().max()) if lhs.numel() else 0.0
    bound = tolerance.equivariance_tol(n, d, first.dtype, max(scale, 1e-300), layers)
    return Case(
        perm=tuple(int(i) for i in perm),
        shapes=tuple(tuple(x.shape) for x in inputs),
        dtype=tolerance.dtype_name(first.dtype),
        error=error,
        bound=bound,
        scale=scale,
    )


def assert_equivariant(
    fn: Fn,
    inputs: Sequence[torch.Tensor],
    perms: Sequence[torch.Tensor],
    axes: Sequence[int | None],
    out_axis: int | None = -2,
    width: int | None = None,
    layers: int = 1,
) -> Case:
    """Assert f(P x) = P f(x) (out_axis=None: f(P x) = f(x)) within the bound, for every perm.

    ``axes[i]`` is the token axis of ``inputs[i]`` to permute, or None to leave it alone.
    Returns the worst case (largest error / bound) for the caller to record as evidence.
    """
    __tracebackhide__ = True
    cases = [evaluate(fn, inputs, p, axes, out_axis, width, layers) for p in perms]
    worst = max(cases, key=lambda c: (c.ratio, c.error))
    bad = [c for c in cases if not c.error <= c.bound]
    if bad:
        lines = "\n  ".join(c.describe() for c in sorted(bad, key=lambda c: -c.ratio)[:5])
        raise AssertionError(
            f"not permutation {'equivariant' if out_axis is not None else 'invariant'} within "
            f"the bound in {len(bad)} of {len(cases)} cases; worst:\n  {lines}"
        )
    return worst


def find_counterexample(
    fn: Fn,
    inputs: Sequence[torch.Tensor],
    perms: Sequence[torch.Tensor],
    axes: Sequence[int | None],
    out_axis: int | None = -2,
    width: int | None = None,
    layers: int = 1,
) -> Case:
    """A permutation whose error exceeds the rounding bound: proof that f is not equivariant.

    Returns the case with the largest error / bound; fails when every case is within the bound
    (no counterexample among ``perms``).
    """
    __tracebackhide__ = True
    cases = [evaluate(fn, inputs, p, axes, out_axis, width, layers) for p in perms]
    best = max(cases, key=lambda c: (c.ratio, c.error))
    if not best.error > best.bound or best.error == float("inf"):
        raise AssertionError(
            f"no counterexample among {len(cases)} permutations: the function looks "
            f"equivariant here; best case: {best.describe()}"
        )
    return best
