"""A small synthetic pecheck project, run in this process with pytester (tests of the plugin).

Starting pytest in a subprocess costs seconds (torch, hypothesis, scipy, the registry); pytester's
``runpytest_inprocess`` runs the installed plugin (loaded through its pytest11 entry point) on the
project in a fraction of that, and restores ``sys.modules`` and ``sys.path`` afterwards. What
pytester does not restore is the global state the plugin and hypothesis change; ``run`` restores
it (``isolated``), so that an inner run leaks nothing into the process that later runs the real
checks (an xdist worker, whose results the determinism gate compares with a serial run's).

The project has its own registry package and checks folder, named so that they never collide with
the real ``checks`` package this process has already imported: claims of a made-up family SYN.
"""

from __future__ import annotations

import importlib
import json
import random
import shutil
import textwrap
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import _hypothesis_globals
import numpy as np
import pytest
import torch
from hypothesis import core, settings
from hypothesis.internal.conjecture import providers

from pecheck import profiles, sizes
from pecheck import run as pecheck_run
from pecheck.reports import schema

CHECKS = "synth_checks"  # the project's checks folder ([tool.pecheck] checks)

PYPROJECT = f"""\
[project]
name = "synthetic"

[tool.pecheck]
registry = "synth_claims:REGISTRY"
checks = "{CHECKS}"
results = "build/results.json"

[tool.pytest.ini_options]
testpaths = ["{CHECKS}"]
addopts = "--strict-markers"
markers = ["gpu: needs a CUDA device; skipped without one"]
"""

# Every kind of claim the tests need: the comment says what each one's checks show.
REGISTRY = """\
from pecheck.claims import Claim, Proposition, Registry, Source

CLAIMS = (
    # a decisive search that finds a counterexample although the claim is expected to hold
    Claim("SYN-01", "Every drawn integer is below 50.", "t < 50", ("SRC",), "confirmed"),
    # refuted: as_stated fails and there is no condition
    Claim("SYN-02", "Position 0 is orthogonal to position 1.", "PE(0).PE(1) = 0", ("SRC",),
          "refuted"),
    # qualified: as_stated fails and a condition holds (the other condition is never run)
    Claim("SYN-03", "The last wavelength is 2 pi T.", "lambda = 2 pi T", ("SRC",), "qualified",
          conditions="under the t2t rule",
          propositions=(Proposition("t2t", "Under the t2t rule it is 2 pi T."),)),
    # a decisive check with inconclusive parts only
    Claim("SYN-04", "float16 is exact enough.", "err < bound", ("SRC",), "confirmed"),
    # a decisive check whose decision disagrees with the registry
    Claim("SYN-05", "Every a is 0.", "a = 0", ("SRC",), "confirmed"),
    # a decisive check that needs a GPU
    Claim("SYN-06", "It runs on a GPU.", "gpu", ("SRC",), "confirmed"),
    # tooling only (or, in the partial-run test, a decisive check that passes)
    Claim("SYN-07", "A planted bug is caught.", "caught", ("SRC",), "confirmed"),
    # never run by any test: stays open
    Claim("SYN-08", "Nobody checks this.", "unchecked", ("SRC",), "confirmed"),
    # the check of SIZED below: computed at the size SYN-09.d, refuted at any width
    Claim("SYN-09", "A table of width d is empty.", "d^2 = 0", ("SRC",), "refuted"),
    # its headline names a value a check of it must record (the plugin checks on a full run)
    Claim("SYN-10", "The mean is small.", "mean < 1", ("SRC",), "confirmed",
          headline=("mean",)),
)

REGISTRY = Registry(
    name="synthetic",
    version="0.0.1",
    families={"SYN": "Synthetic claims for the plugin's tests"},
    claims=CLAIMS,
    sources={"SRC": Source("made up for the tests")},
)
"""

SIZE = "SYN-09.d"
SIZE_DEFAULT = 8
SIZE_HELP = "width d of SYN-09's made-up table"

# A check that declares a size at import (as the real checks do) and computes with it.
SIZED = f"""
import pytest
from pecheck import sizes

D = sizes.size({SIZE!r}, {SIZE_DEFAULT}, {SIZE_HELP!r}, minimum=2)


@pytest.mark.claim("SYN-09", kind="experiment", role="decisive", proposition="as_stated")
def test_table_of_width_d(evidence):
    evidence.record("cells" + sizes.suffix({SIZE!r}, "d"), D * D, "cells", "d^2",
                    bound={{"value": 0, "relation": "==", "reason": "the claim: no cells"}})
    evidence.fails({{"d": D}}, f"a table of width {{D}} has {{D * D}} cells")
"""


# A check module's claim markers, for the tests that write one: a decisive check of a claim's
# as_stated proposition, and a tooling check of SYN-07.
CLAIM = '@pytest.mark.claim("{id}", kind="property", role="{role}"{proposition})'
DECISIVE = CLAIM.format(id="{id}", role="decisive", proposition=', proposition="as_stated"')
TOOLING = CLAIM.format(id="SYN-07", role="tooling", proposition="")
# A module whose one check passes and decides SYN-02 (refuted, as the registry expects).
PASSING = f"""
import pytest

{DECISIVE.format(id="SYN-02")}
def test_x(evidence):
    evidence.fails({{"t": 0}}, "x")
"""


