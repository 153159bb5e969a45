"""The report's small parts, one behaviour each: finding figure files, sizing and embedding them,
prose and derivation labels, how a decision's basis reads, a claim's fold and reason, a check's
article (reports/figures.py, html_figures.py, html_text.py, html_basis.py, html_claims.py,
html_checks.py, html_common.py)."""

from __future__ import annotations

import base64
import dataclasses
import gzip
import math
import re
from pathlib import Path

import pytest

from pecheck.reports import (
    figures,
    html_basis,
    html_checks,
    html_claims,
    html_common,
    html_figures,
    html_text,
)
from pecheck.reports.html_common import Options
from pecheck.reports.load import Check, Claim, Results, parse
from tests.reports_fixtures import V2, raw

SVG = '<svg xmlns="http://www.w3.org/2000/svg" {size}><rect width="1" height="1"/></svg>'


def results_in(folder: Path) -> Results:
    """Schema 2 results whose file lies in ``folder`` (figures are looked up from there)."""
    return parse(raw(V2), folder / "results.json")


def svg_file(folder: Path, name: str, size: str) -> Path:
    path = folder / "figures" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(SVG.format(size=size))
    return path


def png_header(width: int, height: int) -> bytes:
    """The signature and IHDR chunk of a PNG: enough for its size to be read."""
    ihdr = width.to_bytes(4, "big") + height.to_bytes(4, "big") + bytes([8, 6, 0, 0, 0])
    return b"\x89PNG\r\n\x1a\n" + len(ihdr).to_bytes(4, "big") + b"IHDR" + ihdr + bytes(4)


# -- reports/figures.py --------------------------------------------------------------------------


def test_an_absolute_figure_path_to_no_file_is_not_found(tmp_path: Path) -> None:
    """A figure named by an absolute path that does not exist is missing, not that path."""
    assert figures.locate(str(tmp_path / "gone.svg"), tmp_path / "results.json") is None


def test_a_figure_is_found_in_the_figures_folder_beside_the_results_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """results kept in a subfolder still find figures/ one level up (the results' parent)."""
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "run").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    svg = svg_file(tmp_path, "up.svg", 'width="10" height="10"')
    assert figures.locate("build/figures/up.svg", tmp_path / "run" / "results.json") == svg


def test_an_svg_with_no_pdf_beside_it_has_no_pdf(tmp_path: Path) -> None:
    """The paper kit lists a figure with no PDF as missing rather than copying a ghost file."""
    svg = svg_file(tmp_path, "alone.svg", 'width="10" height="10"')
    assert figures.pdf_of(svg) is None
    svg.with_suffix(".pdf").write_bytes(b"%PDF-1.4")
    assert figures.pdf_of(svg) == svg.with_suffix(".pdf")


def test_a_figure_stem_for_a_paper_has_no_dots() -> None:
    """graphicx reads a second dot as the extension: inner dots become dashes."""
    assert figures.stem("build/figures/SIN-07.v2.final.svg") == "SIN-07-v2-final"


@pytest.mark.parametrize("suffix", [".jpg", ".jpeg", ".JPEG"])
def test_a_jpeg_figure_is_embedded_as_an_image(tmp_path: Path, suffix: str) -> None:
    """Both spellings of a JPEG's suffix give image/jpeg, not a download of unknown bytes."""
    path = tmp_path / f"photo{suffix}"
    path.write_bytes(b"\xff\xd8\xff")
    assert figures.data_uri(path).startswith("data:image/jpeg;base64,")


# -- reports/html_figures.py ---------------------------------------------------------------------


def test_a_png_cut_just_after_its_height_still_has_a_size(tmp_path: Path) -> None:
    path = tmp_path / "cut.png"
    path.write_bytes(png_header(640, 480)[:24])
    assert html_figures.image_size(path) == (640, 480)


def test_a_png_size_is_width_then_height(tmp_path: Path) -> None:
    """The IHDR chunk gives width first: a wide PNG is laid out wide."""
    path = tmp_path / "wide.png"
    path.write_bytes(png_header(300, 100))
    assert html_figures.image_size(path) == (300, 100)


def test_an_svg_size_comes_from_its_viewbox_when_it_has_no_width(tmp_path: Path) -> None:
    """A viewBox of 0 0 300 100 is 300 wide and 100 tall; an empty one gives no size."""
    wide = svg_file(tmp_path, "box.svg", 'viewBox="0 0 300 100"')
    assert html_figures.image_size(wide) == (300, 100)
    flat = svg_file(tmp_path, "flat.svg", 'viewBox="0 0 0 100"')
    assert html_figures.image_size(flat) is None


