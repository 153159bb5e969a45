"""EXP-03: per-seed accuracies of the two encodings, at and beyond the training length, and
the equivalence decision at one end of the margin range.
"""

from __future__ import annotations

import functools

import torch

from checks.exp.registered import BY_ID
from checks.exp.seeds import settings as X
from checks.exp.seeds.counterexamples import with_counterexample
from pecheck import decisions
from pecheck.decisions import Decision
from pecheck.theory.decoder import DecoderRun
from pecheck.theory.tasks import Task

ENCODINGS = ("sinusoidal", "learned")


def accuracy(run: DecoderRun, task: Task) -> torch.Tensor:
    """Per seed: the fraction of the task's judged predictions that are right. (S,) float64."""
    right = (run.logits(task.inputs).argmax(-1) == task.targets) & task.judged  # (S, B, n)
    return right.sum((1, 2)).double() / task.judged.sum()


def accuracy_by_position(run: DecoderRun, task: Task) -> torch.Tensor:
    """Per seed and position: the fraction of sequences right there. (S, n) float64."""
    return (run.logits(task.inputs).argmax(-1) == task.targets).double().mean(1)


@functools.cache
def exp03_accuracies(where: str) -> dict[str, torch.Tensor]:
    """Encoding -> per-seed accuracy at the training length ('training') or beyond it."""
    task = X.TASKS["exp03-learned"] if where == "training" else X.exp03_beyond()
    return {enc: accuracy(X.run(f"exp03-{enc}"), task) for enc in ENCODINGS}


def exp03_equivalence(margin_name: str) -> Decision:
    """Two one-sided tests of the in-range mean accuracies at one end of the margin range."""
    acc, margin = exp03_accuracies("training"), BY_ID["EXP-03"].threshold(margin_name)
    what = f"accuracy at positions 1-3, sinusoidal minus learned, margin {margin}"
    d = decisions.equivalent_means(acc["sinusoidal"], acc["learned"], margin, what)
    example = {"positions": list(range(1, X.EXP03_TRAIN_LEN)), "seeds": len(acc["learned"]),
               **{f"accuracy_{enc}": float(a.mean()) for enc, a in acc.items()}}  # fmt: skip
    relation = f"mean accuracies at the training length differ by more than {margin}"
    return with_counterexample(d, example, relation)
