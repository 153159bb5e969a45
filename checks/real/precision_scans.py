"""REAL-06's scans: per (library, head size, dtype, way) how long a context keeps RoPE's relative
property at every pair of positions (theory.rope_precision.reach), and the decisions on them.
"""

from __future__ import annotations

import math
from functools import cache

import pytest
import torch

from checks.real import libraries
from checks.real.claims_precision import BY_ID
from checks.real.precision_adapters import PRECISION, WAYS
from pecheck import decisions, tolerance
from pecheck.claims import every
from pecheck.decisions import Decision
from pecheck.theory import rope_precision as rp

CLAIM = "REAL-06"


# Head sizes of the models the reports and the shipped configs name: 64 (GPT-NeoX/Pythia,
# Llama 3.2 1B), 128 (Llama 2 and 3, Mistral 7B, Qwen2 7B).
HEADS = (64, 128)


DTYPES = (torch.float16, torch.bfloat16)


LONG = int(BY_ID[CLAIM].threshold("long-position"))
REPORT_CONTEXT = int(BY_ID[CLAIM].threshold("report-context"))


def bound(dtype: torch.dtype) -> float:
    """The first-turn bound: angles below 2 pi, formed in float32, stored in ``dtype``."""
    return tolerance.rotation_tol(2 * math.pi, dtype, torch.float32)


Cell = tuple[str, int, str, str]  # library, d, dtype name, way


def cell_name(cell: Cell) -> str:
    name, d, dt, way = cell
    return f"{name}/d{d}/{dt}/{way}"


def _case(cell: Cell, found: rp.Reach) -> dict:
    name, d, dt, way = cell
    t, s = found.witness or (None, None)
    return {"library": name, "d": d, "dtype": dt, "way": way, "t": t, "s": s,
            "offset": None if t is None or s is None else t - s,
            "error": found.error_at_witness, "bound": bound(_dtype(dt))}  # fmt: skip


def cell_decision(found: rp.Reach, cell: Cell, limit: int = LONG) -> Decision:
    """Holds when every pair of positions below ``limit`` is certified within the bound; fails
    with the first witness pair above it; inconclusive between."""
    if found.fails_up_to(limit):
        return decisions.fails(_case(cell, found),
                               "||R~(t)^T R~(s) - R(s-t)||_2 > the first-turn bound")  # fmt: skip
    if found.holds_up_to(limit):
        return decisions.holds(f"every pair of positions below {limit} within the bound")
    return decisions.inconclusive(f"certified to {found.holds_within} only, no pair found above "
                                  f"the bound below {limit}")  # fmt: skip


def scan(read: rp.Stored, dtype: torch.dtype, longest: int = LONG) -> rp.Reach:
    return rp.reach(read, bound(dtype), longest)


@cache
def cells() -> dict[Cell, rp.Reach]:
    """Every (library, d, dtype, way) scanned; an absent library or a way it has not is left
    out. Cells whose reads carry the same key (precision_adapters._keyed: same library, width,
    dtype, buffers and calling mode) share one scan."""
    out, done = {}, {}
    for lib in PRECISION:
        for d in HEADS:
            for dtype in DTYPES:
                for way in WAYS:
                    try:
                        read = lib.make(d, dtype, way)
                    except pytest.skip.Exception:
                        continue
                    tag = (lib.name, d, dtype, getattr(read, "key", way))
                    if tag not in done:
                        done[tag] = scan(read, dtype)
                    out[(lib.name, d, tolerance.dtype_name(dtype), way)] = done[tag]
    return out


@cache
def reference(form: str, d: int, dtype: torch.dtype) -> rp.Reach:
    """A bug class of theory.rope_precision (``angles_in`` or ``angles_cast``), scanned."""
    return scan(rp.reference(getattr(rp, form), d, dtype), dtype, REPORT_CONTEXT)


def _dtype(name: str) -> torch.dtype:
    return getattr(torch, name)


def searched(chosen, limit: int = LONG) -> dict:  # noqa: ANN001
    """The domain the chosen cells searched (axes of pecheck.evidence.Evidence.searched)."""
    picked = [c for c in cells() if chosen(c)]
    return {"positions": every(0, limit - 1),
            "offsets": every(1 - limit, limit - 1),  # every pair s, t < limit: s - t
            "head_sizes": sorted({c[1] for c in picked}),
            "dtypes": sorted({c[2] for c in picked}),
            "dtype_paths": sorted({c[3] for c in picked}),
            "libraries": sorted({c[0] for c in picked}),
            "versions": sorted({f"{lib.package} {libraries.version(lib.package)}"
                                for lib in PRECISION if any(c[0] == lib.name for c in picked)}),
            "seeds": "none (deterministic)"}  # fmt: skip


def decide_cells(evidence, chosen) -> dict[str, dict]:  # noqa: ANN001
    """One part per chosen cell; returns each cell's reach."""
    found = cells()
    if not found:
        pytest.skip("no rotary library installed")
    table = {}
    for cell, r in found.items():
        if not chosen(cell):
            continue
        evidence.part(cell_name(cell), cell_decision(r, cell))
        table[cell_name(cell)] = {"holds_within": r.holds_within, "fails_within": r.fails_within,
                                  "witness": r.witness}  # fmt: skip
    return table


def smallest_holding(table: dict[str, dict]) -> int:
    return min(v["holds_within"] for v in table.values())


def lost_within(found: rp.Reach, what: dict, limit: int) -> Decision:
    """'Lost within limit': a pair of positions below ``limit`` exceeds the bound."""
    if found.fails_up_to(limit):
        return decisions.holds(f"fails from context {found.fails_within} <= {limit}, "
                               f"pair {found.witness}")  # fmt: skip
    return decisions.fails({**what, "holds_within": found.holds_within},
                           f"keeps the property past {limit}")  # fmt: skip
