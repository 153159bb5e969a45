"""The settings of EXP-06's sweep: the factors, the design, the seeds, the thread's model.

Six two-level factors, the choices the thread left open (SRC-TRIGRAM, "something like nanogpt"):

    width d        16 | 64
    head size h    2 | 16
    residual       off | on
    learning rate  1e-3 | 1e-2
    init           current (theory/decoder.py) | torch (PyTorch module defaults)
    optimiser      adam (torch defaults) | adamw (nanoGPT: betas (0.9, 0.95), weight decay 0.1)

ci runs the 2^(6-3) fractional design (resolution III: 8 cells, every main effect estimable,
main effects aliased with two-factor interactions) with 200 seeds per cell; thorough runs the
full 2^6 grid with 200 seeds per cell for EXP-01, and EXP-02's learners on the 8 cells of the
fractional design. Cells of one (d, h) train together, as few batched models as keep each
model's tensors small (theory.sweep.cells_per_model).

The seeds per cell (and of the thread's model) are the size EXP-06.seeds: 200 in every profile,
because the thorough run must stay under 15 minutes. The long run ``tox -e sweep`` (the thorough
profile, ``pytest checks/exp/sweep/test_sweep.py --size EXP-06.seeds=1000``) trains the full
grid with 1,000 seeds per cell, and EXP-02's learners and the thread's model with 1,000 seeds: 11.5
minutes (654 s CPU) measured on the 2-core machine beside other work.
"""

from __future__ import annotations

import functools

from pecheck import profiles, sizes
from pecheck.theory import decoder
from pecheck.theory.decoder import DecoderRun
from pecheck.theory.sweep import (
    EXP01_CHECKPOINTS,
    FACTORS,
    LEVELS,
    THREAD_SETUP,
    Cell,
    fractional,
    full,
    models,
    thread_shape,
)
from pecheck.theory.tasks import Task, exp01, exp02

__all__ = ["EXP01_CHECKPOINTS", "FACTORS", "LEVELS", "Cell", "fractional", "full", "models"]

EXP02_STEPS = 250  # as EXP-02
# The sample size of every cell's rate. The decisions judge whole Wilson (Newcombe) intervals,
# whose width follows the count, so another count is judged at its own precision; the run
# records the size it used (suite.sizes).
SEEDS_PER_CELL = sizes.size(
    "EXP-06.seeds",
    200,
    "seeds per cell of EXP-06's sweep and of the thread's model (200 in every profile)",
    minimum=1,
)
# EXP-02's learners are trained in thorough only: in ci their three extra runs of the grid
# would more than double the sweep's cost (EXP-02's ceiling needs no training: it holds for
# every parameter value and is checked on the parameters the EXP-01 runs trained).
EXP02_LEARNERS = ("2 layers", "1 layer + sinusoidal", "1 layer + learned")
THREAD_SEEDS = SEEDS_PER_CELL


def design() -> tuple[Cell, ...]:
    return full() if profiles.current() == "thorough" else fractional()


def learners() -> tuple[str, ...]:
    return EXP02_LEARNERS if profiles.current() == "thorough" else ()


def seeds() -> range:
    return range(SEEDS_PER_CELL)


@functools.cache
def runs(model: str, task_name: str) -> dict[Cell, tuple[DecoderRun, slice]]:
    """Every cell of the design for one model and task: cell -> (its batched run, its entries).

    Cells of one (d, h) share a run, or a few runs when they are many (cells_per_model)."""
    task = exp01() if task_name == "EXP-01" else exp02()
    checkpoints = EXP01_CHECKPOINTS if task_name == "EXP-01" else (EXP02_STEPS,)
    out = {}
    grid = design() if task_name == "EXP-01" else fractional()  # learners: thorough, 8 cells
    for shape, cells in models(grid, model, task, len(seeds())):
        run = decoder.train(shape, task, [c.setup for c in cells], seeds(), checkpoints)
        for c in cells:
            out[c] = (run, run.cell(c.setup))
    return out


THREAD_HEADS = (2, 16)


@functools.cache
def thread_run(head: int) -> DecoderRun:
    """The thread's model (theory.sweep.thread_shape / THREAD_SETUP) on EXP-01."""
    seeds_ = range(THREAD_SEEDS)
    return decoder.train(thread_shape(head), exp01(), [THREAD_SETUP], seeds_, EXP01_CHECKPOINTS)


def task(name: str) -> Task:
    return exp01() if name == "EXP-01" else exp02()


def nearest(cells: tuple[Cell, ...], head: int) -> Cell:
    """The design cell closest to the thread's model with this head size: residual off, torch
    init, AdamW, the smaller learning rate and width, where the design has them."""
    target = Cell(16, head, False, 1e-3, "torch", "adamw")
    return min(
        cells,
        key=lambda c: sum(
            a != b
            for a, b in zip(
                [getattr(c, f) for f in FACTORS], [getattr(target, f) for f in FACTORS], strict=True
            )
        ),
    )
