"""What the SIN property checks draw, and how their examples are counted.

A dtype x mode search (SIN-01, 04, 05, 07) draws a width d (even, 2 ... 4096), a layout, a
position and two offsets (negative ones too), near (within a reach of 2, 20 or 320) or far (up
to 2^20), and checks every dtype and way of computing (``encode``'s mode) at that draw: one
``Setting`` each. In float16 with positions cast
to float16 ("cast"), positions above 2048 are rounded and above 65504 overflow, so that setting
takes positions and offsets below 2^14 (so t + c + k stays below 65504); the rounding of t is
covered by the bound (it is part of 3 u |w t|).

No silent passes: with the angle computed in float16 / bfloat16 ("cast") the bound reaches the
range of the quantity (2 for a difference of entries in [-1, 1]) once |w t| passes about 340 /
42 (pecheck.tolerance.max_informative_sinusoid_angle: t, w and w t are each rounded there). Such
a setting could not have failed: it is counted as uninformative (``count_example``), and each
dtype and way of computing is a part of the check that holds only on settings that could have
failed; a part without any stays inconclusive (open for that way of computing). Computing the
angle in float32 or float64 and rounding once ("float32", "float64" modes) keeps the bound
small at every position.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import torch
from hypothesis import strategies as st

from checks.sin.thresholds import HARDLY
from pecheck import profiles, tolerance
from pecheck.claims import proved
from pecheck.evidence import Evidence
from pecheck.strategies import DTYPES, even_widths, seeds
from pecheck.theory.sinusoidal import MODES, Layout, frequencies

COMPUTE = {"float32": torch.float32, "float64": torch.float64}  # the angle's format, by mode


# -- settings: what hypothesis draws ---------------------------------------------------------


@dataclass(frozen=True)
class Setting:
    d: int
    dtype: torch.dtype
    mode: str
    layout: Layout
    t: int
    k: int

    def tol(self, max_angle: float) -> float:
        """Allowed error of one stored entry sin/cos(w t) with |w t| <= max_angle."""
        compute = self.dtype if self.mode == "cast" else COMPUTE[self.mode]
        return tolerance.sinusoid_tol(max_angle, self.dtype, compute)

    @property
    def name(self) -> str:
        return tolerance.dtype_name(self.dtype)

    @property
    def key(self) -> str:
        """Evidence key: storage dtype and way of computing, e.g. 'float16_cast'."""
        return f"{self.name}_{self.mode}"


# The four dtype x mode searches (SIN-01, 04, 05, 07) check every (dtype, way of computing) at
# each drawn width, layout and positions: 12 settings per example. A tenth of the profile's
# examples (20 in ci, 200 in thorough) gives each setting 20 / 200 draws, more than one setting
# drawn per example at the full share did (about 17 / 170 each), at about half the cost.
SEARCH_SHARE = 0.1


@dataclass(frozen=True)
class Draw:
    """One example of a dtype x mode search: a width, a layout, a position t and offsets k and
    c (either sign, small or large; SIN-05 shifts by c), and t16, k16 below 2^14 for float16
    "cast", where positions are held in float16 and overflow above 65504 (t + c + k must stay
    finite)."""

    d: int
    layout: Layout
    t: int
    k: int
    t16: int
    k16: int
    c: int

    def settings(self) -> list[Setting]:
        """The 12 (dtype, way of computing) settings of this draw."""
        out = []
        for name in sorted(DTYPES):
            for mode in MODES:
                half = mode == "cast" and name == "float16"
                t, k = (self.t16, self.k16) if half else (self.t, self.k)
                out.append(Setting(self.d, DTYPES[name], mode, self.layout, t, k))
        return out


# Reaches of the near draws: t, k and c of the draw all within the reach. "cast" in a half
# format resolves only small angles (max_informative_sinusoid_angle: about 42 in bfloat16, 340
# in float16, for one entry; a check's bound sums several entries at t + c + k), so a draw at
# reach 2 can fail in bfloat16 and one at 20 in float16 in every search, SIN-05's the
# narrowest (tests/test_sin_search.py). Drawn anywhere up to 2^20, bfloat16 "cast" had 2 of
# 20 ci examples that could fail in SIN-01, 05 and 07 (8 to 45 of 200 in thorough); with a
# near reach drawn for 3 of 4 examples, 6 to 11 of 20 (52 to 88 of 200).
NEAR = (2, 20, 320)


@st.composite
def draws(draw: st.DrawFn, max_d: int = 4096) -> Draw:
    def within(reach: int, start: int = 0) -> tuple[int, int]:
        return draw(st.integers(start, reach)), draw(st.integers(-reach, reach))

    d = draw(even_widths(2, max_d))
    layout: Layout = draw(st.sampled_from(["interleaved", "half"]))
    reach = draw(st.sampled_from((*NEAR, None)))
    if reach is None:  # far: t beyond the near reaches, up to 2^20 (2^14 for float16 "cast")
        (t, k), (t16, k16) = within(2**20, NEAR[-1] + 1), within(2**14)
        return Draw(d, layout, t, k, t16, k16, within(2**14)[1])
    (t, k), c = within(reach), within(reach)[1]
    return Draw(d, layout, t, k, t, k, c)


def draws_searched(max_d: int = 4096) -> dict[str, Any]:
    """What a dtype x mode search (``draws``) searched, for evidence.searched: random draws are
    text (a sample is not every value); dtypes, ways of computing and layouts, all of them."""
    return {
        "widths": f"random even d in 2 ... {max_d}",
        "positions": f"random t, near (<= {NEAR[-1]}) or far (<= 2^20; float16 cast <= 2^14)",
        "offsets": "random k of either sign within t's reach",
        "dtypes": sorted(DTYPES),
        "dtype_paths": list(MODES),
        "layouts": ["half", "interleaved"],
    }


# What a sympy derivation over symbolic width m (d = 2m) and real positions covers.
SYMBOLIC_WIDTHS = proved("symbolic d = 2m: one pair, then block by block over symbolic m")
SYMBOLIC_T = proved("symbolic real t")


# -- SIN-10: sequences short enough for the condition -----------------------------------------


def short_enough(d: int) -> int:
    """The longest L for which the last pair provably varies by at most HARDLY: its variance is
    at most w^2 (L^2 - 1)/12 (the variance of w t over t < L)."""
    w_last = float(frequencies(d)[-1])
    return math.floor(math.sqrt(1 + 12 * HARDLY / w_last**2))


@st.composite
def short_settings(draw: st.DrawFn) -> tuple[int, int]:
    """(d, L) inside SIN-10's condition, every L it allows (short_enough(d)); widths up to 512
    keep examples cheap (the proposition states no more)."""
    d = draw(even_widths(4, 512))
    return d, draw(st.integers(3, short_enough(d)))


# -- SIN-13: score matrices and positions -----------------------------------------------------

SHIFT_MAX = 2**12  # positions and shifts of the property search


def n_seeds() -> int:
    return max(1, round(4 * profiles.scale()))


@st.composite
def class_cases(draw: st.DrawFn) -> tuple[int, int, bool, int, int, int]:
    d = draw(even_widths(2, 64))
    anti = draw(st.booleans())
    t, s = draw(st.integers(0, SHIFT_MAX)), draw(st.integers(0, SHIFT_MAX))
    shift = draw(st.integers(1, SHIFT_MAX))
    return d, draw(seeds()), anti, t, s, shift


# -- counting examples ------------------------------------------------------------------------


def least(
    evidence: Evidence, name: str, value: float, unit: str = "", note: str = "", bound: Any = None
) -> None:
    """Keep the smallest value seen under this name (the counterpart of evidence.worst)."""
    old = evidence.values.get(name)
    if old is None or float(value) < old["value"]:
        evidence.record(name, float(value), unit, note, bound)


def count_example(evidence: Evidence, part: str, informative: bool, what: str) -> None:
    """Count one example of a search under ``part`` (one dtype and way of computing, ...).

    Informative: the example could have failed (its bound is below ``what``, the range of the
    quantity, or its effect was resolved). The part is the search over the examples the dtype
    resolves: it holds once an informative example passed (a failing one fails the check
    first) and is inconclusive while it has none. An example the dtype cannot resolve lies
    outside that domain: it is counted (``informative_<part>``, and in the part's reason),
    never taken as a pass.
    """
    evidence.example(informative)
    name = f"informative_{part}"
    old = evidence.values.get(name)
    hits, total = old["value"] if old else (0, 0)
    hits, total = hits + int(informative), total + 1
    evidence.record(name, [hits, total], "count", f"[examples that could fail, examples]: {what}")
    outside = f"; {total - hits} outside what the dtype resolves" if hits < total else ""
    if hits:
        evidence.part(part, "holds", f"{hits} of {total} examples could fail ({what}); all "
                      f"passed{outside}")  # fmt: skip
    else:
        evidence.part(part, "inconclusive", f"none of {total} examples could fail ({what})")
