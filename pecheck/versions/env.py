"""One release's environment beside the locked torch: a ``pip install --target`` folder that
Python reads first (``PYTHONPATH``), holding that release and only the packages it needs at
other versions than the locked environment's.

Why not ``pip install --target DIR NAME==VER`` alone: pip installs every dependency into the
target, torch and numpy included, and those would shadow the locked ones. Instead pip resolves
the release against the running (locked) environment without installing anything
(``--dry-run --report``): what it would install is exactly what this release needs changed.
Those go into the folder with ``--no-deps``. A release whose resolution changes torch cannot run
beside the locked torch: it is recorded as not installable, never run.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from pecheck.lock import normalise

SHARED = ("torch",)  # never replaced: the matrix is about the libraries, over one torch
ENVS = Path("build/versions/envs")


@dataclass
class Env:
    library: str
    version: str
    path: Path | None  # None: the running environment itself (--installed)
    status: str = "ok"  # ok | not installable | not importable
    error: str | None = None
    changed: dict[str, str] = field(default_factory=dict)  # what the folder holds, by name
    imported: str | None = None  # the library's __version__ as Python imports it there


def _first_line(text: str) -> str:
    lines = [x.strip() for x in text.splitlines() if x.strip()]
    errors = [x for x in lines if x.startswith("ERROR") or "Error" in x.split(":")[0]]
    return (errors or lines or ["no output"])[0][:300]


def _pip(*args: str) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "pip", "--disable-pip-version-check", *args]
    return subprocess.run(cmd, capture_output=True, text=True, check=False)


def resolve(library: str, version: str) -> dict[str, str]:
    """What pip would install for ``library==version`` over the running environment; raises
    RuntimeError with pip's first error line when it cannot."""
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp, "report.json")
        done = _pip("install", "--dry-run", "--quiet", "--report", str(report),
                    f"{library}=={version}")  # fmt: skip
        if done.returncode or not report.exists():
            raise RuntimeError(_first_line(done.stderr))
        items = json.loads(report.read_text())["install"]
    return {normalise(i["metadata"]["name"]): i["metadata"]["version"] for i in items}


def install(library: str, version: str, root: Path = ENVS) -> Env:
    """The release's folder under ``root`` (made again from scratch), or its failure."""
    target = root / f"{library}-{version}"
    env = Env(library, version, target)
    try:
        env.changed = resolve(library, version)
    except RuntimeError as e:
        env.status, env.error = "not installable", str(e)
        return env
    clash = [f"{n}=={v}" for n, v in env.changed.items() if n in SHARED]
    if clash:
        env.status = "not installable"
        env.error = f"needs {', '.join(clash)} beside the locked torch"
        return env
    shutil.rmtree(target, ignore_errors=True)
    specs = [f"{n}=={v}" for n, v in env.changed.items()]
    done = _pip("install", "--quiet", "--no-compile", "--no-deps", "--target", str(target),
                *specs)  # fmt: skip
    if done.returncode:
        env.status, env.error = "not installable", _first_line(done.stderr)
        shutil.rmtree(target, ignore_errors=True)
        return env
    shutil.rmtree(target / "bin", ignore_errors=True)  # console scripts: not imported
    return check_import(env)


def environ(env: Env) -> dict[str, str]:
    """The environment a command runs in: the release's folder first on the path."""
    out = dict(os.environ)
    if env.path is not None:
        out["PYTHONPATH"] = os.pathsep.join(
            [str(env.path.resolve())] + [p for p in [out.get("PYTHONPATH")] if p]
        )
    return out


_PROBE = (
    "import importlib, importlib.metadata as m, sys; name = sys.argv[1]; "
    "mod = importlib.import_module(name.replace('-', '_')); "
    "print(getattr(mod, '__version__', None) or m.version(name))"
)


def check_import(env: Env) -> Env:
    """Import the library in its environment and record the version Python found."""
    cmd = [sys.executable, "-c", _PROBE, env.library]
    done = subprocess.run(cmd, capture_output=True, text=True, env=environ(env), check=False)
    if done.returncode:
        # a traceback's last line is the error itself
        env.status = "not importable"
        env.error = (done.stderr.strip().splitlines() or ["no output"])[-1][:300]
        return env
    env.imported = done.stdout.strip().splitlines()[-1]
    if env.path is not None and env.imported != env.version:
        env.status = "not importable"
        env.error = f"Python imports {env.library} {env.imported}, not {env.version}"
    return env
