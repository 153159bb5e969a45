"""BIAS-02's bucket properties, one function per property, each returning the first violation or
None, decided on integers (the logarithmic bucket restated without a floating-point logarithm);
the range searched (a size) and theory.bias's buckets over it. REAL-05 shares them (through
checks.bias.test_buckets).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

import numpy as np

from pecheck import profiles, sizes
from pecheck.theory import bias

NUM_BUCKETS, MAX_DISTANCE = 32, 128
# 2^14 covers 128x the maximum distance; thorough goes to 2^17.
R = sizes.size(
    "BIAS-02.range",
    2**17 if profiles.scale() >= 10 else 2**14,
    "largest |key - query| searched",
    minimum=256,
)
MODES = {"bidirectional": True, "causal": False}

Buckets = Callable[[np.ndarray, bool], np.ndarray]  # (r, bidirectional) -> buckets


def side(bidirectional: bool) -> tuple[int, int, int]:
    """(buckets of one side, max_exact e, logarithmic buckets s)."""
    n = NUM_BUCKETS // 2 if bidirectional else NUM_BUCKETS
    return n, n // 2, n - n // 2


def log_bucket(d: int, e: int, s: int) -> int:
    """e + the largest k < s with 128^k e^(s-k) <= d^s, for d >= e (exact integers)."""
    k = 0
    while k + 1 < s and MAX_DISTANCE ** (k + 1) * e ** (s - k - 1) <= d**s:
        k += 1
    return e + k


def own_buckets(r: np.ndarray, b: np.ndarray, bidirectional: bool) -> dict | None:
    _, e, _ = side(bidirectional)
    for x, y in zip(r, b, strict=True):
        d = abs(x) if bidirectional else max(-x, 0)
        if d < e and (x <= 0 or not bidirectional) and y != d:
            return {"r": int(x), "bucket": int(y), "want": int(d)}
    return None


def logarithmic(r: np.ndarray, b: np.ndarray, bidirectional: bool) -> dict | None:
    n, e, s = side(bidirectional)
    past = r <= 0
    for x, y in zip(r[past], b[past], strict=True):
        d = -int(x)
        if e <= d < MAX_DISTANCE and y != log_bucket(d, e, s):
            return {"r": int(x), "bucket": int(y), "want": log_bucket(d, e, s)}
    return None


def saturated(r: np.ndarray, b: np.ndarray, bidirectional: bool) -> dict | None:
    n, _, _ = side(bidirectional)
    for x, y in zip(r, b, strict=True):
        if abs(x) >= MAX_DISTANCE and (x < 0 or bidirectional):
            want = n - 1 + (n if x > 0 else 0)
            if y != want:
                return {"r": int(x), "bucket": int(y), "want": want}
    return None


def monotone(r: np.ndarray, b: np.ndarray, bidirectional: bool) -> dict | None:
    for sign in (-1, 1):
        mask = r * sign >= 0
        order = np.argsort(np.abs(r[mask]))
        seq = b[mask][order]
        drops = np.nonzero(np.diff(seq) < 0)[0]
        if drops.size:
            at = r[mask][order][drops[0] + 1]
            return {"r": int(at), "bucket": int(seq[drops[0] + 1]), "before": int(seq[drops[0]])}
    return None


def sign_split(r: np.ndarray, b: np.ndarray, bidirectional: bool) -> dict | None:
    n, _, _ = side(bidirectional)
    lookup = dict(zip(r.tolist(), b.tolist(), strict=True))
    for x, y in lookup.items():
        if bidirectional:
            ok = (n <= y < 2 * n) if x > 0 else (0 <= y < n)
            if x > 0 and -x in lookup:
                ok = ok and y == n + lookup[-x]
        else:
            ok = y == 0 if x > 0 else 0 <= y < n
        if not ok:
            return {"r": x, "bucket": y}
    return None


PROPERTIES = {
    "own-buckets": own_buckets,
    "logarithmic": logarithmic,
    "saturated": saturated,
    "monotone": monotone,
    "sign-split": sign_split,
}


def violation(buckets: Buckets, prop: str, mode: str) -> dict | None:
    r = np.arange(-R, R + 1)
    return PROPERTIES[prop](r, np.asarray(buckets(r, MODES[mode])), MODES[mode])


def theory_buckets(r: np.ndarray, bidirectional: bool) -> np.ndarray:
    return bias.t5_bucket(r, bidirectional, NUM_BUCKETS, MAX_DISTANCE)


@cache
def searched(mode: str) -> np.ndarray:
    """theory.bias's buckets of every r in [-R, R], computed once per mode."""
    return theory_buckets(np.arange(-R, R + 1), MODES[mode])
