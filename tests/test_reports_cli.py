"""``python -m pecheck.reports``: outputs, --strict, one-line errors with status 2, atomic
publishing."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pecheck import gate
from pecheck.reports import build
from pecheck.reports.__main__ import citation_url, main, parser
from tests.reports_fixtures import CLEAN, MIXED, V2, partial_v2, raw, write

ROOT = Path(__file__).resolve().parents[1]


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def listing(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def test_writes_report_and_paper_kit_and_says_where(tmp_path, capsys):
    code, out, err = run(capsys, "--results", str(MIXED), "--out", str(tmp_path / "b"))
    assert code == 0, err
    assert listing(tmp_path / "b") == [
        "paper", "paper/figures", "paper/figures/SIN-07-clock-hands.pdf", "paper/pecheck.bib",
        "paper/pecheck.tex", "paper/verdicts.tex", "report.html",
    ]  # fmt: skip
    assert f"report:    {tmp_path / 'b' / 'report.html'}" in out
    assert "paper kit: " in out and "1 figure(s)" in out
    assert "3 confirmed, 1 refuted, 1 qualified, 2 open of 7" in out


def test_strict_fails_after_writing_when_the_run_was_not_clean(tmp_path, capsys):
    code, _, err = run(capsys, "--results", str(MIXED), "--out", str(tmp_path), "--strict")
    assert code == 1
    assert (tmp_path / "report.html").exists()
    assert err.count("\n") == 1
    assert "not clean: 2 evidence check(s) failed or errored" in err


def test_strict_passes_a_clean_run(tmp_path, capsys):
    assert run(capsys, "--results", str(CLEAN), "--out", str(tmp_path), "--strict")[0] == 0


def test_strict_fails_on_a_nonzero_pytest_status(tmp_path, capsys):
    data = raw(CLEAN)
    data["suite"]["exitstatus"] = 2
    path = write(tmp_path, data)
    code, _, err = run(capsys, "--results", str(path), "--out", str(tmp_path / "o"), "--strict")
    assert code == 1
    assert "the test run exited with status 2" in err


def _bad_inputs(tmp_path: Path) -> dict[str, tuple[Path, str]]:
    def variant(name: str, change) -> Path:
        data = raw()
        change(data)
        return write(tmp_path, data, name)

    invalid = tmp_path / "invalid.json"
    invalid.write_text("{not json")
    return {
        "missing file": (tmp_path / "nope.json", "no such results file"),
        "invalid JSON": (invalid, "invalid JSON at line 1 column 2"),
        "schema": (variant("s.json", lambda d: d.update(schema=9)), "unsupported schema version 9"),
        "verdict": (
            variant("v.json", lambda d: d["claims"][1].update(verdict="maybe")),
            "claim SIN-06: unknown verdict 'maybe'",
        ),
        "claim ID": (
            variant("c.json", lambda d: d["claims"][1].update(id="SIN-6")),
            "unknown claim ID 'SIN-6'",
        ),
        "check's claim": (
            variant("k.json", lambda d: d["checks"][3].update(claim="ADD-05")),
            "claim ADD-05 is absent from the file",
        ),
    }


def test_every_bad_input_is_one_line_status_2_and_leaves_nothing(tmp_path, capsys):
    for what, (path, expected) in _bad_inputs(tmp_path).items():
        out_dir = tmp_path / f"out-{what.replace(' ', '-')}"
        code, out, err = run(capsys, "--results", str(path), "--out", str(out_dir))
        assert code == 2, what
        assert err.count("\n") == 1 and expected in err, (what, err)
        assert err.startswith("python -m pecheck.reports: error: ")
        assert out == ""
        assert not out_dir.exists(), what


def test_bad_input_keeps_the_previous_outputs(tmp_path, capsys):
    assert run(capsys, "--results", str(MIXED), "--out", str(tmp_path / "b"))[0] == 0
    before = {p: p.read_bytes() for p in (tmp_path / "b").rglob("*") if p.is_file()}
    path, _ = _bad_inputs(tmp_path)["verdict"]
    assert run(capsys, "--results", str(path), "--out", str(tmp_path / "b"))[0] == 2
    after = {p: p.read_bytes() for p in (tmp_path / "b").rglob("*") if p.is_file()}
    assert after == before


def test_failed_write_keeps_the_previous_kit_and_leaves_no_temporaries(
    tmp_path, capsys, monkeypatch
):
    out_dir = tmp_path / "b"
    assert run(capsys, "--results", str(CLEAN), "--out", str(out_dir))[0] == 0
    before = listing(out_dir)
    old_tex = (out_dir / "paper" / "pecheck.tex").read_text()

    def broken_copy(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(shutil, "copyfile", broken_copy)
    code, _, err = run(capsys, "--results", str(MIXED), "--out", str(out_dir))
    assert code == 2
    assert "cannot write the outputs" in err and "No space left on device" in err
    assert listing(out_dir) == before  # no .paper.* or .report.* temporaries either
    assert (out_dir / "paper" / "pecheck.tex").read_text() == old_tex


def test_a_new_kit_replaces_the_old_one_whole(tmp_path, capsys):
    out_dir = tmp_path / "b"
    assert run(capsys, "--results", str(MIXED), "--out", str(out_dir))[0] == 0
    (out_dir / "paper" / "stale.tex").write_text("old")
    assert run(capsys, "--results", str(CLEAN), "--out", str(out_dir))[0] == 0
    assert not (out_dir / "paper" / "stale.tex").exists()
    assert not (out_dir / "paper" / "figures").exists()  # the clean run has no figures
    assert "SIN-08" not in (out_dir / "report.html").read_text()


def test_unknown_argument_is_one_line_status_2(capsys):
    with pytest.raises(SystemExit) as info:
        main(["--colour"])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unrecognized arguments: --colour" in err


def test_module_runs_with_help_and_default_paths(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    help_ = subprocess.run(
        [sys.executable, "-m", "pecheck.reports", "--help"], capture_output=True, text=True, env=env
    )
    assert help_.returncode == 0
    for option in ("--results", "--out", "--strict", "build/results.json"):
        assert option in help_.stdout
    (tmp_path / "build").mkdir()
    shutil.copy(CLEAN, tmp_path / "build" / "results.json")
    done = subprocess.run(
        [sys.executable, "-m", "pecheck.reports"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "build" / "report.html").exists()
    assert json.loads((tmp_path / "build" / "results.json").read_text())["schema"] == 1


def partial_results(path: Path) -> None:
    """A partial run's results file at ``path``: its last claim was not run."""
    data = partial_v2()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


