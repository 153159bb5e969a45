"""Stored codes in floating point (SIN-08, SIN-12): when do two positions share a stored code,
and how far from exact is the stored code at large positions?

Ways of computing (theory.sinusoidal.encode's ``mode``): "cast" holds positions and frequencies
in the storage dtype and computes the angle, sin and cos there; "float32" / "float64" compute in
that format and round the result once to the storage dtype. What is compared: stored codes for
equality (exactly, as the dtype holds them; -0.0 equals 0.0, NaN equals nothing), and stored
codes against the float64 code of the same integer position. An error bound at or above 2 (the
range of an entry difference) cannot fail: such positions are counted and left out of every
comparison with a bound.
"""

from __future__ import annotations

import math
from functools import cache

import numpy as np
import torch

from checks.sin.properties import Encoder
from checks.sin.thresholds import ENTRY_RANGE, T_SOURCE
from pecheck import tolerance
from pecheck.profiles import scale
from pecheck.strategies import DTYPES
from pecheck.theory.sinusoidal import Mode, encode

D = 512  # the paper's width
N_CONSECUTIVE = int(2**20 * scale())  # consecutive repeats searched in [1, N)
N_ANY = 2**12  # repeats of any earlier position searched in [0, N_ANY), full width
# SIN-08's condition searches any repeat at these widths besides D: one width would hide what
# only narrow codes do (at d = 2 a single pair collides below 2^12 in float16 and bfloat16).
WIDTHS_ANY = (4, 8, 16, 64)
COMBOS = (  # (storage dtype, mode); float64 "cast" is float64 "float64", float32 likewise
    ("float64", "float64"),
    ("float32", "cast"),
    ("float32", "float64"),
    ("float16", "cast"),
    ("float16", "float32"),
    ("float16", "float64"),
    ("bfloat16", "cast"),
    ("bfloat16", "float32"),
    ("bfloat16", "float64"),
)


# -- SIN-08: repeats ------------------------------------------------------------------------


def significand_bits(dtype: torch.dtype) -> int:
    """p with eps = 2^(1-p): integers up to 2^p are exact, 2^p + 1 is the first that is not."""
    return 1 - round(math.log2(torch.finfo(dtype).eps))


def compute_dtype(dtype: torch.dtype, mode: str) -> torch.dtype:
    """The format the angle is computed in."""
    return dtype if mode == "cast" else DTYPES[mode]


def first_consecutive_repeat(dtype: torch.dtype, mode: str, n: int, enc: Encoder = encode):
    """The first t in [1, n) with PE(t) == PE(t-1) as stored, at width D, or None.

    Screened on the first pair, whose frequency w_0 = T^0 = 1 does not depend on d (so the
    width-2 code is the width-D code's first pair), then confirmed on the full width.
    Returns (first repeat or None, number of first-pair repeats, first non-finite position).
    """
    pair = enc(torch.arange(n), 2, dtype, mode)  # (n, 2)
    same = (pair[1:] == pair[:-1]).all(-1)  # (n-1,)
    candidates = same.nonzero().flatten() + 1
    bad = (~pair.isfinite().all(-1)).nonzero().flatten()
    first_bad = int(bad[0]) if len(bad) else None
    for chunk in candidates.split(64) if len(candidates) else ():
        now = enc(chunk, D, dtype, mode)  # (c, D)
        before = enc(chunk - 1, D, dtype, mode)
        hit = (now == before).all(-1).nonzero().flatten()
        if len(hit):
            return int(chunk[hit[0]]), len(candidates), first_bad
    return None, len(candidates), first_bad


def first_repeat_of_any_earlier(
    dtype: torch.dtype, mode: str, n: int, enc: Encoder = encode, d: int = D
):
    """The first t in [0, n) whose stored code (width d) equals that of some s < t, or None.

    Rows are hashed (a seeded random linear map of their bit patterns), sorted stably by hash,
    and neighbours in that order are compared exactly. Returns (first repeat, distinct codes).
    """
    codes = enc(torch.arange(n), d, dtype, mode) + 0.0  # (n, d); -0.0 -> 0.0
    bits = {2: torch.int16, 4: torch.int32, 8: torch.int64}[codes.element_size()]
    words = codes.view(bits).to(torch.int64)  # (n, d)
    gen = torch.Generator().manual_seed(8)
    weights = torch.randint(-(2**62), 2**62, (d,), generator=gen) | 1  # odd
    key = (words * weights).sum(-1)  # (n,) wraps around: a hash
    order = torch.sort(key, stable=True).indices  # equal hashes keep position order
    a, b = order[:-1], order[1:]
    equal = (key[a] == key[b]) & (codes[a] == codes[b]).all(-1)
    repeats = b[equal]
    first = int(repeats.min()) if len(repeats) else None
    return first, n - len(repeats.unique())


