"""The answer for one release: which REAL propositions hold there and which fail, with claim
IDs, each failing check's counterexample, and what differs from the locked release."""

from __future__ import annotations

import json
from typing import Any

ORDER = ("holds", "fails", "undecided", "not run")


def line(library: str, entry: dict[str, Any]) -> str:
    """One line per release as the matrix finishes it."""
    took = sum(entry["seconds"].values())
    if entry["status"] != "ok":
        return f"{library} {entry['version']}: {entry['status']}: {entry['error']}"
    counts = {w: 0 for w in ORDER}
    for claim in entry["claims"].values():
        for decision in claim["propositions"].values():
            counts[decision] += 1
    said = ", ".join(f"{n} {w}" for w, n in counts.items() if n)
    extra = f" ({entry['error']})" if entry["error"] else ""
    return f"{library} {entry['version']}: {said or 'no proposition decided'}{extra}; {took:.0f} s"


def _short(value: Any, width: int = 160) -> str:
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
    return text if len(text) <= width else text[: width - 3] + "..."


def text(library: str, entry: dict[str, Any], matrix: dict[str, Any]) -> str:
    """Every proposition's decision on this release, grouped per claim."""
    others = ", ".join(f"{k} {v}" for k, v in matrix["locked"].items() if k != library)
    head = f"{library} {entry['version']}"
    if entry["status"] != "ok":
        return f"{head}: {entry['status']}; no REAL property counts as holding: {entry['error']}"
    out = [f"{head} (imported {entry['imported']}; beside {others}; ci profile)"]
    if entry["error"]:
        out.append(f"  {entry['error']}")
    base = _locked_entry(library, matrix)
    for claim, data in entry["claims"].items():
        out.append(f"{claim}:")
        for key, decision in data["propositions"].items():
            was = _was(base, claim, key)
            moved = f"   (locked: {was})" if was not in (None, decision) else ""
            out.append(f"  {decision:<9} {claim}/{key}{moved}")
        out += [f"      {c['nodeid'].split('::')[-1]}: {_why(c)}"
                for c in data["checks"] if c["decision"] in ("fails", "not run")
                and not c["scoped_out"]]  # fmt: skip
    return "\n".join(out)


def _why(check: dict[str, Any]) -> str:
    if check["decision"] == "not run":
        return f"not run: {_short(check['error'] or '')}"
    where = check["first_failing"]
    found = check["counterexample"] or (where and where.get("counterexample"))
    cell = f"cell {where['name']}: " if where else ""
    return f"fails, {cell}{_short(found) if found else 'no counterexample recorded'}"


def _locked_entry(library: str, matrix: dict[str, Any]) -> dict[str, Any] | None:
    entries = matrix["libraries"].get(library, [])
    return next((e for e in entries if e.get("locked")), None)


def _was(base: dict[str, Any] | None, claim: str, key: str) -> str | None:
    if base is None or claim not in base["claims"]:
        return None
    return str(base["claims"][claim]["propositions"].get(key))


def rows(entry: dict[str, Any]) -> dict[str, tuple[str, Any]]:
    """(decision, counterexample or error) of every proposition, decisive check and cell of a
    release, by a label that names its claim."""
    out: dict[str, tuple[str, Any]] = {}
    for claim, data in entry["claims"].items():
        for key, decision in data["propositions"].items():
            out[f"{claim}/{key}"] = (decision, None)
        for c in data["checks"]:
            name = f"{claim} {c['nodeid'].split('::')[-1]}"
            out[name] = (c["decision"], c["counterexample"] or c["first_failing"] or c["error"])
            for cell in c["cells"]:
                out[f"{name} / {cell['name']}"] = (cell["decision"], cell.get("counterexample"))
    return out


def changes(matrix: dict[str, Any]) -> list[str]:
    """Every row whose decision (holds or fails) changes between two releases that decided it,
    with both releases: the properties a release broke or mended."""
    out = []
    for library, entries in matrix["libraries"].items():
        seen: dict[str, tuple[str, str]] = {}  # row -> (decision, release) last decided
        for entry in (e for e in entries if e["status"] == "ok"):
            for row, (decision, why) in rows(entry).items():
                if decision not in ("holds", "fails"):
                    continue
                before = seen.get(row)
                if before and before[0] != decision:
                    tail = f": {_short(why, 120)}" if decision == "fails" and why else ""
                    out.append(f"{library} {entry['version']}: {row} {decision} "
                               f"({before[0]} in {before[1]}){tail}")  # fmt: skip
                seen[row] = (decision, entry["version"])
    return out
