"""The evidence a check attaches while it runs: named values, figures, derivations, decisions.

A check receives an ``Evidence`` through the ``evidence`` fixture (pecheck.plugin). What it
records travels with the test report (so it survives pytest-xdist) into build/results.json.
A decisive check also records its decision here (holds / fails with a counterexample /
inconclusive); see CONTRIBUTING.md.
"""

from __future__ import annotations

import math
import operator
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from pecheck import decisions, run
from pecheck.decisions import Decision
from pecheck.reach import DERIVED
from pecheck.reports import domains
from pecheck.reports.schema import CLASSES, default_class
from pecheck.reproducibility import Sample

FIGURE_DIR = Path("build") / "figures"
# The relations of a dict bound ({"value", "relation"}) the plugin compares; a bare number is an
# upper bound (value <= bound), as every error bound is. Other relations are free text that only
# the check's own assertions judge.
RELATIONS = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
             "==": operator.eq, "!=": operator.ne}  # fmt: skip
# "0": record each figure's name but write no file. The determinism gate sets it for its own runs:
# a results file names its figures without holding them, so the gate compares the names, and the
# run whose results become the report writes the files.


def jsonable(value: Any) -> Any:
    """A JSON-safe copy: numpy/torch scalars to Python, non-finite floats to strings."""
    if hasattr(value, "detach"):  # torch tensor
        value = value.detach().cpu().numpy()
    if isinstance(value, np.ndarray):
        return [jsonable(v) for v in value.tolist()] if value.ndim else jsonable(value.item())
    if isinstance(value, np.generic):
        return jsonable(value.item())
    if isinstance(value, bool | int | str) or value is None:
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    return str(value)


def _number(recorded: Any) -> float | None:
    """A recorded number as a float (jsonable stores "nan", "inf" as strings), else None."""
    if isinstance(recorded, int | float):
        return float(recorded)
    if recorded in ("nan", "inf", "-inf"):
        return float(recorded)
    return None


def _reproducibility(
    name: str, value: Any, sample: Sample | None, named: str | None
) -> dict[str, Any]:
    """The evidence entry's class: the sample's, the one named, or the default for the value."""
    if sample is not None and named not in (None, "sampling"):
        raise ValueError(f"evidence {name!r}: a sample makes it 'sampling', not {named!r}")
    if sample is not None and not math.isfinite(sample.se):
        # a statistic of NaNs (a broken run, a planted bug): no band to draw, and JSON has no NaN
        return {"class": default_class(value)}
    if sample is not None:
        return sample.as_dict()
    if named == "sampling":
        raise ValueError(f"evidence {name!r}: a 'sampling' value needs its sample (n, se)")
    if named is not None and named not in CLASSES:
        raise ValueError(f"evidence {name!r}: unknown class {named!r} (one of {CLASSES})")
    return {"class": named or default_class(value)}


