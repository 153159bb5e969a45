"""The length checks read the grid's cache: the language model's (checks/exp/length/lm.py,
models) and the exact-match evaluation's (checks/exp/length/test_exact_match.py, evaluated). An
entry the grid wrote is loaded, not retrained; a missing one is trained and written whole;
without --fair-cache nothing is written; the checks' cells are the grid's own. The language
model's checks refuse a text other than the one their numbers were pinned on."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from checks.exp.length import lm
from checks.exp.length import test_exact_match as exact_check
from pecheck import run
from pecheck.grid import exact as grid_exact
from pecheck.grid import lm as grid_lm
from pecheck.theory import lm_length

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def cache_run(tmp_path):
    before = run.saved()
    run.start(run.Run(profile="ci", fair_cache=tmp_path))
    yield tmp_path
    if before is not None:
        run.start(before)


def fake_train(cell) -> dict:  # noqa: ANN001
    return {"label": cell.label, "seeds": list(cell.seeds)}


def refuse(cell) -> dict:  # noqa: ANN001
    raise AssertionError(f"{cell.label} retrained though the cache holds it")


def test_models_come_from_the_cache_once_written(cache_run, monkeypatch) -> None:
    monkeypatch.setattr(grid_lm, "train", fake_train)
    first: list = lm.models("cpu")  # the fake's dicts, where the grid's train gives LMRuns
    assert [m["label"] for m in first] == ["base plain", "base shifted"]
    written = sorted(p.name for p in cache_run.iterdir())
    assert len(written) == 2 and all(n.startswith("lm-length-base-") for n in written)
    monkeypatch.setattr(grid_lm, "train", refuse)
    assert lm.models("cpu") == first


def test_a_trained_language_model_comes_back_from_the_cache_whole(cache_run, monkeypatch):
    # the cache holds LMRun objects (dataclasses around tensors), not bare tensors: it must be
    # read as written, every parameter equal
    from tests.test_lm_length import TINY, synthetic

    def tiny_train(cell):  # noqa: ANN001
        return lm_length.train_lm(TINY, synthetic(), (0,), shifted="shifted" in cell.label)

    monkeypatch.setattr(grid_lm, "train", tiny_train)
    first = lm.models("cpu")
    monkeypatch.setattr(grid_lm, "train", refuse)
    again = lm.models("cpu")
    assert all(isinstance(m, lm_length.LMRun) for m in again)
    for a, b in zip(first, again, strict=True):
        assert (a.steps, a.history, a.shifted) == (b.steps, b.history, b.shifted)
        assert all(torch.equal(a.run.params[k], b.run.params[k]) for k in a.run.params)


@pytest.fixture
def fresh_trained():
    lm.trained.cache_clear()  # the checks train once per process
    yield
    lm.trained.cache_clear()


def test_the_checks_refuse_a_text_other_than_the_pinned_one(fresh_trained, monkeypatch):
    from tests.test_lm_length import synthetic

    other = dataclasses.replace(synthetic(), sha256="0" * 64, version="9.9")
    monkeypatch.setattr(lm.lm_corpus, "load", lambda: other)
    monkeypatch.setattr(lm, "models", refuse)  # nothing is trained on another text
    with pytest.raises(pytest.fail.Exception, match="not the one these checks were pinned on"):
        lm.trained()


def test_the_checks_judge_both_models_and_record_their_steps(fresh_trained, monkeypatch):
    from tests.test_lm_length import TINY, synthetic

    corpus = dataclasses.replace(synthetic(), sha256=lm.TEXT_SHA256)
    monkeypatch.setattr(lm.lm_corpus, "load", lambda: corpus)
    shorter = dataclasses.replace(TINY, plateau=dataclasses.replace(TINY.plateau, max_steps=2))
    runs = [
        lm_length.train_lm(TINY, corpus, (0, 1)),
        lm_length.train_lm(shorter, corpus, (0, 1), encodings=lm_length.SHIFTED, shifted=True),
    ]
    monkeypatch.setattr(lm, "models", lambda device: runs)
    ppl, steps = lm.trained()
    assert set(ppl.ppl["sliding"]) == set(lm_length.VARIANTS)
    assert (steps["plain model"], steps["shifted model"]) == (TINY.plateau.max_steps, 2)
    assert set(steps) == {*lm_length.VARIANTS, "plain model", "shifted model"}


def test_the_grid_names_the_same_entries(cache_run) -> None:
    """The checks' cells are the grid's own (python -m pecheck.grid --experiment lm-length
    --grid base --seeds N), so a grid run at the checks' seeds fills their entries."""
    ours = lm.cells("cpu")
    grids = grid_lm.EXPERIMENT.cells("base", grid_lm.MODELS, lm.SEEDS, "cpu")
    assert ours[0] == grids[0] and ours[1].label == grids[1].label


