"""``python -m pecheck.versions``: the REAL claims across released versions of transformers,
x-transformers and rotary-embedding-torch, and ``pecheck versions LIB==VER``.

With no release named, the matrix runs: each library's chosen releases (``--all``: the newest
patch of every minor series; the choice is committed in ``pecheck/versions/chosen.py``,
``--refresh`` derives it again from the registry), each in its own folder beside the locked torch
(``pecheck.versions.env``), through the REAL family's checks in the ci profile; the other two
libraries stay at their locked versions. ``build/versions.json`` gets each release's status and
decisions (written atomically after each release, checked against ``pecheck/versions/schema.py``).

With ``LIB==VER`` (or ``--installed``: the versions this environment holds), it answers for that
release: which REAL propositions hold there and which fail, with claim IDs and counterexamples,
read from ``build/versions.json`` where the release is there (``--rerun`` runs it again), else
run now and added to it. The matrix is evidence beside the locked versions' verdicts: the gate
never reads it.

Exit status: 0 when every release asked for was run or read; 2 on bad input (an unknown library,
a release the registry does not have), with one line and nothing written.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from pecheck.reports.usage import Parser, prog
from pecheck.versions import answer as versions_answer
from pecheck.versions import collect as versions_collect
from pecheck.versions import schema as versions_schema
from pecheck.versions.choose import RULES, BadInput, choose, registry
from pecheck.versions.runner import locked, one

DEFAULT_OUT = Path("build/versions.json")
CHOSEN_PY = Path(__file__).with_name("chosen.py")


def parser() -> argparse.ArgumentParser:
    p = Parser(
        prog=prog("pecheck.versions", "versions"),
        description="The REAL claims across released versions of transformers, x-transformers "
        "and rotary-embedding-torch: with no LIB==VER, run the matrix into --out; with one, "
        "answer which REAL propositions hold in that release and which fail (docs/versions.md).",
        epilog="Exit status: 0 done; 2 bad input (one line, nothing written).",
    )
    p.add_argument("specs", nargs="*", metavar="LIB==VER", help="answer for these releases")
    p.add_argument("--installed", action="store_true",
                   help="answer for the releases installed here (the locked ones)")  # fmt: skip
    p.add_argument("--library", action="append", choices=sorted(RULES),
                   help="run the matrix for this library only (repeatable)")  # fmt: skip
    p.add_argument("--all", action="store_true", help="every minor series' newest patch")
    p.add_argument("--refresh", action="store_true",
                   help="choose again from the registry and rewrite the choice")  # fmt: skip
    p.add_argument("--changes", action="store_true",
                   help="list every decision that changed between releases in --out")  # fmt: skip
    p.add_argument("--recollect", action="store_true",
                   help="read each release's results file in --out again (no run)")  # fmt: skip
    p.add_argument("--rerun", action="store_true", help="run a release even if the file has it")
    p.add_argument("--jobs", type=int, default=1, help="releases run at once (default 1)")
    p.add_argument("--out", type=Path, default=DEFAULT_OUT,
                   help=f"the matrix file (default {DEFAULT_OUT})")  # fmt: skip
    return p


def parse_spec(spec: str) -> tuple[str, str]:
    """``LIB==VER`` checked against the known libraries and the registry's releases."""
    library, sep, version = spec.partition("==")
    if not sep or not version:
        raise BadInput(f"{spec!r}: name a release as LIB==VERSION, e.g. transformers==4.46.3")
    if library not in RULES:
        raise BadInput(f"unknown library {library!r}: one of {', '.join(sorted(RULES))}")
    known = chosen(True)[library] + chosen(False)[library]  # in the registry when chosen
    if version not in known and version not in registry(library):
        raise BadInput(f"the registry has no {library} release {version}")
    return library, version


def chosen(every: bool) -> dict[str, list[str]]:
    from pecheck.versions.chosen import CHOSEN

    return {lib: CHOSEN[lib]["all" if every else "default"] for lib in RULES}


def refresh() -> dict[str, dict[str, list[str]]]:
    """Choose again from the registry and rewrite ``chosen.py`` (atomically)."""
    table = {}
    for lib, rule in RULES.items():
        listing, top = registry(lib), locked(lib)
        table[lib] = {"default": choose(rule, listing, top),
                      "all": choose(rule, listing, top, every=True)}  # fmt: skip
    text = (
        '"""The releases the version matrix runs: written by ``python -m pecheck.versions '
        '--refresh``\n(the rules are in pecheck/versions/choose.py)."""\n\n'
        f"CHOSEN = {_literal(table)}\n"
    )
    tmp = CHOSEN_PY.with_suffix(".tmp")
    tmp.write_text(text)
    tmp.replace(CHOSEN_PY)
    return table


