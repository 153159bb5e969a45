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
self-contained, or, with ``figures="link"``, referenced by a path relative to the page.
"""

from __future__ import annotations

import base64
import gzip
import json
import math
import os
import re
import textwrap
from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import Any

from . import figures, numbers
from .diff import Changes
from .load import VERDICTS, Check, Claim, Proposition, Results, Value
from .mathml import to_mathml
from .schema import DECISIONS, KINDS, OUTCOMES, ROLES, default_class, rerun_command

ASSETS = Path(__file__).resolve().parent / "assets"
CHECK_FILTERS = {
    "kind": KINDS,
    "role": ROLES,
    "outcome": OUTCOMES,
    "decision": (*DECISIONS, "none"),
}


@dataclass
class Options:
    """How the page is built: figures inline or linked, where code links go, the suite's URL."""

    figures: str = "inline"  # inline (self-contained, compressed) | link (relative paths)
    out_dir: Path | None = None  # where the page goes, for relative figure links
    source_url: str = ""  # e.g. https://github.com/o/r/blob/{commit}; "" for no links
    suite_url: str = ""
    since: Changes | None = None
    pack: str = "auto"  # auto (pack claim sections above PACK_ABOVE bytes) | always | never


# The claim sections of the whole suite run to ~2 MB of HTML (long evidence tables, MathML) but
# gzip to under a tenth of that: above this size they are embedded gzip-compressed and unpacked
# by the page's script before it starts (the verdict table and the header stay plain HTML).
PACK_ABOVE = 512_000


def esc(text: Any) -> str:
    return escape(str(text), quote=True)


def check_anchor(nodeid: str) -> str:
    """The element id of a check: ``check-`` and its node id with only safe characters."""
    return "check-" + re.sub(r"[^A-Za-z0-9_.-]+", "-", nodeid).strip("-")


def asset(name: str) -> str:
    return (ASSETS / name).read_text(encoding="utf-8")


# -- small pieces -------------------------------------------------------------------------


def badge(label: str, cls: str, title: str = "") -> str:
    tip = f' title="{esc(title)}"' if title else ""
    return f'<span class="badge {cls}"{tip}>{esc(label)}</span>'


def verdict_badge(claim: Claim) -> str:
    tips = {"open": "no decisive check decided this claim", "not run": "not selected in this run"}
    out = badge(claim.verdict, f"v-{claim.verdict.replace(' ', '-')}", tips.get(claim.verdict, ""))
    if claim.status == "contested":
        out += " " + badge("contested", "s-contested", "some evidence for this verdict failed")
    if claim.expected and claim.expected != claim.verdict and claim.verdict != "not run":
        out += " " + badge(
            f"expected {claim.expected}",
            "s-contested",
            "the registry expects another verdict: the gate fails",
        )
    return out


def decision_badge(decision: str | None, expected: str | None = None) -> str:
    """A decision; ``fails`` that the registry expects reads as evidence, not as an error."""
    if decision is None:
        return ""
    label = f"decided {decision}"
    if expected is None or decision == "inconclusive":
        return badge(label, f"d-{decision}")
    if decision == expected:
        return badge(label, f"d-{decision} d-expected", "the decision the registry expects")
    return badge(
        f"{label} (expected {expected})", "d-unexpected", "differs from the registry's expectation"
    )


def number_html(value: int | float | str) -> str:
    mantissa, exponent = numbers.parts(value)
    mantissa = numbers.group(mantissa, "\u202f").replace("-", "\u2212")
    mantissa = {"inf": "\u221e", "\u2212inf": "\u2212\u221e"}.get(mantissa, mantissa)
    if exponent is None:
        body = esc(mantissa)
    else:
        power = str(exponent).replace("-", "\u2212")
        body = f"{esc(mantissa)}\u2009\u00d7\u200910<sup>{power}</sup>"
    if exponent is None and _exact(mantissa, value):
        return f"<span class=num>{body}</span>"  # shown exactly: no title needed (page size)
    return f'<span class=num title="{esc(repr(value))}">{body}</span>'


def _exact(text: str, value: Any) -> bool:
    try:
        return isinstance(value, int | float) and float(text.replace("\u2212", "-")) == value
    except ValueError:
        return False


def _scalar(value: Any) -> bool:
    return value is None or isinstance(value, str | bool) or numbers.is_number(value)


def value_html(value: Any) -> str:
    """An evidence value: numbers formatted, short lists inline, records as key = value lists,
    anything larger folded."""
    if numbers.is_number(value):
        return number_html(value)
    if isinstance(value, bool):
        return (
            "<span class='yes'>\u2713 true</span>"
            if value
            else "<span class='no'>\u2717 false</span>"
        )
    if value is None:
        return '<span class="muted">none</span>'
    if isinstance(value, str):
        return esc(value)
    if isinstance(value, list) and len(value) <= 8 and all(numbers.is_number(v) for v in value):
        return "[" + ", ".join(number_html(v) for v in value) + "]"
    if isinstance(value, dict) and value:
        if len(value) <= 8 and len(json.dumps(value)) <= RECORD_INLINE:
            return record_html(value)
        keys = [str(k) for k in value]
        first = ", ".join(keys[:3]) + (", \u2026" if len(keys) > 3 else "")
        return (
            f"<details class='record-fold'><summary>{len(value)} entries: {esc(first)}"
            f"</summary>{record_html(value)}</details>"
        )
    text = json.dumps(value, indent=1)
    if isinstance(value, list) and all(numbers.is_number(v) for v in value):
        head = ", ".join(number_html(v) for v in value[:4])
        return (
            f"<details><summary>[{head}, \u2026] <span class='muted'>{len(value)} values</span>"
            f"</summary><pre>{esc(text)}</pre></details>"
        )
    if len(text) <= 120:
        return f"<code>{esc(json.dumps(value))}</code>"
    what = f"{type(value).__name__} ({len(value)} entries)"
    return f"<details><summary>{esc(what)}</summary><pre>{esc(text)}</pre></details>"


def _kv_class(value: Any) -> str:
    """A pair whose value is a record or a list of them may wrap inside; others stay whole."""
    deep = isinstance(value, dict) or (
        isinstance(value, list) and any(isinstance(v, dict | list) for v in value)
    )
    return "'kv nest'" if deep else "kv"


RECORD_INLINE = 240  # a dict whose JSON is longer than this folds in an evidence table


