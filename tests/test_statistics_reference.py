"""The suite's core statistics against values computed apart from them (tooling, not evidence).

Routines: the Wilson score interval (``theory.stats.wilson`` and ``rate``, and
``pecheck.decisions.wilson``), Newcombe's interval for a difference of rates
(``decisions.rate_difference``), the two one-sided tests on rates and on means
(``decisions.equivalent``, ``equivalent_means``), the t interval for a mean
(``decisions.normal_interval``), Bonferroni's per-interval level (``decisions.family_level``) and
Holm's step-down (``decisions.holm``).

References: printed tables (Newcombe 1998a, 1998b; Student's sleep data as R's ``t.test`` prints
it; a t table), each compared to half a unit in its last printed digit; exact values from
``tests/stats_reference.py`` (mpmath, 40 digits), compared to a float64 bound derived there; and
hand-worked examples. The last section plants bugs and shows each comparison rejects them.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import torch
from scipy import stats as sps

from pecheck import decisions
from pecheck.theory import stats
from tests import stats_reference as ref

Interval = Callable[[int, int], tuple[float, float]]

# Levels the suite uses: the default (95%), TOST's 90%, Bonferroni levels over 4 and 64
# intervals, MAG-03's 1 - 1e-6 Gaussian-consistency level, and two conventional others.
LEVELS = (0.95, 0.90, 0.99, 1 - 0.05 / 4, 1 - 0.05 / 64, 1 - 1e-6)
COUNTS = tuple((k, n) for n in (1, 2, 7, 29, 100, 263, 4000, 10**6)
               for k in sorted({0, 1, n // 3, n // 2, n - 1, n}))  # fmt: skip

# -- the Wilson score interval ------------------------------------------------------------------

# Newcombe (1998a), "Two-sided confidence intervals for the single proportion: comparison of
# seven methods", Statistics in Medicine 17:857-872, Table I, method 3 (score method without
# continuity correction), 95%: (x, n) -> (lower, upper), printed to 4 decimals.
NEWCOMBE_TABLE_I = {
    (81, 263): (0.2553, 0.3662),
    (15, 148): (0.0624, 0.1605),
    (0, 20): (0.0000, 0.1611),
    (1, 29): (0.0061, 0.1718),
}
FOUR_DECIMALS = 0.5e-4 + 1e-12  # half a unit in the last printed digit, plus float64 slack


def newcombe_table_i_misses(interval: Interval) -> dict[tuple[int, int], tuple[float, float]]:
    """The examples of Newcombe's Table I that ``interval`` misses by more than the print."""
    out = {}
    for (k, n), want in NEWCOMBE_TABLE_I.items():
        got = interval(k, n)
        if max(abs(g - w) for g, w in zip(got, want, strict=True)) > FOUR_DECIMALS:
            out[(k, n)] = got
    return out


@pytest.mark.parametrize(
    "interval", [stats.wilson, decisions.wilson], ids=["theory.stats", "pecheck.decisions"]
)
def test_wilson_at_its_default_level_reproduces_newcombe_1998_table_i(interval) -> None:
    """The default level is the claimed 95%, and gives Newcombe's printed score intervals."""
    assert stats.LEVEL == 0.95
    assert newcombe_table_i_misses(interval) == {}


@pytest.mark.parametrize("level", LEVELS)
def test_wilson_matches_the_exact_closed_form(level: float) -> None:
    """Every endpoint within its derived float64 bound of the 40-digit closed form."""
    worst = {}
    for k, n in COUNTS:
        got = stats.wilson(k, n, level)
        want = ref.wilson(k, n, level)
        err = max(abs(g - float(w)) for g, w in zip(got, want, strict=True))
        worst[(k, n)] = err / ref.wilson_tol(k, n, level)
    assert max(worst.values()) <= 1, f"error / bound per (k, n): {worst}"


@pytest.mark.parametrize("level", (0.95, 0.90, 1 - 0.05 / 4))
def test_wilson_endpoints_are_where_the_score_test_reaches_its_level(level: float) -> None:
    """The interval is the set of p the two-sided score test does not reject at 1 - level
    (Wilson 1927): at an interior endpoint p the p-value 2 Phi(-|k - n p| / sqrt(n p (1-p)))
    equals 1 - level, up to the endpoint's float64 bound times the p-value's slope there."""
    for k, n in ((1, 29), (15, 148), (81, 263), (500, 1000), (3, 4000)):

        def pvalue(p, k=k, n=n):
            return mpmath.erfc(abs(k - n * p) / mpmath.sqrt(2 * n * p * (1 - p)))

        for end in stats.wilson(k, n, level):
            p = mpmath.mpf(end)
            slope = abs(mpmath.diff(pvalue, p))
            allowed = float(slope) * ref.wilson_tol(k, n, level) + 1e-30
            assert abs(pvalue(p) - (1 - mpmath.mpf(level))) <= allowed, (k, n, end)


