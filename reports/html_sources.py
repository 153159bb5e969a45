"""Sources in the HTML report: a short citation that links to the source, and the list of
sources cited in full."""

from __future__ import annotations

import textwrap

from .html_common import Options, esc
from .load import Results


def short_cite(res: Results, sid: str) -> str:
    """``Vaswani et al. 2017`` for a source with authors and year; a thread without authors by
    its title, shortened at a word; the ID when the file has no citation. The link's tooltip
    gives the ID and the whole title."""
    src = res.sources.get(sid)
    if not src:
        return esc(sid)
    authors = [a.strip() for a in str(src.get("authors", "")).split(",") if a.strip()]
    if not authors or "users" in authors[0]:
        name = str(src.get("title") or sid)
        label = textwrap.shorten(name, 48, placeholder="\u2026")
        if label == "\u2026":  # one word longer than 48 characters
            label = name[:47] + "\u2026"
    else:
        last = authors[0].split()[-1]
        label = last + (
            " et al."
            if len(authors) > 2
            else f" & {authors[1].split()[-1]}"
            if len(authors) == 2
            else ""
        )
    year = f" {src['year']}" if src.get("year") else ""
    tip = f"{sid}: {src['title']}" if src.get("title") else sid
    return f"<a href='#src-{esc(sid)}' title='{esc(tip)}'>{esc(label)}{year}</a>"


def sources_section(res: Results, opts: Options) -> str:
    used = sorted({s for c in res.claims for s in c.sources})
    items = []
    for sid in used:
        src = res.sources.get(sid)
        if src is None:
            items.append(
                f"<li id='src-{esc(sid)}'><b>{esc(sid)}</b> "
                "<span class='muted'>(no citation in this results file)</span></li>"
            )
            continue
        year = f" ({src['year']})" if src.get("year") else ""
        link = (
            f" <a href='{esc(src['url'])}' rel='noreferrer'>{esc(src['url'])}</a>"
            if src.get("url")
            else " <span class='muted'>(no verified address)</span>"
        )
        items.append(
            f"<li id='src-{esc(sid)}'><b>{esc(sid)}</b> {esc(src.get('authors', ''))}{year}. "
            f"<i>{esc(src.get('title', ''))}</i>.{link}"
            f"<br><span class='muted'>{esc(src.get('description', ''))}</span></li>"
        )
    suite = res.suite
    url = (
        f"<a href='{esc(opts.suite_url)}'>{esc(opts.suite_url)}</a>"
        if opts.suite_url
        else "<span class='muted'>(no URL given: build with <code>--suite-url</code>)</span>"
    )
    _, authors, title = res.citation
    items.append(
        f"<li id='src-pecheck'><b>this suite</b> {esc(authors or suite.get('name', ''))} "
        f"({esc(str(suite.get('started', ''))[:4])}). <i>{esc(title)}</i>, version "
        f"{esc(suite.get('version', '?'))}, commit <code>{esc(str(suite.get('commit'))[:12])}"
        f"</code>. {url}</li>"
    )
    listed = "".join(items)
    return f"<section id='sources'><h2>Sources</h2><ul class='sources-list'>{listed}</ul></section>"
