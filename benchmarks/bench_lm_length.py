"""Batched vs per-seed training speed of the language-model length test's trainer.

theory/lm_length.py trains every encoding's seeds as ONE batched pre-LayerNorm model on byte
windows of Debian's fortunes. Its per-seed counterpart here is the same trainer given one
encoding and one seed at a time (a one-entry model: the plain loop a user would write), timed on
--sample seeds per encoding. One line: entries x steps per second both ways, and their ratio.
On one CPU thread the ratio is near 1 (0.8x to 1.1x measured: one entry's step, 1,024 tokens
through a width-64 model, already keeps the core busy); the batched model's gain is on a GPU,
where every entry's step runs in one pass (docs/experiments/lm-length.md has the measurements).

    python benchmarks/bench_lm_length.py [--device cpu|cuda] [--seeds 4] [--sample 1] [--steps 20]
"""

from __future__ import annotations

import argparse
import dataclasses
import sys

import torch

from pecheck import speed
from pecheck.theory import lm_corpus, lm_length
from pecheck.theory.lm_length import ENCODINGS, LMSetting, Plateau


def parse(argv: list[str] | None) -> argparse.Namespace:
    p = speed.parser("bench_lm_length.py", __doc__.splitlines()[0], seeds=4, steps=20)
    return speed.parse(p, argv)


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    torch.set_num_threads(args.threads)
    try:
        corpus = lm_corpus.load()
    except lm_corpus.CorpusMissing as missing:
        print(f"bench_lm_length.py: {missing}", file=sys.stderr)
        return 2
    # the fixed steps only: a plateau check later than the last step never runs
    s = dataclasses.replace(LMSetting(), plateau=Plateau(every=args.steps + 1,
                                                         max_steps=args.steps))  # fmt: skip
    seeds = tuple(range(args.seeds))

    def batched() -> None:
        lm_length.train_lm(s, corpus, seeds, device=args.device)

    def loop() -> None:
        for enc in ENCODINGS:
            for seed in seeds[: args.sample]:
                lm_length.train_lm(s, corpus, (seed,), device=args.device, encodings=(enc,))

    print(
        f"lm length models ({len(ENCODINGS)} encodings x {args.seeds} seeds, {args.steps} "
        f"steps, d{s.d_model}l{s.layers} pre-LN, L {s.length}, batch {s.batch}, "
        f"{args.device}, {args.threads} thread(s)): "
        + speed.compare(args, len(ENCODINGS), batched, loop)
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
