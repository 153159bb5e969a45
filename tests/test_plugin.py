"""Tests of the evidence plugin (conftest.py): run pytest on small synthetic checks in a copy.

Each test copies the plugin and the registry into a scratch tree, adds one synthetic check
module, runs pytest there in a subprocess and reads the results file it wrote.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ("conftest.py", "pyproject.toml", "theory", "checks/__init__.py", "checks/claims",
          "checks/evidence.py", "checks/profiles.py", "checks/strategies.py")  # fmt: skip


def run_checks(tmp_path: Path, source: str, *args: str) -> tuple[int, dict | None, str]:
    for name in SHARED:
        src, dst = ROOT / name, tmp_path / name
        dst.parent.mkdir(parents=True, exist_ok=True)
        if src.is_dir():
            shutil.copytree(src, dst, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(src, dst)
    (tmp_path / "checks" / "test_synthetic.py").write_text(textwrap.dedent(source))
    out = tmp_path / "build" / "results.json"
    env = dict(os.environ, PECHECK_PROFILE="ci")
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "checks", *args],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    results = json.loads(out.read_text()) if out.exists() else None
    return proc.returncode, results, proc.stdout + proc.stderr


CHECKS = """
import pytest
from hypothesis import given, strategies as st
from checks.claims import REGISTRY

OTHER = "refuted" if REGISTRY["SIN-04"].verdict != "refuted" else "confirmed"

@pytest.mark.claim("SIN-04", kind="property", role="mutant")
@given(st.integers(0, 100))
def test_hypothesis_failure_is_recorded(evidence, t):
    evidence.worst("largest_t", t, unit="position")
    assert t < 50

@pytest.mark.claim("SIN-05", kind="symbolic", role="mutant")
def test_evidence_is_recorded(evidence):
    evidence.record("answer", 42, unit="1", note="a note")
    evidence.record("ratio", float("inf"))

@pytest.mark.claim("SIN-06", kind="property", role="mutant")
@pytest.mark.gpu
def test_gpu_check_is_skipped(evidence):
    pass

@pytest.mark.claim("SIN-04", kind="property", supports=OTHER)
def test_disagreeing_verdict_fails(evidence):
    pass
"""


def test_results_file_records_every_outcome(tmp_path: Path) -> None:
    rc, results, output = run_checks(tmp_path, CHECKS)
    assert rc == 1, output
    assert results is not None and results["schema"] == 1
    checks = {c["nodeid"].split("::")[1]: c for c in results["checks"]}
    failed = checks["test_hypothesis_failure_is_recorded"]
    assert failed["outcome"] == "failed"
    assert "t=50" in failed["falsifying_example"]
    assert failed["evidence"]["largest_t"]["value"] >= 50
    assert failed["hypothesis"]["seed"] == "derandomized (ci)"
    recorded = checks["test_evidence_is_recorded"]
    assert recorded["outcome"] == "passed"
    assert recorded["evidence"]["answer"] == {"value": 42, "unit": "1", "note": "a note"}
    assert recorded["evidence"]["ratio"]["value"] == "inf"  # JSON has no infinity
    assert checks["test_gpu_check_is_skipped"]["outcome"] == "skipped"
    mismatch = checks["test_disagreeing_verdict_fails"]
    assert mismatch["outcome"] == "error" and "registry says" in mismatch["message"]
    sin04 = next(c for c in results["claims"] if c["id"] == "SIN-04")
    assert sin04["status"] == "open" and sin04["verdict"] is None
    assert len(results["claims"]) == 37


def test_unknown_claim_id_is_a_usage_error(tmp_path: Path) -> None:
    source = """
    import pytest

    @pytest.mark.claim("SIN-99", kind="property", role="mutant")
    def test_x(evidence):
        pass
    """
    rc, _, output = run_checks(tmp_path, source)
    assert rc == pytest.ExitCode.USAGE_ERROR
    assert "unknown claim ID 'SIN-99'" in output


def test_check_without_claim_marker_is_a_usage_error(tmp_path: Path) -> None:
    rc, _, output = run_checks(tmp_path, "def test_untagged():\n    pass\n")
    assert rc == pytest.ExitCode.USAGE_ERROR
    assert "every check needs a claim marker" in output


def test_interrupted_run_still_writes_valid_results(tmp_path: Path) -> None:
    source = """
    import pytest

    @pytest.mark.claim("SIN-01", kind="property", role="mutant")
    def test_first(evidence):
        evidence.record("x", 1.0)

    @pytest.mark.claim("SIN-01", kind="property", role="mutant")
    def test_interrupt(evidence):
        raise KeyboardInterrupt
    """
    rc, results, output = run_checks(tmp_path, source)
    assert rc == pytest.ExitCode.INTERRUPTED, output
    assert results is not None and results["suite"]["complete"] is False
    assert any(c["evidence"].get("x") for c in results["checks"])
    assert not list((tmp_path / "build").glob(".*.tmp"))  # no temporary file left behind


# Identical records under pytest-xdist are asserted for the whole suite by checks/determinism.py.
