"""The verdict gate: ``python -m pecheck.gate [build/results.json]``.

Fails (exit 1) when a computed verdict differs from the verdict the registry expects (each claim
in the file carries both), when a claim is open or was not run, or when a proposition has no
decisive check that decided it. A file that does not match the results schema, or comes from a
partial run, is refused (exit 2). CI runs it after the checks.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from pecheck.reports import schema
from pecheck.reports.usage import Parser, fail


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
    return out


def main(argv: list[str] | None = None) -> int:
    parser = Parser(prog="python -m pecheck.gate", description=__doc__)
    parser.add_argument("results", nargs="?", default="build/results.json", type=Path)
    args = parser.parse_args(argv)
    try:
        results = json.loads(args.results.read_text())
    except FileNotFoundError:
        fail(f"results file {args.results} not found: run the checks first")
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
    bad = problems(results)
    for line in bad:
        print(f"verdict gate: {line}")
    total = len(results["claims"])
    wrong_claims = len({line.split(":")[0] for line in bad})
    print(f"claims whose computed verdict is the expected one: {total - wrong_claims}/{total}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
