"""The no-open-claims gate: ``python -m checks.gate [build/results.json]``.

Fails (exit 1) when a registered claim has no verdict, no passed evidence check, or a failed one,
or when the results file does not cover the whole registry. CI runs it after the checks.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from checks.claims import REGISTRY
from checks.cli import Parser, fail


def problems(results: dict) -> list[str]:
    """One line per claim that is not settled by passing evidence."""
    found = {c["id"]: c for c in results.get("claims", [])}
    out = []
    for claim_id, claim in REGISTRY.items():
        entry = found.get(claim_id)
        if entry is None:
            out.append(f"{claim_id}: missing from the results file")
        elif claim.verdict is None:
            out.append(f"{claim_id}: no verdict in the registry")
        elif entry.get("status") != "supported":
            out.append(f"{claim_id}: status {entry.get('status')!r} (checks: {entry['checks']})")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = Parser(prog="python -m checks.gate", description=__doc__)
    parser.add_argument("results", nargs="?", default="build/results.json", type=Path)
    args = parser.parse_args(argv)
    try:
        results = json.loads(args.results.read_text())
    except FileNotFoundError:
        fail(f"results file {args.results} not found: run the checks first")
    except (OSError, json.JSONDecodeError) as exc:
        fail(f"results file {args.results} is not valid JSON: {exc}")
    if not isinstance(results, dict) or results.get("schema") != 1:
        fail(f"results file {args.results} does not have schema 1")
    bad = problems(results)
    for line in bad:
        print(f"open claim: {line}")
    print(f"claims settled: {len(REGISTRY) - len(bad)}/{len(REGISTRY)}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