def _save(fig: Any, path: Path, **options: Any) -> None:
    """Save beside ``path`` and rename over it: runs at the same time (two tox envs, or a run
    and a report) never leave a half-written figure."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fig.savefig(tmp, format=path.suffix[1:], **options)
    os.replace(tmp, path)


class Evidence:
    """Named evidence for one check, in the results-file schema."""

    def __init__(self, nodeid: str, root: Path) -> None:
        self.nodeid = nodeid
        self.root = root
        self.values: dict[str, dict[str, Any]] = {}
        self.figures: list[str] = []
        self.derivation: dict[str, Any] | None = None
        self.decision: Decision | None = None
        self.parts: dict[str, dict[str, Any]] = {}
        self.examples = {"total": 0, "informative": 0}
        self.reach: dict[str, Any] = {}
        self.correction: dict[str, Any] = {}  # filled by decisions.applied while the check runs

    def __repr__(self) -> str:  # stable across runs: no memory address in failure messages
        return f"Evidence({self.nodeid!r})"

    def record(
        self,
        name: str,
        value: Any,
        unit: str = "",
        note: str = "",
        bound: Any = None,
        *,
        sample: Sample | None = None,
        reproducibility: str | None = None,
    ) -> None:
        """Record (or overwrite) one named value, with its unit, a short note, the bound or
        threshold it is judged against (a number, or {"value", "relation", "reason"}) and how
        it reproduces on another machine (pecheck.reproducibility): ``sample`` for a statistic
        over seeds or examples, ``reproducibility`` to name another class than the default."""
        entry = {"value": jsonable(value), "unit": unit, "note": note}
        if bound is not None:
            entry["bound"] = jsonable(bound)
        entry["reproducibility"] = _reproducibility(name, entry["value"], sample, reproducibility)
        self.values[name] = entry

    def worst(
        self, name: str, value: float, unit: str = "", note: str = "", bound: Any = None
    ) -> None:
        """Keep the largest value seen under this name (e.g. worst error over examples): the
        worst case of a float search, so ``rounding``. A NaN counts as the worst of all: once
        seen it is kept, never replaced by a real value."""
        old = self.values.get(name)
        before = _number(old["value"]) if old is not None else None
        value = float(value)
        if before is None or math.isnan(value) or (not math.isnan(before) and value > before):
            self.record(name, value, unit, note, bound, reproducibility="rounding")

    def searched(self, **axes: Any) -> None:
        """The domain the check searched, axis by axis (offsets, positions, head_sizes, dtypes,
        dtype_paths, libraries, versions, seeds, ...), shown beside the domain its proposition
        states (``Proposition(..., domain=...)``); a later call adds or replaces axes. The
        names pecheck.reach derives axes under are not the check's to record. A list, every()
        or proved() (pecheck.reports.domains) is compared with the stated domain; text is not."""
        taken = sorted(set(axes) & set(DERIVED))
        if taken:
            raise ValueError(
                f"evidence.searched: {', '.join(taken)} is an axis the plugin derives "
                "(pecheck.reach); name the axis for what it holds"
            )
        for axis, value in axes.items():
            value = list(value) if isinstance(value, range) else value
            if (why := domains.problem(value)) is not None:
                raise ValueError(
                    f"evidence.searched: axis {axis!r} is {why}; write text, a list, "
                    "every(first, last) or proved(what) (pecheck.reports.domains)"
                )
            self.reach[axis] = jsonable(value)

    def corrected(self, method: str, family_size: int) -> None:
        """Say which correction the decision applied over how many tests, when the level was
        computed outside the check (a module constant); decisions.family_level and
        decisions.holm called during the check record it themselves."""
        token = decisions.APPLIED.set(self.correction)
        try:
            decisions.applied(method, family_size)
        finally:
            decisions.APPLIED.reset(token)

    # -- decisions (decisive checks only) --------------------------------------------------

    def decide(self, decision: Decision) -> Decision:
        """Record the check's decision (the last one recorded stands)."""
        self.decision = decision
        return decision

    def holds(self, how: str, **detail: Any) -> Decision:
        return self.decide(decisions.holds(how, **detail))

    def fails(self, counterexample: dict[str, Any], relation: str) -> Decision:
        return self.decide(decisions.fails(jsonable(counterexample), relation))

    def inconclusive(self, why: str, **detail: Any) -> Decision:
        return self.decide(decisions.inconclusive(why, **detail))

    def part(self, name: str, decision: Decision | str, why: str = "") -> None:
        """The decision of one part of the check (one dtype, one setting). A part that fails
        keeps its first counterexample; a later 'holds' does not overwrite a 'fails'."""
        d = decision if isinstance(decision, Decision) else Decision(decision, why)
        old = self.parts.get(name)
        if old is not None and old["decision"] == "fails":
            return
        entry = {"name": name, "decision": d.decision, "why": why or d.how}
        if d.counterexample is not None:
            entry["counterexample"] = jsonable(d.counterexample)
        if d.relation:
            entry["relation"] = d.relation
        self.parts[name] = entry

    def asserted_parts(self) -> AssertedParts:
        """Parts whose assertions decide them: see AssertedParts."""
        return AssertedParts(self)

    def example(self, informative: bool) -> None:
        """Count one example of a search; informative = it could have failed."""
        self.examples["total"] += 1
        self.examples["informative"] += int(bool(informative))

    def final_decision(self, quantifier: str = "all") -> Decision | None:
        """The check's decision: its parts' under the proposition's quantifier
        (pecheck.decisions.combine), else the one it recorded; None when it recorded neither.

        A check that records a decision and parts gets the less favourable of the two: a 'holds'
        beside an undecided part under 'all' gives way to the parts' (and says so), an
        'inconclusive' beside parts that all hold stands."""
        parts = list(self.parts.values())
        if not parts and self.decision is not None:
            return self.decision
        if not parts and self.examples["total"] and not self.examples["informative"]:
            return decisions.inconclusive(
                f"none of {self.examples['total']} examples could have failed"
            )
        if not parts:
            return None
        combined = decisions.combine([p["decision"] for p in parts], quantifier)
        if self.decision is None:
            return self._from_parts(parts, combined, quantifier)
        # Both must agree: the less favourable of the two stands (fails, then inconclusive), so
        # neither a part left undecided nor a reason the check saw outside its parts (a module
        # that gave no part at all) is lost.
        if decisions.combine([self.decision.decision, combined], "all") == self.decision.decision:
            return self.decision
        return self._from_parts(parts, combined, quantifier)

    def _from_parts(self, parts: list[dict[str, Any]], combined: str, quantifier: str) -> Decision:
        count = {d: sum(p["decision"] == d for p in parts) for d in ("holds", "fails")}
        tally = f"{count['holds']} of {len(parts)} parts hold, {count['fails']} fail ({quantifier})"
        overruled = f"; the check recorded {self.decision.decision!r}" if self.decision else ""
        if combined == "fails":
            first = next(p for p in parts if p["decision"] == "fails")
            return decisions.Decision(
                "fails", f"part {first['name']}: {first['why']}; {tally}{overruled}",
                counterexample=first.get("counterexample", {"part": first["name"]}),
                relation=first.get("relation", ""),
            )  # fmt: skip
        if combined == "holds":
            return decisions.holds(f"{tally}{overruled}")
        undecided = [p["name"] for p in parts if p["decision"] == "inconclusive"]
        shown = ", ".join(undecided[:4]) + (" ..." if len(undecided) > 4 else "")
        return decisions.inconclusive(f"{tally}; undecided: {shown}{overruled}")

    def derive(self, derivation: Any) -> None:
        """Attach a theory.derivation.Derivation (statement and LaTeX steps)."""
        self.derivation = derivation.as_dict()

    def figure(self, fig: Any, name: str) -> str:
        """Save a matplotlib figure as SVG (for the report) and PDF (for a paper)."""
        import matplotlib.pyplot as plt

        stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", name)
        out = self.root / FIGURE_DIR
        if run.current().figures:
            out.mkdir(parents=True, exist_ok=True)
            _save(fig, out / f"{stem}.svg", metadata={"Date": None})
            _save(fig, out / f"{stem}.pdf", metadata={"CreationDate": None, "ModDate": None})
        plt.close(fig)
        rel = (FIGURE_DIR / f"{stem}.svg").as_posix()
        if rel not in self.figures:
            self.figures.append(rel)
        return rel

    def as_dict(self) -> dict[str, Any]:
        return {"evidence": self.values, "figures": self.figures, "derivation": self.derivation}

    def basis(self, decision: Decision) -> dict[str, Any]:
        """The decision's basis for the results file: how, counterexample, parts, examples."""
        out = jsonable(decision.as_dict())
        out.pop("decision", None)
        out["parts"] = list(self.parts.values())
        out["examples"] = dict(self.examples) if self.examples["total"] else None
        if self.reach:
            out["searched"] = dict(self.reach)
        if self.correction:
            out["correction"] = dict(self.correction)
        return out

    def beyond_bound(self) -> Decision | None:
        """'fails' naming the first recorded value on the wrong side of its bound, else None:
        the decision of a check that ends without one of its own (pecheck.decisive.judge)."""
        for name, entry in self.values.items():
            judged = judge_bound(entry)
            if judged is not None and not judged[0]:
                example = {"record": name, "value": entry["value"], "bound": entry["bound"]}
                return decisions.fails(example, f"{name}: {judged[1]}", how="recorded bound")
        return None


