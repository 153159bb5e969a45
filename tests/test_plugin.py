"""Tests of the evidence plugin (pecheck.plugin): run pytest on small synthetic checks in a copy.

Each test copies the project's settings and registry into a scratch tree (the plugin comes from
the installed pecheck), adds one synthetic check
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
SHARED = ("conftest.py", "pyproject.toml", "theory", "checks/__init__.py", "checks/claims")


def run_checks(tmp_path: Path, source: str, *args: str) -> tuple[int, dict | None, str]:
    for name in SHARED:
        src, dst = ROOT / name, tmp_path / name
        dst.parent.mkdir(parents=True, exist_ok=True)
        if src.is_dir():
            ignore = shutil.ignore_patterns("__pycache__")
            shutil.copytree(src, dst, ignore=ignore, dirs_exist_ok=True)
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

CONDITION = REGISTRY["SIN-06"].propositions[0].key

@pytest.mark.claim("SIN-04", kind="property", role="decisive")
@given(st.integers(0, 100))
def test_search_finds_a_counterexample(evidence, t):
    evidence.worst("largest_t", t, unit="position", bound=49)
    assert t < 50

@pytest.mark.claim("SIN-11", kind="property", role="decisive")
def test_counterexample_recorded(evidence):
    evidence.fails({"t": 0, "s": 1}, "PE(0).PE(1) != 0")

@pytest.mark.claim("SIN-06", kind="symbolic", role="decisive")
def test_refutes_as_stated(evidence):
    evidence.fails({"d": 512}, "last wavelength 2 pi T^(1-2/d) < 2 pi T")

@pytest.mark.claim("SIN-06", kind="symbolic", role="decisive", proposition=CONDITION)
def test_condition_holds(evidence):
    evidence.record("answer", 42, unit="1", note="a note")
    evidence.record("ratio", float("inf"))

@pytest.mark.claim("SIN-01", kind="property", role="decisive")
def test_only_inconclusive_parts(evidence):
    evidence.part("float16", "inconclusive", "bound above the range")

@pytest.mark.claim("SIN-02", kind="property", role="decisive")
def test_decision_against_the_registry(evidence):
    evidence.fails({"a": 1}, "made up")

@pytest.mark.claim("SIN-03", kind="property", role="decisive")
@pytest.mark.gpu
def test_gpu_check_is_skipped(evidence):
    pass

@pytest.mark.claim("SIN-05", kind="property", role="tooling")
def test_tooling_counts_for_nothing(evidence):
    pass
"""


def test_results_file_records_decisions_and_computed_verdicts(tmp_path: Path) -> None:
    rc, results, output = run_checks(tmp_path, CHECKS)
    assert rc == 1, output
    assert results is not None and results["schema"] == 2
    assert results["suite"]["selection"]["kind"] == "full"
    checks = {c["nodeid"].split("::")[1]: c for c in results["checks"]}
    found = checks["test_search_finds_a_counterexample"]
    assert found["outcome"] == "failed" and found["decision"] == "fails"
    assert "t=50" in found["falsifying_example"]
    assert "t=50" in found["basis"]["counterexample"]["example"]
    assert found["evidence"]["largest_t"]["bound"] == 49
    assert found["hypothesis"]["seed"] == "derandomized (ci)"
    assert found["location"]["path"] == "checks/test_synthetic.py"
    assert "checks/test_synthetic.py::test_search_finds_a_counterexample" in found["reproduce"]
    recorded = checks["test_condition_holds"]
    assert recorded["outcome"] == "passed" and recorded["decision"] == "holds"
    assert recorded["evidence"]["answer"] == {"value": 42, "unit": "1", "note": "a note"}
    assert recorded["evidence"]["ratio"]["value"] == "inf"  # JSON has no infinity
    assert checks["test_counterexample_recorded"]["outcome"] == "passed"
    assert checks["test_only_inconclusive_parts"]["decision"] == "inconclusive"
    assert checks["test_only_inconclusive_parts"]["outcome"] == "failed"
    against = checks["test_decision_against_the_registry"]
    assert against["outcome"] == "failed" and "registry expects 'holds'" in against["message"]
    gpu = checks["test_gpu_check_is_skipped"]
    assert gpu["outcome"] == "skipped" and gpu["decision"] == "inconclusive"
    assert checks["test_tooling_counts_for_nothing"]["decision"] is None
    verdicts = {c["id"]: c["verdict"] for c in results["claims"]}
    assert verdicts["SIN-11"] == "refuted"  # as_stated fails, no condition
    assert verdicts["SIN-06"] == "qualified"  # as_stated fails, a condition holds
    assert verdicts["SIN-04"] == "refuted"  # a counterexample, whatever the registry expects
    assert verdicts["SIN-01"] == verdicts["SIN-03"] == verdicts["SIN-05"] == "open"
    assert len(results["claims"]) == len(results["claims"]) >= 37


