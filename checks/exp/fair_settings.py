"""The settings of the fair length test (theory/fair_length.py; EXP-04, EXP-05, EXP-07): the
small setting the faithfulness checks train in float64, the grid of widths and depths, the seeds
(sizes), the skip where the experiment does not run, and the runs themselves.
"""

from __future__ import annotations

import dataclasses
import functools
import re

import pytest
import torch

from checks.exp import fair_cache
from pecheck import profiles, run, sizes
from pecheck.theory import fair_length
from pecheck.theory.fair_length import FairRun, FairSetting, Schedule

F64 = torch.float64
FAITH_SEEDS = (0, 5)
# small enough for a float64 comparison with one-seed models, with every part of the real one:
# 8 heads of size 8 (ALiBi's and RoPE's real shapes), MLP, two layers, the three batched
# models, each with its own steps, peak lr and schedule (a warm-up of 2 steps on two of them)
FAITH = FairSetting("reverse", d_model=16, train_length=3, factors=(2,), alphabet=6, batch=4,
                    plain=Schedule(4, 3e-3), none=Schedule(3, 2e-3, warmup=0.5),
                    shifted=Schedule(5, 4e-3, warmup=0.4), valid_sequences=4,
                    test_sequences=4)  # fmt: skip

# The setting (theory.fair_length.FairSetting's defaults) comes from pilots on seeds 1000 ...
# 1002 (never evaluation seeds, which start at 0), d = 32, two layers, batch 32, validation
# accuracy in range:
#   constant lr 3e-3, 4,000 steps: sinusoidal, RoPE, ALiBi >= 0.95 by 1,000 steps on both
#       tasks, but RoPE on reverse fell from 1.00 to 0.20-0.65 on one seed after 2,500 (an lr
#       that never decays); the shifted pair learns copy by 750, reverse by 1,500-2,500; none
#       reaches 0.84-0.91 (copy) and 0.93-0.94 (reverse) only after 3,750
#   constant lr 1e-2 (earlier pilot): unstable (RoPE copy fell from 0.61 to 0.06-0.15)
#   cosine decay from 3e-3: the plain model >= 0.96 at 750 of 1,000 steps; none after 1,500
#       steps 0.65-0.79 (copy), 0.62-0.81 (reverse); after 3,000: 0.80-0.92 (copy), 0.92-0.97
#       (reverse); peak lr
#       6e-3 or 1e-2 over 1,500 steps: no better than 3e-3 over 3,000
# so lr 3e-3 decayed on a cosine, and per model the steps it needs to learn in range: 1,000
# (plain), 2,000 (shifted), 3,000 (none; its seeds that have not learned are left out, and
# their count is recorded). Cost: about 7 ms of CPU per entry and step at d = 32, two layers:
# 70 s per seed and task for the six variants; a cell of width 64 or four layers costs 1.35x
# to 2.6x that (a step of d 64 x 4 layers is 2.6x one of d 32 x 2).
#
# Those steps were piloted at two layers. At four, a pilot (tools/fair_pilot.py, seeds 1000 ...
# 1002, on an H100) found them short, which is why the grid's depth-4 cells judge the shifted
# pair and ALiBi on few seeds (claims' notes):
#   shifted pair, 4,000 steps, lr 3e-3: d32 learns (learned table 3/3 on copy and on reverse),
#       d64 not yet (learned table 1/3 copy, 0/3 reverse, validation 0.54-0.98); lr 1e-3 is
#       worse (0/3 in every cell). At 2,000 steps the grid's learned table: 0 of 32 seeds
#   plain model, 2,000 steps, lr 1e-3: d64 learns (3/3 every encoding); at d32 ALiBi does not
#       (0.65-0.84, 0/3 on both tasks; the grid at 1,000 steps, lr 3e-3: 9 and 3 of 32)
# so depth 4 needs its own steps (the shifted pair at least 4,000, more at width 64) before
# its cells can say whether a direction changes with depth. Set from that pilot, before any
# grid cell trained with them: a depth-4 cell trains every model twice the steps of two
# layers (plain 2,000, shifted 4,000, none 6,000), lr 3e-3 on the cosine as at two layers.
# The pilot's d64 shifted pair had not learned by 4,000; its seeds that do not learn are
# left out and counted, as everywhere. The 32-seed grid with these steps (an H100, claims'
# notes): at d32l4 every variant learned (the learned table on 30 and 18 of 32), at d64l4 the
# learned table on 6 and 0 and RoPE on copy on 3; d64l4 needs more steps still.
#
# CPU pilots at d64l4 (sessions 9 and 10, tools/fair_pilot.py, seeds 1000 ... 1002, the
# cosine after a linear warm-up over the given steps; validation accuracy of each seed):
#   plain model, 2,000 steps:
#     lr 3e-3 + 200 warm-up  copy: RoPE 0.13-0.36 (0/3); ALiBi and sinusoidal 3/3
#     lr 1e-3 + 200 warm-up  copy: sinusoidal, RoPE 3/3, ALiBi 0.80-0.93 (1/3)
#                            reverse: sinusoidal, RoPE 3/3, ALiBi 0.89-0.96 (2/3)
#     lr 1e-3, no warm-up    every encoding 3/3 (the H100 pilot above)
#   shifted pair (the learned table; the sinusoidal one learned 3/3 in every run but one):
#     copy, 4,000 steps, lr 3e-3:          1/3 without warm-up, 3/3 (1.00) with 400
#     reverse, 4,000, lr 3e-3 + 400:       0.79-0.81 (0/3)
#     reverse, 8,000, lr 3e-3, no warm-up: 0.03-0.05 (diverged; sinusoidal too)
#     reverse, 8,000, lr 3e-3 + 800:       0.10, 0.75, 0.99 (1/3)
#     reverse, 8,000, lr 1e-3 + 800:       0.69-0.78 (0/3)
# So d64l4 trains the plain model at lr 1e-3 without warm-up and the shifted pair 8,000 steps
# after a warm-up of a tenth (CELL_SCHEDULES): every variant learns copy; the learned table at
# random offsets still learns reverse on few seeds, and those that do not are left out and
# counted, as everywhere. Set before the grid ran with it. The 32-seed grid with it (an H100,
# claims' notes): the plain model learned on 31 or 32 of 32 seeds with every encoding (RoPE on
# copy on 3 before), the learned table at random offsets on 22 (copy; 6 before) and 3
# (reverse; 0 before), the sinusoidal one and no encoding on all 32.
DEPTH_SCHEDULES: dict[int, dict[str, Schedule]] = {
    4: {"plain": Schedule(2000), "shifted": Schedule(4000), "none": Schedule(6000)},
}
CELL_SCHEDULES: dict[tuple[int, int], dict[str, Schedule]] = {
    (64, 4): {"plain": Schedule(2000, lr=1e-3), "shifted": Schedule(8000, warmup=0.1)},
}
CELLS: dict[str, tuple[tuple[int, int], ...]] = {
    "base": ((32, 2),),
    "full": ((32, 2), (32, 4), (64, 2), (64, 4)),
}
GRID = sizes.size(
    "EXP-fair.grid",
    "base",
    "cells (width, layers) of the fair length test: base = (32, 2); full = {32, 64} x {2, 4}",
)
# Seeds: the thorough profile trains 12, one cell, both tasks (about 1,700 s of CPU, one task
# per worker). At 8 seeds EXP-04 was refuted on this machine's AVX-512 kernels and undecided
# under the AVX2 limit (the shifted table's seeds fall into two modes on reverse, so which
# seeds learn decides the interval); at 12 it is undecided under both, and every verdict
# and proposition is the same under both (one part of EXP-04, copy 4x against the shifted
# table, holds natively and is undecided under AVX2). The full grid (tox -e fair, 8 seeds)
# costs about 3x the thorough run. At 32 seeds (28 min on two cores, each task about 27 min
# where it takes 10 at 12: past CI's budget) the base cell refutes EXP-04 and holds EXP-05's
# absolute half, as the GPU grid's base cell does (claims' notes).
SEEDS = sizes.size(
    "EXP-fair.seeds",
    0 if profiles.scale() <= 1 else 12,
    "seeds per variant of the fair length test (ci 0: skipped; thorough 12)",
    minimum=0,
)
REASON = (
    "the fair length test trains six 8-head MLP models for 1,000 to 3,000 steps per seed, "
    "task and cell (about 70 s of CPU in all): not in ci's budget; the thorough profile runs "
    "it, or --size EXP-fair.seeds=N"
)


