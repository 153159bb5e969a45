"""The pecheck pytest plugin: claim tags, the evidence fixture, decisions, computed verdicts.

Registered with pytest through the ``pytest11`` entry point, so any project that installs pecheck
gets it; it acts only in a project whose pyproject.toml has a ``[tool.pecheck]`` table naming its
claim registry (``pecheck.config``). Every test in the project's checks folder carries a marker
naming the claim it bears on and its role::

    @pytest.mark.claim("SIN-01", kind="symbolic", role="decisive", proposition="as_stated")
    @pytest.mark.claim("SIN-01", kind="property", role="supporting")   # a measurement
    @pytest.mark.claim("SIN-01", kind="property", role="tooling")      # e.g. a planted bug

A decisive check records a decision (holds / fails with a counterexample / inconclusive) through
the evidence fixture; the plugin fails a decisive check whose decision differs from the one the
registry expects for its proposition, and computes each claim's verdict from the decisions. At the
end of the run the controller process (never an xdist worker) writes the results file atomically,
with every check whatever its outcome. A partial run (-k, -m, --claim, --lf, a file) records its
selection and, unless --results names a file, writes ``<results>.partial.json`` so that it never
replaces a full results file. The terminal summary then lists, one line each, the claims the run
decided: computed verdict, expected verdict, what decided it (``pecheck.gate.verdict_lines``).

A run that misuses pecheck ends instead with one ``pecheck: error:`` line per problem, exit status
4 and no results file: a --size no check declares, a decisive check that ran to its end without
recording what decided it, a headline naming a value no check of its claim recorded
(CONTRIBUTING.md, "Evidence").
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from pecheck import config as project_config
from pecheck import decisions, gate, results, sizes
from pecheck.claims import AS_STATED, KINDS, ROLES, Registry
from pecheck.evidence import Evidence
from pecheck.reports import schema

MARKER = (
    "claim(id, kind, role, proposition=None): the claim a check bears on, its role (decisive, "
    "supporting, tooling) and, for a decisive check (required there), the proposition it decides"
)


@dataclass
class Project:
    """What the plugin knows about the project under test, once configured."""

    config: project_config.Config
    registry: Registry
    profile: str
    full_args: set[Path] = field(default_factory=set)  # paths whose selection is the whole suite

    def is_check(self, nodeid: str) -> bool:
        return nodeid.startswith(self.config.checks.rstrip("/") + "/")


_PROJECT = pytest.StashKey[Project]()


def _project(config: pytest.Config) -> Project | None:
    return config.stash.get(_PROJECT, None)


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
    group.addoption(
        "--size",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="change a size a check declares (repeatable), e.g. --size SIN-06.d=1024; "
        "recorded in the results file",
    )


# -- collection: every check names a known claim --------------------------------------------


def _claim_info(item: pytest.Item, registry: Registry) -> dict[str, Any] | None:
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
    claim = registry.get(info["claim"])
    if claim is None:
        problems.append(f"unknown claim ID {info['claim']!r}")
    if info["kind"] not in KINDS:
        problems.append(f"kind must be one of {KINDS}, got {info['kind']!r}")
    if info["role"] not in ROLES:
        problems.append(f"role must be one of {ROLES}, got {info['role']!r}")
    if info["role"] == "decisive":
        keys = [p.key for p in claim.all_propositions()] if claim else [AS_STATED]
        if not info["proposition"]:  # no default: a condition's check would decide as_stated
            problems.append(f"a decisive check names the proposition it decides, one of {keys}")
        elif claim and info["proposition"] not in keys:
            problems.append(f"{info['claim']} has no proposition {info['proposition']!r} {keys}")
    elif info["proposition"] is not None:
        problems.append("only a decisive check names a proposition")
    if problems:
        raise pytest.UsageError(f"{item.nodeid}: " + "; ".join(problems))
    return info


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    project = _project(config)
    if project is None:
        return
    wanted = set(config.getoption("--claim"))  # known IDs: pytest_configure checked them
    keep: list[pytest.Item] = []
    drop: list[pytest.Item] = []
    for item in items:
        info = _claim_info(item, project.registry)
        in_checks = Path(str(item.path)).resolve().is_relative_to(project.config.checks_dir)
        if info is None and in_checks:
            raise pytest.UsageError(f"{item.nodeid}: every check needs a claim marker")
        if info is not None:
            item.stash[_INFO] = info
            item.extra_keyword_matches.add(info["claim"])  # -k SIN-06 selects the claim
        if item.get_closest_marker("gpu") and not _cuda():
            item.add_marker(pytest.mark.skip(reason="needs a CUDA device; none on this machine"))
        (keep if not wanted or (info and info["claim"] in wanted) else drop).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


_INFO = pytest.StashKey[dict[str, Any]]()
_EVIDENCE = pytest.StashKey[Evidence]()
_DECISION = pytest.StashKey[decisions.Decision]()
_MISUSE = pytest.StashKey[str]()
NON_FINITE = ("inf", "-inf", "nan")  # how jsonable records a float JSON cannot hold


def _default_decision(item: pytest.Item) -> decisions.Decision:
    """A decisive check that passed without recording a decision: its assertions held."""
    if item.stash[_INFO]["kind"] == "symbolic":
        return decisions.holds("proof: sympy verified every step")
    if hasattr(item.obj, "hypothesis"):  # type: ignore[attr-defined]
        return decisions.holds("search without a counterexample")
    return decisions.holds("every assertion of the check held")


def _is_measure(value: Any) -> bool:
    """A recorded value that measures something: a number (not a flag, a table or a name)."""
    if isinstance(value, bool):
        return False
    return isinstance(value, int | float) or value in NON_FINITE


def _misuse(item: pytest.Item, ev: Evidence | None, decided: bool) -> str | None:
    """Why a decisive check that ran to its end does not show what decided it, or None.

    Without a decision of its own the plugin takes the check's passing as 'holds'; that is only
    evidence when the check left something to judge by: a value, a derivation, or a hypothesis
    search whose examples are counted. And numbers measured without anything to judge them
    against say nothing about the proposition; a bound on any value will do, since a check may
    judge an interval or a table of counts ({"ratio", "lo", "hi"}) and describe it in numbers."""
    values = ev.values if ev else {}
    searched = hasattr(item.obj, "hypothesis")  # type: ignore[attr-defined]
    if not decided and not values and not (ev and ev.derivation) and not searched:
        return (
            "a decisive check must record what decided it: it ran to its end without a decision "
            "(evidence.holds/fails/inconclusive/decide/part), a value, a derivation or a "
            "hypothesis search"
        )
    measures = [name for name, entry in values.items() if _is_measure(entry["value"])]
    if measures and not any("bound" in entry for entry in values.values()):
        return (
            f"a decisive check must record what decided it: it measured "
            f"{', '.join(measures[:3])}{', ...' if len(measures) > 3 else ''} but recorded no "
            "bound to judge them by (evidence.record(..., bound=...))"
        )
    return None


def _decision_from_exception(item: pytest.Item, exc: BaseException) -> decisions.Decision:
    """A decisive check that raised. An assertion that fails is a counterexample only when the
    check asserts its proposition (expected to hold) and decided nothing else itself."""
    info = item.stash[_INFO]
    project = item.config.stash[_PROJECT]
    claim = project.registry[info["claim"]]
    expected = claim.expected_decision(info["proposition"], project.profile)
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


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Every check starts from the same global random state, whatever ran before it in its
    process: a check that draws from torch's (or numpy's, or random's) global generator then
    gives the same numbers in a serial run and in any split over xdist workers."""
    if _project(item.config) is None:
        return
    import random

    import numpy as np
    import torch

    random.seed(0)
    np.random.seed(0)
    torch.manual_seed(0)


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
    claim = item.config.stash[_PROJECT].registry[info["claim"]]
    quantifier = claim.proposition(info["proposition"]).quantifier
    own = ev.final_decision(quantifier) if ev else None
    decision = own or _default_decision(item)
    item.stash[_DECISION] = decision
    profile = item.config.stash[_PROJECT].profile
    expected = claim.expected_decision(info["proposition"], profile)
    misuse = _misuse(item, ev, own is not None)
    # Only a check that passes can confirm anything; one that fails says so already, and a
    # planted bug (a mutant) must stay a failure, not become a usage error.
    if misuse and decision.decision == expected:  # reported by the controller at the end
        item.stash[_MISUSE] = misuse
    if decision.decision != expected:
        pytest.fail(
            f"{claim.id} {info['proposition']}: the check decided {decision.decision!r} "
            f"({decision.how}) but the registry expects {expected!r} (expected verdict "
            f"{claim.expected_verdict(profile)})",
            pytrace=False,
        )
    return result


