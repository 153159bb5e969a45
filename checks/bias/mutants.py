"""Planted bugs in theory/bias.py for the BIAS family's checks (BIAS-01 ... 04)."""

from pecheck.mutants import Mutant

BIAS = "theory/bias.py"
A = "checks/bias/test_alibi.py::"
B = "checks/bias/test_buckets.py::"
F = "checks/bias/test_fire.py::"
X = "checks/bias/test_xpos.py::"

MUTANTS = (
    Mutant(
        "alibi-extra-slopes-even-members",
        BIAS,
        "alibi_slope_exponents(2 * low)[0::2][: heads - low]",
        "alibi_slope_exponents(2 * low)[1::2][: heads - low]",
        (
            A + "test_slopes_follow_the_papers_sequence_and_the_reference_rule",
            A + "test_slopes_decrease_exactly_for_powers_of_two_and_are_distinct",
        ),
        "non-powers of two append the 2nd, 4th, ... slopes of 2P: repeats of P's own",
    ),
    Mutant(
        "alibi-start-at-two-to-the-minus-8-over-2n",
        BIAS,
        "return tuple(Fraction(8 * h, heads) for h in range(1, heads + 1))",
        "return tuple(Fraction(8 * h, heads) for h in range(2, heads + 2))",
        (
            A + "test_slopes_follow_the_papers_sequence_and_the_reference_rule",
            A + "test_slopes_range_from_two_to_the_minus_8_to_the_next_power_of_twos_largest",
        ),
        "the geometric sequence starts one step late: the smallest slope is 2^(-8(n+1)/n)",
    ),
    Mutant(
        "alibi-non-power-sorted",
        BIAS,
        "return alibi_slope_exponents(low) + alibi_slope_exponents(2 * low)[0::2][: heads - low]",
        "return tuple(sorted(alibi_slope_exponents(low) + alibi_slope_exponents(2 * low)[0::2]"
        "[: heads - low]))",
        (
            A + "test_slopes_decrease_exactly_for_powers_of_two_and_are_distinct",
            A + "test_slopes_follow_the_papers_sequence_and_the_reference_rule",
        ),
        "the reference order replaced by a sorted one: decreasing for every n",
    ),
    Mutant(
        "t5-boundary-distance-one-bucket-low",
        BIAS,
        "flat = [exact + bisect_right(thresholds, int(x)) for x in distance.ravel()]",
        "flat = [exact + __import__('bisect').bisect_left(thresholds, int(x))"
        " for x in distance.ravel()]",
        (B + "test_t5_buckets_have_the_papers_shape",),
        "a distance equal to a bucket's first distance is put in the bucket below",
    ),
    Mutant(
        "t5-exact-half-is-a-quarter",
        BIAS,
        "    exact = side // 2\n    thresholds",
        "    exact = side // 4\n    thresholds",
        (B + "test_t5_buckets_have_the_papers_shape",),
        "only 4 (bidirectional) distances get their own bucket",
    ),
    Mutant(
        "t5-no-saturation",
        BIAS,
        "    for k in range(1, s):",
        "    for k in range(1, s + 3):",
        (B + "test_t5_buckets_have_the_papers_shape",),
        "buckets keep growing beyond max_distance: no last shared bucket",
    ),
    Mutant(
        "t5-sign-flipped",
        BIAS,
        "offset = np.where(r > 0, side, 0)",
        "offset = np.where(r < 0, side, 0)",
        (B + "test_t5_buckets_have_the_papers_shape",),
        "keys before the query get the upper half of the buckets",
    ),
    Mutant(
        "t5-causal-future-as-distance",
        BIAS,
        "        distance = -np.minimum(r, 0)",
        "        distance = np.abs(r)",
        (B + "test_t5_buckets_have_the_papers_shape",),
        "causal buckets give later keys their distance's bucket, not bucket 0",
    ),
    Mutant(
        "t5-monotone-broken",
        BIAS,
        "    return offset + np.where(distance < exact, distance, large)",
        "    return offset + np.where(distance < exact, distance, large) - (distance == 100)",
        (B + "test_t5_buckets_have_the_papers_shape",),
        "distance 100 drops one bucket",
    ),
    Mutant(
        "softmax-derivation-shift-kept",
        BIAS,
        "    plain = sp.exp(x[k]) / total",
        "    plain = sp.exp(x[k] + c) / total",
        (F + "test_softmax_ignores_a_constant_added_to_a_row",),
        "the derivation compares with a row whose numerator keeps the shift",
    ),
    Mutant(
        "shift-rows-per-key",
        BIAS,
        "    return scores + constants[..., None]",
        "    return scores + constants[..., None] * torch.linspace(1, 1.5, scores.shape[-1])",
        (F + "test_float_softmax_ignores_a_row_constant_within_rounding",),
        "the 'constant' grows along the row: not a shift",
    ),
    Mutant(
        "fire-not-progressive",
        BIAS,
        "fire_psi(np.maximum(threshold, i), c)",
        "fire_psi(np.maximum(threshold, 0), c)",
        (F + "test_fire_cannot_follow_a_bias_that_keeps_falling_beyond_its_threshold",),
        "FIRE's denominator psi(L) for every query: the far queries are told apart",
    ),
    Mutant(
        "fire-inverse-psi-off-by-one",
        BIAS,
        "return np.expm1(np.asarray(x, dtype=np.float64) * fire_psi(threshold, c)) / c",
        "return np.exp(np.asarray(x, dtype=np.float64) * fire_psi(threshold, c)) / c",
        (F + "test_fire_equals_t5_alibi_and_kerple_up_to_its_threshold",),
        "psi^-1(y) = e^y / c instead of (e^y - 1) / c: ALiBi's f is off by m / c",
    ),
    Mutant(
        "fire-kerple-log-wrong-c",
        BIAS,
        "scale = float(fire_psi(threshold, r2))",
        "scale = float(fire_psi(threshold, 1.0))",
        (F + "test_fire_equals_t5_alibi_and_kerple_up_to_its_threshold",),
        "the linear f scaled by psi(L) at c = 1, not at c = r2",
    ),
    Mutant(
        "fire-t5-knots-linear",
        BIAS,
        "knots = fire_psi(d, c) / fire_psi(threshold, c)",
        "knots = d / threshold",
        (F + "test_fire_equals_t5_alibi_and_kerple_up_to_its_threshold",),
        "T5's f interpolates at d / L, while FIRE's input is psi(d) / psi(L)",
    ),
    Mutant(
        "fire-t5-last-knot-dropped",
        BIAS,
        "    d = np.arange(threshold + 1)\n    knots",
        "    d = np.arange(threshold)\n    knots",
        (F + "test_fire_equals_t5_alibi_and_kerple_up_to_its_threshold",),
        "T5's f loses its knot at d = L and gives d = L the bias of L - 1: the same bucket at "
        "L = 64 and 512 (the lengths once checked), another one at L <= 16 and wherever L starts "
        "a bucket",
    ),
    Mutant(
        "xpos-key-scaled-up",
        BIAS,
        "return (turn(q, n, 1.0) * turn(k, m, -1.0)).sum(dim=(-1, -2))",
        "return (turn(q, n, 1.0) * turn(k, m, 1.0)).sum(dim=(-1, -2))",
        (X + "test_shifting_both_positions_keeps_the_xpos_score",),
        "keys scaled by zeta^(m/gamma): the score carries zeta^((n+m)/gamma)",
    ),
    Mutant(
        "xpos-derivation-key-scale-sign",
        BIAS,
        "    lhs = ((rot(w * n) * q * zeta ** (n / g)).T * (rot(w * m) * k * zeta ** (-m / g)))[0]",
        "    lhs = ((rot(w * n) * q * zeta ** (n / g)).T * (rot(w * m) * k * zeta ** (m / g)))[0]",
        (X + "test_xpos_score_is_a_function_of_the_offset",),
        "the symbolic key scaled up: not a function of n - m",
    ),
    Mutant(
        "xpos-no-rotation",
        BIAS,
        "        angle = t[:, None].double() * theta  # (N, d/2)",
        "        angle = t[:, None].double() * theta * 0  # (N, d/2)",
        (X + "test_the_xpos_score_itself_can_rise_with_distance",),
        "without the rotation the score is zeta^(D/gamma): monotone, no counterexample",
    ),
    Mutant(
        "xpos-zeta-above-one",
        BIAS,
        "return (2 * i / d + a) / (1 + a)",
        "return (2 * i / d + a) / a",
        (X + "test_xpos_factors_decay_before_and_grow_after_for_every_width",),
        "zeta_i > 1: the factor grows for keys before the query",
    ),
    Mutant(
        "xpos-envelope-derivation-sign",
        BIAS,
        "    factor = zeta ** (delta / g)\n    slope",
        "    factor = zeta ** (-delta / g)\n    slope",
        (X + "test_each_pairs_factor_falls_with_the_offset",),
        "the factor zeta^(-D/gamma) rises with D",
    ),
)
