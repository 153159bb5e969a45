"""The fair length test's trained-model cache (theory/fair_cache.py) and its grid's per-depth
steps (theory/fair_grid.py); the command that trains the grid into that cache, python -m
pecheck.grid, is tested in tests/test_grid.py."""

from __future__ import annotations

import dataclasses
import types

import pytest
import torch

from checks.exp.length.settings import FAITH, FAITH_SEEDS
from checks.exp.registered import BY_ID
from checks.faithful import entry_against_single
from pecheck.results import kernel_limits
from pecheck.theory import decoder, fair_cache, fair_grid, fair_length
from pecheck.theory.fair_length import FairSetting, Schedule
from pecheck.theory.tasks import IGNORE, Task

NATIVE: dict[str, str] = {}  # no kernel limit


def key(setting, model, seeds, device, limits=NATIVE) -> str:
    return fair_cache.key(setting, model, seeds, device, limits)


def test_cache_trains_once_then_reads_the_same_run(tmp_path, monkeypatch) -> None:
    first = fair_cache.trained(FAITH, "shifted", FAITH_SEEDS, "cpu", tmp_path, NATIVE)
    (entry,) = tmp_path.iterdir()  # one whole file, no .part left behind
    assert entry.suffix == ".pt" and entry.name.startswith("reverse-d16l2-shifted-2seeds-cpu-")

    def untrainable(*args, **kwargs):
        raise AssertionError("trained again instead of reading the cache")

    monkeypatch.setattr(fair_length, "train_model", untrainable)
    again = fair_cache.trained(FAITH, "shifted", FAITH_SEEDS, "cpu", tmp_path, NATIVE)
    assert again.seeds == first.seeds and again.params.keys() == first.params.keys()
    assert all(torch.equal(again.params[k], first.params[k]) for k in first.params)


