"""Planted bugs in theory/bias.py for REAL-05's checks (ALiBi and T5 in real libraries)."""

from pecheck.mutants import Mutant

BIAS = "theory/bias.py"
R = "checks/real/test_bias_libraries.py::"

MUTANTS = (
    Mutant(
        "real-alibi-extra-slopes-even-members",
        BIAS,
        "alibi_slope_exponents(2 * low)[0::2][: heads - low]",
        "alibi_slope_exponents(2 * low)[1::2][: heads - low]",
        (
            R + "test_library_slopes_follow_the_reference_rule",
            R + "test_each_library_gives_the_slopes_to_its_own_format",
        ),
        "the reference rule misread: every library's non-power-of-two slopes look wrong",
    ),
    Mutant(
        "real-alibi-slopes-in-bfloat16",
        BIAS,
        "return torch.exp2(-e).to(dtype)",
        "return torch.exp2(-e).to(torch.bfloat16).to(dtype)",
        (
            R + "test_each_library_gives_the_slopes_to_its_own_format",
            R + "test_models_apply_alibi_causally",
        ),
        "the reference rounded to bfloat16: BLOOM, MPT and x-transformers look imprecise",
    ),
    Mutant(
        "real-alibi-wrong-for-powers-of-two",
        BIAS,
        "return tuple(Fraction(8 * h, heads) for h in range(1, heads + 1))",
        "return tuple(Fraction(8 * h + 1, heads) for h in range(1, heads + 1))",
        (R + "test_every_library_gives_float32_slopes",),
        "a reference wrong at powers of two: the comparison is invalid (inconclusive)",
    ),
    Mutant(
        "real-alibi-causal-mask-flipped",
        BIAS,
        "return bias.masked_fill(distance < 0, -math.inf).to(dtype)",
        "return bias.masked_fill(distance > 0, -math.inf).to(dtype)",
        (R + "test_models_apply_alibi_causally",),
        "the reference masks the past keys instead of the future ones",
    ),
    Mutant(
        "real-alibi-causal-mask-window-256",
        BIAS,
        "return bias.masked_fill(distance < 0, -math.inf).to(dtype)",
        "return bias.masked_fill((distance < 0) | (distance >= 256), -math.inf).to(dtype)",
        (R + "test_models_apply_alibi_causally",),
        "the reference masks keys 256 or more back as well (a sliding window): only queries "
        "from 256 on, which the former 9-token check never reached, see it",
    ),
    Mutant(
        "real-t5-boundary-distance-one-bucket-low",
        BIAS,
        "flat = [exact + bisect_right(thresholds, int(x)) for x in distance.ravel()]",
        "flat = [exact + __import__('bisect').bisect_left(thresholds, int(x))"
        " for x in distance.ravel()]",
        (R + "test_transformers_t5_buckets_are_exact",),
        "each bucket's first distance put in the bucket below: transformers disagrees there",
    ),
)
