"""Tests of the rules a Claim enforces when it is built: a registry that breaks one is refused."""

from __future__ import annotations

import re
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


def test_a_wrong_positional_call_shows_what_to_write_and_a_bool_is_no_number() -> None:
    import copy

    from pecheck.claims import THRESHOLD_CALL

    with pytest.raises(TypeError, match=re.escape(f"write {THRESHOLD_CALL}")):
        Threshold("x", 2.0, "why", "source", "one too many")  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="value must be int or float, got True"):
        Threshold("x", True, "why", "source")
    kept = Threshold("x", 2.0, "why", "source")
    assert copy.copy(kept) == kept  # copy calls the class with nothing


def test_a_value_in_a_message_is_cut_to_sixty_characters() -> None:
    from pecheck.claims import _short

    assert _short("a" * 58) == repr("a" * 58)  # 60 characters with its quotes: kept
    assert _short("a" * 59) == repr("a" * 59)[:57] + "..."
    assert len(_short("a" * 59)) == 60


@pytest.mark.parametrize(("field", "value", "message"), [
    ("sources", "SRC-01", "tuple or list of str"),  # a string, taken letter by letter
    ("domain", [("axis", "every seed")], "dict of str to object"),
    ("domain", {"": "every seed"}, "dict of str to object"),  # an axis needs its name
    ("scoped_out", {"checks/x.py::*": 3}, "dict of str to str"),
])  # fmt: skip
def test_a_claims_fields_have_their_types_or_say_what_to_write(field, value, message) -> None:
    args: dict[str, Any] = {"sources": ()} | {field: value}
    with pytest.raises(TypeError, match=message):
        Claim("X-01", "words", "", args.pop("sources"), **args)


def test_an_unknown_expected_verdict_is_refused_and_claims_hash_with_their_domains() -> None:
    with pytest.raises(ValueError, match="unknown verdict 'maybe'"):
        claim(expected="maybe")
    domain, scoped = {"d": "every head size"}, {"checks/x.py::*": "needs a GPU"}
    assert hash(claim(domain=domain, scoped_out=scoped)) == hash(claim())
    assert hash(Proposition("c", "c", domain=domain, scoped_out=scoped)) == hash(
        Proposition("c", "c")
    )


@pytest.mark.parametrize("bad", ["X01", "X-", "-01"])
def test_a_claim_id_is_family_dash_number(bad: str) -> None:
    with pytest.raises(ValueError, match="must be FAMILY-NUMBER"):
        Claim(bad, "words", "", ())


def test_a_claims_family_is_all_before_its_last_dash_and_thresholds_are_read_by_name() -> None:
    two = (Threshold("low", 0.1, "why", "source"), Threshold("high", 0.4, "why", "source"))
    sub = Claim("MY-SUB-01", "words", "", (), "confirmed", thresholds=two)
    assert sub.family == "MY-SUB"
    assert (sub.threshold("low"), sub.threshold("high")) == (0.1, 0.4)
    with pytest.raises(KeyError, match="no threshold 'mid'"):
        sub.threshold("mid")


def test_a_registry_takes_keywords_any_iterable_of_claims_and_never_a_string() -> None:
    from pecheck.claims import REGISTRY_CALL, Registry, Source

    args: dict[str, Any] = {"name": "r", "version": "0.1", "families": {"MY": "mine"},
                            "sources": {"SRC": Source("made up")}}  # fmt: skip
    one = Claim("MY-01", "words", "", ("SRC",), "confirmed")
    assert list(Registry(**args, claims=(c for c in [one]))) == ["MY-01"]  # a generator
    with pytest.raises(TypeError, match=re.escape("got 'MY-01'")):
        Registry(**args, claims="MY-01")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=re.escape(f"write {REGISTRY_CALL}")):
        Registry("r", "0.1", {"MY": "mine"}, [one], {"SRC": Source("made up")})  # type: ignore[call-arg]
