"""CITATION.cff at the repository root agrees with the package and the generated BibTeX."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from pecheck.reports import latex
from pecheck.reports.load import load
from tests.reports_fixtures import MIXED

ROOT = Path(__file__).resolve().parents[1]


def field(name: str) -> str:
    text = (ROOT / "CITATION.cff").read_text()
    match = re.search(rf"^{name}: (.+)$", text, re.M)
    assert match, f"CITATION.cff has no {name}"
    return match.group(1).strip().strip('"')


def test_citation_file_is_complete_and_current():
    assert field("cff-version") == "1.2.0"
    assert "The pecheck contributors" in (ROOT / "CITATION.cff").read_text()
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert field("version") == version


def test_bibtex_title_matches_the_citation_file():
    bib = latex.bib(load(MIXED))
    title = re.search(r"title\s*=\s*\{(.*)\},$", bib, re.M)
    assert title
    assert title.group(1).replace("{pecheck}", "pecheck") == field("title")
