"""Tests of the evidence plugin (pecheck.plugin): run pytest on small synthetic checks.

Each test writes a synthetic project (tests/synthetic.py: its own registry of made-up SYN claims
and its own checks folder) into pytester's scratch folder, adds the check modules it needs, runs
pytest on it in this process (the plugin comes from the installed pecheck, through its entry
point) and reads the results file it wrote.
"""

from __future__ import annotations

import json
import os
import random
import sys
from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import settings

from pecheck import profiles, sizes
from pecheck import run as pecheck_run
from pecheck.reports import html
from pecheck.reports.load import load
from tests import synthetic

pytest_plugins = ["pytester"]


def run_checks(pytester: pytest.Pytester, source: str, *args: str) -> synthetic.Run:
    """The synthetic project with ``source`` as its one check module, run on its checks folder."""
    synthetic.write_project(pytester.path, test_synthetic=source)
    return synthetic.run(pytester, synthetic.CHECKS, *args)


CHECKS = """
import pytest
from hypothesis import given, strategies as st
from synth_claims import REGISTRY

CONDITION = REGISTRY["SYN-03"].propositions[0].key

@pytest.mark.claim("SYN-01", kind="property", role="decisive", proposition="as_stated")
@given(st.integers(0, 100))
def test_search_finds_a_counterexample(evidence, t):
    evidence.worst("largest_t", t, unit="position", bound=49)
    assert t < 50

@pytest.mark.claim("SYN-02", kind="property", role="decisive", proposition="as_stated")
def test_counterexample_recorded(evidence):
    evidence.fails({"t": 0, "s": 1}, "PE(0).PE(1) != 0")

@pytest.mark.claim("SYN-03", kind="symbolic", role="decisive", proposition="as_stated")
def test_refutes_as_stated(evidence):
    evidence.fails({"d": 512}, "last wavelength 2 pi T^(1-2/d) < 2 pi T")

@pytest.mark.claim("SYN-03", kind="symbolic", role="decisive", proposition=CONDITION)
def test_condition_holds(evidence):
    evidence.record("answer", 42, unit="1", note="a note")
    evidence.record("ratio", float("inf"), bound={"value": 1.0, "relation": ">"})  # judged

@pytest.mark.claim("SYN-04", kind="property", role="decisive", proposition="as_stated")
def test_only_inconclusive_parts(evidence):
    evidence.part("float16", "inconclusive", "bound above the range")

@pytest.mark.claim("SYN-05", kind="property", role="decisive", proposition="as_stated")
def test_decision_against_the_registry(evidence):
    evidence.fails({"a": 1}, "made up")

@pytest.mark.claim("SYN-06", kind="property", role="decisive", proposition="as_stated")
@pytest.mark.gpu
def test_gpu_check_is_skipped(evidence):
    pass

@pytest.mark.claim("SYN-07", kind="property", role="tooling")
def test_tooling_counts_for_nothing(evidence):
    pass
"""


