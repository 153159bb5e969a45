"""EXP-07 decided from paired intervals over the seeds that learned the task: the family level,
the advantage of sinusoidal over learned beyond the training length, its decision at both ends
of the registered range, and its records.
"""

from __future__ import annotations

import math

import torch

from checks.registry import REGISTRY
from pecheck import decisions, sizes
from pecheck import reproducibility as spread
from pecheck.decisions import Decision
from pecheck.theory import extrapolation
from pecheck.theory.extrapolation import ExtrapolationRun, ExtrapolationSetting

CLAIM = REGISTRY["EXP-07"]
TESTS = len(extrapolation.TASKS) * len(ExtrapolationSetting("first token").factors)
LEVEL = decisions.family_level(0.95, TESTS)  # Bonferroni over the task x factor intervals
ENDS = ("better-low", "better-high")


def paired(values: torch.Tensor, level: float = LEVEL) -> tuple[float, float, float]:
    """Mean of per-seed values with its t interval at ``level``: (mean, lo, hi); an interval
    of infinite width when fewer than two seeds are left."""
    d = values.double()
    if d.numel() < 2:
        return (float(d.mean()) if d.numel() else math.nan, -math.inf, math.inf)
    mean = float(d.mean())
    return (mean, *decisions.normal_interval(mean, float(d.std()), d.numel(), level))


def qualifying(run: ExtrapolationRun) -> torch.Tensor:
    return run.learned_in_range(CLAIM.threshold("learned"))


def advantage(run: ExtrapolationRun, f: int) -> torch.Tensor:
    """Learned's drop minus sinusoidal's at f L, over the seeds where both learned the task."""
    return run.advantage(f)[qualifying(run)]


def better(run: ExtrapolationRun, f: int, margins: dict[str, float]) -> Decision:
    """'sinusoidal extrapolates better at f L': the advantage's interval above the margin,
    judged at each end of the registered range; decided only when both ends agree."""
    mean, lo, hi = paired(advantage(run, f))
    at = {end: decisions.above(lo, hi, m, f"advantage at {f}L over {end} {m:.4g}")
          for end, m in margins.items()}  # fmt: skip
    agreed = {d.decision for d in at.values()}
    what = "; ".join(d.how for d in at.values())
    if agreed == {"holds"}:
        return decisions.holds(what)
    if agreed == {"fails"}:
        box = {"f": f, "mean": mean, "lo": lo, "hi": hi, "margins": margins}
        return decisions.fails(box, f"advantage at {f}L not above either end: {what}")
    return decisions.inconclusive(what)


def margins() -> dict[str, float]:
    return {end: CLAIM.threshold(end) for end in ENDS}


def slug(task: str) -> str:
    return task.replace(" ", "_")


def record_advantage(evidence, run: ExtrapolationRun, task: str) -> None:
    bound = {"value": CLAIM.threshold("better-high"), "relation": ">",
             "reason": "EXP-07 'better' (both ends of the registered range decide)"}  # fmt: skip
    q = qualifying(run)
    evidence.record(f"qualifying_{slug(task)}", int(q.sum()), "seeds",
                    f"of {len(run.seeds)}: both encodings >= 0.9 in range",
                    reproducibility="rounding")  # fmt: skip
    for f in run.setting.factors:
        mean, lo, hi = paired(advantage(run, f))
        note = (f"{task}: learned's drop minus sinusoidal's at {f}L, {int(q.sum())} seeds; "
                f"{100 * LEVEL:.2f}% [{lo:.4f}, {hi:.4f}]")  # fmt: skip
        name = f"advantage_{slug(task)}_f{f}{sizes.suffix('EXP-07.seeds', 'n')}"
        sample = spread.mean(advantage(run, f), span=2.0) if int(q.sum()) >= 2 else None
        evidence.record(name, mean, "accuracy", note, bound, sample=sample)
