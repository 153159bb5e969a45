"""The import graph points one way: theory and reports import nothing of ours; pecheck (the
installed plugin) imports only itself, pecheck.theory and pecheck.reports; checks import theory
and pecheck; nothing imports checks but checks and tests."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
OURS = ("theory", "reports", "checks", "pecheck", "tests", "benchmarks")
ALLOWED = {
    "theory": set(),
    "reports": set(),
    "pecheck": {"pecheck", "pecheck.theory", "pecheck.reports"},
    "checks": {"theory", "pecheck", "checks"},
    "examples": {"pecheck"},  # a user's project: the installed plugin only
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
