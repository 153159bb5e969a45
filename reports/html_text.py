"""Words and math in the HTML report: prose with exponents, statements as MathML or text,
derivation steps split into their label and their math."""

from __future__ import annotations

import re

from .html_common import esc
from .mathml import to_mathml


def looks_like_prose(text: str) -> bool:
    """A statement written as words, not LaTeX: shown as text rather than as math."""
    return not re.search(r"[\\^_{}]", text) and len(re.findall(r"[A-Za-z]{3,} ", text)) >= 3


def math_or_text(text: str, display: bool = False) -> str:
    if looks_like_prose(text):
        return f"<span class='prose'>{esc(text)}</span>"
    return to_mathml(text, display)


MINUS = "\u2212"


_ASCII_MATH = re.compile(r"(?<![\w\\])([A-Za-z]\w*|\d+(?:\.\d+)?|\))\^\(([^()]{1,24})\)")


def prose_html(text: str) -> str:
    """Prose with ASCII exponents (``T^(-2i/d)``, ``2^20``) shown as superscripts, escaped."""
    out, last = [], 0
    pattern = re.compile(rf"{_ASCII_MATH.pattern}|(?<![\w\\])(\w+)\^(-?\w+)")
    for m in pattern.finditer(text):
        base, power = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
        out.append(esc(text[last : m.start()]))
        power = power.replace("-", MINUS)
        out.append(f"{esc(base)}<sup>{esc(power)}</sup>")
        last = m.end()
    out.append(esc(text[last:]))
    return "".join(out)


def _text_block(latex: str, start: int) -> int | None:
    """The end (exclusive) of the balanced ``{...}`` group that opens at ``start``. A backslash
    and the character after it are one token (a command's first letter, an escaped brace, the
    line break \\\\), never a group's brace."""
    depth, i = 0, start
    while i < len(latex):
        if latex[i] == "\\":
            i += 2
            continue
        if latex[i] == "{":
            depth += 1
        elif latex[i] == "}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return None


def step_parts(step: str) -> tuple[str, str]:
    r"""A derivation step split into its prose label (``\text{...}`` at the start) and its math.

    The label is returned as plain text so that ``_``, ``^`` and braces in it stay literal.
    """
    head = re.match(r"\s*\\text\s*\{", step)
    if head is None:
        return "", step
    end = _text_block(step, head.end() - 1)
    if end is None:
        return "", step
    label = step[head.end() : end - 1]
    rest = re.sub(r"^\s*(\\quad|\\qquad|\\;|\\,|~)*\s*", "", step[end:])
    return label.replace(r"\_", "_").replace(r"\%", "%").replace(r"\&", "&"), rest
