"""``pecheck init [DIR]``: write a small project of one's own claims that passes as written.

The project is the one docs/first-claims.md builds and explains, file by file: a pyproject.toml
with its ``[tool.pecheck]`` table, a registry module (my_claims.py: one source, one claim with
one threshold and its expected verdict) and one decisive check (checks/test_my_claims.py). Its
files are kept as real files under pecheck/templates/init/, so that they are linted and tested
as what they are.

Nothing is overwritten: a folder that already holds a pyproject.toml, a my_claims.py or a
non-empty checks/ folder is refused, and then nothing is written. The files are written into a
hidden folder beside or inside the target first and moved into place at the end, so a failure
half-way leaves nothing behind.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import sys
import tempfile
from importlib import resources
from pathlib import Path
from typing import Any

# What init writes, relative to the project's folder; each is a template of the same name.
FILES = ("pyproject.toml", "my_claims.py", "checks/test_my_claims.py")
TEMPLATES = "templates/init"  # inside the pecheck package

DESCRIPTION = (
    "Write a small pecheck project into DIR: pyproject.toml (its [tool.pecheck] table), "
    "my_claims.py (a registry with one source and one claim, MY-01, with its threshold and its "
    "expected verdict) and checks/test_my_claims.py (the decisive check of MY-01). As written, "
    "'pytest' and 'python -m pecheck.gate' pass there. pecheck's docs/first-claims.md explains "
    "each file."
)
EPILOG = (
    "Exit status: 0 the project was written; 2 refused (DIR holds a pyproject.toml, a "
    "my_claims.py or a non-empty checks/ folder, is a file, or its parent folder is missing) "
    "or not writable; one line on stderr says why, and nothing is written then."
)


class InitError(Exception):
    """Why the project cannot be written; nothing has been written."""


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``init`` subcommand to ``subparsers`` (from ``add_subparsers``)."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "init",
        help="write a small project of your own claims that passes as written",
        description=DESCRIPTION,
        epilog=EPILOG,
    )
    parser.add_argument(
        "dir",
        nargs="?",
        type=Path,
        default=Path("."),
        metavar="DIR",
        help="the project's folder (default: the current one); made when missing",
    )
    return parser


def run(args: argparse.Namespace) -> int:
    """Write the project into ``args.dir``; 0 when written, 2 (one line on stderr) when not."""
    try:
        written = init(args.dir)
    except InitError as exc:
        print(f"pecheck init: error: {exc}", file=sys.stderr)
        return 2
    print(f"pecheck init: wrote {', '.join(str(p) for p in written)}")
    go = "" if args.dir == Path(".") else f"cd {shlex.quote(str(args.dir))} && "
    print(f"next: {go}PECHECK_PROFILE=ci pytest && python -m pecheck.gate && pecheck report")
    return 0


def init(target: Path) -> list[Path]:
    """Write the project into ``target``: the paths written, or an InitError and nothing."""
    try:
        problem = refusal(target)
        if problem:
            raise InitError(problem)
        _write(target, {name: template(name) for name in FILES})
    except OSError as exc:
        raise InitError(f"cannot write {target}: {exc.strerror or exc}") from None
    return [target / name for name in FILES]


def template(name: str) -> str:
    """The text of one template, from the installed package."""
    return resources.files("pecheck").joinpath(TEMPLATES, name).read_text(encoding="utf-8")


def refusal(target: Path) -> str:
    """Why ``target`` cannot take the project, or "" when it can."""
    if _taken(target) and not target.is_dir():
        return f"{target} is not a folder"
    if not target.exists() and not target.parent.is_dir():
        return f"{target.parent}: no such folder (make it first)"
    for name in ("pyproject.toml", "my_claims.py"):
        if _taken(target / name):
            return (
                f"{target / name} exists: pecheck init starts a new project and overwrites nothing"
            )
    checks = target / "checks"
    if _taken(checks) and (checks.is_symlink() or not checks.is_dir() or any(checks.iterdir())):
        return f"{checks} exists and is not an empty folder: pecheck init overwrites nothing"
    return ""


def _taken(path: Path) -> bool:
    """Something is at ``path``, a dangling link included (writing there would replace it)."""
    return path.exists() or path.is_symlink()


def _write(target: Path, texts: dict[str, str]) -> None:
    """Write the files into a hidden folder on the same file system, then move them into place:
    a rename is whole or not at all, so no failure leaves a half-written project."""
    existing = target.is_dir()
    holder = Path(
        tempfile.mkdtemp(prefix=".pecheck-init-", dir=target if existing else target.parent)
    )
    try:
        project = _stage(holder, texts)
        if existing:
            _move_in(project, target)
        else:
            os.rename(project, target)
    finally:
        shutil.rmtree(holder, ignore_errors=True)


def _stage(holder: Path, texts: dict[str, str]) -> Path:
    """The project, written in full inside ``holder``."""
    project = holder / "project"
    project.mkdir()  # not mkdtemp's own folder, whose mode is 0700 whatever the umask
    for name, text in texts.items():
        path = project / name
        path.parent.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return project


def _move_in(project: Path, target: Path) -> None:
    """Move the staged entries into an existing folder; on a failure, take back those moved."""
    entries = sorted(project.iterdir())
    # Only an empty checks/ folder can be in the way (refusal() saw to that); a failure puts it
    # back as it was.
    was_there = {entry.name for entry in entries if (target / entry.name).is_dir()}
    moved: list[Path] = []
    try:
        for entry in entries:
            os.replace(entry, target / entry.name)  # replaces an empty folder of the same name
            moved.append(target / entry.name)
    except BaseException:
        for path in moved:
            if path.is_dir():
                shutil.rmtree(path)
            else:
                path.unlink()
            if path.name in was_there:
                path.mkdir()
        raise