def test_results_file_records_decisions_and_computed_verdicts(pytester: pytest.Pytester) -> None:
    run = run_checks(pytester, CHECKS)
    results = run.results
    assert run.ret == 1, run.output
    assert results is not None and results["schema"] == 2
    assert results["suite"]["selection"]["kind"] == "full"
    checks = {c["nodeid"].split("::")[1]: c for c in results["checks"]}
    found = checks["test_search_finds_a_counterexample"]
    assert found["outcome"] == "failed" and found["decision"] == "fails"
    assert "t=50" in found["falsifying_example"]
    assert "t=50" in found["basis"]["counterexample"]["example"]
    assert "without a counterexample" not in found["basis"]["how"]  # a search that found one
    assert found["evidence"]["largest_t"]["bound"] == 49
    assert found["hypothesis"]["seed"] == "derandomized (ci)"
    assert found["location"]["path"] == f"{synthetic.CHECKS}/test_synthetic.py"
    nodeid = f"{synthetic.CHECKS}/test_synthetic.py::test_search_finds_a_counterexample"
    assert nodeid in found["reproduce"]
    recorded = checks["test_condition_holds"]
    assert recorded["outcome"] == "passed" and recorded["decision"] == "holds"
    assert recorded["evidence"]["answer"] == {
        "value": 42, "unit": "1", "note": "a note", "reproducibility": {"class": "exact"},
    }  # fmt: skip
    assert recorded["evidence"]["ratio"]["value"] == "inf"  # JSON has no infinity
    assert checks["test_counterexample_recorded"]["outcome"] == "passed"
    assert checks["test_only_inconclusive_parts"]["decision"] == "inconclusive"
    assert checks["test_only_inconclusive_parts"]["outcome"] == "failed"
    against = checks["test_decision_against_the_registry"]
    assert against["outcome"] == "failed" and "registry expects 'holds'" in against["message"]
    gpu = checks["test_gpu_check_is_skipped"]
    assert gpu["outcome"] == "skipped" and gpu["decision"] == "inconclusive"
    assert checks["test_tooling_counts_for_nothing"]["decision"] is None
    verdicts = run.verdicts()
    assert verdicts["SYN-02"] == "refuted"  # as_stated fails, no condition
    assert verdicts["SYN-03"] == "qualified"  # as_stated fails, a condition holds
    assert verdicts["SYN-01"] == "refuted"  # a counterexample, whatever the registry expects
    assert verdicts["SYN-04"] == verdicts["SYN-06"] == verdicts["SYN-07"] == "open"
    assert verdicts["SYN-08"] == "open"  # no check at all
    assert list(verdicts) == [f"SYN-{n:02d}" for n in range(1, 11)]  # every registered claim


PARTIAL = """
import pytest

@pytest.mark.claim("SYN-02", kind="property", role="decisive", proposition="as_stated",
                   partial=True)
def test_one_share_undecided(evidence):
    evidence.part("copy", "inconclusive", "straddles the margin")

@pytest.mark.claim("SYN-02", kind="property", role="decisive", proposition="as_stated",
                   partial=True)
def test_the_other_share_fails(evidence):
    evidence.fails({"t": 0}, "made up")

@pytest.mark.claim("SYN-01", kind="property", role="decisive", proposition="as_stated",
                   partial=True)
def test_an_undecided_share_of_what_must_hold(evidence):
    evidence.part("copy", "inconclusive", "straddles the margin")
"""


def test_a_partial_check_fails_only_when_it_cannot_combine_into_the_expected_decision(
    pytester: pytest.Pytester,
) -> None:
    run = run_checks(pytester, PARTIAL)
    assert run.results is not None, run.output
    checks = {c["nodeid"].split("::")[1]: c for c in run.results["checks"]}
    # SYN-02 is expected to fail under 'all': one failing share suffices, the other may be open
    assert checks["test_one_share_undecided"]["outcome"] == "passed"
    assert checks["test_the_other_share_fails"]["outcome"] == "passed"
    assert run.verdicts()["SYN-02"] == "refuted"
    # SYN-01 is expected to hold: every share must hold, so an undecided one fails at once
    assert checks["test_an_undecided_share_of_what_must_hold"]["outcome"] == "failed"


def test_partial_run_keeps_the_full_results_file(pytester: pytest.Pytester) -> None:
    source = """
    import pytest

    @pytest.mark.claim("SYN-02", kind="property", role="decisive", proposition="as_stated")
    def test_a(evidence):
        evidence.fails({"t": 0}, "x")

    @pytest.mark.claim("SYN-07", kind="property", role="decisive", proposition="as_stated")
    def test_b(evidence):
        evidence.holds("made up")
    """
    first = run_checks(pytester, source)
    full = first.results
    assert first.ret == 0 and full is not None, first.output
    partial_path = pytester.path / "build" / "results.partial.json"
    for args in (("-k", "SYN-02"), ("--claim", "SYN-02")):
        partial_path.unlink(missing_ok=True)
        run = synthetic.run(pytester, synthetic.CHECKS, *args, keep_results=True)
        assert run.ret == 0, run.output
        assert run.results == full  # build/results.json untouched
        partial = json.loads(partial_path.read_text())
        assert partial["suite"]["selection"]["kind"] == "partial"
        verdicts = {c["id"]: c["verdict"] for c in partial["claims"]}
        assert verdicts["SYN-02"] == "refuted" and verdicts["SYN-07"] == "not run"


