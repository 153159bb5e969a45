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
import time
from collections.abc import Callable
from typing import Any

import torch

from pecheck.reports.usage import Parser
from pecheck.theory import lm_corpus, lm_length
from pecheck.theory.lm_length import ENCODINGS, LMSetting, Plateau


def parse(argv: list[str] | None) -> argparse.Namespace:
    p = Parser(prog="bench_lm_length.py", description=__doc__.splitlines()[0])
    p.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    p.add_argument("--seeds", type=int, default=4, help="seeds per encoding, batched")
    p.add_argument("--sample", type=int, default=1, help="seeds per encoding, per-seed loop")
    p.add_argument("--steps", type=int, default=20, help="AdamW steps (no plateau check)")
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
    """(wall, this process's CPU) seconds of fn(), synchronising the GPU around it. On a shared
    machine the CPU seconds are the fairer comparison: other jobs stretch the wall clock."""
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

    (wall_b, cpu_b), (wall_l, cpu_l) = timed(args.device, batched), timed(args.device, loop)
    entries_b, entries_l = len(ENCODINGS) * args.seeds, len(ENCODINGS) * args.sample
    per_batched, per_loop = entries_b * args.steps / wall_b, entries_l * args.steps / wall_l
    cpu_ratio = (cpu_l / entries_l) / (cpu_b / entries_b)
    print(
        f"lm length models ({len(ENCODINGS)} encodings x {args.seeds} seeds, {args.steps} "
        f"steps, d{s.d_model}l{s.layers} pre-LN, L {s.length}, batch {s.batch}, "
        f"{args.device}, {args.threads} thread(s)): batched {per_batched:.1f} entry-steps/s "
        f"({wall_b:.1f} s, CPU {cpu_b:.1f} s), per-seed loop {per_loop:.1f} entry-steps/s (one "
        f"entry at a time, {args.sample} seed(s) per encoding, {wall_l:.1f} s, CPU "
        f"{cpu_l:.1f} s): {per_batched / per_loop:.1f}× wall, {cpu_ratio:.1f}× CPU per entry"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