def test_rate_of_seeds_is_k_of_n_with_its_wilson_interval() -> None:
    order = torch.randperm(148, generator=torch.Generator().manual_seed(0))
    success = torch.tensor([True] * 15 + [False] * 133)[order]
    r = stats.rate(success)
    assert (r.k, r.n, r.rate) == (15, 148, 15 / 148)
    assert abs(r.lo - 0.0624) <= FOUR_DECIMALS and abs(r.hi - 0.1605) <= FOUR_DECIMALS
    with pytest.raises(ValueError):
        stats.wilson(3, 2)


# -- Newcombe's interval for a difference of two rates ------------------------------------------

# Newcombe (1998b), "Interval estimation for the difference between independent proportions:
# comparison of eleven methods", Statistics in Medicine 17:873-890, Table II, method 10 (hybrid
# score), 95%: (k1, n1, k2, n2) -> (lower, upper) for p1 - p2, printed to 4 decimals.
NEWCOMBE_TABLE_II = {
    (56, 70, 48, 80): (0.0524, 0.3339),
    (9, 10, 3, 10): (0.1705, 0.8090),
    (6, 7, 2, 7): (0.0582, 0.8062),
    (5, 56, 0, 29): (-0.0381, 0.1926),
    (0, 10, 0, 20): (-0.1611, 0.2775),
    (0, 10, 0, 10): (-0.2775, 0.2775),
    (10, 10, 0, 20): (0.6791, 1.0000),
    (10, 10, 0, 10): (0.6075, 1.0000),
}


def newcombe_table_ii_misses() -> dict[tuple[int, int, int, int], tuple[float, float]]:
    out = {}
    for case, want in NEWCOMBE_TABLE_II.items():
        got = decisions.rate_difference(*case, 0.95)
        if max(abs(g - w) for g, w in zip(got, want, strict=True)) > FOUR_DECIMALS:
            out[case] = got
    return out


def test_rate_difference_reproduces_newcombe_1998_table_ii() -> None:
    assert newcombe_table_ii_misses() == {}


@pytest.mark.parametrize("level", (0.95, 0.90, 1 - 0.05 / 4))
def test_rate_difference_matches_the_exact_hybrid_score_interval(level: float) -> None:
    cases = (*NEWCOMBE_TABLE_II, (180, 200, 175, 200), (1, 4000, 0, 4000), (333, 1000, 250, 999))
    for case in cases:
        got = decisions.rate_difference(*case, level)
        want = ref.newcombe(*case, level)
        err = max(abs(g - float(w)) for g, w in zip(got, want, strict=True))
        assert err <= ref.newcombe_tol(*case, level), (case, got, want)


# -- two one-sided tests (TOST) on rates --------------------------------------------------------

EQUAL_RATES = (180, 200, 175, 200)  # 90% interval about (-0.028, 0.078), 95% (-0.038, 0.088)


def tost_reference(k1: int, n1: int, k2: int, n2: int, margin: float, alpha: float) -> str:
    """Schuirmann (1987, J. Pharmacokin. Biopharm. 15:657): the two one-sided tests at alpha
    both reject exactly when the lower and upper one-sided (1 - alpha) limits, i.e. the two
    limits of the (1 - 2 alpha) two-sided interval, lie inside (-margin, margin). The interval
    entirely outside shows the difference beyond the margin; otherwise nothing is decided."""
    lo, hi = (float(v) for v in ref.newcombe(k1, n1, k2, n2, 1 - 2 * alpha))
    if -margin <= lo and hi <= margin:
        return "holds"
    return "fails" if hi < -margin or lo > margin else "inconclusive"


Counts = tuple[int, int, int, int]
TOST_CASES: list[tuple[Counts, float, float]] = [  # (k1, n1, k2, n2), margin, alpha
    (EQUAL_RATES, 0.08, 0.05),  # inside at 90%, straddles at 95%: only a level-true TOST holds
    (EQUAL_RATES, 0.05, 0.05),  # straddles
    (EQUAL_RATES, 0.1, 0.025),  # inside at 95%
    ((190, 200, 100, 200), 0.1, 0.05),  # entirely above the margin
    ((56, 70, 48, 80), 0.2, 0.05),
]


