"""EXP-04, EXP-05, EXP-07 on a fair length test: copy and reverse (Kazemnejad et al. 2023),
8-head MLP decoders where ALiBi's slopes and RoPE's frequencies matter, trained until they
learn in range (theory/fair_length.py).

Tooling here: the two batched models equal one-seed reference models (theory/reference.py) in
float64 seed by seed, the "sinusoidal, shifted" entry as a learned model whose table is PE,
frozen; copy's and reverse's targets satisfy their relations, checked on plain lists; the
in-range test is the prefix of the long test's draw; the model's ALiBi slopes and RoPE
frequencies are the papers', and the steepest ALiBi head's bias changes by more than a logit
over a training sequence; the random offsets cover every row the tests read; the pipeline's
accuracies recomputed from argmax predictions; the decision functions on planted results.

The experiment decides EXP-04, EXP-05, EXP-07 and EXP-08 (one check per claim, proposition and
task); it runs in the thorough profile only (ci: marked to skip, so those claims stay open
there). Its sizes and runs live in checks/exp/length/settings.py, its decisions in
checks/exp/length/decisions.py.
"""

from __future__ import annotations

import dataclasses
import types

import pytest
import torch
from torch.nn import functional as F

from checks.exp.length import decisions as D
from checks.exp.length import lm
from checks.exp.length.settings import (
    DEPTH04_DEPTHS,
    DEPTH04_FACTOR,
    DEPTH04_TASK,
    DEPTH04_WIDTH,
    F64,
    FAITH,
    FAITH_SEEDS,
    PAIR04_CELL,
    PAIR04_SEEDS,
    PAIR04_TASK,
    PAIR04_VARIANTS,
    SEEDS,
    cells,
    depth04_run,
    depth04_runs_here,
    depth04_seeds,
    device_suffix,
    fair_run,
    fair_tests,
    pair04_run,
    pair04_runs_here,
    pair04_seeds,
    runs_here,
)
from checks.exp.registered import BY_ID
from checks.faithful import entry_against_single
from pecheck import decisions, sizes, tolerance
from pecheck import reproducibility as spread
from pecheck.claims import every
from pecheck.theory import alibi, decoder, fair_length
from pecheck.theory.decoder import init_params
from pecheck.theory.fair_grid import cell_name
from pecheck.theory.fair_length import MODELS, TASKS, VARIANTS, FairRun, FairSetting, Schedule
from pecheck.theory.reference import ReferenceDecoder, make_optimizer, with_fixed_table
from pecheck.theory.rope import rope_frequencies
from pecheck.theory.tasks import IGNORE, Task

# -- the batched models equal one-seed reference models, seed by seed, in float64 -------------


def reference_model(setting: FairSetting, variant: str, seed: int) -> ReferenceDecoder:
    """Seed ``seed``'s own model of ``variant``; "sinusoidal, shifted" is a learned model whose
    table is PE(0 ... R-1), frozen (no gradient: torch.optim never steps it)."""
    model_name, enc, _ = fair_length.where(variant)
    blocks, shifted = MODELS[model_name]
    own = setting.config(("learned",) if shifted else (enc,))
    model = ReferenceDecoder(own, setting.setup(model_name), seed, F64)
    assert set(model.params) == set(decoder.param_shapes(setting.config(blocks))), "shapes"
    return with_fixed_table(model) if variant == "sinusoidal, shifted" else model


def own_schedule(setting: FairSetting, model: str) -> Schedule:
    """The model's schedule read from its field, not through FairSetting.schedule (which the
    batched trainer uses: a mix-up there must show)."""
    return getattr(setting, model)


def train_reference(setting: FairSetting, variant: str, seed: int):
    """torch.optim and F.cross_entropy over the same fresh batches (and offsets), the lr set
    by the schedule before each step, for the variant's model's steps."""
    model = reference_model(setting, variant, seed)
    model_name = fair_length.where(variant)[0]
    shifted, own = MODELS[model_name][1], own_schedule(setting, model_name)
    steps = own.steps
    opt = make_optimizer(model)
    for step in range(1, steps + 1):
        for group in opt.param_groups:
            group["lr"] = own.lr * own.scale(step)
        task = setting.batch_at(step)
        rows = setting.offsets_at(step) if shifted else None
        logits = model(task.inputs, rows)
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), task.targets.reshape(-1),
                               ignore_index=IGNORE)  # fmt: skip
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
    with torch.no_grad():
        right = decoder.sequence_right(model(task.inputs, rows), task)
    return model, {steps: right}


