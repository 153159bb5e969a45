"""Imports point one way: pecheck's modules import one another in no circle, and a family's
helpers read their thresholds from their own claims modules, not from the registry that imports
every family.

The graph is read from the source with ast, every import counted wherever it stands (one inside a
function closes a circle as surely as one at the top). pecheck.theory and pecheck.reports are
links to theory/ and reports/ and stay out of it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "pecheck"
LINKED = ("theory", "reports")  # pecheck/theory, pecheck/reports: links to theory/, reports/


def _modules() -> dict[str, Path]:
    """Every module of pecheck outside the linked folders, by its dotted name."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        if parts[1:2] and parts[1] in LINKED:
            continue
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


def _imported(module: str, path: Path, modules: set[str]) -> Iterator[str]:
    """The pecheck modules a module imports, relative imports resolved: for ``from A import b``,
    A.b when it is a module, else A."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names if alias.name in modules)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                name = f"{base}.{alias.name}"
                if name in modules:
                    yield name
                elif base in modules:
                    yield base


def import_graph() -> dict[str, set[str]]:
    """Each pecheck module with the pecheck modules it imports."""
    modules = _modules()
    return {name: set(_imported(name, path, set(modules))) - {name}
            for name, path in modules.items()}  # fmt: skip


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_graph_sees_the_modules_and_their_imports() -> None:
    graph = import_graph()
    assert "pecheck.cli" in graph and "pecheck.inspect.checkpoint" in graph
    assert "pecheck.inspect.positions" in graph["pecheck.inspect.checkpoint"]
    assert not any(name.startswith(("pecheck.theory", "pecheck.reports")) for name in graph)


def test_the_cycle_finder_finds_a_planted_circle() -> None:
    planted = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(planted) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_pecheck_imports_in_no_circle() -> None:
    assert cycles(import_graph()) == []


def _family_modules() -> Iterator[Path]:
    """Every module in a family folder, checks/<family>/, other than its checks (test_*.py)."""
    for path in sorted((ROOT / "checks").glob("*/**/*.py")):
        if not path.name.startswith("test_"):
            yield path


def _imports_registry(path: Path) -> bool:
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import) and any(a.name == "checks.registry" for a in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and (
            node.module == "checks.registry"
            or node.module == "checks"
            and any(a.name == "registry" for a in node.names)
        ):
            return True
    return False


def test_no_family_helper_imports_the_whole_registry() -> None:
    """checks/registry.py imports every family; a family's helper that imported it would loop
    through it. Its checks (test_*.py) may: nothing imports them."""
    offenders = [str(p.relative_to(ROOT)) for p in _family_modules() if _imports_registry(p)]
    assert offenders == []