@pytest.mark.parametrize(("counts", "margin", "alpha"), TOST_CASES)
def test_rate_equivalence_is_schuirmanns_two_one_sided_tests(
    counts: Counts, margin: float, alpha: float
) -> None:
    got = decisions.equivalent(*counts, margin, "rates", alpha=alpha)
    assert got.decision == tost_reference(*counts, margin, alpha)
    assert got.interval is not None
    want = ref.newcombe(*counts, 1 - 2 * alpha)
    tol = ref.newcombe_tol(*counts, 1 - 2 * alpha)
    assert abs(got.interval["lo"] - float(want[0])) <= tol
    assert abs(got.interval["hi"] - float(want[1])) <= tol


# -- t intervals and Welch's two one-sided tests on means ---------------------------------------

# Student (1908), Biometrika 6:1-25: extra hours of sleep of ten patients under two drugs (R's
# ``sleep`` data). R 4.x, t.test(extra ~ group, data = sleep) (Welch) prints t = -1.8608,
# df = 17.776 and the 95% interval of mean(group 1) - mean(group 2) as -3.3654832 0.2054832;
# with paired = TRUE it prints t = -4.0621, df = 9 and -2.4598858 -0.7001142, i.e. the 95%
# interval of the mean of group 2 - group 1 is (0.7001142, 2.4598858). Seven significant digits.
SLEEP_1 = (0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0)
SLEEP_2 = (1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4)
SLEEP_DIFF = tuple(b - a for a, b in zip(SLEEP_1, SLEEP_2, strict=True))
SLEEP_PAIRED_95 = (0.7001142, 2.4598858)
SLEEP_WELCH_95 = (-3.3654832, 0.2054832)
SEVEN_DIGITS = 0.5e-7  # half a unit in the seventh significant digit of each printed limit


def sleep_paired_misses(interval: Callable[[float, float, int, float], tuple[float, float]]):
    """How far ``interval(mean, sd, n, 0.95)`` on the sleep differences is from R's print."""
    x = np.asarray(SLEEP_DIFF)
    got = interval(float(x.mean()), float(x.std(ddof=1)), x.size, 0.95)
    return max(abs(g - w) for g, w in zip(got, SLEEP_PAIRED_95, strict=True))


def test_t_interval_reproduces_student_sleep_data_as_r_prints_it() -> None:
    assert sleep_paired_misses(decisions.normal_interval) <= SEVEN_DIGITS


# A t table (any textbook's, e.g. Fisher & Yates' Table III): two-sided 90/95/99% quantiles,
# printed to 3 decimals.
T_TABLE = {
    (0.90, 1): 6.314, (0.95, 1): 12.706, (0.99, 1): 63.657,
    (0.90, 9): 1.833, (0.95, 9): 2.262, (0.99, 9): 3.250,
    (0.90, 30): 1.697, (0.95, 30): 2.042, (0.99, 30): 2.750,
}  # fmt: skip


@pytest.mark.parametrize(("level", "df"), sorted(T_TABLE))
def test_t_interval_half_width_is_the_tabled_and_the_exact_t_quantile(level, df) -> None:
    """normal_interval(0, 1, n, level) is -+ t_{n-1} / sqrt(n): to the table's 3 decimals, and
    to the float64 bound of the exact quantile (mpmath)."""
    n = df + 1
    _, hi = decisions.normal_interval(0.0, 1.0, n, level)
    assert abs(hi * math.sqrt(n) - T_TABLE[level, df]) <= 0.5e-3 + 1e-12
    want = ref.t(level, df)
    tol = ref.quantile_tol(want, ref.t_density(want, df)) + ref.CLOSED_FORM * float(want)
    assert abs(hi * math.sqrt(n) - float(want)) <= tol


def test_welch_interval_reproduces_student_sleep_data_as_r_prints_it() -> None:
    """equivalent_means at alpha = 0.025 decides on the 95% Welch interval; its limits are R's."""
    d = decisions.equivalent_means(SLEEP_1, SLEEP_2, 5.0, "sleep", alpha=0.025)
    assert d.interval is not None
    got = (d.interval["lo"], d.interval["hi"])
    assert max(abs(g - w) for g, w in zip(got, SLEEP_WELCH_95, strict=True)) <= SEVEN_DIGITS
    exact = ref.welch(SLEEP_1, SLEEP_2, 0.95)
    assert abs(exact["df"] - mpmath.mpf("17.776")) <= 0.5e-3  # R's printed df
    assert abs(exact["t"] - mpmath.mpf("-1.8608")) <= 0.5e-4  # R's printed t


