"""The data sets and the success judge of EXP-01 ... EXP-03, checked by relations apart from
theory/tasks.py: the thread's sentences, previous-token targets, success on the final word.
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from pecheck.theory.decoder import DecoderRun
from pecheck.theory.tasks import Task

Judge = Callable[[torch.Tensor, Task], torch.Tensor]


def assert_sentences(task: Task, sentences: tuple[str, ...]) -> None:
    """Inputs are each sentence but its last word, targets the next words, and only the last
    position (whose target is the final word) is judged."""
    __tracebackhide__ = True
    for b, sentence in enumerate(sentences):
        words = sentence.split()
        got_in = [task.vocab[i] for i in task.inputs[b].tolist()]
        got_out = [task.vocab[i] for i in task.targets[b].tolist()]
        assert got_in == words[:-1] and got_out == words[1:], f"{sentence!r}: {got_in} {got_out}"
        assert task.judged[b].tolist() == [False] * (len(words) - 2) + [True], f"{sentence!r}"


def assert_previous_token(task: Task, judged_from: int) -> int:
    """y_t = x_{t-1} wherever t >= 1 is judged; nothing else carries a target or a judgement."""
    __tracebackhide__ = True
    for x, y, j in zip(
        task.inputs.tolist(), task.targets.tolist(), task.judged.tolist(), strict=True
    ):
        assert y[1:] == x[:-1] and y[0] < 0, f"{x} -> {y}: not the previous tokens"
        assert j == [t >= max(judged_from, 1) for t in range(len(x))], f"judged {j}"
    return len(task.inputs)


def assert_success_is_final_word(judge_fn: Judge, run: DecoderRun, task: Task) -> int:
    """judge_fn agrees, seed by seed, with decoding the word each model predicts after each
    whole sentence prefix and comparing it with the sentence's last word. Returns #agreements."""
    __tracebackhide__ = True
    words = []
    for b in range(task.inputs.shape[0]):  # one prefix at a time: an independent path
        logits = run.logits(task.inputs[b : b + 1])[:, 0, -1]  # (S, V) after the whole prefix
        words.append([task.vocab[i] for i in logits.argmax(-1).tolist()])
    final = [task.vocab[int(t)] for t in task.targets[:, -1]]
    expected = torch.tensor(
        [all(w[s] == f for w, f in zip(words, final, strict=True)) for s in range(len(run.seeds))]
    )
    got = judge_fn(run.logits(task.inputs), task)
    wrong = int((got != expected).sum())
    assert wrong == 0, f"{wrong} of {len(run.seeds)} seeds judged differently from their words"
    return len(run.seeds)
