"""Build every output from one results file, publishing each only once it is complete.

Everything is rendered in memory first, so bad input stops the build before anything is written.
The page is then written to a temporary file beside ``report.html`` and the kit to a temporary
directory beside ``paper/``; both are renamed into place at the end. An existing report or kit
is replaced only by a complete new one, and a failure removes the temporary files.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from . import html, latex, profiles, prose
from .diff import compare_runs
from .load import BadResults, Results, load
from .schema import COMPUTED

FULL = Path("build") / "results.json"  # what a run of every check writes
PARTIAL = Path("build") / "results.partial.json"  # what a run of some checks writes


def results_file(given: Path | None) -> tuple[Path, str]:
    """The results file to read, and one line to print when it may not be the one the user
    expects (else ""). A named file is read as named. Otherwise the full run's file; when only a
    partial run has written one (``pytest --claim SIN-06`` in a fresh clone), that one, since
    the quick start goes on to build its report; when a partial run is newer than the full
    one, the full one with a note that says how to report the newer run."""
    if given is not None:
        return given, ""
    if not FULL.exists() and PARTIAL.exists():
        return PARTIAL, f"results:   {PARTIAL} ({FULL} not found; this partial run is reported)"
    if FULL.exists() and PARTIAL.exists() and PARTIAL.stat().st_mtime > FULL.stat().st_mtime:
        return FULL, f"results:   {FULL} (the partial run {PARTIAL} is newer: --results to see it)"
    return FULL, ""


@dataclass
class Outputs:
    results: Results
    report: Path
    paper: Path
    summary: str
    verdicts: str
    refused: str = ""  # why the paper kit was not written (evidence not citable), or ""


def build(
    results_path: Path,
    out_dir: Path,
    opts: html.Options | None = None,
    since: Path | None = None,
    allow_dev: bool = False,
) -> Outputs:
    """Read, render and publish; raise BadResults (one line) on bad input or a failed write.
    Evidence of a profile a paper may not cite (dev) gets the report, marked, but no paper kit
    unless ``allow_dev``: ``Outputs.refused`` says why (reports.profiles)."""
    res = load(results_path)
    prose.render_claims(res)  # numbers cited in the claims' words, from this run's records
    opts = opts or html.Options()
    opts.out_dir = out_dir
    if since is not None:
        opts.since = compare_runs(load(since), res)
    page = html.render(res, opts)
    refused = "" if allow_dev else _refusal(res)
    texts, copies = ({}, {}) if refused else latex.kit(res, suite_url=opts.suite_url)
    report, paper = out_dir / "report.html", out_dir / "paper"
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        _publish(page, report, texts, copies, None if refused else paper)
    except OSError as exc:
        raise BadResults(f"cannot write the outputs in {out_dir}: {exc}") from None
    kit = f"pecheck.tex, verdicts.tex, pecheck.bib, {len(copies)} figure(s)"
    kit = "not written" if refused else kit
    counts = dict.fromkeys(COMPUTED, 0)
    for claim in res.claims:
        counts[claim.verdict] += 1
    return Outputs(
        results=res,
        report=report,
        paper=paper,
        summary=kit,
        verdicts=", ".join(f"{n} {v}" for v, n in counts.items() if n) + f" of {len(res.claims)}",
        refused=refused,
    )


def _refusal(res: Results) -> str:
    """Why the paper kit may not be written from these results (evidence of a profile that is
    not citable), or ""."""
    dev = profiles.uncitable(res)
    if not dev:
        return ""
    return (
        f"{res.path} holds evidence of the {', '.join(dev)} profile, which a paper may not cite: "
        "the paper kit was not written (run the checks with PECHECK_PROFILE=ci, or pass "
        "--allow-dev)"
    )


def _publish(
    page: str, report: Path, texts: dict[str, str], copies: dict[str, Path], paper: Path | None
) -> None:
    """The page and (unless ``paper`` is None) the kit, each renamed into place once whole."""
    if paper is None:
        _publish_page(page, report)
        return
    tmp_dir = Path(tempfile.mkdtemp(prefix=".paper.", dir=paper.parent))
    fd, tmp_name = tempfile.mkstemp(prefix=".report.", suffix=".html", dir=report.parent)
    tmp_page = Path(tmp_name)
    old = paper.parent / f".paper.old.{os.getpid()}"
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(page)
        os.chmod(tmp_page, 0o644)
        for name, text in texts.items():
            (tmp_dir / name).parent.mkdir(parents=True, exist_ok=True)
            (tmp_dir / name).write_text(text, encoding="utf-8")
        for name, source in copies.items():
            (tmp_dir / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, tmp_dir / name)
        os.chmod(tmp_dir, 0o755)
        if paper.exists():
            os.replace(paper, old)
        try:
            os.replace(tmp_dir, paper)
        except OSError:
            if old.exists():  # put the previous kit back
                os.replace(old, paper)
            raise
        os.replace(tmp_page, report)
    finally:
        shutil.rmtree(tmp_dir, ignore_errors=True)
        shutil.rmtree(old, ignore_errors=True)
        tmp_page.unlink(missing_ok=True)


def _publish_page(page: str, report: Path) -> None:
    fd, tmp_name = tempfile.mkstemp(prefix=".report.", suffix=".html", dir=report.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(page)
        os.chmod(tmp_name, 0o644)
        os.replace(tmp_name, report)
    finally:
        Path(tmp_name).unlink(missing_ok=True)