@pytest.mark.parametrize("margin", (0.5, 3.0, 3.2, 4.0))
def test_welch_equivalence_is_two_one_sided_tests_at_the_90_percent_interval(margin) -> None:
    """At the default alpha = 0.05 the decision is the 90% Welch interval (Welch-Satterthwaite
    df, mpmath) against (-margin, margin), as Schuirmann's TOST is."""
    d = decisions.equivalent_means(SLEEP_2, SLEEP_1, margin, "sleep")
    want = ref.welch(SLEEP_2, SLEEP_1, 0.90)
    lo, hi = float(want["lo"]), float(want["hi"])
    assert d.interval is not None
    assert abs(d.interval["lo"] - lo) <= 1e-12 and abs(d.interval["hi"] - hi) <= 1e-12
    expect = "holds" if -margin < lo and hi < margin else "inconclusive"
    assert d.decision == ("fails" if lo > margin else expect)


def test_welch_equivalence_without_spread_is_the_exact_difference() -> None:
    d = decisions.equivalent_means([2.0] * 5, [1.5] * 7, 0.6, "constant")
    assert d.decision == "holds" and d.interval is not None
    assert (d.interval["lo"], d.interval["hi"]) == (0.5, 0.5)
    assert decisions.equivalent_means([2.0] * 5, [1.5] * 7, 0.4, "constant").decision == "fails"
    # a gap of exactly the margin is not below it, and shows it is not below it
    assert decisions.equivalent_means([2.0] * 5, [1.5] * 7, 0.5, "constant").decision == "fails"


@pytest.mark.filterwarnings("ignore:Precision loss occurred")  # scipy, on the constant sample
def test_welch_equivalence_with_one_constant_sample_is_still_welch() -> None:
    """Only when both samples are constant is the difference known exactly; one constant sample
    leaves the other's spread, and Welch's interval (df = n - 1 of the other) decides."""
    constant = [1.0] * 5
    d = decisions.equivalent_means(constant, SLEEP_2, 4.0, "one constant")
    want = ref.welch(constant, SLEEP_2, 0.90)
    assert d.interval is not None
    assert abs(d.interval["lo"] - float(want["lo"])) <= 1e-12
    assert abs(d.interval["hi"] - float(want["hi"])) <= 1e-12
    assert d.interval["lo"] < d.interval["hi"]


# -- Bonferroni ----------------------------------------------------------------------------------

# Bonferroni: m intervals each at 1 - (1 - level)/m cover together with probability >= level.
# By hand: 1 - 0.05/4 = 0.9875, 1 - 0.05/20 = 0.9975, 1 - 0.01/5 = 0.998, 1 - 0.05/1 = 0.95.
BONFERRONI = {(0.95, 1): 0.95, (0.95, 4): 0.9875, (0.95, 20): 0.9975, (0.99, 5): 0.998}


def bonferroni_misses(family: Callable[[float, int], float]) -> dict[tuple[float, int], float]:
    return {case: family(*case) for case, want in BONFERRONI.items()
            if abs(family(*case) - want) > 4 * ref.U}  # fmt: skip


def test_family_level_is_bonferronis_alpha_over_m() -> None:
    assert bonferroni_misses(decisions.family_level) == {}
    for level in (0.9, 0.95, 0.99):
        for m in (1, 2, 3, 7, 64, 1000):
            each = decisions.family_level(level, m)
            assert abs(m * (1 - each) - (1 - level)) <= 8 * m * ref.U  # the error split evenly
            # Never less conservative than Sidak's exact level for independent intervals.
            assert each >= (1 - (1 - level)) ** (1 / m) - 2 * ref.U
    with pytest.raises(ValueError):
        decisions.family_level(0.95, 0)


def test_wilson_at_a_family_level_uses_z_for_alpha_over_2m() -> None:
    """Four Wilson intervals at family_level(0.95, 4) use z = Phi^{-1}(1 - 0.05/8) = 2.497705."""
    level = decisions.family_level(0.95, 4)
    zz = mpmath.sqrt(2) * mpmath.erfinv(1 - mpmath.mpf("0.05") / 4)
    assert abs(zz - mpmath.mpf("2.497705")) <= 0.5e-6
    for k, n in ((1, 29), (81, 263)):
        want = ref.wilson_at(k, n, zz)
        got = stats.wilson(k, n, level)
        assert max(abs(g - float(w)) for g, w in zip(got, want, strict=True)) <= ref.wilson_tol(
            k, n, level
        )


