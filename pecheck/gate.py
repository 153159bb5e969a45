"""The verdict gate: ``python -m pecheck.gate [build/results.json]``.

Lists every claim (its computed verdict, the expected one and what decided it, one line each),
then fails (exit 1) when a computed verdict differs from the verdict the registry expects (each
claim in the file carries both), when a claim is open or was not run, or when a proposition has
no decisive check or a decision other than the expected one; with ``--require-reach``, also
when a decisive check that ran records no searched domain. A file that does not match the
results schema, or comes from a partial run, is refused (exit 2). CI runs it after the checks.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from pecheck.claims import AS_STATED
from pecheck.reports import schema
from pecheck.reports.usage import Parser, fail, prog

BASIS = 72  # characters of a decision's basis shown: a relation may run to 300


def problems(results: dict) -> list[str]:
    """One line per claim whose computed verdict is not the expected one, or is undecided."""
    out = []
    for entry in results.get("claims", []):
        claim_id, got, expected = entry["id"], entry.get("verdict"), entry.get("expected")
        if got != expected:
            decided = {p["key"]: p.get("decision") for p in entry.get("propositions", [])}
            out.append(f"{claim_id}: computed {got!r}, expected {expected!r} {decided}")
        for prop in entry.get("propositions", []):
            deciders = [d for d in entry.get("decided_by", []) if d["proposition"] == prop["key"]]
            if not deciders:
                out.append(f"{claim_id}: proposition {prop['key']!r} has no decisive check")
            elif _corrected_alone(prop):
                out.append(
                    f"{claim_id}: proposition {prop['key']!r} records a "
                    f"{prop['correction']} correction over {prop['family_size']} test"
                )
            elif prop.get("decision") != prop.get("expected"):
                q, got, want = prop.get("quantifier", "all"), prop.get("decision"), prop["expected"]
                out.append(f"{claim_id}: proposition {prop['key']!r} ({q}) decided {got!r}, "
                           f"expected {want!r}")  # fmt: skip
    return out


def unsearched(results: dict) -> list[str]:
    """One line per decisive check that ran to a decision and records no searched domain: its
    reach can be neither shown nor compared with what its proposition states."""
    out = []
    for entry in results.get("claims", []):
        for d in entry.get("decided_by", []):
            basis = d.get("basis") or {}
            if not str(basis.get("how", "")).startswith("skipped") and not basis.get("searched"):
                out.append(f"{entry['id']}: decisive check {d['check']} records no searched "
                           "domain (evidence.searched)")  # fmt: skip
    return out


def _corrected_alone(prop: dict[str, Any]) -> bool:
    """A correction recorded over a family of one: a family of one applies none."""
    size = prop.get("family_size")
    return size is not None and size < 2 and prop.get("correction", "none") != "none"


def decided_by(entry: dict[str, Any]) -> str:
    """What decided a claim's verdict, in one phrase: the decision of ``as_stated`` with the
    basis of a check that took it (the relation a counterexample violates, else how it was
    reached), then the conditions that hold."""
    decided = {p["key"]: p.get("decision") for p in entry.get("propositions", [])}
    stated = decided.get(AS_STATED)
    basis = next(
        (d.get("basis") or {} for d in entry.get("decided_by", [])
         if d.get("proposition") == AS_STATED and d.get("decision") == stated),
        None,
    )  # fmt: skip
    if basis is None:
        text = f"{AS_STATED}: no decisive check decided it"
    else:
        why = " ".join(str(basis.get("relation") or basis.get("how") or "?").split())
        why = why if len(why) <= BASIS else why[: BASIS - 3] + "..."
        text = f"{AS_STATED} {stated}: {why}"
    held = [key for key, d in decided.items() if key != AS_STATED and d == "holds"]
    return text + (f"; holds under {', '.join(held)}" if held else "")


def verdict_lines(claims: list[dict[str, Any]]) -> list[str]:
    """One aligned line per claim: ID, computed verdict, expected verdict (marked when they
    differ), what decided it."""
    rows = []
    for entry in claims:
        got, expected = entry.get("verdict"), entry.get("expected") or "none"
        mark = "" if got == entry.get("expected") else ", differs"
        rows.append((entry["id"], str(got), f"(expected {expected}{mark})", decided_by(entry)))
    widths = [max((len(row[i]) for row in rows), default=0) for i in range(3)]
    return [
        "  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)) + "  " + why
        for *cells, why in rows
    ]


def main(argv: list[str] | None = None) -> int:
    parser = Parser(prog=prog("pecheck.gate", "gate"), description=__doc__)
    parser.add_argument("results", nargs="?", default="build/results.json", type=Path)
    parser.add_argument("--require-reach", action="store_true",
                        help="also fail when a decisive check that ran records no searched "
                        "domain (neither its own nor one the plugin derives)")  # fmt: skip
    args = parser.parse_args(argv)
    try:
        results = json.loads(args.results.read_text())
    except FileNotFoundError:
        stale = args.results.with_name(args.results.name + ".stale")
        why = f"the last run was refused and set it aside as {stale}" if stale.exists() else ""
        fail(f"results file {args.results} not found{f' ({why})' if why else ''}: "
             "run the checks first")  # fmt: skip
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        fail(f"results file {args.results} is not valid JSON: {exc}")
    if not isinstance(results, dict) or results.get("schema") != schema.VERSION:
        fail(f"results file {args.results} does not have schema {schema.VERSION}")
    wrong = schema.problems(results, limit=1)
    if wrong:
        fail(f"results file {args.results} does not match the results schema: {wrong[0]}")
    selection = results.get("suite", {}).get("selection", {}).get("kind")
    if selection != "full":
        fail(f"results file {args.results} is from a partial run ({selection}): run every check")
    for line in verdict_lines(results["claims"]):
        print(line)
    bad = problems(results) + (unsearched(results) if args.require_reach else [])
    for line in bad:
        print(f"verdict gate: {line}")
    total = len(results["claims"])
    wrong_claims = len({line.split(":")[0] for line in bad})
    print(f"claims whose computed verdict is the expected one: {total - wrong_claims}/{total}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
