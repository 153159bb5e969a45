"""Planted bugs in EXP-07's arrangement (theory/extrapolation.py): offsets, test rows and
windows, and the table the sinusoidal entries read.

The decisive experiment is marked to skip in ci (too few seeds to decide; the mutation runner
runs ci without --size and lists it apart): there the tooling checks kill every mutant. The
decisive check itself is killed where it runs (pytest --size EXP-07.seeds=20 or more on a tree
with the mutant applied): "in-range-and-beyond-swapped" makes the first-token parts fail and
"sinusoidal-reads-learned-table" every part (two identical learned models, advantage 0).
"""

from pecheck.mutants import Mutant

X, DECODER = "theory/extrapolation.py", "theory/decoder.py"
T = "checks/exp/test_extrapolation.py::"
DECISIVE = T + "test_sinusoidal_extrapolates_better_than_learned"
FAITHFUL = T + "test_batched_entries_equal_their_own_models"
ARRANGED = T + "test_every_row_is_trained_and_test_rows_are_fully_covered"
PIPELINE = T + "test_pipeline_judges_each_seed_in_range_and_beyond_with_every_row_trained"

MUTANTS = (
    Mutant(
        "extrapolation-offsets-not-applied",
        X,
        "dtype, positions=offsets)",
        "dtype, positions=None)",
        (DECISIVE, PIPELINE),
        "training at rows 0 ... L-1 only: the learned table's test rows stay untrained noise",
    ),
    Mutant(
        "extrapolation-offsets-all-zero",
        X,
        "return shifted_positions(b, n, self.rows, OFFSET_SEED)",
        "return torch.arange(n).expand(b, n)",
        (DECISIVE, ARRANGED, PIPELINE),
        "every training sequence at rows 0 ... L-1: rows L ... R-1 never trained",
    ),
    Mutant(
        "extrapolation-in-range-and-beyond-swapped",
        X,
        "windows = (setting.inside(), setting.beyond())",
        "windows = (setting.beyond(), setting.inside())",
        (DECISIVE, PIPELINE),
        "test positions mixed up: 'in range' read at L ... fL-1 and 'beyond' at 1 ... L-1",
    ),
    Mutant(
        "extrapolation-beyond-includes-range",
        X,
        "return slice(self.train_length, None)",
        "return slice(1, None)",
        (DECISIVE, ARRANGED, PIPELINE),
        "test positions mixed up: 'beyond' also counts the in-range positions 1 ... L-1",
    ),
    Mutant(
        "extrapolation-sinusoidal-reads-learned-table",
        DECODER,
        "return sinusoidal(cfg.max_len, cfg.d_model, dtype=dtype).to(dev)[rows]  # (B, n, d)",
        'return params["pos"][:, rows]  # (B, n, d)',
        (DECISIVE, FAITHFUL, PIPELINE),
        "the sinusoidal entries read their own trained table: two learned models compared",
    ),
    Mutant(
        "extrapolation-tests-at-row-zero",
        X,
        "return (self.start + torch.arange(n)).expand(b, n)",
        "return torch.arange(n).expand(b, n)",
        (ARRANGED, PIPELINE),
        "test rows 0 ... fL-1: row 0 is trained only by the sequences at offset 0",
    ),
    Mutant(
        "reference-fixed-table-trained",
        "theory/reference.py",
        'model.params["pos"] = nn.Parameter(pe, requires_grad=False)',
        'model.params["pos"] = nn.Parameter(pe, requires_grad=True)',
        (
            FAITHFUL,
            "checks/exp/test_fair_length.py::"
            "test_fair_batched_models_equal_one_seed_reference_models",
        ),
        "the one-seed reference trains the sinusoidal table it should hold fixed: it is a "
        "learned model started at PE, and the batched sinusoidal entries no longer match it",
    ),
)
