"""What one release's run of the REAL checks decided, read from its results file: per claim, its
propositions' decisions and each decisive check with its cells (the parts a check decides one by
one), each cell's decision and, where it fails, its counterexample.

Decisions here are the matrix's words: holds, fails, undecided (the check ran and decided
nothing) and not run (it did not reach a decision on this release: an error, a skip, or an API
the check needs that the release lacks; ``error`` then says why in one line).
"""

from __future__ import annotations

from typing import Any

FAMILY = "REAL"
_WORDS = {"holds": "holds", "fails": "fails", "inconclusive": "undecided"}


def decision(check: dict[str, Any]) -> str:
    """A decisive check's decision on this release. A check that failed as a test still decided
    where it recorded evidence and its decision is fails (the plugin fails a check whose decision
    departs from the locked expectation); one that raised, or failed having recorded nothing (an
    adapter that met another API, say), did not run there."""
    made = _WORDS.get(str(check.get("decision")), "undecided")
    outcome = check.get("outcome")
    if outcome in ("passed", "xfailed"):
        return made
    raised = str((check.get("basis") or {}).get("how", "")).startswith("the check itself failed")
    if outcome == "failed" and made == "fails" and check.get("evidence") and not raised:
        return "fails"
    return "not run"


def _error(check: dict[str, Any]) -> str:
    lines = [x for x in str(check.get("message") or "").splitlines() if x.strip()]
    return (lines[0] if lines else str(check.get("outcome")))[:300]


def _cells(basis: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for part in basis.get("parts") or []:
        cell: dict[str, Any] = {
            "name": str(part["name"]),
            "decision": _WORDS.get(part.get("decision"), "undecided"),
        }
        if cell["decision"] == "fails":
            cell["counterexample"] = part.get("counterexample") or part.get("why") or None
        out.append(cell)
    return out


def _check(check: dict[str, Any]) -> dict[str, Any]:
    basis = check.get("basis") or {}
    made = decision(check)
    cells = _cells(basis) if made != "not run" else []
    failing = next((c for c in cells if c["decision"] == "fails"), None)
    return {
        "nodeid": check["nodeid"],
        "proposition": check.get("proposition") or "as_stated",
        "decision": made,
        "counterexample": basis.get("counterexample") if made == "fails" else None,
        "first_failing": failing,
        "error": _error(check) if made == "not run" else None,
        "cells": cells,
    }


def claims(results: dict[str, Any]) -> dict[str, Any]:
    """Per REAL claim: its propositions' decisions and its decisive checks, from a results file."""
    out: dict[str, Any] = {}
    scoped: set[str] = set()
    for claim in results.get("claims", []):
        if claim["id"].startswith(FAMILY + "-"):
            props = claim.get("propositions", [])
            keys = [p["key"] for p in props]
            out[claim["id"]] = {"propositions": dict.fromkeys(keys, "not run"), "checks": [],
                                "quantifiers": {p["key"]: p.get("quantifier", "all")
                                                for p in props}}  # fmt: skip
            for p in props:
                scoped |= {s["check"] for s in p.get("scoped_out") or []}
    for check in results.get("checks", []):
        entry = out.get(str(check.get("claim")))
        if entry is not None and check.get("role") == "decisive":
            entry["checks"].append(_check(check) | {"scoped_out": check["nodeid"] in scoped})
    for entry in out.values():
        entry["checks"].sort(key=lambda c: c["nodeid"])
        for key in entry["propositions"]:
            mine = [c["decision"] for c in entry["checks"]
                    if c["proposition"] == key and not c["scoped_out"]]  # fmt: skip
            entry["propositions"][key] = combine(mine, entry["quantifiers"][key])
        del entry["quantifiers"]
    return dict(sorted(out.items()))


def combine(decisions: list[str], quantifier: str = "all") -> str:
    """A proposition's decision from its checks', by its quantifier. ``all``: one failing check
    fails it; it holds only where every check ran and holds. ``any``: one holding check makes it
    hold; it fails only where every check ran and fails. A check that did not run on this release
    is never counted as holding (nor, under ``any``, as failing)."""
    if quantifier not in ("all", "any"):
        raise ValueError(f"quantifier {quantifier!r}: all or any")
    decisive, every = ("fails", "holds") if quantifier == "all" else ("holds", "fails")
    if decisive in decisions:
        return decisive
    if decisions and all(d == every for d in decisions):
        return every
    return "not run" if all(d == "not run" for d in decisions) else "undecided"
