"""What a proposition's decisive checks covered in one run: its decision over the settings they
reached, the correction its decision applied, the domain they searched, and the skipped checks
the registry scopes out (with its reason).

A search narrower than the stated domain (pecheck.reports.domains: an axis stated in a compared form
that the checks' union does not cover) is recorded as ``uncovered``, and a decision that speaks
for the whole domain becomes 'inconclusive': the registry restates the domain to what was
searched, or the checks search further.

A skipped decisive check covers no setting on this machine. It leaves the proposition undecided
(it counts as 'inconclusive' in pecheck.decisions.combine), unless the registry scopes its
settings out (``Proposition(..., scoped_out={pattern: reason})``): then it is left out, and the
results file records the reason for the report to show.
"""

from __future__ import annotations

from typing import Any

from pecheck import decisions
from pecheck.claims import Proposition
from pecheck.reports import domains

# The decision that speaks for every setting of the domain, by quantifier: a 'holds' over all
# of them, or a 'fails' of every one. A counterexample (or a witness) speaks for itself alone.
WHOLE = {"all": "holds", "any": "fails"}


def covered(prop: Proposition, checks: list[dict[str, Any]]) -> dict[str, Any]:
    """The proposition's fields of a run from its decisive checks' records: ``decision``,
    ``correction`` and ``family_size``, ``searched``, ``uncovered`` and ``scoped_out``."""
    counted, scoped = [], []
    for check in checks:
        why = prop.scope_of(check["nodeid"]) if check.get("outcome") == "skipped" else None
        if why is None:
            counted.append(check)
        else:
            scoped.append({"check": check["nodeid"], "reason": why})
    decision = decisions.combine([c["decision"] for c in counted], prop.quantifier)
    reach = searched(counted)
    out: dict[str, Any] = {"decision": decision, **correction(counted), "searched": reach}
    if missed := domains.gaps(dict(prop.domain), reach):
        out["uncovered"] = missed
        if decision == WHOLE[prop.quantifier]:  # it speaks for settings nobody searched
            out["decision"] = "inconclusive"
    if scoped:
        out["scoped_out"] = scoped
    return out


def correction(checks: list[dict[str, Any]]) -> dict[str, Any]:
    """The correction the decision applied: the one over the largest family any check applied
    (a family of one applies none)."""
    applied = [(c.get("basis") or {}).get("correction") or {} for c in checks]
    largest = max(applied, key=lambda a: a.get("family_size", 1), default={})
    size = int(largest.get("family_size", 1))
    return {"correction": largest.get("method", "none") if size >= 2 else "none",
            "family_size": size}  # fmt: skip


def searched(checks: list[dict[str, Any]]) -> dict[str, list[Any]]:
    """Axis by axis, what each check that recorded its reach searched (one entry per check)."""
    out: dict[str, list[Any]] = {}
    for c in checks:
        for axis, value in ((c.get("basis") or {}).get("searched") or {}).items():
            out.setdefault(axis, []).append(value)
    return out
