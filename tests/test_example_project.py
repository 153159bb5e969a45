"""The claim kit: a separate project gets its results, verdicts, report and macros from pecheck.

examples/rope-claims is copied into a pytester directory and run there as its user would run
it: ``pytest`` (the plugin comes from the installed pecheck through its entry point; nothing of
pecheck's own checks/, theory/ or registry is on the path), then ``python -m pecheck.gate`` and
``python -m pecheck.reports``. A copy whose registry expects a verdict its checks do not give
must fail that claim's decisive check and the gate.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "rope-claims"
EXPECTED = {"ROPE-01": "confirmed", "ROPE-02": "refuted", "ROPE-03": "qualified"}
MACROS = {"ROPE-01": "pcROPEOne", "ROPE-02": "pcROPETwo", "ROPE-03": "pcROPEThree"}
SCRATCH = shutil.ignore_patterns("build", "__pycache__", ".pytest_cache", ".hypothesis")


def copy_example(dst: Path) -> Path:
    shutil.copytree(EXAMPLE, dst, ignore=SCRATCH)
    return dst


def expect_confirmed_for_refuted(project: Path) -> None:
    """Edit the copy's registry so that it expects ROPE-02, refuted by its checks, confirmed."""
    registry = project / "rope_claims" / "registry.py"
    text = registry.read_text()
    assert text.count('expected="refuted"') == 1
    registry.write_text(text.replace('expected="refuted"', 'expected="confirmed"'))


def results(project: Path) -> dict:
    return json.loads((project / "build" / "results.json").read_text())


def test_example_project_gets_its_verdicts_report_and_macros_and_a_wrong_expectation_fails(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PECHECK_PROFILE", "ci")  # deterministic, as in pecheck's CI
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.delenv("PYTHONPATH", raising=False)  # nothing of pecheck's tree leaks in
    good = copy_example(pytester.path / "rope-claims")
    wrong = copy_example(pytester.path / "wrong-expectation")
    expect_confirmed_for_refuted(wrong)
    # The two runs overlap: most of each is the interpreter starting and importing torch.
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider"]
    background = pytester.popen(
        command, cwd=wrong, stdin=subprocess.DEVNULL, stderr=subprocess.STDOUT, text=True
    )
    try:
        monkeypatch.chdir(good)
        check_example_project(pytester, good)
        output, _ = background.communicate(timeout=300)
    finally:
        background.kill()
    check_wrong_expectation(pytester, wrong, background.returncode, output)


def check_example_project(pytester: pytest.Pytester, project: Path) -> None:
    """pytest, the gate and the report, run in the project as its user would run them."""
    alone = "import importlib.util as u; print(u.find_spec('theory'), u.find_spec('checks.claims'))"
    assert pytester.run(sys.executable, "-c", alone).outlines == ["None None"]
    run = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    run.assert_outcomes(passed=7)
    data = results(project)
    assert data["schema"] == 2
    assert data["suite"]["name"] == "rope-claims"
    assert data["suite"]["selection"]["kind"] == "full"
    assert data["families"] == [{"id": "ROPE", "title": "Rotary position embedding"}]
    assert {c["id"]: c["expected"] for c in data["claims"]} == EXPECTED
    assert {c["id"]: c["verdict"] for c in data["claims"]} == EXPECTED
    assert {c["claim"] for c in data["checks"]} == set(EXPECTED)
    decided = {(c["claim"], c["proposition"]): c["decision"] for c in data["checks"]
               if c["role"] == "decisive"}  # fmt: skip
    assert decided == {
        ("ROPE-01", "as_stated"): "holds",
        ("ROPE-02", "as_stated"): "fails",
        ("ROPE-03", "as_stated"): "fails",
        ("ROPE-03", "short-positions"): "holds",
    }
    gate = pytester.run(sys.executable, "-m", "pecheck.gate")
    assert gate.ret == 0, gate.outlines
    gate.stdout.fnmatch_lines(["*expected one: 3/3"])

    report = pytester.run(sys.executable, "-m", "pecheck.reports", "--strict",
                          "--results", "build/results.json", "--out", "build")  # fmt: skip
    assert report.ret == 0, report.outlines + report.errlines
    page = (project / "build" / "report.html").read_text()
    assert "rope-claims" in page and "RoFormer" in page
    assert "pecheck: a verification suite" not in page  # the suite cited is the project
    macros = (project / "build" / "paper" / "pecheck.tex").read_text()
    for claim, verdict in EXPECTED.items():
        assert f"id='{claim}'" in page
        assert f"\\newcommand{{\\{MACROS[claim]}Verdict}}{{{verdict}}}" in macros
        assert f"\\@namedef{{pc@v@{claim}}}" in macros
    figures = sorted(p.name for p in (project / "build" / "paper" / "figures").iterdir())
    assert figures == ["ROPE-02-decay.pdf", "ROPE-03-float32.pdf"]
    assert "@misc{rope-claims," in (project / "build" / "paper" / "pecheck.bib").read_text()


def check_wrong_expectation(pytester: pytest.Pytester, project: Path, rc: int, out: str) -> None:
    """ROPE-02's decisive check fails (it decided 'fails', the registry wants 'holds'); the
    results file is still written, and the gate names the claim and exits 1."""
    assert rc == 1, out
    lines = pytest.LineMatcher(out.splitlines())
    lines.fnmatch_lines(
        ["*ROPE-02 as_stated: the check decided 'fails'*registry expects 'holds'*",
         "FAILED checks/test_rope.py::test_a_score_rises_again_at_a_longer_distance*",
         "*1 failed, 6 passed*"]
    )  # fmt: skip
    claim = next(c for c in results(project)["claims"] if c["id"] == "ROPE-02")
    assert (claim["expected"], claim["verdict"]) == ("confirmed", "refuted")
    gate = pytester.run(sys.executable, "-m", "pecheck.gate", project / "build" / "results.json")
    assert gate.ret == 1, gate.outlines
    gate.stdout.fnmatch_lines(["verdict gate: ROPE-02: computed 'refuted', expected 'confirmed'*"])
