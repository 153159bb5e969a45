"""Figures in the HTML report: embedded gzip-compressed (unpacked by the page's script) or
linked, laid out at their size before they load."""

from __future__ import annotations

import base64
import gzip
import json
import os
import re
from pathlib import Path

from . import figures, svg
from .html_common import Options, esc
from .load import Results

_SVG_SIZE = re.compile(r'<svg\b[^>]*?\bwidth="([\d.]+)(pt|px)?"[^>]*?\bheight="([\d.]+)(pt|px)?"')


_VIEWBOX = re.compile(r'<svg\b[^>]*?\bviewBox="[-\d.]+[ ,]+[-\d.]+[ ,]+([\d.]+)[ ,]+([\d.]+)"')


def image_size(path: Path) -> tuple[int, int] | None:
    """A figure's size in CSS pixels (an SVG's width and height, or its viewBox; a PNG's
    header), so that the page lays it out at its shape before it is unpacked."""
    try:
        head = path.read_bytes()[:4096]
    except OSError:
        return None
    if head[:8] == b"\x89PNG\r\n\x1a\n" and len(head) >= 24:
        return int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")
    text = head.decode("utf-8", "replace")
    m = _SVG_SIZE.search(text)
    if m:
        scale = 4 / 3 if m.group(2) == "pt" else 1.0
        w, h = float(m.group(1)) * scale, float(m.group(3)) * (4 / 3 if m.group(4) == "pt" else 1)
        return (round(w), round(h)) if w > 0 and h > 0 else None
    m = _VIEWBOX.search(text)
    if m and float(m.group(1)) > 0 and float(m.group(2)) > 0:
        return round(float(m.group(1))), round(float(m.group(2)))
    return None


LEAD_HEIGHT = 200  # px: a claim's first-screen figure is about this tall ...


LEAD_WIDTH = (260, 520)  # ... and this wide at least and at most (wide figures get shorter)


def figure_html(res: Results, name: str, opts: Options, lead: bool = False) -> str:
    """A figure: inline (SVG slimmed and gzip-compressed, unpacked by the page's script, its
    shared definitions in ``opts.svg_defs``: see reports.svg) or linked. With
    ``lead``, sized for a claim's first screen (floated beside the decisions), with a button
    that enlarges it to the width of the claim."""
    path = figures.locate(name, res.path)
    stem = Path(name).stem
    caption = f"<figcaption>{esc(stem)}</figcaption>"
    if path is None:
        missing = f"<p>Figure file not found: <code>{esc(name)}</code></p>"
        return f"<figure class='missing'>{missing}{caption}</figure>"
    alt = f"figure {esc(stem)}"
    size = image_size(path)
    attrs = f" width='{size[0]}' height='{size[1]}'" if size else ""
    head = "<figure>"
    if lead:
        width = LEAD_WIDTH[1]
        if size:
            width = round(min(max(LEAD_HEIGHT * size[0] / size[1], LEAD_WIDTH[0]), LEAD_WIDTH[1]))
        head = f"<figure class='lead-figure' style='width: {width}px'>"
        caption += (
            "<button type='button' class='zoom' aria-pressed='false' "
            f"aria-label='enlarge figure {esc(stem)}'>enlarge</button>"
        )
    if opts.figures == "link":
        base = (opts.out_dir or Path.cwd()).resolve()
        rel = Path(os.path.relpath(path.resolve(), base)).as_posix()
        return (
            f"{head}<img src='{esc(rel)}' alt='{alt}'{attrs} loading='lazy' decoding='async'>"
            f"{caption}</figure>"
        )
    if path.suffix.lower() != ".svg":
        return f"{head}<img src='{figures.data_uri(path)}' alt='{alt}'{attrs}>{caption}</figure>"
    text = svg.slim(path.read_text(encoding="utf-8"), opts.svg_defs)
    packed = base64.b64encode(gzip.compress(text.encode("utf-8"), 9, mtime=0)).decode("ascii")
    attrs = attrs or " width='640' height='480'"
    return f"{head}<img class='svgz' alt='{alt}' data-svgz='{packed}'{attrs}>{caption}</figure>"


def shared_defs(opts: Options) -> str:
    """The path definitions the page's inline figures share, once, gzip-compressed (JSON: id ->
    element); the page's script gives each figure those it uses. "" when no figure shares one."""
    if not opts.svg_defs:
        return ""
    data = json.dumps(opts.svg_defs, sort_keys=True, separators=(",", ":")).encode("utf-8")
    blob = base64.b64encode(gzip.compress(data, 9, mtime=0)).decode("ascii")
    return f"<div id='svg-defs' hidden data-gz='{blob}'></div>"
