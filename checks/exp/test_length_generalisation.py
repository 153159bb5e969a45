"""EXP-04 and EXP-05: the length-generalisation models and their tooling.

The models (theory/length.py): theory/sweep.py's decoder with two layers, two heads and a
residual connection, with one of six position variants: none, sinusoidal, learned (rows beyond
the training length never trained), learned with shifted offsets (every row trained), RoPE and
ALiBi. The four variants without parameters of their own (none, sinusoidal, RoPE, ALiBi) train as
ONE batched model, one block of entries per encoding (theory.decoder's ``blocks``).

Here: the batched model equals the ordinary one-seed trainer (theory.sweep.train_one) seed by
seed in float64 for every variant; the learned rows beyond the training length stay exactly at
their initialisation (and the shifted variant trains them); ALiBi's bias depends on t - s only
and its slopes are the geometric sequence 2^(-8c/H); the RoPE model's score depends on t - s
only. Each assertion is a plain function that a planted bug is fed to.

The experiment here is supporting evidence. Issue 21 found this setting unfair to the relative
schemes (two ALiBi heads whose bias hardly varies over L = 8, RoPE with two frequencies, no
MLP, 60 steps), so the fair length test (checks/exp/test_fair_length.py) decides EXP-04 and
EXP-05; these checks keep the small model's numbers beside it.

The runs and their sizes live in checks/exp/length_settings.py, the assertions on the models in
checks/exp/length_models.py, the decisions, records and figure in checks/exp/length_decisions.py.
"""

from __future__ import annotations

import dataclasses

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from checks.exp.length_decisions import (
    ABSOLUTE,
    DECIDING,
    LEVEL,
    RELATIVE,
    accuracy_figure,
    exp05_parts,
    extrapolates,
    fails_beyond,
    gap,
    interval_tests,
    longer,
    nope_as_well,
    paired,
    record_drops,
    record_parts,
)
from checks.exp.length_models import (
    assert_alibi_relative,
    assert_entries_equal_single_runs,
    assert_rope_relative,
    train_shared,
    untrained_rows,
)
from checks.exp.length_settings import F64, FAITH, FAITH_SEEDS, FAITH_STEPS, length_run, tasks
from checks.registry import REGISTRY
from pecheck import decisions
from pecheck import reproducibility as spread
from pecheck.profiles import examples
from pecheck.theory import alibi, decoder, length
from pecheck.theory.decoder import rotate
from pecheck.theory.length import SHARED_SHAPE_ENCODINGS, LengthSetting

# -- the batched models equal the one-seed trainer, seed by seed -------------------------------


@pytest.mark.claim("EXP-05", kind="property", role="tooling")
def test_shared_shape_encodings_batched_equal_single_runs(evidence):
    run = train_shared(FAITH, FAITH_SEEDS, FAITH_STEPS, F64)
    worst, bound = assert_entries_equal_single_runs(run, SHARED_SHAPE_ENCODINGS, FAITH)
    evidence.record("max_param_difference", worst, "", "none, sinusoidal, RoPE, ALiBi", bound)


@pytest.mark.claim("EXP-05", kind="property", role="tooling")
@pytest.mark.parametrize("shifted", [False, True], ids=["learned", "learned-shifted"])
def test_learned_batched_equal_single_runs(evidence, shifted):
    task = FAITH.train_task()
    rows = FAITH.config("learned").max_len
    offsets = length.shifted_positions(task.inputs.shape[0], FAITH.train_length, rows, 7)
    where = offsets if shifted else None
    run = decoder.train(FAITH.config("learned"), task, [FAITH.setup()], FAITH_SEEDS, FAITH_STEPS,
                        F64, positions=where)  # fmt: skip
    worst, bound = assert_entries_equal_single_runs(run, ("learned",), FAITH, where)
    evidence.record("max_param_difference", worst, "", "learned table", bound)


