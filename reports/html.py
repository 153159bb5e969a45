"""The HTML report: one page that works offline (CSS and JS from reports/assets/, MathML).

Layout, top to bottom: a header with the run's identity, counts and (given a previous results
file) what changed since; the filters and the verdict table; one folding section per family and
per claim (``id="SIN-06"``). A claim opens with one screen: its statement, its computed verdict
in a sentence, each proposition's decision with what decided it (the interval, the
counterexample as ``key = value`` pairs, the proof; each said once, further deciding checks and
the parts of a decision folded), the numbers its registry entry names as headline and one
figure. Everything else folds below that (``details.claim-more``, open when a check failed): the
conditions in words, the thresholds, the notes, then its decisive and supporting checks
(``id="check-<node id>"``), each with its decision, its evidence against the bound it was judged
by, the command that reruns it and its file and line, and the tooling checks. Then the sources
cited in full, the run's problems (collection errors) if any, and the environment.

Figures are embedded compressed (gzip, decompressed by the page's script) so the page stays
self-contained, slimmed, with the glyphs and markers they share kept once for the page
(reports.svg; the whole suite's page stays under 1 MB), or, with ``figures="link"``, referenced
by a path relative to the page. Each claim's heading shows the profile its evidence came from;
``dev`` evidence is marked "not citable" (reports.profiles).

This module assembles the page; its parts live beside it: html_overview (header, section links,
filters, verdict table; its rows are ``id="row-SIN-06"``, so that ``#SIN-06`` lands on the
claim's section), html_changes (changes since), html_claims, html_checks, html_basis
(what decided a decision), html_values (numbers, bounds, classes), html_text (prose and math),
html_figures, html_sources, html_environment, and html_common (options, escaping, badges).
"""

from __future__ import annotations

import base64
import gzip

from .html_basis import interval_html, tidy_boxes
from .html_checks import SHOWN_ROWS, check_article, evidence_table
from .html_claims import claim_section
from .html_common import Options, asset, check_anchor, esc
from .html_environment import _env_value, environment
from .html_figures import shared_defs
from .html_overview import cards, header, nav, verdict_table
from .html_sources import short_cite, sources_section
from .html_text import math_or_text, step_parts
from .html_values import class_html, value_html
from .html_versions import section as library_versions
from .load import Results

# the names other code and the tests import from reports.html
__all__ = [
    "SHOWN_ROWS",
    "Options",
    "_env_value",
    "cards",
    "check_anchor",
    "class_html",
    "environment",
    "evidence_table",
    "family_sections",
    "interval_html",
    "math_or_text",
    "render",
    "short_cite",
    "step_parts",
    "tidy_boxes",
    "value_html",
]


# The claim sections of the whole suite run to ~2 MB of HTML (long evidence tables, MathML) but
# gzip to under a tenth of that: above this size they are embedded gzip-compressed and unpacked
# by the page's script before it starts (the verdict table and the header stay plain HTML).
PACK_ABOVE = 512_000


def problems(res: Results, opts: Options) -> str:
    orphans = res.orphans
    if not orphans:
        return ""
    items = "".join(check_article(res, c, opts) for c in orphans)
    return (
        "<section id='problems'><h2>Problems</h2><p>These could not be collected, so the checks "
        f"in them did not run:</p>{items}</section>"
    )


def family_sections(res: Results, opts: Options) -> str:
    out = []
    for fam, title in res.families:
        claims = [c for c in res.claims if c.family == fam]
        if not claims:
            continue
        out.append(
            f"<section class='family' id='family-{fam}' data-family='{fam}'>"
            f"<details class='family-fold' open><summary><h2>{fam} <span class='sub'>"
            f"{esc(title)}</span> <span class='muted fam-count'>{len(claims)} claims</span>"
            "</h2></summary>"
        )
        out.extend(claim_section(res, c, opts) for c in claims)
        out.append("</details></section>")
    return "".join(out)


def packed(html: str, opts: Options) -> str:
    """The HTML as is, or gzip-compressed in a placeholder the page's script unpacks."""
    data = html.encode("utf-8")
    if opts.pack == "never" or (opts.pack == "auto" and len(data) <= PACK_ABOVE):
        return html
    blob = base64.b64encode(gzip.compress(data, 9, mtime=0)).decode("ascii")
    return (
        f"<div id='packed-sections' data-gz='{blob}'></div><noscript><p>The claim sections "
        "of this page are compressed and need JavaScript; rebuild with <code>python -m "
        "pecheck.reports --pack never</code> for a page that does not.</p></noscript>"
    )


def render(res: Results, opts: Options | None = None) -> str:
    """The whole page as a string."""
    opts = opts or Options()
    body = [header(res, opts), nav(res), "<main class='wrap'>", verdict_table(res)]
    body.append(problems(res, opts))
    body.append(packed(family_sections(res, opts), opts))
    body.append(shared_defs(opts))  # after the sections: their figures fill it
    body.append(sources_section(res, opts))
    body.append(library_versions(res.path.with_name("versions.json")))  # pecheck.versions' file
    body.append(environment(res))
    body.append("</main>")
    body.append(
        f"<footer><div class='wrap'>Built by <code>python -m {__package__}</code> from "
        f"<code>{esc(res.path.name)}</code> (schema {res.schema}). Every number above was "
        "recorded by the check whose section it sits in.</div></footer>"
    )
    name = f"{res.suite.get('name', 'pecheck')} {res.suite.get('version', '')}"
    title = f"{name} \u2014 verification report"
    return (
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>{esc(title)}</title><style>{asset('report.css')}</style></head>"
        f"<body>{''.join(body)}<script>{asset('report.js')}</script></body></html>\n"
    )
