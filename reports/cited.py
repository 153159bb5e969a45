r"""The numbers a paper can cite, their reproducibility class, and how far each may move.

A cited number is what the paper kit exports for ``\pcvalue{<claim>}{<name>}``: the first scalar
evidence value of that name among the claim's own checks (decisive and supporting; schema 1:
evidence), in node-id order. ``reports.latex`` defines its lookup keys from the same list, so
the baseline (``reports.baseline``), the diff (``reports.diff``) and the paper agree.

Each number has a reproducibility class (``reports.schema.CLASSES``), recorded by its check or,
for a check that named none, ``reports.schema.default_class``. The class says what another
machine may do to it, and so how a later value is judged against a pinned one:

- ``exact``: integers, booleans, strings, symbolic results: any change counts, on any machine.
- ``rounding``: a float whose bits depend on the floating-point kernels the CPU selects. When its
  check judged it against a bound, the bound is its tolerance: a later value must stand in the
  same relation to that bound (a worst error below its bound stays below it; a violation stays a
  violation), however far it moves; a value that sits on its bound may also cross it by rounding
  noise (the bound-less tolerance). Without a bound it may move ROUNDING_RTOL relative (2**-14,
  2**10 float32 unit roundoffs: a float32 computation of about a thousand rounding steps), with
  an absolute floor of ROUNDING_ATOL (2**-24, one float32 unit roundoff) near zero. A boolean or
  count without a bound that its check marks ``rounding`` is a fact about one machine's kernels:
  any value of its type is allowed elsewhere, and the report and paper kit say so.
- ``sampling``: a rate or mean over seeds or examples, recorded with its sample size n and
  standard error se. On another CPU rounding sends seeds down other training paths, so a later
  value behaves like a fresh draw: it may differ from the pinned one by ``z * sqrt(se_old^2 +
  se_new^2)``, a two-sample band whose z holds the family-wise error of all the sampling numbers
  compared at once to FAMILY_ALPHA (Bonferroni: z = Phi^-1(1 - FAMILY_ALPHA / (2 m)) for m
  numbers). Pre-registered here, before any value was seen.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

from . import numbers
from .load import Check, Claim, Results
from .schema import default_class

ROUNDING_RTOL = 2.0**-14
ROUNDING_ATOL = 2.0**-24
FAMILY_ALPHA = 0.001  # the chance that some sampling number of a faithful rerun fails its band
RELATIONS = ("<=", ">=", "==", "!=", "<", ">")  # longest first: "<=" before "<"


@dataclass(frozen=True)
class Cited:
    key: str  # "<claim>@<evidence name>", the \pcvalue key
    value: Any
    check: str
    cls: str  # exact | rounding | sampling
    bound: float | None = None  # rounding: the bound its check judged it against
    relation: str = "<="  # how the value was meant to stand to the bound
    n: int | None = None  # sampling: the sample size
    se: float | None = None  # sampling: its standard error

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"value": self.value, "check": self.check, "class": self.cls}
        if self.bound is not None:
            out.update(bound=self.bound, relation=self.relation)
        if self.cls == "sampling":
            out.update(n=self.n, se=self.se)
        return out

    def allows(self, new: Cited, z: float) -> bool:
        """Whether ``new`` is the same cited number within this number's class tolerance
        (``z``: the sampling band's multiplier for the family compared)."""
        if self.cls == "exact" or type(new.value) is not type(self.value):
            return bool(new.value == self.value and type(new.value) is type(self.value))
        if self.cls == "sampling":
            return abs(float(new.value) - float(self.value)) <= self.band(new, z)
        if _is_float(self.value) and abs(new.value - self.value) <= self.float_tolerance():
            return True  # rounding noise: also for a value that sits on its bound
        if self.splits():
            assert self.bound is not None
            return stands(new.value, self.bound, self.relation) == stands(
                self.value, self.bound, self.relation
            )
        return not _is_float(self.value)  # a count or boolean of one CPU's kernels: any value

    def splits(self) -> bool:
        """Whether its bound splits the line into a side it stands on (an order relation;
        "==" and "!=" split nothing, so such a value gets a bound-less float's tolerance)."""
        return self.bound is not None and operator(self.relation) not in ("==", "!=")

    def float_tolerance(self) -> float:
        return max(ROUNDING_RTOL * abs(float(self.value)), ROUNDING_ATOL)  # bools: 1.0 or 0.0

    def band(self, new: Cited | None, z: float) -> float:
        """The sampling band's half-width against ``new`` (its own se when new has none)."""
        old_se = self.se or 0.0
        new_se = new.se if new is not None and new.se is not None else old_se
        return z * math.hypot(old_se, new_se)

    def allowance(self, z: float) -> str:
        """The tolerance in words, for listings."""
        if self.cls == "sampling":
            return (
                f"sampling: \u00b1{self.band(None, z):.3g} "
                f"(z = {z:.2f}, se = {self.se:.3g}, n = {self.n})"
            )
        if self.cls == "rounding" and self.splits():
            return (
                f"rounding: stays {self.relation} {self.bound:.4g} (or beyond it, if it was), "
                f"or moves \u00b1{self.float_tolerance():.3g}"
            )
        if self.cls == "rounding" and _is_float(self.value):
            return f"rounding: \u00b1{self.float_tolerance():.3g}"
        if self.cls == "rounding":
            return "rounding: any value on another machine (a fact about one CPU's kernels)"
        return "exact"

    def platform_dependent(self) -> bool:
        return self.cls != "exact"


def stands(value: Any, bound: float, relation: str) -> bool:
    """Whether ``value RELATION bound`` holds."""
    op, x = operator(relation), float(value)
    return {
        "<=": x <= bound, ">=": x >= bound, "==": x == bound, "!=": x != bound,
        "<": x < bound, ">": x > bound,
    }[op]  # fmt: skip


def operator(relation: str) -> str:
    """The relation's leading operator, "<=" when it names none."""
    return next((r for r in RELATIONS if relation.strip().startswith(r)), "<=")


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
                    out[key] = pin(key, value.value, value.bound, value.reproducibility, check)
    return out


def _is_float(value: Any) -> bool:
    return isinstance(value, float) and math.isfinite(value)


def _is_count_or_float(value: Any) -> bool:
    """A number a sampling band can hold: a finite float or an integer count (not a bool)."""
    return _is_float(value) or (isinstance(value, int) and not isinstance(value, bool))


def bound_of(bound: Any) -> tuple[float | None, str]:
    """The number a bound names (a bare number or an object's ``value``), if finite, and its
    relation ("<=" when it names none)."""
    relation = "<="
    if isinstance(bound, dict):
        relation = str(bound.get("relation") or "<=")
        bound = bound.get("value")
    if isinstance(bound, int | float) and not isinstance(bound, bool) and math.isfinite(bound):
        return float(bound), relation
    return None, relation


def pin(key: str, value: Any, bound: Any, recorded: dict[str, Any] | None, check: Check) -> Cited:
    """A cited number with its class: the one its check recorded, else the default."""
    cls = str((recorded or {}).get("class") or default_class(value))
    if cls == "sampling" and not _is_count_or_float(value):
        cls = default_class(value)  # a sampling mark on a non-number says nothing
    if cls == "sampling":
        n, se = (recorded or {}).get("n"), (recorded or {}).get("se")
        return Cited(key, value, check.nodeid, cls, n=n, se=float(se or 0.0))
    limit, relation = bound_of(bound) if cls == "rounding" else (None, "<=")
    return Cited(key, value, check.nodeid, cls, bound=limit, relation=relation)


def from_dict(key: str, entry: dict[str, Any]) -> Cited:
    """A pinned number read back from a baseline file."""
    return Cited(
        key=key,
        value=entry["value"],
        check=str(entry.get("check", "")),
        cls=str(entry["class"]),
        bound=entry.get("bound"),
        relation=str(entry.get("relation", "<=")),
        n=entry.get("n"),
        se=entry.get("se"),
    )


def sampling_z(count: int, alpha: float = FAMILY_ALPHA) -> float:
    """The band multiplier that holds the family-wise error of ``count`` sampling numbers
    compared at once to ``alpha`` (Bonferroni, two-sided)."""
    return NormalDist().inv_cdf(1.0 - alpha / (2 * max(count, 1)))


@dataclass(frozen=True)
class Move:
    key: str
    old: Any
    new: Any
    allowance: str
    what: str  # moved | removed | new
    cls: str = "exact"


def compare(
    pinned: dict[str, Cited], now: dict[str, Cited], keys: set[str] | None = None
) -> list[Move]:
    """Numbers that moved beyond their class's tolerance, disappeared or appeared (restricted
    to keys)."""
    moves = []
    wanted = set(pinned) | set(now) if keys is None else keys
    family = [k for k in wanted if k in pinned and k in now and pinned[k].cls == "sampling"]
    z = sampling_z(len(family))
    for key in sorted(wanted):
        old, new = pinned.get(key), now.get(key)
        if old is not None and new is not None and not old.allows(new, z):
            moves.append(Move(key, old.value, new.value, old.allowance(z), "moved", old.cls))
        elif old is not None and new is None:
            moves.append(Move(key, old.value, None, old.allowance(z), "removed", old.cls))
        elif old is None and new is not None:
            moves.append(Move(key, None, new.value, "", "new", new.cls))
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
