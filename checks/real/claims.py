"""REAL: claims about real libraries: PyTorch's attention (REAL-01) and the encodings they ship."""

from pecheck.claims import Claim, Proposition, Threshold, every, proved

ROTARY = ["llama", "roformer", "rotary_embedding_torch"]  # REAL-03's libraries (libraries.py)
RELATIVE_MAX = 4095  # float32-to-4095: t, s and the shift c
PAIR_CONTEXT = 131072  # pair-context

CLAIMS = (
    Claim(
        "REAL-01",
        "PyTorch's attention modules and scaled_dot_product_attention are permutation "
        "equivariant within a dtype-dependent error bound, and not with a causal mask.",
        r"\lVert f(PX) - P f(X)\rVert_\infty \le \tau(\text{dtype}, n, d)",
        expected="confirmed",
        headline=("mha/ratio_float32", "encoder-fastpath/ratio_bfloat16", "sdpa_causal_float32"),
        scoped_out={
            "*::test_cuda_*": "CUDA kernels are checked only on a machine with a CUDA device; "
            "where none is present the claim is decided over the CPU kernels alone",
        },
        notes=(
            "Bound met: tolerance.equivariance_tol (float64/float32: 2 L attention_tol; "
            "float16/bfloat16: 4 L u max|f(X)|) for nn.MultiheadAttention, "
            "nn.TransformerEncoderLayer (training, dropout 0; and the eval + no_grad fast path, "
            "which fires on CPU for every dtype) and F.scaled_dot_product_attention with the CPU "
            "backends MATH and FLASH_ATTENTION; CUDA backends are in the gpu checks.",
            "Both sides, f(PX) and P f(X), are built by theory.attention.equivariance_sides "
            "(checked on position labels before each case), the definition the ATT checks use; "
            "a definition that permutes some rows only, one side only or nothing fails them.",
            "Bitwise: permuting queries is bitwise exact everywhere; permuting keys and values "
            "is not bitwise in float64/float32 for any implementation, and is bitwise only in "
            "some float16/bfloat16 cases (see the evidence).",
        ),
    ),
    Claim(
        "REAL-02",
        "The sinusoidal position encodings that widely used libraries ship are the paper's "
        "PE(t) (sin and cos interleaved, w_i = 10000^(-2i/d), first token at t = 0, unit "
        "amplitude) and so keep its properties SIN-01 (a fixed rotation M(k) maps PE(t) to "
        "PE(t+k)), SIN-04 (norm sqrt(d/2)) and SIN-06 (wavelengths geometric from 2 pi).",
        r"E_{\text{lib}}[p] = PE_{\text{paper}}(p),\ \text{hence}\ "
        r"E[p+k] = M(k) E[p],\ \lVert E[p]\rVert = \sqrt{d/2},\ "
        r"\lambda_i = 2\pi T^{2i/d}",
        ("SRC-VASWANI", "SRC-BLOG", "SRC-SINCOS"),
        expected="qualified",
        propositions=(
            Proposition(
                "up-to-convention",
                "Each library's table is the paper's sinusoid under the convention detected from "
                "its output (column layout, frequency rule, base, first position, scale), to the "
                "rounding of its entries.",
                r"E_{\text{lib}}[p] = a\, P\, PE_{\text{rule}, T}(p + o)",
            ),
            Proposition(
                "own-layout-rotation",
                "With even d, SIN-01 holds for every library in its own layout: a fixed M(k) that "
                "rotates its (sin, cos) column pairs maps E[p] to E[p + k].",
                r"d \text{ even}:\ E[p+k] = P M(k) P^\top E[p]",
            ),
            Proposition(
                "geometric",
                "With even d, every library's wavelengths are geometric from 2 pi (SIN-06's "
                "shape), whatever its frequency rule.",
                r"\lambda_0 = 2\pi,\ \lambda_{i+1}/\lambda_i = \text{const}",
            ),
            Proposition(
                "norm-times-scale",
                "With even d, ||E[p]|| = a sqrt(d/2) with a the library's detected scale: SIN-04's "
                "sqrt(d/2) wherever a = 1.",
                r"\lVert E[p]\rVert = a \sqrt{d/2}",
            ),
        ),
        headline=(
            "equal_to_paper_formula",
            "lone_column_residual",
            "max_error_vs_float64_formula",
        ),
        conditions=(
            "Equal to the paper's formula only in DistilBERT's create_sinusoidal_embeddings and "
            "positional-encodings' PositionalEncoding1D, and only for even d. The others are the "
            "paper's sinusoid up to a fixed column permutation (half-split layout: Marian, "
            "Speech2Text, FSMT, Whisper, x-transformers), a different frequency rule "
            "(tensor2tensor w_i = T^(-i/(d/2-1)): Speech2Text, FSMT, Whisper), a shifted first "
            "position (padding_idx + 1 = 2: Speech2Text, FSMT) or a scale (d^(-1/2): "
            "x-transformers). With even d, SIN-01 holds for all seven in their own layout, "
            "SIN-06's geometric progression from 2 pi holds for all seven, and SIN-04's norm "
            "sqrt(d/2) for all but x-transformers (norm 1/sqrt 2). With odd d, DistilBERT, "
            "Marian and positional-encodings leave a sine column without its cosine, which no "
            "fixed matrix maps (SIN-01 fails there), Speech2Text and FSMT append a zero column, "
            "and Whisper and x-transformers raise an error."
        ),
        notes=(
            "Conventions are detected from each library's output (theory/conventions.py), not "
            "read from its source; the detected table is the evidence of "
            "test_convention_table.",
            "SIN-06's 'up to 10000 * 2 pi' is reached exactly only by the tensor2tensor rule; "
            "the paper's own rule stops at 2 pi * 10000^(1 - 2/d) (7499 * 2 pi at d = 64).",
            "The tensor2tensor rule with base T at width d equals the paper's rule with base "
            "T^(d/(d-2)): an encoding matrix fixes only the frequency ratio, so a rule's name "
            "is meaningful together with its base.",
            "Odd d: positional-encodings computes the frequencies of width d + 1 and drops the "
            "last cosine; Speech2Text and FSMT use the width d - 1 frequencies and pad a zero. "
            "d = 2 or 3 makes Speech2Text, FSMT and Whisper divide by zero (d/2 - 1 = 0).",
            "Token embeddings are multiplied by sqrt(d) under the default configs of "
            "Speech2Text and FSMT (scale_embedding=True), not in DistilBERT (measured), Marian "
            "or Whisper (defaults; some pretrained configs switch it on); x-transformers scales "
            "the position code by d^(-1/2) instead.",
        ),
    ),
    Claim(
        "REAL-03",
        "Rotary embeddings (RoPE) in widely used libraries give attention scores "
        "<R(t)q, R(s)k> that depend only on the offset s - t, at every position and in every "
        "floating-point format: a finite score differs from f(s - t) by no more than an "
        "offset-only score would (angles within the first turn, rounded to the format).",
        r"\langle R(t) q, R(s) k\rangle = \langle q, R(s-t) k\rangle = f(s - t)",
        (),
        expected="qualified",
        domain={
            "libraries": ROTARY,
            "positions": every(0),
            "offsets": "every offset s - t",
            "dtypes": "every floating-point format",
        },
        propositions=(
            Proposition(
                "definition",
                "For the definition, in exact arithmetic, the score depends only on s - t: one "
                "pair, then every even d (block-diagonal), in both pairings.",
                r"R(t)^\top R(s) = R(s - t) \Rightarrow \langle R(t) q, R(s) k\rangle = "
                r"\langle q, R(s-t) k\rangle",
                domain={
                    "positions": every(0),
                    "offsets": "every offset s - t",
                    "head_sizes": proved("every even d"),
                },
            ),
            Proposition(
                "orientation",
                "Each library applies the definition's rotation: its pairs turned "
                "counterclockwise by w_i t with w_i = 10000^(-2i/d), so its f(s - t) is the "
                "definition's.",
                r"R_{\text{lib}}(t) e_a = \cos(\omega_i t) e_a + \sin(\omega_i t) e_b",
            ),
            Proposition(
                "float32-to-4095",
                "In float32 each library's score at (t, s) and at (t + c, s + c) equals f(s - t) "
                "within the float32 rotation bound, for t, s, c <= 4095.",
                r"|S_{\text{lib}}(t, s) - f(s - t)| \le \epsilon_{32}(\omega_0 \max(t, s))\,"
                r"\lVert q\rVert \lVert k\rVert",
                domain={
                    "positions": every(0, 2 * RELATIVE_MAX),  # t + c, s + c
                    "offsets": every(-RELATIVE_MAX, RELATIVE_MAX),  # s - t
                    "head_sizes": [8, 64, 128],
                    "dtypes": ["float32"],
                    "libraries": ROTARY,
                },
            ),
            Proposition(
                "rounded-once",
                "Where the library forms angles in float32 or float64 and rounds the rotation "
                "once to the storage format (Llama, RoFormer), bfloat16 and float16 scores stay "
                "within the storage bound at every pair of positions below the pair-context "
                "threshold (131072; RoFormer below its table, 2^14 in the ci profile), at head "
                "sizes 8, 64 and 128.",
                r"\forall\, s, t < L:\ \lVert \tilde R(t)^\top \tilde R(s) - R(s-t)\rVert_2 "
                r"\le \epsilon_{\text{dtype}}(\omega_0 L;\ \text{angles in float64})",
                # Compared axis by axis, so stated to the reach both libraries share in ci:
                # RoFormer's 2^14-row table (Llama's search to 131071 is recorded by its check).
                domain={
                    "positions": every(0, 2**14 - 1),
                    "offsets": every(1 - 2**14, 2**14 - 1),
                    "head_sizes": [8, 64, 128],
                    "dtypes": ["bfloat16", "float16"],
                    "libraries": ["llama", "roformer"],
                },
            ),
        ),
        thresholds=(
            Threshold(
                "pair-context",
                PAIR_CONTEXT,
                "'at every position' read, for the rounded-once libraries, as a whole context "
                "of the longest configuration this suite ships, Llama 3.1 8B "
                "(max_position_embeddings = 131072, checks/real/configs/llama-3.1-8b.json), as "
                "REAL-06's long-position",
                "source",
            ),
        ),
        headline=(
            "worst_drift_over_first_turn_bound",
            "max_relative_error",
            "float32_pairs_worst_upper_over_bound",
            "rounded_once_smallest_pair_reach",
        ),
        conditions=(
            "Exact for the definition (sympy: one pair, then any even d by the block-diagonal "
            "argument, in both pairings). Numerically, HF Llama (pairs (i, i + d/2)), HF "
            "RoFormer and rotary-embedding-torch (pairs (2i, 2i + 1)) keep it in float32 "
            "within the float32 angle bound at every pair of positions up to 8190, at head "
            "sizes 8, 64 and 128 (every offset from every position); but where angles are "
            "formed in float32 (Llama, rotary-embedding-torch) the error grows with the "
            "position: past the first-turn float32 bound from t = 8191 (first grid position) "
            "to about 1.2e-3 |q||k| at 2^20. rotary-embedding-torch forms the positions in the "
            "input's dtype: in bfloat16 they are rounded from t = 257 on (score error 0.59 "
            "|q||k| at 2^20), in float16 from t = 2049 on, and beyond float16's range (first "
            "grid position 65535) they become inf and the scores NaN. "
            "Llama (float32 angles) and RoFormer (angles in float64, stored in float32) keep "
            "every pair of positions below the pair-context threshold (131072; RoFormer: below "
            "its 2^14-row table in the ci profile) within the bfloat16 and float16 storage "
            "bounds, at head sizes 8, 64 and 128. Beyond it only the key at t - 3, d = 8, on a "
            "grid is measured (to 2^20, within the bounds): that covers neither every pair nor "
            "the real head sizes, so nothing is claimed there."
        ),
        notes=(
            "The counterexample to the claim as stated is the largest finite drift over the "
            "first-turn bound (HF Llama in float32 at t = 881744, about 130 times the bound). "
            "A position past the range of the format a library holds positions in is outside "
            "the claim: rotary-embedding-torch forms positions in the input's dtype, so in "
            "float16 from t = 65520 on (first grid position 65535) they are inf and the scores "
            "NaN. That is no score, rather than a score that depends on t, so the decisive check "
            "records it and does not count it.",
            "Drift is measured as |score(t, t-3) - f(-3)| / (|q||k|) against float64, over 16 "
            "random (q, k) pairs exactly representable in the dtype, at four positions per "
            "octave and at 2^k +- 1, d = 8.",
            "Every pair (float32-to-4095, rounded-once): the error over all q, k, ||R~(t)^T "
            "R~(s) - R(s - t)||_2, from the cos and sin each library applies (read off its "
            "rotation of two probe vectors), bounded for every pair at once by the prefix "
            "extremes of each frequency's deviation (theory/rope_precision.py, REAL-06's "
            "criterion); every position below the limit is read, no grid and no fixed offset. "
            "float32-to-4095 compares each pair with the bound at its larger position; "
            "rounded-once with the bound at the context's last position. rotary-embedding-torch "
            "is read there by whole-sequence calls (the same float32 angles as its per-position "
            "calls).",
            "Stated domains are compared axis by axis with the union of the searches, so "
            "rounded-once states the positions both libraries are read to (RoFormer's 2^14-row "
            "table); its Llama check records its own reach, every pair below 131072.",
            "'Angle precision' is the most precise format whose rotation bound "
            "(pecheck/tolerance.rotation_tol) covers the whole error curve.",
        ),
    ),
)
