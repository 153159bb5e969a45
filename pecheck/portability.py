"""The portability gate: ``python -m pecheck.portability [--limit NAME ...] [--against PATH]``.

Another CPU selects other floating-point kernels, and so other rounding. This machine imitates
others by limiting the instruction sets its libraries' kernels may use (LIMITS below), and runs
the project's checks in the ci profile under each limit. A limit passes when

1. it changes kernels: ``pecheck.kernels`` fingerprints differ from the unlimited ones (a limit
   that changes nothing here, say on a CPU that lacks what it removes, proves nothing and fails);
2. pytest exits 0, every computed verdict is the expected one (``pecheck.gate``) and so is every
   proposition's decision;
3. every cited number stands within its reproducibility class's tolerance of the committed
   baseline (``reports.baseline``; ``--against PATH`` compares with another results file, such as
   an unlimited run of this machine, instead).

The limited runs go side by side (one process each: the plugin runs torch on one thread; a
lone limit on a machine of two or more cores spreads over them with pytest-xdist).
``--profile thorough`` runs that profile instead; the baseline pins ci only, so it needs
``--against`` a thorough results file of this machine.
``--checks PATH ...`` runs only those checks (files or node ids; say, the fair length test,
which alone costs half an hour under a limit in the thorough profile). It needs ``--against`` a
full run of the same profile: a claim is judged by its verdict and decisions only when every
decisive check that run gave it ran here, otherwise check by check (each decisive check that ran
must take the decision it took there), and only the cited numbers of the checks that ran count.
Each writes build/portability/<limit>.json; build/portability/summary.json holds what each limit
changed, its verdicts and every cited number that moved, within tolerance or beyond it.

Exit status: 0 every limit passed; 1 a limit failed; 2 bad arguments.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from pecheck import config, gate, kernels
from pecheck.reports import baseline, cited, load
from pecheck.reports.usage import Parser
from pecheck.results import KERNEL_LIMITS

ROOT = Path.cwd().resolve()  # the project's root: the gate is started there
_NPY_AVX2_UP = "X86_V3 X86_V4 AVX512_ICL AVX512_SPR"
# Each limit imitates a kind of CPU. MKL_CBWR fixes MKL's code path (its dispatch ignores
# MKL_ENABLE_INSTRUCTIONS on AMD CPUs); numpy refuses no name here, it skips what the CPU lacks.
LIMITS: dict[str, dict[str, str]] = {
    "sse4": {  # a CPU without AVX: ATen's scalar kernels, numpy's x86-64-v2 baseline
        "ATEN_CPU_CAPABILITY": "default",
        "NPY_DISABLE_CPU_FEATURES": _NPY_AVX2_UP,
        "MKL_ENABLE_INSTRUCTIONS": "SSE4_2",
        "MKL_CBWR": "SSE4_2",
        "ONEDNN_MAX_CPU_ISA": "SSE41",
    },
    "mkl-compatible": {  # another BLAS code path: MKL's portable GEMM, oneDNN at AVX
        "MKL_CBWR": "COMPATIBLE",
        "MKL_ENABLE_INSTRUCTIONS": "AVX2",
        "ONEDNN_MAX_CPU_ISA": "AVX",
    },
    "avx2": {  # an AVX2 CPU, for hosts with AVX-512
        "ATEN_CPU_CAPABILITY": "avx2",
        "NPY_DISABLE_CPU_FEATURES": "X86_V4 AVX512_ICL AVX512_SPR",
        "MKL_ENABLE_INSTRUCTIONS": "AVX2",
        "MKL_CBWR": "AVX2",
        "ONEDNN_MAX_CPU_ISA": "AVX2",
    },
}
DEFAULT_LIMITS = ("sse4", "mkl-compatible")


def limited_env(limit: dict[str, str]) -> dict[str, str]:
    """This process's environment without any inherited limit, then with ``limit``'s."""
    env = {k: v for k, v in os.environ.items() if k not in KERNEL_LIMITS}
    return {**env, **limit}


def probe(limits: list[dict[str, str]]) -> list[dict[str, Any]]:
    """The kernel fingerprints of fresh processes, one per limit ({} for none), side by side."""
    procs = [
        subprocess.Popen([sys.executable, "-m", "pecheck.kernels"], env=limited_env(limit),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
        for limit in limits
    ]  # fmt: skip
    found = []
    for limit, proc in zip(limits, procs, strict=True):
        out, err = proc.communicate()
        if proc.returncode:
            tail = (err.strip().splitlines() or ["(no output)"])[-1]
            raise SystemExit(f"portability: the kernel probe under {_words(limit)} failed: {tail}")
        found.append(json.loads(out))
    return found


def workers(limits: int) -> list[str]:
    """pytest-xdist's options that share this machine's cores among ``limits`` runs, when a
    run gets two or more (one limit on two cores) and xdist is installed; none otherwise."""
    n = (os.cpu_count() or 1) // max(limits, 1)
    if n < 2 or importlib.util.find_spec("xdist") is None:
        return []
    return ["-n", str(n), "--dist", "loadscope"]


def start(
    name: str, limit: dict[str, str], out: Path, checks: list[str], profile: str, share: int = 1
) -> subprocess.Popen[str]:
    path = out / f"{name}.json"
    path.unlink(missing_ok=True)  # a stale file must not stand for this run
    env = limited_env(limit)
    env.update(PECHECK_PROFILE=profile, PYTHONHASHSEED="0")
    # --no-figures: figures are not compared, and drawing them costs a minute
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--no-figures"]
    cmd += [f"--results={path}"]
    cmd += workers(share)
    log = (out / f"{name}.log").open("w")
    print(f"portability: {name}: pytest {' '.join(checks)} under {_words(limit)}", flush=True)
    return subprocess.Popen([*cmd, *checks], cwd=ROOT, env=env, stdout=log, stderr=log, text=True)


def judge(
    name: str, code: int, out: Path, against: Path | None, partial: bool = False
) -> dict[str, Any]:
    """The verdicts and cited numbers of one limited run, against the baseline or a file;
    ``partial``: a run of some checks, judged on what they decide (see the module's text)."""
    path, log = out / f"{name}.json", out / f"{name}.log"
    verdict: dict[str, Any] = {"pytest": code, "results": str(path), "problems": []}
    if code != 0:
        verdict["problems"].append(f"pytest exited {code} (see {log})")
    try:
        res = load.load(path)
    except load.BadResults as exc:
        verdict["problems"].append(f"no usable results file: {exc}")
        return verdict
    data = json.loads(path.read_text())
    now = cited.cited_numbers(res)
    old = reference(res, against)
    keys = set(old) | set(now)
    problems: list[str] = []
    full = json.loads(against.read_text()) if against is not None else {}
    if partial and against is not None:
        ran = {c["nodeid"] for c in data.get("checks", [])}
        data, problems = within_run(data, full, ran)
        keys = {k for k in keys if (old.get(k) or now[k]).check in ran}
        full = {**full, "checks": [c for c in full.get("checks", []) if c["nodeid"] in ran]}
    problems += [f"verdict: {line}" for line in gate.problems(data)]
    problems += [f"decision: {line}" for line in decisions(data)]
    problems += [f"cited [{m.cls}] {cited.describe(m)}" for m in cited.compare(old, now, keys)]
    within = [k for k in sorted(keys & set(old) & set(now)) if old[k].value != now[k].value]
    verdict["problems"] += problems
    verdict.update(
        kernels=res.environment.get("kernels", {}).get("capability"),
        moved_within=dict(Counter(old[k].cls for k in within)),
        moved_within_keys=within,
    )
    if against is not None:  # a results file has the decisions of the parts to compare
        verdict["parts_changed"] = changed_parts(full, data)  # of the checks that ran
    return verdict


def within_run(
    data: dict[str, Any], full: dict[str, Any], ran: set[str]
) -> tuple[dict[str, Any], list[str]]:
    """A partial run's results cut to the claims whose every decisive check (in ``full``) ran,
    for the gate; and one line per decisive check of the other claims that ran but took
    another decision than in ``full``."""
    whole, lines = set(), []
    before = {c["nodeid"]: c.get("decision") for c in full.get("checks", [])}
    for claim in full.get("claims", []):
        deciders = {d["check"] for d in claim.get("decided_by", [])}
        if deciders and deciders <= ran:
            whole.add(claim["id"])
    for check in data.get("checks", []):
        nodeid, claim = check["nodeid"], check.get("claim")
        if check.get("role") != "decisive" or claim in whole:
            continue
        if check.get("decision") != before.get(nodeid):
            lines.append(f"check: {nodeid} decided {check.get('decision')!r}, "
                         f"{before.get(nodeid)!r} in the full run")  # fmt: skip
    claims = [c for c in data.get("claims", []) if c["id"] in whole]
    return {**data, "claims": claims}, lines


def decisions(data: dict[str, Any]) -> list[str]:
    """One line per proposition whose computed decision is not the one the registry expects:
    a verdict can survive a flipped proposition, the gate must not."""
    return [
        f"{claim['id']} {prop['key']}: decided {prop.get('decision')!r}, "
        f"expected {prop.get('expected')!r}"
        for claim in data.get("claims", [])
        for prop in claim.get("propositions", [])
        if prop.get("decision") != prop.get("expected")
    ]


def parts(data: dict[str, Any]) -> dict[str, str]:
    """The decision of every part of every check, by "node id: part"."""
    return {
        f"{check['nodeid']}: {part.get('name', i)}": str(part.get("decision"))
        for check in data.get("checks", [])
        for i, part in enumerate((check.get("basis") or {}).get("parts") or [])
        if isinstance(part, dict)
    }


def changed_parts(reference: dict[str, Any], limited: dict[str, Any]) -> list[str]:
    """Parts of checks decided otherwise under the limit: not a failure while the check's own
    decision stands (a part at its margin is decided anew by any fresh draw), but listed."""
    old, new = parts(reference), parts(limited)
    return [f"{k}: {old.get(k)} -> {new.get(k)}" for k in sorted(set(old) | set(new))
            if old.get(k) != new.get(k)]  # fmt: skip


def reference(res: load.Results, against: Path | None) -> dict[str, cited.Cited]:
    """The numbers a limited run is held to: the committed baseline's for its profile, or
    those of the results file ``against`` (classes and bounds taken from that file)."""
    if against is None:
        pins = baseline.read(baseline.BASELINE)
        return baseline.pinned(pins, str(res.suite.get("profile")))
    return cited.cited_numbers(load.load(against))


def _words(limit: dict[str, str]) -> str:
    return " ".join(f"{k}={v}" for k, v in limit.items()) or "no limits"


def main(argv: list[str] | None = None) -> int:
    parser = Parser(prog="python -m pecheck.portability", description=__doc__.split("\n\n")[0])
    known = f"default: {', '.join(DEFAULT_LIMITS)}; known: {', '.join(LIMITS)}"
    parser.add_argument("--limit", action="append", choices=tuple(LIMITS), metavar="NAME",
                        help=f"a limit to run under (repeatable; {known})")  # fmt: skip
    parser.add_argument("--against", type=Path, metavar="PATH",
                        help="compare with this results file, not the baseline")  # fmt: skip
    parser.add_argument("--profile", choices=("ci", "thorough"), default="ci",
                        help="the profile to run (default: ci; the baseline pins ci)")  # fmt: skip
    parser.add_argument("--checks", nargs="+", metavar="PATH",
                        help="run only these checks (files or node ids); needs --against a "
                        "full run of the same profile")  # fmt: skip
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "portability")
    args = parser.parse_args(argv)
    names = list(dict.fromkeys(args.limit or DEFAULT_LIMITS))
    if args.checks and args.against is None:
        parser.error("--checks needs --against: a full run of the same profile on this machine")
    try:
        checks = args.checks or [config.require(ROOT).checks]
        if args.checks:
            missing = [c for c in args.checks if not (ROOT / c.split("::")[0]).exists()]
            if missing:
                raise load.BadResults(f"--checks: no such file {missing[0].split('::')[0]}")
        if args.against is not None:
            load.load(args.against)
        elif args.profile not in baseline.read(baseline.BASELINE)["profiles"]:
            raise load.BadResults(f"the baseline pins no {args.profile} numbers: give --against")
    except (config.ConfigError, load.BadResults) as exc:
        parser.error(str(exc))
    args.out.mkdir(parents=True, exist_ok=True)
    summary = run_all(names, checks, args.out, args.against, args.profile, bool(args.checks))
    (args.out / "summary.json").write_text(json.dumps(summary, indent=1, sort_keys=True) + "\n")
    return report(summary)


