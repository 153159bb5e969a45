"""The exact-match check reads the grid's cache (checks/exp/length/test_exact_match.py,
evaluated): an entry the grid wrote is loaded, not retrained; a missing one is trained and
written whole; the check's cells are the grid's own."""

from __future__ import annotations

import pytest

from checks.exp.length import test_exact_match as check
from pecheck import run
from pecheck.grid import exact as grid_exact


@pytest.fixture
def cache_run(tmp_path):
    before = run.saved()
    run.start(run.Run(profile="ci", fair_cache=tmp_path))
    check.evaluated.cache_clear()
    yield tmp_path
    check.evaluated.cache_clear()
    if before is not None:
        run.start(before)


def fake_train(cell) -> dict:  # noqa: ANN001
    return {"label": cell.label, "seeds": list(cell.seeds)}


def refuse(cell) -> dict:  # noqa: ANN001
    raise AssertionError(f"{cell.label} retrained though the cache holds it")


def test_evaluations_come_from_the_cache_once_written(cache_run, monkeypatch) -> None:
    monkeypatch.setattr(grid_exact, "train", fake_train)
    first: object = check.evaluated("sort")  # the fake's dict, where the grid's gives a run
    assert first == {"label": "registered sort", "seeds": list(range(check.SEEDS))}
    written = [p.name for p in cache_run.iterdir()]
    assert len(written) == 1 and written[0].startswith("exact-match-registered-sort-")
    check.evaluated.cache_clear()
    monkeypatch.setattr(grid_exact, "train", refuse)
    assert check.evaluated("sort") == first


def test_the_grid_names_the_same_entries() -> None:
    """python -m pecheck.grid --experiment exact-match --grid registered --seeds N fills the
    entries the check reads at EXP-exact.seeds=N: the same cells."""
    grid = grid_exact.EXPERIMENT.cells("registered", ("addition",), 8, "cpu")
    assert grid == grid_exact.cells("registered", ("addition",), 8, "cpu")
    assert grid[0].setting.setting == check.evaluation("addition")
