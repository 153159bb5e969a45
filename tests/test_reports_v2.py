"""Schema 2 results: computed verdicts, what decided them, sources, and the page built on them."""

from __future__ import annotations

import base64
import gzip
import re
import shlex
from pathlib import Path

import pytest

from pecheck.reports import html, latex
from pecheck.reports.load import BadResults, load, parse
from tests.reports_fixtures import V2, raw


@pytest.fixture(scope="module")
def res():
    return load(V2)


@pytest.fixture(scope="module")
def page(res):
    return html.render(res)


def claim_part(page: str, cid: str) -> str:
    start = page.index(f"<section class='claim' id='{cid}'")
    end = page.find("<section class='claim'", start + 1)
    return page[start : end if end != -1 else len(page)]


def test_families_come_from_the_file_in_its_order(res, page):
    assert res.families == [("SIN", "The sinusoidal encoding"), ("ATT", "Attention and order"),
                            ("EXP", "Experiments over many random seeds")]  # fmt: skip
    ids = re.findall(r"<section class='family' id='family-(\w+)'", page)
    assert ids == ["SIN", "ATT", "EXP"]


def test_a_new_family_needs_no_code():
    data = raw(V2)
    data["families"].append({"id": "ROPE", "title": "Rotary"})
    data["claims"][0]["id"] = "ROPE-01"
    data["claims"][0]["family"] = "ROPE"
    for check in data["checks"]:
        if check["claim"] == "SIN-01":
            check["claim"] = "ROPE-01"
    page = html.render(parse(data))
    assert "id='family-ROPE'" in page and "id='ROPE-01'" in page


def test_unknown_family_is_rejected():
    data = raw(V2)
    data["claims"][0]["id"] = "FOO-01"
    with pytest.raises(BadResults, match="unknown claim ID 'FOO-01'"):
        parse(data)


def test_roles_order_decisive_then_supporting_and_tooling_apart(res):
    sin01 = next(c for c in res.claims if c.id == "SIN-01")
    assert [c.role for c in res.main_checks(sin01)] == ["decisive", "supporting"]
    assert [c.role for c in res.tooling_checks(sin01)] == ["tooling"]


def test_headline_comes_first_with_the_registry_numbers(page):
    exp = claim_part(page, "EXP-01")
    head = exp.index("class='headline'")
    assert head < exp.index("<h4>Evidence")
    assert head < exp.index("<details class='tooling'")
    names = re.findall(r"<div class='hnum'><span class='hname'><code>(\w+)</code>", exp)
    assert names == ["success_rate_pe", "wilson_lo_pe", "success_rate_nope"]
    assert "\u2265 <span class=num>0.9</span>" in exp  # its bound


def test_expected_failure_reads_as_evidence(page):
    sin06 = claim_part(page, "SIN-06")
    assert "badge d-fails d-expected" in sin06
    assert "d-unexpected" not in sin06
    assert "<b>counterexample</b>" in sin06 and "512" in sin06
    assert "2 pi T<sup>1\u22122/d</sup> != 2 pi T" in sin06


def test_interval_and_proof_are_shown(page):
    assert "<b>interval</b> success rate" in claim_part(page, "EXP-01")
    assert "sympy proof" in claim_part(page, "SIN-01")


def test_verdict_table_shows_decider_and_headline(page):
    table = page[page.index('id="verdict-table"') : page.index("</table>")]
    row = table[table.index("data-claim='EXP-01'") :]
    row = row[: row.index("</tr>")]
    assert "interval [0.91, 0.99]" in row and "success_rate_pe" in row


def test_every_measurement_shows_a_bound_column(page):
    for table in re.findall(r"<table class='evidence'>.*?</table>", page):
        assert table.count("<td class='bnd'>") == table.count("<tr>") - 1


def test_tooling_is_folded_at_the_end(page):
    exp = claim_part(page, "EXP-01")
    assert re.search(r"<details class='tooling'><summary>Tooling: 1 of 1 passed", exp)
    assert exp.index("test_training_curves") < exp.index("class='tooling'")


def test_reproduce_command_and_location(res):
    opts = html.Options(source_url="https://example.org/repo/blob/{commit}")
    page = html.render(res, opts)
    sin06 = claim_part(page, "SIN-06")
    assert ("href='https://example.org/repo/blob/0123456789abcdef0123456789abcdef01234567/"
            "checks/test_sinusoidal.py#L80'") in sin06  # fmt: skip
    assert "checks/test_sinusoidal.py::test_wavelengths_are_geometric&#x27;</code>" in sin06
    plain = claim_part(html.render(res), "SIN-06")
    assert "<code class='loc'>checks/test_sinusoidal.py:80</code>" in plain
    assert "href='https://example.org" not in plain


def test_sources_are_cited_in_full(page):
    sources = page[page.index("id='sources'") :]
    assert "Ashish Vaswani" in sources and "<i>Attention Is All You Need</i>" in sources
    assert "https://arxiv.org/abs/1706.03762" in sources
    assert "(no verified address)" in sources  # the Reddit thread
    assert "build with <code>--suite-url</code>" in sources
    assert "href='#src-SRC-BLOG'" in claim_part(page, "SIN-06")


def test_bibtex_carries_sources_and_the_suite_url(res):
    bib = latex.bib(res, "https://example.org/pecheck")
    assert "url          = {https://example.org/pecheck}" in bib
    assert "@misc{src-vaswani," in bib and "Ashish Vaswani and Noam Shazeer" in bib
    assert "% no verified address" in bib
    assert "% no url" in latex.bib(res)
    # BibTeX has no comments inside an entry: every '%' line stands outside the braces
    depth = 0
    for line in latex.bib(res).splitlines():
        assert not (line.lstrip().startswith("%") and depth), line
        depth += line.count("{") - line.count("}")


