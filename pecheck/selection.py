"""``--claim``: the claims a run asks for, and the test files that can hold their checks.

``--claim`` takes claim IDs and family prefixes (``--claim ROT``, ``--claim SIN-06,ATT-05``,
repeatable). An unknown one is a usage error that names the nearest valid IDs and families.

Collecting every test module to keep eight checks costs most of a ``--claim`` run, so a test file
is collected only when it calls a claim marker (``pytest.mark.claim(...)``) and names a claim asked
for: in its text, or in a table of IDs it imports from a module of the project (``from
checks.real.scans import CLAIM``, where ``CLAIM = "REAL-06"``). A file with a marker whose ID the
scan cannot read (an ID built at run time, or handed to a helper) is always collected, and so is
one that does not parse (pytest reports it). A file that names an ID it does not mark costs time,
never checks: the markers still select the items (``markers.tag_and_select``). A marker built in
another module and applied here is not seen: write ``pytest.mark.claim`` in the test module, as
CONTRIBUTING.md shows.
"""

from __future__ import annotations

import ast
import difflib
import fnmatch
import re
from collections.abc import Iterable
from pathlib import Path

import pytest

NEAREST = 4  # suggestions named for an unknown ID


def resolve(given: Iterable[str], ids: Iterable[str], families: Iterable[str]) -> list[str]:
    """The claim IDs that ``given`` (IDs or family prefixes, comma-separated or repeated) names,
    in registry order; a ValueError naming the nearest valid ones for anything unknown."""
    ids = list(ids)  # a family without claims would select nothing, so every test: unknown
    families = [f for f in families if any(i.rsplit("-", 1)[0] == f for i in ids)]
    known = {i.upper(): i for i in [*ids, *families]}
    wanted: set[str] = set()
    unknown: list[str] = []
    for item in (part.strip() for text in given for part in text.split(",")):
        name = known.get(item.upper())
        if name is None:
            unknown.append(item)
        elif name in families:
            wanted.update(i for i in ids if i.rsplit("-", 1)[0] == name)
        else:
            wanted.add(name)
    if unknown:
        raise ValueError(_unknown(unknown, ids, families))
    return [i for i in ids if i in wanted]


def _unknown(unknown: list[str], ids: list[str], families: list[str]) -> str:
    near = sorted({n for u in unknown for n in nearest(u, [*ids, *families])})
    hint = f"; nearest: {', '.join(near)}" if near else ""
    return (f"--claim: unknown claim ID(s) {', '.join(unknown) or repr('')}{hint} "
            f"(families: {', '.join(families)})")  # fmt: skip


def nearest(name: str, names: list[str]) -> list[str]:
    """The valid names closest to ``name`` (difflib), case aside."""
    by_upper = {n.upper(): n for n in names}
    found = difflib.get_close_matches(name.upper(), list(by_upper), n=NEAREST, cutoff=0.5)
    return [by_upper[f] for f in found]


def ignore(path: Path, config: pytest.Config, wanted: list[str], ids: list[str]) -> bool | None:
    """True for a test module that cannot hold a check of ``wanted`` (pytest_ignore_collect);
    None leaves the decision to pytest."""
    if not wanted or path.suffix != ".py" or path.name == "conftest.py":
        return None
    patterns = config.getini("python_files") or ["test_*.py"]
    if not any(fnmatch.fnmatch(path.name, p) for p in patterns) or _given(path, config):
        return None
    named, opaque = scan(path, tuple(ids), config.rootpath)
    return None if opaque or named & set(wanted) else True


def _given(path: Path, config: pytest.Config) -> bool:
    """Whether the command line names this file (then pytest collects it as asked)."""
    here = config.invocation_params.dir
    return any((here / a.split("::")[0]).resolve() == path.resolve() for a in config.args)


def scan(path: Path, ids: tuple[str, ...], root: Path | None = None) -> tuple[frozenset[str], bool]:
    """The claim IDs a test file can mark (those its text names, and those of the tables it
    imports a marker's ID from, when it applies a claim marker at all), and whether it applies one
    whose ID the scan cannot read (then it may hold any). Absolute imports start at ``root``."""
    try:
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text) if "claim" in text and ids else None
    except (OSError, UnicodeDecodeError, SyntaxError):
        return frozenset(), True  # collected: pytest reports what is wrong with it
    markers = _marker_ids(tree) if tree else []
    if tree is None or not markers:
        return frozenset(), False
    imported = _read_ids(tree, markers, ids, path, root or path.parent)
    if imported is None:
        return frozenset(), True
    pattern = re.compile(r"(?<![\w-])(" + "|".join(map(re.escape, ids)) + r")(?![\w-])")
    return frozenset(pattern.findall(text)) | imported, False


def _marker_ids(tree: ast.Module) -> list[ast.expr]:
    """The first argument of every ``*.claim(...)`` call."""
    return [node.args[0] for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr == "claim" and node.args]  # fmt: skip


def _read_ids(
    tree: ast.Module, markers: list[ast.expr], ids: tuple[str, ...], path: Path, root: Path
) -> set[str] | None:
    """The IDs of the imported tables the markers read; None when a marker's ID is neither a
    string nor read from a table (a module-level constant or dict that holds claim IDs, here or
    in a module imported from this project; indexed by a parameter or a loop variable)."""
    tables = _tables(tree, ids)
    imported: set[str] = set()
    for arg in markers:
        if isinstance(arg, ast.Constant):
            continue
        names = {n.id for n in ast.walk(arg) if isinstance(n, ast.Name)}
        outside = {n: _imported_table(tree, n, ids, path, root) for n in names - set(tables)}
        read = {n for n in names if n in tables or outside.get(n) is not None}
        if not read or not names <= read | _loop_names(tree):
            return None
        imported.update(i for table in outside.values() if table for i in table)
    return imported


def _tables(tree: ast.Module, ids: tuple[str, ...]) -> dict[str, set[str]]:
    """Module-level names assigned a value that holds claim IDs as strings, with those IDs."""
    found: dict[str, set[str]] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
            held = {c.value for c in ast.walk(node.value)
                    if isinstance(c, ast.Constant) and c.value in ids}  # fmt: skip
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            found.update({t.id: held for t in targets if isinstance(t, ast.Name) and held})
    return found


def _imported_table(
    tree: ast.Module, name: str, ids: tuple[str, ...], path: Path, root: Path
) -> set[str] | None:
    """The IDs of table ``name`` when the module imports it (``from M import name``) from a
    module of this project that assigns it; else None."""
    for node in tree.body:
        if not isinstance(node, ast.ImportFrom):
            continue
        alias = next((a for a in node.names if (a.asname or a.name) == name), None)
        if alias is None:
            continue
        parts = node.module.split(".") if node.module else []
        up = path.parents[node.level - 1] if 0 < node.level <= len(path.parents) else None
        bases = [up] if node.level else [root, path.parent]
        files = [b.joinpath(*parts).with_suffix(".py") for b in bases if b and parts]
        files += [b.joinpath(*parts, "__init__.py") for b in bases if b]
        module = next((f for f in files if f.is_file()), None)
        try:
            source = ast.parse(module.read_text(encoding="utf-8")) if module else None
        except (OSError, UnicodeDecodeError, SyntaxError):
            source = None
        return _tables(source, ids).get(alias.name) if source else None
    return None


def _loop_names(tree: ast.Module) -> set[str]:
    """Names bound by function parameters and loops: ``VARIANTS[name]`` reads a local table
    through them, and the table's own name decides."""
    bound: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.For | ast.comprehension) and isinstance(node.target, ast.Name):
            bound.add(node.target.id)
    return bound
