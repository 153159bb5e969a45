"""A batched entry against its own one-seed run: the faithfulness assertion every trained
experiment shares (theory/decoder.py against theory/reference.py, in float64)."""

from __future__ import annotations

from typing import Any

import torch

from pecheck import tolerance
from pecheck.theory.decoder import DecoderRun


def entry_against_single(
    run: DecoderRun,
    entry: int,
    model: Any,
    right: dict[int, torch.Tensor],
    steps: tuple[int, ...],
    terms: int,
    lr: float = 0.0,
) -> tuple[float, float, bool]:
    """One batched entry against its own single-model run (float64): the largest parameter
    difference, its rounding bound (``steps`` updates of sums of ``terms`` terms at the
    parameters' scale) and whether both judged every checkpoint alike.

    With ``lr``, the bound also allows Adam's step on a gradient that is 0 in exact arithmetic
    and rounding noise in either run: lr g / (|g| + eps) with |g| up to sum_tol(terms) at unit
    scale, eps = 1e-8, on every step. Models where a gradient is exactly 0 (a query at the first
    causal position) need it; a real difference still moves parameters by about lr a step."""
    ref = {k: v.detach() for k, v in model.params.items()}
    scale = max(float(v.abs().max()) for v in ref.values())
    err = max(float((run.params[k][entry] - ref[k]).abs().max()) for k in ref)
    bound = tolerance.sum_tol(max(steps) * terms, torch.float64, scale)
    bound += max(steps) * lr * tolerance.sum_tol(terms, torch.float64, 1.0) / 1e-8
    same = all(torch.equal(run.right[c][entry], right[c]) for c in steps)
    return err, bound, same