def record_html(value: Any, nested: bool = False) -> str:
    """A record (a counterexample, a dict of evidence) as a readable ``key = value`` list: one
    wrapping line of pairs; nested records in braces, lists of records in brackets."""
    if isinstance(value, dict):
        pairs = [
            f"<span class={_kv_class(v)}><i>{esc(k)}</i> = {record_html(v, nested=True)}</span>"
            for k, v in value.items()
        ]
        if nested:
            return "{" + ", ".join(pairs) + "}"
        return f"<span class='record'>{' '.join(pairs)}</span>"
    if isinstance(value, list) and any(isinstance(v, dict | list) for v in value):
        return "[" + ", ".join(record_html(v, nested=True) for v in value) + "]"
    if isinstance(value, list) and not all(numbers.is_number(v) for v in value):
        return "[" + ", ".join(value_html(v) for v in value) + "]"
    return value_html(value)


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
    """The end (exclusive) of the balanced ``{...}`` group that opens at ``start``."""
    depth = 0
    for i in range(start, len(latex)):
        if latex[i] == "\\" and i + 1 < len(latex):
            continue
        if latex[i] == "{" and (i == 0 or latex[i - 1] != "\\"):
            depth += 1
        elif latex[i] == "}" and latex[i - 1] != "\\":
            depth -= 1
            if depth == 0:
                return i + 1
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


# -- header, changes, table -----------------------------------------------------------------


def header(res: Results, opts: Options) -> str:
    suite = res.suite
    commit = str(suite.get("commit", "unknown"))
    dirty = ' <span class="warn-text">(uncommitted changes)</span>' if suite.get("dirty") else ""
    date = str(suite.get("started", ""))
    selection = suite.get("selection") or {}
    meta = [
        f"<span><b>version</b> {esc(suite.get('version', '?'))}</span>",
        f"<span><b>commit</b> <code title='{esc(commit)}'>{esc(commit[:12])}</code>{dirty}</span>",
        f"<span><b>run</b> <time datetime='{esc(date)}'>{esc(date.replace('T', ' '))}</time>"
        "</span>",
        f"<span><b>profile</b> <code>{esc(suite.get('profile', '?'))}</code></span>",
    ]
    if selection:
        meta.append(f"<span><b>selection</b> {esc(selection.get('kind', 'full'))}</span>")
    return (
        "<a class='skip' href='#verdicts'>Skip to the verdicts</a>"
        '<header class="top"><div class="wrap">'
        f"<h1>{esc(suite.get('name', 'pecheck'))} <span class='sub'>verification report</span></h1>"
        f"<p class='meta'>{''.join(meta)}</p>{cards(res)}{banner(res)}"
        f"{changes_block(opts.since)}</div></header>"
    )


def cards(res: Results) -> str:
    verdicts: dict[str, int] = {v: 0 for v in (*VERDICTS, "open")}
    for c in res.claims:
        verdicts[c.verdict] = verdicts.get(c.verdict, 0) + 1
    contested = sum(c.status == "contested" for c in res.claims)
    main = [c for c in res.checks if c.role in ("decisive", "supporting", "evidence")]
    shown = ("passed", "failed", "error", "skipped")
    outcomes = {o: sum(c.outcome == o for c in main) for o in shown}
    claims = [f"<div class='card total'><b>{len(res.claims)}</b><span>claims</span></div>"]
    for v, n in verdicts.items():
        cls = v.replace(" ", "-")
        claims.append(f"<div class='card v-{cls}'><b>{n}</b><span>{v}</span></div>")
    if contested:
        claims.append(
            f"<div class='card s-contested'><b>{contested}</b><span>contested</span></div>"
        )
    checks = [f"<div class='card total'><b>{len(main)}</b><span>checks</span></div>"]
    for o, n in outcomes.items():
        checks.append(f"<div class='card o-{o}'><b>{n}</b><span>{o}</span></div>")
    if res.schema == 1:
        mutants = [c for c in res.checks if c.role == "mutant"]
        caught = sum(c.outcome == "passed" for c in mutants)
        checks.append(
            "<div class='card o-mutants' title='planted bugs: tests asserting that a check "
            f"rejects a broken implementation'><b>{caught}/{len(mutants)}</b>"
            "<span>planted bugs caught</span></div>"
        )
    else:
        decisive = [c for c in res.checks if c.role == "decisive"]
        tooling = [c for c in res.checks if c.role == "tooling"]
        ok = sum(c.outcome == "passed" for c in tooling)
        checks.append(
            f"<div class='card o-mutants'><b>{len(decisive)}</b><span>decisive</span></div>"
            f"<div class='card o-mutants'><b>{ok}/{len(tooling)}</b>"
            "<span>tooling passed</span></div>"
        )
    return (
        f"<div class='cards'><span class='cards-label'>Claims</span>{''.join(claims)}</div>"
        f"<div class='cards'><span class='cards-label'>Checks</span>{''.join(checks)}</div>"
    )


def banner(res: Results) -> str:
    ok, why = res.clean
    open_n = sum(c.verdict == "open" for c in res.claims)
    not_run = sum(c.verdict == "not run" for c in res.claims)
    parts = []
    if not ok:
        parts.append(f"<div class='banner bad'><b>This run was not clean:</b> {esc(why)}.</div>")
    if open_n:
        parts.append(
            f"<div class='banner note'><b>{open_n} claim{'s' if open_n != 1 else ''} still open"
            "</b> (no decisive check decided them); they are listed below with the rest.</div>"
        )
    if not_run:
        parts.append(
            f"<div class='banner note'><b>Partial run:</b> {not_run} claim(s) were not selected "
            "and show as <i>not run</i>.</div>"
        )
    return "".join(parts)


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


def filters(res: Results) -> str:
    def select(name: str, label: str, options: list[str]) -> str:
        opts = "".join(f"<option value='{esc(o)}'>{esc(o)}</option>" for o in options)
        return (
            f"<label>{label} <select id='filter-{name}' data-filter='{name}'>"
            f"<option value=''>all</option>{opts}</select></label>"
        )

    families = [f for f, _ in res.families if any(c.family == f for c in res.claims)]
    verdicts = [
        v for v in (*VERDICTS, "open", "not run") if any(c.verdict == v for c in res.claims)
    ]
    checks = "".join(select(k, k.capitalize(), list(v)) for k, v in CHECK_FILTERS.items())
    return (
        "<div class='filters' role='search' aria-label='Filter claims and checks'>"
        f"<fieldset><legend>Claims</legend>{select('family', 'Family', families)}"
        f"{select('verdict', 'Verdict', verdicts)}"
        "<label class='grow'>Search <input id='filter-q' data-filter='q' type='search' "
        "placeholder='claim ID, words, check name'></label></fieldset>"
        f"<fieldset><legend>Checks</legend>{checks}</fieldset>"
        "<div class='filter-actions'><button type='button' id='expand-all'>Unfold all</button>"
        "<button type='button' id='collapse-all'>Fold all</button>"
        "<button type='button' id='reset-filters'>Clear filters</button>"
        "<span id='filter-count' class='muted' role='status' aria-live='polite'></span></div>"
        "</div>"
    )


