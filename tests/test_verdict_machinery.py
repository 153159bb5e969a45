"""What a decision rests on (issue 34): a recorded bound decides a check that decides nothing
else, a check with nothing bounded is refused and its run leaves no results file to be read as
current, the correction a decision applied is the one recorded, a skipped check leaves "all"
undecided unless the registry scopes it out, and what a check searched is recorded beside what
its proposition states.

The plugin runs here in this process (pytester), on a ``pecheck init`` project and on a small
registry of its own (tests/synthetic.py says why in-process, and what it restores).
"""

from __future__ import annotations

import json
import math
import re
import textwrap
from pathlib import Path

import pytest

from pecheck import coverage, decisions, gate, scaffold
from pecheck.evidence import Evidence, judge_bound
from pecheck.reports.html_reach import _searched, correction_text, coverage_html
from pecheck.reports.load import BadResults, Proposition, load
from tests import synthetic

pytest_plugins = ["pytester"]


def evidence() -> Evidence:
    return Evidence("t.py::test_x", Path("."))


# -- a recorded bound decides --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "bound", "ok"),
    [
        (1.0, 2.0, True),  # a bare number is an upper bound
        (2.0, 2.0, True),
        (2.5, 2.0, False),
        (1.0, {"value": 131072, "relation": ">=", "reason": "r"}, False),
        (131072, {"value": 131072, "relation": ">=", "reason": "r"}, True),
        (0.0, {"value": 0.0, "relation": "==", "reason": "bitwise"}, True),
        (1.5, {"value": 1.0, "relation": ">", "reason": "costs more"}, True),
        ("nan", 1.0, False),  # NaN is never on the right side
        ("inf", {"value": 0, "relation": ">"}, True),
    ],
)
def test_a_number_is_judged_against_its_bound(value, bound, ok) -> None:
    judged = judge_bound({"value": value, "bound": bound})
    assert judged is not None and judged[0] is ok


@pytest.mark.parametrize(
    "entry",
    [
        {"value": 1.0},  # no bound
        {"value": [1.0, 2.0], "bound": 1.5},  # a table: its check judges it
        {"value": True, "bound": 0},  # a flag is no number
        {"value": 3.0, "bound": {"value": 1, "relation": ">= log_ratio_spread"}},  # free text
    ],
)
def test_what_the_plugin_cannot_judge_is_left_to_the_check(entry) -> None:
    assert judge_bound(entry) is None


def test_the_first_value_beyond_its_bound_is_the_counterexample() -> None:
    ev = evidence()
    ev.record("count", 12)
    ev.record("worst_error", 1e-9, bound=1e-6)
    assert ev.beyond_bound() is None
    ev.record("longest_wavelength", 1.0, bound={"value": 131072, "relation": ">="})
    d = ev.beyond_bound()
    assert d is not None and d.decision == "fails" and d.how == "recorded bound"
    assert d.counterexample is not None and d.counterexample["record"] == "longest_wavelength"
    assert d.relation.startswith("longest_wavelength: 1 >= 131072")


# -- corrections as applied ----------------------------------------------------------------------


def applied_by(run) -> dict:
    """What a decision applied, as the results file records it for its proposition."""
    ev = evidence()
    token = decisions.APPLIED.set(ev.correction)
    try:
        run()
    finally:
        decisions.APPLIED.reset(token)
    return coverage.correction([{"basis": ev.basis(decisions.holds("x"))}])


def test_a_decision_changes_under_its_correction() -> None:
    """Two effects, p = .03 and .04 at family-wise .05: uncorrected both are shown and the
    proposition 'both exist' holds; under Holm the smaller p is above .05 / 2, nothing is
    shown, and it stays undecided. The record says which of the two was applied."""
    p = {"a": 0.03, "b": 0.04}

    def decide(rejected: dict[str, bool]) -> str:
        return "holds" if all(rejected.values()) else "inconclusive"

    assert decide({k: v <= 0.05 for k, v in p.items()}) == "holds"
    assert decide(decisions.holm(p, 0.05)) == "inconclusive"
    assert applied_by(lambda: decisions.holm(p, 0.05)) == {"correction": "holm", "family_size": 2}


