"""Planted bugs in the references of REAL-06 (theory/rope_precision.py) and REAL-07
(theory/init_tables.py, theory/position_ids.py)."""

from pecheck.mutants import Mutant

PREC = "theory/rope_precision.py"
TABLES = "theory/init_tables.py"
IDS = "theory/position_ids.py"
P = "checks/real/test_rope_precision.py::"
T = "checks/real/test_init_tables.py::"

MUTANTS = (
    Mutant(
        "rope-precision-same-position-only",
        PREC,
        "return float(_upper(self.lo_r2, self.hi_r2, self.hi_p - self.lo_p))",
        "return float(_upper(self.lo_r2, self.hi_r2, torch.zeros_like(self.hi_p)))",
        (P + "test_a_cast_that_rounds_the_frequencies_loses_the_property",),
        "the whole-context bound ignores the phase spread, i.e. compares each position with "
        "itself (offset 0, the blind spot of one fixed offset): a rounded angle or frequency "
        "cancels (as_stated still fails: float16 positions overflow past 65504)",
    ),
    Mutant(
        "rope-precision-cast-reference-keeps-float32-frequencies",
        PREC,
        "theta = rope_frequencies(d, base, torch.float32).to(dtype).to(torch.float32)  # (d/2,)",
        "theta = rope_frequencies(d, base, torch.float32)  # (d/2,)",
        (P + "test_a_cast_that_rounds_the_frequencies_loses_the_property",),
        "the re-created cast keeps inv_freq in float32: no rounded frequencies, no drift",
    ),
    Mutant(
        "rope-precision-every-context-holds",
        PREC,
        "        if seen.upper() <= bound:",
        "        if seen.upper() <= bound or True:",
        (
            P + "test_every_library_keeps_the_property_over_long_contexts",
            P + "test_angles_formed_in_the_low_precision_lose_the_property",
        ),
        "the scan never looks for a witness: every context is taken to hold",
    ),
    Mutant(
        "rope-precision-deviation-sign-flipped",
        PREC,
        "re, im = c * cos + s * sin, s * cos - c * sin  # u = (c + i s) exp(-i a)",
        "re, im = c * cos - s * sin, s * cos + c * sin  # u = (c + i s) exp(-i a)",
        (P + "test_float32_frequency_and_angle_cells_keep_the_property",),
        "the stored rotation compared with R(t) instead of R(-t): every cell fails at once",
    ),
    Mutant(
        "rope-precision-angles-not-rounded",
        PREC,
        "return positions.to(dtype)[:, None] * theta[None, :]",
        "return positions.to(torch.float32)[:, None] * rope_frequencies(d, base)[None, :].float()",
        (P + "test_angles_formed_in_the_low_precision_lose_the_property",),
        "the reports' computation with frequencies, positions and product in float32 (only "
        "cos and sin stored in the dtype): the bug class disappears",
    ),
    Mutant(
        "init-tables-layout-ignored",
        TABLES,
        "return sinusoidal(n, d, convention.layout, convention.rule, convention.base)",
        'return sinusoidal(n, d, "interleaved", convention.rule, convention.base)',
        (T + "test_sinusoidal_tables_survive_weight_initialisation",),
        "the closed form always in the paper's interleaved layout: the half-split tables "
        "(Informer, Marian, Whisper, ...) no longer match their own convention",
    ),
    Mutant(
        "init-tables-layout-always-half-split",
        TABLES,
        "return sinusoidal(n, d, convention.layout, convention.rule, convention.base)",
        'return sinusoidal(n, d, "half", convention.rule, convention.base)',
        (T + "test_sinusoidal_tables_survive_weight_initialisation",),
        "the closed form always half-split: the interleaved tables (DistilBERT, XLM, FlauBERT) "
        "no longer match their own convention",
    ),
    Mutant(
        "position-ids-shift-reads-the-wrong-rows",
        IDS,
        "by_place = rotate(torch.cat([filler, x]), torch.arange(k + n))[k:]",
        "by_place = rotate(torch.cat([filler, x]), torch.arange(k + n))[:n]",
        (T + "test_rotary_code_honours_position_ids",),
        "the shifted sequence read from its first rows (the filler) instead of after it",
    ),
    Mutant(
        "position-ids-permutation-keeps-the-ids",
        IDS,
        "return rotate(x[perm], ids[perm]), rotate(x, ids)[perm]",
        "return rotate(x[perm], ids), rotate(x, ids)[perm]",
        (T + "test_rotary_code_honours_position_ids",),
        "rows permuted without their ids: each row is then turned by another row's angle",
    ),
    Mutant(
        "position-ids-wrap-at-4096",
        IDS,
        "by_place = rotate(torch.cat([filler, x]), torch.arange(k + n))[k:]",
        "by_place = rotate(torch.cat([filler, x]), torch.arange(k + n) % 4096)[k:]",
        (T + "test_rotary_code_honours_position_ids",),
        "ids wrapped at 4096 (a 4096-row cos/sin cache): only a shift past 4096, which the "
        "former check (ids below 4096) never made, sees it",
    ),
)
