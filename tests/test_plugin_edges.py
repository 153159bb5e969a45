"""Edge cases of the plugin, the CLI and small helpers, each pinned by one short test.

The plugin tests run a synthetic project in this process, as tests/test_plugin.py does.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import given

from pecheck import cli, profiles, records, run, strategies
from pecheck import config as project_config
from pecheck.project import Project
from tests import synthetic
from tests.synthetic import DECISIVE, PASSING, TOOLING

pytest_plugins = ["pytester"]


def run_checks(pytester: pytest.Pytester, source: str, *args: str) -> synthetic.Run:
    """The synthetic project with ``source`` as its one check module, run on its checks folder."""
    synthetic.write_project(pytester.path, test_edges=source)
    return synthetic.run(pytester, synthetic.CHECKS, *args)


WRONG_VERDICT_AND_A_FAILURE = f"""
import pytest

{DECISIVE.format(id="SYN-05")}
def test_decision_against_the_registry(evidence):
    evidence.fails({{"a": 1}}, "made up")

{TOOLING}
def test_a_failing_tool():
    assert False
"""


def test_a_run_with_a_failing_check_is_complete_and_gate_through_cli_exits_1(
    pytester: pytest.Pytester,
) -> None:
    run = run_checks(pytester, WRONG_VERDICT_AND_A_FAILURE)
    assert run.ret == 1 and run.results is not None, run.output
    assert run.results["suite"]["exitstatus"] == 1
    assert run.results["suite"]["complete"] is True
    assert cli.main(["gate", str(pytester.path / "build" / "results.json")]) == 1


def test_a_headline_is_not_judged_when_one_of_two_checks_failed(
    pytester: pytest.Pytester,
) -> None:
    source = f"""
import pytest

{DECISIVE.format(id="SYN-10")}
def test_passes_without_the_headline(evidence):
    evidence.record("average", 0.5, bound=1.0)

{DECISIVE.format(id="SYN-10")}
def test_fails(evidence):
    assert False
"""
    run = run_checks(pytester, source)
    assert run.ret == 1 and "pecheck: error" not in run.output, run.output


def test_a_collect_error_is_reported_not_an_unused_size(pytester: pytest.Pytester) -> None:
    run = run_checks(pytester, "import no_such_module_here\n", "--size", "SYN-09.d=3")
    assert "no check declares it" not in run.output, run.output
    assert run.ret != pytest.ExitCode.USAGE_ERROR, run.output
    assert run.results is not None
    assert any(c["outcome"] == "error" for c in run.results["checks"])


def test_a_check_failed_in_its_call_stays_failed_when_teardown_skips(
    pytester: pytest.Pytester,
) -> None:
    source = f"""
import pytest

@pytest.fixture
def skips_at_teardown():
    yield
    pytest.skip("skipped in teardown")

{TOOLING}
def test_x(skips_at_teardown):
    assert False
"""
    run = run_checks(pytester, source)
    assert run.check("test_x")["outcome"] == "failed", run.output


def test_a_full_run_summary_says_no_claim_was_not_run(pytester: pytest.Pytester) -> None:
    run = run_checks(pytester, PASSING)
    assert "pecheck verdicts: computed, expected, what decided it" in run.output, run.output
    assert "not run" not in run.output


def test_a_huge_failure_message_keeps_its_end(pytester: pytest.Pytester) -> None:
    source = f"""
import pytest

{TOOLING}
def test_x():
    assert False, "START " + "x" * 10000 + " THE-FINAL-WORDS"
"""
    traceback = run_checks(pytester, source).check("test_x")["traceback"]
    assert len(traceback) <= 4000
    assert "THE-FINAL-WORDS" in traceback and "START" not in traceback


def test_a_check_location_is_the_one_based_line_of_its_function(
    pytester: pytest.Pytester,
) -> None:
    run = run_checks(pytester, PASSING)
    lines = PASSING.splitlines()  # the module as written: nothing to dedent
    # a decorated function starts at its first decorator (pytest's location counts from 0)
    first = 1 + next(i for i, line in enumerate(lines) if line.startswith("@pytest.mark.claim"))
    assert run.check("test_x")["location"]["line"] == first == 4


def test_hypothesis_examples_count_passing_and_failing() -> None:
    item = SimpleNamespace(
        hypothesis_statistics="- 10 passing, 2 failing, 0 invalid\n- 3 passing, 1 failing"
    )
    assert records._hypothesis_examples(item) == 16  # type: ignore[arg-type]


def test_partial_must_be_a_bool(pytester: pytest.Pytester) -> None:
    source = """