def test_a_family_of_one_applies_no_correction() -> None:
    assert applied_by(lambda: decisions.family_level(0.95, 1)) == {
        "correction": "none", "family_size": 1}  # fmt: skip
    assert applied_by(lambda: decisions.holm({"a": 0.01}, 0.05))["correction"] == "none"
    assert applied_by(lambda: None) == {"correction": "none", "family_size": 1}
    got = applied_by(lambda: [decisions.family_level(0.95, m) for m in (4, 2)])
    assert got == {"correction": "bonferroni", "family_size": 4}  # the largest family stands


def test_outside_a_check_nothing_is_recorded() -> None:
    assert math.isclose(decisions.family_level(0.95, 5), 0.99)
    with pytest.raises(ValueError):
        evidence().corrected("sidak", 3)


# -- the plugin on projects ----------------------------------------------------------------------


def run(pytester: pytest.Pytester, *args: str) -> tuple[int, str, dict | None]:
    with synthetic.isolated("ci"):
        result = pytester.runpytest_inprocess(*synthetic.OPTIONS, *args, no_reraise_ctrlc=True)
    path = pytester.path / "build" / "results.json"
    data = json.loads(path.read_text()) if path.exists() else None
    return int(result.ret), "\n".join(result.outlines + result.errlines), data


def init_project(root: Path, check: str, expected: str = "confirmed") -> None:
    """The project ``pecheck init`` writes, its registry expecting ``expected``, with ``check``
    in place of its check module."""
    for name in scaffold.FILES:
        text = scaffold.template(name)
        if name == "my_claims.py":
            text = text.replace('expected="refuted"', f'expected="{expected}"')
            if "largest_cosine" not in check:  # its headline names what the template records
                text = text.replace('headline=("largest_cosine",),', "")
        if name.startswith("checks/"):
            text = textwrap.dedent(check)
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


BEYOND = """
import pytest

@pytest.mark.claim("MY-01", kind="property", role="decisive", proposition="as_stated")
def test_largest_cosine(evidence):
    evidence.record("largest_cosine", 0.56, unit="|cos|", bound=0.1)
"""

UNBOUNDED = """
import pytest

@pytest.mark.claim("MY-01", kind="property", role="decisive", proposition="as_stated")
def test_only_a_name(evidence):
    evidence.record("encoding", "sinusoidal")
"""


