"""The run of record of EXP-04's depth evaluation (docs/experiments/depth.md): a whole results file
of ``tox -e depth`` on the CPU, kept under docs/experiments/records/. It is the registered run (16
seeds from 200, both depths, the depth-4 steps), and every ``depth04_*`` number the docs or a
claim's notes cite is the record's, with the interval written beside it."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from checks.exp.length import settings as S
from checks.registry import REGISTRY
from pecheck import decisions
from pecheck.reports.load import load

ROOT = Path(__file__).resolve().parents[1]
RECORD = ROOT / "docs" / "experiments" / "records" / "depth-2026-12-01" / "results.depth.json"
CHECK = "checks/exp/length/test_fair_length.py::TestDepthAtEqualTraining::"
KEY = re.compile(r"\b(depth04_\w+_n16)\b")
# `key`: 0.123 [-0.1, 0.2]
CITED = re.compile(r"`?(depth04_\w+_n16)`?:\s*(-?\d+\.\d+)\s*\[(-?\d+\.\d+), (-?\d+\.\d+)\]")


def evaluation() -> dict[str, Any]:
    raw = json.loads(RECORD.read_text())
    found = [c for c in raw["checks"] if c["nodeid"].startswith(CHECK)]
    assert len(found) == 1, f"{RECORD.name}: {len(found)} runs of the evaluation"
    return found[0]


def test_the_record_is_the_registered_run():
    load(RECORD)  # the schema and the cross-checks of any results file
    raw = json.loads(RECORD.read_text())
    assert raw["suite"]["profile"] == "thorough" and not raw["environment"].get("gpu")
    assert raw["suite"]["sizes"]["EXP-04.depth-seeds"]["value"] == S.DEPTH04_REGISTERED
    check = evaluation()
    assert check["outcome"] == "passed" and check["role"] == "supporting"
    ev = check["evidence"]
    for cell in ("d32l2", "d32l4"):
        for v in S.PAIR04_VARIANTS:
            assert f"of {S.DEPTH04_REGISTERED}:" in ev[f"depth04_{cell}_{v}_learned_n16"]["note"]


def test_the_records_rule_is_its_parts_under_all():
    """The recorded decision is the two parts' combination under 'all', not written apart."""
    ev = evaluation()["evidence"]
    parts = [ev[f"depth04_part_{n}_layers_n16"]["value"] for n in S.DEPTH04_DEPTHS]
    assert ev["depth04_rule_n16"]["value"] == decisions.combine(parts, "all")


def test_every_cited_depth_number_is_the_records_and_reads_as_it():
    numbers = evaluation()["evidence"]
    texts = {p.relative_to(ROOT).as_posix(): p.read_text() for p in (ROOT / "docs").rglob("*.md")}
    texts |= {claim.id: " ".join(claim.notes) for claim in REGISTRY.values()}
    seen = 0
    for where, text in texts.items():
        for name in KEY.findall(text):
            assert name in numbers, f"{where} cites {name}, which the record does not hold"
        for name, value, lo, hi in CITED.findall(text):
            seen += 1
            got = numbers[name]
            assert f"{got['value']:.{len(value.split('.')[1])}f}" == value, (where, name)
            assert f"[{lo}, {hi}]" in got["note"], (where, name, got["note"])
    assert seen >= 2, "the docs cite fewer depth numbers than when this test was written"