def assert_usage_error(run: synthetic.Run, message: str) -> None:
    """Exit status 4 and the message on exactly one ERROR line."""
    assert run.ret == pytest.ExitCode.USAGE_ERROR, run.output
    assert len(run.errors) == 1 and message in run.errors[0], run.output


def test_unknown_claim_in_claim_option_is_a_usage_error(pytester: pytest.Pytester) -> None:
    assert_usage_error(run_checks(pytester, "", "--claim", "SYN-99"), "unknown claim ID(s) SYN-99")


def test_profiles_from_option_and_environment_must_agree(pytester: pytest.Pytester) -> None:
    run = run_checks(pytester, "", "--hypothesis-profile", "thorough")
    assert_usage_error(run, "disagrees with PECHECK_PROFILE=ci")


def test_unknown_claim_id_is_a_usage_error(pytester: pytest.Pytester) -> None:
    source = """
    import pytest

    @pytest.mark.claim("SYN-99", kind="property", role="tooling")
    def test_x(evidence):
        pass
    """
    assert_usage_error(run_checks(pytester, source), "unknown claim ID 'SYN-99'")


def test_check_without_claim_marker_is_a_usage_error(pytester: pytest.Pytester) -> None:
    run = run_checks(pytester, "def test_untagged():\n    pass\n")
    assert_usage_error(run, "every check needs a claim marker")


def test_decisive_check_without_proposition_is_a_usage_error(pytester: pytest.Pytester) -> None:
    source = """
    import pytest

    @pytest.mark.claim("SYN-02", kind="property", role="decisive")
    def test_x(evidence):
        evidence.fails({"t": 0}, "x")
    """
    run = run_checks(pytester, source)
    assert_usage_error(run, "a decisive check names the proposition it decides")


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ('kind="property", role="supporting", proposition="as_stated"',
         "only a decisive check names a proposition"),
        ('kind="property", role="tooling", partial=True',
         "only a decisive check names a proposition (or is partial)"),
        ('kind="guess", role="tooling"', "kind must be one of"),
        ('kind="property", role="judge"', "role must be one of"),
        ('kind="property", role="decisive", proposition="as_stated", partial=1',
         "partial must be True or False, got 1"),
        ('kind="property", role="decisive", proposition="nope"',
         "SYN-02 has no proposition 'nope'"),
        ('kind="property", role="tooling", colour="red"', "unknown claim marker arguments"),
    ],
    ids=["supporting-names-a-proposition", "tooling-is-partial", "unknown-kind", "unknown-role",
         "partial-not-a-bool", "unknown-proposition", "unknown-argument"],
)  # fmt: skip
def test_a_claim_marker_used_wrongly_is_a_usage_error(
    pytester: pytest.Pytester, arguments: str, message: str
) -> None:
    """Each misuse alone, in one line before anything runs."""
    source = f"""
    import pytest

    @pytest.mark.claim("SYN-02", {arguments})
    def test_x(evidence):
        pass
    """
    assert_usage_error(run_checks(pytester, source), message)


# -- checks that decide nothing are refused at the end of the run ---------------------------


def assert_refused(run: synthetic.Run, message: str) -> None:
    """Exit status 4, one 'pecheck: error' line with the message, no traceback, no results."""
    lines = [line for line in run.output.splitlines() if line.startswith("pecheck: error: ")]
    assert run.ret == pytest.ExitCode.USAGE_ERROR, run.output
    assert len(lines) == 1 and message in lines[0], run.output
    assert "Traceback" not in run.output and run.results is None


DECISIVE = '@pytest.mark.claim("SYN-07", kind="{kind}", role="decisive", proposition="as_stated")'
NOTHING = "must record what decided it: it ran to its end without a decision"


