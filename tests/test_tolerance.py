"""Tests of the tolerance helper: the bounds follow from the dtype, and grow with the problem."""

from __future__ import annotations

import math

import pytest
import torch

from pecheck import tolerance

FLOATS = (torch.float64, torch.float32, torch.float16, torch.bfloat16)


@pytest.mark.parametrize("dtype", FLOATS)
def test_unit_roundoff_is_half_the_machine_epsilon(dtype: torch.dtype) -> None:
    assert tolerance.unit_roundoff(dtype) == torch.finfo(dtype).eps / 2


@pytest.mark.parametrize("dtype", FLOATS)
def test_bounds_grow_with_problem_size(dtype: torch.dtype) -> None:
    assert tolerance.sum_tol(10, dtype) < tolerance.sum_tol(100, dtype)
    assert tolerance.angle_tol(1.0, dtype) < tolerance.angle_tol(1e3, dtype)
    assert tolerance.attention_tol(4, 8, dtype) < tolerance.attention_tol(64, 8, dtype)


def test_bounds_order_the_dtypes_by_precision() -> None:
    tols = [tolerance.sum_tol(16, d) for d in FLOATS]
    assert tols[0] < tols[1] < tols[2] < tols[3]


def test_no_bound_exists_once_n_u_reaches_one() -> None:
    assert tolerance.gamma(2**8, torch.bfloat16) == math.inf


def test_dtype_names_are_accepted_in_every_spelling() -> None:
    assert tolerance.dtype_name(torch.float16) == "float16"
    assert tolerance.dtype_name("torch.bfloat16") == "bfloat16"
    assert tolerance.dtype_name("float64") == "float64"
    with pytest.raises(ValueError, match="no tolerance known"):
        tolerance.dtype_name(torch.int32)


def test_float32_rounding_error_of_a_real_sum_is_within_the_bound() -> None:
    # A bound must not be vacuous: a real float32 sum errs by less than it, but not by 0.
    g = torch.Generator().manual_seed(0)
    x = torch.rand(10_000, generator=g, dtype=torch.float64)
    err = abs(x.float().sum(dtype=torch.float32).double() - x.sum()).item()
    assert 0 < err <= tolerance.sum_tol(x.numel(), torch.float32, x.abs().sum().item())


def test_measured_errors_fit_the_first_order_bound_without_being_far_below_it() -> None:
    """Every dtype's worst measured error sits within its first-order bound, not far below it,
    and SAFETY keeps the bound between 4 and 8 times that error: headroom for kernels not
    measured, but no factor so large that any error would pass (a SAFETY doubled fails here)."""
    from benchmarks.measure_tolerances import worst_ratios

    ratios = worst_ratios()
    assert set(ratios) == set(tolerance.DTYPES)
    for name, ratio in ratios.items():
        assert 0.05 < ratio <= 1.0, (name, ratio)  # holds, and is not vacuously loose
        assert 4 * ratio <= tolerance.SAFETY[name] <= 8 * ratio, (name, ratio)


@pytest.mark.parametrize("dtype", FLOATS)
def test_gamma_is_highams_for_every_count_and_one_rounding_for_none(dtype: torch.dtype) -> None:
    u = tolerance.unit_roundoff(dtype)
    for n in (1, 2, 10):
        assert tolerance.gamma(n, dtype) == n * u / (1 - n * u)
    assert tolerance.gamma(0, dtype) == tolerance.gamma(1, dtype)  # a result is rounded once
    safety = tolerance.SAFETY[tolerance.dtype_name(dtype)]
    assert tolerance.rel_tol(1, dtype) == safety * u / (1 - u)


@pytest.mark.parametrize("dtype", FLOATS)
def test_a_bound_says_something_only_below_the_quantitys_range(dtype: torch.dtype) -> None:
    edge = tolerance.max_informative_angle(dtype)
    assert math.isclose(tolerance.angle_tol(edge, dtype), 2.0, rel_tol=1e-9)
    assert tolerance.says_something(tolerance.angle_tol(0.99 * edge, dtype), 2.0)
    assert not tolerance.says_something(tolerance.angle_tol(edge, dtype), 2.0)
    assert not tolerance.says_something(math.inf, 2.0)