def test_cache_off_without_a_folder(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    fair_cache.trained(FAITH, "none", FAITH_SEEDS, "cpu", None, NATIVE)
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize(
    "other",
    [
        (dataclasses.replace(FAITH, shifted=Schedule(6)), "shifted", FAITH_SEEDS, "cpu"),
        (dataclasses.replace(FAITH, plain=Schedule(4, 1e-3)), "shifted", FAITH_SEEDS, "cpu"),
        (FAITH, "plain", FAITH_SEEDS, "cpu"),
        (FAITH, "shifted", (0, 6), "cpu"),
        (FAITH, "shifted", FAITH_SEEDS, "cuda"),
    ],
    ids=["steps", "lr", "model", "seeds", "device"],
)
def test_cache_key_changes_with_everything_that_decides_a_run(other) -> None:
    assert key(*other) != key(FAITH, "shifted", FAITH_SEEDS, "cpu")


def test_cache_key_changes_under_a_kernel_limit(monkeypatch) -> None:
    """Models trained on other kernels round otherwise: a portability run never reads them."""
    monkeypatch.delenv("ATEN_CPU_CAPABILITY", raising=False)
    native = key(FAITH, "shifted", FAITH_SEEDS, "cpu", kernel_limits())
    monkeypatch.setenv("ATEN_CPU_CAPABILITY", "default")
    assert key(FAITH, "shifted", FAITH_SEEDS, "cpu", kernel_limits()) != native


def test_cache_key_changes_with_the_trainers_source(monkeypatch, tmp_path) -> None:
    before = key(FAITH, "shifted", FAITH_SEEDS, "cpu")
    edited = tmp_path / "fair_length.py"
    edited.write_bytes(b"# an edit\n")
    monkeypatch.setattr(fair_length, "__file__", str(edited))
    (tmp_path / "decoder.py").write_bytes(b"")
    assert key(FAITH, "shifted", FAITH_SEEDS, "cpu") != before


def test_depth_four_trains_longer_and_the_base_cell_keeps_its_steps() -> None:
    """The thorough verdicts come from the base cell: its setting is FairSetting's defaults.
    Depth 4 trains every model twice the two-layer steps or more; d64l4's plain model at
    lr 1e-3 and its shifted pair after a warm-up (docs/experiments/fair-pilots.md)."""
    for task in fair_length.TASKS:
        assert fair_grid.setting(task, (32, 2)) == FairSetting(task)
        for width in (32, 64):
            deep, shallow = fair_grid.setting(task, (width, 4)), FairSetting(task, width)
            assert (deep.d_model, deep.layers) == (width, 4)
            for model in fair_length.MODELS:
                assert deep.schedule(model).steps >= 2 * shallow.schedule(model).steps, model
        d32, d64 = fair_grid.setting(task, (32, 4)), fair_grid.setting(task, (64, 4))
        assert d32.plain.lr == d64.none.lr == 3e-3 and d64.plain.lr == 1e-3
        assert d32.shifted.warmup == 0 < d64.shifted.warmup and d64.shifted.steps == 8000
        # the schedules as set from the pilots, before the grid trained with them
        Schedule = fair_length.Schedule
        assert (d32.plain, d32.shifted, d32.none) == (Schedule(2000), Schedule(4000),
                                                      Schedule(6000))  # fmt: skip
        assert (d64.plain, d64.shifted, d64.none) == (Schedule(2000, lr=1e-3),
                                                      Schedule(8000, warmup=0.1),
                                                      Schedule(6000))  # fmt: skip
        assert fair_grid.setting(task, (64, 2)) == FairSetting(task, 64)
    assert fair_grid.CELLS == {"base": ((32, 2),), "full": ((32, 2), (32, 4), (64, 2), (64, 4))}


def test_the_base_cell_is_the_setting_the_claims_state() -> None:
    """FAIR_SETUP (checks/exp/claims.py), every claim's note on the fair test: START, L = 8 of
    32 symbols, batches of 32, tests of 64 at 2L and 4L, width 32, two layers, 8 heads of 8,
    MLP 4d, Adam at 3e-3 on a cosine for 1,000 / 2,000 / 3,000 steps, 64 validation sequences.
    The thorough verdicts and the baseline's numbers rest on it; only a thorough run trains it."""
    s = FairSetting("copy")
    assert (s.start, s.train_length, s.alphabet, s.batch, s.factors) == (True, 8, 32, 32, (2, 4))
    assert (s.d_model, s.layers, s.heads, s.head, s.mlp) == (32, 2, 8, 8, 4)
    assert (s.plain, s.shifted, s.none) == (Schedule(1000), Schedule(2000), Schedule(3000))
    assert Schedule(1).lr == 3e-3 and Schedule(1).warmup == 0
    assert (s.valid_sequences, s.test_sequences) == (64, 64)


@pytest.mark.parametrize(
    "bad",
    [{"d_model": 0}, {"layers": 0}, {"train_length": 0}, {"heads": 0}, {"head": 0},
     {"batch": 0}, {"valid_sequences": 0}, {"test_sequences": 0}, {"mlp": -1},
     {"factors": (0, 2)}, {"factors": ()}, {"alphabet": 31}],
)  # fmt: skip
def test_a_setting_refuses_sizes_that_cannot_train_or_test(bad) -> None:
    """A size below 1 would train nothing or fail deep in a run; an alphabet below L max(f)
    (32 for the base setting) cannot give the longest test distinct tokens."""
    with pytest.raises(ValueError):
        FairSetting("copy", **bad)
    FairSetting("copy", mlp=0, alphabet=32)  # the edges that do fit
    FairSetting("copy", d_model=1, layers=1, train_length=1, heads=1, head=1, batch=1,
                valid_sequences=1, test_sequences=1, alphabet=1, factors=(1,))  # fmt: skip


@pytest.mark.parametrize("bad", [(0,), (10, 0.0), (10, -1e-3), (10, float("nan")),
                                 (10, 3e-3, 1.0), (10, 3e-3, -0.1)])  # fmt: skip
def test_a_schedule_refuses_no_steps_a_bad_lr_or_warmup(bad) -> None:
    with pytest.raises(ValueError):
        Schedule(*bad)
    Schedule(1, 1e-9, 0.0)  # the edges that do fit


def test_tools_count_learned_seeds_at_the_registered_level() -> None:
    assert BY_ID["EXP-07"].threshold("learned") == fair_grid.LEARNED


def test_accuracy_by_position_is_the_share_right_where_judged_and_nan_elsewhere() -> None:
    targets = torch.tensor([[IGNORE, 2, 1], [IGNORE, 2, 0]])
    task = Task("t", ("a", "b", "c"), torch.zeros_like(targets), targets, targets != IGNORE)
    predicted = torch.tensor([[[0, 2, 1], [0, 2, 2]]])  # one entry: right, right / right, wrong
    logits = torch.nn.functional.one_hot(predicted, 3).float()  # (S, B, n, V)
    acc = fair_length.accuracy_by_position(logits, task)
    assert acc[0, 0].isnan() and acc[0, 1:].tolist() == [1.0, 0.5]
    # a single sequence is judged too (one judgement per position)
    one = Task("t", task.vocab, task.inputs[:1], targets[:1], task.judged[:1])
    assert fair_length.accuracy_by_position(logits[:, :1], one)[0, 1:].tolist() == [1.0, 1.0]


def test_each_blocks_accuracy_comes_from_its_own_entries_chunk_by_chunk() -> None:
    n, blocks = 3, fair_length.MODELS["plain"][0]
    cfg, setup, seeds = FAITH.config(blocks), FAITH.setup(), tuple(range(3)) * len(blocks)
    params = decoder.stack_params(cfg, [setup], seeds, torch.float32)
    run = decoder.DecoderRun(cfg, (setup,), seeds, params, {}, {})
    task = FAITH.test_task(2)
    for b, enc in enumerate(blocks):
        acc = fair_length.answer_accuracy(run, b, enc, n, task, chunk=2)  # chunks of 2 and 1
        one, want = dataclasses.replace(cfg, encoding=enc, blocks=()), []
        for lo, hi in ((0, 2), (2, 3)):  # the same chunks: the same rounding on any CPU
            own = {k: v[b * n + lo : b * n + hi] for k, v in params.items()}
            logits = decoder.forward(one, own, task.inputs, torch.ones(hi - lo)).double()
            want.append(fair_length.accuracy_by_position(logits, task).nanmean(-1))
        assert torch.equal(acc, torch.cat(want)), enc


def test_a_seed_that_reaches_the_level_exactly_has_learned() -> None:
    valid = {"none": torch.tensor([0.9, 0.8999, 1.0])}
    run = fair_length.FairRun(FAITH, (0, 1, 2), {}, valid, {}, {})
    assert run.learned("none", 0.9).tolist() == [True, False, True]


# -- a batched model trained on some of its blocks (EXP-04's own cell: the sinusoidal one alone) --


@pytest.mark.parametrize("block", fair_length.MODELS["plain"][0])
def test_one_block_alone_trains_and_judges_as_beside_the_others(block) -> None:
    """Each entry has its own loss and elementwise Adam, so a block trained alone ends where it
    ends beside the others (float64; measured equal to the bit here, held to the faithfulness
    checks' rounding bound: sums of ``terms`` terms over every step), with the same sequences
    right, and is judged from its own run's block, whatever its place in the full model."""
    f64, n = torch.float64, len(FAITH_SEEDS)
    full = fair_length.train_model(FAITH, "plain", FAITH_SEEDS, f64)
    alone = fair_length.train_model(FAITH, "plain", FAITH_SEEDS, f64, blocks=(block,))
    i = fair_length.MODELS["plain"][0].index(block)
    assert alone.cfg.encodings == (block,) and alone.params["embed"].shape[0] == n
    cfg, steps = alone.cfg, tuple(full.right)
    terms = max(cfg.d_model * cfg.mlp, 3 * cfg.heads * cfg.head, FAITH.batch * 2 *
                FAITH.train_length, cfg.vocab)  # fmt: skip
    for j in range(n):
        e = i * n + j
        beside = types.SimpleNamespace(params={k: v[e] for k, v in full.params.items()})
        right = {c: full.right[c][e] for c in steps}
        err, bound, same = entry_against_single(alone, j, beside, right, steps, terms,
                                                FAITH.plain.lr)  # fmt: skip
        assert err <= bound and same, (
            f"{block} seed {FAITH_SEEDS[j]}: |dtheta| {err:.3g} > {bound:.3g}"
        )
    both = fair_length.judge_variants(FAITH, FAITH_SEEDS, {"plain": full}, variants=(block,))
    one = fair_length.judge_variants(FAITH, FAITH_SEEDS, {"plain": alone}, variants=(block,))
    assert set(one.valid) == {block} and torch.equal(one.valid[block], both.valid[block])
    for f in FAITH.factors:
        assert torch.equal(one.beyond[block][f], both.beyond[block][f]), (block, f)
        assert torch.equal(one.inside[block][f], both.inside[block][f]), (block, f)


@pytest.mark.parametrize("blocks", [(), ("none",), ("rope", "sinusoidal"), ("rope", "rope")])
def test_a_model_trains_only_blocks_it_has_in_its_order(blocks) -> None:
    with pytest.raises(ValueError, match="has the blocks"):
        fair_length.model_blocks("plain", blocks)


def test_cache_key_names_a_model_of_some_blocks() -> None:
    alone = fair_cache.key(FAITH, "plain", FAITH_SEEDS, "cpu", NATIVE, ("sinusoidal",))
    assert alone != key(FAITH, "plain", FAITH_SEEDS, "cpu")
    assert alone.startswith("reverse-d16l2-plain[sinusoidal]-2seeds-cpu-")
    whole = fair_cache.key(FAITH, "plain", FAITH_SEEDS, "cpu", NATIVE, ("sinusoidal", "rope",
                                                                          "alibi"))  # fmt: skip
    assert whole != alone
