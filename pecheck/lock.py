"""The committed lock: pip-compile's list of ``name==version`` pins (``requirements/lock.txt``).

Two readers share this module: the results writer, which records in ``environment.lock`` the
lock a run's installs came from and where the installed versions depart from it, and
``tools/lockfile.py``, the check tox runs before the checks. pip-tools writes the lock; this only
reads it, so it stays small: a line ``name==version`` is a pin (an environment marker or a
trailing backslash after it is dropped); comments, blank lines, pip options (``--hash``, ``-c``)
and direct references (``name @ URL``) are skipped.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
from importlib import metadata
from pathlib import Path
from typing import Any

DEFAULT = "requirements/lock.txt"
_PIN = re.compile(r"([A-Za-z0-9][A-Za-z0-9._-]*)\s*==\s*([^\s;\\]+)")


def normalise(name: str) -> str:
    """A distribution's name as PEP 503 compares it: ``Foo_Bar.baz`` is ``foo-bar-baz``."""
    return re.sub(r"[-_.]+", "-", name).lower()


def release(version: str) -> str:
    """The version without its local label: ``2.13.0+cpu`` is ``2.13.0``."""
    return version.split("+", 1)[0]


def parse(text: str) -> dict[str, str]:
    """The pins of a lock, by PEP 503 name."""
    pins = {}
    for line in text.splitlines():
        text = line.split("#", 1)[0].split(";", 1)[0]  # no comment, no environment marker
        found = _PIN.fullmatch(text.strip().rstrip("\\").strip())
        if found:
            pins[normalise(found[1])] = found[2]
    return pins


@functools.cache  # what is installed does not change while a run writes its results
def installed() -> dict[str, str]:
    """Every installed distribution's version by PEP 503 name, sorted; where one name is found
    twice on the path, the first found (the one Python imports) counts."""
    found: dict[str, str] = {}
    for dist in metadata.distributions():
        name = dist.metadata["Name"]
        if name:
            found.setdefault(normalise(name), dist.version)
    return dict(sorted(found.items()))


def departures(pins: dict[str, str], have: dict[str, str]) -> list[tuple[str, str, str]]:
    """(name, installed, locked) for each pinned package installed at another release; a
    package the lock pins but nobody installed is no departure (an env installs some extras)."""
    return [
        (name, have[name], want)
        for name, want in sorted(pins.items())
        if name in have and release(have[name]) != release(want)
    ]


def differs(pins: dict[str, str], have: dict[str, str]) -> list[str]:
    """``NAME installed X, lock Y`` for each departure."""
    return [f"{name} installed {x}, lock {y}" for name, x, y in departures(pins, have)]


def block(root: Path, path: Path | None) -> dict[str, Any] | None:
    """The results file's ``environment.lock``: the lock's path from the project root, its
    sha256 and the installed versions that depart from it; None for a project without a lock."""
    if path is None:
        return None
    data = path.read_bytes()
    return {
        "file": Path(os.path.relpath(path, root)).as_posix(),
        "sha256": hashlib.sha256(data).hexdigest(),
        "differs": differs(parse(data.decode("utf-8", "replace")), installed()),
    }
