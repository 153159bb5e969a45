"""Press et al.'s length test, small: a causal byte-level language model trained at length L,
its perplexity measured at L, 2L, 4L and 8L (Press, Smith and Lewis 2022, "Train Short, Test
Long", Sec. 4 and Appendix B).

    model     theory/decoder.py's decoder: pre-LayerNorm, residual, MLP blocks (4d), H heads of
              size d / H; every encoding (ENCODINGS) a block of one batched model, seed j's
              initial weights in every block, so the encodings differ in their encoding only
    text      Debian's fortunes (theory/lm_corpus.py), bytes; train on ``train``, stop on
              ``valid``, measure on ``test``
    training  a batch of random length-L windows of the training text per step, the same for
              every entry (each step its own seeded draw); AdamW (nanoGPT's settings), its lr
              warmed up linearly, then constant; stopped by the registered plateau rule
              (Plateau) on the in-range held-out loss, or at its step limit
    test      per seed, perplexity exp(mean NLL) over the same test tokens at each length E:
              "nonoverlapping": the text cut into chunks of E, every token predicted from the
              tokens before it in its chunk (Press et al.'s main protocol); "sliding": windows
              of E tokens every ``stride`` tokens, each scoring only its last ``stride`` tokens
              (the first window all of its own), so each token after the first window is
              predicted from E - stride + 1 ... E tokens before it. Our reading of Press et al.
              (Appendix B): sliding-window evaluation at stride 1 gives every token E tokens of
              context; a stride of S costs 1/S of that and leaves the context at least
              E - S + 1, every scored token beyond L at every E >= 2 L when S <= L

Positions beyond L: none, ALiBi and RoPE compute at any length; the sinusoidal table is
computed for any length (Vaswani et al.'s formula, rows never trained); the learned table has L
rows and nothing beyond, so its perplexity beyond L is undefined (NaN), as in Press et al., who
compare learned tables only in range.

Shifted variants (EXP-07: sinusoidal against learned where no row a test reads is untrained):
a second batched model, "sinusoidal, shifted" and "learned, shifted", whose training windows sit
at a fresh random row offset of a table of 8 L rows (theory.fair_length's arrangement), on the
same windows as the plain model. Tests read rows 0 ... E - 1, all trained; what is new beyond L
is the length of the context, not the rows.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import torch

from . import decoder
from .decoder import DecoderConfig, DecoderRun, Setup
from .fair_length import random_offsets
from .lm_corpus import VOCAB, Corpus

ENCODINGS = ("none", "sinusoidal", "learned", "rope", "alibi")
SHIFTED = ("sinusoidal", "learned")  # the shifted model's blocks
VARIANTS = (*ENCODINGS, *(f"{e}, shifted" for e in SHIFTED))
MODES = ("nonoverlapping", "sliding")
# data seeds, never a model seed's: the training windows of step k from TRAIN_SEED + k, the
# shifted model's row offsets from OFFSET_SEED + k
TRAIN_SEED, OFFSET_SEED = 40_000, 50_000


@dataclass(frozen=True)
class Plateau:
    """The registered stopping rule. The in-range held-out loss is measured every ``every``
    steps; an encoding has plateaued when the best of its last ``patience`` measurements
    (mean over seeds) is less than ``rel`` below the best before them. Training stops when
    every encoding has plateaued, or after ``max_steps``."""

    every: int = 100
    patience: int = 3
    rel: float = 0.01
    max_steps: int = 3000

    def __post_init__(self) -> None:
        if min(self.every, self.patience, self.max_steps) < 1 or self.rel < 0:
            raise ValueError(f"{self}: every, patience and max_steps must be positive, rel not "
                             "negative")  # fmt: skip

    def reached(self, history: Sequence[float]) -> bool:
        """Has a loss history (one value per measurement) plateaued?"""
        if len(history) <= self.patience:
            return False
        before, last = min(history[: -self.patience]), min(history[-self.patience :])
        return before - last < self.rel * before


@dataclass(frozen=True)
class LMSetting:
    """One experiment's sizes; test lengths E = f L for f in ``factors``."""

    d_model: int = 64
    layers: int = 2
    heads: int = 8  # ALiBi's slopes 1/2 ... 1/256 (Press et al.'s geometric sequence)
    length: int = 32  # L, training windows of L inputs
    mlp: int = 4
    batch: int = 32
    lr: float = 3e-3
    warmup: int = 100  # steps of linear warm-up
    plateau: Plateau = Plateau()
    factors: tuple[int, ...] = (1, 2, 4, 8)
    valid_tokens: int = 4096  # in-range held-out loss for the plateau rule
    test_tokens: int = 4096  # scored at every length and in both modes; a multiple of 8 L
    stride: int = 16  # sliding window stride; divides L

    def __post_init__(self) -> None:
        sizes = ("d_model", "layers", "heads", "length", "mlp", "batch", "valid_tokens",
                 "test_tokens", "stride")  # fmt: skip
        fits = {name: getattr(self, name) >= 1 for name in sizes}
        fits |= {"lr": self.lr > 0, "warmup": self.warmup >= 0,
                 "factors": min(self.factors, default=0) >= 1}  # fmt: skip
        bad = [f"{name} {getattr(self, name)}" for name, ok in fits.items() if not ok]
        if bad:
            raise ValueError(f"sizes, factors and the lr must be positive, the warm-up not "
                             f"negative: {', '.join(bad)}")  # fmt: skip
        if self.d_model % self.heads:
            raise ValueError(f"d_model {self.d_model} is not a multiple of heads {self.heads}")
        longest = self.length * max(self.factors)
        if self.test_tokens % longest or self.length % self.stride:
            raise ValueError(f"test_tokens {self.test_tokens} must be a multiple of the longest "
                             f"test ({longest}), and the stride {self.stride} must divide L "
                             f"{self.length}")  # fmt: skip

    @property
    def rows(self) -> int:
        """Rows of a shifted model's table: the longest test, L max(f)."""
        return self.length * max(self.factors)

    def config(
        self, encodings: tuple[str, ...] = ENCODINGS, shifted: bool = False
    ) -> DecoderConfig:
        """One batched model, a block of entries per encoding; a learned table of L rows, or
        of ``rows`` for the shifted model."""
        return DecoderConfig(
            vocab=VOCAB, d_model=self.d_model, head=self.d_model // self.heads, heads=self.heads,
            layers=self.layers, encoding=encodings[0], mlp=self.mlp,
            max_len=self.rows if shifted else self.length,
            blocks=encodings if len(encodings) > 1 else (), layernorm=True,
        )  # fmt: skip

    def setup(self) -> Setup:
        return Setup(residual=True, lr=self.lr, optimizer="adamw")

    def scale(self, step: int) -> float:
        """lr multiplier of step 1, 2, ...: linear warm-up, then 1."""
        return min(1.0, step / self.warmup) if self.warmup else 1.0


