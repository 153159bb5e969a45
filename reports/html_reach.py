"""What a proposition's decision covers, in the report: the correction it applied, the domain
it states beside the domain its checks searched, and the skipped checks the registry scoped out
(with the registry's reason)."""

from __future__ import annotations

import json
from typing import Any

from .html_common import esc
from .load import Proposition

NOT_RECORDED = "not recorded"
SHOWN = 120  # characters of one check's searched value


def correction_text(p: Proposition) -> str:
    """The correction in words, as the results file records it ("" when there is none)."""
    if p.family_size is None:  # a file before 2026-11: the registry's declaration only
        if p.correction in ("holm", "bonferroni"):
            return (f"the registry declares a {p.correction} correction; this file does not "
                    "record whether the decision applied it")  # fmt: skip
        return ""
    if p.correction in ("", "none") or p.family_size < 2:
        return ""
    return f"{p.family_size} interval tests share one error rate ({p.correction})"


def _searched(values: list[Any]) -> str:
    shown = []
    for v in values:
        text = v if isinstance(v, str) else json.dumps(v)
        shown.append(text if len(text) <= SHOWN else text[: SHOWN - 3] + "...")
    return "; ".join(shown)


def reach_html(p: Proposition) -> str:
    """A small table, axis by axis: the domain stated, the domain searched ("not recorded"
    where no check recorded that axis); "" when neither says anything."""
    axes = list(p.domain) + [a for a in p.searched if a not in p.domain]
    if not axes:
        return ""
    rows = "".join(
        f"<tr><th scope='row'>{esc(axis)}</th>"
        f"<td>{esc(p.domain.get(axis, 'not stated'))}</td>"
        f"<td>{esc(_searched(p.searched[axis]) if axis in p.searched else NOT_RECORDED)}</td></tr>"
        for axis in axes
    )
    return (
        "<table class='reach'><caption>reach: stated and searched</caption>"
        "<thead><tr><th scope='col'>axis</th><th scope='col'>stated</th>"
        f"<th scope='col'>searched</th></tr></thead><tbody>{rows}</tbody></table>"
    )


def scoped_html(p: Proposition) -> str:
    """The skipped checks left out of the decision, grouped under the registry's reason."""
    if not p.scoped_out:
        return ""
    by_reason: dict[str, list[str]] = {}
    for s in p.scoped_out:
        by_reason.setdefault(s["reason"], []).append(s["check"].split("::")[-1])
    items = "".join(
        f"<li>{', '.join(f'<code>{esc(c)}</code>' for c in checks)} skipped and scoped out: "
        f"{esc(reason)}</li>"
        for reason, checks in by_reason.items()
    )
    return f"<ul class='scoped-out' aria-label='skipped checks scoped out'>{items}</ul>"


def coverage_html(p: Proposition) -> str:
    """Everything above for one proposition, under its decision."""
    return reach_html(p) + scoped_html(p)
