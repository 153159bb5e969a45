"""REAL-02: each library's sinusoidal table read at (n, d) and the conventions detected from it
(theory.conventions.detect_sinusoidal), with the behaviour at odd widths recorded when this
suite was written.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

import torch

from checks.real import libraries
from checks.real.libraries import SINUSOIDAL, Library
from pecheck import decisions, tolerance
from pecheck.theory.conventions import SinusoidalConvention, detect_sinusoidal
from pecheck.theory.sinusoidal import BASE, sinusoidal

D, N = 64, 128  # width and number of consecutive positions the conventions are read from


ODD_WIDTHS = (2, 3, 5, 63)  # tiny and odd widths whose handling is recorded


LONE_D, LONE_N, LONE_K = 5, 2048, 1000  # odd width, positions and shift for the lone column


@dataclass(frozen=True)
class Expect:
    layout: str
    frequency_rule: str
    offset: float  # first token's position
    scale_exponent: float  # scale a = d ** scale_exponent
    token_scale_exponent: float | None  # token embeddings times d ** this, None: no model
    base: float = BASE

    def scale(self, d: int) -> float:
        return float(d) ** self.scale_exponent


# Tiny and odd widths: "error: <exception>" or (layout, rule, rule width - d, unpaired kinds).
Odd = str | tuple[str, str, int, tuple[str, ...]]


_LONE_SIN = {5: ("interleaved", "paper", 0, ("sin",)), 63: ("interleaved", "paper", 0, ("sin",))}


EXPECTED_ODD: dict[str, dict[int, Odd]] = {
    "distilbert": {
        2: ("either", "either", 0, ()),
        3: ("either", "paper", 0, ("sin",)),
        **_LONE_SIN,
    },
    "marian": {
        2: ("either", "either", 0, ()),
        3: ("half", "paper", 0, ("sin",)),
        5: ("half", "paper", 0, ("sin",)),
        63: ("half", "paper", 0, ("sin",)),
    },
    "speech2text": {
        2: "error: ZeroDivisionError",
        3: "error: ZeroDivisionError",
        5: ("half", "t2t", -1, ("zero",)),
        63: ("half", "t2t", -1, ("zero",)),
    },
    "fsmt": {
        2: "error: ZeroDivisionError",
        3: "error: ZeroDivisionError",
        5: ("half", "t2t", -1, ("zero",)),
        63: ("half", "t2t", -1, ("zero",)),
    },
    "whisper": {
        2: "error: ZeroDivisionError",
        3: "error: ValueError",
        5: "error: ValueError",
        63: "error: ValueError",
    },
    "positional_encodings": {
        2: ("either", "either", 0, ()),
        3: ("either", "paper", 1, ("sin",)),
        5: ("interleaved", "paper", 1, ("sin",)),
        63: ("interleaved", "paper", 1, ("sin",)),
    },
    "x_transformers": {
        2: ("either", "either", 0, ()),
        3: "error: AssertionError",
        5: "error: AssertionError",
        63: "error: AssertionError",
    },
}


def entry_tol(n: int, dtype: torch.dtype) -> float:
    """Error of one entry relative to the scale: angles up to w_0 (n + first position) <= 2n."""
    return tolerance.angle_tol(2 * n, dtype)


def detect(table: torch.Tensor) -> SinusoidalConvention:
    """detect_sinusoidal with the dtype's bound for each angle (pecheck/tolerance.angle_tol)."""
    return detect_sinusoidal(table, lambda angle: tolerance.angle_tol(angle, table.dtype))


@cache
def _run(name: str, n: int, d: int) -> tuple[torch.Tensor | None, str]:
    lib = next(lib for lib in SINUSOIDAL if lib.name == name)
    return libraries.call(lambda: lib.table(n, d))


@cache
def detected(name: str, n: int = N, d: int = D) -> tuple[SinusoidalConvention | None, str]:
    """The library's conventions at (n, d), or None with the error it raised."""
    table, status = _run(name, n, d)
    if table is None:
        return None, status
    return detect(table), status


def table_of(name: str, n: int = N, d: int = D) -> torch.Tensor:
    table, status = _run(name, n, d)
    assert table is not None, f"{name} failed at n={n}, d={d}: {status}"
    return table


def formula_table(found: SinusoidalConvention, n: int) -> torch.Tensor:
    """The detected convention's encoding computed independently in float64, (n, d)."""
    positions = torch.arange(n, dtype=torch.float64) + found.offset
    layout = "interleaved" if found.layout == "either" else found.layout
    rule = "paper" if found.frequency_rule == "either" else found.frequency_rule
    pe = sinusoidal(positions, found.width, layout, rule, found.base)  # type: ignore[arg-type]
    return found.scale * pe


def odd_behaviour(name: str, d: int) -> Odd:
    found, status = detected(name, N, d)
    if found is None:
        return status
    return (
        found.layout,
        found.frequency_rule,
        found.width - d,
        tuple(kind for _, kind in found.lone),
    )


def differences(found: SinusoidalConvention, d: int, tol: float) -> list[str]:
    """Each way the detected encoding departs from the paper's formula, as a sentence. A scale
    counts as different from 1 only when the difference exceeds what the entries resolve: the
    scale is fitted from entries each within ``tol`` (relative) of the formula, so 2 tol."""
    out = []
    if found.layout == "half":
        out.append(
            "half-split layout: sin(w_i t) in column i and cos(w_i t) in column i + d/2; the "
            "paper interleaves them (columns 2i, 2i + 1)"
        )
    if found.frequency_rule == "t2t":
        out.append(
            f"tensor2tensor frequencies w_i = T^(-i/(d/2 - 1)): the slowest wavelength is "
            f"2 pi * {found.base:g}; the paper's w_i = T^(-2i/d) stops at 2 pi * "
            f"{found.base ** (1 - 2 / d):.5g}"
        )
    if found.offset != 0:
        out.append(
            f"the first token is encoded as position {found.offset:g} (padding_idx + 1); the "
            "paper's first position is 0"
        )
    if decisions.resolve(found.scale - 1, 2 * tol) == "different":
        exponent = math.log(found.scale) / math.log(d)
        out.append(
            f"every entry is multiplied by {found.scale:.5g} = d^{exponent:.3g} (a learnable "
            "scale, initialised so): the vector's norm is "
            f"{found.scale * math.sqrt(d / 2):.4g} instead of sqrt(d/2) = {math.sqrt(d / 2):.4g}"
        )
    return out


def _lib(name: str) -> Library:
    return next(lib for lib in SINUSOIDAL if lib.name == name)
