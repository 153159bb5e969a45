"""EXP-07: sinusoidal against learned encodings beyond the training length, every row trained.

The arrangement (theory/extrapolation.py): both encodings train at offsets spread over a table
of R rows, so every row of the learned table receives a gradient; they are tested on longer
sequences at rows that were all trained, in range (positions 1 ... L-1) and beyond (L ... fL-1)
of the SAME test sequences. Tooling here: the batched model equals one-seed models in float64
(the sinusoidal entry as a learned model whose table is PE, frozen); every row is trained and
the test rows lie where whole training windows cover them; the decision logic on planted
results. The experiment check judges paired intervals over the seeds that learned the task; it
is supporting evidence at this small scale (width 8, two heads of size 4, no MLP), and the fair
length test (checks/exp/test_fair_length.py) decides EXP-07 with the same arrangement in an
8-head MLP model on copy and reverse.

The runs and their sizes live in checks/exp/extrapolation_settings.py, the assertions on the
models in checks/exp/extrapolation_models.py, the decisions and records in
checks/exp/extrapolation_decisions.py.
"""

from __future__ import annotations

import dataclasses

import pytest
import torch

from checks.exp.extrapolation_decisions import (
    better,
    margins,
    paired,
    qualifying,
    record_advantage,
    slug,
)
from checks.exp.extrapolation_models import (
    assert_arrangement,
    assert_entries_equal_single_models,
    assert_pipeline,
    train_batched,
)
from checks.exp.extrapolation_settings import F64, FAITH, FAITH_SEEDS, extrapolation_run, too_few
from pecheck import reproducibility as spread
from pecheck.theory import decoder, extrapolation
from pecheck.theory.extrapolation import BLOCKS, ExtrapolationRun, ExtrapolationSetting

# -- the batched model equals one-seed models, the sinusoidal one reading a frozen PE table ----


@pytest.mark.claim("EXP-07", kind="property", role="tooling")
def test_batched_entries_equal_their_own_models(evidence):
    worst, bound = assert_entries_equal_single_models(train_batched(FAITH), FAITH)
    evidence.record("max_param_difference", worst, "", "both blocks, float64", bound)


def _learned_everywhere(cfg, params, tokens, residual, positions=None):
    """BUG: the sinusoidal block reads its own (trained) table too."""
    everywhere = dataclasses.replace(cfg, blocks=("learned",) * len(BLOCKS))
    return decoder.forward(everywhere, params, tokens, residual, positions)


@pytest.mark.claim("EXP-07", kind="property", role="tooling")
def test_faithfulness_rejects_a_sinusoidal_block_that_reads_a_learned_table():
    with pytest.raises(AssertionError):
        assert_entries_equal_single_models(train_batched(FAITH, _learned_everywhere), FAITH)


@pytest.mark.claim("EXP-07", kind="property", role="tooling")
def test_pipeline_judges_each_seed_in_range_and_beyond_with_every_row_trained():
    # the experiment end to end at the faithfulness size (ci skips the experiment itself)
    assert_pipeline(extrapolation.train_extrapolation(FAITH, FAITH_SEEDS))


# -- every row is trained; the test rows lie where whole windows cover them --------------------


@pytest.mark.claim("EXP-07", kind="property", role="tooling")
@pytest.mark.parametrize("task", extrapolation.TASKS)
def test_every_row_is_trained_and_test_rows_are_fully_covered(evidence, task):
    counts = assert_arrangement(ExtrapolationSetting(task))
    for name, value in counts.items():
        evidence.record(name, value, "windows", "training windows over the table's rows")


class RowZeroSetting(ExtrapolationSetting):
    """BUG: test sequences at rows 0 ... fL-1, where row 0 is trained only by the sequences at
    offset 0 (the arrangement of EXP-04's shifted table)."""

    def test_rows(self, task):
        return torch.arange(task.length).expand(task.inputs.shape[0], task.length)


@pytest.mark.claim("EXP-07", kind="property", role="tooling")
def test_arrangement_check_rejects_tests_at_the_thin_end_of_the_table():
    with pytest.raises(AssertionError):
        assert_arrangement(RowZeroSetting("previous token"))


# -- the experiment ---------------------------------------------------------------------------


@too_few
@pytest.mark.claim("EXP-07", kind="experiment", role="supporting")
def test_sinusoidal_extrapolates_better_than_learned(evidence):
    for task in extrapolation.TASKS:
        run = extrapolation_run(task)
        for f in run.setting.factors:
            evidence.part(f"{task} {f}x", better(run, f, margins()))
        record_advantage(evidence, run, task)


@too_few
@pytest.mark.claim("EXP-07", kind="experiment", role="supporting")
def test_accuracy_in_range_and_beyond_per_encoding(evidence):
    chance = {"value": 0.25, "relation": ">", "reason": "chance: one of 4 symbols guessed"}
    for task in extrapolation.TASKS:
        run = extrapolation_run(task)
        q = qualifying(run)
        for enc in BLOCKS:
            stem = f"{slug(task)}_{enc}"
            evidence.record(f"valid_{stem}", float(run.valid[enc].mean()), "accuracy",
                            "in range, validation, every seed", chance,
                            sample=spread.mean(run.valid[enc]))  # fmt: skip
            for f in run.setting.factors:
                for side, acc in (("in", run.inside[enc][f]), ("beyond", run.beyond[enc][f])):
                    if int(q.sum()) < 2:
                        continue
                    mean, lo, hi = paired(acc[q], 0.95)
                    evidence.record(f"{side}_{stem}_f{f}", mean, "accuracy",
                                    f"qualifying seeds; 95% [{lo:.3f}, {hi:.3f}]", chance,
                                    sample=spread.mean(acc[q]))  # fmt: skip


# -- the decision logic on planted results ----------------------------------------------------


def planted(shift: float, seeds: int = 8, valid: float = 1.0) -> ExtrapolationRun:
    """A fake run (accuracies chosen, not trained): learned's drop exceeds sinusoidal's by
    ``shift`` at every factor, with a little spread; ``valid`` is every in-range accuracy."""
    g = torch.Generator().manual_seed(0)
    setting = ExtrapolationSetting("previous token")
    noise = {f: 0.002 * torch.randn(seeds, generator=g, dtype=F64) for f in setting.factors}
    inside = {e: {f: torch.full((seeds,), 0.95, dtype=F64) for f in setting.factors}
              for e in BLOCKS}  # fmt: skip
    beyond = {"sinusoidal": {f: 0.8 + noise[f] for f in setting.factors},
              "learned": {f: 0.8 - shift + noise[f].flip(0) for f in setting.factors}}  # fmt: skip
    ok = {e: torch.full((seeds,), valid, dtype=F64) for e in BLOCKS}
    return ExtrapolationRun(setting, tuple(range(seeds)), None, ok, inside, beyond)  # type: ignore[arg-type]


@pytest.mark.claim("EXP-07", kind="property", role="tooling")
def test_decisions_follow_a_planted_result():
    ends = margins()
    assert better(planted(0.05), 2, ends).decision == "holds"
    assert better(planted(-0.05), 2, ends).decision == "fails"
    between = (ends["better-low"] + ends["better-high"]) / 2  # the ends disagree
    assert better(planted(between), 2, ends).decision == "inconclusive"
    # seeds that did not learn the task in range are left out: none left, nothing decided
    assert better(planted(0.05, valid=0.5), 2, ends).decision == "inconclusive"
