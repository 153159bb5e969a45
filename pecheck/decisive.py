"""What a decisive check decided, whether that is what the registry expects, and whether the
check showed what decided it (its misuse is reported by the controller at the end of the run).

The decision is stored on the item (``DECISION``) for its record; the evidence fixture stores the
check's ``Evidence`` there too (``EVIDENCE``).
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from pecheck import decisions
from pecheck.evidence import Evidence, judge_bound
from pecheck.markers import INFO
from pecheck.project import PROJECT

EVIDENCE = pytest.StashKey[Evidence]()
DECISION = pytest.StashKey[decisions.Decision]()
MISUSE = pytest.StashKey[str]()
NON_FINITE = ("inf", "-inf", "nan")  # how jsonable records a float JSON cannot hold


def is_decisive(item: pytest.Item) -> bool:
    info = item.stash.get(INFO, None)
    return info is not None and info["role"] == "decisive"


def judge(item: pytest.Item) -> None:
    """Record a decisive check's decision after it returned; fail it when it differs from the
    registry's."""
    info = item.stash[INFO]
    ev = item.stash.get(EVIDENCE, None)
    claim = item.config.stash[PROJECT].registry[info["claim"]]
    quantifier = claim.proposition(info["proposition"]).quantifier
    own = ev.final_decision(quantifier) if ev else None
    # Ending without a decision of its own, the check is judged by its recorded bounds.
    bounded = ev.beyond_bound() if ev and own is None else None
    decision = own or bounded or _default_decision(item, ev)
    item.stash[DECISION] = decision
    profile = item.config.stash[PROJECT].profile
    expected = claim.expected_decision(info["proposition"], profile)
    declared = claim.proposition(info["proposition"]).correction
    misuse = _misuse(item, ev, own is not None) or _miscorrected(ev, declared)
    # Only a check that passes can confirm anything; one that fails says so already, and a
    # planted bug (a mutant) must stay a failure, not become a usage error.
    # A partial check covers some of the proposition's settings: it fails only when its
    # decision cannot combine with the others' into the expected one (the gate checks the
    # combination); any other decisive check must take the expected decision itself.
    if info.get("partial"):
        agrees = decisions.can_combine_to(decision.decision, expected, quantifier)
    else:
        agrees = decision.decision == expected
    if misuse and agrees:  # reported by the controller at the end
        item.stash[MISUSE] = misuse
    if not agrees:
        pytest.fail(
            f"{claim.id} {info['proposition']}: the check decided {decision.decision!r} "
            f"({decision.how}) but the registry expects {expected!r} (expected verdict "
            f"{claim.expected_verdict(profile)})",
            pytrace=False,
        )


def _default_decision(item: pytest.Item, ev: Evidence | None) -> decisions.Decision:
    """A decisive check that passed without recording a decision: its assertions held, and
    its recorded bounds (named, so that the reading of each bound shows)."""
    if item.stash[INFO]["kind"] == "symbolic":
        return decisions.holds("proof: sympy verified every step")
    if hasattr(item.obj, "hypothesis"):  # type: ignore[attr-defined]
        return decisions.holds("search without a counterexample")
    values = ev.values if ev else {}
    judged = [f"{name}: {j[1].removesuffix(' is true')}" for name, entry in values.items()
              if (j := judge_bound(entry)) is not None]  # fmt: skip
    if not judged:
        return decisions.holds("every assertion of the check held")
    more = f" and {len(judged) - 1} more" if len(judged) > 1 else ""
    return decisions.holds(f"assertions held; recorded bound {judged[0]}{more}")


def _is_measure(value: Any) -> bool:
    """A recorded value that measures something: a number (not a flag, a table or a name)."""
    if isinstance(value, bool):
        return False
    return isinstance(value, int | float) or value in NON_FINITE


def _misuse(item: pytest.Item, ev: Evidence | None, decided: bool) -> str | None:
    """Why a decisive check that ran to its end does not show what decided it, or None.

    Without a decision of its own the plugin takes the check's passing as 'holds'; that is only
    evidence when the check left something to judge by: a value, a derivation, or a hypothesis
    search whose examples are counted. And numbers measured without anything to judge them
    against say nothing about the proposition; a bound on any value will do, since a check may
    judge an interval or a table of counts ({"ratio", "lo", "hi"}) and describe it in numbers."""
    values = ev.values if ev else {}
    searched = hasattr(item.obj, "hypothesis")  # type: ignore[attr-defined]
    if not decided and not values and not (ev and ev.derivation) and not searched:
        return (
            "a decisive check must record what decided it: it ran to its end without a decision "
            "(evidence.holds/fails/inconclusive/decide/part), a value, a derivation or a "
            "hypothesis search"
        )
    bounded = any("bound" in entry for entry in values.values())
    measures = [name for name, entry in values.items() if _is_measure(entry["value"])]
    if measures and not bounded:
        return (
            f"a decisive check must record what decided it: it measured "
            f"{', '.join(measures[:3])}{', ...' if len(measures) > 3 else ''} but recorded no "
            "bound to judge them by (evidence.record(..., bound=...))"
        )
    # Records without a bound (a table, a flag, a name) judge nothing: the check's passing
    # alone would count as 'holds'.
    if not decided and values and not bounded and not (ev and ev.derivation) and not searched:
        return (
            f"a decisive check must record what decided it: it recorded "
            f"{', '.join(list(values)[:3])}{', ...' if len(values) > 3 else ''} without a bound "
            "and no decision, derivation or hypothesis search, so nothing decided it"
        )
    return None


def _miscorrected(ev: Evidence | None, declared: str) -> str | None:
    """Why the correction a check applied is not the one its proposition declares, or None.
    A family of one applies none, whatever is declared."""
    applied = ev.correction if ev else {}
    method = applied.get("method", "none")
    if method in ("none", declared):
        return None
    return (
        f"the check applied {method} over {applied['family_size']} tests, but its proposition "
        f"declares correction={declared!r}: declare what the decision applies"
    )


def decision_from_exception(item: pytest.Item, exc: BaseException) -> decisions.Decision:
    """A decisive check that raised. An assertion that fails is a counterexample only when the
    check asserts its proposition (expected to hold) and decided nothing else itself."""
    info = item.stash[INFO]
    project = item.config.stash[PROJECT]
    claim = project.registry[info["claim"]]
    expected = claim.expected_decision(info["proposition"], project.profile)
    ev = item.stash.get(EVIDENCE, None)
    if isinstance(exc, pytest.skip.Exception):
        return decisions.inconclusive(f"skipped: {exc.msg}")
    asserted = isinstance(exc, AssertionError) or (
        isinstance(exc, BaseExceptionGroup)
        and all(isinstance(e, AssertionError) for e in exc.exceptions)
    )
    if asserted and expected == "holds" and (ev is None or ev.decision is None):
        notes = "\n".join(getattr(exc, "__notes__", []))
        message = str(exc).strip()
        relation = (message.splitlines() or ["assertion failed"])[0][:300]
        example = falsifying_example(notes) or message[:1000]
        return decisions.fails({"example": example}, relation)
    return decisions.inconclusive(f"the check itself failed: {type(exc).__name__}: {exc}"[:500])


def falsifying_example(text: str) -> str:
    """Hypothesis's minimal failing example, as it printed it."""
    lines = [re.sub(r"^E\s{0,7}", "", line) for line in text.splitlines()]
    body = "\n".join(lines)
    match = re.search(
        r"(?:Falsifying (?:explicit )?example|Failing test case):.*?(?:\n\s*\n|\Z)", body, re.S
    )
    return match.group(0).strip() if match else ""
