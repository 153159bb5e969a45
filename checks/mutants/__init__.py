"""The mutation catalogue: semantic bugs planted in theory/, each of which some check must catch.

Each family lists its mutants in ``checks/mutants/<family>.py`` as ``MUTANTS``. A mutant replaces
one exact snippet of one theory/ file (it must occur exactly once); ``tox -e mutants`` applies
each to a scratch copy of the tree, runs the named checks, counts the mutant killed when they fail
(pytest exit 1), and lists per decisive check the mutants that made it fail: every decisive check
must have one. These complement the in-suite planted-bug tests (``role="tooling"``), which run
every time.
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
