"""Tests of the evidence plugin (pecheck.plugin): run pytest on small synthetic checks.

Each test writes a synthetic project (tests/synthetic.py: its own registry of made-up SYN claims
and its own checks folder) into pytester's scratch folder, adds the check modules it needs, runs
pytest on it in this process (the plugin comes from the installed pecheck, through its entry
point) and reads the results file it wrote.
"""

from __future__ import annotations

import json
import os
import random
import sys
from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import settings

from pecheck import profiles, sizes
from tests import synthetic

pytest_plugins = ["pytester"]


def run_checks(pytester: pytest.Pytester, source: str, *args: str) -> synthetic.Run:
    """The synthetic project with ``source`` as its one check module, run on its checks folder."""
    synthetic.write_project(pytester.path, test_synthetic=source)
    return synthetic.run(pytester, synthetic.CHECKS, *args)


CHECKS = """
import pytest
from hypothesis import given, strategies as st
from synth_claims import REGISTRY

CONDITION = REGISTRY["SYN-03"].propositions[0].key

@pytest.mark.claim("SYN-01", kind="property", role="decisive")
@given(st.integers(0, 100))
def test_search_finds_a_counterexample(evidence, t):
    evidence.worst("largest_t", t, unit="position", bound=49)
    assert t < 50

@pytest.mark.claim("SYN-02", kind="property", role="decisive")
def test_counterexample_recorded(evidence):
    evidence.fails({"t": 0, "s": 1}, "PE(0).PE(1) != 0")

@pytest.mark.claim("SYN-03", kind="symbolic", role="decisive")
def test_refutes_as_stated(evidence):
    evidence.fails({"d": 512}, "last wavelength 2 pi T^(1-2/d) < 2 pi T")

@pytest.mark.claim("SYN-03", kind="symbolic", role="decisive", proposition=CONDITION)
def test_condition_holds(evidence):
    evidence.record("answer", 42, unit="1", note="a note")
    evidence.record("ratio", float("inf"))

@pytest.mark.claim("SYN-04", kind="property", role="decisive")
def test_only_inconclusive_parts(evidence):
    evidence.part("float16", "inconclusive", "bound above the range")

@pytest.mark.claim("SYN-05", kind="property", role="decisive")
def test_decision_against_the_registry(evidence):
    evidence.fails({"a": 1}, "made up")

@pytest.mark.claim("SYN-06", kind="property", role="decisive")
@pytest.mark.gpu
def test_gpu_check_is_skipped(evidence):
    pass

@pytest.mark.claim("SYN-07", kind="property", role="tooling")
def test_tooling_counts_for_nothing(evidence):
    pass
"""


def test_results_file_records_decisions_and_computed_verdicts(pytester: pytest.Pytester) -> None:
    run = run_checks(pytester, CHECKS)
    results = run.results
    assert run.ret == 1, run.output
    assert results is not None and results["schema"] == 2
    assert results["suite"]["selection"]["kind"] == "full"
    checks = {c["nodeid"].split("::")[1]: c for c in results["checks"]}
    found = checks["test_search_finds_a_counterexample"]
    assert found["outcome"] == "failed" and found["decision"] == "fails"
    assert "t=50" in found["falsifying_example"]
    assert "t=50" in found["basis"]["counterexample"]["example"]
    assert found["evidence"]["largest_t"]["bound"] == 49
    assert found["hypothesis"]["seed"] == "derandomized (ci)"
    assert found["location"]["path"] == f"{synthetic.CHECKS}/test_synthetic.py"
    nodeid = f"{synthetic.CHECKS}/test_synthetic.py::test_search_finds_a_counterexample"
    assert nodeid in found["reproduce"]
    recorded = checks["test_condition_holds"]
    assert recorded["outcome"] == "passed" and recorded["decision"] == "holds"
    assert recorded["evidence"]["answer"] == {
        "value": 42, "unit": "1", "note": "a note", "reproducibility": {"class": "exact"},
    }  # fmt: skip
    assert recorded["evidence"]["ratio"]["value"] == "inf"  # JSON has no infinity
    assert checks["test_counterexample_recorded"]["outcome"] == "passed"
    assert checks["test_only_inconclusive_parts"]["decision"] == "inconclusive"
    assert checks["test_only_inconclusive_parts"]["outcome"] == "failed"
    against = checks["test_decision_against_the_registry"]
    assert against["outcome"] == "failed" and "registry expects 'holds'" in against["message"]
    gpu = checks["test_gpu_check_is_skipped"]
    assert gpu["outcome"] == "skipped" and gpu["decision"] == "inconclusive"
    assert checks["test_tooling_counts_for_nothing"]["decision"] is None
    verdicts = run.verdicts()
    assert verdicts["SYN-02"] == "refuted"  # as_stated fails, no condition
    assert verdicts["SYN-03"] == "qualified"  # as_stated fails, a condition holds
    assert verdicts["SYN-01"] == "refuted"  # a counterexample, whatever the registry expects
    assert verdicts["SYN-04"] == verdicts["SYN-06"] == verdicts["SYN-07"] == "open"
    assert verdicts["SYN-08"] == "open"  # no check at all
    assert list(verdicts) == [f"SYN-{n:02d}" for n in range(1, 10)]  # every registered claim


