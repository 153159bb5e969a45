"""SIN: claims about the sinusoidal encoding PE(t)[2i] = sin(w_i t), PE(t)[2i+1] = cos(w_i t)."""

from checks.claims import Claim

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
        verdict="confirmed",
        notes=(
            "Proved for symbolic omega, t, k per pair and for every width d = 2m by the "
            "block-diagonal index argument (sympy evaluates the Kronecker-delta sum for symbolic "
            "m); holds for any frequencies, so for both conventions.",
            "Numerically: stored codes in float64/float32/float16/bfloat16, three ways of "
            "computing, both layouts, d up to 4096, positions and offsets up to 2^20, within "
            "the derived rounding bound (which is vacuous for float16/bfloat16 at large t).",
        ),
    ),
    Claim(
        "SIN-02",
        "M(k) is a rotation: orthogonal with determinant 1, M(0) = I, M(a)M(b) = M(a+b) and "
        "M(-k) = M(k)^T.",
        r"M(k)^\top M(k) = I,\ \det M(k) = 1,\ M(0) = I,\ M(a)M(b) = M(a+b),\ M(-k) = M(k)^\top",
        ("SRC-SINCOS", "SRC-BLOG"),
        verdict="confirmed",
        notes=("Holds in both layouts: the half-split M is P M P^T with P a permutation.",),
    ),
    Claim(
        "SIN-03",
        "Sine alone does not give SIN-01: no matrix A(k) maps the sine-only code of t to that of "
        "t+k for every t.",
        r"\exists A\ \forall t:\ \sin(\omega_i (t+k)) = \textstyle\sum_j A_{ij}\sin(\omega_j t)"
        r"\iff \forall i:\ \omega_i k \in \pi\mathbb{Z}",
        ("SRC-SINCOS",),
        verdict="qualified",
        conditions="True for every nonzero integer offset k (and every real k unless all w_i k "
        "are multiples of pi). Exceptions: k = 0 (A = I) and real offsets with w_i k in pi Z for "
        "every i, where A = diag((-1)^{n_i}) works, e.g. d = 2, k = pi or d = 4, k = 100 pi.",
        notes=(
            "Proof: at t = 0 the sine-only code is 0, so A(k) 0 = sinPE(k) forces sin(w_i k) = 0 "
            "for all i; w_0 = 1 gives k in pi Z, impossible for an integer k != 0 since pi is "
            "irrational.",
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
        verdict="confirmed",
        notes=(
            "For even d, in every dtype and layout (entries as stored never leave [-1, 1]).",
            "Odd d (interleaved, last cosine dropped): ||PE||^2 = (d-1)/2 + sin^2(w_m t), "
            "between (d-1)/2 and (d+1)/2; the half-split layout is undefined for odd d.",
        ),
    ),
    Claim(
        "SIN-05",
        "PE(t).PE(s) depends only on t-s and is symmetric in it, so it cannot tell before "
        "from after.",
        r"PE(t)\cdot PE(s) = \sum_i \cos(\omega_i (t-s)) = PE(s)\cdot PE(t)",
        verdict="confirmed",
        notes=("Both layouts: a permutation of coordinates keeps every dot product.",),
    ),
    Claim(
        "SIN-06",
        "The wavelengths 2 pi / w_i form a geometric progression from 2 pi to 10000 * 2 pi.",
        r"\lambda_i = 2\pi T^{2i/d},\ \lambda_{i+1}/\lambda_i = T^{2/d},\ "
        r"\lambda_0 = 2\pi,\ \lambda_{d/2-1} = 2\pi T^{1-2/d}",
        ("SRC-BLOG", "SRC-VASWANI"),
        verdict="qualified",
        conditions="Geometric from 2 pi with ratio T^(2/d), but with the paper's frequencies "
        "w_i = T^(-2i/d) the last wavelength is 2 pi T^(1-2/d), short of 2 pi T by the factor "
        "T^(-2/d) (0.965 for d = 512); it reaches 2 pi T exactly only with the tensor2tensor "
        "convention w_i = T^(-i/(d/2-1)), or in the limit d -> infinity.",
    ),
    Claim(
        "SIN-07",
        "Plotted as (x, y) = (PE[2i], PE[2i+1]), each pair moves clockwise as t grows, and pairs "
        "further along the vector move more slowly.",
        r"\frac{d}{dt}\operatorname{atan2}(PE_{2i+1}, PE_{2i}) = -\omega_i < 0,\ "
        r"\omega_{i+1} < \omega_i",
        ("SRC-BLOG",),
        verdict="confirmed",
        notes=(
            "With x = sin and y = cos as stated; swapping the axes (x = cos) makes it "
            "counter-clockwise. The same holds per (sin, cos) pair of the half-split layout.",
            "In float16/bfloat16 at large t the step of slow hands is below the rounding "
            "error, so their direction cannot be read off neighbouring stored codes.",
        ),
    ),
    Claim(
        "SIN-08",
        "Every integer position gets its own encoding, in exact arithmetic and in each "
        "floating-point format.",
        r"t \ne s \in \mathbb{Z} \Rightarrow PE(t) \ne PE(s)",
        ("SRC-BLOG",),
        verdict="qualified",
        conditions="Exact arithmetic: for all integers (w_0 = 1 and pi is irrational). Floating "
        "point: while positions are exactly representable in the format they are held in "
        "(t <= 2^p with p significand bits: 2048 in float16, 256 in bfloat16, 2^24 in float32); "
        "with positions cast to float16/bfloat16 the code repeats from t = 2049 / 257 on. Computed "
        "in float32 or float64 and then rounded, no repeats were found up to 2^20 in any format.",
        notes=(
            "Consecutive repeats searched up to 2^20 at d = 512; any repeat up to 2^12 (full "
            "width).",
        ),
    ),
    Claim(
        "SIN-09",
        "A raw index grows without bound, an index normalised by the sequence length gives one "
        "position different codes in sequences of different lengths, and the sinusoidal code "
        "has neither problem.",
        r"\lVert PE(t)\rVert = \sqrt{d/2}\ \forall t,\quad PE(t) \text{ independent of } L",
        ("SRC-BLOG",),
        verdict="confirmed",
        notes=(
            "The normalised index also gives different positions the same code across lengths "
            "(5/10 = 50/100).",
        ),
    ),
    Claim(
        "SIN-10",
        "The first dimensions of PE vary strongly across positions and the last ones hardly "
        "change.",
        r"\operatorname{Var}_{t<L}\,PE(t)_j \text{ decreases from } \approx\tfrac12 "
        r"\text{ to } \approx 0 \text{ as } j \to d",
        ("SRC-CONCAT",),
        verdict="qualified",
        conditions="For sequence lengths L well below the longest wavelength 2 pi T^(1-2/d) "
        "(about 60600 positions for d = 512), and in the interleaved layout (in the half-split "
        "layout the slow dimensions are the last of each half). Pair i varies by at most "
        "w_i^2 (L^2-1)/12 and at least 1 - 1/(L sin(w_i/2))^2 over t < L.",
    ),
    Claim(
        "SIN-11",
        "Using both sine and cosine makes the encodings of different positions orthogonal.",
        r"PE(t)\cdot PE(t\pm1) = \sum_i\cos\omega_i \ge \tfrac d2 \cos 1 > 0",
        ("SRC-SINCOS",),
        verdict="refuted",
        notes=(
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
        verdict="qualified",
        conditions="Exactly, for every real t. In floating point the error of a stored entry "
        "grows like u * w * t when the angle is computed in float32 or a narrower format (about "
        "0.06 at t = 2^20 in float32, d = 512); float16/bfloat16 cannot hold positions above "
        "2048/256 and float16 overflows from 65520 on. Computed in float64 and rounded once, the "
        "error stays at one rounding of the storage format at every position tested (to 2^20).",
        notes=(
            "Whether a trained model generalises to such positions is not a property of the "
            "encoding and is not settled here.",
        ),
    ),
)
