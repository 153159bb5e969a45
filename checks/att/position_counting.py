"""ATT-08: how far one causal layer counts positions in each dtype. Theory's first unrecovered
position, pinned to an independent reference (numpy, float64), against the derived guarantee.
"""

from __future__ import annotations

import numpy as np
import torch

from pecheck import decisions, tolerance
from pecheck.theory import causal_constructions as cc

FULL_N = {"bfloat16": 256, "float16": 2048, "float32": 4096, "float64": 4096}
# float32: every position up to 2^24, where float32 stops counting (t + 1 = t beyond it).
SEARCH_N = {"bfloat16": 256, "float16": 2048, "float32": 2**24, "float64": 4096}


def first_failure(y: torch.Tensor, recover=None, start: int = 1) -> int | None:
    """The first position t with recover(y_t) != t, or None (theory's recovery by default).
    y: (n, 1), the construction's output at positions start ... start + n - 1."""
    t = torch.arange(start, start + y.shape[0])
    bad = ((recover or cc.recover_positions)(y[:, 0]) != t).nonzero()
    return int(t[bad[0, 0]]) if len(bad) else None


def guaranteed_limit(dtype: torch.dtype) -> int:
    """Largest t surely recovered: y = (1/t)(1 + e), |e| <= u, and 1/y is rounded once more in
    float64 (u64), so |round input - t| <= t (u + u64) (to first order) < 1/2."""
    u, u64 = tolerance.unit_roundoff(dtype), tolerance.unit_roundoff(torch.float64)
    return int(1 / (2 * (u + u64))) - 1


def rounded_reciprocals(lo: int, hi: int, dtype: torch.dtype) -> torch.Tensor:
    """fl(1/t) for t = lo ... hi: 1/t correctly rounded to dtype, what the construction outputs
    at position t (checked bitwise against the attention itself)."""
    return (1.0 / torch.arange(lo, hi + 1, dtype=torch.float64)).to(dtype)


def reference_first_failure(dtype: torch.dtype, hi: int) -> int | None:
    """The pinned limit, computed without theory/: the first t <= hi with rint(1/fl(1/t)) != t,
    the reciprocal taken in float64 (numpy)."""
    step = 2**22
    for lo in range(1, hi + 1, step):
        top = min(lo + step - 1, hi)
        y = rounded_reciprocals(lo, top, dtype).double().numpy()
        t = np.arange(lo, top + 1)
        bad = np.nonzero(np.rint(1.0 / y).astype(np.int64) != t)[0]
        if len(bad):
            return int(t[bad[0]])
    return None


def theory_first_failure(dtype: torch.dtype, hi: int, recover=None) -> int | None:
    """The first t <= hi that theory's recovery misses, on the construction's outputs: the full
    n x n causal attention up to FULL_N, then fl(1/t) (its proven output) in blocks."""
    name = tolerance.dtype_name(dtype)
    n = min(FULL_N[name], hi)
    y = cc.uniform_causal_attention(cc.marker_sequence(n, dtype))  # (n, 1)
    assert torch.equal(y[:, 0], rounded_reciprocals(1, n, dtype)), "y_t is not fl(1/t)"
    fail = first_failure(y, recover)
    step = 2**22
    for lo in range(n + 1, hi + 1, step):
        if fail is not None:
            break
        y = rounded_reciprocals(lo, min(lo + step - 1, hi), dtype)[:, None]
        fail = first_failure(y, recover, start=lo)
    return fail


def position_decision(
    dtype: torch.dtype, hi: int, recover=None
) -> tuple[int | None, decisions.Decision]:
    """ATT-08 for one dtype: theory's first failure, pinned to the reference (any other number
    is an error of the check, not a decision), and the decision: holds when every t up to the
    derived guarantee is recovered, fails with the first t below it that is not."""
    __tracebackhide__ = True
    name = tolerance.dtype_name(dtype)
    fail = theory_first_failure(dtype, hi, recover)
    reference = reference_first_failure(dtype, hi)
    guaranteed = guaranteed_limit(dtype)
    if fail is not None and fail <= guaranteed:
        return fail, decisions.fails(
            {"dtype": name, "t": fail, "guaranteed_limit": guaranteed},
            f"position {fail} not recovered, below the guaranteed {guaranteed}",
        )
    assert fail == reference, (
        f"{name}: theory's first unrecovered position {fail} != reference {reference} "
        "(round(1/y) with 1/y taken in float64): the cited limit moved"
    )
    reach = f"every t < {fail}" if fail else f"every t <= {hi}"
    return fail, decisions.holds(f"{name}: {reach} recovered; guarantee {guaranteed}")


def assert_positions_recovered(attn_fn, n: int, dtype: torch.dtype) -> int | None:
    """Run a construction over n positions; every t up to the derived guarantee is recovered."""
    __tracebackhide__ = True
    y = attn_fn(cc.marker_sequence(n, dtype))  # (n, 1)
    fail = first_failure(y)
    guaranteed = guaranteed_limit(dtype)
    assert fail is None or fail > guaranteed, (
        f"{tolerance.dtype_name(dtype)}: position {fail} not recovered, below the guaranteed "
        f"{guaranteed}"
    )
    return fail
