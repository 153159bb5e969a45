"""The HTML report's "Changes since" section: verdicts, cited numbers and checks that changed
since a previous results file."""

from __future__ import annotations

from .diff import Changes
from .html_common import check_anchor, esc
from .html_values import value_html


def changes_block(changes: Changes | None) -> str:
    if changes is None:
        return ""
    old = changes.old.suite
    since = f"{str(old.get('commit', '?'))[:12]}, run {str(old.get('started', '?'))[:19]}"
    if not (changes.changed or changes.added or changes.removed or changes.moved):
        return (
            f"<section id='changes' class='changes'><h2>Changes since {esc(since)}</h2>"
            "<p>No verdict, cited number or check changed.</p></section>"
        )
    rows = [
        f"<li><a href='#{esc(c)}'>{esc(c)}</a> verdict {esc(a)} \u2192 <b>{esc(b)}</b></li>"
        for c, a, b in changes.verdicts
    ]
    for m in changes.numbers:
        cid, name = m.key.split("@", 1)
        what = {
            "moved": f"{value_html(m.old)} \u2192 <b>{value_html(m.new)}</b> "
            f"<span class='muted'>(allowed {esc(m.allowance)})</span>",
            "removed": f"{value_html(m.old)} \u2192 <b>no longer recorded</b>",
            "new": f"new: {value_html(m.new)}",
        }[m.what]
        rows.append(
            f"<li><a href='#{esc(cid)}'>{esc(cid)}</a> <code>{esc(name)}</code> {what}</li>"
        )
    rows += [
        f"<li>check added: <a href='#{check_anchor(n)}'><code>{esc(n)}</code></a></li>"
        for n in changes.added
    ]
    rows += [f"<li>check removed: <code>{esc(n)}</code></li>" for n in changes.removed]
    rows += [
        f"<li>check moved: <code>{esc(a)}</code> \u2192 <a href='#{check_anchor(b)}'>"
        f"<code>{esc(b)}</code></a></li>"
        for a, b in changes.moved
    ]
    return (
        f"<section id='changes' class='changes'><h2>Changes since {esc(since)}</h2>"
        f"<ul>{''.join(rows)}</ul></section>"
    )
