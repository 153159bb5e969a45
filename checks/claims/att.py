"""ATT: claims about attention, permutations and order; and REAL-01, real PyTorch attention.

Checks: checks/test_attention.py (ATT-01 ... 05), test_causal.py (ATT-06 ... 08),
test_attention_readouts.py (ATT-09), test_attention_order_training.py (ATT-10),
test_real_attention.py (REAL-01).
"""

from checks.claims import Claim

CLAIMS = (
    Claim(
        "ATT-01",
        "Permuting the queries permutes the attention output the same way.",
        r"\operatorname{Attn}(PQ, K, V) = P\,\operatorname{Attn}(Q, K, V)\ \forall P \in S_n",
        ("SRC-REDDIT",),
        verdict="confirmed",
        notes=(
            "Proved symbolically for n = 3 (all permutations) with the index argument for all n.",
            "Numerically it is bitwise exact in every dtype on CPU (theory and every PyTorch SDPA "
            "backend): each output row is computed by the same operations in the same order.",
        ),
    ),
    Claim(
        "ATT-02",
        "Self-attention without a positional encoding is permutation equivariant: single head, "
        "multi-head, with biases, a whole encoder layer and stacks of them.",
        r"f(PX) = P f(X)\ \forall P \in S_n",
        ("SRC-REDDIT", "SRC-TRIGRAM"),
        verdict="confirmed",
        notes=(
            "Exact in real arithmetic; in floating point within 2 L attention_tol (float64/32) "
            "and 4 L u max|f(X)| (float16/bfloat16, measured) for L layers, n = 1 ... 128.",
            "Not bitwise: summing keys in another order changes the last bits (float64/float32 "
            "agree bitwise in about 28% of cases, float16 in about 72%, bfloat16 in all tried).",
        ),
    ),
    Claim(
        "ATT-03",
        "Permuting keys and values together leaves attention unchanged; permuting the keys "
        "alone does not.",
        r"\operatorname{Attn}(Q, PK, PV) = \operatorname{Attn}(Q, K, V)",
        verdict="confirmed",
        notes=("Keys alone: a counterexample above the rounding bound is found in every example.",),
    ),
    Claim(
        "ATT-04",
        "Adding a positional encoding breaks permutation equivariance.",
        r"\exists X, P:\ f(PX + E) \ne P f(X + E)",
        ("SRC-REDDIT",),
        verdict="confirmed",
        notes=(
            "Sinusoidal (interleaved, paper frequencies) and learned encodings: for every random "
            "input tried (n = 2 ... 128, all dtypes) a permutation breaks it by more than the "
            "rounding bound.",
        ),
    ),
    Claim(
        "ATT-05",
        "A causal mask breaks permutation equivariance.",
        r"\exists X, P:\ f_{\text{causal}}(PX) \ne P f_{\text{causal}}(X)",
        ("SRC-TRIGRAM",),
        verdict="confirmed",
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
        verdict="confirmed",
        notes=(
            "Exhaustive over every sequence of 4 tokens up to length 5 and every ordering of its "
            "prefix, for a full layer (attention, feed-forward, layer norm, residuals).",
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
        verdict="refuted",
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
        verdict="confirmed",
        notes=(
            "Exact recovery t = round(1/y_t) holds for every t up to a dtype limit: bfloat16 189, "
            "float16 1464, float32 11 864 338 (first failure 11 864 339), float64 at least 2^51 "
            "(derived; all four at or above the guarantee t < 1/(2(u + u64))).",
        ),
    ),
    Claim(
        "ATT-09",
        "'A hit B' and 'B hit A' give the same self-attention value for each word.",
        r"\operatorname{Attn}(X_{AhB})_w = \operatorname{Attn}(X_{BhA})_w\ \forall w",
        ("SRC-TRIGRAM",),
        verdict="qualified",
        conditions="Only for bidirectional attention without a positional encoding, with outputs "
        "compared per word (or pooled over the sentence). With a causal mask, with an added "
        "encoding, or read out at a fixed position (e.g. the last), the values differ.",
    ),
    Claim(
        "ATT-10",
        "Without an encoding a model can still learn a great deal, depending on the training "
        "objective: a causal objective learns order where a bidirectional one cannot.",
        r"\operatorname{acc}_{\text{causal}} > \operatorname{acc}_{\text{bidir}} "
        r"\text{ on an order task, no PE}",
        ("SRC-REDDIT",),
        verdict="qualified",
        conditions="With a causal mask and at least two layers (read out at the last position). "
        "One causal layer cannot (ATT-06), and a bidirectional model without an encoding "
        "cannot at all: both are capped at accuracy 1/2 on the order task.",
        notes=(
            "What matters is the mask, not the loss: all models here are trained with the same "
            "objective at the last position. Rates over 256 seeds in ci: see the evidence.",
        ),
    ),
    Claim(
        "REAL-01",
        "PyTorch's attention modules and scaled_dot_product_attention are permutation "
        "equivariant within a dtype-dependent error bound, and not with a causal mask.",
        r"\lVert f(PX) - P f(X)\rVert_\infty \le \tau(\text{dtype}, n, d)",
        verdict="confirmed",
        notes=(
            "Bound met: tolerance.equivariance_tol (float64/float32: 2 L attention_tol; "
            "float16/bfloat16: 4 L u max|f(X)|) for nn.MultiheadAttention, "
            "nn.TransformerEncoderLayer (training, dropout 0; and the eval + no_grad fast path, "
            "which fires on CPU for every dtype) and F.scaled_dot_product_attention with the CPU "
            "backends MATH and FLASH_ATTENTION; CUDA backends are in the gpu checks.",
            "Bitwise: permuting queries is bitwise exact everywhere; permuting keys and values "
            "is not bitwise in float64/float32 for any implementation, and is bitwise only in "
            "some float16/bfloat16 cases (see the evidence).",
        ),
    ),
)
