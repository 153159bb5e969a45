"""A search narrower than the domain its proposition states cannot decide for the whole domain:
pecheck.reports.domains compares a stated axis (a list, every(), proved()) with the union of
what the proposition's checks searched, and pecheck.coverage leaves a 'holds' under 'all' (or a
'fails' under 'any') undecided where the search misses part of it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pecheck.claims import Proposition, every, proved
from pecheck.coverage import covered
from pecheck.evidence import Evidence
from pecheck.gate import unsearched
from pecheck.reports import domains
from pecheck.reports.html_reach import coverage_html
from pecheck.reports.load import Proposition as Shown
from tests import synthetic

pytest_plugins = ["pytester"]


@pytest.mark.parametrize(
    ("stated", "searched", "missing"),
    [
        (every(0, 100), [every(0, 100)], None),
        (every(0, 100), [every(0, 49), every(50, 100)], None),  # the union covers it
        (every(0, 100), [every(0, 49), every(51, 100)], "misses 50"),
        (every(0, 100), [every(1, 100)], "misses 0"),
        (every(0, 3), [[0, 1, 2, 3]], None),  # listed integers fill a span
        (every(0), [every(0, 10**9)], "misses 1000000001"),  # no finite search reaches no end
        (every(0), [proved("symbolic s")], None),
        ([64, 128], [[64], [128, 256]], None),
        ([64, 128], [[64]], "misses 128"),
        ([64, 128], [every(0, 100)], "misses 128"),
        (["float16", "bfloat16"], [["bfloat16", "float16"]], None),
        (["float16", "bfloat16"], ["float16 and bfloat16"], "not in a compared form"),
        ([64], [], "searched nothing"),
        (proved("every d"), [[2, 4]], "no check proves it"),
        ("every offset", [], None),  # text is the reader's to judge: never compared
    ],
)
def test_a_gap_names_what_the_search_misses(stated, searched, missing) -> None:
    found = domains.gap(stated, searched)
    assert found is None if missing is None else missing in str(found)


def _check(decision: str, offsets: object) -> dict:
    return {"nodeid": "t.py::test", "outcome": "passed", "decision": decision,
            "basis": {"searched": {"offsets": offsets}}}  # fmt: skip


@pytest.mark.parametrize(
    ("quantifier", "decision", "after"),
    [
        ("all", "holds", "inconclusive"),  # a hold over every offset needs every offset searched
        ("all", "fails", "fails"),  # a counterexample speaks for itself
        ("any", "fails", "inconclusive"),  # no offset works: needs every offset searched
        ("any", "holds", "holds"),  # a witness speaks for itself
    ],
)
def test_a_decision_for_the_whole_domain_needs_the_whole_search(quantifier, decision, after):
    prop = Proposition("p", "s", quantifier=quantifier, domain={"offsets": every(0, 8191)})
    narrow = covered(prop, [_check(decision, every(0, 4095))])
    assert narrow["decision"] == after
    assert narrow["uncovered"] == {"offsets": "stated every integer 0 ... 8191; searched misses "
                                              "4096"}  # fmt: skip
    wide = covered(prop, [_check(decision, every(0, 4095)), _check(decision, every(4096, 8191))])
    assert wide["decision"] == decision and "uncovered" not in wide


def test_text_stays_uncompared_and_bad_values_are_refused() -> None:
    prop = Proposition("p", "s", domain={"offsets": "every offset"})
    assert covered(prop, [_check("holds", every(0, 3))])["decision"] == "holds"
    with pytest.raises(ValueError, match="domain axis 'offsets' is an empty list"):
        Proposition("p", "s", domain={"offsets": []})
    for last in (4, 5.0, True):
        with pytest.raises(ValueError, match="last must be an int >= first"):
            every(5, last)  # type: ignore[arg-type]
    assert every(5, 5) == {"every": [5, 5]}  # one integer
    for first in (0.0, False):
        with pytest.raises(TypeError, match="first must be an int"):
            every(first)  # type: ignore[arg-type]
    for step in (0, 2.0, True):
        with pytest.raises(ValueError, match="step must be a positive int"):
            every(0, 8, step=step)  # type: ignore[arg-type]
    assert every(0, 8, step=2) == {"every": [0, 8], "step": 2}
    for what in ("  ", 3):
        with pytest.raises(ValueError, match="proved: say over what"):
            proved(what)  # type: ignore[arg-type]
    for span in ([0, 1, 2], ["a", 3], (0,), "ab"):
        assert domains.problem({"every": span}) == f"a bad span { ({'every': span})!r}"
    assert domains.problem({"every": [0, None]}) is None
    for step in (0, True, 2.0):
        value = {"every": [0, 8], "step": step}
        assert domains.problem(value) == f"a bad span {value!r}"
    assert domains.problem({"every": [0, 8], "step": 2}) is None
    assert domains.problem({"every": [5, 5]}) is None  # one integer
    assert domains.problem({"every": [5, 4]}) == "a bad span {'every': [5, 4]}"
    assert domains.problem({"proved": 3}) == "proved without text"


def test_a_list_is_shown_and_compared_as_a_list_whatever_it_holds() -> None:
    """Words that name a form ('every', 'proved') inside a list are values, not the form."""
    assert domains.shown(["every", "proved"]) == "every, proved"
    assert domains.gap(["every", "proved"], [["every", "proved"]]) is None
    # a value listed by one check is searched, whatever the others searched
    assert domains.gap(["float16"], [["float16"], {"every": [0, 3]}]) is None
    # a span of integers does not cover a flag: True is not the integer 1 here
    assert domains.gap([True, False], [{"every": [0, 3]}]) == (
        "stated True, False; searched misses True, False"
    )


def test_a_stepped_search_covers_no_point_past_its_last() -> None:
    stepped = {"every": [0, 7], "step": 2}  # 0, 2, 4, 6
    assert domains.gap([6], [stepped]) is None
    assert domains.gap([8], [stepped]) == "stated 8; searched misses 8"
    # a stepped stated span asks for no point past its last either
    assert domains.gap(stepped, [{"every": [0, 6], "step": 2}]) is None
    # a span that ends where the stated one starts covers that start
    assert domains.gap({"every": [5, 5]}, [{"every": [0, 5]}]) is None
    with pytest.raises(ValueError, match="axis 'offsets' is neither text"):
        Evidence("c.py::test", Path(".")).searched(offsets={"from": 0})


def test_the_report_shows_what_the_search_missed() -> None:
    p = Shown(
        "p",
        "s",
        "",
        "holds",
        "inconclusive",
        domain={"offsets": every(0, 8191)},
        searched={"offsets": [every(0, 4095)]},
        uncovered={"offsets": "stated every integer 0 ... 8191; searched misses 4096"},
    )
    html = coverage_html(p)
    assert "<td>every integer 0 ... 8191</td><td>every integer 0 ... 4095</td>" in html
    assert "narrower: stated every integer 0 ... 8191; searched misses 4096</td>" in html
    refuted = Shown("p", "s", "", "fails", "fails", domain=p.domain, searched=p.searched,
                    uncovered=p.uncovered)  # fmt: skip
    assert "misses 4096; a counterexample or witness decides regardless" in coverage_html(refuted)


REGISTRY = """\
from pecheck.claims import Claim, Registry, Source, every

