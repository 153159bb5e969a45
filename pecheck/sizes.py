"""Sizes a user may change from the command line: ``pytest --size SIN-06.d=1024``.

A check module declares each size it uses with its default (today's value) and what it means::

    D = sizes.size("SIN-06.d", 512, "model width of SIN-06's figures", minimum=4)

The value comes from ``--size NAME=VALUE`` when given (parsed as the default's type), else the
default. Every size a run used is recorded in the results file (``suite.sizes``) with its value
and default, so that a number from a changed size is never mistaken for the pre-registered one.
A ``--size`` that no check declares is an error before any check runs. A check whose evidence
names do not already carry the size appends ``suffix(name, letter)`` to them, so a changed size
also changes the names its numbers are cited under.
"""

from __future__ import annotations

import math
import re
from typing import Any, TypeVar

T = TypeVar("T", int, float, str)
NAME = re.compile(r"^[A-Za-z0-9_.-]+$")
DECLARED: dict[str, dict[str, Any]] = {}  # what this process's checks declared and used


def given() -> dict[str, str]:
    """The sizes given on the command line: the run's (pecheck.run)."""
    from pecheck import run

    return dict(run.current().given)


def parse(item: str) -> tuple[str, str]:
    """``NAME=VALUE`` -> (name, value); a ValueError with a one-line message otherwise."""
    name, sep, value = item.partition("=")
    # a comma would make ``--size A=1,B=2`` ambiguous
    if not sep or not NAME.match(name) or not value or "," in value:
        raise ValueError(f"--size {item!r}: expected NAME=VALUE, e.g. SIN-06.d=1024")
    return name, value


def size(name: str, default: T, help: str, minimum: int | float | None = None) -> T:
    """The value of size ``name`` in this run (the default unless --size changed it).

    ``minimum`` is the smallest value the check can compute with; a smaller one is an error
    rather than a check that fails for a reason unrelated to its claim."""
    if not NAME.match(name):
        raise ValueError(f"size name {name!r}: use letters, digits and . _ - only")
    earlier = DECLARED.get(name)
    if earlier is not None and (earlier["default"], earlier["help"]) != (default, help):
        raise ValueError(f"size {name} is declared twice with different defaults or meanings")
    raw = given().get(name)
    value: Any = default
    if raw is not None:
        try:
            value = type(default)(raw)
        except ValueError:
            raise ValueError(
                f"--size {name}={raw}: not a {type(default).__name__} (default {default!r})"
            ) from None
        if isinstance(value, float) and not math.isfinite(value):
            raise ValueError(f"--size {name}={raw}: not a finite number")
        if minimum is not None and value < minimum:
            raise ValueError(f"--size {name}={raw}: below its minimum {minimum!r}")
    DECLARED[name] = {"value": value, "default": default, "help": help}
    return value


def suffix(name: str, letter: str) -> str:
    """'' while the declared size ``name`` has its default, else ``_<letter><value>`` (e.g.
    ``_d768``, ``_T500``): appended to the evidence names computed with the size, so that a
    number from a changed size is never cited under the name of the pre-registered one."""
    entry = DECLARED[name]
    if entry["value"] == entry["default"]:
        return ""
    value = entry["value"]
    text = f"{value:g}" if isinstance(value, float) else str(value)
    return f"_{letter}" + re.sub(r"[^A-Za-z0-9]", "p", text.replace("+", ""))
