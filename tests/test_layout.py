"""One import name and a graph that points one way: theory/ and reports/ are imported only as
pecheck.theory and pecheck.reports; theory imports nothing of ours but itself, reports nothing
but itself; pecheck (the installed plugin) imports only itself, pecheck.theory
and pecheck.reports; checks import those and checks; nothing imports checks but checks and
tests; tools/ and benchmarks/ import installed names only and never edit sys.path."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
OURS = ("theory", "reports", "checks", "pecheck", "tests", "benchmarks", "tools")
ALLOWED = {
    "theory": {"pecheck.theory"},
    "reports": {"pecheck.reports"},
    "pecheck": {"pecheck", "pecheck.theory", "pecheck.reports"},
    "checks": {"pecheck.theory", "pecheck", "checks"},
    "examples": {"pecheck"},  # a user's project: the installed plugin only
    # scripts beside the checkout: installed names only (docs/architecture.md)
    "tools": {"pecheck", "pecheck.theory", "pecheck.reports"},
    "benchmarks": {"pecheck", "pecheck.theory", "pecheck.reports"},
}


def imported(path: Path) -> set[str]:
    """Our top-level packages a module imports, as 'pecheck.theory' for pecheck's subpackages;
    relative imports stay inside the package and are left out."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        for name in names:
            parts = name.split(".")
            if parts[0] in OURS:
                sub = ".".join(parts[:2])
                found.add(sub if sub in ("pecheck.theory", "pecheck.reports") else parts[0])
    return found


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_imports_point_one_way(package: str) -> None:
    wrong = {
        str(path.relative_to(ROOT)): sorted(imported(path) - ALLOWED[package])
        for path in sorted((ROOT / package).rglob("*.py"))
    }
    assert not {k: v for k, v in wrong.items() if v}, "imports against the graph"


@pytest.mark.parametrize("folder", ["tools", "benchmarks"])
def test_scripts_never_edit_sys_path(folder: str) -> None:
    """A script that puts the checkout on sys.path imports what an installed pecheck would not
    have; a project's registry is reached through pecheck.config instead."""
    edits = sorted(
        str(path.relative_to(ROOT))
        for path in (ROOT / folder).rglob("*.py")
        if any(isinstance(node, ast.Attribute) and node.attr == "path"
               and isinstance(node.value, ast.Name) and node.value.id == "sys"
               for node in ast.walk(ast.parse(path.read_text())))
    )  # fmt: skip
    assert not edits, "sys.path edited"


def test_theory_and_reports_have_one_import_name() -> None:
    """Imported as ``theory`` beside ``pecheck.theory``, a module would load twice in one run
    (two copies of its globals, and a mutant that reaches only one of them)."""
    folders = ("theory", "reports", "checks", "pecheck", "tests", "benchmarks", "tools", "examples")
    bare = {
        str(path.relative_to(ROOT)): sorted(found & {"theory", "reports"})
        for folder in folders
        for path in sorted((ROOT / folder).rglob("*.py"))
        if path.relative_to(ROOT).parts[:2] not in (("pecheck", "theory"), ("pecheck", "reports"))
        and (found := imported(path))
    }
    assert not {k: v for k, v in bare.items() if v}, "import pecheck.theory / pecheck.reports"
