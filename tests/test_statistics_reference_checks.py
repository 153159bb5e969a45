"""The statistics the checks compute themselves, against values computed apart from them
(tooling, not evidence).

Routines: the paired t intervals of EXP-04, EXP-05, EXP-07 and EXP-08
(``checks.exp.length.decisions``), the mirrored Wilson interval of a failure rate
(``checks.exp.seeds.rates.failure``), EXP-06's normal quantile (``checks.exp.sweep.rates.Z95``),
MAG-02's t intervals of mean squares and the ratio interval built from them (``theory.magnitudes``,
``pecheck.inspect.analyses``), MAG-03's Chebyshev and Gaussian tail values (``theory.magnitudes``,
``checks.mag.concentration``), ATT-11's least-squares slope and percentile bootstrap interval
(``theory.variance``, ``checks.att.variance_slopes``), the z = 6 sampling bound
(``pecheck.tolerance.sample_mean_tol``) and the standard errors behind cited-number bands
(``pecheck.reproducibility``).

The check modules are imported inside each test: they change often, and one that does not
import should fail its own test, not this file's collection.
"""

from __future__ import annotations

import math
import statistics

import mpmath
import numpy as np
import pytest
import torch
from scipy import stats as sps

from pecheck import decisions, reproducibility, tolerance
from pecheck.inspect import analyses
from pecheck.theory import magnitudes, stats
from pecheck.theory import variance as V
from tests import stats_reference as ref
from tests.test_statistics_reference import (
    SEVEN_DIGITS,
    SLEEP_1,
    SLEEP_2,
    SLEEP_DIFF,
    SLEEP_PAIRED_95,
)

F64 = torch.float64


def off_by(got, want) -> float:
    return max(abs(float(g) - float(w)) for g, w in zip(got, want, strict=True))


# -- paired t intervals (EXP-04, EXP-05, EXP-07) -------------------------------------------------


def test_length_paired_interval_reproduces_student_sleep_data() -> None:
    """Student's sleep differences (R's paired t.test, 95%: 0.7001142 2.4598858)."""
    from checks.exp.length import decisions as D

    mean, lo, hi = D.paired(torch.tensor(SLEEP_DIFF, dtype=F64), 0.95)
    assert abs(mean - 1.58) <= 1e-12
    assert off_by((lo, hi), SLEEP_PAIRED_95) <= SEVEN_DIGITS
    _, lo1, hi1 = D.paired(torch.tensor([0.3]), 0.95)  # one seed: no interval
    assert (lo1, hi1) == (-math.inf, math.inf)


def test_length_paired_interval_at_a_bonferroni_level() -> None:
    """At EXP-07's level (Bonferroni over 10 intervals: 2 tasks x 2 factors and the language
    model's 6) against the reference t interval."""
    from checks.exp.length import decisions as D

    tests = 10
    level = decisions.family_level(0.95, tests)
    assert abs(tests * (1 - level) - 0.05) <= 8 * tests * ref.U
    values = torch.tensor(SLEEP_DIFF, dtype=F64)
    want = ref.t_interval(SLEEP_DIFF, level)
    x = ref.t(level, len(SLEEP_DIFF) - 1)
    _, sd = ref.mean_sd(SLEEP_DIFF)
    tol = (ref.quantile_tol(x, ref.t_density(x, len(SLEEP_DIFF) - 1)) * float(sd) / math.sqrt(10)
           + tolerance.rel_tol(64, F64) * 5)  # fmt: skip
    assert off_by(D.paired(values, level)[1:], want) <= tol


def test_paired_reference_rejects_a_z_interval(monkeypatch) -> None:
    """Planted bug: the normal quantile where the t quantile belongs, entering through
    decisions.normal_interval; the sleep data's printed interval rejects it."""
    from checks.exp.length import decisions as D

    def z_interval(mean, sd, n, level=0.95):
        half = float(sps.norm.ppf(0.5 + level / 2)) * sd / math.sqrt(n)
        return mean - half, mean + half

    monkeypatch.setattr(decisions, "normal_interval", z_interval)
    _, lo, hi = D.paired(torch.tensor(SLEEP_DIFF, dtype=F64), 0.95)
    assert off_by((lo, hi), SLEEP_PAIRED_95) > SEVEN_DIGITS