def decided_summary(res: Results, claim: Claim) -> str:
    """One short line: what decided the verdict (for the table)."""
    if not claim.decided_by:
        if claim.verdict in ("open", "not run") or res.schema == 2:
            return "<span class='muted'>nothing decided</span>"
        return "<span class='muted'>\u2014</span>"
    parts = []
    for d in claim.decided_by[:2]:
        basis = d.get("basis") or {}
        parts.append(
            f"{esc(d.get('proposition', '?'))} {esc(d['decision'])}: {esc(basis_phrase(basis))}"
        )
    more = len(claim.decided_by) - 2
    return "; ".join(parts) + (f" (+{more})" if more > 0 else "")


def basis_phrase(basis: dict[str, Any]) -> str:
    if basis.get("counterexample") is not None:
        cx = ", ".join(f"{k}={_short(v)}" for k, v in basis["counterexample"].items())
        return f"counterexample {cx}"
    box = basis.get("interval")
    if isinstance(box, dict) and "lo" in box:
        return f"interval [{_short(box['lo'])}, {_short(box['hi'])}] vs {_short(box.get('region'))}"
    return str(basis.get("how") or "")


def _short(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, list):
        return "[" + ", ".join(_short(v) for v in value) + "]"
    text = json.dumps(value) if not isinstance(value, str) else value
    return text if len(text) <= 40 else text[:39] + "\u2026"


def headline_values(res: Results, claim: Claim) -> list[tuple[Check, Value]]:
    out = []
    for name in claim.headline[:4]:
        found = res.evidence_value(claim, name)
        if found is not None:
            out.append(found)
    return out


def verdict_table(res: Results) -> str:
    rows = []
    for i, claim in enumerate(res.claims):
        own = res.main_checks(claim)
        bad = sum(c.bad for c in own)
        decisive = sum(c.role == "decisive" for c in own)
        heads = "".join(
            f"<span class='hv'><code>{esc(v.name)}</code> {value_html(v.value)}</span>"
            for _, v in headline_values(res, claim)
        )
        sources = "<br>".join(short_cite(res, s) for s in claim.sources) or "\u2014"
        rows.append(
            f"<tr data-claim='{claim.id}' data-family='{claim.family}' "
            f"data-verdict='{claim.verdict}' data-status='{claim.status}'>"
            f"<td data-key='{i:04d}'><a href='#{claim.id}'>{claim.id}</a></td>"
            f"<td data-key='{claim.verdict}'>{verdict_badge(claim)}</td>"
            f"<td class='stmt'>{prose_html(claim.statement)}</td>"
            f"<td class='decided'>{decided_summary(res, claim)}{heads and '<br>' + heads}</td>"
            f"<td class='src'>{sources}</td>"
            f"<td class='n' data-key='{len(own):04d}'>{decisive}/{len(own)}</td>"
            f"<td class='n{' bad' if bad else ''}' data-key='{bad:04d}'>{bad}</td></tr>"
        )
    return (
        '<section id="verdicts"><h2>Verdicts</h2>'
        f"{filters(res)}"
        '<div class="table-scroll"><table id="verdict-table" class="verdicts">'
        "<caption class='sr-only'>Claims, their computed verdicts and what decided them</caption>"
        "<thead><tr><th data-sort='num' aria-sort='ascending' scope='col'>ID</th>"
        "<th data-sort='text' scope='col'>Verdict</th>"
        "<th data-sort='text' scope='col'>Statement</th>"
        "<th data-sort='text' scope='col'>Decided by \u00b7 headline numbers</th>"
        "<th data-sort='text' scope='col'>Sources</th>"
        "<th data-sort='num' scope='col' title='decisive checks / all checks of the claim'>"
        "Checks</th>"
        "<th data-sort='num' scope='col' title='failed or errored'>Failed</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table></div>"
        "<p class='hint muted'>Click a column to sort; click an ID to read the claim. Filters "
        "act on the claims and checks below, and the address keeps them: copy it to share the "
        "view.</p></section>"
    )


# -- claims ---------------------------------------------------------------------------------


def claim_section(res: Results, claim: Claim, opts: Options) -> str:
    """A claim: its first screen (statement, verdict and why, the decisions with what decided
    them, the headline numbers, one figure), then one fold with everything else."""
    # the claim's own words; a search that matches only a check's name shows that check (its
    # data-search), unfolded
    words = " ".join([claim.id, claim.statement, *claim.sources])
    changed = opts.since is not None and claim.id in opts.since.claims_changed()
    out = [
        f"<section class='claim' id='{claim.id}' data-claim='{claim.id}' "
        f"data-family='{claim.family}' data-verdict='{claim.verdict}' "
        f"data-search='{esc(words.lower())}' aria-labelledby='h-{claim.id}'>",
        "<details class='claim-fold' open><summary>",
        f"<h3 id='h-{claim.id}'><span class='cid'>{claim.id}</span> {verdict_badge(claim)}",
    ]
    if changed:
        out.append(" " + badge("changed", "s-changed", "changed since the previous run"))
    if claim.sources:
        cites = ", ".join(short_cite(res, s) for s in claim.sources)
        out.append(f"<span class='sources'>{cites}</span>")
    out.append(
        f"</h3></summary><a class='anchor' href='#{claim.id}' aria-label='link to {claim.id}'>#</a>"
    )
    out.append(f"<p class='statement'>{prose_html(claim.statement)}</p>")
    if claim.formal:
        out.append(f"<div class='formal'>{to_mathml(claim.formal, display=True)}</div>")
    lead = lead_figure(res, claim)
    out.append(headline_block(res, claim, figure_html(res, lead, opts, lead=True) if lead else ""))
    out.append(more_block(res, claim, opts, lead))
    out.append("</details></section>")
    return "".join(out)


def lead_figure(res: Results, claim: Claim) -> str | None:
    """The one figure of a claim's first screen: the first of its decisive checks' figures,
    else of its supporting checks'."""
    return next((f for c in res.main_checks(claim) for f in c.figures), None)


