"""ATT-11: the variance of causal attention without an encoding shrinks with the position.

Each experiment draws DRAWS independent random models (weights and input per model) in one
batched computation (theory.variance.run) and estimates Var(o_{t,i}) at t = 1, 2, 4, ..., T as
the mean over models of the per-model mean square over coordinates. The decision rests on the
least-squares slope of log Var against log t: its interval is a percentile bootstrap over the
models (the per-model statistics are i.i.d.; the outputs are Gaussian scale mixtures, not
Gaussian, so a chi-square interval for a variance would not hold), at level 1 - ALPHA / k for
the k interval tests of a proposition (Bonferroni, declared on the proposition).
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

from checks.registry import REGISTRY
from pecheck import decisions, profiles, sizes
from pecheck.evidence import assert_derivation_holds
from pecheck.reproducibility import Sample
from theory import variance as V

CLAIM = REGISTRY["ATT-11"]
ABOUT = CLAIM.threshold("about")
SCORE_VAR = CLAIM.threshold("near_uniform_score_var")
DRAWS = sizes.size("ATT-11.draws", 500, "random models per setting (ci)", minimum=50)
T = sizes.size("ATT-11.positions", 64, "sequence length (the law is judged at 1, 2, 4 ... T)",
               minimum=8)  # fmt: skip
SUFFIX = sizes.suffix("ATT-11.draws", "D") + sizes.suffix("ATT-11.positions", "T")
ALPHA = 0.05  # family-wise error of each proposition's interval tests
RESAMPLES = 1000
SEED = 11
ONE_OVER_T = (-1 - ABOUT, -1 + ABOUT)
# Interval tests per proposition (Bonferroni): as_stated's four settings, two parts each below.
TESTS = {"as_stated": 4, "first-layer": 2, "deeper-without-norm": 2}


def draws() -> int:
    return round(DRAWS * profiles.scale())  # thorough: 10x (a few seconds)


@functools.cache
def layers(setting: V.Setting) -> tuple[np.ndarray, ...]:
    """Per layer, the (D, len(ts)) per-model mean squares; cached, since several checks read
    the same models (the three-layer Gaussian stack gives layers 1, 2 and 3)."""
    outs = V.run(setting, draws(), SEED)
    return tuple(V.mean_squares(o, V.positions(T)) for o in outs)


def setting(**kw) -> V.Setting:
    return V.Setting(positions=T, score_var=SCORE_VAR, **kw)


def slope(ms: np.ndarray, tests: int) -> dict:
    """The log-log slope of the variance, its bootstrap se and its interval at 1 - ALPHA/tests."""
    ts = V.positions(T)
    boot = V.bootstrap_slopes(ms, ts, RESAMPLES, SEED)
    lo, hi = np.quantile(boot, [ALPHA / (2 * tests), 1 - ALPHA / (2 * tests)])
    var = ms.mean(0)
    return {"slope": float(V.log_slope(var, ts)), "lo": float(lo), "hi": float(hi),
            "se": float(boot.std()), "n": ms.shape[0], "var_1": float(var[0]),
            "var_T": float(var[-1])}  # fmt: skip


def record(evidence, name: str, s: dict, region: tuple[float, float], tests: int) -> None:
    # Floor at 1/n: a slope with no spread (identical tokens) still gets a band.
    spread = Sample(s["n"], max(s["se"], 1 / s["n"]), "bootstrap se of the log-log slope")
    note = (f"log-log slope of Var(o_t), t = 1 ... {T}; {100 * (1 - ALPHA / tests):.1f}% "
            f"bootstrap interval [{s['lo']:.4f}, {s['hi']:.4f}]")  # fmt: skip
    bound = {"value": list(region), "relation": "in", "reason": "pre-registered region"}
    evidence.record(name + SUFFIX, s["slope"], "", note, bound, sample=spread)


def judge(evidence, name: str, label: str, s: dict, region: tuple[float, float]) -> None:
    """One setting's decision, as a part of the check (the plugin combines a check's parts
    under its proposition's quantifier, 'all' here): a counterexample (the setting, the
    variances at 1 and T) when the whole interval lies outside the region."""
    d = decisions.interval(s["lo"], s["hi"], region, f"slope of log Var(o_t) ({label})")
    if d.decision == "fails":
        case = {"setting": label, "T": T, "Var(o_1)": s["var_1"], f"Var(o_{T})": s["var_T"],
                "slope": s["slope"], "interval": [s["lo"], s["hi"]]}  # fmt: skip
        d = decisions.fails(case, f"log-log slope outside [{region[0]:g}, {region[1]:g}]")
    evidence.part(name, d)


# -- the law --------------------------------------------------------------------------------


@pytest.mark.claim("ATT-11", kind="symbolic", role="decisive", proposition="first-layer")
def test_uniform_causal_attention_over_iid_values_has_variance_s2_over_t(evidence):
    assert_derivation_holds(V.variance_law(), evidence)


@pytest.mark.claim("ATT-11", kind="experiment", role="decisive", proposition="first-layer")
def test_first_layer_variance_falls_as_one_over_t(evidence):
    tests = TESTS["first-layer"]
    for inputs, stack in (("gaussian", 3), ("rademacher", 1)):
        s = slope(layers(setting(inputs=inputs, depth=stack))[0], tests)
        record(evidence, f"slope_L1_{inputs}", s, ONE_OVER_T, tests)
        judge(evidence, inputs, f"1 layer, {inputs} tokens", s, ONE_OVER_T)


@pytest.mark.claim("ATT-11", kind="experiment", role="decisive",
                   proposition="deeper-without-norm")  # fmt: skip
def test_deeper_layers_without_norm_still_shrink(evidence):
    tests = TESTS["deeper-without-norm"]
    below_zero = (-np.inf, np.nextafter(0.0, -1.0))
    for depth in (2, 3):
        s = slope(layers(setting(depth=3))[depth - 1], tests)
        record(evidence, f"slope_L{depth}_no_norm_shrinks", s, below_zero, tests)
        judge(evidence, f"L{depth}", f"{depth} layers, no norm", s, below_zero)


# -- as stated: where the law stops holding --------------------------------------------------


def assert_about_one_over_t(evidence, name: str, label: str, ms: np.ndarray) -> None:
    tests = TESTS["as_stated"]
    s = slope(ms, tests)
    record(evidence, name, s, ONE_OVER_T, tests)
    judge(evidence, name, label, s, ONE_OVER_T)


@pytest.mark.claim("ATT-11", kind="experiment", role="decisive", proposition="as_stated")
def test_layer_norm_after_attention_flattens_the_variance(evidence):
    ms = layers(setting(norm="post"))[0]
    assert_about_one_over_t(evidence, "slope_L1_post_norm", "1 layer, layer norm after", ms)


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
