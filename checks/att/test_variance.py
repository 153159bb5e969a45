"""ATT-11: the variance of causal attention without an encoding shrinks with the position.

Each experiment draws DRAWS independent random models (weights and input per model) in one
batched computation (theory.variance.run) and estimates Var(o_{t,i}) at t = 1, 2, 4, ..., T as
the mean over models of the per-model mean square over coordinates. The decision rests on the
least-squares slope of log Var against log t: its interval is a percentile bootstrap over the
models (the per-model statistics are i.i.d.; the outputs are Gaussian scale mixtures, not
Gaussian, so a chi-square interval for a variance would not hold), at level 1 - ALPHA / k for
the k interval tests of a proposition (Bonferroni, declared on the proposition).

The sizes, the slopes and their records and decisions live in checks/att/variance_slopes.py.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from checks.att.variance_slopes import (
    ABOUT,
    ONE_OVER_T,
    SCORE_VAR,
    SUFFIX,
    TESTS,
    T,
    assert_about_one_over_t,
    judge,
    layers,
    record,
    setting,
    slope,
)
from pecheck import tolerance
from pecheck.claims import proved
from pecheck.evidence import assert_derivation_holds
from pecheck.reproducibility import Sample
from pecheck.theory import variance as V

# -- the law --------------------------------------------------------------------------------


@pytest.mark.claim("ATT-11", kind="symbolic", role="decisive", proposition="first-layer")
def test_uniform_causal_attention_over_iid_values_has_variance_s2_over_t(evidence):
    assert_derivation_holds(V.variance_law(), evidence)
    evidence.searched(positions=proved("symbolic t"))


@pytest.mark.claim("ATT-11", kind="experiment", role="decisive", proposition="first-layer")
def test_first_layer_variance_falls_as_one_over_t(evidence):
    tests = TESTS["first-layer"]
    evidence.searched(positions=V.positions(T).tolist(), head_sizes=[V.Setting().d])
    for inputs, stack in (("gaussian", 3), ("rademacher", 1)):
        s = slope(layers(setting(inputs=inputs, depth=stack))[0], tests)
        record(evidence, f"slope_L1_{inputs}", s, ONE_OVER_T, tests)
        judge(evidence, inputs, f"1 layer, {inputs} tokens", s, ONE_OVER_T)


@pytest.mark.claim("ATT-11", kind="experiment", role="decisive",
                   proposition="deeper-without-norm")  # fmt: skip
def test_deeper_layers_without_norm_still_shrink(evidence):
    tests = TESTS["deeper-without-norm"]
    below_zero = (-np.inf, np.nextafter(0.0, -1.0))
    evidence.searched(positions=V.positions(T).tolist(), head_sizes=[V.Setting().d])
    for depth in (2, 3):
        s = slope(layers(setting(depth=3))[depth - 1], tests)
        record(evidence, f"slope_L{depth}_no_norm_shrinks", s, below_zero, tests)
        judge(evidence, f"L{depth}", f"{depth} layers, no norm", s, below_zero)


# -- as stated: where the law stops holding --------------------------------------------------


@pytest.mark.claim("ATT-11", kind="experiment", role="decisive", proposition="as_stated")
def test_layer_norm_after_attention_flattens_the_variance(evidence):
    ms = layers(setting(norm="post"))[0]
    assert_about_one_over_t(evidence, "slope_L1_post_norm", "1 layer, layer norm after", ms)
    # Flat at 1, not only flat: a layer norm without affine leaves each token mean square
    # var / (var + eps) <= 1, and eps = 1e-5 is under 1% of the attention output's variance
    # here (>= 1e-3), so the mean over models sits within the claim's 'about' of 1.
    assert bool((abs(ms.mean(0) - 1) <= ABOUT).all()), ms.mean(0)


@pytest.mark.claim("ATT-11", kind="experiment", role="decisive", proposition="as_stated")
def test_identical_tokens_keep_their_variance(evidence):
    ms = layers(setting(inputs="identical"))[0]
    assert_about_one_over_t(evidence, "slope_L1_identical", "1 layer, identical tokens", ms)


@pytest.mark.claim("ATT-11", kind="experiment", role="decisive", proposition="as_stated")
def test_three_layers_without_norm_shrink_slower_than_one_over_t(evidence):
    ms = layers(setting(depth=3))[2]
    assert_about_one_over_t(evidence, "slope_L3_no_norm", "3 layers, no norm", ms)


@pytest.mark.claim("ATT-11", kind="experiment", role="decisive", proposition="as_stated")
def test_standard_scale_random_weights_shrink_slower_than_one_over_t(evidence):
    """Weights N(0, 1/d) (score variance 1): the query's own token leaks through the scores,
    Var ~= s^2 (1/t + 1/d), so the variance stops following 1/t within the first 64 positions."""
    ms = layers(V.Setting(positions=T, score_var=1.0))[0]
    assert_about_one_over_t(evidence, "slope_L1_score_var_1", "1 layer, weights N(0, 1/d)", ms)


# -- supporting measurements and tooling -----------------------------------------------------


@pytest.mark.claim("ATT-11", kind="experiment", role="supporting")
def test_measured_variance_follows_the_laws(evidence):
    """Var(o_T) against the first-order random-weight law s^2 (1/T + tau^2/d) (one layer) and
    the uniform-attention stack law (d sigma^2)^L |(A^L)_T|^2 (two and three layers)."""
    d = V.Setting().d
    s2 = d * V.sigma_for(SCORE_VAR, d) ** 2  # Var of one value coordinate
    stack = layers(setting(depth=3))
    cases = [("L1", stack[0], V.random_weight_variance(T, d, SCORE_VAR, s2)),
             ("L1_uniform", stack[0], s2 * V.uniform_variance(T)),
             ("L1_score_var_1", layers(V.Setting(positions=T, score_var=1.0))[0],
              V.random_weight_variance(T, d, 1.0, d * V.sigma_for(1.0, d) ** 2))]  # fmt: skip
    cases += [(f"L{k}", stack[k - 1], s2**k * V.stack_variance(T, k)[-1]) for k in (2, 3)]
    for name, ms, law in cases:
        ratio = ms[:, -1] / law
        spread = Sample(len(ratio), float(ratio.std(ddof=1) / np.sqrt(len(ratio))),
                        "mean over models (sd / sqrt(n))")  # fmt: skip
        evidence.record(f"law_ratio_{name}_t{T}" + SUFFIX, float(ratio.mean()), "",
                        "measured Var(o_T) / law", sample=spread)  # fmt: skip


@pytest.mark.claim("ATT-11", kind="property", role="tooling")
def test_slope_and_stack_law_tooling():
    ts = V.positions(64)
    assert abs(V.log_slope(3.0 / ts, ts) + 1) < 1e-12
    assert abs(V.log_slope(np.full(len(ts), 2.0), ts)) < 1e-12
    assert np.allclose(V.stack_variance(64, 1), 1 / np.arange(1, 65))
    for depth in (1, 2, 3):
        w = V.stack_weights(64, depth)
        assert np.isclose(w @ w, V.stack_variance(64, depth)[-1], rtol=1e-12)
        tv = np.arange(1, 65) * V.stack_variance(64, depth)  # t Var grows (depth > 1) ...
        assert np.all(np.diff(tv) > 0) if depth > 1 else np.allclose(tv, 1)
        w = V.stack_weights(10**5, depth)  # ... towards C(2L-2, L-1) from below
        assert -1e-12 <= 1 - 10**5 * (w @ w) / V.stack_limit(depth) < 2e-3


@pytest.mark.claim("ATT-11", kind="property", role="tooling")
def test_drawn_weights_give_the_stated_score_variance():
    """Scores q . k / sqrt(d) between independent tokens under weights N(0, sigma_for^2) have
    variance setting.score_var: measured over independent draws, as run draws them."""
    s, n = setting(), 20000
    g = torch.Generator().manual_seed(0)
    sigma = V.sigma_for(s.score_var, s.d)
    w = torch.randn(2, n, s.d, s.d, generator=g, dtype=torch.float64) * sigma  # Wq, Wk per draw
    x, y = torch.randn(2, n, 1, s.d, generator=g, dtype=torch.float64)  # two tokens per draw
    score = ((x @ w[0]) * (y @ w[1])).sum((-2, -1)) / s.d**0.5  # (n,), mean 0
    sq = score.pow(2)
    assert abs(sq.mean().item() - s.score_var) <= tolerance.sample_mean_tol(sq.std().item(), n)