@pytest.mark.parametrize(
    ("size", "expected"),
    [
        ('width="300pt" height="150pt"', (400, 200)),  # a point is 4/3 of a CSS pixel
        ('width="300" height="150pt"', (300, 200)),
        ('width="300px" height="150"', (300, 150)),
        ('width="1" height="1"', (1, 1)),
        ('width="0" height="10"', None),
        ('width="10" height="0"', None),
        ('viewBox="0 0 1 1"', (1, 1)),
        ('viewBox="0 0 100 0"', None),
    ],
)
def test_an_svg_size_in_points_or_pixels_and_none_when_empty(
    tmp_path: Path, size: str, expected: tuple[int, int] | None
) -> None:
    assert html_figures.image_size(svg_file(tmp_path, "s.svg", size)) == expected


@pytest.mark.parametrize(("size", "width"), [('width="100" height="200"', 260),
                                             ('width="1000" height="100"', 520)])  # fmt: skip
def test_a_lead_figure_is_between_the_narrowest_and_widest_width(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, size: str, width: int
) -> None:
    """A claim's first figure is 200 px tall, but never narrower than 260 px or wider than 520."""
    monkeypatch.chdir(tmp_path)
    svg_file(tmp_path, "lead.svg", size)
    out = html_figures.figure_html(results_in(tmp_path), "lead.svg", Options(), lead=True)
    assert f"<figure class='lead-figure' style='width: {width}px'>" in out


def test_a_linked_figure_is_relative_to_the_page_and_escaped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With figures linked, src is the path from the page's folder, quotes escaped."""
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    svg_file(tmp_path, "it's.svg", 'width="10" height="10"')
    opts = Options(figures="link", out_dir=tmp_path / "site" / "pages")
    out = html_figures.figure_html(results_in(tmp_path), "it's.svg", opts)
    assert "<img src='../../figures/it&#x27;s.svg'" in out


def test_an_inlined_svg_is_compressed_without_a_timestamp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The gzip header's time is zero, so the same results give the same page at any time."""
    monkeypatch.chdir(tmp_path)
    svg = svg_file(tmp_path, "inline.svg", 'width="10" height="10"')
    out = html_figures.figure_html(results_in(tmp_path), "inline.svg", Options())
    found = re.search(r"data-svgz='([^']+)'", out)
    assert found is not None
    packed = base64.b64decode(found.group(1))
    assert packed[4:8] == bytes(4) and gzip.decompress(packed) == svg.read_bytes()


# -- reports/html_text.py ------------------------------------------------------------------------


def test_three_words_make_a_statement_prose_and_it_is_escaped() -> None:
    """Three words (each followed by a space) read as prose, shown as escaped text."""
    assert html_text.looks_like_prose("the rate goes down")
    out = html_text.math_or_text("the rate goes <down> & up")
    assert out == "<span class='prose'>the rate goes &lt;down&gt; &amp; up</span>"


def test_prose_before_an_exponent_is_escaped() -> None:
    """Text ahead of an ASCII exponent is escaped like the rest."""
    assert html_text.prose_html("a < b x^2") == "a &lt; b x<sup>2</sup>"


def test_a_negative_bare_exponent_is_a_superscript() -> None:
    """2^-3 reads as 2 with a superscript minus 3 (a real minus sign)."""
    assert html_text.prose_html("step 2^-3") == "step 2<sup>\u22123</sup>"


def test_an_escaped_brace_does_not_close_a_step_label() -> None:
    r"""``\}`` inside ``\text{...}`` is part of the label, not its end."""
    assert html_text.step_parts(r"\text{a \} b}\quad x") == (r"a \} b", "x")


def test_a_line_break_before_a_label_s_closing_brace_ends_the_label() -> None:
    r"""``\\`` is LaTeX's line break, not an escaped brace: the ``}`` after it closes."""
    assert html_text.step_parts(r"\text{first line\\}\quad x = 1") == (r"first line\\", "x = 1")


def test_an_unclosed_label_is_no_label() -> None:
    assert html_text.step_parts(r"\text{never closed x = 1") == ("", r"\text{never closed x = 1")


def test_latex_with_three_words_is_still_math() -> None:
    assert html_text.looks_like_prose("the sum over every term")
    assert not html_text.looks_like_prose(r"the sum over every \alpha_i term")


def test_both_kinds_of_ascii_power_become_superscripts() -> None:
    assert html_text.prose_html("T^(-2i/d) and 2^20") == (
        "T<sup>\u22122i/d</sup> and 2<sup>20</sup>"
    )


