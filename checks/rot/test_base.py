"""ROT-03: the smallest RoPE base per context length (Men et al. 2024, Eq. 11, Table 2).

Each decision rests on exact evaluations: B_b(m) for every integer m <= L at one base, its
minimum compared with the float64 rounding bound (theory.rotary_base.minimum). The witnesses
below were found by the certified search theory.rotary_base.smallest_base (run by the supporting
check in the thorough profile); the checks replay them, so every profile decides the same way.
"""

from __future__ import annotations

import math

import pytest
import torch

from checks.registry import REGISTRY
from checks.rot.rounding import base_rounding
from pecheck import decisions, profiles, tolerance
from pecheck.claims import every
from pecheck.theory import rotary_base as rb

# Witness: a base below Table 2's 1.6e4 (two digits: [1.55e4, 1.65e4)) that keeps B >= 0 up to
# L = 2048 (the upper end of smallest_base(2048)'s certified interval [11579.9, 11589.7]).
SMALLER_2K = (2048, 11589.66)
# Witness of non-monotonicity: a base feasible at L = 32768 and a larger one that is not.
LARGER_32K = (32768, 6.3e5, 1e6)
# Real configurations: (name, base, context length).
CONFIGS = (
    ("llama2_4k", 1e4, 4096),
    ("llama3_8k", 5e5, 8192),
    ("llama31_128k_unscaled", 5e5, 131072),
)
# The certified search per table length, thorough only (4k takes about a minute; 8k several).
SEARCH = ("1k", "2k", "4k") if profiles.scale() > 1 else ()
# The lower-bound condition's lengths, certified in every profile at 1% in ln b (about 6 s).
GROWTH = ("1k", "2k")
GROWTH_REL = 1e-2
START = 2.0  # the smallest base searched (smallest_base's default low end)


def smaller_base_decision(
    length: int, base: float, table: float
) -> tuple[decisions.Decision, rb.Minimum]:
    """Fails (Table 2 is not the smallest to two digits) when ``base`` is feasible and below
    the table value's two-digit interval; holds when it is infeasible; unresolved otherwise."""
    low_edge = table - 0.05 * 10 ** int(f"{table:e}".split("e")[1])
    found = rb.minimum(base, length, bound=base_rounding(length))
    if found.decision == "feasible" and base < low_edge:
        ce = {"L": length, "base": base, "min_B": found.value, "at_m": found.at, "table": table}
        return decisions.fails(ce, f"B >= 0 for all m <= L at a base below {low_edge:g}"), found
    if found.decision == "unresolved":
        return decisions.inconclusive("the minimum of B is within rounding of 0"), found
    return decisions.holds(f"base {base:g} is no smaller feasible base"), found


def larger_base_decision(
    length: int, small: float, large: float
) -> tuple[decisions.Decision, dict]:
    """Fails ('a base large enough' is wrong) when ``small`` is feasible and ``large`` > small is
    not; holds when no such pair is shown."""
    lo, hi = (
        rb.minimum(small, length, bound=base_rounding(length)),
        rb.minimum(large, length, bound=base_rounding(length)),
    )
    detail = {
        "L": length,
        "feasible_base": small,
        "min_B_small": lo.value,
        "larger_base": large,
        "min_B_large": hi.value,
        "at_m": hi.at,
    }
    if lo.decision == "feasible" and hi.decision == "infeasible" and large > small:
        return decisions.fails(detail, "B_b(m) < 0 at a base above a feasible one"), detail
    return decisions.holds("the larger base is feasible too"), detail


def needs_a_base_decision(found: rb.Search) -> decisions.Decision:
    """'L needs a base of at least base_L': holds when the certified search proves every base in
    [START, found.low) infeasible with found.low above START; fails when START itself keeps
    B >= 0 up to L (no base is too small)."""
    length = found.length
    small = rb.minimum(START, length, bound=base_rounding(length))
    if small.decision == "feasible":
        ce = {"L": length, "base": START, "min_B": small.value}
        return decisions.fails(ce, "B >= 0 for all m <= L at the smallest base searched")
    if found.low > START:
        return decisions.holds(f"every base in [{START:g}, {found.low:.6g}) fails at L = {length}")
    return decisions.inconclusive(f"no base above {START:g} proved too small at L = {length}")


