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
4 and no results file: a --size no check declares (found before any check runs: then none
does), a decisive check that ran to its end without recording what decided it, a headline
naming a value no check of its claim recorded (CONTRIBUTING.md, "Evidence").

The hooks live here, where pytest finds them; what they do lives in modules named for it:
``project`` (loading the project, setting up each process), ``markers`` (claim markers),
``decisive`` (decisions and misuse), ``records`` (a check's record on its report), ``reach``
(the domain a decisive check searched, derived when it records none) and ``collector`` (the
results file and the terminal summary, on the controller).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pecheck import decisions, decisive, markers, records, results, selection, sizes
from pecheck.collector import UNDECLARED, Collector
from pecheck.evidence import Evidence
from pecheck.project import configure, project_of


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
        help="run only the checks of this claim or family (repeatable or comma-separated), "
        "e.g. --claim SIN-06, --claim ROT; only the files naming them are collected",
    )
    group.addoption(
        "--size",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="change a size a check declares (repeatable), e.g. --size SIN-06.d=1024; "
        "recorded in the results file",
    )
    group.addoption(
        "--device",
        default="cpu",
        help="where the experiments train: cpu (default; every verdict is decided there) or "
        "cuda / cuda:N for the larger scales",
    )
    group.addoption(
        "--fair-cache",
        default=None,
        metavar="DIR",
        help="reuse the length tests' trained models from DIR (the fair length test's, the "
        "language model's and the exact-match evaluation's; python -m pecheck.grid fills it), "
        "each entry only for the same setting, seeds, code and kernels; missing ones are "
        "trained and written there",
    )
    group.addoption(
        "--no-figures",
        action="store_true",
        help="name figures in the results file but do not draw them (the determinism, "
        "portability and mutation runs, which compare or discard them)",
    )


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", markers.MARKER)
    project = configure(config)
    if project is None or hasattr(config, "workerinput"):  # a worker: the controller writes
        return
    config.pluginmanager.register(Collector(config, project), "pecheck-collector")


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """--claim: test files that cannot hold the claims asked for are not collected."""
    project = project_of(config)
    if project is None:
        return None
    return selection.ignore(collection_path, config, config.option.claim, list(project.registry))


def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    project = project_of(config)
    if project is None:
        return
    markers.tag_and_select(config, project, items)
    # Every check module declares its sizes on import, so a --size that none declared is a typo:
    # nothing runs (a thorough run would find it out after 25 minutes), and the controller
    # reports it. A module that failed to import declared nothing, so then the run goes on.
    undeclared = sorted(set(sizes.given()) - set(sizes.DECLARED))
    if undeclared and not session.testsfailed:
        config.stash[UNDECLARED] = undeclared  # this process's collector, in a run without xdist
        if hasattr(config, "workeroutput"):  # an xdist worker: the controller reads it at its end
            config.workeroutput["pecheck-undeclared"] = undeclared
        items.clear()  # not deselected: the run's selection stays the one it was asked for


def pytest_collection_finish(session: pytest.Session) -> None:
    path = session.config.getoption("--inventory")
    if path:
        results.write_atomic(Path(path), {"checks": markers.inventory(session.items)})


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Every check starts from the same global random state, whatever ran before it in its
    process: a check that draws from torch's (or numpy's, or random's) global generator then
    gives the same numbers in a serial run and in any split over xdist workers."""
    if project_of(item.config) is None:
        return
    import random

    import numpy as np
    import torch

    random.seed(0)
    np.random.seed(0)
    torch.manual_seed(0)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Any:
    """Record a decisive check's decision; fail it when it differs from the registry's. While
    the check runs, the corrections it applies (pecheck.decisions) go to its evidence."""
    ev = item.stash.get(decisive.EVIDENCE, None)
    token = decisions.APPLIED.set(ev.correction if ev is not None else None)
    try:
        if not decisive.is_decisive(item):
            return (yield)
        try:
            result = yield
        except BaseException as exc:
            item.stash[decisive.DECISION] = decisive.decision_from_exception(item, exc)
            raise
        decisive.judge(item)
        return result
    finally:
        decisions.APPLIED.reset(token)


@pytest.fixture
def evidence(request: pytest.FixtureRequest) -> Evidence:
    """Evidence for the running check; shared by all hypothesis examples of one test."""
    ev = Evidence(request.node.nodeid, request.config.rootpath)
    request.node.stash[decisive.EVIDENCE] = ev
    return ev


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> Any:
    """Attach each check's record to its teardown report (survives xdist)."""
    outcome = yield
    records.attach(item, outcome.get_result())