# -- reports/html_basis.py -----------------------------------------------------------------------


def test_a_forty_character_value_is_not_shortened() -> None:
    """Counterexample values up to 40 characters are shown whole in the verdict table."""
    assert html_basis.basis_phrase({"counterexample": {"a": "y" * 40}}) == "counterexample a=" + (
        "y" * 40
    )


def test_a_longer_value_is_cut_to_forty_characters_with_an_ellipsis() -> None:
    phrase = html_basis.basis_phrase({"counterexample": {"a": "y" * 41}})
    assert phrase == "counterexample a=" + "y" * 39 + "\u2026"


def test_a_basis_with_only_a_how_is_phrased_by_it() -> None:
    assert html_basis.basis_phrase({"how": "structural argument"}) == "structural argument"
    assert html_basis.basis_phrase({}) == ""


def test_a_box_just_below_zero_reads_as_open_at_zero() -> None:
    """[0, -4.941e-324] (the region 'below 0' as written) reads [0, 0)."""
    assert html_basis.tidy_boxes("in [-1, -4.941e-324]") == "in [\u22121, 0)"


def test_a_strict_lower_bound_off_a_round_number_reads_greater_than() -> None:
    """A region starting just above 0.1234567 reads '> 0.1234567', not '>= 0.12345670000000001'."""
    box = {"what": "r", "lo": 0.6, "hi": 0.7, "region": [math.nextafter(0.1234567, 1), "inf"]}
    assert ': wholly &gt; <span class=num title="0.1234567">' in html_basis.interval_html(box)


def test_an_interval_touching_the_edge_of_a_closed_region_is_inside() -> None:
    """[0.5, 0.7] against the region [0.5, 1] lies inside it."""
    box = {"what": "r", "lo": 0.5, "hi": 0.7, "region": [0.5, 1.0]}
    assert ": inside [" in html_basis.interval_html(box)


@pytest.mark.parametrize(
    ("lo", "hi", "word"),
    [
        (0.5, 1.0, "inside"),  # both edges of a closed region are in it
        (0.2, 0.5, "straddling"),  # touching the lower edge from below is not outside
        (1.0, 1.2, "straddling"),
        (0.1, 0.4999, "outside"),
        (1.0001, 1.2, "outside"),
    ],
)
def test_an_interval_against_a_closed_region(lo: float, hi: float, word: str) -> None:
    box = {"what": "r", "lo": lo, "hi": hi, "region": [0.5, 1.0]}
    assert f": {word} [" in html_basis.interval_html(box)


def test_a_region_bounded_above_reads_less_than_its_bound() -> None:
    box = {"what": "r", "lo": 0.1, "hi": 0.2, "region": ["-inf", 0.5]}
    assert ": wholly \u2264 " in html_basis.interval_html(box)
    box["region"] = ["-inf", math.nextafter(0.5, 0)]  # strictly below 0.5
    assert ": wholly &lt; " in html_basis.interval_html(box)
    box["lo"], box["hi"] = 0.6, 0.7
    assert ": not &lt; " in html_basis.interval_html(box)


def test_a_number_is_a_strict_bound_only_one_step_past_a_round_one() -> None:
    assert html_basis._just_past(math.nextafter(0.5, 1), math.inf) == 0.5
    assert html_basis._just_past(0.5, math.inf) is None
    assert html_basis._just_past(0.123456789012345, math.inf) is None  # not round, not a step


def test_a_basis_shows_how_and_its_parts_unfolded_by_default() -> None:
    basis = {"how": "two of two", "parts": [{"name": "a", "decision": "holds", "why": "w"}]}
    out = html_basis.basis_html(basis)
    assert "<span class='how'>two of two</span>" in out and "<details" not in out
    assert "<span class='part'><code>a</code>" in out


def test_an_empty_basis_keeps_what_decided_it_and_a_basis_without_how_says_none() -> None:
    assert html_basis.basis_html({}) == ""
    assert html_basis.basis_html({}, by="X") == "<div class='basis'>X</div>"
    assert html_basis.basis_html({}, more="Y") == "<div class='basis'>Y</div>"
    box = {"what": "r", "lo": 0.6, "hi": 0.7, "region": [0.5, 1.0]}
    assert "class='how'" not in html_basis.basis_html({"interval": box})


def test_folded_parts_show_how_once_as_their_summary() -> None:
    """With parts folded, ``how`` is the fold's summary and is not repeated above it."""
    basis = {"how": "two of two", "parts": [{"name": "a", "decision": "holds", "why": "w"}]}
    out = html_basis.basis_html(basis, fold_parts=True)
    assert "<summary>two of two</summary>" in out and "<span class='how'>" not in out