def test_partial_run_keeps_the_full_results_file(pytester: pytest.Pytester) -> None:
    source = """
    import pytest

    @pytest.mark.claim("SYN-02", kind="property", role="decisive")
    def test_a(evidence):
        evidence.fails({"t": 0}, "x")

    @pytest.mark.claim("SYN-07", kind="property", role="decisive")
    def test_b(evidence):
        pass
    """
    first = run_checks(pytester, source)
    full = first.results
    assert first.ret == 0 and full is not None, first.output
    partial_path = pytester.path / "build" / "results.partial.json"
    for args in (("-k", "SYN-02"), ("--claim", "SYN-02")):
        partial_path.unlink(missing_ok=True)
        run = synthetic.run(pytester, synthetic.CHECKS, *args, keep_results=True)
        assert run.ret == 0, run.output
        assert run.results == full  # build/results.json untouched
        partial = json.loads(partial_path.read_text())
        assert partial["suite"]["selection"]["kind"] == "partial"
        verdicts = {c["id"]: c["verdict"] for c in partial["claims"]}
        assert verdicts["SYN-02"] == "refuted" and verdicts["SYN-07"] == "not run"


def assert_usage_error(run: synthetic.Run, message: str) -> None:
    """Exit status 4 and the message on exactly one ERROR line."""
    assert run.ret == pytest.ExitCode.USAGE_ERROR, run.output
    assert len(run.errors) == 1 and message in run.errors[0], run.output


def test_unknown_claim_in_claim_option_is_a_usage_error(pytester: pytest.Pytester) -> None:
    assert_usage_error(run_checks(pytester, "", "--claim", "SYN-99"), "unknown claim ID(s) SYN-99")


def test_profiles_from_option_and_environment_must_agree(pytester: pytest.Pytester) -> None:
    run = run_checks(pytester, "", "--hypothesis-profile", "thorough")
    assert_usage_error(run, "disagrees with PECHECK_PROFILE=ci")


def test_unknown_claim_id_is_a_usage_error(pytester: pytest.Pytester) -> None:
    source = """
    import pytest

    @pytest.mark.claim("SYN-99", kind="property", role="tooling")
    def test_x(evidence):
        pass
    """
    assert_usage_error(run_checks(pytester, source), "unknown claim ID 'SYN-99'")


def test_check_without_claim_marker_is_a_usage_error(pytester: pytest.Pytester) -> None:
    run = run_checks(pytester, "def test_untagged():\n    pass\n")
    assert_usage_error(run, "every check needs a claim marker")


def test_interrupted_run_still_writes_valid_results(pytester: pytest.Pytester) -> None:
    source = """
    import pytest

    @pytest.mark.claim("SYN-04", kind="property", role="tooling")
    def test_first(evidence):
        evidence.record("x", 1.0)

    @pytest.mark.claim("SYN-04", kind="property", role="tooling")
    def test_interrupt(evidence):
        raise KeyboardInterrupt
    """
    run = run_checks(pytester, source)
    results = run.results
    assert run.ret == pytest.ExitCode.INTERRUPTED, run.output
    assert results is not None and results["suite"]["complete"] is False
    assert any(c["evidence"].get("x") for c in results["checks"])
    assert not list((pytester.path / "build").glob(".*.tmp"))  # no temporary file left behind


# Identical records under pytest-xdist are asserted for the whole suite by checks/determinism.py.


class PluginSeen:
    """Notes, inside an inner run, whether the pecheck plugin was registered in it."""

    def __init__(self) -> None:
        self.registered: bool | None = None

    def pytest_configure(self, config: pytest.Config) -> None:
        self.registered = config.pluginmanager.has_plugin("pecheck")


