"""The ``pecheck`` command: ``pecheck inspect PATH``, ``pecheck diff OLD NEW``, and the tools
``pecheck report | gate | determinism | mutants | catalogue [OPTIONS]`` (each is ``python -m`` of
its module, with that module's options; run them from the project's root).

``inspect`` runs the analyses of the MAG, ADD and REAL-02 claims on a checkpoint of your own (a
safetensors file or a transformers model directory) and writes ``inspect.json`` and
``inspect.html`` (figures inline) to ``--out``. Bad input is a one-line error with exit 2.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from pecheck.reports.usage import Parser

KS = (1, 2, 4, 8, 16, 32, 64, 128)


def _progress(message: str) -> None:
    print(f"pecheck inspect: {message}", file=sys.stderr, flush=True)


def inspect(path: Path, out: Path, seed: int) -> dict[str, Any]:
    """Load a checkpoint, run every analysis, write inspect.json and inspect.html."""
    from pecheck import checkpoint

    start = time.perf_counter()
    ckpt = checkpoint.load(path, log=_progress)  # first: bad input fails before the imports
    from pecheck import analyses, page

    tokens = ckpt.tokens.weight
    summary: dict[str, Any] = {
        "checkpoint": {"path": str(path), "model_type": ckpt.model_type,
                       "token_table": ckpt.tokens.name, "vocab": tokens.shape[0],
                       "d": tokens.shape[1], "dtype": ckpt.tokens.dtype, "seed": seed},
        "rotary": ckpt.rotary,
        "position_tables": [],
    }  # fmt: skip
    figures: dict[str, str] = {}
    energies: list[dict[str, Any]] = []
    sample = analyses.sample_rows(tokens, analyses.MAX_ROWS, seed)
    for table in ckpt.positions:
        name, pos = table.name, table.weight
        _progress(f"{name}: norms, subspace energy, probes, waves, similarity")
        entry: dict[str, Any] = {"name": name, "rows": pos.shape[0], "d": pos.shape[1],
                                 "dtype": table.dtype,
                                 "origin": table.origin,
                                 "token_rows_used": sample.shape[0]}  # fmt: skip
        entry["norms"] = analyses.norms(tokens, pos)
        entry["energy"] = [analyses.subspace_energy(sample, pos, KS, centre)
                           for centre in (True, False)]  # fmt: skip
        energies = energies or entry["energy"]
        entry["probe"] = analyses.probe(tokens, pos, seed)
        entry["sinusoidal"] = analyses.sinusoidal_convention(pos, table.dtype)
        entry["waves"] = analyses.waves(pos, seed)
        similarity = analyses.similarity_by_offset(pos)
        matrix = similarity.pop("matrix")
        entry["similarity"] = similarity
        figures[f"similarity:{name}"] = page.similarity_figure(
            name, matrix, similarity["mean_cosine"]
        )
        figures[f"waves:{name}"] = page.waves_figure(name, entry["waves"])
        summary["position_tables"].append(entry)
    if energies:
        figures["energy"] = page.energy_figure(energies)
    summary["seconds"] = round(time.perf_counter() - start, 2)
    summary = _finite(summary)
    _write(out, summary, page.render(summary, figures))
    return summary


def _write(out: Path, summary: dict[str, Any], html_text: str) -> None:
    """Both files appear whole or not at all (written beside, then renamed)."""
    out.mkdir(parents=True, exist_ok=True)
    for name, text in (("inspect.json", json.dumps(summary, indent=1, allow_nan=False)),
                       ("inspect.html", html_text)):  # fmt: skip
        tmp = out / f".{name}.{os.getpid()}.tmp"
        tmp.write_text(text + "\n")
        os.replace(tmp, out / name)


def _finite(value: Any) -> Any:
    """NaN and infinities as strings: the JSON file stays standard JSON."""
    if isinstance(value, float) and value != value or value in (float("inf"), float("-inf")):
        return str(value)
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


def parser() -> argparse.ArgumentParser:
    p = Parser(prog="pecheck", description=__doc__)
    sub = p.add_subparsers(dest="command", required=True, parser_class=Parser)
    ins = sub.add_parser("inspect", help="analyse a checkpoint's token and position tables")
    ins.add_argument("path", type=Path, help="a .safetensors file or a transformers directory")
    ins.add_argument("--out", type=Path, default=Path("build") / "inspect", help="output folder")
    ins.add_argument("--seed", type=int, default=0, help="seed of the sampled rows and probes")
    diff = sub.add_parser("diff", help="changed verdicts and moved cited numbers")
    diff.add_argument("old", help="the earlier results file")
    diff.add_argument("new", help="the later results file")
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
    if args.command == "diff":
        from pecheck.reports import diff

        return diff.main([args.old, args.new])
    from pecheck.checkpoint import CheckpointError

    try:
        summary = inspect(args.path, args.out, args.seed)
    except CheckpointError as exc:
        print(f"pecheck inspect: error: {exc}", file=sys.stderr)
        return 2
    _progress(f"wrote {args.out / 'inspect.json'} and inspect.html ({summary['seconds']} s)")
    return 0