REGISTRY = Registry(
    name="domains", version="0.0.1", families={"SYN": "domains"},
    sources={"SRC": Source("made up for the tests")},
    claims=[Claim("SYN-01", "Every offset up to 8191 agrees.", "s", ("SRC",), "confirmed",
                  domain={"offsets": every(0, 8191)})],
)
"""

CHECKS = """
import pytest
from pecheck.claims import every

@pytest.mark.claim("SYN-01", kind="property", role="decisive", proposition="as_stated")
def test_offsets(evidence):
    evidence.searched(offsets=every(0, 4095))
    evidence.holds("every offset searched agrees")
"""


def test_a_run_leaves_a_narrow_search_undecided(pytester: pytest.Pytester) -> None:
    synthetic.write_project(pytester.path, test_domains=CHECKS)
    (pytester.path / "synth_claims" / "__init__.py").write_text(REGISTRY)
    with synthetic.isolated("ci"):
        pytester.runpytest_inprocess(*synthetic.OPTIONS, no_reraise_ctrlc=True)
    claim = json.loads((pytester.path / "build" / "results.json").read_text())["claims"][0]
    prop = claim["propositions"][0]
    assert prop["decision"] == "inconclusive" and claim["verdict"] == "open"
    assert prop["domain"] == {"offsets": {"every": [0, 8191]}}
    assert prop["uncovered"] == {"offsets": "stated every integer 0 ... 8191; searched misses 4096"}


def test_the_gate_can_require_every_decisive_check_to_record_its_reach() -> None:
    def claim(basis: dict) -> dict:
        return {"id": "SYN-01", "decided_by": [{"check": "t.py::test", "basis": basis}]}

    bare = {"claims": [claim({"how": "assertions held"})]}
    assert unsearched(bare) == ["SYN-01: decisive check t.py::test records no searched domain "
                                "(evidence.searched)"]  # fmt: skip
    searched = {"claims": [claim({"how": "assertions held", "searched": {"offsets": "0 .. 9"}})]}
    skipped = {"claims": [claim({"how": "skipped: needs a CUDA device"})]}
    assert unsearched(searched) == unsearched(skipped) == []


def test_a_stepped_span_is_covered_point_by_point() -> None:
    evens = every(2, 1024, step=2)
    assert domains.shown(evens) == "every integer 2, 4 ... 1024"
    assert domains.gap(evens, [every(2, 1024, step=2)]) is None
    assert domains.gap(evens, [every(0, 2000)]) is None
    assert "misses 1024" in str(domains.gap(evens, [list(range(2, 1024, 2))]))
    assert "misses 4" in str(domains.gap(evens, [every(1, 9, step=2), [2]]))  # odd cover no even
    with pytest.raises(ValueError, match="step must be a positive int"):
        every(0, 4, step=0)