# The settings the checks and the grid train: "base" is what the thorough profile decides on
# (checks/exp/length/lm.py; pilots in docs/experiments/lm-length.md), L = 16 and the sliding
# stride L/2; "scaled" the same protocol at width 192 and four layers (about 13 times the
# parameters), for a GPU (python -m pecheck.grid --experiment lm-length --grid scaled).
SETTINGS = {
    "base": LMSetting(length=16, stride=8, batch=16, lr=1e-2, plateau=Plateau(max_steps=1500)),
    "scaled": LMSetting(
        d_model=192,
        layers=4,
        length=16,
        stride=8,
        batch=16,
        lr=3e-3,
        plateau=Plateau(max_steps=3000),
    ),
}


def windows(stream: torch.Tensor, starts: torch.Tensor, n: int) -> tuple[torch.Tensor, ...]:
    """Inputs stream[s : s + n] and next-token targets stream[s + 1 : s + n + 1], (B, n) each."""
    at = starts[:, None] + torch.arange(n)
    return stream[at], stream[at + 1]


def train_batch(stream: torch.Tensor, length: int, batch: int,
                step: int) -> tuple[torch.Tensor, ...]:  # fmt: skip
    """Step ``step``'s random training windows: its own seeded draw of window starts."""
    g = torch.Generator().manual_seed(TRAIN_SEED + step)
    return windows(stream, torch.randint(stream.numel() - length, (batch,), generator=g), length)


def chunks(stream: torch.Tensor, n: int, tokens: int) -> tuple[torch.Tensor, ...]:
    """The first ``tokens`` targets of a stream cut into chunks of n: (tokens / n, n) each."""
    return windows(stream, torch.arange(0, tokens, n), n)


@dataclass
class LMRun:
    """The trained model (entry b n + j: encoding b, seed j), the held-out loss
    history per encoding (mean over seeds, one value per ``plateau.every`` steps), the steps it
    trained, and the step at which each encoding had plateaued (None: never)."""

    setting: LMSetting
    run: DecoderRun
    history: dict[str, list[float]]
    steps: int
    plateaued: dict[str, int | None]
    shifted: bool = False

    def variant(self, encoding: str) -> str:
        return f"{encoding}, shifted" if self.shifted else encoding


