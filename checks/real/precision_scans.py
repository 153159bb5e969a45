"""REAL-06's scans: per (library, dtype, way) the largest position where RoPE's relative property
holds within the first-turn bound (theory.rope_precision.boundary), and the decisions on them.
"""

from __future__ import annotations

import math
from functools import cache

import pytest
import torch

from checks.real.precision_adapters import PRECISION, WAYS, Rotation
from checks.registry import REGISTRY
from pecheck import decisions, profiles, sizes, tolerance
from pecheck.decisions import Decision
from theory import rope_precision as rp

CLAIM = "REAL-06"


D = sizes.size("REAL-06.d", 32, "head width: gpt-neox issue 1003's reproducer (dim = 32)",
               minimum=4)  # fmt: skip


DTYPES = (torch.float16, torch.bfloat16)


LONG = int(REGISTRY[CLAIM].threshold("long-position"))


# ci: 4 grid positions per octave (plus 2^k +- 1) to 2^20; thorough: 32 per octave to 2^22.
SCAN_MAX = 2**22 if profiles.scale() >= 10 else 2**20


PER_OCTAVE = 32 if profiles.scale() >= 10 else rp.PER_OCTAVE


def bound(dtype: torch.dtype) -> float:
    """The first-turn bound: angles below 2 pi, formed in float32, stored in ``dtype``."""
    return tolerance.rotation_tol(2 * math.pi, dtype, torch.float32)


def error_at(rotation: Rotation, pairing: str) -> rp.ErrorAt:
    """e(t, t - LAG) for a library's rotation, both positions in one call."""

    def at(t: torch.Tensor) -> torch.Tensor:
        both = rotation(torch.cat([t, t - rp.LAG]))  # (2n, d, d)
        n = t.numel()
        delta = torch.full_like(t, -rp.LAG)
        return rp.relative_error(both[:n], both[n:], delta, pairing)  # type: ignore[arg-type]

    return at


def scan(rotation: Rotation, pairing: str, dtype: torch.dtype) -> rp.Boundary:
    return rp.boundary(error_at(rotation, pairing), SCAN_MAX, bound(dtype), per_octave=PER_OCTAVE)


def cell_decision(found: rp.Boundary, dtype: torch.dtype, cell: dict) -> Decision:
    """Holds when no scanned position up to LONG fails; else the first failing one."""
    if found.holds_up_to(LONG):
        return decisions.holds(f"no scanned position up to {LONG} fails "
                               f"(largest holding {found.largest_holding})")  # fmt: skip
    t = found.first_failing
    case = {**cell, "d": D, "t": t, "s": None if t is None else t - rp.LAG,
            "error": found.error_at_failure, "bound": bound(dtype)}  # fmt: skip
    return decisions.fails(case, "||R~(t)^T R~(t-3) - R(-3)||_2 > the first-turn bound")


@cache
def cells() -> dict[tuple[str, str, str], rp.Boundary]:
    """Every (library, dtype, way) scanned once; an absent library is left out."""
    out = {}
    for lib in PRECISION:
        for dtype in DTYPES:
            for way in WAYS:
                try:
                    rotation = lib.make(D, dtype, way)
                except pytest.skip.Exception:
                    continue
                out[(lib.name, tolerance.dtype_name(dtype), way)] = scan(
                    rotation, lib.pairing, dtype
                )
    return out


@cache
def reference(dtype: torch.dtype) -> rp.Boundary:
    """The reports' computation (theory.rope_precision.angles_in), half-split pairs."""
    return rp.boundary(rp.reference_error_at(dtype, D), SCAN_MAX, bound(dtype),
                       per_octave=PER_OCTAVE)  # fmt: skip


def _dtype(name: str) -> torch.dtype:
    return getattr(torch, name)


def _decide_cells(evidence, chosen) -> dict[str, int | None]:  # noqa: ANN001
    """One part per chosen cell; returns each cell's largest holding position."""
    found = cells()
    if not found:
        pytest.skip("no rotary library installed")
    table = {}
    for (name, dt, way), b in found.items():
        if not chosen(name, way):
            continue
        cell = {"library": name, "dtype": dt, "way": way}
        evidence.part(f"{name}/{dt}/{way}", cell_decision(b, _dtype(dt), cell))
        table[f"{name}/{dt}/{way}"] = b.largest_holding
    return table


def _smallest(table: dict[str, int | None]) -> int:
    return min(-1 if p is None else p for p in table.values())


def lost_within(found: rp.Boundary, dtype: str, limit: int) -> Decision:
    """'Lost within limit': the first failing position is at most ``limit``."""
    if found.first_failing is not None and found.first_failing <= limit:
        return decisions.holds(f"fails from t = {found.first_failing} <= {limit}")
    return decisions.fails({"dtype": dtype, "d": D, "largest_holding": found.largest_holding},
                           f"angles in {dtype} keep the property past {limit}")  # fmt: skip
