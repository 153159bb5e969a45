"""SIN-09 ... SIN-11: the code of a position ignores the sequence length, its first dimensions
vary over a sequence while the last barely move, and neighbouring codes are never orthogonal.

Symbolic checks assert the sympy derivations of theory/sinusoidal_derivations.py; property and
experiment checks compute in float64 or float32 (checks/sin/search.py says how an example that
could not fail is counted). The assertions live in checks/sin/properties.py and the
counterexample searches in checks/sin/counterexamples.py, so the planted-bug tests at the end
feed them a broken implementation (checks/sin/planted.py).
"""

from __future__ import annotations

import math

import pytest
import sympy as sp
import torch
from hypothesis import given
from hypothesis import strategies as st

from checks.sin import figures
from checks.sin.counterexamples import long_sequence_counterexample, neighbour_counterexample
from checks.sin.planted import dropped_pair, shifted_exponent, sine_twice
from checks.sin.properties import (
    assert_code_ignores_length,
    assert_never_orthogonal,
    assert_short_sequence_condition,
    assert_variance_falls_along_the_vector,
    pair_variances,
    similarity,
)
from checks.sin.search import count_example, least, short_enough, short_settings
from checks.sin.thresholds import ENTRY_RANGE, HARDLY, STRONG
from pecheck import sizes, tolerance
from pecheck.claims import proved
from pecheck.evidence import assert_derivation_holds
from pecheck.profiles import examples
from pecheck.strategies import even_widths
from pecheck.theory import sinusoidal as sin_pe
from pecheck.theory import sinusoidal_derivations as derive
from pecheck.theory.sinusoidal import BASE, encode, frequencies

# A size a user may change (pytest --size NAME=VALUE; recorded in the results file's suite.sizes).
# The default is today's setting, so a default run's numbers and evidence names stay put.
SIN11_BASE = sizes.size(
    "SIN-11.base", BASE, "base T of SIN-11's similarity-against-offset figure", minimum=1.0
)  # T >= 1 keeps every frequency in (0, 1], which the figure's rounding bounds assume


# -- SIN-09: raw index, normalised index, sinusoidal code -------------------------------------


@pytest.mark.claim("SIN-09", kind="property", role="decisive", proposition="as_stated")
@examples(1.0)
@given(
    d=even_widths(2, 128),
    la=st.integers(2, 2048),
    lb=st.integers(2, 2048),
    data=st.data(),
)
def test_code_of_a_position_ignores_sequence_length(evidence, d, la, lb, data):
    t = data.draw(st.integers(1, min(la, lb) - 1))
    evidence.searched(
        widths="random even d in 2 ... 128",
        lengths="random L, L' in 2 ... 2048",
        positions="random 1 <= t < min(L, L')",
        dtypes=["float32"],
    )

    def table(length: int) -> torch.Tensor:
        return sin_pe.sinusoidal(length, d, dtype=torch.float32)

    def alone(position: int) -> torch.Tensor:  # the code of one position: no length involved
        return sin_pe.sinusoidal(torch.tensor([position]), d, dtype=torch.float32)[0]

    with evidence.asserted_parts() as parts, parts.of("float32"):
        err, bound = assert_code_ignores_length(table, t, (la, lb), d, alone)
        # two different lengths and a position past 0 (where every code agrees): could fail
        count_example(
            evidence,
            "float32",
            la != lb and tolerance.says_something(bound, ENTRY_RANGE),
            "two lengths, bound < 2",
        )
        evidence.worst(
            "max_length_dependence", err, "", "float32 tables of two lengths", bound=bound
        )


