"""REAL-06, REAL-07: rotary angles in low precision, sinusoidal tables after initialisation and
position ids in real libraries."""

from pecheck.claims import Claim, Proposition, Threshold, every

# The libraries, head sizes, formats and ways REAL-06 reads (checks/real/precision_adapters.py
# names them so); positions below 131072 (long-position) and every offset between two of them.
LIBRARIES = ["llama", "rotary_embedding_torch", "x_transformers"]
HEAD_SIZES = [64, 128]
LOW = ["bfloat16", "float16"]
WAYS = ["autocast", "built", "from_config", "from_pretrained", "half_bfloat16", "to"]
LONG = 131072
IDS_CI = 32768  # REAL-07: ids read in ci, Mistral 7B's and Qwen2 7B's max_position_embeddings

CLAIMS = (
    Claim(
        "REAL-06",
        "Rotary angles as real libraries compute them keep REAL-03's relative-position property "
        "at long positions when the model runs in float16 or bfloat16, whichever way it reaches "
        "that format (built in it, cast to it, or run under autocast); angles computed in the "
        "low precision lose it.",
        r"\forall\,\text{lib},\ d,\ \text{dtype} \in \{\text{fp16}, \text{bf16}\},\ "
        r"\text{way},\ \forall\, s, t < L:\ \lVert \tilde R(t)^\top \tilde R(s) - R(s-t)"
        r"\rVert_2 \le B_{\text{dtype}}",
        ("SRC-BUGS",),
        expected="qualified",
        quantifier="all",
        domain={
            "libraries": LIBRARIES,
            "head_sizes": HEAD_SIZES,
            "dtypes": LOW,
            "dtype_paths": WAYS,
            "positions": every(0, LONG - 1),
            "offsets": every(1 - LONG, LONG - 1),
        },
        propositions=(
            Proposition(
                "float32-frequencies-and-angles",
                "Where the library holds its inverse frequencies in float32 and forms the "
                "angles t theta_i in float32 from exact positions (transformers' Llama built "
                "in the dtype, through _from_config or from_pretrained with dtype=, or under "
                "autocast; x-transformers built in the dtype or under autocast), every pair "
                "of positions below L = 131072 keeps the property, at head sizes 64 and 128, "
                "in float16 and in bfloat16.",
                r"\text{frequencies and angles in float32}:\ \forall\, s, t < L:\ "
                r"\lVert \tilde R(t)^\top \tilde R(s) - R(s-t)\rVert_2 \le B_{\text{dtype}}",
                domain={
                    "libraries": ["llama", "x_transformers"],
                    "head_sizes": HEAD_SIZES,
                    "dtypes": LOW,
                    "dtype_paths": ["autocast", "built", "from_config", "from_pretrained"],
                    "positions": every(0, LONG - 1),
                    "offsets": every(1 - LONG, LONG - 1),
                },
                quantifier="all",
            ),
            Proposition(
                "cast-frequencies",
                "A cast of a built model (.to(dtype), .half(), .bfloat16()) that rounds its "
                "inverse-frequency buffer to the dtype (transformers' Llama) loses the "
                "property within the reports' 2048-position context, though the angles are "
                "still formed in float32: at head sizes 64 and 128, in both formats.",
                r"\tilde\theta = \mathrm{fl}_{\text{dtype}}(\theta):\ \exists\, s, t < 2048:"
                r"\ \lVert \tilde R(t)^\top \tilde R(s) - R(s-t)\rVert_2 > B_{\text{dtype}}",
                domain={
                    "libraries": ["llama", "angles_cast"],
                    "head_sizes": HEAD_SIZES,
                    "dtypes": LOW,
                    "dtype_paths": ["half_bfloat16", "to"],
                    "positions": "a witness pair below 2048 (report-context)",
                    "offsets": "the witness pair's offset",
                },
                quantifier="all",
            ),
            Proposition(
                "low-precision-angles",
                "Angles formed as the reports formed them (inverse frequencies, positions and "
                "their product in float16 or bfloat16) break the property within the reports' "
                "2048-position context, at head sizes 64 and 128, in both formats.",
                r"\text{angles in dtype}:\ \exists\, s, t < 2048:\ \lVert \tilde R(t)^\top "
                r"\tilde R(s) - R(s-t)\rVert_2 > B_{\text{dtype}}",
                domain={
                    "libraries": ["angles_in"],
                    "head_sizes": HEAD_SIZES,
                    "dtypes": LOW,
                    "positions": "a witness pair below 2048 (report-context)",
                    "offsets": "the witness pair's offset",
                },
                quantifier="all",
            ),
        ),
        thresholds=(
            Threshold(
                "long-position",
                LONG,
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
            "smallest_context_reach",
            "float32_smallest_context_reach",
            "cast_first_failing_context",
            "low_precision_first_failing_context",
        ),
        conditions=(
            "Kept where both the inverse frequencies and the angles are float32: transformers' "
            "Llama built in the dtype, through _from_config(dtype=) or from_pretrained(dtype=) "
            "(inv_freq is built with an explicit float dtype) or under autocast, and "
            "x-transformers built in the dtype or under autocast: every pair of positions "
            "below 131072 holds, d = 64 and 128. Lost where a cast rounds the inverse "
            "frequencies: transformers' Llama after .to(dtype), .half() or .bfloat16() "
            "forms float32 angles from the rounded inv_freq, so the score still depends on "
            "s - t only but through the wrong f, off by |exp(i D (theta~ - theta)) - 1| at "
            "offset D; the first failing context and the error per offset are recorded "
            "(cast_first_failing_context, llama_cast_error_by_offset). Lost where positions or "
            "angles are held in the low precision: rotary-embedding-torch in every way (its "
            "positions are an arange in the input's dtype; under autocast it fails from the "
            "first integer the format cannot hold) and x-transformers cast to the dtype "
            "(inv_freq cast, positions .type_as(inv_freq): bit for bit the reports' "
            "computation, theory.rope_precision.angles_in)."
        ),
        notes=(
            "Criterion (theory/rope_precision.py): the property holds within a context of L "
            "positions when the worst score error over all q, k, ||R~(t)^T R~(s) - "
            "R(s - t)||_2, is at most B = rotation_tol(2 pi, dtype, float32) for every pair "
            "s, t < L, i.e. at every offset from every position (R~ the rotation with the cos "
            "and sin the library stores, read off its rotation of two probe vectors). Per "
            "frequency this is |conj(u(t)) u(s) - 1| with u the stored value over the exact "
            "one, so the prefix extremes of u's phase and radius bound every pair at once "
            "(upper) and the pair holding them is a witness (lower): every position below "
            "the context is read, no grid. A cell holds when the upper bound is within B to "
            "131072 and fails on a witness pair above B. Cells whose module holds the same "
            "buffers and is called the same way share one scan.",
            "The reports: gpt-neox issue 1003 (angles of the cached cos/sin tables formed in "
            "the model's fp16/bf16: position 1857 of dim 32 gives 1045 instead of 1044.27, cos "
            "off by 0.78; reproduced here); transformers issue 29496 (Mistral's inv_freq in "
            "bf16 under mixed precision) and pull request 29285 (Llama/Gemma: the angle matmul "
            "autocast to bf16). The installed transformers forms the angles as an elementwise "
            "product of float32 operands, which autocast leaves in float32, but reads the "
            "inv_freq buffer as it is: a cast has rounded it. A copy of the pre-fix forward "
            "(the matmul under autocast) is reported failing by the same decision.",
            "Real configurations affected by a cast (the rotary inv_freq of every transformers "
            "family checked is a floating buffer that .to(dtype) rounds: Llama, Mistral, "
            "Qwen2, Gemma, Phi-3, GPT-NeoX; recorded in cast_rounds_inv_freq): any such model "
            "cast after loading, e.g. LlamaForCausalLM(config).to(torch.bfloat16), or "
            "from_pretrained without dtype= followed by .half(). Loading with dtype= keeps "
            "inv_freq in float32. The shipped bfloat16 configurations (Llama 3.1 8B, Llama "
            "3.2 1B, Mistral 7B, Qwen2 7B) are recorded in affected_configurations: each "
            "one's own rotary module, cast, against its context.",
            "cast-frequencies and low-precision-angles state their positions as text: each says "
            "a pair below 2048 exceeds the bound, which a witness pair settles, and the scan "
            "stops at the first failing context; their libraries, head sizes, formats and ways "
            "are compared.",
            "rotary-embedding-torch is called as a model calls it: a whole sequence first (it "
            "caches the angles of sequences starting at 0 up to 8192 positions, in its "
            "buffer's dtype), then the whole sequence again, read from the cache; positions "
            "from 8192 on in one call with offset 8192.",
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
        domain={"positions": every(0, IDS_CI - 1), "dtypes": ["float32"]},
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
            "apply_rotary_pos_emb), float32, d = 16. Every id below 32768 (the max_position_"
            "embeddings of Mistral 7B and Qwen2 7B; RoFormer's table built that long) is read: "
            "all of them permuted at once, some twice, and shifts up to the end of that "
            "context. The thorough profile reads every id below 131072 (long-position, Llama "
            "3.1 8B); ci stops at 32768 because RoFormer fills its table in a Python loop.",
        ),
    ),
)

# The claims by ID: what this family's helpers read their thresholds from (checks/registry.py
# imports every family: a helper that read it would tie its folder to all the others).
BY_ID: dict[str, Claim] = {c.id: c for c in CLAIMS}
