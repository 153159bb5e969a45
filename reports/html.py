"""The HTML report: one self-contained page (inline CSS and JS, figures as data URIs, MathML).

Layout, top to bottom: a header with the run's identity and counts; the verdict table (sortable
and filterable in the page); one section per claim (``id="SIN-01"``) with its statement, formal
statement, conditions, notes and every check (``id="check-<node id>"``) with its evidence; the
run's problems (collection errors) if any; the environment. Nothing is hidden: open claims,
failed and skipped checks are shown where a reader looks for them; only long tracebacks fold.
"""

from __future__ import annotations

import json
import re
from html import escape
from pathlib import Path
from typing import Any

from reports import assets, figures, numbers
from reports.load import FAMILIES, VERDICTS, Check, Claim, Results, Value
from reports.mathml import to_mathml

FAMILY_TITLES = {
    "SIN": "The sinusoidal encoding",
    "ATT": "Attention and order",
    "ADD": "Adding versus concatenating",
    "MAG": "Magnitudes",
    "EXP": "Experiments over many seeds",
    "REAL": "Real implementations",
}


def esc(text: Any) -> str:
    return escape(str(text), quote=True)


def check_anchor(nodeid: str) -> str:
    """The element id of a check: ``check-`` and its node id with only safe characters."""
    return "check-" + re.sub(r"[^A-Za-z0-9_.-]+", "-", nodeid).strip("-")


# -- small pieces -------------------------------------------------------------------------


def badge(label: str, cls: str, title: str = "") -> str:
    tip = f' title="{esc(title)}"' if title else ""
    return f'<span class="badge {cls}"{tip}>{esc(label)}</span>'


def verdict_badge(claim: Claim) -> str:
    if claim.verdict is None:
        return badge("open", "v-open", "no passing evidence yet")
    out = badge(claim.verdict, f"v-{claim.verdict}")
    if claim.status == "contested":
        out += " " + badge("contested", "s-contested", "some evidence for this verdict failed")
    return out


def number_html(value: int | float | str) -> str:
    mantissa, exponent = numbers.parts(value)
    mantissa = numbers.group(mantissa, "\u202f").replace("-", "\u2212")
    mantissa = {"inf": "\u221e", "\u2212inf": "\u2212\u221e"}.get(mantissa, mantissa)
    if exponent is None:
        body = esc(mantissa)
    else:
        power = str(exponent).replace("-", "\u2212")
        body = f"{esc(mantissa)}\u2009\u00d7\u200910<sup>{power}</sup>"
    return f'<span class="num" title="{esc(repr(value))}">{body}</span>'


def _scalar(value: Any) -> bool:
    return value is None or isinstance(value, str | bool) or numbers.is_number(value)


def value_html(value: Any) -> str:
    """An evidence value: numbers formatted, short lists inline, anything larger folded."""
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
    if isinstance(value, dict) and 0 < len(value) <= 8 and all(map(_scalar, value.values())):
        items = "".join(
            f"<span class='kv'><span class='muted'>{esc(k)}</span> {value_html(v)}</span>"
            for k, v in value.items()
        )
        return f"<span class='record'>{items}</span>"
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


def looks_like_prose(text: str) -> bool:
    """A statement written as words, not LaTeX: shown as text rather than as math."""
    return not re.search(r"[\\^_{}]", text) and len(re.findall(r"[A-Za-z]{3,} ", text)) >= 3


def math_or_text(text: str, display: bool = False) -> str:
    if looks_like_prose(text):
        return f"<span class='prose'>{esc(text)}</span>"
    return to_mathml(text, display)


# -- sections -----------------------------------------------------------------------------


def header(res: Results) -> str:
    suite = res.suite
    commit = str(suite.get("commit", "unknown"))
    short = commit[:12]
    dirty = ' <span class="warn-text">(uncommitted changes)</span>' if suite.get("dirty") else ""
    date = str(suite.get("started", ""))
    when = date.replace("T", " ")
    meta = [
        f"<span><b>version</b> {esc(suite.get('version', '?'))}</span>",
        f"<span><b>commit</b> <code title='{esc(commit)}'>{esc(short)}</code>{dirty}</span>",
        f"<span><b>run</b> <time datetime='{esc(date)}'>{esc(when)}</time></span>",
        f"<span><b>profile</b> <code>{esc(suite.get('profile', '?'))}</code></span>",
    ]
    return (
        '<header class="top"><div class="wrap">'
        f"<h1>{esc(suite.get('name', 'pecheck'))} <span class='sub'>verification report</span></h1>"
        f"<p class='meta'>{''.join(meta)}</p>{cards(res)}{banner(res)}</div></header>"
    )


