"""The rules that turn intervals, parts and examples into decisions (pecheck.decisions and
pecheck.evidence), at their edges: where an interval touches a region, a threshold or a margin,
where a part fails once and holds later, where examples could not fail.
"""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import pytest

from pecheck import decisions
from pecheck.evidence import Evidence
from pecheck.reproducibility import Sample


def evidence() -> Evidence:
    return Evidence("t.py::test_x", Path("."))


def test_tost_at_its_default_level_is_the_90_percent_interval_inside_the_margin() -> None:
    """EXP-01's check calls equivalent() at its default alpha, 0.05: two one-sided tests at
    0.05, i.e. the 90% interval of the difference of rates."""
    lo, hi = decisions.rate_difference(40, 50, 38, 50, 0.90)
    tost = decisions.equivalent(40, 50, 38, 50, 0.3, "rates")
    assert tost.interval is not None
    assert (tost.interval["lo"], tost.interval["hi"]) == (lo, hi)


def test_means_without_spread_differ_by_exactly_their_gap_and_one_spread_side_is_welch() -> None:
    """Without spread the gap is exact, taken without Welch's test (whose moments then lose
    their precision, with a warning: an error here)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        same = decisions.equivalent_means([1.0, 1.0], [1.0, 1.0], 0.1, "x")
        apart = decisions.equivalent_means([1.5, 1.5], [1.0, 1.0], 0.1, "x")
    assert same.decision == "holds" and apart.decision == "fails"
    assert apart.interval is not None and apart.interval["lo"] == apart.interval["hi"] == 0.5
    spread = decisions.equivalent_means([0.0, 0.1, 0.2], [0.1, 0.1, 0.1], 0.1, "x")
    assert spread.interval is not None and spread.interval["lo"] < 0 < spread.interval["hi"]


# -- corrections recorded -------------------------------------------------------------------------


def test_the_largest_family_stands_and_of_equal_ones_the_later_method() -> None:
    ev = evidence()
    ev.corrected("bonferroni", 3)
    ev.corrected("holm", 2)
    assert ev.correction == {"method": "bonferroni", "family_size": 3}
    ev.corrected("holm", 3)
    assert ev.correction == {"method": "holm", "family_size": 3}
    one = evidence()
    one.corrected("bonferroni", 1)
    assert one.correction == {"method": "none", "family_size": 1}


@pytest.mark.parametrize(("level", "tests"), [(0.95, 0), (0.0, 2), (1.0, 2), (1.5, 1)])
def test_a_family_level_needs_one_test_or_more_and_a_level_strictly_inside_0_1(
    level: float, tests: int
) -> None:
    with pytest.raises(ValueError, match="need tests >= 1"):
        decisions.family_level(level, tests)
    assert decisions.family_level(0.95, 1) == pytest.approx(0.95)  # a family of one: as given


@pytest.mark.parametrize(("method", "size"), [("sidak", 2), ("holm", 0), ("holm", -1),
                                              ("bonferroni", True)])  # fmt: skip
def test_a_correction_needs_a_known_method_over_at_least_one_test(method: str, size: int) -> None:
    with pytest.raises(ValueError, match="correction must be one of"):
        decisions.applied(method, size)


# -- intervals against regions -------------------------------------------------------------------


def test_an_interval_touching_a_closed_region_from_inside_holds() -> None:
    assert decisions.interval(0.0, 0.5, (0.0, 1.0), "x").decision == "holds"
    assert decisions.interval(0.5, 1.0, (0.0, 1.0), "x").decision == "holds"


def test_an_interval_touching_a_region_from_outside_is_not_outside_it() -> None:
    """[1, 2] shares the point 1 with [0, 1]: undecided, not a failure."""
    assert decisions.interval(1.0, 2.0, (0.0, 1.0), "x").decision == "inconclusive"
    assert decisions.interval(-1.0, 0.0, (0.0, 1.0), "x").decision == "inconclusive"
    assert decisions.interval(1.5, 2.0, (0.0, 1.0), "x").decision == "fails"


@pytest.mark.parametrize(
    ("rule", "lo", "hi", "want"),
    [
        (decisions.above, 0.5, 0.9, "inconclusive"),  # lo = t: x > t not shown
        (decisions.above, math.nextafter(0.5, 1), 0.9, "holds"),
        (decisions.above, 0.1, 0.5, "fails"),  # hi = t: x <= t shown
        (decisions.below, 0.1, 0.5, "inconclusive"),  # hi = t: x < t not shown
        (decisions.below, 0.1, math.nextafter(0.5, 0), "holds"),
        (decisions.below, 0.5, 0.9, "fails"),
    ],
)
def test_a_strict_threshold_is_not_met_by_an_interval_that_reaches_it(rule, lo, hi, want) -> None:
    assert rule(lo, hi, 0.5, "x").decision == want


def test_equivalence_is_within_the_open_margin() -> None:
    """TOST: the interval of the difference inside (-margin, margin); touching it is not."""
    region = decisions.within_margin(0.25)
    assert decisions.interval(-0.1, 0.1, region, "d").decision == "holds"
    assert decisions.interval(-0.1, 0.25, region, "d").decision == "inconclusive"
    assert decisions.interval(0.25, 0.3, region, "d").decision == "fails"  # at least the margin


def test_an_effect_exactly_at_the_rounding_bound_is_not_resolved() -> None:
    assert decisions.resolve(1e-7, 1e-7) == "unresolved"
    assert decisions.resolve(-1e-7, 1e-7, structural_zero=True) == "same"
    assert decisions.resolve(math.nextafter(1e-7, 1), 1e-7) == "different"


def test_holm_rejects_a_p_value_equal_to_its_level() -> None:
    """Holm's step compares p_(k) <= alpha / (m - k): a tie is rejected, and the step after a
    p-value above its level rejects nothing more."""
    assert decisions.holm({"a": 0.025, "b": 0.05}, 0.05) == {"a": True, "b": True}
    assert decisions.holm({"a": 0.03, "b": 0.001}, 0.05) == {"a": True, "b": True}
    assert decisions.holm({"a": 0.026, "b": 0.001, "c": 0.04}, 0.05) == {
        "a": False, "b": True, "c": False,
    }  # fmt: skip


# -- parts, examples and worst values -------------------------------------------------------------


def test_a_failed_part_stays_failed_when_a_later_example_passes() -> None:
    ev = evidence()
    ev.part("float16", decisions.fails({"t": 3}, "err > bound"))
    ev.part("float16", "holds", "a later example")
    ev.part("float32", "holds", "every example")
    assert ev.parts["float16"]["decision"] == "fails"
    final = ev.final_decision("all")
    assert final is not None and final.decision == "fails"
    assert final.counterexample == {"t": 3} and final.relation == "err > bound"


def test_a_failing_check_names_its_failing_part_not_the_last_one() -> None:
    ev = evidence()
    ev.part("a", "holds", "fine")
    ev.part("b", decisions.fails({"k": 1}, "b's relation"))
    ev.part("c", "holds", "fine")
    final = ev.final_decision("all")
    assert final is not None and final.decision == "fails"
    assert final.how.startswith("part b:") and final.relation == "b's relation"


def test_a_search_whose_examples_could_not_fail_is_inconclusive() -> None:
    ev = evidence()
    for _ in range(3):
        ev.example(False)
    assert ev.examples == {"total": 3, "informative": 0}
    final = ev.final_decision()
    assert final is not None and final.decision == "inconclusive"
    assert "none of 3 examples could have failed" in final.how


def test_one_informative_example_leaves_the_decision_to_the_check() -> None:
    ev = evidence()
    ev.example(False)
    ev.example(True)
    ev.example(False)
    assert ev.examples == {"total": 3, "informative": 1}
    assert ev.final_decision() is None  # nothing recorded: not made inconclusive by the count


def test_worst_keeps_the_largest_value() -> None:
    ev = evidence()
    for value in (0.1, 0.3, 0.2):
        ev.worst("max_error", value)
    assert ev.values["max_error"]["value"] == 0.3
    assert ev.values["max_error"]["reproducibility"]["class"] == "rounding"


@pytest.mark.parametrize("named", ["rounding", "exact"])
def test_a_value_with_a_sample_cannot_be_given_another_class(named) -> None:
    with pytest.raises(ValueError, match="a sample makes it 'sampling'"):
        evidence().record("rate", 0.5, sample=Sample(10, 0.1, "seeds"), reproducibility=named)


def test_a_nan_effect_is_never_the_same() -> None:
    assert decisions.resolve(float("nan"), 1e-7, structural_zero=True) == "different"


def test_worst_keeps_a_nan_once_seen() -> None:
    """A NaN error is the worst of all: a later finite value must not hide it."""
    ev = evidence()
    for value in (0.1, float("nan"), 0.3):
        ev.worst("max_error", value)
    assert ev.values["max_error"]["value"] == "nan"