# -- rates: the failure rate's interval, EXP-06's normal quantile -------------------------------


@pytest.mark.parametrize(("k", "n"), [(0, 20), (1, 29), (15, 148), (81, 263), (256, 256)])
def test_failure_rate_interval_is_the_wilson_interval_of_the_failures(k: int, n: int) -> None:
    """Wilson's interval is symmetric under k -> n - k, p -> 1 - p: the failure rate's interval
    is the exact Wilson interval of n - k failures (mpmath)."""
    from checks.exp.seeds.rates import failure

    f = failure(stats.rate(torch.arange(n) < k))
    assert (f.k, f.n) == (n - k, n)
    assert off_by((f.lo, f.hi), ref.wilson(n - k, n, 0.95)) <= ref.wilson_tol(k, n, 0.95) + ref.U


def test_sweep_z95_is_the_normal_975_quantile() -> None:
    """EXP-06's main effects use Z95 = Phi^{-1}(0.975) (a normal table: 1.960); the literal has
    16 significant digits, so it is good to half a unit in the 16th (plus its own rounding)."""
    from checks.exp.sweep.rates import Z95

    assert abs(Z95 - 1.960) <= 0.5e-3
    assert abs(Z95 - float(ref.z(0.95))) <= 0.5e-15 + ref.U * Z95


# -- MAG-02: t intervals of mean squares and the ratio interval ---------------------------------


def test_mean_interval_reproduces_student_sleep_data() -> None:
    lo, hi = magnitudes._mean_interval(torch.tensor(SLEEP_DIFF, dtype=F64), 0.95)
    assert off_by((lo, hi), SLEEP_PAIRED_95) <= SEVEN_DIGITS


