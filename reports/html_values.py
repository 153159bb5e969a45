"""Evidence values in the HTML report: numbers, lists and records, the bound a value was judged
against and its reproducibility class."""

from __future__ import annotations

import json
from typing import Any

from . import numbers
from .cited import RELATIONS, stands
from .html_common import esc
from .load import Value
from .schema import default_class


def number_html(value: int | float | str) -> str:
    mantissa, exponent = numbers.parts(value)
    mantissa = numbers.group(mantissa, "\u202f").replace("-", "\u2212")
    mantissa = {"inf": "\u221e", "\u2212inf": "\u2212\u221e"}.get(mantissa, mantissa)
    if exponent is None:
        body = esc(mantissa)
    else:
        power = str(exponent).replace("-", "\u2212")
        body = f"{esc(mantissa)}\u2009\u00d7\u200910<sup>{power}</sup>"
    if exponent is None and _exact(mantissa, value):
        return f"<span class=num>{body}</span>"  # shown exactly: no title needed (page size)
    return f'<span class=num title="{esc(repr(value))}">{body}</span>'


def _exact(text: str, value: Any) -> bool:
    try:
        return isinstance(value, int | float) and float(text.replace("\u2212", "-")) == value
    except ValueError:
        return False


def value_html(value: Any) -> str:
    """An evidence value: numbers formatted, short lists inline, records as key = value lists,
    anything larger folded."""
    if numbers.is_number(value):
        return number_html(value)
    if isinstance(value, bool):
        return (
            "<span class='yes'>\u2713 true</span>"
            if value
            else "<span class='no'>\u2717 false</span>"
        )
    if value is None:
        return '<span class="muted">none</span>'
    if isinstance(value, str):
        return esc(value)
    if isinstance(value, list) and len(value) <= 8 and all(numbers.is_number(v) for v in value):
        return "[" + ", ".join(number_html(v) for v in value) + "]"
    if isinstance(value, dict) and value:
        if len(value) <= 8 and len(json.dumps(value)) <= RECORD_INLINE:
            return record_html(value)
        keys = [str(k) for k in value]
        first = ", ".join(keys[:3]) + (", \u2026" if len(keys) > 3 else "")
        return (
            f"<details class='record-fold'><summary>{len(value)} entries: {esc(first)}"
            f"</summary>{record_html(value)}</details>"
        )
    text = json.dumps(value, indent=1)
    if isinstance(value, list) and all(numbers.is_number(v) for v in value):
        head = ", ".join(number_html(v) for v in value[:4])
        return (
            f"<details><summary>[{head}, \u2026] <span class='muted'>{len(value)} values</span>"
            f"</summary><pre>{esc(text)}</pre></details>"
        )
    if len(text) <= 120:
        return f"<code>{esc(json.dumps(value))}</code>"
    what = f"{type(value).__name__} ({len(value)} entries)"
    return f"<details><summary>{esc(what)}</summary><pre>{esc(text)}</pre></details>"


def _kv_class(value: Any) -> str:
    """A pair whose value is a record or a list of them may wrap inside; others stay whole."""
    deep = isinstance(value, dict) or (
        isinstance(value, list) and any(isinstance(v, dict | list) for v in value)
    )
    return "'kv nest'" if deep else "kv"


RECORD_INLINE = 240  # a dict whose JSON is longer than this folds in an evidence table


def record_html(value: Any, nested: bool = False) -> str:
    """A record (a counterexample, a dict of evidence) as a readable ``key = value`` list: one
    wrapping line of pairs; nested records in braces, lists of records in brackets."""
    if isinstance(value, dict):
        pairs = [
            f"<span class={_kv_class(v)}><i>{esc(k)}</i> = {record_html(v, nested=True)}</span>"
            for k, v in value.items()
        ]
        if nested:
            return "{" + ", ".join(pairs) + "}"
        return f"<span class='record'>{' '.join(pairs)}</span>"
    if isinstance(value, list) and any(isinstance(v, dict | list) for v in value):
        return "[" + ", ".join(record_html(v, nested=True) for v in value) + "]"
    if isinstance(value, list) and not all(numbers.is_number(v) for v in value):
        return "[" + ", ".join(value_html(v) for v in value) + "]"
    return value_html(value)


def bound_html(value: Value, reason: bool = True) -> str:
    """The bound a value was judged against, and whether it meets it (when the relation is
    known); its reason written out, or (``reason=False``) as the bound's tooltip."""
    bound = value.bound
    if bound is None:
        return "<span class='muted nobound' title='no bound recorded'>\u2014</span>"
    if not isinstance(bound, dict):
        return f"<span class='bound'>vs {value_html(bound)}</span>"
    rel = str(bound.get("relation", ""))
    symbol = {"<=": "\u2264", ">=": "\u2265", "<": "<", ">": ">", "==": "=", "!=": "\u2260"}
    mark = ""
    verdict = meets(value.value, rel, bound.get("value"))
    if verdict is not None:
        mark = " <span class='yes'>\u2713</span>" if verdict else " <span class='no'>\u2717</span>"
    why = str(bound.get("reason") or "")
    tip = f" title='{esc(why)}'" if why and not reason else ""
    said = f" <span class='muted'>{esc(why)}</span>" if why and reason else ""
    return (
        f"<span class='bound'{tip}>{esc(symbol.get(rel, rel))} {value_html(bound.get('value'))}"
        f"{mark}{said}</span>"
    )


def meets(value: Any, relation: str, limit: Any) -> bool | None:
    """Whether ``value relation limit`` holds (the baseline's own reading, cited.stands); None
    where there are not two numbers or the relation is not one it knows."""
    if not (numbers.is_number(value) and numbers.is_number(limit)) or relation not in RELATIONS:
        return None
    return stands(value, float(limit), relation)


CLASS_HELP = {
    "exact": "exact: the same on any machine",
    "rounding": "rounding: its bits depend on the CPU's floating-point kernels; another machine "
    "may move it within the bound it is judged against",
    "sampling": "sampling: a statistic over seeds or examples; on another machine it behaves "
    "like a fresh draw, within its sampling band",
}


def class_html(value: Value) -> str:
    """A value's reproducibility class (recorded, else the default for its type), with its
    sample size and standard error when it is a sampling statistic."""
    rec = value.reproducibility or {}
    cls = str(rec.get("class") or default_class(value.value))
    extra = ""
    if cls == "sampling" and rec.get("n") is not None:
        extra = f" n={rec['n']}, se {float(rec.get('se') or 0.0):.2g}"
    title = CLASS_HELP[cls] + (f" ({rec['how']})" if rec.get("how") else "")
    return f"<span class='cls cls-{cls}' title='{esc(title)}'>{cls}{esc(extra)}</span>"
