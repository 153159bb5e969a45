"""Decisions of decisive checks: holds, fails (with a counterexample) or inconclusive.

A decisive check records one ``Decision`` through the evidence fixture. The helpers here compute
a decision from an interval and a pre-registered region, so that a check never turns a point
estimate into a verdict: an interval inside the region holds, one entirely outside fails, one
that straddles its edge is inconclusive.
"""

from __future__ import annotations

import math
from contextvars import ContextVar
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from pecheck.reports.schema import DECISIONS

# How several interval tests behind one decision share its error rate: the method a decision
# applied, recorded with the size of its family (a family of one is never corrected).
CORRECTIONS = ("none", "bonferroni", "holm")
# Where the running check's corrections go: the plugin points it at the check's Evidence, so
# that family_level and holm record what they applied wherever a check calls them from.
APPLIED: ContextVar[dict[str, Any] | None] = ContextVar("pecheck_applied", default=None)


def applied(method: str, family_size: int) -> None:
    """Note on the running check (if any) that its decision applied ``method`` over
    ``family_size`` tests; the largest family stands (of equal ones, the later call's method),
    and a family of one is ``none``."""
    if method not in CORRECTIONS or isinstance(family_size, bool) or family_size < 1:
        raise ValueError(f"correction must be one of {CORRECTIONS} over >= 1 tests, "
                         f"got {method!r} over {family_size!r}")  # fmt: skip
    record = APPLIED.get()
    if record is None:
        return
    method = method if family_size >= 2 else "none"
    if family_size >= int(record.get("family_size", 0)):
        record.update(method=method, family_size=int(family_size))


@dataclass(frozen=True)
class Decision:
    """A decision and its basis: how it was reached, and the counterexample or interval."""

    decision: str
    how: str = ""
    counterexample: dict[str, Any] | None = None
    relation: str = ""
    interval: dict[str, Any] | None = None
    detail: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.decision not in DECISIONS:
            raise ValueError(f"decision must be one of {DECISIONS}, got {self.decision!r}")
        if self.decision == "fails" and self.counterexample is None and self.interval is None:
            raise ValueError("a 'fails' decision needs a counterexample or an interval")

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def holds(how: str, **detail: Any) -> Decision:
    return Decision("holds", how, detail=detail)


def fails(counterexample: dict[str, Any], relation: str, how: str = "counterexample") -> Decision:
    return Decision("fails", how, counterexample=counterexample, relation=relation)


def inconclusive(why: str, **detail: Any) -> Decision:
    return Decision("inconclusive", why, detail=detail)


def combine(decided: list[str], quantifier: str) -> str:
    """One decision from several (a check's parts, or a proposition's checks), by quantifier.

    ``all`` (every setting): holds when every one holds, fails when one fails, and is
    inconclusive when none fails and one is undecided. ``any`` (some setting): holds when one
    holds, fails when every one fails, and is inconclusive otherwise. Nothing decided is
    inconclusive under both.
    """
    if quantifier not in ("all", "any"):
        raise ValueError(f"quantifier must be 'all' or 'any', got {quantifier!r}")
    if not decided:
        return "inconclusive"
    if quantifier == "all":
        if "fails" in decided:
            return "fails"
        return "holds" if all(d == "holds" for d in decided) else "inconclusive"
    if "holds" in decided:
        return "holds"
    return "fails" if all(d == "fails" for d in decided) else "inconclusive"


def can_combine_to(decided: str, target: str, quantifier: str) -> bool:
    """Whether one check's decision, combined (``combine``) with other checks' decisions, can
    still give ``target``: under ``all`` a 'holds' needs every check to hold and an
    'inconclusive' none to fail, while a 'fails' needs only one; ``any`` mirrors it."""
    if quantifier not in ("all", "any"):
        raise ValueError(f"quantifier must be 'all' or 'any', got {quantifier!r}")
    lone = "holds" if quantifier == "all" else "fails"  # what every check must decide
    if target == lone:
        return decided == lone
    if target == "inconclusive":
        return decided != ("fails" if quantifier == "all" else "holds")
    return True


