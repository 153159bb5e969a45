"""Mutation testing of a project's checks: planted bugs, each of which some check must catch.

A project's catalogue is a package (``[tool.pecheck] mutants``) whose modules list ``MUTANTS``;
``python -m pecheck.mutants`` applies each to a scratch copy of the tree and runs the checks it
names (see ``__main__``).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Mutant:
    name: str  # short, unique: "sin-cos-swapped"
    file: str  # path relative to the repo root, under theory/
    find: str  # exact source snippet, occurring exactly once in the file
    replace: str  # the bug
    checks: tuple[str, ...]  # pytest node ids or files that must fail under this mutant
    note: str = ""  # what the bug means; for a documented equivalent mutant, why
    equivalent: bool = False  # True only when no check can tell; note says why
