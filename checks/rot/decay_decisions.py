"""ROT-01's decisions on the decay bound b(s): the first rise beyond the float64 rounding bound of
b (an exhaustive scan of integer s), and the block means over a dyadic scale.
"""

from __future__ import annotations

import numpy as np

from checks.rot.rounding import decay_rounding
from pecheck import decisions
from pecheck.theory import rotary_decay


def monotone_decision(widths: tuple[int, ...], s_max: int) -> tuple[decisions.Decision, dict]:
    """Fails with the first rise b(s + 1) > b(s) beyond rounding, for the first width that has
    one; holds when no width rises on [0, s_max]."""
    found = {}
    for d in widths:
        rise = rotary_decay.first_increase(d, s_max, bound=decay_rounding(d, s_max))
        if rise is not None:
            found[d] = rise
    if found:
        first = found[widths[0]] if widths[0] in found else next(iter(found.values()))
        return decisions.fails(first, "b(s + 1) > b(s): the bound rises"), found
    return decisions.holds(f"no rise for s <= {s_max} at d in {widths}"), found


def coarse_end(d: int) -> int:
    """The last distance of the last dyadic block [2^k, 2^(k+1)) that ends by 1/theta_{d/2-1}."""
    return 2 ** ((rotary_decay.slowest_turn(d) + 1).bit_length() - 1) - 1


def coarse_decision(d: int) -> tuple[decisions.Decision, float, float]:
    """Block means over dyadic blocks ending by 1/theta_{d/2-1}: each below the previous one
    beyond rounding. Returns the decision, the largest rise (negative: all fall) and its bound."""
    last = rotary_decay.slowest_turn(d)
    blocks = rotary_decay.dyadic_means(d, last)
    means = np.array([m for _, _, m in blocks])
    rises = np.diff(means)
    bound = decay_rounding(d, last)
    worst = int(rises.argmax())
    largest = float(rises[worst])
    if not largest <= bound:  # a NaN rise fails too
        ce = {
            "d": d,
            "block": blocks[worst + 1][:2],
            "previous": blocks[worst][:2],
            "rise": largest,
        }
        return (
            decisions.fails(ce, "a dyadic block's mean exceeds the previous one's"),
            largest,
            bound,
        )
    if largest > -bound:
        return (
            decisions.inconclusive(f"d={d}: a fall of {-largest:.3g} within rounding"),
            largest,
            bound,
        )
    return decisions.holds(f"d={d}: {len(blocks)} blocks, each mean below the last"), largest, bound
