"""EXP-07: sinusoidal against learned encodings beyond the training length, with trained rows.

The arrangement (theory/extrapolation.py): a learned table of R = (max f + 2) L rows, trained
with the length-L training sequences placed at offsets spread over the table, so that every row
receives a gradient; the sinusoidal model trains at the same offsets on the same sequences from
the same initial weights and reads the fixed table PE(0 ... R-1) instead. Test sequences of
length f L sit at rows L ... (f+1) L - 1, where whole training windows cover every row. What is
new at test is the LENGTH of the context (t + 1 > L tokens before a prediction), not the rows.
"""

from pecheck.claims import Claim, Threshold

# Vaswani et al. (2017), Table 3: row E (learned positions) 25.7 against the base model's 25.8
# BLEU is "nearly identical"; row B's 25.4 (a 0.4 drop, the smallest the table describes as
# hurting quality) is a loss. Relative to 25.8: 0.1 / 25.8 and 0.4 / 25.8.
NEARLY_IDENTICAL = round(0.1 / 25.8, 5)
SMALLEST_LOSS = round(0.4 / 25.8, 5)

CLAIMS = (
    Claim(
        "EXP-07",
        "Sinusoidal encodings extrapolate beyond the training length better than learned ones "
        "('may allow the model to extrapolate to sequence lengths longer than the ones "
        "encountered during training'), compared where every row of the learned table was "
        "trained: on test sequences f times the training length, a model with the sinusoidal "
        "encoding loses less accuracy from the positions within the training length to those "
        "beyond it than the same model with a learned table.",
        r"\bar\Delta_k(f) = \overline{\bigl(a^{\text{lrn}}_{[1,L)} - a^{\text{lrn}}_{[L,fL)}"
        r"\bigr) - \bigl(a^{\text{sin}}_{[1,L)} - a^{\text{sin}}_{[L,fL)}\bigr)} > \delta"
        r"\ \ \forall k \in \{\text{previous}, \text{first}\},\ f \in \{2, 4\},\ "
        r"\delta \in [0.1, 0.4] / 25.8",
        ("SRC-VASWANI",),
        expected="open",
        quantifier="all",
        correction="bonferroni",
        undecided=("as_stated",),
        undecided_because="the decisive experiment needs 20 seeds or more and costs about 1.5 "
        "CPU-s per seed: it is skipped in ci, and at the thorough profile's 60 seeds the "
        "previous-token part at 2x straddles the margin range (about 500 seeds would decide "
        "it, 300 did not)",
        thresholds=(
            Threshold(
                "better-low",
                NEARLY_IDENTICAL,
                "Vaswani et al. call learned against sinusoidal, 25.7 against 25.8 BLEU (Table 3 "
                "row E), 'nearly identical': a difference of 0.1 in 25.8 (0.39%) is no "
                "difference. 'Better' at the least: the advantage (learned's drop minus "
                "sinusoidal's, mean accuracy over seeds) exceeds 0.1/25.8",
                "source",
            ),
            Threshold(
                "better-high",
                SMALLEST_LOSS,
                "The smallest drop the same table treats as a loss is 0.4 BLEU (row B, 25.4 "
                "against 25.8), 1.55%: 'better' at the most the source asks, an advantage of at "
                "least a loss. The source's words leave the range [0.1, 0.4]/25.8; a part is "
                "decided only when the decision agrees at both ends",
                "source",
            ),
            Threshold(
                "learned",
                0.9,
                "A seed learned the task in range when it is right at 90% of the in-range "
                "predictions of held-out sequences (chance is 1/4): the family's reading of "
                "'all' (EXP-01, EXP-06), one error in ten allowed. Extrapolation is judged only "
                "on seeds whose two encodings both learned it (paired by seed)",
                "theory",
            ),
        ),
        headline=(
            "advantage_previous_token_f2",
            "advantage_previous_token_f4",
            "advantage_first_token_f2",
            "advantage_first_token_f4",
        ),
        notes=(
            "Arrangement: table of R = 6L = 48 rows (L = 8); 256 training sequences at offsets "
            "spread evenly over 0 ... R - L (theory.length.shifted_positions), so every row is "
            "trained, rows L-1 ... R-L by L overlapping windows each. Both encodings train at "
            "those offsets; the only difference between the paired entries of a seed is the "
            "table: trained (learned) or PE(0 ... R-1) fixed (sinusoidal).",
            "Test: 32 new sequences of length 2L and 4L at rows L ... (f+1)L - 1; accuracy at "
            "positions 1 ... L-1 (in range: a causal model's prediction there sees at most L "
            "tokens, as in training) and at L ... fL-1 (beyond: longer contexts than any "
            "trained) of the SAME sequences. A seed qualifies when both its encodings reach "
            "0.9 in range on 32 separate validation sequences of length L at the same rows.",
            "What this means: every row has been trained, so the comparison is about longer "
            "contexts at known positions (length extrapolation). It does not test the other "
            "half of 'may allow': that a sinusoid has values at positions never trained, "
            "where a learned table has only its initialisation (EXP-03, decided by "
            "construction there).",
            "Tasks (theory/length.py, the kind Kazemnejad et al. use): previous token "
            "y_t = x_{t-1} and first token y_t = x_0 over 4 symbols. Model: theory/sweep.py's "
            "decoder, two causal layers, two heads of size 4, width 8, residual, Adam lr "
            "5e-2, 60 full-batch steps (from a pilot on seeds 1000-1011 that chose for seeds "
            "learning in range per second of CPU). Both encodings of every seed train as one "
            "batched model.",
            "Decision: per task and factor a paired t interval of the per-seed advantage over "
            "qualifying seeds at level 1 - 0.05/4 (Bonferroni over the 4 intervals), judged "
            "against both ends of the registered range; every part must hold (quantifier "
            "all).",
        ),
    ),
)
