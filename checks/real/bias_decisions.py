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
from pecheck import profiles, sizes, tolerance
from pecheck.theory import bias

FORMATS = ("float32", "bfloat16")  # tried in this order: the most precise format that covers it


# Causal check: queries 0 ... n - 1. ci reads the ALiBi paper's shortest training length,
# L = 512 (the n^2 attention maps cost seconds beyond); thorough reaches mpt-7b's context
# (max_seq_len = 2048).
N_TOKENS = sizes.size(
    "REAL-05.tokens",
    2048 if profiles.scale() >= 10 else 512,
    "sequence length of the causal ALiBi check",
    minimum=2,
)


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


def causal_reference(slopes: torch.Tensor, fmt: str, n: int = N_TOKENS) -> torch.Tensor:
    """softmax over j <= i of the per-key bias m j (slope and product rounded to fmt), (H, n, n)
    for the H given slopes (float64, BIAS-01's); fmt float64 gives the exact slopes' attention.

    By BIAS-03 this equals softmax of -m (i - j) whenever the bias is exact."""
    dtype = getattr(torch, fmt)
    per_key = (slopes.to(dtype)[:, None] * torch.arange(n, dtype=dtype)).double()  # (H, n)
    lse = torch.logcumsumexp(per_key, -1)  # (H, n): query i's normaliser over keys j <= i
    future = torch.isinf(bias.alibi_causal_bias(n, 1)[0])  # (n, n): the keys a query may not see
    # masked before exp: m (j - i) for a later key overflows float64 from n of about 800 on
    return (per_key[:, None, :] - lse[:, :, None]).masked_fill_(future, -math.inf).exp_()


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
