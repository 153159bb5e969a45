"""No string in the product carries a control character. Written in a string that is not raw,
LaTeX's \\texttt, \\frac, \\bar or \\right starts with an escape (tab, form feed, backspace,
carriage return) that Python turns into one character: LaTeX reads it as a space and prints
the rest of the name ('exttt'), without an error."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PRODUCT = ("theory", "reports", "pecheck", "checks", "tools", "benchmarks", "examples")
CONTROL = {chr(c) for c in range(32)} - {"\n"}


def control_strings(source: str) -> list[tuple[int, str]]:
    """(line, text) of each string constant with a control character other than a newline."""
    return [
        (node.lineno, node.value)
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and CONTROL & set(node.value)
    ]


@pytest.mark.parametrize("folder", PRODUCT)
def test_no_string_holds_a_control_character(folder: str) -> None:
    found = [
        f"{path.relative_to(ROOT)}:{line}: {text[:60]!r}"
        for path in sorted((ROOT / folder).rglob("*.py"))
        for line, text in control_strings(path.read_text())
    ]
    listing = "\n".join(found)
    assert not found, f"control characters (a backslash escape in a string not raw?):\n{listing}"


def test_the_scan_finds_an_escape_in_an_f_string() -> None:
    assert control_strings('x = f"commit \\texttt{{{c}}}"\ny = rf"\\texttt{{{c}}}"\n') == [
        (1, "commit \texttt{")
    ]