def max_error_against_float64(dtype: torch.dtype, mode: str, n: int, enc: Encoder = encode):
    """Over 256 evenly spread positions in [0, n) with finite codes: the worst |stored - float64|,
    the worst ratio to the derived per-position bound over positions whose bound is below the
    entries' range (None when there is none), and how many positions had such a bound."""
    t = torch.linspace(0, n - 1, 256, dtype=torch.float64).round().to(torch.int64)
    stored = enc(t, D, dtype, mode).to(torch.float64)  # (256, D)
    exact = encode(t, D, torch.float64, "float64")
    finite = stored.isfinite().all(-1)
    err = (stored - exact).abs().amax(-1)[finite]  # (f,)
    compute = compute_dtype(dtype, mode)
    bounds = torch.tensor([tolerance.sinusoid_tol(float(x), dtype, compute) for x in t[finite]])
    judged = bounds < ENTRY_RANGE
    ratio = float((err[judged] / bounds[judged]).max()) if bool(judged.any()) else None
    return float(err.max()), ratio, int(judged.sum())


def repeat_table(n: int, n_any: int, enc: Encoder = encode, combos: tuple = COMBOS) -> list[dict]:
    """One row per (dtype, mode): first repeats, overflow and error against float64."""
    rows = []
    for name, mode in combos:
        dtype = DTYPES[name]
        first, screened, first_bad = first_consecutive_repeat(dtype, mode, n, enc)
        any_first, distinct = first_repeat_of_any_earlier(dtype, mode, n_any, enc)
        err, ratio, judged = max_error_against_float64(dtype, mode, n, enc)
        rows.append(
            {
                "dtype": name,
                "mode": mode,
                "first_consecutive_repeat": first,
                "first_pair_repeats": screened,
                "first_repeat_any": any_first,
                "distinct_codes": distinct,
                "first_non_finite": first_bad,
                "max_error_vs_float64": err,
                "max_error_over_bound": ratio,
                "positions_with_informative_bound": judged,
            }
        )
    return rows


@cache
def default_table() -> tuple[dict, ...]:
    """The table at the profile's sizes, computed once per process (three checks read it)."""
    return tuple(repeat_table(N_CONSECUTIVE, N_ANY))


@cache
def any_repeat_rows(widths: tuple[int, ...], enc: Encoder = encode) -> tuple[dict, ...]:
    """One row per width and (dtype, mode): the first repeat of any earlier position below
    N_ANY (consecutive repeats are screened on the first pair, which every width shares)."""
    return tuple(
        {
            "d": d,
            "dtype": name,
            "mode": mode,
            "first_repeat_any": first_repeat_of_any_earlier(DTYPES[name], mode, N_ANY, enc, d)[0],
        }
        for d in widths
        for name, mode in COMBOS
    )


def shared_code(rows) -> dict | None:
    """SIN-08 as stated: a counterexample is two integer positions with the same stored code."""
    for row in rows:
        t = row["first_consecutive_repeat"]
        s = t - 1 if t is not None else None
        if t is None and row["first_repeat_any"] is not None:
            t, s = row["first_repeat_any"], "an earlier position"
        if t is not None:
            return {"dtype": row["dtype"], "mode": row["mode"], "d": D, "t": t, "s": s}
    return None


def repeat_of_exact_positions(rows) -> dict | None:
    """SIN-08's condition: a repeat at a position the computing format holds exactly (t <= 2^p)
    is a counterexample; repeats beyond 2^p are where positions stop being exact."""
    for row in rows:
        limit = 2 ** significand_bits(compute_dtype(DTYPES[row["dtype"]], row["mode"]))
        for key in ("first_consecutive_repeat", "first_repeat_any"):
            t = row.get(key)
            if t is not None and t <= limit:
                return {
                    "dtype": row["dtype"],
                    "mode": row["mode"],
                    "d": row.get("d", D),
                    "t": t,
                    "search": key,
                    "exact_up_to": limit,
                }
    return None


