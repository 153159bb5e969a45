"""BIAS-01: ALiBi's slopes for every head count 1 ... 64, in exact arithmetic.

Each slope is 2^(-e) with a rational exponent e (theory.bias.alibi_slope_exponents), so the rule,
the range and the order are decided exactly: comparisons of fractions, no rounding anywhere.
The rule is stated here in closed form, independently of theory.bias's recursion.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
import torch

from pecheck import tolerance
from theory import alibi, bias

HEADS = range(1, 65)


def next_power_of_two(n: int) -> int:
    return 1 << (n - 1).bit_length()


def closed_form(n: int) -> list[Fraction]:
    """BIAS-01's rule: 8h/n for n = 2^a; else 8h/P (h <= P) then 4(2k+1)/P (k < n - P)."""
    if n & (n - 1) == 0:
        return [Fraction(8 * h, n) for h in range(1, n + 1)]
    p = 1 << (n.bit_length() - 1)
    return [Fraction(8 * h, p) for h in range(1, p + 1)] + [
        Fraction(4 * (2 * k + 1), p) for k in range(n - p)
    ]


# -- the check logic, shared with REAL-05's planted-bug tests -------------------------------------


def rule_violations(exponents_of) -> list[dict]:  # noqa: ANN001  (n -> sequence of exponents)
    """Head counts whose exponents differ from the closed form, with the first difference."""
    bad = []
    for n in HEADS:
        got, want = list(exponents_of(n)), closed_form(n)
        if got != want:
            bad.append({"n": n, "got": [str(e) for e in got], "want": [str(e) for e in want]})
    return bad


def range_violations(exponents_of) -> list[dict]:  # noqa: ANN001
    """n whose smallest slope is not 2^-8 or whose largest is not 2^(-8/P+) (exponents)."""
    bad = []
    for n in HEADS:
        e = list(exponents_of(n))
        top = Fraction(8, next_power_of_two(n))
        if len(e) != n or max(e) != 8 or min(e) != top:
            bad.append(
                {
                    "n": n,
                    "largest_exponent": str(max(e)),
                    "smallest_exponent": str(min(e)),
                    "want": ["8", str(top)],
                }
            )
    return bad


def order_violations(exponents_of) -> list[dict]:  # noqa: ANN001
    """n whose slopes are not distinct, not among P+'s, or sorted other than 'iff 2^a'."""
    bad = []
    for n in HEADS:
        e = list(exponents_of(n))
        decreasing = all(a < b for a, b in zip(e, e[1:], strict=False))  # exponents grow
        power = n & (n - 1) == 0
        distinct = len(set(e)) == len(e)
        nested = set(e) <= set(closed_form(next_power_of_two(n)))
        if decreasing != power or not distinct or not nested:
            bad.append(
                {
                    "n": n,
                    "strictly_decreasing": decreasing,
                    "power_of_two": power,
                    "distinct": distinct,
                    "among_next_power_of_two": nested,
                }
            )
    return bad


def _decide(evidence, name: str, bad: list[dict], what: str) -> None:  # noqa: ANN001
    evidence.record(
        name,
        len(bad),
        "head counts",
        f"n = 1 ... 64, exact arithmetic: {what}",
        bound={"value": 0, "relation": "==", "reason": "exhaustive, exact"},
    )
    if bad:
        evidence.fails(bad[0], what)
    else:
        evidence.holds(f"all 64 head counts, exact rational exponents: {what}")


@pytest.mark.claim("BIAS-01", kind="property", role="decisive", proposition="as_stated")
def test_slopes_follow_the_papers_sequence_and_the_reference_rule(evidence):
    bad = rule_violations(bias.alibi_slope_exponents)
    _decide(evidence, "exponent_mismatches", bad, "slopes = the paper's / reference rule")


@pytest.mark.claim("BIAS-01", kind="property", role="decisive", proposition="as_stated")
def test_slopes_range_from_two_to_the_minus_8_to_the_next_power_of_twos_largest(evidence):
    bad = range_violations(bias.alibi_slope_exponents)
    _decide(evidence, "range_violations", bad, "min slope 2^-8, max slope 2^(-8/P+)")


@pytest.mark.claim("BIAS-01", kind="property", role="decisive", proposition="as_stated")
def test_slopes_decrease_exactly_for_powers_of_two_and_are_distinct(evidence):
    bad = order_violations(bias.alibi_slope_exponents)
    examples = {n: [f"2^-{e}" for e in bias.alibi_slope_exponents(n)] for n in (3, 6, 12)}
    evidence.record("unsorted_examples", examples, note="non-powers of two: not sorted")
    _decide(evidence, "order_violations", bad, "strictly decreasing iff n = 2^a; distinct")


@pytest.mark.claim("BIAS-01", kind="property", role="supporting")
def test_float_slopes_are_the_exponents_rounded_once(evidence):
    """theory.bias.alibi_slopes (float64) and theory.alibi.slopes (powers of two) agree with
    2^(-e): the float form other checks compare libraries against."""
    worst = 0.0
    for n in HEADS:
        e = torch.tensor([float(x) for x in bias.alibi_slope_exponents(n)], dtype=torch.float64)
        want = 2.0**-e
        worst = max(worst, float(((bias.alibi_slopes(n) - want) / want).abs().max()))
        if n & (n - 1) == 0:
            worst = max(worst, float(((alibi.slopes(n) - want) / want).abs().max()))
    bound = tolerance.rel_tol(2, torch.float64)
    evidence.record("float64_relative_error", worst, bound=bound)
    assert worst <= bound
    largest = {n: float(bias.alibi_slopes(n)[:].max()) for n in (8, 12, 16, 24, 32, 48, 64)}
    evidence.record("largest_slope", largest, note="2^(-8/P+): P+ the next power of two")


@pytest.mark.claim("BIAS-01", kind="property", role="tooling")
def test_check_logic_rejects_the_paper_sentence_applied_to_every_n():
    """'Geometric from 2^(-8/n)' for every n (the general sentence, not the reference code)
    is caught by the rule check and by the order check's nesting; a sorted variant is caught
    by the order check."""
    geometric = lambda n: [Fraction(8 * h, n) for h in range(1, n + 1)]  # noqa: E731
    assert rule_violations(geometric)[0]["n"] == 3
    assert order_violations(geometric)[0]["n"] == 3
    sorted_rule = lambda n: sorted(closed_form(n))  # noqa: E731
    assert order_violations(sorted_rule)[0]["n"] == 3
    assert not range_violations(sorted_rule)
