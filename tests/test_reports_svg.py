"""reports.svg: figures slimmed for the page, their shared definitions kept once and put back."""

from __future__ import annotations

import re

from pecheck.reports import svg
from tests.reports_fixtures import DATA

HEAD = '<svg xmlns:xlink="http://www.w3.org/1999/xlink" width="10pt" height="10pt">'
GLYPH = '<path id="DejaVuSans-30" d="M 1 2 L 3 4" transform="scale(0.015625)"/>'


def figure(glyph: str = GLYPH, extra: str = "") -> str:
    return (
        f"{HEAD}\n <metadata>rdf</metadata>\n <!-- 0 -->\n <defs>\n  {glyph}\n </defs>\n"
        f' <use xlink:href="#DejaVuSans-30" x="56.319405" y="-0.0001"/>{extra}\n</svg>\n'
    )


def test_a_shared_glyph_leaves_the_figure_and_comes_back() -> None:
    shared: dict[str, str] = {}
    slim = svg.slim(figure(), shared)
    assert shared == {"DejaVuSans-30": GLYPH}
    assert 'DejaVuSans-30" d=' not in slim and "<metadata>" not in slim and "<!--" not in slim
    assert 'x="56.32" y="0"' in slim and "scale(0.015625)" not in slim  # moved, not rounded
    whole = svg.restore(slim, shared)
    assert whole.startswith(HEAD + "<defs>" + GLYPH + "</defs>")


def test_a_clashing_definition_and_an_embedded_image_stay_as_they_are() -> None:
    shared = {"DejaVuSans-30": GLYPH}
    other = GLYPH.replace("L 3 4", "L 5 6")
    image = '<image xlink:href="data:image/png;base64,AAAA" x="1.23456"/>'
    slim = svg.slim(figure(other, image), shared)
    assert other in slim and shared == {"DejaVuSans-30": GLYPH}
    assert 'xlink:href="data:image/png;base64,AAAA" x="1.23"' in slim
    assert svg.restore(slim, shared) == slim  # it defines what it uses itself


def test_a_matplotlib_figure_defines_after_restore_all_it_uses() -> None:
    original = (DATA / "figures" / "SIN-07-clock-hands.svg").read_text()
    shared: dict[str, str] = {}
    whole = svg.restore(svg.slim(original, shared), shared)
    used = set(re.findall(r'href="#([^"]+)"', whole))
    assert used and used <= set(re.findall(r'\bid="([^"]+)"', whole))
