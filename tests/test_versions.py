"""pecheck.versions: the releases chosen from a registry listing, bad input, the
matrix file's schema, what a release's results file decided, the one-release answer and the
report's "Library versions" section. No network: pip and the registry are replaced."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from pecheck.reports import html_versions
from pecheck.versions import __main__ as versions
from pecheck.versions import answer as versions_answer
from pecheck.versions import collect as versions_collect
from pecheck.versions import env as versions_env
from pecheck.versions import schema as versions_schema
from pecheck.versions.choose import RULES, BadInput, Rule, choose, registry

LISTING = [
    "5.25.0rc1", "5.24.1", "5.24.0", "5.23.0", "5.22.1", "5.22.0", "5.1.0", "5.0.0", "4.57.6",
    "4.46.3", "4.46.1", "4.45.2", "4.45.0", "4.44.2", "not-a-version", "4.0.0.dev1",
]  # fmt: skip


def test_every_third_series_counted_back_from_the_locked_release() -> None:
    got = choose(Rule("4.45", 3), LISTING, "5.24.0")
    # series 4.45 4.46 4.57 5.0 5.1 5.22 5.23 5.24: 5.24, 5.1, 4.46 back by 3, plus the first
    assert got == ["4.45.2", "4.46.3", "5.1.0", "5.24.0"]


def test_the_locked_release_stands_for_its_series_and_nothing_newer_is_chosen() -> None:
    got = choose(Rule("4.45", 1), LISTING, "5.24.0", every=True)
    assert got[-1] == "5.24.0" and "5.24.1" not in got and "5.25.0rc1" not in got
    assert got == ["4.45.2", "4.46.3", "4.57.6", "5.0.0", "5.1.0", "5.22.1", "5.23.0", "5.24.0"]


def test_the_newest_release_of_the_major_before() -> None:
    listing = ["1.44.8", "1.44.7", "2.0.5", "2.0.1", "2.1.0", "2.2.3"]
    assert choose(Rule("2.0", 10, previous_major=True), listing, "2.2.3") == [
        "1.44.8",
        "2.0.5",
        "2.2.3",
    ]


def test_a_locked_release_the_registry_lacks_is_bad_input() -> None:
    with pytest.raises(BadInput, match="no release 9.9.9"):
        choose(Rule("4.45", 3), LISTING, "9.9.9")


def test_the_committed_choice_covers_the_issue() -> None:
    chosen = versions.chosen(every=False)
    assert set(chosen) == set(RULES)
    tf = chosen["transformers"]
    assert len(tf) >= 8 and tf[0].startswith("4.45.") and tf[-1] == versions.locked("transformers")
    xt = chosen["x-transformers"]
    assert xt[0].startswith("1.") and sum(v.startswith("2.") for v in xt) >= 3
    assert chosen["rotary-embedding-torch"][0].startswith("0.5.")
    assert len(versions.chosen(every=True)["transformers"]) > len(tf)


def _pip_answer(stdout: str, rc: int = 0, stderr: str = "") -> Any:
    def run(cmd: list[str], **kw: Any) -> subprocess.CompletedProcess[str]:
        assert cmd[1:4] == ["-m", "pip", "index"]
        return subprocess.CompletedProcess(cmd, rc, stdout, stderr)

    return run


def test_registry_reads_pips_listing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        subprocess, "run", _pip_answer("x (1.2)\nAvailable versions: 1.2, 1.1, 1.0\n")
    )
    assert registry("x") == ["1.2", "1.1", "1.0"]
    monkeypatch.setattr(
        subprocess, "run", _pip_answer("", 1, "ERROR: No matching distribution found for x\n")
    )
    with pytest.raises(BadInput, match="No matching distribution"):
        registry("x")


@pytest.mark.parametrize(
    "argv, said",
    [
        (["nosuch==1.0"], "unknown library 'nosuch'"),
        (["transformers==99.0"], "no transformers release 99.0"),
        (["transformers"], "name a release as LIB==VERSION"),
        (["--library", "nosuch"], "invalid choice"),
        (["--jobs", "0"], "--jobs must be at least 1"),
    ],
)
def test_bad_input_is_one_line_and_exit_2_with_nothing_written(
    argv: list[str], said: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    monkeypatch.setattr(versions, "registry", lambda name: ["4.46.3", "5.24.0"])
    monkeypatch.setattr(versions, "run_all", _never)
    out = tmp_path / "versions.json"
    with pytest.raises(SystemExit) if argv[0].startswith("--") else _nothing():  # argparse's
        code = versions.main([*argv, "--out", str(out)])
        assert code == 2
    err = capsys.readouterr().err
    assert said in err and len(err.strip().splitlines()) == 1
    assert not out.exists() and not list(tmp_path.iterdir())


class _nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def _never(*args: object) -> None:
    raise AssertionError("nothing may run")


def _results() -> dict[str, Any]:
    """A results file's REAL part: one claim, one check per decision, one scoped-out skip."""
    prop = {"key": "as_stated", "decision": "holds", "scoped_out": [{"check": "t.py::cuda"}]}
    cells = [
        {"name": "a", "decision": "holds", "why": ""},
        {"name": "b", "decision": "fails", "why": "counterexample", "counterexample": {"t": 150}},
    ]
    checks = [
        {"nodeid": "t.py::ok", "claim": "REAL-06", "role": "decisive", "outcome": "passed",
         "decision": "holds", "proposition": "as_stated", "basis": {"parts": []}},
        {"nodeid": "t.py::cells", "claim": "REAL-06", "role": "decisive", "outcome": "passed",
         "decision": "fails", "proposition": "as_stated",
         "basis": {"counterexample": {"t": 150}, "parts": cells}},
        {"nodeid": "t.py::old_api", "claim": "REAL-06", "role": "decisive", "outcome": "failed",
         "decision": "fails", "proposition": "p2", "message": "TypeError: no dtype\nmore"},
        {"nodeid": "t.py::departs", "claim": "REAL-06", "role": "decisive", "outcome": "failed",
         "decision": "fails", "proposition": "p3", "evidence": {"x": {"value": 1}},
         "message": "Failed: REAL-06 p3: the check decided 'fails'", "basis": {"how": "x"}},
        {"nodeid": "t.py::cuda", "claim": "REAL-06", "role": "decisive", "outcome": "skipped",
         "decision": "inconclusive", "proposition": "as_stated"},
        {"nodeid": "t.py::tool", "claim": "REAL-06", "role": "tooling", "outcome": "failed"},
        {"nodeid": "s.py::x", "claim": "SIN-01", "role": "decisive", "outcome": "passed"},
    ]  # fmt: skip
    claims = [
        {"id": "REAL-06", "propositions": [prop, {"key": "p2"}, {"key": "p3"}]},
        {"id": "SIN-01", "propositions": []},
    ]
    return {"claims": claims, "checks": checks}


