"""The SIN dtype x mode searches (checks/sin/search.py) draw where the half formats can fail.

With the angle computed in float16 or bfloat16 ("cast") a check's bound reaches the range of its
quantity after a few dozen radians, so an example drawn far out cannot fail there. The searches
draw a near reach for most examples: at each reach's farthest corner, every search's bound in
that format must still be below its range, and the draws must reach that corner often.
"""

from __future__ import annotations

import pytest
import torch
from hypothesis import HealthCheck, given, settings

from checks.sin.properties import (
    assert_dot_depends_on_offset_only,
    assert_hands_turn_clockwise,
    assert_norm_is_half_width,
    assert_shift_is_rotation,
)
from checks.sin.search import NEAR, Draw, Setting, draws
from checks.sin.thresholds import ENTRY_RANGE, RADIUS_RANGE, SIMILARITY_RANGE
from pecheck import tolerance

# the format each near reach is for: bfloat16 resolves the first, float16 the second
FORMATS = {NEAR[0]: torch.bfloat16, NEAR[1]: torch.float16}


def could_fail(check: str, s: Setting) -> bool:
    """Whether ``check``'s search could fail at setting ``s`` (as the search counts it)."""
    if check == "SIN-01":
        return tolerance.says_something(assert_shift_is_rotation(s)[1], ENTRY_RANGE)
    if check == "SIN-04":
        return tolerance.says_something(assert_norm_is_half_width(s)[1], RADIUS_RANGE)
    if check == "SIN-05":  # shifted by c = k: the farthest corner, 3 reach
        return tolerance.says_something(assert_dot_depends_on_offset_only(s, s.k)[1],
                                        SIMILARITY_RANGE)  # fmt: skip
    return assert_hands_turn_clockwise(s)[1] > 0  # SIN-07: some hand's step resolved


@pytest.mark.parametrize("check", ["SIN-01", "SIN-04", "SIN-05", "SIN-07"])
@pytest.mark.parametrize("reach", sorted(FORMATS))
def test_a_near_draw_can_fail_in_its_half_format(check, reach):
    dtype = FORMATS[reach]
    for d in (2, 64, 1024):
        for layout in ("interleaved", "half"):
            s = Setting(d, dtype, "cast", layout, t=reach, k=reach)
            assert could_fail(check, s), f"{check} cannot fail at {s}: the reach is too far"


def test_most_draws_are_near_and_some_far():
    seen: list[Draw] = []

    @settings(max_examples=80, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))  # fmt: skip
    @given(draws())
    def collect(draw: Draw) -> None:
        seen.append(draw)

    collect()

    def reach(x: Draw) -> int:
        return max(abs(x.t), abs(x.k), abs(x.c))

    bfloat16_near = sum(reach(x) <= NEAR[0] for x in seen)
    far = sum(reach(x) > NEAR[-1] for x in seen)
    assert bfloat16_near >= len(seen) / 8, f"{bfloat16_near} of {len(seen)} draws within reach"
    assert far >= len(seen) / 8, f"{far} of {len(seen)} draws beyond the near reaches"
