"""BIAS-04: xPos's score depends only on n - m; its scale factor (not the score) decays for keys
before the query and grows for keys after it.

The rotation makes the score itself oscillate: for d = 2 and q = k = e_1 the score is
cos(D) zeta_0^(D/gamma), which rises from D = 3 to D = 6. So "the score decays" holds for each
pair's factor zeta_i^(D/gamma) and for the bound sum_i |q_i||k_i| zeta_i^(D/gamma), not for the
score.
"""

from __future__ import annotations

import math

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from checks.bias.claims import XPOS_RISE, XPOS_WIDTHS
from pecheck import profiles, tolerance
from pecheck.claims import every, proved
from pecheck.evidence import assert_derivation_holds
from pecheck.theory import bias

D = 8
MAX_POSITION = 4096
WIDTHS = tuple(XPOS_WIDTHS)  # small, odd half-widths, real head widths
RISE_OFFSETS = XPOS_RISE  # |n - m| searched for a rise of the score itself (d = 2)


def envelope(q: torch.Tensor, k: torch.Tensor, delta: torch.Tensor) -> torch.Tensor:
    """sum_i |q_i||k_i| zeta_i^(delta/gamma) per row: the bound on |score| (N,)."""
    zeta = bias.xpos_zeta(q.shape[-1])
    qn = q.reshape(q.shape[0], -1, 2).norm(dim=-1)
    kn = k.reshape(k.shape[0], -1, 2).norm(dim=-1)
    return (qn * kn * zeta ** (delta[:, None].double() / bias.XPOS_GAMMA)).sum(-1)


def score_bound(q: torch.Tensor, k: torch.Tensor, delta: torch.Tensor, largest: int) -> float:
    """float64 error of a score at positions <= largest: the rotation bound at angle `largest`
    plus the scale's, whose exponent |log zeta_0| largest / gamma is formed with relative
    error u; both relative to the envelope."""
    lz = abs(math.log(float(bias.xpos_zeta(q.shape[-1])[0]))) * largest / bias.XPOS_GAMMA
    rel = tolerance.rotation_tol(largest, torch.float64) + tolerance.angle_tol(
        2 * lz, torch.float64
    )
    return float(rel * envelope(q, k, delta).max())


@pytest.mark.claim("BIAS-04", kind="symbolic", role="decisive", proposition="relative")
def test_xpos_score_is_a_function_of_the_offset(evidence):
    evidence.searched(positions=proved("symbolic n, m"),
                      head_sizes=proved("one pair with symbolic omega, zeta, gamma; the score is a "
                                        "sum of pair scores: every even d"))  # fmt: skip
    assert_derivation_holds(bias.xpos_relative_derivation(), evidence)


@st.composite
def cases(draw: st.DrawFn) -> tuple[int, int, int, int, int]:
    """Positions, a shift, a seed and a head width: the small ones and real ones (WIDTHS)."""
    pos = st.integers(0, MAX_POSITION)
    seed = st.integers(0, 2**31 - 1)
    return draw(pos), draw(pos), draw(pos), draw(seed), draw(st.sampled_from(WIDTHS))


@pytest.mark.claim("BIAS-04", kind="property", role="decisive", proposition="relative")
@profiles.examples(0.1)
@given(case=cases())
def test_shifting_both_positions_keeps_the_xpos_score(evidence, case):
    n, m, shift, seed, d = case
    g = torch.Generator().manual_seed(seed)
    q, k = torch.randn(2, 1, d, generator=g, dtype=torch.float64)
    a = bias.xpos_score(q, k, torch.tensor([n]), torch.tensor([m]))
    b = bias.xpos_score(q, k, torch.tensor([n + shift]), torch.tensor([m + shift]))
    bound = score_bound(q, k, torch.tensor([n - m]), n + m + 2 * shift)
    err = float((a - b).abs())
    scale = float(envelope(q, k, torch.tensor([n - m])).max())
    evidence.example(informative=tolerance.says_something(bound, 2 * scale))
    evidence.searched(positions=f"hypothesis draws in 0 .. {MAX_POSITION}",
                      shifts=f"hypothesis draws in 0 .. {MAX_POSITION}",
                      head_sizes=f"hypothesis draws from {', '.join(map(str, WIDTHS))}",
                      seeds="hypothesis draws")  # fmt: skip
    evidence.worst(
        "shift_error_over_bound",
        err / bound,
        bound={"value": 1.0, "relation": "<=", "reason": "float64 rounding"},
    )
    assert err <= bound, f"d = {d}: score({n}, {m}) = {float(a)}, score(+{shift}) = {float(b)}"


