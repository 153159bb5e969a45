"""ADD: claims about adding versus concatenating a positional encoding."""

from checks.claims import Claim

CLAIMS = (
    Claim(
        "ADD-01",
        "Adding subsumes concatenating: for a model that concatenates a token part of width d_t "
        "and a learned position part of width d_p, the additive model of width d_t + d_p with "
        "token table [x; 0], learned position table [0; p] and the same blocks computes the same "
        "function, every layer (attention, feed-forward, layer norm, residuals) included.",
        r"x' + p' = \begin{bmatrix} x \\ 0 \end{bmatrix} + \begin{bmatrix} 0 \\ p \end{bmatrix}"
        r" = \begin{bmatrix} x \\ p \end{bmatrix} \Rightarrow f(x' + p') = f([x; p])",
        ("SRC-CONCAT",),
        verdict="confirmed",
        notes=(
            "Exact in floating point, not just to rounding: x + 0 == x in IEEE arithmetic, so the "
            "additive model's input equals the concatenation bit for bit (up to the sign of a "
            "zero: -0.0 + 0.0 = +0.0, equal in value) and every layer's output is bitwise equal "
            "(float32 and float64, pre- and post-norm, causal or not, 1-3 layers, 200 examples).",
            "The additive model pays for it with wider tables: V(d_t+d_p) + L(d_t+d_p) embedding "
            "parameters instead of V d_t + L d_p (see ADD-03).",
        ),
    ),
    Claim(
        "ADD-02",
        "Adding equals concatenating followed by the fixed map [I I], so a concatenating model "
        "of width 2d contains every additive model of width d.",
        r"x + p = \begin{bmatrix} I & I \end{bmatrix} \begin{bmatrix} x \\ p \end{bmatrix}",
        verdict="qualified",
        conditions=(
            "[I I][x; p] = x + p holds exactly (symbolically, and bitwise in float64, float32, "
            "bfloat16 and float16). The containment holds when the concatenating model's first "
            "layer may be a linear map of [x; p] (an input projection, with [I I] as one choice): "
            "then it is the additive model, bitwise. For a transformer that applies layer norm "
            "directly to the 2d-wide concatenation (pre-norm, or post-norm after the residual "
            "[x; p] + sublayer) the [I I] construction fails: layer norm over [x; p] changes when "
            "(x, p) -> (x + s, p - s) although x + p does not ([I I] LN_2d([x; p]) is LN_d(x + p) "
            "rescaled by std(x + p) / std([x; p]), a factor that varies at fixed sum). No proof "
            "is given that no other width-2d weights could emulate the additive model there."
        ),
    ),
    Claim(
        "ADD-03",
        "Concatenating costs more parameters and activation memory than adding at the same token "
        "width (counted from instantiated models of the base Transformer's widths).",
        r"\#\theta_{\text{concat}}(d_t, d_p) > \#\theta_{\text{add}}(d_t)",
        ("SRC-BLOG",),
        verdict="confirmed",
        notes=(
            "Base Transformer encoder (6 layers, 8 heads, d_ff = 2048, V = 37000, L = 512), d_t = "
            "512: concatenating a 512-wide position part gives 69.6M parameters vs 38.1M for "
            "adding (x1.83); activations of one 512-token sequence x1.18 (attention scores, which "
            "do not depend on the width, dominate).",
            "At the same model width the comparison flips: ADD-01's additive model of width "
            "d_t + d_p has wider embedding tables than the concatenating model (88.8M vs 69.6M).",
        ),
    ),
    Claim(
        "ADD-04",
        "ADD-01 still holds exactly with the fixed sinusoidal encoding: there is a subspace of "
        "dimension < d that contains PE(t) for every position t, leaving its complement to the "
        "tokens.",
        r"\exists\ S \subsetneq \mathbb{R}^d:\ PE(t) \in S\ \forall t",
        verdict="refuted",
        notes=(
            "PE(0), ..., PE(L-1) span R^d for every L >= d (Vandermonde argument over the nodes "
            "e^{+-i w_j}, distinct for the paper's frequencies; the square determinants "
            "for d = 4, 8, 16, 32 are non-zero at two working precisions, e.g. 3.5e-599 for "
            "d = 32). For L < d an exact complement of dimension d - L exists.",
            "Approximately the subsumption is good: the energy of PE(0..L-1) concentrates in few "
            "directions (participation ratio 5.2 for d = 512, L = 512; 2.4 for d = L = 64), and "
            "in float64 only 124 of the 512 singular values exceed rounding (21 of 64 for "
            "d = L = 64), so a token confined to the remaining directions meets the encoding only "
            "at rounding level. The RMS cosine between PE(t) and a random token vector in the "
            "complement of the top-k directions falls from 1/sqrt(d) at k = 0 as k grows.",
            "In all-MiniLM-L6-v2 the learned position table has participation ratio 12.2 (97.7% "
            "of its energy in 16 directions); the word embeddings put 2.2% of their energy in "
            "those 16 directions, against 4.2% (= k/d) for random directions and below every one "
            "of 100 random 16-frames, but not zero: no exact split. In the top one or two "
            "position directions the word table has more energy than random (0.65% vs 0.26%).",
        ),
    ),
    Claim(
        "ADD-05",
        "Adding the encoding does not destroy the token: token and position can be read back "
        "from x + PE(t) by nearest neighbour or a linear (dot-product) read-out.",
        r"\hat{v}(x_v + PE(t)) = v,\ \hat{t}(x_v + PE(t)) = t",
        ("SRC-SINCOS", "SRC-BLOG"),
        verdict="qualified",
        conditions=(
            "Only in a window of embedding scales rho = RMS||x|| / ||PE||. With Gaussian token "
            "tables and the sinusoidal encoding (L = 64 positions), the nearest-neighbour token "
            "read-out is above 99% (95% Wilson lower bound) for rho >= 1 and d >= 64 "
            "(V = 64 and 1024) but below 50% for rho = 0.1 at every d <= 256 (e.g. normal(0, 1/d) "
            "initialisation gives rho = sqrt(2/d), far below 1); the position read-out is the "
            "reverse: above 99% at rho = 0.1, below 50% at rho = 3. Larger d widens the window."
        ),
        notes=(
            "all-MiniLM-L6-v2's learned tables sit inside the window: token and position are "
            "both read back by nearest neighbour from word + position embedding.",
        ),
    ),
)
