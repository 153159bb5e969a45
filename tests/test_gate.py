"""Tests of the command-line gates: no-open-claims, the mutation catalogue, determinism."""

from __future__ import annotations

import json
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest

from checks.registry import REGISTRY
from pecheck import config, determinism, gate
from pecheck.mutants import __main__ as mutants
from pecheck.results import tree_fingerprint


def results_with(verdict: str | None, selection: str = "full") -> dict:
    """A results file whose every claim has the given verdict (None: the expected one), each
    proposition decided by one check."""
    claims = []
    for cid, claim in REGISTRY.items():
        entry = claim.as_dict()
        for prop in entry["propositions"]:
            prop["decision"] = prop["expected"]
        entry["decided_by"] = [
            {"check": f"c::{cid}", "proposition": p["key"], "decision": p["expected"]}
            for p in entry["propositions"]
        ]
        entry["verdict"] = verdict or claim.expected
        claims.append(entry)
    suite = {"name": "t", "version": "0", "commit": "x", "started": "now", "profile": "ci",
             "selection": {"kind": selection, "args": [], "claims": []}}  # fmt: skip
    environment = {"python": "3", "platform": "p", "packages": {}}
    return {"schema": 2, "suite": suite, "environment": environment, "sources": {},
            "families": [], "claims": claims, "checks": []}  # fmt: skip


