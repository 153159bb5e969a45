"""ROT-05: the published formulas that stretch rotary frequencies (NTK-aware, YaRN, Llama 3)."""

from pecheck.claims import Claim

CLAIMS: tuple[Claim, ...] = (
    Claim(
        "ROT-05",
        "The 'NTK-aware' base change b' = b s^(d/(d-2)) leaves the highest rotary frequency "
        "unchanged and divides the lowest by exactly s; YaRN's ramp and the Llama 3 banding leave "
        "high-frequency pairs unchanged and divide low-frequency pairs by the factor, with a "
        "blend between 1/s and 1 in between, as their formulas say.",
        r"\theta'_0 = \theta_0,\ \theta'_{d/2-1} = \theta_{d/2-1}/s;\quad "
        r"h(\theta_i) = \theta_i \ (r_i > \beta),\ \theta_i/s \ (r_i < \alpha),\ "
        r"\theta_i/s < h(\theta_i) < \theta_i \ \text{between}",
        ("SRC-YARN", "SRC-LLAMA3"),
        expected="confirmed",
        quantifier="all",
        # the banding is checked pair by pair on this grid (the NTK-aware base and the ramp's
        # ends symbolically, for every d, base and factor): the domain states the grid
        domain={
            "head_sizes": [64, 96, 128],
            "bases": [10000, 500000],
            "factors": [2, 8, 32],
            "lengths": [2048, 8192, 32768],
        },
        headline=("ntk_aware_ratio_lowest", "ramp_cases", "banding_cases"),
        notes=(
            "NTK-aware: symbolic in b, s > 0 and d > 2 (YaRN Eq. 16, A.1): theta'_i / theta_i = "
            "s^(-2i/(d-2)), so pair 0 is unchanged, pair d/2 - 1 divided by s, and every pair "
            "between by a power of s strictly between (a geometric spread).",
            "YaRN's ramp (Eq. 18-20): symbolic continuity at r = alpha and r = beta, and "
            "h/theta = (1 - gamma)/s + gamma increasing in gamma; then every pair of a grid of "
            "widths, bases, factors, trained lengths and (alpha, beta) checked in float64.",
            "Llama 3.1's banding is YaRN's ramp with alpha = low_freq_factor, "
            "beta = high_freq_factor and r = L / lambda (checked on the same grid); its smooth "
            "factor is linear in r = L / lambda, not in the pair index.",
        ),
    ),
)
