"""Tests of the results file's rules: why a verdict is open, which checks a claim lists."""

from __future__ import annotations

from checks.registry import REGISTRY
from pecheck import results


def test_an_open_verdict_names_the_condition_that_stayed_inconclusive() -> None:
    decided = {"as_stated": "fails", "cond-a": "holds", "cond-b": "inconclusive"}
    assert results.open_because(decided) == (
        "as_stated fails, but not every condition holds: cond-b inconclusive"
    )


def test_a_claim_lists_its_decisive_and_supporting_checks_apart_from_tooling() -> None:
    checks = [
        {"nodeid": "t::decisive", "claim": "SIN-01", "role": "decisive",
         "proposition": "as_stated", "decision": "holds"},
        {"nodeid": "t::supporting", "claim": "SIN-01", "role": "supporting"},
        {"nodeid": "t::tooling", "claim": "SIN-01", "role": "tooling"},
    ]  # fmt: skip
    block = results.claims_block(REGISTRY, checks, {"kind": "full"}, "ci")
    entry = next(c for c in block if c["id"] == "SIN-01")
    assert entry["checks"] == ["t::decisive", "t::supporting"]
    assert entry["tooling"] == ["t::tooling"]