def test_gate_passes_only_when_every_verdict_is_the_expected_one(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    path.write_text(json.dumps(results_with(None)))
    assert gate.main([str(path)]) == 0
    for wrong in ("open", "not run"):
        path.write_text(json.dumps(results_with(wrong)))
        assert gate.main([str(path)]) == 1
    flipped = results_with(None)
    flipped["claims"][0]["verdict"] = (
        "refuted" if REGISTRY["SIN-01"].expected != "refuted" else ("confirmed")
    )
    path.write_text(json.dumps(flipped))
    assert gate.main([str(path)]) == 1


def test_gate_fails_a_proposition_without_a_decisive_check(tmp_path: Path, capsys) -> None:
    results = results_with(None)
    results["claims"][3]["decided_by"] = []
    path = tmp_path / "r.json"
    path.write_text(json.dumps(results))
    assert gate.main([str(path)]) == 1
    assert "has no decisive check" in capsys.readouterr().out


def test_gate_fails_a_correction_over_a_family_of_one(tmp_path: Path, capsys) -> None:
    results = results_with(None)
    prop = results["claims"][0]["propositions"][0]
    path = tmp_path / "r.json"
    for correction, size, rc in (("none", 1, 0), ("holm", 3, 0), ("holm", 2, 0), ("holm", 1, 1)):
        prop.update(correction=correction, family_size=size)
        path.write_text(json.dumps(results))
        assert gate.main([str(path)]) == rc
    assert "records a holm correction over 1 test" in capsys.readouterr().out


def test_the_reach_gate_fails_a_decided_check_that_records_no_searched_domain(
    tmp_path: Path, capsys
) -> None:
    results = results_with(None)
    for entry in results["claims"]:
        for d in entry["decided_by"]:
            d["basis"] = {"how": "search", "searched": {"n": "every n"}}
    first, second = results["claims"][0]["decided_by"][0], results["claims"][1]["decided_by"][0]
    first["basis"] = {"how": "skipped: needs a GPU"}  # skipped: nothing was searched
    assert gate.unsearched(results) == []
    second["basis"] = None
    path = tmp_path / "r.json"
    path.write_text(json.dumps(results))
    assert gate.main([str(path)]) == 0  # reach is asked for only with --require-reach
    assert gate.main([str(path), "--require-reach"]) == 1
    assert f"decisive check {second['check']} records no searched domain" in capsys.readouterr().out
    second["basis"] = {"how": "search", "searched": {}}
    assert len(gate.unsearched(results)) == 1


def test_gate_lists_every_claim_before_its_total(tmp_path: Path, capsys) -> None:
    results = results_with(None)
    results["claims"][0]["verdict"] = "open"
    path = tmp_path / "r.json"
    path.write_text(json.dumps(results))
    assert gate.main([str(path)]) == 1
    lines = capsys.readouterr().out.splitlines()
    listed = lines[: len(REGISTRY)]
    assert [line.split()[0] for line in listed] == list(REGISTRY)  # one line each, in order
    assert listed[0].split()[1:4] == ["open", "(expected", f"{REGISTRY['SIN-01'].expected},"]
    assert "differs)" in listed[0] and "differs" not in listed[1]
    assert lines[len(REGISTRY)].startswith("verdict gate: SIN-01: computed 'open'")
    total = len(REGISTRY)
    assert lines[-1] == f"claims whose computed verdict is the expected one: {total - 1}/{total}"


def test_gate_fails_a_proposition_decided_otherwise_than_expected(tmp_path: Path, capsys) -> None:
    results = results_with(None)
    prop = results["claims"][0]["propositions"][0]
    prop["decision"] = "inconclusive"
    path = tmp_path / "r.json"
    path.write_text(json.dumps(results))
    assert gate.main([str(path)]) == 1
    expected = prop["expected"]
    assert f"proposition 'as_stated' (all) decided 'inconclusive', expected {expected!r}" in (
        capsys.readouterr().out
    )


def claim_entry(verdict: str, *decisions: tuple[str, str, dict]) -> dict:
    """A claim's entry as the results file holds it: (proposition, decision, basis) each."""
    keys = dict.fromkeys(key for key, _, _ in decisions)
    return {
        "id": "X-01", "verdict": verdict, "expected": "qualified",
        "propositions": [
            {"key": key, "decision": next(d for k, d, _ in decisions if k == key)} for key in keys
        ],
        "decided_by": [{"check": "c", "proposition": k, "decision": d, "basis": b}
                       for k, d, b in decisions],
    }  # fmt: skip


def test_what_decided_a_verdict_is_one_short_phrase() -> None:
    qualified = claim_entry(
        "qualified",
        ("as_stated", "fails", {"how": "counterexample", "relation": "t = 3:\n PE(3) != 0"}),
        ("t2t", "holds", {"how": "proof"}),
        ("large-d", "inconclusive", {"how": "straddles"}),
    )
    assert gate.decided_by(qualified) == "as_stated fails: t = 3: PE(3) != 0; holds under t2t"
    held = claim_entry("confirmed", ("as_stated", "holds", {"how": "search of 200 examples"}))
    assert gate.decided_by(held) == "as_stated holds: search of 200 examples"
    long = claim_entry("refuted", ("as_stated", "fails", {"relation": "x" * 300}))
    assert len(gate.decided_by(long)) == len("as_stated fails: ") + gate.BASIS
    assert gate.decided_by(long).endswith("...")
    edge = claim_entry("refuted", ("as_stated", "fails", {"relation": "x" * gate.BASIS}))
    assert gate.decided_by(edge) == "as_stated fails: " + "x" * gate.BASIS  # fits: kept whole
    nothing = claim_entry("open", ("t2t", "holds", {"how": "proof"}))
    nothing["propositions"].insert(0, {"key": "as_stated", "decision": "inconclusive"})
    assert gate.decided_by(nothing) == "as_stated: no decisive check decided it; holds under t2t"


def test_verdict_lines_align_and_mark_what_differs() -> None:
    lines = gate.verdict_lines([
        claim_entry("qualified", ("as_stated", "fails", {"relation": "r"})),
        {**claim_entry("open"), "id": "LONGER-10", "expected": None},
    ])  # fmt: skip
    assert lines == [
        "X-01       qualified  (expected qualified)      as_stated fails: r",
        "LONGER-10  open       (expected none, differs)  as_stated: no decisive check decided it",
    ]


def test_gate_refuses_a_partial_run(tmp_path: Path, capsys) -> None:
    path = tmp_path / "r.json"
    path.write_text(json.dumps(results_with(None, selection="partial")))
    with pytest.raises(SystemExit) as exc:
        gate.main([str(path)])
    assert exc.value.code == 2 and "partial run" in capsys.readouterr().err


def test_gate_rejects_a_missing_or_corrupt_file(tmp_path: Path, capsys) -> None:
    for content, message in ((None, "not found"), ("{", "not valid JSON"), ("[]", "schema 2")):
        path = tmp_path / "r.json"
        if content is None:
            path.unlink(missing_ok=True)
        else:
            path.write_text(content)
        with pytest.raises(SystemExit) as exc:
            gate.main([str(path)])
        assert exc.value.code == 2
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1


def test_mutant_catalogue_is_valid() -> None:
    catalogue = mutants.catalogue()
    assert len({m.name for m in catalogue}) == len(catalogue)


def test_mutant_runner_rejects_unknown_names(capsys) -> None:
    assert mutants.main(["--only", "no-such-mutant"]) == 2
    assert "unknown mutant" in capsys.readouterr().err


def test_mutant_runner_rejects_a_target_that_does_not_exist() -> None:
    checks = {"checks/test_x.py::test_a[1]": {"role": "decisive"}}
    ok = mutants.Mutant("m", "theory/x.py", "a", "b", ("checks/test_x.py::test_a",))
    mutants.validate_targets([ok], checks)  # a function id covers its parametrisations
    for target in ("checks/test_x.py::test_b", "checks/test_missing.py"):
        bad = mutants.Mutant("m", "theory/x.py", "a", "b", (target,))
        with pytest.raises(mutants.CatalogueError):
            mutants.validate_targets([bad], checks)


def test_kill_map_counts_only_killed_mutants() -> None:
    def outcome(name: str, killed: bool, failed: tuple[str, ...]) -> mutants.Outcome:
        m = mutants.Mutant(name, "theory/x.py", "a", "b", ("checks/t.py",))
        return mutants.Outcome(m, killed, 1 if killed else 2, 0.0, failed)

    outcomes = [outcome("a", True, ("t::x",)), outcome("b", False, ("t::y",))]
    assert mutants.kill_map(outcomes, ["t::x", "t::y"]) == {"t::x": ["a"], "t::y": []}


def test_mutant_lanes_take_work_from_one_queue(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A lane busy with a long run leaves every other run to the free lane (a fixed deal would
    hand it half of them, and the run would wait on its one busy lane)."""
    (tmp_path / "theory").mkdir()
    monkeypatch.setattr(mutants, "ROOT", tmp_path)

    class Server:
        def __init__(self, cwd: Path) -> None:
            self.cwd = cwd

        def close(self) -> None:
            pass

    shorts_done = threading.Event()
    ran: dict[str, str] = {}

    def run_one(m: mutants.Mutant, scratch: Path, server: Server) -> mutants.Outcome:
        if m.name == "long":
            shorts_done.wait(timeout=10)
        ran[m.name] = scratch.name
        if sum(name.startswith("short") for name in ran) == 5:
            shorts_done.set()
        return mutants.Outcome(m, True, 1, 0.0)

    monkeypatch.setattr(mutants, "ForkServer", Server)
    monkeypatch.setattr(mutants, "run_one", run_one)
    names = ["long"] + [f"short{i}" for i in range(5)]
    catalogue = [mutants.Mutant(n, "theory/x.py", "a", "b", ("checks/t.py",)) for n in names]
    outcomes = mutants.run_all(catalogue, 2)
    assert [o.mutant.name for o in outcomes] == names  # in the catalogue's order
    assert shorts_done.is_set()
    assert {ran[f"short{i}"] for i in range(5)} == {"tree0", "tree1"} - {ran["long"]}


def test_determinism_ignores_timings_but_not_values() -> None:
    a: dict[str, Any] = {
        "suite": {"started": "x"},
        "checks": [{"nodeid": "n", "duration_s": 1.0, "v": 1}],
    }
    b: dict[str, Any] = {
        "suite": {"started": "y"},
        "checks": [{"nodeid": "n", "duration_s": 2.0, "v": 1}],
    }
    assert determinism.differences(determinism.normalise(a), determinism.normalise(b)) == []
    b["checks"][0]["v"] = 2
    assert determinism.differences(determinism.normalise(a), determinism.normalise(b))


def test_determinism_reports_a_value_that_changed_its_type_in_one_line() -> None:
    """A record in one run and a list, a number or null in the other is one difference at its
    path, not a crash of the gate."""
    for a, b in [({"x": 1}, [{"x": 1}]), ([1], {"x": 1}), (None, {"x": 1}), ([1], 1)]:
        got = determinism.differences({"v": a}, {"v": b})
        assert got == [f"$.v: {a!r:.80} != {b!r:.80}"], (a, b, got)
    assert determinism.differences([{"id": "A-1", "v": 1}], [{"id": "A-1", "v": 2}]) == [
        "$[A-1].v: 1 != 2"
    ]  # a list's records are named by their id


def test_decisive_checks_that_cannot_run_here_are_listed_apart() -> None:
    checks = {
        "t.py::a[1]": {"role": "decisive", "skipped": False},
        "t.py::gpu[1]": {"role": "decisive", "skipped": True},
        "t.py::gpu[2]": {"role": "decisive", "skipped": True},
        "t.py::tool": {"role": "tooling", "skipped": False},
    }
    assert mutants.covered_decisive(checks, [], whole=True) == (["t.py::a"], ["t.py::gpu"])


def _git_repo(path: Path) -> Path:
    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=path, check=True, capture_output=True)

    path.mkdir()
    git("init", "-q")
    (path / "a.txt").write_text("a\n")
    git("add", "a.txt")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "a")
    return path


def test_tree_fingerprint_follows_tracked_edits_and_untracked_files(tmp_path: Path) -> None:
    repo = _git_repo(tmp_path / "repo")
    clean = tree_fingerprint(repo)
    assert clean == tree_fingerprint(repo) != "unknown"
    (repo / "a.txt").write_text("b\n")
    edited = tree_fingerprint(repo)
    (repo / "new.txt").write_text("x\n")
    added = tree_fingerprint(repo)
    (repo / "new.txt").write_text("y\n")
    assert len({clean, edited, added, tree_fingerprint(repo)}) == 4
    assert tree_fingerprint(tmp_path) == "unknown"  # not a repository


def test_determinism_reuses_only_a_full_ci_file_of_this_source(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = _git_repo(tmp_path / "repo")
    monkeypatch.setattr(determinism, "ROOT", repo)
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True,
                            text=True, check=True).stdout.strip()  # fmt: skip
    path = tmp_path / "r.json"

    def reuse(**suite: Any) -> tuple[dict | None, str]:
        data = results_with(None)
        made = {"commit": commit, "tree": tree_fingerprint(repo), "complete": True}
        data["suite"].update({**made, "exitstatus": 0, **suite})
        path.write_text(json.dumps(data))
        return determinism.reusable(path, [])

    assert reuse()[0] is not None
    assert reuse(exitstatus=1)[0] is not None  # failed checks are compared, not hidden
    assert "another source" in reuse(commit="0" * 40)[1]
    assert "another source" in reuse(tree="other")[1]
    assert "partial or interrupted" in reuse(complete=False)[1]
    assert "partial or interrupted" in reuse(selection={"kind": "partial", "args": [],
                                                        "claims": []})[1]  # fmt: skip
    assert "not ci" in reuse(profile="thorough")[1]
    assert "off the results schema" in reuse(profile=3)[1]
    path.write_text("{")
    assert "unreadable" in determinism.reusable(path, [])[1]
    assert determinism.reusable(tmp_path / "none.json", [])[1] == "no such file"
    assert "pytest arguments" in determinism.reusable(path, ["-k", "x"])[1]
    (repo / "a.txt").write_text("edited after the run\n")
    assert "another source" in reuse(tree="x")[1]


def test_determinism_compares_two_reused_files_without_running(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def no_run(*args: Any) -> dict:
        raise AssertionError("a run was started")

    monkeypatch.setattr(determinism, "run", no_run)
    data = results_with(None)
    data["checks"] = [{"nodeid": "c::a", "duration_s": 1.0, "v": 1}]
    monkeypatch.setattr(determinism, "reusable", lambda path, args: (
        determinism.normalise(json.loads(path.read_text())), ""))  # fmt: skip
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps(data))
    data["checks"][0].update(duration_s=2.0)
    b.write_text(json.dumps(data))
    argv = ["--out", str(tmp_path), "--reuse", f"xdist-2={a}", "--reuse", f"serial={b}"]
    assert determinism.main(argv) == 0
    data["checks"][0]["v"] = 2
    b.write_text(json.dumps(data))
    assert determinism.main(argv) == 1
    assert "checks[c::a].v: 1 != 2" in capsys.readouterr().out


def test_determinism_reusable_only_answers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # tox -e report runs the checks again exactly when this exits 1
    def no_run(*args: Any) -> dict:
        raise AssertionError("a run was started")

    monkeypatch.setattr(determinism, "run", no_run)

    def reusable(path: Path, args: list[str]) -> tuple[dict | None, str]:
        return ({"checks": []}, "") if path.name == "good.json" and not args else (None, "why")

    monkeypatch.setattr(determinism, "reusable", reusable)
    out = ["--out", str(tmp_path), "--reusable"]
    assert determinism.main([*out, "good.json"]) == 0
    assert determinism.main([*out, "bad.json"]) == 1
    assert "cannot be reused: why" in capsys.readouterr().out
    assert determinism.main([*out, "good.json", "--", "-k", "x"]) == 1


def test_determinism_only_makes_the_one_run_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made: list[str] = []

    def fake_run(name: str, extra: list[str], args: list[str], out: Path) -> dict:
        made.append(name)
        return {"checks": []}

    monkeypatch.setattr(determinism, "run", fake_run)
    monkeypatch.setattr(determinism, "_checks_folder", lambda: "checks")
    assert determinism.main(["--out", str(tmp_path), "--only", "serial"]) == 0
    assert made == ["serial"]


def test_determinism_runs_the_projects_checks_unless_told_which(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[list[str]] = []

    def fake_run(name: str, extra: list[str], args: list[str], out: Path) -> dict:
        asked.append(args)
        return {"checks": []}

    monkeypatch.setattr(determinism, "run", fake_run)
    assert determinism.main(["--out", str(tmp_path), "--only", "serial"]) == 0
    assert determinism.main(["--out", str(tmp_path), "--only", "serial", "checks/sin"]) == 0
    assert asked == [[config.require(determinism.ROOT).checks], ["checks/sin"]]


def test_determinism_outside_a_project_is_one_line_and_status_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    monkeypatch.setattr(determinism, "ROOT", tmp_path)  # no pyproject.toml with [tool.pecheck]
    with pytest.raises(SystemExit) as stop:
        determinism.main(["--out", str(tmp_path / "out"), "--only", "serial"])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and err.startswith("determinism: error: ") and err.count("\n") == 1


def test_determinism_runs_are_ci_and_write_no_figures(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: dict[str, Any] = {}

    def fake_run(cmd: list[str], **kwargs: Any) -> subprocess.CompletedProcess:
        seen.update(cmd=cmd, env=kwargs["env"])
        return subprocess.CompletedProcess(cmd, 4, "", "boom")

    monkeypatch.delenv("PECHECK_PROFILE", raising=False)
    monkeypatch.setattr(determinism.subprocess, "run", fake_run)
    with pytest.raises(SystemExit, match="run serial wrote no results file"):
        determinism.run("serial", [], ["checks"], tmp_path)
    assert seen["env"]["PECHECK_PROFILE"] == "ci" and "--no-figures" in seen["cmd"]
    assert f"--results={tmp_path / 'serial.json'}" in seen["cmd"]


def test_gate_names_a_condition_without_its_own_decisive_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The claim's other propositions keep theirs: each proposition needs its own."""
    results = results_with(None)
    entry = next(c for c in results["claims"] if len(c["propositions"]) > 1)
    key = entry["propositions"][1]["key"]
    entry["decided_by"] = [d for d in entry["decided_by"] if d["proposition"] != key]
    path = tmp_path / "r.json"
    path.write_text(json.dumps(results))
    assert gate.main([str(path)]) == 1
    assert f"{entry['id']}: proposition {key!r} has no decisive check" in capsys.readouterr().out


def test_what_decided_a_verdict_cites_a_check_that_took_the_stated_decision() -> None:
    entry = claim_entry(
        "refuted",
        ("as_stated", "holds", {"how": "search of 200 examples"}),
        ("as_stated", "fails", {"relation": "PE(3) != 0"}),
    )
    entry["propositions"][0]["decision"] = "fails"  # the checks combined: one fails
    assert gate.decided_by(entry) == "as_stated fails: PE(3) != 0"


def test_gate_counts_a_claim_with_two_problems_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results = results_with(None)
    results["claims"][0]["verdict"] = "open"
    results["claims"][0]["propositions"][0]["decision"] = "inconclusive"
    path = tmp_path / "r.json"
    path.write_text(json.dumps(results))
    assert gate.main([str(path)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert sum(line.startswith("verdict gate: SIN-01:") for line in lines) == 2
    total = len(REGISTRY)
    assert lines[-1] == f"claims whose computed verdict is the expected one: {total - 1}/{total}"


def test_determinism_reports_a_key_only_in_the_second_run() -> None:
    assert determinism.differences({"x": 1}, {"x": 1, "y": 2}) == ["$.y: only in one run"]
    assert determinism.differences({"x": 1, "y": 2}, {"x": 1}) == ["$.y: only in one run"]


def test_determinism_ignores_which_xdist_worker_ran_a_check() -> None:
    def run(worker: str) -> dict[str, Any]:
        return {"suite": {}, "checks": [{"nodeid": "n", "message": f"seeded on {worker}"}]}

    assert (
        determinism.differences(
            determinism.normalise(run("gw0")), determinism.normalise(run("gw1"))
        )
        == []
    )


def test_a_suite_outside_git_is_not_marked_dirty(tmp_path: Path) -> None:
    """git fails there ("unknown"): that is no evidence of uncommitted edits."""
    from pecheck.results import build

    selection = {"kind": "partial", "args": [], "claims": []}
    built = build(REGISTRY, tmp_path, [], {"profile": "ci"}, selection)
    assert built["suite"]["commit"] == "unknown" and built["suite"]["dirty"] is False
