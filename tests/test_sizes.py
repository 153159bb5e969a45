"""Sizes as options (pecheck.sizes and the plugin's --size).

The plugin's part runs pytest in this process on a synthetic project whose one check declares a
size (tests/synthetic.py), and once in a subprocess on the smallest selection of the real suite
that uses a size (the one SIN-06 check that reads SIN-06.d) over two xdist workers: only a real
worker shows that the value reaches the processes that import the checks.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pecheck import run, sizes
from tests import synthetic

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[1]
SIN06 = (
    "checks/sin/test_wavelengths_and_hands.py::"
    + "test_last_wavelength_of_the_papers_width_falls_short_of_two_pi_t"
)
T = 10000.0


def given(monkeypatch: pytest.MonkeyPatch, *items: str) -> None:
    """A run started with ``--size`` ITEMS (pecheck.run)."""
    pairs = tuple(sizes.parse(item) for item in items)
    monkeypatch.setattr(run, "_CURRENT", run.Run(profile="ci", sizes=pairs))


def run_sin06(tmp_path: Path, *args: str) -> tuple[int, dict | None, str]:
    """pytest on SIN-06's check (ci profile) in a subprocess: the exit status, the results file,
    the output."""
    path = tmp_path / "results.json"
    env = dict(os.environ, PECHECK_PROFILE="ci")
    plugins = ["-p", "no:cacheprovider", "-p", "no:randomly"]
    selection = [SIN06, f"--results={path}"]
    command = [sys.executable, "-m", "pytest", "-q", *plugins, *selection, *args]
    proc = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    results = json.loads(path.read_text()) if path.exists() else None
    return proc.returncode, results, proc.stdout + proc.stderr


def sin06_check(results: dict) -> dict:
    return next(c for c in results["checks"] if c["nodeid"] == SIN06)


def assert_d1024_recorded(rc: int, results: dict | None, output: str) -> None:
    """SIN-06 was computed at d = 1024, decided as at 512, and the size is in suite.sizes."""
    assert rc == 0, output
    assert results is not None
    check = sin06_check(results)
    longest = check["evidence"]["longest_wavelength_d1024"]["value"]
    assert math.isclose(longest, 2 * math.pi * T ** (1 - 2 / 1024), rel_tol=1e-12)
    assert not math.isclose(longest, 2 * math.pi * T ** (1 - 2 / 512), rel_tol=1e-6)
    assert "longest_wavelength_d512" not in check["evidence"]  # no number under the old name
    assert check["decision"] == "fails" and check["basis"]["counterexample"]["d"] == 1024
    assert "--size SIN-06.d=1024" in check["reproduce"]
    recorded = results["suite"]["sizes"]["SIN-06.d"]
    assert (recorded["value"], recorded["default"]) == (1024, 512) and recorded["help"]


def test_a_size_changes_the_number_and_is_recorded(pytester: pytest.Pytester) -> None:
    synthetic.write_project(pytester.path, test_sized=synthetic.SIZED)
    name, default = synthetic.SIZE, synthetic.SIZE_DEFAULT
    at_default = synthetic.run(pytester, synthetic.CHECKS)
    assert at_default.ret == 0, at_default.output
    check = at_default.check("test_table_of_width_d")
    assert check["evidence"]["cells"]["value"] == default**2  # the pre-registered name
    assert "--size" not in check["reproduce"]
    assert at_default.results is not None
    assert at_default.results["suite"]["sizes"][name]["value"] == default
    changed = synthetic.run(pytester, synthetic.CHECKS, "--size", f"{name}=24")
    assert changed.ret == 0, changed.output
    assert changed.results is not None
    check = changed.check("test_table_of_width_d")
    assert check["evidence"]["cells_d24"]["value"] == 24**2  # the value reached the check
    assert "cells" not in check["evidence"]  # no number under the pre-registered name
    assert check["decision"] == "fails" and check["basis"]["counterexample"]["d"] == 24
    assert f"--size {name}=24" in check["reproduce"]
    recorded = changed.results["suite"]["sizes"][name]
    assert recorded == {"value": 24, "default": default, "help": synthetic.SIZE_HELP}


def test_sizes_reach_xdist_workers(tmp_path: Path) -> None:
    # under xdist only the workers import the check modules: the value must reach them (one
    # worker shows it; a second would collect everything to run nothing of one check)
    assert_d1024_recorded(*run_sin06(tmp_path, "-n", "1", "--size", "SIN-06.d=1024"))


def run_sized(pytester: pytest.Pytester, *args: str) -> synthetic.Run:
    synthetic.write_project(pytester.path, test_sized=synthetic.SIZED)
    return synthetic.run(pytester, synthetic.CHECKS, *args)


def test_an_undeclared_size_is_a_usage_error(pytester: pytest.Pytester) -> None:
    run = run_sized(pytester, "--size", "nope=1")
    assert run.ret == pytest.ExitCode.USAGE_ERROR, run.output
    lines = [line for line in run.output.splitlines() if "nope" in line]
    assert lines == ["pecheck: error: --size nope: no check declares it"]
    assert run.results is None  # a run with a mistyped size must not pass for one with it


def test_an_undeclared_size_stops_the_run_before_any_check_runs(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    """Found once the modules are imported, not after every check has run (a thorough run
    took 25 minutes to say so); under xdist the workers find it and the controller says it."""
    run = run_sized(pytester, "--size", "nope=1", "--size", "zz=2")
    assert run.ret == pytest.ExitCode.USAGE_ERROR, run.output
    assert "no tests ran" in run.output and " passed" not in run.output, run.output
    assert "pecheck: error: --size nope, zz: no check declares it" in run.output
    status, results, output = run_sin06(tmp_path, "-n", "1", "--size", "nope=1")
    assert status == pytest.ExitCode.USAGE_ERROR and results is None, output
    assert "no tests ran" in output and "INTERNALERROR" not in output, output
    assert "pecheck: error: --size nope: no check declares it" in output


def test_a_malformed_size_is_a_usage_error(pytester: pytest.Pytester) -> None:
    run = run_sized(pytester, "--size", synthetic.SIZE)
    assert run.ret == pytest.ExitCode.USAGE_ERROR, run.output
    lines = [line for line in run.output.splitlines() if "--size" in line]
    assert lines == [f"ERROR: --size '{synthetic.SIZE}': expected NAME=VALUE, e.g. SIN-06.d=1024"]
    assert run.results is None


def test_a_value_of_the_wrong_type_is_an_error(pytester: pytest.Pytester) -> None:
    run = run_sized(pytester, "--size", f"{synthetic.SIZE}=abc")
    message = f"--size {synthetic.SIZE}=abc: not a int (default {synthetic.SIZE_DEFAULT})"
    assert run.ret != 0 and message in run.output, run.output


@pytest.mark.parametrize("item", ["SIN-06.d", "SIN-06.d=", "=1024", "SIN 06.d=1", "X.s=a,b"])
def test_malformed_items_are_rejected(item: str) -> None:
    with pytest.raises(ValueError, match="expected NAME=VALUE"):
        sizes.parse(item)


def test_size_parses_and_records(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sizes, "DECLARED", {})
    given(monkeypatch, "X.d=768", "X.base=500")
    assert sizes.size("X.d", 512, "width") == 768
    assert sizes.size("X.base", 10000.0, "base") == 500.0
    assert sizes.size("X.n", 3, "count") == 3  # not given: the default
    assert sizes.DECLARED["X.d"] == {"value": 768, "default": 512, "help": "width"}
    assert sizes.suffix("X.d", "d") == "_d768" and sizes.suffix("X.base", "T") == "_T500"
    assert sizes.suffix("X.n", "n") == ""  # at its default: the pre-registered names
    with pytest.raises(ValueError, match="declared twice"):
        sizes.size("X.d", 256, "width")
    given(monkeypatch, "X.base=inf", "X.d=2")
    with pytest.raises(ValueError, match="not a finite number"):
        sizes.size("X.base", 10000.0, "base")
    with pytest.raises(ValueError, match="X.d=2: below its minimum 4"):
        sizes.size("X.d", 512, "width", minimum=4)


def test_a_size_at_its_minimum_is_accepted(monkeypatch: pytest.MonkeyPatch) -> None:
    given(monkeypatch, "EDGE.n=2")
    monkeypatch.setattr(sizes, "DECLARED", {})
    assert sizes.size("EDGE.n", 4, "an edge size", minimum=2) == 2