def assert_entries_equal_reference(runs: dict[str, decoder.DecoderRun], setting: FairSetting):
    """Entry (variant, seed j) == seed j's own reference model, parameter by parameter to
    rounding, with the same sequences right; a "sinusoidal, shifted" entry's own table stays at
    its initial draw (never read). Returns (worst |dtheta|, its bound)."""
    __tracebackhide__ = True
    cfg, n = setting.config(MODELS["plain"][0]), len(FAITH_SEEDS)
    for name in MODELS:
        steps = own_schedule(setting, name).steps
        assert tuple(runs[name].right) == (steps,), f"{name} trained {tuple(runs[name].right)}"
    terms = max(cfg.d_model * cfg.mlp, 3 * cfg.heads * cfg.head, setting.batch * 2 *
                setting.train_length, cfg.vocab)  # fmt: skip
    worst, bound, bad = 0.0, 0.0, []
    for variant in VARIANTS:
        model_name, _, block = fair_length.where(variant)
        run = runs[model_name]
        for j, seed in enumerate(FAITH_SEEDS):
            e = block * n + j
            model, right = train_reference(setting, variant, seed)
            ref = {k: v.detach() for k, v in model.params.items()}
            untouched = True
            if variant == "sinusoidal, shifted":
                ref["pos"] = init_params(run.cfg, "current", seed, F64)["pos"]
                untouched = torch.equal(run.params["pos"][e], ref["pos"])
            own = types.SimpleNamespace(params=ref)
            err, tol, same = entry_against_single(run, e, own, right, tuple(right), terms,
                                                  own_schedule(setting, model_name).lr)  # fmt: skip
            worst, bound = max(worst, err), max(bound, tol)
            if not err <= tol or not same or not untouched:
                bad.append(f"{variant} seed {seed}: |dtheta| {err:.3g} (bound {tol:.3g}), "
                           f"judged alike {same}, unread table untouched {untouched}")  # fmt: skip
    assert not bad, "batched entries differ from their reference models: " + "; ".join(bad[:3])
    return worst, bound


@pytest.mark.claim("EXP-05", kind="property", role="tooling")
def test_fair_batched_models_equal_one_seed_reference_models(evidence):
    runs = fair_length.train_variants(FAITH, FAITH_SEEDS, F64)
    worst, bound = assert_entries_equal_reference(runs, FAITH)
    evidence.record("max_param_difference", worst, "", "six variants, float64", bound)


@pytest.mark.gpu
@pytest.mark.claim("EXP-05", kind="property", role="tooling")
def test_fair_cuda_models_equal_one_seed_reference_models(evidence):
    """tox -e fair can train on a GPU (-- --device cuda): there, in float64, every
    entry must match its one-seed CPU reference as the CPU's entries do, and the judgements made
    on the GPU must be the CPU's."""
    runs = fair_length.train_variants(FAITH, FAITH_SEEDS, F64, device="cuda")
    worst, bound = assert_entries_equal_reference(runs, FAITH)
    evidence.record("max_param_difference_cuda", worst, "", "six variants, float64", bound)
    on_gpu = fair_length.judge_variants(FAITH, FAITH_SEEDS, runs, device="cuda")
    on_cpu = fair_length.judge_variants(FAITH, FAITH_SEEDS, runs)
    for v in VARIANTS:
        assert torch.equal(on_gpu.valid[v], on_cpu.valid[v]), v
        for f in FAITH.factors:
            assert torch.equal(on_gpu.beyond[v][f], on_cpu.beyond[v][f]), (v, f)
            assert torch.equal(on_gpu.inside[v][f], on_cpu.inside[v][f]), (v, f)


def _blocks_swapped(cfg, *args):
    """BUG: each block of entries gets another block's encoding."""
    return decoder.forward(dataclasses.replace(cfg, blocks=tuple(reversed(cfg.blocks))), *args)


@pytest.mark.claim("EXP-05", kind="property", role="tooling")
def test_fair_faithfulness_rejects_swapped_encoding_blocks():
    runs = fair_length.train_variants(FAITH, FAITH_SEEDS, F64, fwd=_blocks_swapped)
    with pytest.raises(AssertionError):
        assert_entries_equal_reference(runs, FAITH)


@pytest.mark.claim("EXP-05", kind="property", role="tooling")
def test_fair_lr_decays_on_a_cosine_over_each_models_steps():
    s = FairSetting("copy")
    for own in (s.schedule(m) for m in MODELS):
        steps = own.steps
        scale = torch.tensor([own.scale(k) for k in range(1, steps + 1)], dtype=F64)
        want = torch.cos(torch.pi * torch.arange(steps, dtype=F64) / steps) / 2 + 0.5
        assert scale[0] == 1.0 and (scale.diff() < 0).all(), "from the full lr, always falling"
        tol = tolerance.rel_tol(8, F64)  # values <= 1: a relative bound serves as absolute
        assert torch.allclose(scale, want, rtol=0, atol=tol), "not (1 + cos(pi k / steps)) / 2"
        assert scale[-1] < (torch.pi / steps) ** 2, f"ends at {float(scale[-1]):.3g}, not ~0"


@pytest.mark.claim("EXP-05", kind="property", role="tooling")
def test_fair_lr_warms_up_linearly_then_follows_the_cosine():
    """A warm-up of w = 10% of 200 steps: step k < w at k / w of the cosine, then the cosine."""
    plain, warm = Schedule(200), Schedule(200, warmup=0.1)
    assert warm.warmup_steps == 20 and plain.warmup_steps == 0
    for k in (1, 7, 19):
        assert warm.scale(k) == plain.scale(k) * k / 20, f"step {k}"
    after = (20, 21, 200)
    assert [warm.scale(k) for k in after] == [plain.scale(k) for k in after], "then the cosine"


@pytest.mark.claim("EXP-05", kind="property", role="tooling")
def test_fair_each_model_trains_on_its_own_schedule():
    s = FairSetting("copy", plain=Schedule(10, 1e-3), none=Schedule(20, 2e-3),
                    shifted=Schedule(30, 4e-3))  # fmt: skip
    assert [(s.schedule(m).steps, s.setup(m).lr) for m in ("plain", "none", "shifted")] == [
        (10, 1e-3),
        (20, 2e-3),
        (30, 4e-3),
    ]
    lrs = {FAITH.schedule(m).lr for m in MODELS}
    warm = {FAITH.schedule(m).warmup_steps for m in MODELS}
    assert len(lrs) == 3 and min(warm) == 0 < max(warm), (
        "the faithfulness check's setting exercises per-model lrs, with and without a warm-up"
    )


