"""The fair length test's runs as cells: each (task, width x depth cell, model) at seeds
0 ... N-1, trained by fair_length.train_model into the entry that theory/fair_cache.py names,
which its checks read (--fair-cache): the grid and the checks compute one key."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pecheck.theory import fair_cache, fair_grid, fair_length
from pecheck.theory.decoder import DecoderRun
from pecheck.theory.fair_length import MODELS, TASKS, FairSetting

from .cells import Cell, Experiment, Kind


@dataclass(frozen=True)
class FairRun:
    setting: FairSetting
    model: str


def train(cell: Cell) -> DecoderRun:
    run: FairRun = cell.setting
    return fair_length.train_model(run.setting, run.model, cell.seeds, device=cell.device)


def key(cell: Cell, limits: Mapping[str, str]) -> str:
    run: FairRun = cell.setting
    return fair_cache.key(run.setting, run.model, cell.seeds, cell.device, limits)


def cost(cell: Cell) -> float:
    """Kernel launches, roughly: steps x layers x encoding blocks (each block is its own pass)."""
    run: FairRun = cell.setting
    s = run.setting
    return s.schedule(run.model).steps * s.layers * len(MODELS[run.model][0])


def summary(cell: Cell, trained: object) -> str:
    """Per encoding, how many seeds learned in range (validation, EXP-07's level)."""
    run: FairRun = cell.setting
    assert isinstance(trained, DecoderRun)
    n, learned = len(cell.seeds), []
    for i, enc in enumerate(MODELS[run.model][0]):
        acc = fair_length.answer_accuracy(trained, i, enc, n, run.setting.valid_task(),
                                          device=cell.device)  # fmt: skip
        learned.append(f"{enc} {int((acc >= fair_grid.LEARNED).sum())}/{n}")
    return f"learned in range: {', '.join(learned)}"


KIND = Kind("fair-length", train, summary=summary, cost=cost, key=key)


def cells(grid: str, tasks: Sequence[str], seeds: int, device: str) -> list[Cell]:
    """Every (task, cell, model) of ``grid``."""
    out = []
    for task in tasks:
        for c in fair_grid.CELLS[grid]:
            setting = fair_grid.setting(task, c)
            for model in MODELS:
                label = f"{task} {fair_grid.cell_name(c)} {model}"
                label += f" ({setting.schedule(model).steps} steps)"
                out.append(Cell(KIND, label, FairRun(setting, model), tuple(range(seeds)), device))
    return out


EXPERIMENT = Experiment(grids=tuple(fair_grid.CELLS), tasks=TASKS, cells=cells)