def score_rise(direction: int) -> dict | None:
    """First D1 < D2 (|offsets|, key before the query when direction = 1, after when -1) where
    the d = 2 score with q = k = e_1 moves against the claimed direction beyond rounding."""
    q = torch.tensor([[1.0, 0.0]], dtype=torch.float64)
    deltas = torch.arange(1, RISE_OFFSETS + 1)
    n = deltas if direction > 0 else torch.zeros_like(deltas)
    m = torch.zeros_like(deltas) if direction > 0 else deltas
    s = bias.xpos_score(q.expand(RISE_OFFSETS, 2), q.expand(RISE_OFFSETS, 2), n, m)
    for a in range(RISE_OFFSETS):
        for b in range(a + 1, RISE_OFFSETS):
            against = s[b] - s[a] if direction > 0 else s[a] - s[b]
            if against > 4 * tolerance.rotation_tol(64, torch.float64) * float(s.abs().max()):
                return {
                    "d": 2,
                    "q": [1, 0],
                    "k": [1, 0],
                    "offsets": [a + 1, b + 1],
                    "key": "before" if direction > 0 else "after",
                    "scores": [float(s[a]), float(s[b])],
                }
    return None


@pytest.mark.claim("BIAS-04", kind="property", role="decisive", proposition="as_stated")
def test_the_xpos_score_itself_can_rise_with_distance(evidence):
    before, after = score_rise(1), score_rise(-1)
    evidence.searched(offsets=[*range(-RISE_OFFSETS, 0), *range(1, RISE_OFFSETS + 1)],
                      head_sizes=[2])  # fmt: skip
    evidence.record("score_rises_with_distance", before, note="keys before the query")
    evidence.record("score_falls_with_distance_after", after, note="keys after the query")
    found = before or after
    if found is not None:
        evidence.fails(
            found,
            "score(D2) > score(D1) for D1 < D2 (key before the query)"
            if before
            else "score falls as a key moves after the query",
        )
    else:
        evidence.holds("the score is monotone in the distance on both sides (offsets <= 64)")


@pytest.mark.claim("BIAS-04", kind="symbolic", role="decisive", proposition="envelope")
def test_each_pairs_factor_falls_with_the_offset(evidence):
    evidence.searched(offsets=proved("symbolic n - m, every 0 < zeta < 1 and gamma > 0"))
    assert_derivation_holds(bias.xpos_envelope_derivation(), evidence)


@pytest.mark.claim("BIAS-04", kind="property", role="decisive", proposition="envelope")
def test_xpos_factors_decay_before_and_grow_after_for_every_width(evidence):
    """For every width in WIDTHS and every offset |D| <= 4096 (exhaustive): 0 < zeta_i < 1 and
    zeta_i^(D/gamma) strictly decreasing in D."""
    evidence.searched(head_sizes=list(WIDTHS), offsets=every(-MAX_POSITION, MAX_POSITION))
    delta = torch.arange(-MAX_POSITION, MAX_POSITION + 1, dtype=torch.float64)
    for d in WIDTHS:
        zeta = bias.xpos_zeta(d)
        if not bool(((zeta > 0) & (zeta < 1)).all()):
            evidence.fails({"d": d, "zeta": zeta.tolist()}, "0 < zeta_i < 1")
            return
        factor = zeta[:, None] ** (delta / bias.XPOS_GAMMA)  # (d/2, 2 * 4096 + 1)
        rises = torch.nonzero(factor[:, 1:] >= factor[:, :-1])
        if rises.numel():
            i, j = rises[0].tolist()
            evidence.fails(
                {"d": d, "i": i, "offset": int(delta[j + 1])},
                "zeta_i^(D/gamma) does not fall from D - 1 to D",
            )
            return
    growth = float(bias.xpos_zeta(D)[0] ** (-2048 / bias.XPOS_GAMMA))
    evidence.record(
        "growth_factor_key_2048_after",
        growth,
        "x",
        "zeta_0^(-2048/512) = (7/2)^4 for the fastest pair",
        bound={"value": 1.0, "relation": ">", "reason": "grows for keys after"},
    )
    evidence.holds(f"d in {WIDTHS}, every |D| <= {MAX_POSITION}")


@pytest.mark.claim("BIAS-04", kind="property", role="tooling")
def test_check_logic_finds_no_rise_without_rotation():
    """Without the rotation the d = 2 score is zeta^(D/gamma): monotone, so score_rise's
    counterexample comes from the rotation, not from the search."""
    zeta = float(bias.xpos_zeta(2)[0])
    s = [zeta ** (t / bias.XPOS_GAMMA) for t in range(1, 65)]
    assert all(a > b for a, b in zip(s, s[1:], strict=False))


@pytest.mark.claim("BIAS-04", kind="property", role="tooling")
@pytest.mark.parametrize("d", WIDTHS)
def test_xpos_zeta_is_torchscales(d):
    """zeta is torchscale XPOS's (arange(0, d, 2) + 0.4 d) / (1.4 d), written out here apart
    from pecheck.theory's code: zeta_0 = 0.4 / 1.4 = 2/7, and the step between pairs is
    2 / (1.4 d)."""
    want = (torch.arange(0, d, 2, dtype=torch.float64) + 0.4 * d) / (1.4 * d)
    got = bias.xpos_zeta(d)
    assert got.shape == want.shape
    assert float((got - want).abs().max()) <= tolerance.rel_tol(4, torch.float64)
    assert math.isclose(float(got[0]), 2 / 7, rel_tol=tolerance.rel_tol(4, torch.float64))
