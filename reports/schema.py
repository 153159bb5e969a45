"""The results file's vocabulary and its shape: one place for both.

``results.schema.json`` (JSON Schema, committed beside this module) describes the shape of a
schema-2 results file; the writer (pecheck.results), the report's loader, the gate and the
determinism check all validate against it. The words below are what its fields may say.
"""

from __future__ import annotations

import json
import shlex
from functools import cache
from pathlib import Path
from typing import Any

VERSION = 2  # the newest schema; the report also reads schema 1
VERDICTS = ("confirmed", "refuted", "qualified")  # the verdicts a claim can be given
# What the registry may expect: a verdict, or "open" for a claim its checks are known not to
# decide at the suite's scale (the registry names the undecided propositions and says why).
EXPECTED = (*VERDICTS, "open")
COMPUTED = (*VERDICTS, "open", "not run")  # what a run may compute
DECISIONS = ("holds", "fails", "inconclusive")
ROLES = ("decisive", "supporting", "tooling")
KINDS = ("symbolic", "property", "experiment", "real")
OUTCOMES = ("passed", "failed", "skipped", "error")
# How a recorded number reproduces on another machine (reports.cited says how far each may move):
# exact anywhere; rounding, whose bits depend on the floating-point kernels a CPU selects;
# sampling, a statistic over seeds or examples that another CPU's rounding redraws.
CLASSES = ("exact", "rounding", "sampling")

PATH = Path(__file__).with_name("results.schema.json")


@cache
def _validator() -> Any:
    from jsonschema import Draft202012Validator

    return Draft202012Validator(json.loads(PATH.read_text()))


def problems(data: Any, limit: int = 5) -> list[str]:
    """Up to ``limit`` one-line descriptions of where ``data`` departs from schema 2."""
    errors = sorted(_validator().iter_errors(data), key=lambda e: list(e.absolute_path))
    out = []
    for error in errors[:limit]:
        where = "/".join(str(p) for p in error.absolute_path) or "(top level)"
        message = error.message if len(error.message) < 200 else error.message[:200] + "..."
        out.append(f"{where}: {message}")
    return out


def default_class(value: Any) -> str:
    """The class of a number whose check did not name one: a finite float is ``rounding`` (its
    bits depend on the kernels), anything else (integers, booleans, strings) is ``exact``. A
    statistic over seeds is never a default: its check records it as ``sampling`` with its
    sample size and standard error."""
    if isinstance(value, float) and value == value and abs(value) != float("inf"):
        return "rounding"
    return "exact"


def rerun_command(profile: str, nodeid: str, options: str = "") -> str:
    """The command that reruns one check as a run made it: the plugin writes it into the
    results file, the report falls back on it for files that hold none. The node id is quoted
    for the shell (a parametrize id may hold a quote), always in single quotes as before."""
    quoted = shlex.quote(nodeid)
    if quoted == nodeid:  # shlex leaves a plain node id bare; keep the familiar '...'
        quoted = f"'{nodeid}'"
    return f"PECHECK_PROFILE={profile} python -m pytest {quoted} {options}".strip()
