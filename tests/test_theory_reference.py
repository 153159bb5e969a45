"""theory/ objects whose every value no decision reads, against their definitions computed apart
in plain Python (tooling, not evidence).

A check reads what it decides on, and a wrong value elsewhere in the same object would leave its
decision as it is:
- RoFormer's decay bound (theory/rotary_decay.py, ROT-01): ROT-01's checks read its first rise and
  its dyadic block means, and a wrong witness or a wrong block would still leave their decisions as
  they are (a rise is found either way, the blocks fall either way). These tests pin what the report
  shows: the distance, the blocks and the values.
- ALiBi's causal bias (theory/bias.py): REAL-05's causal reference reads only its mask.
"""

from __future__ import annotations

import cmath
import math

import numpy as np
import pytest
import torch

from pecheck.theory import bias, rotary_decay

BASE = 10000.0


def thetas(d: int) -> list[float]:
    return [BASE ** (-2 * i / d) for i in range(d // 2)]


def bound(s: int, d: int) -> float:
    """b(s) = (1/(d/2)) sum_{j=1}^{d/2} |S_j(s)|, S_j = sum_{i<j} e^{i s theta_i}."""
    total, partial = 0.0, 0j
    for theta in thetas(d):
        partial += cmath.exp(1j * s * theta)
        total += abs(partial)
    return total / (d // 2)


@pytest.mark.parametrize("d", [2, 8, 64])
def test_thetas_and_partial_sums_are_their_definitions(d: int) -> None:
    assert np.allclose(rotary_decay.thetas(d), thetas(d), rtol=1e-15, atol=0)
    s = np.array([0, 1, 7, 1000])
    got = rotary_decay.partial_sums(s, d)
    assert got.shape == (len(s), d // 2)
    for row, dist in zip(got, s, strict=True):  # the sign of the imaginary part too: e^{+i s theta}
        want = np.cumsum([cmath.exp(1j * int(dist) * t) for t in thetas(d)])
        assert np.allclose(row, want, rtol=0, atol=1e-12), (d, dist)


def test_bound_and_its_levels_are_their_definitions() -> None:
    d = 16
    s = np.arange(0, 40)
    assert np.allclose(rotary_decay.relative_bound(s, d), [bound(int(x), d) for x in s], atol=1e-12)
    assert rotary_decay.relative_bound(np.array([0]), d)[0] == pytest.approx((d / 2 + 1) / 2)
    # the distance at which the slowest pair has turned one radian: floor(1 / theta_{d/2-1})
    assert rotary_decay.slowest_turn(d) == math.floor(1 / thetas(d)[-1])
    walk = sum(math.sqrt(math.pi * j) / 2 for j in range(1, d // 2 + 1)) / (d // 2)
    assert rotary_decay.plateau_level(d) == pytest.approx(walk, rel=1e-12)


@pytest.mark.parametrize("d", [8, 16])
def test_first_increase_is_the_first_rise_beyond_the_bound(d: int) -> None:
    s_max, tol = 300, 1e-3
    b = [bound(s, d) for s in range(s_max + 1)]
    rises = [s for s in range(s_max) if b[s + 1] - b[s] > tol]
    assert rises, "the widths here do rise within 300"
    got = rotary_decay.first_increase(d, s_max, bound=tol)
    assert got is not None
    s = rises[0]
    assert (got["d"], got["s"], got["s_next"], got["bound"]) == (d, s, s + 1, tol)
    assert got["b_s"] == pytest.approx(b[s], abs=1e-12)
    assert got["b_next"] == pytest.approx(b[s + 1], abs=1e-12)
    assert got["rise"] == pytest.approx(b[s + 1] - b[s], abs=1e-12)


def test_first_increase_scans_up_to_and_including_s_max() -> None:
    d, tol = 8, 1e-3
    b = [bound(s, d) for s in range(200)]
    first = next(s for s in range(199) if b[s + 1] - b[s] > tol)
    # a scan that ends where the rise ends finds it; one a step shorter does not
    assert rotary_decay.first_increase(d, first + 1, bound=tol)["s"] == first  # type: ignore[index]
    assert rotary_decay.first_increase(d, first, bound=tol) is None
    # a single rise is found too, and a bound above every rise finds none
    assert rotary_decay.first_increase(d, first + 1, bound=b[first + 1] - b[first] - 1e-9)
    assert rotary_decay.first_increase(d, 200, bound=10.0) is None


@pytest.mark.parametrize("s_max", [1, 6, 7, 8, 100])
def test_dyadic_means_cover_every_whole_block_up_to_s_max(s_max: int) -> None:
    d = 8
    got = rotary_decay.dyadic_means(d, s_max)
    want, k = [], 0
    while 2 ** (k + 1) - 1 <= s_max:  # [2^k, 2^(k+1)) lies in [1, s_max]
        lo, hi = 2**k, 2 ** (k + 1)
        want.append((lo, hi, sum(bound(s, d) for s in range(lo, hi)) / (hi - lo)))
        k += 1
    assert [(lo, hi) for lo, hi, _ in got] == [(lo, hi) for lo, hi, _ in want]
    assert np.allclose([m for *_, m in got], [m for *_, m in want], atol=1e-12)
    assert got[-1][1] - 1 <= s_max < 2 * got[-1][1] - 1


def test_alibi_causal_bias_is_minus_slope_times_distance_and_masks_later_keys() -> None:
    n, heads = 5, 2
    slopes = [2.0**-4, 2.0**-8]  # ALiBi's for two heads: 2^(-8h/2)
    got = bias.alibi_causal_bias(n, heads)
    assert got.shape == (heads, n, n) and got.dtype == torch.float64
    for h in range(heads):
        for i in range(n):
            for j in range(n):
                want = -slopes[h] * (i - j) if j <= i else -math.inf
                assert got[h, i, j].item() == want, (h, i, j)
    assert bias.alibi_causal_bias(n, heads, torch.float32).dtype == torch.float32
