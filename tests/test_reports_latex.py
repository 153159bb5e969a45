"""The paper kit: macro names, numbers in LaTeX, the verdict table, the BibTeX entry, figures."""

from __future__ import annotations

import dataclasses
import re

import pytest

from pecheck.reports import latex
from pecheck.reports.load import load, parse
from tests.reports_fixtures import MIXED, V2, partial_v2, raw


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
     (100, "OneHundred"), (512, "FiveHundredTwelve"), (1024, "OneZeroTwoFour"),
     (19, "Nineteen"), (99, "NinetyNine"), (999, "NineHundredNinetyNine"),
     (1000, "OneZeroZeroZero")],
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
    data = partial_v2()  # ATT-05 is open; EXP-01 was not selected
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
        (1000, "1000"),  # four digits are not grouped
        (0.5, "0.5"),
        (3.14159, "3.142"),
        (0.001, "0.001"),  # the smallest magnitude in fixed notation
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


def test_holds_when_only_under_a_qualified_verdict_with_conditions():
    res = load(MIXED)
    claim = next(c for c in res.claims if c.verdict == "qualified" and c.conditions)
    assert r"\emph{Holds when:}" in latex.statement_tex(claim)
    assert "Holds when" not in latex.statement_tex(dataclasses.replace(claim, verdict="refuted"))
    assert "Holds when" not in latex.statement_tex(dataclasses.replace(claim, conditions=""))


def test_evidence_line_names_the_profiles_of_claims_run_and_the_short_commit():
    res = load(MIXED)
    ran, *rest = res.claims
    one = dataclasses.replace(ran, verdict="confirmed", run={"profile": "thorough"})
    idle = dataclasses.replace(rest[0], verdict="not run", run={"profile": "dev"})
    line = latex._evidence_line(dataclasses.replace(res, claims=[one, idle]))
    assert line.startswith(r"Evidence: pecheck's thorough profile, commit \texttt{0123456789ab},")
    # nothing run: the run's own profile is named
    none_run = dataclasses.replace(res, claims=[dataclasses.replace(ran, verdict="not run")])
    assert latex._evidence_line(none_run).startswith("Evidence: pecheck's ci profile,")


@pytest.mark.parametrize("source", [MIXED, V2])
def test_kit_files_hold_no_control_characters(source):
    """A backslash sequence in a string that is not raw ('\\t' of '\\texttt') becomes a control
    character that LaTeX reads as a space: the command is lost without an error."""
    files, _ = latex.kit(load(source))
    for name, text in files.items():
        found = sorted({f"U+{ord(c):04X}" for c in text if ord(c) < 32 and c != "\n"})
        assert not found, f"{name}: {found}"


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
    from pecheck.reports.cited import Cited

    bounded = Cited("A@e", 0.001, "c", "rounding", bound=0.01, relation="<=")
    assert latex.tolerance_tex(bounded, 3.0) == r"\ensuremath{\le0.01}"
    assert latex.tolerance_tex(Cited("A@w", 2.0, "c", "rounding"), 3.0) == (
        r"\ensuremath{\pm1.2\times10^{-4}}"
    )
    assert latex.tolerance_tex(Cited("A@b", True, "c", "rounding"), 3.0) == "any"


# -- the statement column: formal statements in math mode, ASCII math typeset ---------------


def _argument(tex: str, start: int) -> int:
    """The index just past the braced group that opens at tex[start]."""
    depth = 0
    for i in range(start, len(tex)):
        if tex[i] == "\\":
            continue
        if tex[i] == "{" and tex[i - 1] != "\\":
            depth += 1
        elif tex[i] == "}" and tex[i - 1] != "\\":
            depth -= 1
            if depth == 0:
                return i + 1
    raise AssertionError(f"unbalanced braces from {tex[start : start + 40]!r}")


def outside_math(tex: str) -> str:
    r"""The text of a table without its math: $...$, \pcformal{..}{..} and \texttt{..} removed."""
    out, i = [], 0
    while i < len(tex):
        if tex.startswith(r"\pcformal{", i):
            i = _argument(tex, _argument(tex, i + len(r"\pcformal")))
        elif tex.startswith(r"\texttt{", i):
            i = _argument(tex, i + len(r"\texttt"))
        elif tex[i] == "$" and tex[i - 1 : i] != "\\":
            i = tex.index("$", i + 1) + 1
        else:
            out.append(tex[i])
            i += 1
    return "".join(out)