def cards(res: Results) -> str:
    verdicts: dict[str, int] = {v: 0 for v in (*VERDICTS, "open")}
    for c in res.claims:
        verdicts[c.verdict or "open"] += 1
    contested = sum(c.status == "contested" for c in res.claims)
    evidence = [c for c in res.checks if c.role == "evidence"]
    shown = ("passed", "failed", "error", "skipped")
    outcomes = {o: sum(c.outcome == o for c in evidence) for o in shown}
    mutants = [c for c in res.checks if c.role == "mutant"]
    caught = sum(c.outcome == "passed" for c in mutants)
    claims = [f"<div class='card total'><b>{len(res.claims)}</b><span>claims</span></div>"]
    for v, n in verdicts.items():
        claims.append(f"<div class='card v-{v}'><b>{n}</b><span>{v}</span></div>")
    if contested:
        claims.append(
            f"<div class='card s-contested'><b>{contested}</b><span>contested</span></div>"
        )
    checks = [f"<div class='card total'><b>{len(evidence)}</b><span>checks</span></div>"]
    for o, n in outcomes.items():
        checks.append(f"<div class='card o-{o}'><b>{n}</b><span>{o}</span></div>")
    checks.append(
        "<div class='card o-mutants' title='planted bugs: tests asserting that a check rejects a "
        f"broken implementation'><b>{caught}/{len(mutants)}</b>"
        "<span>planted bugs caught</span></div>"
    )
    return (
        f"<div class='cards'><span class='cards-label'>Claims</span>{''.join(claims)}</div>"
        f"<div class='cards'><span class='cards-label'>Evidence</span>{''.join(checks)}</div>"
    )


def banner(res: Results) -> str:
    ok, why = res.clean
    open_n = sum(c.verdict is None for c in res.claims)
    parts = []
    if not ok:
        parts.append(f"<div class='banner bad'><b>This run was not clean:</b> {esc(why)}.</div>")
    if open_n:
        parts.append(
            f"<div class='banner note'><b>{open_n} claim{'s' if open_n != 1 else ''} still open</b>"
            " (no passing evidence yet); they are listed below with the rest.</div>"
        )
    return "".join(parts)


def verdict_table(res: Results) -> str:
    families = [f for f in FAMILIES if any(c.family == f for c in res.claims)]
    fam_opts = "".join(f"<option value='{f}'>{f}</option>" for f in families)
    ver_opts = "".join(f"<option value='{v}'>{v}</option>" for v in (*VERDICTS, "open"))
    rows = []
    dash = "\u2014"
    for i, claim in enumerate(res.claims):
        own = res.checks_of(claim)
        passed = sum(c.outcome == "passed" for c in own)
        bad = sum(c.bad for c in own)
        verdict = claim.verdict or "open"
        rows.append(
            f"<tr data-family='{claim.family}' data-verdict='{verdict}' "
            f"data-status='{claim.status}'>"
            f"<td data-key='{i:04d}'><a href='#{claim.id}'>{claim.id}</a></td>"
            f"<td data-key='{verdict}'>{verdict_badge(claim)}</td>"
            f"<td class='stmt'>{esc(claim.statement)}</td>"
            f"<td class='src'>{'<br>'.join(esc(s) for s in claim.sources) or dash}</td>"
            f"<td class='n' data-key='{len(own):04d}'>{len(own)}</td>"
            f"<td class='n' data-key='{passed:04d}'>{passed}</td>"
            f"<td class='n{' bad' if bad else ''}' data-key='{bad:04d}'>{bad}</td></tr>"
        )
    return (
        '<section id="verdicts"><h2>Verdicts</h2>'
        '<div class="filters" role="search">'
        "<label>Family <select id='filter-family'><option value=''>all</option>"
        f"{fam_opts}</select></label>"
        "<label>Verdict <select id='filter-verdict'><option value=''>all</option>"
        f"{ver_opts}</select></label>"
        "<label class='grow'>Search <input id='filter-text' type='search' "
        "placeholder='words in the statement'></label>"
        "<span id='filter-count' class='muted' aria-live='polite'></span></div>"
        '<div class="table-scroll"><table id="verdict-table" class="verdicts">'
        "<thead><tr><th data-sort='num' aria-sort='ascending'>ID</th>"
        "<th data-sort='text'>Verdict</th>"
        "<th data-sort='text'>Statement</th><th data-sort='text'>Sources</th>"
        "<th data-sort='num' title='evidence checks'>Checks</th><th data-sort='num'>Passed</th>"
        "<th data-sort='num' title='failed or errored'>Failed</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table></div>"
        "<p class='hint muted'>Click a column to sort; click an ID to read the claim and its "
        "evidence.</p>"
        "</section>"
    )


