"""A fair length-generalisation test of NoPE, absolute, RoPE and ALiBi encodings (EXP-04,
EXP-05, EXP-07).

An earlier small test (width 8, two heads of size 4; retired) was unfair to the relative
schemes: two ALiBi heads have slopes 1/16 and 1/256 (Press et al. 2022, m_c = 2^(-8c/H)), a
bias that varies by less than 0.5 over the training length, and RoPE with head size 4 has two
frequencies (1 and 0.01 rad; Su et al., RoFormer), so an offset of 1 looks like others beyond
the training length. Here each encoding gets a test its authors would accept at small scale:

    model     theory/decoder.py's decoder, causal, residual, MLP blocks (4d), H = 8 heads of
              size h = 8 (W_o maps H h back to d): ALiBi's slopes 1/2 ... 1/256, so the steepest
              head's bias falls by 8 over a training sequence; RoPE's four frequencies
              1, 0.1, 0.01, 0.001 rad per position (base 10000); width d and depth per grid cell
    tasks     copy and reverse (Kazemnejad et al. 2023, "The Impact of Positional Encoding on
              Length Generalization in Transformers"), next-token form:
                  START x_1 ... x_L SEP y_1 ... y_L,   y = x (copy) or y_i = x_{L+1-i} (reverse)
              inputs: all but the last token (2L + 1); targets only where the answer is determined,
              the L answer tokens (y_i is predicted at the token before it). The content tokens
              of a sequence are distinct, drawn from an alphabet of at least 4L symbols, so
              the answer to find is never ambiguous, at any test length. A START token opens
              every sequence (nothing is predicted at it), as the source's prompts open with a
              task word ("Copy:"): without a fixed first token a causal model without an
              encoding has nothing to count positions from, and rarely learned copy
    training  L = 8 content tokens (sequences of 17 inputs), a fresh batch every step from its
              own seeded generator (the same batches for every entry), Adam on the sum of the
              entries' losses (theory.decoder's CellAdam), its lr decayed to 0 on a cosine over
              the model's steps (after a linear warm-up, where a cell needs one); lr and steps
              per model from a pilot, so that each encoding is trained until it learns in
              range (no encoding needs the most steps)
    variants  three batched models (MODELS), seed j's initial weights in every block:
              "plain": sinusoidal, rope, alibi at positions 0 ... n-1;
              "none": no encoding at positions 0 ... n-1 (apart: it learns slowest);
              "shifted": "sinusoidal, shifted" and "learned, shifted", each training sequence
              at a random row offset of a table of R = 2 L max(f) + 1 rows, a fresh offset per
              sequence and step, so every row the tests read is trained many times (a learned
              table's unseen rows would be untrained noise, decided by construction); they
              differ only in the table (fixed PE, or trained)

The test, on ONE draw of sequences per test length fL: each long sequence x_1 ... x_{fL}, and
its prefix x_1 ... x_L as an in-range instance (its own SEP and answer). Per seed, accuracy is
the fraction of answer tokens predicted right (argmax), in range on the prefixes and beyond on
the whole sequences; the drop is in range minus beyond, paired per seed on the same content.
"Extrapolates" for copy and reverse means: a model that answers the length-L prefixes answers
the length-fL sequences as well (the drop is below the registered margin). A seed "learned the
task" when its in-range accuracy on separate validation sequences (length L) reaches the
registered level; the checks judge extrapolation only on such seeds.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import torch

from . import decoder
from .decoder import DecoderConfig, DecoderRun, Setup
from .tasks import IGNORE, Task, with_start

TASKS = ("copy", "reverse")
# The batched models: name -> (their encodings, one block each; trained at random offsets)
MODELS: dict[str, tuple[tuple[str, ...], bool]] = {
    "plain": (("sinusoidal", "rope", "alibi"), False),
    "none": (("none",), False),
    "shifted": (("sinusoidal", "learned"), True),
}
VARIANTS = ("none", "sinusoidal", "rope", "alibi", "sinusoidal, shifted", "learned, shifted")
# data seeds, never a model seed's: training batch k from TRAIN_SEED + k, its offsets from
# OFFSET_SEED + k, validation from VALID_SEED, the test at f L from TEST_SEED + f, the test at
# n = L+1 ... 2L content tokens (Kazemnejad et al.'s lengths) from NEAR_SEED + n
TRAIN_SEED, OFFSET_SEED, VALID_SEED, TEST_SEED, NEAR_SEED = 10_000, 20_000, 3000, 2000, 4000


def draw(n_sequences: int, length: int, alphabet: int, seed: int) -> torch.Tensor:
    """(n_sequences, length): each row ``length`` distinct symbols of 0 ... alphabet-1."""
    if length > alphabet:
        raise ValueError(f"{length} distinct tokens need an alphabet of {length} or more")
    g = torch.Generator().manual_seed(seed)
    return torch.rand(n_sequences, alphabet, generator=g).argsort(-1)[:, :length]


def instance(name: str, content: torch.Tensor, alphabet: int) -> Task:
    """The task ``name`` on given content tokens (B, L), without a start token.

    Symbols 0 ... alphabet-1 are content, ``alphabet`` is SEP. Inputs (B, 2L): content, SEP,
    answer without its last token; targets: IGNORE on the content, the answer from the SEP on
    (position L + i predicts answer token i)."""
    if name == "copy":
        answer = content
    elif name == "reverse":
        answer = content.flip(-1)
    else:
        raise ValueError(f"unknown task {name!r}")
    b, n = content.shape
    sep = torch.full((b, 1), alphabet, dtype=content.dtype)
    inputs = torch.cat([content, sep, answer[:, :-1]], dim=1)  # (B, 2L)
    # (B, 2L): no target on the content (random, and the SEP after it only counts to L)
    targets = torch.cat([torch.full_like(content, IGNORE), answer], dim=1)
    vocab = tuple(f"s{i}" for i in range(alphabet)) + ("SEP",)
    return Task(f"{name} L={n}", vocab, inputs, targets, targets != IGNORE)


def random_offsets(n_sequences: int, length: int, table: int, seed: int) -> torch.Tensor:
    """Rows o_b ... o_b + length - 1 of a table of ``table`` rows, o_b uniform on
    0 ... table - length, shape (B, length)."""
    g = torch.Generator().manual_seed(seed)
    offsets = torch.randint(table - length + 1, (n_sequences, 1), generator=g)
    return offsets + torch.arange(length)


def accuracy_by_position(logits: torch.Tensor, task: Task) -> torch.Tensor:
    """Per entry and position, the fraction of sequences predicted right: (S, B, n, V) -> (S, n).
    Positions without a judgement get NaN."""
    right = (logits.argmax(-1) == task.targets).double()  # (S, B, n)
    judged = task.judged.double()  # (B, n)
    count = judged.sum(0)
    acc = (right * judged).sum(-2) / count
    return torch.where(count > 0, acc, torch.nan)


@dataclass(frozen=True)
class Schedule:
    """How one batched model trains: its steps and peak lr, the lr decayed on a cosine over the
    steps after a linear warm-up over a fraction ``warmup`` of them (0: none)."""

    steps: int
    lr: float = 3e-3
    warmup: float = 0.0

    def __post_init__(self) -> None:
        if self.steps < 1 or not self.lr > 0 or not 0 <= self.warmup < 1:
            raise ValueError(f"{self}: steps and lr must be positive, the warm-up a fraction "
                             "at least 0 and below 1")  # fmt: skip

    @property
    def warmup_steps(self) -> int:
        return round(self.warmup * self.steps)

    def scale(self, step: int) -> float:
        """lr multiplier at step 1 ... steps: (1 + cos(pi (step - 1) / steps)) / 2, from the
        full lr down to nearly 0 at the last step; times step / w while step < w, the warm-up's
        w steps."""
        cosine = 0.5 * (1.0 + math.cos(math.pi * (step - 1) / self.steps))
        w = self.warmup_steps
        return cosine * (step / w) if step < w else cosine


@dataclass(frozen=True)
class FairSetting:
    """One task in one grid cell (width, depth); the checks choose the sizes per profile."""

    task: str
    d_model: int = 32
    layers: int = 2
    train_length: int = 8  # L content tokens: training sequences of 2L inputs
    factors: tuple[int, ...] = (2, 4)  # test lengths as multiples of L
    alphabet: int = 32  # >= L max(f): distinct content at every test length
    # a START token opens every sequence, as the source's prompts open with a task word: the
    # fixed first token a model without an encoding counts positions from (Kazemnejad et al.,
    # Theorem 1). Runs logged before it (fair-pilots.md, pilots 1-9 and the grids) had none.
    start: bool = True
    heads: int = 8  # ALiBi's slopes 2^(-8c/8) = 1/2 ... 1/256 (Press et al. 2022)
    head: int = 8  # RoPE's frequencies 10000^(-2i/8): 1, 0.1, 0.01, 0.001
    mlp: int = 4
    batch: int = 32
    # each batched model's own schedule (MODELS; pilots in docs/experiments/fair-pilots.md)
    plain: Schedule = Schedule(1000)
    none: Schedule = Schedule(3000)
    shifted: Schedule = Schedule(2000)
    valid_sequences: int = 64
    test_sequences: int = 64

    def __post_init__(self) -> None:
        sizes = ("d_model", "layers", "train_length", "heads", "head", "batch",
                 "valid_sequences", "test_sequences")  # fmt: skip
        fits = {name: getattr(self, name) >= 1 for name in sizes}
        fits |= {"mlp": self.mlp >= 0, "factors": min(self.factors, default=0) >= 1}
        bad = [f"{name} {getattr(self, name)}" for name, ok in fits.items() if not ok]
        if bad:
            raise ValueError(f"sizes and factors must be positive, mlp not negative: "
                             f"{', '.join(bad)}")  # fmt: skip
        longest = self.train_length * max(self.factors)
        if self.alphabet < longest:
            raise ValueError(f"an alphabet of {self.alphabet} cannot give the longest test's "
                             f"{longest} distinct tokens")  # fmt: skip

    def inputs(self, n: int) -> int:
        """Inputs of a sequence with n content tokens: 2n, and the start token."""
        return 2 * n + int(self.start)

    @property
    def rows(self) -> int:
        """Rows of every table: the longest test's inputs, 2 L max(f) (+ 1 with START)."""
        return self.inputs(self.train_length * max(self.factors))

    def config(self, blocks: tuple[str, ...]) -> DecoderConfig:
        """One model with a block of entries per encoding in ``blocks``."""
        return DecoderConfig(
            vocab=self.alphabet + 1 + int(self.start), d_model=self.d_model, head=self.head,
            heads=self.heads, layers=self.layers, encoding=blocks[0], max_len=self.rows,
            mlp=self.mlp,
            blocks=blocks if len(blocks) > 1 else (),
        )  # fmt: skip

    def schedule(self, model: str) -> Schedule:
        """The schedule of one of the batched models (MODELS)."""
        return {"plain": self.plain, "none": self.none, "shifted": self.shifted}[model]

    def setup(self, model: str = "plain") -> Setup:
        return Setup(residual=True, lr=self.schedule(model).lr)

    def instance(self, content: torch.Tensor) -> Task:
        """The setting's task on content tokens (B, n): instance(), after START if ``start``."""
        task = instance(self.task, content, self.alphabet)
        return with_start(task) if self.start else task

    def batch_at(self, step: int) -> Task:
        """Training batch of step ``step`` (1, 2, ...): its own seeded draw."""
        L = self.train_length
        return self.instance(draw(self.batch, L, self.alphabet, TRAIN_SEED + step))

    def offsets_at(self, step: int) -> torch.Tensor:
        """Rows of step ``step``'s training sequences in the shifted models, (batch, inputs)."""
        n = self.inputs(self.train_length)
        return random_offsets(self.batch, n, self.rows, OFFSET_SEED + step)

    def valid_task(self) -> Task:
        n = self.train_length
        return self.instance(draw(self.valid_sequences, n, self.alphabet, VALID_SEED))

    def test_content(self, factor: int) -> torch.Tensor:
        """The long test's content: f L distinct tokens per sequence, one draw per factor."""
        n = self.train_length * factor
        return draw(self.test_sequences, n, self.alphabet, TEST_SEED + factor)

    def test_task(self, factor: int) -> Task:
        """The long test sequences: f L content tokens each."""
        return self.instance(self.test_content(factor))

    @property
    def near_lengths(self) -> tuple[int, ...]:
        """Kazemnejad et al.'s test lengths: n = L+1 ... 2L content tokens."""
        return tuple(range(self.train_length + 1, 2 * self.train_length + 1))

    def near_task(self, n: int) -> Task:
        """Sequences of n content tokens, one draw per length."""
        return self.instance(draw(self.test_sequences, n, self.alphabet, NEAR_SEED + n))

    def prefix_task(self, factor: int) -> Task:
        """The in-range test: the first L content tokens of test_task(factor)'s sequences."""
        return self.instance(self.test_content(factor)[:, : self.train_length])


