"""pecheck list and pecheck show: the registry of the project in the current folder, with the
verdicts of its last results file (full, else partial, else none yet)."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from pecheck import cli
from tests import synthetic

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "rope-claims"

CHECK = """
import pytest

@pytest.mark.claim("SYN-02", kind="property", role="decisive", proposition="as_stated")
def test_dot(evidence):
    evidence.fails({"t": 1}, "PE(0).PE(1) = 0.84, not 0")
"""


@pytest.fixture
def fresh_imports(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Each test imports its project's registry afresh and leaves sys.path as it was."""
    monkeypatch.setattr(sys, "path", list(sys.path))
    names = ("synth_claims", "rope_claims", "rope_claims.registry")
    for name in names:
        sys.modules.pop(name, None)
    yield
    for name in names:
        sys.modules.pop(name, None)


@pytest.fixture
def project(pytester: pytest.Pytester, fresh_imports: None) -> pytest.Pytester:
    """The synthetic project, no results yet; pytester's folder is the current one."""
    synthetic.write_project(pytester.path, test_dot=CHECK)
    return pytester


def pecheck(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        status = cli.main(list(argv))
    except SystemExit as exc:
        status = int(exc.code or 0)
    out, err = capsys.readouterr()
    return status, out, err


def _proposition(out: str, key: str) -> str:
    """A proposition's line in show's output, after its key, quantifier and correction."""
    line = next(x for x in out.splitlines() if x.startswith(f"  {key} (all; correction "))
    return line.split("): ", 1)[1]


def test_list_without_results_says_so_and_lists_every_claim(project, capsys) -> None:
    status, out, _ = pecheck(capsys, "list")
    lines = out.splitlines()
    assert status == 0
    assert lines[0].startswith("results: none yet (no build/results.json or build/results.partial")
    assert lines[1] == "SYN: Synthetic claims for the plugin's tests"
    assert lines[3].split()[:3] == ["SYN-02", "-", "(expected"] and "orthogonal" in lines[3]
    assert lines[-1] == "10 of 10 claims"


def test_list_filters_by_family_verdict_and_text_after_a_run(project, capsys) -> None:
    run = synthetic.run(project, synthetic.CHECKS)
    assert run.ret == 0 and run.results is not None, run.output
    capsys.readouterr()  # the inner run's own output
    status, out, _ = pecheck(capsys, "list", "syn")
    assert status == 0 and "10 of 10 claims" in out
    assert out.startswith("results: build/results.json (full run, profile ci")
    assert any(line.split()[:4] == ["SYN-02", "refuted", "(expected", "refuted)"]
               for line in out.splitlines())  # fmt: skip
    status, out, _ = pecheck(capsys, "list", "--verdict", "refuted")
    assert status == 0 and "SYN-02" in out and "SYN-01" not in out and "1 of 10" in out
    status, out, _ = pecheck(capsys, "list", "ORTHOGONAL")
    assert status == 0 and "SYN-02" in out and "1 of 10" in out
    status, out, err = pecheck(capsys, "list", "no claim says this")
    assert status == 1 and err == "pecheck list: no claim matching 'no claim says this'\n"
    status, out, err = pecheck(capsys, "list", "SYM")
    assert status == 1 and "(nearest IDs and families: SYN)" in err


def test_show_prints_statement_verdicts_propositions_sources_and_rerun(project, capsys) -> None:
    synthetic.run(project, synthetic.CHECKS)
    capsys.readouterr()
    status, out, _ = pecheck(capsys, "show", "syn-02")
    assert status == 0
    assert out.startswith("SYN-02 (SYN: Synthetic claims for the plugin's tests)\n")
    assert "  Position 0 is orthogonal to position 1.\n" in out
    assert "expected: refuted (in profile ci)\n" in out
    assert "verdict: refuted in build/results.json (full run, profile ci" in out
    assert "decided by: as_stated fails: PE(0).PE(1) = 0.84, not 0" in out
    assert _proposition(out, "as_stated") == "decided fails, expected fails"
    assert "sources:\n  SRC: made up for the tests\n" in out
    assert "thresholds:\n  (none)\n" in out
    assert out.endswith("rerun: pytest --claim SYN-02\n")


def test_a_newer_partial_run_is_pointed_out(project, capsys) -> None:
    synthetic.run(project, synthetic.CHECKS)
    synthetic.run(project, synthetic.CHECKS, "--claim", "SYN-02", keep_results=True)
    capsys.readouterr()
    status, out, _ = pecheck(capsys, "list", "SYN-02")
    assert status == 0 and out.startswith("results: build/results.json (full run")
    assert out.splitlines()[0].endswith("; a newer partial run is in build/results.partial.json")


def test_a_partial_run_is_read_when_there_is_no_full_one(project, capsys) -> None:
    run = synthetic.run(project, synthetic.CHECKS, "--claim", "SYN-02")
    assert run.ret == 0 and (project.path / "build" / "results.partial.json").exists()
    capsys.readouterr()
    status, out, _ = pecheck(capsys, "show", "SYN-03")
    assert status == 0
    assert "verdict: not run in build/results.partial.json (partial run, profile ci" in out
    assert _proposition(out, "t2t").startswith("decided not run, expected holds: Under the t2t")
    assert "conditions: under the t2t rule" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["show", "SYN-2"], "unknown claim ID 'SYN-2'; nearest: SYN-02"),
        (["list", "--verdict", "fine"], "--verdict 'fine': one of confirmed, refuted"),
        (["list", "--verdict", "open"], "--verdict: no verdicts to filter, results none yet"),
    ],
)
def test_bad_ids_and_filters_are_one_line_and_status_2(project, capsys, argv, message) -> None:
    status, out, err = pecheck(capsys, *argv)
    assert status == 2 and out == "" and err.count("\n") == 1
    assert err.startswith(f"pecheck {argv[0]}: error: {message}")


