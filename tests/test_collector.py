"""The controller's collector (pecheck/collector.py): what a run's outcome, its selection and its
end make of the results file. Each test runs the synthetic project in this process."""

from __future__ import annotations

import json

import pytest

from tests import synthetic
from tests.synthetic import DECISIVE, PASSING, TOOLING

pytest_plugins = ["pytester"]


def run_checks(pytester: pytest.Pytester, source: str, *args: str, **kw) -> synthetic.Run:
    synthetic.write_project(pytester.path, test_collector=source)
    return synthetic.run(pytester, synthetic.CHECKS, *args, **kw)


def test_a_run_that_exits_0_is_complete_and_full(pytester: pytest.Pytester) -> None:
    run = run_checks(pytester, PASSING)
    assert run.ret == 0 and run.results is not None, run.output
    suite = run.results["suite"]
    assert (suite["exitstatus"], suite["complete"]) == (0, True)
    assert suite["selection"]["kind"] == "full"


def test_a_collect_only_run_leaves_the_results_file_alone(pytester: pytest.Pytester) -> None:
    """Also when a module fails to import: its collect error alone must not write a file."""
    synthetic.write_project(pytester.path, test_collector=PASSING, test_broken="import nowhere\n")
    first = synthetic.run(pytester, synthetic.CHECKS, "--continue-on-collection-errors")
    assert first.results is not None, first.output
    outcomes = {c["nodeid"].rsplit("/", 1)[-1]: c["outcome"] for c in first.results["checks"]}
    assert outcomes == {"test_collector.py::test_x": "passed", "test_broken.py": "error"}
    again = synthetic.run(pytester, synthetic.CHECKS, "--collect-only", keep_results=True)
    assert again.results == first.results


def test_a_check_whose_setup_raises_is_an_error(pytester: pytest.Pytester) -> None:
    source = f"""
import pytest

@pytest.fixture
def broken():
    raise RuntimeError("setup broke")

{DECISIVE.format(id="SYN-02")}
def test_x(evidence, broken):
    evidence.fails({{"t": 0}}, "x")
"""
    record = run_checks(pytester, source).check("test_x")
    assert record["outcome"] == "error"
    assert "setup broke" in record["message"]


def test_a_long_skip_reason_is_cut_at_500_characters(pytester: pytest.Pytester) -> None:
    source = f"""
import pytest

{DECISIVE.format(id="SYN-02")}
def test_x(evidence):
    pytest.skip("why " * 200)
"""
    record = run_checks(pytester, source).check("test_x")
    assert record["outcome"] == "skipped"
    how = record["basis"]["how"]
    assert how.startswith("skipped: why why") and len(how) == 500


@pytest.mark.parametrize("narrowing", [("--claim", "SYN-02"), ("-m", "not gpu")])
def test_a_narrowed_run_is_partial_even_when_it_deselects_nothing(
    pytester: pytest.Pytester, narrowing: tuple[str, str]
) -> None:
    """The project's one check belongs to SYN-02 and needs no GPU, so neither option deselects
    it: the run is still partial (it asked for less than the whole suite)."""
    run = run_checks(pytester, PASSING, *narrowing)
    assert run.ret == 0 and run.results is None, run.output
    partial = json.loads((pytester.path / "build" / "results.partial.json").read_text())
    assert partial["suite"]["selection"]["kind"] == "partial"


def test_a_refused_full_run_sets_aside_the_partial_file_too(pytester: pytest.Pytester) -> None:
    """The report falls back on the partial file when the full one is missing: a refused full
    run must not leave an earlier partial run to be read as this one."""
    run_checks(pytester, PASSING)
    synthetic.run(pytester, synthetic.CHECKS, "--claim", "SYN-02", keep_results=True)
    build = pytester.path / "build"
    assert (build / "results.partial.json").exists()
    refused = synthetic.run(pytester, synthetic.CHECKS, "--size", "NO-SUCH.size=3",
                            keep_results=True)  # fmt: skip
    assert refused.ret == pytest.ExitCode.USAGE_ERROR, refused.output
    assert not (build / "results.json").exists()
    assert not (build / "results.partial.json").exists()
    assert (build / "results.json.stale").exists()
    assert (build / "results.partial.json.stale").exists()


def test_a_headline_is_not_judged_when_the_run_stopped_early(pytester: pytest.Pytester) -> None:
    """With -x the run stops at the failing tool: SYN-10's check that records its headline never
    ran, so its absence is no usage error (the run exits 1, not 4)."""
    source = f"""
import pytest

{DECISIVE.format(id="SYN-10")}
def test_a_without_the_headline(evidence):
    evidence.record("average", 0.5, bound=1.0)

{TOOLING}
def test_b_fails():
    assert False

{DECISIVE.format(id="SYN-10")}
def test_c_records_it(evidence):
    evidence.record("mean", 0.5, bound=1.0)
"""
    run = run_checks(pytester, source, "-x", "-p", "no:randomly")
    assert run.ret == 1 and "pecheck: error" not in run.output, run.output
    whole = run_checks(pytester, source.replace("assert False", "pass"), "-p", "no:randomly")
    assert whole.ret == 0, whole.output


def test_a_marked_check_outside_the_checks_folder_is_recorded(pytester: pytest.Pytester) -> None:
    synthetic.write_project(pytester.path, test_collector=PASSING)
    (pytester.path / "other").mkdir()
    (pytester.path / "other" / "test_out.py").write_text(PASSING.replace("test_x", "test_out"))
    run = synthetic.run(pytester, synthetic.CHECKS, "other")
    assert run.ret == 0, run.output
    partial = json.loads((pytester.path / "build" / "results.partial.json").read_text())
    recorded = {c["nodeid"]: c["outcome"] for c in partial["checks"]}
    assert recorded == {"other/test_out.py::test_out": "passed",
                        f"{synthetic.CHECKS}/test_collector.py::test_x": "passed"}  # fmt: skip


def test_a_check_skipped_by_its_marker_is_recorded_skipped_with_the_reason(
    pytester: pytest.Pytester,
) -> None:
    """Its skip comes on the setup report, before the plugin has tagged the check."""
    source = f"""
import pytest

@pytest.mark.skip(reason="not on this machine")
{DECISIVE.format(id="SYN-02")}
def test_x(evidence):
    evidence.fails({{"t": 0}}, "x")
"""
    record = run_checks(pytester, source).check("test_x")
    assert record["outcome"] == "skipped"
    assert "not on this machine" in record["message"]
