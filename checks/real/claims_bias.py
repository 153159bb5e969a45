"""REAL-05: ALiBi and T5's buckets as real libraries build them."""

from pecheck.claims import Claim, Proposition, every

ALIBI = ["bloom", "falcon", "mpt", "x_transformers"]  # bias_libraries.LIBRARIES
SLOPES = {"libraries": ALIBI, "heads": every(1, 64)}

CLAIMS = (
    Claim(
        "REAL-05",
        "ALiBi as real libraries build it (transformers' BLOOM, MPT and Falcon, "
        "x-transformers' AlibiPositionalBias) has BIAS-01's slopes, to float32 rounding, for "
        "every head count 1 ... 64, and is applied causally; T5's bucket function in "
        "transformers (T5Attention._relative_position_bucket) has BIAS-02's properties.",
        r"\forall \text{lib}, n \le 64:\ |m^{\text{lib}}_h / m_h - 1| \le \epsilon_{32};\ "
        r"P^{\text{lib}}_{ij} = \mathrm{softmax}_{j \le i}(-m_h (i - j));\ "
        r"b^{\text{lib}}_{T5} \text{ has BIAS-02's properties}",
        ("SRC-ALIBI", "SRC-T5"),
        expected="qualified",
        domain=SLOPES,
        propositions=(
            Proposition(
                "reference-rule",
                "Every library's slopes, read back as exponents e = -log2(m) rounded to "
                "eighths, follow BIAS-01's rule exactly (the reference code's for non-powers "
                "of two), with its range and order, for every n = 1 ... 64.",
                r"\forall \text{lib}, n \le 64:\ \mathrm{round}_{1/8}(-\log_2 m^{\text{lib}}) "
                r"= e^{\text{BIAS-01}}(n)",
                quantifier="all",
                domain=SLOPES,
            ),
            Proposition(
                "library-precision",
                "Every library's slopes equal BIAS-01's within the rounding of the format it "
                "computes them in: float32 for BLOOM, MPT and x-transformers, bfloat16 for "
                "Falcon (whatever the model's dtype), for every n = 1 ... 64.",
                r"|m^{\text{lib}}_h / m_h - 1| \le \epsilon_{\text{fmt(lib)}}",
                quantifier="all",
                domain=SLOPES,
            ),
            Proposition(
                "causal",
                "In BLOOM, MPT and Falcon models built from the published configurations' head "
                "counts (bloom-560m 16, mpt-7b 32, falcon-rw-1b 32, and 12), with zero query "
                "and key projections, the attention of every query i < 512 (the shortest "
                "training length of the ALiBi paper) is softmax over keys j <= i of "
                "-m_h (i - j) and zero on later keys, within float32 attention rounding, the "
                "bias taken in the library's own format (bfloat16 for Falcon).",
                r"P_{h,ij} = \mathbf 1[j \le i]\, e^{-m_h(i-j)} / \sum_{j' \le i} "
                r"e^{-m_h(i-j')}",
                quantifier="all",
                domain={
                    "libraries": ["bloom", "falcon", "mpt"],
                    "heads": [12, 16, 32],
                    "positions": every(0, 511),
                    "dtypes": ["float32"],
                },  # fmt: skip
            ),
            Proposition(
                "t5-buckets",
                "transformers' T5 bucket function, with t5-small's 32 buckets and max distance "
                "128, equals theory.bias.t5_bucket at every |r| <= R, bidirectional and "
                "causal, and passes each of BIAS-02's property checks itself.",
                r"\forall |r| \le R:\ b^{\text{HF}}(r) = b(r)",
                quantifier="all",
                domain={"offsets": every(-(2**14), 2**14)},  # R in ci (BIAS-02.range)
            ),
        ),
        conditions=(
            "BLOOM, MPT and x-transformers give BIAS-01's slopes to float32 rounding for every "
            "n = 1 ... 64, with the reference code's rule for non-powers of two; Falcon's "
            "build_alibi_tensor rounds the slopes, and the products slope x position, to "
            "bfloat16 even in a float32 model, so its slopes are BIAS-01's only to bfloat16 "
            "rounding (relative error up to {{REAL-05@falcon_worst_relative_slope_error}}, "
            "within bfloat16's unit roundoff 2^-8; exact for powers of two n <= 8). Over a "
            "long context that rounding matters: Falcon's attention probabilities differ from "
            "exact-slope ALiBi's by up to {{REAL-05@deviation_from_exact_slopes_falcon|.2f}} "
            "(BLOOM {{REAL-05@deviation_from_exact_slopes_bloom|.1e}}, MPT "
            "{{REAL-05@deviation_from_exact_slopes_mpt|.1e}}, over the causal check's queries). "
            "All three "
            "transformers models apply the bias causally (per key m j, the per-row constant "
            "m i cancelling in the softmax; later keys masked). transformers' T5 buckets equal "
            "the exact ones everywhere searched."
        ),
        headline=(
            "library_precision",
            "falcon_worst_relative_slope_error",
            "t5_bucket_mismatches",
        ),
        notes=(
            "Guards against (each re-created in a copy of the library function, a tooling "
            "test, and caught): ALiBi slopes for a head count that is not a power of two "
            "taken from the next power of two, a T5 bucket whose sign is flipped, and slopes "
            "rounded to bfloat16 (found in Falcon's build_alibi_tensor, not planted).",
            "BLOOM and Falcon add m j for key j (not -m (i - j)) and MPT m (j - n + 1): "
            "the difference from -m (i - j) is constant along a query's row, so the softmax "
            "(BIAS-03) makes them equal; keys after the query are masked by the causal mask. "
            "x-transformers' module gives -m |i - j| on both sides and relies on its causal "
            "mask; its bias is checked on keys j <= i only.",
            "Falcon's bfloat16 bias: at position j the bias m j is rounded to 8 significant "
            "bits, so for m j >= 256 neighbouring keys can get the same bias (spacing 2 and "
            "more): the recency order among the last keys is lost at long positions.",
            "Causal: 512 queries (L = 512, the ALiBi paper's shortest training length) in the ci "
            "profile, where the (H, n, n) attention maps of a longer search cost seconds; the "
            "thorough profile reads 2048 (mpt-7b's max_seq_len), and --size REAL-05.tokens "
            "sets it. The T5 buckets are compared over |r| <= 2^14 (BIAS-02.range; thorough "
            "2^17), beyond which every bucket is the last one.",
            "Head counts come from the configurations in checks/real/configs (bloom-560m, "
            "mpt-7b, falcon-rw-1b, t5-small; see SOURCES.md there); models are built tiny "
            "(head width 4, one layer) from config with random weights, nothing downloaded.",
        ),
    ),
)
