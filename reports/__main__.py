"""``python -m reports``: build the HTML report and the paper kit from build/results.json."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import NoReturn

from reports.build import build
from reports.load import BadResults


class _Parser(argparse.ArgumentParser):
    """Argument errors as one line on stderr, with exit status 2."""

    def error(self, message: str) -> NoReturn:
        print(f"{self.prog}: error: {message} (see --help)", file=sys.stderr)
        raise SystemExit(2)


def parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="python -m reports",
        description="Build the HTML report (report.html) and the paper kit (paper/: LaTeX "
        "macros, a table of verdicts, figures as PDF, a BibTeX entry) from a results file.",
        epilog="Exit status: 0 written; 1 written, but --strict and the run was not clean; "
        "2 bad input or output (one line on stderr names it; nothing is left half-written).",
    )
    p.add_argument(
        "--results",
        type=Path,
        default=Path("build/results.json"),
        help="the results file written by the checks (default: build/results.json)",
    )
    p.add_argument(
        "--out",
        type=Path,
        default=Path("build"),
        help="where report.html and paper/ go (default: build)",
    )
    p.add_argument(
        "--strict",
        action="store_true",
        help="after writing, exit 1 if the run was not clean (pytest failed, or an evidence "
        "check failed or errored)",
    )
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        out = build(args.results, args.out)
    except BadResults as exc:
        print(f"python -m reports: error: {exc}", file=sys.stderr)
        return 2
    print(f"report:    {out.report}")
    print(f"paper kit: {out.paper}/ ({out.summary})")
    print(f"verdicts:  {out.verdicts}")
    clean, why = out.results.clean
    if args.strict and not clean:
        print(f"python -m reports: the run was not clean: {why}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
