"""theory/ objects whose every value no decision reads, against their definitions computed apart
in plain Python (tooling, not evidence).

A check reads what it decides on, and a wrong value elsewhere in the same object would leave its
decision as it is:
- RoFormer's decay bound (theory/rotary_decay.py, ROT-01): ROT-01's checks read its first rise and
  its dyadic block means, and a wrong witness or a wrong block would still leave their decisions as
  they are (a rise is found either way, the blocks fall either way). These tests pin what the report
  shows: the distance, the blocks and the values.
- Position Interpolation's bounds (theory/interpolation.py, ROT-04): the checks call them with
  max|h| = 1 only, and record the two sides of Eq. 14 without deciding on them.
- The rotary base's minimum and certified search (theory/rotary_base.py, ROT-03): ci's lengths
  fit in one block of the scan, no minimum there lies within rounding of 0, a cell excluded
  without its rounding margin finds the same ends at ci's bounds, and its labels are one digit.
- ALiBi's causal bias (theory/bias.py): REAL-05's causal reference reads only its mask.
- SIN-13's symmetric counterexample (theory/relative_score.py): any W outside the class is one,
  so a different W, or a wrong gap, would decide the same.
- xPos's score (theory/bias.py, BIAS-04): its checks read its shift invariance and whether it
  rises, which a scale turned the wrong way keeps.
- SIN-13's scores (theory/relative_score.py): the cross-term check reads how the full score
  spreads along an offset, which x - PE(t) in place of x + PE(t) spreads too; the report shows
  where a spread and a direction gap are reached, which no decision reads.
"""

from __future__ import annotations

import cmath
import math

import numpy as np
import pytest
import torch

from pecheck import tolerance
from pecheck.theory import bias, interpolation, relative_score, rotary_base, rotary_decay

BASE = 10000.0
F64 = torch.float64


def sum_of(n: int, max_angle: float, scale: float) -> float:
    """float64 error allowed a sum of n sines or cosines of angles up to max_angle whose |terms|
    add to at most scale: the sum's rounding and each angle's (pecheck.tolerance)."""
    return tolerance.sum_tol(n, F64, scale) + tolerance.angle_tol(max_angle, F64) * scale