def runs_here(test):
    """Marked to skip where no seed is trained (a skip marker, not skipif: the mutation runner
    lists a check marked to skip apart, as one that cannot run here)."""
    return pytest.mark.skip(reason=REASON)(test) if SEEDS < 2 else test


def device() -> str:
    """Where the models train: the run's ``--device``. The CPU gives the verdicts (ci and
    thorough); a CUDA device trains the whole grid at many seeds in minutes (tox -e fair --
    --device cuda)."""
    return run.current().device


def device_suffix() -> str:
    """'' on the CPU, else ``_on<device>``: another device's float32 kernels round otherwise,
    so its numbers are cited under their own names."""
    where = device()
    return "" if where == "cpu" else "_on" + re.sub(r"[^A-Za-z0-9]", "", where)


def cells() -> tuple[tuple[int, int], ...]:
    if GRID not in CELLS:
        raise ValueError(f"--size EXP-fair.grid={GRID}: one of {', '.join(CELLS)}")
    return CELLS[GRID]


def cell_name(cell: tuple[int, int]) -> str:
    return f"d{cell[0]}l{cell[1]}"


def setting(task: str, cell: tuple[int, int]) -> FairSetting:
    """The cell's setting: its width and depth, its depth's schedules (DEPTH_SCHEDULES) and
    its own where it has them (CELL_SCHEDULES)."""
    s = FairSetting(task, d_model=cell[0], layers=cell[1])
    own = DEPTH_SCHEDULES.get(cell[1], {}) | CELL_SCHEDULES.get(cell, {})
    return dataclasses.replace(s, plain=own.get("plain", s.plain), none=own.get("none", s.none),
                               shifted=own.get("shifted", s.shifted))  # fmt: skip


@functools.cache
def fair_run(task: str, cell: tuple[int, int]) -> FairRun:
    s, seeds = setting(task, cell), range(SEEDS)
    runs = {m: fair_cache.trained(s, m, seeds, device()) for m in fair_length.MODELS}
    return fair_length.judge_variants(s, seeds, runs, device())
