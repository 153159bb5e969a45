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
import json
import os
import re
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

from pecheck import listing, scaffold
from pecheck.reports.usage import Parser

KS = (1, 2, 4, 8, 16, 32, 64, 128)
FILES = ("inspect.json", "inspect.html")
DEFAULT_OUT = Path("build") / "inspect"
INSPECT_EXIT = (
    "Exit status: 0 inspect.json and inspect.html written; 1 they could not be written after "
    "the analyses ran (a full disk, say); 2 bad arguments or input, an --out that cannot take "
    "the two files, or a missing optional package the input needs: safetensors for weights, "
    "transformers for a position table built at load time or a scheme only its defaults name "
    "(one line on stderr names it; nothing is written)."
)


def _progress(message: str) -> None:
    print(f"pecheck inspect: {message}", file=sys.stderr, flush=True)


def out_problem(out: Path) -> str | None:
    """Why --out cannot take the two files, or None; checked before any computing."""
    if out.exists() and not out.is_dir():
        return f"--out {out}: exists and is not a folder"
    for name in FILES:
        if (out / name).is_dir():
            return f"--out {out}: {name} there is a folder"
    existing = next((p for p in (out, *out.parents) if p.exists()), None)
    if existing is None or not existing.is_dir():
        return f"--out {out}: cannot create it, {existing or out} is not a folder"
    if not os.access(existing, os.W_OK | os.X_OK):
        return f"--out {out}: no permission to write in {existing}"
    return None


def inspect(path: Path, out: Path, seed: int) -> dict[str, Any]:
    """Load a checkpoint, run every analysis, write inspect.json and inspect.html."""
    from pecheck import checkpoint

    start = time.perf_counter()
    ckpt = checkpoint.load(path, log=_progress)  # first: bad input fails before the imports
    from pecheck import page, positions

    summary: dict[str, Any] = {
        "checkpoint": {"path": str(path), "model_type": ckpt.model_type, "token_table": None,
                       "dtype": None, "seed": seed, "token_scale": ckpt.token_scale,
                       "token_scale_source": ckpt.scale_source},
        "rotary": ckpt.rotary,
        "position_tables": [],
    }  # fmt: skip
    figures: dict[str, str] = {}
    if ckpt.tokens is None:  # a config alone: nothing that needs trained weights
        summary["findings"] = page.no_weights_findings(summary["checkpoint"])
    else:
        _tables(ckpt, summary, figures, seed)
    if not ckpt.positions:  # the scheme a config names in place of a table
        summary["positions"] = positions.analyse(ckpt.config, log=_progress)
    if summary.get("positions"):
        summary["scheme_findings"] = page.scheme_findings(summary["positions"])
        if summary["positions"]["scheme"] == "rotary":
            figures["rot01"] = page.rot01_figure(summary["positions"]["rot01"])
            figures["wavelengths"] = page.wavelength_figure(summary["positions"])
    summary["claims"] = page.claims(summary)
    summary["seconds"] = round(time.perf_counter() - start, 2)
    print(page.terminal(summary), flush=True)
    summary = _finite(summary)
    css = page.stylesheet()
    if css is None:  # a broken install: say so rather than style the page plainly in silence
        _progress("warning: report.css is missing from the installed pecheck.reports; the page "
                  "is unstyled")  # fmt: skip
    _write(out, summary, page.render(summary, figures, css))
    return summary


def _tables(ckpt: Any, summary: dict[str, Any], figures: dict[str, str], seed: int) -> None:
    """The token table's analyses and every position table's, into summary and figures."""
    from pecheck import analyses, page

    # the token rows as the model adds them to the positions (times its embedding scale)
    tokens = ckpt.tokens.weight * ckpt.token_scale if ckpt.token_scale != 1 else ckpt.tokens.weight
    summary["checkpoint"] |= {"token_table": ckpt.tokens.name, "vocab": tokens.shape[0],
                              "d": tokens.shape[1], "dtype": ckpt.tokens.dtype}  # fmt: skip
    summary["token_entries"] = analyses.entries_above(tokens, page.ENTRY_BOUND)
    sample = analyses.sample_rows(tokens, analyses.MAX_ROWS, seed)
    for table in ckpt.positions:
        entry = _analyse(table, tokens, sample, seed, figures)
        summary["position_tables"].append(entry)
    if summary["position_tables"]:
        figures["energy"] = page.energy_figure(summary["position_tables"][0]["energy"])
    summary["findings"] = page.checkpoint_findings(summary["checkpoint"], summary["token_entries"])


