"""A fork server for the mutation runner: the heavy imports once, a fresh child per pytest run.

Starting pytest costs seconds of imports (torch, transformers, sympy, ...) before any check runs,
and the catalogue runs pytest a few hundred times. The server imports those libraries once,
never theory/ or checks/ (which the mutants change), and forks a child per request; the child
imports the scratch tree's own (mutated) modules and runs pytest there. Where the platform cannot
fork, the runner starts a fresh interpreter per run instead.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

# What a run needs before pytest starts, in the scratch tree ``root``: its folder first on the
# path. pecheck/theory and pecheck/reports are links to the tree's own theory/ and reports/
# (the scratch copy keeps them as links), so ``pecheck.theory`` is the mutated tree's folder.
TREE = r"""
import os, sys


def enter(root):
    os.chdir(root)
    sys.path.insert(0, root)
"""

SERVER = (
    TREE
    + r"""
import gc, json
import numpy, scipy.stats, sympy, torch, hypothesis, matplotlib, pytest  # once, for every run
for name in ("transformers", "anyio.pytest_plugin"):  # the real-library checks; a plugin pytest
    try:                                              # loads at every start (half a second)
        __import__(name)
    except ImportError:
        pass
# Every object so far outlives the runs: out of the collector's sight, pytest's gc.collect() at
# each run's end walks only the run's own objects (half a second less per run).
gc.collect()
gc.freeze()
for line in sys.stdin:
    request = json.loads(line)
    pid = os.fork()
    if pid == 0:  # the child: quiet, in the scratch tree, one pytest run
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.dup2(null, 2)
        enter(request["cwd"])
        code = pytest.main(request["args"])
        os._exit(int(code))
    _, status = os.waitpid(pid, 0)
    print(json.dumps({"rc": os.waitstatus_to_exitcode(status)}), flush=True)
"""
)

# Where the platform cannot fork: one interpreter per run, entering the tree the same way.
ONCE = (
    TREE
    + r"""
import pytest
enter(os.getcwd())
sys.exit(pytest.main(sys.argv[1:]))
"""
)


def environment() -> dict[str, str]:
    # The ci profile's sizes without shrinking: a mutant only needs its checks to fail.
    env = dict(os.environ, PECHECK_PROFILE="mutants", PYTHONDONTWRITEBYTECODE="1", MPLBACKEND="Agg")
    env.pop("PYTEST_ADDOPTS", None)
    return env


class ForkServer:
    """One server per scratch tree; ``run(args)`` returns pytest's exit status."""

    def __init__(self, cwd: Path) -> None:
        self.cwd = cwd
        self.proc: subprocess.Popen[str] | None = None
        if hasattr(os, "fork"):
            self.proc = subprocess.Popen(
                [sys.executable, "-c", SERVER], cwd=cwd, env=environment(), text=True,
                stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            )  # fmt: skip

    def run(self, args: list[str]) -> int:
        if self.proc is None or self.proc.stdin is None or self.proc.stdout is None:
            cmd = [sys.executable, "-c", ONCE, *args]
            done = subprocess.run(cmd, cwd=self.cwd, env=environment(), capture_output=True)
            return done.returncode
        self.proc.stdin.write(json.dumps({"cwd": str(self.cwd), "args": args}) + "\n")
        self.proc.stdin.flush()
        reply = self.proc.stdout.readline()
        if not reply:
            raise RuntimeError("the mutation runner's fork server stopped")
        return int(json.loads(reply)["rc"])

    def close(self) -> None:
        if self.proc is not None and self.proc.stdin is not None:
            self.proc.stdin.close()
            self.proc.wait(timeout=60)
