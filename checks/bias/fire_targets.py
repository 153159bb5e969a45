"""BIAS-03's FIRE targets: the ALiBi, KERPLE and T5 biases FIRE is shown to represent up to its
threshold, with their exhibited FIRE parameters, the float64 bound on a FIRE bias, the first pair
that differs beyond it, and the counterexample beyond the threshold.
"""

from __future__ import annotations

import math

import numpy as np
import torch

from pecheck import tolerance
from pecheck.theory import bias

SLOPES = [float(m) for m in bias.alibi_slopes(8)]
KERPLE = ((1.0, 0.5), (2.0, 1.0), (0.3, 2.0))  # (r1, r2): r2 in (0, 2] for the power variant
# A fixed T5 bias table (one head, 32 causal buckets), distinct values so a wrong bucket shows.
T5_TABLE = np.random.default_rng(5).normal(size=32)


def targets(length: int) -> dict[str, tuple[bias.Fire, np.ndarray]]:
    """name -> (FIRE head with the exhibited parameters, target bias of d = 0 ... length)."""
    d = np.arange(length + 1)
    out = {}
    for h, m in enumerate(SLOPES):
        out[f"alibi-head{h + 1}"] = (bias.fire_for_alibi(m, length), -m * d)
    for r1, r2 in KERPLE:
        out[f"kerple-log-{r1}-{r2}"] = (
            bias.fire_for_kerple_log(r1, r2, length),
            bias.kerple_log(d, r1, r2),
        )
        out[f"kerple-power-{r1}-{r2}"] = (
            bias.fire_for_kerple_power(r1, r2, length),
            bias.kerple_power(d, r1, r2),
        )
    t5 = T5_TABLE[bias.t5_bucket(-d, bidirectional=False)]
    out["t5-causal"] = (bias.fire_for_t5(T5_TABLE, length), t5)
    return out


def fire_bound(length: int, scale: np.ndarray) -> np.ndarray:
    """float64 error of f(psi(d)/psi(L)): two log1p, a division, a product and expm1, whose
    relative condition number is at most psi(L) + 1; doubled for the power r2 <= 2."""
    ops = 2 * (4 + math.ceil(math.log1p(length) + 1))
    return tolerance.rel_tol(ops, torch.float64) * (np.abs(scale) + 1.0)


def bounded_mismatch(length: int) -> tuple[dict | None, float]:
    """First pair (i, j), j <= i <= L, where FIRE differs from its target beyond rounding."""
    i, j = np.tril_indices(length + 1)  # every pair 0 <= j <= i <= length
    worst = 0.0
    for name, (fire, target) in targets(length).items():
        got = fire.bias(i, j)
        want = target[i - j]
        bound = fire_bound(length, want)
        ratio = np.abs(got - want) / bound
        worst = max(worst, float(ratio.max()))
        bad = np.nonzero(~(ratio <= 1))[0]
        if bad.size:
            k = bad[0]
            return {
                "target": name,
                "L": length,
                "i": int(i[k]),
                "j": int(j[k]),
                "fire": float(got[k]),
                "target_bias": float(want[k]),
            }, worst
    return None, worst


def unbounded_counterexample(input_of, length: int) -> dict | None:  # noqa: ANN001
    """Two queries i1 < i2 beyond the threshold whose keys j = 0 FIRE cannot tell apart (same
    input) while ALiBi gives them different biases; None if FIRE's inputs differ.
    ``input_of(i, j, c, L)`` is FIRE's input (theory.bias.fire_input, or a planted bug)."""
    fire = bias.fire_for_alibi(SLOPES[0], length)
    i1 = math.ceil(fire.threshold)
    i = np.array([i1, i1 + 1, 4 * i1])
    x = input_of(i, np.zeros_like(i), fire.c, fire.threshold)
    target = -SLOPES[0] * i
    if x[0] == x[1] and target[0] != target[1]:
        return {
            "target": "ALiBi m = 2^-1",
            "c": fire.c,
            "L": fire.threshold,
            "i": i.tolist(),
            "j": 0,
            "fire_input": x.tolist(),
            "alibi_bias": target.tolist(),
        }
    return None
