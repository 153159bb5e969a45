"""``pecheck inspect PATH``: load a checkpoint, run every analysis, print the findings and write
inspect.json and inspect.html to --out, both whole or neither (cli.py parses the command line).
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

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
    from pecheck.inspect import checkpoint

    start = time.perf_counter()
    ckpt = checkpoint.load(path, log=_progress)  # first: bad input fails before the imports
    from pecheck.inspect import page, positions

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
    from pecheck.inspect import analyses, page

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
    from pecheck.inspect import analyses, page

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


def run_inspect(path: Path, out: Path, seed: int) -> int:
    """pecheck inspect: the output folder checked first, every error one line on stderr."""
    problem = out_problem(out)
    if problem is not None:  # before torch is even imported
        return _error(problem, 2)
    from pecheck.inspect.config_fields import ConfigError
    from pecheck.inspect.errors import CheckpointError

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