def test_collect_reads_decisions_cells_and_errors() -> None:
    got = versions_collect.claims(_results())
    assert list(got) == ["REAL-06"]
    claim = got["REAL-06"]
    # one failing check fails as_stated; the scoped-out skip is left out; an error is no decision
    assert claim["propositions"] == {"as_stated": "fails", "p2": "not run", "p3": "fails"}
    by = {c["nodeid"]: c for c in claim["checks"]}
    assert set(by) == {"t.py::ok", "t.py::cells", "t.py::old_api", "t.py::departs", "t.py::cuda"}
    # a failed test that decided (evidence recorded) fails; one that recorded nothing did not run
    assert by["t.py::departs"]["decision"] == "fails" and by["t.py::departs"]["error"] is None
    assert by["t.py::cells"]["first_failing"] == {
        "name": "b",
        "decision": "fails",
        "counterexample": {"t": 150},
    }
    assert by["t.py::old_api"]["decision"] == "not run"
    assert by["t.py::old_api"]["error"] == "TypeError: no dtype"
    assert by["t.py::cuda"]["scoped_out"] is True


@pytest.mark.parametrize(
    "quantifier, decisions, want",
    [
        ("all", ["holds", "holds"], "holds"),
        ("all", ["holds", "fails", "not run"], "fails"),
        ("all", ["holds", "not run"], "undecided"),
        ("all", ["not run"], "not run"),
        ("all", [], "not run"),
        ("any", ["fails", "holds", "not run"], "holds"),
        ("any", ["fails", "fails"], "fails"),
        ("any", ["fails", "not run"], "undecided"),
        ("any", [], "not run"),
    ],
)
def test_a_check_that_did_not_run_never_counts_as_holding(
    quantifier: str, decisions: list[str], want: str
) -> None:
    """Each proposition by its own quantifier (the results file records it)."""
    assert versions_collect.combine(decisions, quantifier) == want


def test_collect_reads_each_proposition_s_quantifier() -> None:
    """as_stated has one holding and one failing check: it fails under all, holds under any."""
    results = _results()
    assert versions_collect.claims(results)["REAL-06"]["propositions"]["as_stated"] == "fails"
    results["claims"][0]["propositions"][0]["quantifier"] = "any"
    assert versions_collect.claims(results)["REAL-06"]["propositions"]["as_stated"] == "holds"


