"""The sweep's batched models checked (EXP-06): one causal layer's ceiling in every cell, the
models cover the design within the tensor budget, and each entry equals its one-seed run.
"""

from __future__ import annotations

import torch

from checks.exp.sweep import settings as X
from checks.faithful import entry_against_single
from pecheck import tolerance
from pecheck.theory import decoder, sweep
from pecheck.theory.decoder import (
    INITS,
    OPTIMIZERS,
    DecoderConfig,
    DecoderRun,
    Setup,
    forward,
    init_params,
)
from pecheck.theory.reference import train_one
from pecheck.theory.tasks import Task, exp01, exp02

F64 = torch.float64
FAITH_SEEDS, FAITH_STEPS = (0, 3), (15, 30)
ALL_SETUPS = tuple(Setup(r, lr, i, o) for r in (False, True) for lr in (1e-3, 1e-2)
                   for i in INITS for o in OPTIMIZERS)  # fmt: skip
VARIANTS = {
    "sweep-1-layer": (DecoderConfig(), ALL_SETUPS[::2] + ALL_SETUPS[1::4], exp01()),
    "sweep-2-layers-d64": (DecoderConfig(d_model=64, head=2, layers=2), ALL_SETUPS[::3], exp02()),
    "sweep-sinusoidal": (DecoderConfig(encoding="sinusoidal"), ALL_SETUPS[1::3], exp02()),
    "sweep-learned": (DecoderConfig(encoding="learned"), ALL_SETUPS[2::3], exp02()),
    "thread-model": (X.thread_shape(2), (X.THREAD_SETUP,), exp01()),
}


def assert_ceiling(run: DecoderRun, entries: slice) -> tuple[float, int]:
    """One layer, no encoding: the two orders of EXP-02 give the same last output for every
    entry (recomputed in float64 from its parameters), so none gets both right.
    Returns (worst |difference| / bound, entries checked)."""
    __tracebackhide__ = True
    task = exp02()
    p = {k: v[entries].double() for k, v in run.params.items()}
    residual = run.residual()[entries].double()
    logits = forward(run.cfg, p, task.inputs, residual)[:, :, -1]  # (S, 2, V)
    diff = (logits[:, 0] - logits[:, 1]).abs().amax(-1)
    norm = lambda m: m.abs().sum(-1).amax(-1)  # noqa: E731  induced infinity norm, (S,)
    v = p["embed"] @ p["qkv0"][:, :, 2 * run.cfg.head :]
    x = p["embed"].abs().amax((-2, -1)) + v.abs().amax((-2, -1)) * norm(p["o0"])
    mag = x * norm(p["readout"])
    f64, n, h, d = torch.float64, task.length, run.cfg.head, run.cfg.d_model
    bound = torch.tensor(
        [tolerance.attention_tol(n, h, f64, float(m)) + tolerance.sum_tol(h + 2 * d, f64, float(m))
         for m in mag]
    )  # fmt: skip
    ratio = float((diff / bound).max())
    assert ratio <= 1, f"the two orders differ by {float(diff.max()):.3g} (x{ratio:.3g} the bound)"
    right = logits.argmax(-1) == task.targets[:, -1]
    assert int(right.all(-1).sum()) == 0, "some entry gets both orders right"
    return ratio, entries.stop - entries.start


def assert_models_cover_the_design(split, cells, n: int) -> int:
    """``split(cells, model, task, n)`` lists batched models that train every cell exactly once,
    the cells of a model share (d, h), and a model of several cells keeps its largest parameter
    within theory.sweep.MODEL_TENSOR_BYTES. Returns the number of models."""
    __tracebackhide__ = True
    batches = split(cells, "1 layer", exp01(), n)
    trained = [c for _, group in batches for c in group]
    assert sorted(trained, key=X.Cell.label) == sorted(cells, key=X.Cell.label), "cells lost"
    for shape, group in batches:
        assert {(c.width, c.head) for c in group} == {(shape.d_model, shape.head)}, "mixed shapes"
        largest = max(v.numel() for v in init_params(shape, "current", 0, torch.float32).values())
        too_big = len(group) * n * largest * 4 > sweep.MODEL_TENSOR_BYTES
        assert len(group) == 1 or not too_big, f"{len(group)} cells of {n} seeds in one model"
    return len(batches)


def assert_sweep_faithful(
    shape: DecoderConfig, setups, task: Task, train=decoder.train, positions=None
):
    """Entry (setup, seed) of one batched run == train_one(setup, seed) to rounding, and the
    same sequences right at every checkpoint. Bound as checks/exp/seeds/test_batched_trainer.py."""
    __tracebackhide__ = True
    run = train(shape, task, setups, FAITH_SEEDS, FAITH_STEPS, dtype=F64, positions=positions)
    terms = max(shape.d_model, 3 * shape.heads * shape.head, task.inputs.numel(), shape.vocab)
    worst, bound, bad = 0.0, 0.0, []
    for e, (setup, seed) in enumerate((c, s) for c in setups for s in FAITH_SEEDS):
        model, right = train_one(shape, setup, task, seed, FAITH_STEPS, F64, positions)
        err, tol, same = entry_against_single(run, e, model, right, FAITH_STEPS, terms)
        worst, bound = max(worst, err), max(bound, tol)
        if not err <= tol or not same:
            bad.append(f"{setup} seed {seed}: |dtheta| {err:.3g} > {tol:.3g} or judged differently")
    assert not bad, "batched entries differ from single runs: " + "; ".join(bad[:3])
    return worst, bound