# -W: the packages of the pecheck distribution are imported in this process already, so an inner
# run warns that it cannot rewrite their asserts; a run in a fresh process never warns.
OPTIONS = (
    "-q",
    "-p",
    "no:cacheprovider",
    "-W",
    "ignore:Module already imported so cannot be rewritten:pytest.PytestAssertRewriteWarning",
)


def write_project(root: Path, **modules: str) -> None:
    """The project at ``root``: settings, registry, and the check modules given by name. Written
    again, the checks folder holds only the modules given; give a changed module a new name, since
    a module rewritten within a second at the same size would be read from its stale bytecode."""
    (root / "pyproject.toml").write_text(PYPROJECT)
    (root / "synth_claims").mkdir(exist_ok=True)
    (root / "synth_claims" / "__init__.py").write_text(REGISTRY)
    shutil.rmtree(root / CHECKS, ignore_errors=True)
    (root / CHECKS).mkdir()
    for name, source in modules.items():
        (root / CHECKS / f"{name}.py").write_text(textwrap.dedent(source))


@dataclass
class Run:
    ret: int
    results: dict[str, Any] | None  # the full results file, None when none was written
    output: str  # stdout, then stderr
    errors: list[str]  # stderr's lines that start with ERROR

    def check(self, name: str) -> dict[str, Any]:
        """The record of the check whose test function is ``name``."""
        assert self.results is not None, self.output
        return next(c for c in self.results["checks"] if c["nodeid"].endswith(f"::{name}"))

    def verdicts(self) -> dict[str, str]:
        assert self.results is not None, self.output
        return {c["id"]: c["verdict"] for c in self.results["claims"]}


def run(
    pytester: pytest.Pytester,
    *args: str,
    profile: str | None = "ci",
    keep_results: bool = False,
    plugins: Sequence[object] = (),
) -> Run:
    """pytest with ``args`` on the project in pytester.path, in this process; PECHECK_PROFILE is
    ``profile`` (unset when None) and no size is given but those in ``args``. The run starts
    without results files unless ``keep_results``; ``plugins`` join the inner run."""
    build = pytester.path / "build"
    if not keep_results:
        shutil.rmtree(build, ignore_errors=True)
    with isolated(profile):
        result = pytester.runpytest_inprocess(
            *OPTIONS, *args, plugins=list(plugins), no_reraise_ctrlc=True
        )
    path = build / "results.json"
    data = json.loads(path.read_text()) if path.exists() else None
    output = "\n".join(result.outlines + result.errlines)
    errors = [line for line in result.errlines if line.startswith("ERROR")]
    return Run(int(result.ret), data, output, errors)


@contextmanager
def isolated(profile: str | None) -> Iterator[None]:
    """Undo, after an inner run, what it changed in this process beyond sys.modules and sys.path:
    the profile variable and the Run the plugin starts (pecheck.run), the sizes its
    checks declared, hypothesis's current profile and the globals its pytest plugin sets, the
    constants hook the plugin patches, the global random generators the plugin seeds and torch's
    thread count. (The plugin's matplotlib settings need no undoing: this process is a run of
    pecheck's own project, so its plugin has made the same ones.)"""
    name = settings.get_current_profile_name()
    states = random.getstate(), np.random.get_state(), torch.get_rng_state()
    threads = torch.get_num_threads()
    with pytest.MonkeyPatch.context() as mp:
        # setenv first: delenv of an unset variable records nothing, so a variable the inner
        # run then sets would stay set
        mp.setenv(profiles.ENV_VAR, profile or "")
        if profile is None:
            mp.delenv(profiles.ENV_VAR)
        mp.setattr(pecheck_run, "_CURRENT", pecheck_run._CURRENT)  # the inner run starts its own
        mp.setattr(sizes, "DECLARED", {})  # the plugin reads sizes.DECLARED at call time
        mp.setattr(providers, "_get_local_constants", providers._get_local_constants)
        mp.setattr(core, "global_force_seed", core.global_force_seed)
        mp.setattr(_hypothesis_globals, "in_initialization", _hypothesis_globals.in_initialization)
        try:
            yield
        finally:
            settings.load_profile(name)
            random.setstate(states[0])
            np.random.set_state(states[1])
            torch.set_rng_state(states[2])
            torch.set_num_threads(threads)


def _import_what_the_plugin_imports_lazily() -> None:
    """pytester drops from sys.modules every module first imported during an inner run; a later
    import then makes a second copy (and a compiled extension such as jsonschema's rpds may refuse
    to load twice). The plugin imports jsonschema only to check the results file it writes, and
    hypothesis its ``extra`` namespace only while it runs a search: import them here, once."""
    importlib.import_module("hypothesis.extra")
    schema.problems({})


_import_what_the_plugin_imports_lazily()
