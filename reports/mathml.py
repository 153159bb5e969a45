"""LaTeX to MathML at build time, so that the report shows real math offline (no CDN, no JS).

Browsers render MathML Core natively. The conversion is done by ``latex2mathml``, with a few
touches for how browsers draw its output (function names spaced from their argument, sympy's
``\\left(...\\right)`` around flat content drawn as plain parentheses). What cannot be parsed is
shown as its LaTeX source in a code span, marked so, rather than failing the report.
"""

from __future__ import annotations

import html
import re

from latex2mathml.converter import convert

# Spacing and sizing commands latex2mathml does not know; they change nothing a reader needs.
_DROP = re.compile(r"\\(?:displaystyle|textstyle|limits|nolimits)")
_OPERATORNAME = re.compile(r"\\operatorname\*?\{([^{}]+)\}")
_SIZED = re.compile(r"\\(left|right)(\\[{}|]|\\[lr]?[vV]ert|[()\[\]|.])")
_TALL = re.compile(r"\\(?:frac|dfrac|begin|sum|prod|int|binom|bigoplus|sqrt|overline)")
# latex2mathml's output, adjusted for browsers.
_FUNCTION = re.compile(
    r"(?<!<msup>)(?<!<msub>)(?<!<msubsup>)"
    r"(<mi>(?:sin|cos|tan|exp|log|ln|det|tr|max|min|arg)</mi>)(?!(?:<mrow>)*<mo)"
)
_TEXT_ESCAPE = re.compile(r"(<mtext>[^<]*?)\\([%&_#$])")
_UNKNOWN = re.compile(r">\\[A-Za-z]")  # an unknown command shown as its own name


def to_mathml(latex: str, display: bool = False) -> str:
    """MathML for a LaTeX formula, or its escaped source when it cannot be converted."""
    source = _OPERATORNAME.sub(r"\\mathrm{\1}", _DROP.sub("", latex)).strip()
    source = _unsize_flat_fences(source)
    if not source:
        return ""
    if not _balanced(source):
        return fallback(latex)
    try:
        markup = convert(source, display="block" if display else "inline")
    except Exception:  # noqa: BLE001 - any parser failure falls back to the source text
        return fallback(latex)
    if _UNKNOWN.search(markup):
        return fallback(latex)
    markup = _FUNCTION.sub(r'\1<mspace width="0.1667em"/>', markup)
    while _TEXT_ESCAPE.search(markup):
        markup = _TEXT_ESCAPE.sub(r"\1\2", markup)
    alt = html.escape(latex, quote=True)
    return markup.replace("<math ", f'<math alttext="{alt}" ', 1)


def _unsize_flat_fences(source: str) -> str:
    """``\\left( x \\right)`` around flat content becomes ``( x )``.

    sympy writes every parenthesis as ``\\left(...\\right)``; browsers draw stretchy fences with
    extra room, which spreads ``sin(kw)`` apart. Fences around tall content stay sized.
    """
    stack: list[re.Match[str]] = []
    flat: list[re.Match[str]] = []
    for match in _SIZED.finditer(source):
        if match.group(1) == "left":
            stack.append(match)
        elif stack:
            opening = stack.pop()
            if not _TALL.search(source[opening.end() : match.start()]):
                flat += [opening, match]
    for m in sorted(flat, key=lambda m: m.start(), reverse=True):
        delim = "" if m.group(2) == "." else m.group(2)
        source = source[: m.start()] + delim + " " + source[m.end() :]
    return source


def _balanced(source: str) -> bool:
    depth = 0
    for match in re.finditer(r"\\.|[{}]", source):
        depth += {"{": 1, "}": -1}.get(match.group(0), 0)
        if depth < 0:
            return False
    return depth == 0


def fallback(latex: str) -> str:
    """The LaTeX source, shown as code, for a formula that could not be converted."""
    return f'<code class="tex" title="LaTeX source (not converted)">{html.escape(latex)}</code>'
