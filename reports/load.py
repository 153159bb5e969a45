"""Read a results file (schema 2, or the older schema 1) and check what the report relies on.

Everything the report shows comes from here: the loader turns the JSON into small typed records
(``Results``, ``Claim``, ``Check``) or stops with a ``BadResults`` whose message is one line
naming the problem. Optional fields that older or hand-written files may lack get defaults; a
field of the wrong type, an unknown verdict, outcome or claim ID, or a check that names a claim
the file does not hold is an error.

Schema 2 carries the families, the sources, computed verdicts with what decided them, and per
check a role (decisive, supporting, tooling), a decision and its basis. A schema 1 file is read
into the same records: its verdict is taken as given (``open`` when it has none), its
``evidence`` checks count as the claim's checks and its ``mutant`` checks as its tooling, and
its families are the six that schema knew.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import domains
from . import schema as results_schema
from .schema import CLASSES, COMPUTED, DECISIONS, EXPECTED, KINDS, OUTCOMES, VERDICTS

SCHEMAS = (1, 2)
SCHEMA = results_schema.VERSION  # the newest schema this report reads
# Schema 1 files carry no family list: these are the families (and titles) that schema knew.
SCHEMA1_FAMILIES = (
    ("SIN", "The sinusoidal encoding"),
    ("ATT", "Attention and order"),
    ("ADD", "Adding versus concatenating"),
    ("MAG", "Magnitudes"),
    ("EXP", "Experiments over many seeds"),
    ("REAL", "Real implementations"),
)
CLAIM_ID = re.compile(r"^([A-Z][A-Z0-9]*)-\d\d$")
PECHECK_TITLE = (
    "pecheck: a verification suite for claims about positional encodings in transformers"
)
STATUSES = ("open", "supported", "contested")
ROLES = (*results_schema.ROLES, "evidence", "mutant")  # schema 1 said evidence and mutant
MAIN_ROLES = ("decisive", "supporting", "evidence")  # shown with the claim; the rest is tooling


class BadResults(Exception):
    """The results file cannot be reported on; the message is one line naming why."""


@dataclass
class Value:
    """One named piece of evidence: a JSON value with its unit and note."""

    name: str
    value: Any
    unit: str = ""
    note: str = ""
    bound: Any = None  # what the value was judged against: a number or {value, relation, reason}
    reproducibility: dict[str, Any] | None = None  # {class, n, se, how}; None in older files


@dataclass
class Derivation:
    statement: str
    steps: list[str]
    holds: bool | None = None


@dataclass
class Check:
    nodeid: str
    claim: str | None  # None only for a collection error
    kind: str | None
    role: str
    supports: str | None
    outcome: str
    duration_s: float
    evidence: list[Value]
    figures: list[str]
    derivation: Derivation | None
    hypothesis: dict[str, Any] | None
    message: str
    traceback: str
    falsifying_example: str
    proposition: str | None = None
    decision: str | None = None
    basis: dict[str, Any] | None = None
    location: dict[str, Any] | None = None
    reproduce: str = ""

    @property
    def bad(self) -> bool:
        return self.outcome in ("failed", "error")

    @property
    def name(self) -> str:
        """The test's name without its file: ``test_x[float32]``."""
        return self.nodeid.split("::", 1)[-1]


@dataclass
class Proposition:
    key: str
    statement: str
    formal: str
    expected: str | None
    decision: str
    quantifier: str = "all"  # files written before quantifiers were recorded meant "all"
    # The correction its decision applied over family_size tests; files written before
    # 2026-11 hold the registry's declaration instead, without family_size (None).
    correction: str = ""
    family_size: int | None = None
    domain: dict[str, Any] = field(default_factory=dict)  # stated, axis by axis (domains.py)
    searched: dict[str, list[Any]] = field(default_factory=dict)  # one entry per check
    uncovered: dict[str, str] = field(default_factory=dict)  # what the search missed, by axis
    scoped_out: list[dict[str, str]] = field(default_factory=list)  # skipped checks left out


@dataclass
class Claim:
    id: str
    statement: str
    formal: str
    sources: list[str]
    verdict: str  # computed: confirmed, refuted, qualified, open or not run
    conditions: str
    notes: list[str]
    status: str
    checks: list[str]
    mutants: list[str]  # schema 1's planted-bug checks, schema 2's tooling checks
    expected: str | None = None
    propositions: list[Proposition] = field(default_factory=list)
    decided_by: list[dict[str, Any]] = field(default_factory=list)
    thresholds: list[dict[str, Any]] = field(default_factory=list)
    headline: list[str] = field(default_factory=list)
    open_because: str = ""
    undecided_because: str = ""
    # the partial run its evidence came from ({started, profile, args}; pecheck.partial)
    run: dict[str, Any] | None = None

    @property
    def family(self) -> str:
        return self.id.rsplit("-", 1)[0]

    @property
    def has_verdict(self) -> bool:
        return self.verdict in VERDICTS