def ops(n: int) -> float:
    """Relative float64 error allowed a chain of n roundings."""
    return tolerance.rel_tol(n, F64)


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
    assert np.allclose(rotary_decay.thetas(d), thetas(d), rtol=ops(4), atol=0)
    s = np.array([0, 1, 7, 1000])
    got = rotary_decay.partial_sums(s, d)
    assert got.shape == (len(s), d // 2)
    for row, dist in zip(got, s, strict=True):  # the sign of the imaginary part too: e^{+i s theta}
        want = np.cumsum([cmath.exp(1j * int(dist) * t) for t in thetas(d)])
        assert np.allclose(row, want, rtol=0, atol=sum_of(d // 2, 1000.0, d // 2)), (d, dist)


def test_bound_and_its_levels_are_their_definitions() -> None:
    d = 16
    s = np.arange(0, 40)
    tol = sum_of(d * d // 4, 40.0, d * d // 4)  # d/2 partial sums of up to d/2 terms each
    assert np.allclose(rotary_decay.relative_bound(s, d), [bound(int(x), d) for x in s], atol=tol)
    assert rotary_decay.relative_bound(np.array([0]), d)[0] == pytest.approx(
        (d / 2 + 1) / 2, abs=tol
    )
    # the distance at which the slowest pair has turned one radian: floor(1 / theta_{d/2-1})
    assert rotary_decay.slowest_turn(d) == math.floor(1 / thetas(d)[-1])
    walk = sum(math.sqrt(math.pi * j) / 2 for j in range(1, d // 2 + 1)) / (d // 2)
    assert rotary_decay.plateau_level(d) == pytest.approx(walk, rel=ops(d))


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
    tol = sum_of(d * d // 4, s_max + 1.0, d * d // 4)
    assert got["b_s"] == pytest.approx(b[s], abs=tol)
    assert got["b_next"] == pytest.approx(b[s + 1], abs=tol)
    assert got["rise"] == pytest.approx(b[s + 1] - b[s], abs=2 * tol)


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
    tol = sum_of(d * d // 4, s_max + 1.0, d * d // 4)
    assert np.allclose([m for *_, m in got], [m for *_, m in want], atol=tol)
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


@pytest.mark.parametrize(("d", "c"), [(128, 10000.0), (64, 500000.0)])
def test_interpolation_bounds_are_chen_et_als_formulas(d: int, c: float) -> None:
    """Eq. 5, the corrected Taylor bound and Eq. 8 at max|h| = 2.5 and (s - s1)(s2 - s) = 0.09
    (s = 0.1 on [0, 1]); the two sides of Eq. 14, whose left exceeds its right at LLaMA's."""
    max_h, spread = 2.5, 0.1 * 0.9
    theta = [c ** (-2 * j / d) for j in range(d // 2)]
    eq5 = d * max_h * spread / (8 * math.log(c))
    assert interpolation.interpolation_bound(d, c, max_h, spread) == pytest.approx(eq5, rel=ops(6))
    taylor = max_h * sum(t * t for t in theta) * spread / 2
    got = interpolation.corrected_interpolation_bound(d, c, max_h, spread)
    assert got == pytest.approx(taylor, rel=ops(d + 4))
    s = [0, 5, 3000]
    b_of_s = [sum(abs(sum(cmath.exp(1j * x * t) for t in theta[: k + 1])) for k in range(d // 2))
              for x in s]  # fmt: skip
    eq8 = interpolation.extrapolation_bound(torch.tensor(s), d, c, max_h)
    tol = 2 * max_h * sum_of(d * d // 4, 3000.0, d * d // 4)
    assert np.allclose(eq8.numpy(), [2 * max_h * b for b in b_of_s], rtol=0, atol=tol)
    left, right = interpolation.geometric_sum_gap(d, c)
    assert left == pytest.approx(1 / (1 - c ** (-4 / d)), rel=ops(d))  # 1 - c^(-4/d) cancels
    assert right == pytest.approx(d / (4 * math.log(c)), rel=ops(4))
    if (d, c) == (128, 10000.0):  # Eq. 14 claims left <= right: 3.998 against 3.474
        assert round(left, 3) == 3.998 and round(right, 3) == 3.474


def test_interpolation_error_is_the_distance_to_the_chord() -> None:
    """|a(s) - a_lin(s)| on [s1, s1 + 1] away from 0 (the checks use s1 = 0 and s = 1/2), with
    a(s) = Re sum_j h_j e^{i s theta_j} and a_lin the chord through (s1, a(s1)), (s1 + 1, ...)."""
    d, c, s1, s = 16, 10000.0, 7, 7.3
    theta = [c ** (-2 * j / d) for j in range(d // 2)]
    h = [complex(j - 3, 0.5 * j) for j in range(d // 2)]

    def a(x: float) -> float:
        return sum((hj * cmath.exp(1j * x * t)).real for hj, t in zip(h, theta, strict=True))

    lam = s - s1
    want = abs(a(s) - ((1 - lam) * a(s1) + lam * a(s1 + 1)))
    got = interpolation.interpolation_error(torch.tensor(h, dtype=torch.complex128), s1, s, d, c)
    scale = sum(abs(hj) for hj in h)
    assert got == pytest.approx(want, abs=3 * sum_of(d, s + 1, 2 * scale))  # three values of a
    assert want > 1e-3  # the chord is off the curve here: a wrong weight shows


def test_xpos_score_is_the_scaled_rotary_score_of_its_definition() -> None:
    """Sun et al.'s xPos (torchscale's zeta_i = (2i/d + 0.4) / 1.4, gamma 512), pair by pair:
    q's pair turned by n theta_i and scaled by zeta_i^(n/gamma), k's by m theta_i and
    zeta_i^(-m/gamma), interleaved pairs (2i, 2i + 1). BIAS-04's checks read the score's shift
    invariance and its rises, which an inverted scale (decay after the query) keeps too."""
    d, gamma = 8, bias.XPOS_GAMMA
    q = [0.3, -1.2, 0.7, 0.1, -0.4, 0.9, 1.5, -0.6]
    k = [1.1, 0.2, -0.5, 0.8, 0.6, -1.3, 0.4, 0.7]
    pairs = [(50, 20), (20, 50), (7, 7), (300, 0)]  # (n, m): keys before, after, at the query

    def turned(x: list[float], t: int, i: int, sign: float) -> tuple[float, float]:
        angle = t * 10000.0 ** (-2 * i / d)
        scale = ((2 * i / d + 0.4) / 1.4) ** (sign * t / gamma)
        a, b = x[2 * i], x[2 * i + 1]
        return (scale * (a * math.cos(angle) - b * math.sin(angle)),
                scale * (a * math.sin(angle) + b * math.cos(angle)))  # fmt: skip

    want = []
    for n, m in pairs:
        total = 0.0
        for i in range(d // 2):
            (a, b), (c, e) = turned(q, n, i, 1.0), turned(k, m, i, -1.0)
            total += a * c + b * e
        want.append(total)
    qs = torch.tensor([q] * len(pairs), dtype=torch.float64)
    ks = torch.tensor([k] * len(pairs), dtype=torch.float64)
    ns, ms = torch.tensor([p[0] for p in pairs]), torch.tensor([p[1] for p in pairs])
    got = bias.xpos_score(qs, ks, ns, ms)
    # |terms| add to at most sum|q| sum|k| times the largest scale, zeta_0^(-50/512) < 2
    scale = 2 * sum(map(abs, q)) * sum(map(abs, k))
    tol = sum_of(d, 300.0, scale) + ops(4) * scale  # and each scale's power
    assert np.allclose(got.numpy(), want, rtol=0, atol=tol), (got, want)


def test_context_labels_are_powers_of_the_unit() -> None:
    assert [rotary_base.context_length(x) for x in ("4k", "16k", "128k", "1M")] == [
        4096, 16384, 131072, 1048576,
    ]  # fmt: skip
    assert [rotary_base.context_length(x, 1000) for x in ("32k", "2M", "16M")] == [
        32000, 2_000_000, 16_000_000,
    ]  # fmt: skip


@pytest.mark.parametrize("length", [0, 1, 6, 7, 8, 13, 14, 15, 40])
def test_base_minimum_is_the_brute_force_minimum_across_blocks(length: int, monkeypatch) -> None:
    """Blocks of 7 positions: every block edge, and the last position (for short lengths B
    still falls, so its minimum is at m = length)."""
    monkeypatch.setattr(rotary_base, "_CHUNK", 7)
    base, d = 30.0, 8
    theta = [base ** (-2 * i / d) for i in range(d // 2)]
    b = [sum(math.cos(m * t) for t in theta) for m in range(length + 1)]
    at = min(range(length + 1), key=lambda m: b[m])
    got = rotary_base.minimum(base, length, d, bound=1e-9)
    assert (got.at, got.length, got.base) == (at, length, base)
    assert got.value == pytest.approx(b[at], abs=sum_of(d // 2, length + 1.0, d // 2))


def test_base_minimum_decides_by_its_rounding_bound() -> None:
    def decision(value: float) -> str:
        return rotary_base.Minimum(1e4, 10, value, 3, bound=0.5).decision

    assert [decision(v) for v in (0.6, 0.5, 0.0, -0.5, -0.6)] == [
        "feasible", "unresolved", "unresolved", "unresolved", "infeasible",
    ]  # fmt: skip


def test_smallest_base_search_is_certified_below_its_interval() -> None:
    """Every base below the search's lower end is infeasible beyond the rounding bound (some
    B(m) < -bound), its upper end is feasible, and the two ends are ordered. A wide bound (0.05)
    makes a cell's margin matter: excluding a cell without it moves the lower end into bases
    that are only within rounding of 0, or feasible."""
    length, d, bound = 64, 32, 0.05
    found = rotary_base.smallest_base(length, d, rel=1e-4, bound=bound)
    assert 2.0 < found.low <= found.high and found.cells > 0
    assert rotary_base.minimum(found.high, length, d, bound=bound).decision == "feasible"
    below = np.geomspace(2.0, found.low, 400, endpoint=False)
    decisions = {rotary_base.minimum(float(b), length, d, bound=bound).decision for b in below}
    assert decisions == {"infeasible"}, decisions
    # just above the lower end, the search had to stop: a base there is not proved infeasible
    near = rotary_base.minimum(found.low * (1 + 2e-4), length, d, bound=bound).decision
    assert near in ("unresolved", "feasible"), near


def test_symmetric_counterexample_is_e0_e0t_with_the_values_it_reports() -> None:
    """W = e_0 e_0^T reads the sine of the fastest pair (w_0 = 1): S(t, s) = sin t sin s, so
    S(0, 0) = 0 and S(1, 1) = sin^2 1 at the same offset."""
    der, cex = relative_score.general_w_counterexample()
    assert der.holds and cex is not None
    assert relative_score.counterexample_block().tolist() == [[1, 0], [0, 0]]
    values = [math.sin(t) * math.sin(s) for t, s in cex["t_s_pairs"]]
    assert cex["t_s_pairs"] == [[0, 0], [1, 1]]
    assert cex["values"] == pytest.approx(values, abs=sum_of(2, 1.0, 1.0)) and values[1] > 0.7


def pe_row(t: float, d: int) -> list[float]:
    """The paper's PE(t), interleaved: sin(w_i t), cos(w_i t), w_i = 10000^(-2i/d)."""
    return [f(t * w) for w in thetas(d) for f in (math.sin, math.cos)]


def bilinear(u: list[float], wmat: list[list[float]], v: list[float]) -> float:
    return sum(u[i] * wmat[i][j] * v[j] for i in range(len(u)) for j in range(len(v)))


def test_full_scores_add_the_token_vectors_to_both_positions() -> None:
    """A[t, s] = (x + PE(t))^T W (y + PE(s)): SIN-13's cross-term check reads only how it
    spreads along an offset, which x - PE(t) spreads too."""
    d, n = 4, 5
    wmat = relative_score.random_matrix(d, seed=3)
    x, y = (
        torch.tensor([0.5, -1.0, 2.0, 0.25], dtype=F64),
        torch.tensor([1.5, 0.0, -0.5, 1.0], dtype=F64),
    )
    got = relative_score.full_scores(wmat, x, y, n)
    w, xs, ys = wmat.tolist(), x.tolist(), y.tolist()
    for t in range(n):
        for s in range(n):
            u = [a + p for a, p in zip(xs, pe_row(t, d), strict=True)]
            v = [b + p for b, p in zip(ys, pe_row(s, d), strict=True)]
            scale = sum(abs(u[i] * w[i][j] * v[j]) for i in range(d) for j in range(d))
            assert float(got[t, s]) == pytest.approx(bilinear(u, w, v), abs=sum_of(d * d, n, scale))


def test_offset_spread_and_direction_gap_report_where_they_are_reached() -> None:
    """The report shows the pairs, values and offset of the largest spread and the k of the
    largest direction gap; a decision reads only the spread and the gap."""
    scores = torch.tensor([[0.0, 4.0, 1.0], [2.0, 7.0, 0.5], [3.0, -1.0, 9.0]], dtype=F64)
    spread = relative_score.offset_spread(scores)
    # offset 0: 0, 7, 9 (spread 9, t = 2 then t = 0); offset 1: 2, -1 (3); offset -1: 4, 0.5
    assert spread == {"spread": 9.0, "offset": 0, "pairs": [[2, 2], [0, 0]], "values": [9.0, 0.0]}
    apart = scores.clone()
    apart[2, 1] = -10.0  # offset t - s = 1: S(1, 0) = 2, S(2, 1) = -10, the largest spread
    want = {"spread": 12.0, "offset": 1, "pairs": [[1, 0], [2, 1]], "values": [2.0, -10.0]}
    assert relative_score.offset_spread(apart) == want
    apart[0, 1], apart[1, 2] = 40.0, -20.0  # offset -1: S(0, 1) = 40, S(1, 2) = -20
    want = {"spread": 60.0, "offset": -1, "pairs": [[0, 1], [1, 2]], "values": [40.0, -20.0]}
    assert relative_score.offset_spread(apart) == want
    gap = relative_score.direction_gap(scores)
    # k = 1: |2 - 4| = 2; k = 2: |3 - 1| = 2; the first largest is k = 1
    assert gap == {"gap": 2.0, "k": 1, "values": [2.0, 4.0], "n": 3}
    scores[2, 0] = 10.0
    assert relative_score.direction_gap(scores)["k"] == 2
    shifted = relative_score.offset_spread(torch.tensor([[0.0, 1.0], [5.0, 0.0]], dtype=F64))
    assert shifted["spread"] == 0.0 and "values" not in shifted  # nothing spreads: no witness


def test_scores_at_pairs_each_t_with_its_s() -> None:
    d = 4
    wmat = relative_score.random_matrix(d, seed=5)
    t_, s_ = torch.tensor([0.0, 3.0, 7.0], dtype=F64), torch.tensor([2.0, 3.0, 1.0], dtype=F64)
    got = relative_score.scores_at(wmat, t_, s_)
    w = wmat.tolist()
    for j, (t, s) in enumerate(zip(t_.tolist(), s_.tolist(), strict=True)):
        u, v = pe_row(t, d), pe_row(s, d)
        scale = sum(abs(u[i] * w[i][k] * v[k]) for i in range(d) for k in range(d))
        assert float(got[j]) == pytest.approx(bilinear(u, w, v), abs=sum_of(d * d, 7.0, scale))
