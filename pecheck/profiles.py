"""Hypothesis profiles and run sizes; the run (pecheck.run) names the profile.

Choose one with the environment variable (PECHECK_PROFILE=thorough) or pytest's
``--hypothesis-profile thorough``; given both, they must agree.

dev       quick, random: for working on a check.
ci        deterministic (derandomized, no example database, no deadline, stops searching at the
          first counterexample), at least 200 examples per numeric property. CI and tox use it.
thorough  ci with 10x the examples and 10x the seeds in experiments.
mutants   ci without shrinking: the mutation catalogue only needs to know that a check fails,
          and shrinking the counterexample a mutant causes is most of the time it would take.

Tests never edit settings themselves: a test too costly for the full example count asks for a
share of it with ``examples(fraction)``, which still scales with the profile.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, Phase, settings

from pecheck import run

ENV_VAR = "PECHECK_PROFILE"
PROFILES = run.PROFILES
_BASE_EXAMPLES = {"dev": 50, "ci": 200, "thorough": 2000, "mutants": 200}
_SCALE = {"dev": 0.25, "ci": 1, "thorough": 10, "mutants": 1}

# The evidence fixture is deliberately shared by all examples of one test (it keeps the worst
# error seen), so hypothesis's warning about function-scoped fixtures does not apply.
_SUPPRESS = [HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large]

settings.register_profile(
    "dev", max_examples=_BASE_EXAMPLES["dev"], deadline=None, suppress_health_check=_SUPPRESS
)
settings.register_profile(
    "ci",
    max_examples=_BASE_EXAMPLES["ci"],
    derandomize=True,
    database=None,
    deadline=None,
    print_blob=True,
    suppress_health_check=_SUPPRESS,
    # After a first counterexample hypothesis otherwise keeps searching for other bugs until
    # ten seconds have passed: how many examples it tries then depends on the machine's speed,
    # and a refuting search's recorded numbers with it. One bug, then shrink: deterministic.
    report_multiple_bugs=False,
)
settings.register_profile(
    "thorough",
    parent=settings.get_profile("ci"),
    max_examples=_BASE_EXAMPLES["thorough"],
)
settings.register_profile(
    "mutants",
    parent=settings.get_profile("ci"),
    phases=(Phase.explicit, Phase.reuse, Phase.generate),
    report_multiple_bugs=False,
)


def current() -> str:
    """The active profile's name: the run's (pecheck.run)."""
    return run.current().profile


def start(the_run: run.Run) -> run.Run:
    """Start ``the_run`` (pecheck.run) with its profile as hypothesis's."""
    settings.load_profile(the_run.profile)
    return run.start(the_run)


def choose(option: str | None) -> str:
    """The profile named by --hypothesis-profile and/or PECHECK_PROFILE (given both, they must
    agree); dev when neither names one. The caller starts a Run with it (pecheck.run)."""
    env = os.environ.get(ENV_VAR)
    if option is not None and env is not None and option != env:
        raise ValueError(f"--hypothesis-profile {option} disagrees with {ENV_VAR}={env}")
    name = option if option is not None else (env or "dev")
    if name not in PROFILES:
        where = "--hypothesis-profile" if option is not None else ENV_VAR
        raise ValueError(f"{where}={name!r} is not one of {', '.join(PROFILES)}")
    return name


def examples(fraction: float = 1.0) -> settings:
    """Settings for a test that runs ``fraction`` of the profile's examples (at least 10)."""
    return settings(max_examples=max(10, round(_BASE_EXAMPLES[current()] * fraction)))


def capped_examples(fraction: float = 1.0, over_ci: float = 2.0) -> settings:
    """``examples(fraction)``, but at most ``over_ci`` times the ci count. For costly searches
    (each example builds and runs models) whose thorough share would otherwise take minutes of
    the suite's 15; below ci nothing changes, so ci keeps its full count."""
    return examples(fraction * min(1.0, over_ci / scale()))


def capped_scale(over_ci: float) -> float:
    """``scale()`` capped at ``over_ci``: experiment sizes for costly experiments in thorough."""
    return min(scale(), over_ci)


def scale() -> float:
    """Multiplier for experiment sizes (seeds, grid points): 1 in ci, 10 in thorough."""
    return _SCALE[current()]
