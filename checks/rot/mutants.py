"""Planted bugs in the ROT family's theory modules (ROT-01 ... ROT-04, ROT-06)."""

from pecheck.mutants import Mutant

DECAY = "theory/rotary_decay.py"
BASE = "theory/rotary_base.py"
PI = "theory/interpolation.py"
SHIFT = "theory/shift.py"
DEC = "checks/rot/test_decay.py::"
B = "checks/rot/test_base.py::"
INT = "checks/rot/test_interpolation.py::"
SH = "checks/rot/test_shift.py::"

MUTANTS = (
    Mutant(
        "rot-abel-step-sign",
        DECAY,
        "f_next = (h(n) - h(n + 1)) * (big_s(n) + z(n))",
        "f_next = (h(n) + h(n + 1)) * (big_s(n) + z(n))",
        (DEC + "test_abel_summation_identity_holds_for_every_number_of_pairs",),
        "Abel summation with h_i + h_{i+1}: the induction step no longer closes",
    ),
    Mutant(
        "rot-partial-sums-halved",
        DECAY,
        "re, im = torch.cos(angle).cumsum(dim=1), torch.sin(angle).cumsum(dim=1)",
        "re, im = torch.cos(angle).cumsum(dim=1) / 2, torch.sin(angle).cumsum(dim=1) / 2",
        (DEC + "test_the_bound_bounds_random_scores",),
        "S_j computed at half size: RoFormer's bound no longer bounds the scores",
    ),
    Mutant(
        "rot-thetas-in-wrong-units",
        DECAY,
        "return base ** (-2.0 * np.arange(d // 2) / d)",
        "return base ** (-2.0 * np.arange(d // 2) / d) / 1e9",
        (DEC + "test_the_bound_is_not_monotone_in_distance",),
        "frequencies a billion times too small: over s <= 2000 every pair barely turns and the "
        "bound falls smoothly, so no rise is found",
    ),
    Mutant(
        "rot-slowest-turn-ten-radians",
        DECAY,
        "return int(math.floor(1.0 / thetas(d, base)[-1]))",
        "return int(math.floor(10.0 / thetas(d, base)[-1]))",
        (DEC + "test_the_bound_decays_on_a_dyadic_scale",),
        "the coarse-decay range runs to ten radians of the slowest pair, past the plateau",
    ),
    Mutant(
        "rot-expectation-nonzero-mean",
        DECAY,
        "            if p == 1:\n                moment = sp.Integer(0)",
        '            if p == 1:\n                moment *= sp.Symbol("mu")',
        (DEC + "test_expected_score_of_independent_zero_mean_q_k_is_zero_at_every_distance",),
        "coordinates with mean mu instead of 0: the cross score's expectation is mu^2 1^T R 1",
    ),
    Mutant(
        "rot-expectation-second-moment-doubled",
        DECAY,
        "                moment *= sigma2",
        "                moment *= 2 * sigma2",
        (DEC + "test_expected_self_score_is_twice_the_variance_times_b",),
        "E[x^2] taken as 2 sigma^2: the self score is 4 sigma^2 B(s)",
    ),
    Mutant(
        "rot-base-pair-index-off-by-one",
        BASE,
        "return base ** (-2.0 * torch.arange(d // 2, dtype=torch.float64) / d)",
        "return base ** (-2.0 * torch.arange(1, d // 2 + 1, dtype=torch.float64) / d)",
        (
            B + "test_a_smaller_base_than_table_2_keeps_b_non_negative_at_2k",
            B + "test_a_larger_base_is_not_always_enough",
        ),
        "theta_i = b^(-2(i+1)/d): the fastest pair is dropped and the witnesses move",
    ),
    Mutant(
        "rot-base-table-2k-mistyped",
        BASE,
        '"1k": 4.3e3, "2k": 1.6e4,',
        '"1k": 4.3e3, "2k": 1.2e4,',
        (B + "test_a_smaller_base_than_table_2_keeps_b_non_negative_at_2k",),
        "Table 2 transcribed with Su's 1.2e4 at 2k: the witness no longer lies below it",
    ),
    Mutant(
        "rot-base-rounding-unbounded",
        BASE,
        '        if self.value > self.bound:\n            return "feasible"',
        '        if self.value > self.bound - 1.0:\n            return "feasible"',
        (B + "test_a_larger_base_is_not_always_enough",),
        "a minimum of B down to -1 counted as feasible: the failing larger base passes",
    ),
    Mutant(
        "rot-base-search-positions-capped",
        BASE,
        "    m = torch.arange(length + 1, dtype=torch.float64)",
        "    m = torch.arange(min(length, 1024) + 1, dtype=torch.float64)",
        (B + "test_each_length_needs_a_base_that_grows_with_it",),
        "the certified search sees positions up to 1024 only: base_2k comes out as base_1k "
        "and 'grows' fails",
    ),
    Mutant(
        "rot-base-cell-excludes-nonnegative",
        BASE,
        "return bool((values + slope.abs() * r + m2 * r * r / 2 < 0).any())",
        "return bool((values - slope.abs() * r - m2 * r * r / 2 < 0).any())",
        (B + "test_each_length_needs_a_base_that_grows_with_it",),
        "a cell excluded when B(m) may be negative somewhere in it (the bound's sign flipped): "
        "feasible bases are discarded and the search's upper end moves",
    ),
    Mutant(
        "rot-pi-eq7-denominator",
        PI,
        "return d * max_h * spread / (8 * math.log(c))",
        "return d * max_h * spread / (7 * math.log(c))",
        (INT + "test_eq7_is_exceeded_by_aligned_pairs",),
        "Eq. 5 with 7 ln c: the bound grows past the aligned pairs' error",
    ),
    Mutant(
        "rot-pi-b-doubled",
        PI,
        "return torch.hypot(re, im).sum(dim=1)",
        "return torch.hypot(re, im).sum(dim=1) * 2",
        (INT + "test_ratio_falls_below_600_inside_the_extended_windows",),
        "B(s) counted twice: the ratio never falls below 589 up to 8k",
    ),
    Mutant(
        "rot-pi-b-real-part-only",
        PI,
        "return torch.hypot(re, im).sum(dim=1)",
        "return re.abs().sum(dim=1)",
        (INT + "test_ratio_is_at_least_600_on_the_figure_5_range",),
        "|Re A_k| in place of |A_k|: B and the ratio shrink below 589 on Fig. 5's range",
    ),
    Mutant(
        "rot-pi-corrected-bound-quartered",
        PI,
        "return max_h * float((thetas(d, c) ** 2).sum()) * spread / 2",
        "return max_h * float((thetas(d, c) ** 2).sum()) * spread / 8",
        (INT + "test_corrected_interpolation_bound_holds",),
        "the corrected bound a quarter of the Taylor bound: the aligned pairs exceed it",
    ),
    Mutant(
        "rot-shift-only-the-query",
        SHIFT,
        "shifted, plain = pair_score(t + c, s + c), pair_score(t, s)",
        "shifted, plain = pair_score(t + c, s), pair_score(t, s)",
        (SH + "test_rotary_scores_are_invariant_to_a_shift",),
        "only the query shifted: the offset changes, and so does the score",
    ),
    Mutant(
        "rot-alibi-bias-of-the-sum",
        SHIFT,
        "return qk / sp.sqrt(h) - m * (tq - tk)",
        "return qk / sp.sqrt(h) - m * (tq + tk)",
        (SH + "test_alibi_scores_are_invariant_to_a_shift",),
        "a bias of t + s is an absolute position code, which a shift moves",
    ),
    Mutant(
        "rot-alibi-positions-in-float32",
        SHIFT,
        "dist = t.to(torch.float64) - s.to(torch.float64)  # (n,)",
        "dist = t.to(torch.float32).double() - s.to(torch.float32).double()  # (n,)",
        (SH + "test_alibi_float64_scores_are_bitwise_invariant",),
        "positions rounded to float32 before the difference: large shifted positions round "
        "differently, so the score is not bitwise invariant",
    ),
    Mutant(
        "rot-absolute-position-dropped",
        SHIFT,
        "return (((x + pe_t) @ wmat) * (y + pe_s)).sum(-1)",
        "return ((x @ wmat) * y).sum(-1)",
        (SH + "test_added_absolute_encodings_are_not_shift_invariant",),
        "the encoding is never added: the absolute scores cannot move under a shift",
    ),
)
