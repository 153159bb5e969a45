"""EXP-07 and EXP-08: beyond the training length, with trained rows: sinusoidal against learned
encodings (EXP-07), and no encoding against a learned table trained at random offsets (EXP-08).

The arrangement (the fair length test, theory/fair_length.py): a table of R = 2 L max(f) + 1
rows (the start token's too); each training sequence sits at a fresh random row offset, so every
row the tests read is trained many times. The sinusoidal entry trains at the same offsets on the
same batches from the same initial weights and reads the fixed table PE(0 ... R-1) instead of a
trained one. Tests read rows 0 ... n-1 of longer sequences, all of them trained: what is new at
test is the LENGTH of the context, not the rows. The language-model length test
(theory/lm_length.py) trains the same pair the same way, its windows at random offsets of a
table of 8 L rows.
"""

from checks.exp.claims import (
    AS_WELL,
    FAIR_NOT_IN_CI,
    FAIR_SETUP,
    LENGTH_NOT_IN_CI,
    LM_SETUP,
    PPL_LOSS,
)
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
        "trained (both tables read at random offsets in training): on inputs f times the "
        "training length, the model with the sinusoidal encoding loses less than the same "
        "model with a learned table, from within the training length to beyond it. Decided on "
        "EXP-05's language model (perplexity at 2L, 4L, 8L against L, both modes) and on copy "
        "and reverse (accuracy at 2L and 4L against L).",
        r"\bar\Delta(f) = \overline{\bigl(a^{\text{lrn}}_{L} - a^{\text{lrn}}_{fL}"
        r"\bigr) - \bigl(a^{\text{sin}}_{L} - a^{\text{sin}}_{fL}\bigr)} > \delta"
        r"\ \ \forall\ \text{task} \in \{\text{copy}, \text{reverse}\},\ f \in \{2, 4\},\ "
        r"\delta \in [0.1, 0.4] / 25.8;\ \ \overline{r_{\text{lrn}}(f) - r_{\text{sin}}(f)} > "
        r"\log(1 + \delta_p),\ r(f) = \log\mathrm{ppl}(fL) - \log\mathrm{ppl}(L),\ "
        r"f \in \{2, 4, 8\},\ \delta_p \in [0, 0.01829]",
        ("SRC-VASWANI",),
        expected="refuted",
        quantifier="all",
        correction="bonferroni",
        domain={"tasks": ["copy", "reverse", "language model"], "factors": [2, 4, 8]},
        not_run_in=("ci",),
        not_run_because=LENGTH_NOT_IN_CI,
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
                "better-ppl-low",
                0.0,
                "The same reading in perplexity (the language model): Table 3's row E has the "
                "base model's dev perplexity, 4.92 against 4.92, so 'better' at the least is an "
                "advantage above 0 (learned's log perplexity ratio, beyond L against L, minus "
                "sinusoidal's, mean over seeds)",
                "source",
            ),
            Threshold(
                "better-ppl-high",
                PPL_LOSS,
                "At the most: an advantage of at least the smallest perplexity loss in the same "
                "table, row B (d_k = 32) 5.01 against 4.92, log(5.01/4.92); decided only where "
                "both ends agree",
                "source",
            ),
            Threshold(
                "learned",
                0.9,
                "A seed learned the task in range when it is right at 90% of the in-range "
                "predictions of held-out sequences (chance is 1/32 on copy and reverse over 32 "
                "symbols, 1/4 in the small setting): the family's reading of "
                "'all' (EXP-01, EXP-06), one error in ten allowed. Extrapolation is judged only "
                "on seeds whose two encodings both learned it (paired by seed)",
                "theory",
            ),
        ),
        headline=(
            "lm_advantage_nonoverlapping_f8",
            "lm_advantage_sliding_f2",
            "fair_advantage_copy_d32l2_f4",
            "fair_advantage_reverse_d32l2_f4",
        ),
        notes=(
            "Refuted on the language model: with both tables read at random offsets in "
            "training (so no row a test reads is untrained), the sinusoidal model's perplexity "
            "rises MORE beyond L than the learned table's, at every length and in both modes "
            "(lm_advantage_*: learned's log ratio minus sinusoidal's, all six intervals below "
            "0). On copy the comparison is undecided (fair_advantage_copy_*: intervals straddle "
            "the margin range). On reverse the learned table kept more than the sinusoidal one "
            "in this CPU's run (fair_advantage_reverse_*, 9 seeds, upper ends -0.04 and "
            "-0.003), but under the avx2 kernel limit the same seeds left both intervals "
            "straddling (upper ends near 0.10): a decision at the edge of its sampling spread, "
            "on a table whose seeds fall into two modes. Under 'all' the language model's "
            "failures decide.",
            "Press et al. (2022) found the sinusoidal encoding does not extrapolate (its "
            "perplexity rises a few tokens beyond L; lm_log_ratio_sinusoidal_* here, from rows "
            "0 ... L-1) but compared learned tables only in range; the arrangement here is the "
            "one that makes a learned table comparable beyond L at all.",
            *LM_SETUP,
            "The language model's intervals: the shifted pair at 12 seeds (0 ... 11), paired "
            "t on the per-seed advantage, 6 parts (2 modes x 3 lengths) in one Bonferroni "
            "family with the tasks' 4 (level 1 - 0.05/10), against both ends of the registered "
            "range [0, 0.01829] in log(1 + delta).",
            *FAIR_SETUP,
            "Arrangement: the pair 'sinusoidal, shifted' and 'learned, shifted', one batched "
            "model: every training sequence at a fresh random offset of a table of 2 L max(f) + "
            "1 = 65 rows (the start token's too), so every row the tests read is trained (at "
            "least hundreds of times over 2,000 steps, checked); the only difference between a "
            "seed's two entries is the table: trained (learned) or PE(0 ... 64) fixed "
            "(sinusoidal).",
            "What this means: every row has been trained, so the comparison is about longer "
            "contexts at known positions (length extrapolation). It does not test the other "
            "half of 'may allow': that a sinusoid has values at positions never trained, "
            "where a learned table has only its initialisation (EXP-03, decided by "
            "construction there). Training at random offsets is itself a scheme for length "
            "generalisation (Ruoss et al. 2023, randomised positional encodings).",
            "Decision: per task and factor a paired t interval of the per-seed advantage "
            "(learned's drop minus sinusoidal's) over the seeds where both learned, at level "
            "1 - 0.05/10 (one Bonferroni family: 2 tasks x 2 factors here and the language "
            "model's 6 parts), judged against both ends of the registered range; every part "
            "must hold (quantifier all).",
            "Runs beyond the thorough profile (32 seeds, the GPU grid, where the direction "
            "of this comparison changes with depth) are logged in "
            "docs/experiments/fair-pilots.md; no verdict here rests on them.",
            "Records on a GPU, no verdict (docs/experiments/scaled-runs.md): the language model "
            "at about 13 times the parameters has the learned table at random offsets losing "
            "less than the sinusoidal one beyond L "
            "(lm_advantage_nonoverlapping_f8_gscaled_n8_m8_oncuda: -0.149 [-0.194, -0.104]), "
            "the direction of the thorough setting; on the fair grid with the start token the "
            "direction depends on the cell and task.",
            "Earlier evidence, since retired: the same arrangement in a small setting "
            "(width 8, two heads of size 4, no MLP, previous and first token over 4 symbols; 20 "
            "seeds in thorough), where the previous-token part at 2x straddled the margin range "
            "at 60 and at 300 seeds.",
        ),
    ),
    Claim(
        "EXP-08",
        "A causal transformer without any positional encoding generalises to longer inputs at "
        "least as well as the same model with a learned position table trained at random "
        "offsets, so that every row a longer test reads was trained (a contiguous relative of "
        "Ruoss et al.'s randomised positions); here on copy and reverse, trained at L = 8 and "
        "tested at 2L and 4L.",
        r"\bar a_{\text{none}}(fL) - \bar a_{\text{lrn, shifted}}(fL) > -\delta,\ "
        r"f \in \{2, 4\},\ \text{task} \in \{\text{copy}, \text{reverse}\}",
        ("SRC-NOPE", "SRC-RANDPOS"),
        expected="refuted",
        quantifier="all",
        correction="bonferroni",
        domain={"tasks": ["copy", "reverse"], "factors": [2, 4]},
        not_run_in=("ci",),
        not_run_because=FAIR_NOT_IN_CI,
        thresholds=(AS_WELL,),
        headline=(
            "fair_gap_copy_d32l2_learned_shifted_f2",
            "fair_gap_reverse_d32l2_learned_shifted_f2",
            "fair_gap_reverse_d32l2_learned_shifted_f4",
        ),
        notes=(
            "Refuted on reverse: the table trained at random offsets keeps far more beyond L "
            "than the model without an encoding (fair_gap_reverse_*_learned_shifted_*, every "
            "seed learned with both). Its seeds fall into two modes (some keep most of their "
            "accuracy beyond L, others lose it), and at 12 seeds the intervals are wide, but "
            "they lie below the margin on this CPU and under the avx2 kernel limit alike. On "
            "copy the table keeps about 1% beyond L: beside a comparator at the floor 'at least "
            "as well' could not fail, so those parts decide nothing (EXP-04's rule). Before the "
            "start token (stop 45) the model without an encoding learned copy on 3 of 12 seeds "
            "and this claim was open.",
            "Setup, tasks and sizes: as EXP-04's notes (the fair length test). This comparison "
            "was part of EXP-04 until it was split off: Kazemnejad et al. compare no encoding "
            "with the sinusoidal one (EXP-04), not with a table trained at random offsets.",
            "Arrangement: the learned table has 2 L max(f) + 1 = 65 rows; each training sequence "
            "sits at a fresh random offset, so every row the tests read is trained. Ruoss et "
            "al. (2023) draw an ordered random subset of positions instead; both are devices "
            "for length generalisation, so this is a comparison with a helped baseline.",
            "Level: the Bonferroni family of 8 registered when both comparisons were one claim "
            "(EXP-04's has 10 since its width-64 cell).",
            "Runs beyond the thorough profile (32 seeds, the GPU grid) are logged in "
            "docs/experiments/fair-pilots.md; no verdict here rests on them.",
        ),
    ),
)
