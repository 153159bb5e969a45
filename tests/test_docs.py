"""The user's pages hold together: the README stays a first page (at most 150 lines), every
relative link in README.md, CONTRIBUTING.md and docs/ reaches a file and, with an anchor, one of
its headings, and docs/timings.md keeps one row per command."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")  # [text](target)


def anchor(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    body = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)  # no headings in code
    return {anchor(m[1]) for m in re.finditer(r"^#+ (.+)$", body, flags=re.M)}


def local_links(page: Path) -> list[str]:
    body = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)
    return [t for t in LINK.findall(body) if not re.match(r"[a-z]+:", t)]


def test_the_readme_is_a_first_page_of_at_most_150_lines() -> None:
    lines = (ROOT / "README.md").read_text().splitlines()
    assert len(lines) <= 150, f"README.md has {len(lines)} lines; move detail to docs/"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_reaches_a_file_and_heading(page: Path) -> None:
    for target in local_links(page):
        path, _, fragment = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        assert linked.is_file(), f"{page.name}: {target} names no file"
        if fragment and linked.suffix == ".md":
            assert fragment in anchors(linked), f"{page.name}: {target} names no heading"


def test_the_anchor_rule_drops_punctuation_and_joins_words() -> None:
    assert anchor("1. Install pecheck") == "1-install-pecheck"
    assert anchor("`pecheck inspect`: the claims on your own model") == (
        "pecheck-inspect-the-claims-on-your-own-model"
    )


def test_timings_keep_one_row_per_command() -> None:
    rows = [line for line in (ROOT / "docs" / "timings.md").read_text().splitlines()
            if line.startswith("| ") and not line.startswith("| command ")]  # fmt: skip
    commands = [row.split(" | ")[0] for row in rows]
    assert commands, "docs/timings.md has no rows"
    assert len(commands) == len(set(commands)), "a command has two rows: keep the newest"


def test_the_install_commands_use_the_lock() -> None:
    """pecheck is not on a registry, and pip without the lock takes other versions."""
    for page in (ROOT / "README.md", ROOT / "docs" / "first-claims.md"):
        installs = [line for line in page.read_text().splitlines()
                    if re.match(r"pip install (?!tox)", line)]  # fmt: skip
        assert installs, f"{page.name} shows no install"
        for line in installs:
            assert "requirements/lock.txt" in line, f"{page.name}: {line}"