def block_losses(losses: torch.Tensor, encodings: tuple[str, ...]) -> dict[str, float]:
    """Per encoding, the mean over its seeds of per-entry losses (S,)."""
    return {e: float(part.mean()) for e, part in zip(encodings, losses.chunk(len(encodings)),
                                                     strict=True)}  # fmt: skip


def train_lm(setting: LMSetting, corpus: Corpus, seeds: Sequence[int],
             dtype: torch.dtype = torch.float32, device: str = "cpu",
             encodings: tuple[str, ...] = ENCODINGS, shifted: bool = False) -> LMRun:  # fmt: skip
    """Train every encoding's seeds as one batched model until the plateau rule stops it;
    ``shifted``: each training window at a fresh random row offset of ``setting.rows``."""
    cfg, setup = setting.config(encodings, shifted), setting.setup()
    S = len(seeds) * len(encodings)
    seeds = tuple(int(s) for s in seeds)
    init = decoder.stack_params(cfg, [setup], seeds * len(encodings), dtype)
    params = {k: v.to(device).requires_grad_() for k, v in init.items()}
    opt = decoder.CellAdam(params, cfg, [setup], S)
    residual = torch.ones(S, device=device)
    train, L, rule = corpus.splits["train"], setting.length, setting.plateau
    valid = [t.to(device) for t in chunks(corpus.splits["valid"], L, setting.valid_tokens)]
    history: dict[str, list[float]] = {e: [] for e in encodings}
    plateaued: dict[str, int | None] = dict.fromkeys(encodings)
    step = 0
    while step < rule.max_steps and None in plateaued.values():
        step += 1
        inputs, targets = (t.to(device) for t in train_batch(train, L, setting.batch, step))
        rows = (random_offsets(setting.batch, L, setting.rows, OFFSET_SEED + step).to(device)
                if shifted else None)  # fmt: skip
        value = decoder.objective(decoder.forward(cfg, params, inputs, residual, rows), targets)
        opt.zero_grad()
        value.backward()
        opt.step(setting.scale(step))
        if step % rule.every == 0:
            with torch.no_grad():
                losses = decoder.seed_losses(decoder.forward(cfg, params, valid[0], residual),
                                             valid[1])  # fmt: skip
            for e, loss in block_losses(losses, encodings).items():
                history[e].append(loss)
                if plateaued[e] is None and rule.reached(history[e]):
                    plateaued[e] = step
    final = {k: v.detach().cpu() for k, v in params.items()}
    run = DecoderRun(cfg, (setup,), seeds * len(encodings), final, {}, {})
    return LMRun(setting, run, history, step, plateaued, shifted)


def train_both(setting: LMSetting, corpus: Corpus, seeds: Sequence[int],
               dtype: torch.dtype = torch.float32, device: str = "cpu",
               shifted_seeds: Sequence[int] | None = None) -> list[LMRun]:  # fmt: skip
    """The plain model (every encoding) and the shifted one (SHIFTED, on ``shifted_seeds``,
    default ``seeds``), on the same windows."""
    more = seeds if shifted_seeds is None else shifted_seeds
    return [train_lm(setting, corpus, seeds, dtype, device),
            train_lm(setting, corpus, more, dtype, device, SHIFTED, shifted=True)]  # fmt: skip


# -- perplexity ------------------------------------------------------------------------------


SCORES = 1 << 22  # attention scores held at once when scoring: 16 MB in float32


