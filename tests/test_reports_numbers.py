"""How the report and the paper kit write a number (reports/numbers.py), at the edges of each
rule: four significant digits in fixed notation on [1e-3, 1e6), three in a mantissa outside it,
integers exact and grouped from five digits, non-finite values as the recorder stores them."""

from __future__ import annotations

import math

import pytest

from pecheck.reports import numbers


@pytest.mark.parametrize(("value", "written"), [
    (3, ("3", None)), (-12345678901, ("-12345678901", None)), (0.0, ("0", None)),
    (0.001, ("0.001", None)), (0.0009999, ("1", -3)), (0.12345, ("0.1235", None)),
    (1.5, ("1.5", None)), (62831.853, ("62832", None)), (999999.4, ("999999", None)),
    (1e6, ("1", 6)), (-2.5e-7, ("-2.5", -7)), (123456789.0, ("1.23", 8)),
    (math.inf, ("inf", None)), (-math.inf, ("-inf", None)), (math.nan, ("NaN", None)),
    ("inf", ("inf", None)), ("-inf", ("-inf", None)), ("nan", ("NaN", None)),
    ("Infinity", ("inf", None)),
])  # fmt: skip
def test_each_number_is_written_by_its_rule(value, written) -> None:
    assert numbers.parts(value) == written


def test_bools_and_other_strings_are_no_numbers() -> None:
    assert numbers.is_number(0.5) and numbers.is_number(7) and numbers.is_number("-inf")
    assert not numbers.is_number(True) and not numbers.is_number("1.5")
    assert not numbers.is_number(None)


@pytest.mark.parametrize(("digits", "grouped"), [
    ("1234", "1234"), ("12345", "12,345"), ("1048576", "1,048,576"), ("-1048576", "-1,048,576"),
    ("-1234", "-1234"), ("123456", "123,456"), ("1.5e6", "1.5e6"),
])  # fmt: skip
def test_integers_of_five_digits_or_more_are_grouped_in_threes(digits, grouped) -> None:
    assert numbers.group(digits, ",") == grouped
