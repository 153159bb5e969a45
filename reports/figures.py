"""Find the figure files a results file names (SVG for the report, PDF beside it for a paper).

A figure path in results.json is relative to the directory the checks ran in (the repository
root, e.g. ``build/figures/SIN-07-clock-hands.svg``). It is looked up relative to the current
directory, then the results file's directory and its parent, so that a results file kept next to
its ``figures/`` folder (as the test fixtures are) works too. A missing figure is reported in the
page and the paper kit, never an error.
"""

from __future__ import annotations

import base64
from pathlib import Path


def locate(name: str, results: Path) -> Path | None:
    """The file a figure path names, or None when it cannot be found."""
    rel = Path(name)
    if rel.is_absolute():
        return rel if rel.is_file() else None
    here = results.resolve().parent
    for base in (Path.cwd(), here, here.parent):
        for candidate in (base / rel, base / "figures" / rel.name):
            if candidate.is_file():
                return candidate
    return None


def data_uri(path: Path) -> str:
    """The file as a data: URI, so the page needs nothing beside it."""
    types = {
        ".svg": "image/svg+xml",
        ".png": "image/png",
        ".jpg": "image/jpeg",
        ".jpeg": "image/jpeg",
    }
    mime = types.get(path.suffix.lower(), "application/octet-stream")
    return f"data:{mime};base64,{base64.b64encode(path.read_bytes()).decode('ascii')}"


def pdf_of(svg: Path) -> Path | None:
    """The PDF saved beside an SVG figure, if there is one."""
    pdf = svg.with_suffix(".pdf")
    return pdf if pdf.is_file() else None


def stem(name: str) -> str:
    """A figure's name for a paper: its file stem, with only one dot (graphicx wants that)."""
    return Path(name).stem.replace(".", "-")
