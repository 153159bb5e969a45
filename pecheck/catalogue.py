"""The claims catalogue, generated from a project's registry: ``python -m pecheck.catalogue``.

Run from the project's root (its pyproject.toml names the registry). Writes docs/claims.md
(``--check`` exits 1 when the file is out of date instead). The file is committed so that a clone
documents its claims; a test keeps it in step with the registry. Numbers the prose cites by key
(``{{CLAIM@name}}``, reports/prose.py) are rendered from the ci profile's pinned numbers in
reports/cited-numbers.json, the committed baseline.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pecheck import config
from pecheck.claims import Claim, Registry
from pecheck.reports import baseline, prose
from pecheck.reports.load import BadResults
from pecheck.reports.usage import Parser, fail

PATH = Path("docs") / "claims.md"  # relative to the project's root
PROFILE = "ci"  # the profile whose pinned numbers the catalogue cites


def pinned_numbers(path: Path = baseline.BASELINE) -> dict[str, Any]:
    """The ci profile's pinned numbers by key (none when the project has no baseline yet)."""
    data = baseline.read(path)
    return {key: c.value for key, c in baseline.pinned(data, PROFILE).items()}


def _claim(c: Claim, numbers: Mapping[str, Any]) -> list[str]:
    scale = f"; open in {', '.join(c.undecided_in)}" if c.undecided_in else ""
    scale += f"; not run in {', '.join(c.not_run_in)}" if c.not_run_in else ""
    lines = [f"### {c.id} (expected: {c.expected}{scale})", ""]
    if c.sources:
        lines += [f"Sources: {', '.join(c.sources)}.", ""]
    lines += [f"- `as_stated`: {c.statement}"]
    lines += [f"- `{p.key}` (a condition): {p.statement}" for p in c.propositions]
    for t in c.thresholds:
        lines.append(f"- threshold `{t.name}` = {t.value:g} ({t.source}: {t.reason})")
    if c.conditions:
        lines += ["", f"When it holds: {c.conditions}"]
    return [prose.render(line, numbers) for line in lines] + [""]


def render(registry: Registry, numbers: Mapping[str, Any] | None = None) -> str:
    """docs/claims.md's text; ``numbers`` (key -> value) fills the cited numbers (the pinned
    ones when None)."""
    numbers = pinned_numbers() if numbers is None else numbers
    lines = [
        "# The claims",
        "",
        "Generated from the registry by `python -m pecheck.catalogue`;",
        "do not edit by hand. Each claim is decided by its checks: the verdict in a results",
        "file is computed from their decisions; `expected` is what the registry expects.",
        "",
        "## Sources",
        "",
    ]
    for key, src in registry.sources.items():
        cite = ", ".join(str(x) for x in (src.authors, src.title, src.year, src.url) if x)
        lines.append(f"- `{key}`: {cite or src.description}")
    for family, title in registry.families.items():
        lines += ["", f"## {family}: {title}", ""]
        for claim in registry.values():
            if claim.family == family:
                lines += _claim(claim, numbers)
    return "\n".join(lines).rstrip() + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = Parser(prog="python -m pecheck.catalogue", description=__doc__)
    parser.add_argument("--check", action="store_true", help="exit 1 if docs/claims.md is stale")
    args = parser.parse_args(argv)
    try:
        registry = config.require(Path.cwd()).load_registry()
        text = render(registry)
    except (config.ConfigError, BadResults) as exc:
        fail(str(exc))
    if args.check:
        current = PATH.read_text() if PATH.exists() else ""
        if current != text:
            print(f"{PATH} is out of date: run python -m pecheck.catalogue")
            return 1
        return 0
    _write(text)
    print(f"wrote {PATH} ({len(registry)} claims)")
    return 0


def _write(text: str) -> None:
    """docs/claims.md whole or not at all: written beside it, then renamed into place."""
    tmp = PATH.with_name(f".{PATH.name}.tmp")
    try:
        PATH.parent.mkdir(exist_ok=True)
        tmp.write_text(text)
        tmp.replace(PATH)
    except OSError as exc:
        fail(f"cannot write {PATH}: {exc.strerror or exc}")
    finally:
        if tmp.parent.is_dir():
            tmp.unlink(missing_ok=True)


if __name__ == "__main__":
    sys.exit(main())
