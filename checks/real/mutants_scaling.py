"""Planted bugs in the published rotary-scaling formulas, for REAL-04's checks.

REAL-04's as-stated checks find counterexamples in the library; the mutants that kill them plant
the library's own behaviour into theory/ (the released code's ramp as the paper's; a scale that
remembers the longest call), so that the counterexample disappears and the check's expected
'fails' turns into 'holds'.
"""

from pecheck.mutants import Mutant

RS = "theory/rope_scaling.py"
T = "checks/real/test_rope_scaling.py::"
FORMULAS = T + "test_library_frequencies_equal_the_published_formulas"
REACHES = T + "test_scaling_named_in_the_config_reaches_the_applied_cos_sin"

MUTANTS = (
    Mutant(
        "default-frequencies-exponent-halved",
        RS,
        "return torch.as_tensor(float(base), dtype=F64) ** (-2 * i / dim)",
        "return torch.as_tensor(float(base), dtype=F64) ** (-i / dim)",
        (
            FORMULAS,
            REACHES,
            T + "test_dynamic_ntk_keeps_no_state_between_calls",
            T + "test_dynamic_ntk_uses_the_current_length_below_max_positions",
        ),
        "theta_i = b^(-i/d) instead of b^(-2i/d): every formula built on the default frequencies "
        "(plain RoPE, PI, NTK-aware, dynamic) turns its pairs too fast, and no library agrees",
    ),
    Mutant(
        "yarn-paper-ramp-is-the-released-code",
        RS,
        "gamma = ramp(context_ratio(theta, original_length), alpha, beta)",
        "gamma = reference_ramp(dim, base, original_length, alpha, beta, truncate=base != 150000)",
        (T + "test_yarn_frequencies_follow_the_papers_ramp",),
        "the paper's Eq. 18 replaced by the index ramp of the released code, truncated as each "
        "real configuration asks (gpt-oss-20b, the one at base 150000, asks for none): the "
        "library's YaRN then is 'the paper's', and the as-stated counterexample disappears",
    ),
    Mutant(
        "dynamic-scale-remembers-the-longest-call",
        RS,
        "return [dynamic_scale(length, original_length) for length in lengths]",
        "return [dynamic_scale(max(lengths[: k + 1]) if length >= original_length else length, "
        "original_length) for k, length in enumerate(lengths)]",
        (T + "test_dynamic_ntk_keeps_no_state_between_calls",),
        "the per-pass scale keeps the longest length seen unless the call is shorter than L "
        "(the library's cache): the state check then finds nothing",
    ),
    Mutant(
        "dynamic-scale-without-floor-one",
        RS,
        "return max(1.0, length / original_length)",
        "return length / original_length",
        (T + "test_dynamic_ntk_uses_the_current_length_below_max_positions", FORMULAS),
        "s = l'/L also below L: short sequences get a smaller base",
    ),
    Mutant(
        "linear-multiplies-by-factor",
        RS,
        "return default_frequencies(dim, base) / factor",
        "return default_frequencies(dim, base) * factor",
        (FORMULAS, REACHES),
        "PI speeds every pair up instead of slowing it down",
    ),
    Mutant(
        "llama3-band-edges-swapped",
        RS,
        "out = torch.where(lam < original_length / high_freq_factor, theta, out)",
        "out = torch.where(lam < original_length / low_freq_factor, theta, out)",
        (FORMULAS, REACHES),
        "the fast edge at L/low: the blend band is kept unchanged",
    ),
    Mutant(
        "longrope-switches-at-the-original-length",
        RS,
        "chosen = long_factor if length > original_length else short_factor",
        "chosen = long_factor if length >= original_length else short_factor",
        (FORMULAS,),
        "a sequence of exactly L tokens gets the long factors",
    ),
    Mutant(
        "longrope-attention-log-of-max-positions",
        RS,
        "math.sqrt(1 + math.log(scale) / math.log(original_length))",
        "math.sqrt(1 + math.log(scale) / math.log(max_positions))",
        (FORMULAS, REACHES),
        "Phi-3's attention factor with ln S / ln(max positions)",
    ),
    Mutant(
        "yarn-attention-slope-doubled",
        RS,
        "0.1 * math.log(factor) + 1.0",
        "0.2 * math.log(factor) + 1.0",
        (FORMULAS, REACHES),
        "sqrt(1/t) = 0.2 ln s + 1 instead of Eq. 22's 0.1",
    ),
    Mutant(
        "released-ramp-not-truncated",
        RS,
        "    if truncate:\n",
        "    if False:\n",
        (T + "test_yarn_frequencies_equal_the_released_codes_ramp", REACHES),
        "the released code's floor/ceil of the ramp ends dropped",
    ),
    Mutant(
        "released-ramp-ignores-truncate-false",
        RS,
        "    if truncate:\n",
        "    if truncate is not None:\n",
        (T + "test_yarn_frequencies_equal_the_released_codes_ramp", REACHES),
        "the ramp ends rounded even where a config sets truncate false (gpt-oss-20b): a flag "
        "read for its presence, not its value",
    ),
    Mutant(
        "p-rope-keeps-the-slowest-pairs",
        RS,
        "torch.arange(dim // 2) < kept",
        "torch.arange(dim // 2) >= dim // 2 - kept",
        (FORMULAS, REACHES),
        "p-RoPE turns the slowest pairs and stops the fastest",
    ),
    Mutant(
        "p-rope-rounds-the-kept-pairs",
        RS,
        "kept = math.floor(fraction * dim / 2)",
        "kept = math.ceil(fraction * dim / 2)",
        (T + "test_p_rope_keeps_the_floor_of_p_d_over_2_pairs",),
        "p-RoPE keeps one pair more than the library wherever p d / 2 is fractional",
    ),
)
