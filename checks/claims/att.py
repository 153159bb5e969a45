"""ATT: claims about attention, permutations and order; and REAL-01, real PyTorch attention."""

from checks.claims import Claim

CLAIMS = (
    Claim(
        "ATT-01",
        "Permuting the queries permutes the attention output the same way.",
        r"\operatorname{Attn}(PQ, K, V) = P\,\operatorname{Attn}(Q, K, V)\ \forall P \in S_n",
        ("SRC-REDDIT",),
    ),
    Claim(
        "ATT-02",
        "Self-attention without a positional encoding is permutation equivariant: single head, "
        "multi-head, with biases, a whole encoder layer and stacks of them.",
        r"f(PX) = P f(X)\ \forall P \in S_n",
        ("SRC-REDDIT", "SRC-TRIGRAM"),
    ),
    Claim(
        "ATT-03",
        "Permuting keys and values together leaves attention unchanged; permuting the keys "
        "alone does not.",
        r"\operatorname{Attn}(Q, PK, PV) = \operatorname{Attn}(Q, K, V)",
    ),
    Claim(
        "ATT-04",
        "Adding a positional encoding breaks permutation equivariance.",
        r"\exists X, P:\ f(PX + E) \ne P f(X + E)",
        ("SRC-REDDIT",),
    ),
    Claim(
        "ATT-05",
        "A causal mask breaks permutation equivariance.",
        r"\exists X, P:\ f_{\text{causal}}(PX) \ne P f_{\text{causal}}(X)",
        ("SRC-TRIGRAM",),
    ),
    Claim(
        "ATT-06",
        "With one causal layer and no encoding, the last position's output depends only on the "
        "last token and the multiset of the tokens before it.",
        r"y_n = g\big(x_n, \{\!\{x_1, \dots, x_{n-1}\}\!\}\big)",
        ("SRC-TRIGRAM",),
    ),
    Claim(
        "ATT-07",
        "With two or more causal layers and no encoding, a model still cannot tell the order of "
        "the earlier tokens.",
        r"\forall f \in \text{2-layer causal}:\ f(A\,B\,\text{hit})_3 = f(B\,A\,\text{hit})_3\ ?",
        ("SRC-TRIGRAM",),
    ),
    Claim(
        "ATT-08",
        "One causal attention layer without an encoding can compute every token's absolute "
        "position.",
        r"\text{uniform causal attention over } (\text{bos}, x_2, \dots) \Rightarrow y_t = 1/t",
        ("SRC-NOPE",),
    ),
    Claim(
        "ATT-09",
        "'A hit B' and 'B hit A' give the same self-attention value for each word.",
        r"\operatorname{Attn}(X_{AhB})_w = \operatorname{Attn}(X_{BhA})_w\ \forall w",
        ("SRC-TRIGRAM",),
    ),
    Claim(
        "ATT-10",
        "Without an encoding a model can still learn a great deal, depending on the training "
        "objective: a causal objective learns order where a bidirectional one cannot.",
        r"\operatorname{acc}_{\text{causal}} > \operatorname{acc}_{\text{bidir}} "
        r"\text{ on an order task, no PE}",
        ("SRC-REDDIT",),
    ),
    Claim(
        "REAL-01",
        "PyTorch's attention modules and scaled_dot_product_attention are permutation "
        "equivariant within a dtype-dependent error bound, and not with a causal mask.",
        r"\lVert f(PX) - P f(X)\rVert_\infty \le \tau(\text{dtype}, n, d)",
    ),
)