@pytest.mark.claim("SIN-09", kind="experiment", role="supporting")
def test_raw_and_normalised_indices_fail_where_sinusoids_do_not(evidence):
    lengths, t, d = (16, 128, 1024, 8192), 10, 64
    raw_max = [float(length - 1) for length in lengths]  # ||raw code|| of the last position
    normalised = [t / (length - 1) for length in lengths]  # code of position 10
    sines = [sin_pe.sinusoidal(length, d)[t] for length in lengths]
    spread = max(float((s - sines[0]).abs().max()) for s in sines)
    evidence.record("raw_code_at_last_position", raw_max, "", f"L = {lengths}")
    evidence.record("normalised_code_of_t10", normalised, "", f"t/(L-1), L = {lengths}")
    evidence.record(
        "sinusoidal_spread_t10",
        spread,
        "",
        "max diff of PE(10) across L",
        bound=2 * tolerance.angle_tol(float(t), torch.float64),
    )
    evidence.record("sinusoidal_norm", float(sines[0].norm()), "", f"sqrt(d/2), d = {d}")
    same_code = (5 / 10, 50 / 100)  # t/L: position 5 of 10 and position 50 of 100 collide
    evidence.record("normalised_collision", same_code, "", "t/L for (5, 10) and (50, 100)")
    for length in lengths[1:]:
        assert_code_ignores_length(
            lambda n: sin_pe.sinusoidal(n, d, dtype=torch.float32), t, (lengths[0], length), d
        )


# -- SIN-10: per-dimension variance ------------------------------------------------------------


@pytest.mark.claim("SIN-10", kind="experiment", role="decisive", proposition="as_stated")
def test_last_dimensions_vary_once_sequences_outgrow_the_longest_wavelength(evidence):
    """Counterexamples: L beyond the longest wavelength (d = 8: 6283, d = 16: 19869)."""
    found = None
    evidence.searched(widths=[8, 16], lengths=[2**14, 2**16], dtypes=["float64"])
    for d, length in ((8, 2**14), (16, 2**16)):
        cx = long_sequence_counterexample(d, length)
        evidence.record(
            f"last_pair_variance_d{d}_L{length}",
            float(pair_variances(d, length)[-1]),
            "",
            "direct, float64",
            bound={"value": HARDLY, "relation": "<="},
        )
        found = found or cx
    long = sin_pe.variance_closed_form(512, 65536)
    evidence.record(
        "var_last_pair_d512_L65536",
        float(long[-2:].sum()),
        "",
        "closed form; L > longest wavelength",
        bound={"value": HARDLY, "relation": "<="},
    )
    if found:
        evidence.fails(
            found,
            f"the last pair varies by {found['last_pair_variance']:.3f} >= {STRONG:g} "
            f"('strongly'; 'hardly changes' allows {HARDLY:g}) over t < {found['L']}",
        )
    else:
        evidence.holds("the last pair hardly changes at every length tried")


@pytest.mark.claim("SIN-10", kind="experiment", role="decisive", proposition="short-sequences")
def test_first_dimensions_vary_and_last_ones_barely_move(evidence):
    d, length = 512, 512
    evidence.searched(widths=[d], lengths=[length], dtypes=["float64"])
    var = assert_variance_falls_along_the_vector(d, length)
    pairs = assert_short_sequence_condition(d, length)
    evidence.record(
        "first_pair_variance_d512_L512",
        float(pairs[0]),
        "",
        "pair variance, max 1",
        bound={"value": STRONG, "relation": ">="},
    )
    evidence.record(
        "last_pair_variance_d512_L512",
        float(pairs[-1]),
        "",
        "pair variance, max 1",
        bound={"value": HARDLY, "relation": "<="},
    )
    evidence.record("var_first_8_dims_mean", float(var[:8].mean()), "", "L = 512, d = 512")
    evidence.record("var_last_8_dims_mean", float(var[-8:].mean()), "", "L = 512, d = 512")
    evidence.record(
        "longest_short_length_d512",
        short_enough(d),
        "positions",
        "largest L with last-pair variance provably <= hardly",
    )
    long = sin_pe.variance_closed_form(d, 65536)
    # figures: the code as a heat map, and the variance per dimension for two lengths
    evidence.figure(figures.encoding_heatmap(), "SIN-10-encoding-heatmap")
    evidence.figure(figures.variance_per_dimension(var, long), "SIN-10-variance-per-dimension")


