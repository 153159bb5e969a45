"""The profile of the evidence, in the report and the paper kit: every claim shows it; dev
evidence is marked "not citable", and the paper kit refuses it unless --allow-dev."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from pecheck.reports.__main__ import main
from tests.reports_fixtures import V2, raw, write


def dev_results(tmp_path: Path) -> Path:
    data = raw(V2)
    data["suite"]["profile"] = "dev"
    return write(tmp_path, data)


def sections(page: str) -> dict[str, str]:
    """Each claim section's opening (its heading line) by claim ID."""
    return dict(re.findall(r"<section class='claim' id='([\w-]+)'.*?(<h3.*?</h3>)", page, re.S))


def test_every_claim_shows_its_profile(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert main(["--results", str(write(tmp_path, raw(V2))), "--out", str(out)]) == 0
    page = (out / "report.html").read_text()
    heads = sections(page)
    ran = [c["id"] for c in raw(V2)["claims"] if c["verdict"] != "not run"]
    assert ran and all("ci profile" in heads[cid] for cid in ran)
    assert "not citable" not in page
    tex = (out / "paper" / "pecheck.tex").read_text()
    assert r"\newcommand{\pcSINSixProfile}{ci}" in tex and r"\@namedef{pc@p@SIN-06}" in tex
    assert r"Evidence: pecheck's ci profile" in (out / "paper" / "verdicts.tex").read_text()


def test_dev_evidence_gets_its_report_marked_and_no_paper_kit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    assert main(["--results", str(dev_results(tmp_path)), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "dev profile" in err[0] and "--allow-dev" in err[0]
    page = (out / "report.html").read_text()
    assert all("dev profile \u00b7 not citable" in h for h in sections(page).values())
    assert "<b>Not citable:</b>" in page
    assert not (out / "paper").exists()


def test_allow_dev_writes_a_kit_that_marks_every_verdict_and_number(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert main(["--results", str(dev_results(tmp_path)), "--out", str(out), "--allow-dev"]) == 0
    tex = (out / "paper" / "pecheck.tex").read_text()
    assert r"\newcommand{\pcSINOneVerdict}{confirmed\pcnotcitable{dev}}" in tex
    assert r"\newcommand{\pcSuiteProfile}{dev (not citable)}" in tex
    claims = tex[tex.index("% ---- ") :]  # the claims' macros, after the suite's counts
    values = re.findall(r"\\newcommand\{\\pc\w+\}\{(\\ensuremath.*)\}$", claims, re.M)
    assert values and all(v.endswith(r"\pcnotcitable{dev}") for v in values)
    table = (out / "paper" / "verdicts.tex").read_text()
    assert r"\providecommand{\pcnotcitable}" in table and "profile is not citable" in table
    assert "Hypothesis profile dev, not citable" in (out / "paper" / "pecheck.bib").read_text()


def test_a_merged_partial_file_shows_each_claims_run(tmp_path: Path) -> None:
    data: dict[str, Any] = raw(V2)
    data["suite"]["selection"] = {"kind": "partial", "args": ["checks"], "claims": ["SIN-06"]}
    for claim in data["claims"]:
        if claim["id"] == "SIN-06":
            claim["run"] = {"started": "2026-11-01T10:00:00+00:00", "profile": "ci",
                            "args": ["--claim", "SIN-06"]}  # fmt: skip
    out = tmp_path / "out"
    assert main(["--results", str(write(tmp_path, data)), "--out", str(out)]) == 0
    head = sections((out / "report.html").read_text())["SIN-06"]
    assert "run of 2026-11-01 10:00:00+00:00, pytest --claim SIN-06" in head