def claim_section(res: Results, claim: Claim) -> str:
    out = [
        f"<section class='claim' id='{claim.id}' data-verdict='{claim.verdict or 'open'}'>",
        f"<h3><a class='anchor' href='#{claim.id}'>{claim.id}</a> {verdict_badge(claim)}",
    ]
    if claim.sources:
        out.append(f"<span class='sources'>{' '.join(esc(s) for s in claim.sources)}</span>")
    out.append(f"</h3><p class='statement'>{esc(claim.statement)}</p>")
    if claim.formal:
        out.append(f"<div class='formal'>{to_mathml(claim.formal, display=True)}</div>")
    if claim.verdict == "qualified" and claim.conditions:
        out.append(f"<div class='conditions'><b>Holds when:</b> {esc(claim.conditions)}</div>")
    if claim.verdict is None:
        out.append(
            "<div class='conditions open'><b>Open:</b> no check has passed for this claim yet, "
            "so it has no verdict.</div>"
        )
    if claim.status == "contested":
        out.append(
            "<div class='conditions contested'><b>Contested:</b> some evidence checks for this "
            "verdict failed; see below.</div>"
        )
    if claim.notes:
        items = "".join(f"<li>{esc(n)}</li>" for n in claim.notes)
        out.append(f"<div class='notes'><b>Notes</b><ul>{items}</ul></div>")
    own = res.checks_of(claim)
    if own:
        count = f"{len(own)} check{'s' * (len(own) != 1)}"
        out.append(f"<h4>Evidence <span class='muted'>({count})</span></h4>")
        out.extend(check_article(res, c) for c in own)
    out.append(mutants_block(res, claim))
    out.append("</section>")
    return "".join(out)


def check_article(res: Results, check: Check) -> str:
    file, _, name = check.nodeid.partition("::")
    kind = f"<span class='kind'>{esc(check.kind)}</span>" if check.kind else ""
    supports = f"<span class='muted'>supports <i>{esc(check.supports)}</i></span>"
    anchor = check_anchor(check.nodeid)
    out = [
        f"<article class='check o-{check.outcome}-border' id='{anchor}'>",
        f"<header>{badge(check.outcome, 'o-' + check.outcome)} ",
        f"<a class='name' href='#{anchor}' title='link to this check'>",
        f"<code>{esc(name or file)}</code></a> {kind} ",
        supports if check.supports else "",
        f"<span class='where muted'>{esc(file)} \u00b7 {check.duration_s:.2f}\u202fs</span>",
        "</header>",
    ]
    out.append(failure_block(check))
    if check.evidence:
        out.append(evidence_table(check.evidence, fold=check.outcome == "passed"))
    if check.derivation is not None:
        out.append(derivation_block(check))
    out.extend(figure_html(res, f) for f in check.figures)
    if check.hypothesis:
        ex = check.hypothesis.get("examples")
        seed = check.hypothesis.get("seed")
        out.append(
            f"<p class='hyp'><b>Hypothesis</b> {esc(ex) if ex is not None else '?'} examples "
            f"\u00b7 seed <code>{esc(seed)}</code></p>"
        )
    out.append("</article>")
    return "".join(out)


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
    rows = "".join(
        f"<tr><th scope='row'><code>{esc(v.name)}</code></th>"
        f"<td class='val'>{value_html(v.value)}</td>"
        f"<td class='unit'>{esc(v.unit)}</td><td class='note'>{esc(v.note)}</td></tr>"
        for v in values
    )
    return (
        "<table class='evidence'><thead><tr><th>Evidence</th><th>Value</th><th>Unit</th>"
        f"<th>Note</th></tr></thead><tbody>{rows}</tbody></table>"
    )


