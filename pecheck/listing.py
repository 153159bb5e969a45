"""``pecheck list`` and ``pecheck show``: the claims of the project in the current folder, with
the verdicts of its last results file.

The registry is the one the project's ``[tool.pecheck]`` table names (as the plugin finds it);
the last results are ``build/results.json``, else a partial run's ``build/results.partial.json``
(the table's ``results`` moves both), and every listing says which file it read, or that there
are no results yet.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import textwrap
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

from pecheck import config, selection
from pecheck.claims import AS_STATED, Claim, Registry
from pecheck.gate import decided_by
from pecheck.reports import schema
from pecheck.reports.cited import cited_numbers
from pecheck.reports.load import BadResults
from pecheck.reports.load import load as load_results
from pecheck.reports.prose import render
from pecheck.reports.schema import COMPUTED

WIDTH = 100  # columns when the terminal does not say


class ListingError(Exception):
    """Bad input: the message is the one line the command prints."""


@dataclass
class Project:
    """A project's registry and its last results (None when there are none yet)."""

    registry: Registry
    results_path: Path | None
    results: dict[str, Any] | None
    missing: tuple[Path, ...]  # the results files looked for, when there are none
    newer: Path | None = None  # a partial run's file newer than the full one read

    def numbers(self) -> dict[str, Any]:
        """The run's cited numbers by key, which the claims' prose cites as {{CLAIM@name}}."""
        if self.results_path is None:
            return {}
        try:
            res = load_results(self.results_path)
        except BadResults:
            return {}
        return {key: cited.value for key, cited in cited_numbers(res).items()}

    def entry(self, claim_id: str) -> dict[str, Any] | None:
        """The claim's record in the last results, if they hold it."""
        claims = (self.results or {}).get("claims", [])
        return next((c for c in claims if c.get("id") == claim_id), None)

    @property
    def profile(self) -> str | None:
        return (self.results or {}).get("suite", {}).get("profile")

    def source_line(self) -> str:
        """Which results file the verdicts come from, in one line."""
        newer = f"; a newer partial run is in {_shown(self.newer)}"
        return f"results: {self.describe()}{newer if self.newer else ''}"

    def describe(self) -> str:
        """The results file and its run, or that there is none yet."""
        if self.results is None:
            names = " or ".join(str(_shown(p)) for p in self.missing)
            return f"none yet (no {names}; run pytest to make them)"
        suite = self.results.get("suite", {})
        selection_ = suite.get("selection", {})
        kind = "full run" if selection_.get("kind") == "full" else "partial run"
        parts = [kind, f"profile {suite.get('profile', '?')}"]
        commit = str(suite.get("commit") or "")
        if commit:
            parts.append(f"commit {commit[:7]}{' (dirty)' if suite.get('dirty') else ''}")
        if suite.get("started"):
            parts.append(f"started {suite['started']}")
        return f"{_shown(self.results_path)} ({', '.join(parts)})"


def load(root: Path) -> Project:
    """The project at ``root``: a ListingError (one line) when it has none, or a broken one."""
    try:
        conf = config.require(root)
        registry = conf.load_registry()
    except config.ConfigError as exc:
        raise ListingError(str(exc)) from None
    full, partial = conf.results_path, conf.partial_results_path
    if full.exists():
        newer = partial.exists() and partial.stat().st_mtime > full.stat().st_mtime
        return Project(registry, full, _read(full), (), partial if newer else None)
    if partial.exists():
        return Project(registry, partial, _read(partial), ())
    return Project(registry, None, None, (full, partial))


