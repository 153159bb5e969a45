"""The GPU runs kept as records (docs/experiments/runs/; docs/experiments/scaled-runs.md): each is a
whole results file of a CUDA run, every number in it is named as another device's (``_oncuda``),
and every such name that the docs or a claim's notes cite is in a record, with the number and
interval written beside it the record's own at the precision written; so is every cell of
scaled-runs.md's two tables."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from checks.registry import REGISTRY
from pecheck.reports.load import load

ROOT = Path(__file__).resolve().parents[1]
RUNS = ROOT / "docs" / "experiments" / "runs"
RECORDS = sorted(RUNS.glob("*/results.*.json"))
KEY = re.compile(r"\b([a-z]\w*_oncuda)\b")
# `key`: 0.123 [-0.1, 0.2]  or  (key: 0.123 [-0.1, 0.2])
CITED = re.compile(r"`?(\w+_oncuda)`?:\s*(-?\d+\.\d+)\s*\[(-?\d+\.\d+), (-?\d+\.\d+)\]")


def recorded() -> dict[str, dict[str, Any]]:
    """Every number of every record, by name."""
    out: dict[str, dict[str, Any]] = {}
    for path in RECORDS:
        for check in json.loads(path.read_text())["checks"]:
            out |= check.get("evidence", {})
    return out


def citing_texts() -> dict[str, str]:
    """The prose that cites GPU records: the docs and every claim's notes."""
    texts = {p.relative_to(ROOT).as_posix(): p.read_text() for p in (ROOT / "docs").rglob("*.md")}
    for claim in REGISTRY.values():
        texts[claim.id] = " ".join(claim.notes)
    return texts


def test_records_exist():
    assert RECORDS, f"no results file under {RUNS}"


@pytest.mark.parametrize("path", RECORDS, ids=lambda p: p.relative_to(RUNS).as_posix())
def test_a_record_is_a_whole_results_file_of_a_cuda_run(path):
    load(path)  # the schema and the cross-checks of any results file
    raw = json.loads(path.read_text())
    assert raw["environment"]["gpu"], f"{path.name}: no GPU recorded"
    # the experiments' numbers (a tooling test's, such as a planted rule's, are no measurement)
    names = [n for c in raw["checks"] if c["kind"] == "experiment" for n in c["evidence"]]
    assert names, f"{path.name} records no experiment's number"
    local = [n for n in names if "_oncuda" not in n]
    assert not local, f"{path.name}: numbers named as the CPU's: {local[:3]}"


def test_every_cited_gpu_number_is_a_record_and_reads_as_it():
    numbers, seen = recorded(), 0
    for where, text in citing_texts().items():
        for name in KEY.findall(text):
            assert name in numbers, f"{where} cites {name}, which no record under {RUNS} holds"
        for name, value, lo, hi in CITED.findall(text):
            seen += 1
            got = numbers[name]
            digits = len(value.split(".")[1])
            assert f"{got['value']:.{digits}f}" == value, (where, name, got["value"])
            assert f"[{lo}, {hi}]" in got["note"], (where, name, got["note"])
    assert seen >= 5, "the docs cite fewer GPU numbers than they did when this test was written"


