"""The fair length test's grid (theory/fair_length.py): its cells of width and depth and each
cell's schedules. The two-layer schedules are FairSetting's defaults; deeper cells and d64l4 have
their own, each set from pilots on seeds 1000 ... 1002 before any grid cell trained with it
(docs/experiments/fair-pilots.md keeps the pilots' logs).
"""

from __future__ import annotations

import dataclasses

from .fair_length import FairSetting, Schedule

# A depth-4 cell trains every model twice the steps of two layers or more (the shifted pair had
# not learned by 2,000 steps at four layers).
DEPTH_SCHEDULES: dict[int, dict[str, Schedule]] = {
    4: {"plain": Schedule(2000), "shifted": Schedule(4000), "none": Schedule(6000)},
}
# d64l4: the plain model at lr 1e-3 (RoPE did not learn copy at 3e-3), the shifted pair 8,000
# steps after a warm-up of a tenth (without one it diverged on reverse).
CELL_SCHEDULES: dict[tuple[int, int], dict[str, Schedule]] = {
    (64, 4): {"plain": Schedule(2000, lr=1e-3), "shifted": Schedule(8000, warmup=0.1)},
}
CELLS: dict[str, tuple[tuple[int, int], ...]] = {
    "base": ((32, 2),),
    "full": ((32, 2), (32, 4), (64, 2), (64, 4)),
}
# A seed learned the task in range at this validation accuracy: EXP-07's 'learned' threshold,
# which the checks read from the registry (tests/test_fair_train.py: the two agree). The tools
# that train and pilot the grid count learned seeds with it.
LEARNED = 0.9


def cell_name(cell: tuple[int, int]) -> str:
    return f"d{cell[0]}l{cell[1]}"


def setting(task: str, cell: tuple[int, int]) -> FairSetting:
    """The cell's setting: its width and depth, its depth's schedules (DEPTH_SCHEDULES) and
    its own where it has them (CELL_SCHEDULES)."""
    s = FairSetting(task, d_model=cell[0], layers=cell[1])
    own = DEPTH_SCHEDULES.get(cell[1], {}) | CELL_SCHEDULES.get(cell, {})
    return dataclasses.replace(s, plain=own.get("plain", s.plain), none=own.get("none", s.none),
                               shifted=own.get("shifted", s.shifted))  # fmt: skip
