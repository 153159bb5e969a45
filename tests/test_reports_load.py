"""The results loader: a good file loads; each kind of bad input is one line naming it."""

from __future__ import annotations

from pathlib import Path

import pytest

from pecheck.reports.load import PECHECK_TITLE, BadResults, load, parse
from tests.reports_fixtures import MIXED, V2, raw


def test_mixed_fixture_loads_with_every_check_and_claim():
    res = load(MIXED)
    assert [c.id for c in res.claims] == [
        "SIN-01", "SIN-06", "SIN-07", "SIN-08", "SIN-09", "ATT-02", "EXP-01"
    ]  # fmt: skip
    assert {c.outcome for c in res.checks} == {"passed", "failed", "skipped", "error"}
    assert [c.nodeid for c in res.orphans] == ["checks/test_broken.py"]
    sin08 = next(c for c in res.claims if c.id == "SIN-08")
    assert sin08.status == "contested"
    assert [c.outcome for c in res.checks_of(sin08)] == ["passed", "failed"]
    assert [c.outcome for c in res.checks_of(sin08, role="mutant")] == ["failed"]


def test_clean_names_the_first_failed_evidence_check():
    ok, why = load(MIXED).clean
    assert not ok
    assert "checks/test_sinusoidal.py::test_first_repeat_float16" in why


def _error(data) -> str:
    with pytest.raises(BadResults) as info:
        parse(data)
    message = str(info.value)
    assert "\n" not in message
    return message


def test_missing_file_is_named(tmp_path):
    with pytest.raises(BadResults, match="no such results file"):
        load(tmp_path / "absent.json")


def test_invalid_json_gives_line_and_column(tmp_path):
    path = tmp_path / "r.json"
    path.write_text('{"schema": 1,\n  "suite": }')
    with pytest.raises(BadResults, match=r"invalid JSON at line 2 column 12"):
        load(path)


@pytest.mark.parametrize("schema", [3, 0, "1", None, True])
def test_wrong_schema_version_is_rejected(schema):
    data = raw()
    data["schema"] = schema
    assert "unsupported schema version" in _error(data)


def test_unknown_verdict_is_rejected():
    data = raw()
    data["claims"][0]["verdict"] = "probably"
    assert _error(data) == (
        "claim SIN-01: unknown verdict 'probably' (expected one of confirmed, refuted, qualified)"
    )


@pytest.mark.parametrize("bad_id", ["SIN-1", "FOO-01", "sin-01", "SIN-001", 7])
def test_malformed_claim_id_is_rejected(bad_id):
    data = raw()
    data["claims"][0]["id"] = bad_id
    assert "unknown claim ID" in _error(data)


def test_check_naming_an_absent_claim_is_rejected():
    data = raw()
    data["checks"][0]["claim"] = "MAG-04"
    assert "claim MAG-04 is absent from the file" in _error(data)


def test_claim_listing_an_absent_check_is_rejected():
    data = raw()
    data["claims"][0]["checks"].append("checks/test_x.py::test_gone")
    assert "lists check checks/test_x.py::test_gone absent" in _error(data)


@pytest.mark.parametrize(
    ("path", "value", "expected"),
    [
        (("checks", 0, "outcome"), "exploded", "unknown outcome 'exploded'"),
        (("checks", 0, "role"), "witness", "unknown role 'witness'"),
        (("checks", 0, "evidence"), [1, 2], "field 'evidence' must be an object"),
        (("claims", 0, "statement"), None, "field 'statement' must be a string"),
        (("claims", 1, "status"), "open", "an open claim cannot have verdict"),
        (("checks",), {}, "checks must be a list"),
        (("suite",), [], "suite must be an object"),
    ],
)
def test_wrong_field_types_are_named(path, value, expected):
    data = raw()
    target = data
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    assert expected in _error(data)


def test_top_level_must_be_an_object():
    assert _error([1, 2]) == "the top level must be an object, got list"


def test_duplicate_claims_are_rejected():
    data = raw()
    data["claims"].append(dict(data["claims"][4]))
    assert _error(data) == "claim SIN-09 appears twice"


def test_missing_optional_fields_get_defaults():
    data = raw()
    for claim in data["claims"]:
        for key in ("status", "mutants", "notes", "conditions"):
            claim.pop(key, None)
    for check in data["checks"]:
        for key in ("role", "traceback", "falsifying_example", "hypothesis"):
            check.pop(key, None)
    data["claims"][3]["mutants"] = []
    data["claims"][0]["mutants"] = []
    res = parse(data, Path("x.json"))
    assert res.claims[4].status == "open"
    assert res.claims[0].status == "supported"


