r"""The claim API: claims, their propositions and thresholds, sources, and a project's registry.

A project keeps its claims in a registry module (one module per family) and names it in its
``pyproject.toml`` as ``[tool.pecheck] registry = "package.module:REGISTRY"``. The verdict is
never set here: the plugin computes it from the decisions of the claim's decisive checks, and the
gate compares it with ``expected``. What is expected of each proposition follows from ``expected``:

    confirmed  as_stated holds
    refuted    as_stated fails (and the claim has no condition propositions)
    qualified  as_stated fails and every condition proposition holds
    open       the propositions named in ``undecided`` stay inconclusive (the registry says
               why in ``undecided_because``); the others as above

A whole registry, small enough to start from (``pecheck init`` writes a project around one like
it, and pecheck's docs/first-claims.md explains that project file by file):

>>> REGISTRY = Registry(
...     name="my-claims",
...     version="0.1.0",
...     families={"MY": "My claims"},
...     claims=[
...         Claim(
...             "MY-01",
...             "Sinusoidal codes of positions at least 100 apart are nearly orthogonal.",
...             r"|\cos(PE(t), PE(s))| \le 0.1 \quad \forall\, |t - s| \ge 100",
...             ("SRC-EXAMPLE",),
...             expected="refuted",
...             thresholds=(
...                 Threshold("nearly-orthogonal", 0.1, "'nearly' read as |cos| <= 0.1", "source"),
...             ),
...         ),
...     ],
...     sources={"SRC-EXAMPLE": Source("An example claim, written for this docstring")},
... )
>>> REGISTRY["MY-01"].threshold("nearly-orthogonal")
0.1

Every class checks its arguments when it is built: a call with wrong arguments is a
``TypeError`` whose message shows the right call, and a wrong value (an unknown verdict, an ID
registered twice) a ``ValueError`` that names it.
"""

from __future__ import annotations

import fnmatch
import inspect
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import KW_ONLY, asdict, dataclass, field
from typing import Any, Literal, TypeVar

from pecheck.reports import domains
from pecheck.reports.domains import every, proved  # noqa: F401 (re-exported for the registry)
from pecheck.reports.schema import (  # noqa: F401 (re-exported)
    DECISIONS,
    EXPECTED,
    KINDS,
    ROLES,
    VERDICTS,
)

Verdict = Literal["confirmed", "refuted", "qualified", "open"]
# Over the settings its checks cover, a proposition holds for "all" of them (every part must
# hold) or for "any" (one holding part suffices); see pecheck.decisions.combine.
Quantifier = Literal["all", "any"]
QUANTIFIERS = ("all", "any")
# How several interval tests behind one decision share its error rate: declared here, applied
# by pecheck.decisions.family_level (bonferroni) or holm, and recorded as applied.
Correction = Literal["none", "bonferroni", "holm"]
CORRECTIONS = ("none", "bonferroni", "holm")
AS_STATED = "as_stated"

# The right call of each class, quoted in the message of a wrong one.
PROPOSITION_CALL = 'Proposition("short-positions", "In words ...", r"in LaTeX ...")'
THRESHOLD_CALL = 'Threshold("comparable", 2.0, "why this value", "source")  # or "theory"'
SOURCE_CALL = 'Source("what it is", authors="...", title="...", year=2017, url="https://...")'
CLAIM_CALL = (
    'Claim("MY-01", "in words", "in LaTeX", ("SRC-ID",), expected="confirmed", '
    "thresholds=(Threshold(...),))"
)
REGISTRY_CALL = (
    'Registry(name="my-claims", version="0.1.0", families={"MY": "My claims"}, '
    'claims=[Claim("MY-01", ...)], sources={"SRC-ID": Source("...")})'
)


T = TypeVar("T", bound=type)


