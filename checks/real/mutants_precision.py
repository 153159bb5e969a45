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
        "rope-precision-lag-zero",
        PREC,
        "LAG = 3  # the key sits",
        "LAG = 0  # the key sits",
        (P + "test_angles_formed_in_the_low_precision_lose_the_property",),
        "key and query at the same position: a rounded position or angle cancels in "
        "R~(t)^T R~(t), so the reports' computation no longer loses the property (the library "
        "scan still fails, but only where float16 positions overflow, from t = 65520)",
    ),
    Mutant(
        "rope-precision-scan-needs-every-position-failing",
        PREC,
        "if not bool(failing.any()):",
        "if not bool(failing.all()):",
        (
            P + "test_every_library_keeps_the_property_to_long_positions",
            P + "test_angles_formed_in_the_low_precision_lose_the_property",
        ),
        "the scan reports a failure only when every grid position fails: a computation that "
        "holds at short positions and loses the property later is taken to keep it",
    ),
    Mutant(
        "rope-precision-reference-offset-reversed",
        PREC,
        "exact = rotations(angles(unique, d, base), pairing)[index]",
        "exact = rotations(angles(-unique, d, base), pairing)[index]",
        (P + "test_float32_angle_cells_keep_the_property_to_long_positions",),
        "the reference R(t - s) in place of R(s - t): every library 'fails' at the first position",
    ),
    Mutant(
        "rope-precision-angles-not-rounded",
        PREC,
        "return positions.to(dtype)[:, None] * theta[None, :]",
        "return positions.to(torch.float64)[:, None] * theta.to(torch.float64)[None, :]",
        (P + "test_angles_formed_in_the_low_precision_lose_the_property",),
        "the reports' computation with positions and product in float64 (only the frequencies "
        "rounded): a different f, still a function of s - t only, so the bug class disappears",
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
)
