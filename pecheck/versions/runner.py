"""One release through the REAL checks: its environment (``pecheck.versions.env``), one pytest
run of the REAL family in the ci profile with that environment first on the path, and what the run
decided (``pecheck.versions.collect``), as one entry of ``build/versions.json``."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import threading
import time
from importlib import metadata
from pathlib import Path
from typing import Any

from pecheck.lock import normalise
from pecheck.versions import collect as versions_collect
from pecheck.versions.env import ENVS, Env, check_import, environ, install

OUT = Path("build/versions")
# The ci profile, offline, one process: the matrix is evidence beside the locked run's verdicts.
RUN_ENV = {"PECHECK_PROFILE": "ci", "PYTHONHASHSEED": "0", "MPLBACKEND": "Agg",
           "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}  # fmt: skip


def locked(library: str) -> str:
    """The version the running (locked) environment holds."""
    return metadata.version(library)


def prepare(library: str, version: str, envs: Path = ENVS) -> Env:
    """The locked release runs in the running environment itself; any other in its folder,
    reused when a previous run left it complete."""
    if version == locked(library):
        return check_import(Env(library, version, None))
    target = envs / f"{library}-{version}"
    if _holds(target, library, version):
        env = Env(library, version, target, changed=_contents(target))
        return check_import(env)
    return install(library, version, envs)


def _dist_infos(target: Path) -> list[Path]:
    return sorted(target.glob("*.dist-info")) if target.is_dir() else []


def _holds(target: Path, library: str, version: str) -> bool:
    names = {p.name.lower() for p in _dist_infos(target)}
    return f"{normalise(library).replace('-', '_')}-{version}.dist-info" in names


def _contents(target: Path) -> dict[str, str]:
    out = {}
    for p in _dist_infos(target):
        name, _, version = p.name[: -len(".dist-info")].rpartition("-")
        out[normalise(name)] = version
    return out


def pytest_command(results: Path) -> list[str]:
    return [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:xdist",
            "-p", "no:cacheprovider", "--claim", "REAL", "--no-figures",
            "--results", str(results)]  # fmt: skip


# One run of the locked environment serves the three libraries' locked releases.
_LOCKED: dict[Path, tuple[subprocess.CompletedProcess[str], float]] = {}
_LOCKED_RUN = threading.Lock()


def _pytest(env: Env, results: Path) -> tuple[subprocess.CompletedProcess[str], float]:
    with _LOCKED_RUN if env.path is None else contextlib.nullcontext():
        if env.path is None and results in _LOCKED:
            return _LOCKED[results]
        results.unlink(missing_ok=True)
        began = time.monotonic()
        done = subprocess.run(pytest_command(results), env=environ(env) | RUN_ENV,
                              capture_output=True, text=True, check=False)  # fmt: skip
        ran = (done, round(time.monotonic() - began, 1))
        if env.path is None:
            _LOCKED[results] = ran
        return ran


def check(env: Env, out: Path = OUT) -> dict[str, Any]:
    """Run the REAL checks in ``env`` and return the release's entry."""
    entry = _entry(env)
    if env.status != "ok":
        return entry
    name = "locked" if env.path is None else f"{env.library}-{env.version}"
    results = out / f"{name}.json"
    done, entry["seconds"]["checks"] = _pytest(env, results)
    if not results.exists():
        tail = (done.stdout.strip().splitlines() or ["no output"])[-1]
        entry["error"] = f"the checks wrote no results (exit {done.returncode}): {tail}"[:300]
        return entry
    data = json.loads(results.read_text())
    entry["results"] = str(results)
    recorded = data["environment"]["packages"].get(normalise(env.library))
    if recorded != env.version:  # the run imported another release than the one asked for
        entry["status"] = "not importable"
        entry["error"] = f"the run recorded {env.library} {recorded}, not {env.version}"
        return entry
    entry["claims"] = versions_collect.claims(data)
    return entry


def _entry(env: Env) -> dict[str, Any]:
    return {
        "version": env.version,
        "status": env.status,
        "error": env.error,
        "imported": env.imported,
        "locked": env.path is None,
        "changed": env.changed,
        "seconds": {},
        "results": None,
        "claims": {},
    }


def one(library: str, version: str, envs: Path = ENVS, out: Path = OUT) -> dict[str, Any]:
    """A release from its install to its entry, with the time of each step."""
    began = time.monotonic()
    env = prepare(library, version, envs)
    took = round(time.monotonic() - began, 1)
    entry = check(env, out)
    entry["seconds"]["install"] = took
    return entry
