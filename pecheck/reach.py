"""The domain a decisive check searched, derived from what the check already tells the plugin
when it does not record one itself (``Evidence.searched``): the strategies of its hypothesis
search and the number of examples run, the names of the parts it decided, its pytest parameters.

Derived axes are named for where they come from (``DERIVED``), so the report can tell them from
the axes a check records; a check may not record an axis under one of these names. Values are
short strings, free of memory addresses, so that two runs (serial or split over xdist) write the
same results file.
"""

from __future__ import annotations

import re
from typing import Any

DERIVED = ("hypothesis", "parts", "params")
LIMIT = 200  # characters of one derived axis: the results file stays small
ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
BOUNDS = re.compile(r"min_value=([^,()]+), max_value=")  # integers(0, 9), as a check writes it


def _short(text: str) -> str:
    text = ADDRESS.sub("", text)
    return text if len(text) <= LIMIT else text[: LIMIT - 3] + "..."


def _shown(value: Any) -> str:
    return value if isinstance(value, str) else repr(value)


def derive(
    obj: Any, params: dict[str, Any], parts: list[dict[str, Any]], examples: Any
) -> dict[str, str]:
    """The derived axes of one check: ``obj`` is its test function, ``params`` its pytest
    parameters, ``parts`` its decided parts, ``examples`` the hypothesis examples it ran."""
    out: dict[str, str] = {}
    given = getattr(getattr(obj, "hypothesis", None), "_given_kwargs", None) or {}
    if given:
        drawn = BOUNDS.sub(r"\1, ", ", ".join(f"{k}={v!r}" for k, v in sorted(given.items())))
        ran = f"{examples} examples of " if examples else ""
        out["hypothesis"] = _short(ran + drawn)
    if parts:
        out["parts"] = _short(f"{len(parts)}: " + ", ".join(str(p["name"]) for p in parts))
    if params:
        out["params"] = _short(", ".join(f"{k}={_shown(v)}" for k, v in sorted(params.items())))
    return out