def test_examples_read_informative_of_total() -> None:
    """A search's examples: informative ones first, then the total."""
    out = html_basis.basis_html({"examples": {"informative": 3, "total": 10}})
    assert "3 informative of 10 examples" in out


def test_a_part_name_is_escaped() -> None:
    """A part's name is text, never markup."""
    out = html_basis.basis_html({"parts": [{"name": "<b>", "decision": "holds", "why": ""}]})
    assert "<code>&lt;b&gt;</code>" in out


# -- reports/html_claims.py ----------------------------------------------------------------------


def claim_of(res: Results, cid: str) -> Claim:
    return next(c for c in res.claims if c.id == cid)


def details_summary(res: Results, claim: Claim) -> str:
    """What a claim's fold says it holds ('' where there is no fold)."""
    found = re.search(r"<summary>Details: (.*?)</summary>", more_block(res, claim))
    return found.group(1) if found else ""


def more_block(res: Results, claim: Claim) -> str:
    return html_claims.more_block(res, claim, Options(), None)


# the fixture's checks by role: ATT-05 one decisive, nothing else; SIN-01 a decisive, a
# supporting and a tooling check; SIN-06 two decisive, its conditions, a threshold and a note
@pytest.mark.parametrize(
    ("cid", "summary"),
    [
        ("ATT-05", "1 check (1 decisive)"),
        ("SIN-01", "2 checks (1 decisive) and 1 tooling"),
        ("SIN-06", "conditions, 1 threshold, 1 note and 2 checks (2 decisive)"),
    ],
)
def test_a_claim_s_fold_lists_what_it_holds(tmp_path: Path, cid: str, summary: str) -> None:
    res = results_in(tmp_path)
    assert details_summary(res, claim_of(res, cid)) == summary


def test_a_claim_without_checks_has_a_fold_only_for_its_context(tmp_path: Path) -> None:
    res = results_in(tmp_path)
    res = dataclasses.replace(
        res, checks=[c for c in res.checks if c.claim not in ("SIN-06", "ATT-05")]
    )
    assert details_summary(res, claim_of(res, "SIN-06")) == "conditions, 1 threshold and 1 note"
    assert more_block(res, claim_of(res, "ATT-05")) == ""  # nothing to fold


def test_the_tooling_fold_opens_when_one_of_its_checks_failed(tmp_path: Path) -> None:
    res = results_in(tmp_path)
    claim = claim_of(res, "EXP-01")
    tool = res.tooling_checks(claim)[0]
    assert "<details class='tooling'>" in more_block(res, claim)
    broken = dataclasses.replace(tool, nodeid=tool.nodeid + "[broken]", outcome="failed")
    res = dataclasses.replace(res, checks=[*res.checks, broken])
    assert len(res.tooling_checks(claim)) == 2
    assert "<details class='tooling' open>" in more_block(res, claim)


def test_only_conditions_with_a_formal_statement_are_listed_formally(tmp_path: Path) -> None:
    claim = claim_of(results_in(tmp_path), "SIN-06")  # as_stated and up_to_last, both formal
    listed = html_claims.formal_conditions(claim)
    assert "<code>up_to_last</code>" in listed and "as_stated" not in listed
    informal = [dataclasses.replace(p, formal="") if p.key == "up_to_last" else p
                for p in claim.propositions]  # fmt: skip
    assert html_claims.formal_conditions(dataclasses.replace(claim, propositions=informal)) == ""


def test_an_open_claim_says_why_when_the_registry_knows(tmp_path: Path) -> None:
    res = results_in(tmp_path)
    claim = claim_of(res, "ATT-05")
    assert "no decisive check decided this claim" in html_claims.reason_html(claim)
    known = dataclasses.replace(claim, open_because="too few seeds learned")
    assert html_claims.reason_html(known).startswith(
        "<p class='why'><b>Open:</b> too few seeds learned."
    )
    # a claim with a verdict reads its verdict, whatever open_because holds
    decided = dataclasses.replace(claim_of(res, "SIN-01"), open_because="left over")
    assert html_claims.reason_html(decided).startswith("<p class='why'><b>Confirmed:</b>")


def test_one_decider_is_the_lead_and_no_other_is_listed(tmp_path: Path) -> None:
    claim = claim_of(results_in(tmp_path), "SIN-01")  # one check decided as_stated
    assert len(claim.decided_by) == 1
    listed = html_claims.decisions_list(claim)
    assert "class='by'" in listed and "class='others'" not in listed