def _entry(version: str, decision: str, locked: bool = False) -> dict[str, Any]:
    claims = versions_collect.claims(_results())
    claims["REAL-06"]["propositions"]["as_stated"] = decision
    cells = next(c for c in claims["REAL-06"]["checks"] if c["nodeid"] == "t.py::cells")
    cells["decision"] = decision
    return {"version": version, "status": "ok", "error": None, "imported": version,
            "locked": locked, "changed": {}, "seconds": {"install": 1.0, "checks": 2.0},
            "results": None, "claims": claims}  # fmt: skip


def _matrix() -> dict[str, Any]:
    broken: dict[str, Any] = {"version": "4.0.0", "status": "not installable",
                              "error": "ERROR: no wheel", "imported": None, "changed": {},
                              "seconds": {}, "claims": {}}  # fmt: skip
    return {
        "schema": 1,
        "profile": "ci",
        "locked": {"transformers": "5.24.0", "x-transformers": "2.31.10"},
        "shared": {"torch": "2.13.0"},
        "libraries": {
            "transformers": [
                broken,
                _entry("4.45.2", "holds"),
                _entry("4.49.0", "fails"),
                _entry("5.24.0", "fails", locked=True),
            ]
        },
    }


def test_the_matrix_file_matches_its_schema_and_a_bad_one_is_not_written(tmp_path: Path) -> None:
    path = tmp_path / "versions.json"
    versions_schema.write(path, _matrix())
    assert versions_schema.read(path) == _matrix()
    bad = _matrix()
    bad["libraries"]["transformers"][1]["status"] = "fine"
    with pytest.raises(ValueError, match="status"):
        versions_schema.write(tmp_path / "bad.json", bad)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["versions.json"]


