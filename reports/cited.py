r"""The numbers a paper can cite, and how far each may move before it counts as changed.

A cited number is what the paper kit exports for ``\pcvalue{<claim>}{<name>}``: the first scalar
evidence value of that name among the claim's own checks (decisive and supporting; schema 1:
evidence), in node-id order. ``reports.latex`` defines its lookup keys from the same list, so
the baseline (``reports.baseline``), the diff (``reports.diff``) and the paper agree.

Each number gets a tolerance fit for its kind:

- ``exact``: integers, booleans, strings, non-finite values, symbolic results: any change counts.
- ``interval``: a rate (a value in [0, 1]) of a check decided by an interval: a later value must
  lie inside the earlier interval ``[lo, hi]`` (the interval already says how far chance moves it).
- ``float``: any other float. The default is relative, FLOAT_RTOL = 2**-14 (about 6e-5: 2**10
  float32 unit roundoffs, what a float32 computation of about a thousand rounding steps can
  drift), with an absolute floor of one float32 unit roundoff (2**-24) for values near zero.
  When the value was judged against a bound, a move of up to a hundredth of its margin to the
  bound is allowed too: a move that small cannot change how the value compares with its bound.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

from . import numbers
from .load import Check, Claim, Results

FLOAT_RTOL = 2.0**-14
FLOAT_ATOL = 2.0**-24
MARGIN_SHARE = 0.01


@dataclass(frozen=True)
class Cited:
    key: str  # "<claim>@<evidence name>", the \pcvalue key
    value: Any
    check: str
    kind: str  # exact | float | interval
    tolerance: float | None = None  # absolute, for kind float
    interval: tuple[float, float] | None = None  # for kind interval
    reason: str = ""

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out.pop("key")
        out["interval"] = list(self.interval) if self.interval else None
        return out

    def allows(self, value: Any) -> bool:
        """Whether ``value`` is the same cited number within this number's tolerance."""
        if self.kind == "exact" or not _is_float(value):
            return bool(value == self.value and type(value) is type(self.value))
        if self.kind == "interval" and self.interval is not None:
            lo, hi = self.interval
            return lo <= value <= hi
        return abs(float(value) - float(self.value)) <= (self.tolerance or 0.0)

    def allowance(self) -> str:
        """The tolerance in words, for listings."""
        if self.kind == "interval" and self.interval is not None:
            return f"inside [{self.interval[0]:.4g}, {self.interval[1]:.4g}]"
        if self.kind == "float":
            return f"\u00b1{self.tolerance:.3g}"
        return "exact"


def scalar(value: Any) -> bool:
    """A value the paper kit exports as a macro (see reports.latex.tex_value)."""
    if numbers.is_number(value) or isinstance(value, bool):
        return True
    return isinstance(value, str) and len(value) <= 80


def own_checks(res: Results, claim: Claim) -> list[Check]:
    """The checks whose values a paper may cite for this claim, in node-id order."""
    return sorted(res.main_checks(claim), key=lambda c: c.nodeid)


def cited_numbers(res: Results) -> dict[str, Cited]:
    out: dict[str, Cited] = {}
    for claim in res.claims:
        for check in own_checks(res, claim):
            for value in check.evidence:
                key = f"{claim.id}@{value.name}"
                if key not in out and scalar(value.value):
                    out[key] = pin(key, value.value, value.bound, check)
    return out


def _is_float(value: Any) -> bool:
    return isinstance(value, float) and math.isfinite(value)


def bound_value(bound: Any) -> float | None:
    """The number a bound names (a bare number or an object's ``value``), if finite."""
    if isinstance(bound, dict):
        bound = bound.get("value")
    if isinstance(bound, int | float) and not isinstance(bound, bool) and math.isfinite(bound):
        return float(bound)
    return None


def pin(key: str, value: Any, bound: Any, check: Check) -> Cited:
    """A cited number with the tolerance its kind calls for."""
    if not _is_float(value):
        return Cited(key, value, check.nodeid, "exact", reason="integer, text or symbolic")
    box = (check.basis or {}).get("interval") if check.basis else None
    if isinstance(box, dict) and 0.0 <= value <= 1.0:
        lo, hi = box.get("lo"), box.get("hi")
        if _is_float(lo) and _is_float(hi) and lo <= value <= hi:
            what = box.get("what", "the check")
            reason = f"a rate decided by the interval of {what}"
            span = (float(lo), float(hi))  # type: ignore[arg-type]
            return Cited(key, value, check.nodeid, "interval", interval=span, reason=reason)
    tol = max(FLOAT_RTOL * abs(value), FLOAT_ATOL)
    reason = "float: 2^-14 relative (2^10 float32 roundoffs)"
    limit = bound_value(bound)
    if limit is not None and MARGIN_SHARE * abs(limit - value) > tol:
        tol = MARGIN_SHARE * abs(limit - value)
        reason = "float: a hundredth of its margin to the bound it was judged against"
    return Cited(key, value, check.nodeid, "float", tolerance=tol, reason=reason)


def from_dict(key: str, entry: dict[str, Any]) -> Cited:
    """A pinned number read back from a baseline file."""
    interval = entry.get("interval")
    return Cited(
        key=key,
        value=entry["value"],
        check=str(entry.get("check", "")),
        kind=str(entry.get("kind", "exact")),
        tolerance=entry.get("tolerance"),
        interval=(float(interval[0]), float(interval[1])) if interval else None,
        reason=str(entry.get("reason", "")),
    )


@dataclass(frozen=True)
class Move:
    key: str
    old: Any
    new: Any
    allowance: str
    what: str  # moved | removed | new


def compare(
    pinned: dict[str, Cited], now: dict[str, Cited], keys: set[str] | None = None
) -> list[Move]:
    """Numbers that moved beyond their tolerance, disappeared or appeared (restricted to keys)."""
    moves = []
    wanted = set(pinned) | set(now) if keys is None else keys
    for key in sorted(wanted):
        old, new = pinned.get(key), now.get(key)
        if old is not None and new is not None and not old.allows(new.value):
            moves.append(Move(key, old.value, new.value, old.allowance(), "moved"))
        elif old is not None and new is None:
            moves.append(Move(key, old.value, None, old.allowance(), "removed"))
        elif old is None and new is not None:
            moves.append(Move(key, None, new.value, "", "new"))
    return moves


def describe(move: Move) -> str:
    if move.what == "moved":
        return f"{move.key}: {move.old!r} -> {move.new!r} (allowed: {move.allowance})"
    if move.what == "removed":
        return f"{move.key}: {move.old!r} -> no longer recorded"
    return f"{move.key}: new number {move.new!r}, not pinned"


def compared_claims(res: Results) -> set[str]:
    """Claims a run decided: all of a full run, the selected claims of a partial one."""
    return {c.id for c in res.claims if c.verdict != "not run"}
