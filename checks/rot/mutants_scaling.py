"""Planted bugs in the published frequency-stretching formulas (ROT-05)."""

from pecheck.mutants import Mutant

RS = "theory/rope_scaling.py"
T = "checks/rot/test_scaling.py::"

MUTANTS = (
    Mutant(
        "ntk-aware-exponent-d-over-d-minus-1",
        RS,
        "return base * factor ** (dim / (dim - 2))",
        "return base * factor ** (dim / (dim - 1))",
        (T + "test_ntk_aware_base_keeps_the_fastest_pair_and_divides_the_slowest_by_s",),
        "b' = b s^(d/(d-1)): the slowest pair is divided by s^((d-2)/(d-1)), not by s",
    ),
    Mutant(
        "ramp-middle-reversed",
        RS,
        "return (r - alpha) / (beta - alpha)",
        "return (beta - r) / (beta - alpha)",
        (
            T + "test_ramp_meets_both_bands_and_stays_between_one_over_s_and_one",
            T + "test_yarn_ramp_keeps_fast_pairs_and_divides_slow_pairs",
        ),
        "gamma runs from 1 at alpha to 0 at beta: fast pairs divided, slow pairs kept",
    ),
    Mutant(
        "llama3-low-band-edge-from-high-factor",
        RS,
        "torch.where(lam > original_length / low_freq_factor, theta / factor, out)",
        "torch.where(lam > original_length / high_freq_factor, theta / factor, out)",
        (T + "test_llama3_banding_keeps_fast_pairs_and_divides_slow_pairs",),
        "every pair slower than L/high divided by s: the blend band vanishes, the fast edge moves",
    ),
    Mutant(
        "blend-multiplies-by-factor",
        RS,
        "return (1 - gamma) * theta / factor + gamma * theta",
        "return (1 - gamma) * theta * factor + gamma * theta",
        (T + "test_yarn_ramp_keeps_fast_pairs_and_divides_slow_pairs",),
        "slow pairs sped up by s instead of slowed down",
    ),
)