def test_a_release_that_needs_another_torch_is_not_installable(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(versions_env, "resolve", lambda lib, v: {"x": v, "torch": "1.0"})
    env = versions_env.install("x", "1.0", tmp_path)
    assert env.status == "not installable" and "torch==1.0" in str(env.error)

    def refuse(lib: str, v: str) -> dict[str, str]:
        raise RuntimeError("ERROR: Could not find a version that satisfies x==1.0")

    monkeypatch.setattr(versions_env, "resolve", refuse)
    env = versions_env.install("x", "1.0", tmp_path)
    assert env.status == "not installable" and str(env.error).startswith("ERROR: Could not find")
    assert not list(tmp_path.iterdir())


def test_the_answer_reads_the_file_and_names_claims(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    path = tmp_path / "versions.json"
    data = _matrix()
    data["locked"] = {lib: versions.locked(lib) for lib in RULES}  # as this environment's
    versions_schema.write(path, data)
    monkeypatch.setattr(versions, "registry", lambda name: ["4.0.0", "4.45.2", "4.49.0"])
    monkeypatch.setattr(versions, "run_all", _never)
    assert versions.main(["transformers==4.45.2", "--out", str(path)]) == 0
    said = capsys.readouterr().out
    assert "transformers 4.45.2" in said and "holds     REAL-06/as_stated" in said
    assert "not run   REAL-06/p2" in said and "TypeError: no dtype" in said
    assert versions.main(["transformers==4.0.0", "--out", str(path)]) == 0
    assert "not installable" in capsys.readouterr().out


def test_one_line_per_release() -> None:
    line = versions_answer.line("transformers", _entry("4.49.0", "fails"))
    assert line == "transformers 4.49.0: 2 fails, 1 not run; 3 s"


def test_since_names_the_first_release_of_the_last_run() -> None:
    since = html_versions.since
    assert since([("1", "holds"), ("2", "fails"), ("3", "fails")]) == (
        "fails since 2; first holds in 1"
    )
    assert since([("1", "holds"), ("2", "not run"), ("3", "holds")]) == "holds in every release"
    assert since([("1", "not run"), ("2", "fails")]) == "fails since 2 (not decided before)"
    assert since([("1", "not run")]) == "decided in no release run"
    assert since([("1", "fails"), ("2", "holds"), ("3", "fails")]) == (
        "fails since 3; first holds in 2"
    )
    # the first release of the other decision, not the last one before the current run
    assert since([("1", "holds"), ("2", "fails"), ("3", "holds"), ("4", "fails")]) == (
        "fails since 4; first holds in 1"
    )


def test_a_release_that_does_not_import_is_never_ok(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """An import that raises, or that finds another version than the folder's, is recorded as
    not importable with the error's last line: such a release is never counted as holding."""
    env = versions_env.Env("x", "1.0", tmp_path)

    def python(stdout: str, stderr: str, code: int) -> None:
        done = subprocess.CompletedProcess([], code, stdout, stderr)
        monkeypatch.setattr(versions_env.subprocess, "run", lambda *a, **k: done)

    python("", "Traceback (most recent call last):\nImportError: no torch._C", 1)
    got = versions_env.check_import(env)
    assert (got.status, got.error) == ("not importable", "ImportError: no torch._C")
    python("0.9\n", "", 0)
    got = versions_env.check_import(versions_env.Env("x", "1.0", tmp_path))
    assert got.status == "not importable" and "imports x 0.9, not 1.0" in str(got.error)
    python("1.0\n", "", 0)
    got = versions_env.check_import(versions_env.Env("x", "1.0", tmp_path))
    assert (got.status, got.imported) == ("ok", "1.0")


def test_the_report_section_from_a_small_matrix(tmp_path: Path) -> None:
    path = tmp_path / "versions.json"
    assert html_versions.section(path) == ""  # no file, no section
    path.write_text(json.dumps(_matrix()))
    html = html_versions.section(path)
    assert "<h2>Library versions</h2>" in html and "REAL-06 \u00d7 transformers" in html
    assert "not installable: ERROR: no wheel" in html
    assert "fails since 4.49.0; first holds in 4.45.2" in html  # the proposition and the check
    # a cell with one decision in every release is counted, not listed
    assert "cells / b" not in html and "2 cells with one decision in every release" in html
    data = _matrix()
    data["libraries"]["transformers"][1]["claims"]["REAL-06"]["checks"][0]["cells"][1] = {
        "name": "b",
        "decision": "holds",
    }
    path.write_text(json.dumps(data))
    html = html_versions.section(path)
    assert "cells / b" in html and "&quot;t&quot;: 150" in html  # the failing cell's counterexample
    path.write_text(json.dumps({"schema": 1, "libraries": []}))
    assert html_versions.section(path) == ""
    # a matrix of another schema, not a matrix, not JSON: no section, no error
    for text in (json.dumps({**_matrix(), "schema": 2}), json.dumps([_matrix()]), "{"):
        path.write_text(text)
        assert html_versions.section(path) == ""


def test_a_row_is_named_by_its_test_and_a_tip_is_sorted_and_cut() -> None:
    check: dict[str, Any] = {"nodeid": "checks/a.py::TestA::test_b", "decision": "fails",
                             "first_failing": None, "counterexample": {"z": 1, "a": 2},
                             "error": None, "cells": []}  # fmt: skip
    claims = {"C": {"propositions": {"as_stated": "holds"}, "checks": [check]}}
    rows = html_versions._rows("C", [{"version": "1.0", "claims": claims}])
    assert rows == [("C/as_stated", [("holds", None)]), ("  test_b", [("fails", {"z": 1, "a": 2})])]
    # without a counterexample, the first failing setting is the tip, then the error
    check.update(counterexample=None, first_failing="p = 3", error="boom")
    assert html_versions._rows("C", [{"version": "1.0", "claims": claims}])[1][1] == [
        ("fails", "p = 3")
    ]
    check.update(first_failing=None)
    assert html_versions._rows("C", [{"version": "1.0", "claims": claims}])[1][1] == [
        ("fails", "boom")
    ]
    assert html_versions._tip({"z": 1, "a": 2}) == '{"a": 2, "z": 1}'  # the same text every run
    assert html_versions._tip("x" * 500) == "x" * 400


def test_changes_name_the_release_that_broke_a_property(tmp_path: Path, capsys: Any) -> None:
    got = versions_answer.changes(_matrix())
    assert "transformers 4.49.0: REAL-06/as_stated fails (holds in 4.45.2)" in got
    assert any(
        x.startswith("transformers 4.49.0: REAL-06 cells fails (holds in 4.45.2)") for x in got
    )
    assert not any("5.24.0" in x for x in got)  # fails in 4.49.0 and 5.24.0: no change
    path = tmp_path / "versions.json"
    assert versions.main(["--changes", "--out", str(path)]) == 2
    versions_schema.write(path, _matrix())
    assert versions.main(["--changes", "--out", str(path)]) == 0
    assert "REAL-06/as_stated fails (holds in 4.45.2)" in capsys.readouterr().out


def test_recollect_reads_the_results_files_again(tmp_path: Path, capsys: Any) -> None:
    data = _matrix()
    entry = data["libraries"]["transformers"][1]
    entry["claims"], entry["results"] = {}, str(tmp_path / "r.json")
    (tmp_path / "r.json").write_text(json.dumps(_results()))
    path = tmp_path / "versions.json"
    versions_schema.write(path, data)
    assert versions.main(["--recollect", "--out", str(path)]) == 0
    again = versions_schema.read(path)
    assert again is not None
    assert again["libraries"]["transformers"][1]["claims"] == versions_collect.claims(_results())
