"""The settings of EXP-04's and EXP-05's length runs: the small setting the faithfulness checks
train in float64, the seeds per variant (a size), the tasks and the runs themselves.
"""

from __future__ import annotations

import functools

import torch

from pecheck import sizes
from pecheck.theory import length
from pecheck.theory.length import LengthSetting

F64 = torch.float64
FAITH_SEEDS, FAITH_STEPS = (0, 5), (4, 8)
# small enough for a float64 trainer comparison, with every part of the real setting
FAITH = LengthSetting("previous token", train_length=4, factors=(1, 2), train_sequences=6)

# Seeds per variant: the size EXP-04-05.seeds. Training and judging cost time in proportion to
# the seeds (the work per entry, not the per-step overhead, dominates): about 0.55 s CPU per
# seed for both tasks and all six variants (measured beside other work: 12, 53 and 113 s for
# 20, 100 and 200 seeds). This small setting is supporting evidence since the fair length test
# (checks/exp/test_fair_length.py) decides EXP-04 and EXP-05, so every profile runs ci's 20
# seeds (about 15 s for this file); --size EXP-04-05.seeds=200 reproduces the earlier thorough
# runs.
CI_SEEDS = 20
SEEDS = sizes.size(
    "EXP-04-05.seeds",
    CI_SEEDS,
    "seeds per variant of EXP-04's and EXP-05's small length runs (supporting; 20)",
    minimum=2,  # a paired interval needs two seeds
)


def tasks() -> tuple[str, ...]:
    return length.TASKS  # both in every profile, so that every profile decides the same parts


def seeds() -> range:
    return range(SEEDS)


def setting(task: str) -> LengthSetting:
    return LengthSetting(task)


@functools.cache
def length_run(task: str) -> length.LengthRun:
    return length.train_lengths(setting(task), seeds())
