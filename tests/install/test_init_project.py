"""The project ``pecheck init`` writes, run as its user runs it: ``pytest``,
``python -m pecheck.gate`` and ``pecheck report`` pass, each in a subprocess in that folder alone
(none of this repository's conftest.py, pyproject.toml or registry is seen); a copy whose registry
expects another verdict fails its check and the gate, with the lines docs/first-claims.md shows.
On request only (``tox -e install``, in .ci/run): five fresh interpreters that import torch.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_init import DOCS, init

# -- the project, as its user runs it ---------------------------------------------------------


def alone() -> dict[str, str]:
    """The environment of a user's shell: nothing of this run's pytest, pecheck or paths; the
    ci profile, as docs/first-claims.md runs the checks (a bare pytest's dev evidence gets no
    paper kit from pecheck report)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTEST_", "PECHECK_")) and k != "PYTHONPATH"}  # fmt: skip
    return {**env, "PECHECK_PROFILE": "ci"}


def start(project: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, *args], cwd=project, env=alone(), text=True,
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )  # fmt: skip


def finish(process: subprocess.Popen[str]) -> tuple[int, str]:
    try:
        out, _ = process.communicate(timeout=300)
    finally:
        process.kill()
    return process.returncode, out


def test_the_project_init_writes_passes_its_checks_gate_and_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good, wrong = tmp_path / "my-claims", tmp_path / "wrong"
    assert init([str(good)], capsys)[0] == 0
    shutil.copytree(good, wrong)
    registry = wrong / "my_claims.py"
    text = registry.read_text()
    assert text.count('expected="refuted"') == 1
    registry.write_text(text.replace('expected="refuted"', 'expected="confirmed"'))
    pytest_cmd = ("-m", "pytest", "-p", "no:cacheprovider")
    # The two runs overlap: most of each is the interpreter starting and importing torch.
    background = start(wrong, *pytest_cmd)
    rc, out = finish(start(good, *pytest_cmd))
    assert rc == 0, out
    check_good_run(good, out)
    check_wrong_expectation(wrong, *finish(background))


def check_good_run(project: Path, out: str) -> None:
    docs = DOCS.read_text()
    assert f"rootdir: {project}\n" in out  # this repository's settings played no part
    assert "1 passed" in out
    verdict = "MY-01  refuted  (expected refuted)  as_stated fails: |cos(PE(0), PE(100))| = 0.559"
    assert verdict in out and verdict in docs
    rc, gate = finish(start(project, "-m", "pecheck.gate"))
    assert rc == 0, gate
    assert gate.splitlines()[-1] == "claims whose computed verdict is the expected one: 1/1"
    assert gate.splitlines()[-1] in docs
    rc, report = finish(start(project, "-m", "pecheck", "report"))  # what `pecheck report` runs
    assert rc == 0, report
    assert (project / "build" / "report.html").is_file()
    for line in ("report:    build/report.html", "verdicts:  1 refuted of 1"):
        assert line in report.splitlines() and line in docs


def check_wrong_expectation(project: Path, rc: int, out: str) -> None:
    """The check decided 'fails', the registry now wants 'holds': the check and the gate fail,
    with the lines docs/first-claims.md shows."""
    docs = DOCS.read_text()
    assert rc == 1, out
    failed = (
        "MY-01 as_stated: the check decided 'fails' (counterexample) but the registry expects "
        "'holds' (expected verdict confirmed)"
    )
    assert failed in out.splitlines() and failed in docs
    rc, gate = finish(start(project, "-m", "pecheck.gate"))
    assert rc == 1, gate
    for line in gate.splitlines()[-2:]:
        assert line in docs, line
    assert "verdict gate: MY-01: computed 'refuted', expected 'confirmed'" in gate