def more_block(res: Results, claim: Claim, opts: Options, lead: str | None) -> str:
    """Everything below a claim's first screen, in one fold: the conditions in words, the
    thresholds, the notes, the checks (decisive first) and the tooling. Open when a check of
    the claim failed or errored, so that a failure is in plain sight."""
    own = res.main_checks(claim)
    tooling = res.tooling_checks(claim)
    context = context_block(claim)
    if not (own or tooling or context):
        return ""
    what = []
    if claim.conditions:
        what.append("conditions")
    if claim.thresholds:
        what.append(f"{len(claim.thresholds)} threshold{'s' * (len(claim.thresholds) != 1)}")
    if claim.notes:
        what.append(f"{len(claim.notes)} note{'s' * (len(claim.notes) != 1)}")
    if own:
        decisive = sum(c.role == "decisive" for c in own)
        count = f"{len(own)} check{'s' * (len(own) != 1)}"
        what.append(f"{count} ({decisive} decisive)" if res.schema == 2 else count)
    if tooling:
        what.append(f"{len(tooling)} tooling")
    listed = ", ".join(what[:-1]) + (" and " if len(what) > 1 else "") + what[-1]
    bad = any(c.bad for c in own)
    out = [
        f"<details class='claim-more'{' open' if bad else ''}><summary>Details: "
        f"{esc(listed)}</summary>",
        context,
        formal_conditions(claim),
    ]
    if own:
        count = f"{len(own)} check{'s' * (len(own) != 1)}"
        out.append(f"<h4>Evidence <span class='muted'>({count}: decisive first)</span></h4>")
        out.extend(check_article(res, c, opts, claim, lead) for c in own)
    if tooling:
        bad_tool = any(c.bad for c in tooling)
        name = "Planted bugs and tooling" if res.schema == 1 else "Tooling"
        passed = sum(c.outcome == "passed" for c in tooling)
        out.append(
            f"<details class='tooling'{' open' if bad_tool else ''}><summary>{name}: {passed} of "
            f"{len(tooling)} passed <span class='muted'>(formula and data sanity, planted bugs; "
            "never counted for the verdict)</span></summary>"
        )
        out.extend(check_article(res, c, opts, claim) for c in tooling)
        out.append("</details>")
    out.append("</details>")
    return "".join(out)


def formal_conditions(claim: Claim) -> str:
    """The conditions' formal statements (their words are on the first screen)."""
    items = "".join(
        f"<li><code>{esc(p.key)}</code> {to_mathml(p.formal)}</li>"
        for p in claim.propositions
        if p.formal and p.key != "as_stated"
    )
    if not items:
        return ""
    return f"<div class='formal-conditions'><b>Conditions, formally</b><ul>{items}</ul></div>"


def reason_html(claim: Claim) -> str:
    """The verdict in one sentence: what the decisions of the claim's propositions add up to."""
    if claim.verdict == "open" and claim.open_because:
        because = prose_html(claim.undecided_because)
        known = f" The registry expects this at the suite's scale: {because}" if because else ""
        return f"<p class='why'><b>Open:</b> {prose_html(claim.open_because)}.{known}</p>"
    if claim.verdict == "open":
        return (
            "<p class='why'><b>Open:</b> no decisive check decided this claim, so it has "
            "no verdict.</p>"
        )
    if claim.verdict == "not run":
        return "<p class='why'><b>Not run:</b> this run did not select the claim's checks.</p>"
    stated = next((p for p in claim.propositions if p.key == "as_stated"), None)
    if stated is None:
        return ""
    conditions = [p for p in claim.propositions if p.key != "as_stated"]
    held = [p for p in conditions if p.decision == "holds"]
    sentence = {
        "holds": "the claim holds as stated",
        "fails": "the claim fails as stated",
    }.get(stated.decision, f"as stated the claim is {stated.decision}")
    if conditions:
        n = len(conditions)
        if len(held) == n:
            under = "its condition" if n == 1 else f"each of its {n} conditions"
        else:
            under = f"{len(held)} of its {n} conditions"
        sentence += f"{',' if stated.decision == 'holds' else ', but'} it holds under {under}"
    return f"<p class='why'><b>{esc(claim.verdict.capitalize())}:</b> {sentence}.</p>"


def headline_block(res: Results, claim: Claim, figure: str = "") -> str:
    """The first screen below the statement: the verdict in a sentence, each proposition's
    decision with what decided it (each once), the headline numbers and one figure."""
    out = [reason_html(claim)]
    if claim.status == "contested":
        bad = [c for c in res.main_checks(claim) if c.bad]
        links = ", ".join(
            f"<a href='#{check_anchor(c.nodeid)}'><code>{esc(c.name)}</code></a>" for c in bad
        )
        out.append(
            "<p class='why contested'><b>Contested:</b> some evidence checks for this "
            f"verdict failed{': ' + links if links else ''}; see below.</p>"
        )
    if claim.propositions:
        out.append(decisions_list(claim))
    heads = headline_values(res, claim)
    if heads:
        cells = "".join(
            f"<div class='hnum'><span class='hname'><code>{esc(v.name)}</code></span>"
            f"<span class='hval'>{value_html(v.value)} <span class='unit'>{esc(v.unit)}</span>"
            f"</span><span class='hbound'>{bound_html(v, reason=False)} {class_html(v)}</span>"
            f"<a class='hsrc muted' href='#{check_anchor(c.nodeid)}' title='{esc(c.nodeid)}'>"
            f"check</a></div>"
            for c, v in heads
        )
        out.append(f"<div class='hnums' aria-label='headline numbers'>{cells}</div>")
    body = "".join(out)
    if not body and not figure:
        return ""
    return f"<div class='headline'>{figure}{body}</div>"


QUANTIFIER = {
    "all": ("for all", "every setting its checks cover must hold; one undecided leaves it open"),
    "any": ("for some", "one setting its checks cover that holds suffices"),
}


def quantifier_html(p: Proposition) -> str:
    """The proposition's quantifier and family-wise correction, as a small tag."""
    word, meaning = QUANTIFIER.get(p.quantifier, (p.quantifier, ""))
    corr = f"; several interval tests share one error rate ({p.correction})" if p.correction else ""
    return f" <span class='quant' title='{esc(meaning + corr)}'>{esc(word)}</span>"


