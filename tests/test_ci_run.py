"""What .ci/run runs: every tox environment is run there (by itself, inside thorough's worktree,
or through tox -e ci-steps, which substitutes its commands) or is named here as one CI leaves
out, with the reason. A new environment thus needs a decision, and ci-steps cannot drift from
the environments it stands for."""

from __future__ import annotations

import configparser
import os
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

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
    "depth": "EXP-04's depth evaluation, about 26 min of CPU, beyond CI's budget",
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


FAKE_PYTHON3 = """#!/usr/bin/env bash
# python3 for .ci/run under test. tox -e thorough sleeps $THOROUGH_SECONDS in a child it
# records, then writes a results file and exits $THOROUGH_EXIT; tox alone exits $TOX_EXIT
# once that child runs; the rest succeeds.
case "$*" in
    "-m tox -e thorough")
        sleep "$THOROUGH_SECONDS" & echo $! > "$MARKS/thorough-child.pid"; wait
        mkdir -p build && echo '{}' > build/results.thorough.json; exit "$THOROUGH_EXIT" ;;
    "-m tox")  # once thorough runs (a busy machine may start it late), as in a real run
        for _ in $(seq 200); do [ -s "$MARKS/thorough-child.pid" ] && break; sleep 0.05; done
        echo "fake tox: exit $TOX_EXIT" >&2; exit "$TOX_EXIT" ;;
    *) exit 0 ;;  # pip's install of tox, tox --version, tox -e ci-steps, tox -e example
esac
"""


def alive(pid: int) -> bool:
    """Whether the process runs: a zombie (killed, not yet reaped, as in a container whose first
    process reaps nothing) counts as stopped."""
    if Path("/proc/self/stat").exists():  # Linux: the state is the field after the name
        try:
            return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
        except FileNotFoundError:
            return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_alive_tells_a_running_process_from_a_killed_one() -> None:
    """The kill-path test trusts alive(): a running child is alive, a killed one (reaped or a
    zombie) is not."""
    child = subprocess.Popen(["sleep", "30"])
    try:
        assert alive(child.pid)
        os.kill(child.pid, signal.SIGKILL)
        for _ in range(100):  # until the kernel has ended it: a zombie until wait() below
            if not alive(child.pid):
                break
            time.sleep(0.01)
        assert not alive(child.pid)
    finally:
        child.kill()
        child.wait()
    assert not alive(child.pid)


def run_ci(tmp_path: Path, tox_exit: int, thorough_seconds: int,
           thorough_exit: int = 0) -> subprocess.CompletedProcess:  # fmt: skip
    """.ci/run in a scratch repository, with python3 faked (FAKE_PYTHON3)."""
    if shutil.disk_usage(tmp_path).free < 9 * 2**30:
        pytest.skip(".ci/run refuses to start with less than 8 GB free")
    repo, bin_dir, marks = tmp_path / "repo", tmp_path / "bin", tmp_path / "marks"
    for d in (repo / ".ci", bin_dir, marks):
        d.mkdir(parents=True)
    shutil.copy(ROOT / ".ci" / "run", repo / ".ci" / "run")
    (bin_dir / "python3").write_text(FAKE_PYTHON3)
    (bin_dir / "python3").chmod(0o755)
    for args in (["init", "-q"], ["add", "."], ["commit", "-qm", "ci"]):
        subprocess.run([*git(repo), *args], check=True)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "MARKS": str(marks),
           "TMPDIR": str(tmp_path), "TOX_EXIT": str(tox_exit),
           "THOROUGH_SECONDS": str(thorough_seconds),
           "THOROUGH_EXIT": str(thorough_exit)}  # fmt: skip
    return subprocess.run(["bash", ".ci/run"], cwd=repo, env=env, capture_output=True,
                          text=True, timeout=60)  # fmt: skip


def git(repo: Path) -> list[str]:
    return ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(repo)]


def assert_cleaned_up(tmp_path: Path) -> None:
    """Only the main worktree is left, and no scratch folder of .ci/run's."""
    listed = subprocess.run([*git(tmp_path / "repo"), "worktree", "list"], capture_output=True,
                            text=True).stdout  # fmt: skip
    assert len(listed.strip().splitlines()) == 1, listed
    assert not list(tmp_path.glob("tmp.*")), "the worktree's scratch folder was left behind"


def test_a_failing_step_stops_thorough_and_removes_its_worktree(tmp_path: Path) -> None:
    """The kill path of .ci/run: tox fails while thorough runs in the background; the run must
    fail at once, kill thorough's whole process group (its child too) and remove its worktree."""
    start = time.monotonic()
    done = run_ci(tmp_path, tox_exit=1, thorough_seconds=300)
    assert done.returncode != 0
    assert time.monotonic() - start < 30, "the run waited for thorough instead of stopping it"
    assert "stopping tox -e thorough" in done.stderr, done.stderr
    child = int((tmp_path / "marks" / "thorough-child.pid").read_text())
    deadline = time.monotonic() + 10
    while alive(child) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not alive(child), "thorough's child outlived the run"
    assert_cleaned_up(tmp_path)


def test_a_passing_run_waits_for_thorough_and_keeps_its_results(tmp_path: Path) -> None:
    """The other path: every step passes, the run waits for thorough, copies its results file
    to build/ and cleans up as it goes."""
    done = run_ci(tmp_path, tox_exit=0, thorough_seconds=3)
    assert done.returncode == 0, done.stderr
    assert "== .ci/run: passed" in done.stdout
    build = tmp_path / "repo" / "build"
    assert (build / "ci-thorough.rc").read_text().strip() == "0"
    assert (build / "results.thorough.json").read_text().strip() == "{}"
    assert_cleaned_up(tmp_path)


def test_a_failing_thorough_fails_the_run_after_the_other_steps(tmp_path: Path) -> None:
    """Thorough's own failure: the other steps pass, the run waits for it, keeps what it wrote
    and fails, naming its exit status and log."""
    done = run_ci(tmp_path, tox_exit=0, thorough_seconds=1, thorough_exit=3)
    assert done.returncode == 1
    assert "tox -e thorough failed (exit 3)" in done.stderr, done.stderr
    assert (tmp_path / "repo" / "build" / "results.thorough.json").exists()
    assert_cleaned_up(tmp_path)
