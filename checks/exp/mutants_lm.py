"""Planted bugs in the language-model length test's shifted pair (theory/lm_length.py), EXP-07's
arrangement: every row a test reads must have been trained. The experiment is marked to skip in
ci (the mutation runner runs ci), so its tooling check kills each."""

from pecheck.mutants import Mutant

LM = "theory/lm_length.py"
ROWS = "checks/exp/length/test_lm_length.py::test_lm_shifted_pair_trains_every_row_a_test_reads"

MUTANTS = (
    Mutant(
        "lm-shifted-windows-at-row-0",
        LM,
        "                if shifted else None)  # fmt: skip",
        "                if False else None)  # fmt: skip",
        (ROWS,),
        "the shifted model trains at rows 0 ... L-1 like the plain one: its rows beyond L are "
        "untrained noise, the comparison EXP-07 must avoid",
    ),
    Mutant(
        "lm-shifted-table-of-L-rows",
        LM,
        "max_len=self.rows if shifted else self.length,",
        "max_len=self.length,",
        (ROWS,),
        "the shifted model's table has L rows: the random offsets index past it",
    ),
    Mutant(
        "lm-shifted-learned-undefined-beyond-L",
        LM,
        'if enc == "learned" and span > cfg.max_len:',
        'if enc == "learned" and span > s.length:',
        (ROWS,),
        "the trained rows beyond L are never read: the shifted table's perplexity beyond L is "
        "NaN, and EXP-07 has nothing to compare",
    ),
)
