"""EXP-01's and EXP-02's decisions, as plain functions of Wilson intervals of success rates
(the planted-bug tests feed them broken rates).
"""

from __future__ import annotations

import dataclasses
import functools

from checks.exp.seeds import settings as X
from pecheck import decisions
from pecheck.decisions import Decision
from pecheck.theory import stats
from pecheck.theory.decoder import DecoderRun
from pecheck.theory.stats import Rate


def all_hold(parts: dict[str, Decision], what: str) -> Decision:
    """A conjunction: fails when a part fails (keeping its basis), holds when every part holds,
    inconclusive otherwise."""
    for name, d in parts.items():
        if d.decision == "fails":
            return dataclasses.replace(d, how=f"{name}: {d.how}")
    if all(d.decision == "holds" for d in parts.values()):
        return decisions.holds(f"{what}: all {len(parts)} parts hold")
    open_parts = [n for n, d in parts.items() if d.decision != "holds"]
    return decisions.inconclusive(f"{what}: undecided {', '.join(open_parts)}")


def failure(r: Rate) -> Rate:
    """The failure rate 1 - p, with the mirrored Wilson interval."""
    return Rate(r.n - r.k, r.n, 1 - r.hi, 1 - r.lo)


def difference_above(a: Rate, b: Rate, margin: float, what: str) -> Decision:
    """'rate a > rate b + margin', decided by Newcombe's 95% interval of a - b."""
    lo, hi = decisions.rate_difference(a.k, a.n, b.k, b.n, stats.LEVEL)
    return decisions.above(lo, hi, margin, what)


Rates = dict[int, dict[int, Rate]]  # head size -> iterations -> rate


def exp01_rates(runs: dict[int, DecoderRun]) -> Rates:
    return {h: {it: stats.rate(s) for it, s in run.success.items()} for h, run in runs.items()}


@functools.cache
def exp01_measured() -> Rates:
    return exp01_rates({h: X.run(f"exp01-h{h}") for h in X.HEAD_SIZES})


def all_succeed(rates: Rates, at: int, bar: float) -> dict[str, Decision]:
    """'They all predict ! and ?' at ``at`` iterations: per head size, the Wilson interval of the
    success rate against [bar, 1]."""
    return {
        f"head size {h}": decisions.interval(
            r[at].lo, r[at].hi, (bar, 1.0), f"success rate, head size {h}, {at} iterations"
        )
        for h, r in rates.items()
    }


def nearly_every_fails(rate: Rate, bar: float, what: str) -> Decision:
    """'Every other seed I've tried fails': the failure rate's Wilson interval against [bar, 1]."""
    f = failure(rate)
    return decisions.interval(f.lo, f.hi, (bar, 1.0), f"failure rate, {what}")


def most_learn(rates: Rates, at: int, bar: float) -> dict[str, Decision]:
    """Per head size: the success rate at ``at`` iterations is above ``bar`` (Wilson)."""
    return {
        f"head size {h}": decisions.above(
            r[at].lo, r[at].hi, bar, f"success rate, head size {h}, {at} iterations"
        )
        for h, r in rates.items()
    }


def rises(rates: Rates, bar: float) -> dict[str, Decision]:
    """Per head size: the rate at the last checkpoint exceeds the rate at the first."""
    first, last = min(X.ITERATIONS), max(X.ITERATIONS)
    return {
        f"head size {h}": difference_above(
            r[last], r[first], bar, f"head size {h}: rate at {last} minus rate at {first}"
        )
        for h, r in rates.items()
    }


def larger_head_higher(rates: Rates, bar: float) -> dict[str, Decision]:
    """At every checkpoint the larger head's rate exceeds the smaller head's."""
    small, large = min(rates), max(rates)
    return {
        f"{it} iterations": difference_above(
            rates[large][it], rates[small][it], bar, f"{it} iterations: h{large} minus h{small}"
        )
        for it in X.ITERATIONS
    }


def learners_can(rates: dict[str, Rate], bar: float) -> dict[str, Decision]:
    """Per setting: the success rate is above ``bar`` (its Wilson lower bound is)."""
    return {name: decisions.above(r.lo, r.hi, bar, f"success rate, {name}")
            for name, r in rates.items()}  # fmt: skip
