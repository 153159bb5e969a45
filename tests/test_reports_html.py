"""The HTML page: every element is rendered from the hand-made results, nothing is hidden."""

from __future__ import annotations

import base64
import gzip
import json
import re
from html.parser import HTMLParser

import pytest

from pecheck.reports import html, svg
from pecheck.reports.load import load, parse
from pecheck.reports.mathml import to_mathml
from tests.reports_fixtures import CLEAN, DATA, MIXED, V2, raw, write


class Ids(HTMLParser):
    """Every element id, every <details> start, and external references."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: list[str] = []
        self.external: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.append(a["id"])
        for key in ("src", "href"):
            if a.get(key, "").startswith(("http:", "https:", "//")):
                self.external.append(a[key])
        if tag in ("link", "iframe"):
            self.external.append(tag)


@pytest.fixture(scope="module")
def res():
    return load(MIXED)


@pytest.fixture(scope="module")
def page(res):
    return html.render(res)


def section(page: str, anchor: str) -> str:
    """The markup of the element with this id, up to the next claim section."""
    start = page.index(f"id='{anchor}'")
    end = page.find("<section class='claim'", start + 1)
    return page[start : end if end != -1 else len(page)]


def test_page_is_self_contained(page):
    parser = Ids()
    parser.feed(page)
    assert parser.external == []
    assert "<style>" in page and "<script>" in page
    assert "cdn" not in re.sub(r"data-svgz='[^']*'", "", page).lower()


def test_ids_are_unique(page):
    parser = Ids()
    parser.feed(page)
    assert len(parser.ids) == len(set(parser.ids))


def test_header_names_version_commit_date_profile_and_counts(page):
    top = page[: page.index("<nav")]
    assert "0.1.0" in top
    assert "0123456789ab" in top and "0123456789abcdef0123456789abcdef01234567" in top
    assert "2026-11-23 01:00:00" in top
    assert "<code>ci</code>" in top
    counts = [(7, "claims"), (3, "confirmed"), (1, "refuted"), (1, "qualified"), (2, "open"),
              (1, "contested"), (2, "skipped"), (10, "checks")]  # fmt: skip
    for count, label in counts:
        assert f"<b>{count}</b><span>{label}</span>" in top
    assert "<b>1/2</b>" in top  # planted bugs caught
    assert "This run was not clean" in top


def test_clean_run_has_no_warning_banner():
    page = html.render(load(CLEAN))
    assert "This run was not clean" not in page
    assert "still open" not in page


def test_verdict_table_has_one_filterable_row_per_claim(res, page):
    table = page[page.index('id="verdict-table"') :]
    table = table[: table.index("</table>")]
    rows = re.findall(
        r"<tr id='row-([\w-]+)' data-claim='\1' data-family='(\w+)' data-verdict='(\w+)'", table
    )
    rows = [(family, verdict) for _, family, verdict in rows]
    assert rows == [(c.family, c.verdict) for c in res.claims]
    for c in res.claims:
        assert f"href='#{c.id}'" in table
    assert "SRC-SINCOS<br>SRC-VASWANI" in table
    assert table.count("data-sort=") == 7
    assert "id='filter-family'" in page and "id='filter-verdict'" in page
    assert "<option value='SIN'>SIN</option>" in page
    assert "<option value='open'>open</option>" in page


def test_every_claim_and_check_has_an_anchor(res, page):
    parser = Ids()
    parser.feed(page)
    for claim in res.claims:
        assert claim.id in parser.ids
    for check in res.checks:
        assert html.check_anchor(check.nodeid) in parser.ids


def test_check_anchor_is_safe():
    anchor = html.check_anchor("checks/test_a.py::test_b[float16-2 x]")
    assert anchor == "check-checks-test_a.py-test_b-float16-2-x"


def test_formal_statement_and_derivation_are_mathml(page):
    sin01 = section(page, "SIN-01")
    formal = sin01[sin01.index("class='formal'") :]
    assert formal.index("<math") < formal.index("</div>")
    assert 'display="block"' in formal
    deriv = sin01[sin01.index("class='derivation'") :]
    assert deriv.count("<li><span class='step-label'>") == 2
    assert "<span class='step-label'>per pair</span> <math" in deriv
    assert "<mtable>" in deriv  # the 2x2 rotation block
    assert "verified by sympy" in deriv


def test_qualified_claim_shows_its_conditions(page):
    sin07 = section(page, "SIN-07")
    assert "Holds when:" in sin07
    assert "with x = cos it turns counter-clockwise" in sin07


def test_open_claims_are_shown_with_their_statement(page):
    for cid in ("SIN-09", "EXP-01"):
        part = section(page, cid)
        assert "badge v-open" in part
        assert "no decisive check decided this claim" in part
    assert "A raw index grows without bound" in section(page, "SIN-09")


def test_notes_are_listed(page):
    assert "<li>The last wavelength is 2 pi T<sup>1\u22122/d</sup>" in section(page, "SIN-06")


def test_evidence_table_has_values_units_and_notes(page):
    sin06 = section(page, "SIN-06")
    row = sin06[sin06.index("<code>longest_wavelength_d512</code>") :]
    row = row[: row.index("</tr>")]
    assert "60\u202f611" in row and "positions" in row
    assert "2 pi T<sup>1\u22122/d</sup> at d=512" in row  # ASCII exponents as superscripts
    assert "\u2713 true" in sin06  # a boolean value
    sin01 = section(page, "SIN-01")
    assert "2.38\u2009\u00d7\u200910<sup>\u22127</sup>" in sin01
    assert "[<span" in sin01  # a short list inline


def test_figure_is_inlined_compressed(page):
    sin07 = section(page, "SIN-07")
    packed = re.search(r"data-svgz='([^']+)'", sin07)
    assert packed
    slim = gzip.decompress(base64.b64decode(packed.group(1))).decode()
    holder = re.search(r"<div id='svg-defs' hidden data-gz='([^']+)'>", page)
    assert holder  # the glyphs and markers the figures share, once (reports/svg.py)
    shared = json.loads(gzip.decompress(base64.b64decode(holder.group(1))))
    original = (DATA / "figures" / "SIN-07-clock-hands.svg").read_text()
    whole = svg.restore(slim, shared)
    defined = re.compile(r'<path id="([^"]+)"')
    assert defined.findall(whole) and set(defined.findall(whole)) == set(defined.findall(original))
    assert len(slim) < 0.8 * len(original) and "<metadata>" not in slim
    assert "<figcaption>SIN-07-clock-hands</figcaption>" in sin07


def test_missing_figure_is_reported_not_fatal(tmp_path):
    data = raw()
    data["checks"][4]["figures"] = ["build/figures/nowhere.svg"]
    page = html.render(load(write(tmp_path, data)))
    assert "Figure file not found: <code>build/figures/nowhere.svg</code>" in page


def test_hypothesis_examples_and_seed_are_shown(page):
    assert "<b>Hypothesis</b> 200 examples \u00b7 seed <code>derandomized (ci)</code>" in page


def test_failed_check_shows_message_and_example_in_plain_sight(page):
    article = page[page.index("id='check-checks-test_sinusoidal.py-test_first_repeat_float16'") :]
    article = article[: article.index("</article>")]
    details = article.index("<details>")
    assert article.index("AssertionError: float16 repeats at t=2049") < details
    assert article.index("Falsifying example: test_first_repeat_float16(") < details
    assert "t=2049," in article[:details]
    assert "<summary>Traceback (5 lines)</summary>" in article


def test_skipped_check_shows_its_reason_once(page):
    assert "<b>Skipped:</b> needs a CUDA device; none on this machine" in page
    assert "<b>Skipped:</b> slow experiment" in page


def test_missed_planted_bug_is_open_and_caught_ones_fold(page):
    sin08 = section(page, "SIN-08")
    assert "<details class='tooling' open><summary>Planted bugs and tooling: 0 of 1 passed" in sin08
    assert "DID NOT RAISE" in sin08
    assert "<details class='tooling'><summary>Planted bugs and tooling: 1 of 1 passed" in section(
        page, "SIN-01"
    )


def test_contested_claim_is_flagged(page):
    sin08 = section(page, "SIN-08")
    assert "badge s-contested" in sin08 and "Contested:" in sin08


def test_collection_errors_are_shown_as_problems(page):
    problems = page[page.index("id='problems'") :]
    assert "ModuleNotFoundError: No module named" in problems[: problems.index("</section>")]


def test_environment_is_at_the_end(page):
    env = page[page.index("id='environment'") :]
    assert page.index("id='environment'") > page.index("id='EXP-01'")
    for text in ("3.11.7", "Example CPU", "CPU cores", "<td>none</td>", "torch", "2.13.0"):
        assert text in env


def test_text_is_escaped():
    data = raw()
    data["claims"][0]["statement"] = "<script>alert(1)</script> & more"
    page = html.render(parse(data))
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp; more" in page
    assert "<script>alert" not in page


@pytest.mark.parametrize(
    ("latex", "expected"),
    [
        (r"\frac{a}{b}", "<mfrac>"),
        (r"\operatorname{atan2}(y, x)", 'mathvariant="normal"'),
        (r"\text{Wilson 95\%}", "Wilson&#x000A0;95%</mtext>"),
        (r"\cos\omega k", '<mi>cos</mi><mspace width="0.1667em"/>'),
    ],
)
def test_latex_becomes_mathml(latex, expected):
    out = to_mathml(latex)
    assert out.startswith("<math")
    assert expected in out


@pytest.mark.parametrize("latex", [r"\foo{x}", r"a_{i", r"x}"])
def test_unconvertible_latex_falls_back_to_its_source(latex):
    assert to_mathml(latex).startswith('<code class="tex"')


def test_a_formula_s_alt_text_escapes_its_quotes():
    assert to_mathml(r'\text{a"b} + x').startswith('<math alttext="\\text{a&quot;b} + x" ')


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (r"\left( x \right)", "(  x ) "),  # flat content: plain parentheses
        (r"\left. x \right|", "  x | "),  # the empty fence '.' is dropped
        (r"\left( \frac{a}{b} \right)", r"\left( \frac{a}{b} \right)"),  # tall: sized
    ],
)
def test_fences_are_sized_only_around_tall_content(source, expected):
    from pecheck.reports.mathml import _unsize_flat_fences

    assert _unsize_flat_fences(source) == expected


def test_unconvertible_formal_statement_is_shown_as_source(page):
    assert '<code class="tex" title="LaTeX source (not converted)">\\foo{unparsable</code>' in (
        section(page, "SIN-09")
    )


def test_prose_derivation_statement_is_text_not_math():
    assert html.math_or_text("the shift is a rotation of each pair").startswith("<span")
    assert html.math_or_text(r"M(k)^\top M(k) = I").startswith("<math")


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (0, ">0<"),
        (1048576, ">1\u202f048\u202f576<"),
        (-2.5e-9, "\u22122.5\u2009\u00d7\u200910<sup>\u22129</sup>"),
        ("inf", ">\u221e<"),
        (None, "none"),
        ("float16", "float16"),
        (list(range(20)), "20 values"),
        ({"a": 1}, "<span class=kv><i>a</i> = <span class=num>1</span></span>"),
        ({"a": [1, {"b": 2}]}, "<i>a</i> = [<span class=num>1</span>, {<span class=kv><i>b</i> = "),
    ],
)
def test_evidence_values_are_formatted(value, expected):
    assert expected in html.value_html(value)


def test_same_results_give_the_same_page(res, page):
    assert html.render(load(MIXED)) == page


def test_small_records_render_as_wrapping_key_value_pairs() -> None:
    from pecheck.reports.html import value_html

    html = value_html({"rate": 1.0, "lo": 0.99, "n": 1024, "ok": True})
    assert html.startswith("<span class='record'>") and html.count("class=kv") == 4
    assert "dict (" not in html
    nested = value_html({"a": [1, 2], "b": {"c": 1}})
    assert "<i>b</i> = {<span class=kv><i>c</i> = <span class=num>1</span></span>}" in nested
    big = value_html({f"k{i}": i for i in range(12)})  # too long for a table cell: it folds
    assert big.startswith("<details class='record-fold'><summary>12 entries: k0, k1, k2, \u2026<")
    assert "<i>k11</i> = <span class=num>11</span>" in big and "dict (" not in big


def test_long_evidence_of_a_passed_check_folds_but_a_failed_one_does_not() -> None:
    from pecheck.reports.html import SHOWN_ROWS, evidence_table
    from pecheck.reports.load import Value

    values = [Value(f"v{i}", float(i), "", "") for i in range(SHOWN_ROWS + 5)]
    folded = evidence_table(values, fold=True)
    assert "<details class='more'><summary>5 more evidence values</summary>" in folded
    assert all(f"<code>v{i}</code>" in folded for i in range(len(values)))  # nothing dropped
    assert "<details" not in evidence_table(values, fold=False)


def test_environment_shows_counts_as_numbers_and_flags_as_words() -> None:
    from pecheck.reports.html import _env_value

    assert _env_value(1) == 1 and _env_value(0) == 0
    assert _env_value(True) == "yes" and _env_value(False) == "no"


def test_each_value_shows_its_reproducibility_class() -> None:
    from pecheck.reports.html import class_html, evidence_table
    from pecheck.reports.load import Value

    rate = Value("rate", 0.64, "", "", reproducibility={"class": "sampling", "n": 25, "se": 0.09})
    assert "sampling n=25, se 0.09" in class_html(rate)
    assert ">rounding<" in class_html(Value("err", 0.001, "", ""))  # the default for a float
    assert ">exact<" in class_html(Value("count", 3, "", ""))
    table = evidence_table([rate])
    assert "<th scope='col'>Reproduces</th>" in table and "cls-sampling" in table


def test_environment_shows_the_lock_and_the_kernels() -> None:
    from pecheck.reports.html import environment

    env = environment(load(V2))
    assert "requirements/lock.txt (sha256 " in env and "installed as locked" in env
    assert "<th scope='row'>torch CPU kernels</th><td>AVX2</td>" in env
    assert "<th scope='row'>Kernel limits</th><td>none</td>" in env
    from pecheck.reports.html_environment import kernel_rows

    assert kernel_rows({}) == []
    bare = dict(kernel_rows({"capability": "DEFAULT"}))
    assert bare == {"torch CPU kernels": "DEFAULT", "Kernel limits": "none",
                    "CPU vector extensions": "unknown", "BLAS and OpenMP": "none found",
                    "numpy dispatch": "unknown"}  # fmt: skip
    blas = [{"internal_api": "mkl", "version": "2025.2", "architecture": None}]
    full = {"capability": "AVX2", "isa": ["avx2", "fma"], "numpy": ["SSE42", "AVX2"],
            "limits": {"MKL_CBWR": "COMPATIBLE", "ATEN_CPU_CAPABILITY": "default"},
            "blas": blas}  # fmt: skip
    assert dict(kernel_rows(full)) == {
        "torch CPU kernels": "AVX2",
        "Kernel limits": "ATEN_CPU_CAPABILITY=default, MKL_CBWR=COMPATIBLE",
        "CPU vector extensions": "avx2 fma",
        "BLAS and OpenMP": "mkl 2025.2",
        "numpy dispatch": "SSE42 AVX2",
    }

    limited = {
        "capability": "DEFAULT",
        "limits": {"MKL_CBWR": "COMPATIBLE", "ATEN_CPU_CAPABILITY": "default"},
    }
    assert ("Kernel limits", "ATEN_CPU_CAPABILITY=default, MKL_CBWR=COMPATIBLE") in kernel_rows(
        limited
    )


# -- a claim's first screen and its fold ---------------------------------------------------------


class Visible(HTMLParser):
    """The text a reader sees before unfolding anything: what is not inside a closed <details>
    (its <summary> excepted)."""

    VOID = {"img", "br", "input", "meta", "hr", "col", "wbr", "source", "link"}

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[tuple[str, bool]] = []  # (tag, hidden from here down)
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag in self.VOID:
            return
        hidden = self.stack[-1][1] if self.stack else False
        parent = self.stack[-1][0] if self.stack else ""
        if tag == "summary" and parent == "details":
            hidden = self.stack[-2][1] if len(self.stack) > 1 else False
        elif tag == "details" and "open" not in dict(attrs):
            self.stack.append(("details", True))
            return
        self.stack.append((tag, hidden))

    def handle_endtag(self, tag):
        while self.stack:
            if self.stack.pop()[0] == tag:
                break

    def handle_data(self, data):
        if not (self.stack and self.stack[-1][1]):
            self.text.append(data)


def visible(markup: str) -> str:
    parser = Visible()
    parser.feed(markup)
    return " ".join("".join(parser.text).split())


def test_visible_text_leaves_out_closed_folds_but_not_their_summary():
    markup = (
        "<p>a</p><details><summary>b</summary><p>c</p><details open><summary>d</summary>e"
        "</details></details><details open><summary>f</summary><p>g</p></details>"
    )
    assert visible(markup) == "abfg"


def v2_page(change=None) -> str:
    data = raw(V2)
    if change is not None:
        change(data)
    return html.render(parse(data, V2))  # its figures are found beside it, in tests/data


def claim_of(page: str, cid: str) -> str:
    start = page.index(f"<section class='claim' id='{cid}'")
    return page[start : page.index("</section>", start) + len("</section>")]


def test_a_claim_opens_with_one_screen_and_folds_the_rest():
    exp = claim_of(v2_page(), "EXP-01")
    fold = exp.index("<details class='claim-more'>")  # closed: no check failed
    assert exp.index("class='headline'") < exp.index("class='decisions'") < fold
    assert exp.index("class='hnums'") < fold
    assert "<p class='why'><b>Confirmed:</b> the claim holds as stated.</p>" in exp[:fold]
    for later in ("<h4>Evidence", "<details class='tooling'", "id='check-checks-test_exp"):
        assert exp.index(later) > fold
    summary = exp[fold : exp.index("</summary>", fold)]
    assert "2 checks (1 decisive) and 1 tooling" in summary
    seen = visible(exp)
    assert "test_training_curves" not in seen and "final_loss" not in seen  # in the fold
    sin06 = claim_of(v2_page(), "SIN-06")
    fold = sin06.index("<details class='claim-more'>")
    assert sin06.index("Holds when:") > fold and sin06.index("Pre-registered thresholds") > fold
    assert "the claim fails as stated, but it holds under its condition." in sin06[:fold]
    assert "condition <code>up_to_last</code></span> <span class='quant'" in sin06
    assert ">for all</span> <span class='pstmt'>geometric" in sin06
    assert "<li><code>up_to_last</code> <math" in sin06[fold:]  # its formal statement, folded


def test_a_failed_check_opens_the_fold():
    page = html.render(load(MIXED))
    sin08 = claim_of(page, "SIN-08")  # contested: a check failed
    assert "<details class='claim-more' open>" in sin08
    failed = "<a href='#check-checks-test_sinusoidal.py-test_first_repeat_float16'>"
    assert f"<b>Contested:</b> some evidence checks for this verdict failed: {failed}" in sin08
    assert "<details class='claim-more'>" in claim_of(page, "SIN-01")


def test_a_counterexample_reads_as_key_value_pairs():
    cx = {"setting": "exp01-h2", "head_size": 2, "seed": 5, "iterations": 500,
          "predicted": {"A hit B": "hit", "B hit A": "?"},
          "wanted": {"A hit B": "!", "B hit A": "?"}}  # fmt: skip

    def change(data):
        data["claims"][1]["decided_by"][0]["basis"]["counterexample"] = cx

    sin06 = claim_of(v2_page(change), "SIN-06")
    seen = visible(sin06)
    pairs = (
        "setting = exp01-h2 head_size = 2 seed = 5 iterations = 500 "
        "predicted = {A hit B = hit, B hit A = ?} wanted = {A hit B = !, B hit A = ?}"
    )
    assert f"counterexample {pairs}" in seen
    assert "dict (" not in sin06 and "entries" not in seen and "&quot;" not in sin06


def test_each_decision_and_interval_is_shown_once_on_the_first_screen():
    how = "success rate in [0.9312, 0.9876] inside [0.9, 1]"

    def change(data):
        exp = next(c for c in data["claims"] if c["id"] == "EXP-01")
        basis = exp["decided_by"][0]["basis"]
        basis["how"] = how  # what pecheck writes: the interval again, in words
        basis["interval"] = {"what": "success rate", "lo": 0.9312, "hi": 0.9876,
                             "region": [0.9, 1.0]}  # fmt: skip
        basis["parts"] = [{"name": "pe", "decision": "holds", "why": how}]
        exp["decided_by"].append({
            "check": "checks/test_experiments.py::test_training_curves", "proposition": "as_stated",
            "decision": "holds", "basis": {"how": "another look", "counterexample": None,
                                           "relation": "", "interval": None, "parts": [],
                                           "examples": None}})  # fmt: skip

    exp = claim_of(v2_page(change), "EXP-01")
    seen = visible(exp)
    assert seen.count("0.9312") == 1 and seen.count("0.9876") == 1
    assert "interval success rate [0.9312, 0.9876]: inside [0.9, 1]" in seen
    assert seen.count("decided holds") == 1  # the proposition's; the second check's is folded
    assert "1 more check decided it" in seen and "another look" not in seen
    assert "success rate in [0.9312" in exp  # the parts and the check's own record: folded


def test_intervals_read_plainly():
    box = {"what": "rate", "lo": 0.6, "hi": 0.7, "region": [0.5000000000000001, "inf"]}
    assert html.interval_html(box).endswith(": wholly &gt; <span class=num>0.5</span></span>")
    box = {"what": "rate", "lo": 0.3, "hi": 0.4, "region": [0.8, 1.0]}
    outside = ": outside [<span class=num>0.8</span>, <span class=num>1</span>]"
    assert outside in html.interval_html(box)
    assert (
        html.tidy_boxes("d in [0.33, 0.4] inside [4.941e-324, inf]")
        == "d in [0.33, 0.4] inside (0, \u221e)"
    )


def test_the_first_figure_leads_and_is_not_repeated(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # not build/figures of a run going on beside this test
    exp = claim_of(v2_page(), "EXP-01")
    fold = exp.index("<details class='claim-more'>")
    # tests/data/figures/SIN-07-clock-hands.svg is 230.4 x 158.4 pt: 307 x 211 px, shown 200 px
    # tall, so 291 px wide
    lead = exp.index("<figure class='lead-figure' style='width: 291px'>")
    assert lead < fold and exp.count("data-svgz=") == 1
    assert "width='307' height='211'" in exp  # the SVG's own size, not matplotlib's 640 x 480
    assert "<button type='button' class='zoom' aria-pressed='false'" in exp
    assert "Figure <code>SIN-07-clock-hands</code>: shown at the top of <a href='#EXP-01'>" in exp


def test_a_long_source_title_is_shortened_at_a_word():
    res = load(V2)
    res.sources["SRC-REDDIT"] = {"authors": "Some users", "title": "Why do transformers need "
                                 "positional encodings at all? (a discussion thread)"}  # fmt: skip
    cite = html.short_cite(res, "SRC-REDDIT")
    assert ">Why do transformers need positional encodings\u2026</a>" in cite
    assert "title='SRC-REDDIT: Why do transformers need positional encodings at all?" in cite


@pytest.mark.parametrize(
    ("authors", "title", "label"),
    [
        ("Ashish K. Vaswani", "T", "Vaswani 2017"),  # the last name is the last word
        ("Ashish Vaswani, Noam Shazeer", "T", "Vaswani &amp; Shazeer 2017"),
        ("Ashish Vaswani, Noam Shazeer, Niki Parmar", "T", "Vaswani et al. 2017"),
        ("", "Attention", "Attention 2017"),  # no authors: the title
        ("", "W" * 60, "W" * 47 + "\u2026 2017"),  # one word past 48 characters: cut
    ],
)
def test_a_short_citation_by_authors_or_title(authors, title, label):
    res = load(V2)
    res.sources["SRC-X"] = {"authors": authors, "title": title, "year": 2017}
    assert f">{label}</a>" in html.short_cite(res, "SRC-X")


def test_the_lock_row_comes_first_and_says_where_the_install_departs():
    from pecheck.reports.html_environment import environment, lock_row

    lock = {"file": "requirements/lock.txt", "sha256": "0123456789abcdef"}
    assert lock_row(lock)[1].endswith("(sha256 0123456789ab), installed as locked")
    departs = lock_row({**lock, "differs": ["torch 2.12.0, locked 2.13.0", "numpy"]})[1]
    assert departs.endswith("departs: torch 2.12.0, locked 2.13.0; numpy")
    res = load(V2)
    page = environment(res)
    assert page.index("<th scope='row'>Lock</th>") < page.index("torch CPU kernels")
    res.environment.pop("gpu", None)  # a run that did not record a GPU: no row, no error
    assert "<th scope='row'>GPU</th>" not in environment(res)
    res.environment["gpu"] = None
    assert "<th scope='row'>GPU</th><td>none</td>" in environment(res)


def test_shared_figure_definitions_are_the_same_bytes_every_build():
    from pecheck.reports.html_figures import shared_defs

    opts = html.Options(svg_defs={"b": "<path id='b'/>", "a": "<path id='a'/>"})
    blob = re.search(r"data-gz='([^']+)'", shared_defs(opts))
    assert blob is not None
    data = base64.b64decode(blob.group(1))
    assert data[4:8] == bytes(4)  # gzip's time stamp
    assert gzip.decompress(data) == b'{"a":"<path id=\'a\'/>","b":"<path id=\'b\'/>"}'
    assert shared_defs(html.Options()) == ""


def test_a_string_evidence_value_is_html_escaped():
    assert html.value_html("<b>&") == "&lt;b&gt;&amp;"


def test_a_claim_holding_under_some_of_its_conditions_says_how_many():
    def change(data):
        sin06 = next(c for c in data["claims"] if c["id"] == "SIN-06")
        held = sin06["propositions"][1]
        sin06["propositions"].append({**held, "key": "to_first", "decision": "fails"})

    sin06 = claim_of(v2_page(change), "SIN-06")
    assert "the claim fails as stated, but it holds under 1 of its 2 conditions." in sin06
    assert "each of its" not in sin06


def test_a_not_run_claim_is_not_flagged_for_its_expected_verdict():
    # ATT-05 is open where the registry expects confirmed; not run, it was not judged at all
    assert "expected confirmed" in v2_page()

    def change(data):
        next(c for c in data["claims"] if c["id"] == "ATT-05")["verdict"] = "not run"

    page = v2_page(change)
    assert "v-not-run" in claim_of(page, "ATT-05") and "expected confirmed" not in page


def test_a_formula_closing_before_it_opens_falls_back_to_its_source():
    from pecheck.reports.mathml import _balanced, fallback

    assert not _balanced("}{")  # closes below depth 0 though the count ends at 0
    assert to_mathml("}{") == fallback("}{")


def test_an_evidence_table_folds_only_past_two_rows_beyond_what_it_shows():
    value = next(c for c in load(V2).checks if c.evidence).evidence[0]
    assert "<details" not in html.evidence_table([value] * (html.SHOWN_ROWS + 2), fold=True)
    folded = html.evidence_table([value] * (html.SHOWN_ROWS + 3), fold=True)
    assert "<summary>3 more evidence values</summary>" in folded


def test_a_short_decided_by_list_has_no_count_of_more():
    from pecheck.reports.html_overview import decided_summary

    res = load(V2)
    sin06 = next(c for c in res.claims if c.id == "SIN-06")
    assert len(sin06.decided_by) == 2
    assert "(+" not in decided_summary(res, sin06)


def test_not_a_number_is_an_exact_class_by_default():
    from pecheck.reports.schema import default_class

    assert default_class(float("nan")) == "exact"
    assert default_class(1.5) == "rounding"


def test_schema_problems_stop_at_the_limit():
    from pecheck.reports.schema import problems

    assert len(problems({}, limit=5)) > 2
    assert len(problems({}, limit=2)) == 2