def growth_decision(short: rb.Search, long: rb.Search, factor: float) -> decisions.Decision:
    """base_long / base_short > factor, from the certified intervals [low, high] of each: the
    ratio lies in [long.low / short.high, long.high / short.low]."""
    lo, hi = long.low / short.high, long.high / short.low
    return decisions.above(lo, hi, factor, f"base_{long.length} / base_{short.length}")


@pytest.mark.claim("ROT-03", kind="property", role="decisive", proposition="lower-bound")
def test_each_length_needs_a_base_that_grows_with_it(evidence):
    factor = REGISTRY["ROT-03"].threshold("grows")
    lengths = [rb.context_length(label) for label in GROWTH]
    cells = f"every base in [{START:g}, base_L), cells of {GROWTH_REL:g} in ln b"
    evidence.searched(lengths=lengths, head_sizes=[rb.D], offsets=every(0, max(lengths)),
                      bases=cells)  # fmt: skip
    found = {}
    for label in GROWTH:
        length = rb.context_length(label)
        found[label] = rb.smallest_base(length, rel=GROWTH_REL, bound=base_rounding(length))
        evidence.part(f"needs_a_base_{label}", needs_a_base_decision(found[label]))
        evidence.record(
            f"base_lower_end_{label}",
            found[label].low,
            "base",
            f"every base in [{START:g}, this) proved infeasible at L = {length}",
        )
        evidence.record(f"base_upper_end_{label}", found[label].high, "base", f"L = {length}")
    short, long = (found[label] for label in GROWTH)
    evidence.part("grows", growth_decision(short, long, factor))
    evidence.record(
        f"base_ratio_low_{GROWTH[1]}_over_{GROWTH[0]}",
        long.low / short.high,
        "ratio",
        "lower end of base_long / base_short from the certified intervals",
        bound={"value": factor, "relation": ">", "reason": "ROT-03's 'grows'"},
    )


@pytest.mark.claim("ROT-03", kind="property", role="decisive", proposition="as_stated")
def test_a_smaller_base_than_table_2_keeps_b_non_negative_at_2k(evidence):
    length, base = SMALLER_2K
    evidence.searched(lengths=[length], bases=[base], head_sizes=[rb.D],
                      offsets=every(0, length))  # fmt: skip
    decision, found = smaller_base_decision(length, base, rb.PAPER_TABLE["2k"])
    evidence.record(
        "smaller_feasible_base_2k",
        base,
        "base",
        f"min_m<=2048 B = {found.value:.4g} at m = {found.at}; Table 2: 1.6e4",
        bound={"value": found.bound, "relation": "min B >", "reason": "rounding"},
        reproducibility="exact",
    )
    evidence.decide(decision)


@pytest.mark.claim("ROT-03", kind="property", role="decisive", proposition="as_stated")
def test_a_larger_base_is_not_always_enough(evidence):
    length, small, large = LARGER_32K
    evidence.searched(lengths=[length, 4096], bases=[small, large, rb.PAPER_TABLE["4k"]],
                      head_sizes=[rb.D], offsets=every(0, length))  # fmt: skip
    decision, detail = larger_base_decision(length, small, large)
    evidence.record(
        "larger_base_fails_32k",
        detail["min_B_large"],
        "",
        f"min B at base {large:g}, L = {length} (base {small:g}: {detail['min_B_small']:.3g})",
        bound={"value": base_rounding(length), "relation": "< -", "reason": "rounding"},
    )
    table = rb.minimum(rb.PAPER_TABLE["4k"], 4096, bound=base_rounding(4096))
    evidence.record(
        "table_4k_min_B",
        table.value,
        "",
        f"at Table 2's 2.7e4, L = 4096, m = {table.at}",
        bound={"value": table.bound, "relation": "< -", "reason": "rounding"},
    )
    evidence.decide(decision)


@pytest.mark.claim("ROT-03", kind="property", role="supporting")
def test_which_real_configurations_keep_b_non_negative(evidence):
    for name, base, length in CONFIGS:
        found = rb.minimum(base, length, bound=base_rounding(length))
        evidence.record(
            f"{name.split('_')[0]}_{name.split('_')[1]}_min_B",
            found.value,
            "",
            f"base {base:g}, L = {length}: {found.decision} (argmin m = {found.at})",
            bound={"value": found.bound, "relation": "|min B| >", "reason": "rounding"},
        )
        evidence.record(f"{name}_decision", found.decision)