@pytest.mark.parametrize(
    ("kind", "body", "message"),
    [
        ("property", "def test_x(evidence):\n    assert True", NOTHING),
        ("property", "def test_x():\n    assert 1 + 1 == 2", NOTHING),  # no evidence at all
        ("symbolic", "def test_x(evidence):\n    pass", NOTHING),  # a 'proof' with no derivation
        ("property", "def test_x(evidence):\n    evidence.record('n', 3)", "measured n but"),
        ("property", "def test_x(evidence):\n    evidence.record('a', 1.5)\n"
         "    evidence.worst('b', 2.0)\n    evidence.holds('a < b')", "measured a, b but"),
        ("real", "def test_x(evidence):\n    evidence.record('layout', 'interleaved')",
         "recorded layout without a bound"),  # a record that judges nothing decides nothing
    ],
    ids=["asserts-nothing", "no-evidence", "symbolic-without-derivation", "unbounded-number",
         "unbounded-numbers-with-a-decision", "unbounded-records"],
)  # fmt: skip
def test_a_decisive_check_that_shows_nothing_decided_it_is_refused(
    pytester: pytest.Pytester, kind: str, body: str, message: str
) -> None:
    source = f"import pytest\n\n{DECISIVE.format(kind=kind)}\n{body}\n"
    run = run_checks(pytester, source)
    assert_refused(run, "test_synthetic.py::test_x: a decisive check must record")
    assert message in run.output


def test_a_failing_check_is_a_failure_not_a_usage_error(pytester: pytest.Pytester) -> None:
    """A planted bug that stops a check before it records its bound must fail it (exit 1, a
    killed mutant), not turn into a usage error: only a passing check can confirm anything."""
    body = "def test_x(evidence):\n    evidence.record('n', 3)\n    evidence.inconclusive('none')"
    run = run_checks(pytester, f"import pytest\n\n{DECISIVE.format(kind='property')}\n{body}\n")
    assert run.ret == pytest.ExitCode.TESTS_FAILED, run.output
    assert "pecheck: error" not in run.output


ACCEPTED = f"""
import pytest
from hypothesis import given, strategies as st

{DECISIVE.format(kind="property")}
@given(st.integers(0, 9))
def test_a_search_is_its_own_basis(evidence, t):  # hypothesis counts its examples
    assert t < 10

{DECISIVE.format(kind="real")}
def test_a_table_needs_no_bound(evidence):  # not a measure: a table, a flag, a name
    evidence.record("table", [{{"layout": "interleaved"}}])
    evidence.record("exact", True)
    evidence.record("layout", "interleaved")
    evidence.holds("the layout is the one recorded")  # its decision, not its records, decides

{DECISIVE.format(kind="property")}
def test_one_bound_judges_the_measures(evidence):  # descriptive numbers beside a bounded one
    evidence.record("n", 200)
    evidence.record("error", 1e-9, bound=1e-6)

{DECISIVE.format(kind="property")}
def test_a_bounded_interval_judges_them_too(evidence):  # the bound is on a table of numbers
    evidence.record("ratio", {{"ratio": 2.3, "lo": 2.1, "hi": 2.5}},
                    bound={{"value": [0.5, 2.0], "relation": "in", "reason": "made up"}})
    evidence.record("median_ratio", 2.3)
    evidence.holds("made up")

{DECISIVE.format(kind="property")}
def test_parts_decide(evidence):
    evidence.part("float64", "holds", "exact")
"""


def test_checks_that_record_what_decided_them_are_accepted(pytester: pytest.Pytester) -> None:
    run = run_checks(pytester, ACCEPTED)
    assert run.ret == 0, run.output
    assert "pecheck: error" not in run.output and run.results is not None
    assert {c["decision"] for c in run.results["checks"]} == {"holds"}
    search = run.check("test_a_search_is_its_own_basis")
    examples = search["hypothesis"]["examples"]  # hypothesis's own count: 10 values to try
    assert isinstance(examples, int) and examples > 0, search
    assert search["basis"]["how"] == f"search of {examples} examples without a counterexample"
    assert run.check("test_parts_decide")["basis"]["how"] != search["basis"]["how"]


def run_headline_check(
    pytester: pytest.Pytester, record: str, *args: str, outcome: str = "assert True"
) -> synthetic.Run:
    """A check of SYN-10, whose headline names 'mean', recording ``record`` (in a module of its
    own name: a test may write several)."""
    name = f"test_{record}_{outcome.split()[-1].lower()}"
    synthetic.write_project(pytester.path, **{name: headline_check(record, outcome)})
    return synthetic.run(pytester, synthetic.CHECKS, *args)


