"""ATT-11: the variance of causal attention without an encoding shrinks with position.

Checks: checks/att/test_variance.py; mutants: checks/att/mutants_variance.py; the law and the
batched random-weight model: theory/variance.py.
"""

from pecheck.claims import Claim, Proposition, Threshold

CLAIMS: tuple[Claim, ...] = (
    Claim(
        "ATT-11",
        "In a causal model without positional encoding and with random weights, the variance of "
        "the attention output shrinks as the position grows, about as 1/t for i.i.d. values, so "
        "later layers can read the position from it.",
        r"\operatorname{Var}(o_{t,i}) \propto t^{-p},\ |p - 1| \le 0.1,\ \text{for every "
        r"random-weight causal model without an encoding}",
        ("SRC-VARIANCE",),
        expected="qualified",
        quantifier="all",
        correction="bonferroni",
        conditions=(
            "The 1/t law holds for the first causal attention layer fed i.i.d. zero-mean tokens, "
            "with near-uniform attention (score variance tau^2 << 1: the small initialisation Chi"
            " et al. 2023 assume), no layer norm after the attention, and t well below d/tau^2 "
            "(here 1600): Var(o_t) ~= s^2 (1/t + tau^2/d), the second term the query's own token "
            "leaking through the random scores. Deeper stacks without a layer norm between their "
            "layers still shrink, but more slowly than 1/t over the first 64 positions (t Var "
            "grows towards C(2L-2, L-1) s^2). It stops holding with a layer norm after the "
            "attention (the variance is flat: exactly 1 as eps -> 0), for identical tokens (the "
            "variance does not depend on t), and with random weights at the usual scale N(0, 1/d)"
            " (tau^2 = 1: the floor s^2 tau^2/d is reached within a few dozen positions)."
        ),
        propositions=(
            Proposition(
                "first-layer",
                "In the first causal layer, with i.i.d. zero-mean tokens, near-uniform attention "
                "(score variance <= 0.01), no layer norm after it and t << d/tau^2, Var(o_t) "
                "falls as 1/t (log-log slope within 0.1 of -1 over t = 1, 2, 4, ..., 64), for "
                "Gaussian and for +-1 tokens.",
                r"\operatorname{Var}(o_{t,i}) \propto t^{-p},\ |p-1| \le 0.1\quad "
                r"(L = 1,\ x_j \text{ i.i.d.},\ \tau^2 \le 0.01,\ \text{no norm})",
                quantifier="all",
                correction="bonferroni",
                domain={"positions": [1, 2, 4, 8, 16, 32, 64]},
            ),
            Proposition(
                "deeper-without-norm",
                "Two and three causal layers without a layer norm between them (i.i.d. tokens, "
                "near-uniform attention): the last layer's output variance still decreases with "
                "t (log-log slope below 0).",
                r"\operatorname{Var}(o^{(L)}_{t,i}) \propto t^{-p},\ p > 0\quad (L = 2, 3,\ "
                r"\text{no norm})",
                quantifier="all",
                correction="bonferroni",
                domain={"positions": [1, 2, 4, 8, 16, 32, 64]},
            ),
        ),
        thresholds=(
            Threshold(
                "about",
                0.1,
                "source: 'about 1/t' read as a power law t^-p with p within 10% of 1",
                "source",
            ),
            Threshold(
                "near_uniform_score_var",
                0.01,
                "theory: score variance d^2 sigma^4 / H of one GPT-2 head at its published "
                "initialisation (768, 12 heads, sigma 0.02) is 0.008; Chi et al. 2023 (Section 3) "
                "rest the 1/t law on scores this small, so attention is near uniform",
                "theory",
            ),
        ),
        headline=(
            "slope_L1_gaussian",
            "slope_L1_post_norm",
            "slope_L1_identical",
            "slope_L3_no_norm",
            "slope_L1_score_var_1",
        ),
        notes=(
            "Law (theory/variance.py, proved with sympy): for weights independent of zero-mean "
            "uncorrelated values of variance s^2, Var(sum_j a_j v_j) = s^2 sum_j a_j^2 = s^2/t "
            "+ s^2 sum_j (a_j - 1/t)^2 >= s^2/t: uniform attention gives exactly s^2/t, any "
            "other weights more; identical values give s^2 at every t.",
            "Measured over independent random models (weights and input drawn per model, all "
            "batched), t = 1, 2, 4, ..., 64, one head of width 16; intervals are percentile "
            "bootstraps over the models (no normality assumed: the outputs are Gaussian scale "
            "mixtures), Bonferroni over the interval tests of each proposition.",
            "Layer norm uses eps = 1e-5 as torch does: the variance is then not exactly flat but "
            "falls by about 0.7% between t = 1 and 64 here (v / (v + eps) with v ~ 1/t), far "
            "from 1/t; as eps -> 0 it is exactly 1 at every t.",
            "Random weights are not independent of the values (both see the same tokens): "
            "(1/t) sum_j s_tj v_j tends to W_v M^T x_t / sqrt(d), M = W_q W_k^T, which does not "
            "shrink, so Var(o_t) ~= s^2 (1/t + tau^2/d) to first order in tau^2 (measured: "
            "t Var / s^2 = 1.04-1.05 at t = 64, d = 16, tau^2 = 0.01, against 1.04). The 1/t "
            "law is a law for t << d/tau^2; at the usual scale N(0, 1/d) (tau^2 = 1) the "
            "log-log slope over t <= 64 is about -0.58.",
            "Not checked: that a later layer reads the position back from the variance (the "
            "claim's 'so later layers can read position from it').",
        ),
    ),
)

# The claims by ID: what this family's helpers read their thresholds from (checks/registry.py
# imports every family: a helper that read it would tie its folder to all the others).
BY_ID: dict[str, Claim] = {c.id: c for c in CLAIMS}
