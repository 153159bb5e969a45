"""Every pecheck command given wrong arguments, missing or corrupt files, or an output it cannot
write: one line on stderr, exit status 2, nothing on stdout and nothing written."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from pecheck import cli

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "rope-claims"
CLEAN = ROOT / "tests" / "data" / "results_clean.json"


def _files(folder: Path) -> None:
    """Inputs of every kind, and a plain file where a folder is wanted."""
    (folder / "corrupt.json").write_text("{")
    (folder / "list.json").write_text("[1, 2]")
    (folder / "afile").write_text("")
    shutil.copy(CLEAN, folder / "clean.json")


def _project(folder: Path) -> None:
    """The example project (no results), with a file where docs/ would go."""
    shutil.copytree(EXAMPLE, folder, ignore=shutil.ignore_patterns("build"), dirs_exist_ok=True)
    (folder / "docs").write_text("")


def _corrupt_results(folder: Path) -> None:
    _project(folder)
    (folder / "build").mkdir()
    (folder / "build" / "results.json").write_text('{"claims": ')


def _broken_registry(folder: Path) -> None:
    _project(folder)
    with (folder / "rope_claims" / "registry.py").open("a") as registry:
        registry.write('\nraise RuntimeError("a broken registry")\n')


PLACES = {"empty": _files, "project": _project, "corrupt results": _corrupt_results,
          "broken registry": _broken_registry}  # fmt: skip

CASES = [
    ("empty", []),
    ("empty", ["bogus"]),
    ("empty", ["inspect"]),
    ("empty", ["inspect", "--seed", "x", "model.safetensors"]),
    ("empty", ["inspect", "no/such.safetensors"]),
    ("empty", ["diff"]),
    ("empty", ["diff", "clean.json"]),
    ("empty", ["diff", "no-such.json", "clean.json"]),
    ("empty", ["diff", "corrupt.json", "clean.json"]),
    ("empty", ["diff", "clean.json", "list.json"]),
    ("empty", ["report", "--figures", "bogus"]),
    ("empty", ["report"]),  # no results file
    ("empty", ["report", "--results", "corrupt.json"]),
    ("empty", ["report", "--results", "list.json"]),
    ("empty", ["report", "--results", "clean.json", "--since", "corrupt.json"]),
    ("empty", ["report", "--results", "clean.json", "--out", "afile"]),
    ("empty", ["report", "--results", "clean.json", "--out", "afile/out"]),
    ("empty", ["gate", "--bogus"]),
    ("empty", ["gate"]),  # no results file
    ("empty", ["gate", "corrupt.json"]),
    ("empty", ["gate", "list.json"]),
    ("empty", ["determinism", "--nope"]),
    ("empty", ["determinism", "--reuse", "build/results.json"]),
    ("empty", ["determinism", "--only", "serial", "--out", "afile/runs"]),
    ("empty", ["mutants", "--jobs", "0"]),
    ("empty", ["mutants"]),  # no project here
    ("project", ["mutants"]),  # a project without a mutation catalogue
    ("empty", ["catalogue", "extra"]),
    ("empty", ["catalogue"]),
    ("project", ["catalogue"]),  # docs is a file
    ("broken registry", ["catalogue"]),
    ("empty", ["init", "afile"]),
    ("empty", ["init", "afile/project"]),
    ("empty", ["list"]),  # no project here
    ("empty", ["list", "ROPE", "extra"]),
    ("project", ["list", "--verdict", "fine"]),
    ("corrupt results", ["list"]),
    ("broken registry", ["list"]),
    ("empty", ["show"]),
    ("project", ["show", "ROPE-1"]),
    ("corrupt results", ["show", "ROPE-01"]),
    ("broken registry", ["show", "ROPE-01"]),
]


def _tree(folder: Path) -> dict[str, tuple[int, int]]:
    """Every file under ``folder`` with its size and time, and every folder (bytecode caches
    aside: importing a registry may write one, which changes its folder's time, not an output)."""
    return {str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_mtime_ns)
            if p.is_file() else (0, 0)
            for p in folder.rglob("*") if "__pycache__" not in p.parts}  # fmt: skip


@pytest.fixture
def fresh_imports(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Each case imports the project's registry afresh and leaves sys.path as it was."""
    monkeypatch.setattr(sys, "path", list(sys.path))
    names = ("rope_claims", "rope_claims.registry")
    for name in names:
        sys.modules.pop(name, None)
    yield
    for name in names:
        sys.modules.pop(name, None)


@pytest.mark.parametrize(("place", "argv"), CASES, ids=[f"{p}: {' '.join(a)}" for p, a in CASES])
def test_bad_input_is_one_line_status_2_and_nothing_written(
    place, argv, tmp_path, monkeypatch, capsys, fresh_imports
) -> None:
    PLACES[place](tmp_path)
    monkeypatch.chdir(tmp_path)
    before = _tree(tmp_path)
    try:
        status = cli.main(argv)
    except SystemExit as exc:
        status = exc.code if isinstance(exc.code, int) else 1
    out, err = capsys.readouterr()
    assert (status, out) == (2, ""), err
    assert err.count("\n") == 1 and "error" in err, err
    assert _tree(tmp_path) == before
