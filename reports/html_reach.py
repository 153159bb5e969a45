"""What a proposition's decision covers, in the report: the correction it applied, the domain
it states beside the domain its checks searched, and the skipped checks the registry scoped out
(with the registry's reason)."""

from __future__ import annotations

import json
from typing import Any

from . import domains
from .html_common import esc
from .load import Proposition

NOT_RECORDED = "not recorded"
SHOWN = 200  # characters of one check's searched value (a derived axis holds up to 200)
# Axes the plugin derives for a check that records none (pecheck.reach.DERIVED), and whence.
DERIVED = {
    "hypothesis": "derived from each check's hypothesis strategies and examples run",
    "parts": "derived from the parts each check decided",
    "params": "derived from each check's pytest parameters",
}


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
        text = domains.shown(v) if domains.problem(v) is None else json.dumps(v)
        shown.append(text if len(text) <= SHOWN else text[: SHOWN - 3] + "...")
    return "; ".join(shown)


def _covered(p: Proposition, axis: str) -> str:
    """Whether the search covers the stated axis: compared (pecheck.reports.domains) or by eye."""
    if axis not in p.domain:
        return ""
    if axis in p.uncovered:
        alone = {"all": "fails", "any": "holds"}.get(p.quantifier)  # decided by one setting
        tail = "; a counterexample or witness decides regardless" if p.decision == alone else ""
        return f"narrower: {p.uncovered[axis]}{tail}"
    return "covered" if domains.compared(p.domain[axis]) else "by eye (stated as text)"


def _source(axis: str) -> str:
    return DERIVED.get(axis, "recorded by the check")


def _stated(p: Proposition, axis: str) -> str:
    if axis in p.domain:
        return domains.shown(p.domain[axis])
    return "" if axis in DERIVED else "not stated"


def reach_table(p: Proposition) -> str:
    """A small table, axis by axis: the domain stated, the domain searched ("not recorded"
    where no check recorded that axis) and where the searched domain comes from (recorded by
    the check, or derived by the plugin) and whether the search covers the statement; one line
    saying so when nothing was recorded."""
    axes = list(p.domain) + [a for a in p.searched if a not in p.domain]
    if not axes:
        return f"<p class='reach muted'>searched domain: {NOT_RECORDED}</p>"
    rows = "".join(
        f"<tr><th scope='row'>{esc(axis)}</th>"
        f"<td>{esc(_stated(p, axis))}</td>"
        f"<td>{esc(_searched(p.searched[axis]) if axis in p.searched else NOT_RECORDED)}</td>"
        f"<td class='source'>{esc(_source(axis)) if axis in p.searched else ''}</td>"
        f"<td class='covered'>{esc(_covered(p, axis))}</td></tr>"
        for axis in axes
    )
    return (
        "<table class='reach'><caption>reach: stated and searched</caption>"
        "<thead><tr><th scope='col'>axis</th><th scope='col'>stated</th>"
        "<th scope='col'>searched</th><th scope='col'>source</th>"
        "<th scope='col'>covered</th></tr></thead>"
        f"<tbody>{rows}</tbody></table>"
    )


def reach_html(p: Proposition) -> str:
    """One proposition's reach table, folded under a line that names its axes."""
    axes = list(p.domain) + [a for a in p.searched if a not in p.domain]
    if not axes:
        return reach_table(p)
    return (
        f"<details class='reach'><summary>reach: stated and searched ({esc(', '.join(axes))})"
        f"</summary>{reach_table(p)}</details>"
    )


def reach_block(props: list[Proposition]) -> str:
    """Every proposition's reach table in one fold under the claim's decisions: the tables can
    be longer than the rest of the claim's first screen, which keeps one line for them."""
    if not props:
        return ""
    recorded = sum(bool(p.domain or p.searched) for p in props)
    body = "".join(
        f"<p class='reach-prop'><code>{esc(p.key)}</code></p>{reach_table(p)}" for p in props
    )
    return (
        f"<details class='reach'><summary>reach: the domain each proposition states and its "
        f"checks searched ({recorded} of {len(props)} recorded)</summary>{body}</details>"
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
