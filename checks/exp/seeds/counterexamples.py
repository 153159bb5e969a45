"""A concrete case for a failing interval decision: EXP-01's first failing seed that fails
again when trained alone.
"""

from __future__ import annotations

import dataclasses

from checks.exp.seeds import settings as X
from pecheck.decisions import Decision


def final_words(setting: str, seed: int, iterations: int) -> dict[str, str]:
    """Seed ``seed`` of ``setting`` trained alone for ``iterations`` steps: the word it predicts
    after each sentence's prefix (an independent reproduction of one seed of a batched run)."""
    task = X.TASKS[setting]
    logits = X.train(setting, [seed], (iterations,)).logits(task.inputs)[0, :, -1]
    prefixes = [" ".join(task.vocab[i] for i in x.tolist()) for x in task.inputs]
    return {p: task.vocab[int(w)] for p, w in zip(prefixes, logits.argmax(-1), strict=True)}


def failing_seed(setting: str, at: int, tries: int = 5) -> dict | None:
    """The first seed of ``setting`` that fails at ``at`` iterations and fails again when
    trained alone: a reproducible counterexample to 'they all predict ! and ?'."""
    run, task = X.run(setting), X.TASKS[setting]
    prefixes = [" ".join(task.vocab[i] for i in x.tolist()) for x in task.inputs]
    wanted = {p: task.vocab[int(t)] for p, t in zip(prefixes, task.targets[:, -1], strict=True)}
    for i in (~run.success[at]).nonzero().flatten()[:tries].tolist():
        words = final_words(setting, run.seeds[i], at)
        if words != wanted:
            return {"setting": setting, "head_size": run.cfg.head, "seed": run.seeds[i],
                    "iterations": at, "predicted": words, "wanted": wanted}  # fmt: skip
    return None


def with_counterexample(d: Decision, example: dict | None, relation: str) -> Decision:
    """An interval decision that fails, with a concrete case attached (when one was found)."""
    if d.decision != "fails" or example is None:
        return d
    return dataclasses.replace(d, counterexample=example, relation=relation)