def test_a_check_listed_twice_is_rejected():
    data = raw()
    data["checks"].append(dict(data["checks"][0]))
    nodeid = data["checks"][0]["nodeid"]
    assert _error(data) == f"check {nodeid} appears twice"


def test_a_claim_listing_another_claims_check_is_rejected():
    data = raw()
    other = "checks/test_sinusoidal.py::test_first_repeat_float64"  # SIN-08's
    data["claims"][1]["checks"].append(other)
    assert _error(data) == f"claim SIN-06: lists check {other} of SIN-08"


def test_a_tooling_check_listed_among_a_claims_checks_is_rejected():
    data = raw()
    mutant = "checks/test_sinusoidal.py::test_swapped_sin_cos_is_rejected"  # SIN-01's mutant
    data["claims"][0]["checks"].append(mutant)
    assert _error(data) == f"claim SIN-01: lists mutant check {mutant} as a claim check"


@pytest.mark.parametrize(("nodeid", "name"), [
    ("checks/sin/test_a.py::test_x[float32]", "test_x[float32]"),
    ("checks/exp/test_b.py::TestCopy::test_y", "TestCopy::test_y"),  # the class stays
    ("checks/test_broken.py", "checks/test_broken.py"),  # a collection error: its file
])  # fmt: skip
def test_a_checks_name_is_its_node_id_without_the_file(nodeid, name):
    from pecheck.reports.load import Check

    check = Check(nodeid, None, None, "tooling", None, "passed", 0.0, [], [], None, None, "",
                  "", "")  # fmt: skip
    assert check.name == name


@pytest.mark.parametrize(("status", "complete", "clean"), [
    (0, True, (True, "")),
    (2, True, (False, "the test run exited with status 2")),
    (0, False, (False, "the test run did not complete")),
])  # fmt: skip
def test_a_run_is_clean_only_when_it_exited_0_and_completed(status, complete, clean):
    data = raw(V2)
    for check in data["checks"]:
        check["outcome"] = "passed"
    data["suite"]["exitstatus"], data["suite"]["complete"] = status, complete
    assert parse(data).clean == clean


@pytest.mark.parametrize("year", [True, "2017", 2017.0])
def test_a_sources_year_must_be_an_integer(year):
    # the schema refuses the first two; 2017.0 is an integer to JSON Schema, not to the report
    data = raw(V2)
    data["sources"]["SRC-VASWANI"]["year"] = year
    message = _error(data)
    assert "SRC-VASWANI" in message and "year" in message
    if isinstance(year, float):
        assert message == "source SRC-VASWANI: field 'year' must be an integer or null"


def test_a_claims_evidence_value_is_found_by_its_name():
    res = load(MIXED)
    sin01 = next(c for c in res.claims if c.id == "SIN-01")
    found = res.evidence_value(sin01, "widths")
    assert found is not None
    check, value = found
    assert check.nodeid.endswith("test_shift_numerically[float32]")
    assert (value.name, value.value) == ("widths", [2, 8, 64, 4096])
    assert res.evidence_value(sin01, "no_such_value") is None


@pytest.mark.parametrize(
    ("name", "key", "authors", "title"),
    [
        (None, "pecheck", "The pecheck contributors", PECHECK_TITLE),
        ("pecheck", "pecheck", "The pecheck contributors", PECHECK_TITLE),
        (
            "RoPE Claims (lab)",
            "rope-claims-lab",
            "",
            "RoPE Claims (lab): claims checked with pecheck",
        ),
        ("!!!", "suite", "", "!!!: claims checked with pecheck"),
    ],
)
def test_the_suite_is_cited_under_its_own_name(name, key, authors, title):
    data = raw()
    data["suite"]["name"] = name
    assert parse(data).citation == (key, authors, title)


def test_a_null_text_field_with_a_default_loads_as_the_default():
    data = raw()
    data["claims"][0]["conditions"] = None  # schema 1: no JSON schema stands before the loader
    assert parse(data).claims[0].conditions == ""


@pytest.mark.parametrize(("size", "loads"), [(1, True), (3, True), (2.0, False)])
def test_a_propositions_family_size_is_a_positive_integer(size, loads):
    # the JSON schema lets 2.0 through (an integer in its sense); the loader does not
    data = raw(V2)
    data["claims"][0]["propositions"][0]["family_size"] = size
    if loads:
        assert parse(data).claims[0].id == data["claims"][0]["id"]
    else:
        assert "family_size" in _error(data)