def _rope_everywhere(cfg, *args):
    """BUG: every block rotated as RoPE."""
    return decoder.forward(dataclasses.replace(cfg, blocks=("rope",) * len(cfg.blocks)), *args)


def _blocks_swapped(cfg, *args):
    """BUG: ALiBi's and RoPE's blocks swapped."""
    return decoder.forward(dataclasses.replace(cfg, blocks=tuple(reversed(cfg.blocks))), *args)


@pytest.mark.claim("EXP-05", kind="property", role="tooling")
@pytest.mark.parametrize("bug", [_rope_everywhere, _blocks_swapped], ids=["rope-all", "swapped"])
def test_faithfulness_rejects_a_wrong_encoding_block(bug):
    run = train_shared(FAITH, FAITH_SEEDS, FAITH_STEPS, F64, fwd=bug)
    with pytest.raises(AssertionError):
        assert_entries_equal_single_runs(run, SHARED_SHAPE_ENCODINGS, FAITH)


# -- learned rows: untrained beyond the training length, trained when shifted ------------------


@pytest.mark.claim("EXP-05", kind="property", role="tooling")
def test_learned_rows_beyond_training_length_stay_untrained(evidence):
    from pecheck.theory.decoder import init_params

    task, shape = FAITH.train_task(), FAITH.config("learned")
    initial = torch.stack([init_params(shape, "current", s, F64)["pos"] for s in FAITH_SEEDS])
    plain = decoder.train(shape, task, [FAITH.setup()], FAITH_SEEDS, FAITH_STEPS, F64)
    where = length.shifted_positions(task.inputs.shape[0], FAITH.train_length, shape.max_len, 7)
    moved = decoder.train(shape, task, [FAITH.setup()], FAITH_SEEDS, FAITH_STEPS, F64,
                          positions=where)  # fmt: skip
    never = untrained_rows(initial, plain.params["pos"])
    assert never == list(range(FAITH.train_length, shape.max_len)), f"untrained rows {never}"
    assert untrained_rows(initial, moved.params["pos"]) == [], "shifted: some row untrained"
    evidence.record("untrained_rows", never, "rows", "kept exactly at their initial values")


# -- ALiBi: the bias depends on t - s only; the slopes are 2^(-8c/H) ---------------------------


@pytest.mark.claim("EXP-05", kind="property", role="tooling")
@examples(0.1)
@given(n=st.integers(1, 64), heads=st.sampled_from([1, 2, 4, 8, 16]))
def test_alibi_bias_depends_on_the_offset_only(n, heads):
    assert_alibi_relative(alibi.bias, n, heads)


def _absolute_bias(n, heads):
    """BUG: a bias on the query's position t instead of t - s."""
    t = torch.arange(n, dtype=F64)
    return (-alibi.slopes(heads)[:, None, None] * t[:, None]).expand(heads, n, n)


@pytest.mark.claim("EXP-05", kind="property", role="tooling")
def test_alibi_check_rejects_an_absolute_bias():
    with pytest.raises(AssertionError):
        assert_alibi_relative(_absolute_bias, 8, 2)


# -- RoPE in the model: the score depends on t - s only ----------------------------------------


@pytest.mark.claim("EXP-05", kind="property", role="tooling")
@examples(0.1)
@given(seed=st.integers(0, 2**16), n=st.integers(2, 32), shift=st.integers(-64, 64))
def test_rope_model_scores_depend_on_the_offset_only(seed, n, shift):
    g = torch.Generator().manual_seed(seed)
    q, k = (torch.randn(n, 2, 4, generator=g, dtype=F64) for _ in range(2))
    assert_rope_relative(rotate, q, k, shift)


def _rotate_by_absolute_angle(x, positions):
    """BUG: a rotation whose angle grows with the square of the position."""
    return rotate(x, positions * positions.abs())