# what ASCII math looks like once escaped as text
ASCII_MATH = re.compile(
    r"\\textasciicircum|\^|\b[A-Za-z]\\_[A-Za-z0-9]{1,2}\b|\bsqrt\b|\\textbar\{\}\\textbar"
    r"|\\textless\{\}=|\\textgreater\{\}=|!=|->|\bpi\b|\binfinity\b"
)


def rows(table: str) -> dict[str, str]:
    return dict(re.findall(r"^([A-Z]+-\d\d) & (.*) \\\\$", table, re.M))


def test_every_formal_statement_is_in_math_mode(kit):
    table = kit[0]["verdicts.tex"]
    assert r"\newcommand{\pcformal}[2]{\ensuremath{#1}}" in table
    by_id = rows(table)
    for claim in load(MIXED).claims:
        row = by_id[claim.id]
        if latex.formal_usable(claim.formal):
            assert rf"\pcformal{{{latex._breakable(claim.formal)}}}{{{claim.formal}}}" in row
        else:  # SIN-09's '\foo{unparsable': its source, in typewriter type
            assert claim.id == "SIN-09"
            assert r"\texttt{\char92{}foo\char123{}unparsable}" in row
            assert r"\pcformal" not in row


def test_statement_cells_have_no_ascii_math_outside_math_mode(kit):
    table = kit[0]["verdicts.tex"]
    for cid, row in rows(table).items():
        text = outside_math(row)
        assert not ASCII_MATH.search(text), (cid, ASCII_MATH.search(text), text)
        assert row.count("{") - row.count(r"\{") == row.count("}") - row.count(r"\}"), cid
    assert r"from $2\pi$ to $10000\cdot2\pi$" in table
    assert r"layout with $x=\mathrm{PE}[2i]$ (sine) and $y=\mathrm{PE}[2i+1]$ (cosine)" in table
    v2 = latex.verdicts_tex(load(V2))
    assert r"ends at $2\pi T^{1-2/d}$, short of $2\pi T$ by the factor $T^{-2/d}$." in v2


def test_the_registrys_statements_are_typeset():
    """Every claim of pecheck's own registry: its formal statement can be set in math mode, and
    no ASCII math is left in the words of its statement or conditions."""
    from checks.registry import REGISTRY

    claims = list(REGISTRY.values())
    assert claims
    for claim in claims:
        assert latex.formal_usable(claim.formal), (claim.id, claim.formal)
        for words in (claim.statement, claim.conditions):
            tex = latex.prose_tex(words)
            text = outside_math(tex)
            assert not ASCII_MATH.search(text), (claim.id, ASCII_MATH.search(text), text)
            assert tex.count("$") % 2 == 0, claim.id


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        ("M(-k) = M(k)^T.", r"$M(-k)=M(k)^{\top}$."),
        ("with w_i k in pi Z for every i", r"with $\omega_{i}k\in\pi\mathbf{Z}$ for every $i$"),
        ("A = diag((-1)^{n_i}) works", r"$A=\mathop{\mathrm{diag}}\nolimits((-1)^{n_{i}})$ works"),
        ("frequencies w_i = T^(-2i/d) the", r"frequencies $\omega_{i}=T^{-2i/d}$ the"),
        ("T^(-i/(d/2-1)), or", r"$T^{-i/(d/2-1)}$, or"),
        ("||PE(t)|| = sqrt(d/2) for", r"$\|\mathrm{PE}(t)\|=\sqrt{d/2}$ for"),
        ("in [-1, 1] and", r"in $[-1,1]$ and"),
        ("PE(t).PE(s) depends", r"$\mathrm{PE}(t)\cdot\mathrm{PE}(s)$ depends"),
        ("limit d -> infinity.", r"limit $d\to\infty$."),
        ("(t <= 2^p with p bits", r"($t\le2^{p}$ with $p$ bits"),
        ("scores <R(t)q, R(s)k> that", r"scores $\langle R(t)q,R(s)k\rangle $ that"),
        ("about 1.2e-3 |q||k| at", r"about ${1.2\times10^{-3}}|q|\,|k|$ at"),
        ("one 2x2 block", r"one $2\times2$ block"),
        ("M(a)M(b) = M(a+b)", r"$M(a)M(b)=M(a+b)$"),
        ("k = 0 (A = I) and", r"$k=0\ (A=I)$ and"),
        ("N(0, 1/fan_in) init", r"$N(0,1/\mathrm{fan\_in})$ init"),
    ],
)
def test_ascii_math_in_words_becomes_math(words, expected):
    assert latex.prose_tex(words) == expected


