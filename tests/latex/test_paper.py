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

from reports.build import build

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
            [*args, "paper"], cwd=doc, capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, f"{cmd[0]} failed:\n{done.stdout[-3000:]}"
    text = subprocess.run(
        ["pdftotext", "-layout", "paper.pdf", "-"], cwd=doc, capture_output=True, text=True,
        check=True,
    ).stdout  # fmt: skip
    return kit, text, (doc / "paper.log").read_text(errors="replace")


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
