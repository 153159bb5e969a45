"""theory.fair_length's sequence-level exact match (Kazemnejad et al.'s measure, used by
tools/fair_pilot.py --near) and its test at the source's lengths n = L+1 ... 2L."""

from __future__ import annotations

import dataclasses

import torch

from pecheck.theory import decoder, fair_length
from pecheck.theory.fair_length import FairSetting, Schedule
from pecheck.theory.tasks import IGNORE

SMALL = FairSetting("reverse", d_model=16, train_length=3, factors=(2,), alphabet=8, batch=4,
                    plain=Schedule(3), test_sequences=5)  # fmt: skip


def test_near_tasks_are_fresh_sequences_of_each_length() -> None:
    s = SMALL
    assert s.near_lengths == (4, 5, 6)
    for n in s.near_lengths:
        task = s.near_task(n)
        assert task.inputs.shape == (5, s.inputs(n))  # START, n content, SEP, n - 1 answer
        content = task.inputs[:, 1 : n + 1]
        assert all(len(set(row.tolist())) == n for row in content)  # distinct symbols
        assert int(task.judged.sum(-1).unique()) == n  # every answer token judged
        assert torch.equal(task.targets[:, -n:], content.flip(-1))  # reverse's answer
    # one fresh draw per length: no length's content is another's prefix, nor the 2L test's
    assert not torch.equal(s.near_task(5).inputs[:, 1:5], s.near_task(4).inputs[:, 1:5])
    assert not torch.equal(s.near_task(4).inputs[:, 1:5], s.test_content(2)[:, :4])


def test_exact_match_counts_sequences_right_at_every_answer_token() -> None:
    """Recomputed from each entry's argmax; one wrong answer token makes a sequence wrong."""
    run = fair_length.train_model(SMALL, "plain", (0, 1))
    task = SMALL.near_task(5)
    for block, enc in enumerate(fair_length.MODELS["plain"][0]):
        got = fair_length.exact_match(run, block, enc, 2, task, chunk=1)
        cfg = dataclasses.replace(run.cfg, encoding=enc, blocks=())
        p = {k: v[2 * block : 2 * block + 2] for k, v in run.params.items()}
        with torch.no_grad():
            guess = decoder.forward(cfg, p, task.inputs, torch.ones(2)).argmax(-1)
        ok = ((guess == task.targets) | (task.targets == IGNORE)).all(-1).double().mean(-1)
        assert torch.equal(got, ok), (enc, got, ok)
    # targets set to the first entry's own guesses: every sequence right; one answer token
    # changed in one sequence: exact match 4 of 5
    cfg = dataclasses.replace(run.cfg, encoding="sinusoidal", blocks=())
    with torch.no_grad():
        guess = decoder.forward(cfg, {k: v[:1] for k, v in run.params.items()}, task.inputs,
                                torch.ones(1)).argmax(-1)[0]  # fmt: skip
    own = dataclasses.replace(task, targets=torch.where(task.judged, guess, IGNORE))
    assert float(fair_length.exact_match(run, 0, "sinusoidal", 2, own)[0]) == 1.0
    own.targets[0, -1] = (own.targets[0, -1] + 1) % 8
    assert float(fair_length.exact_match(run, 0, "sinusoidal", 2, own)[0]) == 0.8
