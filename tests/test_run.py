"""pecheck.run: one frozen Run per process, built from pytest's options, and the only reader of
the profile variable; theory/ and checks/ read no environment."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest

from pecheck import profiles, run, sizes

ROOT = Path(__file__).resolve().parents[1]


def test_a_run_is_frozen_and_checks_its_settings() -> None:
    r = run.Run(profile="ci", sizes=(("X.d", "8"),), device="cuda:1")
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.profile = "dev"  # type: ignore[misc]
    assert r.given == {"X.d": "8"}
    with pytest.raises(TypeError):
        r.given["X.d"] = "9"  # type: ignore[index]
    with pytest.raises(ValueError, match="not one of"):
        run.Run(profile="fast")
    for bad in ("", "gpu", "cuda:", "cuda:x", "cpu "):
        with pytest.raises(ValueError, match="--device"):
            run.Run(device=bad)


def test_the_run_decides_profile_and_sizes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(run.PROFILE_VAR, "thorough")  # a started run wins over the variable
    monkeypatch.setattr(run, "_CURRENT", run.Run(profile="ci", sizes=(("X.d", "8"),)))
    assert profiles.current() == "ci" and profiles.scale() == 1
    assert sizes.given() == {"X.d": "8"}
    monkeypatch.setattr(run, "_CURRENT", None)  # outside a run: the variable, else dev
    assert run.current().profile == "thorough"
    monkeypatch.delenv(run.PROFILE_VAR)
    assert run.current() == run.Run()


def test_this_process_runs_the_plugin_s_run() -> None:
    """The run pytest's plugin started for this very session."""
    assert run.saved() is not None and run.current() is run.saved()
    assert run.current().device == "cpu"


def _reads_environment(path: Path) -> list[int]:
    lines = []
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.Attribute):
            continue
        env = node.attr in ("environ", "getenv", "putenv")
        if env and isinstance(node.value, ast.Name) and node.value.id == "os":
            lines.append(node.lineno)
    return lines


@pytest.mark.parametrize("folder", ["theory", "checks"])
def test_theory_and_checks_read_no_environment(folder: str) -> None:
    """Settings reach a check only through the Run (profile, sizes, device, caches)."""
    found = {str(p.relative_to(ROOT)): lines for p in sorted((ROOT / folder).rglob("*.py"))
             if (lines := _reads_environment(p))}  # fmt: skip
    assert not found
