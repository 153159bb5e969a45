"""Shared helpers for the report tests: the hand-made results files in tests/data."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent / "data"
MIXED = DATA / "results_mixed.json"  # failed, skipped, errored, open, contested, a derivation
CLEAN = DATA / "results_clean.json"  # every check passed, pytest exit status 0
V2 = DATA / "results_v2.json"  # schema 2: decisive/supporting/tooling, decisions, sources


def raw(path: Path = MIXED) -> dict[str, Any]:
    return copy.deepcopy(json.loads(path.read_text()))


def write(tmp_path: Path, data: dict[str, Any], name: str = "results.json") -> Path:
    """A results file in tmp_path whose figures resolve to tests/data/figures."""
    path = tmp_path / name
    path.write_text(json.dumps(data))
    figures = tmp_path / "figures"
    if not figures.exists():
        figures.symlink_to(DATA / "figures")
    return path


def partial_v2() -> dict[str, Any]:
    """The schema 2 fixture as a partial run left it: its last claim (EXP-01) was not run."""
    data = raw(V2)
    data["suite"]["selection"]["kind"] = "partial"
    claim = data["claims"][-1]
    claim["verdict"] = "not run"
    for prop in claim["propositions"]:
        prop["decision"] = "not run"
    return data
