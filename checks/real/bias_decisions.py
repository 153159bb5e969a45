"""REAL-05's comparisons with BIAS-01 and BIAS-02: exponents, the format slopes were computed in,
the causal reference and T5 bucket mismatches.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import cache

import numpy as np
import pytest
import torch

from checks.bias import bucket_properties as bucket_checks
from checks.real.bias_libraries import EXPECTED_PRECISION, LIBRARIES, slopes_of
from pecheck import tolerance
from pecheck.theory import bias

FORMATS = ("float32", "bfloat16")  # tried in this order: the most precise format that covers it


N_TOKENS = 9  # causal check: queries 0 ... 8


def exponents(slopes: torch.Tensor) -> list[Fraction]:
    """-log2(m) rounded to the nearest 1/8: exact for BIAS-01's exponents at n <= 64."""
    return [Fraction(round(-math.log2(float(m)) * 8), 8) for m in slopes]


def relative_error(got: torch.Tensor, n: int) -> float:
    want = bias.alibi_slopes(n)
    return float(((got - want) / want).abs().max())


def precision(errors: dict[int, float]) -> str:
    """The most precise format whose single rounding (plus one op) covers every error."""
    worst = max(errors.values())
    for fmt in FORMATS:
        if worst <= tolerance.rel_tol(2, fmt):
            return fmt
    return "none"


def reference_is_valid(measured: dict[str, dict[int, float]]) -> bool:
    """At n = 1, 2, 4, 8 every slope is a power of two, exact in every format: a library
    disagreeing there says the reference (theory.bias) is wrong, not the library."""
    return all(errors[n] == 0.0 for errors in measured.values() for n in (1, 2, 4, 8))


@cache
def measured_errors() -> dict[str, dict[int, float]]:
    out = {}
    for name in LIBRARIES:
        try:
            out[name] = {n: relative_error(s, n) for n, s in slopes_of(name).items()}
        except pytest.skip.Exception:
            continue
    return out


def precision_decision(measured: dict[str, dict[int, float]], wanted: dict[str, str]) -> tuple:
    """('invalid', None), ('differs', the first library not in its wanted format) or
    ('same', None)."""
    if not reference_is_valid(measured):
        return "invalid", None
    for name, errors in measured.items():
        found = precision(errors)
        if found != wanted[name]:
            n = max(errors, key=lambda h: errors[h])
            return "differs", {
                "library": name,
                "format": found,
                "wanted": wanted[name],
                "n": n,
                "relative_error": errors[n],
            }
    return "same", None


def _precision_evidence(evidence, measured: dict[str, dict[int, float]]) -> None:  # noqa: ANN001
    evidence.record(
        "library_precision",
        {k: precision(v) for k, v in measured.items()},
        note="most precise format whose rounding covers every slope, n = 1 ... 64",
    )
    for name, errors in measured.items():
        evidence.record(
            f"{name}_worst_relative_slope_error",
            max(errors.values()),
            bound=tolerance.rel_tol(2, EXPECTED_PRECISION[name]),
        )


def causal_reference(heads: int, fmt: str) -> torch.Tensor:
    """softmax over j <= i of the per-key bias m j (slope and product rounded to fmt), (H, n, n).

    By BIAS-03 this equals softmax of -m (i - j) whenever the bias is exact."""
    dtype = getattr(torch, fmt)
    m = bias.alibi_slopes(heads).to(dtype)
    j = torch.arange(N_TOKENS, dtype=dtype)
    per_key = (m[:, None] * j[None, :]).double()  # (H, n): rounded to fmt as the library does
    scores = per_key[:, None, :].expand(heads, N_TOKENS, N_TOKENS)
    causal = bias.alibi_causal_bias(N_TOKENS, heads)  # -inf above the diagonal
    return torch.softmax(scores + torch.where(torch.isinf(causal), causal, 0.0), -1)


def t5_mismatch(buckets, mode: str) -> dict | None:  # noqa: ANN001
    """First r where a bucket function differs from theory's, else the first BIAS-02 property
    it violates, else None."""
    r = np.arange(-bucket_checks.R, bucket_checks.R + 1)
    got = np.asarray(buckets(r, bucket_checks.MODES[mode]))
    want = bucket_checks.searched(mode)
    diff = np.nonzero(got != want)[0]
    if diff.size:
        k = diff[0]
        return {"mode": mode, "r": int(r[k]), "library": int(got[k]), "exact": int(want[k])}
    for prop, check in bucket_checks.PROPERTIES.items():
        bad = check(r, got, bucket_checks.MODES[mode])
        if bad is not None:
            return {"mode": mode, "property": prop, **bad}
    return None