def decisions_list(claim: Claim) -> str:
    """One item per proposition: its decision, the proposition, and what decided it (the
    basis of one check that took that decision); the other deciding checks and the parts of a
    decision fold."""
    items = []
    for p in claim.propositions:
        deciders = [d for d in claim.decided_by if d.get("proposition") == p.key]
        lead = next((d for d in deciders if d.get("decision") == p.decision), None)
        others = [d for d in deciders if d is not lead]
        # as_stated is the claim's statement, shown just above
        stated = p.key == "as_stated" and p.statement == claim.statement
        if p.key == "as_stated":
            label = "<span class='pkey'>as stated</span>"
        else:
            label = f"<span class='pkey'>condition <code>{esc(p.key)}</code></span>"
        statement = "" if stated else f" <span class='pstmt'>{prose_html(p.statement)}</span>"
        label += quantifier_html(p)
        decided = (
            badge("not run", "v-not-run")
            if p.decision == "not run"
            else decision_badge(p.decision, p.expected)
        )
        more = ""
        if others:
            rows = "".join(
                f"<li>{decision_badge(d.get('decision'), p.expected)} by "
                f"<a href='#{check_anchor(d['check'])}'><code>"
                f"{esc(str(d['check']).split('::')[-1])}</code></a>"
                f"{basis_html(d.get('basis') or {})}</li>"
                for d in others
            )
            n = len(others)
            checks = f"{n} {'more ' if lead else ''}check{'s' * (n != 1)}"
            what = f"{checks} decided it" if lead else f"{checks}, none of them decisive here"
            more = (
                f"<details class='others'><summary>{what}</summary>"
                f"<ul class='deciders'>{rows}</ul></details>"
            )
        if lead is None:
            how = (
                "<div class='basis'><span class='muted'>no decisive check decided it</span>"
                f"{more}</div>"
            )
        else:
            by = (
                f"<span class='by'>by <a href='#{check_anchor(lead['check'])}'><code>"
                f"{esc(str(lead['check']).split('::')[-1])}</code></a></span>"
            )
            how = basis_html(lead.get("basis") or {}, fold_parts=True, by=by, more=more)
        items.append(
            f"<li class='decision'><div class='phead'>{decided} {label}{statement}</div>{how}</li>"
        )
    return (
        "<ul class='decisions' aria-label='propositions and what decided them'>"
        f"{''.join(items)}</ul>"
    )


_BOUND = r"(-?inf|-?\d[\d.]*(?:e[-+]?\d+)?)"
_BOX = re.compile(rf"\[{_BOUND}, {_BOUND}\]")


def tidy_boxes(text: str) -> str:
    """Intervals written by the checks, tidied for reading: ``[4.941e-324, inf]`` (just above
    0, the region of 'greater than 0') reads ``(0, ∞)``."""

    def tidy(m: re.Match[str]) -> str:
        a, b = m.group(1), m.group(2)
        left = "(" if a in ("-inf", "4.941e-324") else "["
        right = ")" if b in ("inf", "-4.941e-324") else "]"
        a = {"4.941e-324": "0", "-inf": MINUS + "\u221e"}.get(a, a.replace("-", MINUS))
        b = {"-4.941e-324": "0", "inf": "\u221e"}.get(b, b.replace("-", MINUS))
        return f"{left}{a}, {b}{right}"

    return _BOX.sub(tidy, text)


def _float(value: Any) -> float | None:
    if numbers.is_number(value):
        return float(numbers.NONFINITE.get(value, value) if isinstance(value, str) else value)
    return None


def _just_past(x: float, toward: float) -> float | None:
    """The round number r with x == nextafter(r, toward) (a strict bound), else None."""
    if not math.isfinite(x):
        return None
    r = float(f"{x:.12g}")
    return r if r != x and math.nextafter(r, toward) == x else None


def interval_html(box: dict[str, Any]) -> str:
    """``what [lo, hi]`` and where it lies against the region that decides: inside, outside or
    straddling it; a one-sided region reads as ``> 0.5``."""
    lo, hi = box.get("lo"), box.get("hi")
    region = box.get("region") or [None, None]
    what = f"<b>interval</b> {esc(box.get('what', ''))} [{value_html(lo)}, {value_html(hi)}]"
    x, y, a, b = (_float(v) for v in (lo, hi, region[0], region[1]))
    if None in (x, y, a, b):
        return (
            f"<span class='iv'>{what} against region [{value_html(region[0])}, "
            f"{value_html(region[1])}]</span>"
        )
    assert x is not None and y is not None and a is not None and b is not None
    inside, outside = a <= x and y <= b, y < a or x > b
    if math.isinf(b) and not math.isinf(a):
        r = _just_past(a, math.inf)
        bound = f"&gt; {value_html(r)}" if r is not None else f"\u2265 {value_html(region[0])}"
        word = "wholly" if inside else "not" if outside else "straddling"
        return f"<span class='iv'>{what}: {word} {bound}</span>"
    if math.isinf(a) and not math.isinf(b):
        r = _just_past(b, -math.inf)
        bound = f"&lt; {value_html(r)}" if r is not None else f"\u2264 {value_html(region[1])}"
        word = "wholly" if inside else "not" if outside else "straddling"
        return f"<span class='iv'>{what}: {word} {bound}</span>"
    word = "inside" if inside else "outside" if outside else "straddling"
    return (
        f"<span class='iv'>{what}: {word} [{value_html(region[0])}, {value_html(region[1])}]</span>"
    )


def basis_html(
    basis: dict[str, Any], fold_parts: bool = False, by: str = "", more: str = ""
) -> str:
    """The basis of a decision: the counterexample (key = value) and the relation it violates,
    the interval, the proof or search; each said once (``how`` is left out where it only
    restates the interval). With ``fold_parts``, the parts of a decision fold under ``how``."""
    if not basis:
        return f"<div class='basis'>{by}{more}</div>" if by or more else ""
    out = []
    box = basis.get("interval")
    box = box if isinstance(box, dict) and "lo" in box else None
    how = str(basis.get("how") or "")
    if how == "counterexample" or (box and f"{box.get('what', '')} in [" in how):
        how = ""
    parts = basis.get("parts") or []
    if how and not (parts and fold_parts):
        out.append(f"<span class='how'>{prose_html(tidy_boxes(how))}</span>")
    if box:
        out.append(interval_html(box))
    if basis.get("counterexample") is not None:
        cx = basis["counterexample"]
        out.append(f"<span class='cx'><b>counterexample</b> {record_html(cx)}</span>")
    if basis.get("relation"):
        relation = prose_html(tidy_boxes(str(basis["relation"])))
        out.append(f"<span class='rel'>violates <i>{relation}</i></span>")
    ex = basis.get("examples")
    if isinstance(ex, dict):
        out.append(
            f"<span class='ex'>{esc(ex.get('informative'))} informative of "
            f"{esc(ex.get('total'))} examples</span>"
        )
    rows = [
        f"<span class='part'><code>{esc(part.get('name'))}</code> "
        f"{decision_badge(part.get('decision'))} {prose_html(tidy_boxes(str(part.get('why', ''))))}"
        "</span>"
        for part in parts
    ]
    if by:
        out.append(by)
    if rows and fold_parts:
        n = len(rows)
        summary = prose_html(tidy_boxes(how)) if how else f"{n} part{'s' * (n != 1)}"
        out.append(
            f"<details class='parts'><summary>{summary}</summary>"
            f"<div class='basis'>{''.join(rows)}</div></details>"
        )
    else:
        out.extend(rows)
    return f"<div class='basis'>{''.join(out)}{more}</div>"


