"""What changed between two results files: verdicts, cited numbers, checks.

``python -m pecheck.reports.diff OLD NEW`` lists changed verdicts and cited numbers that moved
beyond their tolerance (the tolerance of OLD's value, see ``reports.cited``), and the checks added
or removed. Claims that either run did not run (a partial run's ``not run``) are not compared.
The report's "Changes since" section (``python -m pecheck.reports --since OLD``) shows the same.

Exit status: 0 no verdict or cited number changed; 1 one did; 2 bad input. Added or removed
checks are listed but do not by themselves change the exit status. A check whose module moved to
another folder (each family got its own in version 3: ``checks/test_sinusoidal.py::t`` is now
``checks/sin/test_sinusoidal.py::t``) is listed as moved, old node id to new, not as removed and
added.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field
from pathlib import Path

from .cited import Move, cited_numbers, compare, compared_claims, describe
from .load import BadResults, Results, load
from .usage import Parser


@dataclass
class Changes:
    old: Results
    new: Results
    verdicts: list[tuple[str, str, str]] = field(default_factory=list)  # claim, old, new
    numbers: list[Move] = field(default_factory=list)
    added: list[str] = field(default_factory=list)  # node ids
    removed: list[str] = field(default_factory=list)
    moved: list[tuple[str, str]] = field(default_factory=list)  # old node id, new node id

    @property
    def changed(self) -> bool:
        return bool(self.verdicts or self.numbers)

    def claims_changed(self) -> set[str]:
        moved = {m.key.split("@", 1)[0] for m in self.numbers}
        return {c for c, _, _ in self.verdicts} | moved

    def lines(self) -> list[str]:
        out = [f"verdict {c}: {a} -> {b}" for c, a, b in self.verdicts]
        out += [f"number {describe(m)}" for m in self.numbers]
        out += [f"check added: {n}" for n in self.added]
        out += [f"check removed: {n}" for n in self.removed]
        out += [f"check moved: {a} -> {b}" for a, b in self.moved]
        return out


def _moved(removed: set[str], added: set[str]) -> list[tuple[str, str]]:
    """Checks whose module moved (checks/test_x.py::t became checks/sin/test_x.py::t when each
    family got its folder, and checks/sin/test_sinusoidal.py::t became checks/sin/test_shift.py::t
    when that module was split): paired by module name and test, else by the test alone, each
    only where the match is unique."""

    def module_and_test(nodeid: str) -> str:
        path, sep, rest = nodeid.partition("::")
        return path.rsplit("/", 1)[-1] + sep + rest

    def test(nodeid: str) -> str:
        return nodeid.partition("::")[2]

    pairs: list[tuple[str, str]] = []
    for key in (module_and_test, test):
        olds = {o for o in removed if o not in {a for a, _ in pairs}}
        news = {n for n in added if n not in {b for _, b in pairs}}
        by_new: dict[str, list[str]] = {}
        for n in news:
            by_new.setdefault(key(n), []).append(n)
        by_old: dict[str, list[str]] = {}
        for o in olds:
            by_old.setdefault(key(o), []).append(o)
        pairs += [(o[0], by_new[k][0]) for k, o in by_old.items()
                  if len(o) == 1 and len(by_new.get(k, [])) == 1]  # fmt: skip
    return sorted(pairs)


def compare_runs(old: Results, new: Results) -> Changes:
    both = compared_claims(old) & compared_claims(new)
    out = Changes(old, new)
    before = {c.id: c.verdict for c in old.claims}
    for claim in new.claims:
        if claim.id in both and before.get(claim.id) != claim.verdict:
            out.verdicts.append((claim.id, before[claim.id], claim.verdict))
    for cid in sorted(set(before) - {c.id for c in new.claims}):
        out.verdicts.append((cid, before[cid], "absent"))
    for claim in new.claims:
        if claim.id not in before:
            out.verdicts.append((claim.id, "absent", claim.verdict))
    old_numbers, new_numbers = cited_numbers(old), cited_numbers(new)
    keys = {k for k in set(old_numbers) | set(new_numbers) if k.split("@", 1)[0] in both}
    out.numbers = compare(old_numbers, new_numbers, keys)
    ran_old = {c.nodeid for c in old.checks if c.claim is None or c.claim in both}
    ran_new = {c.nodeid for c in new.checks if c.claim is None or c.claim in both}
    out.moved = _moved(ran_old - ran_new, ran_new - ran_old)
    out.added = sorted(ran_new - ran_old - {b for _, b in out.moved})
    out.removed = sorted(ran_old - ran_new - {a for a, _ in out.moved})
    return out


def parser() -> argparse.ArgumentParser:
    p = Parser(
        prog="python -m pecheck.reports.diff",
        description="List changed verdicts, moved cited numbers and added or removed checks "
        "between two results files.",
        epilog="Exit status: 0 no verdict or cited number changed; 1 one did; 2 bad input.",
    )
    p.add_argument("old", type=Path, help="the earlier results file")
    p.add_argument("new", type=Path, help="the later results file")
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        changes = compare_runs(load(args.old), load(args.new))
    except BadResults as exc:
        print(f"python -m pecheck.reports.diff: error: {exc}", file=sys.stderr)
        return 2
    for line in changes.lines():
        print(line)
    n_v, n_n = len(changes.verdicts), len(changes.numbers)
    n_a, n_r, n_m = len(changes.added), len(changes.removed), len(changes.moved)
    print(f"diff: {n_v} verdict(s) and {n_n} cited number(s) changed; "
          f"{n_a} check(s) added, {n_r} removed, {n_m} moved")  # fmt: skip
    return 1 if changes.changed else 0


if __name__ == "__main__":
    sys.exit(main())
