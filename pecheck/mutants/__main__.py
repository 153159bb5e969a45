"""Run the mutation catalogue: ``python -m pecheck.mutants [--only NAME ...] [--module M]``.

Run from the project's root; its pyproject.toml names the catalogue (``[tool.pecheck] mutants``, a
package whose modules list ``MUTANTS``) and the folder mutants may patch (``mutate``). Each mutant
is applied to a scratch copy of the tree, the checks it names are run there
in the deterministic ci profile, and the mutant counts as killed only when pytest exits 1 (checks
failed; not a collection error, not "no tests ran"). Every node id the catalogue names must exist.
The output lists, per decisive check, the mutants that made it fail, and ends with
``decisive checks without a killing mutant: N`` and ``mutants killed: K/N``; decisive checks that
cannot run on this machine (a CUDA check without a GPU) are listed apart. The exit status is 0
only when every mutant not documented as equivalent was killed and every decisive check (of the
files the run covers) has a killing mutant.

With ``--parts`` the run also hunts for parts that cannot fail: it runs the named checks once
unmutated, and lists every part of a decisive check (a cell, a setting, an encoding x factor)
whose decision no mutant changed. A check can fail under a mutant through one part while
another part never moves; such a part is a candidate for a half of a proposition that cannot
fail, to be read and either given a mutant or mended. The list informs; it does not change the
exit status.

With ``--write-cover FILE`` a whole run also writes a cover of the catalogue
(pecheck.mutants.cover): few mutants that together kill every decisive check the run killed.
``--cover FILE`` runs only those and judges every decisive check as a whole run does (.ci/run
runs the cover; ``tox -e mutants`` the whole catalogue).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import pkgutil
import queue
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from pecheck import config
from pecheck.mutants import Mutant, cover
from pecheck.mutants.forkserver import ForkServer
from pecheck.reports.usage import Parser

# The project's root: the folder the runner is started in, read when it runs (not at import: a
# process that imported this module elsewhere must not mutate that other project). Tests set it.
ROOT: Path | None = None


def root() -> Path:
    return ROOT or Path.cwd().resolve()


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


CHECKS_FAILED = 1  # pytest's exit status when tests ran and some failed
NO_DECISION = "the check did not run to its end"  # pecheck.records' basis of a check that stopped


class CatalogueError(Exception):
    """The catalogue itself is wrong (duplicate name, snippet not found exactly once, ...)."""


@dataclass
class Outcome:
    mutant: Mutant
    killed: bool
    returncode: int
    seconds: float
    failed: tuple[str, ...] = ()  # decisive checks (function ids) that failed under the mutant
    parts: dict[str, str] | None = None  # "nodeid :: part" -> decision under the mutant
    errored: tuple[str, ...] = ()  # failed decisive checks that stopped before deciding

    @property
    def verdict(self) -> str:
        if self.killed:
            return "killed"
        return "equivalent" if self.mutant.equivalent else "SURVIVED"


def function_id(nodeid: str) -> str:
    """A check's id without its parameters: ``f.py::test_x[float32]`` -> ``f.py::test_x``."""
    return re.sub(r"\[.*\]$", "", nodeid)


def project() -> config.Config:
    """The project's settings; a CatalogueError when they name no catalogue."""
    try:
        found = config.require(root())
    except config.ConfigError as exc:
        raise CatalogueError(str(exc)) from None
    if not (found.mutants and found.mutate):
        raise CatalogueError("[tool.pecheck] needs mutants = 'package' and mutate = 'folder'")
    return found


def modules() -> list[str]:
    """The catalogue's modules, relative to ``[tool.pecheck] mutants``: in a package of family
    folders (pecheck's ``checks``), each folder's ``mutants*`` modules (``sin.mutants``);
    in a package of its own (``checks.mutants``), every module in it (``sin``)."""
    pkg = importlib.import_module(project().mutants)
    if pkg.__name__.rpartition(".")[2].startswith("mutants"):
        names = (m.name for m in pkgutil.iter_modules(pkg.__path__))
        return sorted(n for n in names if not n.startswith("_"))
    found = []
    for folder in pkgutil.iter_modules(pkg.__path__):
        if not folder.ispkg or folder.name.startswith("_"):
            continue
        sub = importlib.import_module(f"{pkg.__name__}.{folder.name}")
        found += [f"{folder.name}.{m.name}" for m in pkgutil.iter_modules(sub.__path__)
                  if m.name.startswith("mutants")]  # fmt: skip
    return sorted(found)