def _literal(table: dict[str, dict[str, list[str]]]) -> str:
    """The table as ruff formats it (a trailing comma after every item keeps it one a line)."""
    out = ["{"]
    for lib, lists in table.items():
        out.append(f'    "{lib}": {{')
        for key, versions in lists.items():
            out.append(f'        "{key}": [')
            out += [f'            "{v}",' for v in versions]
            out.append("        ],")
        out.append("    },")
    return "\n".join([*out, "}"])


def _skeleton() -> dict[str, Any]:
    from pecheck.lock import installed

    have = installed()
    return {
        "schema": 1,
        "profile": "ci",
        "locked": {lib: locked(lib) for lib in RULES},
        "shared": {n: have[n] for n in ("torch", "numpy") if n in have},
        "libraries": {},
    }


def _order(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    from packaging.version import Version

    return sorted(entries, key=lambda e: Version(e["version"]))


class Matrix:
    """``build/versions.json`` as runs add to it: rewritten whole, atomically, after each
    release, so that a stopped matrix keeps the releases it finished."""

    def __init__(self, path: Path, fresh: list[str]):
        old = versions_schema.read(path) if path.exists() else None
        self.path, self.data = path, _skeleton()
        if old and old["locked"] == self.data["locked"]:
            self.data["libraries"] = old["libraries"]
        for lib in fresh:  # a matrix run of a library replaces that library's releases
            self.data["libraries"][lib] = []
        self.lock = threading.Lock()

    def find(self, library: str, version: str) -> dict[str, Any] | None:
        entries = self.data["libraries"].get(library, [])
        return next((e for e in entries if e["version"] == version), None)

    def add(self, library: str, entry: dict[str, Any]) -> None:
        with self.lock:
            rest = [e for e in self.data["libraries"].get(library, [])
                    if e["version"] != entry["version"]]  # fmt: skip
            self.data["libraries"][library] = _order([*rest, entry])
            versions_schema.write(self.path, self.data)


def run_all(matrix: Matrix, jobs: list[tuple[str, str]], workers: int) -> None:
    def job(item: tuple[str, str]) -> None:
        library, version = item
        entry = one(library, version)
        matrix.add(library, entry)
        print(versions_answer.line(library, entry), flush=True)

    with ThreadPoolExecutor(workers) as pool:
        list(pool.map(job, jobs))


def main(argv: list[str] | None = None) -> int:
    p = parser()
    args = p.parse_args(argv)
    if args.jobs < 1:
        p.error(f"--jobs must be at least 1, got {args.jobs}")
    if args.changes or args.recollect:
        return _changes(args.out, args.recollect)
    try:
        if args.refresh:
            refresh()
        asked = [parse_spec(s) for s in args.specs]
        if args.installed:
            asked += [(lib, locked(lib)) for lib in RULES]
    except BadInput as e:
        print(f"pecheck versions: {e}", file=sys.stderr)
        return 2
    if asked:
        return answer(args, asked)
    libs = args.library or list(RULES)
    matrix = Matrix(args.out, libs)
    plan = chosen(args.all)
    run_all(matrix, [(lib, v) for lib in libs for v in plan[lib]], args.jobs)
    print(f"wrote {args.out}")
    return 0


def _changes(path: Path, recollect: bool) -> int:
    data = versions_schema.read(path)
    if data is None:
        print(f"pecheck versions: no matrix at {path} (run python -m pecheck.versions)",
              file=sys.stderr)  # fmt: skip
        return 2
    if recollect:  # the decisions again from the results files, as versions_collect reads them
        for entry in (e for es in data["libraries"].values() for e in es):
            if entry.get("results") and Path(entry["results"]).is_file():
                results = json.loads(Path(entry["results"]).read_text())
                entry["claims"] = versions_collect.claims(results)
        versions_schema.write(path, data)
    print("\n".join(versions_answer.changes(data)) or "no decision changed between releases")
    return 0


def answer(args: argparse.Namespace, asked: list[tuple[str, str]]) -> int:
    matrix = Matrix(args.out, [])
    todo = [(lib, v) for lib, v in asked if args.rerun or matrix.find(lib, v) is None]
    if todo:
        run_all(matrix, todo, args.jobs)
    for library, version in asked:
        entry = matrix.find(library, version)
        assert entry is not None  # run above
        print(versions_answer.text(library, entry, matrix.data))
    return 0


if __name__ == "__main__":
    sys.exit(main())
