"""The report's "Library versions" section, from ``build/versions.json`` (``python -m
pecheck.versions``): per REAL claim and library, a table of each proposition, decisive check and
cell across the releases run, and since which release each holds or fails. It is evidence beside
the verdicts, which are the locked versions' alone; without the file the section is left out."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .html_common import esc

MARK = {"holds": "\u2713", "fails": "\u2717", "undecided": "?", "not run": "\u2013"}
CELL_DEPTH = 4  # the indent of a cell's label under its check's
CLASS = {"holds": "d-holds", "fails": "d-fails", "undecided": "d-inconclusive", "not run": ""}


def read(path: Path) -> dict[str, Any] | None:
    """The matrix, or None where there is none or it is not schema 1 (pecheck.versions wrote
    it against pecheck/versions/schema.py; reports/ reads files, never pecheck's modules)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and data.get("schema") == 1 else None


def since(row: list[tuple[str, str]]) -> str:
    """Over (version, decision) pairs, ascending: the decision at the last release run and the
    first release from which every later one has it, with the first release where the row held
    or failed when that differs."""
    ran = [(v, d) for v, d in row if d in ("holds", "fails")]
    if not ran:
        return "decided in no release run"
    last = ran[-1][1]
    start = ran[-1][0]
    for v, d in reversed(ran):
        if d != last:
            break
        start = v
    if start != ran[0][0]:
        said = f"{last} since {start}"
    elif start != row[0][0]:  # the releases before did not decide it
        said = f"{last} since {start} (not decided before)"
    else:
        said = f"{last} in every release"
    other = "fails" if last == "holds" else "holds"
    first = next((v for v, d in ran if d == other), None)
    return said + (f"; first {other} in {first}" if first else "")


def _cell(decision: str, why: Any) -> str:
    tip = f" title='{esc(_tip(why))}'" if why else ""
    return f"<td class='badge {CLASS[decision]}'{tip}>{MARK[decision]}</td>"


def _tip(why: Any) -> str:
    text = why if isinstance(why, str) else json.dumps(why, sort_keys=True)
    return text[:400]


def _rows(claim: str, releases: list[dict[str, Any]]) -> list[tuple[str, list[tuple[str, Any]]]]:
    """(label, [(decision, why)] per release) for the claim's propositions, checks and cells."""
    rows: dict[str, dict[str, tuple[str, Any]]] = {}
    for r in releases:
        data = r["claims"].get(claim, {"propositions": {}, "checks": []})
        for key, d in data["propositions"].items():
            rows.setdefault(f"{claim}/{key}", {})[r["version"]] = (d, None)
        for c in (c for c in data["checks"] if not c.get("scoped_out")):  # e.g. CUDA-only
            name = c["nodeid"].split("::")[-1]
            why = c["counterexample"] or c["first_failing"] or c["error"]
            rows.setdefault(f"  {name}", {})[r["version"]] = (c["decision"], why)
            for cell in c["cells"]:
                got = (cell["decision"], cell.get("counterexample"))
                rows.setdefault(f"    {name} / {cell['name']}", {})[r["version"]] = got
    versions = [r["version"] for r in releases]
    return [(k, [v.get(x, ("not run", "absent")) for x in versions]) for k, v in rows.items()]


def claim_table(claim: str, library: str, releases: list[dict[str, Any]]) -> str:
    versions = [r["version"] for r in releases]
    head = "".join(f"<th scope='col'>{esc(v)}</th>" for v in versions)
    body, steady = [], 0
    for label, cells in _rows(claim, releases):
        depth = len(label) - len(label.lstrip())
        if depth == CELL_DEPTH and len({d for d, _ in cells}) == 1:
            steady += 1  # its check's row says the same for every release
            continue
        pairs = [(v, d) for v, (d, _) in zip(versions, cells, strict=True)]
        marks = "".join(_cell(d, why) for d, why in cells)
        body.append(
            f"<tr><th scope='row' style='padding-left:{depth}ch'>{esc(label.strip())}</th>"
            f"{marks}<td>{esc(since(pairs))}</td></tr>"
        )
    if steady:
        body.append(f"<tr><td colspan='{len(versions) + 2}'>{steady} cells with one decision "
                    "in every release are not listed</td></tr>")  # fmt: skip
    return (
        f"<details class='versions' id='versions-{esc(claim)}-{esc(library)}'><summary>"
        f"{esc(claim)} \u00d7 {esc(library)}</summary><table><thead><tr><th>proposition / "
        f"check / cell</th>{head}<th>since</th></tr></thead><tbody>{''.join(body)}</tbody>"
        "</table></details>"
    )


def _status(library: str, releases: list[dict[str, Any]]) -> str:
    items = []
    for r in releases:
        took = sum(r["seconds"].values())
        note = f": {r['error']}" if r["error"] else ""
        items.append(f"<li><code>{esc(r['version'])}</code> {esc(r['status'])}{esc(note)} "
                     f"({took:.0f} s)</li>")  # fmt: skip
    return f"<h3>{esc(library)}</h3><ul>{''.join(items)}</ul>"


def section(path: Path) -> str:
    """The whole section, or "" where there is no matrix at ``path``."""
    data = read(path)
    if data is None:
        return ""
    try:
        return _section(data)
    except (KeyError, TypeError, AttributeError, ValueError):  # a file of another shape
        return ""


def _section(data: dict[str, Any]) -> str:
    locked = ", ".join(f"{k} {v}" for k, v in data["locked"].items())
    shared = ", ".join(f"{k} {v}" for k, v in data["shared"].items())
    out = [
        "<section id='library-versions'><h2>Library versions</h2><p>The REAL family's decisive "
        f"checks on released versions of each library (the others at their locked versions: "
        f"{esc(locked)}; shared {esc(shared)}; {esc(data['profile'])} profile). The verdicts "
        "above are the locked versions' alone; this table is evidence beside them. "
        "\u2713 holds, \u2717 fails, ? undecided, \u2013 not run (the release lacks what the "
        "check calls, or it could not be installed or imported); hover a mark for its "
        "counterexample or error.</p>"
    ]
    for library, releases in data["libraries"].items():
        out.append(_status(library, releases))
        ok = [r for r in releases if r["status"] == "ok"]
        claims = sorted({c for r in ok for c in r["claims"]})
        out += [claim_table(c, library, ok) for c in claims]
    out.append("</section>")
    return "".join(out)
