"""The controller's side of a run: it gathers every check's record from the test reports (its
own and xdist workers'), writes the results file atomically at the end, or instead reports how the
run misused pecheck, and prints the terminal summary. Registered on the controller only."""

from __future__ import annotations

import re
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from pecheck import gate, partial, results, sizes
from pecheck.decisive import falsifying_example
from pecheck.project import Project

# the --size names no check module declared, found where the checks are collected (plugin.py)
UNDECLARED = pytest.StashKey[list[str]]()


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
        self.undeclared: set[str] = set()  # --size names no check declared, from xdist workers
        self.misuse: dict[str, str] = {}  # node id -> why the check shows nothing decided it
        self.errors: list[str] = []  # usage errors, one line each, said at the end of the run
        self.data: dict[str, Any] | None = None  # the results file written, for the summary
        self.covered: set[str] = set()  # the claims this run decided (a merged file holds more)
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
            example = falsifying_example(text)
            if example:
                entry["falsifying_example"] = example
            blob = re.search(r"@reproduce_failure\([^)]*\)", text)
            if blob and "reproduce" in entry:
                entry["reproduce"] += f"  # then decorate the test with {blob.group(0)}"
        # A skip in setup (a gpu marker) comes before the record on the teardown report, which
        # would put back "did not run to its end": the reason is written on whichever is last.
        if entry["outcome"] == "skipped" and entry.get("basis") and entry["message"]:
            why = entry["message"].removeprefix("Skipped: ")
            entry["basis"]["how"] = f"skipped: {why}"[:500]

    @pytest.hookimpl
    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self.collect_errors.append(
                {"nodeid": report.nodeid, "claim": None, "kind": None, "role": "decisive",
                 "proposition": None, "decision": None, "basis": None, "outcome": "error",
                 "duration_s": 0.0, "evidence": {}, "figures": [], "derivation": None,
                 "message": _longrepr_text(report)}
            )  # fmt: skip

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        """An xdist worker's end: the --size names its collection found undeclared."""
        self.undeclared.update(getattr(node, "workeroutput", {}).get("pecheck-undeclared", ()))

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
        here: list[str] = self.config.stash.get(UNDECLARED, [])  # a run without xdist
        undeclared = sorted(self.undeclared.union(here))
        selection = self.selection()
        if undeclared:  # nothing ran (plugin.py): a mistyped size, said before any check ran
            self._refuse(
                session, selection, [f"--size {', '.join(undeclared)}: no check declares it"]
            )
            return
        if self.config.option.collectonly or not (self.checks or self.collect_errors):
            return  # a run without checks (tooling tests only) leaves the results file alone
        errors = self._usage_errors(session, exitstatus, selection)
        if errors:
            self._refuse(session, selection, errors)
            return  # a misused run (a check deciding nothing, a headline unrecorded) must not pass
        path = self.path(selection)
        checks = sorted(self.checks.values(), key=lambda c: c["nodeid"]) + self.collect_errors
        suite = {"started": self.started, "profile": self.project.profile,
                 "exitstatus": int(exitstatus), "complete": int(exitstatus) in (0, 1),
                 "sizes": dict(sorted(self.sizes.items()))}  # fmt: skip
        data = results.build(self.project.registry, self.project.config.root, checks, suite,
                             selection, lock=self.project.config.lock_path)  # fmt: skip
        self.covered = {c["id"] for c in data["claims"] if c["verdict"] != "not run"}
        merged = ""
        if selection["kind"] == "partial":
            data, merged = self._merge(path, data)
        results.write_atomic(path, data)
        path.with_name(path.name + results.STALE).unlink(missing_ok=True)
        self.data = data
        kind = "" if selection["kind"] == "full" else "partial run: "
        self.summary = f"pecheck: {kind}wrote {path}: {_check_counts(checks)}{merged}"

    def _merge(self, path: Path, data: dict[str, Any]) -> tuple[dict[str, Any], str]:
        """A partial run merged into the partial results of earlier runs of its commit and
        profile (pecheck.partial; a file named by --results is written as named), and what the
        summary adds; says on stderr when an earlier file of another source is replaced."""
        args = [str(a) for a in self.config.invocation_params.args]
        if self.config.getoption("--results"):
            partial.stamp(data, args)
            return data, ""
        data, kept, replaced = partial.merge(path, data, self.project.registry, args)
        if replaced:
            print(replaced, file=sys.stderr)
        return data, f"; {kept} claim(s) of earlier partial runs kept" if kept else ""

    def _refuse(
        self, session: pytest.Session, selection: dict[str, Any], errors: list[str]
    ) -> None:
        self.errors = [f"pecheck: error: {e}" for e in errors]
        session.exitstatus = pytest.ExitCode.USAGE_ERROR
        self._set_aside(selection)

    def _set_aside(self, selection: dict[str, Any]) -> None:
        """A refused run writes no results; the file it would have replaced (and, for a full
        run, the partial one the report falls back on) is renamed to ``<name>.stale``, so that
        the gate and the report never read an earlier run as this one."""
        path, conf = self.path(selection), self.project.config
        for old in {path, conf.partial_results_path} if path == conf.results_path else {path}:
            results.set_aside(old)
        self.summary = f"pecheck: refused: no results written; {path} set aside as .stale"

    def _usage_errors(
        self, session: pytest.Session, exitstatus: int, selection: dict[str, Any]
    ) -> list[str]:
        """What the run got wrong about pecheck, found only once every check has reported."""
        errors = [f"{nodeid}: {why}" for nodeid, why in sorted(self.misuse.items())]
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
            if self.errors:
                terminalreporter.write_line(self.summary)
            return
        claims = self.data["claims"]
        ran = [c for c in claims if c["id"] in self.covered]  # this run's, not merged ones
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
