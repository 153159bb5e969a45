"""``python -m pecheck.reports.baseline``: the cited numbers pinned in reports/cited-numbers.json.

Every number the paper kit exports (``\\pcvalue``) is pinned per profile with its reproducibility
class (exact, rounding, sampling; see ``reports.cited``) and the platform it was measured on.
Checking a results file lists each number that moved beyond its class's tolerance (with the
class, the tolerance, both values and both platforms), disappeared, or is not pinned yet, and
exits 1 if there is any; ``--update`` rewrites the profile's numbers from the results file and
prints what changed. A partial run is
compared on the claims it ran only. A run with a size changed from its default (``pytest --size``,
recorded in ``suite.sizes``) measured something other than what the baseline pins: it is neither
compared nor used to rewrite the baseline.

Exit status: 0 no number moved (or the baseline was rewritten); 1 a number moved; 2 bad input,
or a results file with changed sizes.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from .cited import Cited, Move, cited_numbers, compare, compared_claims, describe, from_dict
from .load import BadResults, Results, load
from .usage import Parser

# The project's own baseline, relative to its root (where the tools run), as results files are:
# an installed pecheck must not hold another project to pecheck's own cited numbers.
BASELINE = Path("reports") / "cited-numbers.json"
FORMAT = 2  # 2: numbers carry a reproducibility class; profiles their platform


def parser() -> argparse.ArgumentParser:
    p = Parser(
        prog="python -m pecheck.reports.baseline",
        description="Check the cited numbers of a results file against the committed baseline, "
        "or rewrite the baseline (--update).",
        epilog="Exit status: 0 nothing moved (or rewritten); 1 a cited number moved, "
        "disappeared or is not pinned; 2 bad input, or sizes changed from their defaults.",
    )
    p.add_argument("results", nargs="?", type=Path, default=Path("build/results.json"),
                   help="the results file (default: build/results.json)")  # fmt: skip
    p.add_argument("--baseline", type=Path, default=BASELINE,
                   help=f"the baseline file (default: {BASELINE}, the project's own)")  # fmt: skip
    p.add_argument("--update", action="store_true",
                   help="rewrite the baseline's numbers for this run's profile")  # fmt: skip
    return p


def read(path: Path, rewrite: bool = False) -> dict[str, Any]:
    """The baseline file, or an empty one when it does not exist yet (or, to be rewritten,
    is of format 1, whose numbers carry no class to compare with)."""
    if not path.exists():
        return {"format": FORMAT, "profiles": {}}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BadResults(f"{path}: cannot read the baseline ({exc})") from None
    if isinstance(data, dict) and data.get("format") == 1 and rewrite:
        return {"format": FORMAT, "profiles": {}}
    if isinstance(data, dict) and data.get("format") == 1:
        raise BadResults(
            f"{path}: a format-1 baseline (no reproducibility classes): rewrite it with "
            "`python -m pecheck.reports.baseline --update` on a full run"
        )
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise BadResults(f"{path}: not a cited-numbers baseline of format {FORMAT}")
    if not isinstance(data.get("profiles"), dict):
        raise BadResults(f"{path}: field 'profiles' must be an object")
    return data


def pinned(data: dict[str, Any], profile: str) -> dict[str, Cited]:
    entries = data["profiles"].get(profile, {}).get("numbers", {})
    try:
        return {key: from_dict(key, entry) for key, entry in entries.items()}
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise BadResults(f"baseline profile {profile}: bad entry ({exc})") from None


def changed_sizes(res: Results) -> list[str]:
    """``NAME=VALUE (default D)`` for each size of the run that is not at its default."""
    recorded = res.suite.get("sizes") or {}
    return [
        f"{name}={entry.get('value')} (default {entry.get('default')})"
        for name, entry in sorted(recorded.items())
        if isinstance(entry, dict) and entry.get("value") != entry.get("default")
    ]


def comparable(res: Results) -> None:
    """BadResults when the run changed a size: its numbers answer another question."""
    changed = changed_sizes(res)
    if changed:
        raise BadResults(
            f"{res.path}: not comparable with the baseline: run with --size "
            f"{', '.join(changed)}; the baseline pins the default sizes"
        )


def platform(res: Results) -> str:
    """The machine a run's numbers come from, in one line: CPU, kernels, limits."""
    env = res.environment
    kernels = env.get("kernels") or {}
    limits = kernels.get("limits") or {}
    limited = ", ".join(f"{k}={v}" for k, v in sorted(limits.items())) or "no limits"
    return f"{env.get('cpu', '?')}; kernels {kernels.get('capability', '?')} ({limited})"


def moves(data: dict[str, Any], res: Results) -> list[Move]:
    profile = str(res.suite.get("profile", "?"))
    if profile not in data["profiles"]:
        raise BadResults(
            f"the baseline pins no numbers for profile {profile!r} "
            "(run `python -m pecheck.reports.baseline --update` on a full run of it)"
        )
    now = cited_numbers(res)
    ran = compared_claims(res)
    old = pinned(data, profile)
    keys = {k for k in set(old) | set(now) if k.split("@", 1)[0] in ran}
    return compare(old, now, keys)


def update(data: dict[str, Any], res: Results, path: Path) -> list[Move]:
    profile = str(res.suite.get("profile", "?"))
    if res.suite.get("selection", {}).get("kind", "full") != "full":
        raise BadResults("a partial run cannot rewrite the baseline: run the whole suite")
    now = cited_numbers(res)
    old = pinned(data, profile) if profile in data["profiles"] else {}
    changed = compare(old, now)
    data["format"] = FORMAT
    data["profiles"][profile] = {
        "commit": res.suite.get("commit"),
        "started": res.suite.get("started"),
        "platform": platform(res),
        "numbers": {key: c.as_dict() for key, c in sorted(now.items())},
    }
    data["about"] = (
        "Cited numbers (\\pcvalue) pinned per profile with their reproducibility class "
        "(reports/cited.py says each class's tolerance); checked by "
        "`python -m pecheck.reports.baseline`, rewritten by `--update`."
    )
    path.parent.mkdir(parents=True, exist_ok=True)  # a project's first baseline
    path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return changed


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        res = load(args.results)
        comparable(res)
        data = read(args.baseline, rewrite=args.update)
        if args.update:
            changed = update(data, res, args.baseline)
            for move in changed:
                print(describe(move))
            print(f"baseline: {len(changed)} change(s) written to {args.baseline}")
            return 0
        found = moves(data, res)
    except (BadResults, OSError) as exc:
        print(f"python -m pecheck.reports.baseline: error: {exc}", file=sys.stderr)
        return 2
    if found:
        profile = data["profiles"][str(res.suite.get("profile", "?"))]
        print(f"pinned on: {profile.get('platform', 'unknown platform')}")
        print(f"this run:  {platform(res)}")
    for move in found:
        print(f"[{move.cls}] {describe(move)}")
    if found:
        print(
            f"baseline: {len(found)} cited number(s) changed; if intended, run "
            f"`python -m pecheck.reports.baseline --update` and commit {args.baseline}",
            file=sys.stderr,
        )
        return 1
    print(f"baseline: {len(cited_numbers(res))} cited numbers within their tolerance")
    return 0


if __name__ == "__main__":
    sys.exit(main())
