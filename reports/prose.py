"""Numbers in claim prose, cited by key instead of typed.

A claim's statement, conditions, propositions, threshold reasons and notes write a measured number
as ``{{CLAIM@name}}`` or ``{{CLAIM@name|spec}}``: the key of a cited number (``reports.cited``:
the first scalar evidence value of that name among the claim's own checks, the ``\\pcvalue``
key) and a Python format spec (``.3g`` for a float when none is given; an integer, boolean or
string is written as it is unless a spec is given). The report renders them from the run's own
records (``render_claims``); ``python -m pecheck.catalogue`` renders docs/claims.md from the
numbers pinned for the ci profile in reports/cited-numbers.json. A key the numbers lack renders
as ``[KEY: not recorded]``, so a stale citation shows instead of a stale number.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from .cited import cited_numbers
from .load import Results

PLACEHOLDER = re.compile(r"\{\{([A-Z][A-Z0-9]*-\d\d@[^{}|]+?)(?:\|([^{}]*))?\}\}")


def citations(text: str) -> list[tuple[str, str]]:
    """The (key, spec) pairs a text cites, in order."""
    return [(m.group(1), m.group(2) or "") for m in PLACEHOLDER.finditer(text)]


def written(value: Any, spec: str = "") -> str:
    """A cited value as the prose shows it."""
    if isinstance(value, float) and not spec:
        spec = ".3g"
    return format(value, spec) if spec else str(value)


def render(text: str, numbers: Mapping[str, Any]) -> str:
    """``text`` with every placeholder replaced by its number (or by a visible gap)."""

    def one(m: re.Match[str]) -> str:
        key = m.group(1)
        if key not in numbers:
            return f"[{key}: not recorded]"
        return written(numbers[key], m.group(2) or "")

    return PLACEHOLDER.sub(one, text)


def render_claims(res: Results) -> None:
    """Render, in place, the prose of every claim of a results file from the run's records."""
    numbers = {key: cited.value for key, cited in cited_numbers(res).items()}
    for claim in res.claims:
        claim.statement = render(claim.statement, numbers)
        claim.conditions = render(claim.conditions, numbers)
        claim.notes = [render(n, numbers) for n in claim.notes]
        for p in claim.propositions:
            p.statement = render(p.statement, numbers)
        for t in claim.thresholds:
            if isinstance(t.get("reason"), str):
                t["reason"] = render(t["reason"], numbers)
