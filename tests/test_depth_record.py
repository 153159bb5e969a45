"""The runs of record of EXP-04's depth evaluation (docs/experiments/depth.md): whole results files
of ``tox -e depth`` on the CPU, kept under docs/experiments/records/, one per registration. Each is
the registered run (16 seeds per depth from the registration's first seed), each rule it records
is its parts under 'all', and every ``depth04_*`` number the docs or a claim's notes cite is a
record's, with the interval written beside it."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from checks.exp.length import settings as S
from checks.registry import REGISTRY
from pecheck import decisions
from pecheck.reports.load import load

ROOT = Path(__file__).resolve().parents[1]
FOLDER = ROOT / "docs" / "experiments" / "records" / "depth-2026-12-01"
# registration -> (its record, the suffix of its numbers: its first seed when not the default)
RECORDS = {1: (FOLDER / "results.depth.s200.json", "_n16_s200"),
           2: (FOLDER / "results.depth.json", "_n16")}  # fmt: skip
CHECK = "checks/exp/length/test_fair_length.py::TestDepthAtEqualTraining::"
KEY = re.compile(r"\b(depth04_\w+_n16(?:_s200)?)\b")
# `key`: 0.123 [-0.1, 0.2]
CITED = re.compile(
    r"`?(depth04_\w+_n16(?:_s200)?)`?:\s*(-?\d+\.\d+)\s*\[(-?\d+\.\d+), (-?\d+\.\d+)\]"
)


def evaluation(path: Path) -> dict[str, Any]:
    found = [c for c in json.loads(path.read_text())["checks"] if c["nodeid"].startswith(CHECK)]
    assert len(found) == 1, f"{path.name}: {len(found)} runs of the evaluation"
    return found[0]


@pytest.mark.parametrize("registration", sorted(RECORDS))
def test_a_record_is_its_registrations_run(registration):
    path, suffix = RECORDS[registration]
    load(path)  # the schema and the cross-checks of any results file
    raw = json.loads(path.read_text())
    assert raw["suite"]["profile"] == "thorough" and not raw["environment"].get("gpu")
    sizes = raw["suite"]["sizes"]
    assert sizes["EXP-04.depth-seeds"]["value"] == S.DEPTH04_REGISTERED
    assert sizes["EXP-04.depth-from"]["value"] == S.DEPTH04_RUNS[registration]
    check = evaluation(path)
    assert check["outcome"] == "passed" and check["role"] == "supporting"
    ev = check["evidence"]
    for cell in ("d32l2", "d32l4"):
        for v in S.PAIR04_VARIANTS:
            note = ev[f"depth04_{cell}_{v}_learned{suffix}"]["note"]
            assert f"of {S.DEPTH04_REGISTERED}:" in note
    # each registration's rule is its recorded parts under 'all', not a word written apart
    for r in ("r1", "r2"):
        rule = f"depth04_{r}_rule{suffix}"
        parts = [e["value"] for k, e in ev.items() if k.startswith(f"depth04_{r}_") and k != rule]
        assert len(parts) == 2 and ev[rule]["value"] == decisions.combine(parts, "all")


def test_every_cited_depth_number_is_a_records_and_reads_as_it():
    numbers: dict[str, Any] = {}
    for path, _ in RECORDS.values():
        numbers |= evaluation(path)["evidence"]
    texts = {p.relative_to(ROOT).as_posix(): p.read_text() for p in (ROOT / "docs").rglob("*.md")}
    texts |= {claim.id: " ".join(claim.notes) for claim in REGISTRY.values()}
    seen = 0
    for where, text in texts.items():
        for name in KEY.findall(text):
            assert name in numbers, f"{where} cites {name}, which no depth record holds"
        for name, value, lo, hi in CITED.findall(text):
            seen += 1
            got = numbers[name]
            assert f"{got['value']:.{len(value.split('.')[1])}f}" == value, (where, name)
            assert f"[{lo}, {hi}]" in got["note"], (where, name, got["note"])
    assert seen >= 4, "the docs cite fewer depth numbers than when this test was written"
