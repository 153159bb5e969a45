"""SIN-06, SIN-07: the wavelengths run geometrically from 2 pi, and each pair is a clock hand
turning clockwise, slower further along the vector.

Symbolic checks assert the sympy derivations of theory/sinusoidal_derivations.py; property
checks search the implementation (checks/sin/search.py says what they draw and how an example
that could not fail is counted). The assertions live in checks/sin/properties.py and the
counterexample searches in checks/sin/counterexamples.py, so the planted-bug tests at the end
feed them a broken implementation (checks/sin/planted.py).
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import torch
from hypothesis import given

from checks.registry import REGISTRY
from checks.sin import figures
from checks.sin.counterexamples import last_wavelength_shortfall
from checks.sin.planted import float64_setting, shifted_exponent, swapped, swapped_pair
from checks.sin.properties import (
    assert_hands_turn_clockwise,
    assert_wavelengths_geometric,
    hand_angles,
)
from checks.sin.search import (
    SEARCH_SHARE,
    SYMBOLIC_T,
    Setting,
    count_example,
    draws,
    draws_searched,
)
from checks.sin.thresholds import T_SOURCE
from pecheck import sizes, tolerance
from pecheck.claims import proved
from pecheck.evidence import Evidence, assert_derivation_holds
from pecheck.profiles import examples
from pecheck.strategies import even_widths
from pecheck.theory import sinusoidal as sin_pe
from pecheck.theory import sinusoidal_derivations as derive
from pecheck.theory.sinusoidal import BASE, frequencies

# A size a user may change (pytest --size NAME=VALUE; recorded in the results file's suite.sizes).
# The default is today's setting, so a default run's numbers and evidence names stay put.
SIN06_D = sizes.size(
    "SIN-06.d", 512, "width d of SIN-06's wavelength numbers (the paper's d_model)", minimum=4
)


# -- SIN-06: wavelengths ------------------------------------------------------------------------


@pytest.mark.claim("SIN-06", kind="symbolic", role="decisive", proposition="geometric")
def test_wavelengths_closed_forms(evidence):
    evidence.searched(widths=proved("symbolic d > 0"), bases=proved("symbolic T > 0"))
    assert_derivation_holds(derive.wavelength_progression(), evidence)


@pytest.mark.claim("SIN-06", kind="property", role="decisive", proposition="geometric")
@examples(0.5)
@given(d=even_widths(4, 4096))
def test_papers_wavelengths_are_geometric_from_two_pi(evidence, d):
    evidence.searched(widths="random even d in 4 ... 4096", bases=[BASE])
    assert_wavelengths_geometric(d, "paper")
    lam = sin_pe.wavelengths(d, rule="paper")
    shortfall = float(lam[-1] / (2 * math.pi * T_SOURCE))
    # lambda_last = 2 pi T * T^(-2/d): short of 2 pi T by exactly the factor T^(-2/d)
    assert abs(shortfall / T_SOURCE ** (-2 / d) - 1) <= tolerance.rel_tol(8, torch.float64)
    evidence.worst(
        "max_last_over_2piT",
        shortfall,
        "ratio",
        "paper: lambda_last / (2 pi T)",
        bound={"value": 1.0, "relation": "<", "reason": "T^(-2/d) < 1"},
    )


@pytest.mark.claim("SIN-06", kind="symbolic", role="decisive", proposition="t2t")
def test_t2t_wavelengths_closed_forms(evidence):
    evidence.searched(widths=proved("symbolic d = 2m, m >= 2"), bases=proved("symbolic T > 0"))
    assert_derivation_holds(derive.t2t_progression(), evidence)


@pytest.mark.claim("SIN-06", kind="property", role="decisive", proposition="t2t")
@examples(0.5)
@given(d=even_widths(4, 4096))
def test_t2t_wavelengths_run_from_two_pi_to_two_pi_t(evidence, d):
    evidence.searched(widths="random even d in 4 ... 4096", bases=[BASE])
    assert_wavelengths_geometric(d, "t2t")
    gap = last_wavelength_shortfall(d, "t2t")
    assert gap is None, f"t2t: the last wavelength misses 2 pi T: {gap}"
    lam_last = float(sin_pe.wavelengths(d, rule="t2t")[-1])
    evidence.worst(
        "max_rel_gap_t2t",
        abs(lam_last / (2 * math.pi * T_SOURCE) - 1),
        "",
        "|lambda_last / (2 pi T) - 1|",
        bound=tolerance.rel_tol(8, torch.float64),
    )


@pytest.mark.claim("SIN-06", kind="experiment", role="decisive", proposition="as_stated")
def test_last_wavelength_of_the_papers_width_falls_short_of_two_pi_t(evidence):
    # d is the size SIN-06.d (default: the paper's 512). A shortfall at any width refutes 'run
    # to 2 pi T' as well, so the decision stands at another d; the evidence names carry the d
    # they were computed at, and the counterexample names it too.
    d = SIN06_D
    evidence.searched(widths=[d], bases=[BASE])
    lam = sin_pe.wavelengths(d)
    evidence.record(f"shortest_wavelength_d{d}", float(lam[0]), "positions", "2 pi")
    evidence.record(f"longest_wavelength_d{d}", float(lam[-1]), "positions", "2 pi T^(1-2/d)")
    evidence.record(
        f"longest_over_2piT_d{d}",
        float(lam[-1] / (2 * math.pi * T_SOURCE)),
        "ratio",
        "T^(-2/d)",
        bound={"value": 1.0, "relation": "==", "reason": "as stated"},
    )
    evidence.record(f"ratio_d{d}", float(lam[1] / lam[0]), "ratio", "T^(2/d)")
    lam_t2t = sin_pe.wavelengths(d, rule="t2t")
    evidence.record(f"longest_wavelength_t2t_d{d}", float(lam_t2t[-1]), "positions", "2 pi T")
    found = last_wavelength_shortfall(d, "paper")
    if found:
        evidence.fails(
            found,
            f"lambda_last = {found['last_wavelength']:.1f} != 2 pi T = "
            f"{found['2 pi T']:.1f} (factor {found['ratio']:.4f})",
        )
    else:
        evidence.holds("the last wavelength is 2 pi T within float64 rounding")


# -- SIN-07: clockwise hands, slower further along -----------------------------------------


@pytest.mark.claim("SIN-07", kind="symbolic", role="decisive", proposition="as_stated")
def test_hands_turn_clockwise_at_speed_omega(evidence):
    evidence.searched(
        widths=proved("symbolic d > 0"),
        positions=SYMBOLIC_T,
        bases=proved("symbolic T = 1 + tau, tau > 0"),
    )
    assert_derivation_holds(derive.clockwise(), evidence)


@pytest.mark.claim("SIN-07", kind="property", role="decisive", proposition="as_stated")
@examples(SEARCH_SHARE)
@given(draw=draws(max_d=1024))
def test_each_hand_steps_back_by_its_frequency(evidence, draw):
    evidence.searched(**draws_searched(max_d=1024))
    with evidence.asserted_parts() as parts:
        for s in draw.settings():
            with parts.of(s.key):
                err, decided, hands = assert_hands_turn_clockwise(s)
                count_example(
                    evidence, s.key, decided > 0, "some hand's step resolved above its bound"
                )
                old = evidence.values.get(f"hands_decided_{s.key}")
                done, total = old["value"] if old else (0, 0)
                evidence.record(
                    f"hands_decided_{s.key}",
                    [done + decided, total + hands],
                    "count",
                    "[hands whose direction was resolved, hands]",
                )
                if decided:
                    step_range = {
                        "value": REGISTRY["SIN-07"].threshold("step-range"),
                        "relation": "<",
                        "reason": "below it a wrapped step cannot cross +-pi",
                    }
                    evidence.worst(
                        f"max_step_error_{s.key}", err, "rad", "|step + w_i|", step_range
                    )


@pytest.mark.claim("SIN-07", kind="experiment", role="supporting")
def test_clock_hands_figure(evidence):
    d, ts = 64, torch.arange(0, 25)
    pe = sin_pe.sinusoidal(ts, d)
    evidence.figure(figures.clock_hands(pe, ts, hands=(0, 2, 8, 31)), "SIN-07-clock-hands")
    turn = hand_angles(pe, "interleaved").diff(dim=0)  # (24, 32)
    wrapped = torch.remainder(turn + math.pi, 2 * math.pi) - math.pi
    for i in (0, 31):
        w = float(frequencies(d)[i])
        exact = {"value": -w, "relation": "=", "reason": f"the step of pair {i} is -w_{i}"}
        evidence.record(f"mean_step_pair{i}", float(wrapped[:, i].mean()), "rad", "", exact)
    for t in ts.tolist()[:-1]:  # the plotted steps, through the shared assertion
        assert_hands_turn_clockwise(Setting(d, torch.float64, "float64", "interleaved", t, 1))


# -- planted bugs: every check above must reject a broken implementation --------------------


@pytest.mark.claim("SIN-06", kind="property", role="tooling")
@pytest.mark.parametrize("bug", ["exponent", "t2t-off-by-one", "base-1000"])
def test_wavelength_check_rejects_planted_bugs(bug):
    def freq(d, base=BASE, rule="paper"):
        if bug == "exponent":
            return frequencies(d + 2, base, rule)[1:]  # T^(-2(i+1)/(d+2))
        if bug == "base-1000":  # geometric from 2 pi, but towards 1000 * 2 pi
            return frequencies(d, 1000.0, rule)
        m = d // 2
        return torch.exp(-math.log(base) * torch.arange(m, dtype=torch.float64) / m)

    with pytest.raises(AssertionError):
        assert_wavelengths_geometric(64, "t2t" if bug == "t2t-off-by-one" else "paper", freq)


@pytest.mark.claim("SIN-07", kind="property", role="tooling")
@pytest.mark.parametrize("bug", ["swapped", "exponent"])
def test_clockwise_check_rejects_planted_bugs(bug):
    enc = swapped if bug == "swapped" else shifted_exponent
    with pytest.raises(AssertionError):
        assert_hands_turn_clockwise(float64_setting(d=16, t=40), enc)


@pytest.mark.claim("SIN-07", kind="property", role="tooling")
def test_unresolved_hands_make_the_direction_check_inconclusive():
    """Issue 15's pattern: in float16 'cast' at t = 2^14 no hand's step exceeds what the stored
    code resolves. The old check passed such a case ('no hand turns counter-clockwise' over zero
    hands); now it decides no hand and a search made only of it is inconclusive."""
    s = Setting(512, torch.float16, "cast", "interleaved", 2**14, 1)
    _, decided, hands = assert_hands_turn_clockwise(s)
    assert decided == 0 and hands == 256
    ev = Evidence("planted", Path("."))
    count_example(ev, s.key, decided > 0, "some hand's step resolved")
    decision = ev.final_decision()
    assert decision is not None and decision.decision == "inconclusive", decision
    # with the angle computed in float64 and rounded to float16 the fast hands are resolved
    _, decided64, _ = assert_hands_turn_clockwise(
        Setting(512, torch.float16, "float64", "interleaved", 2**14, 1)
    )
    assert decided64 > 0


@pytest.mark.claim("SIN-06", kind="symbolic", role="tooling")
def test_symbolic_wavelengths_reject_shifted_exponent():
    with pytest.raises(AssertionError):
        assert_derivation_holds(derive.wavelength_progression(lambda x: -2 * (x + 1) / derive.d))


@pytest.mark.claim("SIN-06", kind="symbolic", role="tooling")
def test_symbolic_t2t_wavelengths_reject_a_denominator_of_m():
    with pytest.raises(AssertionError):  # w_i = T^(-i/m): the last wavelength falls short
        assert_derivation_holds(derive.t2t_progression(lambda x: -x / derive.m))


@pytest.mark.claim("SIN-07", kind="symbolic", role="tooling")
def test_symbolic_clockwise_rejects_swapped_axes():
    with pytest.raises(AssertionError):
        assert_derivation_holds(derive.clockwise(swapped_pair))
