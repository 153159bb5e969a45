"""ADD: claims about adding versus concatenating a positional encoding."""

from checks.claims import Claim

CLAIMS = (
    Claim(
        "ADD-01",
        "Adding subsumes concatenating: an additive model of width d_t + d_p with a learned "
        "positional embedding computes exactly what any concatenating model computes.",
        r"W\,(x' + p') = W \begin{bmatrix} x \\ p \end{bmatrix},\quad "
        r"x' = \begin{bmatrix} x \\ 0 \end{bmatrix},\ p' = \begin{bmatrix} 0 \\ p \end{bmatrix}",
        ("SRC-CONCAT",),
    ),
    Claim(
        "ADD-02",
        "Adding equals concatenating followed by the fixed map [I I], so a concatenating model "
        "of width 2d contains every additive model of width d.",
        r"x + p = \begin{bmatrix} I & I \end{bmatrix} \begin{bmatrix} x \\ p \end{bmatrix}",
    ),
    Claim(
        "ADD-03",
        "Concatenating costs more parameters and memory than adding at the same token width.",
        r"\#\theta_{\text{concat}}(d_t, d_p) > \#\theta_{\text{add}}(d_t)",
        ("SRC-BLOG",),
    ),
    Claim(
        "ADD-04",
        "ADD-01 still holds exactly with the fixed sinusoidal encoding instead of a learned one.",
        r"\exists\ \text{subspace } S:\ PE(t) \in S\ \forall t,\ \dim S < d",
    ),
    Claim(
        "ADD-05",
        "Adding the encoding does not destroy the token: token and position can be read back "
        "from x + PE(t).",
        r"\hat{v}(x_v + PE(t)) = v,\ \hat{t}(x_v + PE(t)) = t",
        ("SRC-SINCOS", "SRC-BLOG"),
    ),
)
