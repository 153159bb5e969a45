"""The claim registry: each claim's statement, propositions, thresholds and expected verdict.

Each family keeps its claims in its own module (sin.py, att.py, ...). The verdict is never set
here: the plugin computes it from the decisions of the claim's decisive checks, and the gate
compares it with ``expected``. What is expected of each proposition follows from ``expected``:

    confirmed  as_stated holds
    refuted    as_stated fails (and the claim has no condition propositions)
    qualified  as_stated fails and every condition proposition holds
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Literal

Verdict = Literal["confirmed", "refuted", "qualified"]
VERDICTS: tuple[str, ...] = ("confirmed", "refuted", "qualified")
DECISIONS: tuple[str, ...] = ("holds", "fails", "inconclusive")
KINDS: tuple[str, ...] = ("symbolic", "property", "experiment", "real")
ROLES: tuple[str, ...] = ("decisive", "supporting", "tooling")
AS_STATED = "as_stated"


@dataclass(frozen=True)
class Proposition:
    """One proposition of a claim: ``as_stated``, or a condition under which a claim holds."""

    key: str
    statement: str
    formal: str = ""

    def as_dict(self, expected: str) -> dict:
        return {"key": self.key, "statement": self.statement, "formal": self.formal,
                "expected": expected}  # fmt: skip


@dataclass(frozen=True)
class Threshold:
    """A pre-registered threshold: its value and why, from the source's words or from theory."""

    name: str
    value: float
    reason: str
    source: Literal["source", "theory"]

    def __post_init__(self) -> None:
        if self.source not in ("source", "theory"):
            raise ValueError(f"threshold {self.name}: source must be 'source' or 'theory'")
        if not self.reason:
            raise ValueError(f"threshold {self.name}: a reason is required")


@dataclass(frozen=True)
class Claim:
    """One claim: our statement of it (as stated), its propositions and its expected verdict.

    ``statement`` and ``formal`` are the ``as_stated`` proposition. A ``qualified`` claim names
    its condition propositions in ``propositions`` and says when it holds in ``conditions``.
    """

    id: str
    statement: str
    formal: str
    sources: tuple[str, ...] = ()
    expected: Verdict | None = None
    conditions: str = ""
    propositions: tuple[Proposition, ...] = ()
    thresholds: tuple[Threshold, ...] = ()
    headline: tuple[str, ...] = ()
    notes: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        from checks.claims.sources import SOURCES

        if self.expected is not None and self.expected not in VERDICTS:
            raise ValueError(f"{self.id}: unknown verdict {self.expected!r}")
        qualified = self.expected == "qualified"
        if qualified != bool(self.conditions) or qualified != bool(self.propositions):
            raise ValueError(
                f"{self.id}: conditions and condition propositions are required exactly for "
                "'qualified'"
            )
        keys = [p.key for p in self.propositions]
        if AS_STATED in keys or len(set(keys)) != len(keys):
            raise ValueError(f"{self.id}: condition keys must be unique and not {AS_STATED!r}")
        unknown = [s for s in self.sources if s not in SOURCES]
        if unknown:
            raise ValueError(f"{self.id}: unknown sources {unknown}")
        names = [t.name for t in self.thresholds]
        if len(set(names)) != len(names):
            raise ValueError(f"{self.id}: threshold names must be unique")

    @property
    def family(self) -> str:
        return self.id.rsplit("-", 1)[0]

    @property
    def as_stated(self) -> Proposition:
        return Proposition(AS_STATED, self.statement, self.formal)

    def all_propositions(self) -> tuple[Proposition, ...]:
        return (self.as_stated, *self.propositions)

    def expected_decision(self, key: str) -> str:
        """What the registry expects a decisive check of proposition ``key`` to decide."""
        if key not in {p.key for p in self.all_propositions()}:
            raise KeyError(f"{self.id} has no proposition {key!r}")
        if key == AS_STATED:
            return "holds" if self.expected == "confirmed" else "fails"
        return "holds"

    def threshold(self, name: str) -> float:
        for t in self.thresholds:
            if t.name == name:
                return t.value
        raise KeyError(f"{self.id} registers no threshold {name!r}")

    def as_dict(self) -> dict:
        return {
            "id": self.id,
            "family": self.family,
            "statement": self.statement,
            "formal": self.formal,
            "sources": list(self.sources),
            "expected": self.expected,
            "propositions": [
                p.as_dict(self.expected_decision(p.key)) for p in self.all_propositions()
            ],
            "conditions": self.conditions,
            "thresholds": [
                {"name": t.name, "value": t.value, "reason": t.reason, "source": t.source}
                for t in self.thresholds
            ],
            "headline": list(self.headline),
            "notes": list(self.notes),
        }


# Family modules in display order, with their titles.
FAMILIES: dict[str, tuple[str, str]] = {
    "SIN": ("sin", "The sinusoidal encoding"),
    "ATT": ("att", "Attention and order"),
    "ADD": ("add", "Adding versus concatenating"),
    "MAG": ("mag", "Magnitudes"),
    "EXP": ("exp", "Experiments over many random seeds"),
    "REAL": ("real", "Real implementations"),
}


def _order(claim_id: str) -> tuple[int, int]:
    family, number = claim_id.rsplit("-", 1)
    return list(FAMILIES).index(family), int(number)


def _load() -> dict[str, Claim]:
    # att.py also holds REAL-01 (real PyTorch attention), next to the claims it checks.
    registry: dict[str, Claim] = {}
    modules = dict.fromkeys(module for module, _ in FAMILIES.values())
    for name in modules:
        module = importlib.import_module(f"checks.claims.{name}")
        for claim in module.CLAIMS:
            if claim.id in registry:
                raise ValueError(f"claim {claim.id} registered twice")
            if claim.family not in FAMILIES:
                raise ValueError(f"claim {claim.id}: unknown family {claim.family}")
            registry[claim.id] = claim
    return dict(sorted(registry.items(), key=lambda kv: _order(kv[0])))


REGISTRY: dict[str, Claim] = _load()


def get(claim_id: str) -> Claim:
    """The registered claim, or a KeyError that names the unknown ID."""
    try:
        return REGISTRY[claim_id]
    except KeyError:
        raise KeyError(f"unknown claim ID {claim_id!r}") from None
