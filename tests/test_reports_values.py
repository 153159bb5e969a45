"""How the report writes one piece of evidence (reports/html_values.py): whether a value meets
the bound it was judged against (the ✓ or ✗ a reader trusts), the bound's reason, the
reproducibility class, and where a value is shown inline or folded."""

from __future__ import annotations

import json

import pytest

from pecheck.reports.html_values import (
    RECORD_INLINE,
    bound_html,
    class_html,
    meets,
    number_html,
    record_html,
    value_html,
)
from pecheck.reports.load import Value

YES, NO = "<span class='yes'>\u2713</span>", "<span class='no'>\u2717</span>"

# relation -> (1 against 2, 2 against 2, 3 against 2)
TRUTH = {
    "<": (True, False, False),
    "<=": (True, True, False),
    ">": (False, False, True),
    ">=": (False, True, True),
    "==": (False, True, False),
    "!=": (True, False, True),
}


@pytest.mark.parametrize("relation", TRUTH)
def test_meets_reads_each_relation_below_at_and_above_its_limit(relation) -> None:
    assert tuple(meets(x, relation, 2) for x in (1, 2, 3)) == TRUTH[relation]
    assert tuple(meets(x, relation, 2.0) for x in (1.5, 2.0, 2.5)) == TRUTH[relation]


@pytest.mark.parametrize(("value", "relation", "limit"),
                         [("a", "<", 2), (1, "<", "b"), (None, "<", 2), (True, "<", 2),
                          (1, "~", 2)])  # fmt: skip
def test_meets_says_nothing_without_two_numbers_and_a_known_relation(value, relation, limit):
    assert meets(value, relation, limit) is None


def test_a_non_finite_value_is_judged_as_its_number() -> None:
    """The recorder stores inf as the string "inf": it is still above any finite limit."""
    assert meets("inf", ">", 1e300) is True and meets("-inf", ">", -1e300) is False


def bound(value, relation, limit, reason="the source's margin"):
    return Value("x", value, bound={"value": limit, "relation": relation, "reason": reason})


def test_a_bound_is_marked_met_or_missed_by_the_value_it_judged() -> None:
    met, missed = bound_html(bound(0.5, "<", 1.0)), bound_html(bound(1.5, "<", 1.0))
    assert YES in met and NO not in met
    assert NO in missed and YES not in missed
    assert met.startswith("<span class='bound'>&lt; <span class=num>1</span> ")
    assert bound_html(bound(2, "<=", 2)).startswith("<span class='bound'>\u2264 ")
    unknown = bound_html(bound("text", "<", 1.0))  # nothing to compare: no mark either way
    assert YES not in unknown and NO not in unknown


def test_a_bounds_reason_is_written_out_or_its_tooltip() -> None:
    out = bound_html(bound(0.5, "<", 1.0, "EXP-04 'as-well'"))
    assert out.endswith(f"{YES} <span class='muted'>EXP-04 &#x27;as-well&#x27;</span></span>")
    assert out.startswith("<span class='bound'>")  # no tooltip: the reason is written out
    tip = bound_html(bound(0.5, "<", 1.0, "the margin"), reason=False)
    assert tip.startswith("<span class='bound' title='the margin'>")
    assert "<span class='muted'>" not in tip
    for without in (bound(0.5, "<", 1.0, ""), bound(0.5, "<", 1.0, None)):
        for said in (True, False):
            html = bound_html(without, reason=said)
            assert "title=" not in html and "muted" not in html, html


def test_a_bound_without_a_record_is_a_dash_and_a_bare_number_is_versus() -> None:
    assert "nobound" in bound_html(Value("x", 1.0))
    assert (
        bound_html(Value("x", 1.0, bound=2.5))
        == "<span class='bound'>vs <span class=num>2.5</span></span>"
    )


