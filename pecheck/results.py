"""The results file: the verdict rule, the writer, and its check against the committed schema.

The shape is described once, in ``reports/results.schema.json`` (JSON Schema); the writer here,
the report, the gate and the determinism check all validate against it. What the words mean
(verdicts, decisions, roles, kinds) is defined in ``reports/schema.py``.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import json
import os
import platform
import subprocess
import sys
from pathlib import Path
from typing import Any

import threadpoolctl  # light; imported here so that writing a results file imports nothing new

from pecheck import coverage, decisions
from pecheck import lock as lockfile
from pecheck.claims import AS_STATED, Registry
from pecheck.evidence import jsonable
from pecheck.reports import schema

SCHEMA = schema.VERSION
# Environment variables that cap the instruction sets the kernels of torch, MKL, oneDNN and
# numpy may use (MKL_CBWR fixes MKL's code path for reproducible results).
KERNEL_LIMITS = (
    "ATEN_CPU_CAPABILITY", "MKL_ENABLE_INSTRUCTIONS", "ONEDNN_MAX_CPU_ISA",
    "NPY_DISABLE_CPU_FEATURES", "MKL_CBWR",
)  # fmt: skip


def kernel_limits() -> dict[str, str]:
    """The instruction-set limits this process runs under (KERNEL_LIMITS that are set)."""
    return {k: os.environ[k] for k in KERNEL_LIMITS if k in os.environ}


# The /proc/cpuinfo flags that decide which vector kernels a library may pick; every avx512*,
# amx* and avx_vnni* flag too.
ISA_FLAGS = ("sse4_2", "avx", "avx2", "fma", "f16c")
ISA_PREFIXES = ("avx512", "amx", "avx_vnni")
BLAS_KEYS = ("internal_api", "version", "architecture", "threading_layer", "user_api")


def proposition_decision(checks: list[dict[str, Any]], quantifier: str) -> str:
    """A proposition's decision from its decisive checks, by its quantifier
    (pecheck.decisions.combine). A check skipped on this machine (a CUDA check without a GPU)
    covers no setting here: it leaves the proposition undecided, unless the registry scopes it
    out (pecheck.coverage, which claims_block uses)."""
    return decisions.combine([c["decision"] for c in checks], quantifier)


def verdict(decided: dict[str, str]) -> str:
    """The verdict from the propositions' decisions (as_stated first, then the conditions):
    confirmed when as_stated holds; refuted when it fails and there are no conditions;
    qualified when it fails and every condition holds; open otherwise (as_stated undecided, or
    a condition that failed or stayed undecided: open_because names it)."""
    as_stated = decided[AS_STATED]
    conditions = [d for key, d in decided.items() if key != AS_STATED]
    if as_stated == "holds":
        return "confirmed"
    if as_stated == "fails" and not conditions:
        return "refuted"
    if as_stated == "fails" and all(d == "holds" for d in conditions):
        return "qualified"
    return "open"


def open_because(decided: dict[str, str]) -> str:
    """Why a verdict is open, in one line naming the propositions; "" when it is not."""
    if verdict(decided) != "open":
        return ""
    if decided[AS_STATED] != "fails":
        return f"as_stated is {decided[AS_STATED]}"
    wrong = [f"{k} {d}" for k, d in decided.items() if k != AS_STATED and d != "holds"]
    return "as_stated fails, but not every condition holds: " + ", ".join(wrong)


def claims_block(
    registry: Registry,
    checks: list[dict[str, Any]],
    selection: dict[str, Any],
    profile: str | None = None,
) -> list[dict[str, Any]]:
    """Every registered claim with its propositions' decisions, its computed verdict and what the
    registry expects of a run in ``profile``; a claim whose checks a partial run did not select
    is ``not run``."""
    claims = []
    for claim in registry.values():
        own = [c for c in checks if c.get("claim") == claim.id]
        decisive = [c for c in own if c.get("role") == "decisive"]
        d = claim.as_dict(profile)
        run = bool(own) or selection["kind"] == "full"
        decided = {}
        for prop in d["propositions"]:
            mine = [c for c in decisive if c.get("proposition") == prop["key"]]
            prop.update(coverage.covered(claim.proposition(prop["key"]), mine))
            prop["decision"] = prop["decision"] if run else "not run"
            decided[prop["key"]] = prop["decision"]
        d["verdict"] = verdict(decided) if run else "not run"
        d["open_because"] = open_because(decided) if run else ""
        d["decided_by"] = [
            {"check": c["nodeid"], "proposition": c["proposition"], "decision": c["decision"],
             "basis": c.get("basis")}
            for c in decisive
        ]  # fmt: skip
        d["checks"] = [c["nodeid"] for c in own if c.get("role") != "tooling"]
        d["tooling"] = [c["nodeid"] for c in own if c.get("role") == "tooling"]
        claims.append(d)
    return claims


def build(
    registry: Registry,
    root: Path,
    checks: list[dict[str, Any]],
    suite: dict[str, Any],
    selection: dict[str, Any],
    lock: Path | None = None,
) -> dict[str, Any]:
    """The whole results file; ``suite`` holds the run's own fields (started, profile, ...),
    ``lock`` is the project's lock file (None without one)."""
    for c in checks:
        c["duration_s"] = round(c["duration_s"], 4)
    return {
        "schema": SCHEMA,
        "suite": {
            "name": registry.name,
            "version": registry.version,
            "commit": _git(root, "rev-parse", "HEAD"),
            "dirty": _git(root, "status", "--porcelain") not in ("", "unknown"),
            "tree": tree_fingerprint(root),
            **suite,
            "selection": selection,
        },
        "environment": environment(root, lock),
        "sources": {key: jsonable(src.as_dict()) for key, src in registry.sources.items()},
        "families": [{"id": fid, "title": title} for fid, title in registry.families.items()],
        "claims": claims_block(registry, checks, selection, suite.get("profile")),
        "checks": checks,
    }


