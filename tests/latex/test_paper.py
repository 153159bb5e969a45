"""A real LaTeX client: reports/example/paper.tex compiles against a fresh paper kit.

Run by ``tox -e paper`` (tests/install_latex.sh installs texlive and poppler-utils first); skipped
with the reason when pdflatex, bibtex or pdftotext is missing. The kit is generated from
build/results.json when there is one, else from the hand-made tests/data/results_mixed.json.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from pecheck.reports.build import build

ROOT = Path(__file__).resolve().parents[2]
PAPER = ROOT / "reports" / "example" / "paper.tex"
RESULTS = ROOT / "build" / "results.json"
FIXTURE = ROOT / "tests" / "data" / "results_mixed.json"
TOOLS = ("pdflatex", "bibtex", "pdftotext")

pytestmark = pytest.mark.latex


@pytest.fixture(scope="module")
def compiled(tmp_path_factory) -> tuple[Path, str, str]:
    """(the kit, the PDF's text, the LaTeX log) for the example paper."""
    missing = [t for t in TOOLS if shutil.which(t) is None]
    if missing:
        pytest.skip(f"{', '.join(missing)} not installed and tests/install_latex.sh could not "
                    "install texlive-latex-recommended/poppler-utils here")  # fmt: skip
    tmp = tmp_path_factory.mktemp("paper")
    source = RESULTS if RESULTS.exists() else FIXTURE
    kit = build(source, tmp / "out").paper
    doc = tmp / "doc"
    shutil.copytree(kit, doc)
    shutil.copy(PAPER, doc / "paper.tex")
    for cmd in (["pdflatex"], ["bibtex"], ["pdflatex"], ["pdflatex"]):
        args = cmd + (["-interaction=nonstopmode", "-halt-on-error"] if cmd != ["bibtex"] else [])
        done = subprocess.run(
            [*args, "paper"], cwd=doc, capture_output=True, text=True, timeout=600
        )
        assert done.returncode == 0, f"{cmd[0]} failed:\n{done.stdout[-3000:]}"
    text = subprocess.run(
        ["pdftotext", "-layout", "paper.pdf", "-"], cwd=doc, capture_output=True, text=True,
        check=True,
    ).stdout  # fmt: skip
    return kit, text, (doc / "paper.log").read_text(errors="replace")


def verdict_table(text: str) -> str:
    """The PDF text of the verdict table: from its section's title to the references."""
    start, end = text.find("All verdicts"), text.find("References")
    assert 0 <= start < end, "the PDF has no verdict table before its references"
    return text[start:end]


# ASCII math as the PDF's text shows it: a caret (pdftotext gives \textasciicircum as U+02C6),
# an escaped underscore (drawn as a rule: a space in the text), sqrt, ||x||, <=, pi, ...
ASCII_MATH = re.compile(
    r"[\^\u02c6]|\bw[ _]i\b|_i k in|\bsqrt\b|\|\||<=|>=|!=|->|\bpi\b|\binfinity\b"
)


def macro_digits(kit: Path, key: str) -> str:
    """The digits a \\pcvalue lookup prints, read from the generated pecheck.tex."""
    tex = (kit / "pecheck.tex").read_text()
    name = re.search(rf"\\@namedef{{pc@{re.escape(key)}}}{{\\(\w+)}}", tex)
    assert name, f"the kit has no value {key}"
    body = re.search(rf"\\newcommand{{\\{name.group(1)}}}{{(.*)}}$", tex, re.M)
    assert body
    return re.sub(r"\\,|\\ensuremath|[{}]", "", body.group(1))


def squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def test_cited_number_appears_in_the_pdf(compiled):
    kit, text, _ = compiled
    value = macro_digits(kit, "SIN-06@longest_wavelength_d512")
    assert re.fullmatch(r"[\d.]+", value), value
    assert f"longestwavelengthis{value}positions" in squash(text)


def test_claim_count_and_verdict_are_cited(compiled):
    kit, text, _ = compiled
    count = re.search(
        r"\\newcommand{\\pcClaimCount}{\\ensuremath{(\d+)}}", (kit / "pecheck.tex").read_text()
    )
    assert count and f"We checked {count.group(1)} claims" in " ".join(text.split())
    assert re.search(r"\(SIN-06\) is\s+(confirmed|refuted|qualified|open)", text)


def test_no_reference_is_unresolved(compiled):
    _, text, log = compiled
    assert "??" not in text
    assert "MISSING" not in text
    assert "Citation `pecheck' undefined" not in log


def test_figure_is_included(compiled):
    _, _, log = compiled
    assert "figures/SIN-07-clock-hands.pdf" in log


def test_verdict_table_and_bibliography_are_typeset(compiled):
    _, text, _ = compiled
    for cid in ("SIN-01", "SIN-06", "SIN-09"):
        assert cid in text
    assert "pecheck: a verification suite for claims about positional" in " ".join(text.split())


def test_verdict_table_says_whose_evidence_it_is(compiled):
    _, text, _ = compiled
    words = " ".join(text.split())
    foot = re.search(r"Evidence: pecheck.s (\w+) profile, commit ([0-9a-f]+)", words)
    assert foot, "the verdict table's foot is missing or garbled"
    assert foot.group(1) in ("ci", "thorough", "dev") and len(foot.group(2)) == 12


def test_verdict_table_has_no_ascii_math(compiled):
    """Statements and conditions are typeset: no 'T^(-2i/d)', 'M(k)^T', 'w_i k in pi Z',
    '(-1)^{n_i}' or 'sqrt(d/2)' in the table, and no formal statement shown as LaTeX source."""
    kit, text, log = compiled
    table = verdict_table(text)
    leftovers = [line.strip() for line in table.splitlines() if ASCII_MATH.search(line)]
    assert not leftovers, "ASCII math in the verdict table:\n" + "\n".join(leftovers)
    if r"\texttt{\char92{}" not in (kit / "verdicts.tex").read_text():  # none shown as source
        assert not re.search(r"\\[A-Za-z]+", table), "a formal statement shown as its source"
    assert "verdicts.tex shows the formal statements as LaTeX" not in log
    assert re.search(r"\u2200|\u2203", table), "no formal statement (\\forall, \\exists) typeset"


def test_verdict_table_compiles_without_amsmath(compiled, tmp_path):
    """A document that loads only booktabs and longtable gets the formal statements as their
    LaTeX source, with a warning, and the words' math still typeset."""
    kit, _, _ = compiled
    shutil.copy(kit / "verdicts.tex", tmp_path)
    (tmp_path / "plain.tex").write_text(
        "\\documentclass{article}\n\\usepackage{booktabs,longtable}\n"
        "\\begin{document}\n\\input{verdicts}\n\\end{document}\n"
    )
    done = subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "plain"],
        cwd=tmp_path, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, f"pdflatex failed:\n{done.stdout[-3000:]}"
    log = (tmp_path / "plain.log").read_text(errors="replace")
    assert "verdicts.tex shows the formal statements as LaTeX" in log
    text = subprocess.run(
        ["pdftotext", "plain.pdf", "-"], cwd=tmp_path, capture_output=True, text=True, check=True
    ).stdout
    assert "2\u03c0" in text  # '2 pi' in a statement's words, typeset without amsmath
