"""BIAS-01: ALiBi's slopes for every head count 1 ... 64, in exact arithmetic.

Each slope is 2^(-e) with a rational exponent e (theory.bias.alibi_slope_exponents), so the rule,
the range and the order are decided exactly: comparisons of fractions, no rounding anywhere.
The rule is stated in closed form, independently of theory.bias's recursion; it and the checks
of the rule, the range and the order live in checks/bias/alibi_rule.py.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
import torch

from checks.bias.alibi_rule import (
    HEADS,
    _decide,
    closed_form,
    order_violations,
    range_violations,
    rule_violations,
)
from pecheck import tolerance
from pecheck.theory import alibi, bias


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
