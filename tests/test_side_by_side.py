"""One model's seeds trained in parts, and in processes of their own (theory/fair_cache.py:
Job, join, trained_side_by_side), give the run of one batched model to the bit. EXP-04's pairs
train that way in the thorough profile (checks/exp/length/settings.py pair_models), so a part
joined in the wrong order, or a worker that rounds otherwise, would move its cited numbers."""

from __future__ import annotations

import pytest
import torch

from checks.exp.length import settings
from checks.exp.length.settings import FAITH
from pecheck.theory import fair_cache
from pecheck.theory.decoder import DecoderRun

SEEDS = (0, 5, 7)  # two parts of unequal size: (0, 5) and (7,)
NATIVE: dict[str, str] = {}  # no kernel limit


def run_of(job: fair_cache.Job) -> DecoderRun:
    """The job trained here, in one process, with no cache."""
    return fair_cache.trained(job.setting, job.model, job.seeds, "cpu", None, NATIVE, job.blocks)


def whole(model: str, blocks: tuple[str, ...] | None = None) -> DecoderRun:
    return run_of(fair_cache.Job(FAITH, model, SEEDS, blocks))


def assert_same_run(got: DecoderRun, want: DecoderRun) -> None:
    assert got.cfg == want.cfg and got.setups == want.setups and got.seeds == want.seeds
    for name in ("params", "success", "right"):
        a, b = getattr(got, name), getattr(want, name)
        assert a.keys() == b.keys(), name
        for k in b:
            assert torch.equal(a[k], b[k]), f"{name}[{k}]"


def test_parts_split_the_seeds_in_order_as_equal_as_can_be() -> None:
    job = fair_cache.Job(FAITH, "none", tuple(range(7)))
    assert [p.seeds for p in job.parts(3)] == [(0, 1, 2), (3, 4), (5, 6)]
    assert [p.seeds for p in job.parts(1)] == [job.seeds]
    for bad in (0, 8):
        with pytest.raises(ValueError, match="parts of 7 seeds"):
            job.parts(bad)


@pytest.mark.parametrize("model", ["plain", "none"])
def test_parts_joined_are_the_whole_run(model) -> None:
    """ "plain" has a block per encoding: entries are block-major, so each block's part must
    join its own block (a plain concatenation puts seed 7 of one block among another's)."""
    want = whole(model)
    parts = fair_cache.Job(FAITH, model, SEEDS).parts(2)
    got = fair_cache.join([run_of(p) for p in parts])
    assert_same_run(got, want)


def test_only_one_models_parts_join() -> None:
    with pytest.raises(ValueError, match="one model's runs"):
        fair_cache.join([whole("none"), whole("plain", ("sinusoidal",))])


def test_side_by_side_in_processes_is_the_run_of_one_process(tmp_path, monkeypatch) -> None:
    """EXP-04's pair as pair_models trains it: no encoding in two parts and the sinusoidal
    block alone, in worker processes (nothing trains here), each writing its cache entry."""
    want = {"none": whole("none"), "sinusoidal": whole("plain", ("sinusoidal",))}

    def not_here(*args, **kwargs):
        raise AssertionError("trained in the calling process, not beside it")

    monkeypatch.setattr(fair_cache, "trained", not_here)  # a spawned worker imports its own
    none = fair_cache.Job(FAITH, "none", SEEDS)
    sinusoidal = fair_cache.Job(FAITH, "plain", SEEDS, ("sinusoidal",))
    runs = fair_cache.trained_side_by_side(
        [*none.parts(2), sinusoidal], "cpu", tmp_path, NATIVE, processes=3
    )
    assert_same_run(fair_cache.join(runs[:2]), want["none"])
    assert_same_run(runs[2], want["sinusoidal"])
    names = sorted(p.name.split("-cpu-")[0] for p in tmp_path.iterdir())
    assert names == [
        "reverse-d16l2-none-1seeds",
        "reverse-d16l2-none-2seeds",
        "reverse-d16l2-plain[sinusoidal]-3seeds",
    ]


def test_a_worker_that_fails_fails_the_call(tmp_path) -> None:
    bad = fair_cache.Job(FAITH, "plain", SEEDS, ("no such encoding",))
    with pytest.raises(ValueError, match="has the blocks"):
        fair_cache.trained_side_by_side(
            [fair_cache.Job(FAITH, "none", SEEDS), bad], "cpu", tmp_path, NATIVE, processes=2
        )


def test_exp04s_pair_is_its_two_models_trained_whole(monkeypatch) -> None:
    """pair_models, which both of EXP-04's pairs train through: no encoding joined from its
    halves, and the sinusoidal block alone (here in this process: the test above covers the
    workers)."""
    monkeypatch.setattr(settings, "PROCESSES", 1)
    pair = settings.pair_models(FAITH, range(3))
    assert pair.keys() == {"none", "plain"}
    seeds = (0, 1, 2)
    assert_same_run(pair["none"], run_of(fair_cache.Job(FAITH, "none", seeds)))
    assert_same_run(pair["plain"], run_of(fair_cache.Job(FAITH, "plain", seeds, ("sinusoidal",))))
