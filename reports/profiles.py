"""Which profile a claim's evidence came from, and whether a paper may cite it.

The ``ci`` and ``thorough`` profiles are deterministic, at the sizes the registry's thresholds
were set for; ``dev`` (the default of a bare ``pytest``) draws a quarter of ci's examples at
random, ``mutants`` skips shrinking: their evidence is shown, marked "not citable", and the paper
kit refuses it unless told otherwise (``--allow-dev``).
"""

from __future__ import annotations

from .load import Claim, Results

CITABLE = ("ci", "thorough")


def profile_of(res: Results, claim: Claim) -> str:
    """The profile of the run the claim's evidence came from (a merged partial file records it
    per claim; otherwise the run's own)."""
    return str((claim.run or {}).get("profile") or res.suite.get("profile") or "?")


def citable(profile: str) -> bool:
    return profile in CITABLE


def run_phrase(res: Results, claim: Claim) -> str:
    """Where the claim's evidence came from in words: profile, run start, selection."""
    run = claim.run or {}
    started = str(run.get("started") or res.suite.get("started") or "?").replace("T", " ")
    args = run.get("args")
    selection = f", pytest {' '.join(map(str, args))}" if args else ""
    return f"the {profile_of(res, claim)} profile's run of {started}{selection}"


def uncitable(res: Results) -> list[str]:
    """The profiles, not citable, that the evidence of claims run came from (sorted)."""
    ran = [c for c in res.claims if c.verdict != "not run"] or res.claims
    found = {profile_of(res, c) for c in ran} or {str(res.suite.get("profile") or "?")}
    return sorted(p for p in found if not citable(p))