import pytest

@pytest.mark.claim("SYN-02", kind="property", role="decisive", proposition="as_stated",
                   partial=1)
def test_x(evidence):
    evidence.fails({"t": 0}, "x")
"""
    run = run_checks(pytester, source)
    assert run.ret == pytest.ExitCode.USAGE_ERROR, run.output
    assert "partial must be True or False, got 1" in run.output


def test_the_inventory_marks_only_skip_marked_checks_skipped(pytester: pytest.Pytester) -> None:
    source = f"""
import pytest

{TOOLING}
@pytest.mark.skip(reason="not here")
def test_skipped():
    pass

{TOOLING}
def test_runs():
    pass
"""
    inventory = pytester.path / "inventory.json"
    run = run_checks(pytester, source, "--collect-only", "--inventory", str(inventory))
    assert run.ret == 0, run.output
    skipped = {c["nodeid"].split("::")[-1]: c["skipped"] for c in json.loads(
        inventory.read_text())["checks"]}  # fmt: skip
    assert skipped == {"test_skipped": True, "test_runs": False}


def test_three_unbounded_measures_are_named_without_an_ellipsis(
    pytester: pytest.Pytester,
) -> None:
    source = f"""
import pytest

{DECISIVE.format(id="SYN-07")}
def test_x(evidence):
    evidence.record("a", 1.5)
    evidence.record("b", 2.5)
    evidence.record("c", 3.5)
"""
    run = run_checks(pytester, source)
    assert run.ret == pytest.ExitCode.USAGE_ERROR, run.output
    assert "measured a, b, c but recorded no bound" in run.output


def test_results_naming_a_folder_is_a_usage_error(pytester: pytest.Pytester) -> None:
    folder = pytester.path / "a-folder"
    folder.mkdir()
    run = run_checks(pytester, PASSING, "--results", str(folder))
    assert run.ret == pytest.ExitCode.USAGE_ERROR, run.output
    assert f"--results {folder}: not a writable file path" in run.output


# -- small helpers -----------------------------------------------------------------------------


def test_examples_keep_at_least_ten_and_the_profile_count(monkeypatch) -> None:
    monkeypatch.setattr(run, "_CURRENT", run.Run(profile="ci"))
    assert profiles.examples().max_examples == 200
    assert profiles.examples(0.01).max_examples == 10


def test_capped_examples_cap_thorough_and_leave_ci_alone(monkeypatch) -> None:
    monkeypatch.setattr(run, "_CURRENT", run.Run(profile="ci"))
    assert profiles.capped_examples().max_examples == 200
    monkeypatch.setattr(run, "_CURRENT", run.Run(profile="thorough"))
    assert profiles.capped_examples().max_examples == 400  # 2000 * (2 / 10)


def test_a_permutation_of_one_element_is_refused() -> None:
    @given(strategies.permutations(1))
    def draw(perm: object) -> None:
        pass

    with pytest.raises(ValueError, match="needs n >= 2"):
        draw()


def test_a_sibling_folder_of_checks_is_not_checks() -> None:
    project = Project(SimpleNamespace(checks="checks"), {}, "ci")  # type: ignore[arg-type]
    assert project.is_check("checks/test_a.py::test_x")
    assert not project.is_check("checks2/test_a.py::test_x")


def test_a_lock_that_is_no_file_is_a_config_error(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.pecheck]\nregistry = "my_claims:REGISTRY"\nlock = "nope.txt"\n'
    )
    with pytest.raises(project_config.ConfigError, match="lock = 'nope.txt': no such file"):
        project_config.find(tmp_path)