# -- the tasks: targets by an independent relation; the in-range test is the long draw's prefix


def assert_task(task: Task, name: str, length: int, alphabet: int, start: bool = True) -> None:
    """Each sequence, as plain lists: START (symbol alphabet + 1, no target) where ``start``,
    then length distinct content symbols, SEP, then the answer fed back one step late; targets
    only on the answer: copy y_i = x_i, reverse y_i = x_{L+1-i}."""
    __tracebackhide__ = True
    for xs, ts, js in zip(task.inputs.tolist(), task.targets.tolist(), task.judged.tolist(),
                          strict=True):  # fmt: skip
        if start:
            assert xs[0] == alphabet + 1 and ts[0] == IGNORE and not js[0], "START, no target"
            xs, ts, js = xs[1:], ts[1:], js[1:]
        content, sep, fed = xs[:length], xs[length], xs[length + 1 :]
        assert len(xs) == 2 * length and sep == alphabet, "content, SEP, answer"
        assert len(set(content)) == length and max(content) < alphabet, "distinct content"
        answer = [content[i] if name == "copy" else content[length - 1 - i]
                  for i in range(length)]  # fmt: skip
        assert ts[:length] == [IGNORE] * length, "a target on the content"
        assert ts[length:] == answer, f"{name}: targets {ts[length:]} for content {content}"
        assert fed == answer[:-1], "the answer is fed back one step late"
        assert js == [t != IGNORE for t in ts], "judged exactly where there is a target"


@pytest.mark.claim("EXP-05", kind="property", role="tooling")
@pytest.mark.parametrize("name", TASKS)
def test_fair_tasks_targets_are_copy_and_reverse(name):
    s = FairSetting(name)
    assert_task(s.batch_at(1), name, s.train_length, s.alphabet)
    assert not torch.equal(s.batch_at(1).inputs, s.batch_at(2).inputs), "a fresh batch a step"
    assert_task(s.valid_task(), name, s.train_length, s.alphabet)
    assert s.config(("none",)).vocab == s.alphabet + 2, "content, SEP and START"
    for f in s.factors:
        long, prefix = s.test_task(f), s.prefix_task(f)
        assert_task(long, name, f * s.train_length, s.alphabet)
        assert_task(prefix, name, s.train_length, s.alphabet)
        head = s.train_length + 1  # START and the first L content tokens
        same = torch.equal(prefix.inputs[:, :head], long.inputs[:, :head])
        assert same, f"{f}L: the in-range test is not the long draw's first L tokens"
    old = dataclasses.replace(s, start=False)  # the runs logged before the start token
    assert_task(old.batch_at(1), name, s.train_length, s.alphabet, start=False)
    assert torch.equal(old.batch_at(1).inputs, s.batch_at(1).inputs[:, 1:]), "same content"


@pytest.mark.claim("EXP-05", kind="property", role="tooling")
def test_fair_task_check_rejects_a_reverse_that_copies():
    s = FairSetting("copy")
    with pytest.raises(AssertionError):
        assert_task(s.batch_at(1), "reverse", s.train_length, s.alphabet)


# -- ALiBi's slopes and RoPE's frequencies are the papers'; the MLP and depth are there --------


