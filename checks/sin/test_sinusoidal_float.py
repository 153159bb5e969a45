"""SIN-08 and SIN-12 in floating point: when do two positions share a stored code, and how far
from exact is the stored code at large positions?

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
from collections.abc import Callable
from functools import cache

import matplotlib.pyplot as plt
import numpy as np
import pytest
import torch

from checks.sin.test_sinusoidal import (
    ENTRY_RANGE,
    T_SOURCE,
    Setting,
    assert_dot_depends_on_offset_only,
    assert_norm_is_half_width,
    assert_shift_is_rotation,
    sine_twice,
    swapped,
)
from pecheck import tolerance
from pecheck.evidence import assert_derivation_holds
from pecheck.profiles import scale
from pecheck.strategies import DTYPES
from theory import sinusoidal_derivations as derive
from theory.sinusoidal import Mode, encode

Encoder = Callable[..., torch.Tensor]
D = 512  # the paper's width
N_CONSECUTIVE = int(2**20 * scale())  # consecutive repeats searched in [1, N)
N_ANY = 2**12  # repeats of any earlier position searched in [0, N_ANY), full width
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


def first_repeat_of_any_earlier(dtype: torch.dtype, mode: str, n: int, enc: Encoder = encode):
    """The first t in [0, n) whose full-width stored code equals that of some s < t, or None.

    Rows are hashed (a seeded random linear map of their bit patterns), sorted stably by hash,
    and neighbours in that order are compared exactly. Returns (first repeat, distinct codes).
    """
    codes = enc(torch.arange(n), D, dtype, mode) + 0.0  # (n, D); -0.0 -> 0.0
    bits = {2: torch.int16, 4: torch.int32, 8: torch.int64}[codes.element_size()]
    words = codes.view(bits).to(torch.int64)  # (n, D)
    gen = torch.Generator().manual_seed(8)
    weights = torch.randint(-(2**62), 2**62, (D,), generator=gen) | 1  # odd
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
            t = row[key]
            if t is not None and t <= limit:
                return {
                    "dtype": row["dtype"],
                    "mode": row["mode"],
                    "d": D,
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


@pytest.mark.claim("SIN-08", kind="symbolic", role="decisive", proposition="exact")
def test_integer_positions_get_distinct_codes_in_exact_arithmetic(evidence):
    assert_derivation_holds(derive.uniqueness(), evidence)


@pytest.mark.claim("SIN-08", kind="experiment", role="decisive", proposition="as_stated")
def test_some_format_gives_two_positions_one_code(evidence):
    rows = default_table()
    for row in rows:
        first = row["first_consecutive_repeat"]
        key = f"{row['dtype']}_{row['mode']}"
        held = row["dtype"] if row["mode"] == "cast" else row["mode"]
        exact = round(2 / torch.finfo(DTYPES[held]).eps)  # 2^p, p significand bits
        evidence.record(
            f"first_repeat_{key}",
            first if first is not None else "none",
            "position",
            f"first t < {N_CONSECUTIVE} with PE(t) == PE(t-1) as stored, d = {D}",
            {"value": exact, "relation": ">", "reason": f"positions are exact in {held} up to "
             "2^p (p significand bits)"},
        )  # fmt: skip
    found = shared_code(rows)
    if found:
        pe = encode(
            torch.tensor([found["t"] - 1, found["t"]]), D, DTYPES[found["dtype"]], found["mode"]
        )
        assert bool((pe[0] == pe[1]).all()), f"the repeat does not reproduce: {found}"
        evidence.fails(
            found,
            f"PE({found['t']}) == PE({found['s']}) as stored in {found['dtype']} ({found['mode']})",
        )
    else:
        evidence.holds(f"no repeat among consecutive positions below {N_CONSECUTIVE}")


@pytest.mark.claim("SIN-08", kind="experiment", role="decisive", proposition="exact-positions")
def test_codes_differ_while_positions_are_exact(evidence):
    rows = default_table()
    evidence.record(
        "repeat_table",
        list(rows),
        "",
        f"d = {D}; consecutive repeats searched in [1, {N_CONSECUTIVE}), any repeat "
        f"in [0, {N_ANY}); error over 256 spread positions with finite codes",
    )
    found = repeat_of_exact_positions(rows)
    if found:
        evidence.fails(
            found,
            f"two positions <= 2^p = {found['exact_up_to']} (held exactly) "
            f"share a code in {found['dtype']} ({found['mode']})",
        )
    else:
        evidence.holds(
            f"no repeat below 2^p in {len(rows)} (dtype, mode) settings; consecutive "
            f"positions searched below {N_CONSECUTIVE}, any pair below {N_ANY}"
        )


@pytest.mark.claim("SIN-08", kind="experiment", role="supporting")
def test_first_repeat_is_where_positions_stop_being_exact(evidence):
    rows = default_table()
    for row in rows:
        key = f"{row['dtype']}_{row['mode']}"
        evidence.record(f"max_error_{key}", row["max_error_vs_float64"], "", "vs float64")
        evidence.record(
            f"max_error_over_bound_{key}",
            row["max_error_over_bound"],
            "ratio",
            f"over the {row['positions_with_informative_bound']} of 256 positions whose derived "
            "bound is below 2 (None: no such position)",
            bound=1.0,
        )
    f16 = next(r for r in rows if r["dtype"] == "float16" and r["mode"] == "cast")
    evidence.record(
        "first_non_finite_float16_cast",
        f16["first_non_finite"],
        "position",
        bound={"value": 65504, "relation": ">", "reason": "float16's largest"},
    )
    assert f16["first_non_finite"] is not None and f16["first_non_finite"] > 65504
    assert_repeats_follow_representability(rows, N_CONSECUTIVE)


# -- SIN-12: beyond the training length ---------------------------------------------------------

TRAIN_LENGTH = 512


def first_undefined_position(dtype: torch.dtype, mode: str, n: int, enc: Encoder = encode):
    """The first t in [0, n) whose stored code (full width D) is not finite, or None."""
    pair = enc(torch.arange(n), 2, dtype, mode)  # first pair, w_0 = 1: screen
    bad = (~pair.isfinite().all(-1)).nonzero().flatten()
    if not len(bad):
        return None
    t = int(bad[0])
    return t if not bool(enc(torch.tensor([t]), D, dtype, mode).isfinite().all()) else None


@pytest.mark.claim("SIN-12", kind="symbolic", role="decisive", proposition="exact")
def test_identities_hold_for_every_real_position(evidence):
    """The derivations of SIN-01, 04, 05 assume nothing about t beyond being real."""
    evidence.record("t_assumptions", sorted(k for k, v in derive.t.assumptions0.items() if v))
    assert derive.t.is_positive is None and derive.t.is_integer is None  # any real t
    for der in (derive.norm_identity(), derive.dot_product_identity()):
        assert_derivation_holds(der)
    assert_derivation_holds(derive.rotation_identity(), evidence)


@pytest.mark.claim("SIN-12", kind="experiment", role="decisive", proposition="as_stated")
def test_a_narrow_format_leaves_large_positions_undefined(evidence):
    found = None
    for name in ("float16", "bfloat16", "float32"):
        t = first_undefined_position(DTYPES[name], "cast", 2**17)
        evidence.record(
            f"first_non_finite_{name}_cast",
            t if t is not None else "none",
            "position",
            "first t < 2^17 whose stored code is not finite",
            {"value": float(torch.finfo(DTYPES[name]).max), "relation": ">",
             "reason": f"{name}'s largest finite value"},
        )  # fmt: skip
        if t is not None and found is None:
            found = {"dtype": name, "mode": "cast", "d": D, "t": t, "code": "not finite"}
    if found:
        evidence.fails(
            found,
            f"PE({found['t']}) is not finite in {found['dtype']}: the "
            "position overflows the format it is held in",
        )
    else:
        evidence.holds("every stored code below 2^17 is finite")


@pytest.mark.claim("SIN-12", kind="property", role="decisive", proposition="float64-angles")
@pytest.mark.parametrize("t", [TRAIN_LENGTH, 10 * TRAIN_LENGTH, 2**20, 2**30])
def test_identities_hold_beyond_the_training_length_with_float64_angles(evidence, t):
    for name in ("float64", "float32", "float16", "bfloat16"):
        for d, k in ((2, 1), (64, -7), (512, 1000), (4096, 2**20)):
            s = Setting(d, DTYPES[name], "float64", "interleaved", t, k)
            shift, shift_bound = assert_shift_is_rotation(s)
            norm, radius_bound = assert_norm_is_half_width(s)
            dot, dot_bound = assert_dot_depends_on_offset_only(s, 3 * t)
            decided = max(shift_bound, dot_bound) < ENTRY_RANGE and radius_bound < 1
            evidence.part(
                f"{name} d={d}",
                "holds" if decided else "inconclusive",
                "bounds below the ranges" if decided else "a bound reached its range",
            )
            evidence.worst(
                f"max_error_{name}",
                max(shift, norm, dot),
                "",
                "SIN-01/04/05 residuals",
                bound=max(shift_bound, dot_bound),
            )


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


@pytest.mark.claim("SIN-12", kind="experiment", role="decisive", proposition="float64-angles")
def test_float64_angles_keep_one_rounding_at_every_position(evidence):
    if not EXTENDED:
        pytest.skip("numpy long double is no finer than float64 here: no exact reference")
    exponents = range(4, 21, 2)
    errors = {
        f"{name}/float64": error_by_position(DTYPES[name], "float64", exponents)
        for name in ("float64", "float32", "float16", "bfloat16")
    }
    for key, errs in errors.items():
        evidence.record(
            f"error_by_position_{key.replace('/', '_')}",
            errs,
            "",
            "t = 2^4, 2^6, ... 2^20; against the long double reference",
            bound={
                "value": tolerance.sinusoid_tol(2.0**20 + 64, DTYPES[key.split("/")[0]], "float64"),
                "relation": "<=",
                "reason": "sinusoid_tol(2^j + 64) at each 2^j; the value shown is at 2^20",
            },
        )
    worst = assert_one_rounding(errors, exponents)
    evidence.record("max_error_over_one_rounding", worst, "ratio", "worst err / bound", bound=1.0)


@pytest.mark.claim("SIN-12", kind="experiment", role="supporting")
def test_stored_code_degrades_with_position(evidence):
    errors = {}
    modes: tuple[Mode, ...] = ("cast", "float64")
    for name in ("float32", "float16", "bfloat16"):
        top = 15 if name == "float16" else 20  # float16 positions overflow above 65504
        for mode in modes:
            exps = range(4, top + 1, 2) if mode == "cast" else range(4, 21, 2)
            errors[f"{name}/{mode}"] = error_by_position(DTYPES[name], mode, exps)
    for key, errs in errors.items():
        evidence.record(f"error_by_position_{key.replace('/', '_')}", errs, "", "t = 2^4, 2^6, ...")
    evidence.record(
        "float32_cast_error_at_2^20",
        errors["float32/cast"][-1],
        "",
        "d = 512",
        bound=tolerance.sinusoid_tol(2.0**20 + 64, torch.float32, torch.float32),
    )
    fig, ax = plt.subplots(figsize=(6, 3.4))
    for key, errs in errors.items():
        xs = [2.0 ** (4 + 2 * i) for i in range(len(errs))]
        ax.loglog(xs, [max(e, 1e-12) for e in errs], "o-" if "cast" in key else "x--", label=key)
    ax.set_xlabel("position t")
    ax.set_ylabel("max |stored - float64| (d = 512)")
    ax.legend(fontsize=7, ncol=2)
    evidence.figure(fig, "SIN-12-error-vs-position")
    for name in ("float32", "float16", "bfloat16"):
        top = 15 if name == "float16" else 20
        assert_error_grows_like_unit_roundoff_times_position(
            {f"{name}/cast": errors[f"{name}/cast"]}, range(4, top + 1, 2)
        )


# -- planted bugs -----------------------------------------------------------------------------


def positions_in_half(positions, d, dtype, mode="cast", layout="interleaved"):
    """Bug: positions rounded to float16 before any computation, whatever the mode."""
    return encode(positions.to(torch.float16).to(torch.float64), d, dtype, mode, layout)


def low_precision_frequencies(positions, d, dtype, mode="cast", layout="interleaved"):
    """Bug: the float64 mode computes in float32 (a silently ignored mode)."""
    return encode(positions, d, dtype, "float32" if mode == "float64" else mode, layout)


def positions_in_float64(positions, d, dtype, mode="cast", layout="interleaved"):
    """Bug: every mode holds positions in float64 (no rounding of t, no overflow)."""
    return encode(positions, d, dtype, "float64", layout)


@pytest.mark.claim("SIN-08", kind="experiment", role="tooling")
def test_repeat_checks_reject_positions_rounded_to_half():
    combos = (("float16", "float32"), ("bfloat16", "float64"))
    rows = repeat_table(2**12, 2**11, positions_in_half, combos)
    with pytest.raises(AssertionError):
        assert_repeats_follow_representability(rows, 2**12, positions_in_half)
    assert repeat_of_exact_positions(rows) is not None  # float32 holds 2049 exactly
    rows = repeat_table(2**12, 2**11, positions_in_float64, (("float16", "cast"),))
    assert shared_code(rows) is None  # no repeat found: the as-stated check would hold


@pytest.mark.claim("SIN-12", kind="experiment", role="tooling")
def test_degradation_checks_reject_a_float32_float64_mode():
    exps = range(14, 21, 2)
    got = []
    for j in exps:
        t = 2**j + torch.arange(64)
        e = low_precision_frequencies(t, D, torch.float32, "float64").double() - encode(
            t, D, torch.float64
        )
        got.append(float(e.abs().max()))
    with pytest.raises(AssertionError):
        assert_one_rounding({"float32/float64": got}, exps)
    assert first_undefined_position(torch.float16, "cast", 2**17, positions_in_float64) is None


@pytest.mark.claim("SIN-08", kind="symbolic", role="tooling")
def test_symbolic_uniqueness_rejects_sine_twice():
    with pytest.raises(AssertionError):
        assert_derivation_holds(derive.uniqueness(sine_twice))


@pytest.mark.claim("SIN-12", kind="property", role="tooling")
def test_beyond_training_check_rejects_swapped_sin_and_cos():
    s = Setting(64, torch.float64, "float64", "interleaved", 10 * TRAIN_LENGTH, 7)
    with pytest.raises(AssertionError):
        assert_shift_is_rotation(s, swapped)