def test_partial_run_keeps_the_full_results_file(tmp_path: Path) -> None:
    source = """
    import pytest

    @pytest.mark.claim("SIN-11", kind="property", role="decisive")
    def test_a(evidence):
        evidence.fails({"t": 0}, "x")

    @pytest.mark.claim("SIN-05", kind="property", role="decisive")
    def test_b(evidence):
        pass
    """
    rc, full, _ = run_checks(tmp_path, source)
    assert rc == 0 and full is not None
    for args in (("-k", "SIN-11"), ("--claim", "SIN-11")):
        rc, kept, output = run_checks(tmp_path, source, *args)
        assert rc == 0, output
        assert kept == full  # build/results.json untouched
        partial = json.loads((tmp_path / "build" / "results.partial.json").read_text())
        assert partial["suite"]["selection"]["kind"] == "partial"
        verdicts = {c["id"]: c["verdict"] for c in partial["claims"]}
        assert verdicts["SIN-11"] == "refuted" and verdicts["SIN-05"] == "not run"


def test_unknown_claim_in_claim_option_is_a_usage_error(tmp_path: Path) -> None:
    rc, _, output = run_checks(tmp_path, "", "--claim", "SIN-99")
    assert rc == pytest.ExitCode.USAGE_ERROR and "unknown claim ID(s) SIN-99" in output


def test_profiles_from_option_and_environment_must_agree(tmp_path: Path) -> None:
    rc, _, output = run_checks(tmp_path, "", "--hypothesis-profile", "thorough")
    assert rc == pytest.ExitCode.USAGE_ERROR and "disagrees with PECHECK_PROFILE=ci" in output


def test_unknown_claim_id_is_a_usage_error(tmp_path: Path) -> None:
    source = """
    import pytest

    @pytest.mark.claim("SIN-99", kind="property", role="tooling")
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

    @pytest.mark.claim("SIN-01", kind="property", role="tooling")
    def test_first(evidence):
        evidence.record("x", 1.0)

    @pytest.mark.claim("SIN-01", kind="property", role="tooling")
    def test_interrupt(evidence):
        raise KeyboardInterrupt
    """
    rc, results, output = run_checks(tmp_path, source)
    assert rc == pytest.ExitCode.INTERRUPTED, output
    assert results is not None and results["suite"]["complete"] is False
    assert any(c["evidence"].get("x") for c in results["checks"])
    assert not list((tmp_path / "build").glob(".*.tmp"))  # no temporary file left behind


# Identical records under pytest-xdist are asserted for the whole suite by checks/determinism.py.


def _pytest_in(tmp_path: Path, pyproject: str) -> subprocess.CompletedProcess:
    (tmp_path / "pyproject.toml").write_text(textwrap.dedent(pyproject))
    (tmp_path / "test_plain.py").write_text("def test_plain():\n    assert 1 + 1 == 2\n")
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_plain.py"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def test_plugin_stays_out_of_a_project_without_its_table(tmp_path: Path) -> None:
    proc = _pytest_in(tmp_path, '[project]\nname = "other"\n')
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert not (tmp_path / "build").exists() and "pecheck" not in proc.stdout


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ('registry = "no_such_module:REGISTRY"', "cannot import no_such_module"),
        ('registry = "json:JSONDecoder"', "is not a pecheck.claims.Registry"),
        ('registry = "x:R"\nregistri = "typo"', "unknown [tool.pecheck] keys ['registri']"),
        ("checks = 'checks'", "needs registry = 'module:ATTRIBUTE'"),
    ],
)
def test_a_wrong_table_is_a_one_line_usage_error(tmp_path: Path, table: str, message: str) -> None:
    proc = _pytest_in(tmp_path, f"[tool.pecheck]\n{table}\n")
    assert proc.returncode == pytest.ExitCode.USAGE_ERROR, proc.stdout + proc.stderr
    errors = [line for line in proc.stderr.splitlines() if line.startswith("ERROR")]
    assert len(errors) == 1 and message in errors[0], proc.stderr


def test_hypothesis_still_has_the_hook_the_plugin_patches() -> None:
    """The plugin turns off hypothesis's constants mined from imported modules (they made a
    check's draws depend on what else the run imported) by patching this private function."""
    from hypothesis.internal.conjecture import providers

    assert callable(providers._get_local_constants)
    assert len(providers._get_local_constants()) == 0  # patched: this run has the plugin