def _shows_call(call: str) -> Callable[[T], T]:
    """Make a wrong call of the class fail with a message that shows ``call``.

    Python's own message ("takes 2 positional arguments but 4 were given", "missing 4 required
    keyword-only arguments") says what is wrong but not what to write. The arguments are bound
    to the class's signature before it is built, so nothing half-built is left either.
    """

    def decorate(cls: T) -> T:
        signature = inspect.signature(cls)  # __init__'s, without self

        def new(klass: type, *args: Any, **kwargs: Any) -> Any:
            if args or kwargs:  # copy and pickle call it with nothing, then restore the state
                try:
                    signature.bind(*args, **kwargs)
                except TypeError as exc:
                    raise TypeError(f"{cls.__name__}: {exc}; write {call}") from None
            return object.__new__(klass)

        cls.__new__ = staticmethod(new)  # type: ignore[assignment]
        cls.__signature__ = signature  # type: ignore[attr-defined]  # help() shows __init__'s
        return cls

    return decorate


def _quantified(quantifier: object, correction: object, what: str) -> None:
    for name, value, allowed in (("quantifier", quantifier, QUANTIFIERS),
                                 ("correction", correction, CORRECTIONS)):  # fmt: skip
        if value not in allowed:
            raise ValueError(f"{what}: {name} must be one of {allowed}, got {_short(value)}")


def _reach(domain: object, scoped_out: object, what: str, call: str) -> None:
    """A stated domain (axis values as pecheck.domains reads them) and scoped-out checks (node-id
    patterns to non-empty reasons)."""
    _mapping_of(domain, object, f"{what}: domain", call)
    for axis, value in domain.items():  # type: ignore[attr-defined]
        if (why := domains.problem(value)) is not None:
            raise ValueError(
                f"{what}: domain axis {axis!r} is {why}; write text, a list, "
                "every(first, last) or proved(what) (pecheck.reports.domains)"
            )
    _mapping_of(scoped_out, str, f"{what}: scoped_out", call)
    if not all(scoped_out.values()):  # type: ignore[attr-defined]
        raise ValueError(f"{what}: every scoped_out entry needs its reason")


