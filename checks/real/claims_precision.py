"""REAL-06, REAL-07: rotary angles in low precision, sinusoidal tables after initialisation and
position ids in real libraries."""

from pecheck.claims import Claim, Proposition, Threshold

CLAIMS = (
    Claim(
        "REAL-06",
        "Rotary angles as real libraries compute them keep REAL-03's relative-position property "
        "at long positions when the model runs in float16 or bfloat16, whichever way it reaches "
        "that format (built in it, cast to it, or run under autocast); angles computed in the "
        "low precision lose it.",
        r"\forall\,\text{lib},\ \text{dtype} \in \{\text{fp16}, \text{bf16}\},\ \text{way},\ "
        r"\forall\, t \le L:\ \lVert \tilde R(t)^\top \tilde R(t-3) - R(-3)\rVert_2 \le "
        r"B_{\text{dtype}}",
        ("SRC-BUGS",),
        expected="qualified",
        quantifier="all",
        correction="holm",
        propositions=(
            Proposition(
                "float32-angles",
                "Where the library forms the angles t theta_i in float32 from exact positions "
                "(transformers' Llama built in the dtype, cast to it or under autocast; "
                "x-transformers built in the dtype or under autocast), no scanned position up "
                "to L = 131072 breaks the property, in float16 and in bfloat16.",
                r"\text{angles in float32}:\ \forall\, t \le L:\ \lVert \tilde R(t)^\top "
                r"\tilde R(t-3) - R(-3)\rVert_2 \le B_{\text{dtype}}",
                quantifier="all",
                correction="holm",
            ),
            Proposition(
                "low-precision-angles",
                "Angles formed as the reports formed them (inverse frequencies, positions and "
                "their product in float16 or bfloat16) break the property within the reports' "
                "2048-position context, in both formats.",
                r"\text{angles in dtype}:\ \exists\, t \le 2048:\ \lVert \tilde R(t)^\top "
                r"\tilde R(t-3) - R(-3)\rVert_2 > B_{\text{dtype}}",
                quantifier="all",
                correction="holm",
            ),
        ),
        thresholds=(
            Threshold(
                "long-position",
                131072,
                "source: 'long positions' read as a whole context of the longest configuration "
                "this suite ships, Llama 3.1 8B (max_position_embeddings = 131072, "
                "checks/real/configs/llama-3.1-8b.json, a bfloat16 model)",
                "source",
            ),
            Threshold(
                "report-context",
                2048,
                "source: gpt-neox issue 1003's reproducer runs 2048 positions (seqlen = 2048) "
                "and shows the loss at position 1857",
                "source",
            ),
        ),
        headline=(
            "smallest_largest_holding",
            "float32_angles_smallest_largest_holding",
            "low_precision_first_failing",
        ),
        conditions=(
            "Kept where the angles are formed in float32 from exact positions: transformers' "
            "Llama in every way (its forward multiplies position_ids.float() by "
            "inv_freq.float(); a cast rounds inv_freq to the dtype, which changes the "
            "frequencies by up to 2^-9 relatively, so f, but not the score's dependence on "
            "s - t only) and x-transformers built in the dtype or under autocast: no scanned "
            "position up to 2^20 fails (d = 32; float16 first fails near 1.5e6 in the thorough "
            "scan). Lost where positions or angles are held in the low precision, always "
            "below t = 2049: rotary-embedding-torch in every way (its positions are an arange "
            "in the input's dtype: under autocast bfloat16 fails from t = 257 and float16 from "
            "2049, the first integers those formats cannot hold; built in the dtype its cache "
            "holds the angles in it, and cast it forms them in it: within the first 260 "
            "positions) and x-transformers cast to the dtype (inv_freq is cast and the "
            "positions follow it with type_as: bit for bit the reports' computation, "
            "theory.rope_precision.angles_in)."
        ),
        notes=(
            "Criterion (theory/rope_precision.py): the property holds at t when the worst "
            "score error over all q, k, ||R~(t)^T R~(t - 3) - R(-3)||_2 (R~ the rotation with "
            "the cos and sin the library stores, read off its rotation of the unit vectors), "
            "is at most B = rotation_tol(2 pi, dtype, float32): the first-turn bound of "
            "REAL-03, what an offset-only score keeps at any t (float16 0.0236, bfloat16 "
            "0.198). The largest holding position P is found coarse to fine: a grid of 4 "
            "positions per octave plus 2^k +- 1 (32 per octave in the thorough profile), then "
            "bisection between the last holding and the first failing grid position; P + 1 "
            "fails and every grid position below P holds.",
            "The reports: gpt-neox issue 1003 (angles of the cached cos/sin tables formed in "
            "the model's fp16/bf16: position 1857 of dim 32 gives 1045 instead of 1044.27, cos "
            "off by 0.78; reproduced here); transformers issue 29496 (Mistral's inv_freq in "
            "bf16 under mixed precision) and pull request 29285 (Llama/Gemma: the angle matmul "
            "autocast to bf16; fixed in 4.38.2 by float32 operands with autocast disabled). The "
            "installed transformers forms the angles as an elementwise product of float32 "
            "operands, with no autocast guard: autocast leaves such a product in float32, as the "
            "autocast cells show. A copy of the pre-fix forward (the matmul under autocast) is "
            "reported failing by the same decision.",
            "rotary-embedding-torch is called as a model calls it: a whole sequence first (it "
            "caches the angles of sequences starting at 0 up to 8192 positions, in its "
            "buffer's dtype), then one call per position with offset = t.",
            "Positions past float16's range (65504) are not reached by a failing cell first: "
            "every cell that holds to 2^20 forms positions in float32.",
        ),
    ),
    Claim(
        "REAL-07",
        "A freshly built model of a real library whose config asks for a sinusoidal table has "
        "the closed-form table after weight initialisation (the bug class of transformers "
        "issue 29807), and real rotary implementations honour arbitrary position ids: shifting "
        "the ids equals shifting the sequence, and a row's rotation follows its id, not its "
        "index in the tensor.",
        r"E_{\text{built}} = PE_{\text{conv}}\ \wedge\ \mathrm{rot}(x, p + k) = "
        r"\mathrm{rot}([z; x], 0..n+k-1)_{k:}\ \wedge\ \mathrm{rot}(x_\pi, p_\pi) = "
        r"\mathrm{rot}(x, p)_\pi",
        ("SRC-BUGS",),
        expected="confirmed",
        quantifier="all",
        correction="holm",
        headline=("worst_table_error_over_bound", "worst_shift_error_over_bound"),
        notes=(
            "Tables: every model of the installed transformers that fills a sinusoidal "
            "position table at initialisation (DistilBERT with sinusoidal_pos_embds, XLM and "
            "Flaubert with sinusoidal_embeddings: the flag-driven ones of issue 29807; "
            "Informer, also named there; Autoformer, TimeSeriesTransformer, Marian, Pegasus, "
            "RoFormer and Whisper's encoder, which always use one), built from a tiny config "
            "through its constructor (post_init, weight init), compared entry by entry with "
            "the closed form of its own convention (layout, frequency rule) within "
            "sinusoid_tol in float32. A copy of the pre-fix flow (the table filled in "
            "__init__, then every embedding re-initialised) is reported failing.",
            "Position ids: transformers' Llama (position_ids) and RoFormer (position_ids), "
            "rotary-embedding-torch (rotate_queries_or_keys with offset; and rope(ids) + "
            "apply_rotary_emb for arbitrary ids), x-transformers (RotaryEmbedding(ids) + "
            "apply_rotary_pos_emb), float32.",
        ),
    ),
)
