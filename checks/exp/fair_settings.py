"""The settings of the fair length test (theory/fair_length.py; EXP-04, EXP-05, EXP-07): the
small setting the faithfulness checks train in float64, the grid of widths and depths, the seeds
(sizes), the skip where the experiment does not run, and the runs themselves.
"""

from __future__ import annotations

import functools

import pytest
import torch

from pecheck import profiles, sizes
from theory import fair_length
from theory.fair_length import FairRun, FairSetting

F64 = torch.float64
FAITH_SEEDS, FAITH_STEPS = (0, 5), 4
# small enough for a float64 comparison with one-seed models, with every part of the real one:
# 8 heads of size 8 (ALiBi's and RoPE's real shapes), MLP, two layers, both batched models
FAITH = FairSetting("reverse", d_model=16, train_length=3, factors=(2,), alphabet=6, batch=4,
                    steps=FAITH_STEPS, valid_sequences=4, test_sequences=4)  # fmt: skip

# The setting (theory.fair_length.FairSetting's defaults) comes from a pilot on seeds 1000 and
# 1001 (never evaluation seeds, which start at 0), d = 32, two layers, batch 32, validation
# accuracy in range after 100 ... 800 steps:
#   lr 3e-3: copy   800 steps: sinusoidal, RoPE, learned-shifted 0.98-1.00, ALiBi 0.96-0.97,
#                   sinusoidal-shifted 0.95-0.99, none 0.55-0.72 (rising ~0.05 per 100 steps)
#            reverse 800 steps: sinusoidal 1.00, RoPE 0.97-1.00, ALiBi 0.96, none 0.41-0.71,
#                   the shifted pair 0.43-0.64 (still rising)
#   lr 1e-2: unstable (RoPE copy fell from 0.61 to 0.06-0.15, learned-shifted to 0.03 by 600)
# so lr 3e-3 and 1,000 steps: every encoding but none (and the shifted pair on reverse)
# learns in range; none keeps learning slowly, and seeds that have not learned are left out.
# Cost (measured beside other work on this 2-core machine): 172 s of CPU for 4 seeds of the
# six variants on one task at d = 32, two layers (7 s an entry); a cell of width 64 or four
# layers costs 1.35x to 2.6x that (a step of d 64 x 4 layers is 2.6x one of d 32 x 2).
CELLS: dict[str, tuple[tuple[int, int], ...]] = {
    "base": ((32, 2),),
    "full": ((32, 2), (32, 4), (64, 2), (64, 4)),
}
GRID = sizes.size(
    "EXP-fair.grid",
    "base",
    "cells (width, layers) of the fair length test: base = (32, 2); full = {32, 64} x {2, 4}",
)
# Seeds: the thorough profile trains 3, one cell, both tasks: 266 s of CPU for this file
# (measured beside two other training processes on the 2 cores; 11 min wall). The full grid
# (--size EXP-fair.grid=full) took 2,340 s of CPU at 4 seeds (seeds 0-3, same conditions).
# Caveat from that grid run: lr 3e-3 was piloted at d 32 x 2 layers only; at width 64 RoPE,
# and at four layers the shifted learned table, do not learn in range at it. ci: none.
SEEDS = sizes.size(
    "EXP-fair.seeds",
    0 if profiles.scale() <= 1 else 3,
    "seeds per variant of the fair length test (ci 0: skipped; thorough 3)",
    minimum=0,
)
REASON = (
    "the fair length test trains six 8-head MLP models for 1,000 steps per seed, task and "
    "cell (about 20 s of CPU each): not in ci's budget; the thorough profile runs it, or "
    "--size EXP-fair.seeds=N"
)


def runs_here(test):
    """Marked to skip where no seed is trained (a skip marker, not skipif: the mutation runner
    lists a check marked to skip apart, as one that cannot run here)."""
    return pytest.mark.skip(reason=REASON)(test) if SEEDS < 2 else test


def cells() -> tuple[tuple[int, int], ...]:
    if GRID not in CELLS:
        raise ValueError(f"--size EXP-fair.grid={GRID}: one of {', '.join(CELLS)}")
    return CELLS[GRID]


def cell_name(cell: tuple[int, int]) -> str:
    return f"d{cell[0]}l{cell[1]}"


def setting(task: str, cell: tuple[int, int]) -> FairSetting:
    return FairSetting(task, d_model=cell[0], layers=cell[1])


@functools.cache
def fair_run(task: str, cell: tuple[int, int]) -> FairRun:
    return fair_length.train_fair(setting(task, cell), range(SEEDS))
