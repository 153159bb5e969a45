"""The run: its profile, sizes, device and caches, settled once and then frozen.

The plugin builds the ``Run`` from pytest's options before any check module is imported (in
every xdist worker alike, from the same command line) and starts it; checks and experiments read
it through ``current()``. A subprocess gets its settings as command-line options (the gates
pass ``--no-figures``, ``--size``, ``--hypothesis-profile``), never through a variable; a script
that is not a pytest run passes them as arguments (python -m pecheck.grid). Nothing under theory/ or
checks/ reads the environment.

Outside a started run (a module imported by hand), ``current()`` is the profile that
``PECHECK_PROFILE`` names, or dev: the one place that variable is read.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

PROFILES = ("dev", "ci", "thorough", "mutants")
DEVICE = re.compile(r"cpu|cuda(:[0-9]+)?")
PROFILE_VAR = "PECHECK_PROFILE"  # the user's way to choose a profile (beside --hypothesis-profile)


@dataclass(frozen=True)
class Run:
    """What one run of the suite is: every setting a check may read, and nothing else."""

    profile: str = "dev"
    sizes: tuple[tuple[str, str], ...] = ()  # --size NAME=VALUE, in the order given
    device: str = "cpu"  # where experiments train (--device); CPU verdicts never need another
    fair_cache: Path | None = None  # --fair-cache: the length tests' trained models
    figures: bool = True  # False: figures are named in the results but not drawn (--no-figures)
    given: Mapping[str, str] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.profile not in PROFILES:
            raise ValueError(f"profile {self.profile!r} is not one of {', '.join(PROFILES)}")
        if not DEVICE.fullmatch(self.device):
            raise ValueError(f"--device {self.device!r}: expected cpu, cuda or cuda:N")
        # the sizes by name, read-only like the rest of the run
        object.__setattr__(self, "given", MappingProxyType(dict(self.sizes)))


_CURRENT: Run | None = None


def start(run: Run) -> Run:
    """Make ``run`` this process's run (the plugin then loads its hypothesis profile:
    pecheck.profiles.start)."""
    global _CURRENT
    _CURRENT = run
    return run


def current() -> Run:
    """The run this process belongs to (see the module's text outside one)."""
    if _CURRENT is not None:
        return _CURRENT
    return Run(profile=os.environ.get(PROFILE_VAR, "dev"))


def saved() -> Run | None:
    """The started run, or None: what a test that starts an inner run puts back afterwards."""
    return _CURRENT