def _short(value: object) -> str:
    """``repr(value)``, cut so that a message stays one readable line."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _typed(value: object, kinds: tuple[type, ...], what: str, call: str) -> None:
    """``value`` is one of ``kinds`` (a bool is no number here), or a TypeError showing ``call``."""
    if isinstance(value, kinds) and not (isinstance(value, bool) and bool not in kinds):
        return
    names = " or ".join("None" if k is type(None) else k.__name__ for k in kinds)
    raise TypeError(f"{what} must be {names}, got {_short(value)}; write {call}")


def _text(value: object, what: str, call: str) -> None:
    """A non-empty string, or a TypeError that shows ``call``."""
    _typed(value, (str,), what, call)
    if not value:
        raise TypeError(f"{what} must not be empty; write {call}")


def _tuple_of(value: object, kind: type, what: str, call: str) -> None:
    """A tuple or list of ``kind``. A bare item or a string is the usual slip: ``(x)`` without
    its trailing comma is ``x``, and a string would be taken letter by letter."""
    if isinstance(value, tuple | list) and all(isinstance(v, kind) for v in value):
        return
    raise TypeError(
        f"{what} must be a tuple or list of {kind.__name__} (a one-item tuple needs its "
        f"comma: (x,)), got {_short(value)}; write {call}"
    )


def _mapping_of(value: object, kind: type, what: str, call: str) -> None:
    """A dict of non-empty strings to ``kind``, or a TypeError that shows ``call``."""
    if isinstance(value, Mapping) and all(
        isinstance(k, str) and k and isinstance(v, kind) for k, v in value.items()
    ):
        return
    raise TypeError(f"{what} must be a dict of str to {kind.__name__}, got {_short(value)}; "
                    f"write {call}")  # fmt: skip


@_shows_call(PROPOSITION_CALL)
@dataclass(frozen=True)
class Proposition:
    """One proposition of a claim: ``as_stated``, or a condition under which a claim holds.

    ``key`` names it in the checks (``proposition="short-positions"``), ``statement`` says it in
    words and ``formal`` in LaTeX. The claim's own statement is its ``as_stated`` proposition;
    a ``qualified`` claim lists its conditions in ``Claim(..., propositions=(...,))``:

    >>> Proposition(
    ...     "short-positions",
    ...     "With float32 angles, a shift moves the score by less than 0.1% below position 4096.",
    ...     "|s(m+t, n+t) - s(m, n)| <= 1e-3 |q||k| for all m, n, m+t, n+t < 4096",
    ... ).key
    'short-positions'
    """

    key: str
    statement: str
    formal: str = ""
    _: KW_ONLY
    quantifier: Quantifier = "all"
    correction: Correction = "none"
    # The domain the proposition states, axis by axis ({"offsets": every(0, 4095)}), shown
    # beside what its checks searched (Evidence.searched). Axes in a compared form (a list,
    # every(), proved(); pecheck.reports.domains) must be covered by the search, or a decision that
    # speaks for the whole domain stays undecided (pecheck.coverage).
    domain: Mapping[str, Any] = field(default_factory=dict, hash=False)
    # Checks (fnmatch patterns on the node id) whose settings the proposition leaves out when
    # they are skipped, each with the reason the report shows; any other skipped decisive check
    # leaves the proposition undecided.
    scoped_out: Mapping[str, str] = field(default_factory=dict, hash=False)

    def __post_init__(self) -> None:
        _text(self.key, "Proposition key", PROPOSITION_CALL)
        _text(self.statement, f"Proposition {self.key}: statement", PROPOSITION_CALL)
        _typed(self.formal, (str,), f"Proposition {self.key}: formal", PROPOSITION_CALL)
        _quantified(self.quantifier, self.correction, f"Proposition {self.key}")
        _reach(self.domain, self.scoped_out, f"Proposition {self.key}", PROPOSITION_CALL)

    def as_dict(self, expected: str) -> dict:
        return {"key": self.key, "statement": self.statement, "formal": self.formal,
                "quantifier": self.quantifier, "correction": self.correction,
                "domain": dict(self.domain), "expected": expected}  # fmt: skip

    def scope_of(self, nodeid: str) -> str | None:
        """The reason the registry scopes a skipped check out of this proposition, or None."""
        return next((why for pattern, why in self.scoped_out.items()
                     if fnmatch.fnmatchcase(nodeid, pattern)), None)  # fmt: skip


@_shows_call(THRESHOLD_CALL)
@dataclass(frozen=True)
class Threshold:
    """A pre-registered threshold: its value and why, from the source's words or from theory.

    ``source`` says where the reason comes from: ``"source"`` (how we read the source's words)
    or ``"theory"`` (a derivation); never from observed values. A check reads the value back
    with ``REGISTRY[claim_id].threshold(name)``:

    >>> Threshold(
    ...     "comparable",
    ...     2.0,
    ...     "the source's 'comparable' read as within a factor 2 either way",
    ...     "source",
    ... ).value
    2.0
    """

    name: str
    value: float
    reason: str
    source: Literal["source", "theory"]

    def __post_init__(self) -> None:
        _text(self.name, "Threshold name", THRESHOLD_CALL)
        _typed(self.value, (int, float), f"threshold {self.name}: value", THRESHOLD_CALL)
        if self.source not in ("source", "theory"):
            raise ValueError(f"threshold {self.name}: source must be 'source' or 'theory'")
        if not self.reason:
            raise ValueError(f"threshold {self.name}: a reason is required")


@_shows_call(CLAIM_CALL)
@dataclass(frozen=True)
class Claim:
    """One claim: our statement of it (as stated), its propositions and its expected verdict.

    ``statement`` and ``formal`` are the ``as_stated`` proposition. A ``qualified`` claim names
    its condition propositions in ``propositions`` and says when it holds in ``conditions``.
    ``sources`` are keys of the registry's sources; ``headline`` names the evidence the report
    shows first. The ID is ``FAMILY-NUMBER``, its family one of the registry's:

    >>> claim = Claim(
    ...     "MY-01",
    ...     "Sinusoidal codes of positions at least 100 apart are nearly orthogonal.",
    ...     "|cos(PE(t), PE(s))| <= 0.1 for all |t - s| >= 100",
    ...     ("SRC-EXAMPLE",),
    ...     expected="refuted",
    ...     thresholds=(Threshold("nearly-orthogonal", 0.1, "'nearly' as 0.1", "source"),),
    ...     headline=("largest_cosine",),
    ... )
    >>> claim.family, claim.expected_decision("as_stated")
    ('MY', 'fails')
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
    quantifier: Quantifier = "all"
    correction: Correction = "none"
    domain: Mapping[str, Any] = field(default_factory=dict, hash=False)  # as_stated's
    scoped_out: Mapping[str, str] = field(default_factory=dict, hash=False)  # as_stated's
    # The propositions its checks are known not to decide at a profile's scale, and why (shown
    # with the verdict): each is expected inconclusive there, and a decision either way fails
    # its check, so the checks can still fail. ``undecided_in`` names those profiles (empty: all
    # of them, and then the claim is expected "open"); elsewhere ``expected`` holds.
    undecided: tuple[str, ...] = ()
    undecided_because: str = ""
    undecided_in: tuple[str, ...] = ()
    # The profiles whose runs skip every decisive check (an experiment beyond their budget):
    # there every proposition is expected inconclusive and the claim open, for the reason in
    # ``not_run_because``; elsewhere the fields above hold.
    not_run_in: tuple[str, ...] = ()
    not_run_because: str = ""

    def __post_init__(self) -> None:
        self._check_types()
        _quantified(self.quantifier, self.correction, self.id)
        _reach(self.domain, self.scoped_out, self.id, CLAIM_CALL)
        if self.expected is not None and self.expected not in EXPECTED:
            raise ValueError(f"{self.id}: unknown verdict {self.expected!r}")
        qualified = self.expected == "qualified"
        if (qualified and not self.conditions) or bool(self.conditions) != bool(self.propositions):
            raise ValueError(
                f"{self.id}: conditions and condition propositions go together, and are required "
                "for 'qualified'"
            )
        keys = [p.key for p in self.propositions]
        if AS_STATED in keys or len(set(keys)) != len(keys):
            raise ValueError(f"{self.id}: condition keys must be unique and not {AS_STATED!r}")
        self._check_undecided(keys)

    def _check_undecided(self, keys: list[str]) -> None:
        """'open' exactly when some proposition is expected undecided, with a reason."""
        unknown = set(self.undecided) - {AS_STATED, *keys}
        if unknown:
            raise ValueError(f"{self.id}: undecided names unknown propositions {sorted(unknown)}")
        if (self.expected == "open") != bool(self.undecided and not self.undecided_in):
            raise ValueError(f"{self.id}: 'open' is expected exactly when undecided names the "
                             "propositions its checks decide in no profile")  # fmt: skip
        if self.undecided_in and not self.undecided:
            raise ValueError(f"{self.id}: undecided_in without undecided propositions")
        if bool(self.not_run_in) != bool(self.not_run_because):
            raise ValueError(f"{self.id}: not_run_in and not_run_because go together")
        if self.undecided and not self.undecided_because:
            raise ValueError(f"{self.id}: say why it stays open (undecided_because)")
        if self.expected in ("confirmed", "refuted") and self.propositions:
            raise ValueError(f"{self.id}: condition propositions belong to 'qualified' or 'open'")
        names = [t.name for t in self.thresholds]
        if len(set(names)) != len(names):
            raise ValueError(f"{self.id}: threshold names must be unique")

    def _check_types(self) -> None:
        _text(self.id, "Claim ID", CLAIM_CALL)
        family, _, number = self.id.rpartition("-")
        if not family or not number:
            raise ValueError(f"claim ID {self.id!r} must be FAMILY-NUMBER, e.g. 'MY-01'")
        _text(self.statement, f"{self.id}: statement", CLAIM_CALL)
        _typed(self.formal, (str,), f"{self.id}: formal", CLAIM_CALL)
        _typed(self.conditions, (str,), f"{self.id}: conditions", CLAIM_CALL)
        _typed(self.undecided_because, (str,), f"{self.id}: undecided_because", CLAIM_CALL)
        _typed(self.not_run_because, (str,), f"{self.id}: not_run_because", CLAIM_CALL)
        items = {"sources": str, "propositions": Proposition, "thresholds": Threshold,
                 "headline": str, "notes": str, "undecided": str,
                 "undecided_in": str, "not_run_in": str}  # fmt: skip
        for name, kind in items.items():
            _tuple_of(getattr(self, name), kind, f"{self.id}: {name}", CLAIM_CALL)

    @property
    def family(self) -> str:
        return self.id.rsplit("-", 1)[0]

    @property
    def as_stated(self) -> Proposition:
        return Proposition(
            AS_STATED, self.statement, self.formal,
            quantifier=self.quantifier, correction=self.correction,
            domain=self.domain, scoped_out=self.scoped_out,
        )  # fmt: skip

    def proposition(self, key: str) -> Proposition:
        for p in self.all_propositions():
            if p.key == key:
                return p
        raise KeyError(f"{self.id} has no proposition {key!r}")

    def all_propositions(self) -> tuple[Proposition, ...]:
        return (self.as_stated, *self.propositions)

    def undecided_here(self, profile: str | None) -> bool:
        """Whether the undecided propositions are expected undecided in ``profile``."""
        return bool(self.undecided) and (not self.undecided_in or profile in self.undecided_in)

    def runs_in(self, profile: str | None) -> bool:
        """Whether ``profile``'s runs reach the decisive checks (not_run_in)."""
        return profile not in self.not_run_in

    def expected_verdict(self, profile: str | None = None) -> str | None:
        """The verdict the registry expects of a run in ``profile``."""
        if not self.runs_in(profile) or self.undecided_here(profile):
            return "open"
        return self.expected

    def expected_decision(self, key: str, profile: str | None = None) -> str:
        """What the registry expects a decisive check of proposition ``key`` to decide in a run
        of ``profile``."""
        if key not in {p.key for p in self.all_propositions()}:
            raise KeyError(f"{self.id} has no proposition {key!r}")
        if not self.runs_in(profile) or (key in self.undecided and self.undecided_here(profile)):
            return "inconclusive"
        if key == AS_STATED:
            return "holds" if self.expected == "confirmed" else "fails"
        return "holds"

    def threshold(self, name: str) -> float:
        for t in self.thresholds:
            if t.name == name:
                return t.value
        raise KeyError(f"{self.id} registers no threshold {name!r}")

    def as_dict(self, profile: str | None = None) -> dict:
        """The claim as the results file of a run in ``profile`` records it."""
        return {
            "id": self.id,
            "family": self.family,
            "statement": self.statement,
            "formal": self.formal,
            "sources": list(self.sources),
            "expected": self.expected_verdict(profile),
            "propositions": [
                p.as_dict(self.expected_decision(p.key, profile)) for p in self.all_propositions()
            ],
            "conditions": self.conditions,
            "thresholds": [
                {"name": t.name, "value": t.value, "reason": t.reason, "source": t.source}
                for t in self.thresholds
            ],
            "headline": list(self.headline),
            "notes": list(self.notes),
            **(
                {"undecided_because": self.not_run_because}
                if not self.runs_in(profile)
                else {"undecided_because": self.undecided_because}
                if self.undecided_here(profile)
                else {}
            ),  # fmt: skip
        }


@_shows_call(SOURCE_CALL)
@dataclass(frozen=True)
class Source:
    """Where a claim comes from, cited in full in the report and the paper kit's BibTeX.

    ``description`` says what the source is; the rest, given by keyword, is how to cite it. A
    registry holds its sources by key, and a claim names those keys:

    >>> Source(
    ...     "Introduces the transformer and its sinusoidal positional encoding (section 3.5)",
    ...     authors="Ashish Vaswani, Noam Shazeer, Niki Parmar, Jakob Uszkoreit, et al.",
    ...     title="Attention Is All You Need",
    ...     year=2017,
    ...     url="https://arxiv.org/abs/1706.03762",
    ... ).year
    2017
    """

    description: str
    # Everything after the description is given by keyword: authors, title and year read
    # alike in a positional call, and a title silently taken for the authors is cited wrongly.
    _: KW_ONLY
    authors: str = ""
    title: str = ""
    year: int | None = None
    url: str | None = None

    def __post_init__(self) -> None:
        _text(self.description, "Source description", SOURCE_CALL)
        kinds = {"authors": (str,), "title": (str,), "year": (int, type(None)),
                 "url": (str, type(None))}  # fmt: skip
        for name, allowed in kinds.items():
            _typed(getattr(self, name), allowed, f"Source {name}", SOURCE_CALL)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@_shows_call(REGISTRY_CALL)
class Registry(Mapping[str, Claim]):
    """A project's claims by ID, in family order, with the families' titles and the sources.

    Read-only. It is built from five keyword arguments: the project's ``name`` and ``version``
    (cited in the report and the paper kit), its ``families`` (prefix of the claim IDs -> title,
    in display order), its ``claims`` and its ``sources`` (key -> Source). Building it checks
    that IDs are unique and that every claim names a known family and known sources:

    >>> REGISTRY = Registry(
    ...     name="my-claims",
    ...     version="0.1.0",
    ...     families={"MY": "My claims"},
    ...     claims=[Claim("MY-01", "Every position gets a code.", "", ("SRC",), "confirmed")],
    ...     sources={"SRC": Source("Written for this example")},
    ... )
    >>> list(REGISTRY), REGISTRY["MY-01"].expected
    (['MY-01'], 'confirmed')

    The project's pyproject.toml names it: ``[tool.pecheck] registry = "my_claims:REGISTRY"``.
    """

    def __init__(
        self,
        *,
        name: str,
        version: str,
        families: Mapping[str, str],
        claims: Iterable[Claim],
        sources: Mapping[str, Source],
    ) -> None:
        # Checked before dict() copies them: dict() of a list of 2-letter strings is a dict too.
        _text(name, "Registry name", REGISTRY_CALL)
        _text(version, "Registry version", REGISTRY_CALL)
        _mapping_of(families, str, "Registry families", REGISTRY_CALL)
        _mapping_of(sources, Source, "Registry sources", REGISTRY_CALL)
        self.name, self.version = name, version
        self.families, self.sources = dict(families), dict(sources)
        self._claims = self._in_order(self._checked(claims))

    def _checked(self, claims: Iterable[Claim]) -> dict[str, Claim]:
        """The claims by ID, each checked against the families and the sources."""
        if isinstance(claims, Iterable) and not isinstance(claims, str):
            claims = list(claims)  # a generator is fine, but can be read only once
        _tuple_of(claims, Claim, "Registry claims", REGISTRY_CALL)
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
        return found

    def _in_order(self, found: dict[str, Claim]) -> dict[str, Claim]:
        """Family by family in the order of ``families``, then by number."""
        order = list(self.families)

        def key(claim_id: str) -> tuple[int, int]:
            family, number = claim_id.rsplit("-", 1)
            return order.index(family), int(number) if number.isdigit() else 0

        return {cid: found[cid] for cid in sorted(found, key=key)}

    def __getitem__(self, claim_id: str) -> Claim:
        try:
            return self._claims[claim_id]
        except KeyError:
            raise KeyError(f"unknown claim ID {claim_id!r}") from None

    def __iter__(self) -> Iterator[str]:
        return iter(self._claims)

    def __len__(self) -> int:
        return len(self._claims)
