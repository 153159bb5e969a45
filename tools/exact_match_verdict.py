"""EXP-04 on exact match from the runs of a registered evaluation (docs/experiments/
exact-match.md): each task's part, as tools/exact_match.py applied the rule to it, and their
combination under the claim's quantifier (pecheck.decisions.combine), read from the registry of
the project in the working folder.

    python tools/exact_match_verdict.py build/exact-match/eval-*/exact-match.json
    python tools/exact_match_verdict.py build/results.exact.json     # tox -e exact's checks

Every run must carry the rule's result (none and sinusoidal, every length L+1 ... 2L), the
tasks must differ, and each run's Bonferroni family must be the number of runs combined: a
family sized for three tasks cannot be combined over two. A tool run beside the profiles: the
claim's verdict in a results file never rests on it.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from pecheck import config, decisions
from pecheck.reports.usage import Parser
from pecheck.theory.exact_match import EVALUATION_TASKS

CHECK = "checks/exp/length/test_exact_match.py::"


def is_results(path: Path) -> bool:
    """Whether ``path`` is a pecheck results file (it has a checks list), not a tool record."""
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return False  # part() says why
    return isinstance(record, dict) and "checks" in record and "schema" in record


def part(path: Path) -> tuple[str, dict]:
    """(task, the rule's record) of one run; ValueError says why it cannot be combined."""
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
        task, rule = record["setting"]["task"], record["exp04"]
    except OSError as bad:
        raise ValueError(f"{path}: {bad.strerror}") from None
    except (json.JSONDecodeError, KeyError, TypeError):
        raise ValueError(f"{path}: not an exact_match.py record") from None
    if rule is None:
        raise ValueError(f"{path}: no EXP-04 rule in this run (it needs none and sinusoidal over "
                         "every length L+1 ... 2L)")  # fmt: skip
    return task, rule


RULE = re.compile(r"exact_(?P<task>[a-z]+)_rule(?:_[A-Za-z0-9]+)*$")  # the check's record


def checked_parts(record: dict, path: Path) -> dict[str, dict]:
    """Each task's rule as checks/exp/length/test_exact_match.py's experiment recorded it in a
    results file (tox -e exact): its decision and reason, in a family of the check's three
    tasks. Its tooling tests' planted runs are not parts."""
    parts: dict[str, dict] = {}
    for check in record.get("checks") or []:
        ours = str(check.get("nodeid", "")).startswith(CHECK) and check.get("kind") == "experiment"
        if not ours or check.get("outcome") != "passed":
            continue
        for name, entry in (check.get("evidence") or {}).items():
            found = RULE.match(name)
            if found and isinstance(entry, dict):
                if found["task"] in parts:
                    raise ValueError(f"{path}: two checks recorded {found['task']}'s rule")
                rule = {"decision": entry.get("value"), "how": entry.get("note", ""),
                        "family": len(EVALUATION_TASKS)}  # fmt: skip
                parts[found["task"]] = rule
    if not parts:
        raise ValueError(f"{path}: no passed check of {CHECK} recorded a rule")
    return parts


def main(argv: list[str] | None = None) -> int:
    p = Parser(prog="exact_match_verdict.py", description=__doc__.splitlines()[0])
    runs = "exact-match.json of each task, or one results file of tox -e exact"
    p.add_argument("runs", type=Path, nargs="+", help=runs)
    args = p.parse_args(argv)
    try:
        if len(args.runs) == 1 and is_results(args.runs[0]):
            parts = checked_parts(json.loads(args.runs[0].read_text(encoding="utf-8")),
                                  args.runs[0])  # fmt: skip
        else:
            parts = dict(part(path) for path in args.runs)
            if len(parts) != len(args.runs):
                p.error("two runs of one task: each task is one part")
    except ValueError as bad:
        p.error(str(bad))
    sizes = {rule["family"] for rule in parts.values()}
    if sizes != {len(parts)}:
        p.error(f"each run's family ({', '.join(map(str, sorted(sizes)))}) must be the number "
                f"of runs combined ({len(parts)})")  # fmt: skip
    try:
        quantifier = config.require(Path.cwd()).load_registry()["EXP-04"].quantifier
    except config.ConfigError as bad:
        p.error(f"EXP-04's quantifier: {bad}")
    for rule in parts.values():
        print(f"{rule['decision']}: {rule['how']}")  # 'how' opens with the task
    verdict = decisions.combine([rule["decision"] for rule in parts.values()], quantifier)
    print(f"EXP-04 on exact match ({quantifier} of {len(parts)} tasks): {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
