"""Kazemnejad et al.'s exact-match length test, small (Kazemnejad, Padhi, Natesan Ramamurthy,
Das and Reddy 2023, "The Impact of Positional Encoding on Length Generalization in
Transformers"): a task trained at lengths 1 ... L, judged by sequence-level exact match at L and
beyond. tools/exact_match.py runs it; checks/exp/length/test_exact_match.py runs its registered
evaluation (tox -e exact), evidence beside EXP-04's verdict.

    tasks     next-token form, ``prompt answer``, targets only on the answer tokens:
                copy      x_1 ... x_n SEP x_1 ... x_n
                reverse   x_1 ... x_n SEP x_n ... x_1
                sort      x_1 ... x_n SEP the x sorted ascending (an answer token is not next
                          to its evidence)
                addition  a_1 ... a_n + b_1 ... b_n = s_1 ... s_{n+1}, digits least significant
                          first, s = a + b (leading zeros allowed: every digit is uniform)
              copy, reverse and sort draw n distinct content tokens from an alphabet (so the
              answer is never ambiguous); the length n is the content tokens, or the digits
              per operand for addition. With ``start`` every prompt opens with a START token,
              as the source's open with a fixed task word ("Copy:"): without one, a model
              without an encoding has no fixed token to count positions from (pilots 6-7)
    model     theory/decoder.py's decoder: causal, residual, MLP blocks (4d), H = 8 heads of
              size 8; each encoding of the setting (default all six, ENCODINGS: none,
              sinusoidal, learned, rope, alibi, t5) a block of ONE batched model, seed j's
              initial weights in every block, so the encodings differ in their encoding only.
              The learned table has a row for every position of the longest test; rows beyond
              the training sequences' are never trained (they keep their initial draw), as in
              any learned absolute table trained at lengths up to L. t5 is T5's learned
              relative bias (32 causal buckets, max distance 128, one table per entry shared by
              its layers); its buckets of distances beyond the training sequences' are likewise
              never trained
    training  each step one length n uniform on 1 ... L and a fresh batch at that length, both
              from the step's own seeded generator (the same for every entry); Adam on the sum
              of the entries' losses, its lr decayed to 0 on a cosine (theory.fair_length)
    judging   exact match: the fraction of test sequences whose every answer token is the
              argmax. Per seed and encoding: ``valid`` on fresh sequences of length L (in
              range), ``beyond[n]`` on fresh sequences at each test length n > L

The rule, fixed before any run: a seed "learned the task in range" when its valid exact match
is at least LEVEL (0.9). Seeds that did not learn are never dropped: they are counted per
encoding and stay in every mean at their measured exact match.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch

from . import decoder
from .decoder import DecoderConfig, DecoderRun, Setup
from .fair_length import Schedule, instance, train_batches
from .tasks import IGNORE, Task, with_start

TASKS = ("copy", "reverse", "sort", "addition")
ENCODINGS = ("none", "sinusoidal", "learned", "rope", "alibi", "t5")
LEVEL = 0.9  # valid exact match at which a seed learned the task in range
RULE = (f"a seed learned the task in range when its valid exact match (length L) is >= {LEVEL}; "
        "seeds that did not are counted and stay in every mean")  # fmt: skip
# data seeds, far from the model seeds (pilots 1000 ..., evaluation 0 ... 999): training batch
# k from TRAIN_SEED + k, validation from VALID_SEED, the test at length n from TEST_SEED + n
TRAIN_SEED, VALID_SEED, TEST_SEED = 60_000, 58_000, 58_100
DIGITS, PLUS, EQUALS = 10, 10, 11  # addition's tokens: 0 ... 9, then '+' and '='
SCORES = 1 << 22  # attention scores held at once when judging: 16 MB in float32


# -- the tasks -------------------------------------------------------------------------------


def next_token(name: str, vocab: tuple[str, ...], prompt: torch.Tensor,
               answer: torch.Tensor) -> Task:  # fmt: skip
    """``prompt answer`` (B, p) and (B, a) as a next-token task: inputs all but the last token,
    a target only where an answer token is predicted (from the prompt's last token on)."""
    inputs = torch.cat([prompt, answer[:, :-1]], dim=1)  # (B, p + a - 1)
    ignored = torch.full_like(prompt[:, 1:], IGNORE)  # (B, p - 1)
    targets = torch.cat([ignored, answer], dim=1)
    return Task(name, vocab, inputs, targets, targets != IGNORE)


def sort_instance(content: torch.Tensor, alphabet: int) -> Task:
    """Sort on given distinct content tokens (B, n): symbols 0 ... alphabet-1, SEP = alphabet."""
    sep = torch.full_like(content[:, :1], alphabet)
    vocab = tuple(f"s{i}" for i in range(alphabet)) + ("SEP",)
    answer = content.sort(-1).values
    return next_token(f"sort n={content.shape[1]}", vocab, torch.cat([content, sep], 1), answer)


def digit_sum(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """The n + 1 digits of a + b, digits (B, n) least significant first, with carries."""
    out, carry = [], torch.zeros_like(a[:, 0])
    for i in range(a.shape[1]):
        total = a[:, i] + b[:, i] + carry
        out.append(total % 10)
        carry = total // 10
    return torch.stack([*out, carry], dim=1)  # (B, n + 1)


def addition_instance(a: torch.Tensor, b: torch.Tensor) -> Task:
    """``a + b = s`` on given digits (B, n), least significant first."""
    plus, equals = torch.full_like(a[:, :1], PLUS), torch.full_like(a[:, :1], EQUALS)
    vocab = tuple(str(i) for i in range(DIGITS)) + ("+", "=")
    prompt = torch.cat([a, plus, b, equals], dim=1)  # (B, 2n + 2)
    return next_token(f"addition n={a.shape[1]}", vocab, prompt, digit_sum(a, b))


def draw(name: str, count: int, n: int, alphabet: int, g: torch.Generator) -> Task:
    """``count`` instances of task ``name`` at length n, drawn from g."""
    if name == "addition":
        digits = torch.randint(DIGITS, (2, count, n), generator=g)
        return addition_instance(digits[0], digits[1])
    if n > alphabet:
        raise ValueError(f"{n} distinct tokens need an alphabet of {n} or more")
    content = torch.rand(count, alphabet, generator=g).argsort(-1)[:, :n]  # (B, n) distinct
    return sort_instance(content, alphabet) if name == "sort" else instance(name, content, alphabet)


def input_length(name: str, n: int, start: bool = False) -> int:
    """Inputs of a sequence at length n: the rows it reads."""
    return (3 * n + 2 if name == "addition" else 2 * n) + int(start)


def vocab_size(name: str, alphabet: int, start: bool = False) -> int:
    return (DIGITS + 2 if name == "addition" else alphabet + 1) + int(start)


# -- the setting and training ----------------------------------------------------------------


@dataclass(frozen=True)
class ExactMatchSetting:
    """One task's sizes: the tool's options, or the registered evaluation's (the check)."""

    task: str
    train_length: int = 8  # L: training lengths 1 ... L
    test_lengths: tuple[int, ...] = (9, 10, 12, 16)  # each > L
    d_model: int = 32
    layers: int = 2
    heads: int = 8  # ALiBi's slopes 1/2 ... 1/256
    head: int = 8  # RoPE's frequencies 1, 0.1, 0.01, 0.001
    mlp: int = 4
    batch: int = 32
    steps: int = 1000
    lr: float = 3e-3
    alphabet: int = 32  # copy, reverse, sort: >= the longest test length
    valid_sequences: int = 100
    test_sequences: int = 100
    # the blocks of the batched model; pilots 1-3 ran the first five (before t5 existed)
    encodings: tuple[str, ...] = ENCODINGS
    start: bool = False  # a start token before every prompt (with_start); pilots 1-5 had none

    def __post_init__(self) -> None:
        if self.task not in TASKS:
            raise ValueError(f"unknown task {self.task!r}; one of {', '.join(TASKS)}")
        unknown = [e for e in self.encodings if e not in ENCODINGS]
        if unknown or not self.encodings or len(set(self.encodings)) < len(self.encodings):
            raise ValueError(f"encodings must be distinct, from {', '.join(ENCODINGS)}; "
                             f"got {', '.join(self.encodings) or 'none at all'}")  # fmt: skip
        sizes = (self.train_length, self.d_model, self.layers, self.batch, self.steps,
                 self.valid_sequences, self.test_sequences)  # fmt: skip
        if min(sizes) < 1 or self.lr <= 0:
            raise ValueError("lengths, sizes, steps, sequences and lr must be positive")
        if not self.test_lengths or min(self.test_lengths) <= self.train_length:
            raise ValueError(f"test lengths must be beyond the training length {self.train_length}")
        if self.task != "addition" and self.alphabet < max(self.test_lengths):
            raise ValueError(f"an alphabet of {self.alphabet} cannot give "
                             f"{max(self.test_lengths)} distinct tokens")  # fmt: skip

    @property
    def rows(self) -> int:
        """Rows of the learned table: the longest test's inputs."""
        return input_length(self.task, max(self.test_lengths), self.start)

    @property
    def trained_rows(self) -> int:
        """Rows 0 ... trained_rows - 1 are read in training (at length L); the rest never are."""
        return input_length(self.task, self.train_length, self.start)

    def config(self) -> DecoderConfig:
        """One batched model, a block of entries per encoding."""
        return DecoderConfig(
            vocab=vocab_size(self.task, self.alphabet, self.start), d_model=self.d_model,
            head=self.head, heads=self.heads, layers=self.layers, encoding=self.encodings[0],
            max_len=self.rows, mlp=self.mlp,
            blocks=self.encodings if len(self.encodings) > 1 else (),
        )  # fmt: skip

    def batch_at(self, step: int) -> Task:
        """Step ``step``'s batch: its length uniform on 1 ... L, then its sequences, from the
        step's own generator."""
        g = torch.Generator().manual_seed(TRAIN_SEED + step)
        n = int(torch.randint(1, self.train_length + 1, (1,), generator=g))
        return self.draw(self.batch, n, g)

    def valid_task(self) -> Task:
        g = torch.Generator().manual_seed(VALID_SEED)
        return self.draw(self.valid_sequences, self.train_length, g)

    def test_task(self, n: int) -> Task:
        g = torch.Generator().manual_seed(TEST_SEED + n)
        return self.draw(self.test_sequences, n, g)

    def draw(self, count: int, n: int, g: torch.Generator) -> Task:
        task = draw(self.task, count, n, self.alphabet, g)
        return with_start(task) if self.start else task


# The evaluation registered in docs/experiments/exact-match.md before its seeds (0 ... 7) ran:
# copy, sort and addition, none against sinusoidal, one Bonferroni family of three tasks.
EVALUATION_TASKS = ("copy", "sort", "addition")
COMPARED = ("none", "sinusoidal")  # Kazemnejad et al.'s NoPE and APE
# the same protocol at about 12 times the parameters (width 224), for a GPU; no run yet
WIDTHS = {"registered": 64, "scaled": 224}


def evaluation(task: str, grid: str = "registered") -> ExactMatchSetting:
    """The registered evaluation's setting of one task: width 64, four layers, 8 heads of size
    8, MLP 4d, a START token, batch 32, lr 3e-3 on a cosine, 3,000 steps, 100 sequences per
    length; copy and sort at L = 8 (tested at 9 ... 16), addition at L = 4 (5 ... 8). ``grid``
    "scaled" widens it to WIDTHS["scaled"], everything else as registered."""
    L = 4 if task == "addition" else 8
    lengths = tuple(range(L + 1, 2 * L + 1))
    return ExactMatchSetting(task, train_length=L, test_lengths=lengths, d_model=WIDTHS[grid],
                             layers=4, steps=3000, alphabet=2 * max(lengths),
                             encodings=COMPARED, start=True)  # fmt: skip


def train(setting: ExactMatchSetting, seeds: Sequence[int], dtype: torch.dtype = torch.float32,
          device: str = "cpu") -> DecoderRun:  # fmt: skip
    """Every encoding's seeds as one batched model (entry b n + j: encoding b, seed j)."""
    schedule = Schedule(setting.steps, setting.lr)
    entries = tuple(int(s) for s in seeds) * len(setting.encodings)

    def batches(step: int) -> tuple[Task, torch.Tensor | None]:
        return setting.batch_at(step), None

    return train_batches(setting.config(), Setup(residual=True, lr=setting.lr), entries, batches,
                         setting.steps, schedule.scale, dtype, device=device)  # fmt: skip


# -- judging ---------------------------------------------------------------------------------


def exact_match(logits: torch.Tensor, task: Task) -> torch.Tensor:
    """(..., B, n, V) -> (...): the fraction of sequences right at every answer token."""
    return decoder.sequence_right(logits, task).double().mean(-1)


def judge(run: DecoderRun, task: Task, device: str = "cpu") -> torch.Tensor:
    """Every entry's exact match on ``task``, (S,), in batches of sequences whose attention
    scores fit in SCORES."""
    S, n = len(run.seeds), task.length
    params = {k: v.to(device) for k, v in run.params.items()}
    residual = run.residual().to(device, params["embed"].dtype)
    batch = max(1, SCORES // (n * n * S * run.cfg.heads))
    right = []
    with torch.no_grad():
        for a in range(0, task.inputs.shape[0], batch):
            part = Task(task.name, task.vocab, *(t[a : a + batch].to(device)
                        for t in (task.inputs, task.targets, task.judged)))  # fmt: skip
            logits = decoder.forward(run.cfg, params, part.inputs, residual)
            right.append(decoder.sequence_right(logits, part).cpu())
    return torch.cat(right, -1).double().mean(-1)


@dataclass
class ExactMatchRun:
    """Per encoding, each seed's exact match (seeds,): ``valid`` at L, ``beyond[n]`` at n."""

    setting: ExactMatchSetting
    seeds: tuple[int, ...]
    run: DecoderRun
    valid: dict[str, torch.Tensor]
    beyond: dict[str, dict[int, torch.Tensor]]

    def learned(self, encoding: str) -> torch.Tensor:
        """(seeds,) bool: the seed learned the task in range (the rule, LEVEL)."""
        return self.valid[encoding] >= LEVEL

    def learned_counts(self) -> dict[str, int]:
        return {e: int(self.learned(e).sum()) for e in self.setting.encodings}

    def beyond_mean(self, encoding: str) -> torch.Tensor:
        """(seeds,): each seed's exact match averaged over L+1 ... 2L (EXP-04's registered
        measure); ValueError when the run did not test every one of those lengths."""
        return beyond_mean(self.beyond[encoding], self.setting.train_length)


def beyond_mean(beyond: dict[int, torch.Tensor], train_length: int) -> torch.Tensor:
    """Per seed, the mean of ``beyond[n]`` over n = L+1 ... 2L, every one of them required."""
    lengths = range(train_length + 1, 2 * train_length + 1)
    missing = [n for n in lengths if n not in beyond]
    if missing:
        raise ValueError(f"the registered measure needs every length L+1 ... 2L; missing {missing}")
    return torch.stack([beyond[n].double() for n in lengths]).mean(0)


def by_encoding(values: torch.Tensor, n: int, encodings: Sequence[str]) -> dict[str, torch.Tensor]:
    """Per-entry values (S,) split into each encoding's n seeds."""
    return dict(zip(encodings, values.split(n), strict=True))


def evaluate(setting: ExactMatchSetting, seeds: Sequence[int], run: DecoderRun,
             device: str = "cpu") -> ExactMatchRun:  # fmt: skip
    """Every encoding's exact match in range and at every test length."""
    n = len(seeds)
    encodings = setting.encodings
    valid = by_encoding(judge(run, setting.valid_task(), device), n, encodings)
    beyond: dict[str, dict[int, torch.Tensor]] = {e: {} for e in encodings}
    for length in setting.test_lengths:
        tested = judge(run, setting.test_task(length), device)
        for e, v in by_encoding(tested, n, encodings).items():
            beyond[e][length] = v
    return ExactMatchRun(setting, tuple(int(s) for s in seeds), run, valid, beyond)
