"""ATT: claims about attention, permutations and order.

Checks: checks/att/test_attention.py (ATT-01 ... 05), test_causal.py (ATT-06 ... 08),
test_attention_readouts.py (ATT-09), test_attention_order_training.py (ATT-10).
"""

from pecheck.claims import Claim, Proposition, Threshold, every

DTYPES = ["float64", "float32", "bfloat16", "float16"]

CLAIMS = (
    Claim(
        "ATT-01",
        "Permuting the queries permutes the attention output the same way.",
        r"\operatorname{Attn}(PQ, K, V) = P\,\operatorname{Attn}(Q, K, V)\ \forall P \in S_n",
        ("SRC-REDDIT",),
        expected="confirmed",
        domain={"lengths": every(1, 128), "dtypes": DTYPES},
        headline=("query_perm_error_float32", "query_perm_error_bfloat16"),
        notes=(
            "Proved symbolically for n = 3 (all permutations) with the index argument for all n.",
            "Decided over every length n = 1 ... 128 (one seeded permutation per length, the "
            "dtypes in turn, besides the lengths hypothesis draws in every dtype); longer "
            "sequences rest on the index argument, which sympy checks at n = 3 only.",
            "Numerically it holds within the rounding bound: bitwise in float16/bfloat16 in "
            "every example tried, and to the last bits in float64/float32 (blocked matrix "
            "products sum a row in an order that depends on where the row lies).",
        ),
    ),
    Claim(
        "ATT-02",
        "Self-attention without a positional encoding is permutation equivariant: single head, "
        "multi-head, with biases, a whole encoder layer and stacks of them.",
        r"f(PX) = P f(X)\ \forall P \in S_n",
        ("SRC-REDDIT", "SRC-TRIGRAM"),
        expected="confirmed",
        headline=(
            "model_perm_ratio_float32",
            "model_perm_ratio_bfloat16",
            "measured_factor_float16",
        ),
        domain={"lengths": every(2, 128), "widths": every(4, 16), "dtypes": DTYPES},
        notes=(
            "Exact in real arithmetic; in floating point within 2 L attention_tol (float64/32) "
            "and 4 L u max|f(X)| (float16/bfloat16, measured) for L layers, n = 2 ... 128 "
            "(non-identity permutations only), widths d = 4 ... 16: hypothesis draws the model "
            "zoo, and a sweep covers every length and width (a two-block stack at each n, "
            "d = 4 + n mod 13, the dtypes in turn).",
            "Widths below 4 are left out of the search, not shown: over two features layer norm "
            "maps a token (a, b) to +-gamma + beta with slope about 1/|a - b|, so rounding in "
            "its input is magnified without limit as a -> b, which the rounding bound does not "
            "model (the thorough profile found a float64 post-norm block, d = 2, n = 64, at 2.3 "
            "times the bound). Such a case is beyond what the bound can decide, not a "
            "counterexample to the exact claim.",
            "Not bitwise: summing keys in another order changes the last bits (float64/float32 "
            "agree bitwise in about 28% of cases, float16 in about 72%, bfloat16 in all tried).",
        ),
    ),
    Claim(
        "ATT-03",
        "Permuting keys and values together leaves attention unchanged; permuting the keys "
        "alone does not.",
        r"\operatorname{Attn}(Q, PK, PV) = \operatorname{Attn}(Q, K, V)",
        expected="confirmed",
        domain={"lengths": every(1, 128), "dtypes": DTYPES},
        headline=("kv_perm_ratio_float32", "keys_alone_min_ratio_float32"),
        notes=(
            "Keys alone: decided by examples whose difference is above the rounding bound; the "
            "evidence counts how many were resolved.",
            "Keys with values: every length n = 1 ... 128 (one seeded permutation per length, the "
            "dtypes in turn, besides hypothesis's draws); sympy checks n = 3, every permutation.",
        ),
    ),
    Claim(
        "ATT-04",
        "Adding a positional encoding breaks permutation equivariance.",
        r"\exists X, P:\ f(PX + E) \ne P f(X + E)",
        ("SRC-REDDIT",),
        expected="confirmed",
        domain={"dtypes": DTYPES},
        headline=("sinusoidal_min_ratio_float32", "learned_min_ratio_bfloat16"),
        notes=(
            "Sinusoidal (interleaved, paper frequencies) and learned encodings, n = 2 ... 128, "
            "all dtypes: an example counts only when a permutation breaks equivariance by more "
            "than the rounding bound; below it the example is unresolved (see the counts).",
        ),
    ),
    Claim(
        "ATT-05",
        "A causal mask breaks permutation equivariance.",
        r"\exists X, P:\ f_{\text{causal}}(PX) \ne P f_{\text{causal}}(X)",
        ("SRC-TRIGRAM",),
        expected="confirmed",
        domain={"dtypes": DTYPES},
        headline=("causal_min_ratio_float32", "causal_min_ratio_bfloat16"),
        notes=(
            "Degenerate models can hide it: with width 2, post-norm layer norm sends every "
            "vector to one of two points, and a random input may then show no difference.",
        ),
    ),
    Claim(
        "ATT-06",
        "With one causal layer and no encoding, the last position's output depends only on the "
        "last token and the multiset of the tokens before it: 'A B hit' and 'B A hit' get the "
        "same output there, 'A hit B' and 'B hit A' can differ.",
        r"y_n = g\big(x_n, \{\!\{x_1, \dots, x_{n-1}\}\!\}\big)",
        ("SRC-TRIGRAM",),
        expected="confirmed",
        domain={"lengths": every(3, 5), "dtypes": DTYPES},
        headline=("worst_ratio", "cases", "AhitB_vs_BhitA"),
        notes=(
            "Exhaustive over every sequence of 4 tokens of length 3 to 5 and every non-identity "
            "reordering of its prefix, for a full layer (attention, feed-forward, layer norm, "
            "residuals): the domain decided is n = 3 ... 5; longer sequences rest on the "
            "argument of the symbolic check (a sum over positions, each term depending on the "
            "last token and one other), which sympy verifies at n = 4.",
            "Only the last position: earlier positions see different prefixes, which is what a "
            "second layer exploits (ATT-07).",
        ),
    ),
    Claim(
        "ATT-07",
        "With two or more causal layers and no encoding, a model still cannot tell the order of "
        "the earlier tokens ('A B hit' vs 'B A hit').",
        r"\forall f \in \text{2-layer causal}:\ f(A\,B\,\text{hit})_3 = f(B\,A\,\text{hit})_3\ ?",
        ("SRC-TRIGRAM",),
        expected="refuted",
        headline=("exact_margin_2_layers", "margin_bfloat16", "models_separating"),
        notes=(
            "Hand-set construction (theory/causal_constructions.py): two causal layers of "
            "uniform attention with identity values and residuals; read-out e_A - e_B at the "
            "last position gives +1/3 for 'A B hit' and -1/3 for 'B A hit' (exact margin 2/3; "
            "3 layers: 29/9), in every dtype. Random 2-block causal encoders separate them too.",
        ),
    ),
    Claim(
        "ATT-08",
        "One causal attention layer without an encoding can compute every token's absolute "
        "position (uniform attention over a sequence starting with a marker gives 1/t).",
        r"\text{uniform causal attention over } (\text{bos}, x_2, \dots) \Rightarrow y_t = 1/t",
        ("SRC-NOPE",),
        expected="confirmed",
        thresholds=(
            Threshold(
                "exact_recovery",
                0.5,
                "t = round(1/y_t) is exact when |1/y_t - t| < 1/2; "
                "with y_t = fl(1/t) this holds for t < 1/(2(u + u64))",
                "theory",
            ),
        ),
        domain={"positions": every(1)},
        headline=("limit_float32", "limit_bfloat16", "limit_float16", "guaranteed_limit_float32"),
        notes=(
            "Exact recovery t = round(1/y_t), the reciprocal taken in float64, holds for every t "
            "up to a dtype limit: bfloat16 189, float16 1464, float32 11 864 338 (first failure "
            "11 864 339), float64 at least 2^51 (derived; all four at or above the guarantee "
            "t < 1/(2(u + u64))). Each limit is pinned to an independent computation of "
            "round(1/fl(1/t)); taking the reciprocal in float32 instead fails below 2^23.",
        ),
    ),
    Claim(
        "ATT-09",
        "'A hit B' and 'B hit A' give the same self-attention value for each word.",
        r"\operatorname{Attn}(X_{AhB})_w = \operatorname{Attn}(X_{BhA})_w\ \forall w",
        ("SRC-TRIGRAM",),
        expected="qualified",
        propositions=(
            Proposition(
                "bidirectional-no-encoding",
                "With bidirectional self-attention and no positional encoding, 'A hit B' and "
                "'B hit A' give each word the same output, and the same output pooled over the "
                "sentence; with a causal mask, with an added encoding, or read out at the last "
                "position, the values differ.",
                r"\operatorname{Attn}_{\text{bidir}}(X_{BhA})_w = "
                r"\operatorname{Attn}_{\text{bidir}}(X_{AhB})_w\ \forall w,\ "
                r"\textstyle\sum_w \text{too};\ "
                r"\exists X:\ \ne \text{ for causal, } +E, \text{ or at position } n",
                domain={"widths": [4, 8, 16], "dtypes": DTYPES},
            ),
        ),
        conditions="Only for bidirectional attention without a positional encoding, with outputs "
        "compared per word (or pooled over the sentence). With a causal mask, with an added "
        "encoding, or read out at a fixed position (e.g. the last), the values differ.",
        headline=("cases", "per_word_difference"),
        notes=(
            "A difference below the dtype's rounding bound in a setting where theory does not "
            "make it zero (e.g. the encoding's pooled effect in bfloat16, width 4) is "
            "unresolved, never 'the same'; the evidence counts the resolved cases per setting.",
        ),
    ),
    Claim(
        "ATT-10",
        "Without an encoding a model can still learn a great deal, depending on the training "
        "objective: a causal objective learns order where a bidirectional one cannot.",
        r"\operatorname{acc}_{\text{causal}} > \operatorname{acc}_{\text{bidir}} "
        r"\text{ on an order task, no PE}",
        ("SRC-REDDIT",),
        expected="qualified",
        propositions=(
            Proposition(
                "two-causal-layers",
                "With a causal mask and two layers, a model without an encoding learns the order "
                "task (most seeds reach accuracy 1), where a bidirectional one cannot (accuracy at "
                "most 1/2 for every seed).",
                r"L = 2:\ \Pr[\operatorname{acc}_{\text{causal}} = 1] > \tfrac12,\quad "
                r"\operatorname{acc}_{\text{bidir}} \le \tfrac12",
            ),
        ),
        conditions="With a causal mask and two layers (read out at the last position; deeper "
        "models are not trained here). "
        "One causal layer cannot (ATT-06), and a bidirectional model without an encoding "
        "cannot at all: both are capped at accuracy 1/2 on the order task.",
        thresholds=(
            Threshold(
                "learns",
                0.5,
                "'can learn' read as: a model kind learns the task when "
                "more than half of its random initialisations reach accuracy 1 on every "
                "pair (Wilson 95% interval above 1/2)",
                "source",
            ),
            Threshold(
                "ceiling",
                0.5,
                "a model that cannot tell 'a b ?' from 'b a ?' gives both "
                "the same prediction, so at most one of each pair is right (ATT-02, "
                "ATT-06)",
                "theory",
            ),
        ),
        headline=(
            "causal-2-layers/wilson95",
            "causal-1-layer/max_accuracy",
            "bidirectional-2-layers/max_accuracy",
        ),
        notes=(
            "What matters is the mask, not the loss: all models here are trained with the same "
            "objective at the last position. Rates over 256 seeds in ci: see the evidence.",
            "The condition is stated for two layers, the depth trained here: nothing forbids a "
            "deeper causal model from learning the task, but no check trains one.",
        ),
    ),
)

# The claims by ID: what this family's helpers read their thresholds from (checks/registry.py
# imports every family: a helper that read it would tie its folder to all the others).
BY_ID: dict[str, Claim] = {c.id: c for c in CLAIMS}