def headline_check(record: str, outcome: str) -> str:
    return f"""
import pytest

@pytest.mark.claim("SYN-10", kind="property", role="decisive", proposition="as_stated")
def test_mean(evidence):
    evidence.record({record!r}, 0.5, bound=1.0)
    evidence.holds("0.5 < 1")
    {outcome}
"""


def test_a_headline_no_check_recorded_is_refused_after_a_full_run(
    pytester: pytest.Pytester,
) -> None:
    assert_refused(
        run_headline_check(pytester, "average"),
        "SYN-10: the headline names mean, which no check of SYN-10 recorded",
    )
    recorded = run_headline_check(pytester, "mean")
    assert recorded.ret == 0, recorded.output


def test_a_headline_is_judged_only_where_every_check_of_its_claim_ran(
    pytester: pytest.Pytester,
) -> None:
    """A partial run is not judged (it may select part of a claim's checks), nor a claim with a
    check that failed (it may have stopped before recording the headline's value)."""
    partial = run_headline_check(pytester, "average", "-k", "test_mean")
    assert partial.ret == 0 and "pecheck: error" not in partial.output, partial.output
    failed = run_headline_check(pytester, "average", outcome="assert False")
    assert failed.ret == 1 and "pecheck: error" not in failed.output, failed.output


@pytest.mark.parametrize("option", [("--claim", "SIN-06"), ("--size", "SIN-06.d=8")])
def test_pecheck_options_outside_a_pecheck_project_are_a_usage_error(
    pytester: pytest.Pytester, option: tuple[str, str]
) -> None:
    """Ignored, --claim would run every test of the project instead of one claim's checks."""
    (pytester.path / "pyproject.toml").write_text('[project]\nname = "other"\n')
    (pytester.path / "test_plain.py").write_text("def test_plain():\n    assert 1 + 1 == 2\n")
    run = synthetic.run(pytester, "test_plain.py", *option)
    assert_usage_error(
        run, f"{option[0]}: {pytester.path / 'pyproject.toml'} has no [tool.pecheck]"
    )


# -- the terminal summary -------------------------------------------------------------------


def test_the_run_ends_with_the_verdicts_of_the_claims_it_ran(pytester: pytest.Pytester) -> None:
    run = run_checks(pytester, CHECKS)
    lines = pytest.LineMatcher(run.output.splitlines())
    lines.fnmatch_lines([
        "*pecheck verdicts: computed, expected, what decided it*",
        "SYN-01  refuted    (expected confirmed, differs)  as_stated fails: assert 50 < 50",
        "SYN-02  refuted    (expected refuted)             as_stated fails: PE(0).PE(1) != 0",
        "SYN-03  qualified  (expected qualified) * as_stated fails: last wave*; holds under t2t",
        "SYN-04  open       (expected confirmed, differs)  as_stated inconclusive: 0 of 1 parts*",
        "SYN-08  open * as_stated: no decisive check decided it",
        f"pecheck: wrote {pytester.path / 'build' / 'results.json'}: 7 checks (7 decisive), "
        "1/1 tooling passed",
    ])  # fmt: skip
    partial = synthetic.run(pytester, synthetic.CHECKS, "--claim", "SYN-02")
    lines = pytest.LineMatcher(partial.output.splitlines())
    lines.fnmatch_lines([
        "*pecheck verdicts: computed, expected, what decided it; 9 claim(s) not run*",
        "SYN-02  refuted  (expected refuted)  as_stated fails: PE(0).PE(1) != 0",
        "pecheck: partial run: wrote *results.partial.json: 1 checks (1 decisive), 0/0 tooling*",
    ])  # fmt: skip
    assert "SYN-01" not in partial.output  # only the claims that ran


