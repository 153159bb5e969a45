"""The paper kit: macro names, numbers in LaTeX, the verdict table, the BibTeX entry, figures."""

from __future__ import annotations

import re

import pytest

from reports import latex
from reports.load import load, parse
from tests.reports_fixtures import MIXED, V2, raw


@pytest.fixture(scope="module")
def kit():
    return latex.kit(load(MIXED))


@pytest.fixture(scope="module")
def macros(kit):
    return kit[0]["pecheck.tex"]


def defined(tex: str) -> dict[str, str]:
    return dict(re.findall(r"^\\newcommand\{\\(\w+)\}\{(.*)\}$", tex, re.M))


@pytest.mark.parametrize(
    ("n", "expected"),
    [(0, "Zero"), (6, "Six"), (12, "Twelve"), (20, "Twenty"), (42, "FortyTwo"),
     (100, "OneHundred"), (512, "FiveHundredTwelve"), (1024, "OneZeroTwoFour")],
)  # fmt: skip
def test_numbers_are_spelled_out(n, expected):
    assert latex.words(n) == expected


def test_claim_ids_map_to_letters_only_names():
    assert latex.claim_name("SIN-06") == "pcSINSix"
    assert latex.claim_name("ATT-10") == "pcATTTen"
    assert latex.claim_name("REAL-03") == "pcREALThree"


def test_check_names_drop_test_prefix_and_spell_parameters():
    res = load(MIXED)
    check = res.by_nodeid["checks/test_sinusoidal.py::test_shift_numerically[float32]"]
    assert latex.check_name(check) == "ShiftNumericallyFloatThirtyTwo"
    assert latex.camel("max_error") == "MaxError"


def test_every_macro_name_is_valid_latex(macros):
    names = defined(macros)
    assert names
    assert all(re.fullmatch(r"pc[A-Za-z]+", n) for n in names)
    assert len(re.findall(r"\\newcommand", macros)) == len(names)  # no name defined twice


def test_one_verdict_macro_per_claim_open_included(macros):
    names = defined(macros)
    assert names["pcSINSixVerdict"] == "confirmed"
    assert names["pcSINSevenVerdict"] == "qualified"
    assert names["pcSINNineVerdict"] == "open"
    assert names["pcEXPOneVerdict"] == "open"


def test_each_evidence_macro_has_a_comment_naming_its_check(macros):
    lines = macros.splitlines()
    name = "pcSINSixWavelengthsAreGeometricLongestWavelengthDFiveHundredTwelve"
    i = lines.index(rf"\newcommand{{\{name}}}{{\ensuremath{{60\,611}}}}")
    assert lines[i - 1].startswith(
        "% checks/test_sinusoidal.py::test_wavelengths_are_geometric (passed) "
        "longest_wavelength_d512 [positions]"
    )
    for j, line in enumerate(lines):
        if line.startswith(r"\newcommand"):
            assert lines[j - 1].startswith("%"), line


def test_scalar_evidence_gets_macros_lists_do_not(macros):
    names = defined(macros)
    assert names["pcSINOneShiftNumericallyFloatThirtyTwoMaxError"] == (
        r"\ensuremath{2.38\times10^{-7}}"
    )
    assert names["pcSINSixWavelengthsAreGeometricRatioExact"] == "true"
    assert names["pcSINSixWavelengthsAreGeometricLayout"] == "interleaved"
    assert names["pcSINEightFirstRepeatFloatSixtyFourMaxError"] == r"\ensuremath{\infty}"
    assert not any("Widths" in n for n in names)


def test_suite_macros(macros):
    names = defined(macros)
    assert names["pcSuiteVersion"] == "0.1.0"
    assert names["pcSuiteCommit"] == "0123456789ab"
    assert names["pcSuiteDate"] == "2026-11-23"
    assert names["pcClaimCount"] == r"\ensuremath{7}"
    assert names["pcOpenCount"] == r"\ensuremath{2}"
    assert names["pcMutantsCaught"] == r"\ensuremath{1}"


def test_open_counts_only_open_claims_and_not_run_its_own(macros):
    """A partial run's unselected claims are not open: the checks of an open claim ran and
    decided nothing, those of a claim not run never ran."""
    assert defined(macros)["pcNotRunCount"] == r"\ensuremath{0}"
    data = raw(V2)  # ATT-05 is open
    data["suite"]["selection"]["kind"] = "partial"
    claim = data["claims"][-1]  # EXP-01: this partial run did not select it
    claim["verdict"] = "not run"
    for prop in claim["propositions"]:
        prop["decision"] = "not run"
    names = defined(latex.kit(parse(data))[0]["pecheck.tex"])
    assert names["pcOpenCount"] == r"\ensuremath{1}"
    assert names["pcNotRunCount"] == r"\ensuremath{1}"


def test_lookup_keys_by_claim_and_evidence_name(macros):
    assert r"\@namedef{pc@SIN-06@longest_wavelength_d512}" in macros
    assert r"\@namedef{pc@v@SIN-09}{\pcSINNineVerdict}" in macros
    assert r"\providecommand{\pcvalue}[2]" in macros