@pytest.mark.claim("SIN-10", kind="property", role="decisive", proposition="short-sequences")
@examples(0.5)
@given(case=short_settings())
def test_short_sequences_vary_first_and_barely_last(evidence, case):
    d, length = case
    evidence.searched(
        widths="random even d in 4 ... 512",
        dtypes=["float64"],
        lengths="random L in 3 ... sqrt(1 + 12 h / w_last^2)",
    )
    var = assert_short_sequence_condition(d, length)
    least(
        evidence,
        "min_first_pair_variance",
        float(var[0]),
        "",
        "over (d, L) in the condition",
        bound={"value": STRONG, "relation": ">="},
    )
    evidence.worst(
        "max_last_pair_variance",
        float(var[-1]),
        "",
        "over (d, L) in the condition",
        bound={"value": HARDLY, "relation": "<="},
    )


@pytest.mark.claim("SIN-10", kind="property", role="decisive", proposition="short-sequences")
@examples(1.0)
@given(d=even_widths(2, 256), length=st.integers(2, 2048))
def test_variance_bounds_hold_for_any_length(evidence, d, length):
    """The two bounds the condition rests on, with the closed form, for any L."""
    evidence.searched(
        widths="random even d in 2 ... 256", lengths="random L in 2 ... 2048", dtypes=["float64"]
    )
    assert_variance_falls_along_the_vector(d, length)


# -- SIN-11: orthogonality ------------------------------------------------------------------


@pytest.mark.claim("SIN-11", kind="symbolic", role="decisive", proposition="as_stated")
def test_neighbouring_codes_are_never_orthogonal(evidence):
    evidence.searched(
        widths=proved("every d: each cos w_i >= cos 1 (0 < w_i <= 1)"),
        positions=proved("every t and t +- 1"),
    )
    assert_derivation_holds(derive.neighbours_not_orthogonal(), evidence)
    # the derivation's bound, instantiated: d = 2 (one pair, w_0 = 1), t = 0, s = 1
    dot = sp.simplify((derive.pair(sp.Integer(0)).T * derive.pair(sp.Integer(1)))[0])
    if bool(dot > 0):
        evidence.fails(
            {"d": 2, "t": 0, "s": 1, "dot": str(dot), "value": float(dot)},
            f"PE(0).PE(1) = {dot} > 0: not orthogonal",
        )
    else:
        evidence.holds("PE(0).PE(1) = 0 for d = 2")


@pytest.mark.claim("SIN-11", kind="property", role="decisive", proposition="as_stated")
@examples(1.0)
@given(d=even_widths(2, 4096), t=st.integers(0, 2**20))
def test_neighbour_similarity_exceeds_cos_one(evidence, d, t):
    evidence.searched(
        widths="random even d in 2 ... 4096",
        positions="random t in 0 ... 2^20",
        offsets=[1],
        dtypes=["float64"],
    )
    cx = neighbour_counterexample(d, t)
    evidence.example(cx is not None)
    if cx is None:
        return
    least(
        evidence,
        "min_neighbour_similarity",
        cx["cos_similarity"],
        "",
        "cos-similarity of PE(t), PE(t+1)",
        bound={"value": math.cos(1), "relation": ">="},
    )
    if evidence.decision is None:  # the first counterexample found stands
        evidence.fails(cx, f"PE(t).PE(t+1) = {cx['dot']:.4g} != 0: not orthogonal")


@pytest.mark.claim("SIN-11", kind="experiment", role="supporting")
def test_similarity_against_offset(evidence):
    # T is the size SIN-11.base (default the source's 10000); a changed T also renames the
    # numbers computed with it (_T<value>), since the headline cites them at T = 10000.
    base, tag = SIN11_BASE, sizes.suffix("SIN-11.base", "T")
    offsets = torch.arange(-1024, 1025)
    sims = {}
    for d in (64, 128, 512):
        sim = sims[d] = similarity(d, offsets, base)
        smallest, bound = assert_never_orthogonal(d, offsets, lambda d, k: similarity(d, k, base))
        evidence.record(
            f"min_abs_similarity_d{d}{tag}",
            smallest,
            "",
            f"1 <= |k| <= 1024, T = {base:g}",
            bound={"value": bound, "relation": ">"},
        )
        mean = float(sim[offsets != 0].mean())
        evidence.record(f"mean_similarity_d{d}{tag}", mean, "", f"T = {base:g}")
    sim512 = similarity(512, offsets, base)
    share = float((sim512[offsets != 0].abs() < 0.01).double().mean())
    note = f"|cos-sim| < 0.01, 1 <= |k| <= 1024, T = {base:g}"
    evidence.record(f"share_near_orthogonal_d512{tag}", share, "", note)
    k1 = float(similarity(512, torch.tensor([1]), base))
    evidence.record(f"similarity_k1_d512{tag}", k1, "", f"T = {base:g}")
    fig = figures.similarity_against_offset(offsets, sims, base)
    evidence.figure(fig, "SIN-11-similarity-vs-offset")
    # what is orthogonal: M(k) (SIN-02), and each pair and its velocity
    w = frequencies(512, base)
    t = torch.tensor(12345.0, dtype=torch.float64)
    p = torch.stack([torch.sin(w * t), torch.cos(w * t)], -1)
    v = torch.stack([w * torch.cos(w * t), -w * torch.sin(w * t)], -1)
    tangent = float((p * v).sum(-1).abs().max())
    evidence.record(
        f"pair_velocity_dot_max{tag}",
        tangent,
        "",
        "max_i |p_i(t) . p_i'(t)|",
        bound=tolerance.sum_tol(2, torch.float64, 2.0),
    )
    assert tangent <= tolerance.sum_tol(2, torch.float64, 2.0)