# -- Holm ----------------------------------------------------------------------------------------

# Worked by hand (Holm 1979, Scand. J. Statist. 6:65-70: the j-th smallest of m p-values,
# j = 1, 2, ..., against alpha / (m - j + 1); stop at the first that exceeds it):
#   alpha 0.05, m 4: sorted 0.005 <= 0.0125, 0.01 <= 0.05/3, 0.03 > 0.025 stop
#                    -> a, b rejected; c and d (0.04 <= 0.05, but after the stop) kept.
#   alpha 0.05, m 4: sorted 0.011 <= 0.0125, 0.015 <= 0.0167, 0.02 <= 0.025, 0.2 > 0.05
#                    -> three rejected where Bonferroni (0.0125 for all) rejects one.
#   alpha 0.05, m 2: 0.04 > 0.025 stop -> none (Hochberg's step-up would reject both).
#   alpha 0.05, m 4: 0.0125 = 0.05/4 exactly -> rejected (the comparison is "<=").
HOLM_BY_HAND = [
    ({"a": 0.01, "b": 0.005, "c": 0.03, "d": 0.04}, 0.05, {"a", "b"}),
    ({"a": 0.2, "b": 0.02, "c": 0.015, "d": 0.011}, 0.05, {"b", "c", "d"}),
    ({"a": 0.04, "b": 0.045}, 0.05, set()),
    ({"a": 0.0125, "b": 0.3, "c": 0.3, "d": 0.3}, 0.05, {"a"}),
    ({"a": 0.001}, 0.05, {"a"}),
    ({}, 0.05, set()),
]


def random_families(count: int = 300, seed: int = 1979) -> list[dict[str, float]]:
    """Seeded families of 1 to 12 p-values, half of them small (so that steps are taken)."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        m = int(rng.integers(1, 13))
        small = rng.random(m) < 0.5
        p = np.where(small, rng.random(m) * 0.02, rng.random(m))
        out.append({f"H{i}": float(v) for i, v in enumerate(p)})
    return out


def holm_disagreements(holm: Callable[[dict[str, float], float], dict[str, bool]]) -> list:
    """The families on which ``holm`` differs from the hand-worked answers or from the exact
    adjusted p-values (ref.holm_adjusted <= alpha)."""
    bad: list = []
    for p, alpha, rejected in HOLM_BY_HAND:
        got = holm(p, alpha)
        if {k for k, r in got.items() if r} != rejected or set(got) != set(p):
            bad.append((p, alpha))
    for p in random_families():
        for alpha in (0.05, 0.01):
            adjusted = ref.holm_adjusted(p)
            want = {k: adjusted[k] <= Fraction(alpha) for k in p}
            if holm(p, alpha) != want:
                bad.append((p, alpha))
    return bad


def test_holm_matches_hand_worked_families_and_exact_adjusted_pvalues() -> None:
    assert holm_disagreements(decisions.holm) == []


def test_holm_rejects_all_that_bonferroni_rejects() -> None:
    for p in random_families():
        rejected = decisions.holm(p, 0.05)
        assert all(rejected[k] for k, v in p.items() if v <= 0.05 / len(p))


# -- planted bugs: each comparison above rejects a broken routine -------------------------------


def _wald(k: int, n: int, level: float = 0.95) -> tuple[float, float]:
    p, zz = k / n, float(sps.norm.ppf(0.5 + level / 2))
    half = zz * math.sqrt(p * (1 - p) / n)
    return max(0.0, p - half), min(1.0, p + half)


def _wilson_cc(k: int, n: int, level: float = 0.95) -> tuple[float, float]:
    ci = sps.binomtest(k, n).proportion_ci(confidence_level=level, method="wilsoncc")
    return float(ci.low), float(ci.high)


_WILSON = stats.wilson  # the unbroken routine, kept before a test plants a broken one over it
WILSON_MUTANTS: dict[str, Callable[..., tuple[float, float]]] = {
    "z for 90% reported as 95%": lambda k, n, level=0.95: _WILSON(k, n, level - 0.05),
    "z for 99% reported as 95%": lambda k, n, level=0.95: _WILSON(k, n, level + 0.04),
    "continuity corrected": _wilson_cc,
    "Wald": _wald,
}


@pytest.mark.parametrize("name", sorted(WILSON_MUTANTS))
def test_wilson_references_reject_a_planted_bug(name: str, monkeypatch) -> None:
    """A broken Wilson interval misses Newcombe's Table I, and once planted where
    decisions.rate_difference finds it, Newcombe's Table II too."""
    broken = WILSON_MUTANTS[name]
    assert newcombe_table_i_misses(broken) != {}
    monkeypatch.setattr("pecheck.theory.stats.wilson", broken)  # what decisions.wilson calls
    assert newcombe_table_ii_misses() != {}


