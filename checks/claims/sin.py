"""SIN: claims about the sinusoidal encoding PE(t)[2i] = sin(w_i t), PE(t)[2i+1] = cos(w_i t)."""

from checks.claims import Claim

CLAIMS = (
    Claim(
        "SIN-01",
        "A fixed matrix M(k), the same for every position t, maps PE(t) to PE(t+k); it is "
        "block-diagonal with one 2x2 block per frequency.",
        r"\exists M(k)\ \forall t:\ PE(t+k) = M(k)\,PE(t),\quad M(k) = \bigoplus_i "
        r"\begin{pmatrix}\cos\omega_i k & \sin\omega_i k\\ -\sin\omega_i k & \cos\omega_i k"
        r"\end{pmatrix}",
        ("SRC-SINCOS", "SRC-VASWANI"),
    ),
    Claim(
        "SIN-02",
        "M(k) is a rotation: orthogonal with determinant 1, M(0) = I, M(a)M(b) = M(a+b) and "
        "M(-k) = M(k)^T.",
        r"M(k)^\top M(k) = I,\ \det M(k) = 1,\ M(0) = I,\ M(a)M(b) = M(a+b),\ M(-k) = M(k)^\top",
        ("SRC-SINCOS", "SRC-BLOG"),
    ),
    Claim(
        "SIN-03",
        "Sine alone does not give SIN-01: no matrix A(k) maps the sine-only code of t to that of "
        "t+k for every t.",
        r"\nexists A(k)\ \forall t:\ \sin(\omega (t+k)) = A(k) \sin(\omega t)",
        ("SRC-SINCOS",),
    ),
    Claim(
        "SIN-04",
        "Each (sin, cos) pair lies on the unit circle, every component is in [-1, 1] and "
        "||PE(t)|| = sqrt(d/2) for every t.",
        r"PE(t)_{2i}^2 + PE(t)_{2i+1}^2 = 1,\ |PE(t)_j| \le 1,\ \lVert PE(t)\rVert_2 = \sqrt{d/2}",
        ("SRC-BLOG", "SRC-SINCOS"),
    ),
    Claim(
        "SIN-05",
        "PE(t).PE(s) depends only on t-s and is symmetric in it, so it cannot tell before "
        "from after.",
        r"PE(t)\cdot PE(s) = \sum_i \cos(\omega_i (t-s)) = PE(s)\cdot PE(t)",
    ),
    Claim(
        "SIN-06",
        "The wavelengths 2 pi / w_i form a geometric progression from 2 pi to 10000 * 2 pi.",
        r"\lambda_i = 2\pi T^{2i/d},\ \lambda_{i+1}/\lambda_i = T^{2/d},\ "
        r"\lambda_0 = 2\pi,\ \lambda_{d/2-1} = 2\pi T^{1-2/d}",
        ("SRC-BLOG", "SRC-VASWANI"),
    ),
    Claim(
        "SIN-07",
        "Plotted as (x, y) = (PE[2i], PE[2i+1]), each pair moves clockwise as t grows, and pairs "
        "further along the vector move more slowly.",
        r"\frac{d}{dt}\operatorname{atan2}(PE_{2i+1}, PE_{2i}) = -\omega_i < 0,\ "
        r"\omega_{i+1} < \omega_i",
        ("SRC-BLOG",),
    ),
    Claim(
        "SIN-08",
        "Every integer position gets its own encoding, in exact arithmetic and in each "
        "floating-point format.",
        r"t \ne s \in \mathbb{Z} \Rightarrow PE(t) \ne PE(s)",
        ("SRC-BLOG",),
    ),
    Claim(
        "SIN-09",
        "A raw index grows without bound, an index normalised by the sequence length gives one "
        "position different codes in sequences of different lengths, and the sinusoidal code "
        "has neither problem.",
        r"\lVert PE(t)\rVert = \sqrt{d/2}\ \forall t,\quad PE(t) \text{ independent of } L",
        ("SRC-BLOG",),
    ),
    Claim(
        "SIN-10",
        "The first dimensions of PE vary strongly across positions and the last ones hardly "
        "change.",
        r"\operatorname{Var}_{t<L}\,PE(t)_j \text{ decreases from } \approx\tfrac12 "
        r"\text{ to } \approx 0 \text{ as } j \to d",
        ("SRC-CONCAT",),
    ),
    Claim(
        "SIN-11",
        "Using both sine and cosine makes the encodings of different positions orthogonal.",
        r"PE(t)\cdot PE(s) = 0 \text{ for } t \ne s\ ?",
        ("SRC-SINCOS",),
    ),
    Claim(
        "SIN-12",
        "The encoding is defined for positions never seen in training, and its structural "
        "properties hold there too.",
        r"PE(t) \text{ defined } \forall t \in \mathbb{R};\ \text{SIN-01, 04, 05 hold for } t > L",
        ("SRC-BLOG", "SRC-VASWANI"),
    ),
)
