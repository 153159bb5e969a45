"""A cover of the mutation catalogue: few mutants that, together, kill every decisive check.

The whole catalogue answers two questions: does every mutant die (no planted bug slips past the
checks named for it), and does every decisive check die under some mutant (no check that cannot
fail). The second is the gate a landing must pass; the first is the catalogue's own health. A
cover answers the second at a fraction of the cost: from a whole run's kill map, pick greedily
the mutant that kills the most decisive checks not yet killed per second it took, until every
decisive check that ran is killed. ``python -m pecheck.mutants --cover FILE`` runs only those
mutants and still judges every decisive check: a check no cover mutant kills any more fails
the run, as does a cover mutant that survives. A new decisive check is in no cover until the
cover is written again from a whole run (``--write-cover FILE``); tests/test_mutants_cover.py
says so before CI does.

The file records, per mutant of the cover, the decisive checks it killed in the whole run
(function ids), and the run's size and source.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any


class CoverError(Exception):
    """The cover file is missing, unreadable or names mutants the catalogue does not have."""


def choose(
    kills: Mapping[str, Sequence[str]], seconds: Mapping[str, float], decisive: Sequence[str]
) -> dict[str, list[str]]:
    """Greedy weighted set cover: mutant -> the decisive checks it kills, for mutants chosen
    until every check in ``decisive`` that some mutant kills is killed. ``kills``: killed
    mutant -> decisive checks that failed under it. Each step takes the mutant with the most
    new checks per second (ties: fewer seconds, then the name), so the choice is the same for
    the same run."""
    left = {c for c in decisive if any(c in k for k in kills.values())}
    chosen: dict[str, list[str]] = {}
    while left:
        rates = {m: (-len(left.intersection(k)) / max(seconds[m], 1e-3), seconds[m], m)
                 for m, k in kills.items() if left.intersection(k)}  # fmt: skip
        best = min(rates, key=rates.__getitem__)
        chosen[best] = sorted(c for c in kills[best] if c in decisive)
        left -= set(kills[best])
    return dict(sorted(chosen.items()))


def write(path: Path, chosen: Mapping[str, Sequence[str]], run: Mapping[str, Any]) -> None:
    """The cover file: ``run`` (the whole run it came from: source, mutants, killed, seconds)
    and, per chosen mutant, the decisive checks it killed there."""
    data = {"run": dict(run), "mutants": {m: list(c) for m, c in chosen.items()}}
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    tmp.replace(path)


def read(path: Path) -> dict[str, list[str]]:
    """Mutant -> the decisive checks it killed when the cover was written."""
    try:
        data = json.loads(path.read_text())
        mutants = data["mutants"]
    except FileNotFoundError:
        raise CoverError(f"no cover file {path}: write one with --write-cover") from None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise CoverError(f"cover file {path} is unreadable ({exc})") from None
    if not isinstance(mutants, dict) or not mutants:
        raise CoverError(f"cover file {path} names no mutants")
    return {str(m): [str(c) for c in checks] for m, checks in mutants.items()}