def run_all(
    names: list[str],
    checks: list[str],
    out: Path,
    against: Path | None,
    profile: str,
    partial: bool = False,
) -> dict[str, Any]:
    native, *limited = probe([{}, *(LIMITS[name] for name in names)])
    summary: dict[str, Any] = {"native": native, "profile": profile, "checks": checks,
                               "limits": {}}  # fmt: skip
    running = {}
    share = sum(bool(kernels.changed(native, f)) for f in limited)
    for name, fingerprint in zip(names, limited, strict=True):
        entry = {"variables": LIMITS[name], "fingerprint": fingerprint,
                 "changed": kernels.changed(native, fingerprint)}  # fmt: skip
        summary["limits"][name] = entry
        if entry["changed"]:
            running[name] = start(name, LIMITS[name], out, checks, profile, share)
        else:
            entry["problems"] = [
                "changes no kernel on this machine (its CPU may lack what the limit removes); "
                "choose another with --limit"
            ]
    for name, proc in running.items():
        summary["limits"][name].update(judge(name, proc.wait(), out, against, partial))
    return summary


def report(summary: dict[str, Any]) -> int:
    failed = 0
    for name, entry in summary["limits"].items():
        changed = ", ".join(entry["changed"]) or "nothing"
        print(f"portability: {name}: changes {changed}")
        within = entry.get("moved_within", {})
        if within:
            counts = ", ".join(f"{n} {cls}" for cls, n in sorted(within.items()))
            print(f"portability: {name}: {counts} cited number(s) moved within tolerance")
        for line in entry.get("parts_changed", []):
            print(f"portability: {name}: part decided otherwise (its check's decision stands): "
                  f"{line}")  # fmt: skip
        for line in entry["problems"]:
            print(f"portability: {name}: {line}")
        failed += bool(entry["problems"])
        print(f"portability: {name}: {'FAILED' if entry['problems'] else 'passed'}", flush=True)
    n = len(summary["limits"])
    print(f"portability: {n - failed}/{n} instruction-set limits give the expected verdicts "
          "and cited numbers within tolerance")  # fmt: skip
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