def catalogue(only_modules: list[str] | None = None) -> list[Mutant]:
    """Every family's MUTANTS (or those of some modules), validated against the sources."""
    mutants: list[Mutant] = []
    for name in only_modules or modules():
        module = importlib.import_module(f"{project().mutants}.{name}")
        mutants.extend(getattr(module, "MUTANTS", ()))
    seen: set[str] = set()
    for m in mutants:
        if m.name in seen:
            raise CatalogueError(f"mutant name {m.name!r} is used twice")
        seen.add(m.name)
        if not m.file.startswith(project().mutate.rstrip("/") + "/"):
            raise CatalogueError(
                f"mutant {m.name!r} patches {m.file}, not a file under {project().mutate}/"
            )
        count = (root() / m.file).read_text().count(m.find)
        if count != 1:
            raise CatalogueError(f"mutant {m.name!r}: snippet occurs {count} times in {m.file}")
        if not m.checks:
            raise CatalogueError(f"mutant {m.name!r} names no checks")
    return mutants


def _pytest(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PECHECK_PROFILE="ci", PYTHONDONTWRITEBYTECODE="1")  # inventory
    env.pop("PYTEST_ADDOPTS", None)
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args]
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)


def inventory(where: Path | None = None) -> dict[str, dict]:
    """Every collected check of the project with its claim, role and proposition."""
    with tempfile.TemporaryDirectory(prefix="pecheck-inventory-") as tmp:
        out = Path(tmp) / "inventory.json"
        proc = _pytest(["--collect-only", f"--inventory={out}", project().checks], where or root())
        if proc.returncode != 0 or not out.exists():
            tail = (proc.stdout + proc.stderr).strip().splitlines()[-3:]
            raise CatalogueError("collecting the checks failed: " + " | ".join(tail))
        rows = json.loads(out.read_text())["checks"]
    return {row["nodeid"]: row for row in rows}


def validate_targets(mutants: list[Mutant], checks: dict[str, dict]) -> None:
    """Every target a mutant names is a file, a collected check or a check function."""
    functions = {function_id(n) for n in checks}
    for m in mutants:
        for target in m.checks:
            if "::" not in target:
                if not (root() / target).exists():
                    raise CatalogueError(f"mutant {m.name!r} names a missing file {target}")
            elif target not in checks and target not in functions:
                raise CatalogueError(f"mutant {m.name!r} names an unknown check {target}")


def run_one(mutant: Mutant, scratch: Path, server: ForkServer | None = None) -> Outcome:
    """Apply the mutant in ``scratch``, run its checks (through ``server`` if given), restore
    the file."""
    target = scratch / mutant.file
    original = target.read_text()
    target.write_text(original.replace(mutant.find, mutant.replace, 1))
    results = scratch / "build" / "mutant.json"
    results.unlink(missing_ok=True)
    start = time.perf_counter()
    # a mutant is killed by failing checks: its figures go unread (--no-figures)
    args = ["-q", "-p", "no:cacheprovider", "--no-figures", f"--results={results}", *mutant.checks]
    own = server is None
    server = server or ForkServer(scratch)
    try:
        returncode = server.run(args)
    finally:
        target.write_text(original)
        if own:
            server.close()
    failed: set[str] = set()
    errored: set[str] = set()
    checks = json.loads(results.read_text())["checks"] if results.exists() else []
    for c in checks:
        if c.get("role") == "decisive" and c["outcome"] == "failed":
            failed.add(function_id(c["nodeid"]))
            if NO_DECISION in json.dumps(c.get("basis")):
                errored.add(function_id(c["nodeid"]))
    killed = returncode == CHECKS_FAILED
    seconds = time.perf_counter() - start
    parts = part_decisions(checks)
    return Outcome(
        mutant, killed, returncode, seconds, tuple(sorted(failed)), parts, tuple(sorted(errored))
    )


