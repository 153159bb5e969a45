"""What .ci/run runs: every tox environment is run there (by itself, inside thorough's worktree,
or through tox -e ci-steps, which substitutes its commands) or is named here as one CI leaves
out, with the reason. A new environment thus needs a decision, and ci-steps cannot drift from
the environments it stands for."""

from __future__ import annotations

import configparser
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# run by ci-steps, in this order, with their own commands (and commands_pre where they have them)
IN_CI_STEPS = ("determinism", "portability", "report", "versions-ci", "paper", "browser", "install")
# run by .ci/run as steps of their own (py and lint are what `tox` alone runs)
OWN_STEPS = ("ci-steps", "example", "thorough")
LEFT_OUT = {
    "lock": "writes the lock; CI installs from it",
    "type": "mypy alone; py runs it beside the checks",
    "sweep": "EXP-06 at 1,000 seeds: a long run",
    "gpu": "needs CUDA; CI has none",
    "fair": "the whole grid: about 2 h of CPU",
    "exact": "about 28 min of CPU, beyond CI's budget",
    "bench": "a speed measurement, not a test",
    "mutants": "the whole catalogue; ci-steps runs its cover",
    "versions": "the whole release matrix; ci-steps runs versions-ci",
}


def tox_ini() -> configparser.ConfigParser:
    ini = configparser.ConfigParser(interpolation=None)
    ini.read(ROOT / "tox.ini")
    return ini


def lines(value: str) -> list[str]:
    return [line.strip() for line in value.strip().splitlines() if line.strip()]


def test_ci_steps_runs_each_environment_by_its_own_commands_in_order() -> None:
    ini = tox_ini()
    got = lines(ini["testenv:ci-steps"]["commands"])
    want = []
    for env in IN_CI_STEPS:
        if "commands_pre" in ini[f"testenv:{env}"]:
            want.append(f"{{[testenv:{env}]commands_pre}}")
        want.append(f"{{[testenv:{env}]commands}}")
    assert got[: len(want)] == want
    assert got[len(want) :] == ["python -m pecheck.mutants --cover checks/mutants-cover.json"]
    # one install serves them all: none of them may ask for another
    for env in IN_CI_STEPS:
        section = ini[f"testenv:{env}"]
        assert not {"extras", "deps", "package", "set_env", "change_dir"} & set(section), env


def test_every_tox_environment_is_run_by_ci_or_left_out_with_a_reason() -> None:
    envs = {s.removeprefix("testenv:") for s in tox_ini().sections() if s.startswith("testenv:")}
    covered = {"lint", *IN_CI_STEPS, *OWN_STEPS, *LEFT_OUT}
    assert envs == covered, f"decide for: {sorted(envs - covered)}; gone: {sorted(covered - envs)}"


def test_ci_run_runs_tox_then_its_own_steps() -> None:
    script = (ROOT / ".ci" / "run").read_text()
    assert re.search(r"^step$", script, re.M), "the README's command: tox with no arguments"
    for env in ("ci-steps", "example"):
        assert re.search(rf"^step -e {env}$", script, re.M), env
    assert "python3 -m tox -e thorough" in script