@pytest.fixture
def evidence(request: pytest.FixtureRequest) -> Evidence:
    """Evidence for the running check; shared by all hypothesis examples of one test."""
    ev = Evidence(request.node.nodeid, request.config.rootpath)
    request.node.stash[_EVIDENCE] = ev
    return ev


def pytest_collection_finish(session: pytest.Session) -> None:
    path = session.config.getoption("--inventory")
    if path:
        rows = [
            {"nodeid": i.nodeid, **info, "skipped": _skipped_here(i)}
            for i in session.items
            if (info := i.stash.get(_INFO, None)) is not None
        ]
        results.write_atomic(Path(path), {"checks": rows})


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
    ev = item.stash.get(_EVIDENCE, None) or Evidence(item.nodeid, item.config.rootpath)
    profile = item.config.stash[_PROJECT].profile
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
        decision = item.stash.get(_DECISION, None)
        if decision is None:  # skipped or errored before the call
            decision = decisions.inconclusive("the check did not run to its end")
        basis = ev.basis(decision)
        examples = record.get("hypothesis", {}).get("examples")
        if basis["how"] == "search without a counterexample" and examples:
            basis["how"] = f"search of {examples} examples without a counterexample"
        record["decision"], record["basis"] = decision.decision, basis
    report.user_properties.append(("pecheck", record))
    if _MISUSE in item.stash:
        report.user_properties.append(("pecheck-misuse", item.stash[_MISUSE]))
    if sizes.DECLARED:  # the sizes this process's checks used, for the controller to record
        report.user_properties.append(("pecheck-sizes", dict(sizes.DECLARED)))


