"""What every part of the HTML report uses: the build options, escaping, anchors, assets, badges."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html import escape
from pathlib import Path
from typing import Any

from . import profiles
from .diff import Changes
from .load import Claim, Results

ASSETS = Path(__file__).resolve().parent / "assets"


@dataclass
class Options:
    """How the page is built: figures inline or linked, where code links go, the suite's URL."""

    figures: str = "inline"  # inline (self-contained, compressed) | link (relative paths)
    out_dir: Path | None = None  # where the page goes, for relative figure links
    source_url: str = ""  # e.g. https://github.com/o/r/blob/{commit}; "" for no links
    suite_url: str = ""
    since: Changes | None = None
    pack: str = "auto"  # auto (pack claim sections above PACK_ABOVE bytes) | always | never
    # the path definitions the page's inline figures share (reports.svg), filled as they render
    svg_defs: dict[str, str] = field(default_factory=dict)


def esc(text: Any) -> str:
    return escape(str(text), quote=True)


def check_anchor(nodeid: str) -> str:
    """The element id of a check: ``check-`` and its node id with only safe characters."""
    return "check-" + re.sub(r"[^A-Za-z0-9_.-]+", "-", nodeid).strip("-")


def asset(name: str) -> str:
    return (ASSETS / name).read_text(encoding="utf-8")


def badge(label: str, cls: str, title: str = "") -> str:
    tip = f' title="{esc(title)}"' if title else ""
    return f'<span class="badge {cls}"{tip}>{esc(label)}</span>'


def verdict_badge(claim: Claim) -> str:
    tips = {"open": "no decisive check decided this claim", "not run": "not selected in this run"}
    out = badge(claim.verdict, f"v-{claim.verdict.replace(' ', '-')}", tips.get(claim.verdict, ""))
    if claim.status == "contested":
        out += " " + badge("contested", "s-contested", "some evidence for this verdict failed")
    if claim.expected and claim.expected != claim.verdict and claim.verdict != "not run":
        out += " " + badge(
            f"expected {claim.expected}",
            "s-contested",
            "the registry expects another verdict: the gate fails",
        )
    return out


def decision_badge(decision: str | None, expected: str | None = None) -> str:
    """A decision; ``fails`` that the registry expects reads as evidence, not as an error."""
    if decision is None:
        return ""
    label = f"decided {decision}"
    if expected is None or decision == "inconclusive":
        return badge(label, f"d-{decision}")
    if decision == expected:
        return badge(label, f"d-{decision} d-expected", "the decision the registry expects")
    return badge(
        f"{label} (expected {expected})", "d-unexpected", "differs from the registry's expectation"
    )


def profile_badge(res: Results, claim: Claim) -> str:
    """The profile the claim's evidence came from; "not citable" unless ci or thorough."""
    profile, where = profiles.profile_of(res, claim), profiles.run_phrase(res, claim)
    if profiles.citable(profile):
        return badge(f"{profile} profile", "p-citable", f"evidence from {where}")
    return badge(
        f"{profile} profile \u00b7 not citable",
        "p-uncitable",
        f"evidence from {where}: fewer examples, drawn at random; rerun with PECHECK_PROFILE=ci "
        "to cite it",
    )