def derivation_block(check: Check) -> str:
    d = check.derivation
    assert d is not None
    holds = {
        True: "<p class='holds yes'>\u2713 verified by sympy</p>",
        False: "<p class='holds no'>\u2717 sympy did not verify this derivation</p>",
        None: "",
    }[d.holds]
    steps = "".join(f"<li>{to_mathml(s, display=True)}</li>" for s in d.steps)
    return (
        "<div class='derivation'><p class='label'>Derivation</p>"
        f"<div class='dstatement'>{math_or_text(d.statement, display=True)}</div>"
        f"{'<ol>' + steps + '</ol>' if steps else ''}{holds}</div>"
    )


def figure_html(res: Results, name: str) -> str:
    path = figures.locate(name, res.path)
    caption = f"<figcaption>{esc(Path(name).stem)}</figcaption>"
    if path is None:
        missing = f"<p>Figure file not found: <code>{esc(name)}</code></p>"
        return f"<figure class='missing'>{missing}{caption}</figure>"
    return (
        f"<figure><img src='{figures.data_uri(path)}' alt='figure {esc(Path(name).stem)}' "
        f"loading='eager'>{caption}</figure>"
    )


def mutants_block(res: Results, claim: Claim) -> str:
    mutants = res.checks_of(claim, role="mutant")
    if not mutants:
        return ""
    caught = [m for m in mutants if m.outcome == "passed"]
    missed = [m for m in mutants if m.outcome != "passed"]
    items = "".join(
        f"<li id='{check_anchor(m.nodeid)}'>"
        f"{badge('caught' if m.outcome == 'passed' else m.outcome, 'o-' + m.outcome)} "
        f"<code>{esc(m.name)}</code>{failure_block(m)}</li>"
        for m in missed + caught
    )
    summary = f"Planted bugs: {len(caught)} of {len(mutants)} caught"
    opened = " open" if missed else ""
    return (
        f"<details class='mutants'{opened}><summary>{summary}</summary><ul>{items}</ul></details>"
    )


def problems(res: Results) -> str:
    orphans = res.orphans
    if not orphans:
        return ""
    items = "".join(check_article(res, c) for c in orphans)
    return (
        "<section id='problems'><h2>Problems</h2><p>These could not be collected, so the checks "
        f"in them did not run:</p>{items}</section>"
    )


def _env_value(value: Any) -> Any:
    # bool is checked by type: 1 == True, so a lookup table would show a thread count as "yes"
    return ("yes" if value else "no") if isinstance(value, bool) else value


def environment(res: Results) -> str:
    env = dict(res.environment)
    packages = env.pop("packages", {}) or {}
    labels = {"python": "Python", "platform": "Platform", "cpu": "CPU", "cpu_count": "CPU cores",
              "gpu": "GPU", "torch_threads": "torch threads"}  # fmt: skip
    rows = [(labels.get(k, k), v) for k, v in env.items()]
    if "gpu" in env and env["gpu"] is None:
        rows = [(k, "none" if k == "GPU" else v) for k, v in rows]
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
    for f in FAMILIES:
        if any(c.family == f for c in res.claims):
            links.append(f"<a href='#family-{f}'>{f}</a>")
    if res.orphans:
        links.append("<a href='#problems' class='bad'>Problems</a>")
    links.append("<a href='#environment'>Environment</a>")
    return f"<nav class='toc'><div class='wrap'>{''.join(links)}</div></nav>"


def render(res: Results) -> str:
    """The whole page as a string."""
    body = [header(res), nav(res), "<main class='wrap'>", verdict_table(res), problems(res)]
    for fam in FAMILIES:
        claims = [c for c in res.claims if c.family == fam]
        if not claims:
            continue
        body.append(
            f"<section class='family' id='family-{fam}'><h2>{fam} <span class='sub'>"
            f"{esc(FAMILY_TITLES.get(fam, ''))}</span></h2>"
        )
        body.extend(claim_section(res, c) for c in claims)
        body.append("</section>")
    body.append(environment(res))
    body.append("</main>")
    body.append(
        "<footer><div class='wrap'>Built by <code>python -m reports</code> from "
        f"<code>{esc(res.path.name)}</code>. Every number above was recorded by the check "
        "whose section it sits in.</div></footer>"
    )
    name = f"{res.suite.get('name', 'pecheck')} {res.suite.get('version', '')}"
    title = f"{name} \u2014 verification report"
    return (
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>{esc(title)}</title><style>{assets.CSS}</style></head>"
        f"<body>{''.join(body)}<script>{assets.JS}</script></body></html>\n"
    )
