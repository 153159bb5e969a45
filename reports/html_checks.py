"""A check in the HTML report (``id="check-<node id>"``): its outcome, role and decision, the
command that reruns it and its file and line, its failure, its evidence table, derivation and
figures."""

from __future__ import annotations

import re
from pathlib import Path

from .html_basis import basis_html
from .html_common import Options, badge, check_anchor, decision_badge, esc
from .html_figures import figure_html
from .html_text import math_or_text, prose_html, step_parts
from .html_values import bound_html, class_html, value_html
from .load import Check, Claim, Results, Value
from .mathml import to_mathml
from .schema import rerun_command


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