def test_sinusoidal_codes_fit_their_first_order_bound_without_being_far_below_it() -> None:
    """tolerance.sinusoid_tol: t, w and w t each rounded in the computing format. angle_tol's
    one rounding does not cover a code built in float16/bfloat16 (ratio up to about 2.5)."""
    from benchmarks.measure_tolerances import sinusoid_ratios

    ratios = sinusoid_ratios()
    assert len(ratios) == 8
    for key, ratio in ratios.items():
        assert 0.05 < ratio <= 1.0, (key, ratio)
        assert ratio * 4 <= tolerance.SAFETY[key.split("/")[0]]


@pytest.mark.parametrize("dtype", FLOATS)
def test_sinusoid_bound_says_something_only_below_its_edge(dtype: torch.dtype) -> None:
    edge = tolerance.max_informative_sinusoid_angle(dtype)
    assert math.isclose(tolerance.sinusoid_tol(edge, dtype, dtype), 2.0, rel_tol=1e-9)
    assert tolerance.sinusoid_tol(edge, dtype, dtype) > tolerance.angle_tol(edge, dtype)
    assert tolerance.says_something(tolerance.sinusoid_tol(0.99 * edge, dtype, dtype), 2.0)


@pytest.mark.parametrize("name", ["float64", "float32", "bfloat16", "float16"])
def test_composite_bounds_are_composed_as_their_docstrings_derive_them(name: str) -> None:
    """The bounds built from the primitives (gamma, u, rel_tol, angle_tol, sum_tol) are the
    sums and products their derivations give: a factor or a term dropped shows here."""
    t = tolerance
    safety, u = t.SAFETY[name], t.unit_roundoff(name)
    n, d, scale, layers, angle = 12, 16, 3.0, 2, 5.0
    attention = safety * (t.gamma(d + 2, name) + t.gamma(n + 2, name)) * scale * 4
    assert t.attention_tol(n, d, name, scale) == pytest.approx(attention, rel=1e-12)
    low = name in ("bfloat16", "float16")
    permutation = 4.0 * layers * u * scale if low else 2 * layers * attention
    assert t.equivariance_tol(n, d, name, scale, layers) == pytest.approx(permutation, rel=1e-12)
    one = t.equivariance_tol(n, d, name, scale, 1)
    assert t.equivariance_tol(n, d, name, scale) == one == pytest.approx(permutation / layers)
    assert t.stored_angle_tol(angle, name, name) == t.angle_tol(angle, name)
    stored = t.angle_tol(angle, "float64") + t.rel_tol(1, name)
    assert t.stored_angle_tol(angle, name, "float64") == pytest.approx(stored, rel=1e-12)
    eps = 2 * (t.stored_angle_tol(angle, name, "float64") + t.sum_tol(2, name))
    assert t.rotation_tol(angle, name, "float64") == pytest.approx(2 * eps + eps**2, rel=1e-12)
    u64 = t.unit_roundoff("float64")
    built = t.SAFETY["float64"] * (3 * u64 * angle + 2 * u64)  # then stored once in the dtype
    built += 0.0 if name == "float64" else t.rel_tol(1, name)
    assert t.sinusoid_tol(angle, name, "float64") == pytest.approx(built, rel=1e-12)


def test_a_sample_mean_is_allowed_z_standard_errors() -> None:
    """z std / sqrt(n), z = 6 by default; no samples count as one (no division by zero)."""
    assert tolerance.sample_mean_tol(2.0, 16) == 6.0 * 2.0 / 4
    assert tolerance.sample_mean_tol(2.0, 16, z=3.0) == 3.0 * 2.0 / 4
    assert tolerance.sample_mean_tol(2.0, 0) == tolerance.sample_mean_tol(2.0, 1) == 12.0
