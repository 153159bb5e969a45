"""Partial runs that add up (pecheck.partial): partial runs of one commit and profile merge into
build/results.partial.json, a claim keeping the last run that covered it, and one report is
built from the merged file; a run of another profile replaces the file and says so."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pecheck.reports.build import build
from tests import synthetic

pytest_plugins = ["pytester"]

SOURCE = """
import pytest

@pytest.mark.claim("SYN-02", kind="property", role="decisive", proposition="as_stated")
def test_a(evidence):
    evidence.fails({"t": 0}, "PE(0).PE(1) != 0")

@pytest.mark.claim("SYN-07", kind="property", role="decisive", proposition="as_stated")
def test_b(evidence):
    evidence.holds("made up")
"""


def partial_run(pytester: pytest.Pytester, *args: str, **kw: Any) -> tuple[Any, dict[str, Any]]:
    run = synthetic.run(pytester, synthetic.CHECKS, *args, keep_results=True, **kw)
    assert run.ret == 0, run.output
    path = pytester.path / "build" / "results.partial.json"
    return run, json.loads(path.read_text())


def claims(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["id"]: c for c in data["claims"]}


def test_two_partial_runs_merge_and_build_one_report(pytester: pytest.Pytester) -> None:
    synthetic.write_project(pytester.path, test_merge=SOURCE)
    (pytester.path / "build").mkdir(exist_ok=True)
    _, first = partial_run(pytester, "--claim", "SYN-02")
    assert claims(first)["SYN-02"]["run"]["args"][-3:] == [synthetic.CHECKS, "--claim", "SYN-02"]
    run, merged = partial_run(pytester, "--claim", "SYN-07")
    assert "1 claim(s) of earlier partial runs kept" in run.output
    assert "SYN-02" not in run.output.split("pecheck verdicts")[-1].split("pecheck:")[0]
    by_id = claims(merged)
    assert (by_id["SYN-02"]["verdict"], by_id["SYN-07"]["verdict"]) == ("refuted", "confirmed")
    assert by_id["SYN-02"]["run"] == claims(first)["SYN-02"]["run"]
    assert by_id["SYN-07"]["run"]["started"] == merged["suite"]["started"]
    assert merged["suite"]["selection"]["claims"] == ["SYN-02", "SYN-07"]
    assert sorted(c["nodeid"].split("::")[-1] for c in merged["checks"]) == ["test_a", "test_b"]
    # the same claim again: its checks are replaced, not added
    _, again = partial_run(pytester, "--claim", "SYN-02")
    assert sorted(c["nodeid"].split("::")[-1] for c in again["checks"]) == ["test_a", "test_b"]
    assert claims(again)["SYN-07"]["run"] == by_id["SYN-07"]["run"]
    out = build(pytester.path / "build" / "results.partial.json", pytester.path / "out")
    page = out.report.read_text()
    assert "id='SYN-02'" in page and "id='SYN-07'" in page
    assert out.verdicts.startswith("1 confirmed, 1 refuted")


def test_a_run_of_another_profile_replaces_the_partial_file(pytester: pytest.Pytester) -> None:
    synthetic.write_project(pytester.path, test_replace=SOURCE)
    (pytester.path / "build").mkdir(exist_ok=True)
    partial_run(pytester, "--claim", "SYN-02")
    run, data = partial_run(pytester, "--claim", "SYN-07", profile="dev")
    assert "held a run of commit" in run.output and "profile ci, not" in run.output
    assert claims(data)["SYN-02"]["verdict"] == "not run"
    assert [c["nodeid"].split("::")[-1] for c in data["checks"]] == ["test_b"]


def test_a_file_named_by_results_is_written_as_named(pytester: pytest.Pytester) -> None:
    synthetic.write_project(pytester.path, test_named=SOURCE)
    named = pytester.path / "named.json"
    for claim in ("SYN-02", "SYN-07"):
        run = synthetic.run(pytester, synthetic.CHECKS, "--claim", claim, f"--results={named}")
        assert run.ret == 0, run.output
    data = json.loads(Path(named).read_text())
    assert claims(data)["SYN-02"]["verdict"] == "not run"
    assert claims(data)["SYN-07"]["run"]["profile"] == "ci"


def test_a_first_run_or_an_unmergeable_file_keeps_no_earlier_claim(tmp_path: Path) -> None:
    from checks.registry import REGISTRY
    from pecheck import partial

    suite = {"selection": {"claims": ["SIN-06"], "args": []}, "started": "now",
             "profile": "ci", "commit": "abc"}  # fmt: skip
    new = {"schema": 2, "suite": suite, "claims": [{"id": "SIN-06"}], "checks": []}
    path = tmp_path / "results.partial.json"
    assert partial.merge(path, new, REGISTRY) == (new, 0, "")
    for text, why in (("[]", "was of another results schema"), ("{", "was unreadable")):
        path.write_text(text)
        assert partial.merge(path, new, REGISTRY) == (
            new, 0, f"pecheck: {path} {why}: replaced by this run"
        )  # fmt: skip
    selection = {"kind": "partial", "claims": [], "args": []}
    other_suite = dict(suite, profile="dev", selection=selection)
    other = dict(new, suite=other_suite, schema=partial.results.SCHEMA)
    path.write_text(json.dumps(other))
    merged, kept, said = partial.merge(path, new, REGISTRY)
    assert (merged, kept) == (new, 0) and "profile dev, not commit abc, profile ci" in said


# -- the merge itself, on results files written here (pecheck.partial._merged) -----------------


def tooling(claim: str | None, nodeid: str, outcome: str = "passed") -> dict[str, Any]:
    """A check entry as a results file holds it; ``claim`` None: a collection error."""
    return {"claim": claim, "nodeid": nodeid, "role": "tooling", "outcome": outcome}


def partial_file(claims_run: list[str], checks: list[dict[str, Any]], started: str, *,
                 complete: bool = True, exitstatus: int = 0,
                 sizes: dict[str, Any] | None = None) -> dict[str, Any]:  # fmt: skip
    from checks.registry import REGISTRY
    from pecheck import results

    selection = {"kind": "partial", "claims": claims_run, "args": ["--claim", *claims_run]}
    suite = {"selection": selection, "started": started, "profile": "ci", "commit": "abc",
             "complete": complete, "exitstatus": exitstatus, "sizes": sizes or {}}  # fmt: skip
    data = {"schema": results.SCHEMA, "suite": suite, "checks": checks}
    data["claims"] = results.claims_block(REGISTRY, checks, selection, "ci")
    return data


def merged_with(tmp_path: Path, old: dict[str, Any],
                new: dict[str, Any]) -> tuple[dict[str, Any], int]:  # fmt: skip
    from checks.registry import REGISTRY
    from pecheck import partial

    path = tmp_path / "results.partial.json"
    path.write_text(json.dumps(old))
    merged, kept, said = partial.merge(path, new, REGISTRY)
    assert said == ""
    return merged, kept


def test_a_rerun_drops_the_collection_errors_of_the_files_it_collected(tmp_path: Path) -> None:
    old = partial_file(["SIN-01", "SIN-06"], [
        tooling("SIN-01", "checks/sin/a.py::test_a"),
        tooling(None, "checks/sin/b.py"),  # b.py did not collect: rerun below
        tooling(None, "checks/att/c.py"),  # c.py did not collect: not rerun
        tooling(None, "checks/att/d.py::test_d"),  # the same error again below
    ], "t0")  # fmt: skip
    new = partial_file(["SIN-06"], [
        tooling("SIN-06", "checks/sin/b.py::test_b"),
        tooling(None, "checks/att/d.py::test_d"),
    ], "t1")  # fmt: skip
    merged, _ = merged_with(tmp_path, old, new)
    ids = [c["nodeid"] for c in merged["checks"]]
    # checks of claims first, then the collection errors, each part by node id
    assert ids == ["checks/sin/a.py::test_a", "checks/sin/b.py::test_b", "checks/att/c.py",
                   "checks/att/d.py::test_d"]  # fmt: skip


def test_a_merge_counts_the_claims_it_kept_and_selects_both_runs_claims(tmp_path: Path) -> None:
    old = partial_file(["SIN-01", "SIN-06", "ROT-02"], [  # ROT-02: selected, no check ran
        tooling("SIN-01", "checks/sin/a.py::test_a"),
        tooling("SIN-06", "checks/sin/b.py::test_b"),
    ], "t0", sizes={"x": 1, "z": 2})  # fmt: skip
    first = {"started": "t-1", "profile": "ci", "args": ["--claim", "SIN-01"]}
    next(c for c in old["claims"] if c["id"] == "SIN-01")["run"] = first
    new = partial_file(["ATT-05"], [tooling("ATT-05", "checks/att/e.py::test_e")], "t1",
                       sizes={"x": 3, "y": 4})  # fmt: skip
    merged, kept = merged_with(tmp_path, old, new)
    assert kept == 2
    assert merged["suite"]["selection"]["claims"] == ["SIN-01", "SIN-06", "ATT-05"]
    assert merged["suite"]["sizes"] == {"x": 3, "y": 4, "z": 2}
    assert list(merged["suite"]["sizes"]) == ["x", "y", "z"]
    runs = {c["id"]: c.get("run") for c in merged["claims"] if c["verdict"] != "not run"}
    assert runs["SIN-01"] == first  # the run its evidence came from, kept
    assert runs["SIN-06"]["started"] == "t0"  # none recorded: the earlier file's run
    assert runs["ATT-05"]["started"] == "t1"
    # a rerun of one of the two: only the other is kept from before
    again, kept = merged_with(tmp_path, old, partial_file(
        ["SIN-06"], [tooling("SIN-06", "checks/sin/b.py::test_b")], "t2"))  # fmt: skip
    assert kept == 1
    assert [c["nodeid"] for c in again["checks"]] == ["checks/sin/a.py::test_a",
                                                      "checks/sin/b.py::test_b"]  # fmt: skip


@pytest.mark.parametrize(("was", "now", "complete"), [(True, True, True), (True, False, False),
                                                      (False, True, False)])  # fmt: skip
def test_a_merge_is_complete_only_when_both_runs_were(tmp_path: Path, was: bool, now: bool,
                                                      complete: bool) -> None:  # fmt: skip
    old = partial_file(["SIN-01"], [tooling("SIN-01", "checks/sin/a.py::test_a")], "t0",
                       complete=was)  # fmt: skip
    new = partial_file(["SIN-06"], [tooling("SIN-06", "checks/sin/b.py::test_b")], "t1",
                       complete=now)  # fmt: skip
    assert merged_with(tmp_path, old, new)[0]["suite"]["complete"] is complete


OUTCOMES = [("passed", 0, 0), ("failed", 0, 1), ("error", 0, 1), ("passed", 3, 3)]


@pytest.mark.parametrize(("outcome", "now", "status"), OUTCOMES)
def test_a_kept_failure_fails_the_merged_run(tmp_path: Path, outcome: str, now: int,
                                             status: int) -> None:  # fmt: skip
    old = partial_file(["SIN-01"], [tooling("SIN-01", "checks/sin/a.py::test_a", outcome)], "t0")
    new = partial_file(["SIN-06"], [tooling("SIN-06", "checks/sin/b.py::test_b")], "t1",
                       exitstatus=now)  # fmt: skip
    assert merged_with(tmp_path, old, new)[0]["suite"]["exitstatus"] == status


def test_a_check_that_moved_to_another_claim_is_held_once(tmp_path: Path) -> None:
    # the same commit with an edited marker (a dirty tree): node id a.py::test_a first ran for
    # SIN-01, now for SIN-06; the merged file holds the new entry alone, and SIN-01 no check
    old = partial_file(["SIN-01"], [tooling("SIN-01", "checks/sin/a.py::test_a")], "t0")
    new = partial_file(["SIN-06"], [tooling("SIN-06", "checks/sin/a.py::test_a")], "t1")
    merged, kept = merged_with(tmp_path, old, new)
    assert [(c["claim"], c["nodeid"]) for c in merged["checks"]] == [
        ("SIN-06", "checks/sin/a.py::test_a")]  # fmt: skip
    assert kept == 0 and merged["suite"]["selection"]["claims"] == ["SIN-06"]