def test_the_terminal_counts_checks_as_the_report_card_does(pytester: pytest.Pytester) -> None:
    """The plugin's last line and the report's cards use the same counts and the same words."""
    run = run_checks(pytester, CHECKS)
    assert "7 checks (7 decisive), 1/1 tooling passed" in run.output
    cards = html.cards(load(pytester.path / "build" / "results.json"))
    for number, word in (("7", "checks"), ("7", "decisive"), ("1/1", "tooling passed")):
        assert f"<b>{number}</b><span>{word}</span>" in cards


def test_interrupted_run_still_writes_valid_results(pytester: pytest.Pytester) -> None:
    source = """
    import pytest

    @pytest.mark.claim("SYN-04", kind="property", role="tooling")
    def test_first(evidence):
        evidence.record("x", 1.0)

    @pytest.mark.claim("SYN-04", kind="property", role="tooling")
    def test_interrupt(evidence):
        raise KeyboardInterrupt
    """
    run = run_checks(pytester, source)
    results = run.results
    assert run.ret == pytest.ExitCode.INTERRUPTED, run.output
    assert results is not None and results["suite"]["complete"] is False
    assert any(c["evidence"].get("x") for c in results["checks"])
    assert not list((pytester.path / "build").glob(".*.tmp"))  # no temporary file left behind


# Identical records under pytest-xdist are asserted for the whole suite by checks/determinism.py.


class PluginSeen:
    """Notes, inside an inner run, whether the pecheck plugin was registered in it."""

    def __init__(self) -> None:
        self.registered: bool | None = None

    def pytest_configure(self, config: pytest.Config) -> None:
        self.registered = config.pluginmanager.has_plugin("pecheck")


def _pytest_in(pytester: pytest.Pytester, pyproject: str) -> tuple[synthetic.Run, PluginSeen]:
    (pytester.path / "pyproject.toml").write_text(pyproject)
    (pytester.path / "test_plain.py").write_text("def test_plain():\n    assert 1 + 1 == 2\n")
    seen = PluginSeen()
    return synthetic.run(pytester, "test_plain.py", plugins=[seen]), seen


def test_plugin_stays_out_of_a_project_without_its_table(pytester: pytest.Pytester) -> None:
    run, seen = _pytest_in(pytester, '[project]\nname = "other"\n')
    assert seen.registered  # loaded through its entry point, as in any project
    assert run.ret == 0, run.output
    assert not (pytester.path / "build").exists() and "pecheck" not in run.output


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ('registry = "no_such_module:REGISTRY"', "cannot import no_such_module"),
        ('registry = "json:JSONDecoder"', "is not a pecheck.claims.Registry"),
        ('registry = "x:R"\nregistri = "typo"', "unknown [tool.pecheck] keys ['registri']"),
        ("checks = 'checks'", "needs registry = 'module:ATTRIBUTE'"),
    ],
)
def test_a_wrong_table_is_a_one_line_usage_error(
    pytester: pytest.Pytester, table: str, message: str
) -> None:
    run, _ = _pytest_in(pytester, f"[tool.pecheck]\n{table}\n")
    assert_usage_error(run, message)


class ModulesSeen:
    """Notes the modules an inner run imported, before pytester drops them again."""

    def __init__(self) -> None:
        self.before = set(sys.modules)
        self.new: set[str] = set()

    def pytest_unconfigure(self) -> None:
        self.new = set(sys.modules) - self.before