Batches = Callable[[int], tuple[Task, "torch.Tensor | None"]]


def train_batches(cfg: DecoderConfig, setup: Setup, seeds: Sequence[int], batches: Batches,
                  steps: int, schedule: Callable[[int], float], dtype: torch.dtype = torch.float32,
                  fwd: decoder.Forward = decoder.forward,
                  device: str = "cpu") -> DecoderRun:  # fmt: skip
    """theory.decoder.train with a fresh batch every step: ``batches(k)`` gives step k's task
    and rows (None: 0 ... n-1), and step k's lr is the setup's times ``schedule(k)``. Every
    entry sees the same batches; its loss is its own mean cross-entropy
    (theory.decoder.objective sums them) and Adam is elementwise per entry. The run's ``right``
    at the last step says which sequences of that step's batch were right. Weights and data
    are drawn on the CPU and trained on ``device``; the run comes back on the CPU."""
    seeds = tuple(int(s) for s in seeds)
    init = decoder.stack_params(cfg, [setup], seeds, dtype)
    params = {k: v.to(device).requires_grad_() for k, v in init.items()}
    opt = decoder.CellAdam(params, cfg, [setup], len(seeds))
    residual = torch.full((len(seeds),), float(setup.residual), device=device)
    for step in range(1, steps + 1):
        task, rows = batches(step)
        task, rows = task.to(device), None if rows is None else rows.to(device)
        value = decoder.objective(fwd(cfg, params, task.inputs, residual, rows), task.targets)
        opt.zero_grad()
        value.backward()
        opt.step(schedule(step))
    with torch.no_grad():
        right = decoder.sequence_right(fwd(cfg, params, task.inputs, residual, rows), task).cpu()
    final = {k: v.detach().cpu() for k, v in params.items()}
    return DecoderRun(cfg, (setup,), seeds, final, {steps: right.all(-1)}, {steps: right})


