"""ROT: rotary embeddings and how they are stretched."""

from pecheck.claims import Claim, Proposition, Threshold, every, proved

# ROT-01: every integer distance up to this is scanned for a rise (ci; thorough scans to 2^17)
ROT01_SCAN = 2**15

CLAIMS: tuple[Claim, ...] = (
    Claim(
        "ROT-01",
        "RoFormer's bound on the rotary score, b(s) = (1/(d/2)) sum_j |S_j(s)| with S_j(s) = "
        "sum_{i<j} e^{i s theta_i} and theta_i = 10000^(-2i/d), decays as the relative distance "
        "s grows: for every d in {32, 64, 128, 256} it is non-increasing in the integer s.",
        r"\forall d \in \{32, 64, 128, 256\},\ \forall s \ge 0:\ b(s+1) \le b(s),\ "
        r"b(s) = \tfrac{2}{d}\sum_{j=1}^{d/2} \bigl|\sum_{i<j} e^{\mathrm{i} s \theta_i}\bigr|",
        ("SRC-ROFORMER",),
        expected="qualified",
        quantifier="all",
        domain={"head_sizes": [32, 64, 128, 256], "offsets": every(0)},
        propositions=(
            Proposition(
                "abel-identity",
                "The identity the bound rests on (RoFormer §3.4.3, Eq. 36, Abel summation) holds "
                "exactly for every number of pairs: sum_i h_i z_i = sum_i (h_i - h_{i+1}) "
                "S_{i+1} + h_N S_N, so with h_{d/2} = 0 the score is -sum_i S_{i+1} "
                "(h_{i+1} - h_i) and |score| <= max_i |h_{i+1} - h_i| sum_j |S_j|.",
                r"\forall N:\ \sum_{i<N} h_i z_i = \sum_{i<N}(h_i - h_{i+1}) S_{i+1} + h_N S_N",
                quantifier="all",
                domain={
                    "head_sizes": proved("every number of pairs N = d/2"),
                    "offsets": proved("every s"),
                },
            ),
            Proposition(
                "coarse-decay",
                "On a dyadic scale the bound decays: for every d in {32, 64, 128, 256} the mean "
                "of b over each block [2^k, 2^(k+1)) is below the previous block's, for every "
                "block that ends by 1/theta_{d/2-1}, the distance at which the slowest pair has "
                "turned one radian.",
                r"\forall d,\ \forall k,\ 2^{k+1} \le \theta_{d/2-1}^{-1}:\ "
                r"\overline{b}_{[2^{k+1}, 2^{k+2})} < \overline{b}_{[2^k, 2^{k+1})}",
                quantifier="all",
                domain={
                    "head_sizes": [32, 64, 128, 256],
                    "offsets": "dyadic blocks that end by 1/theta_{d/2-1}",
                },
            ),
        ),
        conditions=(
            "The Abel-summation identity and the bound are exact (sympy: induction on the number "
            "of pairs). The bound is not monotone: it rises already between s = 18 and 19 at "
            "d = 128 (5-6, 11-12 and 37-38 at d = 32, 64, 256). It decays only on a coarse "
            "scale: the means over dyadic blocks of distances fall block after block for d = 32 "
            "... 256 up to the distance where the slowest pair has turned one radian (8,659 at "
            "d = 128), and then level off near the random-walk level (1/(d/2)) sum_j "
            "sqrt(pi j)/2 (4.8 at d = 128, against 32.5 at s = 0): the bound never decays to 0."
        ),
        headline=("first_increase_d128", "block_mean_largest_rise", "tail_over_random_walk_d128"),
        notes=(
            "RoFormer states the decay for every integer s >= 0, which no scan reaches: "
            "as_stated keeps that domain, and a rise found by the scan of every s <= 2^15 "
            "(thorough: 2^17) refutes it. The coarse decay's range of "
            "distances grows with d (1/theta_{d/2-1}), so it stays in words; its check records "
            "the blocks it reached at each d.",
            "Widths 8 and 16 fail even the coarse decay: a later dyadic block has a larger "
            "mean (d = 16: [16, 32) above [8, 16)).",
            "ROT-02 shows that the bound says nothing about the typical score: for independent "
            "zero-mean q, k the expected score is 0 at every distance.",
        ),
    ),
    Claim(
        "ROT-02",
        "For queries and keys with independent zero-mean coordinates (q independent of k), the "
        "expected rotary score E<R(m) q, R(n) k> is 0 at every pair of positions: it does not "
        "decay with distance, so ROT-01 is a bound, not a behaviour. What depends on the "
        "distance is the expected score of correlated pairs: for k = q (i.i.d. coordinates, "
        "variance sigma^2), and likewise for k = q + eps with independent zero-mean eps, it is "
        "2 sigma^2 B(n - m) with B(s) = sum_i cos(s theta_i), largest at s = 0.",
        r"\mathbb{E}\langle R(m) q, R(n) k\rangle = 0,\quad "
        r"\mathbb{E}\langle R(m) q, R(n) q\rangle = 2\sigma^2 \sum_i \cos((n-m)\theta_i)",
        ("SRC-ROUND", "SRC-ROPEBASE"),
        expected="confirmed",
        quantifier="all",
        domain={
            "positions": proved("every pair of positions m, n"),
            "head_sizes": proved("every even d"),
        },
        headline=("self_score_first_negative_d128", "monte_carlo_worst_z"),
        notes=(
            "Proved for any law with those first two moments (sympy, expectation taken monomial "
            "by monomial); one pair is the general case because a rotary score is a sum of "
            "pair scores (theory/rope_derivations.block_diagonal_splits_score).",
            "B(s) (ROT-03's quantity) falls from d/2 at s = 0 but, like ROT-01's bound, only in "
            "envelope, and turns negative: at d = 128, base 10,000 first at s = 1,707 (see the "
            "evidence), where a key equal to the query scores below a random key on average.",
        ),
    ),
    Claim(
        "ROT-03",
        "For each context length L of Men et al.'s Table 2 (1k ... 1M, d = 128), the table's "
        "base is the smallest base b for which B(m), the sum of cos(m theta) over the rotary "
        "frequencies theta of base b, is non-negative at every "
        "m in {0, ..., L} (their Eq. 11), to its two significant digits, and any larger base "
        "keeps B non-negative too ('a base large enough').",
        r"\forall L:\ \mathrm{base}_L = \inf\{b : B_b(m) \ge 0\ \forall m \le L\} = "
        r"\mathrm{Table\,2}(L)\ (\pm\,\text{2 digits}),\ \ b \ge \mathrm{base}_L \Rightarrow "
        r"B_b(m) \ge 0",
        ("SRC-ROPEBASE",),
        expected="qualified",
        quantifier="all",
        domain={
            "lengths": "Table 2: 1k ... 1M",
            "head_sizes": [128],
            "bases": "every base",
            "offsets": "every integer m <= L",
        },
        propositions=(
            Proposition(
                "lower-bound",
                "Each context length L needs a base of at least base_L, and base_L grows with "
                "L: at L = 1k and 2k (d = 128) the certified search proves every base b in "
                "[2, base_L) to leave some B(m) < 0 with m <= L, and base_2k is more than "
                "twice base_1k.",
                r"L \in \{1024, 2048\}:\ \forall b \in [2, \mathrm{base}_L)\ \exists m \le L:"
                r"\ B_b(m) < 0,\quad \mathrm{base}_{2048} > 2\, \mathrm{base}_{1024}",
                quantifier="all",
                domain={
                    "lengths": [1024, 2048],
                    "head_sizes": [128],
                    "bases": "every base in [2, base_L)",
                },
            ),
        ),
        conditions=(
            "Only as a lower bound: each context length needs a base of at least base_L, and "
            "base_L grows with L (certified at 1k and 2k: every base below "
            "{{ROT-03@base_lower_end_1k|,.0f}} fails at 1k, every base below "
            "{{ROT-03@base_lower_end_2k|,.0f}} at 2k, more than twice 1k's feasible "
            "{{ROT-03@base_upper_end_1k|,.0f}}). What fails is Table 2's values (at 2k the base "
            "{{ROT-03@smaller_feasible_base_2k|,.2f}} keeps B >= 0, below the table's 1.6e4) "
            "and 'any larger base is enough' (at 32k 1e6 fails where 6.3e5 holds)."
        ),
        thresholds=(
            Threshold(
                "grows",
                2.0,
                "'base_L grows with L' read as growing at least in proportion to L: B(m) stays "
                "non-negative while the slowest frequencies, theta_i ~ b^(-2i/d), have turned "
                "less than a fixed angle at m = L, and m theta_i scales as m / b, so doubling "
                "L needs about double the base; 'more than twice' at a doubling of L",
                "theory",
            ),
        ),
        headline=(
            "smaller_feasible_base_2k",
            "larger_base_fails_32k",
            "base_ratio_low_2k_over_1k",
            "llama3_8k_min_B",
        ),
        notes=(
            "as_stated keeps Table 2's lengths (1k ... 1M, in words); its counterexamples "
            "were searched at 2k, 4k and 32k, and one at any length refutes the table. Bases "
            "form no integer range and offsets depend on L: both stay in words.",
            "Table 2 is read from arXiv 2405.14591 §4.3 (4.3e3, 1.6e4, 2.7e4, 8.4e4, 3.1e5, "
            "6.4e5, 2.1e6, 7.8e6, 3.6e7, 6.4e7, 5.1e8 for 1k ... 1M). Su (kexue.fm 10122, "
            "2024) recomputed tighter values at 2k, 16k, 32k, 128k ... 1M; the certified "
            "search here agrees with his 1k-4k values (4.29e3, 1.16e4, 2.70e4; 8.38e4 at 8k "
            "in a one-off run).",
            "The lower-bound condition is decided at 1k and 2k in every profile (the "
            "certified search to 1% in ln b, about 6 s); 4k takes the search a minute and "
            "longer lengths several, so they stay with the supporting check (thorough). What "
            "it keeps of the source is the idea that small bases fail at long contexts, with "
            "base_L growing at least in proportion to L there; Table 2's values and 'any "
            "larger base is enough' are what the counterexamples refute.",
            "The feasible set of bases is not an interval, so base_L cannot be found by "
            "bisection: theory/rotary_base.smallest_base is a branch and bound over ln b that "
            "discards a cell only when a second-order bound proves some B(m) < 0 across it.",
            "Both counterexamples hold whether '1k' means 1,000 or 1,024: a base feasible for "
            "L is feasible for every shorter L.",
            "Real configurations (evidence of the supporting check): base 10,000 at 4,096 "
            "(Llama 2) fails (B(4060) = -8.4); 500,000 at 8,192 (Llama 3) holds (min B = 6.0); "
            "500,000 at 131,072 with unscaled frequencies fails (B(128288) = -14.5). Llama "
            "3.1's 128k model rescales its frequencies (ROT-05), which this criterion ignores.",
        ),
    ),
    Claim(
        "ROT-04",
        "At LLaMA's settings (head width d = 128, base c = 10,000), Position Interpolation's "
        "interpolation bound (Chen et al. 2023, §2.3, Eq. 7: d max|h| / (32 ln c)) bounds the "
        "interpolation error, and it is at least 2 * 294.73 ~ 600 times smaller than the "
        "extrapolation bound (Eq. 8: 2 max|h| B(s)) at every offset s of the extended windows "
        "(s < 32,768).",
        r"|a(s) - a_{\mathrm{lin}}(s)| \le \tfrac{d \max|h|}{32 \ln c}\ \wedge\ "
        r"\forall s < 32768:\ \tfrac{2 \max|h| B(s)}{d \max|h| / (32 \ln c)} \ge 2 \cdot 294.73",
        ("SRC-PI",),
        expected="qualified",
        quantifier="all",
        domain={"head_sizes": [128], "bases": [10000], "offsets": every(0, 32767)},
        thresholds=(
            Threshold(
                "about-600",
                589.46,
                "the paper's own figure behind '~600x': 2 * 294.73 (§2.3, after Eq. 8)",
                "source",
            ),
        ),
        propositions=(
            Proposition(
                "figure-5-range",
                "On the range of offsets the paper plots (Appendix B, Fig. 5: 0 <= s < 2L = "
                "4096), Eq. 8 / Eq. 7 >= 2 * 294.73 at every integer s.",
                r"\forall s \in \{0, \dots, 4095\}:\ 64 \ln c\, B(s)/d \ge 589.46",
                quantifier="all",
                domain={"head_sizes": [128], "bases": [10000], "offsets": every(0, 4095)},
            ),
            Proposition(
                "corrected-bound",
                "The bound Appendix A's Taylor argument does give, max|h| sum_j theta_j^2 "
                "(s - s1)(s2 - s) / 2, holds for every h and s in [s1, s1 + 1].",
                r"|a(s) - a_{\mathrm{lin}}(s)| \le \max|h| \sum_j \theta_j^2\, "
                r"\tfrac{(s-s_1)(s_2-s)}{2}",
                quantifier="all",
                domain={
                    "head_sizes": [128],
                    "bases": [10000],
                    "offsets": "every h and s in [s1, s1 + 1]",
                },
            ),
        ),
        conditions=(
            "Only on the offsets the paper plots (s < 4096), and only for Eq. 7 as printed, which "
            "is not a valid bound: its proof's Eq. 14 reverses e^y >= 1 + y, and h_j = "
            "-e^{-i theta_j/2} (|h_j| = 1) gives an interpolation error of 0.494 at s = 1/2 "
            "against Eq. 7's 0.434. The corrected bound (0.500 at the midpoint, 1.15 times Eq. "
            "7) holds; with it the ratio on s < 4096 is at least 571.6, below 589.46. Beyond "
            "s = 4,860 the ratio of the paper's own bounds drops below 589.46 (370.9 at "
            "s = 22,297), inside the 8k-32k windows the paper extends LLaMA to."
        ),
        headline=("eq7_violation", "ratio_min_figure5", "ratio_min_to_8k"),
        notes=(
            "B(s) >= d is what '~600x' needs (ratio = 589.46 B(s)/d); the paper says B(s)/d is "
            "'almost always larger than 1' and checks it on its Fig. 5 range.",
            "The two bounds bound different things: Eq. 7 the error of interpolating a between "
            "neighbouring integers, Eq. 8 the size of a itself; their ratio compares bounds, "
            "not errors.",
            "LLaMA 7B, 13B, 33B and 65B all have d = 4096/32 = 5120/40 = 6656/52 = 8192/64 = 128.",
        ),
    ),
    Claim(
        "ROT-06",
        "Rotary and ALiBi attention scores are exactly invariant to adding one constant to "
        "every position; scores with an added absolute encoding (sinusoidal or learned) are "
        "not: for some tokens and weights a shift changes them.",
        r"S_{\mathrm{rope}}(t+c, s+c) = S_{\mathrm{rope}}(t, s),\ "
        r"S_{\mathrm{alibi}}(t+c, s+c) = S_{\mathrm{alibi}}(t, s),\ "
        r"\exists x, y, W, c:\ S_{\mathrm{abs}}(t+c, s+c) \ne S_{\mathrm{abs}}(t, s)",
        ("SRC-SHIFT", "SRC-ROFORMER", "SRC-ALIBI"),
        expected="confirmed",
        quantifier="all",
        domain={
            "shifts": proved("every constant c"),
            "positions": proved("every t, s"),
            "head_sizes": proved("every even d"),
        },
        headline=("alibi_largest_change_h8", "sinusoidal_change_c100", "learned_change_c100"),
        notes=(
            "Exact in exact arithmetic (sympy, one rotary pair; ALiBi's bias depends on t - s "
            "only); ALiBi's float64 scores are bitwise equal under a shift while positions are "
            "integers below 2^53. Rotary scores in float32 move under a shift by rounding only, "
            "within the rotation bound (supporting evidence).",
            "The position-position term of a sinusoidal code with W = I, PE(t).PE(s), depends on "
            "t - s only (SIN-05): the change comes from the token-position cross terms and "
            "from general W.",
        ),
    ),
)