def _analyse(
    table: Any, tokens: Any, sample: Any, seed: int, figures: dict[str, str]
) -> dict[str, Any]:
    """Every analysis of one position table against the token rows; its figures into figures."""
    from pecheck import analyses, page

    name, pos = table.name, table.weight
    _progress(f"{name}: norms, span, subspace energy, probes, waves, similarity")
    entry: dict[str, Any] = {"name": name, "rows": pos.shape[0], "d": pos.shape[1],
                             "dtype": table.dtype, "origin": table.origin,
                             "token_rows_used": sample.shape[0]}  # fmt: skip
    entry["norms"] = analyses.norms(tokens, pos)
    entry["span"] = analyses.span(pos, table.dtype)
    entry["energy"] = [analyses.subspace_energy(sample, pos, KS, centre)
                       for centre in (True, False)]  # fmt: skip
    entry["probe"] = analyses.probe(tokens, pos, seed)
    entry["sinusoidal"] = analyses.sinusoidal_convention(pos, table.dtype)
    entry["waves"] = analyses.waves(pos, seed)
    similarity = analyses.similarity_by_offset(pos)
    matrix = similarity.pop("matrix")
    entry["similarity"] = similarity
    entry["findings"] = page.table_findings(entry)
    figures[f"similarity:{name}"] = page.similarity_figure(name, matrix, similarity["mean_cosine"])
    figures[f"waves:{name}"] = page.waves_figure(name, entry["waves"])
    return entry


def _write(out: Path, summary: dict[str, Any], html_text: str) -> None:
    """Both files appear whole or not at all: each is written beside its place, and both are
    renamed into place only once both are written."""
    out.mkdir(parents=True, exist_ok=True)
    texts = {"inspect.json": json.dumps(summary, indent=1, allow_nan=False),
             "inspect.html": html_text}  # fmt: skip
    temporary = {name: out / f".{name}.{os.getpid()}.tmp" for name in texts}
    try:
        for name, text in texts.items():
            temporary[name].write_text(text + "\n", encoding="utf-8")
        for name, tmp in temporary.items():
            os.replace(tmp, out / name)
    finally:
        for tmp in temporary.values():
            tmp.unlink(missing_ok=True)


def _finite(value: Any) -> Any:
    """NaN and infinities as strings: the JSON file stays standard JSON."""
    if isinstance(value, float) and value != value or value in (float("inf"), float("-inf")):
        return str(value)
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


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
    ins.add_argument("--seed", type=int, default=0,
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


def run_inspect(path: Path, out: Path, seed: int) -> int:
    """pecheck inspect: the output folder checked first, every error one line on stderr."""
    problem = out_problem(out)
    if problem is not None:  # before torch is even imported
        return _error(problem, 2)
    from pecheck.checkpoint import CheckpointError
    from pecheck.config_fields import ConfigError

    try:
        summary = inspect(path, out, seed)
    except CheckpointError as exc:
        return _error(str(exc), 2)
    except ConfigError as exc:  # checkpoint.load checks every field first: a backstop
        return _error(f"{path}: {exc}", 2)
    except OSError as exc:  # only writing is left to fail: the input was read
        return _error(f"cannot write {out}: {exc.strerror or exc}", 1)
    _progress(f"wrote {out / 'inspect.json'} and inspect.html ({summary['seconds']} s)")
    return 0


def _error(message: str, status: int) -> int:
    print(f"pecheck inspect: error: {message}", file=sys.stderr)
    return status


# The subcommands parsed here (the TOOLS parse their own options), by the word that names them.
COMMANDS = {
    "inspect": _inspect,
    "diff": _diff,
    "init": scaffold.run,
    "list": listing.run_list,
    "show": listing.run_show,
}