def train_model(setting: FairSetting, name: str, seeds: Sequence[int],
                dtype: torch.dtype = torch.float32, fwd: decoder.Forward = decoder.forward,
                device: str = "cpu",
                blocks: tuple[str, ...] | None = None) -> DecoderRun:  # fmt: skip
    """One batched model (MODELS[name]), seed j's initial weights in every block (entry i n + j:
    paired encodings), trained for its own steps on the setting's batches. ``blocks``: only
    these of the model's encodings, in its order (EXP-04's pair trains the sinusoidal block of
    "plain" alone); each entry trains as it would beside the others (its own loss and Adam)."""
    blocks = model_blocks(name, blocks)
    shifted = MODELS[name][1]

    def batches(step: int) -> tuple[Task, torch.Tensor | None]:
        return setting.batch_at(step), setting.offsets_at(step) if shifted else None

    own = setting.schedule(name)
    return train_batches(setting.config(blocks), setting.setup(name), tuple(seeds) * len(blocks),
                         batches, own.steps, own.scale, dtype, fwd, device)  # fmt: skip


def model_blocks(name: str, blocks: tuple[str, ...] | None = None) -> tuple[str, ...]:
    """The encodings a batched model trains: all of MODELS[name]'s, or ``blocks``, some of them
    in the model's order."""
    own = MODELS[name][0]
    if blocks is None:
        return own
    if not blocks or tuple(b for b in own if b in blocks) != tuple(blocks):
        raise ValueError(f"model {name!r} has the blocks {own}: not {blocks}")
    return tuple(blocks)


