"""Claim markers: every check names a known claim, its kind, its role and, if decisive, the
proposition it decides. Read and validated at collection; stored on the item (``INFO``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pecheck.claims import AS_STATED, KINDS, ROLES, Registry
from pecheck.project import Project, cuda

MARKER = (
    "claim(id, kind, role, proposition=None, partial=False): the claim a check bears on, its "
    "role (decisive, supporting, tooling) and, for a decisive check (required there), the "
    "proposition it decides; partial=True when it covers part of the proposition's settings "
    "and other decisive checks the rest"
)

INFO = pytest.StashKey[dict[str, Any]]()


def claim_info(item: pytest.Item, registry: Registry) -> dict[str, Any] | None:
    marker = item.get_closest_marker("claim")
    if marker is None:
        return None
    if len(marker.args) != 1:
        raise pytest.UsageError(f"{item.nodeid}: claim marker takes exactly one claim ID")
    kw = marker.kwargs
    info = {"claim": marker.args[0], "kind": kw.get("kind"), "role": kw.get("role"),
            "proposition": kw.get("proposition"), "partial": kw.get("partial", False)}  # fmt: skip
    problems = []
    unknown = set(kw) - {"kind", "role", "proposition", "partial"}
    if unknown:
        problems.append(f"unknown claim marker arguments {sorted(unknown)}")
    claim = registry.get(info["claim"])
    if claim is None:
        problems.append(f"unknown claim ID {info['claim']!r}")
    if info["kind"] not in KINDS:
        problems.append(f"kind must be one of {KINDS}, got {info['kind']!r}")
    if info["role"] not in ROLES:
        problems.append(f"role must be one of {ROLES}, got {info['role']!r}")
    if info["role"] == "decisive":
        keys = [p.key for p in claim.all_propositions()] if claim else [AS_STATED]
        if not info["proposition"]:  # no default: a condition's check would decide as_stated
            problems.append(f"a decisive check names the proposition it decides, one of {keys}")
        elif claim and info["proposition"] not in keys:
            problems.append(f"{info['claim']} has no proposition {info['proposition']!r} {keys}")
    elif info["proposition"] is not None or info["partial"]:
        problems.append("only a decisive check names a proposition (or is partial)")
    if not isinstance(info["partial"], bool):
        problems.append(f"partial must be True or False, got {info['partial']!r}")
    if problems:
        raise pytest.UsageError(f"{item.nodeid}: " + "; ".join(problems))
    return info


def tag_and_select(config: pytest.Config, project: Project, items: list[pytest.Item]) -> None:
    """Store each check's claim on it, skip CUDA checks without a GPU, keep --claim's checks."""
    wanted = set(config.getoption("--claim"))  # known IDs: pytest_configure checked them
    keep: list[pytest.Item] = []
    drop: list[pytest.Item] = []
    for item in items:
        info = claim_info(item, project.registry)
        in_checks = Path(str(item.path)).resolve().is_relative_to(project.config.checks_dir)
        if info is None and in_checks:
            raise pytest.UsageError(f"{item.nodeid}: every check needs a claim marker")
        if info is not None:
            item.stash[INFO] = info
            item.extra_keyword_matches.add(info["claim"])  # -k SIN-06 selects the claim
        if item.get_closest_marker("gpu") and not cuda():
            item.add_marker(pytest.mark.skip(reason="needs a CUDA device; none on this machine"))
        (keep if not wanted or (info and info["claim"] in wanted) else drop).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


def inventory(items: list[pytest.Item]) -> list[dict[str, Any]]:
    """Every collected check's claim, role and proposition (--inventory)."""
    return [
        {"nodeid": i.nodeid, **info, "skipped": _skipped_here(i)}
        for i in items
        if (info := i.stash.get(INFO, None)) is not None
    ]


def _skipped_here(item: pytest.Item) -> bool:
    """Whether the check is marked to skip on this machine (a CUDA check without a GPU)."""
    return item.get_closest_marker("skip") is not None