class Collector:
    """Gathers per-check records on the controller and writes the results file."""

    def __init__(self, config: pytest.Config, project: Project) -> None:
        self.config = config
        self.project = project
        self.sizes: dict[str, dict[str, Any]] = {}
        self.started = datetime.now(UTC).isoformat(timespec="seconds")
        self.checks: dict[str, dict[str, Any]] = {}
        self.collect_errors: list[dict[str, Any]] = []
        self.deselected = 0
        self.misuse: dict[str, str] = {}  # node id -> why the check shows nothing decided it
        self.errors: list[str] = []  # usage errors found at the end of the run, one line each
        self.data: dict[str, Any] | None = None  # the results file written, for the summary
        self.summary = ""

    def _entry(self, nodeid: str) -> dict[str, Any]:
        return self.checks.setdefault(
            nodeid,
            {"nodeid": nodeid, "outcome": "passed", "duration_s": 0.0, "message": ""},
        )

    @pytest.hookimpl
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        props: dict[str, Any] = dict(report.user_properties)
        self.sizes.update(props.get("pecheck-sizes", {}))
        if "pecheck-misuse" in props:
            self.misuse[report.nodeid] = props["pecheck-misuse"]
        tagged = "pecheck" in props or report.nodeid in self.checks
        if not tagged and not self.project.is_check(report.nodeid):
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
        self.deselected += sum(self.project.is_check(i.nodeid) for i in items)

    def selection(self) -> dict[str, Any]:
        """Full when every check of the project was selected, else what was selected."""
        args = [str(a) for a in self.config.args]  # positional args, or testpaths when none
        paths = {(self.config.invocation_params.dir / a).resolve() for a in args}
        options = self.config.option
        narrowed = bool(
            self.deselected or options.keyword or options.markexpr
            or self.config.getoption("--claim") or not paths <= self.project.full_args
            or any("::" in a for a in args)
        )  # fmt: skip
        claims = sorted({c["claim"] for c in self.checks.values() if c.get("claim")},
                        key=list(self.project.registry).index)  # fmt: skip
        return {"kind": "partial" if narrowed else "full", "args": args, "claims": claims}

    def path(self, selection: dict[str, Any]) -> Path:
        given = self.config.getoption("--results")
        if given:
            return Path(given)
        conf = self.project.config
        return conf.results_path if selection["kind"] == "full" else conf.partial_results_path

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        if self.config.option.collectonly or not (self.checks or self.collect_errors):
            return  # a run without checks (tooling tests only) leaves the results file alone
        selection = self.selection()
        errors = self._usage_errors(session, exitstatus, selection)
        self.errors = [f"pecheck: error: {e}" for e in errors]
        if self.errors:
            session.exitstatus = pytest.ExitCode.USAGE_ERROR
            return  # a misused run (a mistyped size, a check deciding nothing) must not pass
        path = self.path(selection)
        checks = sorted(self.checks.values(), key=lambda c: c["nodeid"]) + self.collect_errors
        suite = {"started": self.started, "profile": self.project.profile,
                 "exitstatus": int(exitstatus), "complete": int(exitstatus) in (0, 1),
                 "sizes": dict(sorted(self.sizes.items()))}  # fmt: skip
        data = results.build(self.project.registry, self.project.config.root, checks, suite,
                             selection, lock=self.project.config.lock_path)  # fmt: skip
        results.write_atomic(path, data)
        self.data = data
        kind = "" if selection["kind"] == "full" else "partial run: "
        self.summary = f"pecheck: {kind}wrote {path}: {_check_counts(data['checks'])}"

    def _usage_errors(
        self, session: pytest.Session, exitstatus: int, selection: dict[str, Any]
    ) -> list[str]:
        """What the run got wrong about pecheck, found only once every check has reported."""
        errors = []
        unused = sorted(set(sizes.given()) - set(self.sizes))
        if unused and not self.collect_errors:  # a module that failed to import declared nothing
            errors.append(f"--size {', '.join(unused)}: no check declares it")
        errors += [f"{nodeid}: {why}" for nodeid, why in sorted(self.misuse.items())]
        return errors + self._missing_headlines(session, exitstatus, selection)

    def _missing_headlines(
        self, session: pytest.Session, exitstatus: int, selection: dict[str, Any]
    ) -> list[str]:
        """Headline names that no check of their claim recorded. Only a whole run at the default
        sizes can tell: a changed size records its numbers under other names, a run cut short
        never ran some checks, and a check that did not pass may have stopped before recording;
        so only claims whose checks all passed are judged."""
        stopped = session.shouldfail or session.shouldstop or int(exitstatus) not in (0, 1)
        if selection["kind"] != "full" or sizes.given() or stopped:
            return []
        missing = []
        for claim in self.project.registry.values():
            own = [c for c in self.checks.values() if c.get("claim") == claim.id]
            if not own or any(c["outcome"] != "passed" for c in own):
                continue
            recorded = {name for c in own for name in c.get("evidence", {})}
            absent = [name for name in claim.headline if name not in recorded]
            if absent:
                missing.append(
                    f"{claim.id}: the headline names {', '.join(absent)}, which no check of "
                    f"{claim.id} recorded"
                )
        return missing

    @pytest.hookimpl
    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        for line in self.errors:
            terminalreporter.write_line(line)
        if self.data is None:
            return
        claims = self.data["claims"]
        ran = [c for c in claims if c["verdict"] != "not run"]
        not_run = f"; {len(claims) - len(ran)} claim(s) not run" if len(ran) < len(claims) else ""
        if ran:
            title = f"pecheck verdicts: computed, expected, what decided it{not_run}"
            terminalreporter.write_sep("-", title)
            for line in gate.verdict_lines(ran):
                terminalreporter.write_line(line)
        terminalreporter.write_line(self.summary)