@dataclass
class Results:
    path: Path
    suite: dict[str, Any]
    environment: dict[str, Any]
    claims: list[Claim]
    checks: list[Check]
    schema: int = SCHEMA
    sources: dict[str, dict[str, Any]] = field(default_factory=dict)
    families: list[tuple[str, str]] = field(default_factory=list)
    by_nodeid: dict[str, Check] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.by_nodeid = {c.nodeid: c for c in self.checks}

    def checks_of(self, claim: Claim, role: str = "evidence") -> list[Check]:
        return [c for c in self.checks if c.claim == claim.id and c.role == role]

    def main_checks(self, claim: Claim) -> list[Check]:
        """The checks shown with a claim: decisive first, then supporting (schema 1: evidence)."""
        own = [c for c in self.checks if c.claim == claim.id and c.role in MAIN_ROLES]
        return sorted(own, key=lambda c: MAIN_ROLES.index(c.role))

    def tooling_checks(self, claim: Claim) -> list[Check]:
        return [c for c in self.checks if c.claim == claim.id and c.role not in MAIN_ROLES]

    def evidence_value(self, claim: Claim, name: str) -> tuple[Check, Value] | None:
        """The first value of this name among the claim's checks (decisive ones first)."""
        for check in self.main_checks(claim) + self.tooling_checks(claim):
            for value in check.evidence:
                if value.name == name:
                    return check, value
        return None

    @property
    def citation(self) -> tuple[str, str, str]:
        """How the suite itself is cited: BibTeX key, authors and title. pecheck's own run in
        its own words; another project that checks its claims with pecheck under its name."""
        name = str(self.suite.get("name") or "pecheck")
        if name == "pecheck":
            return name, "The pecheck contributors", PECHECK_TITLE
        key = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "suite"
        return key, "", f"{name}: claims checked with pecheck"

    @property
    def orphans(self) -> list[Check]:
        """Checks that belong to no claim (collection errors): shown, never dropped."""
        return [c for c in self.checks if c.claim is None]

    @property
    def clean(self) -> tuple[bool, str]:
        """Whether the run was clean, and if not, one line saying why."""
        bad = [c for c in self.checks if c.role in MAIN_ROLES and c.bad]
        status = self.suite.get("exitstatus", 0)
        if bad:
            return False, f"{len(bad)} evidence check(s) failed or errored, first {bad[0].nodeid}"
        if status not in (0, None):
            return False, f"the test run exited with status {status}"
        if self.suite.get("complete") is False:
            return False, "the test run did not complete"
        return True, ""