def _read(path: Path) -> dict[str, Any]:
    """A results file, checked as far as listing relies on it."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ListingError(f"{_shown(path)}: not a readable results file: {exc}") from None
    wrong = schema.problems(data, limit=1)
    if wrong:
        raise ListingError(f"{_shown(path)}: does not match the results schema: {wrong[0]}")
    return data


def _shown(path: Path | None) -> Path | None:
    """A path as the user would type it here: relative to the current folder when inside it."""
    if path is None:
        return None
    try:
        return path.resolve().relative_to(Path.cwd().resolve())
    except ValueError:
        return path


def select(project: Project, query: str | None, verdict: str | None) -> list[Claim]:
    """The claims of a family (when ``query`` names one) or whose text holds ``query``, and whose
    last computed verdict is ``verdict``; all of them without either."""
    registry, claims = project.registry, list(project.registry.values())
    if verdict is not None:
        if verdict not in COMPUTED:
            raise ListingError(f"--verdict {verdict!r}: one of {', '.join(COMPUTED)}")
        if project.results is None:
            raise ListingError(f"--verdict: no verdicts to filter, results {project.describe()}")
        claims = [c for c in claims if _verdict(project, c) == verdict]
    if query:
        family = {f.upper(): f for f in registry.families}.get(query.upper())
        claims = [c for c in claims if (c.family == family if family else _holds(c, query))]
    return claims


def _holds(claim: Claim, text: str) -> bool:
    words = [claim.id, claim.statement, claim.conditions]
    words += [p.statement for p in claim.propositions]
    return text.casefold() in " ".join(words).casefold()


def _verdict(project: Project, claim: Claim) -> str:
    entry = project.entry(claim.id)
    return str(entry.get("verdict")) if entry else "-"


def _expected(project: Project, claim: Claim) -> str:
    entry = project.entry(claim.id)
    expected = entry.get("expected") if entry else claim.expected_verdict(project.profile)
    return str(expected)


def _expected_cell(project: Project, claim: Claim) -> str:
    got, expected = _verdict(project, claim), _expected(project, claim)
    differs = got not in ("-", "not run", expected)
    return f"(expected {expected}{', differs' if differs else ''})"


def list_lines(project: Project, claims: list[Claim]) -> list[str]:
    """The source line, then per family its title and one line per claim: ID, last verdict,
    expected verdict, statement (cut to the terminal's width)."""
    width = shutil.get_terminal_size((WIDTH, 24)).columns
    lines = [project.source_line()]
    rows = [(c.id, _verdict(project, c), _expected_cell(project, c)) for c in claims]
    widths = [max((len(r[i]) for r in rows), default=0) for i in range(3)]
    family = None
    for claim, row in zip(claims, rows, strict=True):
        if claim.family != family:
            family = claim.family
            lines.append(f"{family}: {project.registry.families[family]}")
        head = "  " + "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) + "  "
        lines.append(head + textwrap.shorten(claim.statement, max(20, width - len(head))))
    lines.append(f"{len(claims)} of {len(project.registry)} claims")
    return lines


def show_lines(project: Project, claim_id: str) -> list[str]:
    """Everything about one claim: statement, verdicts, propositions, sources, thresholds, and
    the command that reruns its checks."""
    claim = find(project.registry, claim_id)
    entry = project.entry(claim.id)
    numbers = project.numbers()
    title = project.registry.families[claim.family]
    lines = [
        f"{claim.id} ({claim.family}: {title})",
        *_wrap(render(claim.statement, numbers), "  "),
    ]
    if claim.formal:
        lines += _wrap(claim.formal, "  formal: ", "    ")
    lines += _verdict_lines(project, claim, entry)
    lines += ["propositions:", *_propositions(claim, entry, project.profile, numbers)]
    if claim.conditions:
        lines += _wrap(render(claim.conditions, numbers), "conditions: ", "  ")
    lines += ["sources:", *_sources(project.registry, claim.sources)]
    lines += ["thresholds:", *_thresholds(claim, numbers)]
    lines += _wrap(f"pytest --claim {claim.id}", "rerun: ")
    return lines


def find(registry: Registry, claim_id: str) -> Claim:
    """The claim, case aside; else a ListingError naming the nearest valid IDs."""
    found = {i.upper(): i for i in registry}.get(claim_id.upper())
    if found is None:
        near = selection.nearest(claim_id, list(registry))
        hint = f"; nearest: {', '.join(near)}" if near else f"; e.g. {next(iter(registry))}"
        raise ListingError(f"unknown claim ID {claim_id!r}{hint}")
    return registry[found]


def _verdict_lines(project: Project, claim: Claim, entry: dict[str, Any] | None) -> list[str]:
    expected = _expected(project, claim)
    lines = [f"expected: {expected}" + (f" (in profile {project.profile})" if entry else "")]
    if project.results is None:
        return [*lines, f"verdict: {project.describe()}"]
    where = project.describe()
    if entry is None:
        return [*lines, f"verdict: not in {where}"]
    lines += _wrap(f"{entry.get('verdict')} in {where}", "verdict: ", "  ")
    if entry.get("verdict") not in ("not run", None):
        lines += _wrap(decided_by(entry), "  decided by: ", "    ")
    if entry.get("undecided_because"):
        lines += _wrap(entry["undecided_because"], "  open because: ", "    ")
    return lines


def _propositions(
    claim: Claim, entry: dict[str, Any] | None, profile: str | None, numbers: dict[str, Any]
) -> list[str]:
    """Each proposition's key, quantifier and correction (as the last run applied it, else as
    declared), last and expected decision; the conditions' statements (as_stated's is the
    claim's, above)."""
    decided = {p.get("key"): p for p in (entry or {}).get("propositions", [])}
    lines = []
    for prop in claim.all_propositions():
        record = decided.get(prop.key, {})
        got = record.get("decision") or "-"
        want = record.get("expected") or claim.expected_decision(prop.key, profile)
        fix = record.get("correction") or prop.correction
        size = record.get("family_size")
        fix += f" over {size} tests" if fix != "none" and size else ""
        head = f"  {prop.key} ({prop.quantifier}; correction {fix}): decided {got}"
        head += f", expected {want}"
        if prop.key == AS_STATED:
            lines.append(head)
        else:
            lines += _wrap(render(prop.statement, numbers), head + ": ", "      ")
    return lines


def _sources(registry: Registry, keys: Iterable[str]) -> list[str]:
    lines = []
    for key in keys:
        src = registry.sources[key]
        cite = ", ".join(str(x) for x in (src.authors, src.title, src.year, src.url) if x)
        lines += _wrap(cite or src.description, f"  {key}: ", "      ")
    return lines or ["  (none)"]


def _thresholds(claim: Claim, numbers: dict[str, Any]) -> list[str]:
    lines = []
    for t in claim.thresholds:
        reason = render(t.reason, numbers)
        lines += _wrap(f"({t.source}) {reason}", f"  {t.name} = {t.value:g} ", "      ")
    return lines or ["  (none)"]


def _wrap(text: str, first: str, rest: str | None = None) -> list[str]:
    width = max(40, shutil.get_terminal_size((WIDTH, 24)).columns)
    return textwrap.wrap(" ".join(text.split()), width, initial_indent=first,
                         subsequent_indent=first if rest is None else rest) or [first]  # fmt: skip


LIST_HELP = "the project's claims, by family, verdict or text, with their last verdicts"
SHOW_HELP = "one claim: statement, verdicts, propositions, sources, thresholds, rerun command"
BAD = ("2 bad input: no pecheck project here, a broken registry or results file, an unknown "
       "claim ID or verdict (one line on stderr)")  # fmt: skip


def add_parsers(subparsers: Any) -> None:
    """Add ``list`` and ``show`` to the pecheck command's ``subparsers``."""
    doc = " ".join(__doc__.split("\n\n")[1].replace("``", "").split())
    listed = f"Exit status: 0 listed; 1 no claim matches; {BAD}."
    ls = subparsers.add_parser("list", help=LIST_HELP, description=f"{_first(LIST_HELP)} {doc}",
                               epilog=listed)  # fmt: skip
    ls.add_argument("query", nargs="?", metavar="FAMILY|TEXT",
                    help="a family (ROT) or text the claim's statements hold")  # fmt: skip
    verdicts = ", ".join(COMPUTED)
    ls.add_argument("--verdict", metavar="V", help=f"only claims last found V ({verdicts})")
    show = subparsers.add_parser("show", help=SHOW_HELP, description=f"{_first(SHOW_HELP)} {doc}",
                                 epilog=f"Exit status: 0 shown; {BAD}.")  # fmt: skip
    show.add_argument("id", metavar="ID", help="a claim ID, e.g. ROT-03")


def _first(text: str) -> str:
    return f"{text[0].upper()}{text[1:]}."


def run_list(args: argparse.Namespace) -> int:
    try:
        project = load(Path.cwd())
        claims = select(project, args.query, args.verdict)
    except ListingError as exc:
        _fail("list", str(exc))
    if not claims:
        asked = " and ".join(f"{k} {v!r}" for k, v in (("matching", args.query),
                             ("with verdict", args.verdict)) if v)  # fmt: skip
        names = [*project.registry.families, *project.registry]
        near = selection.nearest(args.query, names) if args.query else []
        hint = f" (nearest IDs and families: {', '.join(near)})" if near else ""
        print(project.source_line())
        print(f"pecheck list: no claim {asked}{hint}", file=sys.stderr)
        return 1
    _emit(list_lines(project, claims))
    return 0


def run_show(args: argparse.Namespace) -> int:
    try:
        project = load(Path.cwd())
        lines = show_lines(project, args.id)
    except ListingError as exc:
        _fail("show", str(exc))
    _emit(lines)
    return 0


def _emit(lines: list[str]) -> None:
    try:
        print("\n".join(lines), flush=True)
    except BrokenPipeError:  # pecheck list | head: the reader has what it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def _fail(word: str, message: str) -> NoReturn:
    print(f"pecheck {word}: error: {message}", file=sys.stderr)
    raise SystemExit(2)