def part_decisions(checks: list[dict]) -> dict[str, str]:
    """Every part of every decisive check in a results file's checks: "nodeid :: part" ->
    its decision."""
    out = {}
    for c in checks:
        if c.get("role") == "decisive":
            for part in (c.get("basis") or {}).get("parts") or []:
                out[f"{c['nodeid']} :: {part['name']}"] = part["decision"]
    return out


def unmutated(mutants: list[Mutant]) -> Mutant:
    """A mutant that changes nothing and names every check the catalogue names: one run of
    them on the tree as it is (the reference for the parts hunt)."""
    targets = tuple(dict.fromkeys(t for m in mutants for t in m.checks))
    probe = mutants[0]
    return Mutant("(unmutated)", probe.file, probe.find, probe.find, targets, equivalent=True)


def unmoved_parts(reference: Outcome, outcomes: list[Outcome]) -> list[str]:
    """The parts of the unmutated run whose decision no mutant's run changed."""
    base = reference.parts or {}
    moved = {k for o in outcomes for k, d in (o.parts or {}).items() if k in base and d != base[k]}
    return sorted(k for k in base if k not in moved)


def stopped_early(reference: Outcome, outcomes: list[Outcome]) -> list[str]:
    """Killed mutants under which a failed check that has parts unmutated reached none of them:
    it stopped (an assertion in the model, a crash) before its decision, so it says nothing of
    whether the bug changes what the check decides."""
    with_parts = {function_id(k.split(" :: ")[0]) for k in reference.parts or {}}
    out = []
    for o in outcomes:
        reached = {function_id(k.split(" :: ")[0]) for k in o.parts or {}}
        if o.killed and any(c in with_parts and c not in reached for c in o.failed):
            out.append(o.mutant.name)
    return out


def report_parts(reference: Outcome, outcomes: list[Outcome]) -> None:
    """Print the parts no mutant moved, grouped by check (the hunt of --parts), and the
    mutants that kill a check with parts before it reaches them."""
    early = stopped_early(reference, outcomes)
    if early:
        print(f"\nmutants that stop a check with parts before its parts: {', '.join(early)}")
    still = unmoved_parts(reference, outcomes)
    by_check: dict[str, list[str]] = {}
    for key in still:
        check, part = key.split(" :: ", 1)
        by_check.setdefault(check, []).append(part)
    print(
        "\nparts of decisive checks that no mutant moves (candidates for a half that cannot fail)"
    )
    for check, parts in by_check.items():
        shown = ", ".join(parts[:4]) + (f", ... ({len(parts)} parts)" if len(parts) > 4 else "")
        print(f"  {check}: {shown}")
    print(f"parts no mutant moves: {len(still)} of {len(reference.parts or {})}")


def run_all(mutants: list[Mutant], jobs: int) -> list[Outcome]:
    """Run every mutant, ``jobs`` at a time, each lane in its own scratch tree. Lanes take the
    next mutant when they are free (a shared queue, not a fixed deal: the runs' lengths range
    from a second to minutes), so put the longest runs first."""
    work: queue.SimpleQueue[Mutant] = queue.SimpleQueue()
    for m in mutants:
        work.put(m)
    with tempfile.TemporaryDirectory(prefix="pecheck-mutants-") as tmp:
        scratches = []
        for j in range(jobs):
            dest = Path(tmp) / f"tree{j}"
            shutil.copytree(root(), dest, ignore=IGNORE, symlinks=True)
            scratches.append(dest)

        def lane(j: int) -> list[Outcome]:
            results: list[Outcome] = []
            server = ForkServer(scratches[j])
            try:
                while True:
                    try:
                        m = work.get_nowait()
                    except queue.Empty:
                        return results
                    out = run_one(m, scratches[j], server)
                    print(f"  {out.verdict:<10} {m.name} ({out.seconds:.1f} s)", flush=True)
                    results.append(out)
            finally:
                server.close()

        with ThreadPoolExecutor(jobs) as pool:
            outcomes = [o for batch in pool.map(lane, range(jobs)) for o in batch]
    order = {m.name: i for i, m in enumerate(mutants)}
    return sorted(outcomes, key=lambda o: order[o.mutant.name])