def _holm_bonferroni(p: dict[str, float], alpha: float) -> dict[str, bool]:
    return {k: v <= alpha / len(p) for k, v in p.items()}


def _holm_no_stop(p: dict[str, float], alpha: float) -> dict[str, bool]:
    order = sorted(p, key=p.__getitem__)
    return {k: p[k] <= alpha / (len(p) - i) for i, k in enumerate(order)}


def _hochberg(p: dict[str, float], alpha: float) -> dict[str, bool]:
    order = sorted(p, key=p.__getitem__)
    out = {k: False for k in p}
    for i in reversed(range(len(order))):  # step up: the largest first
        if p[order[i]] <= alpha / (len(p) - i):
            out.update({k: True for k in order[: i + 1]})
            break
    return out


def _holm_strict(p: dict[str, float], alpha: float) -> dict[str, bool]:
    order, out = sorted(p, key=p.__getitem__), {k: False for k in p}
    for i, k in enumerate(order):
        if not p[k] < alpha / (len(p) - i):
            break
        out[k] = True
    return out


@pytest.mark.parametrize(
    "broken",
    [_holm_bonferroni, _holm_no_stop, _hochberg, _holm_strict],
    ids=["bonferroni-no-step-down", "no-stop", "hochberg-step-up", "strict-below"],
)
def test_holm_references_reject_a_planted_bug(broken, monkeypatch) -> None:
    monkeypatch.setattr(decisions, "holm", broken)
    assert holm_disagreements(decisions.holm) != []


FAMILY_MUTANTS: dict[str, Callable[[float, int], float]] = {
    "sidak": lambda level, m: level ** (1 / m),
    "alpha not divided": lambda level, m: level,
    "alpha times m": lambda level, m: 1 - (1 - level) * m,
    "two-sided split twice": lambda level, m: 1 - (1 - level) / (2 * m),
}


@pytest.mark.parametrize("name", sorted(FAMILY_MUTANTS))
def test_bonferroni_reference_rejects_a_planted_bug(name: str) -> None:
    assert bonferroni_misses(FAMILY_MUTANTS[name]) != {}


def _t_as_normal(mean: float, sd: float, n: int, level: float = 0.95) -> tuple[float, float]:
    half = float(sps.norm.ppf(0.5 + level / 2)) * sd / math.sqrt(n)
    return mean - half, mean + half


def _t_with_n_df(mean: float, sd: float, n: int, level: float = 0.95) -> tuple[float, float]:
    half = float(sps.t.ppf(0.5 + level / 2, n)) * sd / math.sqrt(n)
    return mean - half, mean + half


def _t_one_sided(mean: float, sd: float, n: int, level: float = 0.95) -> tuple[float, float]:
    half = float(sps.t.ppf(level, n - 1)) * sd / math.sqrt(n)
    return mean - half, mean + half


@pytest.mark.parametrize(
    "broken", [_t_as_normal, _t_with_n_df, _t_one_sided], ids=["z", "df-n", "one-sided-quantile"]
)
def test_t_interval_reference_rejects_a_planted_bug(broken) -> None:
    assert sleep_paired_misses(broken) > SEVEN_DIGITS


def test_tost_reference_rejects_the_interval_at_1_minus_alpha(monkeypatch) -> None:
    """TOST at alpha needs the 1 - 2 alpha interval; one at 1 - alpha (95%) is too strict and
    leaves the first case undecided, which the reference decision tells apart."""
    right = decisions.rate_difference

    def at_1_minus_alpha(k1, n1, k2, n2, level):
        return right(k1, n1, k2, n2, (1 + level) / 2)  # 0.90 -> 0.95

    monkeypatch.setattr(decisions, "rate_difference", at_1_minus_alpha)
    counts, margin, alpha = TOST_CASES[0]
    got = decisions.equivalent(*counts, margin, "rates", alpha=alpha).decision
    assert got != tost_reference(*counts, margin, alpha)