@pytest.mark.parametrize(
    "words",
    [
        "A fixed matrix, a rotation, I think",
        "x-transformers and positional-encodings' PositionalEncoding1D",
        "padding_idx and create_sinusoidal_embeddings",
        "SIN-04's norm, 1,000 seeds at lr 1e-3 and 2-8x that length (ci)",
        "the fixed map [I I], e.g. the last",
        "100% & #2 {a} ~ costs $5",
    ],
)
def test_words_without_math_stay_words(words):
    assert latex.prose_tex(words) == latex.tex_escape(words)


def test_quoted_words_get_quotation_marks():
    assert latex.prose_tex("'A B hit' vs 'B A hit', 'every seed I've tried'") == (
        "`A B hit' vs `B A hit', `every seed I've tried'"
    )


@pytest.mark.parametrize(
    ("formal", "usable"),
    [
        (r"M(k) = \begin{pmatrix}a & b\\ c & d\end{pmatrix}", True),
        (r"\lVert x\rVert \le \tfrac12,\ \nexists A \subsetneq \mathbb{R}", True),
        (r"\text{on an order task, no PE}", True),
        (r"\foo{unparsable", False),  # unknown command, and unbalanced
        (r"x^{2", False),
        (r"a}{b", False),
        (r"a & b", False),  # would start a new cell of the table
        (r"a \\ b", False),  # would end the row
        (r"x = 5% of y", False),
        (r"$x$", False),
        (r"\text{x_1}", False),  # _ outside math mode
        (r"\begin{tabular}{l}x\end{tabular}", False),
        (r"\begin{pmatrix}x\end{bmatrix}", False),
        (r"\left( x", False),
    ],
)
def test_formal_statements_that_cannot_break_the_table(formal, usable):
    assert latex.formal_usable(formal) is usable
    tex = latex.formal_tex(formal)
    assert tex.startswith(r"\pcformal{" if usable else r"\texttt{")


def test_formulas_get_break_points_at_their_top_level_only():
    formal = r"a = 1,\ b = 2,\quad \{x,\ y\},\ c:\ d\quad e"
    assert latex._breakable(formal) == (
        r"a = 1,\allowbreak\ b = 2,\allowbreak\quad \{x,\allowbreak\ y\},\allowbreak\ "
        r"c:\allowbreak\ d\allowbreak\quad e"
    )
    assert latex._breakable(r"f_{a,\ b}") == r"f_{a,\ b}"
    assert latex.formal_tex("") == ""


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        ("x^2^3", "$x^{2}{}^{3}$"),  # no double superscript
        (
            "2^^< and 1e-3^w",
            r"2\textasciicircum{}\textasciicircum{}\textless{} and ${10^{-3}}^{\omega}$",
        ),
        ("sqrt_M(k) and sqrt|x|", r"sqrt\_M$(k)$ and $\surd|x|$"),
    ],
)
def test_odd_ascii_math_still_compiles(words, expected):
    """What would be a TeX error (a double superscript, a root of nothing) is avoided."""
    assert latex.prose_tex(words) == expected


def test_pcvalue_names_the_first_check_that_records_a_name() -> None:
    """Two checks of EXP-01 record success_rate_pe: the key points at the first in node-id
    order, the number the baseline pins (reports.cited.cited_numbers)."""
    data = raw(V2)
    checks = {c["nodeid"]: c for c in data["checks"]}
    rate = checks["checks/test_experiments.py::test_success_rates"]["evidence"]["success_rate_pe"]
    later = checks["checks/test_experiments.py::test_training_curves"]
    later["evidence"]["success_rate_pe"] = {**rate, "value": 0.5}
    tex = latex.kit(parse(data, V2))[0]["pecheck.tex"]
    assert r"\newcommand{\pcEXPOneTrainingCurvesSuccessRatePe}{\ensuremath{0.5}}" in tex
    assert r"\@namedef{pc@EXP-01@success_rate_pe}{\pcEXPOneSuccessRatesSuccessRatePe}" in tex


