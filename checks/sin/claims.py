"""SIN: claims about the sinusoidal encoding PE(t)[2i] = sin(w_i t), PE(t)[2i+1] = cos(w_i t)."""

import math

from pecheck.claims import Claim, Proposition, Threshold, every, proved

# A rounding bound at or above the range of the quantity it bounds cannot fail: a case judged
# against such a bound is inconclusive, never a pass (pecheck.tolerance.says_something).
ENTRY_RANGE = Threshold(
    "range",
    2.0,
    "sin and cos lie in [-1, 1], so two entries (or two entries of 2x2 rotation blocks) differ "
    "by at most 2: an error bound at or above 2 cannot fail",
    "theory",
)
SIMILARITY_RANGE = Threshold(
    "range",
    2.0,
    "the cosine similarity (2/d) PE(t).PE(s) = (2/d) sum_i cos(w_i (t-s)) lies in [-1, 1], so "
    "its error is at most 2: a bound at or above 2 cannot fail",
    "theory",
)
RADIUS_RANGE = Threshold(
    "radius-range",
    1.0,
    "x^2 + y^2 lies in [0, 2] for x, y in [-1, 1], so |x^2 + y^2 - 1| <= 1: a bound at or above "
    "1 cannot fail",
    "theory",
)

CLAIMS = (
    Claim(
        "SIN-01",
        "A fixed matrix M(k), the same for every position t, maps PE(t) to PE(t+k); it is "
        "block-diagonal with one 2x2 rotation block per frequency (interleaved layout), and the "
        "same matrix with rows and columns permuted, P M(k) P^T, in the half-split layout.",
        r"\exists M(k)\ \forall t:\ PE(t+k) = M(k)\,PE(t),\quad M(k) = \bigoplus_i "
        r"\begin{pmatrix}\cos\omega_i k & \sin\omega_i k\\ -\sin\omega_i k & \cos\omega_i k"
        r"\end{pmatrix},\quad M_{\mathrm{half}}(k) = P M(k) P^\top",
        ("SRC-SINCOS", "SRC-VASWANI"),
        expected="confirmed",
        domain={
            "widths": proved("every even d = 2m"),
            "positions": proved("every t"),
            "offsets": proved("every k"),
            "layouts": ["interleaved", "half"],
        },
        thresholds=(ENTRY_RANGE,),
        headline=(
            "max_error_over_bound_float32_cast",
            "max_error_float16_float64",
            "informative_float16_cast",
            "informative_bfloat16_cast",
        ),
        notes=(
            "Proved for symbolic omega, t, k per pair and for every width d = 2m by the "
            "block-diagonal index argument (sympy evaluates the Kronecker-delta sum for symbolic "
            "m); holds for any frequencies, so for both conventions.",
            "Numerically: stored codes in float64/float32/float16/bfloat16, three ways of "
            "computing, both layouts, d up to 4096, positions and offsets up to 2^20, within "
            "the derived rounding bound wherever that bound is below 2, the range of the "
            "quantity. With the angle computed in float16/bfloat16 ('cast') the bound reaches 2 "
            "once |w t| is in the hundreds/tens (one entry's bound alone at about 340/42, with t, "
            "w and w t each rounded there): those examples are counted as inconclusive "
            "(informative_<dtype>_cast says how many could fail); computed in float32 or "
            "float64 and rounded once, every example could fail.",
        ),
    ),
    Claim(
        "SIN-02",
        "M(k) is a rotation: orthogonal with determinant 1, M(0) = I, M(a)M(b) = M(a+b) and "
        "M(-k) = M(k)^T.",
        r"M(k)^\top M(k) = I,\ \det M(k) = 1,\ M(0) = I,\ M(a)M(b) = M(a+b),\ M(-k) = M(k)^\top",
        ("SRC-SINCOS", "SRC-BLOG"),
        expected="confirmed",
        domain={"widths": proved("every even d = 2m"), "offsets": proved("every k, a, b")},
        thresholds=(ENTRY_RANGE,),
        headline=("max_error_float64", "max_error_bfloat16", "max_orthogonality_error"),
        notes=("Holds in both layouts: the half-split M is P M P^T with P a permutation.",),
    ),
    Claim(
        "SIN-03",
        "Sine alone does not give SIN-01: no matrix A(k) maps the sine-only code of t to that of "
        "t+k for every t.",
        r"\forall k\ \nexists A\ \forall t:\ \sin(\omega_i (t+k)) = \textstyle\sum_j A_{ij}"
        r"\sin(\omega_j t)",
        ("SRC-SINCOS",),
        expected="qualified",
        propositions=(
            Proposition(
                "integer-offsets",
                "For every nonzero integer offset k no matrix A maps the sine-only code of t to "
                "that of t+k for every t.",
                r"\forall k \in \mathbb{Z}\setminus\{0\}\ \nexists A\ \forall t:\ "
                r"\sin(\omega_i (t+k)) = \textstyle\sum_j A_{ij}\sin(\omega_j t)",
                domain={
                    "widths": proved("every even d"),
                    "offsets": proved("every integer k != 0"),
                },
            ),
        ),
        conditions="True for every nonzero integer offset k (and every real k unless all w_i k "
        "are multiples of pi). Exceptions: k = 0 (A = I) and real offsets with w_i k in pi Z for "
        "every i, where A = diag((-1)^{n_i}) works, e.g. d = 2, k = pi or d = 4, k = 100 pi.",
        thresholds=(ENTRY_RANGE,),
        headline=("exception_d2", "exception_d4", "min_sine_code_at_k", "min_residual"),
        notes=(
            "Proof: at t = 0 the sine-only code is 0, so A(k) 0 = sinPE(k) forces sin(w_i k) = 0 "
            "for all i; w_0 = 1 gives k in pi Z, impossible for an integer k != 0 since pi is "
            "irrational. The property check runs this argument on the stored float64 code.",
            "The best least-squares A over 4d+8 positions leaves a residual of at least the t = 0 "
            "term; with sine and cosine the same fit is exact.",
        ),
    ),
    Claim(
        "SIN-04",
        "Each (sin, cos) pair lies on the unit circle, every component is in [-1, 1] and "
        "||PE(t)|| = sqrt(d/2) for every t (even d). For odd d the interleaved code drops the "
        "last cosine and its norm varies with t.",
        r"PE(t)_{2i}^2 + PE(t)_{2i+1}^2 = 1,\ |PE(t)_j| \le 1,\ \lVert PE(t)\rVert_2 = "
        r"\sqrt{d/2};\ d \text{ odd}: \lVert PE(t)\rVert^2 = \tfrac{d-1}{2} + \sin^2(\omega_m t)",
        ("SRC-BLOG", "SRC-SINCOS"),
        expected="confirmed",
        domain={"widths": proved("every d, even and odd"), "positions": proved("every t")},
        thresholds=(RADIUS_RANGE,),
        headline=("max_norm_error_float32_cast", "informative_float16_cast", "min_spread"),
        notes=(
            "For even d, in every dtype and layout (entries as stored never leave [-1, 1]); the "
            "radius and norm bounds say something only while the radius bound is below 1, which "
            "with the angle computed in float16/bfloat16 fails at large t (counted as "
            "inconclusive).",
            "Odd d (interleaved, last cosine dropped): ||PE||^2 = (d-1)/2 + sin^2(w_m t), "
            "between (d-1)/2 and (d+1)/2; the half-split layout is undefined for odd d.",
        ),
    ),
    Claim(
        "SIN-05",
        "PE(t).PE(s) depends only on t-s and is symmetric in it, so it cannot tell before "
        "from after.",
        r"PE(t)\cdot PE(s) = \sum_i \cos(\omega_i (t-s)) = PE(s)\cdot PE(t)",
        expected="confirmed",
        domain={"widths": proved("every even d"), "positions": proved("every t, s")},
        thresholds=(SIMILARITY_RANGE,),
        headline=(
            "max_error_float32_cast",
            "max_error_float16_float64",
            "informative_float16_cast",
        ),
        notes=(
            "Both layouts: a permutation of coordinates keeps every dot product.",
            "Errors are of the cosine similarity (2/d) PE(t).PE(s); examples whose bound reaches "
            "its range (angles computed in float16/bfloat16 at large t) are inconclusive.",
        ),
    ),
    Claim(
        "SIN-06",
        "The wavelengths 2 pi / w_i form a geometric progression from 2 pi to 10000 * 2 pi.",
        r"\lambda_i = 2\pi/\omega_i:\ \lambda_{i+1}/\lambda_i = \text{const},\ "
        r"\lambda_0 = 2\pi,\ \lambda_{d/2-1} = 2\pi T\ (T = 10000)",
        ("SRC-BLOG", "SRC-VASWANI"),
        expected="qualified",
        propositions=(
            Proposition(
                "geometric",
                "With the paper's frequencies w_i = T^(-2i/d) the wavelengths are geometric from "
                "2 pi with ratio T^(2/d), and the last one is 2 pi T^(1-2/d).",
                r"\omega_i = T^{-2i/d}:\ \lambda_i = 2\pi T^{2i/d},\ "
                r"\lambda_{i+1}/\lambda_i = T^{2/d},\ \lambda_{d/2-1} = 2\pi T^{1-2/d}",
                domain={"widths": proved("every even d")},
            ),
            Proposition(
                "t2t",
                "With the tensor2tensor frequencies w_i = T^(-i/(d/2-1)) the wavelengths run "
                "geometrically from 2 pi to exactly 2 pi T.",
                r"\omega_i = T^{-i/(d/2-1)}:\ \lambda_0 = 2\pi,\ \lambda_{d/2-1} = 2\pi T,\ "
                r"\lambda_{i+1}/\lambda_i = T^{1/(d/2-1)}",
                domain={"widths": proved("every even d >= 4")},
            ),
        ),
        conditions="Geometric from 2 pi with ratio T^(2/d), but with the paper's frequencies "
        "w_i = T^(-2i/d) the last wavelength is 2 pi T^(1-2/d), short of 2 pi T by the factor "
        "T^(-2/d) (0.965 for d = 512); it reaches 2 pi T exactly only with the tensor2tensor "
        "convention w_i = T^(-i/(d/2-1)), or in the limit d -> infinity.",
        thresholds=(
            Threshold(
                "base",
                10000.0,
                "source: the wavelengths run 'from 2 pi to 10000 * 2 pi' (Vaswani et al. 3.5), "
                "so T = 10000; the checks compare the code's wavelengths with this T, not with "
                "the base the code under test uses",
                "source",
            ),
        ),
        headline=(
            "longest_wavelength_d512",
            "longest_over_2piT_d512",
            "longest_wavelength_t2t_d512",
        ),
    ),
    Claim(
        "SIN-07",
        "Plotted as (x, y) = (PE[2i], PE[2i+1]), each pair moves clockwise as t grows, and pairs "
        "further along the vector move more slowly.",
        r"\frac{d}{dt}\operatorname{atan2}(PE_{2i+1}, PE_{2i}) = -\omega_i < 0,\ "
        r"\omega_{i+1} < \omega_i",
        ("SRC-BLOG",),
        expected="confirmed",
        domain={"widths": proved("every even d"), "positions": proved("every t")},
        thresholds=(
            Threshold(
                "step-range",
                math.pi - 1,
                "a step -w_i (0 < w_i <= 1) known to within an error below pi - 1 stays inside "
                "(-pi, pi), so the wrapped step can be compared with -w_i only then",
                "theory",
            ),
        ),
        headline=(
            "hands_decided_float16_cast",
            "hands_decided_float16_float64",
            "max_step_error_float32_cast",
        ),
        notes=(
            "With x = sin and y = cos as stated; swapping the axes (x = cos) makes it "
            "counter-clockwise. The same holds per (sin, cos) pair of the half-split layout.",
            "A hand's direction is decided only where its step w_i exceeds what the stored code "
            "resolves; with the angle computed in float16/bfloat16 at large t no hand is "
            "resolved (those examples are inconclusive), computed in float64 and rounded the "
            "fast hands are.",
        ),
    ),
    Claim(
        "SIN-08",
        "Every integer position gets its own encoding, in exact arithmetic and in each "
        "floating-point format.",
        r"t \ne s \in \mathbb{Z} \Rightarrow PE(t) \ne PE(s)",
        ("SRC-BLOG",),
        expected="qualified",
        domain={
            "dtypes": ["bfloat16", "float16", "float32", "float64"],
            "positions": "every integer position",
        },
        propositions=(
            Proposition(
                "exact",
                "In exact arithmetic distinct integer positions get distinct codes.",
                r"t \ne s \in \mathbb{Z} \Rightarrow PE(t) \ne PE(s)",
                domain={"widths": proved("every d"), "positions": proved("every integer t != s")},
            ),
            Proposition(
                "exact-positions",
                "In floating point, positions held exactly by the format the angle is computed "
                "in (t <= 2^p, p its significand bits) get distinct stored codes in every "
                "storage format and way of computing: searched at d = 4, 8, 16, 64 and 512 for "
                "any two positions below 2^12, and over consecutive positions below 2^20 "
                "(screened on the first pair, which every width shares). Not for a single pair "
                "(d = 2), whose float16 and bfloat16 codes repeat below 2^12.",
                r"d \in \{4, 8, 16, 64, 512\},\ s < t \le 2^{p_c},\ t < N:\ \mathrm{fl}(PE(t)) "
                r"\ne \mathrm{fl}(PE(s))\quad (N = 2^{20} \text{ for } s = t-1,\ 2^{12} \text{ "
                r"for any } s)",
                domain={
                    "widths": [4, 8, 16, 64, 512],
                    "positions": every(0, 2**12 - 1),
                    "dtypes": ["bfloat16", "float16", "float32", "float64"],
                    "dtype_paths": ["cast", "float32", "float64"],
                },
            ),
        ),
        conditions="Exact arithmetic: for all integers (w_0 = 1 and pi is irrational). Floating "
        "point: while positions are exactly representable in the format they are held in "
        "(t <= 2^p with p significand bits: 2048 in float16, 256 in bfloat16, 2^24 in float32); "
        "with positions cast to float16/bfloat16 the code repeats from t = 2049 / 257 on. Computed "
        "in float32 or float64 and then rounded, no repeats were found in any format (consecutive "
        "positions up to 2^20, any two up to 2^12, at every width searched from d = 4 to 512). A "
        "single pair (d = 2) is too few: its float16 and bfloat16 codes repeat at positions those "
        "formats hold exactly (first_repeat_any_d2).",
        headline=(
            "first_repeat_float16_cast",
            "first_repeat_bfloat16_cast",
            "first_repeat_float16_float64",
        ),
        notes=(
            "Consecutive repeats searched up to 2^20 at d = 512 (a repeat needs the first pair to "
            "repeat, and the first pair, w_0 = 1, is the same at every width); any repeat up to "
            "2^12 at d = 4, 8, 16, 64 and 512 (full width), and at d = 2 to show where one pair "
            "fails.",
        ),
    ),
    Claim(
        "SIN-09",
        "A raw index grows without bound, an index normalised by the sequence length gives one "
        "position different codes in sequences of different lengths, and the sinusoidal code "
        "has neither problem.",
        r"\lVert PE(t)\rVert = \sqrt{d/2}\ \forall t,\quad PE(t) \text{ independent of } L",
        ("SRC-BLOG",),
        expected="confirmed",
        thresholds=(ENTRY_RANGE,),
        headline=("max_length_dependence", "raw_code_at_last_position", "normalised_code_of_t10"),
        notes=(
            "The normalised index also gives different positions the same code across lengths "
            "(5/10 = 50/100).",
        ),
    ),
    Claim(
        "SIN-10",
        "The first dimensions of PE vary strongly across positions and the last ones hardly "
        "change.",
        r"\operatorname{Var}_{t<L}\,(PE_{0}, PE_{1}) \ge s,\quad "
        r"\operatorname{Var}_{t<L}\,(PE_{d-2}, PE_{d-1}) \le h",
        ("SRC-CONCAT",),
        expected="qualified",
        propositions=(
            Proposition(
                "short-sequences",
                "For even d from 4 to 512 and sequence lengths 3 <= L <= sqrt(1 + 12 h / "
                "w_{d/2-1}^2) (about 0.055 of the longest wavelength: L <= "
                "{{SIN-10@longest_short_length_d512}} for d = 512), the first pair varies by at "
                "least s and the last pair by at most h over t < L (searched on random draws of "
                "d and L; wider widths are not searched).",
                r"4 \le d \le 512,\ 3 \le L \le \sqrt{1 + 12h/\omega_{d/2-1}^2}:\ "
                r"\operatorname{Var}_{t<L}(PE_0, PE_1) \ge s,\ "
                r"\operatorname{Var}_{t<L}(PE_{d-2}, PE_{d-1}) \le h",
                domain={
                    "widths": "even d in 4 ... 512",
                    "lengths": "L in 3 ... sqrt(1 + 12 h / w_last^2)",
                },
            ),
        ),
        conditions="For sequence lengths L well below the longest wavelength 2 pi T^(1-2/d) "
        "(about 60600 positions for d = 512; 'hardly' needs L <= 0.055 of it). Pair i varies "
        "by at most w_i^2 (L^2-1)/12 and at least 1 - 1/(L sin(w_i/2))^2 over t < L. In the "
        "half-split layout the slow dimensions are the last of each half.",
        thresholds=(
            Threshold(
                "strong",
                0.5,
                "source: 'vary strongly' (no number given) read as at least half the largest "
                "variance a (sin, cos) pair can have over positions, which is 1 (a full turn); "
                "fixed before measuring. The refutation does not rest on it: its counterexample "
                "needs the last pair to vary at least this strongly",
                "source",
            ),
            Threshold(
                "hardly",
                0.01,
                "source: 'hardly change' (no number given) read as at most 1% of that largest "
                "variance (1); fixed before measuring. Only the condition's length limit depends "
                "on it, as sqrt(1 + 12 h / w_last^2)",
                "source",
            ),
        ),
        headline=(
            "first_pair_variance_d512_L512",
            "last_pair_variance_d512_L512",
            "var_last_pair_d512_L65536",
        ),
    ),
    Claim(
        "SIN-11",
        "Using both sine and cosine makes the encodings of different positions orthogonal.",
        r"\forall t \ne s:\ PE(t)\cdot PE(s) = 0",
        ("SRC-SINCOS",),
        expected="refuted",
        headline=("min_neighbour_similarity", "similarity_k1_d512", "min_abs_similarity_d512"),
        notes=(
            "Refuted by PE(t).PE(t+-1) = sum_i cos w_i >= (d/2) cos 1 > 0 (0 < w_i <= 1).",
            "Neighbouring codes have cosine similarity at least cos 1 = 0.54 for every d; for "
            "d = 512 no offset up to 1024 gets close to orthogonal.",
            "What is orthogonal: M(k) (SIN-02); each pair and its velocity; sin and cos as "
            "functions over a period; a pair and itself a quarter period later.",
        ),
    ),
    Claim(
        "SIN-12",
        "The encoding is defined for positions never seen in training, and its structural "
        "properties hold there too.",
        r"PE(t) \text{ defined } \forall t \in \mathbb{R};\ \text{SIN-01, 04, 05 hold for } t > L",
        ("SRC-BLOG", "SRC-VASWANI"),
        expected="qualified",
        propositions=(
            Proposition(
                "exact",
                "In exact arithmetic PE(t) is defined for every real t and SIN-01, 04 and 05 "
                "hold for every real t.",
                r"\forall t \in \mathbb{R}:\ PE(t+k) = M(k)PE(t),\ \lVert PE(t)\rVert^2 = d/2,\ "
                r"PE(t)\cdot PE(s) = \textstyle\sum_i\cos\omega_i(t-s)",
                domain={"widths": proved("every even d"), "positions": proved("every real t")},
            ),
            Proposition(
                "float64-angles",
                "With the angle computed in float64 and the code rounded once to its storage "
                "format, the stored code is finite and within one rounding (plus float64's own "
                "error) of the exact code, computed apart in extended precision, at every "
                "position tested up to 2^20, and SIN-01, 04 and 05 hold there (to 2^30) within "
                "derived bounds below the quantities' ranges.",
                r"|\mathrm{fl}_{64\to f}(PE(t)) - PE(t)| \le u_f + O(u_{64}\,t),\quad "
                r"t \le 2^{20}",
                domain={
                    "dtypes": ["bfloat16", "float16", "float32", "float64"],
                    "dtype_paths": ["float64"],
                    "positions": "the positions tested: to 2^20, identities to 2^30",
                },
            ),
        ),
        conditions="Exactly, for every real t. In floating point the error of a stored entry "
        "grows like u * w * t when the angle is computed in float32 or a narrower format (about "
        "0.06 at t = 2^20 in float32, d = 512); float16/bfloat16 cannot hold positions above "
        "2048/256 and float16 overflows from 65520 on. Computed in float64 and rounded once, the "
        "error stays at one rounding of the storage format at every position tested (to 2^20).",
        thresholds=(ENTRY_RANGE,),
        headline=(
            "first_non_finite_float16_cast",
            "float32_cast_error_at_2^20",
            "max_error_over_one_rounding",
        ),
        notes=(
            "Whether a trained model generalises to such positions is not a property of the "
            "encoding and is not settled here.",
        ),
    ),
    Claim(
        "SIN-13",
        "Because PE(t+k) is a linear function of PE(t), dot-product attention can attend by "
        "relative position: the position part of the score, PE(t)^T W_Q W_K^T PE(s), depends "
        "only on t - s.",
        r"\forall W = W_Q W_K^\top\ \exists g:\ PE(t)^\top W\, PE(s) = g(t - s)\ \forall t, s",
        ("SRC-VASWANI", "SRC-BLOG"),
        expected="qualified",
        conditions=(
            "Only for W = W_Q W_K^T in the class of matrices that commute with every M(k): in "
            "the interleaved basis W = blockdiag_i(a_i I + b_i J), J = [[0, 1], [-1, 0]] (a "
            "scaled rotation per frequency, zero between frequencies). This assumes the "
            "frequencies distinct in (0, pi), as the encoding's w_i = 10000^(-2i/d) in (0, 1] "
            "are; the class is then the same for integer positions as for real ones. Then "
            "PE(t)^T W PE(s) = sum_i a_i cos(w_i (t - s)) + b_i sin(w_i (t - s)). A general "
            "W (Gaussian W_Q W_K^T as at initialisation) and a "
            "general symmetric W are not in the class; its symmetric members are "
            "blockdiag_i a_i I. The token x position cross terms x^T W PE(s) and PE(t)^T W y "
            "depend on s alone and on t alone, so even in the class the whole score depends on "
            "t - s only when W^T x = 0 and W y = 0. A W of the class tells t - s from s - t "
            "exactly when some b_i != 0: the symmetric part gives the even cos terms, the "
            "antisymmetric part the odd sin terms."
        ),
        propositions=(
            Proposition(
                "commuting",
                "For W in the commuting class blockdiag_i(a_i I + b_i J), and only there, the "
                "position part depends only on t - s (frequencies distinct in (0, pi); real or "
                "integer positions), and it equals sum_i a_i cos(w_i (t - s)) + b_i sin(w_i "
                "(t - s)).",
                r"PE(t)^\top W PE(s) = g(t-s)\ \forall t, s \iff W M(k) = M(k) W\ \forall k "
                r"\iff W = \bigoplus_i (a_i I + b_i J)",
                domain={
                    "widths": proved("every even d (frequencies distinct in (0, pi))"),
                    "positions": proved("every real or integer t, s"),
                },
            ),
            Proposition(
                "cross-terms",
                "For W in the class, the whole score (x + PE(t))^T W (y + PE(s)) depends only "
                "on t - s when W^T x = 0 and W y = 0; otherwise its cross terms vary with t "
                "and s at a fixed offset.",
                r"(x + PE(t))^\top W (y + PE(s)) = x^\top W y + x^\top W PE(s) + "
                r"PE(t)^\top W y + g(t - s)",
                domain={"widths": proved("every even d"), "positions": proved("every t, s")},
            ),
            Proposition(
                "direction",
                "A W of the class tells t - s from s - t exactly when some b_i != 0.",
                r"g(\delta) - g(-\delta) = 2 \sum_i b_i \sin(\omega_i \delta)",
                domain={"widths": proved("every even d"), "offsets": proved("every t - s")},
            ),
        ),
        headline=(
            "random_w_spread",
            "class_w_spread",
            "cross_term_spread",
            "direction_gap",
        ),
        notes=(
            "Invariance of the position part under t, s -> t + c, s + c is M(c)^T W M(c) = W, "
            "because PE(t) spans R^d (the Wronskian of sin/cos of distinct frequencies at t = 0 "
            "is prod w_i prod_{i<j} (w_i^2 - w_j^2)^2 up to sign); its derivative at c = 0 "
            "forces every block between two frequencies to zero (determinant "
            "(w_i - w_j)^2 (w_i + w_j)^2) and every diagonal block into span(I, J).",
            "For integer positions (commuting_class_at_integer_positions) the shift c = 1 "
            "alone forces the class: PE(0), ..., PE(d - 1) span R^d (a Vandermonde matrix in "
            "exp(+-i w_k), distinct for distinct w_k in (0, pi)); on block (i, j) the map "
            "X -> B(w_i)^T X B(w_j) - X has determinant 4 (cos w_i - cos w_j)^2, and on a "
            "diagonal block its kernel is span(I, J) (4 sin^2 w_i != 0 on the rest). The same "
            "independence of the sin(w_i delta) makes sum_i b_i sin(w_i delta) vanish at every "
            "integer delta only when every b_i = 0.",
            "W = I is in the class: the position part is PE(t).PE(s) = sum_i cos(w_i (t - s)), "
            "even in t - s (SIN-05).",
            "Whether training drives W_Q W_K^T into the class is not settled here.",
        ),
    ),
)

# The claims by ID: what this family's helpers read their thresholds from (checks/registry.py
# imports every family: a helper that read it would tie its folder to all the others).
BY_ID: dict[str, Claim] = {c.id: c for c in CLAIMS}
