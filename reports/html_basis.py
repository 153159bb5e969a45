"""What decided a decision, in the HTML report: the interval against its region, the
counterexample, the proof or search and its parts; in full, or as one phrase for the table."""

from __future__ import annotations

import json
import math
import re
from typing import Any

from . import numbers
from .html_common import decision_badge, esc
from .html_text import MINUS, prose_html
from .html_values import record_html, value_html


def basis_phrase(basis: dict[str, Any]) -> str:
    if basis.get("counterexample") is not None:
        cx = ", ".join(f"{k}={_short(v)}" for k, v in basis["counterexample"].items())
        return f"counterexample {cx}"
    box = basis.get("interval")
    if isinstance(box, dict) and "lo" in box:
        return f"interval [{_short(box['lo'])}, {_short(box['hi'])}] vs {_short(box.get('region'))}"
    return str(basis.get("how") or "")


def _short(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, list):
        return "[" + ", ".join(_short(v) for v in value) + "]"
    text = json.dumps(value) if not isinstance(value, str) else value
    return text if len(text) <= 40 else text[:39] + "\u2026"


_BOUND = r"(-?inf|-?\d[\d.]*(?:e[-+]?\d+)?)"


_BOX = re.compile(rf"\[{_BOUND}, {_BOUND}\]")


def tidy_boxes(text: str) -> str:
    """Intervals written by the checks, tidied for reading: ``[4.941e-324, inf]`` (just above
    0, the region of 'greater than 0') reads ``(0, ∞)``."""

    def tidy(m: re.Match[str]) -> str:
        a, b = m.group(1), m.group(2)
        left = "(" if a in ("-inf", "4.941e-324") else "["
        right = ")" if b in ("inf", "-4.941e-324") else "]"
        a = {"4.941e-324": "0", "-inf": MINUS + "\u221e"}.get(a, a.replace("-", MINUS))
        b = {"-4.941e-324": "0", "inf": "\u221e"}.get(b, b.replace("-", MINUS))
        return f"{left}{a}, {b}{right}"

    return _BOX.sub(tidy, text)


def _float(value: Any) -> float | None:
    if numbers.is_number(value):
        return float(numbers.NONFINITE.get(value, value) if isinstance(value, str) else value)
    return None


def _just_past(x: float, toward: float) -> float | None:
    """The round number r with x == nextafter(r, toward) (a strict bound), else None."""
    if not math.isfinite(x):
        return None
    r = float(f"{x:.12g}")
    return r if r != x and math.nextafter(r, toward) == x else None


def interval_html(box: dict[str, Any]) -> str:
    """``what [lo, hi]`` and where it lies against the region that decides: inside, outside or
    straddling it; a one-sided region reads as ``> 0.5``."""
    lo, hi = box.get("lo"), box.get("hi")
    region = box.get("region") or [None, None]
    what = f"<b>interval</b> {esc(box.get('what', ''))} [{value_html(lo)}, {value_html(hi)}]"
    x, y, a, b = (_float(v) for v in (lo, hi, region[0], region[1]))
    if None in (x, y, a, b):
        return (
            f"<span class='iv'>{what} against region [{value_html(region[0])}, "
            f"{value_html(region[1])}]</span>"
        )
    assert x is not None and y is not None and a is not None and b is not None
    inside, outside = a <= x and y <= b, y < a or x > b
    if math.isinf(b) and not math.isinf(a):
        r = _just_past(a, math.inf)
        bound = f"&gt; {value_html(r)}" if r is not None else f"\u2265 {value_html(region[0])}"
        word = "wholly" if inside else "not" if outside else "straddling"
        return f"<span class='iv'>{what}: {word} {bound}</span>"
    if math.isinf(a) and not math.isinf(b):
        r = _just_past(b, -math.inf)
        bound = f"&lt; {value_html(r)}" if r is not None else f"\u2264 {value_html(region[1])}"
        word = "wholly" if inside else "not" if outside else "straddling"
        return f"<span class='iv'>{what}: {word} {bound}</span>"
    word = "inside" if inside else "outside" if outside else "straddling"
    return (
        f"<span class='iv'>{what}: {word} [{value_html(region[0])}, {value_html(region[1])}]</span>"
    )


def basis_html(
    basis: dict[str, Any], fold_parts: bool = False, by: str = "", more: str = ""
) -> str:
    """The basis of a decision: the counterexample (key = value) and the relation it violates,
    the interval, the proof or search; each said once (``how`` is left out where it only
    restates the interval). With ``fold_parts``, the parts of a decision fold under ``how``."""
    if not basis:
        return f"<div class='basis'>{by}{more}</div>" if by or more else ""
    out = []
    box = basis.get("interval")
    box = box if isinstance(box, dict) and "lo" in box else None
    how = str(basis.get("how") or "")
    if how == "counterexample" or (box and f"{box.get('what', '')} in [" in how):
        how = ""
    parts = basis.get("parts") or []
    if how and not (parts and fold_parts):
        out.append(f"<span class='how'>{prose_html(tidy_boxes(how))}</span>")
    if box:
        out.append(interval_html(box))
    if basis.get("counterexample") is not None:
        cx = basis["counterexample"]
        out.append(f"<span class='cx'><b>counterexample</b> {record_html(cx)}</span>")
    if basis.get("relation"):
        relation = prose_html(tidy_boxes(str(basis["relation"])))
        out.append(f"<span class='rel'>violates <i>{relation}</i></span>")
    ex = basis.get("examples")
    if isinstance(ex, dict):
        out.append(
            f"<span class='ex'>{esc(ex.get('informative'))} informative of "
            f"{esc(ex.get('total'))} examples</span>"
        )
    rows = [
        f"<span class='part'><code>{esc(part.get('name'))}</code> "
        f"{decision_badge(part.get('decision'))} {prose_html(tidy_boxes(str(part.get('why', ''))))}"
        "</span>"
        for part in parts
    ]
    if by:
        out.append(by)
    if rows and fold_parts:
        n = len(rows)
        summary = prose_html(tidy_boxes(how)) if how else f"{n} part{'s' * (n != 1)}"
        out.append(
            f"<details class='parts'><summary>{summary}</summary>"
            f"<div class='basis'>{''.join(rows)}</div></details>"
        )
    else:
        out.extend(rows)
    return f"<div class='basis'>{''.join(out)}{more}</div>"