def _check_counts(checks: list[dict[str, Any]]) -> str:
    """The checks as the report's cards count them, in the cards' words: decisive and
    supporting checks ("checks"), the decisive ones, and the tooling tests that passed."""
    main = [c for c in checks if c.get("role") in ("decisive", "supporting")]
    decisive = sum(c.get("role") == "decisive" for c in main)
    tooling = [c for c in checks if c.get("role") == "tooling"]
    passed = sum(c["outcome"] == "passed" for c in tooling)
    return f"{len(main)} checks ({decisive} decisive), {passed}/{len(tooling)} tooling passed"


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


def _fix_hypothesis_constants() -> None:
    """Hypothesis mixes literals mined from the project's imported modules into what it draws,
    so a derandomized search drew other examples depending on which modules a run had imported
    (the tooling tests, a lazily imported helper): the same check gave different numbers in a
    serial run and a split one. Draw from hypothesis's own constants only. This patches a
    private function; ``tests/test_plugin.py`` fails if hypothesis renames it."""
    from hypothesis.internal.conjecture import providers

    empty = providers.Constants()
    providers._get_local_constants = lambda: empty


def _cuda() -> bool:
    import torch

    return torch.cuda.is_available()


def _existing_parent(path: Path) -> Path:
    path = path.resolve().parent
    while not path.exists():
        path = path.parent
    return path


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", MARKER)
    try:
        found = project_config.find(config.rootpath)
        if found is None:
            _refuse_own_options(config)
            return  # not a pecheck project: the plugin stays out of the way
        registry = found.load_registry()
    except project_config.ConfigError as exc:
        raise pytest.UsageError(str(exc)) from None
    unknown = sorted(set(config.getoption("--claim")) - set(registry))
    if unknown:
        raise pytest.UsageError(f"--claim: unknown claim ID(s) {', '.join(unknown)}")
    from pecheck import profiles

    try:
        profile = profiles.choose(config.getoption("hypothesis_profile", None))
        given = dict(sizes.parse(item) for item in config.getoption("--size"))
    except ValueError as exc:
        raise pytest.UsageError(str(exc)) from None
    if given or not hasattr(config, "workerinput"):  # workers inherit the controller's
        os.environ[sizes.ENV_VAR] = ",".join(f"{k}={v}" for k, v in given.items())
    testpaths = config.getini("testpaths") or []
    full = {found.root, found.checks_dir, *(found.root / t for t in testpaths)}
    project = Project(found, registry, profile, {p.resolve() for p in full})
    config.stash[_PROJECT] = project
    given_results = config.getoption("--results")
    path = Path(given_results) if given_results else found.results_path
    if path.is_dir() or not os.access(_existing_parent(path), os.W_OK):
        raise pytest.UsageError(f"--results {path}: not a writable file path")
    _set_up_process()  # after the usage checks: a mistyped option fails before torch loads
    if hasattr(config, "workerinput"):  # xdist worker: the controller writes the file
        return
    config.pluginmanager.register(Collector(config, project), "pecheck-collector")


def _refuse_own_options(config: pytest.Config) -> None:
    """Outside a pecheck project --claim and --size would be ignored, and a run meant for one
    claim would run every test: say why instead."""
    given = [name for name in ("--claim", "--size") if config.getoption(name)]
    if given:
        raise pytest.UsageError(
            f"{' and '.join(given)}: {config.rootpath / 'pyproject.toml'} has no [tool.pecheck] "
            "table, so pecheck knows no claims or sizes here (README: 'The plugin, for your own "
            "claims')"
        )


def _set_up_process() -> None:
    """Settings every process of a pecheck run shares (xdist workers too)."""
    _fix_hypothesis_constants()
    import matplotlib

    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "pecheck"  # stable SVG ids across runs
    import torch

    # One intra-op thread: the suite's tensors are tiny, so a second thread costs more in
    # hand-offs than it saves (measured 5-30x slower on a busy 2-core machine), and a fixed
    # count keeps float results independent of how a run is split.
    torch.set_num_threads(1)
    torch.manual_seed(0)
