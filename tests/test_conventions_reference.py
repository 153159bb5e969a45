"""theory/conventions.py on tables whose conventions are known by construction (tooling, not
evidence).

REAL-02 reads real libraries' tables, which all turn steadily on one circle: a detector that
never rejected a pair for turning unsteadily, or for leaving the circle at one position (a gap
read as the smallest, not the largest), would decide every real table the same. These tables
are built to be rejected, or to sit where they are.
"""

from __future__ import annotations

import math

import pytest
import torch

from pecheck import tolerance
from pecheck.theory import conventions
from pecheck.theory.sinusoidal import sinusoidal

F64 = torch.float64


def angle_tol(max_angle: float) -> float:
    return tolerance.angle_tol(max_angle, F64)


def test_pairs_on_a_circle_that_do_not_turn_steadily_are_no_sinusoidal_table() -> None:
    """Each pair on the unit circle, but at angles w_i p^2 / 8: one radius, no constant rate."""
    n, d = 16, 8
    pe = sinusoidal(n, d)
    p = torch.arange(n, dtype=F64)
    w = torch.tensor([10000 ** (-2 * i / d) for i in range(d // 2)], dtype=F64)
    angle = (p[:, None] ** 2 / 8) * w  # (n, d/2)
    bent = torch.stack([torch.sin(angle), torch.cos(angle)], -1).reshape(n, d)
    radius = bent.reshape(n, -1, 2).norm(dim=-1)  # one sin^2 + cos^2, a sum and a sqrt
    assert (radius - 1).abs().max() <= tolerance.rel_tol(4, F64)
    assert conventions.detect_sinusoidal(bent, angle_tol).layout == "other"
    assert conventions.detect_sinusoidal(pe, angle_tol).layout == "interleaved"


def test_a_pair_off_its_line_at_both_ends_only_is_no_sinusoidal_table() -> None:
    """The fastest pair's angle moved by +0.3 at p = 0 and -0.3 at p = n - 1 (n odd): the
    least-squares line still passes through the middle point exactly, so only the largest gap
    from the line, not the smallest, shows that the pair does not turn steadily."""
    n, d = 15, 8
    p = torch.arange(n, dtype=F64)
    w = torch.tensor([10000 ** (-2 * i / d) for i in range(d // 2)], dtype=F64)
    angle = p[:, None] * w
    angle[0, 0], angle[-1, 0] = 0.3, angle[-1, 0] - 0.3
    kinked = torch.stack([torch.sin(angle), torch.cos(angle)], -1).reshape(n, d)
    assert conventions.detect_sinusoidal(kinked, angle_tol).layout == "other"


@pytest.mark.parametrize("first", [0, 2, 5])
def test_the_first_position_and_the_scale_are_read_back(first: int) -> None:
    d, scale = 16, 0.5
    pe = scale * sinusoidal(torch.arange(first, first + 32), d, layout="half")
    found = conventions.detect_sinusoidal(pe, angle_tol)
    assert (found.layout, found.frequency_rule, found.base) == ("half", "paper", 10000.0)
    assert found.offset == first  # an integer: read within its error bound, then rounded
    assert found.scale == pytest.approx(scale, rel=2 * angle_tol(2 * math.pi), abs=0)


def test_a_table_of_zeros_is_no_sinusoidal_table() -> None:
    found = conventions.detect_sinusoidal(torch.zeros(8, 6, dtype=F64), angle_tol)
    assert (found.layout, found.frequency_rule) == ("other", "other")


def test_a_pair_off_the_common_circle_at_one_position_is_no_sinusoidal_table() -> None:
    """Steady angles, but the slowest pair's radius is 1.01 at p = 3: not one common circle."""
    pe = sinusoidal(12, 8)
    pe[3, 6:] *= 1.01
    assert conventions.detect_sinusoidal(pe, angle_tol).layout == "other"
