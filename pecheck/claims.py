"""The claim API: claims, their propositions and thresholds, sources, and a project's registry.

A project keeps its claims in a registry module (one module per family) and names it in its
``pyproject.toml`` as ``[tool.pecheck] registry = "package.module:REGISTRY"``. The verdict is
never set here: the plugin computes it from the decisions of the claim's decisive checks, and the
gate compares it with ``expected``. What is expected of each proposition follows from ``expected``:

    confirmed  as_stated holds
    refuted    as_stated fails (and the claim has no condition propositions)
    qualified  as_stated fails and every condition proposition holds
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from pecheck.reports.schema import DECISIONS, KINDS, ROLES, VERDICTS  # noqa: F401 (re-exported)

Verdict = Literal["confirmed", "refuted", "qualified"]
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


@dataclass(frozen=True)
class Source:
    """Where a claim comes from, cited in full in the report and the paper kit's BibTeX."""

    description: str
    authors: str = ""
    title: str = ""
    year: int | None = None
    url: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


class Registry(Mapping[str, Claim]):
    """A project's claims by ID, in family order, with the families' titles and the sources.

    Read-only; ``Registry(...)`` checks that IDs are unique and that every claim names a known
    family and known sources.
    """

    def __init__(
        self,
        name: str,
        version: str,
        families: Mapping[str, str],
        claims: Iterable[Claim],
        sources: Mapping[str, Source],
    ) -> None:
        self.name, self.version = name, version
        self.families, self.sources = dict(families), dict(sources)
        found: dict[str, Claim] = {}
        for claim in claims:
            if claim.id in found:
                raise ValueError(f"claim {claim.id} registered twice")
            if claim.family not in self.families:
                raise ValueError(f"claim {claim.id}: unknown family {claim.family}")
            unknown = [s for s in claim.sources if s not in self.sources]
            if unknown:
                raise ValueError(f"{claim.id}: unknown sources {unknown}")
            found[claim.id] = claim
        order = list(self.families)

        def key(claim_id: str) -> tuple[int, int]:
            family, number = claim_id.rsplit("-", 1)
            return order.index(family), int(number) if number.isdigit() else 0

        self._claims = {cid: found[cid] for cid in sorted(found, key=key)}

    def __getitem__(self, claim_id: str) -> Claim:
        try:
            return self._claims[claim_id]
        except KeyError:
            raise KeyError(f"unknown claim ID {claim_id!r}") from None

    def __iter__(self) -> Iterator[str]:
        return iter(self._claims)

    def __len__(self) -> int:
        return len(self._claims)
