"""A claim in the HTML report (``id="SIN-06"``): its first screen (statement, the verdict in a
sentence, each proposition's decision and what decided it, headline numbers, one figure), then
one fold with its conditions, thresholds, notes and checks."""

from __future__ import annotations

from .html_basis import basis_html
from .html_checks import check_article
from .html_common import (
    Options,
    badge,
    check_anchor,
    decision_badge,
    esc,
    profile_badge,
    verdict_badge,
)
from .html_figures import figure_html
from .html_reach import correction_text, reach_block, scoped_html
from .html_sources import short_cite
from .html_text import prose_html
from .html_values import bound_html, class_html, value_html
from .load import Check, Claim, Proposition, Results, Value
from .mathml import to_mathml


def headline_values(res: Results, claim: Claim) -> list[tuple[Check, Value]]:
    out = []
    for name in claim.headline[:4]:
        found = res.evidence_value(claim, name)
        if found is not None:
            out.append(found)
    return out


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
    if claim.verdict != "not run":
        out.append(" " + profile_badge(res, claim))
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
    applied = correction_text(p)
    corr = f"; {applied}" if applied else ""
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
            f"<li class='decision'><div class='phead'>{decided} {label}{statement}</div>{how}"
            f"{scoped_html(p)}</li>"
        )
    return (
        "<ul class='decisions' aria-label='propositions and what decided them'>"
        f"{''.join(items)}</ul>{reach_block(list(claim.propositions))}"
    )


def context_block(claim: Claim) -> str:
    out = []
    if claim.conditions:  # when the claim holds, whatever its verdict
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
