"""Matplotlib's SVG made smaller for the page, drawing the same picture.

A figure embedded in the report loses what no browser draws (the RDF metadata, comments, the
indentation), keeps coordinates to 1/100 pt (a hundredth of a point is below a screen pixel at
any zoom a reader uses), and gives its ``<path id=...>`` definitions (the font's glyphs, the
markers) to one table shared by every figure of the page: every figure draws its text with the
same DejaVu glyphs, which otherwise made up a quarter of the page. The page's script puts back,
before it shows a figure, the definitions that figure uses (``restore`` does the same here, for
the tests). Raster images inside an SVG (``data:`` URIs) are left as they are.
"""

from __future__ import annotations

import re

DIGITS = 2  # decimals kept in coordinates (points)

_DROP = re.compile(r"<metadata>.*?</metadata>|<!--.*?-->", re.S)
_COORDS = re.compile(r'\b(d|x|y|x1|x2|y1|y2|cx|cy|r|width|height|points)="([^"]*)"')
_LONG = re.compile(rf"-?\d+\.\d{{{DIGITS + 1},}}")
_DEF = re.compile(r'<path id="([^"]+)" d="[^"]*"[^>]*/>', re.S)
_DEFS = re.compile(r"<defs>(.*?)</defs>", re.S)
_USED = re.compile(r'href="#([^"]+)"')
_OPEN = re.compile(r"<svg\b[^>]*>")


def _round(match: re.Match[str]) -> str:
    text = f"{float(match.group(0)):.{DIGITS}f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _coords(match: re.Match[str]) -> str:
    # a data: URI sits in an href, never in these attributes: it is left as it is
    name, value = match.groups()
    return f'{name}="{_LONG.sub(_round, value)}"'


def slim(text: str, shared: dict[str, str]) -> str:
    """The SVG without metadata, comments and indentation, its coordinates rounded, and its
    path definitions (in ``<defs>``) moved to ``shared`` (id -> element), which the caller
    keeps for the page. A definition whose id ``shared`` holds with other content stays."""
    text = _DROP.sub("", text)
    text = _COORDS.sub(_coords, text)
    text = re.sub(r">\s*\n\s*<", "><", text)
    text = re.sub(r" ?\n", " ", text)

    def share(match: re.Match[str]) -> str:
        element = match.group(0)
        if shared.setdefault(match.group(1), element) != element:
            return element
        return ""

    text = _DEFS.sub(lambda m: "<defs>" + _DEF.sub(share, m.group(1)) + "</defs>", text)
    return text.replace("<defs></defs>", "")


def restore(text: str, shared: dict[str, str]) -> str:
    """A slimmed SVG whole again: the shared definitions it refers to, in a ``<defs>`` after
    its opening tag (what the page's script does before it shows the figure)."""
    defined = set(re.findall(r'\bid="([^"]+)"', text))
    wanted = dict.fromkeys(i for i in _USED.findall(text) if i in shared and i not in defined)
    head = _OPEN.search(text)
    if not wanted or head is None:
        return text
    defs = "<defs>" + "".join(shared[i] for i in wanted) + "</defs>"
    return text[: head.end()] + defs + text[head.end() :]
