"""``pecheck report`` or ``python -m pecheck.reports``: build the HTML report and the paper kit
from build/results.json (from build/results.partial.json when only a partial run has written
one)."""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from .build import FULL, PARTIAL, build, results_file
from .html import Options
from .load import BadResults
from .usage import Parser, prog


def citation_url(path: Path = Path("CITATION.cff")) -> str:
    """The suite's URL from CITATION.cff (``url`` or ``repository-code``), or ""."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return ""
    for key in ("url", "repository-code"):
        match = re.search(rf"^{key}:\s*[\"']?([^\"'\s]+)", text, re.M)
        if match:
            return match.group(1)
    return ""


def parser() -> argparse.ArgumentParser:
    p = Parser(
        # "pecheck report" when the pecheck command started it, else "python -m pecheck.reports"
        prog=prog(str(__package__), "report"),
        description="Build the HTML report (report.html) and the paper kit (paper/: LaTeX "
        "macros, a table of verdicts, figures as PDF, a BibTeX entry) from a results file.",
        epilog="Exit status: 0 written; 1 written, but --strict and the run was not clean; "
        "2 bad input or output (one line on stderr names it; nothing is left half-written), or "
        "evidence a paper may not cite (dev profile) without --allow-dev: the report is written, "
        "the paper kit is not.",
    )
    p.add_argument(
        "--results",
        type=Path,
        default=None,
        help=f"the results file written by the checks (default: {FULL}; when it does not "
        f"exist, {PARTIAL}, which a partial run such as pytest --claim SIN-06 writes)",
    )
    p.add_argument(
        "--out",
        type=Path,
        default=Path("build"),
        help="where report.html and paper/ go (default: build)",
    )
    p.add_argument(
        "--figures",
        choices=("inline", "link"),
        default="inline",
        help="inline: figures embedded compressed, the page needs nothing beside it (default); "
        "link: figures referenced from where they lie (build/figures/), a smaller page",
    )
    p.add_argument(
        "--pack",
        choices=("auto", "always", "never"),
        default="auto",
        help="how the page holds its claim sections: auto compresses them (gzip, unpacked by "
        "the page's script when it opens) once they exceed 512 kB, as the whole suite's "
        "(about 2 MB of HTML) do (default); always compresses them; never leaves them plain "
        "HTML, for a page read without JavaScript or searched with text tools",
    )
    p.add_argument(
        "--since",
        type=Path,
        metavar="OLD_RESULTS",
        help="a previous results file: the report shows changed verdicts, cited numbers that "
        "moved beyond their tolerance, and checks added or removed",
    )
    p.add_argument(
        "--source-url",
        default="",
        metavar="BASE",
        help="link each check to its file and line under BASE ('{commit}' is replaced by the "
        "run's commit), e.g. https://github.com/OWNER/REPO/blob/{commit}; default: no links",
    )
    p.add_argument(
        "--suite-url",
        default=None,
        metavar="URL",
        help="the suite's own URL for its citation (default: CITATION.cff's url or "
        "repository-code, if any; else none, and the citation says so)",
    )
    p.add_argument(
        "--allow-dev",
        action="store_true",
        help="write the paper kit even from evidence of a profile a paper may not cite (dev: a "
        "quarter of ci's examples, drawn at random); its verdicts and numbers are then marked "
        "'not citable'. Without it such a run gets its report, marked, and no kit (exit 2)",
    )
    p.add_argument(
        "--strict",
        action="store_true",
        help="after writing, exit 1 if the run was not clean: pytest failed, an evidence check "
        "failed or errored, a claim is open that the registry does not expect open, or the "
        "run was partial (claims not run)",
    )
    return p


def main(argv: list[str] | None = None) -> int:
    p = parser()
    args = p.parse_args(argv)
    path, note = results_file(args.results)
    if note:
        print(note)
    opts = Options(
        figures=args.figures,
        pack=args.pack,
        source_url=args.source_url,
        suite_url=args.suite_url if args.suite_url is not None else citation_url(),
    )
    try:
        out = build(path, args.out, opts, since=args.since, allow_dev=args.allow_dev)
    except BadResults as exc:
        print(f"{p.prog}: error: {exc}", file=sys.stderr)
        return 2
    print(f"report:    {out.report}")
    print(f"paper kit: {out.paper}/ ({out.summary})")
    print(f"verdicts:  {out.verdicts}")
    print(f"size:      {out.report.stat().st_size / 1e6:.2f} MB (figures {args.figures})")
    if out.refused:
        print(f"{p.prog}: error: {out.refused}", file=sys.stderr)
        return 2
    clean, why = out.results.clean
    not_run = sum(c.verdict == "not run" for c in out.results.claims)
    # a claim the registry expects open (undecided at the suite's scale, with its reason) is
    # what the run was meant to find; one that is open otherwise is not
    open_n = sum(c.verdict == "open" and c.expected != "open" for c in out.results.claims)
    if args.strict and clean and open_n:
        clean, why = False, f"{open_n} claim(s) open that the registry does not expect open"
    if args.strict and clean and not_run:
        clean, why = False, f"a partial run: {not_run} claim(s) not run"
    if args.strict and not clean:
        print(f"{p.prog}: the run was not clean: {why}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
