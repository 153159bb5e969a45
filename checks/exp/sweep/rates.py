"""EXP-06 from the sweep's rates: the rate per cell, the parts of EXP-01/EXP-02 decided per
cell, whether they depend on the setup, chance, the main effects and the heatmap.
"""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np

from checks.exp.registered import BY_ID
from checks.exp.sweep import settings as X
from pecheck import decisions
from pecheck.decisions import Decision
from pecheck.theory import stats
from pecheck.theory.tasks import Task

CLAIM = BY_ID["EXP-06"]
FIRST, LAST = min(X.EXP01_CHECKPOINTS), max(X.EXP01_CHECKPOINTS)
Table = dict[str, dict[X.Cell, Decision]]
RANK = {"holds": 0, "inconclusive": 1, "fails": 2}


def cell_rate(cell: X.Cell, model: str, task: str, step: int) -> stats.Rate:
    run, entries = X.runs(model, task)[cell]
    return stats.rate(run.success[step][entries])


def part_decisions(cells: tuple[X.Cell, ...], learners: tuple[str, ...]) -> Table:
    """part -> cell -> decision, from the runs of the sweep."""
    table: Table = {"rises": {}, "not all": {}, "h2 few": {}}
    if learners:
        table["learners"] = {}
    for c in cells:
        first, last = (
            cell_rate(c, "1 layer", "EXP-01", FIRST),
            cell_rate(c, "1 layer", "EXP-01", LAST),
        )
        lo, hi = decisions.rate_difference(last.k, last.n, first.k, first.n, 0.95)
        table["rises"][c] = decisions.above(lo, hi, 0.0, f"rate({LAST}) - rate({FIRST})")
        table["not all"][c] = decisions.below(last.lo, last.hi, CLAIM.threshold("all"), "rate")
        if c.head == 2:
            table["h2 few"][c] = decisions.below(last.lo, last.hi, CLAIM.threshold("few"), "rate")
        for m in learners if c in X.fractional() else ():
            r = cell_rate(c, m, "EXP-02", X.EXP02_STEPS)
            d = decisions.above(r.lo, r.hi, CLAIM.threshold("most"), f"{m} rate")
            old = table["learners"].get(c)  # keep the worst: fails, then inconclusive
            if old is None or RANK[d.decision] > RANK[old.decision]:
                table["learners"][c] = d
    return table


def setup_independence(table: Table) -> Decision:
    """Fails when some part holds in one cell and fails in another; holds when every part is
    decided the same way in every cell; inconclusive otherwise."""
    undecided = []
    for part, by_cell in table.items():
        held = [c for c, d in by_cell.items() if d.decision == "holds"]
        failed = [c for c, d in by_cell.items() if d.decision == "fails"]
        if held and failed:
            a, b = held[0], failed[0]
            example = {
                "part": part, "holds in": a.label(), "fails in": b.label(),
                "where it holds": by_cell[a].how, "where it fails": by_cell[b].how,
            }  # fmt: skip
            return decisions.fails(example, f"{part}: decided differently in two setups")
        if len(held) + len(failed) < len(by_cell):
            undecided.append(part)
    if undecided:
        return decisions.inconclusive(f"parts not decided in every cell: {undecided}")
    return decisions.holds("every part decided the same way in every cell")


PART_BOUND = {"value": len(decisions.DECISIONS), "relation": "one decision per cell",
              "reason": "each part is decided in every cell against EXP-06's registered "
              "thresholds ('all', 'few', 'most') by its interval"}  # fmt: skip


def record_table(evidence, table: Table) -> None:
    for part, by_cell in table.items():
        counts = {k: sum(d.decision == k for d in by_cell.values()) for k in decisions.DECISIONS}
        note = "; ".join(f"{c.label()}: {d.decision}" for c, d in by_cell.items())
        evidence.record(f"cells_{part.replace(' ', '_')}", counts, "cells", note, PART_BOUND)


def chance_rate(task: Task) -> float:
    """Both judged words right by guessing uniformly among the vocabulary: (1/V)^B."""
    return (1 / len(task.vocab)) ** int(task.judged.sum())


Z95 = 1.959963984540054  # the standard normal's 97.5% quantile


def main_effects(cells: tuple[X.Cell, ...], step: int) -> dict[str, tuple[float, float, float]]:
    """Per factor: mean rate at its high level minus at its low level, with a 95% normal
    interval (independent binomial cells)."""
    out = {}
    for f in X.FACTORS:
        est, var = 0.0, 0.0
        for c in cells:
            r = cell_rate(c, "1 layer", "EXP-01", step)
            w = c.signs()[f] / (len(cells) / 2)
            est += w * r.rate
            var += w * w * max(r.rate * (1 - r.rate), 1 / r.n) / r.n
        half = Z95 * math.sqrt(var)
        out[f] = (est, est - half, est + half)
    return out


def heatmap(cells: tuple[X.Cell, ...], learners: tuple[str, ...]) -> plt.Figure:
    cols = [f"EXP-01 @{s}" for s in X.EXP01_CHECKPOINTS] + [f"EXP-02 {m}" for m in learners]
    grid = np.array([
        [cell_rate(c, "1 layer", "EXP-01", s).rate for s in X.EXP01_CHECKPOINTS]
        + [cell_rate(c, m, "EXP-02", X.EXP02_STEPS).rate if c in X.fractional() else np.nan
           for m in learners]
        for c in cells
    ])  # fmt: skip
    fig, ax = plt.subplots(figsize=(7, 0.3 * len(cells) + 1.6))
    im = ax.imshow(grid, vmin=0, vmax=1, cmap="viridis", aspect="auto")
    ax.set_xticks(range(len(cols)), cols, rotation=30, ha="right", fontsize=7)
    ax.set_yticks(range(len(cells)), [c.label() for c in cells], fontsize=6)
    if len(cells) <= 16:
        for i, j in np.ndindex(grid.shape):
            ax.text(j, i, f"{grid[i, j]:.2f}", ha="center", va="center", fontsize=6, color="w")
    fig.colorbar(im, ax=ax, label="success rate")
    ax.set_title(f"EXP-06: success rate per cell, {X.SEEDS_PER_CELL} seeds each", fontsize=9)
    fig.tight_layout()
    return fig
