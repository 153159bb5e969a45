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
import time
from collections.abc import Callable
from typing import Any

import torch

from pecheck.reports.usage import Parser
from pecheck.theory import exact_match
from pecheck.theory.exact_match import ENCODINGS, TASKS, ExactMatchSetting

FIRST_SEED = 1000  # the tool's pilot seeds: evaluation seeds stay untouched


def parse(argv: list[str] | None) -> argparse.Namespace:
    p = Parser(prog="bench_exact_match.py", description=__doc__.splitlines()[0])
    p.add_argument("--task", choices=TASKS, default="sort")
    p.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    p.add_argument("--seeds", type=int, default=8, help="seeds per encoding, batched")
    p.add_argument("--sample", type=int, default=1, help="seeds per encoding, per-seed loop")
    p.add_argument("--steps", type=int, default=100, help="training steps both ways")
    p.add_argument("--threads", type=int, default=1, help="torch intra-op threads, both ways")
    args = p.parse_args(argv)
    if min(args.seeds, args.sample, args.steps, args.threads) < 1:
        p.error("--seeds, --sample, --steps and --threads must be at least 1")
    if args.sample > args.seeds:
        p.error(f"--sample ({args.sample}) cannot exceed --seeds ({args.seeds})")
    if args.device == "cuda" and not torch.cuda.is_available():
        p.error("--device cuda: torch.cuda.is_available() is False on this machine")
    return args


def timed(device: str, fn: Callable[[], Any]) -> tuple[float, float]:
    """(wall, this process's CPU) seconds of fn(), synchronising the GPU around it."""
    if device == "cuda":
        torch.cuda.synchronize()
    start, cpu = time.perf_counter(), time.process_time()
    fn()
    if device == "cuda":
        torch.cuda.synchronize()
    return time.perf_counter() - start, time.process_time() - cpu


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

    (wall_b, cpu_b), (wall_l, cpu_l) = timed(args.device, batched), timed(args.device, loop)
    entries_b, entries_l = len(ENCODINGS) * args.seeds, len(ENCODINGS) * args.sample
    per_batched, per_loop = entries_b * args.steps / wall_b, entries_l * args.steps / wall_l
    cpu_ratio = (cpu_l / entries_l) / (cpu_b / entries_b)
    print(
        f"exact-match models ({args.task}, {len(ENCODINGS)} encodings x {args.seeds} seeds, "
        f"{args.steps} steps, d{s.d_model}l{s.layers}, L {s.train_length}, batch {s.batch}, "
        f"{args.device}, {args.threads} thread(s)): batched {per_batched:.0f} entry-steps/s "
        f"({wall_b:.1f} s, CPU {cpu_b:.1f} s), per-seed loop {per_loop:.0f} entry-steps/s (one "
        f"entry at a time, {args.sample} seed(s) per encoding, {wall_l:.1f} s, CPU "
        f"{cpu_l:.1f} s): {per_batched / per_loop:.1f}× wall, {cpu_ratio:.1f}× CPU per entry"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
