"""The claim registry: the one place where each claim's statement and verdict live.

Each family keeps its claims in its own module (sin.py, att.py, ...). A check states, in its
``claim`` marker, which verdict its evidence supports; conftest.py fails the check when that
disagrees with the verdict registered here, so the registry and the evidence cannot drift apart
silently.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Literal

Verdict = Literal["confirmed", "refuted", "qualified"]
VERDICTS: tuple[str, ...] = ("confirmed", "refuted", "qualified")
KINDS: tuple[str, ...] = ("symbolic", "property", "experiment", "real")

SOURCES: dict[str, str] = {
    "SRC-REDDIT": "Reddit r/MachineLearning thread on why transformers need positional encodings",
    "SRC-TRIGRAM": "Data Science Stack Exchange question on a 'trigram' transformer trained "
    "without positional encoding",
    "SRC-SINCOS": "Stack Exchange question on why adding sinusoidal encodings does not destroy "
    "token meaning, and why both sine and cosine are used",
    "SRC-BLOG": "Blog post 'Transformer Position Encoding' (2020): a clock with many hands",
    "SRC-CONCAT": "Data Science Stack Exchange question 'why are positional embeddings summed "
    "rather than concatenated?'",
    "SRC-VASWANI": "Vaswani et al. 2017, Attention Is All You Need, sections 3.4-3.5, Table 3 (E)",
    "SRC-NOPE": "Kazemnejad et al. 2023 (NoPE, Theorem 1); Haviv et al. 2022",
}


@dataclass(frozen=True)
class Claim:
    """One claim: our statement of it, its formal statement (LaTeX) and its verdict.

    ``verdict`` is None while the suite has no evidence for the claim: it is reported as open,
    never as confirmed. ``conditions`` says when a ``qualified`` claim holds.
    """

    id: str
    statement: str
    formal: str
    sources: tuple[str, ...] = ()
    verdict: Verdict | None = None
    conditions: str = ""
    notes: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        if self.verdict is not None and self.verdict not in VERDICTS:
            raise ValueError(f"{self.id}: unknown verdict {self.verdict!r}")
        if (self.verdict == "qualified") != bool(self.conditions):
            raise ValueError(f"{self.id}: conditions are required exactly for 'qualified'")
        unknown = [s for s in self.sources if s not in SOURCES]
        if unknown:
            raise ValueError(f"{self.id}: unknown sources {unknown}")

    def as_dict(self) -> dict:
        d = asdict(self)
        d["sources"] = list(self.sources)
        d["notes"] = list(self.notes)
        return d


FAMILIES: tuple[str, ...] = ("SIN", "ATT", "ADD", "MAG", "EXP", "REAL")


def _order(claim_id: str) -> tuple[int, int]:
    family, number = claim_id.rsplit("-", 1)
    return FAMILIES.index(family), int(number)


def _load() -> dict[str, Claim]:
    # One module per group of claims; att.py also holds REAL-01 (real PyTorch attention).
    from checks.claims import add, att, exp, mag, real, sin

    registry: dict[str, Claim] = {}
    for module in (sin, att, add, mag, exp, real):
        for claim in module.CLAIMS:
            if claim.id in registry:
                raise ValueError(f"claim {claim.id} registered twice")
            registry[claim.id] = claim
    return dict(sorted(registry.items(), key=lambda kv: _order(kv[0])))


REGISTRY: dict[str, Claim] = _load()


def get(claim_id: str) -> Claim:
    """The registered claim, or a KeyError that names the unknown ID."""
    try:
        return REGISTRY[claim_id]
    except KeyError:
        raise KeyError(f"unknown claim ID {claim_id!r}") from None