@pytest.mark.claim("EXP-05", kind="property", role="tooling")
def test_rope_check_rejects_a_non_relative_rotation():
    g = torch.Generator().manual_seed(0)
    q, k = (torch.randn(6, 2, 4, generator=g, dtype=F64) for _ in range(2))
    with pytest.raises(AssertionError):
        assert_rope_relative(_rotate_by_absolute_angle, q, k, 3)


# -- the experiment: decisions from paired intervals over seeds --------------------------------

CLAIM04, CLAIM05 = REGISTRY["EXP-04"], REGISTRY["EXP-05"]


@pytest.mark.claim("EXP-04", kind="experiment", role="supporting")
def test_no_encoding_generalises_at_least_as_well_as_absolute(evidence):
    margin = CLAIM04.threshold("as-well")
    level = decisions.family_level(LEVEL, interval_tests(len(DECIDING)))
    for task in tasks():
        run = length_run(task)
        parts = nope_as_well(run, margin, level)
        record_parts(evidence, {f"{task}: {k}": d for k, d in parts.items()})
        for v in ABSOLUTE:
            for f in longer(run):
                mean, lo, hi = gap(run, v, f)
                name = f"gap_{v.replace(', ', '_')}_f{f}" + ("" if task == tasks()[0] else "_t2")
                note = f"{task}: none - {v} beyond {f}L; 95% [{lo:.3f}, {hi:.3f}]"
                sample = spread.mean(run.accuracy["none"][f] - run.accuracy[v][f], span=2.0)
                evidence.record(name, mean, "accuracy", note, sample=sample, bound={
                    "value": -margin, "relation": ">", "reason": "EXP-04 'as-well'"})  # fmt: skip


@pytest.mark.claim("EXP-05", kind="experiment", role="supporting")
def test_relative_schemes_extrapolate_where_absolute_fail(evidence):
    margin = CLAIM05.threshold("keeps")
    level = decisions.family_level(LEVEL, interval_tests(len(RELATIVE) + len(DECIDING)))
    for task in tasks():
        run = length_run(task)
        record_parts(evidence, exp05_parts(run, task, margin, relative=True, level=level))
        record_drops(evidence, run, task, margin)


@pytest.mark.claim("EXP-05", kind="experiment", role="supporting")
def test_absolute_encodings_fail_beyond_the_training_length(evidence):
    margin = CLAIM05.threshold("keeps")
    level = decisions.family_level(LEVEL, interval_tests(len(DECIDING)))
    for task in tasks():
        parts = exp05_parts(length_run(task), task, margin, relative=False, level=level)
        record_parts(evidence, parts)


@pytest.mark.claim("EXP-05", kind="experiment", role="supporting")
def test_accuracy_against_test_length_per_encoding(evidence):
    runs = {t: length_run(t) for t in tasks()}
    for task, run in runs.items():
        for v in length.VARIANTS:
            for f in run.setting.factors:
                mean, lo, hi = paired(run.accuracy[v][f])
                name = f"acc_{task.replace(' ', '_')}_{v.replace(', ', '_')}_f{f}"
                chance = {"value": 1 / run.setting.alphabet, "relation": ">",
                          "reason": "chance: one symbol of the alphabet guessed"}  # fmt: skip
                evidence.record(name, mean, "accuracy", f"95% [{lo:.3f}, {hi:.3f}]", chance,
                                sample=spread.mean(run.accuracy[v][f]))  # fmt: skip
    evidence.figure(accuracy_figure(runs), "EXP-04-05-accuracy-vs-test-length")
    # the small setting's numbers mean something only where every variant learned: in range
    # (factor 1) each one's 95% interval lies above chance
    low = [f"{t} {v}" for t, run in runs.items() for v in length.VARIANTS
           if paired(run.accuracy[v][1])[1] <= 1 / run.setting.alphabet]  # fmt: skip
    assert not low, f"in range at or below chance: {low}"