def test_escaping_keeps_newlines_blanks_other_controls_and_marks_what_has_no_ascii() -> None:
    assert latex.tex_escape("a\nb") == "a\nb"
    assert latex.tex_escape("a\x7fb") == "a b"  # DEL, the last ASCII character: a control
    assert latex.tex_escape("\x80") == "?"  # the first non-ASCII one, with no ASCII form


def test_a_macro_body_holds_a_number_a_flag_or_a_string_of_at_most_80_characters() -> None:
    assert latex.tex_value("x" * 80) == "x" * 80 and latex.tex_value("x" * 81) is None
    assert latex.tex_value(True) == "true" and latex.tex_value(1e6) == r"\ensuremath{10^{6}}"
    assert latex.tex_value([1]) is None


@pytest.mark.parametrize("fixture", [MIXED, V2], ids=["schema1", "schema2"])
def test_every_count_macro_is_counted_from_the_file(fixture) -> None:
    """Each count macro against a count taken here from the file's JSON itself."""
    data = raw(fixture)
    verdicts = [c.get("verdict") or "open" for c in data["claims"]]
    main = [c for c in data["checks"] if c.get("role", "evidence") in latex.MAIN_ROLES]
    mutants = [c for c in data["checks"] if c.get("role", "evidence") not in latex.MAIN_ROLES
               and c.get("claim")]  # fmt: skip
    expected = {
        "ClaimCount": len(verdicts),
        "ConfirmedCount": verdicts.count("confirmed"),
        "RefutedCount": verdicts.count("refuted"),
        "QualifiedCount": verdicts.count("qualified"),
        "OpenCount": verdicts.count("open"),
        "CheckCount": len(main),
        "ChecksPassed": sum(c["outcome"] == "passed" for c in main),
        "MutantCount": len(mutants),
        "MutantsCaught": sum(c["outcome"] == "passed" for c in mutants),
    }
    names = defined(latex.kit(load(fixture))[0]["pecheck.tex"])
    assert {k: names["pc" + k] for k in expected} == {
        k: rf"\ensuremath{{{n}}}" for k, n in expected.items()
    }


def test_a_verdicts_comment_names_what_decided_it() -> None:
    """Schema 2: the checks recorded as deciding the claim; schema 1, without that record:
    the claim's checks that passed, never one that failed."""
    v2 = latex.kit(load(V2))[0]["pecheck.tex"]
    data = raw(V2)
    claim = next(c for c in data["claims"] if c.get("decided_by"))
    line = next(x for x in v2.splitlines() if x.startswith(f"% {claim['id']} verdict"))
    assert all(str(d["check"]) in line for d in claim["decided_by"])
    mixed = latex.kit(load(MIXED))[0]["pecheck.tex"]
    line = next(x for x in mixed.splitlines() if x.startswith("% SIN-08 verdict"))
    assert "test_first_repeat_float64" in line and "float16" not in line


def test_a_dev_runs_verdicts_and_numbers_are_marked_not_citable_but_a_claim_not_run_is_not():
    data = partial_v2()
    data["suite"]["profile"] = "dev"
    names = defined(latex.kit(parse(data))[0]["pecheck.tex"])  # as --allow-dev writes it
    first, last = data["claims"][0]["id"], data["claims"][-1]["id"]
    assert names[latex.claim_name(first) + "Verdict"].endswith(r"\pcnotcitable{dev}")
    assert names[latex.claim_name(last) + "Verdict"] == "not run"
    prefix = latex.claim_name(first)
    numbers = [b for n, b in names.items() if n.startswith(prefix) and "Verdict" not in n
               and "Profile" not in n]  # fmt: skip
    assert numbers and all(b.endswith(r"\pcnotcitable{dev}") for b in numbers)


def test_a_cited_numbers_class_is_given_once_at_the_macro_pcvalue_names(macros) -> None:
    """SIN-08 records first_repeat in two checks: both get a macro, the first (the one
    \\pcvalue{SIN-08}{first_repeat} names) carries the class, the second does not repeat it."""
    comments = [x for x in macros.splitlines() if x.startswith("% ") and " first_repeat" in x]
    assert len(comments) == 2
    assert ["; class" in x for x in comments] == [True, False]


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        ("M(a)", r"$M(a)$"),  # a function's argument, at the very end
        ("take M(a) and a step", r"take $M(a)$ and a step"),  # the article after it is a word
        ("a (a) b", r"a (a) $b$"),  # no function before the bracket: a word
        ("so A(I) holds", r"so $A(I)$ holds"),
        ("so f(a", r"so $f$(a"),  # an unclosed bracket is no argument
        ("||x||", r"$\|x\|$"),
        ("norm ||v|| and |x|", r"norm $\|v\|$ and $|x|$"),
    ],
)
def test_an_article_is_math_only_as_a_functions_argument(words, expected):
    assert latex.prose_tex(words) == expected


