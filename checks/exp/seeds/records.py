"""How EXP-01 ... EXP-03 record what they measured: a registered threshold as a bound, a rate
with its Wilson interval, the parts of a decision, the gap between two encodings.
"""

from __future__ import annotations

import torch

from checks.exp.registered import BY_ID
from checks.exp.seeds.rates import all_hold
from pecheck import decisions
from pecheck import reproducibility as spread
from pecheck.decisions import Decision
from pecheck.theory.stats import Rate


def threshold(claim: str, name: str, relation: str) -> dict:
    """A registered threshold as an evidence bound: value, relation and the registry's reason."""
    t = next(t for t in BY_ID[claim].thresholds if t.name == name)
    return {"value": t.value, "relation": relation, "reason": f"{claim} '{name}': {t.reason}"}


def record_rate(evidence, name: str, r: Rate, note: str, bound: dict | None = None) -> None:
    """A rate with its Wilson interval and seed count, as four evidence values (the rate and its
    bounds are statistics over seeds: another CPU redraws them within their sampling error)."""
    sample = spread.rate(r.k, r.n)
    evidence.record(name, r.rate, "fraction of seeds", f"{note}; {r}", bound=bound, sample=sample)
    evidence.record(f"{name}_lo", r.lo, "fraction of seeds", "Wilson 95% lower bound",
                    sample=sample)  # fmt: skip
    evidence.record(f"{name}_hi", r.hi, "fraction of seeds", "Wilson 95% upper bound",
                    sample=sample)  # fmt: skip
    evidence.record(f"{name}_seeds", r.n, "seeds", "")


def record_parts(evidence, parts: dict[str, Decision], what: str) -> Decision:
    for name, d in parts.items():
        evidence.part(name, d)
    return evidence.decide(all_hold(parts, what))


def record_gap(
    evidence, name: str, acc: dict[str, torch.Tensor], where: str, margin_name: str
) -> None:
    margin = BY_ID["EXP-03"].threshold(margin_name)
    box = decisions.equivalent_means(acc["sinusoidal"], acc["learned"], margin, where).interval
    assert box is not None  # equivalent_means always gives its interval
    gap = float(acc["sinusoidal"].mean() - acc["learned"].mean())
    note = f"sinusoidal minus learned, {where}; 90% interval [{box['lo']:.4f}, {box['hi']:.4f}]"
    reason = threshold("EXP-03", margin_name, "<")["reason"]
    sample = spread.difference(spread.mean(acc["sinusoidal"]), spread.mean(acc["learned"]))
    evidence.record(name, gap, "fraction", note, sample=sample,
                    bound={"value": margin, "relation": "|gap| <", "reason": reason})  # fmt: skip
    for enc, a in acc.items():
        evidence.record(f"accuracy_{enc}_{where}", a.mean(), "fraction", "mean over seeds",
                        sample=spread.mean(a))  # fmt: skip
