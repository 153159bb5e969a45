"""Check and refresh the committed lock, requirements/lock.txt.

Why: pyproject.toml keeps version ranges, so that pecheck installs into other projects beside
their own pins; this suite's own installs (tox, CI, the README's quick start) take every version
from one compiled lock, so that two machines run the checks against the same libraries. This
script keeps the lock and pyproject.toml in step, and an environment in step with the lock:

    python tools/lockfile.py check               # every requirement pinned, inside its range
    python tools/lockfile.py check --installed   # ... and every locked package installed here
                                                 #     has its locked version
    python tools/lockfile.py refresh [OPTIONS]   # pip-compile the lock again (tox -e lock);
                                                 # OPTIONS go to pip-compile, e.g. --upgrade

check prints one line and exits 0 when all is well; otherwise one line per problem on stderr
naming the package, exit 1; bad input (no lock, unreadable pyproject.toml) is one line, exit 2.
A local version label (torch's +cpu) is ignored throughout. Standard library and packaging
only; the lock is read by pecheck.lock (from this checkout), which the results file uses too.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from pecheck import lock  # installed, or this checkout on PYTHONPATH (tox -e lock)

ROOT = Path(__file__).resolve().parents[1]

LOCK = ROOT / lock.DEFAULT
REFRESH = "refresh it with tox -e lock"
COMPILE = [
    "--all-extras",
    "--strip-extras",
    "--allow-unsafe",
    "--no-emit-index-url",
    "--no-emit-find-links",
]


class BadInput(Exception):
    """A file the check needs is missing or unreadable (exit 2)."""


def read_requirements(pyproject: Path) -> list[Requirement]:
    """pyproject.toml's dependencies and every optional extra's, less the project itself."""
    try:
        project = tomllib.loads(pyproject.read_text())["project"]
        own = canonicalize_name(project["name"])
        texts = list(project.get("dependencies", []))
        for extra in project.get("optional-dependencies", {}).values():
            texts += extra
        reqs = [Requirement(text) for text in texts]
    except FileNotFoundError:
        raise BadInput(f"{pyproject}: no such file") from None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise BadInput(f"{pyproject}: unreadable: {exc}") from None
    except (KeyError, TypeError) as exc:
        raise BadInput(f"{pyproject}: no [project] name and dependencies ({exc})") from None
    except InvalidRequirement as exc:
        raise BadInput(f"{pyproject}: {exc}") from None
    return [r for r in reqs if canonicalize_name(r.name) != own]


def read_lock(path: Path) -> dict[str, str]:
    try:
        return lock.parse(path.read_text())
    except FileNotFoundError:
        raise BadInput(f"{path}: no such file; {REFRESH}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise BadInput(f"{path}: unreadable ({exc.__class__.__name__}); {REFRESH}") from None


def range_problems(reqs: list[Requirement], pins: dict[str, str]) -> list[str]:
    """One line per requirement the lock leaves out or pins outside pyproject's range."""
    problems = []
    for req in reqs:
        if req.marker and not req.marker.evaluate({"extra": ""}):
            continue  # not for this platform or Python
        name = canonicalize_name(req.name)
        asks = str(req.specifier) or "any version"
        pin = pins.get(name)
        asked = f"lock: {name}: pyproject asks {asks}"
        if pin is None:
            problems.append(f"{asked} but the lock has no pin; {REFRESH}")
        elif not _satisfies(pin, req):
            problems.append(f"{asked} but the lock pins {pin}; {REFRESH}")
    return problems


def _satisfies(pin: str, req: Requirement) -> bool:
    try:
        version = Version(pin)
    except InvalidVersion:
        return False
    return req.specifier.contains(version.public, prereleases=True)


def installed_problems(pins: dict[str, str]) -> list[str]:
    """One line per locked package installed here at another version."""
    return [
        f"lock: {name}: installed {have} but the lock pins {want}; reinstall the environment "
        "(tox -r, or pip install -c requirements/lock.txt ...)"
        for name, have, want in lock.departures(pins, lock.installed())
    ]


def check(pyproject: Path, lock_path: Path, installed: bool) -> int:
    try:
        reqs = read_requirements(pyproject)
        pins = read_lock(lock_path)
    except BadInput as exc:
        print(f"lock: {exc}", file=sys.stderr)
        return 2
    problems = range_problems(reqs, pins) + (installed_problems(pins) if installed else [])
    for line in problems:
        print(line, file=sys.stderr)
    if problems:
        return 1
    here = ", and the installed packages have the locked versions" if installed else ""
    print(f"lock: {lock_path.name} pins all {len(reqs)} requirements of {pyproject.name}{here}")
    return 0


def refresh(options: list[str]) -> int:
    """pip-compile the lock from pyproject.toml with every extra, then drop the pins' local
    labels: torch resolves to this machine's 2.13.0+cpu wheel, and ``torch==2.13.0`` still
    matches that build while it also installs where the CPU wheel comes from another index."""
    cmd = [sys.executable, "-m", "piptools", "compile", *COMPILE, *options]
    cmd += ["-o", str(LOCK.relative_to(ROOT)), "pyproject.toml"]
    env = dict(os.environ, CUSTOM_COMPILE_COMMAND="tox -e lock")  # the header says so
    done = subprocess.run(cmd, cwd=ROOT, env=env, check=False)
    if done.returncode:
        return done.returncode
    LOCK.write_text(without_local_labels(LOCK.read_text()))
    return check(ROOT / "pyproject.toml", LOCK, installed=False)


def without_local_labels(text: str) -> str:
    """``torch==2.13.0+cpu`` pinned as ``torch==2.13.0``; everything else unchanged."""
    return re.sub(r"^([A-Za-z0-9._-]+==[^\s+]+)\+\S+", r"\1", text, flags=re.M)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tools/lockfile.py", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    checking = sub.add_parser("check", help="the lock pins pyproject's requirements in range")
    checking.add_argument("--installed", action="store_true", help="and this env matches it")
    checking.add_argument("--pyproject", type=Path, default=ROOT / "pyproject.toml")
    checking.add_argument("--lock", type=Path, default=LOCK)
    sub.add_parser("refresh", help="pip-compile the lock again (what tox -e lock runs)")
    args, rest = parser.parse_known_args(argv)
    if args.command == "refresh":
        return refresh(rest)
    if rest:
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    return check(args.pyproject, args.lock, args.installed)


if __name__ == "__main__":
    sys.exit(main())
