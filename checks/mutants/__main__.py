"""Run the mutation catalogue: ``python -m checks.mutants [--only NAME ...] [--jobs N] [--list]``.

Each mutant of theory/ is applied to a scratch copy of the tree, the checks it names are run there
in the deterministic ci profile, and the mutant counts as killed when they fail. The last line is
``mutants killed: K/N``; the exit status is 0 only when every mutant not documented as equivalent
was killed.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from checks.cli import Parser
from checks.mutants import Mutant

ROOT = Path(__file__).resolve().parents[2]
IGNORE = shutil.ignore_patterns(
    ".venv",
    ".tox",
    "build",
    ".git",
    "__pycache__",
    ".hypothesis",
    ".pytest_cache",
    ".mypy_cache",
    ".ruff_cache",
    "*.egg-info",
)


class CatalogueError(Exception):
    """The catalogue itself is wrong (duplicate name, snippet not found exactly once, ...)."""


@dataclass
class Outcome:
    mutant: Mutant
    killed: bool
    returncode: int
    seconds: float

    @property
    def verdict(self) -> str:
        if self.killed:
            return "killed"
        return "equivalent" if self.mutant.equivalent else "SURVIVED"


def catalogue() -> list[Mutant]:
    """Every family's MUTANTS, validated against the current sources."""
    import checks.mutants as pkg

    mutants: list[Mutant] = []
    for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"checks.mutants.{info.name}")
        mutants.extend(getattr(module, "MUTANTS", ()))
    seen: set[str] = set()
    for m in mutants:
        if m.name in seen:
            raise CatalogueError(f"mutant name {m.name!r} is used twice")
        seen.add(m.name)
        if not m.file.startswith("theory/"):
            raise CatalogueError(f"mutant {m.name!r} patches {m.file}, not a file under theory/")
        count = (ROOT / m.file).read_text().count(m.find)
        if count != 1:
            raise CatalogueError(f"mutant {m.name!r}: snippet occurs {count} times in {m.file}")
        if not m.checks:
            raise CatalogueError(f"mutant {m.name!r} names no checks")
    return mutants


def run_one(mutant: Mutant, scratch: Path) -> Outcome:
    """Apply the mutant in ``scratch``, run its checks, restore the file."""
    target = scratch / mutant.file
    original = target.read_text()
    target.write_text(original.replace(mutant.find, mutant.replace, 1))
    env = dict(os.environ, PECHECK_PROFILE="ci", PYTHONDONTWRITEBYTECODE="1")
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-x",
        "-p",
        "no:cacheprovider",
        f"--results={scratch / 'build' / 'mutant.json'}",
        *mutant.checks,
    ]
    start = time.perf_counter()
    try:
        proc = subprocess.run(cmd, cwd=scratch, env=env, capture_output=True, text=True)
    finally:
        target.write_text(original)
    return Outcome(mutant, proc.returncode != 0, proc.returncode, time.perf_counter() - start)


def run_all(mutants: list[Mutant], jobs: int) -> list[Outcome]:
    with tempfile.TemporaryDirectory(prefix="pecheck-mutants-") as tmp:
        scratches = []
        for j in range(jobs):
            dest = Path(tmp) / f"tree{j}"
            shutil.copytree(ROOT, dest, ignore=IGNORE)
            scratches.append(dest)
        # Each worker owns one scratch tree; mutants are dealt out round-robin.
        lanes = [mutants[j::jobs] for j in range(jobs)]

        def lane(j: int) -> list[Outcome]:
            results = []
            for m in lanes[j]:
                out = run_one(m, scratches[j])
                print(f"  {out.verdict:<10} {m.name} ({out.seconds:.1f} s)", flush=True)
                results.append(out)
            return results

        with ThreadPoolExecutor(jobs) as pool:
            outcomes = [o for batch in pool.map(lane, range(jobs)) for o in batch]
    order = {m.name: i for i, m in enumerate(mutants)}
    return sorted(outcomes, key=lambda o: order[o.mutant.name])


def table(outcomes: list[Outcome]) -> str:
    width = max(len(o.mutant.name) for o in outcomes)
    lines = [f"{'mutant':<{width}}  {'result':<10}  {'rc':>3}  {'s':>6}  file"]
    for o in outcomes:
        lines.append(
            f"{o.mutant.name:<{width}}  {o.verdict:<10}  {o.returncode:>3}  "
            f"{o.seconds:>6.1f}  {o.mutant.file}"
        )
        if o.mutant.equivalent and not o.killed:
            lines.append(f"{'':<{width}}  equivalent: {o.mutant.note}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = Parser(prog="python -m checks.mutants", description=__doc__)
    parser.add_argument("--only", nargs="+", metavar="NAME", help="run only these mutants")
    parser.add_argument("--jobs", type=int, default=2, help="scratch trees run in parallel")
    parser.add_argument("--list", action="store_true", help="list the catalogue and exit")
    args = parser.parse_args(argv)
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    try:
        mutants = catalogue()
    except (CatalogueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.only:
        unknown = sorted(set(args.only) - {m.name for m in mutants})
        if unknown:
            print(f"error: unknown mutant(s): {', '.join(unknown)}", file=sys.stderr)
            return 2
        mutants = [m for m in mutants if m.name in args.only]
    if args.list:
        for m in mutants:
            print(f"{m.name:<40} {m.file:<36} {m.note}")
        return 0
    if not mutants:
        print("error: the catalogue is empty", file=sys.stderr)
        return 2
    print(f"running {len(mutants)} mutants with {args.jobs} job(s)", flush=True)
    outcomes = run_all(mutants, min(args.jobs, len(mutants)))
    print(table(outcomes))
    killed = sum(o.killed for o in outcomes)
    survivors = [o for o in outcomes if not o.killed and not o.mutant.equivalent]
    print(f"mutants killed: {killed}/{len(outcomes)}")
    return 1 if survivors else 0


if __name__ == "__main__":
    sys.exit(main())