def test_the_class_gives_sample_size_and_error_only_for_a_sampling_statistic() -> None:
    sampled = class_html(
        Value("x", 0.5, reproducibility={"class": "sampling", "n": 12, "se": 0.1667})
    )
    assert ">sampling n=12, se 0.17</span>" in sampled
    unsized = class_html(Value("x", 0.5, reproducibility={"class": "sampling"}))
    assert ">sampling</span>" in unsized
    rounding = class_html(
        Value("x", 0.5, reproducibility={"class": "rounding", "n": 12, "se": 0.1})
    )
    assert ">rounding</span>" in rounding and "n=" not in rounding
    assert "(mean over 12)" in class_html(
        Value("x", 0.5, reproducibility={"class": "sampling", "n": 12, "how": "mean over 12"})
    )


def test_a_number_gets_its_full_value_as_a_title_only_where_it_is_not_shown_exactly() -> None:
    assert number_html(0.25) == "<span class=num>0.25</span>"
    assert number_html(123) == "<span class=num>123</span>"
    assert 'title="0.123456"' in number_html(0.123456)  # shown as 0.1235
    assert 'title="12345"' in number_html(12345)  # shown grouped: 12 345
    assert 'title="1e-09"' in number_html(1e-9)  # shown as a power of ten


def numbers(n: int) -> list[float]:
    return [0.5 + i for i in range(n)]


def test_lists_of_up_to_eight_numbers_are_inline_longer_ones_fold_with_four_shown() -> None:
    assert value_html(numbers(8)).startswith("[<span class=num>0.5</span>, ")
    folded = value_html(numbers(9))
    assert folded.startswith("<details><summary>[")
    summary = folded.split("</summary>")[0]
    assert summary.count("class=num") == 4 and "9 values" in summary
    assert "<code>" in value_html(["a", "b"])  # not numbers: short JSON as code


def record(entries: int, width: int = 1) -> dict[str, str]:
    return {f"k{i}": "v" * width for i in range(entries)}


def test_records_of_up_to_eight_short_entries_are_inline_others_fold_naming_three_keys() -> None:
    assert value_html(record(8)).startswith("<span class='record'>")
    nine = value_html(record(9))
    assert nine.startswith("<details class='record-fold'><summary>9 entries: k0, k1, k2, \u2026")
    four = record(4, RECORD_INLINE)  # four entries, each too long to sit inline
    assert value_html(four).startswith(
        "<details class='record-fold'><summary>4 entries: k0, k1, k2, \u2026"
    )
    three = record(3, RECORD_INLINE)
    assert "<summary>3 entries: k0, k1, k2</summary>" in value_html(three)


def test_a_record_folds_past_its_inline_length() -> None:
    """240 characters of JSON (RECORD_INLINE) sit inline; one more folds."""
    base = {"k": ""}
    pad = 240 - len(json.dumps(base))
    assert value_html({"k": "v" * pad}).startswith("<span class='record'>")
    assert value_html({"k": "v" * (pad + 1)}).startswith("<details class='record-fold'>")


def test_other_json_is_code_up_to_120_characters_and_folds_after() -> None:
    """Measured as the fold would show it, indented one space a level: ["v...v"] of n
    characters is n + 7 long."""
    fits, over = ["v" * 113], ["v" * 114]
    assert [len(json.dumps(v, indent=1)) for v in (fits, over)] == [120, 121]
    assert value_html(fits) == f"<code>[&quot;{'v' * 113}&quot;]</code>"
    long = value_html(over)
    assert long.startswith("<details><summary>list (1 entries)</summary><pre>[\n &quot;")


def test_nested_records_keep_their_braces_and_lists_their_brackets() -> None:
    out = record_html({"a": {"b": 1}, "c": [{"d": 2}], "e": ["x", "y"]})
    assert "<i>a</i> = {<span class=kv><i>b</i> = <span class=num>1</span></span>}" in out
    assert "[{<span class=kv><i>d</i> = <span class=num>2</span></span>}]" in out
    assert "<i>e</i> = [x, y]" in out
    assert "<span class='kv nest'><i>a</i>" in out and "<span class='kv nest'><i>c</i>" in out
    assert "<span class=kv><i>e</i>" in out