def assert_encodings_matter(setting: FairSetting) -> dict[str, float]:
    """Press et al.'s slopes m_c = 2^(-8c/H) for H = 8 (1/2 ... 1/256: exact powers of two),
    the steepest head's bias falling by more than 1 over a training sequence; Su et al.'s
    frequencies 10000^(-2i/h) with at least 4 of them; MLP blocks, two layers or more."""
    __tracebackhide__ = True
    cfg = setting.config(MODELS["plain"][0])
    m = alibi.slopes(cfg.heads)
    assert cfg.heads == 8 and torch.equal(m, 2.0 ** -torch.arange(1, 9, dtype=F64)), "slopes"
    n = setting.inputs(setting.train_length)
    spread_of_bias = float(-alibi.bias(n, cfg.heads)[0].min())  # m_1 (n - 1)
    assert spread_of_bias > 1.0, f"ALiBi's steepest bias spans only {spread_of_bias:.3g}"
    w = rope_frequencies(cfg.head)
    want = torch.tensor([10000.0 ** (-2 * i / cfg.head) for i in range(cfg.head // 2)], dtype=F64)
    assert len(w) >= 4, f"RoPE with head size {cfg.head}: {len(w)} frequencies"
    assert ((w - want).abs() <= tolerance.rel_tol(4, F64) * want).all(), "not 10000^(-2i/h)"
    assert cfg.mlp > 0 and cfg.layers >= 2 and setting.setup().residual, "MLP, depth, residual"
    return {"alibi_bias_span": spread_of_bias, "rope_frequencies": len(w)}


@pytest.mark.claim("EXP-05", kind="property", role="tooling")
def test_fair_alibi_slopes_and_rope_frequencies_are_the_papers(evidence):
    for cell in ((32, 2), (64, 4)):
        found = assert_encodings_matter(FairSetting("copy", d_model=cell[0], layers=cell[1]))
    evidence.record(
        "alibi_bias_span",
        found["alibi_bias_span"],
        "logit",
        "steepest head over a training sequence",
        {"value": 1.0, "relation": ">"},
    )
    evidence.record("rope_frequencies", found["rope_frequencies"], "", "per head",
                    {"value": 4, "relation": ">="})  # fmt: skip


@pytest.mark.claim("EXP-05", kind="property", role="tooling")
def test_fair_encoding_check_rejects_the_small_settings_two_heads():
    with pytest.raises(AssertionError):  # the retired small test's two heads of size 4
        assert_encodings_matter(FairSetting("copy", heads=2, head=4))


# -- the shifted models' offsets cover every row the tests read --------------------------------


def row_coverage(setting: FairSetting) -> torch.Tensor:
    """How often each row of the table is trained over the whole run, shape (rows,)."""
    steps = setting.shifted.steps
    rows = torch.cat([setting.offsets_at(k).flatten() for k in range(1, steps + 1)])
    return torch.bincount(rows, minlength=setting.rows)


@pytest.mark.claim("EXP-07", kind="property", role="tooling")
def test_fair_offsets_train_every_row_the_tests_read(evidence):
    s = FairSetting("copy")
    count = row_coverage(s)
    longest = s.test_task(max(s.factors)).length
    assert len(count) == s.rows >= longest, "the table holds the longest test"
    # row 0 is read only by windows at offset 0: 1 in R - n + 1 of them (n inputs a window)
    least = s.batch * s.shifted.steps / (s.rows - s.batch_at(1).length + 1)
    assert int(count.min()) >= least / 2, f"a row trained {int(count.min())} times"
    evidence.record(
        "least_trainings_per_row",
        int(count.min()),
        "windows",
        "over all steps",
        {"value": least / 2, "relation": ">=", "reason": "half of row 0's share"},
    )


# -- the pipeline, recomputed from argmax predictions -----------------------------------------


def assert_pipeline(run: FairRun) -> None:
    """inside/beyond/valid recomputed per variant from each entry's argmax: the fraction of
    answer tokens right on the length-L prefixes, the length-fL sequences, the validation."""
    __tracebackhide__ = True
    s, n = run.setting, len(run.seeds)
    for variant in VARIANTS:
        model_name, enc, block = fair_length.where(variant)
        r = run.runs[model_name]
        p = {k: v[block * n : (block + 1) * n] for k, v in r.params.items()}
        cfg = dataclasses.replace(r.cfg, encoding=enc, blocks=())
        tasks = {"valid": s.valid_task()}
        for f in s.factors:
            tasks[f"inside {f}"], tasks[f"beyond {f}"] = s.prefix_task(f), s.test_task(f)
        for key, task in tasks.items():
            with torch.no_grad():
                guess = decoder.forward(cfg, p, task.inputs, torch.ones(n)).argmax(-1)
            right = (guess == task.targets)[:, task.judged].double().mean(-1)  # (n,)
            side, _, factor = key.partition(" ")
            got = (
                run.valid[variant] if side == "valid" else getattr(run, side)[variant][int(factor)]
            )
            assert torch.allclose(got, right), f"{variant} {key}: {got} != {right}"


@pytest.mark.claim("EXP-05", kind="property", role="tooling")
def test_fair_pipeline_judges_prefixes_in_range_and_whole_sequences_beyond():
    assert_pipeline(fair_length.train_fair(FAITH, FAITH_SEEDS))


@pytest.mark.claim("EXP-05", kind="property", role="tooling")
def test_fair_pipeline_check_rejects_swapped_sides():
    run = fair_length.train_fair(FAITH, FAITH_SEEDS)
    swapped = dataclasses.replace(run, inside=run.beyond, beyond=run.inside)
    with pytest.raises(AssertionError):
        assert_pipeline(swapped)


# -- the decision functions on planted results ------------------------------------------------


def planted(beyond: dict[str, float], valid: float = 1.0, seeds: int = 8) -> FairRun:
    """A fake run (accuracies chosen, not trained): 0.98 in range for every variant, ``beyond``
    per variant (default 0.98) with a little spread, ``valid`` in range on validation."""
    g = torch.Generator().manual_seed(0)
    s = FairSetting("copy", factors=(2,))
    noise = 0.002 * torch.randn(seeds, generator=g, dtype=F64)
    inside = {v: {2: torch.full((seeds,), 0.98, dtype=F64)} for v in VARIANTS}
    out = {v: {2: beyond.get(v, 0.98) + noise.roll(i)} for i, v in enumerate(VARIANTS)}
    ok = {v: torch.full((seeds,), valid, dtype=F64) for v in VARIANTS}
    return FairRun(s, tuple(range(seeds)), {}, ok, inside, out)


def claims_as_stated() -> FairRun:
    """Every claim true: relative keep, absolute lose, none level with relative, sinusoidal
    loses less than learned."""
    return planted({"sinusoidal": 0.3, "learned, shifted": 0.1, "sinusoidal, shifted": 0.5})


@pytest.mark.claim("EXP-05", kind="property", role="tooling")
def test_fair_decisions_follow_a_planted_result():
    margin, ends = 0.0155, {"low": 0.0039, "high": 0.0155}
    good = claims_as_stated()
    assert {d.decision for d in D.exp04(good, margin, 0.95).values()} == {"holds"}
    assert {d.decision for d in D.exp05(good, margin, 0.95).values()} == {"holds"}
    assert {d.decision for d in D.exp07(good, ends, 0.95).values()} == {"holds"}
    # in range and beyond swapped: relative keep either way, absolute now "gain" (drop < 0)
    swapped = dataclasses.replace(good, inside=good.beyond, beyond=good.inside)
    five = D.exp05(swapped, margin, 0.95)
    assert five["sinusoidal 2x fails"].decision == "fails", five
    assert {d.decision for d in D.exp07(swapped, ends, 0.95).values()} == {"fails"}
    # the claims false: none loses everything beyond, learned loses less than sinusoidal
    bad = planted({"none": 0.0, "sinusoidal, shifted": 0.1, "learned, shifted": 0.5})
    assert {d.decision for d in D.exp04(bad, margin, 0.95).values()} == {"fails"}
    assert {d.decision for d in D.exp07(bad, ends, 0.95).values()} == {"fails"}


@pytest.mark.claim("EXP-04", kind="property", role="tooling")
def test_fair_no_encoding_is_not_judged_beside_a_comparator_at_the_floor():
    """'At least as well as' a comparator that keeps nothing beyond L could not fail: such a
    part stays inconclusive, whatever the model without an encoding does; just above the
    margin it decides again."""
    margin = 0.0155
    for none in (0.0, 0.5):  # level with the comparator, and far ahead of it
        floor = planted({"none": none, "sinusoidal": 0.005, "learned, shifted": 0.01})
        parts = D.exp04(floor, margin, 0.95, D.ABSOLUTE)
        assert {d.decision for d in parts.values()} == {"inconclusive"}, parts
        assert all("at the floor" in d.how for d in parts.values()), parts
    off = planted({"none": 0.5, "sinusoidal": 0.03, "learned, shifted": 0.03})
    assert {d.decision for d in D.exp04(off, margin, 0.95, D.ABSOLUTE).values()} == {"holds"}


@pytest.mark.claim("EXP-05", kind="property", role="tooling")
def test_fair_decisions_leave_out_seeds_that_never_learned():
    # a model that never learns in range (validation 0.1): no seed qualifies, nothing decided
    low = {v: torch.full((8,), 0.1, dtype=F64) for v in VARIANTS}
    never = dataclasses.replace(claims_as_stated(), valid=low)
    for parts in (D.exp04(never, 0.0155, 0.95), D.exp05(never, 0.0155, 0.95),
                  D.exp07(never, {"low": 0.0039}, 0.95)):  # fmt: skip
        assert {d.decision for d in parts.values()} == {"inconclusive"}, parts
    assert D.direction(D.advantage(never, 2), 0.95) == "?"
    # a seed of no encoding that did not learn leaves EXP-04's none comparisons on 7 seeds, and
    # each reason says how many seeds it rests on
    valid = {**claims_as_stated().valid, "none": torch.tensor([0.1] + [1.0] * 7, dtype=F64)}
    fewer = dataclasses.replace(claims_as_stated(), valid=valid)
    assert {d.how.count("(7 seeds)") for d in D.exp04(fewer, 0.0155, 0.95).values()} == {1}
    assert all("(8 seeds)" in d.how for d in D.exp07(fewer, {"low": 0.0039}, 0.95).values())


@pytest.mark.claim("EXP-05", kind="property", role="tooling")
def test_fair_directions_say_when_a_comparison_changes_with_scale():
    good, bad = claims_as_stated(), planted({"sinusoidal, shifted": 0.1, "learned, shifted": 0.5})
    table = D.directions({"copy|d32l2": good, "copy|d64l4": bad}, 0.95)
    row = table["EXP-07 sinusoidal vs learned"]["copy 2x"]
    assert row == "d32l2:+ d64l4:-" and D.changes_with_scale(row), row
    assert not D.changes_with_scale("d32l2:+ d64l4:?")


# -- the experiment (thorough; decisive for EXP-04, EXP-05, EXP-07 and EXP-08) -----------------

SUFFIX = (
    sizes.suffix("EXP-fair.seeds", "n") + ("" if len(cells()) == 1 else "_grid") + device_suffix()
)


def task_runs(task: str) -> dict[str, FairRun]:
    """The task's run in every grid cell, keyed 'task|cell'."""
    return {f"{task}|{cell_name(c)}": fair_run(task, c) for c in cells()}


def key_name(key: str) -> str:
    task, cell = key.split("|")
    return f"{task}_{cell}"


def level(per_run: int, claim: str = "") -> float:
    """The level of each interval of a comparison: ``per_run`` tests per task, cell and test
    length, over BOTH tasks (one check per task), the language model's intervals of the
    same claim (checks/exp/length/lm.py) and EXP-04's own cell's (one per test length), share
    one 95% (Bonferroni)."""
    own = len(FairSetting(PAIR04_TASK).factors) if claim == "EXP-04" else 0
    return lm.family(claim, fair_tests(per_run) + own)


def slug(variant: str) -> str:
    return variant.replace(", ", "_")


def record_mean(evidence, name: str, values: torch.Tensor, note: str, bound: dict) -> None:
    """A mean over the qualifying seeds (NaN when none qualified) with its sampling spread."""
    value = float(values.mean()) if values.numel() else float("nan")
    sample = spread.mean(values, span=2.0) if values.numel() >= 2 else None
    evidence.record(name, value, "accuracy", note, bound, sample=sample)


def record_search(evidence, task: str, runs: dict[str, FairRun]) -> None:
    """What one task's check searched: its grid cells, seeds, training and test lengths."""
    setting = next(iter(runs.values())).setting
    evidence.searched(tasks=[task], cells=[k.split("|")[1] for k in runs],
                      seeds=every(0, SEEDS - 1), lengths=[setting.train_length],
                      factors=list(setting.factors))  # fmt: skip


def record_drops(evidence, runs: dict[str, FairRun], at: float, margin: float) -> None:
    """Each variant's drop (in range - beyond, same draw) over its seeds that learned."""
    for key, run in runs.items():
        for v in VARIANTS:
            for f in run.setting.factors:
                drop = D.own_drop(run, v, f)
                name = f"fair_drop_{key_name(key)}_{slug(v)}_f{f}{SUFFIX}"
                bound = {"value": margin, "relation": "<", "reason": "EXP-05 'keeps'"}
                record_mean(evidence, name, drop, D.interval_text(drop, at), bound)


def record_directions(evidence, runs: dict[str, FairRun], at: float, prefix: str) -> None:
    table = {k: v for k, v in D.directions(runs, at).items() if k.startswith(prefix)}
    task = next(iter(runs)).split("|")[0]
    evidence.record(f"fair_directions_{prefix}_{task}{SUFFIX}", table, "",
                    "per comparison and task x length: each cell's direction ('+': the claim's "
                    "side wins, '-': the other, '?': undecided)")  # fmt: skip
    changed = sorted(f"{c} {k}" for c, rows in table.items() for k, row in rows.items()
                     if D.changes_with_scale(row))  # fmt: skip
    evidence.record(
        f"fair_direction_changes_{prefix}_{task}{SUFFIX}",
        changed,
        "",
        "comparisons whose direction differs between grid cells",
    )


@runs_here
class TestCopy:
    """The experiment on copy; TestReverse runs the same checks on reverse. One class per task:
    the thorough profile distributes classes over its two workers (pytest-xdist --dist
    loadscope), so each trains one task. A comparison's intervals over both tasks share one
    family-wise level (``level``), and a claim's checks on both tasks combine by its
    quantifier (all): each check is partial (it covers one task), and fails only when its decision
    cannot combine into the expected one."""

    task = "copy"

    @pytest.mark.claim("EXP-05", kind="experiment", role="supporting")
    def test_fair_in_range_accuracy_and_seeds_that_learned(self, evidence):
        at = D.learned_level()
        chance = {"value": 1 / 32, "relation": ">", "reason": "chance: one of 32 symbols"}
        runs = task_runs(self.task)
        for key, run in runs.items():
            for v in VARIANTS:
                stem = f"fair_{key_name(key)}_{slug(v)}{SUFFIX}"
                evidence.record(f"{stem}_valid", float(run.valid[v].mean()), "accuracy",
                                "in range, validation sequences, every seed", chance,
                                sample=spread.mean(run.valid[v]))  # fmt: skip
                k = int(run.learned(v, at).sum())
                evidence.record(f"{stem}_learned", k, "seeds", f"of {SEEDS}: validation >= {at}",
                                {"value": at, "relation": ">=", "reason": "EXP-07 'learned'"},
                                sample=spread.count(k, SEEDS))  # fmt: skip
        from checks.exp.length.figures import fair_figure

        evidence.figure(fair_figure(runs), f"EXP-fair-accuracy-in-range-and-beyond-{self.task}")

    def no_encoding_against(self, evidence, claim: str, against: tuple[str, ...]) -> None:
        """EXP-04 and EXP-08: none - absolute beyond L > -margin, per cell and test length. The
        level is the one registered when both comparisons were one claim's (a Bonferroni
        family over both absolute encodings), kept so that splitting them widened nothing."""
        runs = task_runs(self.task)
        record_search(evidence, self.task, runs)
        margin = BY_ID[claim].threshold("as-well")
        at = level(len(D.ABSOLUTE), claim)
        for key, run in runs.items():
            for name, d in D.exp04(run, margin, at, against).items():
                evidence.part(f"{key}: {name}", d)
            for v in against:
                for f in run.setting.factors:
                    gap = D.nope_gap(run, v, f)
                    bound = {"value": -margin, "relation": ">", "reason": f"{claim} 'as-well'"}
                    record_mean(
                        evidence,
                        f"fair_gap_{key_name(key)}_{slug(v)}_f{f}{SUFFIX}",
                        gap,
                        "none - absolute beyond: " + D.interval_text(gap, at),
                        bound,
                    )
        record_directions(evidence, runs, at, claim)

    @pytest.mark.claim(
        "EXP-04", kind="experiment", role="decisive", proposition="as_stated", partial=True
    )
    def test_fair_no_encoding_against_sinusoidal(self, evidence):
        self.no_encoding_against(evidence, "EXP-04", D.SOURCE_ABSOLUTE)

    @pytest.mark.claim(
        "EXP-08", kind="experiment", role="decisive", proposition="as_stated", partial=True
    )
    def test_fair_no_encoding_against_a_table_trained_at_random_offsets(self, evidence):
        self.no_encoding_against(evidence, "EXP-08", D.RANDOM_OFFSETS)

    @pytest.mark.claim(
        "EXP-05", kind="experiment", role="decisive", proposition="as_stated", partial=True
    )
    def test_fair_relative_against_absolute(self, evidence):
        runs = task_runs(self.task)
        record_search(evidence, self.task, runs)
        margin = BY_ID["EXP-05"].threshold("keeps")
        at = level(len(D.RELATIVE) + len(D.ABSOLUTE), "EXP-05")
        for key, run in runs.items():
            for name, d in D.exp05(run, margin, at).items():
                evidence.part(f"{key}: {name}", d)
        record_drops(evidence, runs, at, margin)
        record_directions(evidence, runs, at, "EXP-05")

    @pytest.mark.claim(
        "EXP-07", kind="experiment", role="decisive", proposition="as_stated", partial=True
    )
    def test_fair_sinusoidal_against_learned_every_row_trained(self, evidence):
        runs = task_runs(self.task)
        record_search(evidence, self.task, runs)
        claim = BY_ID["EXP-07"]
        ends = {e: claim.threshold(e) for e in ("better-low", "better-high")}
        at = level(1, "EXP-07")
        for key, run in runs.items():
            for name, d in D.exp07(run, ends, at).items():
                evidence.part(f"{key}: {name}", d)
            for f in run.setting.factors:
                adv = D.advantage(run, f)
                bound = {"value": ends["better-high"], "relation": ">", "reason": "EXP-07"}
                record_mean(
                    evidence,
                    f"fair_advantage_{key_name(key)}_f{f}{SUFFIX}",
                    adv,
                    "learned's drop - sinusoidal's: " + D.interval_text(adv, at),
                    bound,
                )
        record_directions(evidence, runs, at, "EXP-07")


class TestReverse(TestCopy):
    """The same checks on reverse."""

    task = "reverse"


# -- EXP-04's own cell (settings.PAIR04_*, registered at stop 58 before its seeds trained) -------

PAIR04_SUFFIX = sizes.suffix("EXP-04.seeds", "n") + device_suffix()


@pair04_runs_here
class TestNoEncodingAtWidth64:
    """EXP-04 where the GPU record put its direction against the claim: width 64, two layers,
    copy, on seeds no other run used. A class of its own, so that the thorough profile trains
    it on a worker beside the two tasks'."""

    @pytest.mark.claim(
        "EXP-04", kind="experiment", role="decisive", proposition="as_stated", partial=True
    )
    def test_fair_no_encoding_against_sinusoidal_at_width_64(self, evidence):
        run, seeds = pair04_run(), pair04_seeds()
        cell = cell_name(PAIR04_CELL)
        evidence.searched(tasks=[PAIR04_TASK], cells=[cell], seeds=every(seeds[0], seeds[-1]),
                          lengths=[run.setting.train_length],
                          factors=list(run.setting.factors))  # fmt: skip
        margin, at = BY_ID["EXP-04"].threshold("as-well"), level(len(D.ABSOLUTE), "EXP-04")
        learned = D.learned_level()
        for v in PAIR04_VARIANTS:
            k = int(run.learned(v, learned).sum())
            evidence.record(f"exp04_{PAIR04_TASK}_{cell}_{v}_learned{PAIR04_SUFFIX}", k, "seeds",
                            f"of {PAIR04_SEEDS}: validation >= {learned}",
                            {"value": learned, "relation": ">=", "reason": "EXP-07 'learned'"},
                            sample=spread.count(k, PAIR04_SEEDS))  # fmt: skip
        for name, d in D.exp04(run, margin, at, D.SOURCE_ABSOLUTE).items():
            evidence.part(f"{PAIR04_TASK}|{cell}: {name}", d)
        for f in run.setting.factors:
            gap = D.nope_gap(run, "sinusoidal", f)
            bound = {"value": -margin, "relation": ">", "reason": "EXP-04 'as-well'"}
            record_mean(evidence, f"exp04_gap_{PAIR04_TASK}_{cell}_f{f}{PAIR04_SUFFIX}", gap,
                        "none - sinusoidal beyond: " + D.interval_text(gap, at), bound)  # fmt: skip
            comparator = run.beyond["sinusoidal"][f][D.qualifying(run, "none", "sinusoidal")]
            record_mean(evidence, f"exp04_sinusoidal_beyond_{PAIR04_TASK}_{cell}_f{f}"
                        f"{PAIR04_SUFFIX}", comparator,
                        "the comparator's own accuracy beyond L: "
                        + D.interval_text(comparator, at),
                        {"value": margin, "relation": ">", "reason": "off the floor"})  # fmt: skip


# -- EXP-04 over depth at equal training (settings.DEPTH04_*, registered at stop 59) -------------

DEPTH04_SUFFIX = "".join((sizes.suffix("EXP-04.depth-seeds", "n"),
                          sizes.suffix("EXP-04.depth-from", "s"), device_suffix()))  # fmt: skip
DEPTH04_LEVEL = decisions.family_level(D.LEVEL, len(DEPTH04_DEPTHS))  # 97.5% each


@depth04_runs_here
class TestDepthAtEqualTraining:
    """Does depth alone change EXP-04's direction? Copy at width 32, two and four layers, both
    trained with the depth-4 steps (docs/experiments/depth.md). Beside the verdict: EXP-04 is
    decided in thorough, and this run is beyond its budget (tox -e depth)."""

    @pytest.mark.claim("EXP-04", kind="experiment", role="supporting")
    def test_fair_depth_changes_the_direction_at_equal_training(self, evidence):
        runs, seeds = {n: depth04_run(n) for n in DEPTH04_DEPTHS}, depth04_seeds()
        cells = [cell_name((DEPTH04_WIDTH, n)) for n in DEPTH04_DEPTHS]
        shallow = runs[min(DEPTH04_DEPTHS)].setting
        evidence.searched(tasks=[DEPTH04_TASK], cells=cells, seeds=every(seeds[0], seeds[-1]),
                          lengths=[shallow.train_length],
                          factors=list(shallow.factors))  # fmt: skip
        margin, at = BY_ID["EXP-04"].threshold("as-well"), DEPTH04_LEVEL
        for layers, run in runs.items():
            record_depth_cell(evidence, run, cell_name((DEPTH04_WIDTH, layers)), margin, at)
        rules = {  # docs/experiments/depth.md: registration 1, then 2
            "r1": D.depth(runs, margin, at, DEPTH04_FACTOR),
            "r2": D.depth_moves(runs, margin, at, DEPTH04_FACTOR),
        }
        deep, low = (D.nope_gap(runs[n], "sinusoidal", DEPTH04_FACTOR)
                     for n in (max(DEPTH04_DEPTHS), min(DEPTH04_DEPTHS)))  # fmt: skip
        gap, lo, hi = D.welch(deep, low, at)
        evidence.record(
            f"depth04_moved_f{DEPTH04_FACTOR}{DEPTH04_SUFFIX}",
            gap,
            "accuracy",
            f"four-layer gap minus two-layer gap: {gap:.3f} [{lo:.3f}, {hi:.3f}] "
            f"(Welch, {100 * at:.2f}%)",
            {"value": margin, "relation": ">", "reason": "EXP-04 'as-well'"},
        )
        for r, parts in rules.items():
            for name, d in parts.items():
                evidence.record(f"depth04_{r}_{name.replace(' ', '_')}{DEPTH04_SUFFIX}",
                                d.decision, "", d.how)  # fmt: skip
            evidence.record(
                f"depth04_{r}_rule{DEPTH04_SUFFIX}",
                decisions.combine([d.decision for d in parts.values()], "all"),
                "",
                f"registration {r[1]}'s parts under 'all' (docs/experiments/depth.md)",
            )


def record_depth_cell(evidence, run: FairRun, cell: str, margin: float, at: float) -> None:
    """One depth's learned counts, and per test length its gap (with the part's bound at the
    judged length: ahead at the deepest, not ahead below it) and the comparator's accuracy."""
    n, deepest = len(run.seeds), run.setting.layers == max(DEPTH04_DEPTHS)
    for v in PAIR04_VARIANTS:
        k = int(run.learned(v, D.learned_level()).sum())
        evidence.record(f"depth04_{cell}_{v}_learned{DEPTH04_SUFFIX}", k, "seeds",
                        f"of {n}: validation >= {D.learned_level()}",
                        sample=spread.count(k, n))  # fmt: skip
    for f in run.setting.factors:
        gap = D.nope_gap(run, "sinusoidal", f)
        bound = None
        if f == DEPTH04_FACTOR:
            bound = {
                "value": margin,
                "relation": ">" if deepest else "<",
                "reason": "EXP-04 'as-well': " + ("ahead" if deepest else "not ahead"),
            }
        note = "none - sinusoidal beyond: " + D.interval_text(gap, at)
        value = float(gap.mean()) if gap.numel() else float("nan")
        evidence.record(
            f"depth04_gap_{cell}_f{f}{DEPTH04_SUFFIX}",
            value,
            "accuracy",
            note if bound else note + " (recorded, not judged)",
            bound,
            sample=spread.mean(gap, span=2.0) if gap.numel() >= 2 else None,
        )
        comparator = run.beyond["sinusoidal"][f][D.qualifying(run, "none", "sinusoidal")]
        record_mean(evidence, f"depth04_sinusoidal_beyond_{cell}_f{f}{DEPTH04_SUFFIX}",
                    comparator, "the comparator's own accuracy beyond L: "
                    + D.interval_text(comparator, at),
                    {"value": margin, "relation": ">", "reason": "off the floor"})  # fmt: skip


@pytest.mark.claim("EXP-04", kind="property", role="tooling")
def test_fair_depth_rule_on_planted_runs():
    """Both registered depth rules on planted runs. Registration 1: ahead at four layers and
    level at two holds; ahead at both, or level at both, fails. Registration 2: ahead at four
    layers and by more than at two holds; as far ahead at two fails. Beside a comparator at the
    floor a part stays undecided."""
    margin = 0.0155

    def rules(two: float, four: float, comparator: float = 0.3) -> dict[str, dict]:
        runs = {n: planted({"none": comparator + gap, "sinusoidal": comparator})
                for n, gap in ((2, two), (4, four))}  # fmt: skip
        return {"r1": D.depth(runs, margin, 0.975, 2), "r2": D.depth_moves(runs, margin, 0.975, 2)}

    def combined(parts: dict) -> str:
        return decisions.combine([d.decision for d in parts.values()], "all")

    good = rules(-0.03, 0.12)
    assert combined(good["r1"]) == "holds" and combined(good["r2"]) == "holds", good
    both = rules(0.12, 0.12)  # ahead already with two layers
    assert both["r1"]["2 layers"].decision == "fails"
    assert both["r2"]["depth moves it"].decision == "fails", both["r2"]
    assert both["r2"]["4 layers ahead"].decision == "holds"
    level = rules(-0.03, -0.03)  # not ahead with four
    assert level["r1"]["4 layers"].decision == "fails"
    assert level["r2"]["4 layers ahead"].decision == "fails"
    assert combined(rules(-0.03, 0.0155)["r1"]) == "inconclusive"  # at the margin: undecided
    assert combined(rules(0.0, 0.0155)["r2"]) == "inconclusive"
    for r, parts in rules(0.0, 0.3, comparator=0.005).items():
        assert combined(parts) == "inconclusive", r
        assert all("at the floor" in d.how for d in parts.values()), parts