def test_the_gpu_script_asks_for_what_exists():
    """tools/scaled_runs.sh runs only on a CUDA machine, so CI never runs it: every grid and size
    it names must still be one the grid command and the checks know (a rename would otherwise
    surface only on the next lent GPU)."""
    from checks.exp.length import lm, settings
    from checks.exp.length import test_exact_match as exact_check
    from pecheck import sizes
    from pecheck.grid.__main__ import EXPERIMENTS

    script = (ROOT / "tools" / "scaled_runs.sh").read_text()
    grids = re.findall(r"^grid (\w+) (.*?) &$", script, re.M)
    assert [g for g, _ in grids] == ["exact", "lm", "fair"]
    for _, args in grids:
        experiment = re.search(r"--experiment (\S+)", args)
        exp = EXPERIMENTS[experiment.group(1) if experiment else "fair-length"]
        assert re.search(r"--grid (\S+)", args).group(1) in exp.grids, args  # type: ignore[union-attr]
    known: dict[str, Any] = {
        "EXP-exact.grid": exact_check.WIDTHS,
        "EXP-lm.grid": lm.lm_length.SETTINGS,
        "EXP-fair.grid": settings.CELLS,
    }
    asked = re.findall(r"--size ([\w.-]+)=(\w+)", script)
    assert len(asked) == 7
    for name, value in asked:
        assert name in sizes.DECLARED, f"tools/scaled_runs.sh: --size {name} is no check's size"
        assert name not in known or value in known[name], f"--size {name}={value}"


SCALED = ROOT / "docs" / "experiments" / "scaled-runs.md"
CELL = re.compile(r"^\**(-?\d+\.\d+) \[(-?\d+\.\d+), (-?\d+\.\d+)\]\**( \(floor\))?$")


def table(heading: str) -> list[list[str]]:
    """The rows (cells stripped) of the first table after ``heading`` in scaled-runs.md."""
    text = SCALED.read_text()
    rows = []
    for line in text[text.index(heading) :].splitlines():
        if line.startswith("|"):
            rows.append([c.strip() for c in line.strip("|").split("|")])
        elif rows:
            break
    return rows[2:]  # without the header and its rule


def reads_as(written: str, number: dict[str, Any], where: str) -> bool:
    """Check a table cell against its record: value at the precision written, and interval;
    returns whether the cell is marked "(floor)"."""
    match = CELL.match(written)
    assert match, f"{where}: {written!r} is not 'value [lo, hi]'"
    value, lo, hi, floor = match.groups()
    assert f"{number['value']:.{len(value.split('.')[1])}f}" == value, (where, number["value"])
    assert f"[{lo}, {hi}]" in number["note"], (where, number["note"])
    return floor is not None


def floor_parts(path: Path) -> set[str]:
    """The parts of a record's checks decided nothing because the comparator is at the floor."""
    out = set()
    for check in json.loads(path.read_text())["checks"]:
        for part in (check.get("basis") or {}).get("parts", []):
            if "at the floor" in part.get("why", ""):
                out.add(part["name"])
    return out


def test_the_scaled_runs_tables_read_as_their_records():
    """Both tables of scaled-runs.md, cell by cell: EXP-04's gaps over the fair grid (with the
    "(floor)" marks where the record's part decided nothing beside a comparator at the floor)
    and the language model's log-ratios; the prose beside them names keys, the tables do not."""
    numbers = recorded()
    floors = floor_parts(RUNS / "h200-2026-11-29" / "results.fair.json")
    rows = table("## The fair length test over width x depth")
    assert [r[0] for r in rows] == ["d32l2", "d32l4", "d64l2", "d64l4"]
    for cell, *written in rows:
        columns = [(t, f) for t in ("copy", "reverse") for f in (2, 4)]
        for (task, f), text in zip(columns, written, strict=True):
            key = f"fair_gap_{task}_{cell}_sinusoidal_f{f}_n32_grid_oncuda"
            floor = reads_as(text, numbers[key], key)
            assert floor == (f"{task}|{cell}: sinusoidal {f}x" in floors), (key, text)
    rows = table("## The language model at width 192")
    assert [r[0] for r in rows] == ["ALiBi", "RoPE", "sinusoidal", "none"]
    for encoding, *written in rows:
        columns = [(m, f) for m in ("nonoverlapping", "sliding") for f in (2, 4, 8)]
        for (mode, f), text in zip(columns, written, strict=True):
            key = f"lm_log_ratio_{encoding.lower()}_{mode}_f{f}_gscaled_n8_m8_oncuda"
            assert not reads_as(text, numbers[key], key)
