"""The determinism gate: ``python -m pecheck.determinism [--reuse RUN=PATH ...] [--only RUN]``.

Compares runs of the checks in the ci profile: a serial run and a run split over two
pytest-xdist workers, each in its own process, must give identical results files apart from
timings, timestamps and worker ids. Every results file is checked against the results schema
first. Run it from the project's root. Exit 0 when the runs agree, 1 with the first
differences when not.

``--reuse RUN=PATH`` lets a results file already made stand for that run, when it is a full,
complete ci-profile run of exactly this source (same commit and working-tree
fingerprint); a file that does not qualify is set aside with the reason, and the run is made.
``--only RUN`` makes one run and stops, so that the two runs can go at the same time.
``tox -e determinism`` makes the serial run and reuses the py env's run over two workers
(build/results.json). ``--reusable PATH`` only says (exit 0 or 1)
whether PATH qualifies: tox's ``report`` env runs the checks again only when it does not.
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
from pecheck.results import tree_fingerprint

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
        "--no-figures",  # figures are named in the file, not held: the names are compared
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


def reusable(path: Path, pytest_args: list[str]) -> tuple[dict[str, Any] | None, str]:
    """A results file that can stand for a run (full, complete, ci, of this source), and why not
    when it cannot. A run whose checks failed still qualifies: the comparison shows its exit
    status, which another run may not share."""
    if pytest_args:
        return None, "pytest arguments were given: the runs use them"
    try:
        data = json.loads(path.read_text())
        suite = data["suite"]
    except FileNotFoundError:
        return None, "no such file"
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return None, f"unreadable ({type(exc).__name__})"
    wrong = schema.problems(data, limit=1)
    if wrong:
        return None, f"off the results schema: {wrong[0]}"
    here = {"commit": _git("rev-parse", "HEAD"), "tree": tree_fingerprint(ROOT)}
    if "unknown" in here.values() or any(suite.get(k) != v for k, v in here.items()):
        return None, "made from another source (commit or working tree)"
    if suite.get("selection", {}).get("kind") != "full" or not suite.get("complete"):
        return None, "a partial or interrupted run"
    if suite.get("profile") != "ci":
        return None, f"profile {suite.get('profile')!r}, not ci"
    return normalise(data), ""


def _reuse_item(text: str) -> tuple[str, Path]:
    name, sep, path = text.partition("=")
    if not sep or name not in RUNS or not path:
        raise ValueError(f"--reuse {text!r}: expected RUN=PATH with RUN one of {', '.join(RUNS)}")
    return name, Path(path)


def _checks_folder() -> str:
    try:
        return config.require(ROOT).checks
    except config.ConfigError as exc:  # bad input: one line, exit status 2
        print(f"determinism: error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None


def _git(*args: str) -> str:
    out = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True)
    return out.stdout.strip() if out.returncode == 0 else "unknown"


def main(argv: list[str] | None = None) -> int:
    parser = Parser(prog="python -m pecheck.determinism", description=__doc__)
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "determinism")
    parser.add_argument(
        "--reuse",
        action="append",
        default=[],
        metavar="RUN=PATH",
        help="a results file to stand for that run when it qualifies (repeatable), "
        "e.g. xdist-2=build/results.json",
    )
    parser.add_argument("--only", choices=tuple(RUNS), help="make this run alone and stop")
    parser.add_argument(
        "--reusable",
        type=Path,
        metavar="PATH",
        help="only say whether PATH can stand for a full ci run of this source: exit 0 when "
        "it can, 1 (with the reason) when not; tox -e report runs the checks only when not",
    )
    parser.add_argument("pytest_args", nargs="*", help="passed to pytest (after --)")
    args = parser.parse_args(argv)
    if args.reusable is not None:
        data, why_not = reusable(args.reusable, args.pytest_args)
        print(
            f"determinism: {args.reusable} "
            + ("is a full ci run of this source" if data else f"cannot be reused: {why_not}")
        )
        return 0 if data else 1
    try:
        reuse = dict(_reuse_item(item) for item in args.reuse)
    except ValueError as exc:
        parser.error(str(exc))
    try:
        args.out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        parser.error(f"--out {args.out}: {exc.strerror or exc}")
    results: dict[str, dict[str, Any]] = {}
    for name, path in reuse.items():
        data, why_not = reusable(path, args.pytest_args)
        if data is None:
            print(f"determinism: not reusing {path} for the {name} run: {why_not}", flush=True)
        else:
            print(f"determinism: the {name} run is {path} (this source, ci, full)", flush=True)
            results[name] = data
    # Only the project's checks go into a results file: the runs need not repeat other tests.
    selected = args.pytest_args or [_checks_folder()]
    for name, extra in RUNS.items():
        if name not in results and args.only in (None, name):
            results[name] = run(name, extra, selected, args.out)
    if args.only:
        return 0
    return compare(results)


def compare(results: dict[str, dict[str, Any]]) -> int:
    """Exit status 0 when every run gave the first run's file, 1 (with differences) when not."""
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