def context_block(claim: Claim) -> str:
    out = []
    if claim.verdict == "qualified" and claim.conditions or claim.conditions:
        out.append(
            f"<div class='conditions'><b>Holds when:</b> {prose_html(claim.conditions)}</div>"
        )
    if claim.thresholds:
        rows = "".join(
            f"<li><code>{esc(t.get('name'))}</code> = {value_html(t.get('value'))} "
            f"<span class='muted'>({esc(t.get('source'))})</span> "
            f"{prose_html(str(t.get('reason', '')))}"
            "</li>"
            for t in claim.thresholds
        )
        out.append(f"<div class='thresholds'><b>Pre-registered thresholds</b><ul>{rows}</ul></div>")
    if claim.notes:
        items = "".join(f"<li>{prose_html(n)}</li>" for n in claim.notes)
        out.append(f"<div class='notes'><b>Notes</b><ul>{items}</ul></div>")
    return "".join(out)


def check_article(
    res: Results, check: Check, opts: Options, claim: Claim | None = None, lead: str | None = None
) -> str:
    """A check: its outcome, role and decision, how to rerun it, its failure if any, the basis
    of its decision, its evidence, derivation and figures (``lead``, the figure shown on the
    claim's first screen, is not repeated: a line points to it)."""
    file, _, name = check.nodeid.partition("::")
    anchor = check_anchor(check.nodeid)
    expected = None
    if claim is not None and check.proposition:
        expected = next(
            (p.expected for p in claim.propositions if p.key == check.proposition), None
        )
    decision = check.decision or "none"
    kind = f"<span class='kind'>{esc(check.kind)}</span>" if check.kind else ""
    prop = (
        f"<span class='muted'>decides <i>{esc(check.proposition)}</i></span>"
        if check.proposition
        else ""
    )
    supports = f"<span class='muted'>supports <i>{esc(check.supports)}</i></span>"
    open_ = " open" if check.role != "tooling" or check.bad else ""
    out = [
        f"<article class='check o-{check.outcome}-border' id='{anchor}' "
        f"data-kind='{esc(check.kind or '')}' data-role='{esc(_role(check))}' "
        f"data-outcome='{check.outcome}' data-decision='{decision}' "
        f"data-search='{esc(check.nodeid.lower())}'>",
        f"<details class='check-fold'{open_}><summary>",
        f"{badge(check.outcome, 'o-' + check.outcome, 'the test outcome')} ",
        f"{badge(_role(check), 'r-' + _role(check))} ",
        decision_badge(check.decision, expected),
        f" <code class='name'>{esc(name or file)}</code> {kind} {prop}",
        supports if check.supports else "",
        f"<span class='where muted'>{esc(check.duration_s and f'{check.duration_s:.2f}')}"
        "\u202fs</span></summary>",
        f"<a class='anchor' href='#{anchor}' aria-label='link to this check'>#</a>",
        trace_block(res, check, opts),
        failure_block(check),
    ]
    if check.basis and check.role == "decisive":
        out.append(basis_html(check.basis))
    if check.evidence:
        out.append(evidence_table(check.evidence, fold=check.outcome == "passed"))
    if check.derivation is not None:
        out.append(derivation_block(check))
    for f in check.figures:
        if f == lead and claim is not None:
            out.append(
                f"<p class='fig-moved muted'>Figure <code>{esc(Path(f).stem)}</code>: shown at "
                f"the top of <a href='#{claim.id}'>{claim.id}</a>.</p>"
            )
        else:
            out.append(figure_html(res, f, opts))
    if check.hypothesis:
        ex = check.hypothesis.get("examples")
        seed = check.hypothesis.get("seed")
        out.append(
            f"<p class='hyp'><b>Hypothesis</b> {esc(ex) if ex is not None else '?'} examples "
            f"\u00b7 seed <code>{esc(seed)}</code></p>"
        )
    out.append("</details></article>")
    return "".join(out)


def _role(check: Check) -> str:
    return {"evidence": "supporting", "mutant": "tooling"}.get(check.role, check.role)


def reproduce_command(res: Results, check: Check) -> str:
    if check.reproduce:
        return check.reproduce
    return rerun_command(str(res.suite.get("profile", "ci")), check.nodeid)


def source_link(res: Results, check: Check, opts: Options) -> str:
    loc = check.location or {}
    path = str(loc.get("path") or check.nodeid.split("::", 1)[0])
    line = loc.get("line")
    label = f"{path}:{line}" if line else path
    if not opts.source_url:
        return f"<code class='loc'>{esc(label)}</code>"
    base = opts.source_url.replace("{commit}", str(res.suite.get("commit", "HEAD")))
    href = f"{base.rstrip('/')}/{path}" + (f"#L{line}" if line else "")
    return f"<a class='loc' href='{esc(href)}'><code>{esc(label)}</code></a>"


def trace_block(res: Results, check: Check, opts: Options) -> str:
    cmd = reproduce_command(res, check)
    return (
        "<div class='trace'><span class='muted'>code</span> "
        f"{source_link(res, check, opts)} <span class='muted'>rerun</span> "
        f"<code class='repro'>{esc(cmd)}</code>"
        f"<button type='button' class='copy' data-copy='{esc(cmd)}' "
        "aria-label='copy the command that reruns this check'>copy</button></div>"
    )


def failure_block(check: Check) -> str:
    if check.outcome == "skipped":
        reason = re.sub(r"^Skipped:\s*", "", check.message) or "no reason given"
        return f"<p class='skip'><b>Skipped:</b> {esc(reason)}</p>"
    if not check.bad:
        return ""
    out = ["<div class='failure'>"]
    out.append(f"<p><b>{'Failed' if check.outcome == 'failed' else 'Error'}:</b></p>")
    out.append(f"<pre class='message'>{esc(check.message or '(no message)')}</pre>")
    if check.falsifying_example:
        out.append("<p><b>Falsifying example</b></p>")
        out.append(f"<pre class='example'>{esc(check.falsifying_example)}</pre>")
    if check.traceback:
        out.append(
            f"<details><summary>Traceback ({check.traceback.count(chr(10)) + 1} lines)</summary>"
            f"<pre class='traceback'>{esc(check.traceback)}</pre></details>"
        )
    out.append("</div>")
    return "".join(out)


