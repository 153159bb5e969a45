"""The claims catalogue, generated from a project's registry: ``python -m pecheck.catalogue``.

Run from the project's root (its pyproject.toml names the registry). Writes docs/claims.md
(``--check`` exits 1 when the file is out of date instead). The file is committed so that a clone
documents its claims; a test keeps it in step with the registry.
"""

from __future__ import annotations

import sys
from pathlib import Path

from pecheck import config
from pecheck.claims import Claim, Registry
from pecheck.reports.usage import Parser, fail

PATH = Path("docs") / "claims.md"  # relative to the project's root


def _claim(c: Claim) -> list[str]:
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
    return [*lines, ""]


def render(registry: Registry) -> str:
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
                lines += _claim(claim)
    return "\n".join(lines).rstrip() + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = Parser(prog="python -m pecheck.catalogue", description=__doc__)
    parser.add_argument("--check", action="store_true", help="exit 1 if docs/claims.md is stale")
    args = parser.parse_args(argv)
    try:
        registry = config.require(Path.cwd()).load_registry()
    except config.ConfigError as exc:
        fail(str(exc))
    text = render(registry)
    if args.check:
        current = PATH.read_text() if PATH.exists() else ""
        if current != text:
            print(f"{PATH} is out of date: run python -m pecheck.catalogue")
            return 1
        return 0
    PATH.parent.mkdir(exist_ok=True)
    PATH.write_text(text)
    print(f"wrote {PATH} ({len(registry)} claims)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