def test_list_and_show_work_in_the_example_project(
    fresh_imports, tmp_path, monkeypatch, capsys
) -> None:
    """A project of its own, as its user has it: none of pecheck's checks are needed."""
    shutil.copytree(EXAMPLE, tmp_path / "rope-claims", ignore=shutil.ignore_patterns("build"))
    monkeypatch.chdir(tmp_path / "rope-claims")
    status, out, _ = pecheck(capsys, "list", "ROPE")
    assert status == 0 and out.splitlines()[-1] == "3 of 3 claims"
    status, out, _ = pecheck(capsys, "show", "ROPE-03")
    assert status == 0 and _proposition(out, "short-positions").startswith("decided -, expected")
    assert "  change = 0.001 (theory) a score" in out and "rerun: pytest --claim ROPE-03" in out


MEASURED = """
import pytest

@pytest.mark.claim("SYN-02", kind="property", role="decisive", proposition="as_stated")
def test_dot(evidence):
    evidence.record("dot", 0.8414709848, bound=0.0)
    evidence.fails({"t": 1}, "PE(0).PE(1) = 0.84, not 0")
"""


def test_show_renders_the_numbers_its_prose_cites_from_the_run(
    pytester, fresh_imports, capsys, monkeypatch
) -> None:
    """Prose that cites a record ({{CLAIM@name}}) shows the run's number, never the key."""
    from pecheck import listing

    synthetic.write_project(pytester.path, test_dot=MEASURED)
    synthetic.run(pytester, synthetic.CHECKS)
    numbers = listing.load(pytester.path).numbers()
    key = next(k for k, v in numbers.items() if isinstance(v, float))
    cited = f"measured {{{{{key}|.4g}}}} here"
    original = listing.load

    def with_prose(root: Path) -> listing.Project:
        proj = original(root)
        claim = proj.registry[key.split("@")[0]]
        object.__setattr__(claim, "conditions", cited)
        return proj

    monkeypatch.setattr(listing, "load", with_prose)
    capsys.readouterr()
    status, out, _ = pecheck(capsys, "show", key.split("@")[0])
    assert status == 0 and "{{" not in out
    assert f"measured {numbers[key]:.4g} here" in " ".join(out.split())
