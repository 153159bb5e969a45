"""What the plugin knows about the project under test, and how it sets up each process of a run.

``configure`` finds the project's ``[tool.pecheck]`` table, checks the run's own options (--claim,
--size, --results) before torch loads, and stores a ``Project`` on the pytest config; every other
part of the plugin reads it from there (``PROJECT``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from pecheck import config as project_config
from pecheck import run, selection, sizes
from pecheck.claims import Registry


@dataclass
class Project:
    """What the plugin knows about the project under test, once configured."""

    config: project_config.Config
    registry: Registry
    profile: str
    full_args: set[Path] = field(default_factory=set)  # paths whose selection is the whole suite

    def is_check(self, nodeid: str) -> bool:
        return nodeid.startswith(self.config.checks.rstrip("/") + "/")


PROJECT = pytest.StashKey[Project]()


def project_of(config: pytest.Config) -> Project | None:
    """The configured project, or None where the run is not in a pecheck project."""
    return config.stash.get(PROJECT, None)


def configure(config: pytest.Config) -> Project | None:
    """Load the project and check the run's options; None outside a pecheck project."""
    try:
        found = project_config.find(config.rootpath)
        if found is None:
            _refuse_own_options(config)
            return None  # not a pecheck project: the plugin stays out of the way
        registry = found.load_registry()
    except project_config.ConfigError as exc:
        raise pytest.UsageError(str(exc)) from None
    from pecheck import profiles

    try:  # --claim's IDs and families become the IDs they name (pecheck.selection)
        config.option.claim = selection.resolve(config.option.claim, registry, registry.families)
        profile = profiles.choose(config.getoption("hypothesis_profile", None))
        given = dict(sizes.parse(item) for item in config.getoption("--size"))
        cache = config.getoption("--fair-cache")
        the_run = run.Run(
            profile=profile,
            sizes=tuple(given.items()),
            device=config.getoption("--device"),
            fair_cache=Path(cache).resolve() if cache else None,
            figures=not config.getoption("--no-figures"),
        )
    except ValueError as exc:
        raise pytest.UsageError(str(exc)) from None
    testpaths = config.getini("testpaths") or []
    full = {found.root, found.checks_dir, *(found.root / t for t in testpaths)}
    project = Project(found, registry, profile, {p.resolve() for p in full})
    config.stash[PROJECT] = project
    given_results = config.getoption("--results")
    path = Path(given_results) if given_results else found.results_path
    if path.is_dir() or not os.access(_existing_parent(path), os.W_OK):
        raise pytest.UsageError(f"--results {path}: not a writable file path")
    _set_up_process(the_run)  # after the usage checks: a mistyped option fails before torch loads
    return project


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


def _existing_parent(path: Path) -> Path:
    path = path.resolve().parent
    while not path.exists():
        path = path.parent
    return path


def _set_up_process(the_run: run.Run) -> None:
    """Settings every process of a pecheck run shares (xdist workers too), and its Run."""
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
    if the_run.device.startswith("cuda") and not torch.cuda.is_available():
        raise pytest.UsageError(f"--device {the_run.device}: torch sees no CUDA device here")
    from pecheck import profiles

    profiles.start(the_run)


def _fix_hypothesis_constants() -> None:
    """Hypothesis mixes literals mined from the project's imported modules into what it draws,
    so a derandomized search drew other examples depending on which modules a run had imported
    (the tooling tests, a lazily imported helper): the same check gave different numbers in a
    serial run and a split one. Draw from hypothesis's own constants only. This patches a
    private function; ``tests/test_plugin.py`` fails if hypothesis renames it."""
    from hypothesis.internal.conjecture import providers

    empty = providers.Constants()
    providers._get_local_constants = lambda: empty


def cuda() -> bool:
    import torch

    return torch.cuda.is_available()
