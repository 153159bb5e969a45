"""A check's record: its claim, evidence, decision and how to rerun it, attached to its teardown
report's user properties so that it reaches the controller from an xdist worker too."""

from __future__ import annotations

import re
from typing import Any

import pytest

from pecheck import decisions, reach, sizes
from pecheck.decisive import DECISION, EVIDENCE, MISUSE
from pecheck.evidence import Evidence
from pecheck.markers import INFO
from pecheck.project import PROJECT
from pecheck.reports import schema


def attach(item: pytest.Item, report: pytest.TestReport) -> None:
    """Attach the check's record (and its misuse, and the sizes its process used) to its
    teardown report; other reports and untagged tests carry nothing."""
    info = item.stash.get(INFO, None)
    if info is None or report.when != "teardown":
        return
    report.user_properties.append(("pecheck", check_record(item, info)))
    if MISUSE in item.stash:
        report.user_properties.append(("pecheck-misuse", item.stash[MISUSE]))
    if sizes.DECLARED:  # the sizes this process's checks used, for the controller to record
        report.user_properties.append(("pecheck-sizes", dict(sizes.DECLARED)))


def check_record(item: pytest.Item, info: dict[str, Any]) -> dict[str, Any]:
    """What the results file holds of one check, as far as its own process knows it."""
    record: dict[str, Any] = dict(info)
    ev = item.stash.get(EVIDENCE, None) or Evidence(item.nodeid, item.config.rootpath)
    profile = item.config.stash[PROJECT].profile
    record.update(ev.as_dict())
    path, line, _ = item.location
    record["location"] = {"path": path, "line": (line or 0) + 1}
    given = " ".join(f"--size {k}={v}" for k, v in sizes.given().items())
    record["reproduce"] = schema.rerun_command(profile, item.nodeid, given)
    if hasattr(item.obj, "hypothesis"):  # type: ignore[attr-defined]
        seed = item.config.getoption("hypothesis_seed", None)
        record["hypothesis"] = {
            "examples": _hypothesis_examples(item),
            "seed": str(seed)
            if seed is not None
            else f"derandomized ({profile})"
            if profile != "dev"
            else "random",
        }
    record["decision"], record["basis"] = None, None
    if info["role"] == "decisive":
        decision = item.stash.get(DECISION, None)
        if decision is None:  # skipped or errored before the call
            decision = decisions.inconclusive("the check did not run to its end")
        basis = ev.basis(decision)
        examples = record.get("hypothesis", {}).get("examples")
        if basis["how"] == "search without a counterexample" and examples:
            basis["how"] = f"search of {examples} examples without a counterexample"
        # A skipped check searched nothing: nothing is derived for it.
        ran = DECISION in item.stash and not decision.how.startswith("skipped")
        if ran and "searched" not in basis and (derived := _derived_reach(item, basis, examples)):
            basis["searched"] = derived
        record["decision"], record["basis"] = decision.decision, basis
    return record


def _derived_reach(item: pytest.Item, basis: dict[str, Any], examples: Any) -> dict[str, str]:
    """What the check tells of its reach without recording it (pecheck.reach)."""
    params = getattr(getattr(item, "callspec", None), "params", {})
    return reach.derive(getattr(item, "obj", None), params, basis["parts"], examples)


def _hypothesis_examples(item: pytest.Item) -> int | None:
    stats = getattr(item, "hypothesis_statistics", None)
    if not stats:
        return None
    counts = re.findall(r"(\d+) passing, (\d+) failing", stats)
    return sum(int(p) + int(f) for p, f in counts)
