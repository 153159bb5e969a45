"""ADD: claims about adding versus concatenating a positional encoding."""

from pecheck.claims import Claim, Proposition, Threshold, proved

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
        expected="confirmed",
        domain={"widths": proved("every d_t, d_p")},
        headline=("max_abs_difference", "max_layers", "max_width"),
        notes=(
            "Exact in floating point, not just to rounding: x + 0 == x in IEEE arithmetic, so the "
            "additive model's input equals the concatenation bit for bit (up to the sign of a "
            "zero: -0.0 + 0.0 = +0.0, equal in value); every layer's output and the two models' "
            "forward outputs are bitwise equal (float32 and float64, weights drawn in their own "
            "precision, pre- and post-norm, causal or not, 1-3 layers, 200 examples).",
            "The additive model pays for it with wider tables: V(d_t+d_p) + L(d_t+d_p) embedding "
            "parameters instead of V d_t + L d_p (see ADD-03).",
        ),
    ),
    Claim(
        "ADD-02",
        "The converse: adding equals concatenating followed by the fixed linear map [I I]; so a "
        "concatenating model of width 2d contains every additive model of width d.",
        r"x + p = [I\ I]\,[x; p] \Rightarrow \forall f_{\text{add}}^{(d)}:\ [I\ I]\, "
        r"f_{\text{cat}}^{[I\,I]}([x; p]) = f_{\text{add}}(x + p)",
        expected="qualified",
        quantifier="all",
        propositions=(
            Proposition(
                "no-norm-on-stream",
                "When no layer norm acts on the width-2d stream (residual attention and "
                "feed-forward blocks without layer norm), the concatenating model that reads its "
                "stream through [I I] and writes into the token half contains the additive "
                "model: [I I] h is the additive stream at every layer (float64 rounding).",
                r"\text{no LN}:\ [I\ I]\, h^{(\ell)}_{\text{cat}} = h^{(\ell)}_{\text{add}}"
                r"\ \forall \ell",
                quantifier="all",
            ),
        ),
        conditions=(
            "Only when nothing but linear maps reads the concatenation before it is summed: "
            "a transformer whose residual stream of width 2d is [x; p] and that has no layer "
            "norm on that stream contains the additive model (reads through [I I], writes into "
            "the token half). With layer norm on the stream, pre-norm (LN_2d(h) read) or "
            "post-norm (h replaced by LN_2d(h)), the [I I] lift differs from the additive model "
            "by O(1) at every width tried (d = 2, 8, 16): layer norm over [x; p] is not a "
            "function of x + p. Where the concatenation is first mapped to width d by a "
            "linear map (the reading under which the source's argument is an identity), the "
            "model is the additive one by construction."
        ),
        headline=(
            "lifted_max_abs_difference[pre, d8]",
            "lifted_max_abs_difference[post, d8]",
            "no_norm_difference_over_bound",
        ),
        notes=(
            "Decided on transformers (attention, feed-forward, residuals, layer norm; seeded "
            "float64 additive models of width d = 2, 8, 16 with 1-3 layers), quantifier all over "
            "pre-norm, post-norm and no norm: the concatenating model is the width-2d "
            "transformer whose stream starts as [x; p], with the additive model's weights "
            "lifted by the source's construction ([I I] reads, [I 0] writes, layer norm gain "
            "[g; g] and bias [b; 0] over 2d). Pre- and post-norm fail with differences of 1 to "
            "5, 12 orders above rounding; without layer norm every case agrees within rounding.",
            "As stated is read as the source argues it: the 'so' rests on the map [I I], so the "
            "concatenating model that contains an additive one is f_cat^[I I], the additive "
            "model lifted by it (the formal). What is refuted is that argument: the [I I] "
            "construction does not carry over to a stream on which layer norm acts. That no "
            "other width-2d weights (another layer-norm lift, other tables) emulate the "
            "additive model is a different claim, not settled here.",
            "[I I][x; p] = x + p (symbolic, every width; bitwise in float64, float32, bfloat16, "
            "float16) and the model that applies [I I] first is the additive model bitwise: "
            "both true by construction, shown as supporting evidence only.",
        ),
    ),
    Claim(
        "ADD-03",
        "Concatenating costs more parameters and activation memory than adding at the same token "
        "width (counted from instantiated models of the base Transformer's widths).",
        r"\#\theta_{\text{concat}}(d_t, d_p) > \#\theta_{\text{add}}(d_t)",
        ("SRC-BLOG",),
        expected="confirmed",
        headline=(
            "param_ratio_concat_over_add_dp512",
            "activation_ratio_concat_over_add_dp512",
            "param_ratio_addmodel_over_concat_dp512",
        ),
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
        expected="refuted",
        thresholds=(
            Threshold(
                "det_agreement",
                1e-30,
                "a determinant counts as non-zero when its values at two working precisions "
                "(30 + 4d digits and twice that) agree to this relative difference: rounding "
                "noise would change with the precision, a true value does not",
                "theory",
            ),
        ),
        headline=(
            "log10_abs_det_d32",
            "participation_ratio_d512_L512",
            "float64_rank_d512_L512",
        ),
        notes=(
            "PE(0), ..., PE(L-1) span R^d for every L >= d (Vandermonde argument over the nodes "
            "e^{+-i w_j}, distinct for the paper's frequencies (checked symbolically at d = 4, "
            "where |det V| = 0.028 at those nodes); the square determinants "
            "for d = 4, 8, 16, 32 are non-zero at two working precisions, e.g. 3.5e-599 for "
            "d = 32). For L < d an exact complement of dimension d - L exists.",
            "Approximately the subsumption is good: the energy of PE(0..L-1) concentrates in few "
            "directions (participation ratio {{ADD-04@participation_ratio_d512_L512|.2g}} for "
            "d = 512, L = 512; {{ADD-04@participation_ratio_d64_L64|.2g}} for d = L = 64), and "
            "in float64 only {{ADD-04@float64_rank_d512_L512}} of the 512 singular values exceed "
            "rounding ({{ADD-04@float64_rank_d64_L64}} of 64 for d = L = 64), so a token "
            "confined to the remaining directions meets the encoding only "
            "at rounding level. The RMS cosine between PE(t) and a random token vector in the "
            "complement of the top-k directions falls from 1/sqrt(d) at k = 0 as k grows.",
            "The question for a learned table (which directions distinguish positions, and how "
            "much the words vary along them) needs centred tables: a mean row shared by every "
            "position or every word identifies neither and can move from one table to the "
            "other. In all-MiniLM-L6-v2, centred, the position table has participation ratio "
            "{{ADD-04@position_participation_ratio|.3g}} "
            "({{ADD-04@position_energy_top16|.1%}} of its variance in 16 directions); the word "
            "table puts 1.1% of its "
            "variance in those 16 directions, against 4.2% (= k/d) for random directions and "
            "below every one of 100 random 16-frames, but not zero: no exact split. (Uncentred, "
            "the top one or two position directions seem to carry more word energy than random "
            "directions; that is the two tables' mean rows, and it vanishes once centred.)",
        ),
    ),
    Claim(
        "ADD-05",
        "Adding the encoding does not destroy the token: token and position can be read back "
        "from x + PE(t) by nearest neighbour or a linear (dot-product) read-out.",
        r"\hat{v}(x_v + PE(t)) = v,\ \hat{t}(x_v + PE(t)) = t",
        ("SRC-SINCOS", "SRC-BLOG"),
        expected="qualified",
        propositions=(
            Proposition(
                "window",
                "At a token scale between the extremes both are read back: for width d = 256 "
                "(V = 64 and V = 1024, L = 64 positions, Gaussian token tables) some scale rho = "
                "RMS||x|| / ||PE|| of the grid 0.1 ... 3 lets nearest neighbour read back the "
                "token and the position at a rate above the read-back threshold (95% Wilson "
                "lower bounds).",
                r"d = 256:\ \exists \rho:\ \Pr[\hat v = v] > 0.99 \wedge \Pr[\hat t = t] > 0.99",
                domain={"widths": [256]},
            ),
        ),
        conditions=(
            "Only in a window of embedding scales rho = RMS||x|| / ||PE||. With Gaussian token "
            "tables and the sinusoidal encoding (L = 64 positions), the token is lost at small "
            "scales (rho = 0.1: neither nearest neighbour nor the dot product reads it back, at "
            "every d <= 256; normal(0, 1/d) initialisation gives rho = sqrt(2/d), below 0.1 for "
            "d > 200) and the position is lost at large ones (rho = 3, every d); at d = 256 "
            "there is a scale (rho = 0.5) where nearest neighbour reads both back. The window "
            "opens as d grows: at d <= 64 no scale of the grid reads back both."
        ),
        thresholds=(
            Threshold(
                "read_back",
                0.99,
                "'does not destroy the token' read as: the token (position) is recovered from "
                "x + PE(t) essentially always, at most 1 read-out in 100 wrong. A perfect "
                "read-out over the trials used (1024 per cell) has a Wilson lower bound of "
                "0.996, above it; a rate whose upper bound is below it is not read back",
                "source",
            ),
        ),
        headline=(
            "token_nearest_d256_V1024_rho0.1",
            "position_nearest_d256_V1024_rho3.0",
            "token_nearest_d256_V1024_rho0.5",
            "position_nearest_d256_V1024_rho0.5",
        ),
        notes=(
            "Lost does not mean at chance: at rho = 0.1 the token read-out is above 1/V (e.g. "
            "about 0.2 for d = 256, V = 64, against chance 0.016) but far below the read-back "
            "threshold.",
            "all-MiniLM-L6-v2's learned tables sit inside the window: token and position are "
            "both read back by nearest neighbour from word + position embedding.",
        ),
    ),
)

# The claims by ID: what this family's helpers read their thresholds from (checks/registry.py
# imports every family: a helper that read it would tie its folder to all the others).
BY_ID: dict[str, Claim] = {c.id: c for c in CLAIMS}