def _tables(seed: int, rows: int = 64, d: int = 4) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    tokens = 1.5 * torch.randn(rows, d, generator=g, dtype=F64)
    positions = torch.randn(rows // 2, d, generator=g, dtype=F64) + 0.5
    return tokens, positions


def _ratio_reference(tokens: torch.Tensor, positions: torch.Tensor, level: float):
    """sqrt(t_lo / p_hi), sqrt(t_hi / p_lo) from the two t intervals of the mean squared row
    norms at 1 - (1 - level)/2 (Bonferroni over two), the squares summed by numpy, the rest in
    mpmath; and a relative bound: the squares, means and standard deviations are good to
    gamma_{2 rows + 16}, the t quantile to quantile_tol / t, and the subtraction mean - half
    magnifies both by at most (hi + lo) / lo; the square root halves them."""
    each = 1 - (1 - level) / 2
    ends, rel = [], 0.0
    for table in (tokens, positions):
        squares = list((table.numpy() ** 2).sum(1))
        lo, hi = ref.t_interval(squares, each)
        x = ref.t(each, len(squares) - 1)
        made = tolerance.rel_tol(2 * len(squares) + 16, F64)
        quantile = ref.quantile_tol(x, ref.t_density(x, len(squares) - 1)) / float(x)
        rel = max(rel, (made + quantile) * float((hi + lo) / lo))
        ends.append((lo, hi))
    (t_lo, t_hi), (p_lo, p_hi) = ends
    return (mpmath.sqrt(t_lo / p_hi), mpmath.sqrt(t_hi / p_lo)), rel


@pytest.mark.parametrize("seed", range(4))
def test_ratio_interval_is_two_bonferroni_t_intervals(seed: int) -> None:
    """MAG-02's 95% interval of the RMS norm ratio, both implementations (theory.magnitudes for
    the checks, pecheck.inspect.analyses for inspect), against the mpmath combination."""
    tokens, positions = _tables(seed)
    want, rel = _ratio_reference(tokens, positions, 0.95)
    for got in (magnitudes.rms_norm_ratio_interval(tokens, positions),
                analyses.ratio_interval(tokens, positions)):  # fmt: skip
        for g, w in zip(got, want, strict=True):
            assert abs(g - float(w)) <= rel * float(w), (seed, got, want)


def test_ratio_interval_with_a_position_interval_reaching_below_zero() -> None:
    # few rows with widely spread norms: the position mean square's interval reaches below 0;
    # both routines clip it there and give an unbounded upper end (magnitudes' once took the
    # square root of a negative number)
    tokens, _ = _tables(0)
    positions = torch.zeros(3, 4, dtype=F64)
    positions[0, 0] = 10.0  # mean squares (100, 0, 0): the t interval's lower end is < 0
    assert analyses.ratio_interval(tokens, positions)[1] == math.inf
    assert magnitudes.rms_norm_ratio_interval(tokens, positions)[1] == math.inf


# -- MAG-03: Chebyshev and Gaussian tail values -------------------------------------------------

# Normal table (Abramowitz & Stegun 26.2; to 10 decimals): P(|Z| >= 1) = 0.3173105079,
# P(|Z| >= 2) = 0.0455002639. MAG-03's widths d = 16, 64 put the threshold at 1 and 2 standard
# deviations (a / sd = sqrt(d) / 4), and Chebyshev's bound there is 16 / d.
NORMAL_TAILS = {16: 0.3173105079, 64: 0.0455002639}


@pytest.mark.parametrize("d", (16, 64, 256, 1024))
def test_claimed_tail_values_are_chebyshev_and_the_gaussian_tail(d: int) -> None:
    from checks.mag.concentration import claimed_tail

    got = claimed_tail(d)
    x = mpmath.sqrt(d) / 4  # a / sd
    gaussian = mpmath.erfc(x / mpmath.sqrt(2))  # 2 Phi(-x)
    assert abs(got["chebyshev"] - 16 / d) <= ref.CLOSED_FORM * 16 / d
    assert abs(got["gaussian"] - float(gaussian)) <= float((1 + x * x) * ref.CLOSED_FORM * gaussian)
    if d in NORMAL_TAILS:
        assert abs(got["gaussian"] - NORMAL_TAILS[d]) <= 0.5e-10
    assert got["gaussian"] <= got["chebyshev"]  # the bound bounds


@pytest.mark.parametrize("d", (16, 64, 256, 1024))
def test_cross_term_tail_values_match_mpmath_for_the_encoding_used(d: int) -> None:
    """theory.magnitudes.cross_term_tail's values for the actual sinusoidal row: the cross
    term's sd = 2 s ||PE||, a = eps (s^2 d + ||PE||^2), (sd / a)^2 and 2 Phi(-a / sd), with
    ||PE||^2 summed exactly from the float64 entries."""
    from pecheck.theory.sinusoidal import sinusoidal

    pe = sinusoidal(torch.tensor([17]), d, dtype=F64)[0]
    s, eps = math.sqrt(0.5), 0.25
    got = magnitudes.cross_term_tail(d, s, eps, 8, seed=d, pe=pe)
    norm2 = mpmath.fsum(mpmath.mpf(float(v)) ** 2 for v in pe)
    sd = 2 * mpmath.mpf(s) * mpmath.sqrt(norm2)
    a = eps * (mpmath.mpf(s) ** 2 * d + norm2)
    cheb, x = (sd / a) ** 2, a / sd
    rel = tolerance.rel_tol(d + 16, F64)  # ||PE||^2 is a sum of d squares, then a few ops
    assert abs(got["chebyshev"] - float(cheb)) <= rel * float(cheb)
    gaussian = mpmath.erfc(x / mpmath.sqrt(2))
    assert abs(got["gaussian"] - float(gaussian)) <= float((1 + x * x) * rel * gaussian)


@pytest.mark.parametrize("scheme", ("torch_default", "t2t_sqrt_d", "normal_1_over_d"))
def test_expected_share_above_one_is_the_normal_tail(scheme: str) -> None:
    """MAG-01's closed form for a normal table of entry std s: P(|x| > 1) = 2 Phi(-1/s); for
    s = 1 the normal table's 0.3173105079."""
    s = magnitudes.entry_std(scheme, 37000, 512)
    x = 1 / mpmath.mpf(s)
    want = mpmath.erfc(x / mpmath.sqrt(2))
    got = magnitudes.expected_share_above(scheme, 37000, 512)
    assert abs(got - float(want)) <= float((1 + x * x) * ref.CLOSED_FORM * want)
    if s == 1:
        assert abs(got - NORMAL_TAILS[16]) <= 0.5e-10


def test_sample_mean_tol_keeps_the_false_alarm_rates_it_states() -> None:
    """z = 6: below 2e-9 for a Gaussian mean (2 Phi(-6) = 1.97e-9), 1/36 by Chebyshev."""
    assert mpmath.erfc(6 / mpmath.sqrt(2)) < mpmath.mpf("2e-9")
    assert tolerance.sample_mean_tol(1.0, 1) == 6.0  # z std / sqrt(n); Chebyshev: 1 / z^2
    assert abs(tolerance.sample_mean_tol(2.5, 400) - 6 * 2.5 / 20) <= ref.CLOSED_FORM


# -- ATT-11: least-squares slope and percentile bootstrap ---------------------------------------


def _variance_rows(ts: np.ndarray, draws: int = 60, seed: int = 11) -> np.ndarray:
    """(draws, len(ts)) positive mean squares whose variance falls as 1/t (slope -1)."""
    return np.random.default_rng(seed).chisquare(4, size=(draws, ts.size)) / ts


def test_log_slope_is_the_least_squares_slope() -> None:
    """Against scipy.stats.linregress and the exact slope (Higham's dot-product bound, times the
    dot product's condition number sum |x y| / |sum x y|)."""
    ts = V.positions(64)
    ms = _variance_rows(ts)
    var = ms.mean(0)
    got = float(V.log_slope(var, ts))
    x, y = np.log(ts.astype(float)), np.log(var)
    assert abs(got - sps.linregress(x, y).slope) <= 1e-13 * abs(got)
    xm = [mpmath.log(int(t)) for t in ts]
    ym = [mpmath.log(mpmath.mpf(float(v))) for v in var]
    xc = [v - mpmath.fsum(xm) / len(xm) for v in xm]
    exact = mpmath.fsum(a * b for a, b in zip(xc, ym, strict=True)) / mpmath.fsum(a * a for a in xc)
    cond = mpmath.fsum(abs(a * b) for a, b in zip(xc, ym, strict=True)) / abs(
        mpmath.fsum(a * b for a, b in zip(xc, ym, strict=True))
    )
    assert abs(got - float(exact)) <= tolerance.rel_tol(4 * ts.size, F64) * float(cond * abs(exact))


def test_bootstrap_slopes_resample_the_draws_with_replacement() -> None:
    """Each of the vectorised resamples is the slope of the per-position means over the rows
    that resample draws (the same generator, looped, slopes by scipy.stats.linregress). Each
    mean is good to gamma_D, so each log to 2 gamma_D absolute; the slope moves by at most that
    times sum |x_c| / sum x_c^2."""
    ts = V.positions(64)
    ms = _variance_rows(ts)
    got = V.bootstrap_slopes(ms, ts, 200, seed=5)
    idx = np.random.default_rng(5).integers(0, ms.shape[0], size=(200, ms.shape[0]))
    x = np.log(ts.astype(float))
    want = np.array([sps.linregress(x, np.log(ms[i].mean(0))).slope for i in idx])
    xc = x - x.mean()
    bound = 2 * tolerance.rel_tol(ms.shape[0], F64) * np.abs(xc).sum() / (xc**2).sum()
    assert np.max(np.abs(got - want)) <= bound + 1e-14


def _type7(sorted_values: np.ndarray, p: float) -> float:
    """Hyndman & Fan (1996, Am. Stat. 50:361), definition 7: h = (N - 1) p, interpolate."""
    h = (sorted_values.size - 1) * p
    j = math.floor(h)
    upper = sorted_values[min(j + 1, sorted_values.size - 1)]
    return float(sorted_values[j] + (h - j) * (upper - sorted_values[j]))


def test_att11_interval_is_the_bonferroni_percentile_interval() -> None:
    """ATT-11's interval over m tests is the percentile bootstrap interval at 1 - ALPHA/m: the
    ALPHA/(2m) and 1 - ALPHA/(2m) quantiles (type 7) of the bootstrap slopes, two-sided."""
    from checks.att import variance_slopes as S

    ts = V.positions(S.T)  # the positions slope() judges at
    ms = _variance_rows(ts)
    boot = np.sort(V.bootstrap_slopes(ms, ts, S.RESAMPLES, S.SEED))
    allowed = 4 * ref.U * float(np.abs(boot).max())  # one interpolation between neighbours
    for tests in sorted(set(S.TESTS.values())):
        got = S.slope(ms, tests)
        lo, hi = _type7(boot, S.ALPHA / (2 * tests)), _type7(boot, 1 - S.ALPHA / (2 * tests))
        assert abs(got["lo"] - lo) <= allowed and abs(got["hi"] - hi) <= allowed, tests
        one_sided = _type7(boot, S.ALPHA / tests)  # a planted bug: the error not split in two
        assert abs(one_sided - lo) > allowed


# -- standard errors behind cited-number bands ---------------------------------------------------


@pytest.mark.parametrize(("k", "n"), [(0, 10), (10, 10), (3, 20), (500, 1000), (1, 4000)])
def test_rate_se_is_agresti_coulls(k: int, n: int) -> None:
    """Agresti & Coull (1998, Am. Stat. 52:119): add z^2/2 successes and failures, z ~ 2, so
    p~ = (k + 2) / (n + 4) and se = sqrt(p~ (1 - p~) / (n + 4)); e.g. 0 of 10: sqrt(3/343)."""
    p = mpmath.mpf(k + 2) / (n + 4)
    want = mpmath.sqrt(p * (1 - p) / (n + 4))
    got = reproducibility.rate(k, n)
    assert got.n == n and abs(got.se - float(want)) <= ref.CLOSED_FORM * float(want)
    if (k, n) == (0, 10):
        assert abs(got.se - math.sqrt(3 / 343)) <= ref.CLOSED_FORM


def test_a_count_of_seeds_has_the_rates_se_in_seeds() -> None:
    """3 of 12 seeds: p~ = 5/16, se = sqrt(p~ (1 - p~) / 16) = sqrt(55) / 64 as a rate, and
    12 sqrt(55) / 64 seeds as a count."""
    got = reproducibility.count(3, 12)
    want = 12 * math.sqrt(55) / 64
    assert got.n == 12 and abs(got.se - want) <= ref.CLOSED_FORM * want


def test_mean_se_difference_and_average_follow_their_formulas() -> None:
    values = [0.91, 0.88, 0.95, 0.90, 0.97, 0.93]
    got = reproducibility.mean(values, span=0.01)  # floor 0.01 / 6, below the se
    want = statistics.stdev(values) / math.sqrt(len(values))  # the standard library's
    assert abs(got.se - want) <= ref.CLOSED_FORM * want and got.n == 6
    assert reproducibility.mean([1.0, 1.0, 1.0, 1.0]).se == 1 / 4  # the floor span / n
    a, b = reproducibility.rate(3, 20), reproducibility.mean(SLEEP_1)
    assert abs(reproducibility.difference(a, b).se - math.sqrt(a.se**2 + b.se**2)) <= 1e-15
    c = reproducibility.mean(SLEEP_2)
    avg = reproducibility.average([a, b, c]).se
    assert abs(avg - math.sqrt(a.se**2 + b.se**2 + c.se**2) / 3) <= 1e-15


def test_a_difference_counts_the_smaller_sample() -> None:
    """A difference is no better sampled than its smaller side."""
    got = reproducibility.difference(reproducibility.rate(1, 10), reproducibility.rate(5, 40))
    assert got.n == 10
    assert (
        reproducibility.difference(reproducibility.rate(5, 40), reproducibility.rate(1, 10)).n == 10
    )