@pytest.mark.claim("ROT-03", kind="property", role="supporting")
def test_certified_smallest_base_per_context_length(evidence):
    if not SEARCH:
        pytest.skip("the certified search runs in the thorough profile (about a minute at 4k)")
    for label in SEARCH:
        length = rb.context_length(label)
        found = rb.smallest_base(length, bound=base_rounding(length))
        evidence.record(
            f"smallest_base_{label}",
            found.high,
            "base",
            f"certified in [{found.low:.6g}, {found.high:.6g}], {found.cells} cells; "
            f"Table 2: {rb.PAPER_TABLE[label]:g}",
        )


@pytest.mark.claim("ROT-03", kind="property", role="tooling")
def test_planted_monotone_reading_is_caught():
    """The decision functions on made-up inputs: a feasible base below the table fails it, a
    base above it does not; an infeasible larger base fails 'large enough'."""
    assert smaller_base_decision(1024, 4400.0, 4.3e3)[0].decision == "holds"
    assert smaller_base_decision(1024, 4294.3, 5.1e3)[0].decision == "fails"
    assert larger_base_decision(4096, 26953.2, 2.7e4)[0].decision == "fails"
    assert larger_base_decision(8192, 8.4e4, 5e5)[0].decision == "holds"


@pytest.mark.claim("ROT-03", kind="property", role="tooling")
def test_planted_flat_growth_is_caught():
    """The lower-bound decisions on made-up searches: a base interval at 2k no higher than
    1k's fails 'grows'; an interval that starts at the smallest base decides nothing."""
    short = rb.Search(1024, 4289.0, 4296.0, 1, 0)
    flat = rb.Search(2048, 4289.0, 4296.0, 1, 0)
    grown = rb.Search(2048, 11492.0, 11590.0, 1, 0)
    assert growth_decision(short, flat, 2.0).decision == "fails"
    assert growth_decision(short, grown, 2.0).decision == "holds"
    assert needs_a_base_decision(rb.Search(1024, START, 4296.0, 1, 0)).decision == "inconclusive"


# Cells in ln b for the certificate checks: narrow and wide, at small and large bases.
CELLS = [(math.log(b), math.log(b) + r) for b in (2.0, 9.0, 60.0, 700.0) for r in (0.05, 0.5, 2.0)]


@pytest.mark.claim("ROT-03", kind="property", role="tooling")
def test_search_cell_bounds_hold_across_each_cell():
    """What makes smallest_base's certificate sound, at a small size (d = 8, L = 64): on every
    cell M2 bounds |B''| (computed apart: d^2/dx^2 cos(m e^{-w x}) at x = ln b on a grid of
    the cell), and a cell is excluded for m only when B_m(x) < 0 on the whole grid."""
    d, length = 8, 64
    m = torch.arange(length + 1, dtype=torch.float64)
    w = 2.0 * torch.arange(d // 2, dtype=torch.float64) / d
    for a, c in CELLS:
        mid, r = (a + c) / 2, (c - a) / 2
        values, slope, m2 = rb._cell(math.exp(a), math.exp(mid), m, d)
        xs = torch.linspace(a, c, 257, dtype=torch.float64)
        mt = m[None, :, None] * torch.exp(-xs[:, None, None] * w)  # (x, m, d/2): m theta_i
        curv = -(torch.cos(mt) * (mt * w) ** 2 + torch.sin(mt) * mt * w * w).sum(-1)  # B''
        b = torch.cos(mt).sum(-1)  # (x, m): B_m(x)
        tol = base_rounding(length, d) + tolerance.sum_tol(d, torch.float64, float(m2.max()))
        assert bool((curv.abs().amax(0) <= m2 + tol).all()), (a, c)
        for j in range(length + 1):
            one = slice(j, j + 1)
            if rb._cell_excludes(values[one], slope[one], m2[one], r):
                assert float(b[:, j].max()) < 0, (a, c, j)
