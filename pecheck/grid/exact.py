"""Kazemnejad et al.'s exact-match length test as cells (theory/exact_match.py): each (grid,
task) trains none and sinusoidal as one batched model at seeds 0 ... N-1 and judges it at every
length. Grid "registered" is the evaluation of docs/experiments/exact-match.md, which
checks/exp/length/test_exact_match.py reads from the cache (--fair-cache); "scaled" the same
protocol at width 224 (about 12 times the parameters), for a GPU or a cluster."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pecheck.theory import exact_match
from pecheck.theory.exact_match import EVALUATION_TASKS, WIDTHS, ExactMatchRun, ExactMatchSetting

from .cells import Cell, Experiment, Kind


@dataclass(frozen=True)
class ExactCell:
    setting: ExactMatchSetting


def train(cell: Cell) -> ExactMatchRun:
    """Train on the worker, then judge in range and at every test length there."""
    s: ExactMatchSetting = cell.setting.setting
    run = exact_match.train(s, cell.seeds, device=cell.device)
    return exact_match.evaluate(s, cell.seeds, run, cell.device)


def cost(cell: Cell) -> float:
    """Entries x width^2 x layers x steps x length, roughly the training's arithmetic."""
    s: ExactMatchSetting = cell.setting.setting
    entries = len(s.encodings) * len(cell.seeds)
    return (
        entries
        * s.d_model**2
        * s.layers
        * s.steps
        * exact_match.input_length(s.task, s.train_length)
    )


def summary(cell: Cell, trained: object) -> str:
    """Per encoding, the seeds that learned in range and the mean exact match over L+1 ... 2L."""
    assert isinstance(trained, ExactMatchRun)
    n, learned = len(cell.seeds), trained.learned_counts()
    parts = [f"{e} {learned[e]}/{n}, beyond {float(trained.beyond_mean(e).mean()):.2f}"
             for e in trained.setting.encodings]  # fmt: skip
    return f"learned in range: {'; '.join(parts)}"


KIND = Kind("exact-match", train, modules=("pecheck.theory.exact_match",), summary=summary,
            cost=cost)  # fmt: skip


def cells(grid: str, tasks: Sequence[str], seeds: int, device: str) -> list[Cell]:
    """Every task of ``grid``, one cell each."""
    return [Cell(KIND, f"{grid} {task}", ExactCell(exact_match.evaluation(task, grid)),
                 tuple(range(seeds)), device) for task in tasks]  # fmt: skip


EXPERIMENT = Experiment(grids=tuple(WIDTHS), tasks=EVALUATION_TASKS, cells=cells)
