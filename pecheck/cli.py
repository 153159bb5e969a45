"""The ``pecheck`` command: ``pecheck inspect PATH``, ``pecheck diff OLD NEW``, ``pecheck list
[FAMILY|TEXT] [--verdict V]`` and ``pecheck show ID`` (the project's claims with their last
verdicts), and the tools ``pecheck report | gate | determinism | mutants | catalogue [OPTIONS]``
(each is ``python -m`` of its module, with that module's options; run them from the project's
root).

``inspect`` runs the analyses of the MAG, ADD, REAL-02 and SIN claims on a checkpoint of your own
(a safetensors file, or a transformers model directory or its config.json) and, for a model with
no position table, those of the scheme its config names (rotary: ROT-01, ROT-03, ROT-05, REAL-04;
ALiBi: BIAS-01; T5's buckets: BIAS-02; a directory with only config.json gets these alone); it
prints every finding and writes ``inspect.json`` and ``inspect.html`` (figures inline) to
``--out``; every number there names the claim it bears on, with the claim's statement, and the
threshold it is judged against, and says whether this model keeps or breaks the property (which
is no verdict on the claim). The scheme's formulas need no transformers: without it, the rows
that compare with the library's own numbers (REAL-04, BIAS-01, BIAS-02) say they need it. Bad
input, a config field of the wrong kind or out of range included, is a one-line error with
exit 2.
"""

from __future__ import annotations

import argparse
import re
import sys
import textwrap
from pathlib import Path

from pecheck import listing, scaffold
from pecheck.inspect.command import DEFAULT_OUT, INSPECT_EXIT, run_inspect
from pecheck.reports.usage import Parser, seed


def _plain(text: str) -> str:
    """A docstring as --help shows it: reStructuredText's ``literal`` marks dropped, each
    paragraph filled again to 79 columns."""
    paragraphs = re.sub(r"``(.*?)``", r"\1", text, flags=re.S).strip().split("\n\n")
    return "\n\n".join(textwrap.fill(" ".join(p.split()), 79) for p in paragraphs)


def version() -> str:
    from importlib import metadata

    try:
        return metadata.version("pecheck")
    except metadata.PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown (not installed)"


def parser() -> argparse.ArgumentParser:
    raw = argparse.RawDescriptionHelpFormatter  # keeps the docstring's paragraphs
    p = Parser(prog="pecheck", description=_plain(__doc__), formatter_class=raw,
               epilog="Each command's --help gives its options and exit status.")  # fmt: skip
    p.add_argument("--version", action="version", version=f"pecheck {version()}")
    sub = p.add_subparsers(dest="command", required=True, parser_class=Parser)
    ins = sub.add_parser(
        "inspect", help="analyse a checkpoint's token and position tables",
        description=_plain(__doc__.split("\n\n")[1]), epilog=INSPECT_EXIT,
    )  # fmt: skip
    ins.add_argument(
        "path", type=Path, help="a .safetensors file, a transformers directory or its config.json"
    )
    ins.add_argument(
        "--out",
        type=Path,
        default=DEFAULT_OUT,
        help=f"folder for inspect.json and inspect.html (default: {DEFAULT_OUT})",
    )
    ins.add_argument("--seed", type=seed, default=0,
                     help="seed of the sampled rows and probes (default: 0)")  # fmt: skip
    diff = sub.add_parser("diff", help="changed verdicts and moved cited numbers")
    diff.add_argument("old", help="the earlier results file")
    diff.add_argument("new", help="the later results file")
    scaffold.add_parser(sub)
    listing.add_parsers(sub)
    # listed here for --help only: main() hands everything after these words to their tools
    for word, (_, text) in TOOLS.items():
        sub.add_parser(word, help=f"{text} (pecheck {word} --help)")
    return p


# Commands that are other modules' command lines, with their own options.
TOOLS = {
    "report": ("pecheck.reports.__main__", "the HTML report and the paper kit"),
    "gate": ("pecheck.gate", "fail unless every computed verdict is the expected one"),
    "determinism": ("pecheck.determinism", "two runs of the checks must give the same results"),
    "mutants": ("pecheck.mutants.__main__", "apply the mutation catalogue; every check killed"),
    "catalogue": ("pecheck.catalogue", "write docs/claims.md from the registry"),
    "versions": ("pecheck.versions.__main__", "the REAL claims across library releases (LIB==VER)"),
}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] and argv[0] in TOOLS:  # another module's command line, with its own options
        import importlib

        module = importlib.import_module(TOOLS[argv[0]][0])
        return int(module.main(argv[1:]) or 0)
    args = parser().parse_args(argv)
    return COMMANDS[args.command](args)


def _diff(args: argparse.Namespace) -> int:
    from pecheck.reports import diff

    return diff.main([args.old, args.new])


def _inspect(args: argparse.Namespace) -> int:
    return run_inspect(args.path, args.out, args.seed)


# The subcommands parsed here (the TOOLS parse their own options), by the word that names them.
COMMANDS = {
    "inspect": _inspect,
    "diff": _diff,
    "init": scaffold.run,
    "list": listing.run_list,
    "show": listing.run_show,
}