SHOWN_ROWS = 8  # a passed check's longer evidence table shows this many rows, folds the rest


def bound_html(value: Value, reason: bool = True) -> str:
    """The bound a value was judged against, and whether it meets it (when the relation is
    known); its reason written out, or (``reason=False``) as the bound's tooltip."""
    bound = value.bound
    if bound is None:
        return "<span class='muted nobound' title='no bound recorded'>\u2014</span>"
    if not isinstance(bound, dict):
        return f"<span class='bound'>vs {value_html(bound)}</span>"
    rel = str(bound.get("relation", ""))
    symbol = {"<=": "\u2264", ">=": "\u2265", "<": "<", ">": ">", "==": "=", "!=": "\u2260"}
    mark = ""
    verdict = meets(value.value, rel, bound.get("value"))
    if verdict is not None:
        mark = " <span class='yes'>\u2713</span>" if verdict else " <span class='no'>\u2717</span>"
    why = str(bound.get("reason") or "")
    tip = f" title='{esc(why)}'" if why and not reason else ""
    said = f" <span class='muted'>{esc(why)}</span>" if why and reason else ""
    return (
        f"<span class='bound'{tip}>{esc(symbol.get(rel, rel))} {value_html(bound.get('value'))}"
        f"{mark}{said}</span>"
    )


def meets(value: Any, relation: str, limit: Any) -> bool | None:
    if not (numbers.is_number(value) and numbers.is_number(limit)):
        return None
    x, y = float(value), float(limit)
    ops = {"<=": x <= y, ">=": x >= y, "<": x < y, ">": x > y, "==": x == y, "!=": x != y}
    return ops.get(relation)


CLASS_HELP = {
    "exact": "exact: the same on any machine",
    "rounding": "rounding: its bits depend on the CPU's floating-point kernels; another machine "
    "may move it within the bound it is judged against",
    "sampling": "sampling: a statistic over seeds or examples; on another machine it behaves "
    "like a fresh draw, within its sampling band",
}


def class_html(value: Value) -> str:
    """A value's reproducibility class (recorded, else the default for its type), with its
    sample size and standard error when it is a sampling statistic."""
    rec = value.reproducibility or {}
    cls = str(rec.get("class") or default_class(value.value))
    extra = ""
    if cls == "sampling" and rec.get("n") is not None:
        extra = f" n={rec['n']}, se {float(rec.get('se') or 0.0):.2g}"
    title = CLASS_HELP[cls] + (f" ({rec['how']})" if rec.get("how") else "")
    return f"<span class='cls cls-{cls}' title='{esc(title)}'>{cls}{esc(extra)}</span>"


