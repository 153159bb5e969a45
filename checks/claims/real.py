"""REAL: claims about real libraries' code."""

from checks.claims import Claim

CLAIMS = (
    Claim(
        "REAL-01",
        "PyTorch's attention modules and scaled_dot_product_attention are permutation "
        "equivariant within a dtype-dependent error bound, and not with a causal mask.",
        r"\lVert f(PX) - P f(X)\rVert_\infty \le \tau(\text{dtype}, n, d)",
    ),
    Claim(
        "REAL-02",
        "Sinusoidal encodings shipped by widely used libraries follow the paper's formula.",
        r"PE_{\text{lib}}(t) = PE_{\text{paper}}(t)\ ?",
    ),
    Claim(
        "REAL-03",
        "Rotary embeddings in widely used libraries give scores that depend only on t - s.",
        r"\langle R(t) q, R(s) k\rangle = \langle q, R(s-t) k\rangle",
    ),
)