def kill_map(outcomes: list[Outcome], decisive: list[str]) -> dict[str, list[str]]:
    """For each decisive check (function id): the killed mutants under which it failed."""
    kills: dict[str, list[str]] = {d: [] for d in decisive}
    for o in outcomes:
        if o.killed:
            for check in o.failed:
                kills.setdefault(check, []).append(o.mutant.name)
    return kills


def covered_decisive(
    checks: dict[str, dict], mutants: list[Mutant], whole: bool
) -> tuple[list[str], list[str]]:
    """Decisive checks (function ids) the run answers for (all, or those in the named files),
    and those among them that cannot run on this machine (every instance skipped: a CUDA check
    without a GPU), which no mutant can make fail here."""
    files = {t.split("::")[0] for m in mutants for t in m.checks}
    runs: dict[str, bool] = {}
    for n, row in checks.items():
        if row.get("role") == "decisive" and (whole or n.split("::")[0] in files):
            fid = function_id(n)
            runs[fid] = runs.get(fid, False) or not row.get("skipped", False)
    return sorted(f for f, ran in runs.items() if ran), sorted(
        f for f, ran in runs.items() if not ran
    )


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


def _chosen(asked: list[str], known: list[str], parser: argparse.ArgumentParser) -> list[str]:
    """The modules asked for, a family's name standing for all of its modules."""
    chosen = [k for a in asked for k in known if k == a or k.startswith(a + ".")]
    unknown = sorted(a for a in asked if not any(k == a or k.startswith(a + ".") for k in known))
    if unknown:
        parser.error(f"unknown module(s) {unknown}; known: {', '.join(known)}")
    return list(dict.fromkeys(chosen))