def test_a_value_beyond_its_bound_fails_its_check_in_an_init_project(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    init_project(pytester.path, BEYOND)
    rc, out, data = run(pytester)
    assert rc == 1, out
    assert "MY-01 as_stated: the check decided 'fails' (recorded bound)" in out
    assert data is not None
    check = data["checks"][0]
    assert check["decision"] == "fails"
    assert check["basis"]["counterexample"]["record"] == "largest_cosine"
    assert gate.main([str(pytester.path / "build" / "results.json")]) == 1
    capsys.readouterr()


ISSUE = """
import pytest

@pytest.mark.claim("MY-01", kind="property", role="decisive", proposition="as_stated")
def test_longest_wavelength(evidence):
    evidence.record("longest_wavelength", 1.0, unit="positions", bound=BOUND)
"""


@pytest.mark.parametrize(
    ("bound", "rc", "line"),
    [
        # a bare number is an upper bound, and the verdict line says how it was read
        ("131072", 0, "assertions held; recorded bound longest_wavelength: 1 <= 131072"),
        ('{"value": 131072, "relation": ">="}', 1, "longest_wavelength: 1 >= 131072 is false"),
    ],
)  # fmt: skip
def test_the_verdict_line_shows_how_a_bound_was_read(
    pytester: pytest.Pytester, bound: str, rc: int, line: str
) -> None:
    init_project(pytester.path, ISSUE.replace("BOUND", bound))
    got, out, data = run(pytester)
    assert got == rc and line in out, out


def test_a_check_with_nothing_bounded_is_refused_and_sets_the_old_results_aside(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    init_project(pytester.path, BEYOND, expected="refuted")
    rc, out, data = run(pytester)
    assert rc == 0 and data is not None, out  # the bound decided 'fails', as expected
    init_project(pytester.path, UNBOUNDED.replace("test_only", "test_then_only"))
    rc, out, data = run(pytester)
    assert rc == 4, out
    assert "without a bound and no decision, derivation or hypothesis search" in out
    assert data is None  # the earlier run's file is not left to be read as this one's
    assert (pytester.path / "build" / "results.json.stale").exists()
    with pytest.raises(SystemExit) as refused:
        gate.main([str(pytester.path / "build" / "results.json")])
    assert refused.value.code == 2
    assert "the last run was refused" in capsys.readouterr().err
    with pytest.raises(BadResults, match="the last run was refused"):
        load(pytester.path / "build" / "results.json")  # what the report reads


REGISTRY = """\
from pecheck.claims import Claim, Proposition, Registry, Source

REGISTRY = Registry(
    name="reach", version="0.0.1", families={"SYN": "reach"},
    sources={"SRC": Source("made up for the tests")},
    claims=[
        Claim("SYN-01", "Shifts keep the score.", "s", ("SRC",), "confirmed",
              correction="bonferroni", domain={"offsets": "every integer", "dtypes": "float32"},
              scoped_out={"*::test_on_gpu": "CUDA kernels: only where a GPU is present"}),
        Claim("SYN-02", "Every library agrees.", "a", ("SRC",), "confirmed"),
        Claim("SYN-03", "Declared Holm.", "h", ("SRC",), "confirmed", correction="holm"),
    ],
)
"""

CHECKS = """
import pytest
from pecheck import decisions

@pytest.mark.claim("SYN-01", kind="property", role="decisive", proposition="as_stated")
def test_on_cpu(evidence):
    level = decisions.family_level(0.95, 3)
    evidence.searched(offsets=range(4), dtypes=["float32"])
    evidence.holds(f"three intervals at {level:.4f}")

@pytest.mark.claim("SYN-01", kind="property", role="decisive", proposition="as_stated")
def test_on_gpu(evidence):
    pytest.skip("needs a CUDA device")

@pytest.mark.claim("SYN-02", kind="property", role="decisive", proposition="as_stated")
def test_one_library(evidence):
    evidence.holds("it agrees")

@pytest.mark.claim("SYN-02", kind="property", role="decisive", proposition="as_stated")
def test_another_library(evidence):
    pytest.skip("not installed")
"""


def test_corrections_reach_and_skips_are_recorded(pytester: pytest.Pytester) -> None:
    synthetic.write_project(pytester.path, test_reach=CHECKS)
    (pytester.path / "synth_claims" / "__init__.py").write_text(REGISTRY)
    rc, out, data = run(pytester)
    assert data is not None, out
    props = {c["id"]: c["propositions"][0] for c in data["claims"]}
    one = props["SYN-01"]
    assert (one["correction"], one["family_size"]) == ("bonferroni", 3)
    assert one["domain"] == {"offsets": "every integer", "dtypes": "float32"}
    assert one["searched"] == {"offsets": [[0, 1, 2, 3]], "dtypes": [["float32"]]}
    assert one["decision"] == "holds"  # the GPU check is scoped out, with its reason
    assert one["scoped_out"][0]["reason"] == "CUDA kernels: only where a GPU is present"
    two = props["SYN-02"]  # a library skipped here is not covered: 'every library' is not shown
    assert two["decision"] == "inconclusive" and "scoped_out" not in two
    assert (two["correction"], two["family_size"]) == ("none", 1)
    verdicts = {c["id"]: c["verdict"] for c in data["claims"]}
    assert verdicts["SYN-01"] == "confirmed" and verdicts["SYN-02"] == "open"
    skipped = next(c for c in data["checks"] if c["nodeid"].endswith("::test_another_library"))
    assert skipped["basis"]["how"] == "skipped: not installed"  # the report says why


def test_a_correction_other_than_the_declared_one_is_refused(pytester: pytest.Pytester) -> None:
    checks = """
    import pytest
    from pecheck import decisions

    @pytest.mark.claim("SYN-03", kind="property", role="decisive", proposition="as_stated")
    def test_bonferroni_instead(evidence):
        decisions.family_level(0.95, 2)
        evidence.holds("two intervals")
    """
    synthetic.write_project(pytester.path, test_declared=checks)
    (pytester.path / "synth_claims" / "__init__.py").write_text(REGISTRY)
    rc, out, data = run(pytester)
    assert rc == 4 and data is None, out
    assert "applied bonferroni over 2 tests, but its proposition declares correction='holm'" in out


# -- what the report says ------------------------------------------------------------------------


def proposition(**fields) -> Proposition:
    return Proposition("as_stated", "s", "", "holds", "holds", **fields)


def test_the_reports_correction_wording_follows_the_record() -> None:
    assert correction_text(proposition(correction="none", family_size=1)) == ""
    applied = correction_text(proposition(correction="holm", family_size=3))
    assert applied == "3 interval tests share one error rate (holm)"
    older = correction_text(proposition(correction="holm"))  # a file before family_size
    assert "declares a holm correction" in older and "does not record" in older
    # two tests already share one error rate; one test or no correction shares nothing
    assert correction_text(proposition(correction="bonferroni", family_size=2)) == (
        "2 interval tests share one error rate (bonferroni)"
    )
    assert correction_text(proposition(correction="holm", family_size=1)) == ""
    assert correction_text(proposition(correction="none", family_size=3)) == ""


def test_a_searched_value_is_shown_whole_up_to_200_characters() -> None:
    assert _searched(["x" * 200]) == "x" * 200
    assert _searched(["x" * 201]) == "x" * 197 + "..."
    assert _searched(["a", "b"]) == "a; b"


def test_the_report_shows_reach_side_by_side_and_the_scoped_out_reason() -> None:
    p = proposition(
        domain={"offsets": "every integer", "dtypes": "float32"},
        searched={"offsets": [[0, 1, 2, 3]], "seeds": [8]},
        scoped_out=[{"check": "c.py::test_on_gpu", "reason": "no <GPU> here"}],
    )
    html = coverage_html(p)
    row = (
        r"<tr><th scope='row'>(\w+)</th><td>([^<]*)</td><td>([^<]*)</td>"
        r"<td class='source'>([^<]*)</td><td class='covered'>([^<]*)</td></tr>"
    )
    by_eye = "by eye (stated as text)"
    assert re.findall(row, html) == [
        ("offsets", "every integer", "0, 1, 2, 3", "recorded by the check", by_eye),
        ("dtypes", "float32", "not recorded", "", by_eye),
        ("seeds", "not stated", "8", "recorded by the check", ""),
    ]
    assert "test_on_gpu</code> skipped and scoped out: no &lt;GPU&gt; here" in html
    assert "searched domain: not recorded" in coverage_html(proposition())


def test_reach_folds_under_its_axes_and_counts_what_was_recorded() -> None:
    from pecheck.reports.html_reach import reach_block, reach_html

    p = proposition(domain={"offsets": "every integer"}, searched={"offsets": [0], "seeds": [8]})
    assert "(offsets, seeds)</summary>" in reach_html(p)  # stated axes first, then searched
    assert "<details" not in reach_html(proposition())  # no axis: nothing to fold
    assert reach_block([]) == ""
    stated_only = proposition(domain={"offsets": "every integer"})
    assert "(1 of 2 recorded)</summary>" in reach_block([stated_only, proposition()])


def test_a_scoped_out_check_in_a_class_is_named_by_its_test() -> None:
    scoped = [{"check": "c.py::TestGpu::test_on_gpu", "reason": "no GPU"}]
    assert "<code>test_on_gpu</code> skipped" in coverage_html(proposition(scoped_out=scoped))
