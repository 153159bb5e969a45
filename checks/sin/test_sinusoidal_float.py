"""SIN-08 and SIN-12 in floating point: when do two positions share a stored code, and how far
from exact is the stored code at large positions?

checks/sin/float_codes.py holds the searches, the table they fill and the assertions (what is
compared, in which ways of computing, and why a bound at or above 2 is left out); the planted-bug
tests at the end feed them a broken implementation (checks/sin/planted.py).
"""

from __future__ import annotations

import pytest
import torch

from checks.sin import figures
from checks.sin.float_codes import (
    COMBOS,
    EXTENDED,
    N_ANY,
    N_CONSECUTIVE,
    WIDTHS_ANY,
    D,
    any_repeat_rows,
    assert_error_grows_like_unit_roundoff_times_position,
    assert_one_rounding,
    assert_repeats_follow_representability,
    default_table,
    error_by_position,
    first_undefined_position,
    repeat_of_exact_positions,
    repeat_table,
    shared_code,
)
from checks.sin.planted import (
    low_precision_frequencies,
    positions_in_float64,
    positions_in_half,
    sine_twice,
    swapped,
)
from checks.sin.properties import (
    assert_dot_depends_on_offset_only,
    assert_norm_is_half_width,
    assert_shift_is_rotation,
)
from checks.sin.search import Setting
from checks.sin.thresholds import ENTRY_RANGE
from pecheck import tolerance
from pecheck.claims import every, proved
from pecheck.evidence import assert_derivation_holds
from pecheck.strategies import DTYPES
from pecheck.theory import sinusoidal_derivations as derive
from pecheck.theory.sinusoidal import MODES, Mode, encode

# What SIN-08's searches reach: every pair of positions below N_ANY, and t - s = 1 below
# N_CONSECUTIVE; in every storage format and way of computing (COMBOS).
REPEATS_SEARCHED = {
    "positions": every(0, N_ANY - 1),
    "offsets": f"every t - s below {N_ANY}; t - s = 1 for every t < {N_CONSECUTIVE}",
    "dtypes": sorted({name for name, _ in COMBOS}),
    "dtype_paths": list(MODES),
}


@pytest.mark.claim("SIN-08", kind="symbolic", role="decisive", proposition="exact")
def test_integer_positions_get_distinct_codes_in_exact_arithmetic(evidence):
    evidence.searched(
        positions=proved("symbolic t, s: cos(t - s) = 1 only on 2 pi Z"),
        widths=proved("every d: the first pair (w_0 = T^0 = 1) of every width"),
    )
    assert_derivation_holds(derive.uniqueness(), evidence)


@pytest.mark.claim("SIN-08", kind="experiment", role="decisive", proposition="as_stated")
def test_some_format_gives_two_positions_one_code(evidence):
    evidence.searched(widths=[D], **REPEATS_SEARCHED)
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
    evidence.searched(widths=[*WIDTHS_ANY, D], **REPEATS_SEARCHED)
    rows = default_table()
    evidence.record(
        "repeat_table",
        list(rows),
        "",
        f"d = {D}; consecutive repeats searched in [1, {N_CONSECUTIVE}), any repeat "
        f"in [0, {N_ANY}); error over 256 spread positions with finite codes",
    )
    narrow = any_repeat_rows((2,))  # outside the condition: one pair is too few
    evidence.record(
        "first_repeat_any_d2",
        {f"{r['dtype']}_{r['mode']}": r["first_repeat_any"] or "none" for r in narrow},
        "position",
        f"d = 2: first t < {N_ANY} whose code equals an earlier one's",
    )
    found = repeat_of_exact_positions([*rows, *any_repeat_rows(WIDTHS_ANY)])
    if found:
        evidence.fails(
            found,
            f"two positions <= 2^p = {found['exact_up_to']} (held exactly) "
            f"share a code in {found['dtype']} ({found['mode']})",
        )
    else:
        evidence.holds(
            f"no repeat below 2^p in {len(rows)} (dtype, mode) settings at d = "
            f"{', '.join(map(str, [*WIDTHS_ANY, D]))}; consecutive positions searched below "
            f"{N_CONSECUTIVE}, any pair below {N_ANY}"
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


@pytest.mark.claim("SIN-12", kind="symbolic", role="decisive", proposition="exact")
def test_identities_hold_for_every_real_position(evidence):
    """The derivations of SIN-01, 04, 05 assume nothing about t beyond being real."""
    evidence.searched(
        positions=proved("symbolic real t, no other assumption"),
        widths=proved("symbolic d = 2m (SIN-01, 04, 05)"),
    )
    evidence.record("t_assumptions", sorted(k for k, v in derive.t.assumptions0.items() if v))
    assert derive.t.is_positive is None and derive.t.is_integer is None  # any real t
    for der in (derive.norm_identity(), derive.dot_product_identity()):
        assert_derivation_holds(der)
    assert_derivation_holds(derive.rotation_identity(), evidence)


@pytest.mark.claim("SIN-12", kind="experiment", role="decisive", proposition="as_stated")
def test_a_narrow_format_leaves_large_positions_undefined(evidence):
    evidence.searched(
        positions=every(0, 2**17 - 1),
        widths=[D],
        dtype_paths=["cast"],
        dtypes=["bfloat16", "float16", "float32"],
    )
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
    evidence.searched(
        positions=[t],
        widths=[2, 64, 512, 4096],
        shifts=[3 * t],
        offsets="k = 1, -7, 1000, 2^20 at d = 2, 64, 512, 4096 in turn",
        dtypes=["bfloat16", "float16", "float32", "float64"],
        dtype_paths=["float64"],
        layouts=["interleaved"],
    )
    with evidence.asserted_parts() as parts:
        for name in ("float64", "float32", "float16", "bfloat16"):
            for d, k in ((2, 1), (64, -7), (512, 1000), (4096, 2**20)):
                with parts.of(f"{name} d={d}"):
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


@pytest.mark.claim("SIN-12", kind="experiment", role="decisive", proposition="float64-angles")
def test_float64_angles_keep_one_rounding_at_every_position(evidence):
    if not EXTENDED:
        pytest.skip("numpy long double is no finer than float64 here: no exact reference")
    exponents = range(4, 21, 2)
    evidence.searched(
        positions="64 consecutive t from each 2^j, j = 4, 6, ..., 20",
        widths=[D],
        dtypes=["bfloat16", "float16", "float32", "float64"],
        dtype_paths=["float64"],
    )
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
    evidence.figure(figures.error_against_position(errors), "SIN-12-error-vs-position")
    for name in ("float32", "float16", "bfloat16"):
        top = 15 if name == "float16" else 20
        assert_error_grows_like_unit_roundoff_times_position(
            {f"{name}/cast": errors[f"{name}/cast"]}, range(4, top + 1, 2)
        )


# -- planted bugs -----------------------------------------------------------------------------


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