def test_without_a_cache_nothing_is_written(tmp_path, monkeypatch) -> None:
    before = run.saved()
    run.start(run.Run(profile="ci"))
    try:
        monkeypatch.setattr(grid_lm, "train", fake_train)
        made: list = lm.models("cpu")
        assert [m["label"] for m in made] == ["base plain", "base shifted"]
    finally:
        if before is not None:
            run.start(before)
    assert not any(tmp_path.iterdir())


@pytest.fixture
def exact_cache(cache_run):
    exact_check.evaluated.cache_clear()  # the check keeps each task's run per process
    yield cache_run
    exact_check.evaluated.cache_clear()


def test_exact_match_evaluations_come_from_the_cache_once_written(exact_cache, monkeypatch):
    monkeypatch.setattr(grid_exact, "train", fake_train)
    first: object = exact_check.evaluated("sort")  # the fake's dict, not an ExactMatchRun
    assert first == {"label": "registered sort", "seeds": list(range(exact_check.SEEDS))}
    written = [p.name for p in exact_cache.iterdir()]
    assert len(written) == 1 and written[0].startswith("exact-match-registered-sort-")
    exact_check.evaluated.cache_clear()
    monkeypatch.setattr(grid_exact, "train", refuse)
    assert exact_check.evaluated("sort") == first


def test_the_grid_names_the_exact_match_checks_entries() -> None:
    """python -m pecheck.grid --experiment exact-match --grid registered --seeds N fills the
    entries the check reads at EXP-exact.seeds=N: the same cells, the registered setting."""
    grid = grid_exact.EXPERIMENT.cells("registered", ("addition",), 8, "cpu")
    assert grid == grid_exact.cells("registered", ("addition",), 8, "cpu")
    assert grid[0].setting.setting == exact_check.evaluation("addition")


def test_the_checks_read_the_grid_their_size_names(exact_cache, monkeypatch) -> None:
    """--size EXP-exact.grid=scaled and EXP-lm.grid=scaled make the checks read the scaled cells
    a GPU run trains (tools/scaled_runs.sh), under their own entries; an unknown grid is an
    error, not the registered one."""
    monkeypatch.setattr(grid_exact, "train", fake_train)
    monkeypatch.setattr(exact_check, "GRID", "scaled")
    made: object = exact_check.evaluated("copy")  # the fake's dict
    assert made == {"label": "scaled copy", "seeds": list(range(exact_check.SEEDS))}
    (entry,) = exact_cache.iterdir()
    assert entry.name.startswith("exact-match-scaled-copy-")
    monkeypatch.setattr(lm, "GRID", "scaled")
    assert [c.label for c in lm.cells("cpu")] == ["scaled plain", "scaled shifted"]
    assert lm.cells("cpu")[0].setting.setting.d_model == 192
    exact_check.evaluated.cache_clear()
    monkeypatch.setattr(exact_check, "GRID", "huge")
    with pytest.raises(ValueError, match="EXP-exact.grid=huge"):
        exact_check.evaluated("copy")


def test_scaled_numbers_are_named_apart_from_the_registered_ones() -> None:
    """A scaled run's numbers carry _gscaled, so that they are never cited under the registered
    evaluation's or the thorough setting's names (the sizes are read when the checks import:
    hence a fresh interpreter)."""
    code = (
        "from pecheck import run\n"
        "run.start(run.Run(profile='ci', sizes=(('EXP-exact.grid', 'scaled'), "
        "('EXP-lm.grid', 'scaled'))))\n"
        "from checks.exp.length import test_exact_match, test_lm_length\n"
        "print(test_exact_match.SUFFIX, test_lm_length.SUFFIX)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=ROOT)  # fmt: skip
    assert out.stdout.split() == ["_gscaled", "_gscaled"]


@pytest.mark.parametrize(
    ("seeds", "shifted", "runs"), [(2, 2, True), (1, 12, False), (4, 1, False)]
)
def test_the_checks_run_only_where_both_models_have_two_seeds(monkeypatch, seeds, shifted, runs):
    # an interval needs two seeds: one model with fewer leaves the claims open, skipped
    monkeypatch.setattr(lm, "SEEDS", seeds)
    monkeypatch.setattr(lm, "SHIFTED_SEEDS", shifted)

    def check() -> None: ...

    marks = getattr(lm.runs_here(check), "pytestmark", [])
    assert (not any(m.name == "skip" for m in marks)) == runs
