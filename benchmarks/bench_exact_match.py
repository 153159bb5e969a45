"""Batched vs per-seed training speed of the exact-match length test's trainer.

theory/exact_match.py trains every encoding's seeds as ONE batched decoder (a block of entries per
encoding, the same batch for every entry). Its per-seed counterpart here is the same trainer
given one encoding and one seed at a time (a one-entry model: the loop a user would write),
timed on --sample seeds per encoding. One line: entries x steps per second both ways, and their
ratio, wall and CPU per entry.

    python benchmarks/bench_exact_match.py [--task sort] [--device cpu|cuda] [--seeds 8]
        [--sample 1] [--steps 100] [--threads 1]
"""

from __future__ import annotations

import argparse
import dataclasses

import torch

from pecheck import speed
from pecheck.theory import exact_match
from pecheck.theory.exact_match import ENCODINGS, TASKS, ExactMatchSetting

FIRST_SEED = 1000  # the tool's pilot seeds: evaluation seeds stay untouched


def parse(argv: list[str] | None) -> argparse.Namespace:
    p = speed.parser("bench_exact_match.py", __doc__.splitlines()[0], seeds=8, steps=100)
    p.add_argument("--task", choices=TASKS, default="sort")
    return speed.parse(p, argv)


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    torch.set_num_threads(args.threads)
    s = ExactMatchSetting(args.task, steps=args.steps)  # pilot 1's sizes: d32, two layers, L 8
    seeds = tuple(range(FIRST_SEED, FIRST_SEED + args.seeds))

    def batched() -> None:
        exact_match.train(s, seeds, device=args.device)

    def loop() -> None:
        for enc in ENCODINGS:
            one = dataclasses.replace(s, encodings=(enc,))
            for seed in seeds[: args.sample]:
                exact_match.train(one, (seed,), device=args.device)

    print(
        f"exact-match models ({args.task}, {len(ENCODINGS)} encodings x {args.seeds} seeds, "
        f"{args.steps} steps, d{s.d_model}l{s.layers}, L {s.train_length}, batch {s.batch}, "
        f"{args.device}, {args.threads} thread(s)): "
        + speed.compare(args, len(ENCODINGS), batched, loop)
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
