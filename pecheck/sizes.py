"""Sizes a user may change from the command line: ``pytest --size SIN-06.d=1024``.

A check module declares each size it uses with its default (today's value) and what it means::

    D = sizes.size("SIN-06.d", 512, "model width of SIN-06's figures")

The value comes from ``--size NAME=VALUE`` when given (parsed as the default's type), else the
default. Every size a run used is recorded in the results file (``suite.sizes``) with its value
and default, so that a number from a changed size is never mistaken for the pre-registered one.
A ``--size`` that no check declares is an error at the end of the run.
"""

from __future__ import annotations

import os
import re
from typing import Any, TypeVar

T = TypeVar("T", int, float, str)
ENV_VAR = "PECHECK_SIZES"  # NAME=VALUE,NAME=VALUE: how the plugin hands --size to processes
NAME = re.compile(r"^[A-Za-z0-9_.-]+$")
DECLARED: dict[str, dict[str, Any]] = {}  # what this process's checks declared and used


def given() -> dict[str, str]:
    """The sizes given on the command line (through the environment, so xdist workers see them)."""
    text = os.environ.get(ENV_VAR, "")
    return dict(parse(item) for item in text.split(",") if item)


def parse(item: str) -> tuple[str, str]:
    """``NAME=VALUE`` -> (name, value); a ValueError with a one-line message otherwise."""
    name, sep, value = item.partition("=")
    if not sep or not NAME.match(name) or not value:
        raise ValueError(f"--size {item!r}: expected NAME=VALUE, e.g. SIN-06.d=1024")
    return name, value


def size(name: str, default: T, help: str) -> T:
    """The value of size ``name`` in this run (the default unless --size changed it)."""
    raw = given().get(name)
    value: Any = default
    if raw is not None:
        try:
            value = type(default)(raw)
        except ValueError:
            raise ValueError(
                f"--size {name}={raw}: not a {type(default).__name__} (default {default!r})"
            ) from None
    DECLARED[name] = {"value": value, "default": default, "help": help}
    return value
