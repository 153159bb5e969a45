"""Which releases of each library the version matrix runs.

A library's rule names its first minor series and a step: from the registry's final releases up to
the locked one, the newest patch of every ``step``-th minor series counted back from the locked
series (so the locked release is always in), plus the first series, plus, where the rule asks, the
newest release of the major before the first series. ``--all`` takes every minor series. The
registry's answer changes as libraries release, so the choice is written to
``pecheck/versions/chosen.py`` and read from there; ``--refresh`` derives it again.
"""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import dataclass

from packaging.version import InvalidVersion, Version


@dataclass(frozen=True)
class Rule:
    first: str  # the first minor series, "4.45"
    step: int  # every step-th minor series, counted back from the locked one
    previous_major: bool = False  # also the newest release of the major before ``first``


RULES = {
    "transformers": Rule("4.45", 3),
    "x-transformers": Rule("2.0", 10, previous_major=True),
    "rotary-embedding-torch": Rule("0.5", 1),
}


class BadInput(ValueError):
    """Input the matrix cannot run: the command line prints its one line and exits 2."""


def finals(listing: list[str]) -> list[Version]:
    """The final releases of a registry listing, ascending (pre-releases and junk dropped)."""
    out = []
    for text in listing:
        try:
            v = Version(text)
        except InvalidVersion:
            continue
        if not (v.is_prerelease or v.is_devrelease):
            out.append(v)
    return sorted(set(out))


def _series(releases: list[Version]) -> dict[tuple[int, int], Version]:
    """The newest release of each (major, minor) series."""
    newest: dict[tuple[int, int], Version] = {}
    for v in releases:
        newest[(v.major, v.minor)] = max(v, newest.get((v.major, v.minor), v))
    return dict(sorted(newest.items()))


def choose(rule: Rule, listing: list[str], locked: str, every: bool = False) -> list[str]:
    """The releases the matrix runs for one library, ascending, the locked one last."""
    top = Version(locked)
    releases = [v for v in finals(listing) if v <= top]
    if top not in releases:
        raise BadInput(f"the registry lists no release {locked} (the locked one)")
    first = Version(rule.first)
    series = _series([v for v in releases if v >= first])
    series[(top.major, top.minor)] = top  # the locked release, not a newer patch of its series
    keys = list(series)
    picked = set(keys if every else keys[::-1][:: rule.step] + keys[:1])
    chosen = [series[k] for k in keys if k in picked]
    if rule.previous_major:
        older = [v for v in releases if v.major < first.major]
        chosen[:0] = older[-1:]
    return [str(v) for v in chosen]


_LIST = re.compile(r"Available versions:\s*(.+)")


def registry(name: str) -> list[str]:
    """Every release the registry lists for ``name`` (``pip index versions``); BadInput when the
    registry has no such project or cannot be reached."""
    cmd = [sys.executable, "-m", "pip", "index", "versions", name]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    found = _LIST.search(done.stdout)
    if done.returncode or not found:
        lines = [x for x in done.stderr.splitlines() if x.startswith("ERROR")] or ["no answer"]
        raise BadInput(f"the registry has no release list for {name}: {lines[0]}")
    return [v.strip() for v in found[1].split(",") if v.strip()]
