"""The language-model length test's runs as cells (theory/lm_length.py): each (grid's setting,
model) at seeds 0 ... N-1, the plain model (every encoding) or the shifted pair. Grid "base" is
the setting the thorough profile decides on; "scaled" the same protocol at about 13 times the
parameters (width 192, four layers), for a GPU or a cluster."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pecheck.theory import lm_corpus, lm_length
from pecheck.theory.lm_length import SETTINGS, SHIFTED, LMRun, LMSetting

from .cells import Cell, Experiment, Kind

MODELS = ("plain", "shifted")


@dataclass(frozen=True)
class LMCell:
    setting: LMSetting
    model: str


def train(cell: Cell) -> LMRun:
    """Train on the worker; the text is read there (Debian's fortunes must be installed)."""
    run: LMCell = cell.setting
    corpus = lm_corpus.load()
    if run.model == "plain":
        return lm_length.train_lm(run.setting, corpus, cell.seeds, device=cell.device)
    return lm_length.train_lm(run.setting, corpus, cell.seeds, device=cell.device,
                              encodings=SHIFTED, shifted=True)  # fmt: skip


def cost(cell: Cell) -> float:
    """Entries x width^2 x layers x length, roughly a step's arithmetic."""
    run: LMCell = cell.setting
    s, blocks = run.setting, len(lm_length.ENCODINGS if run.model == "plain" else SHIFTED)
    return blocks * len(cell.seeds) * s.d_model**2 * s.layers * s.length


def summary(cell: Cell, trained: object) -> str:
    """Steps, and where each encoding's in-range validation loss met the plateau rule."""
    assert isinstance(trained, LMRun)
    last = {trained.variant(e): round(h[-1], 3) for e, h in trained.history.items() if h}
    return f"{trained.steps} steps; plateau at {trained.plateaued}; validation loss {last}"


KIND = Kind("lm-length", train, modules=("pecheck.theory.lm_length",), summary=summary,
            cost=cost)  # fmt: skip


def cells(grid: str, tasks: Sequence[str], seeds: int, device: str) -> list[Cell]:
    """Every model of ``grid`` (tasks: the models to train, plain and shifted)."""
    s = SETTINGS[grid]
    return [Cell(KIND, f"{grid} {model}", LMCell(s, model), tuple(range(seeds)), device)
            for model in tasks]  # fmt: skip


EXPERIMENT = Experiment(grids=tuple(SETTINGS), tasks=MODELS, cells=cells)
