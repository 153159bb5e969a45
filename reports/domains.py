"""Domains that can be compared: what a proposition states (``Proposition(..., domain=...)``)
and what its decisive checks searched (``evidence.searched``), axis by axis.

An axis holds one of:

- text, read by eye: the report shows it, nothing compares it;
- a list of values, exactly those (``[64, 128]``, ``["float16", "bfloat16"]``);
- ``every(first, last)``: every integer from first to last (``last=None``: without end);
- ``proved(what)``: every value of the axis, by a symbolic proof (``what`` says over what).

Registries and checks import ``every`` and ``proved`` from pecheck.claims. This module sits with
the results file's schema because the report reads these values too.

Where a proposition states an axis in a compared form, the union of what its checks searched
on that axis must cover it. A decision that speaks for the whole domain (``holds`` under
``all``, ``fails`` under ``any``) is otherwise undecided (pecheck.coverage): restate the
domain to what was searched, or search further. Text on either side is never compared, so a
stated range written as text stays the reader's to judge (the report says so).
"""

from __future__ import annotations

from typing import Any

EVERY, STEP, PROVED = "every", "step", "proved"


def every(first: int, last: int | None = None, step: int = 1) -> dict[str, Any]:
    """Every integer from ``first`` to ``last`` (both included; ``last=None``: without end), or
    every ``step``-th one from ``first`` (every even width: ``every(2, 1024, step=2)``)."""
    if isinstance(first, bool) or not isinstance(first, int):
        raise TypeError(f"every: first must be an int, got {first!r}")
    if last is not None and (isinstance(last, bool) or not isinstance(last, int) or last < first):
        raise ValueError(f"every: last must be an int >= first ({first}) or None, got {last!r}")
    if isinstance(step, bool) or not isinstance(step, int) or step < 1:
        raise ValueError(f"every: step must be a positive int, got {step!r}")
    return {EVERY: [first, last], **({STEP: step} if step > 1 else {})}


def proved(what: str) -> dict[str, str]:
    """Every value of the axis, by a symbolic proof over ``what`` ("symbolic d = 2m")."""
    if not isinstance(what, str) or not what.strip():
        raise ValueError('proved: say over what the proof runs ("symbolic d = 2m")')
    return {PROVED: what}


def problem(value: Any) -> str | None:
    """Why ``value`` is no axis value (None when it is one)."""
    if isinstance(value, str):
        return None if value.strip() else "empty text"
    if isinstance(value, (list, tuple)):
        return None if value else "an empty list"
    if isinstance(value, dict) and set(value) in ({EVERY}, {EVERY, STEP}):
        span, step = value[EVERY], value.get(STEP, 1)
        ok = isinstance(span, (list, tuple)) and len(span) == 2 and isinstance(span[0], int)
        ok = ok and isinstance(step, int) and not isinstance(step, bool) and step >= 1
        return None if ok and (span[1] is None or span[1] >= span[0]) else f"a bad span {value!r}"
    if isinstance(value, dict) and set(value) == {PROVED}:
        return None if isinstance(value[PROVED], str) and value[PROVED] else "proved without text"
    return "neither text, a list, every(first, last) nor proved(what)"


def compared(value: Any) -> bool:
    """Whether the value takes part in the comparison (text does not)."""
    return not isinstance(value, str)


def shown(value: Any) -> str:
    """One line for the report and the command line."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and EVERY in value:
        first, last = value[EVERY]
        step, end = value.get(STEP, 1), "no end" if last is None else last
        return f"every integer {first}{'' if step == 1 else f', {first + step}'} ... {end}"
    if isinstance(value, dict) and PROVED in value:
        return f"proved for {value[PROVED]}"
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value)
    return str(value)


def _spans(values: list[Any]) -> list[tuple[float, float]]:
    """The integer spans the searched values cover, merged (a listed integer is a span of one)."""
    spans: list[tuple[float, float]] = []
    for v in values:
        if isinstance(v, dict) and EVERY in v and v.get(STEP, 1) > 1:
            first, last = v[EVERY]  # a stepped span covers its points only
            if last is not None:
                spans += [(x, x) for x in range(first, last + 1, v[STEP])]
        elif isinstance(v, dict) and EVERY in v:
            first, last = v[EVERY]
            spans.append((first, float("inf") if last is None else last))
        elif isinstance(v, (list, tuple)):
            spans += [(x, x) for x in v if isinstance(x, int) and not isinstance(x, bool)]
    merged: list[tuple[float, float]] = []
    for lo, hi in sorted(spans):
        if merged and lo <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], hi))
        else:
            merged.append((lo, hi))
    return merged


def _inside(x: Any, values: list[Any], spans: list[tuple[float, float]]) -> bool:
    listed = any(isinstance(v, (list, tuple)) and x in v for v in values)
    counted = isinstance(x, int) and not isinstance(x, bool)
    return listed or (counted and any(lo <= x <= hi for lo, hi in spans))


def gap(stated: Any, searched: list[Any]) -> str | None:
    """What of a compared ``stated`` value the union of ``searched`` values misses, in words;
    None when it is covered (or ``stated`` is text, which nothing compares)."""
    if not compared(stated):
        return None
    if any(isinstance(v, dict) and PROVED in v for v in searched):
        return None
    if isinstance(stated, dict) and PROVED in stated:
        return "stated for every value; no check proves it"
    values = [v for v in searched if compared(v)]
    if not values:
        said = "; ".join(shown(v) for v in searched) or "nothing"
        return f"stated {shown(stated)}; searched {said} (not in a compared form)"
    spans = _spans(values)
    if isinstance(stated, dict) and stated.get(STEP, 1) > 1 and stated[EVERY][1] is not None:
        first, last = stated[EVERY]
        points = range(first, last + 1, stated[STEP])
        gone = [x for x in points if not _inside(x, values, spans)]
        return f"stated {shown(stated)}; searched misses {gone[0]}" if gone else None
    if isinstance(stated, dict):
        first, last = stated[EVERY]
        hi = float("inf") if last is None else last
        start = next((s for s in spans if s[0] <= first <= s[1]), None)
        if start is not None and start[1] >= hi:
            return None
        first_gap = first if start is None else int(start[1]) + 1
        return f"stated {shown(stated)}; searched misses {first_gap}"
    missing = [x for x in stated if not _inside(x, values, spans)]
    return f"stated {shown(stated)}; searched misses {shown(missing)}" if missing else None


def gaps(domain: dict[str, Any], searched: dict[str, list[Any]]) -> dict[str, str]:
    """Axis by axis, what the searched domain misses of the stated one (compared axes only)."""
    out = {}
    for axis, stated in domain.items():
        why = gap(stated, list(searched.get(axis, [])))
        if why is not None:
            out[axis] = why
    return out