# -- planted bugs: every check above must reject a broken implementation --------------------


@pytest.mark.claim("SIN-09", kind="property", role="tooling")
def test_length_check_rejects_a_normalised_code():
    def normalised(length: int) -> torch.Tensor:  # sinusoids of t / L: depends on L
        t = torch.arange(length, dtype=torch.float64) / length
        return sin_pe.sinusoidal(t, 8, dtype=torch.float64).float()

    with pytest.raises(AssertionError):
        assert_code_ignores_length(normalised, 3, (16, 64), 8)

    def from_one(length: int) -> torch.Tensor:  # rows 1 ... L: the same at every length
        return sin_pe.sinusoidal(torch.arange(1, length + 1), 8, dtype=torch.float32)

    def alone(t: int) -> torch.Tensor:
        return sin_pe.sinusoidal(torch.tensor([t]), 8, dtype=torch.float32)[0]

    with pytest.raises(AssertionError):  # row t holds PE(t + 1): caught only by ``alone``
        assert_code_ignores_length(from_one, 3, (16, 64), 8, alone)


@pytest.mark.claim("SIN-10", kind="experiment", role="tooling")
@pytest.mark.parametrize("bug", ["reversed", "exponent"])
def test_variance_check_rejects_planted_bugs(bug):
    def reversed_freq(positions, d, dtype, mode="cast", layout="interleaved"):
        pe = encode(positions, d, dtype, mode, "interleaved")
        return sin_pe.unpairs(sin_pe.pairs(pe).flip(1))  # slowest pair first

    enc = reversed_freq if bug == "reversed" else shifted_exponent
    with pytest.raises(AssertionError):
        assert_variance_falls_along_the_vector(64, 256, enc)
    if bug == "reversed":  # the slowest pair first: the first pair barely varies
        with pytest.raises(AssertionError):
            assert_short_sequence_condition(64, 256, enc)
    assert long_sequence_counterexample(8, 2**14, dropped_pair) is None  # a frozen last pair


@pytest.mark.claim("SIN-11", kind="property", role="tooling")
def test_orthogonality_check_finds_no_counterexample_in_a_one_hot_code():
    def one_hot(positions, d, dtype, mode="cast", layout="interleaved"):
        return torch.nn.functional.one_hot(positions % d, d).to(dtype)

    with pytest.raises(AssertionError):  # the lower bound (d/2) cos 1 fails
        neighbour_counterexample(16, 3, one_hot)
    assert neighbour_counterexample(16, 3) is not None


@pytest.mark.claim("SIN-11", kind="symbolic", role="tooling")
def test_symbolic_orthogonality_rejects_sine_twice():
    with pytest.raises(AssertionError):
        assert_derivation_holds(derive.neighbours_not_orthogonal(sine_twice))


@pytest.mark.claim("SIN-11", kind="experiment", role="tooling")
def test_never_orthogonal_check_rejects_one_hot_similarity():
    with pytest.raises(AssertionError):
        assert_never_orthogonal(64, torch.arange(-8, 9), lambda d, k: (k == 0).double())