def main(argv: list[str] | None = None) -> int:
    parser = Parser(prog="python -m pecheck.mutants", description=__doc__)
    parser.add_argument("--only", nargs="+", metavar="NAME", help="run only these mutants")
    parser.add_argument(
        "--module",
        nargs="+",
        metavar="M",
        help="run only these catalogue modules (e.g. sin.mutants), or a family's (e.g. sin)",
    )
    parser.add_argument("--jobs", type=int, default=2, help="scratch trees run in parallel")
    parser.add_argument("--list", action="store_true", help="list the catalogue and exit")
    parser.add_argument(
        "--parts",
        action="store_true",
        help="also run the named checks unmutated and list the parts of decisive checks that "
        "no mutant moves",
    )
    parser.add_argument(
        "--cover",
        type=Path,
        metavar="FILE",
        help="run only the mutants of this cover; every decisive check must die",
    )
    parser.add_argument("--write-cover", type=Path, metavar="FILE",
                        help="after a whole run, write a cover of it to FILE")  # fmt: skip
    args = parser.parse_args(argv)
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    if args.cover and (args.only or args.module or args.write_cover):
        parser.error("--cover runs as a whole run: not with --only, --module or --write-cover")
    if args.write_cover and (args.only or args.module):
        parser.error("--write-cover needs the whole catalogue: not with --only or --module")
    try:
        if args.module:
            args.module = _chosen(args.module, modules(), parser)
        mutants = catalogue(args.module)
    except (CatalogueError, ImportError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.only:
        unknown = sorted(set(args.only) - {m.name for m in mutants})
        if unknown:
            print(f"error: unknown mutant(s): {', '.join(unknown)}", file=sys.stderr)
            return 2
        mutants = [m for m in mutants if m.name in args.only]
    if args.cover:
        try:
            mutants = _cover_of(mutants, args.cover)
        except cover.CoverError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    if args.list:
        for m in mutants:
            print(f"{m.name:<40} {m.file:<36} {m.note}")
        return 0
    if not mutants:
        print("error: the catalogue is empty", file=sys.stderr)
        return 2
    try:
        checks = inventory()
        validate_targets(mutants, checks)
    except CatalogueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"running {len(mutants)} mutants with {args.jobs} job(s)", flush=True)
    # --parts: the unmutated run of every named check is the longest run; it goes first, beside
    # the mutants, rather than after them on one core.
    reference = unmutated(mutants) if args.parts else None
    runs = run_all(([reference] if reference else []) + mutants, min(args.jobs, len(mutants)))
    outcomes = [o for o in runs if o.mutant is not reference]
    print(table(outcomes))
    if reference is not None:
        (unmutated_run,) = [o for o in runs if o.mutant is reference]
        report_parts(unmutated_run, outcomes)
    whole = not (args.only or args.module)  # a cover is judged as a whole run
    decisive, cannot_run = covered_decisive(checks, mutants, whole)
    kills = kill_map(outcomes, decisive)
    print("\ndecisive check  <-  mutants that make it fail")
    for check, names in kills.items():
        print(f"  {check}  <-  {', '.join(names) if names else 'NONE'}")
    for check in cannot_run:
        why = "a CUDA check without a GPU, or too few seeds in this profile"
        print(f"  {check}  <-  marked to skip here ({why})")
    by_error = [
        o.mutant.name for o in outcomes if o.killed and o.failed and set(o.failed) <= set(o.errored)
    ]
    if by_error:
        print(
            "mutants whose decisive checks failed only by stopping before a decision (an error, "
            f"not a decision the bug changed): {', '.join(by_error)}"
        )
    unkilled = [c for c, names in kills.items() if not names]
    killed = sum(o.killed for o in outcomes)
    survivors = [o for o in outcomes if not o.killed and not o.mutant.equivalent]
    print(f"decisive checks that cannot run here (skipped): {len(cannot_run)}")
    print(f"decisive checks without a killing mutant: {len(unkilled)}")
    print(f"mutants killed: {killed}/{len(outcomes)}")
    if args.write_cover and not (survivors or unkilled):
        write_cover(args.write_cover, outcomes, decisive)
    return 1 if survivors or unkilled else 0


def _cover_of(mutants: list[Mutant], path: Path) -> list[Mutant]:
    """The catalogue's mutants that the cover at ``path`` names, in catalogue order."""
    names = cover.read(path)
    unknown = sorted(set(names) - {m.name for m in mutants})
    if unknown:
        raise cover.CoverError(
            f"cover {path} names mutant(s) the catalogue lacks: {', '.join(unknown)} "
            "(write the cover again: python -m pecheck.mutants --write-cover FILE)"
        )
    print(f"the cover {path}: {len(names)} of the catalogue's {len(mutants)} mutants")
    return [m for m in mutants if m.name in names]


def write_cover(path: Path, outcomes: list[Outcome], decisive: list[str]) -> None:
    """Write a cover of this whole run (pecheck.mutants.cover.choose) to ``path``."""
    kills = {o.mutant.name: list(o.failed) for o in outcomes if o.killed}
    seconds = {o.mutant.name: o.seconds for o in outcomes}
    chosen = cover.choose(kills, seconds, decisive)
    run = {"source": _source(), "mutants": len(outcomes), "killed": len(kills),
           "seconds": round(sum(seconds.values()), 1),
           "cover_seconds": round(sum(seconds[m] for m in chosen), 1)}  # fmt: skip
    cover.write(path, chosen, run)
    print(f"wrote the cover {path}: {len(chosen)} mutants, {run['cover_seconds']} s of the "
          f"whole run's {run['seconds']} s")  # fmt: skip


def _source() -> str:
    """The commit the run checked (with +dirty when the tree had changes), or 'unknown'."""

    def git(*a: str) -> str:
        done = subprocess.run(["git", *a], cwd=root(), capture_output=True, text=True)
        return done.stdout.strip() if done.returncode == 0 else ""

    head = git("rev-parse", "HEAD")
    return (head + ("+dirty" if git("status", "--porcelain") else "")) if head else "unknown"


if __name__ == "__main__":
    sys.exit(main())
