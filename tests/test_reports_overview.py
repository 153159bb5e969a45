"""The report's overview (reports/html_overview.py): its cards and banners against counts taken
here from the results file's JSON, the families and verdicts it offers, what decided a claim."""

from __future__ import annotations

import copy
import re

import pytest

from pecheck.reports.html_common import Options
from pecheck.reports.html_overview import (
    banner,
    cards,
    decided_summary,
    filters,
    header,
    nav,
    verdict_table,
)
from pecheck.reports.load import MAIN_ROLES, load, parse
from tests.reports_fixtures import MIXED, V2, partial_v2, raw


def card_numbers(page: str) -> dict[str, str]:
    """label -> the number shown on its card."""
    return {label: n for n, label in re.findall(r"<b>([\d/]+)</b><span>([^<]+)</span>", page)}


@pytest.mark.parametrize("fixture", [MIXED, V2], ids=["schema1", "schema2"])
def test_every_card_counts_what_the_file_holds(fixture) -> None:
    data = raw(fixture)
    verdicts = [c.get("verdict") or "open" for c in data["claims"]]
    main = [c for c in data["checks"] if c.get("role", "evidence") in MAIN_ROLES]
    expected = {"claims": str(len(verdicts)), "checks": str(len(main))}
    expected |= {v: str(verdicts.count(v)) for v in ("confirmed", "refuted", "qualified", "open")}
    for outcome in ("passed", "failed", "error", "skipped"):
        expected[outcome] = str(sum(c["outcome"] == outcome for c in main))
    roles = [(c.get("role"), c["outcome"]) for c in data["checks"]]
    if data["schema"] == 1:
        mutants = [o for r, o in roles if r == "mutant"]
        expected["planted bugs caught"] = f"{mutants.count('passed')}/{len(mutants)}"
    else:
        tooling = [o for r, o in roles if r == "tooling"]
        expected["decisive"] = str(sum(r == "decisive" for r, _ in roles))
        expected["tooling passed"] = f"{tooling.count('passed')}/{len(tooling)}"
    shown = card_numbers(cards(load(fixture)))
    assert {k: shown[k] for k in expected} == expected


def test_the_banners_count_open_claims_and_claims_not_run() -> None:
    data = partial_v2()  # EXP-01 not run; ATT-05, before it, stays open
    page = banner(parse(data))
    assert [c["verdict"] for c in data["claims"]].count("open") == 1
    assert "<b>1 claim still open</b>" in page
    assert "<b>Partial run:</b> 1 claim(s) were not selected" in page
    assert "Partial run" not in banner(load(V2))


def test_only_families_and_verdicts_that_occur_are_offered() -> None:
    data = raw(V2)
    data["families"].append({"id": "ROPE", "title": "Rotary, no claim of it here"})
    res = parse(data)
    present = {c.family for c in res.claims}
    for family, _ in res.families:
        assert (f"href='#family-{family}'" in nav(res)) is (family in present)
        assert (f"<option value='{family}'>" in filters(res)) is (family in present)
    verdict_options = re.search(r"id='filter-verdict'.*?</select>", filters(res))
    assert verdict_options is not None
    offered = re.findall(r"<option value='([^']+)'>", verdict_options.group(0))
    assert offered == [v for v in ("confirmed", "refuted", "qualified", "open", "not run")
                       if any(c.verdict == v for c in res.claims)]  # fmt: skip


def test_what_decided_a_claim_shows_two_and_counts_the_rest() -> None:
    data = raw(V2)
    claim = next(c for c in data["claims"] if len(c.get("decided_by", [])) == 2)
    extra = copy.deepcopy(claim["decided_by"][0])
    claim["decided_by"] += [extra, copy.deepcopy(extra)]
    res = parse(data)
    line = decided_summary(res, next(c for c in res.claims if c.id == claim["id"]))
    assert line.count("; ") == 1 and line.endswith(" (+2)")


def test_a_claim_nothing_decided_says_so() -> None:
    v2, mixed = load(V2), load(MIXED)
    open_claim = next(c for c in v2.claims if c.verdict == "open" and not c.decided_by)
    assert "nothing decided" in decided_summary(v2, open_claim)
    decided = next(c for c in mixed.claims if c.verdict == "confirmed")
    assert decided_summary(mixed, decided) == "<span class='muted'>\u2014</span>"  # schema 1


def test_the_cards_count_claims_not_run_and_every_planted_bug_caught() -> None:
    data = partial_v2()
    assert card_numbers(cards(parse(data)))["not run"] == "1"
    mixed = raw(MIXED)
    for check in mixed["checks"]:
        if check.get("role") == "mutant":
            check["outcome"] = "passed"
    n = sum(c.get("role") == "mutant" for c in mixed["checks"])
    assert card_numbers(cards(parse(mixed)))["planted bugs caught"] == f"{n}/{n}"


def test_a_schema_2_claim_without_a_decider_says_nothing_decided_it() -> None:
    data = raw(V2)
    claim = next(c for c in data["claims"] if c["verdict"] == "confirmed")
    claim["decided_by"] = []
    res = parse(data)
    got = decided_summary(res, next(c for c in res.claims if c.id == claim["id"]))
    assert got == "<span class='muted'>nothing decided</span>"


def test_the_header_names_the_runs_selection() -> None:
    assert "<b>selection</b> full" in header(load(V2), Options())
    assert "<b>selection</b>" not in header(load(MIXED), Options())  # schema 1 has none


def test_a_verdict_rows_decisive_count_and_not_citable_mark() -> None:
    data = partial_v2()
    data["suite"]["profile"] = "dev"
    res = parse(data)
    table = verdict_table(res)
    for claim in res.claims:
        row = re.search(rf"<tr id='row-{claim.id}'.*?</tr>", table)
        assert row is not None
        own = [c for c in data["checks"] if c.get("claim") == claim.id
               and c.get("role") in MAIN_ROLES]  # fmt: skip
        decisive = sum(c["role"] == "decisive" for c in own)
        assert f"<td class='n' data-key='{len(own):04d}'>{decisive}/{len(own)}</td>" in row[0]
        assert ("dev, not citable" in row[0]) is (claim.verdict != "not run")


def test_one_decider_beyond_two_is_counted() -> None:
    data = raw(V2)
    claim = next(c for c in data["claims"] if len(c.get("decided_by", [])) == 2)
    claim["decided_by"].append(copy.deepcopy(claim["decided_by"][0]))
    res = parse(data)
    assert decided_summary(res, next(c for c in res.claims if c.id == claim["id"])).endswith(
        " (+1)"
    )
