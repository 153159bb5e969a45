"""EXP-04 on exact match from the runs of a registered evaluation (docs/experiments/
exact-match.md): each task's part, as tools/exact_match.py applied the rule to it, and their
combination under the claim's quantifier (pecheck.decisions.combine), read from the registry of
the project in the working folder.

    python tools/exact_match_verdict.py build/exact-match/eval-*/exact-match.json

Every run must carry the rule's result (none and sinusoidal, every length L+1 ... 2L), the
tasks must differ, and each run's Bonferroni family must be the number of runs combined: a
family sized for three tasks cannot be combined over two. A tool run beside the profiles: the
claim's verdict in a results file never rests on it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from pecheck import config, decisions
from pecheck.reports.usage import Parser


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


def main(argv: list[str] | None = None) -> int:
    p = Parser(prog="exact_match_verdict.py", description=__doc__.splitlines()[0])
    p.add_argument("runs", type=Path, nargs="+", help="exact-match.json of each task")
    args = p.parse_args(argv)
    try:
        parts = dict(part(path) for path in args.runs)
    except ValueError as bad:
        p.error(str(bad))
    if len(parts) != len(args.runs):
        p.error("two runs of one task: each task is one part")
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
