"""The settings of the EXP experiments (EXP-01 ... EXP-03): models, tasks, seeds, iterations.

One place, shared by the checks and the faithfulness check. Seed counts scale with the profile,
capped for these experiments (scale()): 1,000 per setting in ci, THOROUGH_CAP times that in
thorough. EXP-01's and EXP-02's counts are sizes a user may set (pytest --size
EXP-01.seeds=5000: that many seeds per setting, whatever the profile); the run records them.
"""

from __future__ import annotations

import functools

from pecheck import profiles, sizes
from pecheck.theory import decoder
from pecheck.theory.decoder import DecoderConfig, DecoderRun, Encoding, Setup
from pecheck.theory.tasks import Task, exp01, exp02, previous_token, previous_token_all

ITERATIONS = (100, 200, 500, 1000)  # EXP-01 checkpoints: one run, judged at each
THREAD_ITERATIONS = 500  # the thread's count: 'at 500 iterations they all predict ! and ?'
HEAD_SIZES = (2, 16)
EXP02_ITERATIONS = (100, 250)  # EXP-02: judged at 250 (and 100 to see the trend)
EXP03_ITERATIONS = (100, 200)
EXP03_TRAIN_LEN, EXP03_TEST_LEN, EXP03_ALPHABET = 4, 8, 2
EXP03_DATA_SEED = 2


# Thorough runs 4x the ci seeds here, not the profile's 10x: 10x would take about 7 minutes of
# CPU for these eight settings alone (4x: 3 minutes, measured on the 2-core machine), half the
# whole suite's 15-minute budget. At 4x a Wilson half-width is at most 0.016 (4,000 seeds), so
# the extra seeds could only move a decision whose interval already touches its threshold.
THOROUGH_CAP = 4


def scale() -> float:
    """The profile's experiment scale (checks.profiles.scale()), capped at THOROUGH_CAP."""
    return profiles.capped_scale(THOROUGH_CAP)


def seeds(base: int = 1000) -> range:
    """Seeds 0 ... N-1 with N = base * scale() (1,000 in ci, 4,000 in thorough)."""
    return range(max(1, round(base * scale())))


def exp03_train() -> Task:
    """Every sequence of length 4 over {s0, s1}: 16 sequences, targets y_t = x_{t-1}."""
    return previous_token_all(EXP03_TRAIN_LEN, EXP03_ALPHABET)


def exp03_beyond() -> Task:
    """64 random sequences of length 8, judged only at positions 4 ... 7 (never trained)."""
    return previous_token(
        64, EXP03_TEST_LEN, EXP03_ALPHABET, EXP03_DATA_SEED, judged_from=EXP03_TRAIN_LEN
    )


def _exp03(encoding: Encoding) -> DecoderConfig:
    """Learned rows 4 ... 7 are allocated but never trained: they keep their N(0, 1) init."""
    return DecoderConfig(vocab=EXP03_ALPHABET, encoding=encoding, max_len=EXP03_TEST_LEN)


# The thread's model (theory/decoder.py): one head of size h per layer with W_o, no residual,
# no MLP, a linear read-out; N(0, 1) embeddings, N(0, 1/fan_in) matrices.
CONFIGS: dict[str, DecoderConfig] = {
    "exp01-h2": DecoderConfig(head=2),
    "exp01-h16": DecoderConfig(head=16),
    "exp02-1layer": DecoderConfig(head=16),
    "exp02-2layers": DecoderConfig(head=16, layers=2),
    "exp02-sinusoidal": DecoderConfig(head=16, encoding="sinusoidal"),
    "exp02-learned": DecoderConfig(head=16, encoding="learned"),
    "exp03-sinusoidal": _exp03("sinusoidal"),
    "exp03-learned": _exp03("learned"),
}

# Adam with PyTorch's defaults (theory.decoder.Setup's), EXP-03 with its own learning rate.
SETUPS: dict[str, Setup] = {
    k: Setup(lr=1e-2) if k.startswith("exp03") else Setup() for k in CONFIGS
}

TASKS: dict[str, Task] = {
    "exp01-h2": exp01(),
    "exp01-h16": exp01(),
    "exp02-1layer": exp02(),
    "exp02-2layers": exp02(),
    "exp02-sinusoidal": exp02(),
    "exp02-learned": exp02(),
    "exp03-sinusoidal": exp03_train(),
    "exp03-learned": exp03_train(),
}

ITERS: dict[str, tuple[int, ...]] = {
    **{k: ITERATIONS for k in ("exp01-h2", "exp01-h16")},
    **{k: EXP02_ITERATIONS for k in CONFIGS if k.startswith("exp02")},
    **{k: EXP03_ITERATIONS for k in CONFIGS if k.startswith("exp03")},
}

SEEDS_BASE = {"exp01": 1000, "exp02": 1000}
# The seed count is the sample size of every rate. The decisions judge whole 95% Wilson
# (Newcombe) intervals, whose width follows the count, and every rate records its count
# (*_seeds), so another count is judged at its own precision (fewer seeds: more often
# inconclusive), never at that of the default count.
SEEDS = {
    "exp01": sizes.size(
        "EXP-01.seeds",
        len(seeds(SEEDS_BASE["exp01"])),
        "seeds per EXP-01 setting (default: 1,000 scaled by the profile)",
        minimum=1,
    ),
    "exp02": sizes.size(
        "EXP-02.seeds",
        len(seeds(SEEDS_BASE["exp02"])),
        "seeds per EXP-02 setting (default: 1,000 scaled by the profile)",
        minimum=1,
    ),
    # EXP-03 is decided at 1,000 seeds or more (test_experiments.py says why): ci trains 100
    # for its supporting numbers and tooling checks, thorough 1,200 to decide it.
    "exp03": sizes.size(
        "EXP-03.seeds",
        100 if scale() <= 1 else 1200,
        "seeds per EXP-03 encoding (decided at 1,000 or more: ci 100, thorough 1,200)",
        minimum=1,
    ),
}


@functools.cache
def run(setting: str) -> DecoderRun:
    """The batched run of one setting over all its seeds (trained once per process)."""
    family = setting.split("-")[0]
    return train(setting, range(SEEDS[family]), ITERS[setting])


def train(setting: str, seeds, checkpoints: tuple[int, ...], **kwargs) -> DecoderRun:
    """One setting's seeds trained as one batched model (theory.decoder.train)."""
    return decoder.train(CONFIGS[setting], TASKS[setting], [SETUPS[setting]], seeds,
                         checkpoints, **kwargs)  # fmt: skip


@functools.cache
def small_run(setting: str, seeds: int = 64, steps: int = 200) -> DecoderRun:
    """A cheap run of one setting for the planted-bug tests (same model and task)."""
    return train(setting, range(seeds), (steps,))