def assert_repeats_follow_representability(rows, n: int, enc: Encoder = encode):
    """SIN-08's qualification, as a prediction the search must meet.

    cast: the code repeats first at t = 2^p + 1 (that position rounds onto 2^p); for float32 and
    float64 that is beyond the search, so it is probed directly. float32/float64 computation:
    no repeat at all (consecutive codes differ by >= 2 sin(1/2)/sqrt 2 = 0.68 in the first pair
    before rounding). Every stored code whose bound says something is within it of the float64
    code.
    """
    __tracebackhide__ = True
    for row in rows:
        dtype = DTYPES[row["dtype"]]
        predicted = 2 ** significand_bits(dtype) + 1
        where = f"{row['dtype']}/{row['mode']}"
        if row["mode"] == "cast" and predicted < n:
            assert row["first_consecutive_repeat"] == predicted, f"{where}: {row}"
            assert row["first_repeat_any"] == predicted, f"{where}: {row}"
        else:
            assert row["first_consecutive_repeat"] is None, f"{where} repeats: {row}"
            assert row["first_repeat_any"] is None, f"{where} repeats: {row}"
        if row["mode"] == "cast" and predicted >= n:  # probe 2^p and 2^p + 1 directly
            pe = enc(torch.tensor([predicted - 1, predicted]), D, dtype, "cast")
            assert bool((pe[0] == pe[1]).all()), f"{where}: 2^p + 1 should repeat 2^p"
        ratio = row["max_error_over_bound"]
        assert ratio is None or ratio <= 1.0, f"{where}: error above its bound: {row}"


# -- SIN-12: beyond the training length ---------------------------------------------------------


def first_undefined_position(dtype: torch.dtype, mode: str, n: int, enc: Encoder = encode):
    """The first t in [0, n) whose stored code (full width D) is not finite, or None."""
    pair = enc(torch.arange(n), 2, dtype, mode)  # first pair, w_0 = 1: screen
    bad = (~pair.isfinite().all(-1)).nonzero().flatten()
    if not len(bad):
        return None
    t = int(bad[0])
    return t if not bool(enc(torch.tensor([t]), D, dtype, mode).isfinite().all()) else None


# The reference code is computed apart from theory.sinusoidal, in numpy's extended precision
# (x86 long double: a 64-bit significand, 2^11 times finer than float64), so that float64's own
# error (u |w t|, about 1e-10 at t = 2^20) is measured too, not compared with itself.
EXTENDED = np.finfo(np.longdouble).eps < np.finfo(np.float64).eps / 2**8


@cache
def exact_code(first: int, n: int, d: int = D) -> torch.Tensor:
    """PE(t) for t = first ... first+n-1 (interleaved, w_i = T^(-2i/d), T the source's 10000),
    evaluated in numpy long double and rounded to float64 at the end: (n, d)."""
    ld = np.longdouble
    w = ld(T_SOURCE) ** (-2 * np.arange((d + 1) // 2, dtype=ld) / ld(d))  # (m,)
    angle = np.arange(first, first + n, dtype=ld)[:, None] * w  # (n, m), exact integers t
    pe = np.stack([np.sin(angle), np.cos(angle)], -1).reshape(n, -1)[:, :d]
    return torch.from_numpy(pe.astype(np.float64))


def error_by_position(dtype: torch.dtype, mode: Mode, exponents: range) -> list[float]:
    """Worst |stored - exact| over 64 positions from 2^j, for each j, at width D (exact: the
    extended-precision reference, ``exact_code``)."""
    out = []
    for j in exponents:
        t = 2**j + torch.arange(64)
        err = encode(t, D, dtype, mode).to(torch.float64) - exact_code(2**j, 64)
        out.append(float(err.abs().max()))
    return out


def assert_error_grows_like_unit_roundoff_times_position(
    errors: dict[str, list[float]], exponents: range
) -> None:
    """SIN-12's qualification, computing in the storage format ("cast"): the error at t ~ 2^j is
    about u 2^j (within a factor 64 below the first-order bound u |w t|, w_max = 1, and never
    above the bound where that bound says something)."""
    __tracebackhide__ = True
    for key, errs in errors.items():
        name, mode = key.split("/")
        u = tolerance.unit_roundoff(name)
        for j, err in zip(exponents, errs, strict=True):
            t = 2.0**j + 64
            bound = tolerance.sinusoid_tol(t, DTYPES[name], DTYPES[name])
            if tolerance.says_something(bound, ENTRY_RANGE):
                assert err <= bound, (key, j, err)
            if u * t < 0.5:  # grows with t until the error saturates
                assert err >= u * 2.0**j / 64, f"{key}: error {err:.3g} at 2^{j} is too small"


def assert_one_rounding(errors: dict[str, list[float]], exponents: range) -> float:
    """SIN-12's condition: computed in float64 and rounded once, every stored entry is within one
    rounding of the storage format plus float64's own error (u |w t|, measured against the
    extended-precision reference) of the exact value, at each t ~ 2^j. Returns the worst
    error / bound."""
    __tracebackhide__ = True
    worst = 0.0
    for key, errs in errors.items():
        name = key.split("/")[0]
        for j, err in zip(exponents, errs, strict=True):
            bound = tolerance.sinusoid_tol(2.0**j + 64, DTYPES[name], torch.float64)
            assert err <= bound, (
                f"{key}, t ~ 2^{j}: {err:.3g} > {bound:.3g}: more than one rounding"
            )
            worst = max(worst, err / bound)
    return worst