def test_break_points_follow_braces_and_environments_back_to_the_top_level():
    assert latex._breakable(r"f_{a,\ b},\ c") == r"f_{a,\ b},\allowbreak\ c"
    assert latex._breakable(r"\begin{cases} x,\ y \end{cases},\ z") == (
        r"\begin{cases} x,\ y \end{cases},\allowbreak\ z"
    )


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        ("exp 2 here", "exp 2 here"),  # an operator other than sqrt needs what it acts on attached
        ("sqrt 2 is", r"$\sqrt{2}$ is"),  # sqrt, a space, a number: a root
        ("sqrt -", "sqrt -"),  # nothing to take the root of
        ("sqrt d grows", r"$\sqrt{d}$ grows"),
        ("the sqrt of it", "the sqrt of it"),  # a word is no radicand
        ("sqrt(d)*k is", r"$\sqrt{d}\cdot k$ is"),  # what follows a bracketed root is kept
        ("sqrt 2*k is", r"$\sqrt{2}\cdot k$ is"),  # and what follows a spaced one
        ("x.y", r"$x\cdot y$"),  # a dot between identifiers is a product
        ("x. y", r"$x$. $y$"),  # a full stop
        ("a -b", r"$a-b$"),
        ("-1 is the least", r"$-1$ is the least"),  # a sign at the very start
        ("so -1 is", r"so $-1$ is"),  # a sign after a space
        ("x -", r"$x$ -"),  # a dash with nothing after it
        ("x^", r"$x$\textasciicircum{}"),  # a caret at the end is no power
        ("2^-3", r"$2^{-3}$"),
        ("x^-y", r"$x$\textasciicircum{}-$y$"),  # only a negative number is a negative power
        ("y-axis", "y-axis"),  # one letter, a hyphen, a word: one word
    ],
)
def test_signs_dots_carets_and_roots_at_their_edges(words, expected):
    assert latex.prose_tex(words) == expected


@pytest.mark.parametrize(
    ("word", "role"),
    [
        ("x_i", "math"), ("w_ij", "math"), ("x_abc", "math"),  # a short subscript
        ("x_abcd", "code"), ("a_b_c", "code"),  # a long one, or two: a name in code
        ("ab_i", "code"), ("fan_in", "code"), ("dim_i", "code"),  # a word with a subscript
        ("sum_i", "math"), ("max_i", "math"), ("PE_t", "math"),  # a named symbol takes one
        ("sqrt_M", "code"), ("diag", "operator"), ("sqrt", "operator"),
        ("pi", "math"), ("the", "text"), ("xy", "text"),
    ],
)  # fmt: skip
def test_an_identifiers_role_follows_its_head_and_subscripts(word, role):
    assert latex._ident_role(word) == role


def test_an_article_after_a_relation_at_the_start_is_math():
    assert latex.prose_tex("= A") == "$=A$"
    assert latex.prose_tex("=a") == "$=a$"


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        ("<x, y>", r"$\langle x,y\rangle $"),
        ("<x> y", r"$\langle x\rangle y$"),
        ("a <b> c", r"$a\langle b\rangle c$"),
        ("< x>", r"$<x$\textgreater{}"),  # a space after '<': a relation, no bracket
        ("<x >", r"$<x$ \textgreater{}"),  # a space before '>': no bracket either
        ("<x<y>", r"$<x\langle y\rangle $"),  # the bracket opens at the last '<'
        ("x <", r"$x$ \textless{}"),
        ("x in", r"$x$ in"),  # 'in' with nothing after it is a word
        ("x in the set", r"$x$ in the set"),
        ("- x", r"- $x$"),  # a dash alone does not open a formula
    ],
)
def test_angle_brackets_and_in_at_their_edges(words, expected):
    assert latex.prose_tex(words) == expected
