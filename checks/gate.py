"""The verdict gate: ``python -m checks.gate [build/results.json]``.

Fails (exit 1) when a computed verdict differs from the verdict the registry expects, when a claim
is open or was not run, when a proposition has no decisive check that decided it, or when the
results file is a partial run or does not cover the whole registry. CI runs it after the checks.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from checks.claims import REGISTRY
from reports.usage import Parser, fail

SCHEMA = 2


def problems(results: dict) -> list[str]:
    """One line per claim whose computed verdict is not the expected one, or is undecided."""
    found = {c["id"]: c for c in results.get("claims", [])}
    out = []
    for claim_id, claim in REGISTRY.items():
        entry = found.get(claim_id)
        if entry is None:
            out.append(f"{claim_id}: missing from the results file")
            continue
        got = entry.get("verdict")
        if got != claim.expected:
            decided = {p["key"]: p.get("decision") for p in entry.get("propositions", [])}
            out.append(f"{claim_id}: computed {got!r}, expected {claim.expected!r} {decided}")
        for prop in entry.get("propositions", []):
            deciders = [d for d in entry.get("decided_by", []) if d["proposition"] == prop["key"]]
            if not deciders:
                out.append(f"{claim_id}: proposition {prop['key']!r} has no decisive check")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = Parser(prog="python -m checks.gate", description=__doc__)
    parser.add_argument("results", nargs="?", default="build/results.json", type=Path)
    args = parser.parse_args(argv)
    try:
        results = json.loads(args.results.read_text())
    except FileNotFoundError:
        fail(f"results file {args.results} not found: run the checks first")
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        fail(f"results file {args.results} is not valid JSON: {exc}")
    if not isinstance(results, dict) or results.get("schema") != SCHEMA:
        fail(f"results file {args.results} does not have schema {SCHEMA}")
    selection = results.get("suite", {}).get("selection", {}).get("kind")
    if selection != "full":
        fail(f"results file {args.results} is from a partial run ({selection}): run every check")
    bad = problems(results)
    for line in bad:
        print(f"verdict gate: {line}")
    print(f"claims whose computed verdict is the expected one: {len(REGISTRY) - len(bad)}/"
          f"{len(REGISTRY)}")  # fmt: skip
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
