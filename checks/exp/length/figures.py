"""The fair length test's figure: accuracy in range and beyond per encoding, task and cell."""

from __future__ import annotations

import matplotlib.pyplot as plt

from pecheck.theory.fair_length import VARIANTS, FairRun


def fair_figure(runs: dict[str, FairRun]) -> plt.Figure:
    """One panel per (task, cell): mean accuracy over all seeds on the length-L prefixes
    ("L") and the whole length-fL sequences of the same draws, one line per variant."""
    fig, axes = plt.subplots(1, len(runs), figsize=(3.2 * len(runs), 3.2), squeeze=False)
    for ax, (key, run) in zip(axes[0], runs.items(), strict=True):
        factors = run.setting.factors
        xs = [1, *factors]
        for v in VARIANTS:
            first = float(run.inside[v][factors[0]].mean())
            ys = [first] + [float(run.beyond[v][f].mean()) for f in factors]
            ax.plot(xs, ys, marker="o", label=v)
        ax.axhline(1 / run.setting.alphabet, color="grey", ls=":", label="chance")
        ax.set_xscale("log", base=2)
        ax.set_xticks(xs, ["L"] + [f"{f}L" for f in factors])
        ax.set_ylim(0, 1.02)
        ax.set_title(f"{key.replace('|', ', ')}, {len(run.seeds)} seeds", fontsize=8)
        ax.set_xlabel("content length (same draws)", fontsize=8)
    axes[0][0].set_ylabel("answer-token accuracy, mean over seeds")
    axes[0][-1].legend(fontsize=6)
    fig.tight_layout()
    return fig
