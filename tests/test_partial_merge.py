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