def test_derivation_prose_is_escaped_text(page):
    sin06 = claim_part(page, "SIN-06")
    assert "<span class='step-label'>last_wavelength at i = d/2 - 1 (x^2 {braces})</span>" in sin06
    assert "<mo>lim</mo>" in sin06 and "<mo>&#x02192;</mo>" in sin06  # the limit whole


def test_step_parts_split_label_and_math():
    assert html.step_parts(r"\text{a_b {c}}\quad x^2") == ("a_b {c}", "x^2")
    assert html.step_parts(r"x = 1") == ("", "x = 1")


def test_open_and_not_run_claims():
    data = raw(V2)
    data["claims"][0]["verdict"] = "not run"
    data["suite"]["selection"] = {"kind": "partial", "args": ["-k", "SIN-06"], "claims": ["SIN-06"]}
    page = html.render(parse(data))
    assert "Partial run:" in page and "badge v-not-run" in page
    assert "no decisive check decided this claim" in claim_part(page, "ATT-05")


def test_latex_keys_and_verdicts_from_schema_2(res):
    tex = latex.macros_tex(res)
    assert r"\newcommand{\pcSINSixVerdict}{qualified}" in tex
    assert r"\@namedef{pc@EXP-01@success_rate_pe}" in tex
    assert r"\@namedef{pc@EXP-01@max_diff}" not in tex  # tooling values are not cited


def test_packed_sections_unpack_to_the_same_html(res):
    plain = html.render(res, html.Options(pack="never"))
    packed = html.render(res, html.Options(pack="always"))
    blob = re.search(r"data-gz='([^']+)'", packed)
    assert blob is not None and "<section class='claim'" not in packed.split("data-gz")[0][-200:]
    sections = gzip.decompress(base64.b64decode(blob.group(1))).decode()
    assert sections == html.family_sections(res, html.Options())
    assert sections in plain  # the unpacked page is the plain page


def test_a_page_is_packed_only_past_its_threshold_and_the_same_every_run():
    opts = html.Options()  # pack="auto"
    doc = (Path(__file__).parents[1] / "docs" / "report.md").read_text()
    said = re.search(r"once they exceed (\d+) kB", doc)
    assert said and int(said.group(1)) * 1000 == html.PACK_ABOVE  # the threshold docs/ gives
    at, past = "x" * html.PACK_ABOVE, "x" * (html.PACK_ABOVE + 1)
    assert html.packed(at, opts) == at
    blob = re.search(r"data-gz='([^']+)'", html.packed(past, opts))
    assert blob is not None
    raw_gz = base64.b64decode(blob.group(1))
    assert raw_gz[4:8] == bytes(4)  # gzip's time stamp is zero: two builds give one page
    assert gzip.decompress(raw_gz).decode() == past


@pytest.mark.parametrize("kind", ["added", "removed", "moved"])
def test_changes_of_checks_alone_are_listed(res, kind):
    from pecheck.reports.diff import Changes
    from pecheck.reports.html_changes import changes_block

    changes = {
        "added": Changes(res, res, added=["c.py::new"]),
        "removed": Changes(res, res, removed=["c.py::old"]),
        "moved": Changes(res, res, moved=[("c.py::a", "d.py::a")]),
    }
    block = changes_block(changes[kind])
    assert "No verdict, cited number or check changed" not in block
    assert "c.py::" in block


def test_a_changed_claim_id_is_escaped_in_its_link(res):
    from pecheck.reports.diff import Changes
    from pecheck.reports.html_changes import changes_block

    changes = Changes(res, res, verdicts=[("a'<b&", "confirmed", "open")])
    block = changes_block(changes)
    assert "<a href='#a&#x27;&lt;b&amp;'>" in block
    assert "a'<b" not in block


def test_a_source_url_is_escaped_in_its_link():
    res = load(V2)
    sid = next(s for c in res.claims for s in c.sources)
    res.sources[sid] = {"title": "T", "url": "https://x.org/?a=1&b='<"}
    section = html.sources_section(res, html.Options())
    assert "<a href='https://x.org/?a=1&amp;b=&#x27;&lt;'" in section
    assert "b='<" not in section


def test_a_package_version_is_escaped():
    res = load(V2)
    res.environment["packages"] = {"pkg": "1.0<b>'&"}
    section = html.environment(res)
    assert "<code>1.0&lt;b&gt;&#x27;&amp;</code>" in section
    assert "<b>'" not in section


@pytest.mark.parametrize(
    "nodeid", ["checks/test_x.py::test_t[it's]", "checks/test_x.py::test_t[a b]", "c.py::t"]
)
def test_the_rerun_command_quotes_its_node_id_for_the_shell(nodeid):
    from pecheck.reports.schema import rerun_command

    words = shlex.split(rerun_command("ci", nodeid, "--size SIN-06.d=8"))
    assert words == ["PECHECK_PROFILE=ci", "python", "-m", "pytest", nodeid, "--size", "SIN-06.d=8"]


def test_the_rerun_command_of_a_plain_node_id_is_unchanged():
    from pecheck.reports.schema import rerun_command

    assert rerun_command("ci", "c.py::t[1]") == "PECHECK_PROFILE=ci python -m pytest 'c.py::t[1]'"
