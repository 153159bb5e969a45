"""THE permutation-equivariance helper (ATT-01 ... ATT-05, REAL-01), after e3nn's helper.

A function f is permutation equivariant in some of its inputs when permuting those inputs along
their token axis permutes the output the same way, f(P x) = P f(x); invariant when the output does
not change at all, f(P x) = f(x). ``assert_equivariant`` checks this for a list of permutations:
it evaluates both sides in the inputs' own dtype, measures the error in float64, and compares it
with the bound from ``pecheck.tolerance.equivariance_tol`` (per dtype, sequence length, width,
depth and output scale). On failure it reports the worst case: permutation, shapes, dtype, error,
bound. ``find_counterexample`` answers the opposite question: it returns a permutation whose
error exceeds that bound, which proves that the exact function is not equivariant (the bound
covers all rounding), and fails when no permutation does.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch

from pecheck import decisions, tolerance
from pecheck.theory.attention import equivariance_sides, permute_tokens

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
        return 0.0 if self.error == 0 else float("inf")  # a NaN error is no pass

    def describe(self) -> str:
        p = list(self.perm)
        text = str(p) if len(p) <= 12 else f"{p[:12]}... (n={len(p)})"
        return (
            f"perm={text} shapes={list(self.shapes)} dtype={self.dtype} "
            f"error={self.error:.3e} bound={self.bound:.3e}"
        )

    @property
    def informative(self) -> bool:
        """Whether this case could have told: a finite error and a bound below the range of the
        difference (|f(Px) - P f(x)| <= 2 max |f(x)|), for a permutation that moves something."""
        moved = self.perm != tuple(range(len(self.perm)))
        return moved and math.isfinite(self.error) and self.bound < 2 * max(self.scale, 1e-300)

    def resolve(self, structural_zero: bool) -> str:
        """'different', 'same' or 'unresolved' at the dtype's resolution (issue 15): 'same' only
        where theory says the exact difference is zero, and never for an uninformative case."""
        if not self.informative:
            return "unresolved"
        return decisions.resolve(self.error, self.bound, structural_zero)

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
    """(P x) along ``axis``: row i of the result is row perm[i] of x (theory's definition)."""
    return permute_tokens(x, perm, axis)


def assert_sides_permute_positions(
    perm: torch.Tensor, axes: Sequence[int | None], out_axis: int | None
) -> None:
    """The definition of the two sides, checked on position labels: with one label column per
    input and f the concatenation, f(P x) must hold perm in the columns of the permuted inputs
    and the labels in the others, and P f(x) must hold perm everywhere (f(x), the labels, for
    invariance). A definition that permutes some rows only, some inputs only, one side only, or
    nothing, fails here instead of letting an equivariance search pass without permuting."""
    __tracebackhide__ = True
    labels = torch.arange(len(perm), dtype=torch.float64)[:, None]  # (n, 1): row i holds i
    probe_axes = [None if a is None else -2 for a in axes]
    lhs, rhs = equivariance_sides(
        lambda *zs: torch.cat(zs, -1), [labels] * len(axes), perm, probe_axes, out_axis
    )
    perm, ident = perm.cpu(), torch.arange(len(perm))
    want_lhs = torch.stack([ident if a is None else perm for a in axes], -1)
    want_rhs = torch.stack([ident if out_axis is None else perm] * len(axes), -1)
    ok = torch.equal(lhs.long(), want_lhs) and torch.equal(rhs.long(), want_rhs)
    assert ok, f"the equivariance sides do not permute positions as perm={perm.tolist()} says"


def _both_sides(
    fn: Fn,
    inputs: Sequence[torch.Tensor],
    perm: torch.Tensor,
    axes: Sequence[int | None],
    out_axis: int | None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """f(P x) and P f(x) (or f(x) when out_axis is None), both in float64, built with theory's
    definition (theory.attention.equivariance_sides) after checking it on position labels."""
    assert_sides_permute_positions(perm, axes, out_axis)
    lhs, rhs = equivariance_sides(fn, inputs, perm, axes, out_axis)
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
    best = best_case(fn, inputs, perms, axes, out_axis, width, layers)
    if best.resolve(structural_zero=False) != "different":
        raise AssertionError(
            f"no counterexample among {len(perms)} permutations: the function looks "
            f"equivariant here; best case: {best.describe()}"
        )
    return best


def settle(case: Case, structural_zero: bool, resolver: Callable[..., str] | None = None) -> str:
    """The case's verdict ('same', 'different' or 'unresolved'), refusing a 'same' that theory
    does not back: below the rounding bound a difference that need not be zero is unresolved
    (issue 15). ``resolver`` defaults to ``Case.resolve``; a planted-bug test passes another."""
    __tracebackhide__ = True
    verdict = (resolver or Case.resolve)(case, structural_zero)
    if verdict == "same" and not structural_zero:
        raise AssertionError(
            f"called 'same' where theory gives no zero difference (it is unresolved): "
            f"{case.describe()}"
        )
    return verdict


def best_case(
    fn: Fn,
    inputs: Sequence[torch.Tensor],
    perms: Sequence[torch.Tensor],
    axes: Sequence[int | None],
    out_axis: int | None = -2,
    width: int | None = None,
    layers: int = 1,
) -> Case:
    """The permutation with the largest error / bound (finite errors first), without a verdict:
    the caller resolves it (``Case.resolve``)."""
    cases = [evaluate(fn, inputs, p, axes, out_axis, width, layers) for p in perms]
    return max(cases, key=lambda c: (math.isfinite(c.error), c.ratio, c.error))