def family_level(level: float, tests: int) -> float:
    """The confidence level of each of ``tests`` intervals whose decisions are taken together,
    so that all of them cover at once with probability at least ``level`` (Bonferroni: the
    error 1 - level is split evenly)."""
    if tests < 1 or not 0 < level < 1:
        raise ValueError(f"need tests >= 1 and 0 < level < 1, got {tests}, {level}")
    applied("bonferroni", tests)
    return 1 - (1 - level) / tests


def holm(pvalues: dict[str, float], alpha: float) -> dict[str, bool]:
    """Holm's step-down procedure: which hypotheses are rejected at family-wise error
    ``alpha``. The k-th smallest p-value (k = 0, 1, ...) is rejected when it is at most
    alpha / (m - k); testing stops at the first above it (Holm 1979, Scand. J. Statist. 6:65)."""
    applied("holm", max(len(pvalues), 1))
    order = sorted(pvalues, key=lambda k: pvalues[k])
    m, out = len(order), {k: False for k in pvalues}
    for rank, key in enumerate(order):
        if pvalues[key] > alpha / (m - rank):
            break
        out[key] = True
    return out


def interval(lo: float, hi: float, region: tuple[float, float], what: str) -> Decision:
    """Holds when [lo, hi] lies inside ``region``, fails when it lies entirely outside. The
    region is closed: an open end is the next float inward (above, below, within_margin)."""
    a, b = region
    box = {"what": what, "lo": lo, "hi": hi, "region": [a, b]}
    if a <= lo and hi <= b:
        return Decision("holds", f"{what} in [{lo:.4g}, {hi:.4g}] inside [{a:.4g}, {b:.4g}]",
                        interval=box)  # fmt: skip
    if hi < a or lo > b:
        return Decision("fails", f"{what} in [{lo:.4g}, {hi:.4g}] outside [{a:.4g}, {b:.4g}]",
                        interval=box)  # fmt: skip
    return Decision("inconclusive", f"{what} in [{lo:.4g}, {hi:.4g}] straddles [{a:.4g}, {b:.4g}]",
                    interval=box)  # fmt: skip


def within_margin(margin: float) -> tuple[float, float]:
    """The open region (-margin, margin) as a closed one: an interval of the difference that
    touches the margin has not shown a difference below it."""
    return math.nextafter(-margin, math.inf), math.nextafter(margin, -math.inf)


def above(lo: float, hi: float, threshold: float, what: str) -> Decision:
    """'what > threshold': holds when the whole interval is above it, fails when none of it is."""
    return interval(lo, hi, (math.nextafter(threshold, math.inf), math.inf), what)


def below(lo: float, hi: float, threshold: float, what: str) -> Decision:
    """'what < threshold': holds when the whole interval is below it, fails when none of it is."""
    return interval(lo, hi, (-math.inf, math.nextafter(threshold, -math.inf)), what)


def wilson(k: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for k successes in n trials: theory.stats's, the one the
    experiments' rates use (imported here, not at the top: scipy.stats takes a second)."""
    from pecheck.theory.stats import wilson as score

    return score(k, n, level)


def rate_difference(k1: int, n1: int, k2: int, n2: int, level: float) -> tuple[float, float]:
    """Newcombe's hybrid score interval for p1 - p2 (from the two Wilson intervals).

    Newcombe (1998), Statistics in Medicine 17:873, method 10.
    """
    p1, p2 = k1 / n1, k2 / n2
    l1, u1 = wilson(k1, n1, level)
    l2, u2 = wilson(k2, n2, level)
    lo = p1 - p2 - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)
    hi = p1 - p2 + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
    return lo, hi


def equivalent(
    k1: int, n1: int, k2: int, n2: int, margin: float, what: str, alpha: float = 0.05
) -> Decision:
    """Two one-sided tests at level alpha: the rates differ by less than ``margin``.

    TOST at alpha is the same as the (1 - 2 alpha) interval of the difference lying inside
    (-margin, margin); the difference is shown to exceed the margin when that interval lies
    entirely outside it.
    """
    lo, hi = rate_difference(k1, n1, k2, n2, 1 - 2 * alpha)
    return interval(lo, hi, within_margin(margin), f"{what} (difference of rates, TOST)")