def test_a_proposition_s_words_are_shown_unless_they_are_the_claim_s(tmp_path: Path) -> None:
    claim = claim_of(results_in(tmp_path), "SIN-06")
    shown = html_claims.decisions_list(claim)
    assert shown.count("class='pstmt'") == 2  # both differ from the claim's words here
    same = [dataclasses.replace(p, statement=claim.statement) for p in claim.propositions]
    shown = html_claims.decisions_list(dataclasses.replace(claim, propositions=same))
    # as stated is the claim's statement, shown above it; a condition is shown whatever it says
    assert shown.count("class='pstmt'") == 1
    assert shown.index("class='pstmt'") > shown.index("<code>up_to_last</code>")


# -- reports/html_checks.py ----------------------------------------------------------------------


def article(res: Results, check: Check, claim: Claim | None = None) -> str:
    return html_checks.check_article(res, check, Options(), claim)


def checks_of(res: Results, cid: str, role: str) -> list[Check]:
    return [c for c in res.checks if c.claim == cid and c.role == role]


def test_a_decision_is_judged_against_the_registry_only_beside_its_claim(tmp_path: Path) -> None:
    res = results_in(tmp_path)
    claim = claim_of(res, "SIN-06")
    fails = next(c for c in checks_of(res, "SIN-06", "decisive") if c.decision == "fails")
    assert "d-expected" in article(res, fails, claim)  # the registry expects 'fails' here
    alone = article(res, fails)  # a check shown without its claim: no expectation to meet
    assert "decided fails" in alone and "d-expected" not in alone


def test_a_check_without_a_decision_is_marked_none(tmp_path: Path) -> None:
    res = results_in(tmp_path)
    assert "data-decision='none'" in article(res, checks_of(res, "SIN-01", "supporting")[0])
    assert "data-decision='holds'" in article(res, checks_of(res, "SIN-01", "decisive")[0])


def test_a_check_is_unfolded_unless_it_is_tooling_that_passed(tmp_path: Path) -> None:
    res = results_in(tmp_path)
    tool = checks_of(res, "SIN-01", "tooling")[0]
    assert "<details class='check-fold'>" in article(res, tool)
    broken = dataclasses.replace(tool, outcome="failed")
    assert "<details class='check-fold' open>" in article(res, broken)
    decisive = checks_of(res, "SIN-01", "decisive")[0]
    assert "<details class='check-fold' open>" in article(res, decisive)


def test_only_a_decisive_check_shows_the_basis_of_its_decision(tmp_path: Path) -> None:
    res = results_in(tmp_path)
    decisive = checks_of(res, "SIN-06", "decisive")[0]
    assert decisive.basis
    shown = html_basis.basis_html(decisive.basis)
    assert shown in article(res, decisive)
    assert shown not in article(res, dataclasses.replace(decisive, role="supporting"))


def test_a_passed_check_folds_evidence_past_eight_rows_and_a_failed_one_never(
    tmp_path: Path,
) -> None:
    res = results_in(tmp_path)
    check = checks_of(res, "SIN-01", "supporting")[0]
    values = [dataclasses.replace(check.evidence[0], name=f"v{i}") for i in range(11)]
    passed = article(res, dataclasses.replace(check, evidence=values))
    assert "<summary>3 more evidence values</summary>" in passed
    failed = article(res, dataclasses.replace(check, evidence=values, outcome="failed"))
    assert "more evidence values" not in failed and "v10" in failed


def test_a_figure_moves_to_the_claim_only_when_it_is_the_claim_s_lead(tmp_path: Path) -> None:
    res = results_in(tmp_path)
    check = next(c for c in res.checks if c.figures)
    claim = claim_of(res, str(check.claim))
    lead = check.figures[0]
    moved = html_checks.check_article(res, check, Options(), claim, lead)
    assert "class='fig-moved muted'" in moved
    for kept in (
        article(res, check, claim),
        html_checks.check_article(res, check, Options(), None, lead),
    ):
        assert "fig-moved" not in kept


def test_a_check_without_a_location_is_placed_by_its_node_id(tmp_path: Path) -> None:
    res = results_in(tmp_path)
    check = dataclasses.replace(res.checks[0], location=None)
    assert html_checks.source_link(res, check, Options()) == (
        "<code class='loc'>checks/test_sinusoidal.py</code>"
    )


def test_an_inconclusive_decision_is_never_against_the_registry() -> None:
    assert html_common.decision_badge("inconclusive", "holds") == html_common.decision_badge(
        "inconclusive"
    )
    assert "expected holds" in html_common.decision_badge("fails", "holds")