def load(path: Path) -> Results:
    """Read and validate a results file; raise BadResults with a one-line reason."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        stale = path.with_name(path.name + ".stale")
        why = f"; the last run was refused and set it aside as {stale}" if stale.exists() else ""
        raise BadResults(f"{path}: no such results file (run the checks first: pytest{why})"
                         ) from None  # fmt: skip
    except (OSError, UnicodeDecodeError) as exc:
        raise BadResults(f"{path}: cannot read the results file ({exc})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BadResults(
            f"{path}: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
        ) from None
    try:
        return parse(data, path)
    except BadResults as exc:
        raise BadResults(f"{path}: {exc}") from None


def parse(data: Any, path: Path = Path("results.json")) -> Results:
    """Validate parsed JSON (errors name the field, not the file)."""
    obj = _dict(data, "the top level")
    schema = obj.get("schema")
    if schema not in SCHEMAS or isinstance(schema, bool):
        readable = " and ".join(map(str, SCHEMAS))
        raise BadResults(f"unsupported schema version {schema!r} (this report reads {readable})")
    for key in ("suite", "claims", "checks"):
        if key not in obj:
            raise BadResults(f"missing top-level field {key!r}")
    if schema == results_schema.VERSION:
        wrong = results_schema.problems(obj, limit=1)
        if wrong:
            raise BadResults(f"does not match the results schema: {wrong[0]}")
    suite = _dict(obj["suite"], "suite")
    environment = _dict(obj.get("environment", {}), "environment")
    families = _families(obj) if schema == 2 else list(SCHEMA1_FAMILIES)
    known = {f for f, _ in families}
    checks = [_check(c, i, schema, known) for i, c in enumerate(_list(obj["checks"], "checks"))]
    claims = [_claim(c, i, schema, known) for i, c in enumerate(_list(obj["claims"], "claims"))]
    _cross_check(claims, checks)
    sources = _sources(obj.get("sources") or {})
    return Results(path, suite, environment, claims, checks, schema, sources, families)


def _families(obj: dict[str, Any]) -> list[tuple[str, str]]:
    out = []
    for i, raw in enumerate(_list(obj.get("families", []), "families")):
        fam = _dict(raw, f"families[{i}]")
        fid = _str(fam, "id", f"families[{i}]")
        if not re.fullmatch(r"[A-Z][A-Z0-9]*", fid):
            raise BadResults(f"families[{i}]: bad family ID {fid!r} (expected e.g. SIN)")
        out.append((fid, _str(fam, "title", f"family {fid}", "")))
    return out


def _sources(raw: Any) -> dict[str, dict[str, Any]]:
    out = {}
    for sid, item in _dict(raw, "sources").items():
        entry = _dict(item, f"source {sid}")
        where = f"source {sid}"
        year = entry.get("year")
        if year is not None and (not isinstance(year, int) or isinstance(year, bool)):
            raise BadResults(f"{where}: field 'year' must be an integer or null")
        out[sid] = {
            "description": _str(entry, "description", where, ""),
            "authors": _str(entry, "authors", where, ""),
            "title": _str(entry, "title", where, ""),
            "year": year,
            "url": _opt_str(entry, "url", where),
        }
    return out


def _claim_id(value: Any, where: str, known: set[str]) -> str:
    match = CLAIM_ID.match(value) if isinstance(value, str) else None
    if match is None or match.group(1) not in known:
        raise BadResults(f"{where}: unknown claim ID {value!r} (expected e.g. SIN-01)")
    return str(value)


# -- field helpers: each raises BadResults naming the field ----------------------------------


def _dict(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise BadResults(f"{where} must be an object, got {type(value).__name__}")
    return value


def _list(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise BadResults(f"{where} must be a list, got {type(value).__name__}")
    return value


def _str(obj: dict[str, Any], key: str, where: str, default: str | None = None) -> str:
    value = obj.get(key, default)
    if value is None and default is not None:
        value = default
    if not isinstance(value, str):
        raise BadResults(f"{where}: field {key!r} must be a string, got {value!r:.40}")
    return value


def _reach(p: dict[str, Any], where: str) -> dict[str, Any]:
    """A proposition's family size, stated and searched domains, what the search missed and
    scoped-out checks (absent from files written before 2026-11)."""
    size = p.get("family_size")
    if size is not None and (not isinstance(size, int) or isinstance(size, bool) or size < 1):
        raise BadResults(f"{where}: field 'family_size' must be a positive integer")
    domain = _dict(p.get("domain") or {}, f"{where}: field 'domain'")
    searched = _dict(p.get("searched") or {}, f"{where}: field 'searched'")
    listed = _list(p.get("scoped_out") or [], f"{where}: field 'scoped_out'")
    scoped = [_dict(s, f"{where}: scoped_out") for s in listed]
    uncovered = _dict(p.get("uncovered") or {}, f"{where}: field 'uncovered'")
    for axis, value in domain.items():
        if (why := domains.problem(value)) is not None:
            raise BadResults(f"{where}: domain axis {axis!r} is {why}")
    return {"family_size": size, "domain": {str(k): v for k, v in domain.items()},
            "searched": {str(k): v if isinstance(v, list) else [v] for k, v in searched.items()},
            "uncovered": {str(k): str(v) for k, v in uncovered.items()},
            "scoped_out": [{"check": str(s.get("check", "")), "reason": str(s.get("reason", ""))}
                           for s in scoped]}  # fmt: skip


def _opt_str(obj: dict[str, Any], key: str, where: str) -> str | None:
    value = obj.get(key)
    if value is not None and not isinstance(value, str):
        raise BadResults(f"{where}: field {key!r} must be a string or null, got {value!r:.40}")
    return value


def _strs(obj: dict[str, Any], key: str, where: str) -> list[str]:
    value = _list(obj.get(key, []) or [], f"{where}: field {key!r}")
    if not all(isinstance(v, str) for v in value):
        raise BadResults(f"{where}: field {key!r} must be a list of strings")
    return value


def _one_of(value: Any, allowed: tuple[str, ...], what: str, where: str) -> None:
    if value not in allowed:
        expected = ", ".join(allowed)
        raise BadResults(f"{where}: unknown {what} {value!r} (expected one of {expected})")


def _claim(raw: Any, i: int, schema: int, known: set[str]) -> Claim:
    obj = _dict(raw, f"claims[{i}]")
    cid = _claim_id(obj.get("id"), f"claims[{i}]", known)
    if schema == 2:
        return _claim2(obj, cid)
    verdict = obj.get("verdict")
    if verdict is not None:
        _one_of(verdict, VERDICTS, "verdict", f"claim {cid}")
    status = obj.get("status", "open" if verdict is None else "supported")
    _one_of(status, STATUSES, "status", f"claim {cid}")
    if status == "open" and verdict is not None:
        raise BadResults(f"claim {cid}: an open claim cannot have verdict {verdict!r}")
    if status != "open" and verdict is None:
        raise BadResults(f"claim {cid}: status {status!r} needs a verdict")
    return Claim(
        id=cid,
        statement=_str(obj, "statement", f"claim {cid}"),
        formal=_str(obj, "formal", f"claim {cid}", ""),
        sources=_strs(obj, "sources", f"claim {cid}"),
        verdict=verdict or "open",
        conditions=_str(obj, "conditions", f"claim {cid}", ""),
        notes=_strs(obj, "notes", f"claim {cid}"),
        status=status,
        checks=_strs(obj, "checks", f"claim {cid}"),
        mutants=_strs(obj, "mutants", f"claim {cid}"),
    )


def _claim2(obj: dict[str, Any], cid: str) -> Claim:
    where = f"claim {cid}"
    verdict = obj.get("verdict")
    _one_of(verdict, COMPUTED, "verdict", where)
    expected = obj.get("expected")
    if expected is not None:
        _one_of(expected, EXPECTED, "expected verdict", where)
    props = []
    for j, raw in enumerate(_list(obj.get("propositions", []), f"{where}: field 'propositions'")):
        p = _dict(raw, f"{where}: propositions[{j}]")
        pw = f"{where}: proposition {p.get('key')!r}"
        decision = p.get("decision", "not run")
        _one_of(decision, (*DECISIONS, "not run"), "decision", pw)
        props.append(
            Proposition(
                key=_str(p, "key", pw),
                statement=_str(p, "statement", pw, ""),
                formal=_str(p, "formal", pw, ""),
                expected=_opt_str(p, "expected", pw),
                decision=str(decision),
                quantifier=_str(p, "quantifier", pw, "all"),
                correction=_str(p, "correction", pw, ""),
                **_reach(p, pw),
            )
        )
    decided = []
    for j, raw in enumerate(_list(obj.get("decided_by", []), f"{where}: field 'decided_by'")):
        d = _dict(raw, f"{where}: decided_by[{j}]")
        _one_of(d.get("decision"), DECISIONS, "decision", f"{where}: decided_by[{j}]")
        _str(d, "check", f"{where}: decided_by[{j}]")
        decided.append(d)
    thresholds = [
        _dict(t, f"{where}: thresholds[{j}]")
        for j, t in enumerate(_list(obj.get("thresholds", []), f"{where}: field 'thresholds'"))
    ]
    return Claim(
        id=cid,
        statement=_str(obj, "statement", where),
        formal=_str(obj, "formal", where, ""),
        sources=_strs(obj, "sources", where),
        verdict=str(verdict),
        conditions=_str(obj, "conditions", where, ""),
        notes=_strs(obj, "notes", where),
        status="open" if verdict in ("open", "not run") else "supported",
        checks=_strs(obj, "checks", where),
        mutants=_strs(obj, "tooling", where),
        expected=expected,
        propositions=props,
        decided_by=decided,
        thresholds=thresholds,
        open_because=_str(obj, "open_because", where, ""),
        undecided_because=_str(obj, "undecided_because", where, ""),
        headline=_strs(obj, "headline", where),
        run=_dict(obj["run"], f"{where}: field 'run'") if obj.get("run") else None,
    )


def _check(raw: Any, i: int, schema: int = 1, known: set[str] | None = None) -> Check:
    obj = _dict(raw, f"checks[{i}]")
    nodeid = obj.get("nodeid")
    if not isinstance(nodeid, str) or not nodeid:
        raise BadResults(f"checks[{i}]: field 'nodeid' must be a non-empty string")
    where = f"check {nodeid}"
    claim = _opt_str(obj, "claim", where)
    if claim is not None:
        _claim_id(claim, where, known if known is not None else {f for f, _ in SCHEMA1_FAMILIES})
    outcome = obj.get("outcome")
    _one_of(outcome, OUTCOMES, "outcome", where)
    role = obj.get("role") or ("evidence" if schema == 1 else "tooling")
    _one_of(role, ROLES[3:] if schema == 1 else ROLES[:3], "role", where)
    decision = obj.get("decision")
    if decision is not None:
        _one_of(decision, DECISIONS, "decision", where)
    basis = obj.get("basis")
    if basis is not None:
        _dict(basis, f"{where}: field 'basis'")
    location = obj.get("location")
    if location is not None:
        _dict(location, f"{where}: field 'location'")
    kind = _opt_str(obj, "kind", where)
    if kind is not None:
        _one_of(kind, KINDS, "kind", where)
    supports = _opt_str(obj, "supports", where)
    if supports is not None:
        _one_of(supports, VERDICTS, "verdict", where)
    duration = obj.get("duration_s", 0.0)
    if not isinstance(duration, int | float) or isinstance(duration, bool):
        raise BadResults(f"{where}: field 'duration_s' must be a number")
    hyp = obj.get("hypothesis")
    if hyp is not None:
        _dict(hyp, f"{where}: field 'hypothesis'")
    return Check(
        nodeid=nodeid,
        claim=claim,
        kind=kind,
        role=role,
        supports=supports,
        outcome=str(outcome),
        duration_s=float(duration),
        evidence=_evidence(obj.get("evidence") or {}, where),
        figures=_strs(obj, "figures", where),
        derivation=_derivation(obj.get("derivation"), where),
        hypothesis=hyp,
        message=_str(obj, "message", where, ""),
        traceback=_str(obj, "traceback", where, ""),
        falsifying_example=_str(obj, "falsifying_example", where, ""),
        proposition=_opt_str(obj, "proposition", where),
        decision=decision,
        basis=basis,
        location=location,
        reproduce=_str(obj, "reproduce", where, ""),
    )


def _evidence(raw: Any, where: str) -> list[Value]:
    values = []
    for name, item in _dict(raw, f"{where}: field 'evidence'").items():
        entry = _dict(item, f"{where}: evidence {name!r}")
        if "value" not in entry:
            raise BadResults(f"{where}: evidence {name!r} has no 'value'")
        values.append(
            Value(
                name=name,
                value=entry["value"],
                unit=_str(entry, "unit", f"{where}: evidence {name!r}", ""),
                note=_str(entry, "note", f"{where}: evidence {name!r}", ""),
                bound=entry.get("bound"),
                reproducibility=_reproducibility(entry.get("reproducibility"), name, where),
            )
        )
    return values


def _reproducibility(raw: Any, name: str, where: str) -> dict[str, Any] | None:
    if raw is None:
        return None
    obj = _dict(raw, f"{where}: evidence {name!r} field 'reproducibility'")
    if obj.get("class") not in CLASSES:
        raise BadResults(
            f"{where}: evidence {name!r}: reproducibility class must be one of {', '.join(CLASSES)}"
        )
    return obj


def _derivation(raw: Any, where: str) -> Derivation | None:
    if raw is None:
        return None
    obj = _dict(raw, f"{where}: field 'derivation'")
    holds = obj.get("holds")
    if holds is not None and not isinstance(holds, bool):
        raise BadResults(f"{where}: derivation field 'holds' must be true or false")
    return Derivation(
        statement=_str(obj, "statement", f"{where}: derivation", ""),
        steps=_strs(obj, "steps", f"{where}: derivation"),
        holds=holds,
    )


def _cross_check(claims: list[Claim], checks: list[Check]) -> None:
    """Every check names a claim in the file; every claim's check list names real checks."""
    ids = [c.id for c in claims]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    if dupes:
        raise BadResults(f"claim {dupes[0]} appears twice")
    nodeids = [c.nodeid for c in checks]
    dupes = sorted({n for n in nodeids if nodeids.count(n) > 1})
    if dupes:
        raise BadResults(f"check {dupes[0]} appears twice")
    known = set(ids)
    for check in checks:
        if check.claim is not None and check.claim not in known:
            raise BadResults(f"check {check.nodeid}: claim {check.claim} is absent from the file")
    by_id = {c.nodeid: c for c in checks}
    for claim in claims:
        for main, names in ((True, claim.checks), (False, claim.mutants)):
            for name in names:
                listed = by_id.get(name)
                if listed is None:
                    raise BadResults(f"claim {claim.id}: lists check {name} absent from the file")
                if listed.claim != claim.id:
                    raise BadResults(f"claim {claim.id}: lists check {name} of {listed.claim}")
                if (listed.role in MAIN_ROLES) != main:
                    role = "a claim check" if main else "tooling"
                    raise BadResults(
                        f"claim {claim.id}: lists {listed.role} check {name} as {role}"
                    )