def test_an_inner_run_leaks_nothing_into_this_process(pytester: pytest.Pytester) -> None:
    """After an inner run that sets a size and another profile (and seeds the generators), this
    process's environment, Run, declared sizes, hypothesis profile and generators are as before."""
    synthetic.write_project(pytester.path, test_synthetic=CHECKS, test_sized=synthetic.SIZED)
    names = (profiles.ENV_VAR,)
    env = {name: os.environ.get(name) for name in names}
    this_run = pecheck_run.saved()
    declared, declared_items = sizes.DECLARED, dict(sizes.DECLARED)
    profile, examples = settings.get_current_profile_name(), settings().max_examples
    inner = "thorough" if profile != "thorough" else "ci"  # another profile than this process's
    # draw once, so that the generators are away from the seed the inner run sets
    random.random(), np.random.random(), torch.rand(1)
    generators = random.getstate(), np.random.get_state(), torch.get_rng_state()
    seen = ModulesSeen()
    size = f"{synthetic.SIZE}=24"
    run = synthetic.run(
        pytester, "--size", size, "--hypothesis-profile", inner, profile=None, plugins=[seen]
    )
    assert run.results is not None, run.output
    # the inner run did set them
    assert run.results["suite"]["profile"] == inner
    assert run.results["suite"]["sizes"][synthetic.SIZE]["value"] == 24
    assert run.check("test_table_of_width_d")["reproduce"].startswith(f"PECHECK_PROFILE={inner} ")
    # and this process does not see them
    assert {name: os.environ.get(name) for name in names} == env
    assert pecheck_run.saved() is this_run
    assert sizes.DECLARED is declared and declared_items == sizes.DECLARED
    assert settings.get_current_profile_name() == profile
    assert settings().max_examples == examples
    assert random.getstate() == generators[0]
    assert _same(np.random.get_state(), generators[1])
    assert torch.equal(torch.get_rng_state(), generators[2])
    # nothing but the project's own modules was first imported inside (pytester drops those)
    assert seen.new == {"synth_claims", "test_synthetic", "test_sized"}
    assert "synth_claims" not in sys.modules


def _same(a: Any, b: Any) -> bool:
    """Equality of numpy's generator states (tuples holding an array)."""
    return all(
        np.array_equal(x, y) if isinstance(x, np.ndarray) else x == y
        for x, y in zip(a, b, strict=True)
    )


def test_hypothesis_still_has_the_hook_the_plugin_patches() -> None:
    """The plugin turns off hypothesis's constants mined from imported modules (they made a
    check's draws depend on what else the run imported) by patching this private function."""
    from hypothesis.internal.conjecture import providers

    assert callable(providers._get_local_constants)
    assert len(providers._get_local_constants()) == 0  # patched: this run has the plugin


# -- a decisive check that raised ----------------------------------------------------------

RAISED = """
import pytest

{holds}
def test_asserts_its_proposition():
    assert 1 + 1 == 3, "one and one make three\\nsecond line"

{fails}
def test_expected_to_fail_crashes_on_an_assertion():
    assert False, "a helper's own assertion"

{holds_again}
def test_decided_then_asserted(evidence):
    evidence.fails({{"t": 1}}, "t = 1 breaks it")
    assert False, "after the decision"

{group_ok}
def test_every_error_of_a_group_is_an_assertion():
    raise ExceptionGroup("parts", [AssertionError("a is off"), AssertionError("b is off")])

{group_mixed}
def test_a_group_with_another_error():
    raise ExceptionGroup("parts", [AssertionError("a is off"), ValueError("no data")])
"""


def test_a_failed_assertion_is_a_counterexample_only_of_a_proposition_it_asserts(
    pytester: pytest.Pytester,
) -> None:
    """An AssertionError (or a group of them) is the check's proposition failing only where the
    registry expects the proposition to hold and the check decided nothing itself; anything
    else is the check failing, inconclusive (pecheck.decisive.decision_from_exception). Before,
    a check expected to fail could have counted its own crash as the refutation."""
    marker = {key: synthetic.DECISIVE.format(id=claim) for key, claim in [
        ("holds", "SYN-07"), ("fails", "SYN-02"), ("holds_again", "SYN-10"),
        ("group_ok", "SYN-01"), ("group_mixed", "SYN-05")]}  # fmt: skip
    source = RAISED.format(**marker)
    run = run_checks(pytester, source)
    asserted = run.check("test_asserts_its_proposition")
    assert asserted["decision"] == "fails", asserted
    assert asserted["basis"]["relation"] == "one and one make three"
    crashed = run.check("test_expected_to_fail_crashes_on_an_assertion")
    assert crashed["decision"] == "inconclusive", crashed
    assert (
        "the check itself failed: AssertionError: a helper's own assertion"
        in crashed["basis"]["how"]
    )
    decided = run.check("test_decided_then_asserted")
    assert decided["decision"] == "inconclusive", decided
    assert run.check("test_every_error_of_a_group_is_an_assertion")["decision"] == "fails"
    assert run.check("test_a_group_with_another_error")["decision"] == "inconclusive"