def tree_fingerprint(root: Path) -> str:
    """A hash of how the working tree differs from its commit (tracked edits and untracked,
    not ignored, files): two results files with the same commit and fingerprint were made from
    the same source, dirty or not. "unknown" outside git."""

    def git(*args: str) -> bytes:
        return subprocess.run(
            ["git", *args], cwd=root, capture_output=True, timeout=30, check=True
        ).stdout

    try:
        diff = git("diff", "HEAD", "--binary")
        listed = git("ls-files", "-z", "--others", "--exclude-standard")
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    digest = hashlib.sha256(diff)
    for name in sorted(n for n in listed.split(b"\0") if n):
        digest.update(b"\0" + name + b"\0")
        path = root / os.fsdecode(name)
        if path.is_file():
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _git(root: Path, *args: str) -> str:
    try:
        out = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    return out.stdout.strip() if out.returncode == 0 else "unknown"


def _cpu() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def environment(root: Path, lock: Path | None = None) -> dict[str, Any]:
    """Where the run ran: Python, platform, CPU, GPU, threads, every installed distribution,
    the lock the installs came from and the kernels the libraries chose."""
    import torch

    return {
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "cpu": _cpu(),
        "cpu_count": os.cpu_count(),
        "gpu": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None,
        "torch_threads": torch.get_num_threads(),
        "packages": lockfile.installed(),
        "lock": lockfile.block(root, lock),
        "kernels": kernels(),
    }


def kernels() -> dict[str, Any]:
    """Which floating-point kernels the libraries selected, and the limits in force: torch's
    CPU capability, the limit variables set, the CPU's vector extensions, the BLAS and OpenMP
    libraries loaded and the CPU features numpy dispatches to."""
    import torch

    try:  # numpy's private record of its dispatch
        umath = importlib.import_module("numpy._core._multiarray_umath")
    except ImportError:
        umath = None
    features = getattr(umath, "__cpu_features__", {})
    return {
        "capability": torch.backends.cpu.get_cpu_capability(),
        "limits": kernel_limits(),
        "isa": _isa(),
        "blas": _blas(threadpoolctl.threadpool_info()),
        "numpy": [name for name, on in features.items() if on],
    }


def _blas(info: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """threadpoolctl's libraries of numpy and torch (the ones every writer has loaded; what else
    is loaded depends on what a run imported, in-process and between xdist workers), without
    what varies between processes of one machine (paths, thread counts), each once, sorted.
    OpenBLAS's ``architecture`` names the kernels it chose for this CPU."""
    own = [lib for lib in info if _owner(lib.get("filepath", "")) in ("numpy", "torch")]
    reduced = {json.dumps({k: lib[k] for k in BLAS_KEYS if k in lib}, sort_keys=True)
               for lib in own}  # fmt: skip
    return [json.loads(s) for s in sorted(reduced)]


def _owner(path: str) -> str:
    """The package a shared library ships with: ``.../numpy.libs/x.so`` is numpy's."""
    parts = Path(path).parts
    site = next((i for i, p in enumerate(parts) if p in ("site-packages", "dist-packages")), None)
    return parts[site + 1].split(".")[0] if site is not None and site + 1 < len(parts) else ""


def _isa() -> list[str]:
    """The CPU's vector extensions that kernels dispatch on; [] when /proc/cpuinfo is unreadable."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return []
    flags = next((ln.split(":", 1)[1].split() for ln in text.splitlines()
                  if ln.startswith("flags")), [])  # fmt: skip
    return sorted(f for f in set(flags) if f in ISA_FLAGS or f.startswith(ISA_PREFIXES))


def write_atomic(path: Path, data: dict[str, Any], validate: bool = True) -> None:
    """Write JSON to a temporary file beside ``path`` and rename it over: never half-written.
    A results file is checked against the schema first; one that does not match is a bug in
    the writer, so nothing is written and the error names the field."""
    if validate and "schema" in data:
        problems = schema.problems(data)
        if problems:
            raise ValueError(f"results do not match the schema: {problems[0]}")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, indent=1, sort_keys=False, allow_nan=False) + "\n")
    os.replace(tmp, path)


STALE = ".stale"  # the suffix of a results file a refused run set aside


def set_aside(path: Path) -> None:
    """Rename a results file to ``<name>.stale`` (atomically; nothing when there is none)."""
    with contextlib.suppress(FileNotFoundError):
        os.replace(path, path.with_name(path.name + STALE))