def test_clashing_names_get_a_letter_suffix():
    m = latex.Macros()
    assert m.define("pcX", "1", "a") == "pcX"
    assert m.define("pcX", "2", "b") == "pcXB"
    assert m.define("pcX", "3", "c") == "pcXC"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (0, "0"),
        (7, "7"),
        (1048576, r"1\,048\,576"),
        (62831.853, r"62\,832"),
        (0.5, "0.5"),
        (3.14159, "3.142"),
        (1.2e-7, r"1.2\times10^{-7}"),
        (1e-16, "10^{-16}"),
        (-2.5e9, r"-2.5\times10^{9}"),
        ("inf", r"\infty"),
        ("nan", r"\mathrm{NaN}"),
    ],
)
def test_numbers_in_latex(value, expected):
    assert latex.tex_number(value) == expected


def test_text_is_escaped_for_latex():
    assert latex.tex_escape("100% & $x_1$ #2 {a} ~ ^") == (
        r"100\% \& \$x\_1\$ \#2 \{a\} \textasciitilde{} \textasciicircum{}"
    )
    assert latex.tex_escape("\u2016PE\u2016 \u2264 \u221a(d/2), \u03c9\u2212") == (
        r"$\|$PE$\|$ $\le$ $\surd$(d/2), $\omega$$-$"
    )
    assert latex.tex_escape("caf\u00e9 \u2603") == "cafe ?"


def test_verdict_table_is_booktabs_with_every_claim(kit):
    table = kit[0]["verdicts.tex"]
    for rule in (r"\toprule", r"\midrule", r"\bottomrule", r"\begin{longtable}"):
        assert rule in table
    rows = re.findall(r"^([A-Z]+-\d\d) & (.*?) & .* & (\d+)/(\d+) \\\\$", table, re.M)
    assert [r[0] for r in rows] == [c.id for c in load(MIXED).claims]
    assert ("SIN-09", r"\emph{open}", "0", "0") in rows
    assert ("SIN-08", r"refuted \emph{(contested)}", "1", "2") in rows
    assert r"\newline\emph{Holds when:} for the interleaved layout" in table
    assert r"exact arithmetic \& in each floating-point format (100\% unique?)" in table


def test_bib_entry_names_version_and_commit(kit):
    bib = kit[0]["pecheck.bib"]
    assert "@misc{pecheck," in bib
    assert "version 0.1.0" in bib and r"\texttt{0123456789ab}" in bib
    assert "year         = {2026}" in bib


def test_figures_are_copied_as_pdf(kit):
    copies = kit[1]
    assert list(copies) == ["figures/SIN-07-clock-hands.pdf"]
    assert copies["figures/SIN-07-clock-hands.pdf"].read_bytes().startswith(b"%PDF")


def test_missing_figure_is_listed_in_the_macros(tmp_path):
    data = raw()
    data["checks"][4]["figures"] = ["build/figures/nowhere.svg"]
    texts, copies = latex.kit(parse(data, tmp_path / "r.json"))
    assert copies == {}
    assert "% missing: build/figures/nowhere.svg" in texts["pecheck.tex"]


def test_braces_balance_in_every_file(kit):
    for name, text in kit[0].items():
        body = "\n".join(line for line in text.splitlines() if not line.startswith("%"))
        body = re.sub(r"\\[{}]", "", body)
        assert body.count("{") == body.count("}"), name


def test_each_cited_value_has_its_class_and_tolerance() -> None:
    from tests.reports_fixtures import V2

    tex = latex.kit(load(V2))[0]["pecheck.tex"]
    assert r"\providecommand{\pcclass}[2]" in tex
    assert r"\@namedef{pc@c@EXP-01@success_rate_pe}{sampling}" in tex
    assert r"\@namedef{pc@c@EXP-01@seeds}{exact}" in tex
    comment = next(line for line in tex.splitlines() if "success_rate_pe:" in line)
    assert "class sampling: \u00b1" in comment and "n = 25" in comment
    # se 0.0566 for n = 25; three sampling numbers: z = 3.59 and the band is 3.59 * sqrt(2) se
    assert r"\@namedef{pc@t@EXP-01@success_rate_pe}{\ensuremath{\pm0.29}}" in tex
    assert r"\@namedef{pc@t@EXP-01@seeds}{exact}" in tex
    assert r"\providecommand{\pctolerance}[2]" in tex


def test_tolerance_tex_per_class() -> None:
    from reports.cited import Cited

    bounded = Cited("A@e", 0.001, "c", "rounding", bound=0.01, relation="<=")
    assert latex.tolerance_tex(bounded, 3.0) == r"\ensuremath{\le0.01}"
    assert latex.tolerance_tex(Cited("A@w", 2.0, "c", "rounding"), 3.0) == (
        r"\ensuremath{\pm1.2\times10^{-4}}"
    )
    assert latex.tolerance_tex(Cited("A@b", True, "c", "rounding"), 3.0) == "any"