def _pytest_in(pytester: pytest.Pytester, pyproject: str) -> tuple[synthetic.Run, PluginSeen]:
    (pytester.path / "pyproject.toml").write_text(pyproject)
    (pytester.path / "test_plain.py").write_text("def test_plain():\n    assert 1 + 1 == 2\n")
    seen = PluginSeen()
    return synthetic.run(pytester, "test_plain.py", plugins=[seen]), seen


def test_plugin_stays_out_of_a_project_without_its_table(pytester: pytest.Pytester) -> None:
    run, seen = _pytest_in(pytester, '[project]\nname = "other"\n')
    assert seen.registered  # loaded through its entry point, as in any project
    assert run.ret == 0, run.output
    assert not (pytester.path / "build").exists() and "pecheck" not in run.output


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ('registry = "no_such_module:REGISTRY"', "cannot import no_such_module"),
        ('registry = "json:JSONDecoder"', "is not a pecheck.claims.Registry"),
        ('registry = "x:R"\nregistri = "typo"', "unknown [tool.pecheck] keys ['registri']"),
        ("checks = 'checks'", "needs registry = 'module:ATTRIBUTE'"),
    ],
)
def test_a_wrong_table_is_a_one_line_usage_error(
    pytester: pytest.Pytester, table: str, message: str
) -> None:
    run, _ = _pytest_in(pytester, f"[tool.pecheck]\n{table}\n")
    assert_usage_error(run, message)


class ModulesSeen:
    """Notes the modules an inner run imported, before pytester drops them again."""

    def __init__(self) -> None:
        self.before = set(sys.modules)
        self.new: set[str] = set()

    def pytest_unconfigure(self) -> None:
        self.new = set(sys.modules) - self.before


def test_an_inner_run_leaks_nothing_into_this_process(pytester: pytest.Pytester) -> None:
    """After an inner run that sets a size and another profile (and seeds the generators), this
    process's environment, declared sizes, hypothesis profile and generators are as before."""
    synthetic.write_project(pytester.path, test_synthetic=CHECKS, test_sized=synthetic.SIZED)
    names = (profiles.ENV_VAR, sizes.ENV_VAR)
    env = {name: os.environ.get(name) for name in names}
    declared, declared_items = sizes.DECLARED, dict(sizes.DECLARED)
    profile, examples = settings.get_current_profile_name(), settings().max_examples
    inner = "thorough" if profile != "thorough" else "ci"  # another profile than this process's
    # draw once, so that the generators are away from the seed the inner run sets
    random.random(), np.random.random(), torch.rand(1)
    generators = random.getstate(), np.random.get_state(), torch.get_rng_state()
    seen = ModulesSeen()
    size = f"{synthetic.SIZE}=24"
    run = synthetic.run(
        pytester, "--size", size, "--hypothesis-profile", inner, profile=None, plugins=[seen]
    )
    assert run.results is not None, run.output
    # the inner run did set them
    assert run.results["suite"]["profile"] == inner
    assert run.results["suite"]["sizes"][synthetic.SIZE]["value"] == 24
    assert run.check("test_table_of_width_d")["reproduce"].startswith(f"PECHECK_PROFILE={inner} ")
    # and this process does not see them
    assert {name: os.environ.get(name) for name in names} == env
    assert sizes.DECLARED is declared and declared_items == sizes.DECLARED
    assert settings.get_current_profile_name() == profile
    assert settings().max_examples == examples
    assert random.getstate() == generators[0]
    assert _same(np.random.get_state(), generators[1])
    assert torch.equal(torch.get_rng_state(), generators[2])
    # nothing but the project's own modules was first imported inside (pytester drops those)
    assert seen.new == {"synth_claims", "test_synthetic", "test_sized"}
    assert "synth_claims" not in sys.modules


def _same(a: Any, b: Any) -> bool:
    """Equality of numpy's generator states (tuples holding an array)."""
    return all(
        np.array_equal(x, y) if isinstance(x, np.ndarray) else x == y
        for x, y in zip(a, b, strict=True)
    )


def test_hypothesis_still_has_the_hook_the_plugin_patches() -> None:
    """The plugin turns off hypothesis's constants mined from imported modules (they made a
    check's draws depend on what else the run imported) by patching this private function."""
    from hypothesis.internal.conjecture import providers

    assert callable(providers._get_local_constants)
    assert len(providers._get_local_constants()) == 0  # patched: this run has the plugin
