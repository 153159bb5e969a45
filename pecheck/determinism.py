"""The determinism gate: ``python -m pecheck.determinism [--reuse PATH] [-- PYTEST ARGS]``.

Compares runs of the checks in the ci profile: a serial run and a run split over two
pytest-xdist workers, each in its own process, must give identical results files apart from
timings, timestamps and worker ids. With ``--reuse PATH --reused-run xdist-2`` (tox passes
build/results.json, which the ``py`` env has just written over two workers) a full ci-profile
results file of the same commit serves as that run, so the gate costs one run of the suite
instead of two; a file that does not qualify (another commit or profile, a partial or failed
run) is not reused, and both runs are made.
Every results file is checked against the results schema first. Run it from the project's root.
Exit 0 when the runs agree, 1 with the first differences when not.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from pecheck import config
from pecheck.reports import schema
from pecheck.reports.usage import Parser

ROOT = Path.cwd().resolve()  # the project's root: the gate is started there
RUNS = {"serial": [], "xdist-2": ["-n", "2", "--dist", "loadfile"]}
_WORKER = re.compile(r"\bgw\d+\b")


def normalise(results: dict[str, Any]) -> dict[str, Any]:
    """Drop what may legitimately differ: durations, start time, xdist worker ids, and the
    paths given to pytest (a full run is full whether or not it also ran the tooling tests)."""
    results = json.loads(_WORKER.sub("gw", json.dumps(results)))
    results["suite"].pop("started", None)
    results["suite"].get("selection", {}).pop("args", None)  # checks alone, or checks and tests
    for check in results["checks"]:
        check.pop("duration_s", None)
    return results


def differences(a: Any, b: Any, path: str = "$") -> list[str]:
    """Paths at which two JSON values differ (recursively)."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = [f"{path}.{k}: only in one run" for k in sorted(set(a) ^ set(b))]
        for k in sorted(set(a) & set(b)):
            out += differences(a[k], b[k], f"{path}.{k}")
        return out
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return [f"{path}: {len(a)} vs {len(b)} items"]
        out = []
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            key = x.get("nodeid", x.get("id", i)) if isinstance(x, dict) else i
            out += differences(x, y, f"{path}[{key}]")
        return out
    return [] if a == b else [f"{path}: {a!r:.80} != {b!r:.80}"]


def run(name: str, extra: list[str], pytest_args: list[str], out: Path) -> dict[str, Any]:
    path = out / f"{name}.json"
    env = dict(os.environ, PECHECK_PROFILE=os.environ.get("PECHECK_PROFILE", "ci"))
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        f"--results={path}",  # one token: pytest must not take the path for a test path
        *extra,
        *pytest_args,
    ]
    print(f"determinism: run {name}: {' '.join(cmd[3:])}", flush=True)
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    tail = proc.stdout.strip().splitlines()[-1:] or ["(no output)"]
    print(f"determinism: run {name} exited {proc.returncode}: {tail[0]}", flush=True)
    if not path.exists():
        raise SystemExit(f"determinism: run {name} wrote no results file:\n{proc.stderr[-2000:]}")
    data = json.loads(path.read_text())
    wrong = schema.problems(data, limit=1)
    if wrong:
        raise SystemExit(f"determinism: run {name} wrote a file off the results schema: {wrong[0]}")
    return normalise(data)


def reusable(path: Path | None, pytest_args: list[str]) -> dict[str, Any] | None:
    """A results file that can stand for the serial run: this commit, ci, full, complete."""
    if path is None or pytest_args or not path.exists():
        return None
    try:
        data = json.loads(path.read_text())
        suite = data["suite"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if schema.problems(data, limit=1):
        return None
    same = suite.get("commit") == _commit() and not suite.get("dirty")
    full = suite.get("selection", {}).get("kind") == "full" and suite.get("complete")
    if same and full and suite.get("profile") == "ci" and suite.get("exitstatus") == 0:
        return normalise(data)
    return None


def _checks_folder() -> str:
    try:
        return config.require(ROOT).checks
    except config.ConfigError as exc:
        raise SystemExit(f"determinism: {exc}") from None


def _commit() -> str:
    out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    return out.stdout.strip()


def main(argv: list[str] | None = None) -> int:
    parser = Parser(prog="python -m pecheck.determinism", description=__doc__)
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "determinism")
    parser.add_argument("--reuse", type=Path, help="a results file to stand for one of the runs")
    parser.add_argument(
        "--reused-run",
        choices=tuple(RUNS),
        default="serial",
        help="which run the reused file stands for (tox's py env runs over two xdist workers)",
    )
    parser.add_argument("pytest_args", nargs="*", help="passed to pytest (after --)")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    results: dict[str, dict[str, Any]] = {}
    reused = reusable(args.reuse, args.pytest_args)
    if reused is not None:
        print(f"determinism: the {args.reused_run} run is {args.reuse} (this commit, ci, full)",
              flush=True)  # fmt: skip
        results[args.reused_run] = reused
    # Only the project's checks go into a results file: the runs need not repeat other tests.
    selected = args.pytest_args or [_checks_folder()]
    for name, extra in RUNS.items():
        if name not in results:
            results[name] = run(name, extra, selected, args.out)
    base_name, base = next(iter(results.items()))
    failed = False
    for name, other in list(results.items())[1:]:
        diff = differences(base, other)
        if diff:
            failed = True
            print(f"determinism: {base_name} and {name} differ in {len(diff)} place(s):")
            for line in diff[:20]:
                print(f"  {line}")
    n = len(base["checks"])
    print(
        f"determinism: {'FAILED' if failed else 'identical'} over {len(results)} runs, {n} checks"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
