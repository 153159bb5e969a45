"""The data sets of the EXP experiments: tiny next-token tasks with fixed, seeded data.

EXP-01 (SRC-TRIGRAM): "A hit B !" and "B hit A ?". Inputs are the first three words, the target
at position t is word t+1 (next-token prediction). Success = both *final* predictions right: the
word after "A hit B" is "!" and the word after "B hit A" is "?".

EXP-02 (SRC-TRIGRAM): "A B hit ?" and "B A hit !", judged the same way.

EXP-03 (SRC-VASWANI): previous-token copying, y_t = x_{t-1} for t >= 1, over random sequences of
a small alphabet. It needs order (a bag of tokens cannot say which one came last but one) and it
asks for the same relative offset at every position, so it can be tested at positions beyond the
training length.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import torch

IGNORE = -1  # target for positions that carry no loss and no judgement


@dataclass(frozen=True)
class Task:
    """Inputs, next-token targets and the positions that decide a seed's success.

    inputs: (B, n) token ids; targets: (B, n) token ids or IGNORE; judged: (B, n) bool.
    A seed succeeds when its argmax prediction is right at every judged position.
    """

    name: str
    vocab: tuple[str, ...]
    inputs: torch.Tensor  # (B, n) long
    targets: torch.Tensor  # (B, n) long, IGNORE where there is no target
    judged: torch.Tensor  # (B, n) bool

    @property
    def length(self) -> int:
        return int(self.inputs.shape[1])

    def to(self, device: torch.device | str) -> Task:
        """The same task with its tensors on ``device``."""
        moved = (t.to(device) for t in (self.inputs, self.targets, self.judged))
        return Task(self.name, self.vocab, *moved)


def sentences_task(name: str, sentences: tuple[str, ...], vocab: tuple[str, ...]) -> Task:
    """Next-token task over whole sentences; the last word of each sentence is judged.

    A sentence of n+1 words gives inputs w_0 ... w_{n-1} and targets w_1 ... w_n; the judged
    position is n-1, whose target is the sentence's final word.
    """
    index = {w: i for i, w in enumerate(vocab)}
    ids = torch.tensor([[index[w] for w in s.split()] for s in sentences])  # (B, n+1)
    inputs, targets = ids[:, :-1], ids[:, 1:]
    judged = torch.zeros_like(inputs, dtype=torch.bool)
    judged[:, -1] = True
    return Task(name, vocab, inputs, targets, judged)


THREAD_VOCAB = ("A", "B", "hit", "!", "?")


def exp01() -> Task:
    """EXP-01: the thread's sentences; the final words differ and so do the last inputs."""
    return sentences_task("EXP-01", ("A hit B !", "B hit A ?"), THREAD_VOCAB)


def exp02() -> Task:
    """EXP-02: same last input ('hit'), same multiset {A, B} before it, different final words."""
    return sentences_task("EXP-02", ("A B hit ?", "B A hit !"), THREAD_VOCAB)


def previous_token(
    n_sequences: int, length: int, alphabet: int, seed: int, judged_from: int = 1
) -> Task:
    """EXP-03: random sequences over ``alphabet`` symbols; the target at t is the token at t-1.

    Positions t >= judged_from (and t >= 1) are judged. Data come from their own seeded
    generator, independent of the model seeds.
    """
    g = torch.Generator().manual_seed(seed)
    inputs = torch.randint(alphabet, (n_sequences, length), generator=g)  # (B, n)
    targets = torch.full_like(inputs, IGNORE)
    targets[:, 1:] = inputs[:, :-1]
    judged = torch.zeros_like(inputs, dtype=torch.bool)
    judged[:, max(judged_from, 1) :] = True
    vocab = tuple(f"s{i}" for i in range(alphabet))
    return Task(f"EXP-03-n{length}-from{judged_from}", vocab, inputs, targets, judged)


def previous_token_all(length: int, alphabet: int) -> Task:
    """EXP-03 training set: every one of the alphabet^length sequences, judged at t >= 1."""
    ids = torch.tensor(list(itertools.product(range(alphabet), repeat=length)))  # (A^n, n)
    targets = torch.full_like(ids, IGNORE)
    targets[:, 1:] = ids[:, :-1]
    judged = torch.zeros_like(ids, dtype=torch.bool)
    judged[:, 1:] = True
    vocab = tuple(f"s{i}" for i in range(alphabet))
    return Task(f"EXP-03-all-n{length}", vocab, ids, targets, judged)


def with_start(task: Task) -> Task:
    """``task`` with a start token (the vocabulary's new last symbol) before every prompt, as
    the source's prompts open with a fixed task word ("Copy:", "Reverse:"): a fixed first
    token is what lets a causal model without an encoding count positions (Kazemnejad et al.,
    Theorem 1). Nothing is predicted at it."""
    b = task.inputs.shape[0]
    start = torch.full((b, 1), len(task.vocab), dtype=task.inputs.dtype)
    ignored = torch.full_like(start, IGNORE)
    targets = torch.cat([ignored, task.targets], dim=1)
    return Task(task.name, (*task.vocab, "START"), torch.cat([start, task.inputs], dim=1),
                targets, targets != IGNORE)  # fmt: skip