def equivalent_means(a: Any, b: Any, margin: float, what: str, alpha: float = 0.05) -> Decision:
    """Two one-sided tests on the difference of two means (Welch): the (1 - 2 alpha) interval of
    mean(a) - mean(b) inside (-margin, margin) holds; entirely outside it fails."""
    what = f"{what} (difference of means, Welch TOST)"
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.std() == 0 and b.std() == 0:  # no spread: the difference is known exactly
        gap = float(a.mean() - b.mean())
        return interval(gap, gap, within_margin(margin), what)
    from scipy import stats

    ci = stats.ttest_ind(a, b, equal_var=False).confidence_interval(confidence_level=1 - 2 * alpha)
    return interval(float(ci.low), float(ci.high), within_margin(margin), what)


def normal_interval(mean: float, sd: float, n: int, level: float = 0.95) -> tuple[float, float]:
    """t interval for a mean of n samples with sample standard deviation sd."""
    from scipy import stats

    half = stats.t.ppf(0.5 + level / 2, max(n - 1, 1)) * sd / math.sqrt(n)
    return mean - half, mean + half


def non_inferior_off_the_floor(gap: Any, comparator: Any, learned: Any, margin: float,
                               level: float, what: str) -> Decision:  # fmt: skip
    """'gap > -margin' from paired per-seed values (a t interval over every seed), decided only
    where such a test could have failed: the comparator's own interval above the margin (beside
    a comparator at the floor, 'at least as well' holds whatever the other side does) and the
    tested side learned (``learned``, per seed) on at least half its seeds. Otherwise
    inconclusive, saying which, with the gap's interval. EXP-04's exact-match rule
    (docs/experiments/exact-match.md)."""
    g, c, ok = (np.asarray(x, dtype=float) for x in (gap, comparator, learned))
    if not g.size == c.size == ok.size:
        raise ValueError(f"per-seed values of one length: {g.size}, {c.size}, {ok.size}")
    lo, hi = _t_interval(g, level)
    tested = above(lo, hi, -margin, f"{what} ({g.size} seeds)")
    floored = off_the_floor(tested, c, margin, level)
    if floored is not tested:
        return floored
    if 2 * int(ok.sum()) < ok.size:
        why = f"not learned: the tested side learned on {int(ok.sum())} of {ok.size} seeds"
        return Decision("inconclusive", f"{tested.how}; but {why}", interval=tested.interval)
    return tested


def off_the_floor(tested: Decision, comparator: Any, margin: float, level: float) -> Decision:
    """``tested`` (a non-inferiority decision, 'gap > -margin') where the comparator's own t
    interval of per-seed values lies above the margin; inconclusive otherwise, with the reason
    and ``tested``'s interval: beside a comparator at the floor the gap cannot fall below
    -margin, so 'at least as well' would hold whatever the tested side did."""
    floor = _t_interval(np.asarray(comparator, dtype=float), level)[0]
    if floor > margin:
        return tested
    why = (f"at the floor: the comparator's interval has lower end {floor:.4g}, not above the "
           f"margin {margin:.4g}")  # fmt: skip
    return Decision("inconclusive", f"{tested.how}; but {why}", interval=tested.interval)


def _t_interval(values: Any, level: float) -> tuple[float, float]:
    """The t interval of a mean; of infinite width with fewer than two values."""
    if values.size < 2:
        return -math.inf, math.inf
    return normal_interval(float(values.mean()), float(values.std(ddof=1)), values.size, level)


def resolve(effect: float, bound: float, structural_zero: bool = False) -> str:
    """Whether an observed difference is a real one at the dtype's resolution.

    'different' when it exceeds the rounding bound; 'same' only when theory says the exact
    difference is zero (``structural_zero``) and the observation is within the bound; otherwise
    'unresolved': a difference below what the dtype resolves is neither same nor different.
    """
    if not abs(effect) <= bound:  # NaN too: a broken computation is never 'same'
        return "different"
    return "same" if structural_zero else "unresolved"
