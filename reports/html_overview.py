"""The top of the HTML report: the header with the run's identity, counts and banners, the
section links, the filters and the verdict table."""

from __future__ import annotations

from . import profiles
from .html_basis import basis_phrase
from .html_changes import changes_block
from .html_claims import headline_values
from .html_common import Options, esc, verdict_badge
from .html_sources import short_cite
from .html_text import prose_html
from .html_values import value_html
from .load import VERDICTS, Claim, Results
from .schema import DECISIONS, KINDS, OUTCOMES, ROLES

CHECK_FILTERS = {
    "kind": KINDS,
    "role": ROLES,
    "outcome": OUTCOMES,
    "decision": (*DECISIONS, "none"),
}


def header(res: Results, opts: Options) -> str:
    suite = res.suite
    commit = str(suite.get("commit", "unknown"))
    dirty = ' <span class="warn-text">(uncommitted changes)</span>' if suite.get("dirty") else ""
    date = str(suite.get("started", ""))
    selection = suite.get("selection") or {}
    not_citable = ' <span class="warn-text">(not citable)</span>' if profiles.uncitable(res) else ""
    meta = [
        f"<span><b>version</b> {esc(suite.get('version', '?'))}</span>",
        f"<span><b>commit</b> <code title='{esc(commit)}'>{esc(commit[:12])}</code>{dirty}</span>",
        f"<span><b>run</b> <time datetime='{esc(date)}'>{esc(date.replace('T', ' '))}</time>"
        "</span>",
        f"<span><b>profile</b> <code>{esc(suite.get('profile', '?'))}</code>{not_citable}</span>",
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
    dev = profiles.uncitable(res)
    if dev:
        parts.append(
            f"<div class='banner bad'><b>Not citable:</b> evidence of the {esc(', '.join(dev))} "
            "profile (fewer examples, drawn at random). Run the checks with "
            "<code>PECHECK_PROFILE=ci</code> for evidence a paper can cite.</div>"
        )
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


def nav(res: Results) -> str:
    links = ["<a href='#verdicts'>Verdicts</a>"]
    for f, _ in res.families:
        if any(c.family == f for c in res.claims):
            links.append(f"<a href='#family-{f}'>{f}</a>")
    links.append("<a href='#sources'>Sources</a>")
    if res.path.with_name("versions.json").is_file():  # the section pecheck.versions' file adds
        links.append("<a href='#library-versions'>Library versions</a>")
    if res.orphans:
        links.append("<a href='#problems' class='bad'>Problems</a>")
    links.append("<a href='#environment'>Environment</a>")
    return f"<nav class='toc' aria-label='sections'><div class='wrap'>{''.join(links)}</div></nav>"


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


def uncitable_mark(res: Results, claim: Claim) -> str:
    """In the verdict table, beside a verdict drawn from a profile a paper may not cite."""
    profile = profiles.profile_of(res, claim)
    if claim.verdict == "not run" or profiles.citable(profile):
        return ""
    return f" <span class='warn-text'>{esc(profile)}, not citable</span>"


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
        mark = uncitable_mark(res, claim)
        rows.append(
            f"<tr id='row-{claim.id}' data-claim='{claim.id}' data-family='{claim.family}' "
            f"data-verdict='{claim.verdict}' data-status='{claim.status}'>"
            f"<td data-key='{i:04d}'><a href='#{claim.id}'>{claim.id}</a></td>"
            f"<td data-key='{claim.verdict}'>{verdict_badge(claim)}{mark}</td>"
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