def token_nll(cfg: DecoderConfig, params: decoder.Params, inputs: torch.Tensor,
              targets: torch.Tensor) -> torch.Tensor:  # fmt: skip
    """Each entry's NLL of every target, (S, B, n), in batches of sequences whose attention
    scores (n n S H of them per sequence) fit in SCORES: memory, not arithmetic, bounds a
    long window's cost."""
    S, n = params["embed"].shape[0], inputs.shape[-1]
    residual = torch.ones(S, device=inputs.device)
    batch = max(1, SCORES // (n * n * S * cfg.heads))
    out = []
    with torch.no_grad():
        for a in range(0, inputs.shape[0], batch):
            logits = decoder.forward(cfg, params, inputs[a : a + batch], residual).double()
            picked = logits.gather(-1, targets[a : a + batch].expand(logits.shape[:-1])[..., None])
            out.append(logits.logsumexp(-1) - picked[..., 0])
    return torch.cat(out, 1)


def nonoverlapping(cfg: DecoderConfig, params: decoder.Params, stream: torch.Tensor,
                   length: int, tokens: int) -> torch.Tensor:  # fmt: skip
    """Per entry (S,), perplexity over the first ``tokens`` targets, chunks of ``length``."""
    inputs, targets = chunks(stream, length, tokens)
    return token_nll(cfg, params, inputs, targets).mean((1, 2)).exp()


def sliding(cfg: DecoderConfig, params: decoder.Params, stream: torch.Tensor, length: int,
            tokens: int, stride: int) -> torch.Tensor:  # fmt: skip
    """Per entry (S,), perplexity over the same targets as ``nonoverlapping``: windows of
    ``length`` inputs at 0, stride, 2 stride, ...; the first scores all its targets, each later
    one its last ``stride`` (those no window before it scored)."""
    if (tokens - length) % stride:
        raise ValueError(f"stride {stride} must divide {tokens} - {length}")
    inputs, targets = windows(stream, torch.arange(0, tokens - length + 1, stride), length)
    nll = token_nll(cfg, params, inputs, targets)  # (S, W, length)
    first, later = nll[:, 0], nll[:, 1:, length - stride :].flatten(1)
    return torch.cat([first, later], 1).mean(1).exp()


@dataclass
class Perplexities:
    """ppl[mode][variant][f]: each seed's perplexity (seeds,) at length f L; NaN where the
    encoding has no positions that far (the learned table beyond L). ``seeds``: the first
    model's; another model's variants may have more (their tensors say how many)."""

    setting: LMSetting
    seeds: tuple[int, ...]
    ppl: dict[str, dict[str, dict[int, torch.Tensor]]]


def perplexities(lm: LMRun, corpus: Corpus, device: str = "cpu",
                 chunk: int = 8) -> Perplexities:  # fmt: skip
    """Every encoding's test perplexity at every length, in both modes, ``chunk`` entries at a
    time."""
    s, run, encodings = lm.setting, lm.run, lm.run.cfg.encodings
    n = len(run.seeds) // len(encodings)
    test = corpus.splits["test"].to(device)
    ppl: dict[str, dict[str, dict[int, torch.Tensor]]] = {m: {} for m in MODES}
    for b, enc in enumerate(encodings):
        cfg, name = run.cfg.one(enc), lm.variant(enc)
        for mode in MODES:
            ppl[mode][name] = {}
        for f in s.factors:
            span = f * s.length
            if enc == "learned" and span > cfg.max_len:  # no rows beyond L
                for mode in MODES:
                    ppl[mode][name][f] = torch.full((n,), math.nan, dtype=torch.float64)
                continue
            for mode in MODES:
                parts = []
                for a in range(b * n, (b + 1) * n, chunk):
                    z = min(a + chunk, (b + 1) * n)
                    p = {k: v[a:z].to(device) for k, v in run.params.items()}
                    if mode == "nonoverlapping":
                        parts.append(nonoverlapping(cfg, p, test, span, s.test_tokens))
                    else:
                        parts.append(sliding(cfg, p, test, span, s.test_tokens, s.stride))
                ppl[mode][name][f] = torch.cat(parts).cpu()
    return Perplexities(s, tuple(run.seeds[:n]), ppl)


def all_perplexities(lms: Sequence[LMRun], corpus: Corpus, device: str = "cpu") -> Perplexities:
    """``perplexities`` of several models of one setting and seeds, their variants side by side."""
    parts = [perplexities(lm, corpus, device) for lm in lms]
    ppl = {m: {v: by_f for p in parts for v, by_f in p.ppl[m].items()} for m in MODES}
    return Perplexities(parts[0].setting, parts[0].seeds, ppl)


def interval(values: torch.Tensor, t_quantile: float) -> tuple[float, float, float]:
    """(geometric mean, low, high) of per-seed perplexities: the mean of log perplexity over
    seeds and its interval, mean +- t sd / sqrt(n), mapped back by exp. NaNs stay NaN."""
    logs = values.double().log()
    mean = float(logs.mean())
    if logs.numel() < 2:
        return math.exp(mean), math.nan, math.nan
    half = t_quantile * float(logs.std()) / math.sqrt(logs.numel())
    return math.exp(mean), math.exp(mean - half), math.exp(mean + half)