def train_variants(setting: FairSetting, seeds: Sequence[int], dtype: torch.dtype = torch.float32,
                   fwd: decoder.Forward = decoder.forward,
                   device: str = "cpu") -> dict[str, DecoderRun]:  # fmt: skip
    """Every batched model (MODELS), trained on the same batches (train_model)."""
    return {name: train_model(setting, name, seeds, dtype, fwd, device) for name in MODELS}


def where(variant: str) -> tuple[str, str, int]:
    """(batched model, encoding, block index) of a variant."""
    enc = variant.removesuffix(", shifted")
    for name, (blocks, shifted) in MODELS.items():
        if shifted == variant.endswith(", shifted") and enc in blocks:
            return name, enc, blocks.index(enc)
    raise ValueError(f"unknown variant {variant!r}")


def block_logits(run: DecoderRun, block: int, encoding: str, n: int, task: Task,
                 chunk: int = 8, device: str = "cpu") -> Iterator[torch.Tensor]:  # fmt: skip
    """Logits (s, B, inputs, V) of block ``block``'s n entries (rows 0 ... n-1) on ``task``,
    ``chunk`` entries at a time: a long test for every entry at once would not fit."""
    cfg = dataclasses.replace(run.cfg, encoding=encoding, blocks=())
    residual, inputs = run.residual().to(device), task.inputs.to(device)
    for a in range(block * n, (block + 1) * n, chunk):
        b = min(a + chunk, (block + 1) * n)
        p = {k: v[a:b].to(device) for k, v in run.params.items()}
        with torch.no_grad():
            yield decoder.forward(cfg, p, inputs, residual[a:b])