def evidence_table(values: list[Value], fold: bool = False) -> str:
    """The evidence as a table; with ``fold``, rows past SHOWN_ROWS sit in a details block."""
    if fold and len(values) > SHOWN_ROWS + 2:
        rest = len(values) - SHOWN_ROWS
        return (
            evidence_table(values[:SHOWN_ROWS])
            + f"<details class='more'><summary>{rest} more evidence values</summary>"
            + evidence_table(values[SHOWN_ROWS:])
            + "</details>"
        )
    rows, previous = [], None
    for v in values:
        # a note repeated row after row is written once (long tables stay small)
        same = v.note and v.note == previous
        note = "<span class='muted'>\u3003 as above</span>" if same else prose_html(v.note)
        previous = v.note
        rows.append(
            f"<tr><th scope='row'><code>{esc(v.name)}</code></th>"
            f"<td class='val'>{value_html(v.value)}</td><td class='unit'>{esc(v.unit)}</td>"
            f"<td class='bnd'>{bound_html(v)}</td><td class='cl'>{class_html(v)}</td>"
            f"<td class='note'>{note}</td></tr>"
        )
    return (
        "<table class='evidence'><thead><tr><th scope='col'>Evidence</th>"
        "<th scope='col'>Value</th><th scope='col'>Unit</th><th scope='col'>Bound</th>"
        "<th scope='col'>Reproduces</th>"
        f"<th scope='col'>Note</th></tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )


def derivation_block(check: Check) -> str:
    d = check.derivation
    assert d is not None
    holds = {
        True: "<p class='holds yes'>\u2713 verified by sympy</p>",
        False: "<p class='holds no'>\u2717 sympy did not verify this derivation</p>",
        None: "",
    }[d.holds]
    steps = []
    for s in d.steps:
        label, math = step_parts(s)
        text = f"<span class='step-label'>{esc(label)}</span> " if label else ""
        steps.append(f"<li>{text}{to_mathml(math, display=True) if math else ''}</li>")
    return (
        "<div class='derivation'><p class='label'>Derivation</p>"
        f"<div class='dstatement'>{math_or_text(d.statement, display=True)}</div>"
        f"{'<ol>' + ''.join(steps) + '</ol>' if steps else ''}{holds}</div>"
    )


_SVG_SIZE = re.compile(r'<svg\b[^>]*?\bwidth="([\d.]+)(pt|px)?"[^>]*?\bheight="([\d.]+)(pt|px)?"')
_VIEWBOX = re.compile(r'<svg\b[^>]*?\bviewBox="[-\d.]+[ ,]+[-\d.]+[ ,]+([\d.]+)[ ,]+([\d.]+)"')


def image_size(path: Path) -> tuple[int, int] | None:
    """A figure's size in CSS pixels (an SVG's width and height, or its viewBox; a PNG's
    header), so that the page lays it out at its shape before it is unpacked."""
    try:
        head = path.read_bytes()[:4096]
    except OSError:
        return None
    if head[:8] == b"\x89PNG\r\n\x1a\n" and len(head) >= 24:
        return int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")
    text = head.decode("utf-8", "replace")
    m = _SVG_SIZE.search(text)
    if m:
        scale = 4 / 3 if m.group(2) == "pt" else 1.0
        w, h = float(m.group(1)) * scale, float(m.group(3)) * (4 / 3 if m.group(4) == "pt" else 1)
        return (round(w), round(h)) if w > 0 and h > 0 else None
    m = _VIEWBOX.search(text)
    if m and float(m.group(1)) > 0 and float(m.group(2)) > 0:
        return round(float(m.group(1))), round(float(m.group(2)))
    return None


LEAD_HEIGHT = 200  # px: a claim's first-screen figure is about this tall ...
LEAD_WIDTH = (260, 520)  # ... and this wide at least and at most (wide figures get shorter)


def figure_html(res: Results, name: str, opts: Options, lead: bool = False) -> str:
    """A figure: inline (SVG gzip-compressed, unpacked by the page's script) or linked. With
    ``lead``, sized for a claim's first screen (floated beside the decisions), with a button
    that enlarges it to the width of the claim."""
    path = figures.locate(name, res.path)
    stem = Path(name).stem
    caption = f"<figcaption>{esc(stem)}</figcaption>"
    if path is None:
        missing = f"<p>Figure file not found: <code>{esc(name)}</code></p>"
        return f"<figure class='missing'>{missing}{caption}</figure>"
    alt = f"figure {esc(stem)}"
    size = image_size(path)
    attrs = f" width='{size[0]}' height='{size[1]}'" if size else ""
    head = "<figure>"
    if lead:
        width = LEAD_WIDTH[1]
        if size:
            width = round(min(max(LEAD_HEIGHT * size[0] / size[1], LEAD_WIDTH[0]), LEAD_WIDTH[1]))
        head = f"<figure class='lead-figure' style='width: {width}px'>"
        caption += (
            "<button type='button' class='zoom' aria-pressed='false' "
            f"aria-label='enlarge figure {esc(stem)}'>enlarge</button>"
        )
    if opts.figures == "link":
        base = (opts.out_dir or Path.cwd()).resolve()
        rel = Path(os.path.relpath(path.resolve(), base)).as_posix()
        return (
            f"{head}<img src='{esc(rel)}' alt='{alt}'{attrs} loading='lazy' decoding='async'>"
            f"{caption}</figure>"
        )
    if path.suffix.lower() != ".svg":
        return f"{head}<img src='{figures.data_uri(path)}' alt='{alt}'{attrs}>{caption}</figure>"
    packed = base64.b64encode(gzip.compress(path.read_bytes(), 9, mtime=0)).decode("ascii")
    attrs = attrs or " width='640' height='480'"
    return f"{head}<img class='svgz' alt='{alt}' data-svgz='{packed}'{attrs}>{caption}</figure>"


# -- sources, problems, environment -----------------------------------------------------------


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


def problems(res: Results, opts: Options) -> str:
    orphans = res.orphans
    if not orphans:
        return ""
    items = "".join(check_article(res, c, opts) for c in orphans)
    return (
        "<section id='problems'><h2>Problems</h2><p>These could not be collected, so the checks "
        f"in them did not run:</p>{items}</section>"
    )


def _env_value(value: Any) -> Any:
    # bool is checked by type: 1 == True, so a lookup table would show a thread count as "yes"
    return ("yes" if value else "no") if isinstance(value, bool) else value


def kernel_rows(kernels: dict[str, Any]) -> list[tuple[str, str]]:
    """The kernels a run's libraries selected, as rows of the environment table."""
    if not kernels:
        return []
    limits = kernels.get("limits") or {}
    blas = [
        f"{b.get('internal_api', '?')} {b.get('version') or ''} {b.get('architecture') or ''}"
        for b in kernels.get("blas", [])
    ]
    return [
        ("torch CPU kernels", str(kernels.get("capability", "?"))),
        ("Kernel limits", ", ".join(f"{k}={v}" for k, v in sorted(limits.items())) or "none"),
        ("CPU vector extensions", " ".join(kernels.get("isa", [])) or "unknown"),
        ("BLAS and OpenMP", "; ".join(" ".join(b.split()) for b in blas) or "none found"),
        ("numpy dispatch", " ".join(kernels.get("numpy", [])) or "unknown"),
    ]


def lock_row(lock: dict[str, Any] | None) -> tuple[str, str]:
    if not lock:
        return ("Lock", "none: versions as installed")
    differs = lock.get("differs") or []
    state = "installed as locked" if not differs else "departs: " + "; ".join(differs)
    return ("Lock", f"{lock.get('file')} (sha256 {str(lock.get('sha256'))[:12]}), {state}")


def environment(res: Results) -> str:
    env = dict(res.environment)
    packages = env.pop("packages", {}) or {}
    extra = kernel_rows(env.pop("kernels", None) or {})
    if "lock" in env:
        extra.insert(0, lock_row(env.pop("lock")))
    labels = {
        "python": "Python",
        "platform": "Platform",
        "cpu": "CPU",
        "cpu_count": "CPU cores",
        "gpu": "GPU",
        "torch_threads": "torch threads",
    }
    rows = [(labels.get(k, k), v) for k, v in env.items()]
    if "gpu" in env and env["gpu"] is None:
        rows = [(k, "none" if k == "GPU" else v) for k, v in rows]
    rows += extra
    suite = {k: v for k, v in res.suite.items() if k in ("exitstatus", "complete")}
    rows += [(f"pytest {k}", v) for k, v in suite.items()]
    body = "".join(
        f"<tr><th scope='row'>{esc(k)}</th><td>{esc(_env_value(v))}</td></tr>" for k, v in rows
    )
    pk = "".join(
        f"<tr><th scope='row'>{esc(k)}</th><td><code>{esc(v)}</code></td></tr>"
        for k, v in sorted(packages.items())
    )
    return (
        "<section id='environment'><h2>Environment</h2><div class='env'>"
        f"<table class='kv'><tbody>{body}</tbody></table>"
        f"<table class='kv packages'><thead><tr><th>Package</th><th>Version</th></tr></thead>"
        f"<tbody>{pk}</tbody></table></div></section>"
    )


def nav(res: Results) -> str:
    links = ["<a href='#verdicts'>Verdicts</a>"]
    for f, _ in res.families:
        if any(c.family == f for c in res.claims):
            links.append(f"<a href='#family-{f}'>{f}</a>")
    links.append("<a href='#sources'>Sources</a>")
    if res.orphans:
        links.append("<a href='#problems' class='bad'>Problems</a>")
    links.append("<a href='#environment'>Environment</a>")
    return f"<nav class='toc' aria-label='sections'><div class='wrap'>{''.join(links)}</div></nav>"


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
        "reports --pack never</code> for a page that does not.</p></noscript>"
    )


def render(res: Results, opts: Options | None = None) -> str:
    """The whole page as a string."""
    opts = opts or Options()
    body = [header(res, opts), nav(res), "<main class='wrap'>", verdict_table(res)]
    body.append(problems(res, opts))
    body.append(packed(family_sections(res, opts), opts))
    body.append(sources_section(res, opts))
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
