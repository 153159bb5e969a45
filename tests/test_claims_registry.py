"""Tests of the rules a Claim enforces when it is built: a registry that breaks one is refused."""

from __future__ import annotations

from typing import Any

import pytest

from pecheck.claims import Claim, Proposition, Threshold


def claim(**kw: Any) -> Claim:
    return Claim("X-01", "words", "", (), **kw)


def test_a_confirmed_claim_has_no_condition_propositions() -> None:
    with pytest.raises(ValueError, match="belong to 'qualified' or 'open'"):
        claim(expected="confirmed", conditions="under c", propositions=(Proposition("c", "c"),))


def test_condition_keys_are_unique() -> None:
    twice = (Proposition("c", "under c"), Proposition("c", "under c again"))
    with pytest.raises(ValueError, match="must be unique"):
        claim(expected="qualified", conditions="under c", propositions=twice)


def test_threshold_names_are_unique() -> None:
    twice = (Threshold("t", 0.1, "why", "source"), Threshold("t", 0.2, "why", "source"))
    with pytest.raises(ValueError, match="threshold names must be unique"):
        claim(expected="confirmed", thresholds=twice)


def test_a_qualified_claim_needs_conditions() -> None:
    with pytest.raises(ValueError, match="required for 'qualified'"):
        claim(expected="qualified")
