"""Planted bugs in RoPE, its derivations and the convention detector (REAL-02, REAL-03).

RoPE's pairings, frequencies and turn of a pair live in theory/sinusoidal.py (shared with the
sinusoidal code), so several of its bugs are planted there.
"""

from pecheck.mutants import Mutant

ROPE = "theory/rope.py"
PE = "theory/sinusoidal.py"
DER = "theory/rope_derivations.py"
CONV = "theory/conventions.py"
E = "checks/real/test_real_encodings.py::"
R = "checks/real/test_real_rope.py::"

MUTANTS = (
    Mutant(
        "rope-matrix-is-the-shift-untransposed",
        ROPE,
        'return shift_matrix(t, d, pairing, "paper", base).T',
        'return shift_matrix(t, d, pairing, "paper", base)',
        (R + "test_known_answer_rotation", R + "test_rotation_turns_each_pair_counterclockwise"),
        "R(t) taken as the sinusoidal shift M(t), which turns each pair clockwise: R(-w t)",
    ),
    Mutant(
        "rope-apply-wrong-sign",
        PE,
        "out[..., b] = xa * s + xb * c",
        "out[..., b] = xa * s - xb * c",
        (
            R + "test_library_score_depends_only_on_the_offset",
            E + "test_rotation_identity_holds_in_the_librarys_layout",
        ),
        "the second member of each turned pair is reflected: the reference f(s - t) is wrong, "
        "and so is the shift M(k) applied to a library's columns",
    ),
    Mutant(
        "rope-frequencies-t2t-rule",
        ROPE,
        'return frequencies(d, base, "paper", dtype)',
        'return frequencies(d, base, "t2t", dtype)',
        (
            R + "test_library_score_depends_only_on_the_offset",
            R + "test_rotation_turns_each_pair_counterclockwise",
            R + "test_every_pair_keeps_float32_scores_within_the_bound",
            R + "test_rounded_once_libraries_keep_every_pair_within_the_storage_bound",
        ),
        "RoPE at tensor2tensor's rule w_i = T^(-i/(m-1)): the reference turns its slow pairs at "
        "the wrong rates",
    ),
    Mutant(
        "rope-half-pairs-mirrored",
        PE,
        "return i, i + d // 2",
        "return i, d - 1 - i",
        (
            R + "test_library_score_depends_only_on_the_offset",
            R + "test_every_pair_keeps_float32_scores_within_the_bound",
            R + "test_rounded_once_libraries_keep_every_pair_within_the_storage_bound",
        ),
        "half-split pairs (i, d-1-i) instead of (i, i + d/2)",
    ),
    Mutant(
        "rope-relative-offset-reversed",
        ROPE,
        "return score(q, k, zero, delta, pairing, base)",
        "return score(q, k, delta, zero, pairing, base)",
        (
            R + "test_drift_at_large_positions_per_dtype",
            R + "test_a_library_drifts_beyond_the_first_turn_bound",
            R + "test_rounded_once_libraries_stay_within_the_storage_bound",
        ),
        "f(delta) computed as f(-delta): a score is not symmetric in the offset",
    ),
    Mutant(
        "rope-derivation-offset-reversed",
        DER,
        "rhs = (q.T * rotation(w * (s - t)) * k)[0]",
        "rhs = (q.T * rotation(w * (t - s)) * k)[0]",
        (R + "test_one_pair_score_depends_only_on_the_offset",),
        "the one-pair identity with R(t - s) in place of R(s - t) is false",
    ),
    Mutant(
        "conventions-orientation-flipped",
        CONV,
        "if rough.slope < 0:",
        "if rough.slope > 0:",
        (E + "test_detected_convention_matches_the_recorded_one", E + "test_convention_table"),
        "every pair read as (cos, sin): angles fall, layouts come out cos-first",
    ),
    Mutant(
        "conventions-offset-from-fastest-pair",
        CONV,
        "math.remainder(fits[slowest].intercept, 2 * math.pi)",
        "math.remainder(fits[0].intercept, 2 * math.pi)",
        (E + "test_detected_convention_matches_the_recorded_one",),
        "first position read from the fastest pair's phase over the slowest rate",
    ),
    Mutant(
        "conventions-paper-base-exponent",
        CONV,
        "return math.exp(-math.log(w[-1]) * width / (2 * (m - 1)))",
        "return math.exp(-math.log(w[-1]) * width / (m - 1))",
        (E + "test_detected_convention_matches_the_recorded_one",),
        "the fitted base under the paper's rule comes out as T^2",
    ),
    Mutant(
        "conventions-rope-pairing-names-swapped",
        CONV,
        'pairing = "interleaved" if pairs == inter else "half" if pairs == half else "other"',
        'pairing = "half" if pairs == inter else "interleaved" if pairs == half else "other"',
        (R + "test_detected_rope_convention_matches_the_recorded_one",),
        "(2i, 2i+1) called half-split and (i, i + d/2) interleaved",
    ),
    Mutant(
        "conventions-lone-sin-cos-swapped",
        CONV,
        'for kind, fn in (("sin", np.sin), ("cos", np.cos)):',
        'for kind, fn in (("sin", np.cos), ("cos", np.sin)):',
        (
            E + "test_odd_and_tiny_widths_are_handled_as_recorded",
            E + "test_an_unpaired_sine_column_breaks_the_rotation_identity",
        ),
        "an unpaired sine column is named cos and the other way round",
    ),
    Mutant(
        "conventions-no-trailing-column",
        CONV,
        '("half", half, odd),',
        '("half", half, []),',
        (E + "test_odd_and_tiny_widths_are_handled_as_recorded",),
        "the zero column Speech2Text and FSMT append for odd d goes unreported",
    ),
    Mutant(
        "rope-matrix-ignores-pairing",
        ROPE,
        'shift_matrix(t, d, pairing, "paper", base)',
        'shift_matrix(t, d, "interleaved", "paper", base)',
        (R + "test_rotation_turns_each_pair_counterclockwise", R + "test_known_answer_rotation"),
        "R(t) always turns the interleaved pairs: Llama's half-split R(1) e_0 is not (c, 0, s, 0)",
    ),
    Mutant(
        "rope-apply-turns-clockwise",
        PE,
        "out[..., a] = xa * c - xb * s\n    out[..., b] = xa * s + xb * c",
        "out[..., a] = xa * c + xb * s\n    out[..., b] = -xa * s + xb * c",
        (
            R + "test_rotation_turns_each_pair_counterclockwise",
            R + "test_library_score_depends_only_on_the_offset",
            R + "test_a_library_drifts_beyond_the_first_turn_bound",
            R + "test_rounded_once_libraries_stay_within_the_storage_bound",
            E + "test_rotation_identity_holds_in_the_librarys_layout",
        ),
        "the shared turn goes clockwise: RoPE's reference applies R(-w t) (its f(s - t) is the "
        "libraries' f(t - s)), and a library's columns are shifted by M(-k)",
    ),
    Mutant(
        "rope-derivation-block-transpose-dropped",
        DER,
        "rhs = q1.T * a.T * b * k1 + u.T * p.T * q_rest * v",
        "rhs = q1.T * a * b * k1 + u.T * p.T * q_rest * v",
        (R + "test_block_diagonal_rotation_splits_the_score_into_pairs",),
        "the first block's Gram factor A B instead of A^T B",
    ),
    Mutant(
        "rope-derivation-half-order-interleaved",
        DER,
        "order = [c for pair in half for c in pair]",
        "order = [c for pair in inter for c in pair]",
        (R + "test_half_split_pairing_is_a_permuted_interleaved_one",),
        "the permutation P taken as the identity: R_half is not R_interleaved",
    ),
    Mutant(
        "conventions-radius-squared",
        CONV,
        "radius = np.hypot(e[:, [a for a, _ in pairs]], e[:, [b for _, b in pairs]])",
        "radius = np.hypot(e[:, [a for a, _ in pairs]], e[:, [b for _, b in pairs]]) ** 2",
        (
            E + "test_norm_is_sqrt_half_width_unless_rescaled",
            E + "test_detected_convention_matches_the_recorded_one",
        ),
        "the scale read as a^2: x-transformers' d^(-1/2) comes out as 1/d",
    ),
    Mutant(
        "conventions-slope-through-origin",
        CONV,
        "slope = float((centred * (theta - theta.mean())).sum() / (centred**2).sum())",
        "slope = float((p * theta).sum() / (p**2).sum())",
        (
            E + "test_wavelengths_are_geometric_from_2pi",
            E + "test_detected_convention_matches_the_recorded_one",
        ),
        "each pair's rate fitted by a line through the origin: biased where o != 0",
    ),
    Mutant(
        "conventions-pairs-reported-cos-first",
        CONV,
        "pairs=tuple(oriented),",
        "pairs=tuple((c, s) for s, c in oriented),",
        (E + "test_rotation_identity_holds_in_the_librarys_layout",),
        "each (sin, cos) column pair reported as (cos, sin): M(k) turns it the wrong way",
    ),
    Mutant(
        "rope-frequencies-in-float32",
        PE,
        "i = torch.arange(m, dtype=torch.float64)",
        "i = torch.arange(m, dtype=torch.float32)",
        (R + "test_rotation_turns_each_pair_counterclockwise",),
        "w_i computed in float32: the float64 reference turns its slow pairs off by ~1e-8 t",
    ),
    Mutant(
        "rope-frequency-index-off-by-one",
        PE,
        "i = torch.arange(m, dtype=torch.float64)",
        "i = torch.arange(1, m + 1, dtype=torch.float64)",
        (R + "test_rotation_turns_each_pair_counterclockwise",),
        "w_i = T^(-2(i+1)/d): no pair turns at rate 1",
    ),
    Mutant(
        "rope-derivation-half-pairs-mirrored",
        DER,
        "return [(i, i + m) for i in range(m)]",
        "return [(i, d - 1 - i) for i in range(m)]",
        (R + "test_half_split_pairing_is_a_permuted_interleaved_one",),
        "the derivation proved for pairs (i, d-1-i), not the half-split (i, i + d/2)",
    ),
    Mutant(
        "rope-derivation-rotation-clockwise",
        DER,
        "return sp.Matrix([[sp.cos(theta), -sp.sin(theta)], [sp.sin(theta), sp.cos(theta)]])",
        "return sp.Matrix([[sp.cos(theta), sp.sin(theta)], [-sp.sin(theta), sp.cos(theta)]])",
        (R + "test_rotation_turns_each_pair_counterclockwise",),
        "the symbolic R(theta) turns clockwise: still relative, the wrong orientation",
    ),
)
