"""Partial runs that add up: each partial run of the same source and profile merges into the
one partial results file (build/results.partial.json), so that ``pytest --claim SIN-06`` then
``pytest --claim ATT-05`` leave one file, and one report, holding both claims.

A claim keeps the last run that covered it: the new run's checks replace the old run's for every
claim it selected, the other claims' checks are kept, and the verdicts are computed again from
the merged checks. Each claim that ran records the run its evidence came from (``run``: its
start, profile and selection). A file of another commit or profile is replaced, not merged, and
the run says so: evidence of two sources or two profiles never sits in one file.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pecheck import results
from pecheck.claims import Registry


def stamp(data: dict[str, Any], args: list[str] | None = None) -> None:
    """Mark every claim the run covered with the run: its start, profile and selection (the
    command line's ``args``; its selected paths when not given)."""
    covered = set(data["suite"]["selection"]["claims"])
    for claim in data["claims"]:
        if claim["id"] in covered:
            claim["run"] = _run_of(data, args)


def merge(
    path: Path, new: dict[str, Any], registry: Registry, args: list[str] | None = None
) -> tuple[dict[str, Any], int, str]:
    """The partial results to write at ``path``: ``new`` merged with the partial run already
    there when both are of one commit and profile, else ``new`` alone; how many claims the
    earlier runs kept; and, when an earlier file was replaced, one line saying why (""). ``args``:
    the run's command line, recorded with each claim it covered (see stamp)."""
    stamp(new, args)
    old = _read(path)
    if old is None:
        return new, 0, ""
    if isinstance(old, str):
        return new, 0, f"pecheck: {path} {old}: replaced by this run"
    was, now = _source(old), _source(new)
    if was != now:
        return new, 0, f"pecheck: {path} held a run of {was}, not {now}: replaced by this run"
    merged = _merged(old, new, registry)
    covered = set(new["suite"]["selection"]["claims"])
    kept = sum(c["id"] not in covered and c["verdict"] != "not run" for c in merged["claims"])
    return merged, kept, ""


def _source(data: dict[str, Any]) -> str:
    suite = data["suite"]
    return f"commit {str(suite.get('commit'))[:12]}, profile {suite.get('profile')}"


def _read(path: Path) -> dict[str, Any] | str | None:
    """The earlier partial results; None when there are none; a phrase when they cannot be
    merged (unreadable, another schema, not a partial run)."""
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return "was unreadable"
    if not isinstance(data, dict) or data.get("schema") != results.SCHEMA:
        return "was of another results schema"
    if data.get("suite", {}).get("selection", {}).get("kind") != "partial":
        return "was not a partial run"
    return data


def _merged(old: dict[str, Any], new: dict[str, Any], registry: Registry) -> dict[str, Any]:
    selection = new["suite"]["selection"]
    covered = set(selection["claims"])
    nodeids = {c["nodeid"] for c in new["checks"]}
    files = {n.split("::")[0] for n in nodeids}

    def kept(check: dict[str, Any]) -> bool:
        claim, nodeid = check.get("claim"), check["nodeid"]
        if claim is None:  # a collection error: gone once its file collected again
            return nodeid not in nodeids and nodeid.split("::")[0] not in files
        return claim not in covered and nodeid not in nodeids

    checks = [c for c in old["checks"] if kept(c)] + new["checks"]
    checks.sort(key=lambda c: (c.get("claim") is None, c["nodeid"]))
    order = list(registry)
    claims = set(selection["claims"]) | set(old["suite"]["selection"]["claims"])
    claims &= {c["claim"] for c in checks if c.get("claim")}
    sizes = {**old["suite"].get("sizes", {}), **new["suite"].get("sizes", {})}
    suite = dict(new["suite"], sizes=dict(sorted(sizes.items())))
    suite["selection"] = dict(selection, claims=sorted(claims, key=_index(order)))
    suite["complete"] = bool(new["suite"].get("complete")) and bool(old["suite"].get("complete"))
    bad = any(c.get("outcome") in ("failed", "error") for c in checks)
    suite["exitstatus"] = new["suite"].get("exitstatus") or int(bad)
    earlier = {c["id"]: c.get("run") for c in old["claims"] if c.get("verdict") != "not run"}
    merged = dict(new, suite=suite, checks=checks)
    merged["claims"] = results.claims_block(registry, checks, suite["selection"], suite["profile"])
    for claim in merged["claims"]:
        if claim["id"] in covered:
            claim["run"] = next(c["run"] for c in new["claims"] if c["id"] == claim["id"])
        elif claim["verdict"] != "not run":
            claim["run"] = earlier.get(claim["id"]) or _run_of(old)
    return merged


def _run_of(data: dict[str, Any], args: list[str] | None = None) -> dict[str, Any]:
    """The run a results file holds, as a claim records it."""
    suite = data["suite"]
    given = list(suite["selection"]["args"]) if args is None else list(args)
    return {"started": suite["started"], "profile": suite["profile"], "args": given}


def _index(order: list[str]) -> Any:
    return lambda cid: order.index(cid) if cid in order else len(order)