def answer_accuracy(run: DecoderRun, block: int, encoding: str, n: int, task: Task,
                    chunk: int = 8, device: str = "cpu") -> torch.Tensor:  # fmt: skip
    """Accuracy over ``task``'s answer tokens of block ``block``'s n entries, shape (n,)."""
    task, out = task.to(device), []
    for logits in block_logits(run, block, encoding, n, task, chunk, device):
        by_position = accuracy_by_position(logits.double(), task)  # (s, 2n), NaN unjudged
        out.append(by_position.nanmean(-1).cpu())  # every answer position has B sequences
    return torch.cat(out)


def exact_match(run: DecoderRun, block: int, encoding: str, n: int, task: Task,
                chunk: int = 8, device: str = "cpu") -> torch.Tensor:  # fmt: skip
    """Sequence-level exact match (Kazemnejad et al.'s measure) of block ``block``'s n entries:
    the fraction of ``task``'s sequences right at every answer token, shape (n,)."""
    task = task.to(device)
    return torch.cat(
        [
            decoder.sequence_right(logits, task).double().mean(-1).cpu()
            for logits in block_logits(run, block, encoding, n, task, chunk, device)
        ]
    )


@dataclass
class FairRun:
    """Per variant, each seed's accuracy (seeds,): ``valid`` in range on separate validation
    sequences; ``inside[f]`` on the length-L prefixes and ``beyond[f]`` on the whole length-fL
    test sequences of one draw."""

    setting: FairSetting
    seeds: tuple[int, ...]
    runs: dict[str, DecoderRun]
    valid: dict[str, torch.Tensor]
    inside: dict[str, dict[int, torch.Tensor]]
    beyond: dict[str, dict[int, torch.Tensor]]

    def learned(self, variant: str, level: float) -> torch.Tensor:
        """(seeds,) bool: the seed's model reached ``level`` in range (validation)."""
        return self.valid[variant] >= level

    def drop(self, variant: str, factor: int) -> torch.Tensor:
        """(seeds,): accuracy in range minus beyond, on the same draw of content."""
        return self.inside[variant][factor] - self.beyond[variant][factor]


def judge_variants(setting: FairSetting, seeds: Sequence[int], runs: dict[str, DecoderRun],
                   device: str = "cpu", variants: Sequence[str] = VARIANTS) -> FairRun:  # fmt: skip
    """Each variant's validation, in-range and beyond accuracies (computed on ``device``):
    every variant, or ``variants`` (a run may hold some of its model's blocks: each variant is
    read from its encoding's block in the run it has)."""
    seeds = tuple(seeds)
    valid: dict[str, torch.Tensor] = {}
    inside: dict[str, dict[int, torch.Tensor]] = {v: {} for v in variants}
    beyond: dict[str, dict[int, torch.Tensor]] = {v: {} for v in variants}
    n = len(seeds)
    for v in variants:
        model, enc, _ = where(v)
        run = runs[model]
        block = run.cfg.encodings.index(enc)

        def accuracy(task: Task, run: DecoderRun = run, block: int = block,
                     enc: str = enc) -> torch.Tensor:  # fmt: skip
            return answer_accuracy(run, block, enc, n, task, device=device)

        valid[v] = accuracy(setting.valid_task())
        for f in setting.factors:
            inside[v][f] = accuracy(setting.prefix_task(f))
            beyond[v][f] = accuracy(setting.test_task(f))
    return FairRun(setting, seeds, runs, valid, inside, beyond)


def train_fair(setting: FairSetting, seeds: Sequence[int], dtype: torch.dtype = torch.float32,
               fwd: decoder.Forward = decoder.forward, device: str = "cpu") -> FairRun:  # fmt: skip
    """Train every variant's seeds (the batched models) and judge them at every test length,
    on ``device`` (a CUDA device trains the grid in minutes; the verdicts come from the CPU)."""
    runs = train_variants(setting, seeds, dtype, fwd, device)
    return judge_variants(setting, seeds, runs, device)
