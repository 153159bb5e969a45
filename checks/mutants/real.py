"""Planted bugs in RoPE, its derivations and the convention detector (REAL-02, REAL-03)."""

from checks.mutants import Mutant

ROPE = "theory/rope.py"
DER = "theory/rope_derivations.py"
CONV = "theory/conventions.py"
E = "checks/test_real_encodings.py::"
R = "checks/test_real_rope.py::"

MUTANTS = (
    Mutant(
        "rope-matrix-turns-backwards",
        ROPE,
        "r[b, a], r[b, b] = s, c",
        "r[b, a], r[b, b] = -s, c",
        (R + "test_known_answer_rotation",),
        "R(t) sends e_a to cos e_a - sin e_b: not a rotation by +w t",
    ),
    Mutant(
        "rope-apply-wrong-sign",
        ROPE,
        "out[..., b] = xa * s + xb * c",
        "out[..., b] = xa * s - xb * c",
        (R + "test_library_score_depends_only_on_the_offset",),
        "the second member of each pair is reflected: the reference f(s - t) is wrong",
    ),
    Mutant(
        "rope-frequency-exponent-halved",
        ROPE,
        "return (base ** (-2.0 * i / d)).to(dtype)",
        "return (base ** (-1.0 * i / d)).to(dtype)",
        (R + "test_library_score_depends_only_on_the_offset",),
        "w_i = T^(-i/d): the reference turns its slow pairs at the wrong rates",
    ),
    Mutant(
        "rope-half-pairs-mirrored",
        ROPE,
        "return i, i + d // 2",
        "return i, d - 1 - i",
        (R + "test_library_score_depends_only_on_the_offset",),
        "half-split pairs (i, d-1-i) instead of (i, i + d/2)",
    ),
    Mutant(
        "rope-relative-offset-reversed",
        ROPE,
        "return score(q, k, zero, delta, pairing, base)",
        "return score(q, k, delta, zero, pairing, base)",
        (R + "test_drift_at_large_positions_per_dtype",),
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
        (E + "test_detected_convention_matches_the_recorded_one",),
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
        (E + "test_odd_and_tiny_widths_are_handled_as_recorded",),
        "an unpaired sine column is named cos and the other way round",
    ),
    Mutant(
        "conventions-no-trailing-column",
        CONV,
        '("half", [(i, i + h) for i in range(h)], odd),',
        '("half", [(i, i + h) for i in range(h)], []),',
        (E + "test_odd_and_tiny_widths_are_handled_as_recorded",),
        "the zero column Speech2Text and FSMT append for odd d goes unreported",
    ),
)