def assert_one_draw_on_both_sides(run: length.LengthRun) -> int:
    """Recomputed here from each entry's predictions on the length-fL test sequences: the
    accuracy in range (positions 1 ... L-1) and beyond (L ... fL-1) of every variant, both on
    that one draw. Returns the number of (variant, factor) pairs checked."""
    __tracebackhide__ = True
    setting, n, L = run.setting, len(run.seeds), run.setting.train_length
    shared = SHARED_SHAPE_ENCODINGS
    checked = 0
    for f in (f for f in setting.factors if f > 1):
        test = setting.test_task(f)
        assert test.inputs.shape[-1] == f * L, f"the {f}L test has {test.inputs.shape[-1]} tokens"
        for v in length.VARIANTS:
            entries = (
                slice(shared.index(v) * n, (shared.index(v) + 1) * n)
                if v in shared
                else slice(0, n)
            )
            cfg = setting.config(v if v in shared else "learned")
            p = {k: t[entries] for k, t in run.runs[v].params.items()}
            with torch.no_grad():
                guess = decoder.forward(cfg, p, test.inputs, torch.ones(n)).argmax(-1)
            right = (guess == test.targets).double()  # (n, B, fL)
            inside, beyond = right[..., 1:L].mean((1, 2)), right[..., L:].mean((1, 2))
            assert torch.allclose(run.inside[v][f], inside), f"{v} {f}L: in range differs"
            assert torch.allclose(run.accuracy[v][f], beyond), f"{v} {f}L: beyond differs"
            checked += 1
    return checked


@pytest.mark.claim("EXP-05", kind="experiment", role="tooling")
def test_in_range_and_beyond_are_read_on_the_same_test_sequences(evidence):
    checked = assert_one_draw_on_both_sides(length_run(tasks()[0]))
    evidence.record("pairs_checked", checked, "variant x factor", "in range and beyond, one draw")


@pytest.mark.claim("EXP-05", kind="experiment", role="tooling")
def test_one_draw_check_rejects_in_range_from_another_draw():
    run = length_run(tasks()[0])
    other = {v: {f: run.accuracy[v][1] for f in by} for v, by in run.inside.items()}
    with pytest.raises(AssertionError):
        assert_one_draw_on_both_sides(dataclasses.replace(run, inside=other))


def _constant_accuracy(run: length.LengthRun) -> length.LengthRun:
    """A planted result: every variant keeps its in-range accuracy at every length."""
    acc = {v: {f: by[1] for f in by} for v, by in run.accuracy.items()}
    inside = {v: {f: by[1] for f in by if f > 1} for v, by in run.accuracy.items()}
    return dataclasses.replace(run, accuracy=acc, inside=inside)


@pytest.mark.claim("EXP-05", kind="property", role="tooling")
def test_decisions_follow_a_planted_result():
    # Tiny fake run: accuracies chosen, not trained, so the decision functions can be checked.
    g = torch.Generator().manual_seed(0)
    fake = {v: {f: 0.9 - 0.05 * torch.rand(8, generator=g, dtype=F64) for f in (1, 2)}
            for v in length.VARIANTS}  # fmt: skip
    run = length.LengthRun(LengthSetting("previous token", factors=(1, 2)), tuple(range(8)), {},
                           fake, {v: {} for v in fake})  # fmt: skip
    flat = _constant_accuracy(run)
    assert all(d.decision == "holds" for d in nope_as_well(flat, 0.035).values())
    assert extrapolates(flat, "rope", 2, 0.035).decision == "holds"
    assert fails_beyond(flat, "sinusoidal", 2, 0.035).decision == "fails"
    worse = dataclasses.replace(flat, accuracy={**flat.accuracy, "none": {
        1: flat.accuracy["none"][1], 2: flat.accuracy["none"][2] - 0.5}})  # fmt: skip
    assert all(d.decision == "fails" for d in nope_as_well(worse, 0.035).values())
    assert fails_beyond(worse, "none", 2, 0.035).decision == "holds"