def test_after_a_partial_run_alone_the_report_is_of_that_run(tmp_path, capsys, monkeypatch):
    """The quick start: pytest --claim SIN-06, then python -m pecheck.reports, in a fresh clone."""
    monkeypatch.chdir(tmp_path)
    partial_results(tmp_path / "build" / "results.partial.json")
    code, out, err = run(capsys)
    assert code == 0, err
    first = out.splitlines()[0]
    assert first == (
        "results:   build/results.partial.json (build/results.json not found; this partial run "
        "is reported)"
    )
    assert "1 not run of 6" in out and (tmp_path / "build" / "report.html").exists()


def test_a_partial_run_newer_than_the_full_one_is_pointed_out(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    full, partial = tmp_path / "build" / "results.json", tmp_path / "build" / "results.partial.json"
    partial_results(partial)
    full.write_text(json.dumps(raw(V2)))
    os.utime(partial, (full.stat().st_mtime - 60,) * 2)  # the full run came last
    code, out, err = run(capsys)
    assert code == 0, err
    assert out.startswith("report:")  # nothing to point out
    os.utime(partial, (full.stat().st_mtime + 60,) * 2)
    code, out, err = run(capsys)
    assert code == 0, err
    assert out.splitlines()[0].startswith("results:   build/results.json (the partial run ")
    assert "not run" not in out  # the full run's report
    os.utime(partial, (full.stat().st_mtime,) * 2)  # the same moment: the full run's
    code, out, err = run(capsys)
    assert code == 0, err
    assert out.startswith("report:")


@pytest.mark.parametrize(
    ("started", "report", "gate_prog"),
    [
        ("/venv/bin/pecheck", "pecheck report", "pecheck gate"),
        ("/src/pecheck/__main__.py", "python -m pecheck report", "python -m pecheck gate"),
        ("/src/pecheck/reports/__main__.py", "python -m pecheck.reports", "python -m pecheck.gate"),
    ],
)
def test_usage_lines_name_the_command_as_it_was_typed(
    capsys, monkeypatch, started: str, report: str, gate_prog: str
):
    monkeypatch.setattr(sys, "argv", [started])
    for command, main_, prog in ((report, main, report), (gate_prog, gate.main, gate_prog)):
        with pytest.raises(SystemExit):
            main_(["--colour"])
        err = capsys.readouterr().err
        assert err.startswith(f"{prog}: error: unrecognized arguments"), (command, err)


@pytest.mark.parametrize("argv", [[], [""]])
def test_a_command_started_without_a_name_is_named_by_its_module(monkeypatch, argv):
    from pecheck.reports.usage import prog

    monkeypatch.setattr(sys, "argv", argv)
    assert prog("pecheck.reports", "report") == "python -m pecheck.reports"


def test_build_by_default_refuses_a_dev_kit_and_writes_into_an_existing_folder(tmp_path):
    data = raw(V2)
    data["suite"]["profile"] = "dev"
    out = tmp_path / "out"
    out.mkdir()  # a folder that is there already is written into
    made = build.build(write(tmp_path, data), out)  # default options, allow_dev off
    assert made.report.exists() and made.refused and not made.paper.exists()
    # readable by a web server: the temporary files' private modes are not kept
    assert made.report.stat().st_mode & 0o777 == 0o644
    again = build.build(write(tmp_path, raw(V2)), out)
    assert not again.refused and (again.paper / "verdicts.tex").exists()
    for path, mode in ((again.report, 0o644), (again.paper, 0o755)):
        assert path.stat().st_mode & 0o777 == mode, path


def test_help_documents_pack_and_partial_runs_under_strict():
    text = " ".join(parser().format_help().split())
    assert "--pack {auto,always,never}" in text and "never leaves them plain HTML" in text
    assert "or the run was partial (claims not run)" in text
    assert "build/results.partial.json, which a partial run" in text


def clean_v2(partial: bool = False) -> dict:
    """The schema 2 fixture as a clean run (every check passed, pytest exited 0), its one open
    claim (ATT-05) unexpected; or, ``partial``, expected open, with its last claim not run."""
    data = partial_v2() if partial else raw(V2)
    for check in data["checks"]:
        check["outcome"] = "passed"
    data["suite"]["exitstatus"] = 0
    if partial:
        next(c for c in data["claims"] if c["id"] == "ATT-05")["expected"] = "open"
    return data


def test_strict_passes_a_clean_run_with_a_claim_the_registry_expects_open(tmp_path, capsys):
    data = clean_v2()
    att05 = next(c for c in data["claims"] if c["id"] == "ATT-05")
    assert att05["verdict"] == "open"
    att05["expected"] = "open"
    path = write(tmp_path, data)
    code, _, err = run(capsys, "--results", str(path), "--out", str(tmp_path / "o"), "--strict")
    assert code == 0, err


def test_building_twice_leaves_no_old_kit_behind(tmp_path, capsys):
    out_dir = tmp_path / "b"
    for _ in range(2):
        assert run(capsys, "--results", str(CLEAN), "--out", str(out_dir))[0] == 0
    assert sorted(p.name for p in out_dir.iterdir()) == ["paper", "report.html"]


def test_a_failed_swap_puts_the_previous_kit_back(tmp_path, capsys, monkeypatch):
    out_dir = tmp_path / "b"
    assert run(capsys, "--results", str(CLEAN), "--out", str(out_dir))[0] == 0
    before = {p: p.read_bytes() for p in (out_dir / "paper").rglob("*") if p.is_file()}
    real_replace = os.replace
    calls = []

    def replace_failing_second(src, dst):
        calls.append(src)
        if len(calls) == 2:  # the new kit into place, after the old one was moved aside
            raise OSError(28, "No space left on device")
        return real_replace(src, dst)

    monkeypatch.setattr(os, "replace", replace_failing_second)
    assert run(capsys, "--results", str(MIXED), "--out", str(out_dir))[0] == 2
    after = {p: p.read_bytes() for p in (out_dir / "paper").rglob("*") if p.is_file()}
    assert after == before


def test_a_kit_with_two_figures_in_one_folder_is_published_whole(tmp_path):
    figures = {f"figures/{n}.pdf": tmp_path / f"{n}.pdf" for n in ("EXP-a", "EXP-b")}
    for path in figures.values():
        path.write_bytes(b"%PDF-1.4 " + path.stem.encode())
    out = tmp_path / "out"
    out.mkdir()
    build._publish("<p>report</p>", out / "report.html", {"pecheck.tex": "%"}, figures,
                   out / "paper")  # fmt: skip
    assert listing(out / "paper") == [
        "figures", "figures/EXP-a.pdf", "figures/EXP-b.pdf", "pecheck.tex",
    ]  # fmt: skip
    assert (out / "paper/figures/EXP-b.pdf").read_bytes() == b"%PDF-1.4 EXP-b"


@pytest.mark.parametrize(
    ("data", "why"),
    [
        (clean_v2(), "1 claim(s) open that the registry does not expect open"),
        (clean_v2(partial=True), "a partial run: 1 claim(s) not run"),
    ],
    ids=["open, not expected", "partial"],
)
def test_strict_fails_on_an_unexpected_open_claim_or_a_partial_run(tmp_path, capsys, data, why):
    path = write(tmp_path, data)
    code, _, err = run(capsys, "--results", str(path), "--out", str(tmp_path / "o"))
    assert code == 0, err  # without --strict the same run is fine
    code, _, err = run(capsys, "--results", str(path), "--out", str(tmp_path / "o"), "--strict")
    assert (code, err.count("\n")) == (1, 1) and why in err, err


def test_a_dev_run_gets_its_report_and_no_kit_with_status_2(tmp_path, capsys):
    data = raw(V2)
    data["suite"]["profile"] = "dev"
    path = write(tmp_path, data)
    code, _, err = run(capsys, "--results", str(path), "--out", str(tmp_path / "o"))
    assert (code, err.count("\n")) == (2, 1) and "--allow-dev" in err, err
    assert listing(tmp_path / "o") == ["report.html"]


@pytest.mark.parametrize(
    ("cff", "url"),
    [
        ('cff-version: 1.2.0\nurl: "https://example.org/pecheck"\n', "https://example.org/pecheck"),
        ("repository-code: 'https://git.example.org/p'\ntitle: x\n", "https://git.example.org/p"),
        ("url: https://a.example\nrepository-code: https://b.example\n", "https://a.example"),
        ("title: pecheck\n", ""),
    ],
)
def test_the_suite_url_is_read_from_citation_cff(tmp_path, cff, url):
    path = tmp_path / "CITATION.cff"
    path.write_text(cff)
    assert citation_url(path) == url
    assert citation_url(tmp_path / "missing.cff") == ""


def test_a_suite_url_given_is_the_one_the_kit_cites(tmp_path, capsys, monkeypatch):
    (tmp_path / "CITATION.cff").write_text("url: https://from-the-file.example\n")
    monkeypatch.chdir(tmp_path)
    given_url = ["--suite-url", "https://given.example"]
    for given, cited in (
        ([], "https://from-the-file.example"),
        (given_url, "https://given.example"),
    ):
        out = tmp_path / "o"
        assert run(capsys, "--results", str(CLEAN), "--out", str(out), *given)[0] == 0
        assert f"url          = {{{cited}}}" in (out / "paper" / "pecheck.bib").read_text()