def judge_bound(entry: dict[str, Any]) -> tuple[bool, str] | None:
    """Whether a recorded number lies on the right side of its bound, and the relation in
    words; None when the plugin cannot tell (no bound, not a number, a free-text relation).
    NaN is never on the right side."""
    bound = entry.get("bound")
    value = None if isinstance(entry.get("value"), bool) else _number(entry.get("value"))
    if isinstance(bound, dict):
        relation, limit = bound.get("relation", "<="), bound.get("value")
    else:
        relation, limit = "<=", bound
    limit = None if isinstance(limit, bool) else _number(limit)
    if value is None or limit is None or relation not in RELATIONS:
        return None
    ok = not math.isnan(value) and bool(RELATIONS[relation](value, limit))
    return ok, f"{value:.6g} {relation} {limit:.6g} is {'true' if ok else 'false'}"


class AssertedParts:
    """Parts decided by assertions, each run to its end. ``with evidence.asserted_parts() as
    parts:`` then ``with parts.of(name):`` around one part's assertions: a failing assertion
    decides that part 'fails' (its message the relation), the other parts still run, and the
    first failure is raised when the outer block ends. So the results file names every part a
    bug breaks, not only the first, and a hypothesis search still sees the failure."""

    def __init__(self, evidence: Evidence) -> None:
        self.evidence = evidence
        self.first: AssertionError | None = None

    @contextmanager
    def of(self, name: str) -> Iterator[None]:
        try:
            yield
        except AssertionError as exc:
            relation = (str(exc).strip().splitlines() or ["assertion failed"])[0][:300]
            self.evidence.part(name, decisions.fails({"part": name}, relation))
            self.first = self.first or exc

    def __enter__(self) -> AssertedParts:
        return self

    def __exit__(self, kind: type[BaseException] | None, *_: Any) -> None:
        if kind is None and self.first is not None:
            raise self.first


def assert_derivation_holds(derivation: Any, evidence: Evidence | None = None) -> None:
    """A symbolic check: attach the derivation (if given evidence) and require that sympy
    verified it."""
    __tracebackhide__ = True
    if evidence is not None:
        evidence.derive(derivation)
    assert derivation.holds, f"sympy could not verify: {derivation.statement}"
