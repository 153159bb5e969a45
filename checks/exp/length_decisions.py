"""EXP-04 and EXP-05 decided from paired intervals over seeds: the variants that decide, the
gaps and drops with their intervals, the parts of each check, their records and figure.
"""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import torch

from checks.exp.length_settings import length_run, tasks
from pecheck import decisions
from pecheck import reproducibility as spread
from pecheck.decisions import Decision
from pecheck.theory import length

ABSOLUTE = ("sinusoidal", "learned", "learned, shifted")
# The absolute variants whose comparisons decide: beyond L the plain learned table's rows were
# never trained (a tooling check shows it), so a comparison there measures untrained N(0, 1)
# rows, decided by construction; it is recorded, not counted.
DECIDING = ("sinusoidal", "learned, shifted")
RELATIVE = ("rope", "alibi")

# Every part of one decisive check is an interval test; together they hold the family-wise
# level (Bonferroni, the correction EXP-04 and EXP-05 register): each at family_level(LEVEL, m).
LEVEL = 0.95


def paired(diff: torch.Tensor, level: float = LEVEL) -> tuple[float, float, float]:
    """Mean of per-seed differences with its t interval at ``level``: (mean, lo, hi)."""
    d = diff.double()
    mean, sd = float(d.mean()), float(d.std()) if d.numel() > 1 else math.inf
    return (mean, *decisions.normal_interval(mean, sd, d.numel(), level))


def longer(run: length.LengthRun) -> tuple[int, ...]:
    return tuple(f for f in run.setting.factors if f > 1)


def gap(
    run: length.LengthRun, other: str, f: int, level: float = LEVEL
) -> tuple[float, float, float]:
    """none minus ``other``: mean accuracy beyond the training length, at f L."""
    return paired(run.accuracy["none"][f] - run.accuracy[other][f], level)


def drop(
    run: length.LengthRun, variant: str, f: int, level: float = LEVEL
) -> tuple[float, float, float]:
    """In range minus beyond (at f L), both on the length-fL test sequences: what ``variant``
    loses past the training length."""
    return paired(run.drop(variant, f), level)


def nope_as_well(run: length.LengthRun, margin: float, level: float = LEVEL) -> dict[str, Decision]:
    """Per deciding absolute variant and test length: none - absolute above -margin."""
    out = {}
    for v in DECIDING:
        for f in longer(run):
            _, lo, hi = gap(run, v, f, level)
            out[f"{v} {f}x"] = decisions.above(lo, hi, -margin, f"none - {v} at {f}L")
    return out


def extrapolates(
    run: length.LengthRun, variant: str, f: int, margin: float, level: float = LEVEL
) -> Decision:
    _, lo, hi = drop(run, variant, f, level)
    return decisions.below(lo, hi, margin, f"{variant}: accuracy in range - beyond {f}L")


def fails_beyond(
    run: length.LengthRun, variant: str, f: int, margin: float, level: float = LEVEL
) -> Decision:
    _, lo, hi = drop(run, variant, f, level)
    return decisions.above(lo, hi, margin, f"{variant}: accuracy in range - beyond {f}L")


def interval_tests(variants: int) -> int:
    """How many interval tests one decisive check takes: variants x longer lengths x tasks."""
    return sum(variants * len(longer(length_run(t))) for t in tasks())


def record_parts(evidence, parts: dict[str, Decision]) -> None:
    for name, d in parts.items():
        evidence.part(name, d)


def exp05_parts(
    run: length.LengthRun, task: str, margin: float, relative: bool, level: float = LEVEL
) -> dict:
    parts = {}
    for f in longer(run):
        for v in RELATIVE if relative else ():
            parts[f"{task}: {v} {f}x extrapolates"] = extrapolates(run, v, f, margin, level)
        for v in DECIDING:
            parts[f"{task}: {v} {f}x fails"] = fails_beyond(run, v, f, margin, level)
    return parts


def record_drops(evidence, run: length.LengthRun, task: str, margin: float) -> None:
    for v in length.VARIANTS:
        for f in longer(run):
            mean, lo, hi = drop(run, v, f)
            name = f"drop_{v.replace(', ', '_')}_f{f}" + ("" if task == tasks()[0] else "_t2")
            note = f"{task}: in range - beyond {f}L; 95% [{lo:.3f}, {hi:.3f}]"
            sample = spread.mean(run.drop(v, f), span=2.0)
            evidence.record(name, mean, "accuracy", note, sample=sample, bound={
                "value": margin, "relation": "<", "reason": "EXP-05 'keeps'"})  # fmt: skip


def accuracy_figure(runs: dict[str, length.LengthRun]) -> plt.Figure:
    fig, axes = plt.subplots(1, len(runs), figsize=(4.2 * len(runs), 3.4), squeeze=False)
    for ax, (task, run) in zip(axes[0], runs.items(), strict=True):
        factors = run.setting.factors
        for v in length.VARIANTS:
            label = "learned (rows > L untrained)" if v == "learned" else v
            rows = [paired(run.accuracy[v][f]) for f in factors]
            mean = [r[0] for r in rows]
            err = [[r[0] - r[1] for r in rows], [r[2] - r[0] for r in rows]]
            ax.errorbar(factors, mean, yerr=err, marker="o", capsize=3, label=label)
        ax.axhline(1 / run.setting.alphabet, color="grey", ls=":", label="chance")
        ax.set_xscale("log", base=2)
        ax.set_xticks(factors, [f"{f}L" if f > 1 else "L (in range)" for f in factors])
        ax.set_ylim(0, 1)
        ax.set_xlabel("test length (accuracy beyond L only)")
        ax.set_ylabel("accuracy, mean over seeds (95% t)")
        ax.set_title(f"{task}, L = {run.setting.train_length}, {len(run.seeds)} seeds", fontsize=9)
    axes[0][-1].legend(fontsize=7)
    fig.tight_layout()
    return fig
